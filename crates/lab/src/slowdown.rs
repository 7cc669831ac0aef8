//! Foreground slowdown: the same scenario and seed run again without its background
//! flows, and each remaining flow compared with itself (issue 3 §6; Ong 2020 §3.5 judges
//! an LBE mechanism by how much it delays the foreground it shares a link with).

use crate::scenario::Scenario;
use scavenger_sim::SimResult;
use serde::Serialize;

/// One foreground flow with and without the background.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowSlowdown {
    pub flow: String,
    /// `completion_time_s` for flows that finished in both runs, else `throughput_bps`.
    pub metric: &'static str,
    pub with_background: f64,
    pub alone: f64,
    /// How many times slower the flow was with the background: completion time with /
    /// alone, or throughput alone / with. 1 means the background cost it nothing.
    pub slowdown: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Slowdown {
    pub background: Vec<String>,
    pub flows: Vec<FlowSlowdown>,
}

/// The scenario without its background flows (Jain groups lose them too, and vanish when
/// they have fewer than two members left).
pub fn without_background(s: &Scenario) -> Scenario {
    let mut b = s.clone();
    b.flows.retain(|f| !s.background.contains(&f.name));
    for j in &mut b.jain {
        j.flows.retain(|f| !s.background.contains(f));
    }
    b.jain.retain(|j| j.flows.len() >= 2);
    b.background.clear();
    b
}

/// Compares `with` (the scenario's run at `seed`) with a run of the scenario without its
/// background at the same seed. `None` when the scenario names no background.
pub fn foreground_slowdown(s: &Scenario, seed: u64, with: &SimResult) -> Option<Slowdown> {
    if s.background.is_empty() {
        return None;
    }
    let alone = scavenger_sim::run(without_background(s).to_sim(seed));
    Some(compare(&s.background, with, &alone))
}

fn compare(background: &[String], with: &SimResult, alone: &SimResult) -> Slowdown {
    let flows = with
        .flows
        .iter()
        .filter(|f| !background.contains(&f.name))
        .filter_map(|w| {
            let a = alone.flows.iter().find(|a| a.name == w.name)?;
            Some(match (w.completion_time_s, a.completion_time_s) {
                (Some(tw), Some(ta)) if ta > 0.0 => FlowSlowdown {
                    flow: w.name.clone(),
                    metric: "completion_time_s",
                    with_background: tw,
                    alone: ta,
                    slowdown: tw / ta,
                },
                _ => FlowSlowdown {
                    flow: w.name.clone(),
                    metric: "throughput_bps",
                    with_background: w.throughput_bps,
                    alone: a.throughput_bps,
                    slowdown: if w.throughput_bps > 0.0 {
                        a.throughput_bps / w.throughput_bps
                    } else {
                        f64::INFINITY
                    },
                },
            })
        })
        .collect();
    Slowdown {
        background: background.to_vec(),
        flows,
    }
}

impl Slowdown {
    pub fn table(&self) -> String {
        let mut out = format!(
            "slowdown against the same run without {}:\n",
            self.background.join(", ")
        );
        // Units in the header; columns as wide as their widest cell (aligned above 1 Gbit/s).
        let mut rows = vec![[
            "flow".to_string(),
            "metric".to_string(),
            "with".to_string(),
            "alone".to_string(),
            "slowdown ×".to_string(),
        ]];
        for f in &self.flows {
            let (metric, w, a) = if f.metric == "completion_time_s" {
                (
                    "completion time s",
                    format!("{:.3}", f.with_background),
                    format!("{:.3}", f.alone),
                )
            } else {
                (
                    "throughput Mbit/s",
                    format!("{:.3}", f.with_background / 1e6),
                    format!("{:.3}", f.alone / 1e6),
                )
            };
            rows.push([
                f.flow.clone(),
                metric.to_string(),
                w,
                a,
                format!("{:.3}", f.slowdown),
            ]);
        }
        for line in crate::record::aligned(&rows, 2).lines() {
            out += &format!("  {line}\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse;

    const SCENARIO: &str = r#"
        name = "fg-vs-bg"
        duration = "30s"
        [link]
        rate = "8Mbit"
        delay = "25ms"
        buffer = "70 packets"
        [[flow]]
        name = "fg"
        algorithm = "newreno"
        start = "5s"
        size = "2MB"
        [[flow]]
        name = "bg"
        algorithm = "newreno"
        count = 2
        [measure]
        background = ["bg"]
        jain = [{ flows = ["fg", "bg"] }]
    "#;

    #[test]
    fn the_baseline_drops_background_flows_and_their_jain_members() {
        let s = parse("t", SCENARIO).unwrap();
        assert_eq!(s.background, vec!["bg.1".to_string(), "bg.2".to_string()]);
        let b = without_background(&s);
        assert_eq!(
            b.flows.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            vec!["fg"]
        );
        assert!(b.jain.is_empty() && b.background.is_empty());
    }

    #[test]
    fn a_reno_background_slows_a_transfer_down_and_an_absent_one_does_not() {
        let s = parse("t", SCENARIO).unwrap();
        let with = scavenger_sim::run(s.to_sim(1));
        let sd = foreground_slowdown(&s, 1, &with).unwrap();
        assert_eq!(sd.flows.len(), 1);
        let f = &sd.flows[0];
        assert_eq!(f.metric, "completion_time_s");
        // Two NewReno flows leave the transfer about a third of the link at best.
        assert!(f.slowdown > 1.5, "{f:?}");
        // Compared with itself, nothing is slower.
        let alone = scavenger_sim::run(without_background(&s).to_sim(1));
        let same = compare(&s.background, &alone, &alone);
        assert_eq!(same.flows[0].slowdown, 1.0);
    }

    #[test]
    fn naming_every_flow_or_an_unknown_one_is_an_error() {
        let all = SCENARIO.replace(r#"background = ["bg"]"#, r#"background = ["bg", "fg"]"#);
        let e = parse("t", &all).unwrap_err().to_string();
        assert!(
            e.contains("measure.background") || e.contains("background"),
            "{e}"
        );
        assert!(e.contains("every flow"), "{e}");
        let unknown = SCENARIO.replace(r#"background = ["bg"]"#, r#"background = ["nope"]"#);
        let e = parse("t", &unknown).unwrap_err().to_string();
        assert!(e.contains("\"nope\"") && e.contains("fg"), "{e}");
    }
}
