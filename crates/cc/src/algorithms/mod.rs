//! One module per algorithm. Each exports `pub static INFO: AlgorithmInfo` and is listed
//! in `ALL` below.

use crate::registry::AlgorithmInfo;

pub mod newreno;

pub static ALL: &[&AlgorithmInfo] = &[
    &newreno::INFO,
];
