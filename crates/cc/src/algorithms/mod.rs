//! One module per algorithm. Each exports `pub static INFO: AlgorithmInfo` and is listed
//! in `ALL` below.

use crate::registry::AlgorithmInfo;

pub mod apple_ledbat;
pub mod bbr;
pub mod cdg;
pub mod copa;
pub mod cubic;
pub mod ebb;
pub mod eclipse;
pub mod evarate;
pub mod flexis;
pub mod flower;
pub mod fourcp;
pub mod fractional_window;
pub mod imtcp_bg;
pub mod ledbat;
pub mod ledbat_plus_plus;
pub mod ledbat_presets;
pub mod newreno;
pub mod nice;
pub mod proprate;
pub mod proteus;
pub mod tcp_lp;
pub mod vegas;
pub mod vivace;
pub mod westwood_lp;
pub mod yield_tcp;

pub static ALL: &[&AlgorithmInfo] = &[
    &newreno::INFO,
    &cubic::INFO,
    &ledbat::INFO,
    &apple_ledbat::INFO,
    &yield_tcp::INFO,
    &cdg::INFO,
    &cdg::LINUX,
    &vegas::INFO,
    &nice::INFO,
    &tcp_lp::INFO,
    &westwood_lp::INFO,
    &flower::INFO,
    &ledbat_presets::RFC,
    &ledbat_presets::TUNED,
    &ledbat_plus_plus::INFO,
    &eclipse::INFO,
    &fourcp::INFO,
    &imtcp_bg::INFO,
    &ebb::INFO,
    &bbr::INFO,
    &copa::INFO,
    &evarate::INFO,
    &evarate::INFO_PLUS,
    &proprate::INFO,
    &vivace::INFO,
    &proteus::SCAVENGER,
    &proteus::PRIMARY,
    &proteus::HYBRID,
    &flexis::INFO,
];
