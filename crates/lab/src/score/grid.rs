//! The scorecard's grid: links × foregrounds as a designed set of cells (a base cell,
//! one factor at a time around it, and a few crossings), and the scenarios each cell is
//! measured with. docs/scorecard.md explains the choices.

use super::{ScoreError, Subject};
use crate::builder::{Buffer, FlowBuilder, LinkBuilder, ScenarioBuilder};
use crate::link_models::TraceSpec;
use crate::scenario::Scenario;
use scavenger_cc::{Dur, Rate};
use scavenger_net::DeliveryTrace;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Qdisc {
    DropTail,
    Codel,
    FqCodel,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Plain,
    /// `preset = "wifi"` at the link's rate.
    Wifi,
    /// `preset = "satellite"` (Trang 2015's GEO path: 10 Mbit/s, 500 ms RTT, 1 BDP).
    Satellite,
    /// The synthetic cellular-like trace (examples/rate/traces/cellular-like.down, mean
    /// 10 Mbit/s) forward, a constant reverse rate.
    Cell,
}

/// One bottleneck of the grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    pub id: &'static str,
    /// Forward (data) and reverse (ACK) rates in kbit/s.
    pub kbps: u64,
    pub reverse_kbps: u64,
    pub rtt_ms: u64,
    /// Drop-tail buffer in BDPs (CoDel and FQ-CoDel keep Linux's packet limits).
    pub buffer_bdp: f64,
    pub qdisc: Qdisc,
    pub kind: Kind,
}

