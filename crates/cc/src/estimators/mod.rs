//! Estimators shared by several algorithms.

pub mod delivery_rate;
