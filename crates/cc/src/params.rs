//! Typed, validated algorithm parameters. Each algorithm declares a static table of
//! `ParamSpec`s (name, kind with allowed range, default from its source, unit, source
//! section); a scenario supplies raw values by name; `ParamSet::resolve` checks them and
//! fills in defaults. Unknown names and out-of-range values are errors, never ignored.

use crate::units::{parse_duration, Dur, DURATION_UNITS};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A real number in [min, max].
    Float {
        min: f64,
        max: f64,
    },
    /// An integer in [min, max].
    Int {
        min: i64,
        max: i64,
    },
    Bool,
    /// A duration in [min, max], written with a unit ("100ms").
    Duration {
        min: Dur,
        max: Dur,
    },
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
}

/// A resolved parameter value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamValue {
    Float(f64),
    Int(i64),
    Bool(bool),
    Dur(Dur),
    Choice(&'static str),
}

/// A value as written by a user, before it is checked against a spec.
#[derive(Clone, Debug, PartialEq)]
pub enum RawParam {
    Float(f64),
    Int(i64),
    Bool(bool),
    Text(String),
}

#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub default: ParamValue,
    /// Unit for display ("packets", "ms", "" for dimensionless).
    pub unit: &'static str,
    pub doc: &'static str,
    /// Where the default comes from: document and section.
    pub source: &'static str,
}

impl ParamSpec {
    /// A parameter of any kind: the one constructor the algorithms' tables share.
    pub const fn new(
        name: &'static str,
        kind: ParamKind,
        default: ParamValue,
        unit: &'static str,
        doc: &'static str,
        source: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            kind,
            default,
            unit,
            doc,
            source,
        }
    }

    /// An integer parameter in [min, max].
    pub const fn int(
        name: &'static str,
        min: i64,
        max: i64,
        default: i64,
        unit: &'static str,
        doc: &'static str,
        source: &'static str,
    ) -> Self {
        Self::new(
            name,
            ParamKind::Int { min, max },
            ParamValue::Int(default),
            unit,
            doc,
            source,
        )
    }

    /// A real-valued parameter in [min, max].
    pub const fn float(
        name: &'static str,
        min: f64,
        max: f64,
        default: f64,
        unit: &'static str,
        doc: &'static str,
        source: &'static str,
    ) -> Self {
        Self::new(
            name,
            ParamKind::Float { min, max },
            ParamValue::Float(default),
            unit,
            doc,
            source,
        )
    }
}

/// Why a parameter could not be accepted. The scenario layer adds file and field.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    pub algorithm: String,
    pub param: String,
    pub value: String,
    pub allowed: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "algorithm `{}`: parameter `{}` = {} is not accepted; allowed: {}",
            self.algorithm, self.param, self.value, self.allowed
        )
    }
}
impl std::error::Error for ParamError {}

