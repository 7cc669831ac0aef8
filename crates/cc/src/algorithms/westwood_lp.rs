//! Westwood+LP as implemented and evaluated in Ong 2020 (§2.2.5, §3.6.2,
//! App. A.3): Linux Westwood+ bandwidth estimation plus Westwood-LP's Early Window
//! Reduction (EWR). On every ACK outside slow start the virtual queue
//! `q_len = cwnd - bw_est·rtt_min/MSS` (eq. 2.4) is compared with
//! `ewr_thresh = M·(1 - rtt/rtt_loss)·(1 - delay_min/delay_max)` (eq. 2.6); above it,
//! cwnd = ssthresh = max(bw_est·rtt_min/MSS, 2). Otherwise Reno.
//!
//! By default (`as_evaluated_truncation = true`) everything is computed as the evaluated
//! module does: the App. A.3 threshold and queue length in unsigned 32-bit integers with
//! percent scaling, ×4-scaled averages with `delay_loss` starting at 1, wrap-around
//! included, and the Westwood+ estimator in Linux units (bytes per jiffy, RTTs in
//! jiffies rounded up). `false` evaluates eq. 2.4 and 2.6 in real arithmetic (the
//! intended math). As in the module, the RTT extremes delay_min/delay_max are only
//! sampled on "slow-path" ACKs (`delay_samples`).
//!
//! Differences from the source (the reasoning is in docs/deviations/westwood-lp.md):
//! - delay_min/delay_max are sampled on slow-path ACKs only, as the evaluated module:
//!   docs/deviations/westwood-lp.md#wwlp-slow-path-minmax
//! - the threshold uses the evaluated integer code by default, the intended math on request:
//!   docs/deviations/westwood-lp.md#wwlp-threshold-arith
//! - HZ of the evaluated kernel: 250 (inferred): docs/deviations/westwood-lp.md#wwlp-hz
//! - rtt_loss is updated only on RTOs by default: docs/deviations/westwood-lp.md#wwlp-rtt-loss
//! - EWR runs per ACK: docs/deviations/westwood-lp.md#wwlp-ewr-per-ack

use super::vegas::{acked_pkts, PktWindow};
use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "westwood-lp",
    aliases: &["westwoodlp"],
    summary: "Westwood+LP: Westwood+ bandwidth estimate with early window reduction to bw·rtt_min",
    source: "Ong 2020 §2.2.5, §3.6.2, App. A.3; Linux net/ipv4/tcp_westwood.c",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "beta",
        kind: ParamKind::Int { min: 0, max: 1000 },
        default: ParamValue::Int(3),
        unit: "packets",
        doc: "M, the maximum allowed virtual queue length (upper bound of the EWR threshold)",
        source: "Ong 2020 §2.2.5 (\"M ... default value of 3\"); lbetcp tcp_westwoodlp.c beta = 3",
    },
    ParamSpec {
        name: "as_evaluated_truncation",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "compute ewr_thresh, q_len and the Westwood+ estimate with the evaluated module's u32 integer arithmetic (truncation, wrap-around, delay_loss init 1, bytes per jiffy); false: real arithmetic",
        source: "Ong 2020 App. A.3.2 tcp_westwood_cong_avoid; lbetcp tcp_westwoodlp.c / Linux tcp_westwood.c (as evaluated)",
    },
    ParamSpec {
        name: "hz",
        kind: ParamKind::Int { min: 100, max: 1000 },
        default: ParamValue::Int(250),
        unit: "Hz",
        doc: "kernel tick rate for the jiffy RTTs and bytes-per-jiffy bandwidth of the as-evaluated arithmetic (only used when as_evaluated_truncation)",
        source: "[inference] openSUSE Linux 4.4 CONFIG_HZ=250; Ong 2020 does not state HZ (Ong 2020 notes §2.0)",
    },
    ParamSpec {
        name: "delay_loss_events",
        kind: ParamKind::Choice(&["rto", "all"]),
        default: ParamValue::Choice("rto"),
        unit: "",
        doc: "which losses update rtt_loss: every loss episode (thesis text) or only timeouts (module's CA_EVENT_LOSS)",
        source: "lbetcp tcp_westwoodlp.c tcp_westwood_event (CA_EVENT_LOSS = RTO); Ong 2020 §3.6.2 (\"only updated when packet loss events occur\")",
    },
    ParamSpec {
        name: "delay_samples",
        kind: ParamKind::Choice(&["slow-path", "every-ack"]),
        default: ParamValue::Choice("slow-path"),
        unit: "",
        doc: "which ACKs update delay_min/delay_max: slow-path ACKs only (SACK, duplicate, in recovery, ECE), as the module, or every ACK with an RTT sample",
        source: "lbetcp tcp_westwoodlp.c tcp_westwood_ack (CA_ACK_SLOWPATH branch); Ong 2020 notes §2.7 \"in_ack_event (slow path)\"",
    },
    ParamSpec {
        name: "bw_window_min",
        kind: ParamKind::Duration { min: Dur(1), max: Dur::from_secs(10) },
        default: ParamValue::Dur(Dur::from_millis(50)),
        unit: "",
        doc: "shortest bandwidth sampling interval (a sample closes after max(RTT, this))",
        source: "Linux tcp_westwood.c TCP_WESTWOOD_RTT_MIN = HZ/20 (50 ms)",
    },
];

