//! One module per algorithm. Each exports `pub static INFO: AlgorithmInfo` and is listed
//! in `ALL` below.

use crate::registry::AlgorithmInfo;

pub mod apple_ledbat;
pub mod cubic;
pub mod ledbat;
pub mod newreno;
pub mod yield_tcp;

pub static ALL: &[&AlgorithmInfo] = &[
    &newreno::INFO,
    &cubic::INFO,
    &ledbat::INFO,
    &apple_ledbat::INFO,
    &yield_tcp::INFO,
];
