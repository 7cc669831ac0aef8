//! Random loss on a link. Bernoulli for now; Gilbert–Elliott comes with the
//! network-models issue.

use scavenger_cc::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossModel {
    None,
    /// Each packet is lost independently with probability p.
    Bernoulli { p: f64 },
}

impl LossModel {
    pub fn lose(&self, rng: &mut Rng) -> bool {
        match *self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.chance(p),
        }
    }
}
