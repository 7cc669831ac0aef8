//! See scavenger_fuzzing::scenario.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| scavenger_fuzzing::scenario(data));
