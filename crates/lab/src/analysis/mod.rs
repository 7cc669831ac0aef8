//! Analysis of result records, kept with the studies rather than in a datapath: any
//! record, whichever datapath produced it, is analysed by the same code.
//!
//! - [`compare`]: two records or stores side by side, per flow and metric (`scavenger
//!   compare`), e.g. simulator against testbed;
//! - [`detection`]: Wang 2018 §5.5's mode-detection metrics from a per-bin mode series.

pub mod compare;
pub mod detection;
