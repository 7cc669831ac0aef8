//! CDG, "CAIA Delay-Gradient" (D. A. Hayes and G. Armitage, "Revisiting TCP Congestion
//! Control Using Delay Gradients", IFIP Networking 2011; Hayes & Armitage 2011).
//!
//! Once per RTT interval the minimum and maximum RTT seen in the interval are compared
//! with the previous interval's (gradients g_min, g_max, eq 1–2), smoothed by a moving
//! average over `window` = a intervals (eq 3–4). With probability P = 1 − e^(−ḡ/G)
//! (eq 5) the window is reduced by β (eq 6), otherwise it grows by one segment per RTT.
//! The pair (ḡ_min, ḡ_max) also gives a guess of the bottleneck queue state (Fig 1); a
//! loss reduces the window only when the queue is guessed full (loss tolerance, eq 8).
//! Coexistence with loss-based flows: ineffectual-backoff detection (§3.6) and a
//! NewReno-like shadow window (eq 7, eq 8).
//!
//! Two variants share the state machine:
//! - `variant = "paper"` (default): the paper, refined by the authors' FreeBSD module
//!   `cc_cdg.c` v0.1 where the paper is silent (Hayes & Armitage 2011 notes §4, §6, §7). Windows in bytes.
//! - `variant = "linux"`: the Linux module `net/ipv4/tcp_cdg.c` (Hayes & Armitage 2011 notes §8): gradient
//!   sums with extrapolation, `backoff_factor`, a single ineffectual-backoff threshold,
//!   FULL/NONFULL states, the Linux loss ssthresh, Reno per-ACK increase, packet arithmetic,
//!   Linux's RTT sample (from the most recently sent segment an ACK covers, not the
//!   timestamp echo) and PRR during the CWR that follows a delay backoff.
//!
//! The numeric knobs default to the paper for both variants. Stock Linux `tcp_cdg` (as
//! Ong 2020 evaluated it, Ong 2020 notes §2.11) is `variant=linux backoff_beta=0.7071
//! use_tolerance=false hystart_detect=3` ([`CdgConfig::linux`]); the LBE setting the
//! Linux module documents adds `use_shadow=false use_ineff=0` ([`CdgConfig::linux_lbe`]).
//!
//! Differences from the source (the reasoning is in docs/deviations/cdg.md):
//! - two variants, paper (default) and Linux; every knob defaults to the paper:
//!   docs/deviations/cdg.md#cdg-variants
//! - RTT samples filtered by Linux's delayed-ACK heuristic; "nothing SACKed" approximated by "not
//!   in recovery": docs/deviations/cdg.md#cdg-rtt-filter
//! - gradient sums over a ring of a entries, divided by a:
//!   docs/deviations/cdg.md#cdg-gradient-units
//! - the queue state of Fig 1 made explicit: docs/deviations/cdg.md#cdg-queue-state
//! - delay backoff details (PRR in the Linux variant): docs/deviations/cdg.md#cdg-delay-backoff
//! - ECN, RTO and recovery exit, where the paper is silent:
//!   docs/deviations/cdg.md#cdg-ecn-rto-recovery
//! - the Linux variant's newest-segment RTT sample and PRR after a backoff:
//!   docs/deviations/cdg.md#cdg-linux-rtt-prr

use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue, RawParam};
use crate::registry::AlgorithmInfo;
use crate::reno::RenoWindow;
use crate::rng::Rng;
use crate::units::{Dur, Time};
use std::collections::VecDeque;

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "cdg",
    aliases: &[],
    summary: "CDG: probabilistic backoff on the RTT delay gradient, loss tolerance, shadow window (paper or Linux tcp_cdg)",
    source: "Hayes & Armitage, IFIP Networking 2011 (Hayes & Armitage 2011) §3; FreeBSD cc_cdg.c; Linux net/ipv4/tcp_cdg.c (Hayes & Armitage 2011 notes §7–8)",
    params: &PARAMS,
    build,
};

/// Stock Linux `tcp_cdg` as Ong 2020 ran it ([`CdgConfig::linux`]) under its own name; the
/// same parameters as `cdg`, other defaults (as the LEDBAT presets).
pub static LINUX: AlgorithmInfo = AlgorithmInfo {
    name: "cdg-linux",
    aliases: &[],
    summary: "CDG preset: stock Linux tcp_cdg as Ong 2020 ran it (variant linux, backoff_beta 0.7071, no loss tolerance, HyStart)",
    source: "Linux net/ipv4/tcp_cdg.c module defaults (Hayes & Armitage 2011 notes §8); Ong 2020 §2.11",
    params: &LINUX_PARAMS,
    build: build_linux,
};

/// The parameter table with `cfg`'s values as defaults: [`CdgConfig`] is the single
/// definition of both the paper defaults (`cdg`) and stock Linux (`cdg-linux`).
const fn param_table(cfg: CdgConfig) -> [ParamSpec; N_PARAMS] {
    [
    ParamSpec {
        name: "variant",
        kind: ParamKind::Choice(&["paper", "linux"]),
        default: ParamValue::Choice(cfg.variant.word()),
        unit: "",
        doc: "paper: the paper with the authors' FreeBSD module where it is silent; linux: mechanics of Linux tcp_cdg (gradient sums, backoff_factor, single ineff threshold, FULL/NONFULL, Linux loss ssthresh, Reno per-ACK increase)",
        source: "Hayes & Armitage 2011 §3; Hayes & Armitage 2011 notes §8",
    },
    ParamSpec {
        name: "window",
        kind: ParamKind::Int { min: 1, max: 256 },
        default: ParamValue::Int(cfg.window as i64),
        unit: "RTT intervals",
        doc: "a: moving-average window of the gradients (1 = no smoothing)",
        source: "Hayes & Armitage 2011 §4 (a = 8), eq 3-4; FreeBSD smoothing_factor; Linux window",
    },
    ParamSpec {
        name: "exp_backoff_scale",
        kind: ParamKind::Float { min: 0.001, max: 1000.0 },
        default: ParamValue::Float(cfg.exp_backoff_scale),
        unit: "ms per RTT interval",
        doc: "G in P = 1 - exp(-g/G) (variant=paper)",
        source: "Hayes & Armitage 2011 §4 (G = 3), eq 5; FreeBSD exp_backoff_scale",
    },
    ParamSpec {
        name: "backoff_factor",
        kind: ParamKind::Int { min: 1, max: 1_000_000 },
        default: ParamValue::Int(cfg.backoff_factor as i64),
        unit: "1/(ms*window) ~ 1000/(G*window)",
        doc: "Linux replacement of G: P = 1 - exp(-sum_window(g)[us] * backoff_factor * 1e-6) (variant=linux)",
        source: "Linux tcp_cdg.c backoff_factor = 42 (Hayes & Armitage 2011 notes §8.4)",
    },
    ParamSpec {
        name: "backoff_beta",
        kind: ParamKind::Float { min: 0.01, max: 1.0 },
        default: ParamValue::Float(cfg.backoff_beta),
        unit: "",
        doc: "beta: multiplicative decrease on a delay-gradient backoff (Linux: 0.7071, quantised to 1/1024)",
        source: "Hayes & Armitage 2011 §3.5 (beta = 0.7), eq 6; FreeBSD beta_delay = 70; Linux backoff_beta = 0.7071*1024",
    },
    ParamSpec {
        name: "loss_beta",
        kind: ParamKind::Float { min: 0.01, max: 1.0 },
        default: ParamValue::Float(cfg.loss_beta),
        unit: "",
        doc: "multiplicative decrease of w on a congestion loss (the shadow window is always halved, as NewReno)",
        source: "Hayes & Armitage 2011 §3.7, eq 8; FreeBSD beta_loss = 50; Linux cwnd>>1",
    },
    ParamSpec {
        name: "use_ineff",
        kind: ParamKind::Int { min: 0, max: 1000 },
        default: ParamValue::Int(cfg.use_ineff as i64),
        unit: "backoffs",
        doc: "b: ineffectual-backoff trigger count; 0 disables the heuristic (always back off; LBE setting)",
        source: "Hayes & Armitage 2011 §3.6, §4 (b = 5); FreeBSD loss_compete_consec_cong; Linux use_ineff = 5",
    },
    ParamSpec {
        name: "hold_backoff",
        kind: ParamKind::Int { min: 1, max: 1000 },
        default: ParamValue::Int(cfg.hold_backoff as i64),
        unit: "indications",
        doc: "b': delay-gradient congestion indications ignored after b ineffectual backoffs (variant=paper; Linux has none)",
        source: "Hayes & Armitage 2011 §3.6, §4 (b' = 5); FreeBSD loss_compete_hold_backoff",
    },
    ParamSpec {
        name: "use_shadow",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(cfg.use_shadow),
        unit: "",
        doc: "use the shadow window s in the loss response (eq 8); false for LBE use",
        source: "Hayes & Armitage 2011 §3.6 eq 7, §3.7 eq 8; Linux use_shadow = true",
    },
    ParamSpec {
        name: "use_tolerance",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(cfg.use_tolerance),
        unit: "",
        doc: "loss tolerance: reduce on loss only when the queue is inferred full (Linux default: false)",
        source: "Hayes & Armitage 2011 §3.3, §3.7 eq 8; Linux use_tolerance = false (Hayes & Armitage 2011 notes §8.3)",
    },
    ParamSpec {
        name: "hystart_detect",
        kind: ParamKind::Int { min: 0, max: 3 },
        default: ParamValue::Int(cfg.hystart_detect as i64),
        unit: "bitmask",
        doc: "HyStart-like slow-start exit: 1 = ACK train, 2 = delay increase, 3 = both, 0 = off (paper: off; Linux: 3)",
        source: "Hayes & Armitage 2011 §3.5 (NewReno slow start); Linux hystart_detect = 3 (Hayes & Armitage 2011 notes §8.1)",
    },
    ParamSpec {
        name: "alpha_inc",
        kind: ParamKind::Int { min: 0, max: 1000 },
        default: ParamValue::Int(cfg.alpha_inc as i64),
        unit: "RTTs",
        doc: "0: +1 segment per RTT; n > 0: the per-RTT increase grows by one segment every n RTTs (variant=paper)",
        source: "FreeBSD cc_cdg.c alpha_inc = 0 (Hayes & Armitage 2011 notes §4.6); Hayes & Armitage 2011 §5 (future work)",
    },
    ParamSpec {
        name: "delack_filter",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(cfg.delack_filter),
        unit: "",
        doc: "ignore the RTT of ACKs held by the receiver's delayed-ACK timer (except to lower the minimum)",
        source: "Hayes & Armitage 2011 §3.2 (enhanced RTT [13]); Linux tcp_cdg_acked delayed-ACK heuristic",
    },
    ]
}

const N_PARAMS: usize = 13;
static PARAMS: [ParamSpec; N_PARAMS] = param_table(CdgConfig::paper());
static LINUX_PARAMS: [ParamSpec; N_PARAMS] = param_table(CdgConfig::linux());

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    // `INFO.resolve` checked every value against PARAMS, so the conversion cannot fail.
    let cfg = CdgConfig::try_from(p).expect("cdg: parameters resolved against PARAMS");
    Box::new(Cdg::new(&cfg, init))
}

fn build_linux(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = CdgConfig::try_from(p).expect("cdg-linux: parameters resolved against its table");
    let mut c = Cdg::new(&cfg, init);
    c.name = "cdg-linux";
    Box::new(c)
}

/// Which CDG: the paper (with the authors' FreeBSD module where it is silent) or the
/// mechanics of Linux `tcp_cdg` (`variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Hayes & Armitage 2011 §3 with FreeBSD `cc_cdg.c` v0.1 (Hayes & Armitage 2011 notes
    /// §4, §6, §7).
    Paper,
    /// Linux `net/ipv4/tcp_cdg.c` (Hayes & Armitage 2011 notes §8).
    Linux,
}

impl Variant {
    /// The word of the `variant` parameter.
    pub const fn word(self) -> &'static str {
        match self {
            Variant::Paper => "paper",
            Variant::Linux => "linux",
        }
    }
}

