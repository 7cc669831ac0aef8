//! The scorecard's outputs: report.html (one heat map per metric, algorithms × cells),
//! report.md, scorecard.csv and summary.txt (`algo=NAME cells_all_pass=K/N`). Each value
//! is the median over the seeds, shown with its min–max when there are several.

use super::aggregate::SeededScore;
use super::metrics::{CellScore, Verdict};
use super::Scorecard;
use crate::error::LabError;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// How each metric is shown: its value in a cell, its verdict, and how far from the goal
/// it is (0 at the goal, 1 far off) for the colour.
struct Shown {
    key: &'static str,
    title: &'static str,
    goal: &'static str,
    value: fn(&CellScore) -> String,
    /// The min–max over the seeds, as the value is shown; empty for no goal.
    spread: fn(&SeededScore) -> String,
    verdict: fn(&CellScore) -> Verdict,
    distance: fn(&CellScore) -> f64,
}

fn num(x: Option<f64>, digits: usize) -> String {
    x.map_or("–".into(), |v| {
        if v.is_infinite() {
            "∞".into()
        } else {
            format!("{v:.digits$}")
        }
    })
}

fn ramp_text(s: &CellScore) -> String {
    match (s.ramp_rtts, s.ramp_bound_rtts) {
        (Some(r), _) => format!("{r:.0}"),
        (None, Some(b)) => format!(">{b:.0}"),
        (None, None) => "no exit".into(),
    }
}

/// The min–max over the seeds of the metric `m` shows, when there are several seeds and
/// the metric has a goal; what the HTML and the Markdown put under or beside the median.
fn shown_spread(sc: &Scorecard, m: &Shown, agg: &SeededScore) -> Option<String> {
    let spread = (m.spread)(agg);
    (sc.seeds > 1 && !spread.is_empty()).then_some(spread)
}

/// "lo–hi" of a metric over the seeds, with `digits` decimals.
fn range(s: Option<(f64, f64)>, digits: usize) -> String {
    s.map_or("–".into(), |(lo, hi)| {
        format!("{}–{}", num(Some(lo), digits), num(Some(hi), digits))
    })
}

/// Relative distance beyond a goal, squashed to 0..1.
fn squash(x: f64) -> f64 {
    if x.is_nan() {
        1.0
    } else {
        (x / (1.0 + x)).clamp(0.0, 1.0)
    }
}

const SHOWN: [Shown; 6] = [
    Shown {
        key: "slowdown",
        title: "Foreground slowdown (with / alone)",
        goal: "≤ 1.05",
        value: |s| num(s.slowdown, 2),
        spread: |a| range(a.spread(|s| s.slowdown), 2),
        verdict: |s| s.v_slowdown,
        distance: |s| squash((s.slowdown.unwrap_or(f64::INFINITY) - 1.05) * 4.0),
    },
    Shown {
        key: "spare",
        title: "Spare capacity used (alone, and beside a long-lived foreground)",
        goal: "≥ 0.90",
        value: |s| num(s.spare, 2),
        spread: |a| range(a.spread(|s| s.spare), 2),
        verdict: |s| s.v_spare,
        distance: |s| squash((0.9 - s.spare.unwrap_or(0.0)) * 4.0),
    },
    Shown {
        key: "queue",
        title: "Self-induced queueing delay, mean / p95 (ms)",
        goal: "mean ≤ 5 ms and p95 ≤ 10 ms",
        value: |s| format!("{}/{}", num(s.qdelay_mean_ms, 1), num(s.qdelay_p95_ms, 0)),
        spread: |a| {
            format!(
                "{}/{}",
                range(a.spread(|s| s.qdelay_mean_ms), 1),
                range(a.spread(|s| s.qdelay_p95_ms), 0)
            )
        },
        verdict: |s| s.v_queue,
        distance: |s| squash((s.qdelay_p95_ms.unwrap_or(f64::INFINITY) - 10.0) / 20.0),
    },
    Shown {
        key: "ramp",
        title: "Ramp-up after the foreground leaves, to 90 % of the link (RTTs)",
        goal: "≤ 5 RTTs",
        value: ramp_text,
        spread: |a| range(a.ramp_spread(), 0),
        verdict: |s| s.v_ramp,
        distance: |s| squash((s.ramp_rtts.unwrap_or(f64::INFINITY) - 5.0) / 20.0),
    },
    Shown {
        key: "jain",
        title: "Jain's index of 4 flows started 10 s apart",
        goal: "≥ 0.95",
        value: |s| num(s.jain, 2),
        spread: |a| range(a.spread(|s| s.jain), 2),
        verdict: |s| s.v_jain,
        distance: |s| squash((0.95 - s.jain.unwrap_or(0.0)) * 5.0),
    },
    Shown {
        key: "harm",
        title: "Harm to the foreground (Ware et al. 2019): throughput / delay",
        goal: "reported, no goal",
        value: |s| format!("{}/{}", num(s.harm_tput, 2), num(s.harm_delay, 2)),
        spread: |_| String::new(),
        verdict: |_| Verdict::Hollow,
        distance: |s| squash(s.harm_tput.unwrap_or(0.0).max(0.0) * 4.0),
    },
];

