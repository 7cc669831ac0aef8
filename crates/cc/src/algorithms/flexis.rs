//! TCP FlexiS (Qian Li, "TCP FlexiS: A New Approach to Incipient Congestion Detection and
//! Control", IEEE/ACM ToN 2023, DOI 10.1109/TNET.2023.3319441), following the author's
//! Linux module (tinalee77/FlexiS `tcp_flexis.c`, commit d0a7e58) for every rule and
//! constant. Facts only; no code was copied.
//!
//! - Trend of delay, no base delay: each RTT sample is filed under its send time
//!   (now − RTT) in milliseconds; the samples of one millisecond give one point, their
//!   median. Every new point adds the slopes (µs of RTT per ms) to every older point; the
//!   Theil–Sen estimate is the median of all those slopes.
//! - A decision is taken when a point is added and the points span at least τ = 60 ms:
//!   with fewer than σ = 3 points, or a median slope below θ = 30 µs/ms, the window may
//!   grow and the oldest point is dropped; otherwise congestion: cwnd = max(⌊cwnd·γ⌋, 2)
//!   with γ = 0.85, and nothing is sampled until the first segment sent after the
//!   decrease is acknowledged, when everything restarts.
//! - Growth in time, not per ACK: from the first "grow" decision of an epoch (t₀, rate
//!   r₀ = cwnd / minimum RTT of the epoch, packets/s), the target rate is
//!   r(t) = ⌊t/α⌋³ + ⌊t/β⌋ + r₀ packets/s (t in ms since t₀, α = 100 ms, β = 10 ms) and
//!   cwnd = max(cwnd, r(t)·minRTT). Time the window is not the limit is not counted.
//!   Pacing runs r(t + minRTT)/r(t) ahead of cwnd/srtt.
//! - Loss: ssthresh = max(cwnd/2, 2) (TCP's recovery does the rest); at the end of
//!   recovery and on a timeout everything restarts. There is no slow start.
//!
//! Differences from the source (the reasoning is in docs/deviations/flexis.md):
//! - the module's "cwnd-limited" test: docs/deviations/flexis.md#flexis-cwnd-limited
//! - pacing as a rate of our own, not a system-wide ratio: docs/deviations/flexis.md#flexis-pacing
//! - recovery through our datapath's events: docs/deviations/flexis.md#flexis-recovery

use std::collections::VecDeque;

use crate::api::*;
use crate::params::{ParamError, ParamSet, ParamSpec};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Rate, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "flexis",
    aliases: &["tcp-flexis"],
    summary: "TCP FlexiS: Theil-Sen trend of RTT over send time (no base delay), cubic-in-time growth, MD 0.85",
    source: "Qian Li, TCP FlexiS, IEEE/ACM ToN 2023; tinalee77/FlexiS tcp_flexis.c",
    params: PARAMS,
    build,
};

/// Where every FlexiS default comes from.
const SOURCE: &str = "tcp_flexis.c module parameter of that name";

static PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "sigma",
        2,
        1000,
        3,
        "points",
        "σ: fewest points for a trend estimate",
        SOURCE,
    ),
    ParamSpec::int(
        "alpha",
        1,
        100_000,
        100,
        "ms",
        "α: cubic growth term ⌊t/α⌋³ packets/s",
        SOURCE,
    ),
    ParamSpec::int(
        "beta",
        1,
        100_000,
        10,
        "ms",
        "β: linear growth term ⌊t/β⌋ packets/s",
        SOURCE,
    ),
    ParamSpec::int(
        "gamma",
        1,
        99,
        85,
        "%",
        "γ: window kept on a congestion decision",
        SOURCE,
    ),
    ParamSpec::int(
        "tau",
        1,
        100_000,
        60,
        "ms",
        "τ: shortest span of points for a decision",
        SOURCE,
    ),
    ParamSpec::int(
        "theta",
        0,
        1_000_000,
        30,
        "µs/ms",
        "θ: median slope at or above which the delay trend means congestion",
        SOURCE,
    ),
];

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    // The registry resolved every value against PARAMS, so the lookup cannot fail.
    let cfg = FlexisConfig::try_from(p).expect("flexis: parameters resolved against PARAMS");
    Box::new(Flexis::new(&cfg, init))
}

