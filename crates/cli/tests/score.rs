//! `scavenger score` end to end on two cells of the quick grid: the summary line, the
//! files, resuming from the store, and bad input.

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
        "--out",
        d,
    ];
    let (code, out, err) = scavenger(&args);
    assert_eq!(code, 0, "{err}");
    // Two cells on one link: 2 × (with, fg-alone) + alone, jain, reference.
    assert!(err.contains("1 algorithms × 2 cells, 7 runs"), "{err}");
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
        err.contains("0 runs") && err.contains("7 of 7 already"),
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
    let (code, _, err) = scavenger(&["score", "ledbat", "--cells", "nope"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no cell matches") && err.contains("base:short-newreno"),
        "{err}"
    );
}