/// CDG's parameters. `Default` is the paper ([`CdgConfig::paper`], the same values as the
/// `PARAMS` table); stock Linux `tcp_cdg` is [`CdgConfig::linux`] (the `cdg-linux` preset).
#[derive(Clone, Debug, PartialEq)]
pub struct CdgConfig {
    /// Paper (Hayes & Armitage 2011 §3; notes §8 for Linux).
    pub variant: Variant,
    /// a, the moving-average window of the gradients in RTT intervals (1 = no smoothing):
    /// 8 (Hayes & Armitage 2011 §4, eq 3–4; FreeBSD smoothing_factor; Linux window).
    pub window: usize,
    /// G in P = 1 − exp(−ḡ/G), ms per RTT interval (variant paper): 3 (Hayes & Armitage
    /// 2011 §4, eq 5; FreeBSD exp_backoff_scale).
    pub exp_backoff_scale: f64,
    /// Linux's replacement of G: P = 1 − exp(−Σg[µs]·backoff_factor·1e−6) (variant
    /// linux): 42 (Linux tcp_cdg.c; Hayes & Armitage 2011 notes §8.4).
    pub backoff_factor: u64,
    /// β, the multiplicative decrease on a delay-gradient backoff: 0.7 (Hayes & Armitage
    /// 2011 §3.5, eq 6; FreeBSD beta_delay = 70); Linux 0.7071, quantised to 1/1024.
    pub backoff_beta: f64,
    /// Multiplicative decrease of w on a congestion loss (the shadow window is always
    /// halved, as NewReno): 0.5 (Hayes & Armitage 2011 §3.7, eq 8; FreeBSD beta_loss = 50;
    /// Linux cwnd >> 1).
    pub loss_beta: f64,
    /// b, the ineffectual-backoff trigger count; 0 disables the heuristic (LBE setting): 5
    /// (Hayes & Armitage 2011 §3.6, §4; FreeBSD loss_compete_consec_cong; Linux use_ineff).
    pub use_ineff: u32,
    /// b', delay-gradient indications ignored after b ineffectual backoffs (variant paper;
    /// Linux has none): 5 (Hayes & Armitage 2011 §3.6, §4; FreeBSD
    /// loss_compete_hold_backoff).
    pub hold_backoff: u32,
    /// Use the shadow window s in the loss response (eq 8); false for LBE use: true (Hayes
    /// & Armitage 2011 §3.6 eq 7, §3.7 eq 8; Linux use_shadow).
    pub use_shadow: bool,
    /// Loss tolerance: reduce on loss only when the queue is inferred full: true (Hayes &
    /// Armitage 2011 §3.3, §3.7 eq 8); Linux default false (notes §8.3).
    pub use_tolerance: bool,
    /// HyStart-like slow-start exit, bitmask 1 = ACK train, 2 = delay increase: 0 (Hayes &
    /// Armitage 2011 §3.5, NewReno slow start); Linux 3 (notes §8.1).
    pub hystart_detect: u32,
    /// 0: +1 segment per RTT; n > 0: the per-RTT increase grows by one segment every n
    /// RTTs (variant paper): 0 (FreeBSD cc_cdg.c alpha_inc, Hayes & Armitage 2011 notes
    /// §4.6; Hayes & Armitage 2011 §5, future work).
    pub alpha_inc: u32,
    /// Ignore the RTT of ACKs held by the receiver's delayed-ACK timer (except to lower the
    /// minimum): true (Hayes & Armitage 2011 §3.2, enhanced RTT [13]; Linux tcp_cdg_acked).
    pub delack_filter: bool,
}

impl Default for CdgConfig {
    fn default() -> CdgConfig {
        CdgConfig::paper()
    }
}

impl CdgConfig {
    /// The paper's configuration (Hayes & Armitage 2011 §4), the `cdg` defaults.
    pub const fn paper() -> CdgConfig {
        CdgConfig {
            variant: Variant::Paper,
            window: 8,
            exp_backoff_scale: 3.0,
            backoff_factor: 42,
            backoff_beta: 0.7,
            loss_beta: 0.5,
            use_ineff: 5,
            hold_backoff: 5,
            use_shadow: true,
            use_tolerance: true,
            hystart_detect: 0,
            alpha_inc: 0,
            delack_filter: true,
        }
    }

    /// Stock Linux `tcp_cdg` defaults, as Ong 2020 ran them (Ong 2020 §2.11, Ong 2020
    /// notes §2.11; Hayes & Armitage 2011 notes §8): the Linux mechanics with
    /// `backoff_beta = 0.7071·1024`, `use_tolerance = 0` and `hystart_detect = 3`; the other
    /// numeric knobs equal the paper's. The `cdg-linux` preset and the ong2020 study use it.
    // 0.7071 is Linux's literal (`backoff_beta = 0.7071 * 1024`), not FRAC_1_SQRT_2.
    #[allow(clippy::approx_constant)]
    pub const fn linux() -> CdgConfig {
        CdgConfig {
            variant: Variant::Linux,
            backoff_beta: 0.7071,
            use_tolerance: false,
            hystart_detect: 3,
            ..CdgConfig::paper()
        }
    }

    /// Stock Linux plus the scavenger setting of the module's header comment: "Scavenger
    /// traffic (LBE) should disable coexistence heuristics using parameters use_shadow=0
    /// and use_ineff=0".
    pub const fn linux_lbe() -> CdgConfig {
        CdgConfig {
            use_shadow: false,
            use_ineff: 0,
            ..CdgConfig::linux()
        }
    }

    /// Every parameter by name with this configuration's value, the inverse of
    /// `TryFrom<&ParamSet>`: for scenario text and records that name parameters.
    pub fn to_params(&self) -> Vec<(&'static str, RawParam)> {
        vec![
            ("variant", RawParam::Text(self.variant.word().into())),
            ("window", RawParam::Int(self.window as i64)),
            ("exp_backoff_scale", RawParam::Float(self.exp_backoff_scale)),
            ("backoff_factor", RawParam::Int(self.backoff_factor as i64)),
            ("backoff_beta", RawParam::Float(self.backoff_beta)),
            ("loss_beta", RawParam::Float(self.loss_beta)),
            ("use_ineff", RawParam::Int(self.use_ineff.into())),
            ("hold_backoff", RawParam::Int(self.hold_backoff.into())),
            ("use_shadow", RawParam::Bool(self.use_shadow)),
            ("use_tolerance", RawParam::Bool(self.use_tolerance)),
            ("hystart_detect", RawParam::Int(self.hystart_detect.into())),
            ("alpha_inc", RawParam::Int(self.alpha_inc.into())),
            ("delack_filter", RawParam::Bool(self.delack_filter)),
        ]
    }
}

impl TryFrom<&ParamSet> for CdgConfig {
    type Error = ParamError;
    /// The only place CDG's parameter names are looked up.
    fn try_from(p: &ParamSet) -> Result<CdgConfig, ParamError> {
        let r = p.reader("cdg");
        Ok(CdgConfig {
            variant: match r.choice("variant")? {
                "linux" => Variant::Linux,
                _ => Variant::Paper,
            },
            window: r.usize("window")?,
            exp_backoff_scale: r.f64("exp_backoff_scale")?,
            backoff_factor: r.u64("backoff_factor")?,
            backoff_beta: r.f64("backoff_beta")?,
            loss_beta: r.f64("loss_beta")?,
            use_ineff: r.int("use_ineff")? as u32,
            hold_backoff: r.int("hold_backoff")? as u32,
            use_shadow: r.bool("use_shadow")?,
            use_tolerance: r.bool("use_tolerance")?,
            hystart_detect: r.int("hystart_detect")? as u32,
            alpha_inc: r.int("alpha_inc")? as u32,
            delack_filter: r.bool("delack_filter")?,
        })
    }
}

/// Inferred bottleneck queue state. Paper/FreeBSD: Empty, Rising, Falling, Full, Unknown
/// (Fig 1, Hayes & Armitage 2011 notes §4.4); Linux: Unknown, NonFull, Full, Backoff (Hayes & Armitage 2011 notes §8.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueState {
    Unknown,
    Empty,
    Rising,
    Falling,
    Full,
    NonFull,
    Backoff,
}

impl QueueState {
    /// Numeric code for traces: FreeBSD's codes (EMPTY 1 ... FULL 4, UNKNOWN 9999); the
    /// Linux-only states get 5 and 6.
    fn code(self) -> f64 {
        match self {
            QueueState::Empty => 1.0,
            QueueState::Rising => 2.0,
            QueueState::Falling => 3.0,
            QueueState::Full => 4.0,
            QueueState::NonFull => 5.0,
            QueueState::Backoff => 6.0,
            QueueState::Unknown => 9999.0,
        }
    }
}

/// Eq 5: P[backoff] = 1 − e^(−ḡ/G), zero for ḡ ≤ 0 (Hayes & Armitage 2011 §3.4). `g_ms` in ms per RTT
/// interval, `scale_g` = G in the same unit.
pub fn backoff_probability(g_ms: f64, scale_g: f64) -> f64 {
    if g_ms <= 0.0 {
        return 0.0;
    }
    -(-g_ms / scale_g).exp_m1()
}

/// Linux `tcp_cdg_backoff`: P = 1 − exp(−grad·backoff_factor·1e−6), grad the (extrapolated)
/// sum of gradients over the window in µs (Hayes & Armitage 2011 notes §8.4).
pub fn linux_backoff_probability(grad_sum_us: i64, backoff_factor: u64) -> f64 {
    if grad_sum_us <= 0 {
        return 0.0;
    }
    -(-(grad_sum_us as f64) * backoff_factor as f64 * 1e-6).exp_m1()
}

/// Linux `DIV_ROUND_CLOSEST` for a signed dividend and positive divisor.
fn div_round_closest(x: i64, d: i64) -> i64 {
    if x > 0 {
        (x + d / 2) / d
    } else {
        (x - d / 2) / d
    }
}

const NO_MIN: u64 = u64::MAX;

/// One transmitted segment, for the Linux variant's RTT sample (send time of the most
/// recently sent segment an ACK covers, Linux `tcp_clean_rtx_queue` `last_ackt`).
#[derive(Clone, Copy, Debug)]
struct SentSeg {
    start: u64,
    end: u64,
    at: Time,
    retrans: bool,
}

#[derive(Clone, Debug)]
pub struct Cdg {
    /// `cdg`, or the preset's name.
    name: &'static str,
    cfg: CdgConfig,
    mss: u64,
    w: RenoWindow,
    /// Shadow window s in bytes (eq 7).
    shadow: u64,
    rng: Rng,
    snd_nxt: u64,
    /// Linux variant: segments sent and not yet cumulatively acknowledged, and the
    /// highest snd_una seen (for `ca_rtt_us`, see `linux_ca_rtt`).
    sent: VecDeque<SentSeg>,
    una: u64,
    /// The RTT interval ends when an ACK passes this sequence number.
    rtt_seq: u64,
    /// τ_min, τ_max of the current interval in ns (NO_MIN / 0 = no sample yet).
    cur_min: u64,
    cur_max: u64,
    /// Previous interval's (τ_min, τ_max) in ns; None = no valid previous interval.
    prev: Option<(u64, u64)>,
    /// Gradient ring of `window` entries (ns for the paper, µs for Linux), zero-filled.
    ring_min: Vec<i64>,
    ring_max: Vec<i64>,
    tail: usize,
    pushed: usize,
    sum_min: i64,
    sum_max: i64,
    /// Last raw gradients (same unit as the ring).
    g_min: i64,
    g_max: i64,
    queue: QueueState,
    /// FreeBSD consec_cong_cnt / Linux backoff_cnt.
    ineff_cnt: u32,
    /// Delay-backoff (or ECN) congestion window reduction in progress until snd_una
    /// reaches this sequence number (FreeBSD CONGRECOVERY / Linux CWR).
    cwr_until: Option<u64>,
    /// Linux variant: Proportional Rate Reduction state of the CWR (tcp_init_cwnd_reduction:
    /// prior_cwnd, prr_delivered, prr_out), in packets.
    prior_cwnd: u64,
    prr_delivered: u64,
    prr_out: u64,
    in_loss_recovery: bool,
    after_rto: bool,
    delack: u32,
    // HyStart (Linux tcp_cdg_hystart_update), µs.
    delay_min_us: u64,
    last_ack_us: Option<u64>,
    round_start_us: u64,
    sample_cnt: u32,
    // FreeBSD alpha_inc.
    window_incr: u64,
    rtt_count: u32,
    last_p: f64,
    delay_backoffs: u64,
    /// The RTT sample of the last ACK as the algorithm used it (ns; 0 = none), for traces.
    last_rtt: u64,
}

