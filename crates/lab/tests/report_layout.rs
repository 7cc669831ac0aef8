//! The reports a reader opens: their layout in the generated HTML (summary first, then
//! plots, then tables, the long tables last and folded; every plot with axes and legend;
//! words instead of internal keys), and the same page rendered in a real browser
//! (headless Chromium): no console error, every plot drawn with its axes and legend, the
//! summary and the first plot within the first two screens. The browser test keeps a
//! screenshot of each page under target/tmp/report-browser/ (CI's artefact).

use scavenger_lab::exec::{run_into_store, LocalExecutor};
use scavenger_lab::report::{study_report, sweep_report};
use scavenger_lab::store::Store;
use scavenger_lab::study::study;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn run(dir: &Path, items: Vec<scavenger_lab::work::WorkItem>) {
    let _ = std::fs::remove_dir_all(dir);
    let mut store = Store::open(dir).unwrap();
    let exec = LocalExecutor {
        threads: 2,
        progress: false,
        ..LocalExecutor::new(false)
    };
    run_into_store(&exec, &mut store, items, false)
        .unwrap()
        .unwrap();
}

fn out_root() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-browser")
}

/// Ong 2020's quick study cut to its first 16 experiments (two plot groups of eight
/// mechanisms) and two seeds: a report with checked and unchecked numbers, held and failed
/// claims, and every plot kind. Rendered once for all tests.
fn study_html() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let mut def = study("ong2020", true).unwrap();
        def.experiments.truncate(16);
        def.seeds.truncate(2);
        let dir = out_root().join("study");
        run(&dir, def.work_items());
        study_report(&def, &dir).unwrap();
        dir.join("report.html")
    })
}

/// The buffers sweep of examples/sweeps/ (two crossed axes) at 5 s per run, two seeds.
fn sweep_html() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sweeps");
        let mut plan = scavenger_lab::plan::load_plan(&root.join("buffers.toml")).unwrap();
        plan.seeds.truncate(2);
        let labels: Vec<String> = plan.combinations().into_iter().map(|c| c.0).collect();
        let items = plan
            .expand()
            .unwrap()
            .into_iter()
            .map(|w| {
                let mut sc = w.scenario;
                sc.duration = scavenger_cc::Dur::from_millis(5000);
                scavenger_lab::work::WorkItem::new(w.label, sc, w.seed)
            })
            .collect();
        let dir = out_root().join("sweep");
        run(&dir, items);
        sweep_report(&plan.name, &dir, &labels).unwrap();
        dir.join("report.html")
    })
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// Each `<svg>` of a page.
fn plots(html: &str) -> Vec<&str> {
    html.split("<svg")
        .skip(1)
        .map(|s| &s[..s.find("</svg>").unwrap()])
        .collect()
}

#[test]
fn study_report_reads_summary_plots_tables_then_folded_long_tables() {
    let html = read(study_html());
    let at = |s: &str| html.find(s).unwrap_or_else(|| panic!("no {s}"));
    assert!(at("id=\"summary\"") < at("<svg"));
    assert!(at("<svg") < at("id=\"tables\""));
    assert!(at("id=\"tables\"") < at("<details id=\"experiments\""));
    assert!(at("<details id=\"experiments\"") < at("<details id=\"all-published\""));
    // The folded tables are the last thing on the page.
    assert!(html.trim_end().ends_with("</details></body></html>"));
    // The summary says, in sentences, what ran and what matched.
    let summary = &html[at("id=\"summary\"")..at("id=\"plots\"")];
    for s in [
        "We ran 16 of Ong 2020's experiments",
        "runs are stored",
        "numbers Ong 2020 publishes, we checked",
        "qualitative claims",
        "close: ours is within 10 %",
    ] {
        assert!(summary.contains(s), "summary lacks {s:?}: {summary}");
    }
    // Every plot has its axes and a legend.
    let p = plots(&html);
    assert!(p.len() >= 4, "{} plots", p.len());
    for svg in &p {
        for part in [
            "class=\"axes\"",
            "class=\"x-title\"",
            "class=\"y-title\"",
            "class=\"legend\"",
        ] {
            assert!(svg.contains(part), "a plot without {part}: {svg}");
        }
    }
    // No internal keys where a reader reads; sources by their short names.
    assert!(
        !html.contains("Δ% vs ref") && !html.contains("fg_ftt_s") && !html.contains("bg_tput_kib")
    );
    assert!(!html.to_lowercase().contains("seed 000"));
    assert!(
        html.contains("change in foreground transaction time against newreno (%)")
            || html.contains("change in background throughput against")
    );
    assert!(html.contains("<td class=l>Ong 2020 Fig 4.1</td>"));
    // One colour per mechanism: LEDBAT's dots are LEDBAT's colour in every scatter plot.
    for svg in p.iter().filter(|s| s.contains(">ledbat</text>")) {
        assert!(svg.contains(scavenger_lab::palette::colour("ledbat")));
    }
    let md = read(&study_html().with_file_name("report.md"));
    assert!(md.find("## Summary").unwrap() < md.find("## Claims").unwrap());
    assert!(md.contains("<details><summary>All "));
}

#[test]
fn sweep_report_plots_each_metric_against_the_swept_setting() {
    let html = read(sweep_html());
    let p = plots(&html);
    // Goodput, RTT, utilisation, queueing delay, Jain's index.
    assert_eq!(p.len(), 5, "{html}");
    assert!(html.find("id=\"summary\"").unwrap() < html.find("<svg").unwrap());
    assert!(html.contains("95 % confidence interval (Student's t"));
    for svg in &p {
        assert!(svg.contains("link.buffer (BDP)"), "{svg}");
        assert!(svg.contains("class=\"legend\"") && svg.contains("class=\"axes\""));
    }
    // The crossed (rate, delay) axis makes separate series of each flow: two flows ×
    // two (rate, delay) settings, one line each, a shade of CUBIC's colour each.
    assert!(
        p[0].contains("link.rate=10Mbit, link.delay=25ms"),
        "{}",
        p[0]
    );
    assert_eq!(p[0].matches("<polyline").count(), 4);
    assert!(p[0].contains(scavenger_lab::palette::colour("cubic")));
}