fn colour(v: Verdict, d: f64, harm: bool) -> String {
    if harm {
        // Harm has no goal: white to orange.
        let g = (255.0 - 90.0 * d) as u8;
        let b = (255.0 - 200.0 * d) as u8;
        return format!("#ff{g:02x}{b:02x}");
    }
    match v {
        Verdict::Pass => "#cdeccd".into(),
        Verdict::Hollow => "#e4e4e4".into(),
        Verdict::Fail => {
            let gb = (225.0 - 130.0 * d) as u8;
            format!("#ff{gb:02x}{gb:02x}")
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

const CSS: &str = "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0;font-size:12px}td,th{border:1px solid #ccc;padding:3px 5px;text-align:center}th.l,td.l{text-align:left}th.v{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal}";

pub fn html(sc: &Scorecard) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><meta charset=utf-8><title>LBE scorecard</title><style>{CSS}</style><h1>LBE scorecard{}</h1><p>{}</p>",
        if sc.quick { " (quick grid)" } else { "" },
        seeds_note(sc.seeds)
    );
    h += "<pre>";
    h += &esc(&sc.summary());
    h += "</pre><p>Green: the goal is met. Red: it is not (darker is further off). Grey: n/a, the goal is hollow in that cell (NewReno alone cannot meet it: docs/scorecard.md). Empty: not run yet.</p>";
    for m in &SHOWN {
        let _ = write!(
            h,
            "<h2>{}</h2><p>goal: {}</p><table><tr><th class=l>algorithm</th>",
            esc(m.title),
            esc(m.goal)
        );
        for c in &sc.cells {
            let _ = write!(h, "<th class=v>{}</th>", esc(&c.id()));
        }
        h += "</tr>";
        for a in &sc.algorithms {
            let _ = write!(h, "<tr><td class=l>{}</td>", esc(a));
            for c in &sc.cells {
                match sc.seeded(a, &c.id()) {
                    None => h += "<td></td>",
                    Some(agg) => {
                        let s = &agg.median;
                        let v = (m.verdict)(s);
                        let text = if v == Verdict::Hollow && m.key != "harm" {
                            format!("n/a ({})", (m.value)(s))
                        } else {
                            (m.value)(s)
                        };
                        let shown = match shown_spread(sc, m, agg) {
                            Some(sp) => format!("{}<br><small>{}</small>", esc(&text), esc(&sp)),
                            None => esc(&text),
                        };
                        let _ = write!(
                            h,
                            "<td style=\"background:{}\" title=\"{} {}: {}\">{}</td>",
                            colour(v, (m.distance)(s), m.key == "harm"),
                            esc(a),
                            esc(&c.id()),
                            v.label(),
                            shown
                        );
                    }
                }
            }
            h += "</tr>";
        }
        h += "</table>";
    }
    h += "<h2>Cells</h2><table><tr><th class=l>cell</th><th>rate (Mbit/s)</th><th>reverse</th><th>RTT (ms)</th><th>buffer</th><th>qdisc</th><th>link</th><th>foreground</th></tr>";
    for c in &sc.cells {
        let l = &c.link;
        let _ = write!(
            h,
            "<tr><td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} BDP</td><td>{:?}</td><td>{:?}</td><td>{}</td></tr>",
            esc(&c.id()),
            l.kbps as f64 / 1e3,
            l.reverse_kbps as f64 / 1e3,
            l.rtt_ms,
            l.buffer_bdp,
            l.qdisc,
            l.kind,
            esc(&c.fg.id())
        );
    }
    h += "</table>";
    h
}

/// How the values are aggregated, for the reports' heads.
fn seeds_note(seeds: u64) -> String {
    if seeds == 1 {
        "One seed per run.".into()
    } else {
        format!("Seeds 1 to {seeds} per run: each value is the median over the seeds, the verdict that of the median; below it the min–max over the seeds.")
    }
}

pub fn markdown(sc: &Scorecard) -> String {
    let mut m = format!(
        "# LBE scorecard{}\n\n```\n{}```\n\n{} Per cell: the five goals (P pass, F fail, - n/a), then the values{}.\n",
        if sc.quick { " (quick grid)" } else { "" },
        sc.summary(),
        seeds_note(sc.seeds),
        if sc.seeds > 1 { " (min–max in brackets)" } else { "" }
    );
    for a in &sc.algorithms {
        let _ = write!(
            m,
            "\n## {a}\n\n| cell | goals | slowdown | spare | queue mean/p95 ms | ramp RTTs | Jain | harm tput/delay |\n|---|---|---|---|---|---|---|---|\n"
        );
        for c in &sc.cells {
            let Some(agg) = sc.seeded(a, &c.id()) else {
                let _ = writeln!(m, "| {} | not run | | | | | | |", c.id());
                continue;
            };
            let s = &agg.median;
            let shown = |i: usize| match shown_spread(sc, &SHOWN[i], agg) {
                Some(sp) => format!("{} ({sp})", (SHOWN[i].value)(s)),
                None => (SHOWN[i].value)(s),
            };
            let goals: String = s
                .verdicts()
                .iter()
                .map(|v| match v {
                    Verdict::Pass => 'P',
                    Verdict::Fail => 'F',
                    Verdict::Hollow => '-',
                })
                .collect();
            let _ = writeln!(
                m,
                "| {} | {goals} | {} | {} | {} | {} | {} | {} |",
                c.id(),
                shown(0),
                shown(1),
                shown(2),
                shown(3),
                shown(4),
                shown(5),
            );
        }
    }
    m
}

/// RFC 4180: a field with a comma or a quote is quoted, its quotes doubled.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The metrics whose min and max over the seeds scorecard.csv lists, after the medians.
const SPREAD_COLUMNS: [(&str, super::aggregate::Metric); 6] = [
    ("slowdown", |s| s.slowdown),
    ("spare", |s| s.spare),
    ("qdelay_mean_ms", |s| s.qdelay_mean_ms),
    ("qdelay_p95_ms", |s| s.qdelay_p95_ms),
    ("ramp_rtts", super::aggregate::ramp_or_never),
    ("jain", |s| s.jain),
];

/// One row per (algorithm, cell): the medians over the seeds and their verdicts, then
/// the number of seeds and each goal metric's min and max over them.
pub fn csv(sc: &Scorecard) -> String {
    let mut out = String::from("algorithm,cell,slowdown,harm_tput,harm_delay,added_delay_ms,spare_alone,spare_beside,spare,qdelay_mean_ms,qdelay_p95_ms,ramp_rtts,ramp_bound_rtts,jain,slowdown_goal,spare_goal,queue_goal,ramp_goal,jain_goal,all_pass,seeds");
    for (name, _) in SPREAD_COLUMNS {
        let _ = write!(out, ",{name}_min,{name}_max");
    }
    out.push('\n');
    let f = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
    for (a, c, agg) in &sc.rows {
        let Some(agg) = agg else { continue };
        let s = &agg.median;
        let v = s.verdicts();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}{}",
            csv_field(a),
            c.id(),
            f(s.slowdown),
            f(s.harm_tput),
            f(s.harm_delay),
            f(s.added_delay_ms),
            f(s.spare_alone),
            f(s.spare_beside),
            f(s.spare),
            f(s.qdelay_mean_ms),
            f(s.qdelay_p95_ms),
            f(s.ramp_rtts),
            f(s.ramp_bound_rtts),
            f(s.jain),
            v[0].label(),
            v[1].label(),
            v[2].label(),
            v[3].label(),
            v[4].label(),
            s.all_pass(),
            agg.seeds.len(),
            SPREAD_COLUMNS
                .iter()
                .map(|(_, m)| {
                    let r = agg.spread(*m);
                    format!(",{},{}", f(r.map(|r| r.0)), f(r.map(|r| r.1)))
                })
                .collect::<String>()
        );
    }
    out
}

/// Writes the four files atomically (temp + rename) into `dir`.
pub fn write(sc: &Scorecard, dir: &Path) -> Result<Vec<PathBuf>, LabError> {
    let mut files = Vec::new();
    for (name, text) in [
        ("report.html", html(sc)),
        ("report.md", markdown(sc)),
        ("scorecard.csv", csv(sc)),
        ("summary.txt", sc.summary()),
    ] {
        let p = dir.join(name);
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, &p))
            .map_err(LabError::io("write", &p))?;
        files.push(p);
    }
    Ok(files)
}