/// Which losses update `rtt_loss`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayLossEvents {
    /// Only timeouts, as the module's CA_EVENT_LOSS.
    Rto,
    /// Every loss episode, as the thesis text reads.
    All,
}

/// Which ACKs update delay_min/delay_max.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelaySamples {
    /// Slow-path ACKs only (SACK, duplicate, in recovery, ECE), as the module.
    SlowPath,
    /// Every ACK with an RTT sample.
    EveryAck,
}

/// Westwood+LP's parameters. Defaults: the module Ong 2020 evaluated (lbetcp
/// `tcp_westwoodlp.c` on Linux `tcp_westwood.c`; Ong 2020 §2.2.5, §3.6.2, App. A.3).
#[derive(Clone, Debug, PartialEq)]
pub struct WestwoodLpConfig {
    /// M, the largest virtual queue, packets: 3 (Ong 2020 §2.2.5; lbetcp beta = 3).
    pub beta: u64,
    /// The evaluated module's u32 arithmetic: on (Ong 2020 App. A.3.2
    /// `tcp_westwood_cong_avoid`); off evaluates eq. 2.4 and 2.6 in real arithmetic.
    pub as_evaluated_truncation: bool,
    /// Kernel tick rate of the as-evaluated arithmetic: 250 ([inference] openSUSE Linux
    /// 4.4 CONFIG_HZ=250; Ong 2020 notes §2.0).
    pub hz: u64,
    /// Losses that update rtt_loss: timeouts only (lbetcp `tcp_westwood_event`).
    pub delay_loss_events: DelayLossEvents,
    /// ACKs that update the RTT extremes: slow path only (lbetcp `tcp_westwood_ack`;
    /// Ong 2020 notes §2.7).
    pub delay_samples: DelaySamples,
    /// Shortest bandwidth sampling interval: 50 ms (Linux tcp_westwood.c
    /// TCP_WESTWOOD_RTT_MIN = HZ/20).
    pub bw_window_min: Dur,
}

impl Default for WestwoodLpConfig {
    fn default() -> Self {
        WestwoodLpConfig {
            beta: 3,
            as_evaluated_truncation: true,
            hz: 250,
            delay_loss_events: DelayLossEvents::Rto,
            delay_samples: DelaySamples::SlowPath,
            bw_window_min: Dur::from_millis(50),
        }
    }
}

/// The only place Westwood+LP's parameter names are looked up.
impl TryFrom<&ParamSet> for WestwoodLpConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("westwood-lp");
        Ok(WestwoodLpConfig {
            beta: r.u64("beta")?,
            as_evaluated_truncation: r.bool("as_evaluated_truncation")?,
            hz: r.u64("hz")?,
            delay_loss_events: r.choice_of(
                "delay_loss_events",
                &[("rto", DelayLossEvents::Rto), ("all", DelayLossEvents::All)],
            )?,
            delay_samples: r.choice_of(
                "delay_samples",
                &[
                    ("slow-path", DelaySamples::SlowPath),
                    ("every-ack", DelaySamples::EveryAck),
                ],
            )?,
            bw_window_min: r.dur("bw_window_min")?,
        })
    }
}

/// The registry's entry point. `p` was resolved against `PARAMS`, so the conversion
/// cannot fail unless the spec table and the config disagree, which
/// `config_defaults_match_spec_table` rules out.
fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg =
        WestwoodLpConfig::try_from(p).expect("westwood-lp: spec table and WestwoodLpConfig agree");
    Box::new(WestwoodLp::new(&cfg, &init))
}

/// Linux TCP_WESTWOOD_INIT_RTT (20 s): the RTT assumed before the first sample.
const INIT_RTT: Dur = Dur::from_secs(20);

/// TCPOLEN_TSTAMP_ALIGNED: `advmss` (used by the module's queue length) exceeds the
/// timestamp-carrying `mss_cache` (our MSS, used by `tcp_westwood_bw_rttmin`) by this.
const TS_OPTION_BYTES: u64 = 12;

/// Linux `tcp_time_stamp` (4.4: jiffies) at `t`; only differences matter here.
fn tcp_ts(t: Time, hz: u64) -> u32 {
    (t.nanos() as u128 * hz as u128 / 1_000_000_000) as u32
}

/// `westwood_update_delay` (lbetcp): ×4-scaled EWMA, 3/4 old + 1/4 new; a zero average
/// takes `x << 2`. Unsigned wrapping arithmetic as in C.
fn update_delay_u32(x: u32, avg: u32) -> u32 {
    if avg != 0 {
        let err = x.wrapping_sub(avg >> 2);
        avg.wrapping_add(err)
    } else {
        x << 2
    }
}

/// The same average in real arithmetic, unscaled: the first value is taken as is.
fn update_delay_f64(x: f64, avg: Option<f64>) -> f64 {
    match avg {
        Some(a) => 0.75 * a + 0.25 * x,
        None => x,
    }
}

