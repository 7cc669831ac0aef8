//! Yield TCP (Ong 2020 chapter 5 and Appendix B; the Linux 4.4.15 module
//! `tcp_yield.c`, congestion-control name `yield`).
//!
//! A one-way-delay (OWD) based less-than-best-effort controller built like a PI
//! controller: additive increase (Reno) while the queueing delay is under a dynamic
//! target, multiplicative decrease `cwnd -= cwnd >> r` while over it. Three parts sit on
//! top (Ong 2020 §5.3):
//! - Dynamic Trend-Based Reduction: the shift `r` moves on every ACK with the delay trend
//!   (trend ≥ increase_threshold: r−1, a bigger next cut; trend ≤ decrease_threshold: r+1,
//!   a smaller one), and r+1 after every applied cut.
//! - Adaptive target (modified Eclipse, eq 5.4): target = β·(s_max − s_min) + s_min, with
//!   s_max the absolute maximum OWD, β = 15 %.
//! - Cross-traffic detection (eq 5.5): trend > ct_threshold · (long-term trend average)
//!   lowers the bound on r from max_reduction (3) to maxc_reduction (0, full collapse).
//!
//! The App. B listing is normative (Ong 2020 notes §2.14.5). It is reproduced with its kernel
//! integer arithmetic (u32/s32/s8 types, wrap-around, truncating division) and its call
//! pattern: the "per-ACK" part is `pkts_acked` and the "per-RTT" part is `cong_avoid`,
//! which Linux calls on *every* ACK that advances the window outside recovery, so the
//! decision runs per ACK as in the kernel (see docs/deviations/yield.md#yield-per-ack). Windows are
//! kept in packets internally (as `tp->snd_cwnd`) and reported in bytes.
//!
//! Differences from the source (the reasoning is in docs/deviations/yield.md):
//! - the decision runs per ACK, as the kernel module: docs/deviations/yield.md#yield-per-ack
//! - where Algorithm 1 and the App. B listing disagree, the listing wins:
//!   docs/deviations/yield.md#yield-alg1-vs-listing
//! - the target is the listing's, not Algorithm 2's or eq 5.4's:
//!   docs/deviations/yield.md#yield-target
//! - the reduction factor is not clamped after a decrease (`shift_mode`):
//!   docs/deviations/yield.md#yield-reduction-clamp
//! - the OWD estimator quantises as the module did (`ts_tick`): docs/deviations/yield.md#yield-owd
//! - loss, ECN and RTO responses: docs/deviations/yield.md#yield-loss-ecn-rto

use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "yield",
    aliases: &["yield-tcp"],
    summary: "Yield TCP: OWD-based LBE, AI under a beta·(smax−smin)+smin target, cwnd -= cwnd>>r over it, trend-adapted r with cross-traffic detection",
    source: "Ong 2020 ch. 5, Table 5.1 and App. B (tcp_yield.c, Linux 4.4.15)",
    params: PARAMS,
    build,
};

const T51: &str = "Ong 2020 Table 5.1 / §5.4.2; App. B module_param";

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "beta",
        kind: ParamKind::Int { min: 0, max: 100 },
        default: ParamValue::Int(15),
        unit: "%",
        doc: "Percentage of the maximum queueing delay (smax − smin) used as the delay target (eq 5.4); integer, 1 % steps",
        source: T51,
    },
    ParamSpec {
        name: "min_reduction",
        kind: ParamKind::Int { min: 0, max: 31 },
        default: ParamValue::Int(5),
        unit: "bit shift",
        doc: "Minimum reduction factor: the largest shift r (smallest cut, 1/32) the per-ACK trend update may reach",
        source: T51,
    },
    ParamSpec {
        name: "max_reduction",
        kind: ParamKind::Int { min: 0, max: 31 },
        default: ParamValue::Int(3),
        unit: "bit shift",
        doc: "Maximum reduction factor without cross-traffic: the smallest shift r (largest cut, 1/8) a rising trend may reach",
        source: T51,
    },
    ParamSpec {
        name: "maxc_reduction",
        kind: ParamKind::Int { min: 0, max: 31 },
        default: ParamValue::Int(0),
        unit: "bit shift",
        doc: "Maximum reduction factor with cross-traffic: smallest shift r when cross-traffic was detected (0 = cut cwnd to the 2-segment floor)",
        source: T51,
    },
    ParamSpec {
        name: "ct_threshold",
        kind: ParamKind::Int { min: 0, max: 1 << 16 },
        default: ParamValue::Int(2),
        unit: "multiplier",
        doc: "Cross-traffic threshold (Table 5.1 ct_thresh): cross-traffic when trend > max(ct_threshold · avg_trend, 1) (eq 5.5)",
        source: T51,
    },
    ParamSpec {
        name: "hist_factor",
        kind: ParamKind::Int { min: 0, max: 31 },
        default: ParamValue::Int(2),
        unit: "bit shift",
        doc: "Delay history factor f: the delay history is an EWMA with weight 1/2^f (eq 5.6); trend = delay − history",
        source: T51,
    },
    ParamSpec {
        name: "trend_factor",
        kind: ParamKind::Int { min: 1, max: 1 << 16 },
        default: ParamValue::Int(128),
        unit: "divisor",
        doc: "Delay trend factor f: the long-term trend average for cross-traffic detection is an EWMA with weight 1/f (eq 5.7)",
        source: T51,
    },
    ParamSpec {
        name: "increase_threshold",
        kind: ParamKind::Int { min: -1000, max: 1000 },
        default: ParamValue::Int(1),
        unit: "ms",
        doc: "Smallest delay increase (trend ≥ this) that decrements r, i.e. makes the next cut larger",
        source: T51,
    },
    ParamSpec {
        name: "decrease_threshold",
        kind: ParamKind::Int { min: -1000, max: 1000 },
        default: ParamValue::Int(-1),
        unit: "ms",
        doc: "Smallest delay decrease (trend ≤ this) that increments r, i.e. makes the next cut smaller",
        source: T51,
    },
    ParamSpec {
        name: "owd_granularity",
        kind: ParamKind::Duration { min: Dur::from_millis(1), max: Dur::from_millis(10) },
        default: ParamValue::Dur(Dur::from_millis(1)),
        unit: "",
        doc: "TCP timestamp clock tick used to quantise the OWD before the module's ms arithmetic (Linux 4.4: 1000/HZ ms, HZ not stated by the thesis; modern Linux: 1 ms). Not a Yield parameter",
        source: "Ong 2020 App. B OWD estimator `(tsval - offset) * 1000 / HZ`; Ong 2020 notes §2.0; docs/deviations/yield.md",
    },
    ParamSpec {
        name: "shift_semantics",
        kind: ParamKind::Choice(&["x86", "math"]),
        default: ParamValue::Choice("x86"),
        unit: "",
        doc: "How `cwnd >> r` behaves once the unclamped r leaves 0..31 and how the s8 r overflows: \"x86\" as the kernel ran (shift count masked to 5 bits, s8 wrap), \"math\" as eq 5.1 reads (cut 0 for r ≥ 32, r saturates)",
        source: "Ong 2020 App. B tcp_yield_cong_avoid (`reduction_factor += 1` without clamp); docs/deviations/yield.md",
    },
];

