//! Reports: for a study, a summary in plain words (what was run, what matched, what did
//! not and why), the plots the field expects, every claim checked with its evidence and
//! every published number beside ours, the long tables last and folded; for a sweep
//! (`report_sweep`), each metric against the swept setting. Written as self-contained
//! HTML (inline SVG, no scripts), Markdown, CSV and a text summary. Plots colour each
//! mechanism the same everywhere (`crate::palette`); sources go by their short names.

use crate::error::LabError;
use crate::store::{Store, Stored};
use crate::study::{verdict, Claim, ClaimOutcome, Plot, Published, Results, StudyDef, NOT_CHECKED};
use crate::svg::{cdf, histogram, lines, scatter_with, Series2, XAxis};
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

pub struct Rendered {
    pub summary: String,
    pub files: Vec<PathBuf>,
}

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub(crate) fn f2(x: Option<f64>) -> String {
    x.map_or("–".to_string(), |v| {
        if v.abs() >= 100.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        }
    })
}

pub(crate) const CSS: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}.close{background:#e6f4e6}.near{background:#fff6db}.differs{background:#fde4e4}.holds{color:#1a7f1a;font-weight:bold}.fails{color:#b00;font-weight:bold}.plots svg{margin:6px;border:1px solid #eee}#summary p{max-width:60em;line-height:1.4}.explain{font-size:13px;color:#555}details{margin:1em 0}details>summary{cursor:pointer;font-weight:bold;font-size:1.1em}";

pub(crate) fn write_file(
    dir: &Path,
    name: &str,
    content: &str,
    files: &mut Vec<PathBuf>,
) -> Result<(), LabError> {
    let p = dir.join(name);
    // Temp file + rename: a report being rewritten is never seen half written.
    crate::store::write_atomic(&p, content.as_bytes()).map_err(LabError::io("write", &p))?;
    files.push(p);
    Ok(())
}

/// What "close", "near" and "differs" mean, said wherever they are used.
pub const VERDICTS_EXPLAINED: &str = "close: ours is within 10 % of the published number (within 10 percentage points when the number is itself a change in percent); near: within 25 % (25 points); differs: further apart; not checked: the experiment was not run (not part of this study's quick mode) or not all its runs are stored yet.";

/// Where a claim or number comes from, for a reader: "Ong 2020 §4.2". A claim of our own
/// cites our docs ("docs/dalbe.md §4 (ours)"), which the source's name must not prefix.
pub fn cite(src: &str, section: &str) -> String {
    if section.starts_with("docs/") {
        section.to_string()
    } else {
        format!("{src} {section}")
    }
}

/// A study's source by its short name (docs/sources.md), e.g. "Ong 2020".
pub fn source_name(def: &StudyDef) -> &'static str {
    crate::study::STUDIES
        .iter()
        .find(|s| s.0 == def.name)
        .and_then(|s| s.1.split(':').next())
        .unwrap_or(def.name)
}

/// A published number's metric in words and units: "foreground transaction time (s)", or
/// for a change against another experiment "change in foreground transaction time
/// against newreno (%)".
pub fn metric_words(def: &StudyDef, p: &Published) -> String {
    let name = p.metric.name();
    match &p.relative_to {
        None => name,
        Some(r) => {
            let bare = name.split(" (").next().unwrap_or(&name);
            let against = def
                .experiment(r)
                .map_or(r.as_str(), |e| e.mechanism.as_str());
            format!("change in {bare} against {against} (%)")
        }
    }
}

/// The difference of ours from the published number, with its unit: percent of the
/// published value, or percentage points for a number that is a change in percent.
pub(crate) fn diff_words(p: &Published, d: Option<f64>) -> String {
    d.map_or(String::new(), |d| {
        if p.relative_to.is_some() {
            format!("{d:+.1} points")
        } else {
            format!("{d:+.0} %")
        }
    })
}

/// One published number with ours beside it.
struct Row<'a> {
    p: &'a Published,
    ours: Option<f64>,
    verdict: &'static str,
    diff: Option<f64>,
    runs: usize,
}

