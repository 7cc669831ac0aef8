//! Units as types: instants and durations in integer nanoseconds, rates in bits per
//! second, sizes in bytes. Parsing accepts the spellings people type in scenario files.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant, in nanoseconds since the start of a run (or of the datapath's epoch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A non-negative span of time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

/// A rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub fn nanos(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Time elapsed since `earlier`, zero if `earlier` is in the future.
    pub fn since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const MAX: Dur = Dur(u64::MAX);
    pub const fn from_nanos(n: u64) -> Dur {
        Dur(n)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NANOS_PER_SEC)
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            Dur(0)
        } else if s >= u64::MAX as f64 / 1e9 {
            Dur::MAX
        } else {
            Dur((s * 1e9).round() as u64)
        }
    }
    pub fn nanos(self) -> u64 {
        self.0
    }
    pub fn micros(self) -> u64 {
        self.0 / 1_000
    }
    pub fn millis(self) -> u64 {
        self.0 / 1_000_000
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn mul_f64(self, k: f64) -> Dur {
        Dur::from_secs_f64(self.secs_f64() * k)
    }
}

impl Rate {
    pub const ZERO: Rate = Rate(0);
    pub const fn from_bps(bps: u64) -> Rate {
        Rate(bps)
    }
    pub const fn from_mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    pub fn bps(self) -> u64 {
        self.0
    }
    pub fn bytes_per_sec_f64(self) -> f64 {
        self.0 as f64 / 8.0
    }
    /// The rate at which `bytes` are carried in `dur` (zero for an empty interval).
    pub fn from_bytes_over(bytes: u64, dur: Dur) -> Rate {
        if dur.0 == 0 {
            return Rate(0);
        }
        Rate(((bytes as u128 * 8 * NANOS_PER_SEC as u128) / dur.0 as u128) as u64)
    }
    /// Time to serialise `bytes` at this rate, rounded up to whole nanoseconds.
    /// A zero rate never finishes.
    pub fn tx_time(self, bytes: u64) -> Dur {
        if self.0 == 0 {
            return Dur::MAX;
        }
        let num = bytes as u128 * 8 * NANOS_PER_SEC as u128;
        Dur(num.div_ceil(self.0 as u128) as u64)
    }
    /// Bytes carried at this rate over `dur`.
    pub fn bytes_in(self, dur: Dur) -> u64 {
        ((self.0 as u128 * dur.0 as u128) / (8 * NANOS_PER_SEC as u128)) as u64
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Dur> for Time {
    type Output = Time;
    fn sub(self, d: Dur) -> Time {
        Time(self.0.saturating_sub(d.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for Dur {
    // `%` rather than is_multiple_of: the workspace builds with Rust 1.85 (is_multiple_of is 1.87).
    #[allow(unknown_lints, clippy::manual_is_multiple_of)]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n % NANOS_PER_SEC == 0 {
            write!(f, "{}s", n / NANOS_PER_SEC)
        } else if n % 1_000_000 == 0 {
            write!(f, "{}ms", n / 1_000_000)
        } else if n % 1_000 == 0 {
            write!(f, "{}us", n / 1_000)
        } else {
            write!(f, "{}ns", n)
        }
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs_f64())
    }
}
impl fmt::Display for Rate {
    // `%` rather than is_multiple_of: the workspace builds with Rust 1.85 (is_multiple_of is 1.87).
    #[allow(unknown_lints, clippy::manual_is_multiple_of)]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b >= 1_000_000_000 && b % 1_000_000_000 == 0 {
            write!(f, "{}Gbit/s", b / 1_000_000_000)
        } else if b >= 1_000_000 && b % 1_000 == 0 {
            write!(f, "{}Mbit/s", b as f64 / 1e6)
        } else if b >= 1_000 && b % 1_000 == 0 {
            write!(f, "{}kbit/s", b / 1_000)
        } else {
            write!(f, "{}bit/s", b)
        }
    }
}

/// The number and the unit of a quantity `q` written as text: an error names the text
/// when it does not start with a number, or has no unit.
fn number_and_unit(s: &str, q: Quantity) -> Result<(f64, String), UnitError> {
    let (n, unit) = split_number(s).ok_or_else(|| UnitError::NotANumber {
        text: s.to_string(),
        quantity: q,
    })?;
    if unit.is_empty() {
        return Err(UnitError::NoUnit {
            text: s.to_string(),
            quantity: q,
        });
    }
    Ok((n, unit))
}

/// Splits "25 ms" / "25ms" / "2.5e1ms" into number and unit suffix.
fn split_number(s: &str) -> Option<(f64, String)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '_'
                || ((c == 'e' || c == 'E')
                    && i > 0
                    && s[i + 1..]
                        .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+'))
                || ((c == '-' || c == '+')
                    && (i == 0 || matches!(s.as_bytes()[i - 1], b'e' | b'E'))))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    let num: f64 = s[..end].replace('_', "").parse().ok()?;
    Some((num, s[end..].trim().to_string()))
}

