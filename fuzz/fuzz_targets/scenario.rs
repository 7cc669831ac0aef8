//! See scavenger_fuzz::scenario.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| scavenger_fuzz::scenario(data));
