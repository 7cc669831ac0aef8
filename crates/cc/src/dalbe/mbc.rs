//! The thesis's two Model-Based Controllers (MBC, Hayes et al. 2017 as adapted in
//! Wallenburg 2018 §2.6 and §3.5.2): DA-LBE Cubic (phantom ECNs, Alg 1) and DA-LBE Vegas
//! (queueing-delay scaling, Alg 3). Equation numbers refer to Wallenburg 2018 chapter 2.
//! Choices where the thesis is silent or inconsistent (Wallenburg 2018 notes §11) are recorded in
//! docs/deviations/dalbe.md.

use super::knobs::{DaLbeInfo, Knobs, DEFAULT_EWMA_WEIGHT};
use super::meta::{FlowView, MetaController};
use crate::params::{ParamError, ParamKind, ParamReader, ParamSet, ParamSpec, ParamValue};
use crate::units::{Dur, Time};

// ---------------------------------------------------------------------------------
// Equations (pure functions, unit-tested at sample points).

/// Eq. (2.2): ζ(t_n, t_D) = data remaining / (t_D - t_n), in bytes/s, capped at ζ_max;
/// at or after the deadline ζ = ζ_max (Wallenburg 2018 §2.6.5: "after the deadline has passed
/// this maximum target sending rate is kept").
pub fn target_rate(remaining_bytes: u64, time_left: Dur, zeta_max: f64) -> f64 {
    if time_left.nanos() == 0 {
        return zeta_max;
    }
    (remaining_bytes as f64 / time_left.secs_f64()).min(zeta_max)
}

/// Eq. (2.3) as the factor used in (2.4): 1 + ε_{n-1} = ζ(t_{n-1}, t_D) / x̄(t_{n-1}, t_n).
/// Nothing measured with a positive target is an infinite error; nothing wanted and
/// nothing sent is no error.
pub fn one_plus_error(zeta_prev: f64, xbar: f64) -> f64 {
    if xbar > 0.0 {
        zeta_prev / xbar
    } else if zeta_prev > 0.0 {
        f64::INFINITY
    } else {
        1.0
    }
}

/// Eq. (2.5): ŵ_n = w_{n-1} + l·w_n if (w_n - w_{n-1}) > l·w_n, else w_n. Drops are
/// never limited. Also used for φ with l_φ (Wallenburg 2018 §3.5.2.2).
pub fn growth_limit(prev: f64, new: f64, l: f64) -> f64 {
    if new - prev > l * new {
        prev + l * new
    } else {
        new
    }
}

/// [x]_{lo}^{hi} with NaN mapped to the LBE end (Wallenburg 2018 §3.5.2.1: intermediate values
/// are clamped "so intermediate calculations don't yield ridiculous results").
pub fn clamp_w(x: f64, lo: f64, hi: f64) -> f64 {
    if x.is_nan() {
        lo
    } else {
        x.clamp(lo, hi)
    }
}

/// a·b with 0·∞ = 0 (a zero price or a zero target gives a zero weight).
fn mul0(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        a * b
    }
}

/// Alg 1: q̂_n = RTT_min / (ĉwnd^{4/3} · (4(1-β) / (C(4-(1-β))))^{1/3}), the loss-event
/// probability at which Cubic's response function (RFC 8312: W = (C(3+β)/(4(1-β)))^{1/4}
/// · RTT^{3/4} / p^{3/4}) gives ĉwnd packets. RTT in seconds, cwnd in packets.
pub fn cubic_model_price(rtt_min_s: f64, cwnd_hat_pkts: f64, beta: f64, c: f64) -> f64 {
    let k = (4.0 * (1.0 - beta) / (c * (4.0 - (1.0 - beta)))).cbrt();
    rtt_min_s / (cwnd_hat_pkts.powf(4.0 / 3.0) * k)
}

/// Alg 1: P(phantom ECN) = q(1/ŵ - 1), as a probability.
pub fn cubic_phantom_prob(q: f64, w_hat: f64) -> f64 {
    let p = q * (1.0 / w_hat - 1.0);
    if p.is_nan() {
        0.0
    } else {
        p.clamp(0.0, 1.0)
    }
}