/// `#define MIN_CWND 2U` (Ong 2020 App. B / tcp_yield.c).
const MIN_CWND: u32 = 2;
/// `yield->reduction_factor = 3` in `tcp_yield_init` (Ong 2020 notes §2.14.5 state table).
const INITIAL_REDUCTION: i8 = 3;
/// Linux `TCP_INFINITE_SSTHRESH`.
const TCP_INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// How `cwnd >> r` and the s8 `r` behave outside 0..31 (see `shift_semantics`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftSemantics {
    /// As the kernel ran: shift count masked to 5 bits, s8 wrap.
    X86,
    /// As eq 5.1 reads: cut 0 for r ≥ 32, r saturates.
    Math,
}

/// Yield's parameters, in the module's integer types. Defaults: Ong 2020 Table 5.1 /
/// §5.4.2 and the App. B `module_param`s, unless noted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct YieldConfig {
    /// β, % of (smax − smin) used as the delay target (eq 5.4): 15 (Table 5.1).
    pub beta: i32,
    /// Largest shift r the trend update may reach (smallest cut, 1/32): 5 (Table 5.1).
    pub min_reduction: i32,
    /// Smallest shift r without cross-traffic (largest cut, 1/8): 3 (Table 5.1).
    pub max_reduction: i32,
    /// Smallest shift r with cross-traffic (0 = to the 2-segment floor): 0 (Table 5.1).
    pub maxc_reduction: i32,
    /// Cross-traffic when trend > max(ct_threshold · avg_trend, 1) (eq 5.5): 2 (Table 5.1).
    pub ct_threshold: i32,
    /// Delay history EWMA weight 1/2^f (eq 5.6): f = 2 (Table 5.1).
    pub hist_factor: u32,
    /// Long-term trend EWMA weight 1/f (eq 5.7): f = 128 (Table 5.1).
    pub trend_factor: i32,
    /// Trend (ms) at or above which r decreases: 1 (Table 5.1).
    pub increase_threshold: i32,
    /// Trend (ms) at or below which r increases: −1 (Table 5.1).
    pub decrease_threshold: i32,
    /// TCP timestamp tick quantising the OWD: 1 ms (Ong 2020 App. B OWD estimator
    /// `(tsval - offset) * 1000 / HZ`; Ong 2020 notes §2.0; docs/deviations/yield.md).
    pub owd_granularity: Dur,
    /// As the kernel ran (Ong 2020 App. B `tcp_yield_cong_avoid`; docs/deviations/yield.md
    /// ).
    pub shift_semantics: ShiftSemantics,
}

impl Default for YieldConfig {
    fn default() -> Self {
        YieldConfig {
            beta: 15,
            min_reduction: 5,
            max_reduction: 3,
            maxc_reduction: 0,
            ct_threshold: 2,
            hist_factor: 2,
            trend_factor: 128,
            increase_threshold: 1,
            decrease_threshold: -1,
            owd_granularity: Dur::from_millis(1),
            shift_semantics: ShiftSemantics::X86,
        }
    }
}

/// The only place Yield's parameter names are looked up. The spec table's ranges fit
/// the module's integer types, so the casts do not truncate.
impl TryFrom<&ParamSet> for YieldConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("yield");
        Ok(YieldConfig {
            beta: r.int("beta")? as i32,
            min_reduction: r.int("min_reduction")? as i32,
            max_reduction: r.int("max_reduction")? as i32,
            maxc_reduction: r.int("maxc_reduction")? as i32,
            ct_threshold: r.int("ct_threshold")? as i32,
            hist_factor: r.int("hist_factor")? as u32,
            trend_factor: r.int("trend_factor")? as i32,
            increase_threshold: r.int("increase_threshold")? as i32,
            decrease_threshold: r.int("decrease_threshold")? as i32,
            owd_granularity: r.dur("owd_granularity")?,
            shift_semantics: r.choice_of(
                "shift_semantics",
                &[("x86", ShiftSemantics::X86), ("math", ShiftSemantics::Math)],
            )?,
        })
    }
}

/// The registry's entry point. `p` was resolved against `PARAMS`, so the conversion
/// cannot fail unless the spec table and the config disagree, which
/// `config_defaults_match_spec_table` rules out.
fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = YieldConfig::try_from(p).expect("yield: spec table and YieldConfig agree");
    Box::new(Yield::new(&cfg, &init))
}

/// `update_delay` (tcp_yield.c): EWMA scaled by 2^f with u32 wrap-around.
/// avg != 0: avg += x − (avg >> f); else avg = x << f (eq 5.6).
fn update_delay(delay: u32, average: u32, avg_factor: u32) -> u32 {
    if average != 0 {
        let err = delay.wrapping_sub(average >> avg_factor);
        average.wrapping_add(err)
    } else {
        delay.wrapping_shl(avg_factor)
    }
}