/// FlexiS's parameters. Defaults: the module parameters of `tcp_flexis.c` (commit d0a7e58).
#[derive(Clone, Debug, PartialEq)]
pub struct FlexisConfig {
    /// σ, fewest points for a trend estimate: 3 (`sigma`).
    pub sigma: u32,
    /// α, ms: 100 (`alpha`).
    pub alpha_ms: u64,
    /// β, ms: 10 (`beta`).
    pub beta_ms: u64,
    /// γ, percent of the window kept on congestion: 85 (`gamma`).
    pub gamma_pct: u64,
    /// τ, ms: 60 (`tau`).
    pub tau_ms: u64,
    /// θ, µs of RTT per ms of send time: 30 (`theta`).
    pub theta: i64,
}

impl Default for FlexisConfig {
    fn default() -> FlexisConfig {
        FlexisConfig {
            sigma: 3,
            alpha_ms: 100,
            beta_ms: 10,
            gamma_pct: 85,
            tau_ms: 60,
            theta: 30,
        }
    }
}

impl TryFrom<&ParamSet> for FlexisConfig {
    type Error = ParamError;
    /// The only place FlexiS's parameter names are looked up.
    fn try_from(p: &ParamSet) -> Result<FlexisConfig, ParamError> {
        let r = p.reader("flexis");
        Ok(FlexisConfig {
            sigma: r.u64("sigma")? as u32,
            alpha_ms: r.u64("alpha")?,
            beta_ms: r.u64("beta")?,
            gamma_pct: r.u64("gamma")?,
            tau_ms: r.u64("tau")?,
            theta: r.int("theta")?,
        })
    }
}

/// The module's MIN_CWND, packets.
pub const MIN_CWND: u64 = 2;

/// Median as the module's `median` macro takes it: the middle value, or the truncated
/// integer mean of the two middle values. `v` must be sorted and not empty.
fn median_i64(v: &[i64]) -> i64 {
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    }
}

/// Theil–Sen slope of points (send ms, RTT µs): the median of the pairwise slopes
/// ⌊Δrtt/Δt⌋ (truncated toward zero, as C's integer division), µs per ms. `None` with no
/// pair.
pub fn theil_sen(points: &[(u64, i64)]) -> Option<i64> {
    let mut s = Vec::new();
    for (j, &(tj, rj)) in points.iter().enumerate() {
        for &(ti, ri) in &points[..j] {
            let d = tj as i64 - ti as i64;
            if d > 0 {
                s.push((rj - ri) / d);
            }
        }
    }
    if s.is_empty() {
        return None;
    }
    s.sort_unstable();
    Some(median_i64(&s))
}

/// r(t) = ⌊⌊t/1000⌋/α⌋³ + ⌊⌊t/1000⌋/β⌋ + r₀, packets/s, t in µs (`increase_cwnd`);
/// saturating instead of the module's wrap-around after hours of growth.
pub fn target_rate(t_us: u64, alpha_ms: u64, beta_ms: u64, r0: u64) -> u64 {
    let ms = t_us / 1000;
    (ms / alpha_ms)
        .saturating_pow(3)
        .saturating_add(ms / beta_ms)
        .saturating_add(r0)
}

/// Linux's default `snd_cwnd_clamp` (`~0U`), packets: the window never exceeds it.
pub const CWND_CLAMP: u64 = u32::MAX as u64;