/// Eq. (2.7): q = [W(reno)·P(loss) + W(delay)·P(delay)] / [W(cubic)·P(loss)].
/// `None` when there was no loss event (the normaliser is zero).
pub fn vegas_price(
    w_reno: f64,
    p_loss: f64,
    w_delay: f64,
    p_delay: f64,
    w_cubic: f64,
) -> Option<f64> {
    let den = w_cubic * p_loss;
    (den > 0.0).then(|| (w_reno * p_loss + w_delay * p_delay) / den)
}

/// Alg 3: w_base = (d_n / d̂_n)^(-q), as printed. No queueing (d ≤ 0) gives +∞
/// (clamped to w_max by the caller).
pub fn vegas_w_base(d_s: f64, d_hat_s: f64, q: f64) -> f64 {
    let ratio = (d_s / d_hat_s).max(0.0);
    ratio.powf(-q)
}

/// Alg 3: if ŵ_n = 1.0 (w_max): B = 1 - 1/μ_n, else 0 (also 0 when μ ≤ 1: a negative
/// probability has no meaning).
pub fn vegas_ignore_backoff(mu: f64, w_hat: f64, w_max: f64) -> f64 {
    if w_hat >= w_max && mu > 1.0 {
        1.0 - 1.0 / mu
    } else {
        0.0
    }
}

// ---------------------------------------------------------------------------------
// Shared MBC machinery (Wallenburg 2018 §2.6.2).

/// Parameters both controllers share (`interval` … `zeta_max` in both spec tables).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MbcCommon {
    /// T_w, the weight interval: 10 s (Wallenburg 2018 §3.2.2, §3.5.2).
    pub interval: Dur,
    /// T_φ, the price interval: 60 s (Wallenburg 2018 §2.6.2.1, §3.5.2).
    pub price_interval: Dur,
    /// Lower clamp of w (most LBE): 0.0001 (Wallenburg 2018 §3.5.2.1).
    pub w_min: f64,
    /// Upper clamp of w (best-effort equivalent): 1.0 (Wallenburg 2018 §3.5.2.1).
    pub w_max: f64,
    /// l_w, the weight growth limit per interval: 0.05 (Wallenburg 2018 §3.5.2.1; Hayes
    /// et al. 2017).
    pub l_w: f64,
    /// ζ_max in bytes/s (the parameter is in Mbit/s): 10 Gbit/s, not stated in Wallenburg
    /// 2018 (§2.6.5 "a reasonable maximum"; docs/deviations/dalbe.md).
    pub zeta_max: f64,
}

impl Default for MbcCommon {
    fn default() -> MbcCommon {
        MbcCommon {
            interval: Dur::from_secs(10),
            price_interval: Dur::from_secs(60),
            w_min: 0.0001,
            w_max: 1.0,
            l_w: 0.05,
            zeta_max: 10e9 / 8.0,
        }
    }
}

impl MbcCommon {
    /// Reads the shared parameters; called only by the controllers' `TryFrom<&ParamSet>`.
    fn read(r: &ParamReader<'_>) -> Result<MbcCommon, ParamError> {
        Ok(MbcCommon {
            interval: r.dur("interval")?,
            price_interval: r.dur("price_interval")?,
            w_min: r.f64("w_min")?,
            w_max: r.f64("w_max")?,
            l_w: r.f64("l_w")?,
            zeta_max: r.f64("zeta_max")? * 1e6 / 8.0,
        })
    }
}