impl Cdg {
    pub fn new(cfg: &CdgConfig, init: CcInit) -> Cdg {
        let cfg = cfg.clone();
        let a = cfg.window.max(1);
        Cdg {
            name: "cdg",
            mss: init.mss,
            w: RenoWindow::new(init.initial_cwnd),
            // FreeBSD cdg_conn_init / Linux tcp_cdg_init: s starts at the initial window.
            shadow: init.initial_cwnd,
            rng: init.rng,
            snd_nxt: 0,
            sent: VecDeque::new(),
            una: 0,
            rtt_seq: 0,
            cur_min: NO_MIN,
            cur_max: 0,
            prev: None,
            ring_min: vec![0; a],
            ring_max: vec![0; a],
            tail: 0,
            pushed: 0,
            sum_min: 0,
            sum_max: 0,
            g_min: 0,
            g_max: 0,
            queue: QueueState::Unknown,
            ineff_cnt: 0,
            cwr_until: None,
            prior_cwnd: 0,
            prr_delivered: 0,
            prr_out: 0,
            in_loss_recovery: false,
            after_rto: false,
            delack: 0,
            delay_min_us: 0,
            last_ack_us: None,
            round_start_us: 0,
            sample_cnt: 0,
            window_incr: 0,
            rtt_count: 0,
            last_p: 0.0,
            delay_backoffs: 0,
            last_rtt: 0,
            cfg,
        }
    }

    pub fn queue_state(&self) -> QueueState {
        self.queue
    }
    pub fn shadow(&self) -> u64 {
        self.shadow
    }
    /// Smoothed gradients (ḡ_min, ḡ_max) in ms per RTT interval (eq 3).
    pub fn smoothed_gradients_ms(&self) -> (f64, f64) {
        let a = self.ring_min.len() as f64;
        let unit = self.unit_per_ms();
        (
            self.sum_min as f64 / a / unit,
            self.sum_max as f64 / a / unit,
        )
    }
    /// Last raw gradients (g_min, g_max) in ms per RTT interval (eq 1–2).
    pub fn raw_gradients_ms(&self) -> (f64, f64) {
        let unit = self.unit_per_ms();
        (self.g_min as f64 / unit, self.g_max as f64 / unit)
    }
    /// The backoff probability of the last decision (0 when none was possible).
    pub fn last_backoff_probability(&self) -> f64 {
        self.last_p
    }
    pub fn ineffectual_count(&self) -> u32 {
        self.ineff_cnt
    }

    fn unit_per_ms(&self) -> f64 {
        match self.cfg.variant {
            Variant::Paper => 1e6,
            Variant::Linux => 1e3,
        }
    }

    fn in_slow_start(&self) -> bool {
        match self.cfg.variant {
            // FreeBSD cdg_ack_received: slowstart = (cwnd <= ssthresh).
            Variant::Paper => self.w.cwnd <= self.w.ssthresh,
            // Linux tcp_in_slow_start: cwnd < ssthresh.
            Variant::Linux => self.w.cwnd < self.w.ssthresh,
        }
    }

    /// Per-ACK RTT sampling with the delayed-ACK heuristic (Hayes & Armitage 2011 §3.2 ERTT [13];
    /// Linux tcp_cdg_acked). Updates τ_min / τ_max of the current interval.
    fn sample(&mut self, rtt: Option<Dur>, ack: &AckSample) {
        let Some(rtt) = rtt else { return };
        let ns = rtt.nanos();
        self.last_rtt = ns;
        // Linux ignores rtt_us <= 0 (and works in whole µs); zero is no sample here either.
        let ns = match self.cfg.variant {
            Variant::Paper => ns,
            Variant::Linux => ns / 1000 * 1000,
        };
        if ns == 0 {
            return;
        }
        // Linux applies the heuristic only when nothing is SACKed (tp->sacked_out == 0);
        // the interface has no SACK count, so "not in recovery" stands in
        // (docs/deviations/cdg.md#cdg-rtt-filter).
        if self.cfg.delack_filter && !ack.in_recovery {
            let pkts = ack.bytes_acked.div_ceil(self.mss.max(1));
            if pkts == 1 && self.delack > 0 {
                // "A delayed ACK is only used for the minimum if it is provenly lower than
                // an existing non-zero minimum."
                if self.cur_min != NO_MIN {
                    self.cur_min = self.cur_min.min(ns);
                }
                self.delack -= 1;
                return;
            } else if pkts > 1 && self.delack < 5 {
                self.delack += 1;
            }
        }
        self.cur_min = self.cur_min.min(ns);
        self.cur_max = self.cur_max.max(ns);
    }

    /// Linux `ack_sample.rtt_us` (= `rate_sample.rtt_us` = `ca_rtt_us`, "RTT of last
    /// (S)ACKed packet", tcp_clean_rtx_queue / tcp_ack_update_rtt): measured from the send
    /// time of the most recently sent segment this ACK covers, not from the TSecr echo. With
    /// delayed ACKs the TSecr echo is the *oldest* segment covered (RFC 7323 §4.3), so a
    /// 2-segment ACK whose first segment waited for the second (ACK-clock gaps, the 40 ms
    /// delayed-ACK timer) inflates the sample by that wait; Linux's sample does not, and its
    /// delayed-ACK filter only has to handle 1-segment ACKs.
    ///
    /// Cumulatively acknowledged segments only: when the ACK newly SACKs data (Linux would
    /// use `last_sackt`, which the interface does not identify), in recovery, or when a
    /// retransmitted segment is acknowledged (FLAG_RETRANS_DATA_ACKED: Linux falls back on
    /// the timestamp echo, `tcp_rtt_tsopt_us`), the datapath's sample is used. Also when the
    /// datapath does not report transmissions (`on_sent`).
    fn linux_ca_rtt(&mut self, now: Time, ack: &AckSample) -> Option<Dur> {
        let cum = ack.snd_una.saturating_sub(self.una);
        self.una = self.una.max(ack.snd_una);
        let mut last: Option<Time> = None;
        let mut retrans = false;
        while let Some(seg) = self.sent.front() {
            if seg.end > ack.snd_una {
                break;
            }
            retrans |= seg.retrans;
            last = Some(seg.at);
            self.sent.pop_front();
        }
        if retrans || ack.in_recovery || ack.bytes_acked > cum {
            return ack.rtt;
        }
        match last {
            Some(at) if now >= at => Some(Dur(now.nanos() - at.nanos())),
            _ => ack.rtt,
        }
    }

    /// Closes the current RTT interval: previous := current, current := empty.
    fn roll_interval(&mut self) {
        self.prev = if self.cur_max > 0 {
            Some((self.cur_min, self.cur_max))
        } else {
            None
        };
        self.cur_min = NO_MIN;
        self.cur_max = 0;
        // Linux resets the HyStart round here.
        self.last_ack_us = None;
        self.sample_cnt = 0;
    }

    /// Pushes one (g_min, g_max) pair into the ring (eq 4: ḡ_n = ḡ_{n−1} + (g_n − g_{n−a})/a;
    /// kept as exact sums, the ring starts zero-filled: missing samples count as 0, as
    /// FreeBSD calc_moving_average).
    fn push_gradients(&mut self, gmin: i64, gmax: i64) {
        self.g_min = gmin;
        self.g_max = gmax;
        let t = self.tail;
        self.sum_min += gmin - self.ring_min[t];
        self.sum_max += gmax - self.ring_max[t];
        self.ring_min[t] = gmin;
        self.ring_max[t] = gmax;
        self.tail = (t + 1) % self.ring_min.len();
        self.pushed = (self.pushed + 1).min(self.ring_min.len());
    }

    /// Linux tcp_cdg_hystart_update (Hayes & Armitage 2011 notes §8.1); sets ssthresh = cwnd on detection.
    fn hystart_update(&mut self, now: Time, cwnd_limited: bool) {
        let rtt_min_us = if self.cur_min == NO_MIN {
            0
        } else {
            self.cur_min / 1000
        };
        // min_not_zero(delay_min, rtt.min)
        if self.delay_min_us == 0 || (rtt_min_us != 0 && rtt_min_us < self.delay_min_us) {
            self.delay_min_us = rtt_min_us;
        }
        if self.delay_min_us == 0 {
            return;
        }
        if self.cfg.hystart_detect & 1 != 0 {
            // HYSTART_ACK_TRAIN: ACKs no more than 3 ms apart spanning more than base_owd.
            let now_us = now.nanos() / 1000;
            match self.last_ack_us {
                Some(last) if cwnd_limited => {
                    if now_us < last + 3000 {
                        let base_owd = (self.delay_min_us / 2).max(125);
                        self.last_ack_us = Some(now_us);
                        if now_us > self.round_start_us + base_owd {
                            self.w.ssthresh = self.w.cwnd;
                            return;
                        }
                    }
                }
                _ => {
                    self.last_ack_us = Some(now_us);
                    self.round_start_us = now_us;
                }
            }
        }
        if self.cfg.hystart_detect & 2 != 0 {
            // HYSTART_DELAY: after 8 samples, rtt.min > max(delay_min·9/8, 125 µs).
            if self.sample_cnt < 8 {
                self.sample_cnt += 1;
            } else {
                let thresh = (self.delay_min_us + self.delay_min_us / 8).max(125);
                if rtt_min_us > thresh {
                    self.w.ssthresh = self.w.cwnd;
                }
            }
        }
    }

    fn enter_cwr(&mut self) {
        self.cwr_until = Some(self.snd_nxt);
    }

    // ---------------------------------------------------------------- paper / FreeBSD

    fn on_ack_paper(&mut self, now: Time, ack: &AckSample) {
        // CONGRECOVERY after a delay backoff ends when the ACK reaches snd_recover.
        if let Some(r) = self.cwr_until {
            if ack.snd_una >= r {
                self.cwr_until = None;
            }
        }
        let in_recovery = ack.in_recovery || self.cwr_until.is_some();
        if self.cfg.hystart_detect != 0
            && self.in_slow_start()
            && !in_recovery
            && ack.bytes_acked > 0
        {
            self.hystart_update(now, ack.cwnd_limited);
        }

        let mut congestion = false;
        // FreeBSD: ERTT_NEW_MEASUREMENT, one marked measurement per RTT (Hayes & Armitage 2011 notes §4.1).
        let new_interval = ack.snd_una > self.rtt_seq && self.cur_max > 0;
        if new_interval {
            let slow_start = self.in_slow_start();
            if let Some((pmin, pmax)) = self.prev {
                // Eq 1–2, ns.
                let gmin = self.cur_min as i64 - pmin as i64;
                let gmax = self.cur_max as i64 - pmax as i64;
                self.push_gradients(gmin, gmax);
                let (gbar_min, gbar_max) = self.smoothed_gradients_ms();
                // Gradient choice (FreeBSD order, Hayes & Armitage 2011 notes §4.5); slow start uses the raw
                // gradients (Hayes & Armitage 2011 footnote 2).
                let chosen = if slow_start && gmin > 0 {
                    Some(gmin as f64 / 1e6)
                } else if self.sum_min > 0 {
                    Some(gbar_min)
                } else if slow_start && gmax > 0 {
                    Some(gmax as f64 / 1e6)
                } else if self.sum_max > 0 {
                    Some(gbar_max)
                } else {
                    None
                };
                self.last_p = 0.0;
                if let Some(g) = chosen {
                    // Eq 5 and eq 6's "X < P[backoff]".
                    let p = backoff_probability(g, self.cfg.exp_backoff_scale);
                    self.last_p = p;
                    congestion = self.rng.chance(p);
                }
                // Queue state from the smoothed gradients (Fig 1; FreeBSD rules, first match).
                let (smin, smax) = (self.sum_min, self.sum_max);
                if smin > 0 && smax <= 0 {
                    self.queue = QueueState::Full;
                } else if smin >= 0 && smax < 0 {
                    self.queue = QueueState::Empty;
                    self.shadow = 0; // eq 7, Q = empty
                } else if smin > 0 && smax > 0 {
                    self.queue = QueueState::Rising;
                } else if smin < 0 && smax < 0 {
                    self.queue = QueueState::Falling;
                }
                // §3.6: backoffs were effectual once a smoothed gradient turns negative.
                if smin < 0 || smax < 0 {
                    self.ineff_cnt = 0;
                }
            }
            self.roll_interval();
            self.rtt_seq = ack.snd_nxt.max(self.snd_nxt);
        }

        if congestion {
            self.ineff_cnt += 1;
            if !in_recovery {
                let w_before = self.w.cwnd;
                let b = self.cfg.use_ineff;
                if b == 0 || self.ineff_cnt <= b {
                    self.delay_backoff_paper();
                } else if self.ineff_cnt >= b + self.cfg.hold_backoff {
                    // §3.6: b' indications ignored; start counting again.
                    self.ineff_cnt = 0;
                }
                // §3.5: the backoff's effect is not visible in the next interval, so the
                // next gradient is ignored (FreeBSD maxrtt_in_prevrtt = 0).
                self.prev = None;
                // Eq 7: s := max(w_i, s_i) on a delay-based backoff (pre-backoff w; FreeBSD
                // also resyncs on suppressed backoffs).
                self.shadow = self.shadow.max(w_before);
            }
        } else if ack.bytes_acked > 0 && !in_recovery && ack.cwnd_limited {
            self.increase_paper(new_interval);
        }
    }