#[derive(Clone, Debug)]
pub struct Flexis {
    cfg: FlexisConfig,
    mss: u64,
    /// Window in packets, as Linux's snd_cwnd.
    cwnd: u64,
    ssthresh: u64,
    /// The current millisecond's samples: (send ms, RTTs µs).
    bin: Option<(u64, Vec<i64>)>,
    /// Points (send ms, median RTT µs), oldest first.
    points: VecDeque<(u64, i64)>,
    /// Start of the growth epoch and its initial rate r₀, packets/s.
    t0: Option<Time>,
    r0: u64,
    /// When the window stopped being the limit (growth time is not counted then).
    t_unlimited: Option<Time>,
    /// After a congestion decision: wait for the ACK of this byte.
    pending: Option<u64>,
    /// Minimum RTT since the last restart, µs.
    epoch_min_rtt: Option<u64>,
    /// Linux srtt for pacing.
    srtt: Option<Dur>,
    /// Pacing ratio in percent.
    pacing_pct: u64,
    last_slope: Option<i64>,
}

impl Flexis {
    pub fn new(cfg: &FlexisConfig, init: CcInit) -> Flexis {
        let mss = init.mss.max(1);
        Flexis {
            cfg: cfg.clone(),
            mss,
            cwnd: (init.initial_cwnd / mss).max(MIN_CWND),
            ssthresh: u64::MAX,
            bin: None,
            points: VecDeque::new(),
            t0: None,
            r0: 0,
            t_unlimited: None,
            pending: None,
            epoch_min_rtt: None,
            srtt: None,
            pacing_pct: 100,
            last_slope: None,
        }
    }

    pub fn cwnd_pkts(&self) -> u64 {
        self.cwnd
    }

    /// `reinit_after_dec`: forget the samples, the epoch and the minimum RTT.
    fn restart(&mut self) {
        self.bin = None;
        self.points.clear();
        self.t0 = None;
        self.epoch_min_rtt = None;
        self.pending = None;
        self.t_unlimited = None;
        self.pacing_pct = 100;
    }

    /// `decrease_cwnd`: cwnd = min(cwnd, max(⌊cwnd·γ/100⌋, 2)).
    fn decrease(&mut self) {
        self.cwnd = self
            .cwnd
            .min((self.cwnd * self.cfg.gamma_pct / 100).max(MIN_CWND));
    }

    /// `increase_cwnd`.
    fn increase(&mut self, now: Time, cwnd_limited: bool) {
        let Some(t0) = self.t0 else { return };
        if !cwnd_limited {
            self.pacing_pct = 100;
            self.t_unlimited.get_or_insert(now);
            return;
        }
        let Some(min_rtt) = self.epoch_min_rtt else {
            return;
        };
        // Time spent not window-limited does not count: shift t0 by it.
        let t0 = match self.t_unlimited.take() {
            Some(u) => t0 + now.since(u),
            None => t0,
        };
        self.t0 = Some(t0);
        if now < t0 {
            return;
        }
        let t1 = now.since(t0).micros();
        let (a, b) = (self.cfg.alpha_ms, self.cfg.beta_ms);
        let r1 = target_rate(t1, a, b, self.r0);
        if r1 == 0 {
            return;
        }
        self.cwnd = self
            .cwnd
            .max((r1.saturating_mul(min_rtt) / 1_000_000).min(CWND_CLAMP));
        // Pacing ratio r(t + minRTT)/r(t), in percent, rounded up.
        let r2 = target_rate(t1 + min_rtt, a, b, self.r0);
        self.pacing_pct = r2.saturating_mul(100).div_ceil(r1);
    }