macro_rules! common_params {
    () => {
        [
            ParamSpec {
                name: "interval",
                kind: ParamKind::Duration { min: Dur::from_millis(10), max: Dur::from_secs(3600) },
                default: ParamValue::Dur(Dur::from_secs(10)),
                unit: "s",
                doc: "T_w: how often the weight (and the knobs) are updated",
                source: "Wallenburg 2018 §3.2.2, §3.5.2 (10 s)",
            },
            ParamSpec {
                name: "price_interval",
                kind: ParamKind::Duration { min: Dur::from_millis(10), max: Dur::from_secs(36000) },
                default: ParamValue::Dur(Dur::from_secs(60)),
                unit: "s",
                doc: "T_phi: how often the network price q is re-measured",
                source: "Wallenburg 2018 §2.6.2.1, §3.5.2 (60 s)",
            },
            ParamSpec {
                name: "w_min",
                kind: ParamKind::Float { min: 1e-9, max: 1.0 },
                default: ParamValue::Float(0.0001),
                unit: "",
                doc: "lower clamp of the weight w (most LBE)",
                source: "Wallenburg 2018 §3.5.2.1 ([0.0001, 1.0])",
            },
            ParamSpec {
                name: "w_max",
                kind: ParamKind::Float { min: 1e-9, max: 1.0 },
                default: ParamValue::Float(1.0),
                unit: "",
                doc: "upper clamp of the weight w (best-effort equivalent)",
                source: "Wallenburg 2018 §3.5.2.1 ([0.0001, 1.0])",
            },
            ParamSpec {
                name: "l_w",
                kind: ParamKind::Float { min: 0.0, max: 10.0 },
                default: ParamValue::Float(0.05),
                unit: "",
                doc: "growth limit of w per interval, fraction of the new value (eq. 2.5)",
                source: "Wallenburg 2018 §3.5.2.1 (5 %); Hayes et al. 2017 l_w = 0.05",
            },
            ParamSpec {
                name: "zeta_max",
                kind: ParamKind::Float { min: 0.001, max: 1e6 },
                default: ParamValue::Float(10_000.0),
                unit: "Mbit/s",
                doc: "cap of the target rate, also used after the deadline; any value above the path capacity asks for full (BE) aggressiveness",
                source: "not stated in Wallenburg 2018 (§2.6.5 'a reasonable maximum'); see docs/deviations/dalbe.md",
            },
        ]
    };
}

/// State common to both MBCs: previous tick, weight, price window.
#[derive(Clone, Debug)]
struct MbcCore {
    cfg: MbcCommon,
    /// ŵ_{n-1}; starts at w_max (the neutral knobs of the first interval are BE).
    w_prev: f64,
    prev_t: Time,
    prev_acked: u64,
    /// ζ(t_{n-1}, t_D).
    prev_zeta: f64,
    /// Start of the current price window and the counters then.
    price_t: Time,
    price_snap: DaLbeInfo,
    full_price_seen: bool,
    // Diagnostics of the last tick.
    zeta: f64,
    xbar: f64,
    one_plus_eps: f64,
}

impl MbcCore {
    fn new(cfg: MbcCommon) -> MbcCore {
        MbcCore {
            cfg,
            w_prev: cfg.w_max,
            prev_t: Time::ZERO,
            prev_acked: 0,
            prev_zeta: 0.0,
            price_t: Time::ZERO,
            price_snap: DaLbeInfo::default(),
            full_price_seen: false,
            zeta: 0.0,
            xbar: f64::NAN,
            one_plus_eps: f64::NAN,
        }
    }

    fn zeta(&self, v: &FlowView) -> Option<f64> {
        Some(target_rate(
            v.bytes_remaining?,
            v.time_to_deadline()?,
            self.cfg.zeta_max,
        ))
    }

    fn start(&mut self, v: &FlowView) {
        self.prev_t = v.now;
        self.prev_acked = v.bytes_acked;
        self.prev_zeta = self.zeta(v).unwrap_or(0.0);
        self.price_t = v.now;
        self.price_snap = v.info;
    }

    /// The price window to evaluate at this tick, if any: every T_φ (with half a T_w
    /// of tolerance for tick jitter); before the first full window, a provisional
    /// window from the start at every tick (docs/deviations/dalbe.md#dalbe-unstated-values).
    fn price_window(&mut self, v: &FlowView) -> Option<DaLbeInfo> {
        let since = v.now.since(self.price_t);
        if since + Dur(self.cfg.interval.nanos() / 2) >= self.cfg.price_interval {
            let snap = self.price_snap;
            self.price_t = v.now;
            self.price_snap = v.info;
            self.full_price_seen = true;
            Some(snap)
        } else if !self.full_price_seen {
            Some(self.price_snap)
        } else {
            None
        }
    }

