//! Seed 000 (Ong 2020), chapter 4: seven LBE mechanisms plus NewReno and CUBIC as
//! background traffic on the asymmetric access links of Table 3.1, against NewReno or
//! CUBIC foreground traffic; intra-protocol fairness. Published numbers from spec
//! 000-ong-yield.md §4 (Figs 4.1, 4.4, 4.8, 4.16; Tables 4.1–4.3).

use super::*;
use crate::scenario::parse;

/// Background mechanisms of chapter 4 (§3.8), by our registry names.
pub const MECHANISMS: &[&str] = &["newreno", "cubic", "vegas", "tcp-lp", "ledbat", "nice", "westwood-lp", "apple-ledbat", "cdg"];
const LBE: &[&str] = &["vegas", "tcp-lp", "ledbat", "nice", "westwood-lp", "apple-ledbat", "cdg"];

/// Table 3.1 rows: downlink and uplink Mbit/s.
const LINKS: &[(f64, f64)] = &[(8.0, 1.0), (24.0, 1.5), (50.0, 20.0), (100.0, 100.0)];
const RTTS_MS: &[u64] = &[50, 100, 200, 350];
/// Seed 000 §3.4: the mean web page weight of November 2016.
const SHORT_KIB: f64 = 2469.0;
const RUN_S: u64 = 60;
/// When the short foreground starts (not stated in the source: after the background has
/// left slow start).
const SHORT_START_S: u64 = 10;
/// When long-lived foreground flows start (not stated: shortly after the background).
const LONG_START_S: u64 = 5;

/// Seed 000 §3.2: 2 × BDP on the downlink, rounded up to a multiple of 5 packets.
pub fn buffer_packets(down_mbps: f64, rtt_ms: u64) -> u64 {
    let pkts = 2.0 * down_mbps * 1e6 * rtt_ms as f64 / 1000.0 / (1500.0 * 8.0);
    ((pkts / 5.0).ceil() as u64) * 5
}

fn link_label(down: f64, up: f64) -> String {
    format!("{down}-{up}")
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

/// Parameters that make our algorithms match the Linux 4.4 modules seed 000 ran.
fn params_for(alg: &str) -> &'static str {
    match alg {
        // Linux tcp_cdg with its defaults (seed 000 §2.11, spec 002 §8).
        "cdg" => "params = { variant = \"linux\", backoff_beta = 0.7071, use_tolerance = false, hystart_detect = 3 }\n",
        _ => "",
    }
}

fn link_toml(down: f64, up: f64, rtt: u64) -> String {
    let b = buffer_packets(down, rtt);
    format!("[link]\nrate = \"{down}Mbit\"\nreverse_rate = \"{up}Mbit\"\ndelay = \"{}us\"\nbuffer = \"{b} packets\"\n", rtt * 500)
}

fn downloads(down: f64, up: f64, rtt: u64, bg: &str, fg: Fg, upload: bool) -> Experiment {
    let scen = if upload { "ul" } else { "dl" };
    let id = format!("{scen}/{}/{rtt}ms/{}/{bg}", link_label(down, up), fg.label());
    let mut t = format!("name = \"{id}\"\nduration = \"{RUN_S}s\"\n{}", link_toml(down, up, rtt));
    t += &format!("[[flow]]\nname = \"bg\"\nalgorithm = \"{bg}\"\n{}", params_for(bg));
    if upload {
        t += "direction = \"upload\"\n";
    }
    match fg {
        Fg::Short { alg, n } => {
            // httperf: N connections splitting the total, all starting together (§3.4).
            let each = SHORT_KIB / n as f64;
            t += &format!("[[flow]]\nname = \"fg\"\nalgorithm = \"{alg}\"\ncount = {n}\nstart = \"{SHORT_START_S}s\"\nsize = \"{each}KiB\"\n");
        }
        Fg::Long { alg, n } => {
            t += &format!("[[flow]]\nname = \"fg\"\nalgorithm = \"{alg}\"\ncount = {n}\nstart = \"{LONG_START_S}s\"\n");
        }
    }
    let scenario = parse(&id, &t).unwrap_or_else(|e| panic!("study scenario {id} is invalid: {e}"));
    Experiment { group: format!("{scen} {} Mbit/s, {rtt} ms, {}", link_label(down, up).replace('-', "/"), fg.label()), id, mechanism: bg.to_string(), scenario }
}

fn fairness(down: f64, up: f64, rtt: u64, alg: &str, n: u32) -> Experiment {
    let id = format!("fair/{}/{rtt}ms/n{n}/{alg}", link_label(down, up));
    let mut t = format!("name = \"{id}\"\nduration = \"{RUN_S}s\"\n{}", link_toml(down, up, rtt));
    // TEACUP starts all flows of an experiment together; they leave 10 ms apart here
    // (the source gives no offsets; with 1 s offsets Vegas latecomers take most of the
    // link, which the source's self-induced delays do not suggest).
    let names: Vec<String> = (1..=n).map(|i| format!("bg.{i}")).collect();
    for (i, name) in names.iter().enumerate() {
        t += &format!("[[flow]]\nname = \"{name}\"\nalgorithm = \"{alg}\"\nstart = \"{}ms\"\n{}", i * 10, params_for(alg));
    }
    t += &format!("[measure]\njain = [{{ name = \"all\", flows = [{}], from = \"1s\" }}]\n", names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", "));
    let scenario = parse(&id, &t).unwrap_or_else(|e| panic!("study scenario {id} is invalid: {e}"));
    Experiment { group: format!("fair {} Mbit/s, {rtt} ms, {n} flows", link_label(down, up).replace('-', "/")), id, mechanism: alg.to_string(), scenario }
}

