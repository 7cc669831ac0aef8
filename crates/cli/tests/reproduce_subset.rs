//! `reproduce --subset` and `--datapath` as a user sees them (docs/cli.md#subset): the
//! runs a subset chooses, and the usage errors (exit 2, one `error:` line naming the flag
//! and value) of flags that do not go together. The testbed itself is not run here: every
//! error below is found before anything runs, so none needs root.

mod common;
use common::{scavenger, tmpdir};

#[test]
fn a_subset_runs_only_the_runs_it_chooses() {
    let dir = tmpdir("subset", "runs");
    let out = dir.to_str().unwrap();
    let (code, _, err) = scavenger(&[
        "reproduce",
        "ong2020",
        "--quick",
        "--jobs",
        "1",
        "--subset",
        "fair/*/n4/*@2, dl/8-1/50ms/cubic-short-1/ledbat",
        "--out",
        out,
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let mut runs: Vec<(String, u64)> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["label"].as_str().unwrap().to_string(),
                v["seed"].as_u64().unwrap(),
            )
        })
        .collect();
    runs.sort();
    assert!(!runs.is_empty());
    for (label, seed) in &runs {
        let fair_n4 = label.starts_with("fair/") && label.contains("/n4/") && *seed == 2;
        assert!(
            fair_n4 || label == "dl/8-1/50ms/cubic-short-1/ledbat",
            "{label} seed {seed} was not asked for"
        );
    }
    // The second pattern takes every seed of the quick study (1, 2, 3).
    let cubic_ledbat: Vec<u64> = runs
        .iter()
        .filter(|(l, _)| l == "dl/8-1/50ms/cubic-short-1/ledbat")
        .map(|(_, s)| *s)
        .collect();
    assert_eq!(cubic_ledbat, vec![1, 2, 3]);
    assert!(runs.iter().any(|(l, _)| l.starts_with("fair/")), "{runs:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_subsets_and_flags_that_do_not_go_together_are_usage_errors() {
    let dir = tmpdir("subset", "errors");
    let out = dir.join("store");
    let out = out.to_str().unwrap();
    let base = ["reproduce", "ong2020", "--quick", "--out", out];
    for (extra, says) in [
        (
            &["--subset", "dl/*/nosuch"][..],
            "--subset pattern \"dl/*/nosuch\" matches none of the 70 experiments of ong2020",
        ),
        (
            &["--subset", "fair/*@3-1"][..],
            "--subset pattern \"fair/*@3-1\": seeds \"3-1\"",
        ),
        (
            &["--subset", "fair/*@7"][..],
            "asks for seeds the study does not run; its seeds: 1, 2, 3",
        ),
        (&["--subset", "fair/*,,dl/*"][..], "pattern 2 is empty"),
        (
            &["--no-realtime"][..],
            "--no-realtime is for --datapath testbed",
        ),
        (
            &["--datapath", "testbed", "--shard", "0/2"][..],
            "--shard with --datapath testbed",
        ),
        (
            &["--datapath", "testbed", "--executor", "ray"][..],
            "--executor ray with --datapath testbed",
        ),
        (
            &["--subset", "fair/*", "--executor", "ray"][..],
            "--subset with --executor ray",
        ),
        (
            &["--datapath", "testbed", "--subset", "dl/*/nosuch"][..],
            "matches none of the 70 experiments",
        ),
        (&["--datapath", "kernel"][..], "'kernel'"),
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (code, _, err) = scavenger(&args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
        assert_eq!(err.matches("error:").count(), 1, "{extra:?}: {err}");
    }
    // Nothing ran: no store was made.
    assert!(!dir.join("store").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