    /// x̄(t_{n-1}, t_n) and 1 + ε_{n-1}; stores ζ(t_n) for the next tick.
    fn measure(&mut self, v: &FlowView) -> Option<f64> {
        let zeta = self.zeta(v)?;
        let dt = v.now.since(self.prev_t).secs_f64();
        self.xbar = if dt > 0.0 {
            v.bytes_acked.saturating_sub(self.prev_acked) as f64 / dt
        } else {
            0.0
        };
        self.one_plus_eps = one_plus_error(self.prev_zeta, self.xbar);
        self.zeta = zeta;
        self.prev_t = v.now;
        self.prev_acked = v.bytes_acked;
        self.prev_zeta = zeta;
        Some(zeta)
    }

    /// Eq. (2.4) clamp and eq. (2.5) growth limit; remembers ŵ_n.
    fn limit(&mut self, w_raw: f64) -> f64 {
        let c = &self.cfg;
        let w_n = clamp_w(w_raw, c.w_min, c.w_max);
        let w_hat = clamp_w(growth_limit(self.w_prev, w_n, c.l_w), c.w_min, c.w_max);
        self.w_prev = w_hat;
        w_hat
    }
}

fn rtt_s(d: Option<Dur>) -> Option<f64> {
    d.map(|d| d.secs_f64()).filter(|&s| s > 0.0)
}

// ---------------------------------------------------------------------------------
// DA-LBE Cubic.

pub static CUBIC_MBC_PARAMS: &[ParamSpec] = &{
    let c = common_params!();
    [
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        c[5],
        ParamSpec {
            name: "beta",
            kind: ParamKind::Float { min: 0.01, max: 0.99 },
            default: ParamValue::Float(0.7),
            unit: "",
            doc: "Cubic's multiplicative decrease factor assumed by the model",
            source: "Wallenburg 2018 §2.6.3, App. B (717/1024 in Linux 4.16); Wallenburg 2018 notes §6.5",
        },
        ParamSpec {
            name: "c",
            kind: ParamKind::Float { min: 0.001, max: 100.0 },
            default: ParamValue::Float(0.4),
            unit: "",
            doc: "Cubic's scaling constant C in the model price",
            source: "Wallenburg 2018 Alg 1 (the 0.4 in q̂)",
        },
        ParamSpec {
            name: "price_scaling",
            kind: ParamKind::Choice(&["one_minus_beta", "beta", "none"]),
            default: ParamValue::Choice("one_minus_beta"),
            unit: "",
            doc: "factor on the measured price I/N: (1-beta) (average cwnd change, as W(cubic) in eq. 2.7), beta, or none (eq. 2.6 as printed)",
            source: "Wallenburg 2018 §3.5.2.1 'scaling the longer-term network price by the Cubic beta'; Wallenburg 2018 notes §11.3",
        },
        ParamSpec {
            name: "v",
            kind: ParamKind::Int { min: 0, max: 1000 },
            default: ParamValue::Int(2),
            unit: "",
            doc: "phantom-ECN suppression factor: no phantom ECN once v x the mean time between real congestion events has passed without one (0 = off)",
            source: "Wallenburg 2018 §2.6.3, App. B (value not stated; our choice, docs/deviations/dalbe.md)",
        },
        ParamSpec {
            name: "ewma_weight",
            kind: ParamKind::Int { min: 0, max: 128 },
            default: ParamValue::Int(DEFAULT_EWMA_WEIGHT as i64),
            unit: "/128",
            doc: "EWMA weight for the mean time between congestion events (gain (128-w)/128; 0 freezes)",
            source: "kernel DALBE_EWMA_LEVEL = 96 (Wallenburg 2018 notes §4.1 [K]); thesis value not stated",
        },
    ]
};

/// The factor on the measured price I/N (`price_scaling`, Wallenburg 2018 §3.5.2.1; Wallenburg
/// 2018 notes §11.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriceScaling {
    /// 1 − β: the average cwnd change, as W(cubic) in eq. 2.7.
    OneMinusBeta,
    /// β.
    Beta,
    /// None: eq. 2.6 as printed.
    None,
}