fn dl_id(link: &str, rtt: u64, fg: &str, bg: &str) -> String {
    format!("dl/{link}/{rtt}ms/{fg}/{bg}")
}

fn published() -> Vec<Published> {
    let mut out = Vec::new();
    let mut add = |source: &'static str, experiment: String, metric: Metric, relative_to: Option<String>, value: f64| out.push(Published { source, experiment, metric, relative_to, value });
    // Fig 4.1: 8/1 Mbit/s, 50 ms, one NewReno short foreground: median FTT (s).
    for (bg, ftt) in [("newreno", 8.4), ("tcp-lp", 9.2), ("ledbat", 8.7), ("cdg", 3.3), ("vegas", 3.3), ("nice", 3.5), ("apple-ledbat", 4.0), ("westwood-lp", 6.3)] {
        add("Fig 4.1", dl_id("8-1", 50, "newreno-short-1", bg), Metric::FgFtt, None, ftt);
    }
    // Fig 4.1: median background throughput (KiB/s).
    for (bg, t) in [("newreno", 923.0), ("tcp-lp", 923.0), ("ledbat", 923.0), ("apple-ledbat", 848.0), ("cdg", 836.0)] {
        add("Fig 4.1", dl_id("8-1", 50, "newreno-short-1", bg), Metric::BgTput, None, t);
    }
    // Fig 4.4: background throughput at 350 ms relative to a NewReno background (%).
    for (bg, pct) in [("apple-ledbat", -72.3), ("cdg", -81.5), ("westwood-lp", -47.6)] {
        add("Fig 4.4", dl_id("8-1", 350, "newreno-short-1", bg), Metric::BgTput, Some(dl_id("8-1", 350, "newreno-short-1", "newreno")), pct);
    }
    // Fig 4.8: CUBIC foreground, FTT change against a CUBIC background (%).
    for (bg, pct) in [("tcp-lp", -15.0), ("ledbat", -18.5), ("cdg", -69.1), ("vegas", -64.7), ("nice", -61.8), ("apple-ledbat", -60.0)] {
        add("Fig 4.8", dl_id("8-1", 50, "cubic-short-1", bg), Metric::FgFtt, Some(dl_id("8-1", 50, "cubic-short-1", "cubic")), pct);
    }
    // Fig 4.16: long-lived NewReno foreground, median throughput per connection (KiB/s).
    for (bg, t) in [("newreno", 480.0), ("ledbat", 540.0), ("westwood-lp", 680.0), ("apple-ledbat", 793.0), ("tcp-lp", 829.0), ("cdg", 846.0), ("nice", 877.0), ("vegas", 886.0)] {
        add("Fig 4.16", dl_id("8-1", 50, "newreno-long-1", bg), Metric::FgTput, None, t);
    }
    // Tables 4.1 and 4.2: RTT (median over runs of the per-run mean and stdev, ms) with
    // 1, 4 and 8 long-lived foreground flows. We compare the foreground flows' RTT.
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
        (350, "westwood-lp", [894.0, 261.2, 948.0, 326.8, 919.0, 284.3]),
        (350, "apple-ledbat", [600.0, 144.2, 793.0, 338.8, 861.0, 333.8]),
        (350, "cdg", [869.0, 252.6, 882.0, 341.7, 906.0, 314.1]),
        (350, "vegas", [779.0, 266.2, 858.0, 214.4, 866.0, 240.0]),
    ];
    for (rtt, bg, v) in t41 {
        for (k, n) in [1, 4, 8].iter().enumerate() {
            let e = dl_id("8-1", *rtt, &format!("newreno-long-{n}"), bg);
            add("Table 4.1", e.clone(), Metric::FgRttMean, None, v[2 * k]);
            add("Table 4.1", e, Metric::FgRttStdev, None, v[2 * k + 1]);
        }
    }
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
    for (rtt, bg, v) in t42 {
        let e = dl_id("8-1", *rtt, "cubic-long-1", bg);
        add("Table 4.2", e.clone(), Metric::FgRttMean, None, v[0]);
        add("Table 4.2", e, Metric::FgRttStdev, None, v[1]);
    }
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
    for (rtt, alg, v) in t43 {
        for (k, n) in [2, 4, 8].iter().enumerate() {
            let e = format!("fair/8-1/{rtt}ms/n{n}/{alg}");
            add("Table 4.3", e.clone(), Metric::BgRttMean, None, v[2 * k]);
            add("Table 4.3", e, Metric::BgRttStdev, None, v[2 * k + 1]);
        }
    }
    out
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
            let mut ok = true;
            let mut ev = vec![format!("NewReno bg {base:.2} s")];
            for bg in ["vegas", "nice", "cdg", "apple-ledbat", "westwood-lp"] {
                let v = ftt(bg);
                ok &= v.is_some_and(|v| v <= 0.8 * base);
                ev.push(format!("{bg} {}", fmt_opt(v)));
            }
            for bg in ["tcp-lp", "ledbat"] {
                let v = ftt(bg);
                ok &= v.is_some_and(|v| v > 0.8 * base);
                ev.push(format!("{bg} {}", fmt_opt(v)));
            }
            ClaimOutcome { holds: Some(ok), evidence: ev.join(", ") }
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
            let mut ok = true;
            let mut ev = vec![format!("NewReno bg {base:.0}")];
            for bg in LBE.iter().filter(|b| **b != "ledbat") {
                let v = fg(bg);
                ok &= v.is_some_and(|v| v >= 1.3 * base);
                ev.push(format!("{bg} {}", v.map_or("-".into(), |v| format!("{v:.0}"))));
            }
            ClaimOutcome { holds: Some(ok), evidence: ev.join(", ") }
        }),
    });
    c
}