/// The foreground that shares the link with the algorithm under test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fg {
    /// A short transfer (one second of the link's capacity, 250 KB to 10 MB).
    Short(&'static str),
    /// A long-lived flow for `long_s` seconds, then it stops.
    Long(&'static str),
    /// Web-like: Poisson arrivals of CUBIC transfers (Pareto sizes, mean 100 KB) at 30 %
    /// load for `long_s` seconds.
    Web,
    /// A constant-rate (video-like) datagram stream at 40 % of the link for `long_s`.
    Video,
}

impl Fg {
    pub fn id(self) -> String {
        match self {
            Fg::Short(a) => format!("short-{a}"),
            Fg::Long(a) => format!("long-{a}"),
            Fg::Web => "web".into(),
            Fg::Video => "video".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub link: Link,
    pub fg: Fg,
    /// In the quick grid (CI) as well as the full one.
    pub quick: bool,
}

impl Cell {
    pub fn id(&self) -> String {
        format!("{}:{}", self.link.id, self.fg.id())
    }
}

const fn link(id: &'static str, mbps: u64, rev: u64, rtt_ms: u64, bdp: f64, q: Qdisc) -> Link {
    Link {
        id,
        kbps: mbps * 1000,
        reverse_kbps: rev * 1000,
        rtt_ms,
        buffer_bdp: bdp,
        qdisc: q,
        kind: Kind::Plain,
    }
}

const fn preset(id: &'static str, mbps: u64, rev: u64, rtt_ms: u64, kind: Kind) -> Link {
    Link {
        id,
        kbps: mbps * 1000,
        reverse_kbps: rev * 1000,
        rtt_ms,
        buffer_bdp: 1.0,
        qdisc: Qdisc::DropTail,
        kind,
    }
}

use Qdisc::*;

/// The base link: 20 Mbit/s both ways, 50 ms, 1 BDP, drop-tail.
pub const BASE: Link = link("base", 20, 20, 50, 1.0, DropTail);

/// Every link of the grid; each differs from `BASE` in one factor (the presets in
/// several, as they come).
pub const LINKS: &[Link] = &[
    BASE,
    link("rate2", 2, 2, 50, 1.0, DropTail),
    link("rate100", 100, 100, 50, 1.0, DropTail),
    link("rate1000", 1000, 1000, 50, 1.0, DropTail),
    link("asym8-1", 8, 1, 50, 1.0, DropTail),
    link("asym50-5", 50, 5, 50, 1.0, DropTail),
    link("rtt10", 20, 20, 10, 1.0, DropTail),
    link("rtt150", 20, 20, 150, 1.0, DropTail),
    link("rtt600", 20, 20, 600, 1.0, DropTail),
    link("buf0.25", 20, 20, 50, 0.25, DropTail),
    link("buf4", 20, 20, 50, 4.0, DropTail),
    link("codel", 20, 20, 50, 1.0, Codel),
    link("fqcodel", 20, 20, 50, 1.0, FqCodel),
    preset("satellite", 10, 10, 500, Kind::Satellite),
    preset("wifi", 20, 20, 50, Kind::Wifi),
    preset("cell", 10, 10, 50, Kind::Cell),
];

fn find_link(id: &str) -> Link {
    *LINKS
        .iter()
        .find(|l| l.id == id)
        .expect("grid cells name links of LINKS")
}

/// The designed cells: every link with the short NewReno foreground; every foreground
/// on the base link; a few crossings where two factors interact (an asymmetric or long
/// path under a long CUBIC flow, AQMs under BBR and datagram traffic, presets under the
/// foregrounds their users meet).
pub fn cells() -> Vec<Cell> {
    // The quick grid (CI) is every link and every base-link foreground except the
    // 1000 Mbit/s link, which costs more than the rest together; the full grid adds it
    // and the crossings.
    let mut out: Vec<Cell> = LINKS
        .iter()
        .map(|&l| Cell {
            link: l,
            fg: Fg::Short("newreno"),
            quick: l.id != "rate1000",
        })
        .collect();
    let base_fgs = [
        Fg::Short("cubic"),
        Fg::Short("bbr"),
        Fg::Long("newreno"),
        Fg::Long("cubic"),
        Fg::Long("bbr"),
        Fg::Web,
        Fg::Video,
    ];
    for fg in base_fgs {
        out.push(Cell {
            link: BASE,
            fg,
            quick: true,
        });
    }
    let crossings = [
        ("asym8-1", Fg::Long("cubic")),
        ("rtt600", Fg::Long("cubic")),
        ("buf4", Fg::Long("cubic")),
        ("fqcodel", Fg::Short("bbr")),
        ("fqcodel", Fg::Video),
        ("codel", Fg::Web),
        ("rate100", Fg::Web),
        ("satellite", Fg::Long("newreno")),
        ("wifi", Fg::Video),
        ("cell", Fg::Web),
    ];
    for (l, fg) in crossings {
        out.push(Cell {
            link: find_link(l),
            fg,
            quick: false,
        });
    }
    out
}

/// The time plan of a cell's runs, scaled to its RTT so that long paths get as many
/// round trips as short ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    pub rtt: Dur,
    /// Series bin: one RTT (at least 10 ms), the resolution of the ramp-up time.
    pub bin: Dur,
    /// The algorithm runs alone before anything is measured (and before the foreground).
    pub warm: Dur,
    /// How long the alone runs measure after `warm`.
    pub measure: Dur,
    /// How long long-lived, web and video foregrounds last.
    pub long: Dur,
    /// Time left after the foreground is expected to leave, for the ramp-up.
    pub tail: Dur,
}

fn max(a: Dur, b: Dur) -> Dur {
    if a > b {
        a
    } else {
        b
    }
}

impl Link {
    pub fn rtt(&self) -> Dur {
        Dur::from_millis(self.rtt_ms)
    }
    pub fn rate(&self) -> Rate {
        Rate::from_bps(self.kbps * 1000)
    }
    pub fn timing(&self) -> Timing {
        let rtt = self.rtt();
        Timing {
            rtt,
            bin: max(rtt, Dur::from_millis(10)),
            warm: max(Dur::from_secs(5), rtt.mul_f64(20.0)),
            measure: max(Dur::from_secs(10), rtt.mul_f64(30.0)),
            long: max(Dur::from_secs(10), rtt.mul_f64(30.0)),
            tail: max(Dur::from_secs(5), rtt.mul_f64(30.0)),
        }
    }

    fn builder(&self) -> LinkBuilder {
        let one_way = Dur(self.rtt().0 / 2);
        let mut b = LinkBuilder::new(self.rate(), one_way)
            .reverse_rate(Rate::from_bps(self.reverse_kbps * 1000));
        b = match self.qdisc {
            DropTail => b.buffer(Buffer::Bdp(self.buffer_bdp)),
            Codel => b.qdisc("codel", vec![]),
            FqCodel => b.qdisc("fq-codel", vec![]),
        };
        match self.kind {
            Kind::Plain | Kind::Cell => b,
            Kind::Wifi => b.field("preset", "wifi"),
            Kind::Satellite => b.field("preset", "satellite"),
        }
    }

    /// Puts the cellular-like trace on the forward direction of a built scenario.
    fn finish(&self, mut s: Scenario) -> Scenario {
        if self.kind == Kind::Cell {
            let t = cellular_trace();
            s.link.rate = t.mean_rate;
            s.link.trace = Some(t);
        }
        s
    }
}

/// The synthetic cellular-like trace (not an operator trace; see its generator's header).
const CELLULAR_LIKE: &str = include_str!("../../../../examples/rate/traces/cellular-like.down");

fn cellular_trace() -> TraceSpec {
    let t = DeliveryTrace::parse(CELLULAR_LIKE, 1500)
        .expect("examples/rate/traces/cellular-like.down parses");
    TraceSpec {
        file: "examples/rate/traces/cellular-like.down (synthetic)".into(),
        format: "mahimahi",
        opportunities: t.len(),
        period: t.period(),
        mean_rate: t.mean_rate(),
        trace: Arc::new(t),
    }
}

/// Every TCP flow of the scorecard runs against the Linux 6.x receiver model
/// (docs/receiver.md): an LBE algorithm that starves on the legacy model's fixed 40 ms
/// delayed-ACK timer at a 1-3 packet window does not starve on kernel TCP (issue 17).
fn tcp(name: &str, algorithm: &str) -> FlowBuilder {
    FlowBuilder::tcp(name, algorithm).field("ack_model", "linux")
}

fn subject_flow(name: &str, s: &Subject) -> FlowBuilder {
    let mut f = tcp(name, s.algorithm);
    for (k, v) in &s.params {
        f = f.param(k, v.clone());
    }
    f
}

fn build(b: ScenarioBuilder, l: &Link, what: &str) -> Result<Scenario, ScoreError> {
    b.build()
        .map(|s| l.finish(s))
        .map_err(|source| ScoreError::Scenario {
            what: what.to_string(),
            source,
        })
}

/// The algorithm alone on the link: spare capacity and self-induced queueing delay.
pub fn alone(l: &Link, s: &Subject) -> Result<Scenario, ScoreError> {
    let t = l.timing();
    let b = ScenarioBuilder::new(&format!("score/{}/alone", l.id), t.warm + t.measure)
        .link(l.builder())
        .flow(subject_flow("bg", s))
        .series_bin(t.bin);
    build(b, l, &format!("{}/alone", l.id))
}

/// Start of the Jain window in the four-flow run: 10 s after the last flow started.
pub const JAIN_FROM_S: u64 = 40;

/// Four flows of the algorithm started 10 s apart; Jain's index from 40 s to the end.
pub fn jain(l: &Link, s: &Subject) -> Result<Scenario, ScoreError> {
    let t = l.timing();
    let from = Dur::from_secs(JAIN_FROM_S);
    let end = from + t.measure;
    let mut b = ScenarioBuilder::new(&format!("score/{}/jain", l.id), end).link(l.builder());
    for i in 0..4u64 {
        b = b.flow(subject_flow(&format!("bg{}", i + 1), s).start(Dur::from_secs(10 * i)));
    }
    let b = b.jain("bg", &["bg1", "bg2", "bg3", "bg4"], from, end);
    build(b, l, &format!("{}/jain", l.id))
}

/// Bytes of a short foreground: one second of the link's capacity, 250 KB to 10 MB.
pub fn short_size(l: &Link) -> u64 {
    (l.kbps * 1000 / 8).clamp(250_000, 10_000_000)
}

/// The algorithm from t = 0 with the cell's foreground from `warm`; the background is
/// declared so that the same scenario without it is the foreground-alone run.
pub fn with_fg(c: &Cell, s: &Subject) -> Result<Scenario, ScoreError> {
    let l = &c.link;
    let t = l.timing();
    let start = t.warm;
    let bps = l.kbps as f64 * 1000.0;
    let (fg, span) = match c.fg {
        Fg::Short(a) => {
            let size = short_size(l);
            // Generous: four times the transfer at the full rate plus slow start.
            let at_rate = Dur::from_secs_f64(size as f64 * 8.0 / bps);
            (
                tcp("fg", a).start(start).size_bytes(size),
                at_rate.mul_f64(4.0) + t.rtt.mul_f64(30.0),
            )
        }
        Fg::Long(a) => (tcp("fg", a).start(start).stop(start + t.long), t.long),
        Fg::Web => {
            let mean = 100_000.0;
            let per_s = 0.3 * bps / 8.0 / mean;
            (
                tcp("fg", "cubic")
                    .field("kind", "web")
                    .field("flows_per_s", per_s)
                    .field("mean_size", "100KB")
                    .field("size_dist", "pareto")
                    .field("pareto_shape", 1.5)
                    .start(start)
                    .stop(start + t.long),
                t.long,
            )
        }
        Fg::Video => (
            FlowBuilder::cbr("fg", Rate::from_bps((0.4 * bps) as u64), 1472, false)
                .start(start)
                .stop(start + t.long),
            t.long,
        ),
    };
    let b = ScenarioBuilder::new(&format!("score/{}", c.id()), start + span + t.tail)
        .link(l.builder())
        .flow(subject_flow("bg", s))
        .flow(fg)
        .series_bin(t.bin)
        .background(&["bg"]);
    build(b, l, &c.id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_ids_are_unique_and_every_scenario_builds() {
        let cs = cells();
        let mut ids: Vec<String> = cs.iter().map(Cell::id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), cs.len());
        let s = Subject::parse("ledbat", &[]).unwrap();
        for c in &cs {
            with_fg(c, &s).unwrap();
            alone(&c.link, &s).unwrap();
            jain(&c.link, &s).unwrap();
        }
        assert_eq!(cs.iter().filter(|c| c.quick).count(), 22);
        assert_eq!(cs.len(), 33);
    }

    #[test]
    fn timings_scale_with_the_rtt() {
        let t = find_link("rtt600").timing();
        assert_eq!(t.warm, Dur::from_secs(12));
        assert_eq!(t.bin, Dur::from_millis(600));
        let t = find_link("rtt10").timing();
        assert_eq!((t.warm, t.bin), (Dur::from_secs(5), Dur::from_millis(10)));
    }

    #[test]
    fn the_cell_link_carries_the_trace_and_its_mean_rate() {
        let s = alone(&find_link("cell"), &Subject::parse("newreno", &[]).unwrap()).unwrap();
        let t = s.link.trace.as_ref().unwrap();
        assert_eq!(s.link.rate, t.mean_rate);
        assert!(s.link.reverse_trace.is_none());
    }
}