/// The listing's threshold, u32 arithmetic (Ong 2020 App. A.3.2):
/// `(beta * (100 - 100*(rtt<<2)/delay_loss) / 100) * (100 - 100*dmin/dmax) / 100`.
pub(crate) fn ewr_thresh_as_evaluated(
    beta: u32,
    rtt: u32,
    delay_loss: u32,
    dmin: u32,
    dmax: u32,
) -> u32 {
    let a = 100u32.wrapping_sub(100u32.wrapping_mul(rtt << 2) / delay_loss.max(1));
    let first = beta.wrapping_mul(a) / 100;
    let b = 100u32.wrapping_sub(100u32.wrapping_mul(dmin) / dmax.max(1));
    first.wrapping_mul(b) / 100
}

#[derive(Clone, Debug)]
pub struct WestwoodLp {
    beta: u32,
    as_evaluated: bool,
    hz: u64,
    delay_loss_on_all: bool,
    delay_on_every_ack: bool,
    bw_window_min: Dur,
    mss: u64,
    w: PktWindow,
    // Westwood+ estimator (Linux struct westwood), bandwidth in bytes/s.
    bw_ns_est: f64,
    bw_est: f64,
    bk: u64,
    rtt_win_sx: Time,
    // As evaluated: the same filters in bytes per jiffy (u32), window start in jiffies.
    bw_ns_est_j: u32,
    bw_est_j: u32,
    rtt_win_sx_j: u32,
    /// snd_una after the previous ACK (to tell fast-path ACKs from slow-path ones).
    prev_una: u64,
    rtt: Option<Dur>,
    rtt_min: Dur,
    reset_rtt_min: bool,
    // Westwood-LP state. delay_min/delay_max: RTT extremes since the last EWR
    // (zero = unset).
    delay_min: Dur,
    delay_max: Dur,
    // Intended math: unscaled averages in ns.
    dmin_avg: Option<f64>,
    dmax_avg: Option<f64>,
    delay_loss: Option<f64>,
    // As evaluated: ×4-scaled averages in jiffies; delay_loss starts at 1.
    dmin_avg_j: u32,
    dmax_avg_j: u32,
    delay_loss_j: u32,
    /// The episode in progress started with an RTO (no CA_EVENT_COMPLETE_CWR at its end).
    rto_episode: bool,
    in_episode: bool,
    last_q_len: f64,
    last_thresh: f64,
    ewr_count: u64,
}

impl WestwoodLp {
    pub fn new(cfg: &WestwoodLpConfig, init: &CcInit) -> WestwoodLp {
        WestwoodLp {
            beta: cfg.beta as u32,
            as_evaluated: cfg.as_evaluated_truncation,
            hz: cfg.hz,
            delay_loss_on_all: cfg.delay_loss_events == DelayLossEvents::All,
            delay_on_every_ack: cfg.delay_samples == DelaySamples::EveryAck,
            bw_window_min: cfg.bw_window_min,
            mss: init.mss,
            w: PktWindow::new(init.initial_cwnd, init.mss),
            bw_ns_est: 0.0,
            bw_est: 0.0,
            bk: 0,
            rtt_win_sx: init.now,
            bw_ns_est_j: 0,
            bw_est_j: 0,
            rtt_win_sx_j: tcp_ts(init.now, cfg.hz),
            prev_una: 0,
            rtt: None,
            rtt_min: INIT_RTT,
            reset_rtt_min: true,
            delay_min: Dur::ZERO,
            delay_max: Dur::ZERO,
            dmin_avg: None,
            dmax_avg: None,
            delay_loss: None,
            dmin_avg_j: 0,
            dmax_avg_j: 0,
            delay_loss_j: 1,
            rto_episode: false,
            in_episode: false,
            last_q_len: f64::NAN,
            last_thresh: f64::NAN,
            ewr_count: 0,
        }
    }

    /// Linux `usecs_to_jiffies` (rounds up).
    fn jiffies(&self, d: Dur) -> u32 {
        (d.micros() * self.hz).div_ceil(1_000_000) as u32
    }

    fn cur_rtt(&self) -> Dur {
        self.rtt.unwrap_or(INIT_RTT)
    }

    /// Westwood+ bandwidth estimate in bytes per second.
    pub fn bw_est(&self) -> f64 {
        if self.as_evaluated {
            self.bw_est_j as f64 * self.hz as f64
        } else {
            self.bw_est
        }
    }

    /// bw_est·rtt_min/MSS in packets (real).
    fn bdp_pkts(&self) -> f64 {
        self.bw_est * self.rtt_min.secs_f64() / self.mss as f64
    }

    /// As evaluated: `bw_est * rtt_min / seg` in u32 (bytes per jiffy × jiffies).
    fn bdp_pkts_j(&self, seg: u64) -> u32 {
        self.bw_est_j.wrapping_mul(self.jiffies(self.rtt_min)) / seg as u32
    }

    /// Linux `tcp_westwood_bw_rttmin`: max(bw_est·rtt_min/mss_cache, 2) packets.
    fn bw_rttmin(&self) -> u64 {
        if self.as_evaluated {
            self.bdp_pkts_j(self.mss).max(2) as u64
        } else {
            (self.bdp_pkts().floor() as u64).max(2)
        }
    }