pub fn study(quick: bool) -> StudyDef {
    let mut ex = Vec::new();
    if quick {
        // The representative subset: the baseline ADSL link at 50 and 350 ms, one
        // foreground flow of each kind, fairness with 2 and 4 flows at 50 ms.
        for &rtt in &[50, 350] {
            for &bg in MECHANISMS {
                for fg in [Fg::Short { alg: "newreno", n: 1 }, Fg::Long { alg: "newreno", n: 1 }] {
                    ex.push(downloads(8.0, 1.0, rtt, bg, fg, false));
                }
                if rtt == 50 {
                    ex.push(downloads(8.0, 1.0, rtt, bg, Fg::Short { alg: "cubic", n: 1 }, false));
                }
            }
        }
        for &alg in MECHANISMS {
            for n in [2, 4] {
                ex.push(fairness(8.0, 1.0, 50, alg, n));
            }
        }
    } else {
        for &(down, up) in LINKS {
            for &rtt in RTTS_MS {
                for &bg in MECHANISMS {
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
    StudyDef {
        name: "ong2020",
        title: "Ong 2020 (seed 000), chapter 4: LBE mechanisms against NewReno and CUBIC foreground traffic",
        quick,
        experiments: ex,
        seeds: if quick { (1..=3).collect() } else { (1..=10).collect() },
        published: published(),
        claims: claims(),
        notes: vec![
            "Links of Table 3.1; buffers 2 × BDP of the downlink rounded up to 5 packets, the same packet count on the uplink; drop-tail, no ECN.",
            "Runs last 60 s. The short foreground (2469 KiB split over N connections) starts at 10 s, long-lived foreground flows at 5 s; the source does not say when.",
            "RTT tables: ours is the foreground flows' sender-side RTT (the source does not say whose RTT its Tables 4.1/4.2 report).",
            "Fairness flows start 10 ms apart; Jain's index over their throughput from 1 s to the end.",
            "CDG runs as Linux tcp_cdg with its defaults (variant = linux).",
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_reproduce_table_3_1() {
        let want = [(8.0, [70, 135, 270, 470]), (24.0, [200, 400, 800, 1400]), (50.0, [420, 835, 1670, 2920]), (100.0, [835, 1670, 3335, 5835])];
        for (down, bufs) in want {
            for (rtt, b) in RTTS_MS.iter().zip(bufs) {
                assert_eq!(buffer_packets(down, *rtt), b, "{down} Mbit/s, {rtt} ms");
            }
        }
    }

    #[test]
    fn every_published_number_names_an_experiment_of_the_full_study() {
        let full = study(false);
        let ids: std::collections::HashSet<&str> = full.experiments.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids.len(), full.experiments.len(), "experiment ids are unique");
        for p in &full.published {
            assert!(ids.contains(p.experiment.as_str()), "{} names {}", p.source, p.experiment);
            if let Some(r) = &p.relative_to {
                assert!(ids.contains(r.as_str()));
            }
        }
        // 16 links × 9 mechanisms × (2 fg CC × 3 N × 2 kinds × 2 directions + 3 fairness).
        assert_eq!(full.experiments.len(), 16 * 9 * (24 + 3));
        let quick = study(true);
        assert!(quick.experiments.len() < 100);
    }

    #[test]
    fn short_foreground_is_split_over_connections() {
        let e = downloads(8.0, 1.0, 50, "cdg", Fg::Short { alg: "newreno", n: 4 }, false);
        let fg: Vec<_> = e.scenario.flows.iter().filter(|f| f.name.starts_with("fg")).collect();
        assert_eq!(fg.len(), 4);
        assert!(fg.iter().all(|f| f.size_bytes == Some((2469.0 * 1024.0 / 4.0_f64).round() as u64)));
        assert_eq!(e.scenario.flows[0].params.choice("variant"), "linux");
    }
}
