//! Estimators shared by several algorithms.

pub mod base_delay;
pub mod delivery_rate;
pub mod receive_rate;
pub mod windowed_minmax;