/// The plain-language summary: what was run, what matched, what did not and why. Each
/// sentence is computed from the results.
fn plain_summary(
    def: &StudyDef,
    found: usize,
    stale: usize,
    rows: &[Row],
    claims: &[(&Claim, ClaimOutcome)],
) -> Vec<String> {
    let src = source_name(def);
    let count = |v: &str| rows.iter().filter(|r| r.verdict == v).count();
    let (close, near, differs, unchecked) = (
        count("close"),
        count("near"),
        count("differs"),
        count(NOT_CHECKED),
    );
    let expected = def.experiments.len() * def.seeds.len();
    let mechanisms: std::collections::BTreeSet<&str> = def
        .experiments
        .iter()
        .filter_map(|e| crate::palette::algorithm_of(&e.mechanism))
        .collect();
    let mech = if mechanisms.is_empty() {
        String::new()
    } else {
        format!(
            ", with the mechanisms {},",
            mechanisms.into_iter().collect::<Vec<_>>().join(", ")
        )
    };
    let mut out = vec![format!(
        "We ran {} of {src}'s experiments{}{mech} on the simulator, each with {} seed{}: {found} of {expected} runs are stored{}.{}",
        def.experiments.len(),
        if def.quick { " in quick mode (a representative subset)" } else { "" },
        def.seeds.len(),
        if def.seeds.len() == 1 { "" } else { "s" },
        if found < expected { " (the study was stopped early; run the same command again to finish it)" } else { "" },
        if stale > 0 { format!(" {stale} stored runs from other versions or studies were ignored.") } else { String::new() },
    )];
    let checked = close + near + differs;
    out.push(if checked == 0 {
        format!("None of the {} numbers {src} publishes could be checked: their experiments have no complete runs here.", rows.len())
    } else {
        format!(
            "Of the {} numbers {src} publishes, we checked {checked}: {close} are close to ours (within 10 %), {near} near (within 25 %) and {differs} differ by more; {unchecked} were not checked because their experiments are not part of this run{}.",
            rows.len(),
            if def.quick { " (quick mode)" } else { "" },
        )
    });
    let mut worst: Vec<&Row> = rows
        .iter()
        .filter(|r| r.verdict == "differs" && r.diff.is_some_and(f64::is_finite))
        .collect();
    worst.sort_by(|a, b| b.diff.unwrap().abs().total_cmp(&a.diff.unwrap().abs()));
    if !worst.is_empty() {
        let list: Vec<String> = worst
            .iter()
            .take(3)
            .map(|r| {
                format!(
                    "{} in {} ({} {}: published {}, ours {}, {})",
                    metric_words(def, r.p),
                    r.p.experiment,
                    src,
                    r.p.source,
                    f2(Some(r.p.value)),
                    f2(r.ours),
                    diff_words(r.p, r.diff)
                )
            })
            .collect();
        out.push(format!(
            "The largest differences: {}. docs/reproduction.md discusses why each differs (set-up choices the source leaves open are listed under \"Set-up choices\").",
            list.join("; ")
        ));
    }
    let holds = claims.iter().filter(|c| c.1.holds == Some(true)).count();
    let fails: Vec<&(&Claim, ClaimOutcome)> =
        claims.iter().filter(|c| c.1.holds == Some(false)).collect();
    let mut s = format!(
        "Of its {} qualitative claims, {holds} hold in our runs, {} do not and {} were not checked.",
        claims.len(),
        fails.len(),
        claims.len() - holds - fails.len()
    );
    for (c, o) in fails.iter().take(3) {
        let _ = write!(
            s,
            " Does not hold: \"{}\" ({}), because {}.",
            c.text,
            cite(src, c.source),
            o.evidence.trim_end_matches('.')
        );
    }
    if fails.len() > 3 {
        let _ = write!(s, " The claims table lists the other {}.", fails.len() - 3);
    }
    out.push(s);
    out
}