    /// Linux `westwood_update_window` + `westwood_filter`: once an interval longer than
    /// max(RTT, 50 ms) has passed, sample bk/delta and run two cascaded (7a + b)/8 filters.
    fn update_window(&mut self, now: Time) {
        if self.as_evaluated {
            self.update_window_j(now);
            return;
        }
        let delta = now.since(self.rtt_win_sx);
        if delta > self.cur_rtt().max(self.bw_window_min) {
            let sample = self.bk as f64 / delta.secs_f64();
            if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
                self.bw_ns_est = sample;
                self.bw_est = sample;
            } else {
                self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
                self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
            }
            self.bk = 0;
            self.rtt_win_sx = now;
        }
    }

    /// The same in Linux units (Linux tcp_westwood.c): `delta = tcp_time_stamp -
    /// rtt_win_sx` in jiffies; when `delta > max(w->rtt, HZ/20)`, sample `bk / delta`
    /// bytes per jiffy and filter `(7a + b) >> 3` in u32.
    fn update_window_j(&mut self, now: Time) {
        let delta = tcp_ts(now, self.hz).wrapping_sub(self.rtt_win_sx_j);
        // TCP_WESTWOOD_RTT_MIN = HZ/20 (50 ms).
        let win_min = (self.bw_window_min.nanos() as u128 * self.hz as u128 / 1_000_000_000) as u32;
        if delta > self.jiffies(self.cur_rtt()).max(win_min) {
            let sample = (self.bk / delta as u64) as u32;
            if self.bw_ns_est_j == 0 && self.bw_est_j == 0 {
                self.bw_ns_est_j = sample;
                self.bw_est_j = sample;
            } else {
                self.bw_ns_est_j = 7u32.wrapping_mul(self.bw_ns_est_j).wrapping_add(sample) >> 3;
                self.bw_est_j = 7u32
                    .wrapping_mul(self.bw_est_j)
                    .wrapping_add(self.bw_ns_est_j)
                    >> 3;
            }
            self.bk = 0;
            self.rtt_win_sx_j = tcp_ts(now, self.hz);
        }
    }

    /// Updates rtt_loss (Linux CA_EVENT_LOSS handler: `delay_loss = westwood_update_delay(rtt, delay_loss)`).
    fn update_delay_loss(&mut self) {
        let rtt = self.cur_rtt();
        self.delay_loss = Some(update_delay_f64(rtt.nanos() as f64, self.delay_loss));
        self.delay_loss_j = update_delay_u32(self.jiffies(rtt), self.delay_loss_j);
    }

    /// The EWR test of `tcp_westwood_cong_avoid` (Ong 2020 App. A.3.2). Returns whether
    /// q_len > ewr_thresh; records both for traces.
    fn ewr_triggered(&mut self) -> bool {
        let cwnd = self.w.cwnd;
        let ss = self.w.in_slow_start();
        if self.as_evaluated {
            let j = |d: Dur| self.jiffies(d);
            // "Negate RTT as a factor if delay_loss has no value".
            let rtt = if self.delay_loss_j > 1 {
                j(self.cur_rtt())
            } else {
                0
            };
            // queue_length = snd_cwnd - bw_est * rtt_min / advmss.
            let bdp = self.bdp_pkts_j(self.mss + TS_OPTION_BYTES);
            let (q, thr) = if self.dmin_avg_j != self.dmax_avg_j && self.dmax_avg_j != 0 {
                (
                    (cwnd as u32).wrapping_sub(bdp),
                    ewr_thresh_as_evaluated(
                        self.beta,
                        rtt,
                        self.delay_loss_j,
                        self.dmin_avg_j,
                        self.dmax_avg_j,
                    ),
                )
            } else if j(self.delay_min) != j(self.delay_max) && j(self.delay_max) != 0 && !ss {
                (
                    (cwnd as u32).wrapping_sub(bdp),
                    ewr_thresh_as_evaluated(
                        self.beta,
                        rtt,
                        self.delay_loss_j,
                        j(self.delay_min),
                        j(self.delay_max),
                    ),
                )
            } else {
                (0, 0)
            };
            self.last_q_len = q as f64;
            self.last_thresh = thr as f64;
            q > thr
        } else {
            // eq. 2.6 factor (1 - rtt/rtt_loss); 1 until a loss has been seen.
            let rtt_factor = match self.delay_loss {
                Some(l) if l > 0.0 => 1.0 - self.cur_rtt().nanos() as f64 / l,
                _ => 1.0,
            };
            let m = self.beta as f64;
            // eq. 2.4 q_len = cwnd - bw_est·rtt_min (packets).
            let q_len = cwnd as f64 - self.bdp_pkts();
            let (q, thr) = match (self.dmin_avg, self.dmax_avg) {
                // After the first EWR: the averages (eq. 2.6 with moving averages).
                (Some(dmin), Some(dmax)) if dmin != dmax && dmax != 0.0 => {
                    (q_len, m * rtt_factor * (1.0 - dmin / dmax))
                }
                // First EWR: instantaneous delay_min/delay_max, not in slow start (§3.6.2).
                _ if self.delay_min != self.delay_max && self.delay_max != Dur::ZERO && !ss => (
                    q_len,
                    m * rtt_factor
                        * (1.0 - self.delay_min.nanos() as f64 / self.delay_max.nanos() as f64),
                ),
                _ => (0.0, 0.0),
            };
            self.last_q_len = q;
            self.last_thresh = thr;
            q > thr
        }
    }

    fn early_window_reduction(&mut self) {
        // cwnd = ssthresh = tcp_westwood_bw_rttmin.
        let target = self.bw_rttmin();
        self.w.cwnd = target;
        self.w.ssthresh = target;
        self.w.cnt = 0;
        // Averages take this EWR window's extremes, then restart from the current RTT.
        self.dmin_avg = Some(update_delay_f64(
            self.delay_min.nanos() as f64,
            self.dmin_avg,
        ));
        self.dmax_avg = Some(update_delay_f64(
            self.delay_max.nanos() as f64,
            self.dmax_avg,
        ));
        self.dmin_avg_j = update_delay_u32(self.jiffies(self.delay_min), self.dmin_avg_j);
        self.dmax_avg_j = update_delay_u32(self.jiffies(self.delay_max), self.dmax_avg_j);
        let rtt = self.cur_rtt();
        self.delay_min = rtt;
        self.delay_max = rtt;
        self.ewr_count += 1;
    }
}