impl ParamKind {
    pub fn describe(&self) -> String {
        match self {
            ParamKind::Float { min, max } => format!("a number in [{min}, {max}]"),
            ParamKind::Int { min, max } => format!("an integer in [{min}, {max}]"),
            ParamKind::Bool => "true or false".to_string(),
            ParamKind::Duration { min, max } => {
                format!("a duration in [{min}, {max}] ({DURATION_UNITS})")
            }
            ParamKind::Choice(opts) => format!(
                "one of {}",
                opts.iter()
                    .map(|o| format!("\"{o}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn accept(&self, raw: &RawParam) -> Result<ParamValue, ()> {
        match (self, raw) {
            (ParamKind::Float { min, max }, RawParam::Float(x))
                if x.is_finite() && *x >= *min && *x <= *max =>
            {
                Ok(ParamValue::Float(*x))
            }
            (ParamKind::Float { min, max }, RawParam::Int(i))
                if (*i as f64) >= *min && (*i as f64) <= *max =>
            {
                Ok(ParamValue::Float(*i as f64))
            }
            (ParamKind::Int { min, max }, RawParam::Int(i)) if i >= min && i <= max => {
                Ok(ParamValue::Int(*i))
            }
            (ParamKind::Bool, RawParam::Bool(b)) => Ok(ParamValue::Bool(*b)),
            (ParamKind::Duration { min, max }, RawParam::Text(s)) => match parse_duration(s) {
                Ok(d) if d >= *min && d <= *max => Ok(ParamValue::Dur(d)),
                _ => Err(()),
            },
            (ParamKind::Choice(opts), RawParam::Text(s)) => opts
                .iter()
                .find(|o| o.eq_ignore_ascii_case(s))
                .map(|o| ParamValue::Choice(o))
                .ok_or(()),
            _ => Err(()),
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Dur(d) => write!(f, "{d}"),
            ParamValue::Choice(s) => write!(f, "{s}"),
        }
    }
}

impl fmt::Display for RawParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RawParam::Float(x) => write!(f, "{x}"),
            RawParam::Int(i) => write!(f, "{i}"),
            RawParam::Bool(b) => write!(f, "{b}"),
            RawParam::Text(s) => write!(f, "\"{s}\""),
        }
    }
}

/// The full, validated parameter set of one algorithm instance.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSet {
    values: Vec<(&'static str, ParamValue)>,
}

impl ParamSet {
    /// Defaults for every spec, then the user's values on top, each checked.
    pub fn resolve<'a, I>(
        algorithm: &str,
        specs: &'static [ParamSpec],
        user: I,
    ) -> Result<ParamSet, ParamError>
    where
        I: IntoIterator<Item = (&'a str, &'a RawParam)>,
    {
        let mut values: Vec<(&'static str, ParamValue)> =
            specs.iter().map(|s| (s.name, s.default)).collect();
        for (name, raw) in user {
            let Some(idx) = specs.iter().position(|s| s.name == name) else {
                let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
                return Err(ParamError {
                    algorithm: algorithm.to_string(),
                    param: name.to_string(),
                    value: raw.to_string(),
                    allowed: if known.is_empty() {
                        "this algorithm has no parameters".to_string()
                    } else {
                        format!("known parameters are {}", known.join(", "))
                    },
                });
            };
            let spec = &specs[idx];
            values[idx].1 = spec.kind.accept(raw).map_err(|_| ParamError {
                algorithm: algorithm.to_string(),
                param: name.to_string(),
                value: raw.to_string(),
                allowed: spec.kind.describe(),
            })?;
        }
        Ok(ParamSet { values })
    }

    /// Defaults only.
    pub fn defaults(specs: &'static [ParamSpec]) -> ParamSet {
        ParamSet {
            values: specs.iter().map(|s| (s.name, s.default)).collect(),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &(&'static str, ParamValue)> {
        self.values.iter()
    }

    pub fn get(&self, name: &str) -> Option<ParamValue> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    /// Replaces one value (used by code, e.g. presets and tests); the kind must match.
    pub fn set(&mut self, name: &str, v: ParamValue) {
        let slot = self
            .values
            .iter_mut()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no parameter `{name}`"));
        assert_eq!(
            std::mem::discriminant(&slot.1),
            std::mem::discriminant(&v),
            "parameter `{name}` kind mismatch"
        );
        slot.1 = v;
    }
}

/// Reads a resolved [`ParamSet`] by name for one algorithm. An algorithm's
/// `impl TryFrom<&ParamSet> for XConfig` is the only place that uses it, so parameter
/// names are looked up in exactly one place per algorithm. A name missing from the set,
/// or a value of another kind, is an error that names the algorithm and the parameter
/// (it means the config and the spec table disagree, which that algorithm's
/// `config_defaults_match_spec_table` test catches).
pub struct ParamReader<'a> {
    set: &'a ParamSet,
    algorithm: &'static str,
}

impl ParamSet {
    /// A reader that names `algorithm` in its errors.
    pub fn reader(&self, algorithm: &'static str) -> ParamReader<'_> {
        ParamReader {
            set: self,
            algorithm,
        }
    }
}

impl ParamReader<'_> {
    fn wrong(&self, name: &str, want: &str, got: Option<ParamValue>) -> ParamError {
        ParamError {
            algorithm: self.algorithm.to_string(),
            param: name.to_string(),
            value: match got {
                Some(v) => format!("{v:?}"),
                None => "(missing)".to_string(),
            },
            allowed: format!("{want} (the algorithm's spec table must declare it)"),
        }
    }
    /// A real number (an integer value is widened).
    pub fn f64(&self, name: &str) -> Result<f64, ParamError> {
        match self.set.get(name) {
            Some(ParamValue::Float(x)) => Ok(x),
            Some(ParamValue::Int(i)) => Ok(i as f64),
            other => Err(self.wrong(name, "a number", other)),
        }
    }
    pub fn int(&self, name: &str) -> Result<i64, ParamError> {
        match self.set.get(name) {
            Some(ParamValue::Int(i)) => Ok(i),
            other => Err(self.wrong(name, "an integer", other)),
        }
    }
    /// A non-negative integer as a count or size.
    pub fn u64(&self, name: &str) -> Result<u64, ParamError> {
        let i = self.int(name)?;
        u64::try_from(i)
            .map_err(|_| self.wrong(name, "a non-negative integer", Some(ParamValue::Int(i))))
    }
    /// A non-negative integer as a length or index.
    pub fn usize(&self, name: &str) -> Result<usize, ParamError> {
        let i = self.int(name)?;
        usize::try_from(i)
            .map_err(|_| self.wrong(name, "a non-negative integer", Some(ParamValue::Int(i))))
    }
    pub fn bool(&self, name: &str) -> Result<bool, ParamError> {
        match self.set.get(name) {
            Some(ParamValue::Bool(b)) => Ok(b),
            other => Err(self.wrong(name, "true or false", other)),
        }
    }
    pub fn dur(&self, name: &str) -> Result<Dur, ParamError> {
        match self.set.get(name) {
            Some(ParamValue::Dur(d)) => Ok(d),
            other => Err(self.wrong(name, "a duration", other)),
        }
    }
    pub fn choice(&self, name: &str) -> Result<&'static str, ParamError> {
        match self.set.get(name) {
            Some(ParamValue::Choice(s)) => Ok(s),
            other => Err(self.wrong(name, "one of the listed words", other)),
        }
    }
    /// A choice mapped to the config's value through `table` (word, value); a word the
    /// table lacks is an error listing the table's words (the spec table and the config
    /// disagree).
    pub fn choice_of<T: Copy>(&self, name: &str, table: &[(&str, T)]) -> Result<T, ParamError> {
        let word = self.choice(name)?;
        table
            .iter()
            .find(|(w, _)| *w == word)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                let words: Vec<String> = table.iter().map(|(w, _)| format!("\"{w}\"")).collect();
                self.wrong(
                    name,
                    &format!("one of {}", words.join(", ")),
                    Some(ParamValue::Choice(word)),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPECS: &[ParamSpec] = &[
        ParamSpec {
            name: "beta",
            kind: ParamKind::Float { min: 0.0, max: 1.0 },
            default: ParamValue::Float(0.7),
            unit: "",
            doc: "",
            source: "",
        },
        ParamSpec {
            name: "window",
            kind: ParamKind::Int { min: 1, max: 256 },
            default: ParamValue::Int(8),
            unit: "RTTs",
            doc: "",
            source: "",
        },
        ParamSpec {
            name: "target",
            kind: ParamKind::Duration {
                min: Dur(1),
                max: Dur::from_secs(10),
            },
            default: ParamValue::Dur(Dur::from_millis(100)),
            unit: "",
            doc: "",
            source: "",
        },
        ParamSpec {
            name: "mode",
            kind: ParamKind::Choice(&["linux", "freebsd"]),
            default: ParamValue::Choice("linux"),
            unit: "",
            doc: "",
            source: "",
        },
        ParamSpec {
            name: "shadow",
            kind: ParamKind::Bool,
            default: ParamValue::Bool(true),
            unit: "",
            doc: "",
            source: "",
        },
    ];

    #[test]
    fn reader_names_the_algorithm_and_parameter_on_a_kind_mismatch() {
        let set = ParamSet::defaults(SPECS);
        let r = set.reader("test");
        assert_eq!(r.f64("beta"), Ok(0.7));
        let e = r.bool("beta").unwrap_err();
        assert_eq!((e.algorithm.as_str(), e.param.as_str()), ("test", "beta"));
        let e = r.int("nope").unwrap_err();
        assert_eq!(e.value, "(missing)");
        assert_eq!(r.choice_of("mode", &[("freebsd", 1), ("linux", 2)]), Ok(2));
        let e = r.choice_of("mode", &[("freebsd", 1)]).unwrap_err();
        assert!(
            e.allowed.contains("\"freebsd\"") && e.value.contains("linux"),
            "{e}"
        );
    }

    #[test]
    fn defaults_then_user_values() {
        let target = RawParam::Text("25ms".into());
        let mode = RawParam::Text("FreeBSD".into());
        let beta = RawParam::Int(1);
        let p = ParamSet::resolve(
            "x",
            SPECS,
            [("target", &target), ("mode", &mode), ("beta", &beta)],
        )
        .unwrap();
        let r = p.reader("x");
        assert_eq!(r.dur("target"), Ok(Dur::from_millis(25)));
        assert_eq!(r.choice("mode"), Ok("freebsd"));
        assert_eq!(r.f64("beta"), Ok(1.0));
        assert_eq!(r.int("window"), Ok(8));
        assert_eq!(r.bool("shadow"), Ok(true));
    }

    #[test]
    fn unknown_and_out_of_range_are_errors_naming_the_parameter() {
        let v = RawParam::Float(2.0);
        let e = ParamSet::resolve("cdg", SPECS, [("beta", &v)]).unwrap_err();
        assert_eq!(e.param, "beta");
        assert!(e.to_string().contains("[0, 1]"), "{e}");
        let e = ParamSet::resolve("cdg", SPECS, [("gamma", &v)]).unwrap_err();
        assert!(
            e.to_string().contains("gamma") && e.to_string().contains("known parameters are beta"),
            "{e}"
        );
        let t = RawParam::Text("100".into());
        assert!(ParamSet::resolve("cdg", SPECS, [("target", &t)]).is_err());
        let w = RawParam::Float(2.5);
        assert!(ParamSet::resolve("cdg", SPECS, [("window", &w)]).is_err());
        let m = RawParam::Text("windows".into());
        assert!(ParamSet::resolve("cdg", SPECS, [("mode", &m)])
            .unwrap_err()
            .allowed
            .contains("\"linux\""));
    }
}