    /// Eq 6 backoff: w := β·w (floored at 2 segments), ssthresh := w, enter CWR.
    fn delay_backoff_paper(&mut self) {
        let target = (self.w.cwnd as f64 * self.cfg.backoff_beta) as u64;
        self.w.ssthresh = target.max(2 * self.mss);
        self.w.cwnd = self.w.ssthresh;
        self.w.ca_acked = 0;
        self.window_incr = 0;
        self.rtt_count = 0;
        self.delay_backoffs += 1;
        self.enter_cwr();
    }

    /// §3.5: slow start +1 segment per ACK, congestion avoidance +1 segment per RTT
    /// (eq 6 "otherwise"); s grows alike while non-zero (FreeBSD cdg_window_increase).
    fn increase_paper(&mut self, new_interval: bool) {
        let mss = self.mss;
        let (incr, s_incr) = if self.w.cwnd <= self.w.ssthresh {
            self.window_incr = 0;
            self.rtt_count = 0;
            (mss, mss)
        } else if new_interval {
            let incr = if self.cfg.alpha_inc == 0 {
                mss
            } else {
                self.rtt_count += 1;
                if self.rtt_count >= self.cfg.alpha_inc {
                    self.window_incr += 1;
                    self.rtt_count = 0;
                }
                mss * self.window_incr
            };
            (incr, mss)
        } else {
            (0, 0)
        };
        self.w.cwnd += incr;
        if self.shadow > 0 {
            self.shadow += s_incr;
        }
    }

    /// Eq 8 with FreeBSD's CC_NDUPACK handling (Hayes & Armitage 2011 notes §4.10).
    fn on_loss_paper(&mut self) {
        let tolerant = self.cfg.use_tolerance
            && matches!(
                self.queue,
                QueueState::Empty | QueueState::Rising | QueueState::Falling
            );
        if self.cwr_until.is_some() || tolerant {
            // Already reducing, or the queue is not inferred full (UNKNOWN counts as full):
            // retransmit without reducing w.
            self.w.ssthresh = self.w.cwnd;
            if self.cwr_until.is_some() {
                self.enter_cwr();
            }
        } else {
            // s is halved as NewReno would (FreeBSD RENO_BETA = 50), w by loss_beta;
            // w := max(s/2, w/2) = max(s, w)/2 for the defaults.
            if self.shadow > 0 {
                self.shadow /= 2;
            }
            let s = if self.cfg.use_shadow { self.shadow } else { 0 };
            let w_red = (self.w.cwnd as f64 * self.cfg.loss_beta) as u64;
            self.w.ssthresh = s.max(w_red).max(2 * self.mss);
            self.w.cwnd = self.w.ssthresh;
            self.w.ca_acked = 0;
            self.window_incr = 0;
            self.rtt_count = 0;
        }
    }

    /// FreeBSD NewReno CC_ECN / CC_RTO window: max(cwnd/2/mss, 2)·mss.
    fn newreno_half(&self) -> u64 {
        (self.w.cwnd / 2 / self.mss).max(2) * self.mss
    }

    // ---------------------------------------------------------------- Linux tcp_cdg

    fn beta_1024(&self) -> u64 {
        ((self.cfg.backoff_beta * 1024.0).round() as u64).min(1024)
    }

    fn on_ack_linux(&mut self, now: Time, ack: &AckSample) {
        // CWR ends once something above high_seq is acknowledged (tcp_fastretrans_alert),
        // then CA_EVENT_COMPLETE_CWR.
        if let Some(h) = self.cwr_until {
            if ack.snd_una > h {
                self.cwr_until = None;
                // tcp_end_cwnd_reduction: cwnd = ssthresh, then CA_EVENT_COMPLETE_CWR.
                self.w.cwnd = self.w.ssthresh;
                self.complete_cwr();
            }
        }
        // tcp_cong_control: in CWR the window follows PRR (tcp_cwnd_reduction); cong_avoid
        // is not called in CWR or Recovery, nor without forward progress.
        if self.cwr_until.is_some() && !ack.in_recovery {
            self.prr_reduction(ack);
            return;
        }
        if ack.in_recovery || self.cwr_until.is_some() || ack.bytes_acked == 0 {
            return;
        }
        if self.in_slow_start() && self.cfg.hystart_detect != 0 {
            self.hystart_update(now, ack.cwnd_limited);
        }
        if ack.snd_una > self.rtt_seq && self.cur_max > 0 {
            let mut grad = 0;
            if let Some((pmin, pmax)) = self.prev {
                grad = self.linux_grad(pmin, pmax);
            }
            self.rtt_seq = ack.snd_nxt.max(self.snd_nxt);
            self.roll_interval();
            if grad > 0 && self.linux_backoff(grad) {
                return;
            }
        }
        if !ack.cwnd_limited {
            self.shadow = self.shadow.min(self.w.cwnd);
            return;
        }
        let prior = self.w.cwnd;
        self.w.reno_on_ack(ack.bytes_acked, self.mss);
        // shadow_wnd = max(shadow_wnd, shadow_wnd + incr)
        self.shadow = self.shadow.saturating_add(self.w.cwnd - prior);
    }

    /// Linux tcp_cdg_grad: returns the (extrapolated) gradient sum in µs.
    fn linux_grad(&mut self, pmin: u64, pmax: u64) -> i64 {
        let gmin = (self.cur_min / 1000) as i64 - (pmin / 1000) as i64;
        let gmax = (self.cur_max / 1000) as i64 - (pmax / 1000) as i64;
        self.push_gradients(gmin, gmax);
        let (smin, smax) = (self.sum_min, self.sum_max);
        let mut grad = if smin > 0 { smin } else { smax };
        let window = self.ring_min.len();
        if self.pushed < window {
            // Extrapolate missing values in the gradient window.
            grad = grad * window as i64 / self.pushed as i64;
        }
        // Backoff was effectual.
        if smin <= -32 || smax <= -32 {
            self.ineff_cnt = 0;
        }
        if self.cfg.use_tolerance {
            let gmin = div_round_closest(smin, 64);
            let gmax = div_round_closest(smax, 64);
            if gmin > 0 && gmax <= 0 {
                self.queue = QueueState::Full;
            } else if (gmin > 0 && gmax > 0) || gmax < 0 {
                self.queue = QueueState::NonFull;
            }
        }
        grad
    }

    /// Linux tcp_cdg_backoff.
    fn linux_backoff(&mut self, grad: i64) -> bool {
        let p = linux_backoff_probability(grad, self.cfg.backoff_factor);
        self.last_p = p;
        if !self.rng.chance(p) {
            return false;
        }
        if self.cfg.use_ineff > 0 {
            self.ineff_cnt += 1;
            if self.ineff_cnt > self.cfg.use_ineff {
                return false;
            }
        }
        self.shadow = self.shadow.max(self.w.cwnd);
        self.queue = QueueState::Backoff;
        // tcp_enter_cwr: ssthresh from tcp_cdg_ssthresh in state BACKOFF; cwnd is left as
        // it is and PRR brings it down to ssthresh over the next round trip.
        self.delay_backoffs += 1;
        self.linux_enter_cwr();
        true
    }

    /// Linux tcp_enter_cwr → tcp_init_cwnd_reduction: high_seq = snd_nxt, snd_cwnd_cnt = 0,
    /// prior_cwnd = cwnd, prr_delivered = prr_out = 0, ssthresh = tcp_cdg_ssthresh. cwnd is
    /// not changed here.
    fn linux_enter_cwr(&mut self) {
        self.prior_cwnd = (self.w.cwnd / self.mss).max(1);
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.w.ca_acked = 0;
        self.w.ssthresh = self.linux_ssthresh_pkts() * self.mss;
        self.enter_cwr();
    }

    /// Linux tcp_cwnd_reduction (PRR, RFC 6937; Linux 4.4, the kernel Ong 2020 ran), per
    /// ACK in CWR, in packets:
    ///   delta = ssthresh − in_flight; prr_delivered += newly_acked_sacked;
    ///   delta < 0: sndcnt = ⌈ssthresh·prr_delivered / prior_cwnd⌉ − prr_out
    ///   else:      sndcnt = min(delta, newly_acked_sacked)   (conservative reduction bound;
    ///              the slow-start bound needs retransmitted data acknowledged, never in CWR)
    ///   cwnd = in_flight + sndcnt.
    fn prr_reduction(&mut self, ack: &AckSample) {
        let mss = self.mss.max(1);
        let newly = ack.bytes_acked.div_ceil(mss) as i64;
        if newly <= 0 || self.prior_cwnd == 0 {
            return;
        }
        let ss = (self.w.ssthresh / mss) as i64;
        let in_flight = ack.bytes_in_flight.div_ceil(mss) as i64;
        let delta = ss - in_flight;
        self.prr_delivered += newly as u64;
        let sndcnt = if delta < 0 {
            let dividend = ss as u64 * self.prr_delivered + self.prior_cwnd - 1;
            (dividend / self.prior_cwnd) as i64 - self.prr_out as i64
        } else {
            delta.min(newly)
        };
        // snd_cwnd is unsigned in Linux; in_flight + sndcnt ≥ 0 unless prr_out ran ahead.
        self.w.cwnd = ((in_flight + sndcnt).max(1) as u64) * mss;
    }

    /// Linux tcp_cdg_ssthresh, in packets (Hayes & Armitage 2011 notes §8.11).
    fn linux_ssthresh_pkts(&mut self) -> u64 {
        let cwnd = self.w.cwnd / self.mss;
        if self.queue == QueueState::Backoff {
            return ((cwnd * self.beta_1024()) >> 10).max(2);
        }
        if self.queue == QueueState::NonFull && self.cfg.use_tolerance {
            return cwnd;
        }
        let shadow = ((self.shadow / self.mss) >> 1).min(cwnd);
        self.shadow = shadow * self.mss;
        let half = (cwnd as f64 * self.cfg.loss_beta) as u64;
        if self.cfg.use_shadow {
            shadow.max(half).max(2)
        } else {
            half.max(2)
        }
    }

    /// CA_EVENT_COMPLETE_CWR: gradients across the reduction are ignored.
    fn complete_cwr(&mut self) {
        self.queue = QueueState::Unknown;
        self.rtt_seq = self.snd_nxt;
        self.prev = if self.cur_max > 0 {
            Some((self.cur_min, self.cur_max))
        } else {
            None
        };
        self.cur_min = NO_MIN;
        self.cur_max = 0;
    }
}