/// Renders a study's report from the store in `dir`: report.html (summary, plots,
/// tables, the long tables last and folded), report.md, published-vs-ours.csv and
/// summary.txt.
pub fn study_report(def: &StudyDef, dir: &Path) -> Result<Rendered, LabError> {
    let stored = Store::read(dir)?;
    let expected: HashSet<String> = def.work_items().into_iter().map(|w| w.key).collect();
    let results = Results::from_stored(&stored, |s: &Stored| expected.contains(&s.key)).expect(def);
    let found: usize = results.runs.values().map(Vec::len).sum();
    let stale = stored.len().saturating_sub(found);
    let src = source_name(def);

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
        rows.push(Row {
            p,
            ours,
            verdict: v,
            diff: d,
            runs: n,
        });
    }
    results.take_incomplete();
    let claim_rows: Vec<(&Claim, ClaimOutcome)> = def
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
    let plain = plain_summary(def, found, stale, &rows, &claim_rows);
    let title = format!("{}{}", def.title, if def.quick { " (quick)" } else { "" });

    let mut summary = String::new();
    let _ = writeln!(summary, "{title}");
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
    let _ = writeln!(summary, "{VERDICTS_EXPLAINED}");
    let _ = writeln!(summary);
    let _ = writeln!(
        summary,
        "{:<28} {:<44} {:<52} {:>9} {:>9} {:>12}  verdict",
        "source", "experiment", "metric", "published", "ours", "difference"
    );
    for r in rows.iter().filter(|r| r.ours.is_some()) {
        let _ = writeln!(
            summary,
            "{:<28} {:<44} {:<52} {:>9} {:>9} {:>12}  {}",
            format!("{src} {}", r.p.source),
            r.p.experiment,
            metric_words(def, r.p),
            f2(Some(r.p.value)),
            f2(r.ours),
            diff_words(r.p, r.diff),
            r.verdict
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
            c.text,
            cite(src, c.source),
            o.evidence
        );
    }

    // The CSV is for programs: keys and bare numbers, as before.
    let mut csv =
        String::from("source,experiment,metric,relative_to,published,ours,runs,diff,verdict\n");
    for r in &rows {
        let p = r.p;
        csv += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            p.source,
            p.experiment,
            p.metric.key(),
            p.relative_to.clone().unwrap_or_default(),
            p.value,
            r.ours.map_or(String::new(), |x| x.to_string()),
            r.runs,
            r.diff.map_or(String::new(), |x| x.to_string()),
            r.verdict
        );
    }

    // Markdown: the same order as the HTML, without plots.
    let mut md = format!("# {title}\n\n## Summary\n\n");
    for s in &plain {
        md += &format!("{s}\n\n");
    }
    md += &format!("*{VERDICTS_EXPLAINED}*\n\n## Claims\n\n");
    for (c, o) in &claim_rows {
        md += &format!(
            "- **{}** {} ({}): {}\n",
            match o.holds {
                Some(true) => "holds",
                Some(false) => "does not hold",
                None => "not checked",
            },
            c.text,
            cite(src, c.source),
            o.evidence
        );
    }
    let md_table = |rows: &mut dyn Iterator<Item = &Row>| {
        let mut t = String::from("| source | experiment | metric | published | ours (median over runs) | runs | difference | verdict |\n|---|---|---|---:|---:|---:|---:|---|\n");
        for r in rows {
            t += &format!(
                "| {src} {} | `{}` | {} | {} | {} | {} | {} | {} |\n",
                r.p.source,
                r.p.experiment,
                metric_words(def, r.p),
                f2(Some(r.p.value)),
                f2(r.ours),
                r.runs,
                diff_words(r.p, r.diff),
                r.verdict
            );
        }
        t
    };
    md += "\n## Published numbers we checked\n\n";
    md += &md_table(&mut rows.iter().filter(|r| r.ours.is_some()));
    md += "\n## Set-up choices\n\n";
    for n in &def.notes {
        md += &format!("- {n}\n");
    }
    md += &format!(
        "\n<details><summary>All {} published numbers, with those not checked</summary>\n\n",
        rows.len()
    );
    md += &md_table(&mut rows.iter());
    md += "\n</details>\n";

    // HTML: summary, plots, tables, the long tables last and folded.
    let mut html = format!("<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title><style>{CSS}</style></head><body>", esc(def.title));
    html += &format!(
        "<h1>{}</h1><section id=\"summary\"><h2>Summary</h2>",
        esc(&title)
    );
    for s in &plain {
        html += &format!("<p>{}</p>", esc(s));
    }
    html += &format!(
        "<p class=\"explain\">{}</p><p class=\"counts\">{}</p></section>",
        esc(VERDICTS_EXPLAINED),
        esc(&summary
            .lines()
            .skip(1)
            .take(3)
            .collect::<Vec<_>>()
            .join(" · "))
    );
    let mut groups: BTreeMap<&str, Vec<&crate::study::Experiment>> = BTreeMap::new();
    for e in &def.experiments {
        groups.entry(e.group.as_str()).or_default().push(e);
    }
    html += "<section id=\"plots\">";
    for plot in &def.plots {
        html += &plot_section(plot, &groups, &results);
    }
    html += &variation_section(def, &results);
    html += &time_series_section(def, &results);
    html += "</section><section id=\"tables\"><h2>Claims</h2><table><tr><th class=l>verdict</th><th class=l>claim</th><th class=l>source</th><th class=l>evidence</th></tr>";
    for (c, o) in &claim_rows {
        let (cls, word) = match o.holds {
            Some(true) => ("holds", "holds"),
            Some(false) => ("fails", "does not hold"),
            None => ("", "not checked"),
        };
        html += &format!(
            "<tr><td class=\"l {cls}\">{word}</td><td class=l>{}</td><td class=l>{}</td><td class=l><small>{}</small></td></tr>",
            esc(c.text),
            esc(&cite(src, c.source)),
            esc(&o.evidence)
        );
    }
    html += "</table>";
    let html_table = |rows: &mut dyn Iterator<Item = &Row>| {
        let mut t = String::from("<table><tr><th class=l>source</th><th class=l>experiment</th><th class=l>metric</th><th>published</th><th>ours (median over runs)</th><th>runs</th><th>difference</th><th class=l>verdict</th></tr>");
        for r in rows {
            t += &format!("<tr class=\"{}\"><td class=l>{src} {}</td><td class=l>{}</td><td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=l>{}</td></tr>", r.verdict.replace(' ', "-"), esc(r.p.source), esc(&r.p.experiment), esc(&metric_words(def, r.p)), f2(Some(r.p.value)), f2(r.ours), r.runs, diff_words(r.p, r.diff), r.verdict);
        }
        t + "</table>"
    };
    html += &format!(
        "<h2>Published numbers we checked</h2><p class=\"explain\">{}</p>",
        esc(VERDICTS_EXPLAINED)
    );
    html += &html_table(&mut rows.iter().filter(|r| r.ours.is_some()));
    html += "<h2>Set-up choices</h2><ul>";
    for n in &def.notes {
        html += &format!("<li>{}</li>", esc(n));
    }
    html += "</ul></section>";
    html += &format!("<details id=\"experiments\"><summary>All {} experiments: medians over runs</summary><table><tr><th class=l>experiment</th><th class=l>mechanism</th><th>runs</th>", def.experiments.len());
    for m in &def.table {
        html += &format!("<th>{}</th>", esc(&m.name()));
    }
    for m in &def.cv {
        html += &format!(
            "<th>coefficient of variation of {}</th>",
            esc(m.name().split(" (").next().unwrap_or(""))
        );
    }
    html += "</tr>";
    for e in &def.experiments {
        let n = results.runs.get(&e.id).map_or(0, Vec::len);
        if n == 0 {
            continue;
        }
        html += &format!(
            "<tr><td class=l>{}</td><td class=l>{}</td><td>{n}</td>",
            esc(&e.id),
            esc(&e.mechanism)
        );
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
    html += "</table></details>";
    html += &format!(
        "<details id=\"all-published\"><summary>All {} published numbers, with those not checked</summary>",
        rows.len()
    );
    html += &html_table(&mut rows.iter());
    html += "</details></body></html>\n";

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
                &format!(
                    "{} ({} experiments)",
                    m.name().split(" (").next().unwrap_or(""),
                    v.len()
                ),
                "coefficient of variation over seeds",
                "experiments",
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
                name: format!("{} ({})", fl.name, fl.algorithm),
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
        "goodput (Mbit/s)",
        &per_flow(&|i, k| s.flow_goodput_bps[i][k] / 1e6),
    );
    html += &lines(
        "congestion window per flow",
        "time (s)",
        "window (KiB)",
        &per_flow(&|i, k| s.flow_cwnd_bytes[i][k] as f64 / 1024.0),
    );
    html += &lines(
        "bottleneck queue",
        "time (s)",
        "queue (packets)",
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

pub use crate::report_sweep::sweep_report;

#[cfg(test)]
mod tests {
    use super::cite;

    #[test]
    fn a_source_section_is_prefixed_with_the_source_and_our_own_docs_are_not() {
        assert_eq!(cite("Ong 2020", "§4.2, Fig 4.1"), "Ong 2020 §4.2, Fig 4.1");
        assert_eq!(
            cite("Wallenburg 2018", "docs/dalbe.md §4 (ours)"),
            "docs/dalbe.md §4 (ours)"
        );
    }
}
