//! Delivery-opportunity traces: a link whose capacity is a list of instants at which it
//! may deliver some bytes, repeated forever.
//!
//! Two text formats are read:
//!
//! - **mahimahi** (Netravali et al., `mm-link`), verbatim: one non-negative integer per
//!   line, a millisecond timestamp; each line is one delivery opportunity of one packet
//!   (1500 bytes by default; mahimahi's own constant is 1504, see
//!   docs/deviations/network-models.md#mahimahi-opportunity-bytes). Timestamps are
//!   non-decreasing; equal timestamps are several opportunities at once. The trace repeats with a period
//!   equal to its last timestamp, which must be positive.
//! - **native** (`scavenger-trace v1`), for finer time and arbitrary sizes:
//!
//!   ```text
//!   scavenger-trace v1 unit=us period=20000
//!   # comment lines and blank lines are ignored
//!   0 1500
//!   120 3000
//!   ...
//!   ```
//!
//!   The header names the time unit (`ns`, `us` or `ms`) and optionally the period in
//!   that unit (default: the last timestamp, as mahimahi; it must be at least the last
//!   timestamp and positive). Each data line is `<timestamp> <bytes>`: a non-negative
//!   integer time, non-decreasing, and a positive byte count.
//!
//! Opportunities are used as mahimahi uses them: a packet is taken from the queue at an
//! opportunity, the bytes it needs beyond that opportunity's are taken from the
//! following ones, it leaves the link at the opportunity that completes it, and what is
//! left of that opportunity goes to the next packet if one is waiting; otherwise it is
//! lost. A packet that reaches an idle link at the exact instant of an opportunity
//! waits for the next one (mahimahi runs the link up to `now` before enqueueing).

use scavenger_cc::{Dur, Rate, Time};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number, when the error is on a line.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TraceError {}