    /// One RTT sample (`tcp_flexis_cong_avoid`).
    fn sample(&mut self, now: Time, rtt: Dur, ack: &AckSample) {
        let rtt_us = rtt.micros();
        let now_us = now.nanos() / 1000;
        let Some(snd_us) = now_us.checked_sub(rtt_us).filter(|&t| t > 0) else {
            return;
        };
        let snd_ms = snd_us / 1000;
        if self.bin.as_ref().is_some_and(|b| snd_ms < b.0) {
            return;
        }
        if let Some(nxt) = self.pending {
            if ack.snd_una <= nxt {
                return;
            }
            // The first segment sent after the decrease is acknowledged: start afresh.
            self.restart();
        }
        self.epoch_min_rtt = Some(self.epoch_min_rtt.map_or(rtt_us, |m| m.min(rtt_us)));
        let mut reasoning = false;
        match &mut self.bin {
            Some((ms, v)) if *ms == snd_ms => v.push(rtt_us as i64),
            Some((ms, v)) => {
                v.sort_unstable();
                let point = (*ms, median_i64(v));
                // A decision needs at least one older point to draw a slope to.
                reasoning = !self.points.is_empty();
                self.points.push_back(point);
                self.bin = Some((snd_ms, vec![rtt_us as i64]));
            }
            None => self.bin = Some((snd_ms, vec![rtt_us as i64])),
        }
        let span = match (self.points.front(), self.points.back()) {
            (Some(f), Some(l)) => l.0 - f.0 + 1,
            _ => 0,
        };
        if reasoning && span >= self.cfg.tau_ms {
            if self.points.len() >= self.cfg.sigma as usize {
                let slope = theil_sen(self.points.make_contiguous());
                self.last_slope = slope;
                if slope.is_some_and(|s| s >= self.cfg.theta) {
                    self.pending = Some(ack.snd_nxt);
                    self.decrease();
                    self.pacing_pct = 100;
                    return;
                }
            }
            if self.t0.is_none() {
                // `init_inc_epoch`: r₀ = cwnd / epoch minimum RTT, packets/s.
                let m = self.epoch_min_rtt.unwrap_or(rtt_us).max(1);
                self.r0 = self.cwnd * 1_000_000 / m;
                self.t0 = Some(now);
            }
            self.points.pop_front();
        }
        let limited = ack.cwnd_limited || 2 * ack.prior_in_flight > self.cwnd * self.mss;
        self.increase(now, limited);
    }
}