impl CongestionControl for WestwoodLp {
    fn name(&self) -> &'static str {
        "westwood-lp"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.mss = ack.mss;
        // pkts_acked: w->rtt = the latest RTT sample.
        if let Some(r) = ack.rtt {
            if r > Dur::ZERO {
                self.rtt = Some(r);
            }
        }
        // in_ack_event: bandwidth sample window, acked bytes, rtt_min, delay extremes.
        // Linux takes the slow path (CA_ACK_SLOWPATH) for ACKs that header prediction
        // rejects: SACK blocks, duplicates, ECE; the fast path for pure cumulative ACKs.
        let advance = ack.snd_una.saturating_sub(self.prev_una);
        self.prev_una = self.prev_una.max(ack.snd_una);
        let slow_path =
            ack.bytes_acked == 0 || ack.bytes_acked != advance || ack.in_recovery || ack.ecn_ce;
        self.update_window(now);
        self.bk += ack.bytes_acked;
        let rtt = self.cur_rtt();
        if self.reset_rtt_min {
            self.rtt_min = rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(rtt);
        }
        // tcp_westwood_ack: only the slow path updates delay_min/delay_max.
        if let Some(r) = self.rtt.filter(|_| slow_path || self.delay_on_every_ack) {
            if self.delay_min == Dur::ZERO && self.delay_max == Dur::ZERO {
                self.delay_min = r;
                self.delay_max = r;
            }
            if r > self.delay_max {
                self.delay_max = r;
            } else if r < self.delay_min {
                self.delay_min = r;
            }
        }
        if ack.in_recovery || ack.bytes_acked == 0 {
            return;
        }
        // tcp_westwood_cong_avoid (per ACK, no once-per-RTT gate in the listing).
        if self.ewr_triggered() {
            self.early_window_reduction();
        } else {
            self.w
                .reno_cong_avoid(acked_pkts(ack.bytes_acked, ack.mss), ack.cwnd_limited);
        }
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        self.mss = ev.mss;
        // .ssthresh = tcp_reno_ssthresh on entering recovery/CWR.
        self.w.on_loss();
        if self.delay_loss_on_all && ev.kind == CongestionKind::Loss {
            self.update_delay_loss();
        }
        self.in_episode = true;
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        self.mss = ev.mss;
        // tcp_enter_loss (cwnd 1) and CA_EVENT_LOSS: ssthresh = bw_rttmin, rtt_loss
        // update, rtt_min restarts with the next ACK.
        self.w.on_timeout();
        self.w.ssthresh = self.bw_rttmin();
        self.update_delay_loss();
        self.reset_rtt_min = true;
        self.rto_episode = true;
        self.in_episode = true;
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        // CA_EVENT_COMPLETE_CWR ends fast recovery or CWR: cwnd = ssthresh = bw_rttmin.
        if self.in_episode && !self.rto_episode {
            let target = self.bw_rttmin();
            self.w.cwnd = target;
            self.w.ssthresh = target;
            self.w.cnt = 0;
        }
        self.in_episode = false;
        self.rto_episode = false;
    }

    fn cwnd(&self) -> u64 {
        self.w.cwnd * self.mss
    }

    fn ssthresh(&self) -> u64 {
        self.w.ssthresh_bytes(self.mss)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("bw_est_mbps", self.bw_est() * 8.0 / 1e6));
        out.push(("rtt_min_ms", self.rtt_min.secs_f64() * 1e3));
        out.push(("delay_min_ms", self.delay_min.secs_f64() * 1e3));
        out.push(("delay_max_ms", self.delay_max.secs_f64() * 1e3));
        out.push(("rtt_loss_ms", self.delay_loss.map_or(f64::NAN, |l| l / 1e6)));
        out.push((
            "dmin_avg_ms",
            if self.as_evaluated {
                self.dmin_avg_j as f64 / 4.0 * 1e3 / self.hz as f64
            } else {
                self.dmin_avg.map_or(f64::NAN, |d| d / 1e6)
            },
        ));
        out.push((
            "dmax_avg_ms",
            if self.as_evaluated {
                self.dmax_avg_j as f64 / 4.0 * 1e3 / self.hz as f64
            } else {
                self.dmax_avg.map_or(f64::NAN, |d| d / 1e6)
            },
        ));
        out.push(("q_len_pkts", self.last_q_len));
        out.push(("ewr_thresh_pkts", self.last_thresh));
        out.push(("ewr_count", self.ewr_count as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    fn init() -> CcInit {
        CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: 10 * MSS,
            rng: Rng::new(1),
        }
    }

    fn wlp_with(as_evaluated: bool, delay_loss_events: DelayLossEvents) -> WestwoodLp {
        let cfg = WestwoodLpConfig {
            as_evaluated_truncation: as_evaluated,
            delay_loss_events,
            ..Default::default()
        };
        WestwoodLp::new(&cfg, &init())
    }

    fn wlp(as_evaluated: bool) -> WestwoodLp {
        wlp_with(as_evaluated, DelayLossEvents::Rto)
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            WestwoodLpConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            WestwoodLpConfig::default()
        );
    }

    /// A pure cumulative ACK of one segment (Linux fast path).
    fn ack_at(v: &mut WestwoodLp, t_ms: u64, rtt_ms: u64) {
        let a = AckSample {
            bytes_acked: MSS,
            rtt: Some(Dur::from_millis(rtt_ms)),
            snd_una: v.prev_una + MSS,
            ..AckSample::empty(MSS)
        };
        v.on_ack(Time(t_ms * MS), &a);
    }

    /// An ACK that SACKs one segment without moving snd_una (Linux slow path).
    fn sack_at(v: &mut WestwoodLp, t_ms: u64, rtt_ms: u64) {
        let a = AckSample {
            bytes_acked: MSS,
            rtt: Some(Dur::from_millis(rtt_ms)),
            snd_una: v.prev_una,
            ..AckSample::empty(MSS)
        };
        v.on_ack(Time(t_ms * MS), &a);
    }

    #[test]
    fn defaults_are_the_evaluated_module() {
        let c = WestwoodLpConfig::default();
        assert!(c.as_evaluated_truncation);
        assert_eq!(
            (c.delay_loss_events, c.delay_samples, c.beta, c.hz),
            (DelayLossEvents::Rto, DelaySamples::SlowPath, 3, 250)
        );
    }

    #[test]
    fn delay_extremes_move_only_on_slow_path_acks() {
        // Fast-path ACKs (pure cumulative) leave delay_min/delay_max unset; the first
        // slow-path ACK (RTT 100 ms) initialises both; a fast-path 150 ms does not raise
        // delay_max; a slow-path 150 ms does.
        let mut v = wlp(true);
        ack_at(&mut v, 10, 100);
        assert_eq!((v.delay_min, v.delay_max), (Dur::ZERO, Dur::ZERO));
        sack_at(&mut v, 20, 100);
        assert_eq!(
            (v.delay_min, v.delay_max),
            (Dur::from_millis(100), Dur::from_millis(100))
        );
        ack_at(&mut v, 30, 150);
        assert_eq!(v.delay_max, Dur::from_millis(100));
        sack_at(&mut v, 40, 150);
        assert_eq!(v.delay_max, Dur::from_millis(150));
        // rtt_min follows every ACK (westwood_fast_bw calls update_rtt_min too).
        assert_eq!(v.rtt_min, Dur::from_millis(100));
        // delay_samples = every-ack: a fast-path ACK counts.
        let cfg = WestwoodLpConfig {
            delay_samples: DelaySamples::EveryAck,
            ..Default::default()
        };
        let mut v = WestwoodLp::new(&cfg, &init());
        ack_at(&mut v, 10, 100);
        assert_eq!(v.delay_max, Dur::from_millis(100));
    }

    #[test]
    fn as_evaluated_bandwidth_is_bytes_per_jiffy() {
        // 1000 B every 10 ms, RTT 100 ms = 25 jiffies at HZ 250, window start jiffy 0.
        // The window closes on the first ACK with delta > max(25, 50 ms = 12) jiffies:
        // t = 110 ms = jiffy 27 (108 ms is not an ACK time); bk = ACKs at 10..100 ms =
        // 10_000 B -> 10_000/27 = 370 B/jiffy; empty filter -> bw_ns_est = bw_est = 370.
        let mut v = wlp(true);
        for i in 1..=11 {
            ack_at(&mut v, 10 * i, 100);
        }
        assert_eq!((v.bw_ns_est_j, v.bw_est_j, v.rtt_win_sx_j), (370, 370, 27));
        // Next close: jiffy > 27 + 25 -> t = 220 ms (jiffy 55); bk = 110..210 ms = 11_000
        // B / 28 = 392; bw_ns = (7·370 + 392) >> 3 = 2982 >> 3 = 372; bw = (7·370 + 372)
        // >> 3 = 2962 >> 3 = 370.
        for i in 12..=22 {
            ack_at(&mut v, 10 * i, 100);
        }
        assert_eq!((v.bw_ns_est_j, v.bw_est_j, v.rtt_win_sx_j), (372, 370, 55));
        // bw_rttmin = max(370·25/1000, 2) = 9250/1000 = 9; 92_500 B/s reported.
        assert_eq!(v.bw_rttmin(), 9);
        assert_eq!(v.bw_est(), 92_500.0);
    }

    #[test]
    fn bandwidth_estimate_samples_per_rtt_and_filters() {
        // 1000 B every 10 ms, RTT 100 ms. The window closes on the first ACK more than
        // 100 ms after it opened (before counting that ACK's bytes):
        // t = 110: bk = 10 ACKs (t = 10..100) = 10_000 B / 0.110 s = 90_909.09 B/s;
        // empty filter -> bw_ns_est = bw_est = 90_909.09.
        let mut v = wlp(false);
        for i in 1..=11 {
            ack_at(&mut v, 10 * i, 100);
        }
        let s1 = 10_000.0 / 0.110;
        assert!((v.bw_est() - s1).abs() < 1e-6, "{}", v.bw_est());
        // t = 220: bk = t = 110..210 = 11_000 B / 0.110 s = 100_000 B/s;
        // bw_ns = (7·s1 + 100_000)/8, bw = (7·s1 + bw_ns)/8.
        for i in 12..=22 {
            ack_at(&mut v, 10 * i, 100);
        }
        let ns = (7.0 * s1 + 100_000.0) / 8.0;
        let bw = (7.0 * s1 + ns) / 8.0;
        assert!((v.bw_est() - bw).abs() < 1e-6, "{} vs {}", v.bw_est(), bw);
        assert!((bw - 91_051.136_363).abs() < 1e-3);
        assert_eq!(v.rtt_min, Dur::from_millis(100));
    }

    /// CA at cwnd 20 (ssthresh 10), rtt_min 100 ms, bw_est 196_000 B/s -> bw·rtt_min/MSS
    /// = 19.6 packets (as evaluated: 784 B/jiffy · 25 jiffies = 19_600 B, /mss 1000 = 19,
    /// /advmss 1012 = 19); delay_min 100 ms, delay_max 120 ms; no loss yet.
    fn primed(as_evaluated: bool) -> WestwoodLp {
        primed_with(as_evaluated, DelayLossEvents::Rto)
    }

    fn primed_with(as_evaluated: bool, loss_events: DelayLossEvents) -> WestwoodLp {
        let mut v = wlp_with(as_evaluated, loss_events);
        v.w.cwnd = 20;
        v.w.ssthresh = 10;
        v.bw_est = 196_000.0;
        v.bw_ns_est = 196_000.0;
        // 196_000 B/s at HZ 250 = 784 B/jiffy.
        v.bw_est_j = 784;
        v.bw_ns_est_j = 784;
        v.rtt_win_sx_j = 250;
        v.rtt = Some(Dur::from_millis(100));
        v.rtt_min = Dur::from_millis(100);
        v.reset_rtt_min = false;
        v.delay_min = Dur::from_millis(100);
        v.delay_max = Dur::from_millis(120);
        v.rtt_win_sx = Time(1000 * MS);
        v
    }

    #[test]
    fn as_evaluated_threshold_arithmetic() {
        // No loss: (3·(100 - 0)/100)·(100 - 100·25/30)/100 = 3·17/100 = 0 (HZ 250: 100 ms
        // = 25 jiffies, 120 ms = 30).
        assert_eq!(ewr_thresh_as_evaluated(3, 0, 1, 25, 30), 0);
        // After one loss at 25 jiffies delay_loss = 1 + (25 - 1/4) = 26 (the init-1 bug);
        // 100·(25<<2)/26 = 384 -> 100 - 384 wraps to 4_294_967_012; ·3 mod 2^32 =
        // 4_294_966_444; /100 = 42_949_664; ·17 = 730_144_288; /100 = 7_301_442.
        assert_eq!(update_delay_u32(25, 1), 26);
        assert_eq!(ewr_thresh_as_evaluated(3, 25, 26, 25, 30), 7_301_442);
        // Averages: first call x<<2, then 3/4 old + 1/4 new (×4 scaled).
        assert_eq!(update_delay_u32(25, 0), 100);
        assert_eq!(update_delay_u32(29, 100), 104);
    }

    #[test]
    fn truncation_modes_differ_on_the_first_ewr() {
        // ACK with RTT 110 ms (between delay_min and delay_max: extremes unchanged).
        // Intended: q_len = 20 - 19.6 = 0.4; thresh = 3·1·(1 - 100/120) = 0.5 -> no EWR;
        // Reno CA counts one packet.
        let mut v = primed(false);
        ack_at(&mut v, 1010, 110);
        assert!((v.last_thresh - 0.5).abs() < 1e-12 && (v.last_q_len - 0.4).abs() < 1e-9);
        assert_eq!((v.cwnd(), v.w.cnt, v.ewr_count), (20 * MSS, 1, 0));
        // As evaluated: q = 20 - 19 = 1 > thresh 0 -> EWR: cwnd = ssthresh = max(19, 2).
        // Averages: dmin_avg = 25<<2 = 100, dmax_avg = 30<<2 = 120 (jiffies ×4); delay
        // extremes restart at the current RTT (110 ms).
        let mut v = primed(true);
        ack_at(&mut v, 1010, 110);
        assert_eq!((v.last_q_len, v.last_thresh), (1.0, 0.0));
        assert_eq!(
            (v.cwnd(), v.ssthresh(), v.ewr_count),
            (19 * MSS, 19 * MSS, 1)
        );
        assert_eq!((v.dmin_avg_j, v.dmax_avg_j), (100, 120));
        assert_eq!(
            (v.delay_min, v.delay_max),
            (Dur::from_millis(110), Dur::from_millis(110))
        );
        assert_eq!((v.dmin_avg, v.dmax_avg), (Some(100e6), Some(120e6)));
    }

    #[test]
    fn truncation_modes_differ_after_a_loss() {
        // delay_loss_events = all: a fast-retransmit loss at RTT 100 ms gives rtt_loss =
        // 100 ms (intended) and delay_loss = 26 jiffies·(×4 scale broken by the init 1) as
        // evaluated. Recovery exit sets cwnd = ssthresh = bw_rttmin = 19; set cwnd back to
        // 20 for the test.
        for as_eval in [false, true] {
            let mut v = primed_with(as_eval, DelayLossEvents::All);
            v.on_congestion(
                Time(0),
                &CongestionEvent {
                    kind: CongestionKind::Loss,
                    bytes_in_flight: 0,
                    bytes_lost: MSS,
                    mss: MSS,
                },
            );
            assert_eq!(v.cwnd(), 10 * MSS);
            v.on_recovery_exit(Time(0));
            assert_eq!((v.cwnd(), v.ssthresh()), (19 * MSS, 19 * MSS));
            assert_eq!((v.delay_loss, v.delay_loss_j), (Some(100e6), 26));
            v.w.cwnd = 20;
            ack_at(&mut v, 1010, 100);
            if as_eval {
                // thresh = 7_301_442 (wrapped), q = 1 -> no EWR; Reno CA (cwnd 20 > 19).
                assert_eq!(v.last_thresh, 7_301_442.0);
                assert_eq!((v.cwnd(), v.ewr_count), (20 * MSS, 0));
            } else {
                // rtt/rtt_loss = 1 -> thresh = 3·0·(1/6) = 0 < q 0.4 -> EWR to 19.
                assert_eq!(v.last_thresh, 0.0);
                assert_eq!((v.cwnd(), v.ewr_count), (19 * MSS, 1));
            }
        }
        // Default (rto, the module's CA_EVENT_LOSS): fast retransmit leaves delay_loss at
        // its initial 1 (none in real arithmetic); recovery exit still sets bw_rttmin.
        let mut v = primed(true);
        v.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 0,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        v.on_recovery_exit(Time(0));
        assert_eq!(
            (v.delay_loss, v.delay_loss_j, v.cwnd()),
            (None, 1, 19 * MSS)
        );
    }

    #[test]
    fn as_evaluated_queue_length_underflow_triggers_ewr() {
        // cwnd 10 below bw·rtt_min = 19.6: intended q_len = -9.6 < 0.5 (Reno);
        // as evaluated 10 - 19 wraps to 4_294_967_287 > 0 -> EWR raises cwnd to 19.
        let mut v = primed(false);
        v.w.cwnd = 10;
        v.w.ssthresh = 5;
        ack_at(&mut v, 1010, 110);
        assert_eq!((v.cwnd(), v.ewr_count), (10 * MSS, 0));
        let mut v = primed(true);
        v.w.cwnd = 10;
        v.w.ssthresh = 5;
        ack_at(&mut v, 1010, 110);
        assert_eq!(v.last_q_len, 4_294_967_287.0);
        assert_eq!((v.cwnd(), v.ewr_count), (19 * MSS, 1));
    }

    #[test]
    fn no_first_ewr_in_slow_start() {
        // Slow start (ssthresh unset): the instantaneous branch is skipped in both modes;
        // Reno slow start adds one packet.
        for as_eval in [false, true] {
            let mut v = primed(as_eval);
            v.w.ssthresh = u64::MAX;
            ack_at(&mut v, 1010, 110);
            assert_eq!((v.cwnd(), v.ewr_count), (21 * MSS, 0));
        }
    }

    #[test]
    fn rto_uses_bandwidth_for_ssthresh() {
        let mut v = primed(false);
        v.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((v.cwnd(), v.ssthresh()), (MSS, 19 * MSS));
        assert!(v.reset_rtt_min);
        assert_eq!(v.delay_loss, Some(100e6));
        // No COMPLETE_CWR after RTO recovery.
        v.on_recovery_exit(Time(0));
        assert_eq!(v.cwnd(), MSS);
    }
}