/// Why a duration, rate or size did not parse. Each variant keeps the text given and the
/// kind of quantity, and its message names the allowed units. (crates/cc has no
/// dependencies, so `Display` and `Error` are written out rather than derived.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitError {
    /// No number at the start of the text.
    NotANumber {
        text: String,
        quantity: Quantity,
    },
    /// A number with no unit after it.
    NoUnit {
        text: String,
        quantity: Quantity,
    },
    /// A unit that is not one of `quantity.units()`.
    UnknownUnit {
        text: String,
        unit: String,
        quantity: Quantity,
    },
    /// Infinite, NaN, or past what the type holds; `at_most_h` is the bound in hours when
    /// the message states it (durations).
    TooLarge {
        text: String,
        quantity: Quantity,
        at_most_h: Option<u64>,
    },
    Negative {
        text: String,
        quantity: Quantity,
    },
}

/// The quantity a text was meant to be, for the messages of [`UnitError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    Duration,
    Rate,
    Size,
}

impl Quantity {
    fn name(self) -> &'static str {
        match self {
            Quantity::Duration => "duration",
            Quantity::Rate => "rate",
            Quantity::Size => "size",
        }
    }
    /// The allowed units, as the messages list them.
    pub fn units(self) -> &'static str {
        match self {
            Quantity::Duration => DURATION_UNITS,
            Quantity::Rate => RATE_UNITS,
            Quantity::Size => SIZE_UNITS,
        }
    }
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnitError::NotANumber { text, quantity: q } => write!(
                f,
                "\"{text}\" is not a {}; use a number with a unit: {}",
                q.name(),
                q.units()
            ),
            UnitError::NoUnit { text, quantity: q } => {
                write!(f, "\"{text}\" has no unit; allowed units: {}", q.units())
            }
            UnitError::UnknownUnit {
                text,
                unit,
                quantity: q,
            } => write!(
                f,
                "\"{text}\" has unknown unit \"{unit}\"; allowed units: {}",
                q.units()
            ),
            UnitError::TooLarge {
                text,
                quantity: q,
                at_most_h,
            } => {
                write!(f, "\"{text}\" is too large for a {}", q.name())?;
                match at_most_h {
                    Some(h) => write!(f, "; at most {h} h"),
                    None => Ok(()),
                }
            }
            UnitError::Negative { text, quantity: q } => {
                write!(f, "\"{text}\" must be a non-negative {}", q.name())
            }
        }
    }
}

impl std::error::Error for UnitError {}

/// A number too large for its unit (`"1e400ms"` reads as infinity) or not a number at all
/// is "too large", not "negative".
fn check_finite(s: &str, n: f64, quantity: Quantity) -> Result<(), UnitError> {
    if n.is_nan() || n.is_infinite() {
        return Err(UnitError::TooLarge {
            text: s.to_string(),
            quantity,
            at_most_h: None,
        });
    }
    if n < 0.0 {
        return Err(UnitError::Negative {
            text: s.to_string(),
            quantity,
        });
    }
    Ok(())
}