/// `update_delay_trend` (tcp_yield.c): EWMA scaled by trend_factor in s32 (eq 5.7).
/// avg != 0: avg += x − avg/f (C division truncates toward zero); else avg = x·f.
fn update_delay_trend(delay: i32, average: i32, trend_factor: i32) -> i32 {
    if average != 0 {
        let err = delay.wrapping_sub(average.wrapping_div(trend_factor));
        average.wrapping_add(err)
    } else {
        delay.wrapping_mul(trend_factor)
    }
}

#[derive(Clone, Debug)]
pub struct Yield {
    p: YieldConfig,
    mss: u64,
    // Linux window state, in packets (tp->snd_cwnd, snd_ssthresh, snd_cwnd_cnt).
    cwnd: u32,
    ssthresh: u32,
    cwnd_cnt: u32,
    // struct yield (Ong 2020 App. B; Ong 2020 notes §2.14.5 state table).
    /// Current relative OWD, ms.
    delay: u32,
    /// Min / max OWD since the last completed `cong_avoid`, ms.
    delay_min: u32,
    delay_max: u32,
    /// "Smoothed" min and (effectively absolute) max OWD, ms scaled ×8.
    delay_smin: u32,
    delay_smax: u32,
    /// EWMA of the delay, ms scaled ×2^hist_factor.
    delay_prev: u32,
    /// EWMA of the trend, ms scaled ×trend_factor.
    delay_trend: i32,
    reduction_factor: i8,
    cross_traffic: u8,
    /// OWD of the first sample (the module's local/remote_time_offset pair), ns.
    owd_offset: Option<i64>,
    /// Last per-ACK trend, for traces only.
    last_trend: i32,
}

impl Yield {
    pub fn new(cfg: &YieldConfig, init: &CcInit) -> Yield {
        let mss = init.mss.max(1);
        Yield {
            p: *cfg,
            mss,
            cwnd: ((init.initial_cwnd / mss).max(1)).min(u32::MAX as u64) as u32,
            ssthresh: TCP_INFINITE_SSTHRESH,
            cwnd_cnt: 0,
            // tcp_yield_init
            delay: 0,
            delay_min: u32::MAX,
            delay_max: 0,
            delay_smin: 0,
            delay_smax: 0,
            delay_prev: 0,
            delay_trend: 0,
            reduction_factor: INITIAL_REDUCTION,
            cross_traffic: 0,
            owd_offset: None,
            last_trend: 0,
        }
    }

    /// C conversion of an `int` result into the s8 `reduction_factor`: two's-complement
    /// wrap as gcc does ("x86"), or saturation ("math").
    fn to_s8(&self, x: i32) -> i8 {
        match self.p.shift_semantics {
            ShiftSemantics::X86 => x as i8,
            ShiftSemantics::Math => x.clamp(i8::MIN as i32, i8::MAX as i32) as i8,
        }
    }

    /// `tp->snd_cwnd >> yield->reduction_factor` (eq 5.2). In C a shift count outside
    /// 0..31 is undefined; x86 `shr` masks it to 5 bits, which is what the testbed ran.
    fn cwnd_shr_r(&self) -> u32 {
        let r = self.reduction_factor as i32;
        match self.p.shift_semantics {
            ShiftSemantics::X86 => self.cwnd >> ((r as u32) & 31),
            ShiftSemantics::Math => {
                if (0..32).contains(&r) {
                    self.cwnd >> r
                } else {
                    0
                }
            }
        }
    }

    /// Delay target in ms, exactly as App. B tcp_yield_cong_avoid computes it:
    /// `target = beta * 100 * ((delay_smax - delay_smin) >> 3) / 10000` with
    /// `beta * 100` an int, the product and division in u32 (the difference wraps if
    /// smax < smin), the result stored in an int. Equivalent to eq 5.4 minus smin,
    /// since qdelay has smin subtracted.
    pub fn target_ms(&self) -> i32 {
        let span = self.delay_smax.wrapping_sub(self.delay_smin) >> 3;
        let beta100 = self.p.beta.wrapping_mul(100) as u32;
        (beta100.wrapping_mul(span) / 10_000) as i32
    }

    /// Queueing delay in ms: `delay - (delay_smin >> 3)` once smin is known, else 0 (u32).
    pub fn qdelay_ms(&self) -> u32 {
        if self.delay_smin != 0 {
            self.delay.wrapping_sub(self.delay_smin >> 3)
        } else {
            0
        }
    }

    /// Shared OWD estimator (Ong 2020 App. B, from the Kühlewind/Fisches LEDBAT module):
    /// time − remote_time = (TSval − TSval₀) − (TSecr − TSecr₀) = owd − owd₀, in ms
    /// (×1000/HZ); the delay is updated only when it is strictly positive. In loss recovery
    /// the echo is TS.Recent from before the hole, so the sample grows with the hole's age
    /// and s_max keeps it, as in the kernel (docs/deviations/yield.md#yield-upload-350ms).
    fn update_owd(&mut self, owd: Option<i64>) {
        let Some(owd) = owd else { return };
        let base = *self.owd_offset.get_or_insert(owd);
        let tick = self.p.owd_granularity.nanos().max(1) as i128;
        let diff = owd as i128 - base as i128;
        let ticks = diff.div_euclid(tick);
        // `if (time > remote_time) yield->delay = time - remote_time;` (u32, ms)
        if ticks > 0 {
            let ms = ticks * tick / 1_000_000;
            if ms > 0 {
                self.delay = ms as u32;
            }
        }
    }

