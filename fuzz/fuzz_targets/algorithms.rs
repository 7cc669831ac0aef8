//! Every registered algorithm under random, well-formed ACK/loss/ECN/RTO sequences
//! (scavenger_fuzzing::drive).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| scavenger_fuzzing::algorithms(data));