impl CongestionControl for Flexis {
    fn name(&self) -> &'static str {
        "flexis"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        let Some(rtt) = ack.rtt else { return };
        self.srtt = Some(
            self.srtt
                .map_or(rtt, |s| Dur((7 * s.nanos() + rtt.nanos()) / 8)),
        );
        // Linux calls cong_avoid only outside recovery.
        if ack.in_recovery {
            return;
        }
        self.sample(now, rtt, ack);
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        // `tcp_flexis_ssthresh`: max(cwnd/2, 2); the stack's recovery ends at it, unless
        // FlexiS was already reducing (then the module undoes TCP's reduction).
        self.ssthresh = (self.cwnd / 2).max(MIN_CWND);
        if self.pending.is_none() {
            self.cwnd = self.ssthresh;
        }
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        // CA_EVENT_COMPLETE_CWR.
        self.restart();
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        // CA_EVENT_LOSS: the stack sets cwnd to one segment; FlexiS restarts.
        self.ssthresh = (self.cwnd / 2).max(MIN_CWND);
        self.cwnd = 1;
        self.restart();
    }

    fn cwnd(&self) -> u64 {
        self.cwnd * self.mss
    }

    fn ssthresh(&self) -> u64 {
        if self.ssthresh == u64::MAX {
            u64::MAX
        } else {
            self.ssthresh * self.mss
        }
    }

    fn pacing_rate(&self) -> Option<Rate> {
        // Linux's pacing: ratio % × cwnd·mss / srtt.
        let srtt = self.srtt?;
        let bps = (self.cwnd * self.mss * 8) as f64 * self.pacing_pct as f64
            / 100.0
            / srtt.secs_f64().max(1e-6);
        Some(Rate(bps.round() as u64))
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cwnd_pkts", self.cwnd as f64));
        out.push((
            "theil_slope_us_per_ms",
            self.last_slope.map_or(0.0, |s| s as f64),
        ));
        out.push(("points", self.points.len() as f64));
        out.push(("pacing_pct", self.pacing_pct as f64));
        out.push(("pending", if self.pending.is_some() { 1.0 } else { 0.0 }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;

    fn flexis() -> Flexis {
        Flexis::new(
            &FlexisConfig::default(),
            CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(1),
            },
        )
    }

    /// An ACK at `now_us` carrying an RTT sample of `rtt_us`.
    fn ack(f: &mut Flexis, now_us: u64, rtt_us: u64, limited: bool, una: u64) {
        f.on_ack(
            Time(now_us * 1000),
            &AckSample {
                rtt: Some(Dur::from_micros(rtt_us)),
                cwnd_limited: limited,
                bytes_acked: MSS,
                snd_una: una,
                snd_nxt: 1_000_000,
                ..AckSample::empty(MSS)
            },
        );
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            FlexisConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            FlexisConfig::default()
        );
    }

    #[test]
    fn theil_sen_is_the_median_of_truncated_pairwise_slopes() {
        // Slopes (µs/ms): 1→0: 10, 2→0: 50/2 = 25, 2→1: 40. Median 25.
        let p = [(0, 40_000), (1, 40_010), (2, 40_050)];
        assert_eq!(theil_sen(&p), Some(25));
        // Four points, six slopes: 10, 25, 40, 3→0: 7/3 = 2, 3→1: −3/2 = −1 (toward
        // zero), 3→2: −43. Sorted −43, −1, 2, 10, 25, 40: (2 + 10)/2 = 6.
        let p = [(0, 40_000), (1, 40_010), (2, 40_050), (3, 40_007)];
        assert_eq!(theil_sen(&p), Some(6));
        assert_eq!(theil_sen(&p[..1]), None);
    }

    #[test]
    fn growth_is_cubic_plus_linear_in_milliseconds() {
        // t = 1.5 s: ⌊1500/100⌋³ + ⌊1500/10⌋ + 250 = 3375 + 150 + 250.
        assert_eq!(target_rate(1_500_000, 100, 10, 250), 3775);
        // Below one millisecond nothing is added.
        assert_eq!(target_rate(999, 100, 10, 250), 250);
        // Days of growth saturate instead of overflowing.
        assert_eq!(target_rate(u64::MAX, 100, 10, 250), u64::MAX);
    }

    #[test]
    fn decrease_keeps_85_percent_and_at_least_two_packets() {
        let mut f = flexis();
        f.decrease();
        assert_eq!(f.cwnd_pkts(), 8); // ⌊10 · 85 / 100⌋
        f.cwnd = 2;
        f.decrease();
        assert_eq!(f.cwnd_pkts(), 2);
    }

    /// A flat 40 ms RTT, one sample per millisecond of send time: the first decision
    /// comes when the points span τ = 60 ms and starts the epoch (r₀ = 10 packets /
    /// 40 ms = 250 packets/s); the window then follows r(t)·40 ms.
    #[test]
    fn flat_delay_grows_the_window_in_time() {
        let mut f = flexis();
        // Sample k (sent at k ms) arrives at k + 40 ms; point k is made when sample k + 1
        // arrives. Points 1..=60 span 60 ms when sample 61 arrives (at 101 ms).
        for k in 1..=60u64 {
            ack(&mut f, (k + 40) * 1000, 40_000, true, 0);
            assert!(f.t0.is_none(), "sample {k}");
        }
        ack(&mut f, 101_000, 40_000, true, 0);
        assert_eq!((f.t0, f.r0), (Some(Time(101_000_000)), 250));
        assert_eq!(f.last_slope, Some(0));
        // t = 0: r = 250 packets/s → 250 · 0.04 = 10 packets; pacing r(40 ms)/r(0) =
        // (250 + 4)/250 → 102 %.
        assert_eq!((f.cwnd_pkts(), f.pacing_pct), (10, 102));
        // The oldest point was dropped: 59 left, and the bin holds sample 61.
        assert_eq!(f.points.len(), 59);
        for k in 62..=1061u64 {
            ack(&mut f, (k + 40) * 1000, 40_000, true, 0);
        }
        // At 1101 ms, t = 1000 ms: r = 10³ + 100 + 250 = 1350 packets/s → 54 packets;
        // pacing (1000 + 104 + 250)/1350 → 101 %.
        assert_eq!((f.cwnd_pkts(), f.pacing_pct), (54, 101));
    }

    /// Time the window does not limit the sender does not count toward growth.
    #[test]
    fn unlimited_time_shifts_the_epoch() {
        let mut f = flexis();
        for k in 1..=1561u64 {
            // Not window-limited from 201 ms to 700 ms (ACK times).
            let now = k + 40;
            let limited = !(201..=700).contains(&now);
            ack(&mut f, now * 1000, 40_000, limited, 0);
        }
        // Epoch from 101 ms, shifted by 701 − 201 = 500 ms: at 1601 ms, t = 1000 ms → 54.
        assert_eq!(f.t0, Some(Time(601_000_000)));
        assert_eq!(f.cwnd_pkts(), 54);
    }

    /// An RTT rising 50 µs per ms of send time (slope 50 ≥ θ = 30): the first decision
    /// (points 1..=60) is congestion; sampling waits for the ACK past snd_nxt, then
    /// everything restarts.
    #[test]
    fn rising_delay_decreases_once_then_waits_for_the_next_flight() {
        let mut f = flexis();
        let rtt = |k: u64| 40_000 + 50 * k;
        for k in 1..=60u64 {
            ack(&mut f, k * 1000 + rtt(k), rtt(k), true, 0);
            assert_eq!(f.cwnd_pkts(), 10);
        }
        ack(&mut f, 61_000 + rtt(61), rtt(61), true, 0);
        assert_eq!(f.last_slope, Some(50));
        assert_eq!((f.cwnd_pkts(), f.pending), (8, Some(1_000_000)));
        assert!(f.t0.is_none(), "no growth epoch yet");
        // ACKs up to snd_nxt are ignored, however steep.
        for k in 62..=200u64 {
            ack(&mut f, k * 1000 + rtt(k), rtt(k), true, 500_000);
        }
        assert_eq!((f.cwnd_pkts(), f.points.len()), (8, 60));
        // The first ACK past it restarts: the sample opens a fresh bin.
        ack(&mut f, 201_000 + 40_000, 40_000, true, 1_000_001);
        assert_eq!(f.pending, None);
        assert_eq!(
            (f.points.len(), f.bin.as_ref().map(|b| b.0)),
            (0, Some(201))
        );
        assert_eq!(f.epoch_min_rtt, Some(40_000));
    }

    #[test]
    fn loss_halves_and_recovery_exit_restarts() {
        let mut f = flexis();
        for k in 1..=1061u64 {
            ack(&mut f, (k + 40) * 1000, 40_000, true, 0);
        }
        assert_eq!(f.cwnd_pkts(), 54);
        let ev = CongestionEvent {
            kind: CongestionKind::Loss,
            bytes_in_flight: 54 * MSS,
            bytes_lost: MSS,
            mss: MSS,
        };
        f.on_congestion(Time(1_102_000_000), &ev);
        assert_eq!((f.cwnd(), f.ssthresh()), (27 * MSS, 27 * MSS));
        f.on_recovery_exit(Time(1_200_000_000));
        assert!(f.t0.is_none() && f.points.is_empty() && f.epoch_min_rtt.is_none());
        f.on_rto(
            Time(2_000_000_000),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((f.cwnd(), f.ssthresh()), (MSS, 13 * MSS));
    }
}