/// DA-LBE Cubic's parameters; the same defaults as `CUBIC_MBC_PARAMS`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicMbcConfig {
    pub common: MbcCommon,
    /// Cubic's multiplicative decrease factor assumed by the model: 0.7 (Wallenburg 2018
    /// §2.6.3, App. B: 717/1024 in Linux 4.16; Wallenburg 2018 notes §6.5).
    pub beta: f64,
    /// Cubic's scaling constant C in the model price: 0.4 (Wallenburg 2018 Alg 1).
    pub c: f64,
    /// Factor on I/N: 1 − β (Wallenburg 2018 §3.5.2.1 "scaling the longer-term network
    /// price by the Cubic beta").
    pub price_scaling: PriceScaling,
    /// Phantom-ECN suppression factor (0 = off): 2 (value not stated in Wallenburg 2018
    /// §2.6.3, App. B; ours, docs/deviations/dalbe.md).
    pub v: u32,
    /// EWMA weight /128 for the mean time between congestion events: 96 (kernel
    /// DALBE_EWMA_LEVEL, Wallenburg 2018 notes §4.1 [K]).
    pub ewma_weight: u32,
}

impl Default for CubicMbcConfig {
    fn default() -> CubicMbcConfig {
        CubicMbcConfig {
            common: MbcCommon::default(),
            beta: 0.7,
            c: 0.4,
            price_scaling: PriceScaling::OneMinusBeta,
            v: 2,
            ewma_weight: DEFAULT_EWMA_WEIGHT,
        }
    }
}

impl CubicMbcConfig {
    /// The factor on I/N (0.3 for 1 − β with β = 0.7).
    pub fn price_scale(&self) -> f64 {
        match self.price_scaling {
            PriceScaling::OneMinusBeta => 1.0 - self.beta,
            PriceScaling::Beta => self.beta,
            PriceScaling::None => 1.0,
        }
    }
}

impl TryFrom<&ParamSet> for CubicMbcConfig {
    type Error = ParamError;
    /// The only place DA-LBE Cubic's parameter names are looked up.
    fn try_from(p: &ParamSet) -> Result<CubicMbcConfig, ParamError> {
        let r = p.reader("cubic-mbc");
        Ok(CubicMbcConfig {
            common: MbcCommon::read(&r)?,
            beta: r.f64("beta")?,
            c: r.f64("c")?,
            price_scaling: match r.choice("price_scaling")? {
                "one_minus_beta" => PriceScaling::OneMinusBeta,
                "beta" => PriceScaling::Beta,
                _ => PriceScaling::None,
            },
            v: r.int("v")? as u32,
            ewma_weight: r.int("ewma_weight")? as u32,
        })
    }
}

/// DA-LBE Cubic: Alg 1 of Wallenburg 2018 with the §3.5.2.1 implementation changes.
#[derive(Clone, Debug)]
pub struct CubicMbc {
    cfg: CubicMbcConfig,
    core: MbcCore,
    /// q: the measured price (eq. 2.6 scaled), updated every T_φ.
    q: f64,
    q_hat: f64,
    cwnd_hat: f64,
    w_hat: f64,
    p_phantom: f64,
}

impl CubicMbc {
    pub fn new(cfg: &CubicMbcConfig) -> CubicMbc {
        let cfg = *cfg;
        CubicMbc {
            cfg,
            core: MbcCore::new(cfg.common),
            q: 0.0,
            q_hat: f64::NAN,
            cwnd_hat: f64::NAN,
            w_hat: cfg.common.w_max,
            p_phantom: 0.0,
        }
    }

    /// The current price q, model price q̂ and limited weight ŵ.
    pub fn state(&self) -> (f64, f64, f64) {
        (self.q, self.q_hat, self.w_hat)
    }

    fn knobs(&self, base: Knobs) -> Knobs {
        Knobs {
            phantom_ecn_prob: self.p_phantom,
            suppression_v: self.cfg.v,
            ewma_weight: self.cfg.ewma_weight,
            ..base
        }
    }
}

