//! Ong 2020, chapter 4: seven LBE mechanisms plus NewReno and CUBIC as
//! background traffic on the asymmetric access links of Table 3.1, against NewReno or
//! CUBIC foreground traffic; intra-protocol fairness. Published numbers from spec
//! 000-ong-yield.md §4 (Figs 4.1, 4.4, 4.8, 4.16; Tables 4.1–4.3).
//!
//! Chapter 5: Yield against Nice, CDG, NewReno and CUBIC on the Table 5.6 links (8/1 and
//! 50/20 Mbit/s), the same scenarios; only Yield's experiments are new (ids `ch5/…`), the
//! others are chapter 4's. The Yield parameter pre-study of Tables 5.2–5.5 (ids `pre/…`;
//! its default row is the main evaluation's Yield experiment). Published numbers from spec
//! §4.8–4.14 (Tables 5.2–5.5, 5.7–5.10, Figs 5.3–5.21 as the text states them).

use super::*;
use crate::builder::{Buffer, FlowBuilder, LinkBuilder, ScenarioBuilder};
use crate::scenario::Scenario;
use scavenger_cc::profiles::source_config;
use scavenger_cc::{Dur, ParamSet, Rate};

/// Background mechanisms of chapter 4 (§3.8), by our registry names.
pub const MECHANISMS: &[&str] = &[
    "newreno",
    "cubic",
    "vegas",
    "tcp-lp",
    "ledbat",
    "nice",
    "westwood-lp",
    "apple-ledbat",
    "cdg",
];
const LBE: &[&str] = &[
    "vegas",
    "tcp-lp",
    "ledbat",
    "nice",
    "westwood-lp",
    "apple-ledbat",
    "cdg",
];
/// Chapter 5's mechanisms (§5.5.6). Only Yield is new: the others' experiments on the
/// chapter 5 links are chapter 4's.
pub const CH5_MECHANISMS: &[&str] = &["newreno", "cubic", "nice", "cdg", "yield"];
/// Table 5.6: the 8/1 and 50/20 Mbit/s rows of Table 3.1.
const CH5_LINKS: &[(f64, f64)] = &[(8.0, 1.0), (50.0, 20.0)];

/// Table 3.1 rows: downlink and uplink Mbit/s.
const LINKS: &[(f64, f64)] = &[(8.0, 1.0), (24.0, 1.5), (50.0, 20.0), (100.0, 100.0)];
const RTTS_MS: &[u64] = &[50, 100, 200, 350];
/// Ong 2020 §3.4: the mean web page weight of November 2016.
const SHORT_KIB: f64 = 2469.0;
const RUN_S: u64 = 60;
/// When the short foreground starts (not stated in the source: after the background has
/// left slow start).
const SHORT_START_S: u64 = 10;
/// When long-lived foreground flows start (not stated: shortly after the background).
const LONG_START_S: u64 = 5;

/// Ong 2020 §3.2: 2 × BDP on the downlink, rounded up to a multiple of 5 packets.
pub fn buffer_packets(down_mbps: f64, rtt_ms: u64) -> u64 {
    let pkts = 2.0 * down_mbps * 1e6 * rtt_ms as f64 / 1000.0 / (1500.0 * 8.0);
    ((pkts / 5.0).ceil() as u64) * 5
}

fn link_label(down: f64, up: f64) -> String {
    format!("{down}-{up}")
}

