//! Reports: for a study, every published number beside ours with the difference, every
//! claim checked with its evidence, and the plots the field expects; for a sweep, a table
//! of medians per setting. Written as self-contained HTML (inline SVG), Markdown, CSV
//! and a text summary.

use crate::store::{Store, Stored};
use crate::study::{median, verdict, Claim, ClaimOutcome, Plot, Results, StudyDef, NOT_CHECKED};
use crate::svg::{cdf, histogram, lines, scatter_with, Series2, XAxis};
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

pub struct Rendered {
    pub summary: String,
    pub files: Vec<PathBuf>,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn f2(x: Option<f64>) -> String {
    x.map_or("–".to_string(), |v| {
        if v.abs() >= 100.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        }
    })
}

const CSS: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}.close{background:#e6f4e6}.near{background:#fff6db}.differs{background:#fde4e4}.holds{color:#1a7f1a;font-weight:bold}.fails{color:#b00;font-weight:bold}.plots svg{margin:6px;border:1px solid #eee}";

fn write_file(
    dir: &Path,
    name: &str,
    content: &str,
    files: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let p = dir.join(name);
    // Temp file + rename: a report being rewritten is never seen half written.
    crate::store::write_atomic(&p, content.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    files.push(p);
    Ok(())
}

/// Renders a study's report from the store in `dir`.
pub fn study_report(def: &StudyDef, dir: &Path) -> Result<Rendered, String> {
    let stored = Store::read(dir)?;
    let expected: HashSet<String> = def.work_items().into_iter().map(|w| w.key).collect();
    let results =
        Results::from_stored(&stored, |s: &Stored| expected.contains(&s.key))?.expect(def);
    let found: usize = results.runs.values().map(Vec::len).sum();
    let stale = stored.len().saturating_sub(found);

    // Published numbers beside ours. A number whose experiments are not all complete (a
    // study stopped early) is not checked: a median of the runs that happen to be stored
    // is not the study's number.
    let mut rows = Vec::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &def.published {
        results.take_incomplete();
        let ours = results.ours(p);
        let ours = if results.take_incomplete().is_empty() {
            ours
        } else {
            None
        };
        let (v, d) = verdict(p, ours);
        *counts.entry(v).or_default() += 1;
        let n = results.values(&p.experiment, p.metric).len();
        rows.push((p, ours, v, d, n));
    }
    results.take_incomplete();
    let claim_rows: Vec<(&crate::study::Claim, crate::study::ClaimOutcome)> = def
        .claims
        .iter()
        .map(|c| (c, check_claim(c, &results, def.seeds.len())))
        .collect();
    let holds = claim_rows
        .iter()
        .filter(|(_, o)| o.holds == Some(true))
        .count();
    let fails = claim_rows
        .iter()
        .filter(|(_, o)| o.holds == Some(false))
        .count();

    let mut summary = String::new();
    let _ = writeln!(
        summary,
        "{}{}",
        def.title,
        if def.quick { " (quick)" } else { "" }
    );
    let _ = writeln!(
        summary,
        "runs: {found} of {} expected ({} experiments × {} seeds){}",
        def.experiments.len() * def.seeds.len(),
        def.experiments.len(),
        def.seeds.len(),
        if stale > 0 {
            format!("; {stale} stored runs from other versions or studies ignored")
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        summary,
        "published numbers: {} close (≤10 %), {} near (≤25 %), {} differ, {} not checked",
        counts.get("close").unwrap_or(&0),
        counts.get("near").unwrap_or(&0),
        counts.get("differs").unwrap_or(&0),
        counts.get(NOT_CHECKED).unwrap_or(&0)
    );
    let _ = writeln!(
        summary,
        "claims: {holds} hold, {fails} do not, {} not checked",
        claim_rows.len() - holds - fails
    );
    let _ = writeln!(summary);
    let _ = writeln!(
        summary,
        "{:<10} {:<44} {:<34} {:>9} {:>9} {:>8}  verdict",
        "source", "experiment", "metric", "published", "ours", "diff"
    );
    for (p, ours, v, d, _) in rows.iter().filter(|r| r.1.is_some()) {
        let metric = if p.relative_to.is_some() {
            format!("{} Δ% vs ref", p.metric.key())
        } else {
            p.metric.name().to_string()
        };
        let diff = d.map_or("".into(), |d| {
            if p.relative_to.is_some() {
                format!("{d:+.1}pp")
            } else {
                format!("{d:+.0}%")
            }
        });
        let _ = writeln!(
            summary,
            "{:<10} {:<44} {:<34} {:>9} {:>9} {:>8}  {}",
            p.source,
            p.experiment,
            metric,
            f2(Some(p.value)),
            f2(*ours),
            diff,
            v
        );
    }
    let _ = writeln!(summary);
    for (c, o) in &claim_rows {
        let mark = match o.holds {
            Some(true) => "HOLDS",
            Some(false) => "DOES NOT HOLD",
            None => "not checked",
        };
        let _ = writeln!(
            summary,
            "[{mark}] {} ({}): {}",
            c.text, c.source, o.evidence
        );
    }

    // Markdown and CSV tables.
    let mut md = format!(
        "# {}{}\n\n",
        def.title,
        if def.quick { " (quick)" } else { "" }
    );
    let mut csv =
        String::from("source,experiment,metric,relative_to,published,ours,runs,diff,verdict\n");
    md += &format!("{}\n\n## Published numbers and ours\n\n| source | experiment | metric | published | ours (median) | runs | diff | verdict |\n|---|---|---|---:|---:|---:|---:|---|\n", summary.lines().take(4).collect::<Vec<_>>().join("  \n"));
    for (p, ours, v, d, n) in &rows {
        let metric = if let Some(r) = &p.relative_to {
            format!("{} (% vs {r})", p.metric.name())
        } else {
            p.metric.name().to_string()
        };
        md += &format!(
            "| {} | `{}` | {} | {} | {} | {} | {} | {} |\n",
            p.source,
            p.experiment,
            metric,
            f2(Some(p.value)),
            f2(*ours),
            n,
            d.map_or("".into(), |d| format!("{d:+.1}")),
            v
        );
        csv += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            p.source,
            p.experiment,
            p.metric.key(),
            p.relative_to.clone().unwrap_or_default(),
            p.value,
            ours.map_or(String::new(), |x| x.to_string()),
            n,
            d.map_or(String::new(), |x| x.to_string()),
            v
        );
    }
    md += "\n## Claims\n\n";
    for (c, o) in &claim_rows {
        md += &format!(
            "- **{}** {} ({}): {}\n",
            match o.holds {
                Some(true) => "holds",
                Some(false) => "does not hold",
                None => "not checked",
            },
            c.text,
            c.source,
            o.evidence
        );
    }
    md += "\n## Set-up choices\n\n";
    for n in &def.notes {
        md += &format!("- {n}\n");
    }

    // HTML with plots.
    let mut html = format!("<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title><style>{CSS}</style></head><body>", esc(def.title));
    html += &format!(
        "<h1>{}{}</h1><pre>{}</pre>",
        esc(def.title),
        if def.quick { " (quick)" } else { "" },
        esc(&summary.lines().take(4).collect::<Vec<_>>().join("\n"))
    );
    html += "<h2>Claims</h2><ul>";
    for (c, o) in &claim_rows {
        let (cls, word) = match o.holds {
            Some(true) => ("holds", "holds"),
            Some(false) => ("fails", "does not hold"),
            None => ("", "not checked"),
        };
        html += &format!(
            "<li><span class=\"{cls}\">{word}</span>: {} <i>({})</i><br><small>{}</small></li>",
            esc(c.text),
            esc(c.source),
            esc(&o.evidence)
        );
    }
    html += "</ul><h2>Published numbers and ours</h2><table><tr><th class=l>source</th><th class=l>experiment</th><th class=l>metric</th><th>published</th><th>ours</th><th>runs</th><th>diff</th><th class=l>verdict</th></tr>";
    for (p, ours, v, d, n) in &rows {
        let metric = if let Some(r) = &p.relative_to {
            format!("{} (% vs {r})", p.metric.name())
        } else {
            p.metric.name().to_string()
        };
        html += &format!("<tr class=\"{}\"><td class=l>{}</td><td class=l>{}</td><td class=l>{}</td><td>{}</td><td>{}</td><td>{n}</td><td>{}</td><td class=l>{v}</td></tr>", v.replace(' ', "-"), esc(p.source), esc(&p.experiment), esc(&metric), f2(Some(p.value)), f2(*ours), d.map_or("".into(), |d| format!("{d:+.1}")));
    }
    html += "</table>";
    let mut groups: BTreeMap<&str, Vec<&crate::study::Experiment>> = BTreeMap::new();
    for e in &def.experiments {
        groups.entry(e.group.as_str()).or_default().push(e);
    }
    for plot in &def.plots {
        html += &plot_section(plot, &groups, &results);
    }
    html += &variation_section(def, &results);
    html += &time_series_section(def, &results);
    html += "<h2>Set-up choices</h2><ul>";
    for n in &def.notes {
        html += &format!("<li>{}</li>", esc(n));
    }
    html += "</ul><h2>All experiments (medians over runs)</h2><table><tr><th class=l>experiment</th><th>runs</th>";
    for m in &def.table {
        html += &format!("<th>{}</th>", esc(&m.name()));
    }
    for m in &def.cv {
        html += &format!("<th>CV of {}</th>", esc(&m.name()));
    }
    html += "</tr>";
    for e in &def.experiments {
        let n = results.runs.get(&e.id).map_or(0, Vec::len);
        if n == 0 {
            continue;
        }
        html += &format!("<tr><td class=l>{}</td><td>{n}</td>", esc(&e.id));
        for m in &def.table {
            html += &format!("<td>{}</td>", f2(results.median(&e.id, *m)));
        }
        for m in &def.cv {
            html += &format!(
                "<td>{}</td>",
                results
                    .cv(&e.id, *m)
                    .map_or("–".into(), |c| format!("{c:.3}"))
            );
        }
        html += "</tr>";
    }
    html += "</table></body></html>\n";

    let mut files = Vec::new();
    write_file(dir, "report.html", &html, &mut files)?;
    write_file(dir, "report.md", &md, &mut files)?;
    write_file(dir, "published-vs-ours.csv", &csv, &mut files)?;
    write_file(dir, "summary.txt", &summary, &mut files)?;
    Ok(Rendered { summary, files })
}

/// A claim's outcome, or "not checked" when its check looked at an experiment of the study
/// that is not complete (a study stopped early): judging it on the runs that happen to be
/// stored, or without an experiment's runs, says nothing about the claim.
fn check_claim(c: &Claim, results: &Results, seeds: usize) -> ClaimOutcome {
    results.take_incomplete();
    let o = (c.check)(results);
    let missing = results.take_incomplete();
    if missing.is_empty() || o.holds.is_none() {
        return o;
    }
    let names: Vec<String> = missing
        .iter()
        .map(|e| {
            format!(
                "{e} ({} of {seeds} runs)",
                results.runs.get(e).map_or(0, Vec::len)
            )
        })
        .collect();
    ClaimOutcome {
        holds: None,
        evidence: format!(
            "not all its data was collected: {}; run the same command again to finish the study",
            names.join(", ")
        ),
    }
}

/// Histograms of the coefficient of variation over runs (Ong 2020 §3.6), one per metric
/// the study lists, over its experiments with at least two runs.
fn variation_section(def: &StudyDef, results: &Results) -> String {
    let mut html = String::from("<h2>Run-to-run variation</h2><p>Coefficient of variation (sample stdev / mean over seeds) of each experiment.</p><div class=plots>");
    for m in &def.cv {
        let v: Vec<f64> = def
            .experiments
            .iter()
            .filter_map(|e| results.cv(&e.id, *m))
            .collect();
        if !v.is_empty() {
            html += &histogram(
                &format!("CV of {} ({} experiments)", m.name(), v.len()),
                "coefficient of variation",
                &v,
                12,
            );
        }
    }
    html + "</div>"
}

/// Time series of one run: the first experiment with runs, at its first seed, simulated
/// again with 0.5 s bins (runs are deterministic, so this is the stored run; the store
/// keeps no series to stay small): goodput and window per flow, bottleneck queue.
fn time_series_section(def: &StudyDef, results: &Results) -> String {
    let Some((e, seed)) = def.experiments.iter().find_map(|e| {
        results
            .runs
            .get(&e.id)
            .and_then(|r| r.first())
            .map(|(seed, _)| (e, *seed))
    }) else {
        return String::new();
    };
    let mut sc = e.scenario.clone();
    sc.series_bin = Some(scavenger_cc::Dur::from_millis(500));
    let r = scavenger_sim::run(sc.to_sim(seed));
    let Some(s) = &r.series else {
        return String::new();
    };
    let per_flow = |f: &dyn Fn(usize, usize) -> f64| -> Vec<Series2> {
        r.flows
            .iter()
            .enumerate()
            .map(|(i, fl)| Series2 {
                name: fl.name.clone(),
                points: s
                    .time_s
                    .iter()
                    .enumerate()
                    .map(|(k, t)| (*t, f(i, k)))
                    .collect(),
            })
            .collect()
    };
    let mut html = format!("<h2>Time series of one run</h2><p>Experiment <code>{}</code>, seed {seed}, re-simulated with 0.5 s bins.</p><div class=plots>", esc(&e.id));
    html += &lines(
        "goodput per flow",
        "time (s)",
        "Mbit/s",
        &per_flow(&|i, k| s.flow_goodput_bps[i][k] / 1e6),
    );
    html += &lines(
        "congestion window per flow",
        "time (s)",
        "KiB",
        &per_flow(&|i, k| s.flow_cwnd_bytes[i][k] as f64 / 1024.0),
    );
    html += &lines(
        "bottleneck queue",
        "time (s)",
        "packets",
        &[Series2 {
            name: "queue".into(),
            points: s
                .time_s
                .iter()
                .zip(&s.queue_pkts)
                .map(|(t, q)| (*t, *q as f64))
                .collect(),
        }],
    );
    html + "</div>"
}

/// One plot kind of a study, drawn once per experiment group that has runs.
fn plot_section(
    plot: &Plot,
    groups: &BTreeMap<&str, Vec<&crate::study::Experiment>>,
    results: &Results,
) -> String {
    let (heading, caption) = match plot {
        Plot::Scatter { heading, pantheon: false, .. } => (*heading, "One point per run, one colour per mechanism; shaded: 95 % confidence ellipse."),
        Plot::Scatter { heading, pantheon: true, .. } => (*heading, "One point per run; delay axis logarithmic and inverted, so better is up and to the right; shaded: 95 % confidence ellipse."),
        Plot::Cdf { heading, .. } => (*heading, "Empirical distribution over runs, one line per mechanism."),
    };
    let mut html = format!("<h2>{}</h2><p>{caption}</p><div class=plots>", esc(heading));
    for (g, exps) in groups {
        let series: Vec<Series2> = exps
            .iter()
            .map(|e| {
                let runs = results.runs.get(&e.id).map_or(&[][..], Vec::as_slice);
                let points = match plot {
                    Plot::Scatter { x, y, .. } => runs
                        .iter()
                        .filter_map(|(_, r)| Some((x.of(r)?, y.of(r)?)))
                        .collect(),
                    Plot::Cdf { metric, .. } => runs
                        .iter()
                        .filter_map(|(_, r)| Some((metric.of(r)?, 0.0)))
                        .collect(),
                };
                Series2 {
                    name: e.mechanism.clone(),
                    points,
                }
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        if series.is_empty() {
            continue;
        }
        html += &match plot {
            Plot::Scatter { x, y, pantheon, .. } => scatter_with(
                g,
                &x.name(),
                &y.name(),
                &series,
                if *pantheon {
                    XAxis::LogInverted
                } else {
                    XAxis::Linear
                },
            ),
            Plot::Cdf { metric, .. } => cdf(g, &metric.name(), &series),
        };
    }
    html + "</div>"
}

/// A sweep's report: per setting, the median over seeds of each flow's goodput and RTT,
/// the bottleneck's utilisation and queueing delay, and Jain's index.
pub fn sweep_report(name: &str, dir: &Path, labels: &[String]) -> Result<Rendered, String> {
    let stored = Store::read(dir)?;
    let results = Results::from_stored(&stored, |s| labels.contains(&s.label))?;
    let mut md = format!("# Sweep {name}\n\n| setting | runs | flow | goodput (Mbit/s) | RTT mean (ms) | utilisation | queueing p95 (ms) | Jain |\n|---|---:|---|---:|---:|---:|---:|---:|\n");
    let mut csv =
        String::from("setting,runs,flow,goodput_mbps,rtt_mean_ms,utilisation,qdelay_p95_ms,jain\n");
    let mut summary = format!(
        "sweep {name}: {} settings, {} runs\n",
        results.runs.len(),
        results.runs.values().map(Vec::len).sum::<usize>()
    );
    for l in labels {
        let Some(rs) = results.runs.get(l) else {
            continue;
        };
        let util = median(
            &rs.iter()
                .map(|(_, r)| r.links[0].utilisation)
                .collect::<Vec<_>>(),
        );
        let q95 = median(
            &rs.iter()
                .filter_map(|(_, r)| r.links[0].qdelay_ms.p95)
                .collect::<Vec<_>>(),
        );
        let jain = median(
            &rs.iter()
                .filter_map(|(_, r)| r.jain.first().map(|j| j.index))
                .collect::<Vec<_>>(),
        );
        let names: Vec<String> = rs[0].1.flows.iter().map(|f| f.name.clone()).collect();
        for (i, fname) in names.iter().enumerate() {
            let g = median(
                &rs.iter()
                    .filter_map(|(_, r)| r.flows.get(i).map(|f| f.goodput_bps / 1e6))
                    .collect::<Vec<_>>(),
            );
            let rtt = median(
                &rs.iter()
                    .filter_map(|(_, r)| r.flows.get(i).and_then(|f| f.rtt_ms.mean))
                    .collect::<Vec<_>>(),
            );
            md += &format!(
                "| `{l}` | {} | {fname} | {} | {} | {} | {} | {} |\n",
                rs.len(),
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
    let html = format!("<!doctype html><html><head><meta charset=\"utf-8\"><title>{0}</title><style>{CSS}</style></head><body><pre>{1}</pre></body></html>\n", esc(name), esc(&summary));
    let mut files = Vec::new();
    write_file(dir, "report.md", &md, &mut files)?;
    write_file(dir, "report.csv", &csv, &mut files)?;
    write_file(dir, "report.html", &html, &mut files)?;
    Ok(Rendered { summary, files })
}