impl MetaController for CubicMbc {
    fn name(&self) -> &'static str {
        "cubic-mbc"
    }

    fn interval(&self) -> Dur {
        self.cfg.common.interval
    }

    fn on_start(&mut self, view: &FlowView) -> Knobs {
        self.core.start(view);
        // dalbe_open's neutral knobs until the first tick (P = 0).
        self.knobs(Knobs {
            enabled: true,
            ..Knobs::default()
        })
    }

    fn on_tick(&mut self, _now: Time, view: &FlowView) -> Knobs {
        // Every T_φ: q ← P[loss] = I/N (eq. 2.6), scaled by Cubic's β (§3.5.2.1).
        if let Some(snap) = self.core.price_window(view) {
            let i = view.info.real_events().saturating_sub(snap.real_events());
            let n = view.info.packets_acked.saturating_sub(snap.packets_acked);
            if n > 0 {
                self.q = self.cfg.price_scale() * i as f64 / n as f64;
            }
        }
        // Every T_w (Alg 1).
        let Some(zeta) = self.core.measure(view) else {
            return view.knobs; // no size or deadline: nothing to control
        };
        let (Some(rtt_bar), Some(rtt_min)) = (rtt_s(view.info.srtt), rtt_s(view.info.rtt_min))
        else {
            return view.knobs;
        };
        let mss = view.info.mss.max(1) as f64;
        // ĉwnd ← ζ(t_n, t_D) × RTT̄, ζ in packets/s.
        self.cwnd_hat = zeta / mss * rtt_bar;
        self.q_hat = cubic_model_price(rtt_min, self.cwnd_hat, self.cfg.beta, self.cfg.c);
        // w_n = [q_{n-1}/q̂_n (1 + ε_{n-1})] (eq. 2.4); after the deadline full
        // aggressiveness (§2.6.5).
        let w_raw = if view.deadline_passed() {
            self.cfg.common.w_max
        } else {
            mul0(self.q / self.q_hat, self.core.one_plus_eps)
        };
        self.w_hat = self.core.limit(w_raw);
        // P(phantom ECN) ← q(1/ŵ_n - 1).
        self.p_phantom = cubic_phantom_prob(self.q, self.w_hat);
        self.knobs(view.knobs)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("mbc_w", self.w_hat));
        out.push(("mbc_p_phantom", self.p_phantom));
        out.push(("mbc_q", self.q));
        out.push(("mbc_q_hat", self.q_hat));
        out.push(("mbc_cwnd_hat_pkts", self.cwnd_hat));
        out.push(("mbc_zeta_mbps", self.core.zeta * 8e-6));
        out.push(("mbc_xbar_mbps", self.core.xbar * 8e-6));
        out.push(("mbc_eps", self.core.one_plus_eps - 1.0));
    }
}

// ---------------------------------------------------------------------------------
// DA-LBE Vegas.

pub static VEGAS_MBC_PARAMS: &[ParamSpec] = &{
    let c = common_params!();
    [
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        c[5],
        ParamSpec {
            name: "alpha",
            kind: ParamKind::Float { min: 0.001, max: 10_000.0 },
            default: ParamValue::Float(16.0),
            unit: "packets",
            doc: "the wrapped Vegas's alpha, for d_hat = alpha/zeta (set the Vegas to the same value)",
            source: "Wallenburg 2018 §5.1.2 (alpha = beta = 16 in all tests); Libdalbe read it at init",
        },
        ParamSpec {
            name: "l_phi",
            kind: ParamKind::Float { min: 0.0, max: 10.0 },
            default: ParamValue::Float(0.01),
            unit: "",
            doc: "growth limit of the price phi per price interval, fraction of the new value",
            source: "Wallenburg 2018 §3.5.2.2 (1 %); Hayes et al. 2017 used 0.1",
        },
        ParamSpec {
            name: "w_reno",
            kind: ParamKind::Float { min: 0.0, max: 1.0 },
            default: ParamValue::Float(0.5),
            unit: "",
            doc: "W(loss-reno): Vegas's cwnd reduction on loss",
            source: "Wallenburg 2018 §2.6.4 (0.5)",
        },
        ParamSpec {
            name: "w_cubic",
            kind: ParamKind::Float { min: 0.001, max: 1.0 },
            default: ParamValue::Float(0.3),
            unit: "",
            doc: "W(loss-cubic) = 1 - beta of the assumed best-effort competitor",
            source: "Wallenburg 2018 §2.6.4 (1.0 - beta ≈ 0.3)",
        },
        ParamSpec {
            name: "rtt_mean",
            kind: ParamKind::Choice(&["flow", "srtt"]),
            default: ParamValue::Choice("flow"),
            unit: "",
            doc: "RTT-bar in d = RTT-bar - RTT_base: mean of all samples since the start (as the thesis's code) or the smoothed RTT",
            source: "Wallenburg 2018 §5.2.2/§5.3.2.2 (the whole-flow mean, named as a weakness)",
        },
    ]
};