/// What a page looks like in the browser: problems found, or none.
fn browser_problems(chromium: &str, page: &Path, shot: &Path) -> Vec<String> {
    // A copy of the page with a probe that records errors and, once loaded, measures the
    // layout into an attribute of <body>, which --dump-dom prints.
    const PROBE: &str = r#"<script>window.__errs=[];addEventListener('error',function(e){__errs.push(String(e.message||('failed to load '+(e.target&&(e.target.src||e.target.href)))))},true);addEventListener('load',function(){var top=function(el){return el?el.getBoundingClientRect().top+scrollY:-1};var ok=function(el){if(!el)return false;var r=el.getBoundingClientRect();return r.width>0&&r.height>0};var plots=[].slice.call(document.querySelectorAll('svg.plot')).map(function(s){return {axes:ok(s.querySelector('g.axes')),x:ok(s.querySelector('.x-title'))&&s.querySelector('.x-title').textContent.length>0,y:ok(s.querySelector('.y-title'))&&s.querySelector('.y-title').textContent.length>0,legend:ok(s.querySelector('g.legend'))&&s.querySelectorAll('g.legend text').length>0,nodata:!!s.querySelector('.no-data')}});document.body.setAttribute('data-probe',JSON.stringify({errs:__errs,screen:innerHeight,summary:top(document.getElementById('summary')),first_plot:top(document.querySelector('svg.plot')),plots:plots}))});</script>"#;
    let html = read(page);
    let probed = page.with_file_name("probe.html");
    std::fs::write(
        &probed,
        html.replacen("<head>", &format!("<head>{PROBE}"), 1),
    )
    .unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,900",
            &format!("--screenshot={}", shot.display()),
            "--dump-dom",
            &format!("file://{}", probed.display()),
        ])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&probed);
    let mut problems = Vec::new();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The report has no scripts and loads nothing: any console message is a problem.
    for l in stderr.lines().filter(|l| l.contains(":CONSOLE")) {
        problems.push(format!("console: {l}"));
    }
    let dom = String::from_utf8_lossy(&out.stdout);
    let Some(attr) = dom
        .split("data-probe=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
    else {
        problems.push(format!(
            "the page did not load (exit {:?}): {stderr}",
            out.status
        ));
        return problems;
    };
    let v: serde_json::Value =
        serde_json::from_str(&attr.replace("&quot;", "\"").replace("&amp;", "&")).unwrap();
    for e in v["errs"].as_array().unwrap() {
        problems.push(format!("error: {e}"));
    }
    let screen = v["screen"].as_f64().unwrap();
    for (what, key) in [("summary", "summary"), ("first plot", "first_plot")] {
        let y = v[key].as_f64().unwrap();
        if !(0.0..2.0 * screen).contains(&y) {
            problems.push(format!(
                "the {what} starts at {y} px, not within the first two screens ({screen} px each)"
            ));
        }
    }
    let plots = v["plots"].as_array().unwrap();
    if plots.is_empty() {
        problems.push("no plot".into());
    }
    for (i, p) in plots.iter().enumerate() {
        if p["nodata"] == true {
            continue;
        }
        for part in ["axes", "x", "y", "legend"] {
            if p[part] != true {
                problems.push(format!("plot {i}: no visible {part}"));
            }
        }
    }
    if !std::fs::read(shot).is_ok_and(|b| b.starts_with(b"\x89PNG")) {
        problems.push(format!("no screenshot at {}", shot.display()));
    }
    problems
}

/// Chromium, or None (the test then says it is skipped: CI installs it, .ci/run).
fn chromium() -> Option<String> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .map(String::from)
        .chain(std::env::var("SCAVENGER_CHROMIUM"))
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

#[test]
fn reports_render_in_a_real_browser() {
    let Some(chromium) = chromium() else {
        eprintln!("SKIPPED reports_render_in_a_real_browser: chromium is not installed (apt-get install chromium; .ci/run installs it, so CI never skips)");
        return;
    };
    for (name, page) in [("study", study_html()), ("sweep", sweep_html())] {
        let shot = out_root().join(format!("{name}.png"));
        let problems = browser_problems(&chromium, page, &shot);
        assert!(problems.is_empty(), "{name} report: {problems:#?}");
        eprintln!("{name} report: screenshot {}", shot.display());
    }
    // The check finds what it looks for: a console error, a failed load, a plot without
    // a legend, a summary far down the page.
    let dir = out_root().join("broken");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("report.html");
    std::fs::write(&bad, "<!doctype html><html><head></head><body><div style=\"height:5000px\"></div><section id=\"summary\">s</section><svg class=\"plot\" width=\"100\" height=\"100\"><g class=\"axes\"><rect width=\"50\" height=\"50\"/><text class=\"x-title\" y=\"60\">x</text><text class=\"y-title\" y=\"70\">y</text></g></svg><img src=\"missing.png\"><script>console.error('boom')</script></body></html>").unwrap();
    let p = browser_problems(&chromium, &bad, &dir.join("broken.png"));
    let has = |s: &str| p.iter().any(|x| x.contains(s));
    assert!(has("console:") && has("boom"), "{p:#?}");
    assert!(has("failed to load"), "{p:#?}");
    assert!(has("plot 0: no visible legend"), "{p:#?}");
    assert!(has("the summary starts at"), "{p:#?}");
}
