//! Scenarios built in code: typed values in, the same validated [`Scenario`] out.
//!
//! Studies and tests describe their scenarios with Rust values (`Dur`, `Rate`, byte
//! counts) instead of formatting TOML text and parsing it back. The builder fills the
//! same table a scenario file is read into and hands it to [`parse_table`], so a
//! scenario built in code is checked, defaulted and normalised by exactly the code that
//! reads files: one validation path, the same records, and errors that name the field.
//!
//! ```
//! use scavenger_cc::{Dur, Rate};
//! use scavenger_lab::builder::{Buffer, FlowBuilder, LinkBuilder, ScenarioBuilder};
//! let sc = ScenarioBuilder::new("adsl", Dur::from_secs(40))
//!     .link(
//!         LinkBuilder::new(Rate::from_mbps(8), Dur::from_millis(25))
//!             .reverse_rate(Rate::from_mbps(1))
//!             .buffer(Buffer::Packets(70)),
//!     )
//!     .flow(FlowBuilder::tcp("bulk", "ledbat").param("target", Dur::from_millis(25)))
//!     .flow(FlowBuilder::tcp("fg", "newreno").start(Dur::from_secs(10)).size_bytes(2_528_256))
//!     .build()
//!     .unwrap();
//! assert_eq!(sc.flows.len(), 2);
//! ```

use crate::error::InputError;
use crate::scenario::{parse_table, Scenario};
use scavenger_cc::{Dur, ParamValue, Rate};
use toml::{Table, Value};

/// A parameter value for an algorithm, a queue discipline or a DA-LBE controller.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg(Value);

impl From<i64> for Arg {
    fn from(v: i64) -> Arg {
        Arg(Value::Integer(v))
    }
}
impl From<i32> for Arg {
    fn from(v: i32) -> Arg {
        Arg(Value::Integer(v.into()))
    }
}
impl From<u32> for Arg {
    fn from(v: u32) -> Arg {
        Arg(Value::Integer(v.into()))
    }
}
impl From<f64> for Arg {
    fn from(v: f64) -> Arg {
        Arg(Value::Float(v))
    }
}
impl From<bool> for Arg {
    fn from(v: bool) -> Arg {
        Arg(Value::Boolean(v))
    }
}
impl From<Dur> for Arg {
    fn from(v: Dur) -> Arg {
        // Dur's Display is exact ("25ms", "1500us", "7ns") and parses back to itself.
        Arg(Value::String(v.to_string()))
    }
}
impl From<&str> for Arg {
    fn from(v: &str) -> Arg {
        Arg(Value::String(v.to_string()))
    }
}

impl From<ParamValue> for Arg {
    /// A value of an algorithm's parameter table (a preset's), written as a file would.
    fn from(v: ParamValue) -> Arg {
        match v {
            ParamValue::Float(x) => x.into(),
            ParamValue::Int(i) => i.into(),
            ParamValue::Bool(b) => b.into(),
            ParamValue::Dur(d) => d.into(),
            ParamValue::Choice(c) => c.into(),
        }
    }
}

/// A buffer size as a scenario file gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buffer {
    Packets(u32),
    Bytes(u64),
    /// A multiple of the path's bandwidth-delay product, in 1500-byte packets.
    Bdp(f64),
}

impl Buffer {
    fn value(self) -> Value {
        Value::String(match self {
            Buffer::Packets(n) => format!("{n} packets"),
            Buffer::Bytes(b) => format!("{b}B"),
            Buffer::Bdp(x) => format!("{x}BDP"),
        })
    }
}

fn rate(r: Rate) -> Value {
    // Whole bits per second: exact whatever the rate.
    Value::String(format!("{}bit", r.0))
}

fn dur(d: Dur) -> Value {
    Value::String(d.to_string())
}

fn inline(pairs: Vec<(String, Arg)>) -> Value {
    Value::Table(pairs.into_iter().map(|(k, v)| (k, v.0)).collect())
}

/// The bottleneck (`[link]`).
#[derive(Clone, Debug)]
pub struct LinkBuilder {
    t: Table,
}