/// RTT-bar in d = RTT-bar − RTT_base (`rtt_mean`, Wallenburg 2018 §5.2.2/§5.3.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttMean {
    /// The mean of all samples since the start, as the thesis's code.
    Flow,
    /// The smoothed RTT.
    Srtt,
}

/// DA-LBE Vegas's parameters; the same defaults as `VEGAS_MBC_PARAMS`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasMbcConfig {
    pub common: MbcCommon,
    /// The wrapped Vegas's α in packets, for d̂ = α/ζ: 16 (Wallenburg 2018 §5.1.2).
    pub alpha: f64,
    /// Growth limit of the price φ per price interval: 0.01 (Wallenburg 2018 §3.5.2.2;
    /// Hayes et al. 2017 used 0.1).
    pub l_phi: f64,
    /// W(loss-reno), Vegas's cwnd reduction on loss: 0.5 (Wallenburg 2018 §2.6.4).
    pub w_reno: f64,
    /// W(loss-cubic) = 1 − β of the assumed best-effort competitor: 0.3 (Wallenburg 2018
    /// §2.6.4).
    pub w_cubic: f64,
    /// The whole-flow mean (Wallenburg 2018 §5.2.2/§5.3.2.2, named as a weakness).
    pub rtt_mean: RttMean,
}

impl Default for VegasMbcConfig {
    fn default() -> VegasMbcConfig {
        VegasMbcConfig {
            common: MbcCommon::default(),
            alpha: 16.0,
            l_phi: 0.01,
            w_reno: 0.5,
            w_cubic: 0.3,
            rtt_mean: RttMean::Flow,
        }
    }
}

impl TryFrom<&ParamSet> for VegasMbcConfig {
    type Error = ParamError;
    /// The only place DA-LBE Vegas's parameter names are looked up.
    fn try_from(p: &ParamSet) -> Result<VegasMbcConfig, ParamError> {
        let r = p.reader("vegas-mbc");
        Ok(VegasMbcConfig {
            common: MbcCommon::read(&r)?,
            alpha: r.f64("alpha")?,
            l_phi: r.f64("l_phi")?,
            w_reno: r.f64("w_reno")?,
            w_cubic: r.f64("w_cubic")?,
            rtt_mean: match r.choice("rtt_mean")? {
                "srtt" => RttMean::Srtt,
                _ => RttMean::Flow,
            },
        })
    }
}

/// DA-LBE Vegas: Alg 3 of Wallenburg 2018 with the φ growth limit of §3.5.2.2.
#[derive(Clone, Debug)]
pub struct VegasMbc {
    cfg: VegasMbcConfig,
    core: MbcCore,
    /// φ: the long-term price (eq. 2.7), growth-limited by l_φ.
    phi: f64,
    phi_measured: bool,
    d: f64,
    d_hat: f64,
    w_hat: f64,
    mu: f64,
    b: f64,
}

impl VegasMbc {
    pub fn new(cfg: &VegasMbcConfig) -> VegasMbc {
        let cfg = *cfg;
        VegasMbc {
            cfg,
            core: MbcCore::new(cfg.common),
            // Eq. (2.7) with no delay reductions: W(reno)/W(cubic)
            // (docs/deviations/dalbe.md#dalbe-unstated-values).
            phi: cfg.w_reno / cfg.w_cubic,
            phi_measured: false,
            d: f64::NAN,
            d_hat: f64::NAN,
            w_hat: cfg.common.w_max,
            mu: 1.0,
            b: 0.0,
        }
    }

    /// φ, ŵ, μ and B after the last tick.
    pub fn state(&self) -> (f64, f64, f64, f64) {
        (self.phi, self.w_hat, self.mu, self.b)
    }

