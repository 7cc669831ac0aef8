//! `scavenger score` end to end on two cells of the quick grid and two seeds: the summary
//! line, the files, each run once per seed, resuming from the store, and bad input.

mod common;
use common::scavenger;

#[test]
fn score_runs_two_cells_writes_the_report_and_resumes() {
    let dir = std::env::temp_dir().join(format!("scavenger-score-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let args = [
        "score",
        "ledbat",
        "target=25ms",
        "--quick",
        "--cells",
        "base:short-newreno,base:video",
        "--seeds",
        "2",
        "--out",
        d,
    ];
    let (code, out, err) = scavenger(&args);
    assert_eq!(code, 0, "{err}");
    // Two cells on one link: 2 × (with, fg-alone) + alone, jain, reference; per seed.
    assert!(
        err.contains("1 algorithms × 2 cells × 2 seeds, 14 runs"),
        "{err}"
    );
    // Every one of the 7 runs is stored once for seed 1 and once for seed 2.
    let stored = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let mut seeds = std::collections::BTreeMap::<String, Vec<u64>>::new();
    for l in stored.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        seeds
            .entry(v["label"].as_str().unwrap().to_string())
            .or_default()
            .push(v["seed"].as_u64().unwrap());
    }
    assert_eq!(seeds.len(), 7, "{seeds:?}");
    for (label, s) in &mut seeds {
        s.sort();
        assert_eq!(s, &[1, 2], "{label}");
    }
    let line = out.trim();
    let (k, n) = line
        .strip_prefix("algo=ledbat[target=25ms] cells_all_pass=")
        .and_then(|r| r.split_once('/'))
        .unwrap_or_else(|| panic!("summary line: {line:?}"));
    let (k, n): (usize, usize) = (k.parse().unwrap(), n.parse().unwrap());
    assert!(n == 2 && k <= n, "{line}");
    for f in [
        "report.html",
        "report.md",
        "scorecard.csv",
        "summary.txt",
        "results.jsonl",
    ] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    for m in [
        "slowdown",
        "Spare capacity",
        "queueing delay",
        "Ramp-up",
        "Jain",
        "Harm",
    ] {
        assert!(html.contains(m), "report.html lacks {m}");
    }
    let csv = std::fs::read_to_string(dir.join("scorecard.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    // The aggregate of 2 seeds, with each metric's spread.
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let col = |name: &str| row[head.iter().position(|h| *h == name).unwrap()];
    assert_eq!(col("seeds"), "2", "{csv}");
    let (lo, mid, hi): (f64, f64, f64) = (
        col("slowdown_min").parse().unwrap(),
        col("slowdown").parse().unwrap(),
        col("slowdown_max").parse().unwrap(),
    );
    // The median of two is their mean.
    assert!((mid - (lo + hi) / 2.0).abs() < 1e-12, "{csv}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("Seeds 1 to 2 per run"), "{md}");
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("ledbat[target=25ms],base:"),
        "{csv}"
    );
    // Again: nothing runs, the same summary.
    let (code, out2, err) = scavenger(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("0 runs") && err.contains("14 of 14 already"),
        "{err}"
    );
    assert_eq!(out, out2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn score_refuses_bad_input_with_the_reason() {
    let (code, _, err) = scavenger(&["score", "no-such"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown algorithm") && err.contains("ledbat"),
        "{err}"
    );
    let (code, _, err) = scavenger(&["score", "ledbat", "gain=7"]);
    assert_eq!(code, 2);
    assert!(err.contains("gain") && err.contains('7'), "{err}");
    let (code, _, err) = scavenger(&["score"]);
    assert_eq!(code, 2);
    assert!(err.contains("--all"), "{err}");
    for n in ["0", "101"] {
        let (code, _, err) = scavenger(&["score", "ledbat", "--seeds", n]);
        assert_eq!(code, 2);
        assert!(
            err.contains(&format!("--seeds {n} is out of range")) && err.contains("1 to 100"),
            "{err}"
        );
    }
    let (code, _, err) = scavenger(&["score", "ledbat", "--seeds", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("--seeds"), "{err}");
    let (code, _, err) = scavenger(&["score", "ledbat", "--cells", "nope"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no cell matches") && err.contains("base:short-newreno"),
        "{err}"
    );
}
