//! Receive-side controllers (see `receiver_api.rs`): less-than-best-effort control by
//! the receiver, through the window it advertises.

pub mod rledbat;

use crate::receiver_api::ReceiverAlgorithmInfo;

/// Every registered receive-side controller.
pub static ALL: &[&ReceiverAlgorithmInfo] = &[&rledbat::INFO];