    fn knobs(&self, base: Knobs) -> Knobs {
        Knobs {
            delay_based: true,
            base_rtt_based: true,
            mu: self.mu,
            loss_ignore_prob: self.b,
            ..base
        }
    }

    fn update_price(&mut self, view: &FlowView, snap: &DaLbeInfo) {
        let i = &view.info;
        let n = i.packets_acked.saturating_sub(snap.packets_acked);
        if n == 0 {
            return;
        }
        let n = n as f64;
        let p_loss = i.real_events().saturating_sub(snap.real_events()) as f64 / n;
        let k = i.delay_reductions.saturating_sub(snap.delay_reductions);
        let p_delay = k as f64 / n;
        // W(delay): mean proportional reduction, 1 - mean(new/old) (Wallenburg 2018 notes §6.4 [D]).
        let w_delay = if k > 0 {
            1.0 - (i.delay_reduction_ratio_sum - snap.delay_reduction_ratio_sum) / k as f64
        } else {
            0.0
        };
        if let Some(q) = vegas_price(self.cfg.w_reno, p_loss, w_delay, p_delay, self.cfg.w_cubic) {
            self.phi = if self.phi_measured {
                growth_limit(self.phi, q, self.cfg.l_phi)
            } else {
                q
            };
            self.phi_measured = true;
        }
    }
}

impl MetaController for VegasMbc {
    fn name(&self) -> &'static str {
        "vegas-mbc"
    }

    fn interval(&self) -> Dur {
        self.cfg.common.interval
    }

    fn on_start(&mut self, view: &FlowView) -> Knobs {
        self.core.start(view);
        // Delay-based and base-RTT-based modes on, μ = 1 (neutral) until the first tick.
        self.knobs(Knobs {
            enabled: true,
            ..Knobs::default()
        })
    }

    fn on_tick(&mut self, _now: Time, view: &FlowView) -> Knobs {
        // Every T_φ: q ← eq. (2.7), growth-limited with l_φ.
        if let Some(snap) = self.core.price_window(view) {
            self.update_price(view, &snap);
        }
        let Some(zeta) = self.core.measure(view) else {
            return view.knobs;
        };
        let rtt_bar = if self.cfg.rtt_mean == RttMean::Flow {
            view.info.rtt_mean()
        } else {
            view.info.srtt
        };
        let (Some(rtt_bar), Some(base)) = (rtt_s(rtt_bar), rtt_s(view.info.rtt_min)) else {
            return view.knobs;
        };
        let mss = view.info.mss.max(1) as f64;
        // d̂_n ← α / ζ(t_n, t_D), ζ in packets/s; d_n ← RTT̄ - RTT_base.
        self.d_hat = self.cfg.alpha / (zeta / mss);
        self.d = rtt_bar - base;
        let w_raw = if view.deadline_passed() {
            self.cfg.common.w_max
        } else {
            // w_base ← (d_n/d̂_n)^(-q); w_n ← w_base × (1 + ε_{n-1}).
            let w_base = clamp_w(
                vegas_w_base(self.d, self.d_hat, self.phi),
                self.cfg.common.w_min,
                self.cfg.common.w_max,
            );
            mul0(w_base, self.core.one_plus_eps)
        };
        self.w_hat = self.core.limit(w_raw);
        // μ_n ← q ŵ_n; if ŵ_n = 1.0: B ← 1 - 1/μ_n.
        self.mu = self.phi * self.w_hat;
        self.b = vegas_ignore_backoff(self.mu, self.w_hat, self.cfg.common.w_max);
        self.knobs(view.knobs)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("mbc_w", self.w_hat));
        out.push(("mbc_phi", self.phi));
        out.push(("mbc_mu", self.mu));
        out.push(("mbc_ignore_backoff", self.b));
        out.push(("mbc_d_ms", self.d * 1e3));
        out.push(("mbc_d_hat_ms", self.d_hat * 1e3));
        out.push(("mbc_zeta_mbps", self.core.zeta * 8e-6));
        out.push(("mbc_xbar_mbps", self.core.xbar * 8e-6));
        out.push(("mbc_eps", self.core.one_plus_eps - 1.0));
    }
}