/// Experiments of a mechanism chapter 4 did not evaluate (Yield) carry chapter 5's prefix.
fn prefix(bg: &str) -> &'static str {
    if MECHANISMS.contains(&bg) {
        ""
    } else {
        "ch5/"
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Fg {
    Short { alg: &'static str, n: u32 },
    Long { alg: &'static str, n: u32 },
}

impl Fg {
    fn label(self) -> String {
        match self {
            Fg::Short { alg, n } => format!("{alg}-short-{n}"),
            Fg::Long { alg, n } => format!("{alg}-long-{n}"),
        }
    }
}

/// A flow of `alg` with the parameters that make our algorithms match the Linux 4.4
/// modules Ong 2020 ran: the configuration `scavenger_cc::profiles` records for Ong 2020
/// (for CDG stock Linux `tcp_cdg`, the `cdg-linux` preset), every value spelled out. The
/// flow keeps the algorithm's own name (`cdg`), so run records name the algorithm as before.
fn source_flow(name: &str, alg: &str) -> FlowBuilder {
    let mut f = FlowBuilder::tcp(name, alg);
    if let Some(preset) = source_config("Ong 2020", alg) {
        for (param, v) in ParamSet::defaults(preset.params).iter() {
            f = f.param(param, *v);
        }
    }
    f
}

/// Megabits per second as the study's tables give them (1.5, 24, ...), exact in bit/s.
fn mbit(mbps: f64) -> Rate {
    Rate::from_bps((mbps * 1e6).round() as u64)
}

/// A 60 s run on a Table 3.1 link with base RTT `rtt` ms and the §3.2 buffer.
fn testbed(id: &str, down: f64, up: f64, rtt: u64) -> ScenarioBuilder {
    let link = LinkBuilder::new(mbit(down), Dur::from_micros(rtt * 500))
        .reverse_rate(mbit(up))
        .buffer(Buffer::Packets(buffer_packets(down, rtt) as u32));
    ScenarioBuilder::new(id, Dur::from_secs(RUN_S)).link(link)
}

fn build(id: &str, sc: ScenarioBuilder) -> Scenario {
    sc.build()
        .unwrap_or_else(|e| panic!("study scenario {id} is invalid: {e}"))
}

fn downloads(down: f64, up: f64, rtt: u64, bg: &str, fg: Fg, upload: bool) -> Experiment {
    let scen = if upload { "ul" } else { "dl" };
    let id = format!(
        "{}{scen}/{}/{rtt}ms/{}/{bg}",
        prefix(bg),
        link_label(down, up),
        fg.label()
    );
    let group = format!(
        "{scen} {} Mbit/s, {rtt} ms, {}",
        link_label(down, up).replace('-', "/"),
        fg.label()
    );
    download_exp(
        id,
        group,
        bg.to_string(),
        (down, up, rtt),
        source_flow("bg", bg),
        fg,
        upload,
    )
}

/// One background flow `bg` (named "bg") against the foreground `fg`.
fn download_exp(
    id: String,
    group: String,
    mechanism: String,
    (down, up, rtt): (f64, f64, u64),
    mut bg: FlowBuilder,
    fg: Fg,
    upload: bool,
) -> Experiment {
    if upload {
        bg = bg.field("direction", "upload");
    }
    let fg = match fg {
        Fg::Short { alg, n } => {
            // httperf: N connections splitting the total, all starting together (§3.4).
            let each_bytes = (SHORT_KIB * 1024.0 / n as f64).round() as u64;
            FlowBuilder::tcp("fg", alg)
                .count(n)
                .start(Dur::from_secs(SHORT_START_S))
                .size_bytes(each_bytes)
        }
        Fg::Long { alg, n } => FlowBuilder::tcp("fg", alg)
            .count(n)
            .start(Dur::from_secs(LONG_START_S)),
    };
    let scenario = build(&id, testbed(&id, down, up, rtt).flow(bg).flow(fg));
    Experiment {
        group,
        id,
        mechanism,
        scenario,
    }
}

fn fairness(down: f64, up: f64, rtt: u64, alg: &str, n: u32) -> Experiment {
    let id = fair_id(&link_label(down, up), rtt, n, alg);
    let mut sc = testbed(&id, down, up, rtt);
    // TEACUP starts all flows of an experiment together; they leave 10 ms apart here
    // (the source gives no offsets; with 1 s offsets Vegas latecomers take most of the
    // link, which the source's self-induced delays do not suggest).
    let names: Vec<String> = (1..=n).map(|i| format!("bg.{i}")).collect();
    for (i, name) in names.iter().enumerate() {
        sc = sc.flow(source_flow(name, alg).start(Dur::from_millis(i as u64 * 10)));
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    sc = sc.jain("all", &names, Dur::from_secs(1), Dur::from_secs(RUN_S));
    Experiment {
        group: format!(
            "fair {} Mbit/s, {rtt} ms, {n} flows",
            link_label(down, up).replace('-', "/")
        ),
        scenario: build(&id, sc),
        id,
        mechanism: alg.to_string(),
    }
}

fn dl_id(link: &str, rtt: u64, fg: &str, bg: &str) -> String {
    format!("{}dl/{link}/{rtt}ms/{fg}/{bg}", prefix(bg))
}

fn ul_id(link: &str, rtt: u64, fg: &str, bg: &str) -> String {
    format!("{}ul/{link}/{rtt}ms/{fg}/{bg}", prefix(bg))
}

fn fair_id(link: &str, rtt: u64, n: u32, alg: &str) -> String {
    format!("{}fair/{link}/{rtt}ms/n{n}/{alg}", prefix(alg))
}

/// A Yield setting of the parameter pre-study (Tables 5.2–5.5); the other parameters keep
/// their Table 5.1 defaults.
#[derive(Clone, Copy, PartialEq, Debug)]
struct YieldSet {
    max_reduction: u32,
    ct_threshold: u32,
    hist_factor: u32,
    trend_factor: u32,
}

const fn ys(
    max_reduction: u32,
    ct_threshold: u32,
    hist_factor: u32,
    trend_factor: u32,
) -> YieldSet {
    YieldSet {
        max_reduction,
        ct_threshold,
        hist_factor,
        trend_factor,
    }
}

/// Table 5.1 defaults (the bold rows of Tables 5.2–5.5).
const YIELD_DEFAULTS: YieldSet = ys(3, 2, 2, 128);

impl YieldSet {
    /// The parameters that differ from the defaults, by their registry names.
    fn changes(self) -> Vec<(&'static str, u32)> {
        let d = YIELD_DEFAULTS;
        [
            ("max_reduction", self.max_reduction, d.max_reduction),
            ("ct_threshold", self.ct_threshold, d.ct_threshold),
            ("hist_factor", self.hist_factor, d.hist_factor),
            ("trend_factor", self.trend_factor, d.trend_factor),
        ]
        .into_iter()
        .filter(|(_, v, dv)| v != dv)
        .map(|(n, v, _)| (n, v))
        .collect()
    }
}

/// Tables 5.2–5.5 (8/1 Mbit/s, one NewReno short foreground): the setting and
/// [FTT (s), background throughput (KiB/s)] at 50 ms, then at 350 ms.
const PRESTUDY: &[(&str, YieldSet, [f64; 4])] = &[
    ("Table 5.2", ys(0, 2, 2, 128), [4.1, 902.0, 9.3, 816.0]),
    ("Table 5.2", ys(1, 2, 2, 128), [4.1, 919.0, 9.5, 820.0]),
    ("Table 5.2", ys(2, 2, 2, 128), [4.1, 905.0, 11.1, 834.0]),
    ("Table 5.2", ys(3, 2, 2, 128), [4.2, 904.0, 6.9, 742.0]),
    ("Table 5.3", ys(3, 1, 2, 128), [3.5, 902.0, 7.7, 724.0]),
    ("Table 5.3", ys(3, 2, 2, 128), [4.2, 904.0, 6.9, 742.0]),
    ("Table 5.3", ys(3, 3, 2, 128), [4.0, 901.0, 7.7, 729.0]),
    ("Table 5.4", ys(3, 2, 0, 128), [3.9, 866.0, 7.5, 782.0]),
    ("Table 5.4", ys(3, 2, 1, 128), [4.2, 892.0, 6.9, 699.0]),
    ("Table 5.4", ys(3, 2, 2, 128), [4.2, 904.0, 6.9, 742.0]),
    ("Table 5.4", ys(3, 2, 3, 128), [3.8, 864.0, 7.4, 623.0]),
    ("Table 5.5", ys(3, 2, 0, 8), [3.5, 850.0, 6.7, 659.0]),
    ("Table 5.5", ys(3, 2, 0, 64), [3.7, 844.0, 7.4, 619.0]),
    ("Table 5.5", ys(3, 2, 0, 128), [3.9, 866.0, 7.5, 782.0]),
    ("Table 5.5", ys(3, 2, 0, 256), [3.8, 846.0, 7.5, 789.0]),
    ("Table 5.5", ys(3, 2, 2, 8), [4.0, 900.0, 6.9, 630.0]),
    ("Table 5.5", ys(3, 2, 2, 64), [3.4, 832.0, 7.5, 785.0]),
    ("Table 5.5", ys(3, 2, 2, 128), [4.2, 904.0, 6.9, 742.0]),
    ("Table 5.5", ys(3, 2, 2, 256), [3.4, 825.0, 7.5, 701.0]),
];
const PRE_RTTS_MS: [u64; 2] = [50, 350];

/// The pre-study experiment of a setting: the main evaluation's Yield experiment for the
/// defaults (the same scenario), else `pre/RTTms/param=value[/param=value]`.
fn pre_id(rtt: u64, s: YieldSet) -> String {
    let c = s.changes();
    if c.is_empty() {
        dl_id("8-1", rtt, "newreno-short-1", "yield")
    } else {
        format!(
            "pre/{rtt}ms/{}",
            c.iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join("/")
        )
    }
}

/// The pre-study's settings other than the defaults, each once, in table order.
fn prestudy_settings() -> Vec<YieldSet> {
    let mut out: Vec<YieldSet> = Vec::new();
    for &(_, s, _) in PRESTUDY {
        if s != YIELD_DEFAULTS && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

fn prestudy(rtt: u64, s: YieldSet) -> Experiment {
    let c = s.changes();
    let mut bg = FlowBuilder::tcp("bg", "yield");
    for &(n, v) in &c {
        bg = bg.param(n, v);
    }
    let group = format!("pre-study 8/1 Mbit/s, {rtt} ms, newreno-short-1 (Yield parameters)");
    let mechanism = format!(
        "yield {}",
        c.iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    download_exp(
        pre_id(rtt, s),
        group,
        mechanism,
        (8.0, 1.0, rtt),
        bg,
        Fg::Short {
            alg: "newreno",
            n: 1,
        },
        false,
    )
}

/// An experiment id from (link, rtt, foreground, background): `dl_id` or `ul_id`.
type Id = fn(&str, u64, &str, &str) -> String;

/// The published numbers, in the order they are listed.
struct List(Vec<Published>);

impl List {
    /// A number published twice for the same experiment and metric (chapter 5 restating
    /// chapter 4, a default row repeated in Tables 5.2–5.5) is listed once, under its
    /// first source.
    fn add(
        &mut self,
        source: &'static str,
        experiment: String,
        metric: Metric,
        relative_to: Option<String>,
        value: f64,
    ) {
        if !self.0.iter().any(|q| {
            q.experiment == experiment
                && q.metric == metric
                && q.relative_to == relative_to
                && q.value == value
        }) {
            self.0.push(Published::new(
                source,
                experiment,
                metric,
                relative_to,
                value,
            ));
        }
    }

    /// One number per background of one setting (link, rtt, foreground): `metric` for
    /// each (background, value) of `rows`, against the same setting with background
    /// `base` when there is one (a change in %).
    fn per_bg(
        &mut self,
        source: &'static str,
        id: Id,
        (link, rtt, fg): (&str, u64, &str),
        metric: Metric,
        base: Option<&str>,
        rows: &[(&str, f64)],
    ) {
        for &(bg, value) in rows {
            let relative_to = base.map(|b| id(link, rtt, fg, b));
            self.add(source, id(link, rtt, fg, bg), metric, relative_to, value);
        }
    }

    /// A table of (mean, stdev) pairs: each row (rtt, algorithm, [mean, stdev] for each
    /// flow count of `ns`), the experiment `id(rtt, n, algorithm)`.
    fn mean_stdev<const K: usize>(
        &mut self,
        source: &'static str,
        rows: &[(u64, &str, [f64; K])],
        ns: &[u32],
        id: impl Fn(u64, u32, &str) -> String,
        (mean, stdev): (Metric, Metric),
    ) {
        for (rtt, alg, v) in rows {
            for (k, n) in ns.iter().enumerate() {
                let e = id(*rtt, *n, alg);
                self.add(source, e.clone(), mean, None, v[2 * k]);
                self.add(source, e, stdev, None, v[2 * k + 1]);
            }
        }
    }
}

fn published() -> Vec<Published> {
    let mut l = List(Vec::new());
    let nr1 = "newreno-short-1";
    let (dl, ul): (Id, Id) = (dl_id, ul_id);
    let fg_rtt = (Metric::FgRttMean, Metric::FgRttStdev);
    let bg_rtt = (Metric::BgRttMean, Metric::BgRttStdev);
    // Fig 4.1: 8/1 Mbit/s, 50 ms, one NewReno short foreground: median FTT (s).
    l.per_bg(
        "Fig 4.1",
        dl,
        ("8-1", 50, nr1),
        Metric::FgFtt,
        None,
        &[
            ("newreno", 8.4),
            ("tcp-lp", 9.2),
            ("ledbat", 8.7),
            ("cdg", 3.3),
            ("vegas", 3.3),
            ("nice", 3.5),
            ("apple-ledbat", 4.0),
            ("westwood-lp", 6.3),
        ],
    );
    // Fig 4.1: median background throughput (KiB/s).
    l.per_bg(
        "Fig 4.1",
        dl,
        ("8-1", 50, nr1),
        Metric::BgTput,
        None,
        &[
            ("newreno", 923.0),
            ("tcp-lp", 923.0),
            ("ledbat", 923.0),
            ("apple-ledbat", 848.0),
            ("cdg", 836.0),
        ],
    );
    // Fig 4.4: background throughput at 350 ms relative to a NewReno background (%).
    l.per_bg(
        "Fig 4.4",
        dl,
        ("8-1", 350, nr1),
        Metric::BgTput,
        Some("newreno"),
        &[
            ("apple-ledbat", -72.3),
            ("cdg", -81.5),
            ("westwood-lp", -47.6),
        ],
    );
    // Fig 4.8: CUBIC foreground, FTT change against a CUBIC background (%).
    l.per_bg(
        "Fig 4.8",
        dl,
        ("8-1", 50, "cubic-short-1"),
        Metric::FgFtt,
        Some("cubic"),
        &[
            ("tcp-lp", -15.0),
            ("ledbat", -18.5),
            ("cdg", -69.1),
            ("vegas", -64.7),
            ("nice", -61.8),
            ("apple-ledbat", -60.0),
        ],
    );
    // Fig 4.16: long-lived NewReno foreground, median throughput per connection (KiB/s).
    l.per_bg(
        "Fig 4.16",
        dl,
        ("8-1", 50, "newreno-long-1"),
        Metric::FgTput,
        None,
        &[
            ("newreno", 480.0),
            ("ledbat", 540.0),
            ("westwood-lp", 680.0),
            ("apple-ledbat", 793.0),
            ("tcp-lp", 829.0),
            ("cdg", 846.0),
            ("nice", 877.0),
            ("vegas", 886.0),
        ],
    );
    let t41: &[(u64, &str, [f64; 6])] = &[
        (50, "newreno", [125.0, 24.0, 135.0, 22.8, 144.0, 27.4]),
        (50, "tcp-lp", [112.0, 27.0, 132.0, 25.1, 141.0, 27.7]),
        (50, "ledbat", [132.0, 18.2, 135.0, 20.6, 142.0, 24.0]),
        (50, "nice", [126.0, 23.7, 135.0, 24.0, 142.0, 27.2]),
        (50, "westwood-lp", [114.0, 27.6, 133.0, 22.4, 143.0, 26.0]),
        (50, "apple-ledbat", [135.0, 25.5, 138.0, 23.4, 144.0, 27.1]),
        (50, "cdg", [126.0, 23.7, 136.0, 25.4, 144.0, 27.4]),
        (50, "vegas", [127.0, 24.4, 137.0, 23.3, 143.0, 27.0]),
        (350, "newreno", [900.0, 268.0, 922.0, 265.9, 905.0, 232.5]),
        (350, "tcp-lp", [584.0, 174.4, 882.0, 341.9, 871.0, 331.7]),
        (350, "ledbat", [624.0, 248.6, 697.0, 169.2, 830.0, 154.5]),
        (350, "nice", [987.0, 329.1, 872.0, 226.2, 871.0, 204.2]),
        (
            350,
            "westwood-lp",
            [894.0, 261.2, 948.0, 326.8, 919.0, 284.3],
        ),
        (
            350,
            "apple-ledbat",
            [600.0, 144.2, 793.0, 338.8, 861.0, 333.8],
        ),
        (350, "cdg", [869.0, 252.6, 882.0, 341.7, 906.0, 314.1]),
        (350, "vegas", [779.0, 266.2, 858.0, 214.4, 866.0, 240.0]),
    ];
    l.mean_stdev(
        "Table 4.1",
        t41,
        &[1, 4, 8],
        |rtt, n, bg| dl_id("8-1", rtt, &format!("newreno-long-{n}"), bg),
        fg_rtt,
    );
    let t42: &[(u64, &str, [f64; 2])] = &[
        (50, "cubic", [142.0, 13.7]),
        (50, "tcp-lp", [125.0, 22.2]),
        (50, "ledbat", [136.0, 16.5]),
        (50, "cdg", [134.0, 15.9]),
        (50, "vegas", [138.0, 13.7]),
        (350, "cubic", [952.0, 199.5]),
        (350, "tcp-lp", [746.0, 219.6]),
        (350, "apple-ledbat", [778.0, 215.1]),
        (350, "cdg", [838.0, 227.7]),
    ];
    l.mean_stdev(
        "Table 4.2",
        t42,
        &[1],
        |rtt, n, bg| dl_id("8-1", rtt, &format!("cubic-long-{n}"), bg),
        fg_rtt,
    );
    // Table 4.3: self-induced delay of 2, 4, 8 concurrent LBE flows (ms).
    let t43: &[(u64, &str, [f64; 6])] = &[
        (50, "newreno", [124.0, 26.3, 132.0, 25.7, 141.0, 28.6]),
        (50, "tcp-lp", [121.0, 30.1, 126.0, 28.9, 135.0, 34.4]),
        (50, "ledbat", [150.0, 15.8, 144.0, 19.3, 145.0, 21.0]),
        (50, "nice", [64.0, 13.4, 86.0, 19.4, 129.0, 18.9]),
        (50, "westwood-lp", [102.0, 39.4, 102.0, 39.4, 103.0, 40.9]),
        (50, "apple-ledbat", [127.0, 30.2, 135.0, 23.8, 142.0, 26.3]),
        (50, "cdg", [61.0, 9.0, 85.0, 15.4, 125.0, 22.4]),
        (50, "vegas", [63.0, 9.3, 88.0, 15.8, 132.0, 21.8]),
        (350, "newreno", [725.0, 287.9, 894.0, 288.3, 878.0, 284.0]),
        (350, "cdg", [353.0, 5.6, 354.0, 8.7, 358.0, 15.0]),
        (350, "nice", [526.0, 104.1, 600.0, 103.1, 557.0, 99.6]),
        (350, "vegas", [465.0, 133.5, 485.0, 116.7, 466.0, 86.7]),
    ];
    l.mean_stdev(
        "Table 4.3",
        t43,
        &[2, 4, 8],
        |rtt, n, alg| format!("fair/8-1/{rtt}ms/n{n}/{alg}"),
        bg_rtt,
    );

    // ---- Chapter 5 ----
    // Tables 5.2–5.5: the Yield parameter pre-study (8/1 Mbit/s, one NewReno short
    // foreground); FTT (s) and background throughput (KiB/s) at 50 and 350 ms.
    for &(table, set, v) in PRESTUDY {
        for (k, rtt) in PRE_RTTS_MS.iter().enumerate() {
            l.add(table, pre_id(*rtt, set), Metric::FgFtt, None, v[2 * k]);
            l.add(table, pre_id(*rtt, set), Metric::BgTput, None, v[2 * k + 1]);
        }
    }
    // Fig 5.3: 8/1 Mbit/s, 50 ms, one NewReno short foreground.
    let s = ("8-1", 50, nr1);
    let ftt = [("cdg", 3.3), ("nice", 3.5), ("yield", 4.0)];
    l.per_bg("Fig 5.3", dl, s, Metric::FgFtt, None, &ftt);
    l.per_bg(
        "Fig 5.3",
        dl,
        s,
        Metric::FgFtt,
        Some("newreno"),
        &[("yield", -53.0)],
    );
    let tput = [("yield", 903.0), ("nice", 915.0)];
    l.per_bg("Fig 5.3", dl, s, Metric::BgTput, None, &tput);
    // Fig 5.4: 4 and 8 NewReno short foreground flows: Yield's throughput against CDG's.
    for (n, pct) in [(4, 8.2), (8, 5.4)] {
        let s = ("8-1", 50, &*format!("newreno-short-{n}"));
        l.per_bg(
            "Fig 5.4",
            dl,
            s,
            Metric::BgTput,
            Some("cdg"),
            &[("yield", pct)],
        );
    }
    // Fig 5.5 (100 ms), §5.6.1 text (200 ms), Fig 5.6 (350 ms): FTT, and background
    // throughput against CDG's or against a NewReno background's.
    let s = ("8-1", 100, nr1);
    let ftt = [("cdg", 3.6), ("nice", 4.4), ("yield", 4.3)];
    l.per_bg("Fig 5.5", dl, s, Metric::FgFtt, None, &ftt);
    l.per_bg(
        "Fig 5.5",
        dl,
        s,
        Metric::BgTput,
        Some("cdg"),
        &[("yield", 17.8)],
    );
    for (src, rtt, cdg_ftt, yield_ftt, yield_loss, cdg_loss) in [
        ("§5.6.1", 200, 4.3, 5.2, -4.4, -48.7),
        ("Fig 5.6", 350, 5.2, 7.7, -15.7, -82.1),
    ] {
        let s = ("8-1", rtt, nr1);
        let ftt = [("cdg", cdg_ftt), ("yield", yield_ftt)];
        l.per_bg(src, dl, s, Metric::FgFtt, None, &ftt);
        let loss = [("yield", yield_loss), ("cdg", cdg_loss)];
        l.per_bg(src, dl, s, Metric::BgTput, Some("newreno"), &loss);
    }
    // Table 5.7: 50/20 Mbit/s, NewReno short foreground, 1/4/8 flows: FTT and background
    // throughput. (Fig 5.7's −8.8 % and −18.7 % are its 50 ms, 1-flow cells.) The Nice
    // 100 ms, 8-flow throughput is printed 4905 between 5905s (Ong 2020 notes §8 item 12).
    let t57: &[(u64, &str, [f64; 6])] = &[
        (50, "newreno", [2.0, 5981.0, 1.8, 5981.0, 1.5, 5981.0]),
        (50, "nice", [1.8, 5981.0, 2.1, 5977.0, 1.4, 5980.0]),
        (50, "cdg", [0.9, 4860.0, 0.8, 4885.0, 0.8, 4918.0]),
        (50, "yield", [1.0, 5456.0, 0.9, 5656.0, 0.8, 5832.0]),
        (100, "newreno", [2.0, 5947.0, 1.5, 5947.0, 1.4, 5947.0]),
        (100, "nice", [2.0, 5905.0, 1.6, 5905.0, 1.4, 5905.0]),
        (100, "cdg", [1.3, 3019.0, 1.0, 3005.0, 0.9, 2686.0]),
        (100, "yield", [2.0, 5946.0, 1.5, 5946.0, 1.4, 5946.0]),
        (200, "newreno", [2.3, 4591.0, 1.9, 4597.0, 1.7, 4595.0]),
        (200, "nice", [2.3, 4597.0, 1.9, 4597.0, 1.7, 4597.0]),
        (200, "cdg", [2.1, 988.0, 1.7, 877.0, 1.5, 1449.0]),
        (200, "yield", [2.3, 4598.0, 1.9, 4597.0, 1.7, 4441.0]),
        (350, "newreno", [3.6, 2606.0, 2.9, 2606.0, 2.5, 2605.0]),
        (350, "nice", [3.6, 2608.0, 2.9, 2607.0, 2.5, 2608.0]),
        (350, "cdg", [3.6, 883.0, 2.9, 306.0, 2.5, 1627.0]),
        (350, "yield", [3.6, 2615.0, 2.9, 2614.0, 2.5, 2613.0]),
    ];
    for (rtt, bg, v) in t57 {
        for (k, n) in [1, 4, 8].iter().enumerate() {
            let e = dl_id("50-20", *rtt, &format!("newreno-short-{n}"), bg);
            l.add("Table 5.7", e.clone(), Metric::FgFtt, None, v[2 * k]);
            let src = if (*rtt, *bg, *n) == (100, "nice", 8) {
                "Table 5.7 (printed 4905)"
            } else {
                "Table 5.7"
            };
            l.add(src, e, Metric::BgTput, None, v[2 * k + 1]);
        }
    }
    // CUBIC short foreground: Fig 5.8 (50 ms), Fig 5.9 (200 and 350 ms; FTT change
    // against a CUBIC and against a Nice background), Fig 5.10 (50/20 Mbit/s, 50 ms).
    let cu1 = "cubic-short-1";
    l.per_bg(
        "Fig 5.8",
        dl,
        ("8-1", 50, cu1),
        Metric::FgFtt,
        None,
        &[("yield", 5.0)],
    );
    for (rtt, vs_cubic, vs_nice) in [(200, -50.7, -4.6), (350, -51.0, -10.1)] {
        let s = ("8-1", rtt, cu1);
        l.per_bg(
            "Fig 5.9",
            dl,
            s,
            Metric::FgFtt,
            Some("cubic"),
            &[("yield", vs_cubic)],
        );
        l.per_bg(
            "Fig 5.9",
            dl,
            s,
            Metric::FgFtt,
            Some("nice"),
            &[("yield", vs_nice)],
        );
    }
    let s = ("50-20", 50, cu1);
    let ftt = [("yield", 1.3), ("nice", 1.9), ("cdg", 1.1)];
    l.per_bg("Fig 5.10", dl, s, Metric::FgFtt, None, &ftt);
    let tput = [("yield", -3.3), ("cdg", -18.0)];
    l.per_bg("Fig 5.10", dl, s, Metric::BgTput, Some("cubic"), &tput);
    // Fig 5.11: background upload, 8/1 Mbit/s, 50 ms, one NewReno short foreground.
    let s = ("8-1", 50, nr1);
    let ftt = [("yield", 6.8), ("cdg", 3.1), ("nice", 3.3)];
    l.per_bg("Fig 5.11", ul, s, Metric::FgFtt, None, &ftt);
    l.per_bg(
        "Fig 5.11",
        ul,
        s,
        Metric::FgFtt,
        Some("newreno"),
        &[("yield", -25.3)],
    );
    // Figs 5.15, 5.16: long-lived NewReno foreground, throughput per connection (KiB/s).
    for (rtt, n, bg, t) in [
        (50, 1, "yield", 640.0),
        (50, 1, "nice", 735.0),
        (50, 1, "cdg", 767.0),
        (50, 4, "yield", 204.0),
        (50, 4, "cdg", 209.0),
        (50, 4, "nice", 203.0),
        (350, 1, "yield", 332.0),
        (350, 1, "nice", 256.0),
    ] {
        l.add(
            if rtt == 50 { "Fig 5.15" } else { "Fig 5.16" },
            dl_id("8-1", rtt, &format!("newreno-long-{n}"), bg),
            Metric::FgTput,
            None,
            t,
        );
    }
    // Fig 5.17: 50/20 Mbit/s, 200 ms: foreground throughput change against a NewReno
    // background with 4 and 8 long-lived flows.
    for (n, pct) in [(4, 6.2), (8, -12.7)] {
        let s = ("50-20", 200, &*format!("newreno-long-{n}"));
        l.per_bg(
            "Fig 5.17",
            dl,
            s,
            Metric::FgTput,
            Some("newreno"),
            &[("yield", pct)],
        );
    }
    // Fig 5.18 and §5.6.2: one long-lived CUBIC foreground, throughput change against a
    // CUBIC background, at 50 ms and at high delay (350 ms).
    let cl1 = "cubic-long-1";
    let s = ("8-1", 50, cl1);
    l.per_bg(
        "Fig 5.18",
        dl,
        s,
        Metric::FgTput,
        Some("cubic"),
        &[("yield", 105.0)],
    );
    let tput = [("yield", 241.2), ("nice", 171.6), ("cdg", 375.8)];
    l.per_bg(
        "§5.6.2",
        dl,
        ("8-1", 350, cl1),
        Metric::FgTput,
        Some("cubic"),
        &tput,
    );
    // §5.6.2 LBE upload against one long-lived foreground download (8/1 Mbit/s, 50 ms):
    // throughput change against a NewReno / CUBIC upload ("twofold" = +100 %).
    for (fg, base, bg, pct) in [
        ("newreno-long-1", "newreno", "yield", 11.0),
        ("newreno-long-1", "newreno", "cdg", 100.0),
        ("newreno-long-1", "newreno", "nice", 100.0),
        ("cubic-long-1", "cubic", "yield", 0.0),
        ("cubic-long-1", "cubic", "cdg", 61.0),
        ("cubic-long-1", "cubic", "nice", 76.0),
    ] {
        l.per_bg(
            "§5.6.2",
            ul,
            ("8-1", 50, fg),
            Metric::FgTput,
            Some(base),
            &[(bg, pct)],
        );
    }
    // Tables 5.8 and 5.9: foreground RTT (median over runs of the per-run mean and
    // stdev, ms), 1/4/8 long-lived NewReno or CUBIC foreground flows, 8/1 Mbit/s.
    let t58: &[(u64, &str, [f64; 6])] = &[
        (50, "newreno", [125.0, 24.1, 135.0, 23.0, 143.0, 27.1]),
        (50, "nice", [126.0, 23.6, 135.0, 23.2, 142.0, 27.2]),
        (50, "cdg", [126.0, 23.0, 137.0, 24.6, 144.0, 27.4]),
        (50, "yield", [126.0, 22.1, 135.0, 22.8, 144.0, 26.9]),
        (100, "newreno", [249.0, 49.8, 257.0, 44.2, 266.0, 45.6]),
        (100, "nice", [249.0, 52.7, 262.0, 48.4, 268.0, 47.9]),
        (100, "cdg", [239.0, 56.8, 262.0, 53.7, 271.0, 52.2]),
        (100, "yield", [249.0, 49.0, 257.0, 48.5, 267.0, 43.1]),
        (200, "newreno", [507.0, 139.8, 513.0, 120.6, 514.0, 114.8]),
        (200, "nice", [483.0, 111.9, 510.0, 119.4, 514.0, 115.8]),
        (200, "cdg", [462.0, 157.6, 509.0, 144.8, 526.0, 135.1]),
        (200, "yield", [507.0, 103.1, 520.0, 126.2, 522.0, 123.0]),
        (350, "newreno", [900.0, 267.7, 916.0, 269.7, 905.0, 233.9]),
        (350, "nice", [796.0, 275.6, 875.0, 242.2, 864.0, 220.3]),
        (350, "cdg", [909.0, 245.0, 857.0, 343.0, 890.0, 322.4]),
        (350, "yield", [833.0, 179.2, 771.0, 234.3, 761.0, 203.6]),
    ];
    let t59: &[(u64, &str, [f64; 6])] = &[
        (50, "cubic", [143.0, 13.9, 147.0, 16.84, 152.0, 22.6]),
        (50, "nice", [136.0, 13.0, 145.0, 17.36, 151.0, 20.5]),
        (50, "cdg", [135.0, 16.2, 145.0, 17.12, 152.0, 21.2]),
        (50, "yield", [137.0, 12.6, 146.0, 16.08, 151.0, 20.4]),
        (100, "cubic", [270.0, 26.1, 282.0, 33.49, 290.0, 40.9]),
        (100, "nice", [263.0, 28.8, 273.0, 32.13, 286.0, 39.8]),
        (100, "cdg", [253.0, 38.6, 274.0, 30.87, 284.0, 37.8]),
        (100, "yield", [247.0, 38.1, 275.0, 38.13, 284.0, 36.7]),
        (200, "cubic", [538.0, 77.1, 553.0, 81.93, 563.0, 98.9]),
        (200, "nice", [510.0, 96.6, 533.0, 82.54, 560.0, 91.1]),
        (200, "cdg", [489.0, 89.3, 515.0, 97.60, 547.0, 89.6]),
        (200, "yield", [508.0, 91.2, 521.0, 95.64, 548.0, 81.2]),
        (350, "cubic", [948.0, 181.1, 968.0, 212.00, 987.0, 230.6]),
        (350, "nice", [897.0, 210.0, 927.0, 203.84, 964.0, 227.4]),
        (350, "cdg", [836.0, 228.8, 896.0, 247.92, 921.0, 263.5]),
        (350, "yield", [881.0, 208.8, 893.0, 124.22, 927.0, 225.4]),
    ];
    for (table, fg, rows) in [("Table 5.8", "newreno", t58), ("Table 5.9", "cubic", t59)] {
        let id = |rtt, n, bg: &str| dl_id("8-1", rtt, &format!("{fg}-long-{n}"), bg);
        l.mean_stdev(table, rows, &[1, 4, 8], id, fg_rtt);
    }
    // Table 5.10: self-induced delay of 2, 4, 8 concurrent flows, 8/1 Mbit/s (ms).
    let t510: &[(u64, &str, [f64; 6])] = &[
        (50, "newreno", [124.0, 26.2, 133.0, 25.4, 142.0, 28.3]),
        (50, "nice", [64.0, 13.3, 87.0, 18.2, 128.0, 19.8]),
        (50, "cdg", [61.0, 9.0, 85.0, 15.4, 125.0, 22.6]),
        (50, "yield", [83.0, 20.5, 99.0, 20.9, 144.0, 20.5]),
        (100, "newreno", [242.0, 58.1, 253.0, 55.8, 265.0, 53.4]),
        (100, "nice", [144.0, 44.3, 144.0, 45.4, 193.0, 42.9]),
        (100, "cdg", [105.0, 7.2, 110.0, 11.0, 131.0, 19.4]),
        (100, "yield", [167.0, 52.0, 188.0, 52.4, 217.0, 48.1]),
        (200, "newreno", [468.0, 143.9, 496.0, 138.8, 516.0, 129.3]),
        (200, "nice", [425.0, 75.0, 279.0, 71.6, 341.0, 96.2]),
        (200, "cdg", [204.0, 7.1, 207.0, 12.2, 211.0, 14.8]),
        (200, "yield", [447.0, 124.7, 420.0, 129.6, 429.0, 132.2]),
        (350, "newreno", [725.0, 287.7, 896.0, 288.5, 872.0, 280.1]),
        (350, "nice", [523.0, 108.7, 573.0, 105.1, 516.0, 87.2]),
        (350, "cdg", [352.0, 5.0, 354.0, 8.9, 360.0, 18.8]),
        (350, "yield", [856.0, 289.7, 705.0, 306.9, 797.0, 287.6]),
    ];
    l.mean_stdev(
        "Table 5.10",
        t510,
        &[2, 4, 8],
        |rtt, n, alg| fair_id("8-1", rtt, n, alg),
        bg_rtt,
    );
    // Figs 5.19 and 5.21 pool fairness runs: Fig 5.19 by flow count at 50 ms (over both
    // link speeds), Fig 5.21 by delay (over link speeds and flow counts). The 50/20
    // experiment is listed first: a partial pool (the quick study) gives no value.
    for (alg, j) in [("yield", 0.97), ("nice", 0.82)] {
        l.0.push(Published {
            source: "Fig 5.19 (pooled)",
            experiment: fair_id("50-20", 50, 8, alg),
            metric: Metric::Jain,
            relative_to: None,
            value: j,
            pool: vec![fair_id("8-1", 50, 8, alg)],
        });
    }
    for (rtt, j) in RTTS_MS.iter().zip([0.96, 0.92, 0.94, 0.95]) {
        let mut exps: Vec<String> = ["50-20", "8-1"]
            .iter()
            .flat_map(|l| [2, 4, 8].map(|n| fair_id(l, *rtt, n, "yield")))
            .collect();
        let first = exps.remove(0);
        l.0.push(Published {
            source: "Fig 5.21 (pooled)",
            experiment: first,
            metric: Metric::Jain,
            relative_to: None,
            value: j,
            pool: exps,
        });
    }
    l.0
}

fn fmt_opt(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.2}"))
}

fn claims() -> Vec<Claim> {
    let mut c: Vec<Claim> = Vec::new();
    c.push(Claim {
        source: "§4.7, Fig 4.1",
        text: "Low-impact mechanisms (Vegas, Nice, CDG, Apple LEDBAT, Westwood+LP) shorten a NewReno short foreground by at least 20 % against a NewReno background at 8/1 Mbit/s, 50 ms; LP and LEDBAT ('regular TCP-like') do not",
        check: Box::new(|r: &Results| {
            let ftt = |bg: &str| r.median(&dl_id("8-1", 50, "newreno-short-1", bg), Metric::FgFtt);
            let Some(base) = ftt("newreno") else { return ClaimOutcome { holds: None, evidence: "not run".into() } };
            let mut t = Tally::with(format!("NewReno bg {base:.2} s"));
            for bg in ["vegas", "nice", "cdg", "apple-ledbat", "westwood-lp"] {
                let v = ftt(bg);
                t.add(v.is_some_and(|v| v <= 0.8 * base), format!("{bg} {}", fmt_opt(v)));
            }
            for bg in ["tcp-lp", "ledbat"] {
                let v = ftt(bg);
                t.add(v.is_some_and(|v| v > 0.8 * base), format!("{bg} {}", fmt_opt(v)));
            }
            t.outcome(", ")
        }),
    });
    c.push(Claim {
        source: "§4.2.2, Fig 4.4",
        text: "At 350 ms, CDG and Apple LEDBAT lose the most background throughput (the two lowest of the LBE mechanisms)",
        check: Box::new(|r: &Results| {
            let mut v: Vec<(f64, &str)> = LBE.iter().filter_map(|&bg| r.median(&dl_id("8-1", 350, "newreno-short-1", bg), Metric::BgTput).map(|t| (t, bg))).collect();
            if v.len() < LBE.len() {
                return ClaimOutcome { holds: None, evidence: "not run".into() };
            }
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            let lowest: Vec<&str> = v.iter().take(2).map(|x| x.1).collect();
            ClaimOutcome { holds: Some(lowest.contains(&"cdg") && lowest.contains(&"apple-ledbat")), evidence: v.iter().map(|(t, b)| format!("{b} {t:.0}")).collect::<Vec<_>>().join(", ") }
        }),
    });
    c.push(Claim {
        source: "§4.4, Table 4.3",
        text: "CDG keeps its self-induced delay closest to the propagation delay (lowest RTT of all mechanisms, two flows, 8/1 Mbit/s, 50 ms)",
        check: Box::new(|r: &Results| {
            let v: Vec<(f64, &str)> = MECHANISMS.iter().filter_map(|&m| r.median(&format!("fair/8-1/50ms/n2/{m}"), Metric::BgRttMean).map(|x| (x, m))).collect();
            if v.is_empty() {
                return ClaimOutcome { holds: None, evidence: "not run".into() };
            }
            let min = v.iter().min_by(|a, b| a.0.total_cmp(&b.0)).expect("non-empty");
            ClaimOutcome { holds: Some(min.1 == "cdg"), evidence: v.iter().map(|(x, m)| format!("{m} {x:.0} ms")).collect::<Vec<_>>().join(", ") }
        }),
    });
    c.push(Claim {
        source: "§4.5, Fig 4.23",
        text: "Nice and Vegas are unfair among themselves (median Jain's index below 0.9); CDG is fair (at least 0.9), at 8/1 Mbit/s, 50 ms",
        check: Box::new(|r: &Results| {
            let j = |m: &str, n: u32| r.median(&format!("fair/8-1/50ms/n{n}/{m}"), Metric::Jain);
            let ns = [2u32, 4, 8];
            let got: Vec<String> = ["nice", "vegas", "cdg"].iter().flat_map(|m| ns.iter().map(move |&n| (m, n))).filter_map(|(m, n)| j(m, n).map(|x| format!("{m}/{n} {x:.2}"))).collect();
            if got.is_empty() {
                return ClaimOutcome { holds: None, evidence: "not run".into() };
            }
            let ok = ns.iter().all(|&n| j("nice", n).is_none_or(|x| x < 0.9) && j("vegas", n).is_none_or(|x| x < 0.9) && j("cdg", n).is_none_or(|x| x >= 0.9));
            ClaimOutcome { holds: Some(ok), evidence: got.join(", ") }
        }),
    });
    c.push(Claim {
        source: "§4.3, Fig 4.16",
        text: "Against a long-lived NewReno foreground, every LBE mechanism except LEDBAT leaves the foreground at least 30 % more throughput than a NewReno background does",
        check: Box::new(|r: &Results| {
            let fg = |bg: &str| r.median(&dl_id("8-1", 50, "newreno-long-1", bg), Metric::FgTput);
            let Some(base) = fg("newreno") else { return ClaimOutcome { holds: None, evidence: "not run".into() } };
            let mut t = Tally::with(format!("NewReno bg {base:.0}"));
            for bg in LBE.iter().filter(|b| **b != "ledbat") {
                let v = fg(bg);
                t.add(v.is_some_and(|v| v >= 1.3 * base), format!("{bg} {}", v.map_or("-".into(), |v| format!("{v:.0}"))));
            }
            t.outcome(", ")
        }),
    });
    c.extend(ch5_claims());
    c
}

fn not_run() -> ClaimOutcome {
    ClaimOutcome {
        holds: None,
        evidence: "not run".into(),
    }
}

/// A claim checked at several points: it holds when every point that ran holds, and is
/// "not run" when none ran.
struct Tally {
    ok: bool,
    evidence: Vec<String>,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            ok: true,
            evidence: Vec::new(),
        }
    }

    /// A tally whose evidence opens with `head` (the baseline the points compare with).
    fn with(head: String) -> Tally {
        Tally {
            ok: true,
            evidence: vec![head],
        }
    }

    fn add(&mut self, holds: bool, evidence: String) {
        self.ok &= holds;
        self.evidence.push(evidence);
    }

    fn outcome(self, sep: &str) -> ClaimOutcome {
        if self.evidence.is_empty() {
            return not_run();
        }
        ClaimOutcome {
            holds: Some(self.ok),
            evidence: self.evidence.join(sep),
        }
    }
}

/// Percentage reduction of `v` against `base` (positive = lower).
fn reduction(v: f64, base: f64) -> f64 {
    (1.0 - v / base) * 100.0
}

/// The mean over experiments of the reduction of a metric's median against a reference
/// experiment: `None` unless every pair has runs (an aggregate of the thesis's text is
/// only checked on the full study).
fn mean_reduction(r: &Results, pairs: &[(String, String)], m: Metric) -> Option<f64> {
    let mut sum = 0.0;
    for (e, base) in pairs {
        sum += reduction(r.median(e, m)?, r.median(base, m)?);
    }
    (!pairs.is_empty()).then(|| sum / pairs.len() as f64)
}

/// Why a claim over `exps` cannot be checked: experiments not in this run of the study, or
/// runs without the metric (a foreground that did not finish within the run).
fn why_missing(r: &Results, exps: &[&str], m: Metric) -> String {
    let not_ran = exps.iter().filter(|e| !r.has_runs(e)).count();
    let unfinished: Vec<&str> = exps
        .iter()
        .copied()
        .filter(|e| r.has_runs(e) && r.median(e, m).is_none())
        .collect();
    let mut why = Vec::new();
    if not_ran > 0 {
        why.push(format!(
            "{not_ran} of {} experiments not in this study run (needs the full study)",
            exps.len()
        ));
    }
    if !unfinished.is_empty() {
        why.push(format!("no {} in {}", m.name(), unfinished.join(", ")));
    }
    why.join("; ")
}

/// [`why_missing`] for the experiments of `pairs`, as a claim's outcome.
fn missing_pairs(r: &Results, pairs: &[&[(String, String)]], m: Metric) -> ClaimOutcome {
    let mut ids: Vec<&str> = pairs
        .iter()
        .flat_map(|p| p.iter())
        .flat_map(|(a, b)| [a.as_str(), b.as_str()])
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ClaimOutcome {
        holds: None,
        evidence: why_missing(r, &ids, m),
    }
}

/// Same-direction short-foreground experiments at one delay on both chapter 5 links,
/// 1/4/8 flows, with the NewReno (CUBIC) foreground against `bg` and against a NewReno
/// (CUBIC) background.
fn short_pairs(scen: &str, rtt: u64, fg: &str, bg: &str) -> Vec<(String, String)> {
    let id = |link: &str, n: u32, b: &str| {
        if scen == "ul" {
            ul_id(link, rtt, &format!("{fg}-short-{n}"), b)
        } else {
            dl_id(link, rtt, &format!("{fg}-short-{n}"), b)
        }
    };
    CH5_LINKS
        .iter()
        .flat_map(|&(d, u)| [1u32, 4, 8].map(move |n| (link_label(d, u), n)))
        .map(|(l, n)| (id(&l, n, bg), id(&l, n, fg)))
        .collect()
}

fn ch5_claims() -> Vec<Claim> {
    let mut c: Vec<Claim> = Vec::new();
    c.push(Claim {
        source: "§5.6.1, Fig 5.3; §7.5",
        text: "Chapter 5, 8/1 Mbit/s, 50 ms, one NewReno short foreground: Yield shortens the FTT by at least 40 % against a NewReno background, but is slightly more aggressive than Nice and CDG (thesis: CDG 3.3, Nice 3.5, Yield 4.0, NewReno 8.4 s)",
        check: Box::new(|r: &Results| {
            let ftt = |bg: &str| r.median(&dl_id("8-1", 50, "newreno-short-1", bg), Metric::FgFtt);
            let (Some(nr), Some(y), Some(nice), Some(cdg)) = (ftt("newreno"), ftt("yield"), ftt("nice"), ftt("cdg")) else { return not_run() };
            ClaimOutcome { holds: Some(y <= 0.6 * nr && y >= nice && y >= cdg), evidence: format!("NewReno {nr:.2} s, CDG {cdg:.2}, Nice {nice:.2}, Yield {y:.2} ({:.0} % below NewReno)", reduction(y, nr)) }
        }),
    });
    c.push(Claim {
        source: "§5.6.1, Fig 5.3; §7.5",
        text: "Chapter 5, 8/1 Mbit/s, 50 ms, one NewReno short foreground: Yield's background throughput is within 5 % of Nice's and above CDG's (thesis: 903 vs 915 KiB/s, CDG relatively low)",
        check: Box::new(|r: &Results| {
            let t = |bg: &str| r.median(&dl_id("8-1", 50, "newreno-short-1", bg), Metric::BgTput);
            let (Some(y), Some(nice), Some(cdg)) = (t("yield"), t("nice"), t("cdg")) else { return not_run() };
            ClaimOutcome { holds: Some((y / nice - 1.0).abs() <= 0.05 && y > cdg), evidence: format!("Yield {y:.0}, Nice {nice:.0}, CDG {cdg:.0} KiB/s") }
        }),
    });
    c.push(Claim {
        source: "§5.6.1, Fig 5.6; §7.5",
        text: "At 200 and 350 ms (8/1 Mbit/s, one NewReno short foreground) Yield still shortens the FTT against a NewReno background and loses less than half the background throughput CDG loses (thesis: −4.4 vs −48.7 %, −15.7 vs −82.1 %)",
        check: Box::new(|r: &Results| {
            let mut t = Tally::new();
            for rtt in [200, 350] {
                let m = |bg: &str, met: Metric| r.median(&dl_id("8-1", rtt, "newreno-short-1", bg), met);
                let (Some(nr_f), Some(y_f), Some(nr_t), Some(y_t), Some(cdg_t)) = (m("newreno", Metric::FgFtt), m("yield", Metric::FgFtt), m("newreno", Metric::BgTput), m("yield", Metric::BgTput), m("cdg", Metric::BgTput)) else { continue };
                let (yl, cl) = (reduction(y_t, nr_t), reduction(cdg_t, nr_t));
                t.add(y_f < nr_f && yl < 0.5 * cl, format!("{rtt} ms: FTT Yield {y_f:.2} vs NewReno {nr_f:.2} s, throughput loss Yield {yl:.1} %, CDG {cl:.1} %"));
            }
            t.outcome("; ")
        }),
    });
    c.push(Claim {
        source: "§5.6.1, Figs 5.5, 5.9; §5.7",
        text: "At high delay Yield has a lower impact than Nice: the FTT with a Yield background is no longer than with Nice at 200 and 350 ms, NewReno and CUBIC foreground (8/1 Mbit/s, one flow; thesis CUBIC: −4.6 and −10.1 % against Nice)",
        check: Box::new(|r: &Results| {
            let mut t = Tally::new();
            for fg in ["newreno-short-1", "cubic-short-1"] {
                for rtt in [200, 350] {
                    let ftt = |bg: &str| r.median(&dl_id("8-1", rtt, fg, bg), Metric::FgFtt);
                    let (Some(y), Some(n)) = (ftt("yield"), ftt("nice")) else { continue };
                    t.add(y <= n, format!("{fg} {rtt} ms: Yield {y:.2} vs Nice {n:.2} s"));
                }
            }
            t.outcome("; ")
        }),
    });
    c.push(Claim {
        source: "§5.6.1, Fig 5.4",
        text: "With 4 and 8 NewReno short foreground flows (8/1 Mbit/s, 50 ms) Yield's FTT equals CDG's (within 10 %) and its background throughput is higher (thesis: +8.2 and +5.4 %)",
        check: Box::new(|r: &Results| {
            let mut t = Tally::new();
            for n in [4, 8] {
                let m = |bg: &str, met: Metric| r.median(&dl_id("8-1", 50, &format!("newreno-short-{n}"), bg), met);
                let (Some(yf), Some(cf), Some(yt), Some(ct)) = (m("yield", Metric::FgFtt), m("cdg", Metric::FgFtt), m("yield", Metric::BgTput), m("cdg", Metric::BgTput)) else { continue };
                t.add((yf / cf - 1.0).abs() <= 0.1 && yt > ct, format!("{n} flows: FTT Yield {yf:.2} vs CDG {cf:.2} s, throughput {yt:.0} vs {ct:.0} KiB/s"));
            }
            t.outcome("; ")
        }),
    });
    c.push(Claim {
        source: "§5.6.1, Table 5.7",
        text: "At 50/20 Mbit/s, 350 ms, NewReno, Nice, CDG and Yield backgrounds give the same FTT (within 10 %) for 1, 4 and 8 NewReno foreground flows, and CDG gets less than half NewReno's throughput without an FTT benefit",
        check: Box::new(|r: &Results| {
            let mut t = Tally::new();
            for n in [1, 4, 8] {
                let fg = format!("newreno-short-{n}");
                let f: Vec<Option<f64>> = ["newreno", "nice", "cdg", "yield"].iter().map(|bg| r.median(&dl_id("50-20", 350, &fg, bg), Metric::FgFtt)).collect();
                let (Some(nr_t), Some(cdg_t)) = (r.median(&dl_id("50-20", 350, &fg, "newreno"), Metric::BgTput), r.median(&dl_id("50-20", 350, &fg, "cdg"), Metric::BgTput)) else { continue };
                let Some(f) = f.into_iter().collect::<Option<Vec<f64>>>() else { continue };
                let (lo, hi) = f.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
                t.add(hi <= 1.1 * lo && cdg_t < 0.5 * nr_t, format!("{n} flows: FTT NewReno/Nice/CDG/Yield {}, throughput CDG {cdg_t:.0} vs NewReno {nr_t:.0} KiB/s", f.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join("/")));
            }
            t.outcome("; ")
        }),
    });
    c.push(Claim {
        source: "§5.6.2, Figs 5.15, 5.18",
        text: "Against one long-lived foreground (8/1 Mbit/s, 50 ms) Yield is the least friendly of Yield, Nice and CDG, but leaves the foreground more throughput than a NewReno (CUBIC) background does (thesis NewReno: Yield 640, Nice 735, CDG 767 KiB/s; CUBIC: Yield +105 %)",
        check: Box::new(|r: &Results| {
            let mut t = Tally::new();
            for (fg, base) in [("newreno-long-1", "newreno"), ("cubic-long-1", "cubic")] {
                let tput = |bg: &str| r.median(&dl_id("8-1", 50, fg, bg), Metric::FgTput);
                let (Some(y), Some(n), Some(cd), Some(b)) = (tput("yield"), tput("nice"), tput("cdg"), tput(base)) else { continue };
                t.add(y <= n && y <= cd && y > b, format!("{fg}: Yield {y:.0}, Nice {n:.0}, CDG {cd:.0}, {base} {b:.0} KiB/s"));
            }
            t.outcome("; ")
        }),
    });
    c.push(Claim {
        source: "§5.6.2, Fig 5.16",
        text: "At 350 ms Yield leaves one long-lived NewReno foreground more throughput than Nice does (thesis: 332 vs 256 KiB/s)",
        check: Box::new(|r: &Results| {
            let t = |bg: &str| r.median(&dl_id("8-1", 350, "newreno-long-1", bg), Metric::FgTput);
            let (Some(y), Some(n)) = (t("yield"), t("nice")) else { return not_run() };
            ClaimOutcome { holds: Some(y > n), evidence: format!("Yield {y:.0}, Nice {n:.0} KiB/s") }
        }),
    });
    c.push(Claim {
        source: "§5.6.1, Fig 5.11; §7.5",
        text: "Uploading (8/1 Mbit/s, 50 ms, one NewReno short foreground download), Yield is less friendly than Nice and CDG but still shortens the FTT against a NewReno upload (thesis: Yield 6.8, Nice 3.3, CDG 3.1 s, −25.3 %)",
        check: Box::new(|r: &Results| {
            let ids: Vec<String> = ["yield", "nice", "cdg", "newreno"].iter().map(|bg| ul_id("8-1", 50, "newreno-short-1", bg)).collect();
            let ftt = |i: usize| r.median(&ids[i], Metric::FgFtt);
            let (Some(y), Some(n), Some(cd)) = (ftt(0), ftt(1), ftt(2)) else { return ClaimOutcome { holds: None, evidence: why_missing(r, &ids.iter().map(String::as_str).collect::<Vec<_>>(), Metric::FgFtt) } };
            // A foreground that does not finish against a NewReno upload took longer than any
            // that did.
            let (nr_ok, nr) = match ftt(3) {
                Some(nr) => (y < nr, format!("{nr:.2} s")),
                None if r.has_runs(&ids[3]) => (true, format!("unfinished after {} s", RUN_S - SHORT_START_S)),
                None => return not_run(),
            };
            ClaimOutcome { holds: Some(y > n && y > cd && nr_ok), evidence: format!("Yield {y:.2}, Nice {n:.2}, CDG {cd:.2} s, NewReno {nr}") }
        }),
    });
    c.push(Claim {
        source: "§5.6.3, Table 5.8",
        text: "At 350 ms (8/1 Mbit/s, long-lived NewReno foreground) Yield reduces the foreground RTT against a NewReno background, averaged over 1/4/8 flows, and by more than Nice and CDG do (thesis: Yield 13.1 %, Nice 6.9 %, CDG −5 %)",
        check: Box::new(|r: &Results| {
            let ns: Vec<u32> = [1, 4, 8].into_iter().filter(|n| ["newreno", "yield", "nice", "cdg"].iter().all(|bg| r.median(&dl_id("8-1", 350, &format!("newreno-long-{n}"), bg), Metric::FgRttMean).is_some())).collect();
            if ns.is_empty() {
                return not_run();
            }
            let red = |bg: &str| {
                let pairs: Vec<(String, String)> = ns.iter().map(|n| (dl_id("8-1", 350, &format!("newreno-long-{n}"), bg), dl_id("8-1", 350, &format!("newreno-long-{n}"), "newreno"))).collect();
                mean_reduction(r, &pairs, Metric::FgRttMean).expect("checked")
            };
            let (y, n, cd) = (red("yield"), red("nice"), red("cdg"));
            ClaimOutcome { holds: Some(y > 0.0 && y > n && y > cd), evidence: format!("flows {ns:?}: mean reduction Yield {y:.1} %, Nice {n:.1} %, CDG {cd:.1} %") }
        }),
    });
    c.push(Claim {
        source: "§5.6.3, Table 5.10",
        text: "Yield's self-induced delay (2/4/8 flows, 8/1 Mbit/s) is below NewReno's in most settings (thesis: 10 of 12; 2 flows at 350 ms +18 %) and above CDG's in all",
        check: Box::new(|r: &Results| {
            let (mut below, mut total, mut cdg_lowest) = (0, 0, true);
            let mut ev = Vec::new();
            for &rtt in RTTS_MS {
                for n in [2, 4, 8] {
                    let m = |a: &str| r.median(&fair_id("8-1", rtt, n, a), Metric::BgRttMean);
                    let (Some(y), Some(nr), Some(cd)) = (m("yield"), m("newreno"), m("cdg")) else { continue };
                    total += 1;
                    below += usize::from(y < nr);
                    cdg_lowest &= cd < y;
                    ev.push(format!("{rtt} ms n{n}: Yield {y:.0}, NewReno {nr:.0}, CDG {cd:.0}"));
                }
            }
            if total == 0 {
                return not_run();
            }
            ClaimOutcome { holds: Some(4 * below >= 3 * total && cdg_lowest), evidence: format!("below NewReno in {below} of {total}; {}", ev.join(", ")) }
        }),
    });
    c.push(Claim {
        source: "§5.6.4, Figs 5.19–5.21; §5.7",
        text: "Yield is at least as fair as Nice in every fairness setting (median Jain's index; thesis: mean gain 0.15, at most 0.69)",
        check: Box::new(|r: &Results| {
            let mut ok = true;
            let mut gains = Vec::new();
            for &(d, u) in CH5_LINKS {
                for &rtt in RTTS_MS {
                    for n in [2, 4, 8] {
                        let j = |a: &str| r.median(&fair_id(&link_label(d, u), rtt, n, a), Metric::Jain);
                        let (Some(y), Some(ni)) = (j("yield"), j("nice")) else { continue };
                        ok &= y >= ni;
                        gains.push((format!("{}/{rtt}/n{n}", link_label(d, u)), y - ni));
                    }
                }
            }
            if gains.is_empty() {
                return not_run();
            }
            let mean = gains.iter().map(|g| g.1).sum::<f64>() / gains.len() as f64;
            let worst = gains.iter().min_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
            ClaimOutcome { holds: Some(ok), evidence: format!("{} settings, mean gain {mean:+.3}, lowest {:+.3} ({})", gains.len(), worst.1, worst.0) }
        }),
    });
    c.push(Claim {
        source: "§5.6.4, Figs 5.19, 5.21",
        text: "Yield's fairness is high and consistent: median Jain's index at least 0.9 in every fairness setting on the 8/1 link and at every delay (thesis, pooled over links and flow counts: 0.96/0.92/0.94/0.95)",
        check: Box::new(|r: &Results| {
            let mut t = Tally::new();
            for &rtt in RTTS_MS {
                for n in [2, 4, 8] {
                    let Some(j) = r.median(&fair_id("8-1", rtt, n, "yield"), Metric::Jain) else { continue };
                    t.add(j >= 0.9, format!("{rtt} ms n{n} {j:.3}"));
                }
            }
            t.outcome(", ")
        }),
    });
    c.push(Claim {
        source: "§5.6.4, Fig 5.19",
        text: "Yield does not exceed CDG's fairness at 50 ms (CDG's median Jain's index ≥ Yield's, 8/1 Mbit/s, 2/4/8 flows)",
        check: Box::new(|r: &Results| {
            let mut t = Tally::new();
            for n in [2, 4, 8] {
                let j = |a: &str| r.median(&fair_id("8-1", 50, n, a), Metric::Jain);
                let (Some(y), Some(cd)) = (j("yield"), j("cdg")) else { continue };
                t.add(cd >= y, format!("n{n}: CDG {cd:.3}, Yield {y:.3}"));
            }
            t.outcome(", ")
        }),
    });
    for (rtt, src, text) in [
        (50, "§5.7", "At low delay (50 ms; both links, 1/4/8 short flows, downloads) Yield's mean FTT reduction against NewReno and CUBIC backgrounds exceeds Nice's (thesis: 39.2 and 46.4 % vs 26.7 and 35.9 %)"),
        (350, "§5.7", "At high delay (350 ms; both links, 1/4/8 short flows, downloads) Yield still reduces the FTT on average against NewReno and CUBIC backgrounds, by more than Nice does (thesis: 13.2 and 32.2 %; Nice typically increased it)"),
    ] {
        c.push(Claim {
            source: src,
            text,
            check: Box::new(move |r: &Results| {
                let mut t = Tally::new();
                for fg in ["newreno", "cubic"] {
                    let (py, pn) = (short_pairs("dl", rtt, fg, "yield"), short_pairs("dl", rtt, fg, "nice"));
                    let (Some(y), Some(n)) = (mean_reduction(r, &py, Metric::FgFtt), mean_reduction(r, &pn, Metric::FgFtt)) else {
                        return missing_pairs(r, &[&py, &pn], Metric::FgFtt);
                    };
                    t.add(y > n && y > 0.0, format!("{fg}: Yield {y:.1} %, Nice {n:.1} %"));
                }
                t.outcome("; ")
            }),
        });
    }
    c.push(Claim {
        source: "§5.7",
        text: "Uploads (both links, all delays, 1/4/8 short flows): Yield's mean FTT reduction against a NewReno and a CUBIC upload is positive but smaller than Nice's and CDG's (thesis: 6 and 23 %)",
        check: Box::new(|r: &Results| {
            let mut t = Tally::new();
            for fg in ["newreno", "cubic"] {
                let pairs = |bg: &str| RTTS_MS.iter().flat_map(|&rtt| short_pairs("ul", rtt, fg, bg)).collect::<Vec<_>>();
                let (py, pn, pc) = (pairs("yield"), pairs("nice"), pairs("cdg"));
                let (Some(y), Some(n), Some(cd)) = (mean_reduction(r, &py, Metric::FgFtt), mean_reduction(r, &pn, Metric::FgFtt), mean_reduction(r, &pc, Metric::FgFtt)) else {
                    return missing_pairs(r, &[&py, &pn, &pc], Metric::FgFtt);
                };
                t.add(y > 0.0 && y < n && y < cd, format!("{fg}: Yield {y:.1} %, Nice {n:.1} %, CDG {cd:.1} %"));
            }
            t.outcome("; ")
        }),
    });
    // The parameter pre-study.
    let pre = |r: &Results, rtt: u64, s: YieldSet, m: Metric| r.median(&pre_id(rtt, s), m);
    c.push(Claim {
        source: "§5.4.2, Table 5.2",
        text: "max_reduction barely matters at 50 ms (FTT and throughput within 10 % across 0–3) but the default 3 gives the shortest FTT at 350 ms (thesis: 6.9 vs 9.3–11.1 s)",
        check: Box::new(move |r: &Results| {
            let sets: Vec<(u32, [Option<f64>; 3])> = (0..=3).map(|mr| {
                let s = ys(mr, 2, 2, 128);
                (mr, [pre(r, 50, s, Metric::FgFtt), pre(r, 50, s, Metric::BgTput), pre(r, 350, s, Metric::FgFtt)])
            }).filter(|(_, v)| v.iter().all(Option::is_some)).collect();
            if sets.len() < 2 || sets.iter().all(|(mr, _)| *mr != 3) {
                return not_run();
            }
            let v: Vec<(u32, [f64; 3])> = sets.into_iter().map(|(mr, x)| (mr, x.map(|y| y.expect("filtered")))).collect();
            let spread = |k: usize| {
                let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(a, b), (_, x)| (a.min(x[k]), b.max(x[k])));
                hi / lo - 1.0
            };
            let def = v.iter().find(|(mr, _)| *mr == 3).expect("checked").1[2];
            let ok = spread(0) <= 0.1 && spread(1) <= 0.1 && v.iter().all(|(mr, x)| *mr == 3 || x[2] > def);
            ClaimOutcome { holds: Some(ok), evidence: v.iter().map(|(mr, x)| format!("max_reduction {mr}: 50 ms {:.2} s {:.0} KiB/s, 350 ms {:.2} s", x[0], x[1], x[2])).collect::<Vec<_>>().join("; ") }
        }),
    });
    c.push(Claim {
        source: "§5.4.2, Table 5.4",
        text: "Without delay smoothing (hist_factor 0) Yield gets less throughput at 50 ms and a longer FTT at 350 ms than with the default 2 (thesis: 866 vs 904 KiB/s; 7.5 vs 6.9 s)",
        check: Box::new(move |r: &Results| {
            let (h0, h2) = (ys(3, 2, 0, 128), YIELD_DEFAULTS);
            let (Some(t0), Some(t2), Some(f0), Some(f2)) = (pre(r, 50, h0, Metric::BgTput), pre(r, 50, h2, Metric::BgTput), pre(r, 350, h0, Metric::FgFtt), pre(r, 350, h2, Metric::FgFtt)) else { return not_run() };
            ClaimOutcome { holds: Some(t0 < t2 && f0 > f2), evidence: format!("50 ms throughput {t0:.0} vs {t2:.0} KiB/s; 350 ms FTT {f0:.2} vs {f2:.2} s") }
        }),
    });
    c.push(Claim {
        source: "§5.4.2, Table 5.5",
        text: "Short trend averaging (trend_factor 8) costs background throughput at 350 ms against the default 128, with hist_factor 0 and 2 (thesis: 659 vs 782, 630 vs 742 KiB/s)",
        check: Box::new(move |r: &Results| {
            let mut t = Tally::new();
            for h in [0, 2] {
                let (Some(t8), Some(t128)) = (pre(r, 350, ys(3, 2, h, 8), Metric::BgTput), pre(r, 350, ys(3, 2, h, 128), Metric::BgTput)) else { continue };
                t.add(t8 < t128, format!("hist_factor {h}: {t8:.0} vs {t128:.0} KiB/s"));
            }
            t.outcome("; ")
        }),
    });
    c
}

/// One short and one long NewReno foreground flow (the quick study's foregrounds).
const ONE_NEWRENO: [Fg; 2] = [
    Fg::Short {
        alg: "newreno",
        n: 1,
    },
    Fg::Long {
        alg: "newreno",
        n: 1,
    },
];

/// The full study's experiments of background `bg` on `links`: at every delay, 1, 4 and 8
/// short and long NewReno and CUBIC foreground flows, downloads and uploads, then
/// fairness with 2, 4 and 8 flows.
fn full(ex: &mut Vec<Experiment>, links: &[(f64, f64)], bgs: &[&str]) {
    for &(down, up) in links {
        for &rtt in RTTS_MS {
            for &bg in bgs {
                for alg in ["newreno", "cubic"] {
                    for n in [1, 4, 8] {
                        for upload in [false, true] {
                            ex.push(downloads(down, up, rtt, bg, Fg::Short { alg, n }, upload));
                            ex.push(downloads(down, up, rtt, bg, Fg::Long { alg, n }, upload));
                        }
                    }
                }
                for n in [2, 4, 8] {
                    ex.push(fairness(down, up, rtt, bg, n));
                }
            }
        }
    }
}

pub fn study(quick: bool) -> StudyDef {
    let mut ex = Vec::new();
    if quick {
        // The representative subset: the baseline ADSL link at 50 and 350 ms, one
        // foreground flow of each kind, fairness with 2 and 4 flows at 50 ms.
        for &rtt in &[50, 350] {
            for &bg in MECHANISMS {
                for fg in ONE_NEWRENO {
                    ex.push(downloads(8.0, 1.0, rtt, bg, fg, false));
                }
                if rtt == 50 {
                    let fg = Fg::Short { alg: "cubic", n: 1 };
                    ex.push(downloads(8.0, 1.0, rtt, bg, fg, false));
                }
            }
        }
        for &alg in MECHANISMS {
            for n in [2, 4] {
                ex.push(fairness(8.0, 1.0, 50, alg, n));
            }
        }
        // Chapter 5: Yield beside the chapter 4 runs above (at 50 and 350 ms, one short
        // and one long NewReno foreground flow; fairness with 2 flows at 50 ms), and one
        // row of the pre-study (Table 5.2, max_reduction = 0).
        for &rtt in &[50, 350] {
            for fg in ONE_NEWRENO {
                ex.push(downloads(8.0, 1.0, rtt, "yield", fg, false));
            }
        }
        ex.push(fairness(8.0, 1.0, 50, "yield", 2));
        for rtt in PRE_RTTS_MS {
            ex.push(prestudy(rtt, ys(0, 2, 2, 128)));
        }
    } else {
        full(&mut ex, LINKS, MECHANISMS);
        // Chapter 5 (§3.8, Table 5.6): the same scenarios for Yield on two of the links;
        // NewReno, CUBIC, Nice and CDG there are the chapter 4 experiments above.
        let new: Vec<&str> = CH5_MECHANISMS
            .iter()
            .copied()
            .filter(|m| !MECHANISMS.contains(m))
            .collect();
        full(&mut ex, CH5_LINKS, &new);
        for rtt in PRE_RTTS_MS {
            for s in prestudy_settings() {
                ex.push(prestudy(rtt, s));
            }
        }
    }
    StudyDef {
        name: "ong2020",
        title: "Ong 2020, chapters 4 and 5: LBE mechanisms and Yield against NewReno and CUBIC foreground traffic",
        quick,
        experiments: ex,
        seeds: if quick { (1..=3).collect() } else { (1..=10).collect() },
        published: published(),
        claims: claims(),
        table: vec![Metric::FgFtt, Metric::BgTput, Metric::FgTput, Metric::FgRttMean, Metric::BgRttMean, Metric::Jain, Metric::BgSpareShare],
        cv: vec![Metric::FgFtt, Metric::BgTput],
        plots: vec![
            Plot::Scatter { heading: "Foreground transaction time against background throughput", x: Metric::FgFtt, y: Metric::BgTput, pantheon: false },
            Plot::Scatter { heading: "Fairness: Jain's index against RTT", x: Metric::Jain, y: Metric::BgRttMean, pantheon: false },
            Plot::Cdf { heading: "Distribution of Jain's index over runs", metric: Metric::Jain },
        ],
        notes: vec![
            "Links of Table 3.1; buffers 2 × BDP of the downlink rounded up to 5 packets, the same packet count on the uplink; drop-tail, no ECN.",
            "Runs last 60 s. The short foreground (2469 KiB split over N connections) starts at 10 s, long-lived foreground flows at 5 s; the source does not say when.",
            "RTT tables: ours is the foreground flows' sender-side RTT (the source does not say whose RTT its Tables 4.1/4.2 report).",
            "Fairness flows start 10 ms apart; Jain's index over their throughput from 1 s to the end.",
            "CDG runs as Linux tcp_cdg with its defaults (variant = linux).",
            "Chapter 5: Yield (Table 5.1 defaults, OWD from 1 ms timestamps) on the 8/1 and 50/20 Mbit/s links in the chapter 4 scenarios (ids ch5/…); Nice, CDG, NewReno and CUBIC there are the chapter 4 experiments, so chapter 5's numbers for them are compared with the same runs.",
            "Yield pre-study (Tables 5.2–5.5, ids pre/…): 8/1 Mbit/s, 50 and 350 ms, one NewReno short foreground, one parameter changed from the defaults; the default row is the main evaluation's Yield experiment.",
            "Figs 5.19 and 5.21 pool fairness runs over link speeds (and flow counts, Fig 5.21); ours is the median of the pooled runs, given only when every pooled experiment ran.",
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scavenger_cc::algorithms::cdg::CdgConfig;
    use scavenger_cc::algorithms::yield_tcp::YieldConfig;

    #[test]
    fn buffers_reproduce_table_3_1() {
        let want = [
            (8.0, [70, 135, 270, 470]),
            (24.0, [200, 400, 800, 1400]),
            (50.0, [420, 835, 1670, 2920]),
            (100.0, [835, 1670, 3335, 5835]),
        ];
        for (down, bufs) in want {
            for (rtt, b) in RTTS_MS.iter().zip(bufs) {
                assert_eq!(buffer_packets(down, *rtt), b, "{down} Mbit/s, {rtt} ms");
            }
        }
    }

    #[test]
    fn every_published_number_names_an_experiment_of_the_full_study() {
        let full = study(false);
        let ids: std::collections::HashSet<&str> =
            full.experiments.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids.len(),
            full.experiments.len(),
            "experiment ids are unique"
        );
        for p in &full.published {
            assert!(
                ids.contains(p.experiment.as_str()),
                "{} names {}",
                p.source,
                p.experiment
            );
            if let Some(r) = &p.relative_to {
                assert!(ids.contains(r.as_str()));
            }
        }
        for p in &full.published {
            for e in &p.pool {
                assert!(ids.contains(e.as_str()), "{} pools {}", p.source, e);
            }
        }
        // Chapter 4: 16 links × 9 mechanisms × (2 fg CC × 3 N × 2 kinds × 2 directions + 3
        // fairness); chapter 5: Yield on 2 links × 4 RTTs × the same 27; the pre-study: 14
        // non-default settings × 2 RTTs.
        assert_eq!(
            full.experiments.len(),
            16 * 9 * (24 + 3) + 2 * 4 * (24 + 3) + 14 * 2
        );
        let ch5: Vec<&str> = full
            .published
            .iter()
            .filter(|p| p.source.contains(" 5.") || p.source.starts_with("§5"))
            .map(|p| p.experiment.as_str())
            .collect();
        assert!(ch5.len() > 400, "chapter 5 numbers: {}", ch5.len());
        assert!(
            ch5.iter().any(|e| e.starts_with("pre/")) && ch5.iter().any(|e| e.starts_with("ch5/"))
        );
        let quick = study(true);
        assert!(quick.experiments.len() < 100);
        assert_eq!(
            quick
                .experiments
                .iter()
                .filter(|e| e.id.starts_with("ch5/") || e.id.starts_with("pre/"))
                .count(),
            7
        );
        // Quick experiments are full-study experiments (same ids, same scenarios).
        for e in &quick.experiments {
            let f = full
                .experiment(&e.id)
                .unwrap_or_else(|| panic!("{} not in the full study", e.id));
            assert_eq!(
                crate::work::item_key(&f.scenario, 1),
                crate::work::item_key(&e.scenario, 1)
            );
        }
    }

    #[test]
    fn short_foreground_is_split_over_connections() {
        let e = downloads(
            8.0,
            1.0,
            50,
            "cdg",
            Fg::Short {
                alg: "newreno",
                n: 4,
            },
            false,
        );
        let fg: Vec<_> = e
            .scenario
            .flows
            .iter()
            .filter(|f| f.name.starts_with("fg"))
            .collect();
        assert_eq!(fg.len(), 4);
        assert!(fg
            .iter()
            .all(|f| f.size_bytes == Some((2469.0 * 1024.0 / 4.0_f64).round() as u64)));
        assert_eq!(
            CdgConfig::try_from(&e.scenario.flows[0].params).unwrap(),
            CdgConfig::linux()
        );
    }

    #[test]
    fn chapter_5_reuses_chapter_4_and_names_yield_runs_apart() {
        let full = study(false);
        let ids: std::collections::HashSet<&str> =
            full.experiments.iter().map(|e| e.id.as_str()).collect();
        // Nice on a chapter 5 link is chapter 4's experiment; Yield's are new.
        assert!(ids.contains("dl/50-20/200ms/newreno-long-8/nice"));
        assert!(ids.contains("ch5/dl/50-20/200ms/newreno-long-8/yield"));
        assert!(ids.contains("ch5/ul/8-1/350ms/cubic-short-4/yield"));
        assert!(ids.contains("ch5/fair/50-20/100ms/n4/yield"));
        assert!(!ids
            .iter()
            .any(|i| i.contains("24-1.5") && i.contains("yield")));
        // The default row of Tables 5.2–5.5 is the main evaluation's experiment.
        assert_eq!(
            pre_id(50, YIELD_DEFAULTS),
            "ch5/dl/8-1/50ms/newreno-short-1/yield"
        );
        assert_eq!(
            pre_id(350, ys(3, 2, 0, 8)),
            "pre/350ms/hist_factor=0/trend_factor=8"
        );
        assert_eq!(prestudy_settings().len(), 14);
        let e = prestudy(350, ys(3, 2, 0, 8));
        let bg = &e.scenario.flows[0];
        assert_eq!(bg.algorithm, "yield");
        let cfg = YieldConfig::try_from(&bg.params).unwrap();
        assert_eq!(
            (cfg.hist_factor, cfg.trend_factor, cfg.max_reduction),
            (0, 8, 3)
        );
        // The default rows (four tables) and the hist_factor 0 row (two) are listed once.
        let p = published();
        let n = |e: &str, m: Metric| {
            p.iter()
                .filter(|q| q.experiment == e && q.metric == m && q.relative_to.is_none())
                .count()
        };
        assert_eq!(
            n("ch5/dl/8-1/350ms/newreno-short-1/yield", Metric::FgFtt),
            2,
            "Table 5.2's 6.9 and Fig 5.6's 7.7"
        );
        assert_eq!(n("pre/50ms/hist_factor=0", Metric::BgTput), 1);
    }
}