    /// Ong 2020 App. B.1.1 `tcp_yield_pkts_acked`: the per-ACK operation (Algorithm 1).
    pub fn pkts_acked(&mut self, owd: Option<i64>) {
        let hf = self.p.hist_factor;
        self.update_owd(owd);

        // Update delay_min and delay_max (note the else-if: a new minimum is never also
        // checked as a maximum).
        if self.delay < self.delay_min {
            self.delay_min = self.delay;
        } else if self.delay > self.delay_max {
            self.delay_max = self.delay;
        }

        // Smoothed minimum (×8): overwrite when the latest minimum is lower (or smin is
        // unset); otherwise the EWMA branch, whose test compares the unscaled delay_min
        // with the scaled smin (App. B, as printed).
        if self.delay_min.wrapping_shl(3) < self.delay_smin || self.delay_smin == 0 {
            self.delay_smin = self.delay_min.wrapping_shl(3);
        } else if self.delay_min > self.delay_smin {
            self.delay_smin = update_delay(self.delay, self.delay_smin, 3);
        }

        // Smoothed maximum (×8), in effect the absolute maximum (§5.3.2; the EWMA branch is
        // "currently unused").
        if self.delay_max.wrapping_shl(3) > self.delay_smax || self.delay_smax == 0 {
            self.delay_smax = self.delay_max.wrapping_shl(3);
        } else if self.delay_max > self.delay_smax {
            self.delay_smax = update_delay(self.delay, self.delay_smax, 3);
        }

        // Trend against the delay history (eq 5.3) and cross-traffic test (eq 5.5).
        let mut trend: i32 = 0;
        if self.delay_prev != 0 {
            trend = self.delay.wrapping_sub(self.delay_prev >> hf) as i32;
            let threshold = self
                .delay_trend
                .wrapping_div(self.p.trend_factor)
                .wrapping_mul(self.p.ct_threshold)
                .max(1);
            if self.delay_trend != 0 && trend > threshold {
                self.cross_traffic = 1;
            }
        }

        // Dynamic trend-based reduction (§5.3.1), clamped as in App. B:
        // `reduction_factor -= 1;` (stored in s8) then `max(reduction_factor, bound)`.
        let r = self.reduction_factor as i32;
        if trend >= self.p.increase_threshold && self.cross_traffic == 1 {
            let r1 = self.to_s8(r - 1) as i32;
            self.reduction_factor = self.to_s8(r1.max(self.p.maxc_reduction));
        } else if trend >= self.p.increase_threshold {
            let r1 = self.to_s8(r - 1) as i32;
            self.reduction_factor = self.to_s8(r1.max(self.p.max_reduction));
        } else if trend <= self.p.decrease_threshold {
            let r1 = self.to_s8(r + 1) as i32;
            self.reduction_factor = self.to_s8(r1.min(self.p.min_reduction));
        }

        // Redundant in effect (delay_min ≤ delay already), kept as in App. B.
        if self.delay < self.delay_min && self.delay > 0 {
            self.delay_min = self.delay;
        }

        // The current reading joins the history (eq 5.6) and the trend average (eq 5.7).
        self.delay_prev = update_delay(self.delay, self.delay_prev, hf);
        self.delay_trend = update_delay_trend(trend, self.delay_trend, self.p.trend_factor);
        self.last_trend = trend;
    }

    /// Linux 4.4 `tcp_slow_start`: cwnd = min(cwnd + acked, ssthresh); returns the rest.
    fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = self.cwnd.saturating_add(acked).min(self.ssthresh);
        let rest = acked - (cwnd - self.cwnd);
        self.cwnd = cwnd;
        rest
    }

    /// Linux 4.4 `tcp_cong_avoid_ai(tp, w, acked)`: +1 packet per w packets acked.
    fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
    }

    /// Linux 4.4 `tcp_reno_cong_avoid`: nothing unless cwnd-limited; slow start below
    /// ssthresh (`tcp_in_slow_start`: cwnd < ssthresh); else additive increase.
    fn reno_cong_avoid(&mut self, acked: u32, cwnd_limited: bool) {
        if !cwnd_limited {
            return;
        }
        let mut acked = acked;
        if self.cwnd < self.ssthresh {
            acked = self.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        self.cong_avoid_ai(self.cwnd, acked);
    }

    /// Ong 2020 App. B.1.2 `tcp_yield_cong_avoid`: the "per-round" operation
    /// (Algorithm 2), which Linux runs on every window-advancing ACK.
    pub fn cong_avoid(&mut self, acked: u32, cwnd_limited: bool) {
        let mut acked = acked;
        // Window under ssthresh, do slow start (note `<=`, and no cwnd-limited test).
        if self.cwnd <= self.ssthresh {
            acked = self.slow_start(acked);
            if acked == 0 {
                return; // returns before the per-round resets below
            }
        }
        let qdelay = self.qdelay_ms();
        let target = self.target_ms();
        // `int off_target = target - qdelay;` (int − u32 is computed in u32)
        let off_target = (target as u32).wrapping_sub(qdelay) as i32;
        if off_target >= 0 {
            // Under target: Reno additive increase.
            self.reno_cong_avoid(acked, cwnd_limited);
        } else {
            // Over target: cwnd -= cwnd >> r (eq 5.2); the next cut is smaller. r is not
            // clamped here, so it can exceed min_reduction (Ong 2020 notes §8 item 4).
            let decrement = self.cwnd_shr_r();
            self.cwnd -= decrement;
            self.reduction_factor = self.to_s8(self.reduction_factor as i32 + 1);
        }
        self.cwnd = self.cwnd.max(MIN_CWND);
        // "Per-RTT" resets, per call in practice.
        self.delay_min = u32::MAX;
        self.delay_max = 0;
        self.cross_traffic = 0;
    }

    /// `tcp_reno_ssthresh` (Linux 4.4): max(cwnd >> 1, 2) packets.
    fn reno_ssthresh(&self) -> u32 {
        (self.cwnd >> 1).max(2)
    }

    pub fn reduction_factor(&self) -> i8 {
        self.reduction_factor
    }
}

