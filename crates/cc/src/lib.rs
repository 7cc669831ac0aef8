//! Scavenger's congestion-control layer: algorithms as sans-IO state machines, their
//! typed parameters, and the estimators they share. Nothing here reads a clock, does
//! I/O, or draws randomness except from the `Rng` it is given.

pub mod algorithms;
pub mod api;
pub mod dalbe;
pub mod estimators;
pub mod params;
pub mod profiles;
pub mod receiver_api;
pub mod receivers;
pub mod registry;
pub mod reno;
pub mod rng;
pub mod sample;
pub mod units;

pub use api::*;
pub use params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue, RawParam};
pub use receiver_api::{
    find_receiver, non_shrinking_window, ReceiveWindowControl, ReceiverAlgorithmInfo, RecvInit,
    RecvSample,
};
pub use registry::{algorithms, find, AlgorithmInfo};
pub use rng::Rng;
pub use units::{Dur, Rate, Time};
