//! Classifying a server's congestion control from its window trace (Wang 2018 §3.1,
//! extending CAAI of Yang et al.). Pure: a trace in, a verdict out; no I/O, no clock.
//!
//! The trace is the number of data packets that arrived in each emulated round trip
//! (Wang 2018 §3.1 step 2: "counting the number of packets received during an RTT"),
//! with the round of the induced loss and the round at which every ACK was withheld until
//! the server's retransmission timeout (§3.1: "we trigger an RTO event at 14th RTT").
//! Three features, each voting for a class (§3.1: classes by aggressiveness):
//!
//! - β at the loss: the window of the first round after fast recovery over the window in
//!   which one segment was dropped. Linear (Reno, RFC 5681 §3.2: ssthresh = flight/2):
//!   ≈ 0.5; polynomial (CUBIC, RFC 9438 §4.6: β = 0.7; BIC 0.8): 0.62–0.85; rate-based
//!   (BBR: "not ACK-clocked", the window is not cut on a single loss): ≥ 0.85.
//! - β after the RTO: where slow start after the timeout ends (ssthresh) over the window
//!   at the timeout (CAAI: "once RTO occurs, TCP will reset cwnd and ssthresh
//!   differently"); same ranges. A rate-based sender returns to its rate.
//! - growth per round in congestion avoidance, when the window was cut: Reno adds one
//!   packet per RTT (§3.1: "increase cwnd linearly for each RTT"), BIC/CUBIC more and
//!   more per RTT away from W_max (§3.1: "more and more aggressive for each RTT").

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Ordinary round: everything ACKed one emulated RTT after it arrived.
    Normal,
    /// The round whose first new segment the receiver dropped.
    Loss,
    /// ACKs withheld (and data discarded) until the server's RTO retransmission.
    RtoWait,
    /// After the RTO retransmission.
    AfterRto,
}

/// One emulated round trip.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Round {
    /// 1-based.
    pub round: u32,
    /// When its first packet arrived, ns since the probe started.
    pub start_ns: u64,
    /// Data segments (new and retransmitted) that arrived in the round.
    pub packets: u32,
    pub bytes: u64,
    pub phase: Phase,
}

/// The window trace of one probe.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Trace {
    pub rounds: Vec<Round>,
    /// Index (into `rounds`) of the round with the induced loss.
    pub loss: Option<usize>,
    /// Index of the first round whose ACKs were withheld until the RTO.
    pub rto: Option<usize>,
    /// Index of the first round after the RTO retransmission.
    pub resume: Option<usize>,
}

impl Trace {
    /// A trace of plain windows (tests, plots): rounds numbered from 1, 1 s apart.
    pub fn from_windows(w: &[u32]) -> Trace {
        Trace {
            rounds: w
                .iter()
                .enumerate()
                .map(|(i, &p)| Round {
                    round: i as u32 + 1,
                    start_ns: i as u64 * 1_000_000_000,
                    packets: p,
                    bytes: 0,
                    phase: Phase::Normal,
                })
                .collect(),
            ..Trace::default()
        }
    }

