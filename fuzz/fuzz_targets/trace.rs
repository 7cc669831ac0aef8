//! See scavenger_fuzz::trace.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| scavenger_fuzz::trace(data));