pub const DURATION_UNITS: &str = "ns, us, ms, s, min, h (e.g. \"25ms\", \"1.5s\")";
pub const RATE_UNITS: &str =
    "bit/s, kbit/s, Mbit/s, Gbit/s (also bps, kbps, Mbps, Gbps, kbit, Mbit, Gbit; e.g. \"8Mbit\"), or bytes per second with a capital B: B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s (also Bps, MBps; \"1MB/s\" = 8 Mbit/s)";
pub const SIZE_UNITS: &str = "B, KB, KiB, MB, MiB, GB, GiB (e.g. \"2469KiB\")";

/// Parses a duration such as "25ms", "1.5 s", "200us", "2min".
pub fn parse_duration(s: &str) -> Result<Dur, UnitError> {
    let q = Quantity::Duration;
    let (n, unit) = number_and_unit(s, q)?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "ns" => 1e-9,
        "us" | "µs" | "usec" => 1e-6,
        "ms" | "msec" => 1e-3,
        "s" | "sec" | "secs" => 1.0,
        "min" | "mins" => 60.0,
        "h" | "hour" | "hours" => 3600.0,
        _ => {
            return Err(UnitError::UnknownUnit {
                text: s.to_string(),
                unit,
                quantity: q,
            })
        }
    };
    check_finite(s, n, q)?;
    let secs = n * scale;
    if secs >= u64::MAX as f64 / 1e9 {
        return Err(UnitError::TooLarge {
            text: s.to_string(),
            quantity: q,
            at_most_h: Some((u64::MAX as f64 / 1e9 / 3600.0).floor() as u64),
        });
    }
    Ok(Dur::from_secs_f64(secs))
}

/// Parses a rate such as "8Mbit", "8Mbps", "8 mbit/s", "1.5Gbit/s", "500kbps", or bytes
/// per second such as "1MB/s", "1MBps", "2000 KB/s", "64KiB/s". Prefixes are decimal
/// (k = 1000), as in networking practice, except KiB/MiB/GiB.
///
/// The one rule for bits and bytes, as sizes read them: a capital `B` (alone or in
/// `Bps`, `B/s`) or the word `byte` means bytes and is multiplied by 8; a lowercase `b`,
/// `bit` or `bps` means bits. So "1MB/s", "1MBps" and "1MB" are 8 Mbit/s, and "1Mbps" is
/// 1 Mbit/s.
pub fn parse_rate(s: &str) -> Result<Rate, UnitError> {
    let q = Quantity::Rate;
    let (n, unit) = number_and_unit(s, q)?;
    let unknown = || UnitError::UnknownUnit {
        text: s.to_string(),
        unit: unit.clone(),
        quantity: q,
    };
    // Split off the "per second" ending, then the bit/byte word, leaving the prefix.
    let per = unit
        .strip_suffix("/s")
        .or_else(|| unit.strip_suffix("/sec"))
        .map(str::trim_end);
    let (body, bytes) = match per.unwrap_or(&unit) {
        b if b.to_ascii_lowercase().ends_with("bytes") => (&b[..b.len() - 5], true),
        b if b.to_ascii_lowercase().ends_with("byte") => (&b[..b.len() - 4], true),
        b if b.to_ascii_lowercase().ends_with("bits") => (&b[..b.len() - 4], false),
        b if b.to_ascii_lowercase().ends_with("bit") => (&b[..b.len() - 3], false),
        b if per.is_none() && b.ends_with("Bps") => (&b[..b.len() - 3], true),
        b if per.is_none() && b.to_ascii_lowercase().ends_with("bps") => (&b[..b.len() - 3], false),
        b if b.ends_with('B') => (&b[..b.len() - 1], true),
        b if b.ends_with('b') => (&b[..b.len() - 1], false),
        _ => return Err(unknown()),
    };
    let prefix = match body.trim() {
        "" => 1.0,
        "k" | "K" => 1e3,
        "m" | "M" => 1e6,
        "g" | "G" => 1e9,
        "Ki" if bytes => 1024.0,
        "Mi" if bytes => 1024.0 * 1024.0,
        "Gi" if bytes => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(unknown()),
    };
    check_finite(s, n, q)?;
    let bps = n * prefix * if bytes { 8.0 } else { 1.0 };
    if bps >= u64::MAX as f64 {
        return Err(UnitError::TooLarge {
            text: s.to_string(),
            quantity: q,
            at_most_h: None,
        });
    }
    Ok(Rate(bps.round() as u64))
}

