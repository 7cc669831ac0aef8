//! One module per algorithm. Each exports `pub static INFO: AlgorithmInfo` and is listed
//! in `ALL` below.

use crate::registry::AlgorithmInfo;

pub mod apple_ledbat;
pub mod cdg;
pub mod cubic;
pub mod ledbat;
pub mod newreno;
pub mod nice;
pub mod tcp_lp;
pub mod vegas;
pub mod westwood_lp;
pub mod yield_tcp;

pub static ALL: &[&AlgorithmInfo] = &[
    &newreno::INFO,
    &cubic::INFO,
    &ledbat::INFO,
    &apple_ledbat::INFO,
    &yield_tcp::INFO,
    &cdg::INFO,
    &vegas::INFO,
    &nice::INFO,
    &tcp_lp::INFO,
    &westwood_lp::INFO,
];