impl CongestionControl for Yield {
    fn name(&self) -> &'static str {
        "yield"
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        if ack.mss > 0 {
            self.mss = ack.mss;
        }
        if ack.bytes_acked == 0 {
            return;
        }
        // Linux calls pkts_acked (per ACK, also in recovery) before cong_avoid.
        self.pkts_acked(ack.owd);
        // cong_avoid only outside recovery (tcp_may_raise_cwnd). `acked` counts packets;
        // Linux counts a partial segment as one (tcp_skb_pcount).
        if !ack.in_recovery {
            let acked = ack.bytes_acked.div_ceil(self.mss).min(u32::MAX as u64) as u32;
            self.cong_avoid(acked, ack.cwnd_limited);
        }
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        if ev.mss > 0 {
            self.mss = ev.mss;
        }
        // `.ssthresh = tcp_reno_ssthresh` for loss and ECN (CWR); cwnd follows ssthresh as
        // at the end of Linux's PRR reduction. Yield's own state is untouched (the module
        // has no set_state / cwnd_event hooks).
        self.ssthresh = self.reno_ssthresh();
        self.cwnd = self.ssthresh;
        self.cwnd_cnt = 0;
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        if ev.mss > 0 {
            self.mss = ev.mss;
        }
        // Linux 4.4 tcp_enter_loss: ssthresh from the ssthresh hook on the first timeout
        // only (a repeated timeout in Loss state keeps it), then cwnd = 1, cnt = 0.
        if ev.backoff_count <= 1 {
            self.ssthresh = self.reno_ssthresh();
        }
        self.cwnd = 1;
        self.cwnd_cnt = 0;
    }

    fn cwnd(&self) -> u64 {
        self.cwnd as u64 * self.mss
    }

    fn ssthresh(&self) -> u64 {
        if self.ssthresh >= TCP_INFINITE_SSTHRESH {
            u64::MAX
        } else {
            self.ssthresh as u64 * self.mss
        }
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cwnd_pkts", self.cwnd as f64));
        out.push(("delay_ms", self.delay as f64));
        out.push(("smin_ms", (self.delay_smin >> 3) as f64));
        out.push(("smax_ms", (self.delay_smax >> 3) as f64));
        out.push(("qdelay_ms", self.qdelay_ms() as f64));
        out.push(("target_ms", self.target_ms() as f64));
        out.push(("trend_ms", self.last_trend as f64));
        out.push((
            "avg_trend_ms",
            self.delay_trend as f64 / self.p.trend_factor as f64,
        ));
        out.push(("reduction_factor", self.reduction_factor as f64));
        out.push(("cross_traffic", self.cross_traffic as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn params() -> YieldConfig {
        YieldConfig::default()
    }

    fn init(cwnd_pkts: u64) -> CcInit {
        CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: cwnd_pkts * MSS,
            rng: crate::rng::Rng::new(1),
        }
    }

    fn yield_pkts(cwnd_pkts: u64) -> Yield {
        Yield::new(&params(), &init(cwnd_pkts))
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            YieldConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            YieldConfig::default()
        );
    }

    fn ms(x: i64) -> Option<i64> {
        Some(x * 1_000_000)
    }

    /// One full-sized segment acknowledged, OWD `owd_ms` (absolute, with clock offset).
    fn ack(owd_ms: i64) -> AckSample {
        AckSample {
            bytes_acked: MSS,
            owd: ms(owd_ms),
            ..AckSample::empty(MSS)
        }
    }

    /// A state in congestion avoidance with a known delay history, for white-box tests:
    /// offset 100 ms (so OWD 100+d gives delay d), smin = 20 ms, smax = 60 ms
    /// (target = 1500·((480−160)>>3)/10000 = 1500·40/10000 = 6 ms), delay history 40 ms
    /// (delay_prev = 40<<2 = 160), trend average 10 ms (delay_trend = 10·128 = 1280).
    fn ca_state(cwnd: u32) -> Yield {
        let mut y = yield_pkts(cwnd as u64);
        y.ssthresh = 5;
        y.owd_offset = ms(100);
        y.delay = 40;
        y.delay_smin = 8 * 20;
        y.delay_smax = 8 * 60;
        y.delay_prev = 160;
        y.delay_trend = 1280;
        y
    }

    #[test]
    fn defaults_match_table_5_1() {
        let p = params();
        assert_eq!(
            (p.beta, p.min_reduction, p.max_reduction, p.maxc_reduction),
            (15, 5, 3, 0)
        );
        assert_eq!((p.ct_threshold, p.hist_factor, p.trend_factor), (2, 2, 128));
        assert_eq!((p.increase_threshold, p.decrease_threshold), (1, -1));
        assert_eq!(p.owd_granularity, Dur::from_millis(1));
        assert_eq!(p.shift_semantics, ShiftSemantics::X86);
        let y = yield_pkts(10);
        assert_eq!(
            (y.reduction_factor, y.cwnd(), y.ssthresh()),
            (3, 10 * MSS, u64::MAX)
        );
        assert!(crate::registry::find("yield").is_some_and(|a| a.name == "yield"));
    }

    #[test]
    fn helpers_are_the_kernel_integer_ewmas() {
        // update_delay(x, 0, 2) = x<<2; update_delay(30, 160, 2) = 160 + 30 − 40 = 150.
        assert_eq!(update_delay(10, 0, 2), 40);
        assert_eq!(update_delay(30, 160, 2), 150);
        // u32 wrap: update_delay(0, 8, 3): err = 0 − (8>>3) = 2^32 − 1, 8 + err mod 2^32 = 7.
        assert_eq!(update_delay(0, 8, 3), 7);
        // update_delay_trend(−10, 0) = −1280; (−17, −1280): −1280 + (−17 − (−10)) = −1287.
        assert_eq!(update_delay_trend(-10, 0, 128), -1280);
        assert_eq!(update_delay_trend(-17, -1280, 128), -1287);
        // C division truncates toward zero: −1287/128 = −10 (not −11).
        assert_eq!(update_delay_trend(0, -1287, 128), -1287 + 10);
    }

    #[test]
    fn reduction_factor_upper_clamp_is_min_reduction() {
        // Falling delay, per-ACK operation only (no cong_avoid between, as in recovery).
        let mut y = yield_pkts(10);
        y.pkts_acked(ms(100)); // first sample: offset, delay 0; prev stays 0<<2 = 0
        y.pkts_acked(ms(140)); // delay 40; prev was 0 → trend 0; prev = 40<<2 = 160
        assert_eq!((y.delay, y.delay_prev, y.reduction_factor), (40, 160, 3));
        // delay 30: trend = 30 − (160>>2) = −10 ≤ −1 → r = min(4, 5) = 4;
        // prev = 160 + 30 − 40 = 150; delay_trend = −10·128 = −1280.
        y.pkts_acked(ms(130));
        assert_eq!(
            (y.reduction_factor, y.delay_prev, y.delay_trend),
            (4, 150, -1280)
        );
        // delay 20: trend = 20 − (150>>2 = 37) = −17; cross test: −17 > max(−10·2, 1) = 1? no.
        // r = min(5, 5) = 5; prev = 150 + 20 − 37 = 133; trend avg = −1280 + (−17 + 10) = −1287.
        y.pkts_acked(ms(120));
        assert_eq!(
            (
                y.reduction_factor,
                y.delay_prev,
                y.delay_trend,
                y.cross_traffic
            ),
            (5, 133, -1287, 0)
        );
        // delay 10: trend = 10 − 33 = −23 → r = min(6, 5) = 5: the upper clamp holds.
        y.pkts_acked(ms(110));
        assert_eq!(y.reduction_factor, 5);
        // |trend| < 1 leaves r alone: prev = 133 + 10 − 33 = 110 → 110>>2 = 27; delay 27 → trend 0.
        y.pkts_acked(ms(127));
        assert_eq!((y.last_trend, y.reduction_factor), (0, 5));
    }

    #[test]
    fn reduction_factor_lower_clamp_without_cross_traffic_is_max_reduction() {
        // History 40 ms, trend average 10 ms → cross-traffic threshold max(10·2, 1) = 20.
        let mut y = ca_state(40);
        y.reduction_factor = 4;
        // delay 45: trend = 45 − 40 = 5 ≥ 1, 5 > 20? no → r = max(4−1, 3) = 3.
        y.pkts_acked(ms(145));
        assert_eq!(
            (y.last_trend, y.cross_traffic, y.reduction_factor),
            (5, 0, 3)
        );
        // prev = 160 + 45 − 40 = 165 → 41; avg = 1280 + (5 − 10) = 1275 → 1275/128 = 9 → threshold 18.
        // delay 50: trend = 9 ≥ 1 → r = max(2, 3) = 3: the clamp holds at max_reduction.
        y.pkts_acked(ms(150));
        assert_eq!(
            (y.last_trend, y.cross_traffic, y.reduction_factor),
            (9, 0, 3)
        );
        // App. B quirk (Ong 2020 notes §2.14.5): from r = 1 (after cross-traffic), a rising trend
        // without cross-traffic *raises* r to 3: max(1 − 1, 3) = 3.
        let mut y = ca_state(40);
        y.reduction_factor = 1;
        y.pkts_acked(ms(145));
        assert_eq!(y.reduction_factor, 3);
    }

    #[test]
    fn cross_traffic_lowers_the_bound_to_maxc_reduction_and_collapses_cwnd() {
        let mut y = ca_state(40);
        // delay 70: trend = 70 − 40 = 30 > max((1280/128)·2, 1) = 20 → cross-traffic;
        // r = max(3 − 1, 0) = 2. prev = 160 + 70 − 40 = 190; avg = 1280 + (30 − 10) = 1300.
        y.pkts_acked(ms(170));
        assert_eq!(
            (
                y.cross_traffic,
                y.reduction_factor,
                y.delay_prev,
                y.delay_trend
            ),
            (1, 2, 190, 1300)
        );
        // The flag persists until cong_avoid. delay 60: trend = 60 − (190>>2 = 47) = 13,
        // below the threshold (1300/128 = 10)·2 = 20, but cross_traffic is still 1:
        // r = max(1, 0) = 1. prev = 190 + 60 − 47 = 203.
        y.pkts_acked(ms(160));
        assert_eq!(
            (
                y.last_trend,
                y.cross_traffic,
                y.reduction_factor,
                y.delay_prev
            ),
            (13, 1, 1, 203)
        );
        // delay 55: trend = 55 − 50 = 5 → r = max(0, 0) = 0. prev = 203 + 55 − 50 = 208.
        y.pkts_acked(ms(155));
        assert_eq!(y.reduction_factor, 0);
        // delay 60: trend = 60 − 52 = 8 → r = max(−1, 0) = 0: the lower bound is maxc_reduction.
        y.pkts_acked(ms(160));
        assert_eq!(y.reduction_factor, 0);
        // cong_avoid: qdelay = 60 − 20 = 40 > target 6 → cwnd −= 40 >> 0 → 0 → MIN_CWND 2;
        // r = 1; the flag and min/max are reset.
        y.cong_avoid(1, true);
        assert_eq!(
            (y.cwnd, y.cwnd(), y.reduction_factor, y.cross_traffic),
            (2, 2 * MSS, 1, 0)
        );
        assert_eq!((y.delay_min, y.delay_max), (u32::MAX, 0));
    }

    #[test]
    fn dynamic_target_from_min_max_history() {
        // Beta = 15 %: target = 1500·((smax − smin) >> 3) / 10000 (integer ms).
        let mut y = yield_pkts(10);
        y.delay_smin = 8 * 20;
        y.delay_smax = 8 * 60;
        assert_eq!(y.target_ms(), 6); // 1500·40/10000 = 6
        y.delay_smax = 8 * 113;
        assert_eq!(y.target_ms(), 13); // 1500·93/10000 = 13.95 → 13 (truncated)
                                       // smax < smin (smax only moves outside congestion avoidance): the u32 difference
                                       // wraps: (80 − 160) mod 2^32 = 4294967216, >>3 = 536870902, ·1500 mod 2^32 =
                                       // 2147468648, /10000 = 214746 ms, so the flow never sees itself over target.
        y.delay_smax = 8 * 10;
        assert_eq!(y.target_ms(), 214_746);
        // beta = 50 %: 5000·40/10000 = 20.
        let p = YieldConfig {
            beta: 50,
            ..Default::default()
        };
        let mut y = Yield::new(&p, &init(10));
        y.delay_smin = 8 * 20;
        y.delay_smax = 8 * 60;
        assert_eq!(y.target_ms(), 20);
    }

    #[test]
    fn synthetic_ack_sequence_history_target_increase_and_decrease() {
        // End to end through on_ack, initial window 40 packets, ssthresh infinite.
        let mut y = yield_pkts(40);
        let t = Time(0);
        // A1 owd 100: offset; delay 0 → delay_min 0, smin = 0, smax = 0. Slow start 40 → 41,
        // acked used up → cong_avoid returns before the resets.
        y.on_ack(t, &ack(100));
        // A2 owd 110: delay 10 → delay_max 10 → smax = 80; smin stays 0 (delay_min 0);
        // prev was 0 → trend 0; prev = 10<<2 = 40. cwnd 42.
        y.on_ack(t, &ack(110));
        assert_eq!(
            (y.delay, y.delay_smin, y.delay_smax, y.delay_prev),
            (10, 0, 80, 40)
        );
        // A3 owd 160: delay 60 → smax = 480; trend = 60 − 10 = 50 (no cross test: avg 0);
        // r = max(2, 3) = 3; prev = 40 + 60 − 10 = 90; avg = 50·128 = 6400. cwnd 43.
        y.on_ack(t, &ack(160));
        assert_eq!(
            (
                y.delay_smax,
                y.delay_prev,
                y.delay_trend,
                y.reduction_factor
            ),
            (480, 90, 6400, 3)
        );
        // A4 owd 130: delay 30; trend = 30 − 22 = 8, threshold max(50·2, 1) = 100 → no
        // cross-traffic; r = 3; prev = 90 + 30 − 22 = 98; avg = 6400 + 8 − 50 = 6358. cwnd 44.
        y.on_ack(t, &ack(130));
        assert_eq!(
            (y.cwnd, y.delay_prev, y.delay_trend, y.cross_traffic),
            (44, 98, 6358, 0)
        );
        // Loss: ssthresh = max(44 >> 1, 2) = 22, cwnd = 22.
        y.on_congestion(
            t,
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 44 * MSS,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!((y.cwnd(), y.ssthresh()), (22 * MSS, 22 * MSS));
        // A5 owd 125: delay 25; smin still 0 (delay_min 0 not yet reset), so qdelay = 0.
        // trend = 25 − (98>>2 = 24) = 1 → r = max(2, 3) = 3; prev = 99; avg = 6358 + 1 − 49 = 6310.
        // cong_avoid: 22 ≤ 22 → slow start adds 0, acked stays 1; target = 1500·(480>>3 = 60)
        // /10000 = 9; off_target = 9 ≥ 0 → Reno AI: cnt 1 of 22. Then min/max reset.
        y.on_ack(t, &ack(125));
        assert_eq!(
            (y.target_ms(), y.qdelay_ms(), y.cwnd, y.cwnd_cnt),
            (9, 0, 22, 1)
        );
        assert_eq!((y.delay_min, y.delay_max), (u32::MAX, 0));
        // A6 owd 120: delay 20 → delay_min 20 → smin = 160 (overwrite, smin was 0).
        // trend = 20 − (99>>2 = 24) = −4 → r = min(4, 5) = 4; prev = 95; avg = 6310 − 4 − 49 = 6257.
        // target = 1500·((480 − 160)>>3 = 40)/10000 = 6; qdelay = 20 − 20 = 0 → AI, cnt 2.
        y.on_ack(t, &ack(120));
        assert_eq!(
            (
                y.delay_smin,
                y.target_ms(),
                y.reduction_factor,
                y.cwnd,
                y.cwnd_cnt
            ),
            (160, 6, 4, 22, 2)
        );
        // A7 owd 130: delay 30; smin stays 160 (240 ≮ 160, 30 ≯ 160). trend = 30 − (95>>2 = 23)
        // = 7, threshold (6257/128 = 48)·2 = 96 → r = max(3, 3) = 3; prev = 102; avg = 6216.
        // qdelay = 30 − 20 = 10 > 6 → off_target = −4 → MD: 22 − (22>>3 = 2) = 20, r = 4.
        y.on_ack(t, &ack(130));
        assert_eq!(
            (y.qdelay_ms(), y.cwnd, y.reduction_factor, y.cwnd_cnt),
            (10, 20, 4, 2)
        );
        // A8 owd 131: delay 31; trend = 31 − (102>>2 = 25) = 6 → r = max(3, 3) = 3.
        // The MD left cwnd 20 ≤ ssthresh 22 and Yield never lowers ssthresh, so this ACK
        // slow-starts: cwnd 21, acked used up → return before the resets (delay_min = 31).
        y.on_ack(t, &ack(131));
        assert_eq!((y.cwnd, y.reduction_factor, y.delay_min), (21, 3, 31));
        // A9 owd 126: delay 26 < 31 → delay_min 26; trend = 26 − (108>>2 = 27) = −1 ≤ −1 →
        // r = min(4, 5) = 4. Slow start: 21 → 22, acked used up.
        y.on_ack(t, &ack(126));
        assert_eq!((y.cwnd, y.reduction_factor, y.delay_min), (22, 4, 26));
        // A10 owd 127: delay 27 > delay_max 0 → 27; trend = 27 − (107>>2 = 26) = 1 → r = 3.
        // 22 ≤ 22: slow start adds 0; qdelay = 27 − 20 = 7 > 6 → MD: 22 − 2 = 20, r = 4.
        y.on_ack(t, &ack(127));
        assert_eq!((y.cwnd, y.reduction_factor), (20, 4));
        assert_eq!(y.cwnd(), 20 * MSS);
    }

    #[test]
    fn additive_increase_below_target_one_packet_per_window() {
        // cwnd 10 > ssthresh 5; delay 22 ms: qdelay 22 − 20 = 2 ≤ target 6 → Reno AI.
        let mut y = ca_state(10);
        for i in 0..9 {
            y.on_ack(Time(0), &ack(122));
            assert_eq!((y.cwnd, y.cwnd_cnt), (10, i + 1));
        }
        y.on_ack(Time(0), &ack(122));
        assert_eq!((y.cwnd(), y.cwnd_cnt), (11 * MSS, 0));
        // Not cwnd-limited: tcp_reno_cong_avoid does not grow, but the resets still happen.
        y.delay_max = 99;
        y.on_ack(
            Time(0),
            &AckSample {
                cwnd_limited: false,
                ..ack(122)
            },
        );
        assert_eq!((y.cwnd, y.cwnd_cnt, y.delay_max), (11, 0, 0));
        // In recovery: per-ACK bookkeeping runs (delay 30 becomes delay_min), no cong_avoid.
        y.on_ack(
            Time(0),
            &AckSample {
                in_recovery: true,
                ..ack(130)
            },
        );
        assert_eq!((y.cwnd, y.delay, y.delay_min), (11, 30, 30));
    }

    #[test]
    fn sustained_decrease_above_target_r_unclamped_and_x86_shift_wrap() {
        // Constant delay 40 ms, history 40 ms → trend 0 every ACK (r untouched per ACK),
        // qdelay = 40 − 20 = 20 > target 6 → an MD on every ACK with r += 1 unclamped.
        let setup = |shift| {
            let mut y = ca_state(40);
            y.p.shift_semantics = shift;
            y.delay_trend = 0;
            y
        };
        let mut y = setup(ShiftSemantics::X86);
        y.on_ack(Time(0), &ack(140)); // 40 − (40>>3 = 5) = 35, r 4
        assert_eq!((y.cwnd, y.reduction_factor), (35, 4));
        y.on_ack(Time(0), &ack(140)); // 35 − (35>>4 = 2) = 33, r 5
        assert_eq!((y.cwnd, y.reduction_factor), (33, 5));
        y.on_ack(Time(0), &ack(140)); // 33 − (33>>5 = 1) = 32, r 6 > min_reduction
        assert_eq!((y.cwnd, y.reduction_factor), (32, 6));
        for _ in 0..26 {
            y.on_ack(Time(0), &ack(140)); // 32 >> 6..31 = 0: no change
        }
        assert_eq!((y.cwnd, y.reduction_factor, y.delay_prev), (32, 32, 160));
        // r = 32: x86 masks the shift count to 32 & 31 = 0 → cwnd −= 32 → 0 → floor 2.
        y.on_ack(Time(0), &ack(140));
        assert_eq!((y.cwnd, y.reduction_factor), (2, 33));
        // "math" reading of eq 5.1: cwnd/2^32 = 0 → no cut.
        let mut y = setup(ShiftSemantics::Math);
        for _ in 0..30 {
            y.on_ack(Time(0), &ack(140));
        }
        assert_eq!((y.cwnd, y.reduction_factor), (32, 33));
        // A falling delay snaps r back to min_reduction: delay 22, trend = 22 − 40 = −18 →
        // r = min(34, 5) = 5; qdelay 2 ≤ 6 → AI instead of MD.
        y.on_ack(Time(0), &ack(122));
        assert_eq!((y.reduction_factor, y.cwnd, y.cwnd_cnt), (5, 32, 1));
        // s8 wrap in x86 mode: 127 + 1 → −128, shift count −128 & 31 = 0 → full cut.
        let mut y = setup(ShiftSemantics::X86);
        y.reduction_factor = 127;
        y.on_ack(Time(0), &ack(140)); // 40 >> (127 & 31 = 31) = 0 → 40; r → −128
        assert_eq!((y.cwnd, y.reduction_factor), (40, -128));
        y.on_ack(Time(0), &ack(140)); // 40 >> 0 = 40 → 0 → 2; r = −127
        assert_eq!((y.cwnd, y.reduction_factor), (2, -127));
    }

    #[test]
    fn owd_estimator_relative_to_first_sample_and_quantised() {
        let mut y = yield_pkts(10);
        y.pkts_acked(ms(50)); // offset 50 ms → delay stays 0
        assert_eq!(y.delay, 0);
        y.pkts_acked(Some(57_900_000)); // 7.9 ms → floor 7
        assert_eq!(y.delay, 7);
        y.pkts_acked(ms(45)); // below the first sample: time ≤ remote_time → delay kept
        assert_eq!(y.delay, 7);
        y.pkts_acked(None); // no timestamps: delay kept
        assert_eq!(y.delay, 7);
        // HZ = 250: 4 ms ticks. 7.9 ms → 1 tick → 4 ms; 3.9 ms → 0 ticks → kept.
        let p = YieldConfig {
            owd_granularity: Dur::from_millis(4),
            ..Default::default()
        };
        let mut y = Yield::new(&p, &init(10));
        y.pkts_acked(ms(50));
        y.pkts_acked(Some(57_900_000));
        assert_eq!(y.delay, 4);
        y.pkts_acked(Some(53_900_000));
        assert_eq!(y.delay, 4);
        y.pkts_acked(ms(62));
        assert_eq!(y.delay, 12);
    }

    #[test]
    fn loss_and_rto_use_reno_ssthresh_and_keep_yield_state() {
        let mut y = ca_state(20);
        y.reduction_factor = 4;
        let loss = CongestionEvent {
            kind: CongestionKind::Loss,
            bytes_in_flight: 20 * MSS,
            bytes_lost: MSS,
            mss: MSS,
        };
        y.on_congestion(Time(0), &loss); // ssthresh = max(20>>1, 2) = 10, cwnd = 10
        assert_eq!(
            (y.cwnd(), y.ssthresh(), y.reduction_factor, y.delay_smin),
            (10 * MSS, 10 * MSS, 4, 160)
        );
        let mut tiny = yield_pkts(3);
        tiny.on_congestion(Time(0), &loss); // max(3>>1 = 1, 2) = 2
        assert_eq!((tiny.cwnd(), tiny.ssthresh()), (2 * MSS, 2 * MSS));
        // ECN (CWR) takes the same ssthresh hook: 10 → 5.
        y.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Ecn,
                bytes_in_flight: 0,
                bytes_lost: 0,
                mss: MSS,
            },
        );
        assert_eq!((y.cwnd(), y.ssthresh()), (5 * MSS, 5 * MSS));
        // RTO at cwnd 16: ssthresh = max(16 >> 1, 2) = 8, cwnd = 1 packet.
        y.cwnd = 16;
        y.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 16 * MSS,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((y.cwnd(), y.ssthresh(), y.cwnd_cnt), (MSS, 8 * MSS, 0));
        // A repeated timeout keeps ssthresh (Linux tcp_enter_loss in Loss state).
        y.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 2,
                mss: MSS,
            },
        );
        assert_eq!((y.cwnd(), y.ssthresh()), (MSS, 8 * MSS));
        assert_eq!(y.reduction_factor, 4);
        // Slow start afterwards: 1 → 2 (no delay logic until acked runs out).
        y.on_ack(Time(0), &ack(122));
        assert_eq!(y.cwnd(), 2 * MSS);
    }
}