/// Parses a size such as "2469KiB", "64KB", "1500B", "1.5MiB". KB/MB/GB are decimal,
/// KiB/MiB/GiB binary.
pub fn parse_bytes(s: &str) -> Result<u64, UnitError> {
    let q = Quantity::Size;
    let (n, unit) = number_and_unit(s, q)?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "b" | "byte" | "bytes" => 1.0,
        "kb" | "k" => 1e3,
        "kib" => 1024.0,
        "mb" | "m" => 1e6,
        "mib" => 1024.0 * 1024.0,
        "gb" | "g" => 1e9,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(UnitError::UnknownUnit {
                text: s.to_string(),
                unit,
                quantity: q,
            })
        }
    };
    check_finite(s, n, q)?;
    if n * scale >= u64::MAX as f64 {
        return Err(UnitError::TooLarge {
            text: s.to_string(),
            quantity: q,
            at_most_h: None,
        });
    }
    Ok((n * scale).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed errors keep the messages the parsers gave as text.
    #[test]
    fn unit_errors_keep_their_messages() {
        let msg = |r: Result<u64, UnitError>| r.unwrap_err().to_string();
        assert_eq!(
            parse_duration("x").unwrap_err().to_string(),
            format!("\"x\" is not a duration; use a number with a unit: {DURATION_UNITS}")
        );
        assert_eq!(
            parse_rate("8").unwrap_err().to_string(),
            format!("\"8\" has no unit; allowed units: {RATE_UNITS}")
        );
        assert_eq!(
            msg(parse_bytes("3 parsecs")),
            format!("\"3 parsecs\" has unknown unit \"parsecs\"; allowed units: {SIZE_UNITS}")
        );
        assert_eq!(
            msg(parse_bytes("-3B")),
            "\"-3B\" must be a non-negative size"
        );
        assert_eq!(
            parse_duration("1e12h").unwrap_err().to_string(),
            format!(
                "\"1e12h\" is too large for a duration; at most {} h",
                (u64::MAX as f64 / 1e9 / 3600.0).floor()
            )
        );
    }

    #[test]
    fn durations_parse_common_spellings() {
        assert_eq!(parse_duration("25ms").unwrap(), Dur::from_millis(25));
        assert_eq!(parse_duration("1.5 s").unwrap(), Dur::from_millis(1500));
        assert_eq!(parse_duration("200us").unwrap(), Dur::from_micros(200));
        assert_eq!(parse_duration("2min").unwrap(), Dur::from_secs(120));
        assert_eq!(parse_duration("18h").unwrap(), Dur::from_secs(18 * 3600));
        assert_eq!(parse_duration("7ns").unwrap(), Dur(7));
        assert!(parse_duration("25")
            .unwrap_err()
            .to_string()
            .contains("no unit"));
        assert!(parse_duration("25 parsecs")
            .unwrap_err()
            .to_string()
            .contains("unknown unit"));
        assert!(parse_duration("-1ms").is_err());
        assert!(parse_duration("ms").is_err());
    }

    #[test]
    fn rates_parse_common_spellings() {
        for s in [
            "8Mbit",
            "8Mbps",
            "8mbit/s",
            "8 Mbit/s",
            "8000kbit",
            "8e6bps",
            "0.008Gbit",
        ] {
            assert_eq!(parse_rate(s).unwrap(), Rate(8_000_000), "{s}");
        }
        assert_eq!(parse_rate("1.5Mbit").unwrap(), Rate(1_500_000));
        assert_eq!(parse_rate("8Mb/s").unwrap(), Rate(8_000_000));
        assert_eq!(parse_rate("8 Mbits/s").unwrap(), Rate(8_000_000));
        assert_eq!(parse_rate("100bit").unwrap(), Rate(100));
        assert!(parse_rate("8").unwrap_err().to_string().contains("no unit"));
        assert!(parse_rate("8 furlongs")
            .unwrap_err()
            .to_string()
            .contains("unknown unit"));
    }

    /// Issue 23, item 13: bytes per second are bytes (× 8), as sizes read MB as megabytes.
    #[test]
    fn issue23_13_bytes_per_second_are_bytes() {
        for s in [
            "1MB/s",
            "1MBps",
            "1MB",
            "1 MB/s",
            "1000kB/s",
            "1000KB/s",
            "1e6B/s",
            "1Mbyte/s",
            "1 Mbytes/s",
        ] {
            assert_eq!(parse_rate(s).unwrap(), Rate(8_000_000), "{s}");
        }
        assert_eq!(parse_rate("2000 KB/s").unwrap(), Rate::from_mbps(16));
        assert_eq!(parse_rate("1KiB/s").unwrap(), Rate(8 * 1024));
        assert_eq!(parse_rate("1MiBps").unwrap(), Rate(8 * 1024 * 1024));
        // Lowercase b is bits, whatever the prefix's case.
        for s in ["1Mbps", "1mbps", "1Mb/s", "1Mbit", "1MBit/s"] {
            assert_eq!(parse_rate(s).unwrap(), Rate(1_000_000), "{s}");
        }
        assert!(parse_rate("1Kib/s")
            .unwrap_err()
            .to_string()
            .contains("unknown unit"));
    }

    /// Issue 23, item 16: a number too large for its unit is "too large", not "negative".
    #[test]
    fn issue23_16_huge_numbers_are_too_large_not_negative() {
        let e = parse_duration("1e400ms").unwrap_err().to_string();
        assert!(
            e.contains("too large") && !e.contains("non-negative"),
            "{e}"
        );
        let e = parse_duration("1e12h").unwrap_err().to_string();
        assert!(e.contains("too large"), "{e}");
        assert!(parse_rate("1e400Mbit")
            .unwrap_err()
            .to_string()
            .contains("too large"));
        assert!(parse_bytes("1e400MB")
            .unwrap_err()
            .to_string()
            .contains("too large"));
        assert!(parse_duration("-1ms")
            .unwrap_err()
            .to_string()
            .contains("non-negative"));
        assert_eq!(
            parse_duration("24000h").unwrap(),
            Dur::from_secs(24000 * 3600)
        );
    }

    #[test]
    fn sizes_parse_common_spellings() {
        assert_eq!(parse_bytes("2469KiB").unwrap(), 2469 * 1024);
        assert_eq!(parse_bytes("64KB").unwrap(), 64_000);
        assert_eq!(parse_bytes("1500B").unwrap(), 1500);
        assert_eq!(parse_bytes("1MiB").unwrap(), 1 << 20);
        assert!(parse_bytes("12 parsecs").is_err());
    }

    #[test]
    fn rate_arithmetic_is_exact() {
        let r = Rate::from_mbps(10);
        assert_eq!(r.tx_time(1500), Dur::from_micros(1200));
        assert_eq!(r.bytes_in(Dur::from_secs(1)), 1_250_000);
        assert_eq!(Rate::from_bytes_over(1_250_000, Dur::from_secs(1)), r);
        assert_eq!(Rate(3).tx_time(1), Dur(2_666_666_667)); // rounds up
        assert_eq!(Rate(0).tx_time(1), Dur::MAX);
    }

    #[test]
    fn durations_display_in_the_largest_exact_unit() {
        assert_eq!(Dur::from_millis(25).to_string(), "25ms");
        assert_eq!(Dur::from_secs(3).to_string(), "3s");
        assert_eq!(Dur(1500).to_string(), "1500ns");
    }
}
