//! Parameters of the native BPF algorithms: the same names, ranges and defaults as the
//! crates/cc algorithm each one follows (validated by that algorithm's `ParamSpec` table),
//! converted to the fixed-point integers the BPF side keeps in its parameter maps
//! (`struct scv_*_params` in bpf/scv_core.h: 16 × s64, index = position below).

use scavenger_cc::params::{ParamKind, ParamSet, ParamSpec, ParamValue, RawParam};
use std::sync::{Mutex, OnceLock};

/// Per-layout caches of the leaked spec tables (built once per process).
type SpecCache = OnceLock<Mutex<Vec<(&'static str, &'static [(ParamSpec, Conv)])>>>;
type SpecTableCache = OnceLock<Mutex<Vec<(&'static str, &'static [ParamSpec])>>>;

/// Slots in every parameter struct (`struct scv_*_params` is 16 × s64 = 128 bytes).
pub const SLOTS: usize = 16;
pub type Values = [i64; SLOTS];

/// How a validated value becomes the s64 the BPF code reads.
#[derive(Clone, Copy, Debug)]
pub enum Conv {
    /// A duration, in nanoseconds.
    Nanos,
    /// A real number × 10^6 (BPF has no floating point).
    Ppm,
    Int,
    Bool,
    /// Index of the word in the choice list.
    Choice,
}

#[derive(Clone, Copy, Debug)]
pub struct KParam {
    pub name: &'static str,
    pub conv: Conv,
}

/// A parameter that only the kernel version has (not in the crates/cc table).
#[derive(Clone, Copy, Debug)]
pub struct Extra {
    pub spec: ParamSpec,
    pub conv: Conv,
}

pub fn to_kernel(conv: Conv, kind: &ParamKind, v: ParamValue) -> i64 {
    match (conv, v) {
        (Conv::Nanos, ParamValue::Dur(d)) => d.nanos().min(i64::MAX as u64) as i64,
        (Conv::Ppm, ParamValue::Float(x)) => (x * 1e6).round() as i64,
        (Conv::Int, ParamValue::Int(i)) => i,
        (Conv::Bool, ParamValue::Bool(b)) => b as i64,
        (Conv::Choice, ParamValue::Choice(c)) => match kind {
            ParamKind::Choice(opts) => opts.iter().position(|o| *o == c).unwrap_or(0) as i64,
            _ => 0,
        },
        // The tables below pair each conversion with its kind; a mismatch is a bug here.
        (c, v) => panic!("parameter conversion {c:?} does not fit value {v:?}"),
    }
}

pub fn from_kernel(conv: Conv, kind: &ParamKind, x: i64) -> String {
    match conv {
        Conv::Nanos => format!("{}", scavenger_cc::units::Dur(x.max(0) as u64)),
        Conv::Ppm => format!("{}", x as f64 / 1e6),
        Conv::Int => format!("{x}"),
        Conv::Bool => format!("{}", x != 0),
        Conv::Choice => match kind {
            ParamKind::Choice(opts) => opts
                .get(x as usize)
                .map(|s| s.to_string())
                .unwrap_or_else(|| format!("#{x}")),
            _ => format!("{x}"),
        },
    }
}

/// A `NAME=VALUE` that a parameter table does not accept.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// The text is not of the parameter's kind (not a number, not a boolean...).
    #[error("parameter `{name}` = {text:?} is not accepted; allowed: {allowed}")]
    NotAccepted {
        name: &'static str,
        text: String,
        allowed: String,
    },
    /// No parameter of that name; `owner` is the algorithm or controller.
    #[error("unknown parameter `{name}` for {owner}; known: {}", known.join(", "))]
    Unknown {
        name: String,
        owner: String,
        known: Vec<&'static str>,
    },
    /// Of the right kind but out of range (crates/cc's check).
    #[error(transparent)]
    Rejected(#[from] scavenger_cc::params::ParamError),
}

/// Turns the text of `NAME=VALUE` into the raw value the spec's kind expects.
pub fn parse_raw(spec: &ParamSpec, text: &str) -> Result<RawParam, ParamError> {
    let bad = || ParamError::NotAccepted {
        name: spec.name,
        text: text.to_string(),
        allowed: spec.kind.describe(),
    };
    match spec.kind {
        ParamKind::Bool => match text {
            "true" | "1" | "yes" | "on" => Ok(RawParam::Bool(true)),
            "false" | "0" | "no" | "off" => Ok(RawParam::Bool(false)),
            _ => Err(bad()),
        },
        ParamKind::Int { .. } => text.parse::<i64>().map(RawParam::Int).map_err(|_| bad()),
        ParamKind::Float { .. } => text.parse::<f64>().map(RawParam::Float).map_err(|_| bad()),
        ParamKind::Duration { .. } | ParamKind::Choice(_) => Ok(RawParam::Text(text.to_string())),
    }
}

