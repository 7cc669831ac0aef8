//! CDG's parameters: the typed [`CdgConfig`] (the single definition of the paper defaults
//! and of stock Linux `tcp_cdg`), the spec tables generated from it for `cdg` and
//! `cdg-linux`, and the only by-name lookup (`TryFrom<&ParamSet>`).

use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue, RawParam};

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
pub(super) static PARAMS: [ParamSpec; N_PARAMS] = param_table(CdgConfig::paper());
pub(super) static LINUX_PARAMS: [ParamSpec; N_PARAMS] = param_table(CdgConfig::linux());

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

#[cfg(test)]
mod tests {
    use super::super::harness::*;
    use super::super::*;
    use super::*;
    use crate::api::*;
    use crate::rng::Rng;
    use crate::units::{Dur, Time};

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
    // 0.7071 is tcp_cdg's literal backoff_beta, not an approximation of 1/√2.
    #[allow(clippy::approx_constant)]
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
