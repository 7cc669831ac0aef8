//! Deadline-aware less-than-best-effort (DA-LBE) over any congestion control, after
//! Wallenburg 2018 (Libdalbe) and the DA-LBE kernel component it drove.
//!
//! * [`DaLbe`] wraps any `CongestionControl` and applies the knobs ([`Knobs`]): phantom
//!   ECNs, ignoring loss or ECN backoffs, queueing-delay scaling μ; it keeps the
//!   `da_lbe_info` statistics ([`DaLbeInfo`]).
//! * [`MetaController`] is the user-facing, datapath-independent control loop: it sees a
//!   [`FlowView`] every interval and returns knobs. [`ControlledFlow`] runs one over a
//!   `DaLbe` as a `CongestionControl` (Libdalbe's daemon, sans-IO).
//! * [`CubicMbc`] and [`VegasMbc`] are the thesis's model-based controllers;
//!   [`DeadlineSwitch`] is ours (docs/dalbe.md).
//!
//! Deviations and resolved ambiguities: docs/deviations/dalbe.md.
//!
//! Differences from the source (the reasoning is in docs/deviations/dalbe.md):
//! - phantom-ECN suppression condition: docs/deviations/dalbe.md#dalbe-phantom-ecn-suppress
//! - which events count as loss events I: docs/deviations/dalbe.md#dalbe-loss-events
//! - μ's representation and direction: docs/deviations/dalbe.md#dalbe-mu
//! - values the thesis does not state: docs/deviations/dalbe.md#dalbe-unstated-values
//! - CWR emulation for phantom ECNs: docs/deviations/dalbe.md#dalbe-cwr-emulation
//! - behaviour after the deadline: docs/deviations/dalbe.md#dalbe-after-deadline
//! - controller ticks on the flow's events: docs/deviations/dalbe.md#dalbe-tick-timing
//! - progress reported by the application: docs/deviations/dalbe.md#dalbe-app-progress

pub mod deadline;
pub mod examples;
pub mod knobs;
pub mod mbc;
pub mod meta;
pub mod registry;
pub mod wrapper;

#[cfg(test)]
mod tests;

pub use deadline::{DeadlineConfig, DeadlineSwitch, Mode, DEADLINE_PARAMS};
pub use knobs::{DaLbeInfo, Knobs};
pub use mbc::{
    CubicMbc, CubicMbcConfig, MbcCommon, PriceScaling, RttMean, VegasMbc, VegasMbcConfig,
    CUBIC_MBC_PARAMS, VEGAS_MBC_PARAMS,
};
pub use meta::{ControlledFlow, FlowGoal, FlowView, MetaController};
pub use registry::{controlled, find_controller, ControllerInfo, CONTROLLERS};
pub use wrapper::DaLbe;
