//! See scavenger_fuzz::plan.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| scavenger_fuzz::plan(data));