/// One native algorithm's parameter layout.
pub struct Layout {
    /// The crates/cc algorithm whose table validates the shared parameters.
    pub cc_name: &'static str,
    /// Slot order = the field order of `struct scv_*_params`.
    pub slots: &'static [KParam],
    /// Kernel-only parameters, after the shared ones in slot order.
    pub extra: &'static [Extra],
}

impl Layout {
    /// All specs (crates/cc ones in slot order, then the kernel-only ones), with their
    /// conversions. Built once per layout.
    pub fn specs(&'static self) -> &'static [(ParamSpec, Conv)] {
        static CACHE: SpecCache = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let mut c = cache.lock().unwrap();
        if let Some((_, s)) = c.iter().find(|(n, _)| *n == self.cc_name) {
            return s;
        }
        let info = scavenger_cc::registry::find(self.cc_name)
            .expect("native algorithm follows a registered crates/cc algorithm");
        let mut v: Vec<(ParamSpec, Conv)> = self
            .slots
            .iter()
            .map(|k| {
                (
                    *info
                        .params
                        .iter()
                        .find(|p| p.name == k.name)
                        .expect("kernel slot names a crates/cc parameter"),
                    k.conv,
                )
            })
            .collect();
        v.extend(self.extra.iter().map(|e| (e.spec, e.conv)));
        let leaked: &'static [(ParamSpec, Conv)] = Box::leak(v.into_boxed_slice());
        c.push((self.cc_name, leaked));
        leaked
    }

    fn spec_table(&'static self) -> &'static [ParamSpec] {
        static CACHE: SpecTableCache = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let mut c = cache.lock().unwrap();
        if let Some((_, s)) = c.iter().find(|(n, _)| *n == self.cc_name) {
            return s;
        }
        let v: Vec<ParamSpec> = self.specs().iter().map(|(s, _)| *s).collect();
        let leaked: &'static [ParamSpec] = Box::leak(v.into_boxed_slice());
        c.push((self.cc_name, leaked));
        leaked
    }

    /// Validates `NAME=VALUE` pairs against the crates/cc table (plus kernel-only
    /// parameters), fills in defaults, and converts to the BPF slots.
    pub fn resolve(&'static self, user: &[(String, String)]) -> Result<Values, ParamError> {
        let specs = self.specs();
        let mut raws = Vec::new();
        for (name, text) in user {
            let Some((spec, _)) = specs.iter().find(|(s, _)| s.name == name) else {
                return Err(self.unknown(name));
            };
            raws.push((spec.name, parse_raw(spec, text)?));
        }
        let set = ParamSet::resolve(
            self.cc_name,
            self.spec_table(),
            raws.iter().map(|(n, r)| (*n, r)),
        )?;
        Ok(self.values_of(&set))
    }

    fn unknown(&'static self, name: &str) -> ParamError {
        ParamError::Unknown {
            name: name.to_string(),
            owner: self.cc_name.to_string(),
            known: self.specs().iter().map(|(s, _)| s.name).collect(),
        }
    }

    pub fn values_of(&'static self, set: &ParamSet) -> Values {
        let mut out = [0i64; SLOTS];
        for (i, (spec, conv)) in self.specs().iter().enumerate() {
            let v = set.get(spec.name).unwrap_or(spec.default);
            out[i] = to_kernel(*conv, &spec.kind, v);
        }
        out
    }

    pub fn defaults(&'static self) -> Values {
        self.resolve(&[]).expect("defaults are valid")
    }

    /// Changes one parameter of an existing value set (`kernel set`).
    pub fn apply(
        &'static self,
        mut cur: Values,
        name: &str,
        text: &str,
    ) -> Result<Values, ParamError> {
        let specs = self.specs();
        let Some(i) = specs.iter().position(|(s, _)| s.name == name) else {
            return Err(self.unknown(name));
        };
        let one = self.resolve(&[(name.to_string(), text.to_string())])?;
        cur[i] = one[i];
        Ok(cur)
    }

    /// (name, value as text) for display.
    pub fn describe(&'static self, v: &Values) -> Vec<(&'static str, String)> {
        self.specs()
            .iter()
            .enumerate()
            .map(|(i, (s, c))| (s.name, from_kernel(*c, &s.kind, v[i])))
            .collect()
    }
}

pub fn values_to_bytes(v: &Values) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

pub fn values_from_bytes(b: &[u8]) -> Values {
    let mut v = [0i64; SLOTS];
    for (i, c) in b.chunks_exact(8).take(SLOTS).enumerate() {
        v[i] = i64::from_ne_bytes(c.try_into().unwrap());
    }
    v
}

use scavenger_cc::units::Dur;

pub static LEDBAT: Layout = Layout {
    cc_name: "ledbat",
    slots: &[
        KParam { name: "target", conv: Conv::Nanos },
        KParam { name: "gain", conv: Conv::Ppm },
        KParam { name: "gain_dec", conv: Conv::Ppm },
        KParam { name: "allowed_increase", conv: Conv::Int },
        KParam { name: "min_cwnd", conv: Conv::Int },
        KParam { name: "current_filter", conv: Conv::Int },
        KParam { name: "base_history", conv: Conv::Int },
        KParam { name: "rollover", conv: Conv::Choice },
        KParam { name: "slow_start", conv: Conv::Bool },
        KParam { name: "clamp_to_first_owd", conv: Conv::Bool },
    ],
    extra: &[Extra {
        spec: ParamSpec {
            name: "delay_source",
            kind: ParamKind::Choice(&["auto", "owd", "rtt"]),
            default: ParamValue::Choice("auto"),
            unit: "",
            doc: "Kernel only: where delay samples come from. auto = one-way delay from TCP timestamps (TSval − TSecr, 1 ms steps) when the connection has them, else the smoothed RTT; owd = timestamps only; rtt = smoothed RTT only",
            source: "docs/deviations/kernel.md#kernel-delay-signal",
        },
        conv: Conv::Choice,
    }],
};

pub static YIELD: Layout = Layout {
    cc_name: "yield",
    slots: &[
        KParam {
            name: "beta",
            conv: Conv::Int,
        },
        KParam {
            name: "min_reduction",
            conv: Conv::Int,
        },
        KParam {
            name: "max_reduction",
            conv: Conv::Int,
        },
        KParam {
            name: "maxc_reduction",
            conv: Conv::Int,
        },
        KParam {
            name: "ct_threshold",
            conv: Conv::Int,
        },
        KParam {
            name: "hist_factor",
            conv: Conv::Int,
        },
        KParam {
            name: "trend_factor",
            conv: Conv::Int,
        },
        KParam {
            name: "increase_threshold",
            conv: Conv::Int,
        },
        KParam {
            name: "decrease_threshold",
            conv: Conv::Int,
        },
        KParam {
            name: "owd_granularity",
            conv: Conv::Nanos,
        },
        KParam {
            name: "shift_semantics",
            conv: Conv::Choice,
        },
    ],
    extra: &[],
};

pub static LEDBATPP: Layout = Layout {
    cc_name: "ledbat-plus-plus",
    slots: &[
        KParam {
            name: "target",
            conv: Conv::Nanos,
        },
        KParam {
            name: "max_gain_divisor",
            conv: Conv::Int,
        },
        KParam {
            name: "gain_target_factor",
            conv: Conv::Ppm,
        },
        KParam {
            name: "decrease_constant",
            conv: Conv::Ppm,
        },
        KParam {
            name: "md_cap",
            conv: Conv::Ppm,
        },
        KParam {
            name: "ss_exit",
            conv: Conv::Ppm,
        },
        KParam {
            name: "slowdown",
            conv: Conv::Bool,
        },
        KParam {
            name: "slowdown_cwnd",
            conv: Conv::Int,
        },
        KParam {
            name: "slowdown_rtts",
            conv: Conv::Ppm,
        },
        KParam {
            name: "slowdown_interval",
            conv: Conv::Ppm,
        },
        KParam {
            name: "initial_slowdown_rtts",
            conv: Conv::Ppm,
        },
        KParam {
            name: "base_history",
            conv: Conv::Int,
        },
        KParam {
            name: "current_filter",
            conv: Conv::Int,
        },
        KParam {
            name: "min_cwnd",
            conv: Conv::Int,
        },
        KParam {
            name: "allowed_increase",
            conv: Conv::Int,
        },
    ],
    extra: &[],
};

/// The shim's own parameters (not an algorithm of crates/cc): how long the BPF side waits
/// for the agent before it falls back to Reno.
pub const SHIM_DEFAULT_STALE: Dur = Dur::from_millis(200);
/// Records wake the agent at most this often (`SCV_WAKE_DEFAULT_NS`, bpf/scv_shim.h);
/// opening and closing sockets always do.
pub const SHIM_DEFAULT_WAKE: Dur = Dur::from_micros(100);

/// Ebb (docs/ebb.md), its default variant: the numeric parameters, `refill_own`,
/// `foreign_burst` and `refill_burst` (docs/ebb.md#refill-own, #foreign-burst, measured
/// on the testbed), and `refill_backoff` and `stage_early` (docs/ebb.md#variant-37). Its
/// other booleans (variants of docs/ebb.md), `jitter_gain`, `refill_growth`,
/// `refill_rounds`, `probe_queue`, `bw_rounds`, `foreign_samples` and `stage_backoff`
/// are fixed at their defaults in the BPF core
/// (bpf/scv_core.h, docs/kernel.md#native-ebb), so they are not in this table: setting
/// one is refused as an unknown parameter of the native version.
pub static EBB: Layout = Layout {
    cc_name: "ebb",
    slots: &[
        KParam {
            name: "target",
            conv: Conv::Nanos,
        },
        KParam {
            name: "refill",
            conv: Conv::Nanos,
        },
        KParam {
            name: "md",
            conv: Conv::Ppm,
        },
        KParam {
            name: "min_cwnd",
            conv: Conv::Int,
        },
        KParam {
            name: "pacing_gain",
            conv: Conv::Ppm,
        },
        KParam {
            name: "foreign",
            conv: Conv::Nanos,
        },
        KParam {
            name: "slowdown_every",
            conv: Conv::Int,
        },
        KParam {
            name: "ack_pair_gap",
            conv: Conv::Nanos,
        },
        KParam {
            name: "probe_max_queue",
            conv: Conv::Nanos,
        },
        KParam {
            name: "refill_stage",
            conv: Conv::Ppm,
        },
        KParam {
            name: "own_target",
            conv: Conv::Nanos,
        },
        KParam {
            name: "refill_own",
            conv: Conv::Bool,
        },
        KParam {
            name: "foreign_burst",
            conv: Conv::Bool,
        },
        KParam {
            name: "refill_burst",
            conv: Conv::Bool,
        },
        KParam {
            name: "refill_backoff",
            conv: Conv::Int,
        },
        KParam {
            name: "stage_early",
            conv: Conv::Bool,
        },
    ],
    extra: &[],
};

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(n: &str, v: &str) -> Vec<(String, String)> {
        vec![(n.to_string(), v.to_string())]
    }

    #[test]
    fn values_convert_to_the_bpf_units() {
        let v = LEDBAT.resolve(&kv("target", "25ms")).unwrap();
        assert_eq!(v[0], 25_000_000, "target in ns");
        assert_eq!(v[1], 1_000_000, "gain 1.0 in ppm");
        let v = LEDBAT.resolve(&kv("gain_dec", "10")).unwrap();
        assert_eq!(v[2], 10_000_000);
        let v = LEDBAT.resolve(&kv("rollover", "minute")).unwrap();
        assert_eq!(v[7], 1, "index of \"minute\" in [elapsed, minute]");
        let v = LEDBAT.resolve(&kv("delay_source", "rtt")).unwrap();
        assert_eq!(v[10], 2, "kernel-only choice after the crates/cc slots");
        let v = YIELD.resolve(&kv("shift_semantics", "math")).unwrap();
        assert_eq!(v[10], 1);
        let v = LEDBATPP.resolve(&kv("ss_exit", "0.5")).unwrap();
        assert_eq!(v[5], 500_000);
        let back = LEDBAT.describe(&LEDBAT.resolve(&kv("target", "25ms")).unwrap());
        assert!(back.contains(&("target", "25ms".to_string())), "{back:?}");
    }

    #[test]
    fn bad_input_names_the_field_the_value_and_what_is_allowed() {
        let e = LEDBAT
            .resolve(&kv("target", "20s"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("target") && e.contains("20s") && e.contains("[1ms, 10s]"),
            "{e}"
        );
        let e = LEDBAT.resolve(&kv("gain", "lots")).unwrap_err().to_string();
        assert!(
            e.contains("gain") && e.contains("lots") && e.contains("a number in"),
            "{e}"
        );
        let e = LEDBAT
            .resolve(&kv("slow_start", "maybe"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("slow_start") && e.contains("true or false"),
            "{e}"
        );
        let e = YIELD.resolve(&kv("nonsense", "1")).unwrap_err().to_string();
        assert!(
            e.contains("unknown parameter `nonsense`") && e.contains("beta"),
            "{e}"
        );
        let e = LEDBAT
            .resolve(&kv("delay_source", "gps"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("delay_source") && e.contains("\"auto\""), "{e}");
    }

    #[test]
    fn apply_changes_one_slot_only() {
        let d = LEDBAT.defaults();
        let v = LEDBAT.apply(d, "min_cwnd", "4").unwrap();
        for i in 0..SLOTS {
            assert_eq!(v[i], if i == 4 { 4 } else { d[i] }, "slot {i}");
        }
        assert!(LEDBAT.apply(d, "min_cwnd", "0").is_err());
        assert_eq!(values_from_bytes(&values_to_bytes(&v)), v);
    }
}