fn err(line: Option<usize>, message: impl Into<String>) -> TraceError {
    TraceError {
        line,
        message: message.into(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    Mahimahi,
    Native,
}

/// A repeating schedule of delivery opportunities.
#[derive(Clone, Debug, PartialEq)]
pub struct DeliveryTrace {
    /// Offsets within one period, ns, non-decreasing.
    times: Vec<u64>,
    /// Bytes of each opportunity (> 0).
    bytes: Vec<u32>,
    /// ns, > 0 and ≥ the last offset.
    period: u64,
    cycle_bytes: u64,
    format: TraceFormat,
}

/// Default bytes per mahimahi opportunity.
pub const MAHIMAHI_OPPORTUNITY_BYTES: u32 = 1500;

impl DeliveryTrace {
    /// A trace from opportunity offsets (ns) and sizes; `period` defaults to the last
    /// offset.
    pub fn from_opportunities(
        times: Vec<u64>,
        bytes: Vec<u32>,
        period: Option<u64>,
    ) -> Result<Self, TraceError> {
        if times.is_empty() {
            return Err(err(None, "the trace has no delivery opportunities"));
        }
        if times.len() != bytes.len() {
            return Err(err(None, "times and sizes differ in length"));
        }
        if let Some(i) = times.windows(2).position(|w| w[1] < w[0]) {
            return Err(err(
                None,
                format!(
                    "timestamps must not decrease: opportunity {} is at {} ns, after {} ns",
                    i + 2,
                    times[i + 1],
                    times[i]
                ),
            ));
        }
        if let Some(i) = bytes.iter().position(|&b| b == 0) {
            return Err(err(
                None,
                format!(
                    "opportunity {} carries 0 bytes; sizes must be positive",
                    i + 1
                ),
            ));
        }
        let last = *times.last().expect("non-empty");
        let period = period.unwrap_or(last);
        if period == 0 {
            return Err(err(None, "the trace must last for a nonzero amount of time (its last timestamp, the period, is 0)"));
        }
        if period < last {
            return Err(err(
                None,
                format!("the period ({period} ns) is shorter than the last timestamp ({last} ns)"),
            ));
        }
        let cycle_bytes = bytes.iter().map(|&b| b as u64).sum();
        Ok(DeliveryTrace {
            times,
            bytes,
            period,
            cycle_bytes,
            format: TraceFormat::Native,
        })
    }

    /// Reads a trace in either format: native if the first meaningful line is the
    /// `scavenger-trace` header, mahimahi otherwise.
    pub fn parse(text: &str, mahimahi_bytes: u32) -> Result<Self, TraceError> {
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'));
        match first {
            Some(l) if l.starts_with("scavenger-trace") => Self::parse_native(text),
            _ => Self::parse_mahimahi(text, mahimahi_bytes),
        }
    }

    /// mahimahi's format, one millisecond timestamp per line.
    pub fn parse_mahimahi(text: &str, opportunity_bytes: u32) -> Result<Self, TraceError> {
        if opportunity_bytes == 0 {
            return Err(err(None, "the bytes per opportunity must be positive"));
        }
        let mut times = Vec::new();
        let mut prev = 0u64;
        for (i, line) in text.lines().enumerate() {
            let l = line.trim();
            if l.is_empty() {
                continue;
            }
            let ms: u64 = l.parse().map_err(|_| {
                err(
                    Some(i + 1),
                    format!("\"{l}\" is not a millisecond timestamp (a non-negative integer)"),
                )
            })?;
            if !times.is_empty() && ms < prev {
                return Err(err(
                    Some(i + 1),
                    format!("timestamps must be non-decreasing: {ms} ms follows {prev} ms"),
                ));
            }
            prev = ms;
            times.push(
                ms.checked_mul(1_000_000)
                    .ok_or_else(|| err(Some(i + 1), format!("{ms} ms is too large")))?,
            );
        }
        if times.is_empty() {
            return Err(err(
                None,
                "no timestamps found (a mahimahi trace has one millisecond timestamp per line)",
            ));
        }
        if prev == 0 {
            return Err(err(
                None,
                "the trace must last for a nonzero amount of time (its last timestamp is 0)",
            ));
        }
        let n = times.len();
        let mut t = Self::from_opportunities(times, vec![opportunity_bytes; n], None)?;
        t.format = TraceFormat::Mahimahi;
        Ok(t)
    }

    /// The native format (see the module documentation).
    pub fn parse_native(text: &str) -> Result<Self, TraceError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let (hl, header) = lines.next().ok_or_else(|| err(None, "empty trace"))?;
        let mut words = header.split_whitespace();
        if words.next() != Some("scavenger-trace") || words.next() != Some("v1") {
            return Err(err(Some(hl), format!("expected the header \"scavenger-trace v1 unit=<ns|us|ms> [period=<n>]\", found \"{header}\"")));
        }
        let mut unit = None;
        let mut period = None;
        for w in words {
            match w.split_once('=') {
                Some(("unit", u)) => {
                    unit = Some(match u {
                        "ns" => 1u64,
                        "us" => 1_000,
                        "ms" => 1_000_000,
                        _ => {
                            return Err(err(
                                Some(hl),
                                format!("unit \"{u}\" is not one of ns, us, ms"),
                            ))
                        }
                    })
                }
                Some(("period", p)) => {
                    period = Some(p.parse::<u64>().map_err(|_| {
                        err(
                            Some(hl),
                            format!("period \"{p}\" is not a non-negative integer"),
                        )
                    })?)
                }
                _ => {
                    return Err(err(
                        Some(hl),
                        format!("unknown header item \"{w}\"; allowed: unit=, period="),
                    ))
                }
            }
        }
        let unit =
            unit.ok_or_else(|| err(Some(hl), "the header must give the time unit, e.g. unit=us"))?;
        let mut times = Vec::new();
        let mut bytes = Vec::new();
        for (ln, l) in lines {
            let mut f = l.split_whitespace();
            let (Some(t), Some(b), None) = (f.next(), f.next(), f.next()) else {
                return Err(err(
                    Some(ln),
                    format!("expected \"<timestamp> <bytes>\", found \"{l}\""),
                ));
            };
            let t: u64 = t.parse().map_err(|_| {
                err(
                    Some(ln),
                    format!("timestamp \"{t}\" is not a non-negative integer"),
                )
            })?;
            let b: u32 = b.parse().map_err(|_| {
                err(
                    Some(ln),
                    format!("byte count \"{b}\" is not a positive integer"),
                )
            })?;
            if b == 0 {
                return Err(err(
                    Some(ln),
                    "byte count 0: each opportunity must carry at least one byte",
                ));
            }
            let t = t
                .checked_mul(unit)
                .ok_or_else(|| err(Some(ln), "timestamp too large"))?;
            if let Some(&prev) = times.last() {
                if t < prev {
                    return Err(err(
                        Some(ln),
                        format!(
                            "timestamps must be non-decreasing: {} follows {}",
                            t / unit,
                            prev / unit
                        ),
                    ));
                }
            }
            times.push(t);
            bytes.push(b);
        }
        if times.is_empty() {
            return Err(err(None, "no delivery opportunities after the header"));
        }
        let period = period.map(|p| p.saturating_mul(unit));
        Self::from_opportunities(times, bytes, period)
    }

    pub fn format(&self) -> TraceFormat {
        self.format
    }
    pub fn len(&self) -> usize {
        self.times.len()
    }
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
    pub fn period(&self) -> Dur {
        Dur(self.period)
    }
    /// Bytes offered per period.
    pub fn cycle_bytes(&self) -> u64 {
        self.cycle_bytes
    }
    /// The long-run capacity.
    pub fn mean_rate(&self) -> Rate {
        Rate::from_bytes_over(self.cycle_bytes, Dur(self.period))
    }
    /// Bytes offered in [0, t).
    pub fn bytes_before(&self, t: Time) -> u64 {
        let (c, off) = (t.nanos() / self.period, t.nanos() % self.period);
        let below = |limit: u64| -> u64 {
            let i = self.times.partition_point(|&x| x < limit);
            self.bytes[..i].iter().map(|&b| b as u64).sum()
        };
        // Repetition c − 1 ends at c · period with the offsets equal to the period, which
        // are before t only if t is past c · period.
        let previous = if c == 0 {
            0
        } else {
            (c - 1) * self.cycle_bytes
                + if off > 0 {
                    self.cycle_bytes
                } else {
                    below(self.period)
                }
        };
        previous + below(off)
    }

    /// Opportunity `pos` (counted from the start over all repetitions): time and bytes.
    #[inline]
    fn opportunity(&self, pos: u64) -> (Time, u32) {
        let n = self.times.len() as u64;
        let (c, i) = (pos / n, (pos % n) as usize);
        (Time(c * self.period + self.times[i]), self.bytes[i])
    }

    /// Index of the first opportunity at or after `t`.
    fn first_at_or_after(&self, t: Time) -> u64 {
        let n = self.times.len() as u64;
        let (c, off) = (t.nanos() / self.period, t.nanos() % self.period);
        // Offsets equal to the period belong to the previous repetition but fall at
        // c · period: look there first.
        if c > 0 && off == 0 {
            let j = self.times.partition_point(|&x| x < self.period);
            if j < self.times.len() {
                return (c - 1) * n + j as u64;
            }
        }
        c * n + self.times.partition_point(|&x| x < off) as u64
    }
}

/// The state of a link that serves packets from a trace.
#[derive(Clone, Debug)]
pub(crate) struct TraceCursor {
    trace: std::sync::Arc<DeliveryTrace>,
    /// Next opportunity not yet opened.
    pos: u64,
    /// Bytes left in the opportunity opened last (at `cur`).
    left: u64,
    cur: Time,
}

impl TraceCursor {
    pub(crate) fn new(trace: std::sync::Arc<DeliveryTrace>) -> Self {
        TraceCursor {
            trace,
            pos: 0,
            left: 0,
            cur: Time::ZERO,
        }
    }

    /// When the head packet can start being served, looking from `t`: at `t` if the
    /// opportunity opened at `t` still has bytes, else at the next opportunity (at or
    /// after `t`, or strictly after `t` for a packet that just reached an idle link).
    pub(crate) fn start_time(&mut self, t: Time, fresh_arrival: bool) -> Time {
        if !fresh_arrival && self.left > 0 && self.cur == t {
            return t;
        }
        self.left = 0;
        let from = if fresh_arrival {
            Time(t.nanos() + 1)
        } else {
            t
        };
        self.pos = self.pos.max(self.trace.first_at_or_after(from));
        self.trace.opportunity(self.pos).0
    }

    /// Serves `bytes` starting at the current opportunity; returns the time of the
    /// opportunity that completes them.
    pub(crate) fn consume(&mut self, bytes: u64) -> Time {
        let mut need = bytes.max(1);
        loop {
            if self.left == 0 {
                let (t, b) = self.trace.opportunity(self.pos);
                self.pos += 1;
                self.cur = t;
                self.left = b as u64;
            }
            if self.left >= need {
                self.left -= need;
                return self.cur;
            }
            need -= self.left;
            self.left = 0;
        }
    }

    /// The link went idle: what is left of the current opportunity is lost.
    pub(crate) fn idle(&mut self) {
        self.left = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    #[test]
    fn mahimahi_is_read_verbatim() {
        let t = DeliveryTrace::parse("0\n0\n5\n10\n", 1500).unwrap();
        assert_eq!(t.format(), TraceFormat::Mahimahi);
        assert_eq!(t.len(), 4);
        assert_eq!(t.period(), Dur::from_millis(10));
        // 4 × 1500 bytes per 10 ms = 4.8 Mbit/s.
        assert_eq!(t.mean_rate(), Rate::from_bps(4_800_000));
        // Second repetition: 10 + 0, 10 + 0, 15, 20.
        assert_eq!(t.opportunity(4), (ms(10), 1500));
        assert_eq!(t.opportunity(6), (ms(15), 1500));
        assert_eq!(t.bytes_before(ms(12)), 4 * 1500 + 2 * 1500);
        // [0, 10 ms) holds the first three opportunities; the one at 10 ms is not before.
        assert_eq!(t.bytes_before(ms(10)), 3 * 1500);
    }

    #[test]
    fn mahimahi_errors() {
        let e = DeliveryTrace::parse("1\n3\n2\n", 1500).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("non-decreasing"), "{e}");
        assert!(DeliveryTrace::parse("0\n0\n", 1500)
            .unwrap_err()
            .message
            .contains("nonzero"));
        assert!(DeliveryTrace::parse("", 1500)
            .unwrap_err()
            .message
            .contains("no timestamps"));
        assert_eq!(
            DeliveryTrace::parse("1\nx\n", 1500).unwrap_err().line,
            Some(2)
        );
        assert!(DeliveryTrace::parse("-1\n5\n", 1500).is_err());
    }

    #[test]
    fn native_format_with_unit_and_period() {
        let text = "# a comment\nscavenger-trace v1 unit=us period=1000\n0 100\n250 200\n250 300\n";
        let t = DeliveryTrace::parse(text, 1500).unwrap();
        assert_eq!(t.format(), TraceFormat::Native);
        assert_eq!(t.period(), Dur::from_micros(1000));
        assert_eq!(t.cycle_bytes(), 600);
        // 600 bytes per ms = 4.8 Mbit/s.
        assert_eq!(t.mean_rate(), Rate::from_bps(4_800_000));
        assert_eq!(t.opportunity(4), (Time(1_250_000), 200));
        let e = DeliveryTrace::parse("scavenger-trace v1 unit=us\n5 10\n4 10\n", 1500).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(
            DeliveryTrace::parse("scavenger-trace v1 unit=s\n1 1\n", 1500)
                .unwrap_err()
                .message
                .contains("unit")
        );
        assert!(
            DeliveryTrace::parse("scavenger-trace v1 unit=us period=5\n10 1\n", 1500)
                .unwrap_err()
                .message
                .contains("shorter")
        );
        assert!(
            DeliveryTrace::parse("scavenger-trace v1 unit=us\n10 0\n", 1500)
                .unwrap_err()
                .message
                .contains("0")
        );
    }

    #[test]
    fn cursor_spans_opportunities_and_carries_leftovers() {
        // Opportunities of 1000 bytes every ms.
        let t = DeliveryTrace::from_opportunities(
            (1..=10).map(|i| i * 1_000_000).collect(),
            vec![1000; 10],
            None,
        )
        .unwrap();
        let mut c = TraceCursor::new(Arc::new(t));
        // A packet arriving at 0.5 ms on an idle link waits for the opportunity at 1 ms.
        assert_eq!(c.start_time(Time(500_000), true), ms(1));
        // 1500 bytes: 1000 at 1 ms, 500 at 2 ms → leaves at 2 ms, 500 bytes left over.
        assert_eq!(c.consume(1500), ms(2));
        // The next queued packet starts at once on the leftover and finishes at 2 ms.
        assert_eq!(c.start_time(ms(2), false), ms(2));
        assert_eq!(c.consume(400), ms(2));
        // Idle: the last 100 bytes are lost; an arrival exactly at 3 ms waits for 4 ms.
        c.idle();
        assert_eq!(c.start_time(ms(3), true), ms(4));
        // A queued packet looking from 4 ms uses the opportunity at 4 ms.
        assert_eq!(c.start_time(ms(4), false), ms(4));
        assert_eq!(c.consume(1000), ms(4));
        // The last opportunity sits at the period (10 ms) and is found from 10 ms.
        assert_eq!(c.start_time(ms(10), false), ms(10));
        // Wraps around: period 10 ms, the 11th opportunity is at 10 + 1 ms.
        assert_eq!(c.start_time(ms(10), true), ms(11));
    }
}
