//! A sweep's report: a summary in words, then each metric against the swept setting
//! (mean over seeds with its 95 % Student-t interval), then the table of medians per
//! setting. Written as report.html (inline SVG), report.md, report.csv.

use crate::report::{esc, f2, write_file, Rendered, CSS};
use crate::store::Store;
use crate::study::{median, Results};
use crate::svg::{intervals, IntervalSeries};
use scavenger_sim::result::SimResult;
use std::fmt::Write;
use std::path::Path;

/// Two-sided 97.5 % quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// t(0.975, df): the table up to 30, then the values at 40, 60 and 120 (taken at the
/// next lower tabulated df, so the interval errs wide), then the normal quantile.
fn t975(df: usize) -> f64 {
    match df {
        0 => f64::NAN,
        1..=30 => T975[df - 1],
        31..=39 => 2.042,
        40..=59 => 2.021,
        60..=119 => 2.000,
        _ => 1.980,
    }
}

/// Mean and the half-width of its 95 % Student-t interval over `v` (n − 1 degrees of
/// freedom, sample standard deviation); half-width 0 for a single value (no interval).
pub fn mean_ci95(v: &[f64]) -> Option<(f64, f64)> {
    let n = v.len();
    if n == 0 {
        return None;
    }
    let mean = v.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Some((mean, 0.0));
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some((mean, t975(n - 1) * (var / n as f64).sqrt()))
}

/// The setting's value as a number and its unit ("0.5BDP" → 0.5, "BDP").
fn numeric(value: &str) -> Option<(f64, String)> {
    let v = value.trim().trim_matches('"');
    (1..=v.len())
        .rev()
        .filter(|&i| v.is_char_boundary(i))
        .find_map(|i| {
            v[..i]
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .map(|x| (x, v[i..].trim().to_string()))
        })
}

/// The x axis of a sweep's plots: the first setting that varies, numeric when every value
/// is a number with the same unit, else one category per value. The other settings that
/// vary (crossed or zipped axes) make separate series: `rest` per label.
struct Axis {
    title: String,
    xs: Vec<f64>,
    categories: Option<Vec<String>>,
    rest: Vec<String>,
}