impl LinkBuilder {
    /// A link of `rate` both ways with one-way propagation `delay`.
    pub fn new(rate_: Rate, delay: Dur) -> LinkBuilder {
        let mut t = Table::new();
        t.insert("rate".into(), rate(rate_));
        t.insert("delay".into(), dur(delay));
        LinkBuilder { t }
    }
    /// The ACK (upload) direction's rate.
    pub fn reverse_rate(mut self, r: Rate) -> Self {
        self.t.insert("reverse_rate".into(), rate(r));
        self
    }
    pub fn buffer(mut self, b: Buffer) -> Self {
        self.t.insert("buffer".into(), b.value());
        self
    }
    pub fn reverse_buffer(mut self, b: Buffer) -> Self {
        self.t.insert("reverse_buffer".into(), b.value());
        self
    }
    /// A queue discipline by kind ("codel", "fq_codel", "red", "pie", ...) with its
    /// parameters (docs/network-models.md).
    pub fn qdisc(mut self, kind: &str, params: Vec<(&str, Arg)>) -> Self {
        let mut p: Vec<(String, Arg)> = vec![("kind".into(), kind.into())];
        p.extend(params.into_iter().map(|(k, v)| (k.to_string(), v)));
        self.t.insert("qdisc".into(), inline(p));
        self
    }
    /// Bernoulli loss probability on the forward direction.
    pub fn loss(mut self, p: f64) -> Self {
        self.t.insert("loss".into(), Value::Float(p));
        self
    }
    /// Any other `[link]` field, for the network models without a typed setter
    /// (traces, on/off schedules, jitter, presets); checked like a file's field.
    pub fn field(mut self, name: &str, value: impl Into<Arg>) -> Self {
        self.t.insert(name.into(), value.into().0);
        self
    }
}

/// One `[[flow]]`.
#[derive(Clone, Debug)]
pub struct FlowBuilder {
    t: Table,
    params: Vec<(String, Arg)>,
}

impl FlowBuilder {
    /// A TCP flow running `algorithm` (a registry name or alias).
    pub fn tcp(name: &str, algorithm: &str) -> FlowBuilder {
        let mut t = Table::new();
        t.insert("name".into(), Value::String(name.into()));
        t.insert("algorithm".into(), Value::String(algorithm.into()));
        FlowBuilder { t, params: vec![] }
    }
    /// A datagram stream at a constant rate (`poisson` draws exponential gaps).
    pub fn cbr(name: &str, r: Rate, packet_size: u32, poisson: bool) -> FlowBuilder {
        let mut t = Table::new();
        t.insert("name".into(), Value::String(name.into()));
        t.insert("kind".into(), Value::String("cbr".into()));
        t.insert("rate".into(), rate(r));
        t.insert("packet_size".into(), Value::Integer(packet_size.into()));
        let arrivals = if poisson { "poisson" } else { "constant" };
        t.insert("arrivals".into(), Value::String(arrivals.into()));
        FlowBuilder { t, params: vec![] }
    }
    /// One algorithm parameter (checked against the algorithm's table at `build`).
    pub fn param(mut self, name: &str, value: impl Into<Arg>) -> Self {
        self.params.push((name.to_string(), value.into()));
        self
    }
    pub fn start(mut self, at: Dur) -> Self {
        self.t.insert("start".into(), dur(at));
        self
    }
    pub fn stop(mut self, at: Dur) -> Self {
        self.t.insert("stop".into(), dur(at));
        self
    }
    /// A finite transfer of this many bytes (omit for a long-lived flow).
    pub fn size_bytes(mut self, bytes: u64) -> Self {
        self.t
            .insert("size".into(), Value::String(format!("{bytes}B")));
        self
    }
    /// `count` copies named NAME.1, NAME.2, ...
    pub fn count(mut self, n: u32) -> Self {
        self.t.insert("count".into(), Value::Integer(n.into()));
        self
    }
    /// A soft deadline from the flow's start, driven by a DA-LBE metacontroller.
    pub fn deadline(mut self, d: Dur, controller: &str) -> Self {
        self.t.insert("deadline".into(), dur(d));
        self.t.insert(
            "dalbe".into(),
            inline(vec![("controller".into(), controller.into())]),
        );
        self
    }
    pub fn delayed_ack(mut self, on: bool) -> Self {
        self.t.insert("delayed_ack".into(), Value::Boolean(on));
        self
    }
    /// Any other flow field (`extra_delay`, `mss`, `ecn`, `receiver`, ...), checked like
    /// a file's field.
    pub fn field(mut self, name: &str, value: impl Into<Arg>) -> Self {
        self.t.insert(name.into(), value.into().0);
        self
    }
    fn into_table(mut self) -> Table {
        if !self.params.is_empty() {
            self.t.insert("params".into(), inline(self.params));
        }
        self.t
    }
}

/// A whole scenario.
#[derive(Clone, Debug)]
pub struct ScenarioBuilder {
    name: String,
    t: Table,
    flows: Vec<Value>,
    jain: Vec<Value>,
    measure: Table,
}

