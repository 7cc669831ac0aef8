//! Random loss on a link: independent (Bernoulli) or bursty (Gilbert–Elliott).

use scavenger_cc::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossModel {
    None,
    /// Each packet is lost independently with probability p.
    Bernoulli {
        p: f64,
    },
    /// A two-state Markov chain (Gilbert 1960, Elliott 1963), in the parameterisation of
    /// netem and RFC 6534-style descriptions: `p` = P(good → bad), `r` = P(bad → good)
    /// per packet; a packet is lost with probability `loss_good` (1 − k) in the good state
    /// and `loss_bad` (1 − h) in the bad state. Long-run loss rate:
    /// (r · loss_good + p · loss_bad) / (p + r). Simple Gilbert: loss_good = 0, loss_bad = 1.
    GilbertElliott {
        p: f64,
        r: f64,
        loss_good: f64,
        loss_bad: f64,
    },
}

impl LossModel {
    /// The stationary loss probability.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p,
                r,
                loss_good,
                loss_bad,
            } => {
                if p + r == 0.0 {
                    loss_good // never leaves the good state it starts in
                } else {
                    (r * loss_good + p * loss_bad) / (p + r)
                }
            }
        }
    }
}

/// A loss model with its state (the Gilbert–Elliott chain starts in the good state).
#[derive(Clone, Debug)]
pub struct LossProcess {
    model: LossModel,
    bad: bool,
}

impl LossProcess {
    pub fn new(model: LossModel) -> Self {
        LossProcess { model, bad: false }
    }
    pub fn model(&self) -> LossModel {
        self.model
    }
    pub fn in_bad_state(&self) -> bool {
        self.bad
    }

    /// Whether the next packet is lost. The chain moves one step per packet, then the
    /// packet's fate is drawn in the state it is in.
    #[inline]
    pub fn lose(&mut self, rng: &mut Rng) -> bool {
        match self.model {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.chance(p),
            LossModel::GilbertElliott {
                p,
                r,
                loss_good,
                loss_bad,
            } => {
                self.bad = if self.bad {
                    !rng.chance(r)
                } else {
                    rng.chance(p)
                };
                rng.chance(if self.bad { loss_bad } else { loss_good })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(model: LossModel, n: u64, seed: u64) -> f64 {
        let mut l = LossProcess::new(model);
        let mut rng = Rng::new(seed);
        (0..n).filter(|_| l.lose(&mut rng)).count() as f64 / n as f64
    }

    #[test]
    fn stationary_loss_of_gilbert_elliott() {
        // p = 0.01, r = 0.3, loss 0.001 / 0.5: (0.3·0.001 + 0.01·0.5) / 0.31 = 0.0053/0.31 = 0.0170968.
        let m = LossModel::GilbertElliott {
            p: 0.01,
            r: 0.3,
            loss_good: 0.001,
            loss_bad: 0.5,
        };
        assert!((m.mean_loss() - 0.0053 / 0.31).abs() < 1e-12);
        assert_eq!(LossModel::Bernoulli { p: 0.02 }.mean_loss(), 0.02);
    }

    #[test]
    fn gilbert_losses_come_in_bursts() {
        // Simple Gilbert: every packet in the bad state is lost, so bursts have mean
        // length 1/r = 4 and the loss rate is p/(p + r) = 0.02/0.27.
        let mut l = LossProcess::new(LossModel::GilbertElliott {
            p: 0.02,
            r: 0.25,
            loss_good: 0.0,
            loss_bad: 1.0,
        });
        let mut rng = Rng::new(9);
        let (mut bursts, mut lost, mut prev) = (0u64, 0u64, false);
        for _ in 0..1_000_000 {
            let x = l.lose(&mut rng);
            if x && !prev {
                bursts += 1;
            }
            lost += x as u64;
            prev = x;
        }
        let mean_burst = lost as f64 / bursts as f64;
        assert!((mean_burst - 4.0).abs() / 4.0 < 0.05, "{mean_burst}");
        assert!(((lost as f64 / 1e6) - 0.02 / 0.27).abs() / (0.02 / 0.27) < 0.05);
    }

    #[test]
    fn none_never_loses_and_draws_nothing() {
        let mut rng = Rng::new(1);
        let before = rng.clone().next_u64();
        assert_eq!(rate(LossModel::None, 1000, 1), 0.0);
        assert!(!LossProcess::new(LossModel::None).lose(&mut rng));
        assert_eq!(rng.next_u64(), before);
    }
}
