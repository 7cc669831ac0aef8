//! See scavenger_fuzzing::trace.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| scavenger_fuzzing::trace(data));