    fn w(&self, i: usize) -> Option<u32> {
        self.rounds.get(i).map(|r| r.packets)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Linear,
    Polynomial,
    RateBased,
    Unknown,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Linear => "linear",
            Class::Polynomial => "polynomial",
            Class::RateBased => "rate-based",
            Class::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the classifier measured on the trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Features {
    pub window_at_loss: Option<u32>,
    pub beta_loss: Option<f64>,
    pub window_at_rto: Option<u32>,
    pub beta_rto: Option<f64>,
    /// Median window increase per round in congestion avoidance (packets).
    pub growth_per_round: Option<f64>,
    pub growth_rounds: usize,
    /// When the window was not cut: the smallest of the three windows after the loss
    /// over the window at the loss.
    pub kept_after_loss: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    pub class: Class,
    /// Votes for the class over the features that could vote (0 for unknown).
    pub confidence: f64,
    pub reason: String,
    pub features: Features,
}

/// Windows below this are too small to read a multiplicative decrease from (one packet
/// more or less is ≥ 12 %).
pub const MIN_WINDOW: u32 = 8;
/// β at or above this: the window was not cut (rate-based).
pub const BETA_RATE: f64 = 0.85;
/// β from here to `BETA_RATE`: polynomial (CUBIC 0.7, BIC 0.8).
pub const BETA_POLY: f64 = 0.62;
/// β below this is no multiplicative decrease of any class (e.g. more losses).
pub const BETA_MIN: f64 = 0.3;
/// Reno adds 1 packet per round; more than this per round is polynomial growth.
pub const LINEAR_GROWTH_MAX: f64 = 2.5;
/// Increments needed before the growth feature votes.
pub const MIN_GROWTH_ROUNDS: usize = 3;

fn class_of_beta(b: f64) -> Option<Class> {
    if b >= BETA_RATE {
        Some(Class::RateBased)
    } else if b >= BETA_POLY {
        Some(Class::Polynomial)
    } else if b >= BETA_MIN {
        Some(Class::Linear)
    } else {
        None
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The classification of `t` (module docs: three features, majority vote).
pub fn classify(t: &Trace) -> Verdict {
    let mut f = Features::default();
    let mut notes: Vec<String> = Vec::new();
    let mut votes: Vec<Class> = Vec::new();
    let end_growth = t.rto.unwrap_or(t.rounds.len());

    // β at the induced loss: round L+2 is the first whole round after fast recovery
    // (L+1 carries the retransmission and PRR's reduced flight).
    match t.loss {
        None => notes.push(format!(
            "the trace ended after {} rounds, before the induced loss",
            t.rounds.len()
        )),
        Some(l) => match (t.w(l), t.w(l + 2).filter(|_| l + 2 < end_growth)) {
            (Some(w), _) if w < MIN_WINDOW => notes.push(format!(
                "the window at the induced loss was {w} packets (< {MIN_WINDOW})"
            )),
            (Some(w), Some(after)) => {
                let b = after as f64 / w as f64;
                f.window_at_loss = Some(w);
                f.beta_loss = Some(b);
                match class_of_beta(b) {
                    Some(c) => votes.push(c),
                    None => notes.push(format!("β at the loss {b:.2} fits no class")),
                }
            }
            _ => notes.push(format!(
                "the trace ended in round {}, before the first round after recovery ({})",
                t.rounds.len(),
                l + 3
            )),
        },
    }
    let cut = f.beta_loss.is_some_and(|b| b < BETA_RATE);

    // Congestion avoidance after the loss: increments from round L+2 until the RTO.
    let mut inc: Vec<f64> = Vec::new();
    if let (true, Some(l)) = (cut, t.loss) {
        for i in l + 2..end_growth.saturating_sub(1) {
            if let (Some(a), Some(b)) = (t.w(i), t.w(i + 1)) {
                inc.push(b as f64 - a as f64);
            }
        }
    }

    // β after the RTO: slow start from one packet ends where the growth first drops
    // below 1.5× per round, once the window is past a few packets (F-RTO's first new
    // segments make the first rounds irregular).
    if let (Some(r), Some(s)) = (t.rto, t.resume) {
        let w_rto = t.w(r).unwrap_or(0);
        if w_rto < MIN_WINDOW {
            notes.push(format!(
                "the window at the RTO was {w_rto} packets (< {MIN_WINDOW})"
            ));
        } else {
            f.window_at_rto = Some(w_rto);
            let floor = (w_rto / 8).max(4);
            let exit = (s + 1..t.rounds.len()).find(|&k| {
                let (a, b) = (t.rounds[k - 1].packets, t.rounds[k].packets);
                a >= floor && (b as f64) < 1.5 * a as f64
            });
            match exit {
                Some(k) => {
                    let b = t.rounds[k].packets as f64 / w_rto as f64;
                    f.beta_rto = Some(b);
                    // A sender that did not cut its window on the loss has no ssthresh
                    // to read here (BBR's window after an RTO follows its own recovery,
                    // not a multiplicative decrease): the feature votes for cut windows.
                    match class_of_beta(b) {
                        _ if !cut && f.beta_loss.is_some() => {}
                        Some(c) => votes.push(c),
                        None => notes.push(format!("β after the RTO {b:.2} fits no class")),
                    }
                    if cut {
                        for i in k..t.rounds.len() - 1 {
                            inc.push(t.rounds[i + 1].packets as f64 - t.rounds[i].packets as f64);
                        }
                    }
                }
                None => notes.push("the trace ended in slow start after the RTO".into()),
            }
        }
    } else if t.loss.is_some() && t.rto.is_none() {
        notes.push("the trace ended before the forced RTO".into());
    } else if t.rto.is_some() {
        notes.push("the server did not retransmit after the forced RTO".into());
    }

    f.growth_rounds = inc.len();
    if inc.len() >= MIN_GROWTH_ROUNDS {
        let g = median(&mut inc);
        f.growth_per_round = Some(g);
        votes.push(if g <= LINEAR_GROWTH_MAX {
            Class::Linear
        } else {
            Class::Polynomial
        });
    } else if cut {
        notes.push(format!(
            "{} rounds of congestion avoidance (< {MIN_GROWTH_ROUNDS})",
            inc.len()
        ));
    }

    // Not cut: did the window stay up for the three rounds after the loss (a rate-based
    // sender keeps its rate; a cwnd-based one that missed the loss would cut on the next)?
    if let (false, Some(_), Some(l)) = (cut, f.beta_loss, t.loss) {
        let w = f.window_at_loss.unwrap_or(1) as f64;
        let kept = (l + 1..(l + 4).min(end_growth))
            .filter_map(|i| t.w(i))
            .map(|x| x as f64 / w)
            .fold(f64::INFINITY, f64::min);
        if kept.is_finite() {
            f.kept_after_loss = Some(kept);
            if kept >= BETA_RATE {
                votes.push(Class::RateBased);
            }
        }
    }
    // Growth and the RTO cannot vote when the window was not cut, so a rate-based verdict
    // has two possible votes (β at loss, window kept), the others three.
    let possible = if cut || f.beta_loss.is_none() { 3 } else { 2 };
    let count = |c: Class| votes.iter().filter(|&&v| v == c).count();
    let mut best = [Class::Linear, Class::Polynomial, Class::RateBased]
        .map(|c| (count(c), c))
        .to_vec();
    best.sort_by_key(|b| std::cmp::Reverse(b.0));
    let measured = describe(&f);
    let (class, confidence, reason) = if votes.is_empty() {
        (
            Class::Unknown,
            0.0,
            format!("too little to classify: {}", notes.join("; ")),
        )
    } else if best[0].0 == best[1].0 {
        (
            Class::Unknown,
            0.0,
            format!("the features disagree: {measured}"),
        )
    } else {
        let mut r = measured;
        if !notes.is_empty() {
            r += &format!(" ({})", notes.join("; "));
        }
        (best[0].1, best[0].0 as f64 / possible as f64, r)
    };
    Verdict {
        class,
        confidence,
        reason,
        features: f,
    }
}

fn describe(f: &Features) -> String {
    let mut parts = Vec::new();
    if let (Some(b), Some(w)) = (f.beta_loss, f.window_at_loss) {
        parts.push(format!("β at loss {b:.2} (window {w})"));
    }
    if let (Some(b), Some(w)) = (f.beta_rto, f.window_at_rto) {
        parts.push(format!("β after RTO {b:.2} (window {w})"));
    }
    if let Some(k) = f.kept_after_loss {
        parts.push(format!("window kept at ≥ {k:.2} of it for 3 rounds"));
    }
    if let Some(g) = f.growth_per_round {
        parts.push(format!(
            "{g:+.1} packets/round over {} rounds",
            f.growth_rounds
        ));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic trace: slow start from 10 doubling up to the loss round `l` (1-based),
    /// then `after_loss(k)` for the k-th round after the loss, an RTO at round `rto`,
    /// then slow start from 1 and `after_rto`.
    fn trace(
        l: usize,
        rto: usize,
        after_loss: impl Fn(usize, u32) -> u32,
        after_rto: &[u32],
    ) -> Trace {
        let mut w: Vec<u32> = (0..l).map(|i| 10 << i).collect();
        let wl = *w.last().unwrap();
        for k in 1..rto - l {
            w.push(after_loss(k, wl));
        }
        let w_rto = *w.last().unwrap();
        w.push(w_rto); // the round whose ACKs are withheld
        let resume = w.len();
        w.extend_from_slice(after_rto);
        let mut t = Trace::from_windows(&w);
        t.loss = Some(l - 1);
        t.rto = Some(rto - 1);
        t.resume = Some(resume);
        for (i, r) in t.rounds.iter_mut().enumerate() {
            r.phase = match i {
                _ if i == l - 1 => Phase::Loss,
                _ if i >= resume => Phase::AfterRto,
                _ if i >= rto - 1 => Phase::RtoWait,
                _ => Phase::Normal,
            };
        }
        t
    }

    /// Reno: halve at the loss, +1 per round; after the RTO slow start to half, +1.
    fn reno() -> Trace {
        trace(
            6,
            14,
            |k, w| {
                if k == 1 {
                    w / 2 + 1
                } else {
                    w / 2 + k as u32 - 2
                }
            },
            &[1, 2, 4, 8, 16, 32, 64, 83, 84, 85, 86, 87],
        )
    }

    /// CUBIC (RFC 9438 Eq. 1, C = 0.4, β = 0.7, 0.35 s rounds): concave back to W_max.
    fn cubic() -> Trace {
        let w_cubic = |k: usize, wmax: f64| {
            let kk = (wmax * 0.3 / 0.4).cbrt();
            let t = k as f64 * 0.35;
            (0.4 * (t - kk).powi(3) + wmax).round() as u32
        };
        let pre = w_cubic(7, 320.0);
        let ssthresh = (pre as f64 * 0.7) as u32;
        let post: Vec<u32> = [1u32, 2, 4, 8, 16, 32, 64, 128]
            .into_iter()
            .map(|x| x.min(ssthresh))
            .chain((1..8).map(|k| w_cubic(k, pre as f64)))
            .collect();
        trace(6, 14, move |k, _| w_cubic(k - 1, 320.0), &post)
    }

    /// BBR: no cut on the loss (startup continues, then a plateau at rate × RTT); after
    /// the RTO back to the same flight.
    fn bbr() -> Trace {
        trace(
            6,
            14,
            |k, w| (w << k.min(2)).min(1100) + (k as u32 % 2) * 7,
            &[
                1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1100, 1093, 1100,
            ],
        )
    }

    #[test]
    fn reno_is_linear_with_full_confidence() {
        let v = classify(&reno());
        assert_eq!(v.class, Class::Linear, "{}", v.reason);
        assert_eq!(v.confidence, 1.0);
        let f = &v.features;
        assert_eq!(f.window_at_loss, Some(320));
        assert!((f.beta_loss.unwrap() - 0.5).abs() < 0.02, "{f:?}");
        assert!((f.beta_rto.unwrap() - 0.5).abs() < 0.02, "{f:?}");
        assert_eq!(f.growth_per_round, Some(1.0));
    }

    #[test]
    fn cubic_is_polynomial() {
        let v = classify(&cubic());
        assert_eq!(v.class, Class::Polynomial, "{}", v.reason);
        assert_eq!(v.confidence, 1.0, "{}", v.reason);
        // Round L+2 already carries one round of cubic growth: 0.75 (RFC 9438 Eq. 1).
        let b = v.features.beta_loss.unwrap();
        assert!((0.68..0.8).contains(&b), "{b}");
        assert!(v.features.growth_per_round.unwrap() > LINEAR_GROWTH_MAX);
    }

    #[test]
    fn bbr_is_rate_based_without_a_growth_vote() {
        let v = classify(&bbr());
        assert_eq!(v.class, Class::RateBased, "{}", v.reason);
        assert_eq!(v.confidence, 1.0, "two of two possible votes: {}", v.reason);
        assert!(v.features.beta_loss.unwrap() >= BETA_RATE);
        assert_eq!(v.features.growth_per_round, None);
    }

    /// Traces measured on the testbed (8/1 Mbit/s, 50 ms, MSS 200, emulated RTT 300 ms;
    /// docs/census.md): kernel reno, cubic, bbr.
    fn measured(w: &[u32], loss: usize, rto: usize, resume: usize) -> Trace {
        let mut t = Trace::from_windows(w);
        (t.loss, t.rto, t.resume) = (Some(loss), Some(rto), Some(resume));
        t
    }

    #[test]
    fn measured_kernel_traces_classify() {
        let reno = measured(
            &[
                10, 20, 40, 80, 160, 320, 160, 160, 161, 162, 163, 164, 165, 166, 1, 2, 2, 2, 4, 8,
                16, 32, 64, 81, 84, 85,
            ],
            5,
            13,
            14,
        );
        let cubic = measured(
            &[
                10, 20, 40, 80, 160, 320, 224, 235, 248, 260, 271, 281, 289, 296, 1, 2, 2, 2, 4, 8,
                16, 32, 64, 128, 207, 220,
            ],
            5,
            13,
            14,
        );
        let bbr = measured(
            &[
                10, 20, 32, 60, 128, 251, 254, 490, 928, 1483, 1453, 1175, 1409, 1138, 1100, 194,
                1, 4, 14, 26, 58, 110, 224, 192, 221, 311, 490, 708,
            ],
            5,
            13,
            16,
        );
        for (t, c) in [
            (reno, Class::Linear),
            (cubic, Class::Polynomial),
            (bbr, Class::RateBased),
        ] {
            let v = classify(&t);
            assert_eq!(v.class, c, "{}", v.reason);
            assert_eq!(v.confidence, 1.0, "{}", v.reason);
        }
    }

    #[test]
    fn a_trace_that_ends_before_the_loss_is_unknown_with_the_reason() {
        let mut t = Trace::from_windows(&[10, 20, 40, 35]);
        t.loss = None;
        let v = classify(&t);
        assert_eq!(v.class, Class::Unknown);
        assert_eq!(v.confidence, 0.0);
        assert!(v.reason.contains("before the induced loss"), "{}", v.reason);
    }

    #[test]
    fn a_trace_that_ends_in_recovery_is_unknown() {
        let mut t = Trace::from_windows(&[10, 20, 40, 80, 160, 320, 161]);
        t.loss = Some(5);
        let v = classify(&t);
        assert_eq!(v.class, Class::Unknown);
        assert!(
            v.reason.contains("before the first round after recovery"),
            "{}",
            v.reason
        );
    }

    #[test]
    fn a_tiny_window_at_the_loss_is_not_read() {
        let mut t = Trace::from_windows(&[2, 4, 3, 2, 2, 2]);
        t.loss = Some(1);
        let v = classify(&t);
        assert_eq!(v.class, Class::Unknown);
        assert!(v.reason.contains("< 8"), "{}", v.reason);
    }

    #[test]
    fn loss_alone_classifies_with_lower_confidence() {
        // Reno up to a few rounds after the loss, then the page ended.
        let mut t = Trace::from_windows(&[10, 20, 40, 80, 160, 320, 161, 160, 161, 162, 163]);
        t.loss = Some(5);
        let v = classify(&t);
        assert_eq!(v.class, Class::Linear, "{}", v.reason);
        assert!((v.confidence - 2.0 / 3.0).abs() < 1e-9, "{}", v.confidence);
        assert!(v.reason.contains("before the forced RTO"), "{}", v.reason);
    }

    #[test]
    fn disagreeing_features_give_unknown() {
        // β 0.5 at the loss (linear) but fast growth (polynomial): a tie.
        let mut t = Trace::from_windows(&[10, 20, 40, 80, 160, 320, 161, 160, 180, 200, 220]);
        t.loss = Some(5);
        let v = classify(&t);
        assert_eq!(v.class, Class::Unknown, "{}", v.reason);
        assert!(v.reason.contains("disagree"), "{}", v.reason);
    }

    #[test]
    fn beta_ranges_follow_the_classes() {
        assert_eq!(class_of_beta(0.5), Some(Class::Linear));
        assert_eq!(class_of_beta(0.7), Some(Class::Polynomial));
        assert_eq!(class_of_beta(0.8), Some(Class::Polynomial), "BIC");
        assert_eq!(class_of_beta(1.0), Some(Class::RateBased));
        assert_eq!(class_of_beta(0.1), None);
    }
}