fn axis(labels: &[String]) -> Axis {
    let parsed: Vec<Vec<(String, String)>> = labels
        .iter()
        .map(|l| {
            l.split(',')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect();
    let value = |l: &[(String, String)], key: &str| -> String {
        l.iter()
            .find(|(k, _)| k == key)
            .map_or(String::new(), |kv| kv.1.clone())
    };
    // The settings that take more than one value, in the plan's order.
    let mut varying: Vec<String> = Vec::new();
    for p in parsed.iter().flatten() {
        let values: std::collections::BTreeSet<String> =
            parsed.iter().map(|l| value(l, &p.0)).collect();
        if values.len() > 1 && !varying.contains(&p.0) {
            varying.push(p.0.clone());
        }
    }
    let Some(key) = varying.first() else {
        return Axis {
            title: "setting".into(),
            xs: (0..labels.len()).map(|i| i as f64).collect(),
            categories: Some(labels.to_vec()),
            rest: vec![String::new(); labels.len()],
        };
    };
    let rest = parsed
        .iter()
        .map(|l| {
            varying[1..]
                .iter()
                .map(|k| format!("{k}={}", value(l, k)))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let nums: Option<Vec<(f64, String)>> = parsed.iter().map(|l| numeric(&value(l, key))).collect();
    if let Some(nums) = nums.filter(|n| n.iter().all(|x| x.1 == n[0].1)) {
        let unit = &nums[0].1;
        return Axis {
            title: if unit.is_empty() {
                key.clone()
            } else {
                format!("{key} ({unit})")
            },
            xs: nums.iter().map(|n| n.0).collect(),
            categories: None,
            rest,
        };
    }
    let mut cats: Vec<String> = Vec::new();
    let xs = parsed
        .iter()
        .map(|l| {
            let v = value(l, key);
            let i = cats.iter().position(|c| *c == v).unwrap_or_else(|| {
                cats.push(v);
                cats.len() - 1
            });
            i as f64
        })
        .collect();
    Axis {
        title: key.clone(),
        xs,
        categories: Some(cats),
        rest,
    }
}

/// A metric of a sweep's runs: its title with unit, and its value per flow (`per_flow`)
/// or for the whole run.
struct SweepMetric {
    title: &'static str,
    per_flow: bool,
    of: fn(&SimResult, usize) -> Option<f64>,
}

const METRICS: &[SweepMetric] = &[
    SweepMetric {
        title: "goodput (Mbit/s)",
        per_flow: true,
        of: |r, i| r.flows.get(i).map(|f| f.goodput_bps / 1e6),
    },
    SweepMetric {
        title: "RTT mean (ms)",
        per_flow: true,
        of: |r, i| r.flows.get(i).and_then(|f| f.rtt_ms.mean),
    },
    SweepMetric {
        title: "bottleneck utilisation (%)",
        per_flow: false,
        of: |r, _| r.links.first().map(|l| l.utilisation * 100.0),
    },
    SweepMetric {
        title: "queueing delay p95 (ms)",
        per_flow: false,
        of: |r, _| r.links.first().and_then(|l| l.qdelay_ms.p95),
    },
    SweepMetric {
        title: "Jain's index",
        per_flow: false,
        of: |r, _| r.jain.first().map(|j| j.index),
    },
];

/// A sweep's report: per setting, the median over seeds of each flow's goodput and RTT,
/// the bottleneck's utilisation and queueing delay, and Jain's index; plots of the mean
/// and 95 % interval of each against the swept setting.
pub fn sweep_report(
    name: &str,
    dir: &Path,
    labels: &[String],
) -> Result<Rendered, crate::error::LabError> {
    let stored = Store::read(dir)?;
    let results = Results::from_stored(&stored, |s| labels.contains(&s.label));
    let mut md = format!("# Sweep {name}\n\n");
    let mut csv =
        String::from("setting,runs,flow,goodput_mbps,rtt_mean_ms,utilisation,qdelay_p95_ms,jain\n");
    let runs: usize = results.runs.values().map(Vec::len).sum();
    let mut summary = format!(
        "sweep {name}: {} settings, {} runs\n",
        results.runs.len(),
        runs
    );
    let present: Vec<String> = labels
        .iter()
        .filter(|l| results.runs.contains_key(*l))
        .cloned()
        .collect();
    let ax = axis(&present);
    let seeds: std::collections::BTreeSet<usize> = results.runs.values().map(Vec::len).collect();
    let seeds_text = match (seeds.first(), seeds.last()) {
        (Some(a), Some(b)) if a == b => format!("{a}"),
        (Some(a), Some(b)) => format!("{a} to {b}"),
        _ => "0".into(),
    };
    let flow_names: Vec<String> = present
        .first()
        .and_then(|l| results.runs.get(l))
        .and_then(|rs| rs.first())
        .map(|(_, r)| {
            r.flows
                .iter()
                .map(|f| format!("{} ({})", f.name, f.algorithm))
                .collect()
        })
        .unwrap_or_default();
    // One series per flow and combination of the other varying settings.
    let mut rests: Vec<&str> = Vec::new();
    for r in &ax.rest {
        if !rests.contains(&r.as_str()) {
            rests.push(r);
        }
    }
    let others = if rests.len() > 1 {
        " on the x axis; each other combination of settings is a series of its own"
    } else {
        ""
    };
    let words = format!(
        "Sweep {name}: {} of {} settings have runs ({runs} runs, {seeds_text} seeds per setting), varying {}{others}. Flows: {}. The plots show each metric's mean over seeds with its 95 % confidence interval (Student's t with n − 1 degrees of freedom, sample standard deviation; where the seeds gave the same value it has no width and is not drawn); the table gives medians over seeds.",
        present.len(),
        labels.len(),
        ax.title,
        if flow_names.is_empty() { "none".to_string() } else { flow_names.join(", ") }
    );
    md += &format!("{words}\n\n| setting | runs | flow | goodput (Mbit/s) | RTT mean (ms) | utilisation | queueing delay p95 (ms) | Jain's index |\n|---|---:|---|---:|---:|---:|---:|---:|\n");

    let mut plots = String::new();
    for m in METRICS {
        let names: Vec<String> = if m.per_flow {
            flow_names.clone()
        } else {
            vec!["bottleneck".into()]
        };
        let series: Vec<IntervalSeries> = names
            .iter()
            .enumerate()
            .flat_map(|(i, n)| rests.iter().map(move |rest| (i, n, *rest)))
            .map(|(i, n, rest)| IntervalSeries {
                name: if rest.is_empty() {
                    n.clone()
                } else {
                    format!("{n}, {rest}")
                },
                points: present
                    .iter()
                    .zip(&ax.xs)
                    .zip(&ax.rest)
                    .filter(|(_, r)| r.as_str() == rest)
                    .filter_map(|((l, x), _)| {
                        let v: Vec<f64> = results.runs[l]
                            .iter()
                            .filter_map(|(_, r)| (m.of)(r, i))
                            .collect();
                        mean_ci95(&v).map(|(mean, hw)| (*x, mean, hw))
                    })
                    .collect(),
            })
            .collect();
        plots += &intervals(
            &format!("{} against {}", m.title, ax.title),
            &ax.title,
            m.title,
            &series,
            ax.categories.as_deref(),
        );
    }

    let mut table = String::from("<table><tr><th class=l>setting</th><th>runs</th><th class=l>flow</th><th>goodput (Mbit/s)</th><th>RTT mean (ms)</th><th>utilisation</th><th>queueing delay p95 (ms)</th><th>Jain's index</th></tr>");
    for l in labels {
        let Some(rs) = results.runs.get(l) else {
            continue;
        };
        let med = |f: &dyn Fn(&SimResult) -> Option<f64>| {
            median(&rs.iter().filter_map(|(_, r)| f(r)).collect::<Vec<_>>())
        };
        let util = med(&|r| r.links.first().map(|l| l.utilisation));
        let q95 = med(&|r| r.links.first().and_then(|l| l.qdelay_ms.p95));
        let jain = med(&|r| r.jain.first().map(|j| j.index));
        let names: Vec<String> = rs[0].1.flows.iter().map(|f| f.name.clone()).collect();
        for (i, fname) in names.iter().enumerate() {
            let g = med(&|r| r.flows.get(i).map(|f| f.goodput_bps / 1e6));
            let rtt = med(&|r| r.flows.get(i).and_then(|f| f.rtt_ms.mean));
            md += &format!(
                "| `{l}` | {} | {fname} | {} | {} | {} | {} | {} |\n",
                rs.len(),
                f2(g),
                f2(rtt),
                f2(util),
                f2(q95),
                f2(jain)
            );
            let _ = write!(
                table,
                "<tr><td class=l>{}</td><td>{}</td><td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(l),
                rs.len(),
                esc(fname),
                f2(g),
                f2(rtt),
                f2(util),
                f2(q95),
                f2(jain)
            );
            csv += &format!(
                "\"{l}\",{},{fname},{},{},{},{},{}\n",
                rs.len(),
                g.unwrap_or(f64::NAN),
                rtt.unwrap_or(f64::NAN),
                util.unwrap_or(f64::NAN),
                q95.unwrap_or(f64::NAN),
                jain.unwrap_or(f64::NAN)
            );
            let _ = writeln!(
                summary,
                "{l:<50} {fname:<12} goodput {:>8} Mbit/s  rtt {:>8} ms  util {:>5}  q95 {:>7} ms",
                f2(g),
                f2(rtt),
                f2(util),
                f2(q95)
            );
        }
    }
    table += "</table>";
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Sweep {0}</title><style>{CSS}</style></head><body><h1>Sweep {0}</h1><section id=\"summary\"><h2>Summary</h2><p>{1}</p></section><section id=\"plots\"><h2>Each metric against {2}</h2><div class=plots>{plots}</div></section><section id=\"tables\"><h2>Medians over seeds per setting</h2>{table}</section></body></html>\n",
        esc(name),
        esc(&words),
        esc(&ax.title)
    );
    let mut files = Vec::new();
    write_file(dir, "report.md", &md, &mut files)?;
    write_file(dir, "report.csv", &csv, &mut files)?;
    write_file(dir, "report.html", &html, &mut files)?;
    Ok(Rendered { summary, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_interval_of_three_values() {
        // mean 2, sample stdev 1, n 3: half-width t(0.975, 2) · 1/√3 = 4.303 / 1.732.
        let (m, hw) = mean_ci95(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(m, 2.0);
        assert!((hw - 4.303 / 3f64.sqrt()).abs() < 1e-12, "{hw}");
        assert_eq!(mean_ci95(&[5.0]), Some((5.0, 0.0)));
        assert_eq!(mean_ci95(&[]), None);
        assert_eq!(t975(40), 2.021);
        assert_eq!(t975(1000), 1.980);
    }

    #[test]
    fn one_numeric_setting_is_a_numeric_axis() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let a = axis(&l(&[
            "link.buffer=0.5BDP",
            "link.buffer=1BDP",
            "link.buffer=2BDP",
        ]));
        assert_eq!(a.title, "link.buffer (BDP)");
        assert_eq!(a.xs, vec![0.5, 1.0, 2.0]);
        assert!(a.categories.is_none());
        // Crossed axes: x is the first setting, the others make series.
        let b = axis(&l(&[
            "link.buffer=1BDP,link.rate=8Mbit,link.delay=25ms",
            "link.buffer=2BDP,link.rate=8Mbit,link.delay=25ms",
            "link.buffer=1BDP,link.rate=24Mbit,link.delay=10ms",
            "link.buffer=2BDP,link.rate=24Mbit,link.delay=10ms",
        ]));
        assert_eq!(b.title, "link.buffer (BDP)");
        assert_eq!(b.xs, vec![1.0, 2.0, 1.0, 2.0]);
        assert_eq!(b.rest[0], "link.rate=8Mbit, link.delay=25ms");
        assert_eq!(b.rest[2], "link.rate=24Mbit, link.delay=10ms");
        // Mixed units: one category per value.
        let c = axis(&l(&["link.rate=500kbit", "link.rate=8Mbit"]));
        assert_eq!(c.categories.unwrap(), vec!["500kbit", "8Mbit"]);
        assert_eq!(c.xs, vec![0.0, 1.0]);
    }
}
