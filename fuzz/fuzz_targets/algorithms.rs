//! Every registered algorithm under random, well-formed ACK/loss/ECN/RTO sequences.
#![no_main]
use libfuzzer_sys::{arbitrary::Unstructured, fuzz_target};

fuzz_target!(|data: &[u8]| {
    let _ = scavenger_fuzz::drive(&mut Unstructured::new(data));
});