impl CongestionControl for Cdg {
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.snd_nxt = self.snd_nxt.max(ack.snd_nxt);
        // Samples are taken on every ACK, also in recovery (FreeBSD ERTT, Linux pkts_acked).
        let rtt = match self.cfg.variant {
            Variant::Paper => ack.rtt,
            Variant::Linux => self.linux_ca_rtt(now, ack),
        };
        self.sample(rtt, ack);
        match self.cfg.variant {
            Variant::Paper => self.on_ack_paper(now, ack),
            Variant::Linux => self.on_ack_linux(now, ack),
        }
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        match (self.cfg.variant, ev.kind) {
            (Variant::Paper, CongestionKind::Loss) => {
                self.on_loss_paper();
                self.in_loss_recovery = true;
            }
            (Variant::Paper, CongestionKind::Ecn) => {
                // FreeBSD: NewReno's CC_ECN, ignored while already reducing.
                if self.cwr_until.is_none() && !self.in_loss_recovery {
                    self.w.ssthresh = self.newreno_half();
                    self.w.cwnd = self.w.ssthresh;
                    self.w.ca_acked = 0;
                    self.enter_cwr();
                }
            }
            (Variant::Linux, CongestionKind::Loss) => {
                // tcp_enter_recovery: ssthresh from tcp_cdg_ssthresh, unless a window
                // reduction is already in progress (CWR after a delay backoff or ECN): then
                // "if (!tcp_in_cwnd_reduction(sk))" skips tcp_init_cwnd_reduction and the
                // CWR's ssthresh stays. Recovery replaces CWR.
                if self.cwr_until.is_none() {
                    self.w.ssthresh = self.linux_ssthresh_pkts() * self.mss;
                }
                let ss = self.w.ssthresh;
                self.w.cwnd = ss;
                self.w.ca_acked = 0;
                self.cwr_until = None;
                self.in_loss_recovery = true;
                self.after_rto = false;
            }
            (Variant::Linux, CongestionKind::Ecn) => {
                // tcp_enter_cwr (only from Open/Disorder), then PRR.
                if self.cwr_until.is_none() && !self.in_loss_recovery {
                    self.linux_enter_cwr();
                }
            }
        }
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        if ev.backoff_count <= 1 {
            match self.cfg.variant {
                // FreeBSD NewReno CC_RTO (first timeout only).
                Variant::Paper => self.w.ssthresh = self.newreno_half(),
                // tcp_enter_loss calls ssthresh() unless already in CWR/Recovery.
                Variant::Linux => {
                    if self.cwr_until.is_none() && !self.in_loss_recovery {
                        self.w.ssthresh = self.linux_ssthresh_pkts() * self.mss;
                    }
                }
            }
        }
        self.w.cwnd = self.mss;
        self.w.ca_acked = 0;
        self.cwr_until = None;
        self.in_loss_recovery = true;
        self.after_rto = true;
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        // Linux: tcp_end_cwnd_reduction (CA_EVENT_COMPLETE_CWR) ends fast recovery, not
        // RTO recovery. FreeBSD: NewReno post-recovery leaves cwnd = ssthresh.
        if self.cfg.variant == Variant::Linux && self.in_loss_recovery && !self.after_rto {
            self.complete_cwr();
        }
        self.in_loss_recovery = false;
        self.after_rto = false;
    }

    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        let end = sent.seq + sent.bytes;
        self.snd_nxt = self.snd_nxt.max(end);
        if self.cfg.variant == Variant::Linux && self.cwr_until.is_some() {
            // tcp_event_new_data_sent / tcp_retransmit_skb: prr_out += pcount.
            self.prr_out += sent.bytes.div_ceil(self.mss.max(1));
        }
        if self.cfg.variant == Variant::Linux && sent.bytes > 0 && end > self.una {
            // Transmit timestamps (skb_mstamp) for linux_ca_rtt; a retransmission marks
            // its segment (TCPCB_RETRANS).
            match self.sent.back() {
                Some(b) if sent.seq < b.end => {
                    if let Some(seg) = self
                        .sent
                        .iter_mut()
                        .find(|g| g.start <= sent.seq && sent.seq < g.end)
                    {
                        seg.retrans = true;
                        seg.at = now;
                    }
                }
                _ => self.sent.push_back(SentSeg {
                    start: sent.seq,
                    end,
                    at: now,
                    retrans: sent.retransmission,
                }),
            }
        }
    }

    fn cwnd(&self) -> u64 {
        self.w.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        let (gmin_bar, gmax_bar) = self.smoothed_gradients_ms();
        let (gmin, gmax) = self.raw_gradients_ms();
        out.push(("shadow_bytes", self.shadow as f64));
        out.push(("gmin_ms", gmin));
        out.push(("gmax_ms", gmax));
        out.push(("gmin_bar_ms", gmin_bar));
        out.push(("gmax_bar_ms", gmax_bar));
        out.push(("queue_state", self.queue.code()));
        out.push(("ineff_cnt", self.ineff_cnt as f64));
        out.push(("backoff_p", self.last_p));
        out.push(("delay_backoffs", self.delay_backoffs as f64));
        out.push(("rtt_sample_ms", self.last_rtt as f64 / 1e6));
        out.push((
            "ssthresh_bytes",
            if self.w.ssthresh == u64::MAX {
                -1.0
            } else {
                self.w.ssthresh as f64
            },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Dur;

    const MSS: u64 = 1000;

    fn cfg_with(f: impl FnOnce(&mut CdgConfig)) -> CdgConfig {
        let mut c = CdgConfig::paper();
        f(&mut c);
        c
    }

    fn new_cdg(cfg: CdgConfig, iw_segments: u64, seed: u64) -> Cdg {
        Cdg::new(
            &cfg,
            CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: iw_segments * MSS,
                rng: Rng::new(seed),
            },
        )
    }

    /// Drives RTT intervals: every sample is one ACK; the last ACK of a call passes
    /// `rtt_seq` and closes the interval, the others do not.
    struct Harness {
        boundary: u64,
        now: u64,
    }

    impl Harness {
        fn new() -> Harness {
            Harness {
                boundary: 0,
                now: 0,
            }
        }
        fn interval_with(
            &mut self,
            c: &mut Cdg,
            samples_ms: &[u64],
            bytes_acked: u64,
            in_recovery: bool,
        ) {
            for (i, &ms) in samples_ms.iter().enumerate() {
                let last = i + 1 == samples_ms.len();
                let (una, nxt) = if last {
                    (self.boundary + MSS, self.boundary + 20 * MSS)
                } else {
                    (self.boundary, self.boundary)
                };
                self.now += 1_000_000;
                let ack = AckSample {
                    bytes_acked,
                    rtt: Some(Dur::from_millis(ms)),
                    in_recovery,
                    snd_una: una,
                    snd_nxt: nxt,
                    ..AckSample::empty(MSS)
                };
                c.on_ack(Time(self.now), &ack);
                if last {
                    self.boundary = nxt;
                }
            }
        }
        fn interval(&mut self, c: &mut Cdg, samples_ms: &[u64]) {
            self.interval_with(c, samples_ms, MSS, false);
        }
        /// ACKs inside the current interval only (none closes it).
        fn open_acks(&mut self, c: &mut Cdg, samples_ms: &[u64]) {
            for &ms in samples_ms {
                self.now += 1_000_000;
                let ack = AckSample {
                    bytes_acked: MSS,
                    rtt: Some(Dur::from_millis(ms)),
                    snd_una: self.boundary,
                    snd_nxt: self.boundary,
                    ..AckSample::empty(MSS)
                };
                c.on_ack(Time(self.now), &ack);
            }
        }
    }

    fn loss() -> CongestionEvent {
        CongestionEvent {
            kind: CongestionKind::Loss,
            bytes_in_flight: 0,
            bytes_lost: MSS,
            mss: MSS,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn backoff_probability_table() {
        // Eq 5 with G = 3 ms: P = 1 − e^(−g/3).
        let table = [
            (-2.0, 0.0),
            (0.0, 0.0),
            (0.5, 0.15351827510938593), // 1 − e^(−1/6)
            (1.5, 0.3934693402873666),  // 1 − e^(−1/2)
            (3.0, 0.6321205588285577),  // 1 − e^(−1)
            (6.0, 0.8646647167633873),  // 1 − e^(−2)
            (9.0, 0.950212931632136),   // 1 − e^(−3)
            (15.0, 0.9932620530009145), // 1 − e^(−5)
        ];
        for (g, p) in table {
            let got = backoff_probability(g, 3.0);
            assert!(close(got, p), "g = {g}: {got} vs {p}");
        }
        // Far beyond 5G the probability is 1 exactly in f64 (e^(−41.7) < 2^−54).
        assert_eq!(backoff_probability(125.0, 3.0), 1.0);
        // Linux: sum over 8 intervals of a 3 ms gradient = 24000 µs; ×42e−6 = 1.008.
        assert!(close(
            linux_backoff_probability(24_000, 42),
            0.6350518535455063
        ));
        assert!(close(
            linux_backoff_probability(1_000, 42),
            0.04113021942751544
        )); // 1 − e^(−0.042)
        assert_eq!(linux_backoff_probability(0, 42), 0.0);
        assert_eq!(linux_backoff_probability(-500, 42), 0.0);
    }

    #[test]
    fn gradients_moving_average_and_queue_state() {
        // Per-interval (τ_min, τ_max) in ms; ACKs flagged in_recovery so that no backoff
        // interferes (gradients and Q are still computed, as FreeBSD does in recovery).
        let seq: [(u64, u64); 19] = [
            (40, 40),
            (41, 44),
            (43, 50),
            (46, 58),
            (50, 68),
            (52, 80),
            (54, 80),
            (56, 80),
            (58, 80),
            (60, 80),
            (60, 80),
            (60, 80),
            (60, 80),
            (60, 80),
            (60, 70),
            (60, 60),
            (60, 60),
            (60, 60),
            (55, 55),
        ];
        // Expected raw g (eq 1–2), ḡ (eq 3, a = 8, sums/8) and Q after each interval n ≥ 1.
        use QueueState::*;
        type Expected = ((f64, f64), (f64, f64), QueueState);
        let expect: [Expected; 18] = [
            ((1.0, 4.0), (0.125, 0.5), Rising), // sums 1, 4 (ring filling: missing = 0)
            ((2.0, 6.0), (0.375, 1.25), Rising), // 3, 10
            ((3.0, 8.0), (0.75, 2.25), Rising), // 6, 18
            ((4.0, 10.0), (1.25, 3.5), Rising), // 10, 28
            ((2.0, 12.0), (1.5, 5.0), Rising),  // 12, 40
            ((2.0, 0.0), (1.75, 5.0), Rising),  // 14, 40
            ((2.0, 0.0), (2.0, 5.0), Rising),   // 16, 40
            ((2.0, 0.0), (2.25, 5.0), Rising),  // 18, 40 (ring full)
            ((2.0, 0.0), (2.375, 4.5), Rising), // 18−1+2 = 19, 40−4 = 36
            ((0.0, 0.0), (2.125, 3.75), Rising), // 19−2 = 17, 36−6 = 30
            ((0.0, 0.0), (1.75, 2.75), Rising), // 17−3 = 14, 30−8 = 22
            ((0.0, 0.0), (1.25, 1.5), Rising),  // 14−4 = 10, 22−10 = 12
            ((0.0, 0.0), (1.0, 0.0), Full),     // 10−2 = 8, 12−12 = 0: ḡmin > 0, ḡmax ≤ 0
            ((0.0, -10.0), (0.75, -1.25), Full), // 6, −10: FULL is tested first
            ((0.0, -10.0), (0.5, -2.5), Full),  // 4, −20
            ((0.0, 0.0), (0.25, -2.5), Full),   // 2, −20
            ((0.0, 0.0), (0.0, -2.5), Empty),   // 0, −20: ḡmin ≥ 0, ḡmax < 0
            ((-5.0, -5.0), (-0.625, -3.125), Falling), // −5, −25
        ];
        let mut c = new_cdg(CdgConfig::paper(), 10, 1);
        c.w.ssthresh = 0; // congestion avoidance: selection uses ḡ
        let mut h = Harness::new();
        // Two ACKs per interval: one carries τ_max, the closing one τ_min.
        h.interval_with(&mut c, &[seq[0].1, seq[0].0], 0, true);
        assert_eq!(c.queue_state(), Unknown);
        for (n, &(tmin, tmax)) in seq.iter().enumerate().skip(1) {
            h.interval_with(&mut c, &[tmax, tmin], 0, true);
            let ((gmin, gmax), (bmin, bmax), q) = expect[n - 1];
            let (rmin, rmax) = c.raw_gradients_ms();
            let (smin, smax) = c.smoothed_gradients_ms();
            assert!(
                close(rmin, gmin) && close(rmax, gmax),
                "n = {n}: raw ({rmin}, {rmax})"
            );
            assert!(
                close(smin, bmin) && close(smax, bmax),
                "n = {n}: smoothed ({smin}, {smax})"
            );
            assert_eq!(c.queue_state(), q, "n = {n}");
            if n == 17 {
                // Eq 7: Q = empty zeroes the shadow window.
                assert_eq!(c.shadow(), 0);
                // A negative smoothed gradient resets the ineffectual-backoff counter.
                assert_eq!(c.ineffectual_count(), 0);
            }
        }
        // No window change in recovery.
        assert_eq!(c.cwnd(), 10 * MSS);
    }

    #[test]
    fn window_progression_backoff_skip_and_slow_start() {
        // G tiny: any positive gradient gives P = 1 exactly, so the test is seed-free.
        let mut c = new_cdg(cfg_with(|c| c.exp_backoff_scale = 0.001), 10, 3);
        let mut h = Harness::new();
        // Slow start: +1 MSS per ACK (3 ACKs), the closing ACK has no previous interval.
        h.interval(&mut c, &[100, 100, 100]);
        assert_eq!(c.cwnd(), 13 * MSS);
        // Flat RTT: g = 0, P = 0, +1 MSS per ACK.
        h.interval(&mut c, &[100, 100]);
        assert_eq!(c.cwnd(), 15 * MSS);
        // Rising RTT: interval (101, 102) → raw g_min = +1 ms in slow start → P = 1 →
        // backoff at the closing ACK: first ACK grows 15 → 16, then w = 0.7·16000 = 11200.
        h.interval(&mut c, &[101, 102]);
        assert_eq!((c.cwnd(), c.ssthresh()), (11_200, 11_200));
        assert!(close(c.last_backoff_probability(), 1.0));
        // Eq 7: s = max(w_before = 16000, s = 10000 + 6000 slow-start growth) = 16000.
        assert_eq!(c.shadow(), 16_000);
        // Next interval: CWR ends at its first ACK (snd_una ≥ recover); the gradient is
        // ignored even though RTT rises again (prev invalidated, §3.5). cwnd = ssthresh
        // is still slow start (FreeBSD ≤): 11200 + 1000 on the first ACK, then CA: the
        // closing ACK adds +1 MSS per RTT → 13200; s: +1000 (SS ACK) +1000 (CA RTT).
        h.interval(&mut c, &[150, 150]);
        assert_eq!(c.cwnd(), 13_200);
        assert_eq!(c.shadow(), 18_000);
        // Flat RTT in CA: the ring holds g_min of intervals 2 (0), 3 (+1) and now 5 (0)
        // → ḡmin = 1/8 ms > 0 → P = 1 → backoff: 0.7·13200 = 9240.
        h.interval(&mut c, &[150]);
        assert_eq!(c.cwnd(), 9_240);
        assert_eq!(c.shadow(), 18_000); // max(13200, 18000)
                                        // CA without gradient (skipped interval): +1 MSS at the closing ACK only;
                                        // non-closing ACKs in CA do not grow. cwnd 9240 = ssthresh → first ACK is SS.
        h.interval(&mut c, &[150, 150, 150]);
        assert_eq!(c.cwnd(), 9_240 + MSS + MSS);
    }

    #[test]
    fn ineffectual_backoff_counter_disables_then_restores_backoff() {
        // b = 5, b' = 5, P = 1 for every positive gradient (G tiny), CA, no growth
        // (pure ACKs with bytes_acked = 0 so the numbers stay simple).
        let mut c = new_cdg(cfg_with(|c| c.exp_backoff_scale = 0.001), 100, 9);
        c.w.ssthresh = 0;
        let mut h = Harness::new();
        let mut rtt = 100;
        let mut step = |c: &mut Cdg, h: &mut Harness| {
            rtt += 1; // +1 ms per interval
            h.interval_with(c, &[rtt], 0, false);
        };
        step(&mut c, &mut h); // first interval: no previous
                              // Indications arrive every second interval (each one invalidates the next gradient).
        let mut cw = 100_000u64;
        for k in 1..=5 {
            step(&mut c, &mut h);
            cw = (cw as f64 * 0.7) as u64;
            assert_eq!(c.cwnd(), cw, "backoff {k}");
            assert_eq!(c.ineffectual_count(), k);
            step(&mut c, &mut h); // skipped interval
            assert_eq!(c.cwnd(), cw);
        }
        // 100000 → 70000 → 49000 → 34300 → 24010 → 16807.
        assert_eq!(cw, 16_807);
        // Counter 6..9 suppressed, 10 = b + b' suppressed and resets the counter.
        for k in 6..=10 {
            step(&mut c, &mut h);
            assert_eq!(c.cwnd(), 16_807, "suppressed {k}");
            assert_eq!(c.ineffectual_count(), if k == 10 { 0 } else { k });
            step(&mut c, &mut h);
        }
        // Backing off again: 0.7·16807 = 11764.9 → 11764.
        step(&mut c, &mut h);
        assert_eq!((c.cwnd(), c.ineffectual_count()), (11_764, 1));
        assert_eq!(c.shadow(), 100_000); // eq 7: max(w, s) with s = initial window

        // A negative smoothed gradient (the backoffs were effectual) resets the counter.
        step(&mut c, &mut h); // skipped interval
                              // The ring holds the last 8 computed gradients, all +1 ms; a drop of 20 ms gives
                              // ḡmin = ḡmax = (7 − 20)/8 < 0 → counter 0, Q falling, and no indication
                              // (neither smoothed gradient is positive).
        rtt -= 20;
        h.interval_with(&mut c, &[rtt], 0, false);
        assert_eq!(c.ineffectual_count(), 0);
        assert_eq!(c.cwnd(), 11_764);
        assert_eq!(c.queue_state(), QueueState::Falling);
    }

    #[test]
    fn lbe_setting_never_suppresses_backoffs() {
        // use_ineff = 0 (Linux LBE recommendation): every indication backs off.
        let mut c = new_cdg(
            cfg_with(|c| {
                c.exp_backoff_scale = 0.001;
                c.use_ineff = 0;
                c.use_shadow = false;
            }),
            1000,
            9,
        );
        c.w.ssthresh = 0;
        let mut h = Harness::new();
        let mut rtt = 100;
        h.interval_with(&mut c, &[rtt], 0, false);
        let mut cw = 1_000_000u64;
        for _ in 0..12 {
            rtt += 1;
            h.interval_with(&mut c, &[rtt], 0, false);
            cw = ((cw as f64 * 0.7) as u64).max(2 * MSS);
            assert_eq!(c.cwnd(), cw);
            rtt += 1;
            h.interval_with(&mut c, &[rtt], 0, false);
        }
        // 1e6 → 700000 → 490000 → 343000 → 240100 → 168070 → 117649 → 82354 → 57647
        // → 40352 → 28246 → 19772 → 13840 (each step truncated to bytes).
        assert_eq!(cw, 13_840);
    }

    #[test]
    fn shadow_window_on_loss_eq7_eq8() {
        let mut c = new_cdg(cfg_with(|c| c.exp_backoff_scale = 0.001), 50, 5);
        c.w.ssthresh = 40_000; // congestion avoidance
        let mut h = Harness::new();
        // I0: no gradient → CA +1 MSS at the closing ACK: w = 51000, s = 51000.
        h.interval(&mut c, &[100]);
        assert_eq!((c.cwnd(), c.shadow()), (51_000, 51_000));
        // I1: g = +1 ms → ḡmin = 0.125 → P = 1 → backoff. Eq 7: s = max(51000, 51000);
        // w = 0.7·51000 = 35700.
        h.interval(&mut c, &[101]);
        assert_eq!(
            (c.cwnd(), c.ssthresh(), c.shadow()),
            (35_700, 35_700, 51_000)
        );
        assert_eq!(c.queue_state(), QueueState::Rising);
        // A loss inside the delay CWR (FreeBSD IN_CONGRECOVERY) does not reduce again.
        let mut in_cwr = c.clone();
        in_cwr.on_congestion(Time(0), &loss());
        assert_eq!((in_cwr.cwnd(), in_cwr.ssthresh()), (35_700, 35_700));
        // I2: skipped gradient; w = ssthresh → slow start +1 MSS: 36700, s 52000.
        h.interval(&mut c, &[100]);
        assert_eq!((c.cwnd(), c.shadow()), (36_700, 52_000));
        // I3: g = −1 → sums 0 → ḡ = 0: no indication, Q unchanged; CA +1: 37700, s 53000.
        h.interval(&mut c, &[99]);
        // I4: g = 0: 38700, s 54000.
        h.interval(&mut c, &[99]);
        assert_eq!(
            (c.cwnd(), c.shadow(), c.queue_state()),
            (38_700, 54_000, QueueState::Rising)
        );

        // Eq 8, Q = rising: tolerated, w unchanged (ssthresh = cwnd).
        let mut t = c.clone();
        t.on_congestion(Time(0), &loss());
        assert_eq!(
            (t.cwnd(), t.ssthresh(), t.shadow()),
            (38_700, 38_700, 54_000)
        );

        // Eq 8, Q = full: w = max(s, w)/2 = max(54000, 38700)/2 = 27000; s halved to 27000.
        let mut f = c.clone();
        f.queue = QueueState::Full;
        f.on_congestion(Time(0), &loss());
        assert_eq!(
            (f.cwnd(), f.ssthresh(), f.shadow()),
            (27_000, 27_000, 27_000)
        );

        // UNKNOWN counts as full (FreeBSD queue_state < FULL test).
        let mut u = c.clone();
        u.queue = QueueState::Unknown;
        u.on_congestion(Time(0), &loss());
        assert_eq!(u.cwnd(), 27_000);

        // Without the shadow window: w/2 = 19350.
        let mut ns = c.clone();
        ns.cfg.use_shadow = false;
        ns.queue = QueueState::Full;
        ns.on_congestion(Time(0), &loss());
        assert_eq!(ns.cwnd(), 19_350);

        // Without loss tolerance every loss reduces, even with Q = rising: 27000.
        let mut nt = c.clone();
        nt.cfg.use_tolerance = false;
        nt.on_congestion(Time(0), &loss());
        assert_eq!(nt.cwnd(), 27_000);

        // Q = empty zeroed s (eq 7): a loss (tolerance off) gives w/2 = 19350, and the
        // next delay backoff re-seeds s = max(w_before, 0).
        let mut e = c.clone();
        e.shadow = 0;
        e.cfg.use_tolerance = false;
        e.on_congestion(Time(0), &loss());
        assert_eq!((e.cwnd(), e.shadow()), (19_350, 0));

        // Eq 7 when s > w: a further delay backoff keeps s = max(38700, 54000) = 54000.
        // I5: g = +3 ms → ring g_min [+1, −1, 0, +3], sum 3 > 0 → P = 1 → backoff:
        // w = 0.7·38700 = 27090.
        h.interval(&mut c, &[102]);
        assert_eq!((c.cwnd(), c.shadow()), (27_090, 54_000));
    }

    #[test]
    fn backoff_decisions_are_deterministic_for_a_seed() {
        // (a) P = 1 exactly: every seed backs off; (b) zero gradient: P = 0, no draw.
        for seed in 0..20 {
            let mut c = new_cdg(cfg_with(|c| c.exp_backoff_scale = 0.001), 20, seed);
            c.w.ssthresh = 0;
            let mut h = Harness::new();
            h.interval_with(&mut c, &[100], 0, false);
            h.interval_with(&mut c, &[100], 0, false); // g = 0
            assert_eq!(c.last_backoff_probability(), 0.0);
            assert_eq!(
                c.rng.clone().next_u64(),
                Rng::new(seed).next_u64(),
                "P = 0 consumed randomness"
            );
            h.interval_with(&mut c, &[110], 0, false); // g = +10 ms
            assert_eq!(c.cwnd(), 14_000, "seed {seed}");
        }
        // (c) intermediate P: slow start uses the raw gradient g = 3 ms → P = 1 − e^(−1).
        // The decision is X < P with X the flow's first uniform draw.
        let run = |seed: u64| -> (bool, u64) {
            let mut c = new_cdg(CdgConfig::paper(), 20, seed);
            let mut h = Harness::new();
            h.interval_with(&mut c, &[100], 0, false);
            h.interval_with(&mut c, &[103], 0, false);
            assert!(close(c.last_backoff_probability(), 0.6321205588285577));
            (c.cwnd() == 14_000, c.cwnd())
        };
        let mut backed = 0;
        for seed in 0..200 {
            let expect = Rng::new(seed).uniform() < 0.6321205588285577;
            let (b, w) = run(seed);
            assert_eq!(b, expect, "seed {seed}");
            assert_eq!(run(seed), (b, w));
            assert!(w == 14_000 || w == 20_000);
            backed += b as u32;
        }
        // Sanity of the draw: about 63 % of 200.
        assert!((100..150).contains(&backed), "{backed}");
    }

    #[test]
    fn ecn_and_rto_follow_newreno() {
        let mut c = new_cdg(CdgConfig::paper(), 21, 1);
        c.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Ecn,
                bytes_in_flight: 0,
                bytes_lost: 0,
                mss: MSS,
            },
        );
        // max(21000/2/1000, 2)·1000 = 10000.
        assert_eq!((c.cwnd(), c.ssthresh()), (10_000, 10_000));
        c.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((c.cwnd(), c.ssthresh()), (1_000, 5_000));
    }

    #[test]
    fn delayed_ack_filter_keeps_held_acks_out_of_the_maximum() {
        let mut c = new_cdg(CdgConfig::paper(), 10, 1);
        // A stretch ACK (2 segments) arms the filter; the next 1-segment ACK (held by the
        // receiver's delayed-ACK timer) may only lower the minimum.
        let a = |bytes, ms| AckSample {
            bytes_acked: bytes,
            rtt: Some(Dur::from_millis(ms)),
            ..AckSample::empty(MSS)
        };
        c.on_ack(Time(0), &a(2 * MSS, 50));
        c.on_ack(Time(0), &a(MSS, 90));
        assert_eq!((c.cur_min, c.cur_max), (50_000_000, 50_000_000));
        c.on_ack(Time(0), &a(2 * MSS, 60));
        c.on_ack(Time(0), &a(MSS, 40));
        assert_eq!((c.cur_min, c.cur_max), (40_000_000, 60_000_000));
    }

    // ------------------------------------------------------------------ Linux variant

    fn linux_cfg() -> CdgConfig {
        CdgConfig::linux()
    }

    #[test]
    fn linux_ssthresh_rules() {
        // cwnd 100 packets, shadow 150 packets.
        let mk = |f: &dyn Fn(&mut Cdg)| {
            let mut c = new_cdg(linux_cfg(), 100, 1);
            c.shadow = 150 * MSS;
            f(&mut c);
            c.on_congestion(Time(0), &loss());
            (c.cwnd() / MSS, c.shadow() / MSS)
        };
        // shadow = min(150 >> 1, 100) = 75; max3(2, 75, 100 >> 1) = 75.
        assert_eq!(mk(&|_| {}), (75, 75));
        // use_shadow = 0: max(2, 50).
        assert_eq!(mk(&|c| c.cfg.use_shadow = false), (50, 75));
        // In BACKOFF (a loss during the delay CWR): 100·724 >> 10 = 70.
        assert_eq!(mk(&|c| c.queue = QueueState::Backoff), (70, 150));
        // NONFULL with tolerance: no reduction; without tolerance (stock): halving rule.
        assert_eq!(
            mk(&|c| {
                c.cfg.use_tolerance = true;
                c.queue = QueueState::NonFull
            }),
            (100, 150)
        );
        assert_eq!(mk(&|c| c.queue = QueueState::NonFull), (75, 75));
        assert_eq!(linux_cfg().variant, Variant::Linux);
        assert_eq!(new_cdg(linux_cfg(), 1, 1).beta_1024(), 724);
    }

    #[test]
    fn linux_gradient_sums_extrapolation_and_single_ineff_threshold() {
        // backoff_factor so large that any positive sum gives P = 1; use_ineff = 5.
        let mut cfg = linux_cfg();
        cfg.backoff_factor = 1_000_000;
        cfg.hystart_detect = 0;
        let mut c = new_cdg(cfg, 100, 2);
        c.w.ssthresh = 0;
        let mut h = Harness::new();
        h.interval(&mut c, &[100]);
        // I0: Reno AI adds 1/cwnd per ACK: still 100 packets.
        assert_eq!(c.cwnd(), 100 * MSS);
        // First gradient +1 ms = 1000 µs, extrapolated ×8/1 = 8000 µs. P = 1 → backoff:
        // tcp_enter_cwr sets ssthresh = 100·724 >> 10 = 72400 >> 10 = 70 and leaves cwnd
        // (PRR reduces it on the following ACKs of the CWR; this harness has none).
        h.interval(&mut c, &[101]);
        assert_eq!((c.cwnd(), c.ssthresh()), (100 * MSS, 70 * MSS));
        assert_eq!(c.queue_state(), QueueState::Backoff);
        assert!(close(
            c.last_backoff_probability(),
            linux_backoff_probability(8000, 1_000_000)
        ));
        // Each following interval alternates: the CWR completes at the next ACK (snd_una >
        // high_seq: tcp_end_cwnd_reduction sets cwnd = ssthresh; Q unknown, rtt_prev := rtt,
        // so the gradient across the reduction is ignored), then the next closing ACK backs
        // off again (ssthresh only): 70 → 49 → 34 → 24 → 16.
        let mut seen = Vec::new();
        let mut rtt = 101;
        for _ in 0..20 {
            rtt += 1;
            h.interval(&mut c, &[rtt]);
            seen.push(c.cwnd() / MSS);
        }
        // 70·724 >> 10 = 50680 >> 10 = 49, 49·724 >> 10 = 35476 >> 10 = 34,
        // 34·724 >> 10 = 24616 >> 10 = 24, 24·724 >> 10 = 17376 >> 10 = 16; each takes
        // effect one interval after its backoff. Reno AI at 16 packets needs 16 ACKs for +1:
        // the 12 ACKs after the last CWR (iterations 9–20) add nothing.
        let mut expect = vec![70, 70, 49, 49, 34, 34, 24, 24, 16];
        expect.resize(20, 16);
        assert_eq!(seen, expect);
        // Exactly use_ineff = 5 backoffs (I1 and loop iterations 2, 4, 6, 8), then every
        // closing ACK (iterations 10..=20, no CWR any more) is a refused indication:
        // backoff_cnt = 5 + 11 = 16 (no reset: the sums never fall to −32 µs).
        assert_eq!(c.ineffectual_count(), 16);
    }

    fn lack(una: u64, nxt: u64, acked: u64, in_flight: u64, rtt_ms: u64) -> AckSample {
        AckSample {
            bytes_acked: acked,
            rtt: Some(Dur::from_millis(rtt_ms)),
            snd_una: una,
            snd_nxt: nxt,
            bytes_in_flight: in_flight,
            ..AckSample::empty(MSS)
        }
    }

    fn sent(seq: u64, retransmission: bool) -> SentInfo {
        SentInfo {
            bytes: MSS,
            bytes_in_flight: 0,
            retransmission,
            seq,
            app_limited: false,
        }
    }

    #[test]
    fn linux_rtt_sample_is_the_last_acked_segment() {
        // Linux ack_sample.rtt_us = ca_rtt_us: from the send time of the most recently sent
        // segment the ACK covers, not from the TSecr echo (which names the oldest).
        let mut c = new_cdg(linux_cfg(), 10, 1);
        // (a) Segment 0 leaves at 0, segment 1 at 40.0005 ms (an ACK-clock gap); the
        // receiver acknowledges both at once, echoing segment 0: the datapath's sample is
        // 93 ms, Linux's is 93.0014 − 40.0005 = 53.0009 ms → 53000 µs (whole µs).
        c.on_sent(Time(0), &sent(0, false));
        c.on_sent(Time(40_000_500), &sent(1000, false));
        c.on_ack(Time(93_001_400), &lack(2000, 100_000, 2000, 0, 93));
        // That ACK closed the first interval (rtt_seq 0): rtt_prev = (53, 53) ms.
        assert_eq!(c.prev, Some((53_000_000, 53_000_000)));
        assert_eq!(c.last_rtt, 53_000_900);
        // (b) Retransmitted data acknowledged (FLAG_RETRANS_DATA_ACKED): Linux falls back on
        // the timestamp echo, i.e. the datapath's sample, 60 ms (own would be 360 − 291 = 69).
        c.on_sent(Time(100_000_000), &sent(2000, false));
        c.on_sent(Time(290_000_000), &sent(2000, true));
        c.on_sent(Time(291_000_000), &sent(3000, false));
        c.on_ack(Time(360_000_000), &lack(4000, 100_000, 2000, 0, 60));
        assert_eq!((c.cur_min, c.cur_max), (60_000_000, 60_000_000));
        // (c) SACKed data in the ACK (bytes_acked 2000 > cumulative 1000): the interface does
        // not say which segment was SACKed, so the datapath's 45 ms is used (own: 60 ms).
        c.on_sent(Time(400_000_000), &sent(4000, false));
        c.on_sent(Time(401_000_000), &sent(5000, false));
        c.on_sent(Time(402_000_000), &sent(6000, false));
        c.on_ack(Time(460_000_000), &lack(5000, 100_000, 2000, 0, 45));
        assert_eq!((c.cur_min, c.cur_max), (45_000_000, 60_000_000));
        // (d) A plain cumulative ACK of segment 5000 (sent at 401 ms) at 455 ms → 54 ms,
        // although the echo says 99 ms. pkts 1 with delack = 3 (three 2-segment ACKs): the
        // delayed-ACK filter lets it lower the minimum only; 54 > 45, so nothing changes,
        // and the 99 ms of the echo never reaches the maximum.
        c.on_ack(Time(455_000_000), &lack(6000, 100_000, 1000, 0, 99));
        assert_eq!(c.last_rtt, 54_000_000);
        assert_eq!(
            (c.cur_min, c.cur_max, c.delack),
            (45_000_000, 60_000_000, 2)
        );
        // Without transmission reports the datapath's sample is used as is.
        let mut d = new_cdg(linux_cfg(), 10, 1);
        d.on_ack(Time(93_000_000), &lack(2000, 100_000, 2000, 0, 93));
        assert_eq!(d.prev, Some((93_000_000, 93_000_000)));
        // The paper variant always uses the datapath's sample.
        let mut e = new_cdg(CdgConfig::paper(), 10, 1);
        e.on_sent(Time(0), &sent(0, false));
        e.on_sent(Time(40_000_000), &sent(1000, false));
        e.on_ack(Time(93_000_000), &lack(2000, 100_000, 2000, 0, 93));
        assert_eq!(e.prev, Some((93_000_000, 93_000_000)));
    }

    /// Linux variant, cwnd 20 packets in CA, gradient P = 1: A0 opens, A1 backs off.
    fn linux_backed_off() -> (Cdg, u64) {
        let mut cfg = linux_cfg();
        cfg.backoff_factor = 1_000_000;
        cfg.hystart_detect = 0;
        let mut c = new_cdg(cfg, 20, 1);
        c.w.ssthresh = 0;
        c.on_ack(Time(1_000_000), &lack(1000, 20_000, MSS, 19_000, 100));
        c.on_ack(Time(2_000_000), &lack(21_000, 40_000, MSS, 19_000, 101));
        (c, 40_000)
    }

    #[test]
    fn linux_backoff_reduces_cwnd_with_prr_then_ends_at_ssthresh() {
        let (mut c, mut next) = linux_backed_off();
        // Gradient +1 ms ×8 → P = 1: tcp_enter_cwr: ssthresh = 20·724 >> 10 = 14480 >> 10
        // = 14, prior_cwnd = 20, high_seq = snd_nxt = 40000; cwnd unchanged.
        assert_eq!(
            (c.cwnd(), c.ssthresh(), c.cwr_until),
            (20 * MSS, 14 * MSS, Some(40_000))
        );
        // A toy datapath: sends while in flight < cwnd (each send counts in prr_out).
        let mut in_flight = 19;
        let send = |c: &mut Cdg, in_flight: &mut u64, next: &mut u64| {
            while *in_flight < c.cwnd() / MSS {
                c.on_sent(Time(0), &sent(*next, false));
                *next += MSS;
                *in_flight += 1;
            }
        };
        send(&mut c, &mut in_flight, &mut next); // old cwnd 20: one send, prr_out 1
        assert_eq!((in_flight, c.prr_out), (20, 1));
        // Each ACK delivers one packet. delta = 14 − in_flight < 0 throughout, so
        // sndcnt = ⌈14·k/20⌉ − prr_out (k = prr_delivered), cwnd = in_flight + sndcnt:
        //  k=1: F 19, ⌈0.7⌉=1 − 1 = 0 → 19 (no send)     k=2: F 18, 2 − 1 = 1 → 19 (send, P 2)
        //  k=3: F 18, ⌈2.1⌉=3 − 2 = 1 → 19 (send, P 3)   k=4: F 18, ⌈2.8⌉=3 − 3 = 0 → 18
        //  k=5: F 17, ⌈3.5⌉=4 − 3 = 1 → 18 (send, P 4)   k=6: F 17, ⌈4.2⌉=5 − 4 = 1 → 18 (P 5)
        //  k=7: F 17, ⌈4.9⌉=5 − 5 = 0 → 17               k=8: F 16, ⌈5.6⌉=6 − 5 = 1 → 17 (P 6)
        let mut seen = Vec::new();
        for k in 1..=8u64 {
            in_flight -= 1;
            c.on_ack(
                Time(2_000_000 + k),
                &lack(21_000 + k * MSS, next, MSS, in_flight * MSS, 101),
            );
            seen.push(c.cwnd() / MSS);
            send(&mut c, &mut in_flight, &mut next);
        }
        assert_eq!(seen, [19, 19, 19, 18, 18, 18, 17, 17]);
        assert_eq!((c.prr_delivered, c.prr_out, in_flight), (8, 6, 17));
        // Once in flight ≤ ssthresh, sndcnt = min(delta, newly acked) (CRB). Force it:
        // in flight 10 → delta = 4, sndcnt = min(4, 1) = 1 → cwnd 11.
        c.on_ack(Time(3_000_000), &lack(30_000, next, MSS, 10 * MSS, 101));
        assert_eq!(c.cwnd(), 11 * MSS);
        // The first ACK above high_seq ends the CWR: cwnd = ssthresh = 14 (then the ACK's
        // cong_avoid: Reno AI credit 1000 of 14000, no growth); state UNKNOWN.
        c.on_ack(Time(4_000_000), &lack(41_000, next, MSS, 13 * MSS, 101));
        assert_eq!(
            (c.cwnd(), c.ssthresh(), c.cwr_until),
            (14 * MSS, 14 * MSS, None)
        );
        assert_eq!(c.queue_state(), QueueState::Unknown);
        // The paper variant (FreeBSD, no PRR) cuts at once: see
        // window_progression_backoff_skip_and_slow_start.
    }

    #[test]
    fn linux_loss_or_ecn_during_cwr_keeps_the_backoff_ssthresh() {
        // tcp_enter_recovery only calls ssthresh() when no reduction is in progress.
        let (c, _) = linux_backed_off();
        let mut l = c.clone();
        l.on_congestion(Time(0), &loss());
        // ssthresh stays 14 (not 14·724 >> 10 = 9, not the shadow rule); shadow untouched.
        assert_eq!(
            (l.cwnd(), l.ssthresh(), l.shadow()),
            (14 * MSS, 14 * MSS, 20 * MSS)
        );
        // An ECN echo in CWR does nothing (tcp_enter_cwr only from Open/Disorder).
        let mut e = c.clone();
        e.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Ecn,
                bytes_in_flight: 0,
                bytes_lost: 0,
                mss: MSS,
            },
        );
        assert_eq!((e.cwnd(), e.ssthresh()), (20 * MSS, 14 * MSS));
        // Outside a reduction, cwnd 20 and shadow 20 in state UNKNOWN: the loss rule,
        // shadow = min(20 >> 1, 20) = 10, ssthresh = max3(2, 10, 20 >> 1) = 10.
        let mut fresh = new_cdg(linux_cfg(), 20, 1);
        fresh.on_congestion(Time(0), &loss());
        assert_eq!(
            (fresh.cwnd(), fresh.ssthresh(), fresh.shadow()),
            (10 * MSS, 10 * MSS, 10 * MSS)
        );
        // ECN outside a reduction: same ssthresh, but cwnd follows PRR from 20.
        let mut ecn = new_cdg(linux_cfg(), 20, 1);
        ecn.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Ecn,
                bytes_in_flight: 0,
                bytes_lost: 0,
                mss: MSS,
            },
        );
        assert_eq!((ecn.cwnd(), ecn.ssthresh()), (20 * MSS, 10 * MSS));
        // First ACK: in flight 19, delta = 10 − 19 < 0: ⌈10·1/20⌉ − 0 = 1 → cwnd 20.
        ecn.on_ack(Time(0), &lack(0, 0, MSS, 19 * MSS, 100));
        assert_eq!(ecn.cwnd(), 20 * MSS);
    }

    #[test]
    fn linux_rounding_and_effectual_reset() {
        // DIV_ROUND_CLOSEST(x, 64): ties away from zero.
        assert_eq!(
            [31, 32, 95, 96, -31, -32, -96, 0].map(|x| div_round_closest(x, 64)),
            [0, 1, 1, 2, 0, -1, -2, 0]
        );
        // A gradient sum ≤ −32 µs resets backoff_cnt; with use_tolerance, a rounded
        // g_min > 0 and g_max ≤ 0 is FULL, g_max < 0 is NONFULL.
        let mut cfg = linux_cfg();
        cfg.use_tolerance = true;
        let mut c = new_cdg(cfg, 100, 2);
        c.ineff_cnt = 3;
        c.cur_min = 100_040_000; // τ_min +40 µs
        c.cur_max = 100_000_000; // τ_max −32 µs
        let grad = c.linux_grad(100_000_000, 100_032_000);
        // sums: +40, −32 → grad = g_min sum 40, extrapolated ×8/1 = 320.
        assert_eq!(grad, 320);
        assert_eq!(c.ineffectual_count(), 0);
        // rounded: 40 → 1 > 0, −32 → −1 ≤ 0 → FULL.
        assert_eq!(c.queue_state(), QueueState::Full);
        c.ineff_cnt = 3;
        c.cur_min = 100_000_000;
        c.cur_max = 100_000_000;
        // second sample (0, −31): sums (40, −63) → rounded (1, −1): FULL again; −63 ≤ −32 resets.
        assert_eq!(c.linux_grad(100_000_000, 100_031_000), 40 * 8 / 2);
        assert_eq!(
            (c.queue_state(), c.ineffectual_count()),
            (QueueState::Full, 0)
        );
        // third sample (−100, 0): sums (−60, −63) → rounded (−1, −1): g_max < 0 → NONFULL;
        // grad = g_max sum (g_min sum not > 0) = −63 ×8/3 = −168.
        c.cur_min = 99_900_000;
        c.cur_max = 100_000_000;
        assert_eq!(c.linux_grad(100_000_000, 100_000_000), -168);
        assert_eq!(c.queue_state(), QueueState::NonFull);
    }

    #[test]
    fn linux_hystart_delay_exit() {
        let mut cfg = linux_cfg();
        cfg.hystart_detect = 2;
        let mut c = new_cdg(cfg, 10, 1);
        let mut h = Harness::new();
        // One long round: delay_min = 100 ms from the first samples, then after 8 samples
        // rtt.min of the round exceeds 100 + 100/8 = 112.5 ms → ssthresh = cwnd.
        let mut s = vec![100u64];
        s.extend([100; 8]);
        h.interval(&mut c, &s);
        assert_eq!(c.ssthresh(), u64::MAX);
        // New round: all samples 120 ms; detection on the 9th call of the round.
        // Round 1 grew cwnd by 9 (slow start) to 19; ACKs 1–8 of round 2 grow it to 27;
        // the 9th ACK detects 120 ms > 112.5 ms → ssthresh = cwnd = 27 packets, after
        // which the flow is in congestion avoidance (ACKs 10–12 add only ca_acked).
        assert_eq!(c.cwnd(), 19 * MSS);
        // (ACKs that do not close the round: the closing one would add a delay backoff.)
        h.open_acks(&mut c, &[120; 12]);
        assert_eq!((c.ssthresh(), c.cwnd()), (27 * MSS, 27 * MSS));
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            CdgConfig::try_from(&ParamSet::defaults(&PARAMS)).unwrap(),
            CdgConfig::default()
        );
        assert_eq!(
            CdgConfig::try_from(&ParamSet::defaults(&LINUX_PARAMS)).unwrap(),
            CdgConfig::linux()
        );
    }

    #[test]
    fn linux_preset_is_cdg_with_stock_linux_defaults() {
        // The same parameters (names and kinds) as `cdg`: every override still applies.
        let names = |t: &[ParamSpec]| -> Vec<_> {
            t.iter()
                .map(|p| (p.name, std::mem::discriminant(&p.kind)))
                .collect()
        };
        assert_eq!(names(LINUX.params), names(INFO.params));
        let d = ParamSet::defaults(LINUX.params);
        let stock = CdgConfig::try_from(&d).unwrap();
        assert_eq!(
            (
                stock.variant,
                stock.backoff_beta,
                stock.use_tolerance,
                stock.hystart_detect
            ),
            (Variant::Linux, 0.7071, false, 3)
        );
        let lbe = CdgConfig::linux_lbe().to_params();
        let p = LINUX.resolve(lbe.iter().map(|(n, v)| (*n, v))).unwrap();
        assert_eq!(CdgConfig::try_from(&p).unwrap(), CdgConfig::linux_lbe());
        let init = || CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: 10 * MSS,
            rng: Rng::new(0),
        };
        let built = LINUX.instantiate(&d, init());
        assert_eq!((built.name(), built.cwnd()), ("cdg-linux", 10 * MSS));
        // It is registered, and it runs exactly as `cdg` with the same values.
        assert!(crate::registry::find("cdg-linux").is_some());
        let mut a = LINUX.instantiate(&d, init());
        let raw = CdgConfig::linux().to_params();
        let mut b = INFO.instantiate(
            &INFO.resolve(raw.iter().map(|(n, v)| (*n, v))).unwrap(),
            init(),
        );
        for k in 1..200u64 {
            let ack = AckSample {
                bytes_acked: MSS,
                rtt: Some(Dur::from_micros(40_000 + 37 * (k % 50))),
                snd_una: k * MSS,
                snd_nxt: (k + 10) * MSS,
                bytes_in_flight: 10 * MSS,
                cwnd_limited: true,
                ..AckSample::empty(MSS)
            };
            a.on_ack(Time(k * 1_000_000), &ack);
            b.on_ack(Time(k * 1_000_000), &ack);
            assert_eq!(
                (a.cwnd(), a.ssthresh()),
                (b.cwnd(), b.ssthresh()),
                "ACK {k}"
            );
        }
    }

    #[test]
    fn registry_defaults_and_presets_resolve() {
        let c = CdgConfig::paper();
        assert_eq!(
            (
                c.variant,
                c.window,
                c.exp_backoff_scale,
                c.backoff_beta,
                c.use_ineff,
                c.hold_backoff
            ),
            (Variant::Paper, 8, 3.0, 0.7, 5, 5)
        );
        assert!(c.use_shadow && c.use_tolerance && c.hystart_detect == 0);
        // Every configuration survives the round trip through its parameter names.
        for cfg in [
            CdgConfig::paper(),
            CdgConfig::linux(),
            CdgConfig::linux_lbe(),
        ] {
            let raw = cfg.to_params();
            let p = INFO.resolve(raw.iter().map(|(n, v)| (*n, v))).unwrap();
            assert_eq!(CdgConfig::try_from(&p).unwrap(), cfg);
        }
        let l = CdgConfig::linux_lbe();
        assert!(!l.use_shadow && l.use_ineff == 0 && !l.use_tolerance && l.hystart_detect == 3);
        assert_eq!(l.variant, Variant::Linux);
        let bad = RawParam::Text("windows".into());
        assert!(INFO.resolve([("variant", &bad)]).is_err());
        let raw = l.to_params();
        let p = INFO.resolve(raw.iter().map(|(n, v)| (*n, v))).unwrap();
        let built = INFO.instantiate(
            &p,
            CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(0),
            },
        );
        assert_eq!((built.name(), built.cwnd()), ("cdg", 10 * MSS));
    }
}
