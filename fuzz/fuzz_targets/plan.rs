//! See scavenger_fuzzing::plan.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| scavenger_fuzzing::plan(data));