impl ScenarioBuilder {
    pub fn new(name: &str, duration: Dur) -> ScenarioBuilder {
        let mut t = Table::new();
        t.insert("name".into(), Value::String(name.into()));
        t.insert("duration".into(), dur(duration));
        ScenarioBuilder {
            name: name.to_string(),
            t,
            flows: vec![],
            jain: vec![],
            measure: Table::new(),
        }
    }
    pub fn description(mut self, text: &str) -> Self {
        self.t
            .insert("description".into(), Value::String(text.into()));
        self
    }
    pub fn seed(mut self, seed: u64) -> Self {
        // Seeds above i64::MAX cannot be written in TOML either; parse_table refuses them.
        self.t.insert(
            "seed".into(),
            Value::Integer(seed.min(i64::MAX as u64) as i64),
        );
        self
    }
    pub fn link(mut self, link: LinkBuilder) -> Self {
        self.t.insert("link".into(), Value::Table(link.t));
        self
    }
    pub fn flow(mut self, flow: FlowBuilder) -> Self {
        self.flows.push(Value::Table(flow.into_table()));
        self
    }
    /// Jain's index of `flows` (flow or group names) over [from, to].
    pub fn jain(mut self, name: &str, flows: &[&str], from: Dur, to: Dur) -> Self {
        let mut g = Table::new();
        g.insert("name".into(), Value::String(name.into()));
        g.insert(
            "flows".into(),
            Value::Array(flows.iter().map(|f| Value::String(f.to_string())).collect()),
        );
        g.insert("from".into(), dur(from));
        g.insert("to".into(), dur(to));
        self.jain.push(Value::Table(g));
        self
    }
    /// Time series in bins of `bin`.
    pub fn series_bin(mut self, bin: Dur) -> Self {
        self.measure.insert("series_bin".into(), dur(bin));
        self
    }
    /// Flows that are background traffic: the run is repeated without them.
    pub fn background(mut self, flows: &[&str]) -> Self {
        self.measure.insert(
            "background".into(),
            Value::Array(flows.iter().map(|f| Value::String(f.to_string())).collect()),
        );
        self
    }
    /// Validates and normalises the scenario exactly as a file with these fields would
    /// be; errors name the scenario as their file.
    pub fn build(mut self) -> Result<Scenario, InputError> {
        self.t.insert("flow".into(), Value::Array(self.flows));
        if !self.jain.is_empty() {
            self.measure.insert("jain".into(), Value::Array(self.jain));
        }
        if !self.measure.is_empty() {
            self.t.insert("measure".into(), Value::Table(self.measure));
        }
        parse_table(&self.name, &self.t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse;

    #[test]
    fn a_built_scenario_equals_the_same_scenario_read_from_text() {
        let text = r#"
name = "s"
duration = "60s"
seed = 3
[link]
rate = "8Mbit"
reverse_rate = "1Mbit"
delay = "25ms"
buffer = "70 packets"
qdisc = { kind = "codel", target = "5ms" }
[[flow]]
name = "bg"
algorithm = "ledbat"
params = { target = "25ms", gain = 0.5 }
[[flow]]
name = "fg"
algorithm = "newreno"
count = 2
start = "10s"
size = "1234567B"
delayed_ack = false
[[flow]]
name = "noise"
kind = "cbr"
rate = "64kbit"
packet_size = 200
arrivals = "poisson"
[measure]
series_bin = "100ms"
jain = [{ name = "fg", flows = ["fg"], from = "20s", to = "60s" }]
"#;
        let from_text = parse("s", text).unwrap();
        let built = ScenarioBuilder::new("s", Dur::from_secs(60))
            .seed(3)
            .link(
                LinkBuilder::new(Rate::from_mbps(8), Dur::from_millis(25))
                    .reverse_rate(Rate::from_mbps(1))
                    .buffer(Buffer::Packets(70))
                    .qdisc("codel", vec![("target", Dur::from_millis(5).into())]),
            )
            .flow(
                FlowBuilder::tcp("bg", "ledbat")
                    .param("target", Dur::from_millis(25))
                    .param("gain", 0.5),
            )
            .flow(
                FlowBuilder::tcp("fg", "newreno")
                    .count(2)
                    .start(Dur::from_secs(10))
                    .size_bytes(1_234_567)
                    .delayed_ack(false),
            )
            .flow(FlowBuilder::cbr("noise", Rate::from_bps(64_000), 200, true))
            .series_bin(Dur::from_millis(100))
            .jain("fg", &["fg"], Dur::from_secs(20), Dur::from_secs(60))
            .build()
            .unwrap();
        assert_eq!(built, from_text);
    }

    #[test]
    fn a_bad_value_is_refused_with_the_field_named() {
        let e = ScenarioBuilder::new("bad", Dur::from_secs(10))
            .link(
                LinkBuilder::new(Rate::from_mbps(8), Dur::from_millis(25)).buffer(Buffer::Bdp(1.0)),
            )
            .flow(FlowBuilder::tcp("a", "ledbat").param("gain", 7.0))
            .build()
            .unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("gain") && msg.contains('7'), "{msg}");
        let e = ScenarioBuilder::new("bad", Dur::from_secs(10))
            .link(
                LinkBuilder::new(Rate::from_mbps(8), Dur::from_millis(25)).buffer(Buffer::Bdp(1.0)),
            )
            .flow(FlowBuilder::tcp("a", "no-such-algorithm"))
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("algorithm"), "{e}");
    }
}
