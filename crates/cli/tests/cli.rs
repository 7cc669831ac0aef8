//! The command line: exit codes and messages as a user sees them.

mod common;
use common::scavenger;

fn examples() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

#[test]
fn every_example_runs() {
    let mut files = Vec::new();
    let mut dirs = vec![examples()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                // Sweep plans are not scenarios; `sweep_example_runs` covers them.
                if p.file_name().is_some_and(|n| n != "sweeps") {
                    dirs.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "toml") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 12, "examples: {files:?}");
    for p in files {
        {
            let (code, out, err) = scavenger(&["run", p.to_str().unwrap()]);
            assert_eq!(code, 0, "{}: {err}", p.display());
            assert!(
                out.contains("goodput") && out.contains("link forward"),
                "{out}"
            );
        }
    }
}

#[test]
fn json_output_is_the_record() {
    let p = examples().join("newreno-random-loss.toml");
    let (code, out, _) = scavenger(&["run", p.to_str().unwrap(), "--json", "--seed", "3"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["seed"], 3);
    assert!(v["metrics"]["flows"][0]["goodput_bps"].as_f64().unwrap() > 1e6);
}

#[test]
fn bad_input_exits_non_zero_with_the_field_named() {
    let (code, _, err) = scavenger(&["run", "/nonexistent/x.toml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("/nonexistent/x.toml") && err.contains("cannot read"),
        "{err}"
    );
    let dir = std::env::temp_dir().join(format!("scavenger-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "duration = \"10s\"\n[link]\nrate = \"0Mbit\"\ndelay = \"1ms\"\nbuffer = \"10 packets\"\n[[flow]]\nalgorithm = \"newreno\"\n").unwrap();
    let (code, _, err) = scavenger(&["run", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("link.rate") && err.contains("0Mbit") && !err.contains("panicked"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn algorithms_lists_parameters_with_defaults_and_sources() {
    let (code, out, _) = scavenger(&["algorithms"]);
    assert_eq!(code, 0);
    for name in ["newreno", "cubic", "ledbat"] {
        assert!(
            out.lines().any(|l| l.starts_with(name)),
            "{name} missing from:\n{out}"
        );
    }
    assert!(
        out.contains("beta") && out.contains("0.7") && out.contains("RFC 9438"),
        "{out}"
    );
    for name in [
        "rledbat",
        "cubic-mbc",
        "vegas-mbc",
        "deadline",
        "yield",
        "cdg",
        "flower",
        "evarate",
    ] {
        assert!(out.lines().any(|l| l.starts_with(name)), "{name} missing");
    }
}

#[test]
fn bench_case_prints_one_line_of_numbers() {
    let (code, _, err) = scavenger(&["bench", "--case", "zz"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("\"zz\"") && err.contains("cases: a, b"),
        "{err}"
    );
}

#[test]
fn sweep_example_expands_and_runs_one_setting() {
    let plan = scavenger_lab::plan::load_plan(&examples().join("sweeps/buffers.toml")).unwrap();
    let items = plan.expand().unwrap();
    // 5 buffers × 2 zipped (rate, delay) pairs × 3 repetitions.
    assert_eq!(items.len(), 30);
    let rec = items[0].run();
    assert!(rec.metrics.links[0].utilisation > 0.5);
}

/// The exit statuses of docs/cli.md: 2 for input that is not allowed (nothing ran), 1 for
/// a run that failed on good input; one `error:` line naming what is wrong either way.
#[test]
fn usage_errors_exit_2_and_run_failures_exit_1() {
    let (code, _, err) = scavenger(&["bench", "--case", "zz"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("\"zz\"") && err.contains("cases: a"), "{err}");
    let (code, _, err) = scavenger(&["reproduce", "nosuch", "--quick", "--out", "/nonexistent/x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nosuch") && err.contains("ong2020"), "{err}");
    // An RTT validate has no case for: refused before anything runs (and before the root
    // check), naming the field, the value and the allowed ones.
    let (code, _, err) = scavenger(&["validate", "--quick", "--rtts", "350"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("rtts") && err.contains("350 ms") && err.contains("allowed: 50"),
        "{err}"
    );
    // A scenario that runs, and an output directory that cannot be made: a run failure.
    let dir = std::env::temp_dir().join(format!("scavenger-cli-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sc = dir.join("short.toml");
    std::fs::write(&sc, "duration = \"1s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"5ms\"\nbuffer = \"20 packets\"\n[[flow]]\nalgorithm = \"newreno\"\n").unwrap();
    let blocker = dir.join("file");
    std::fs::write(&blocker, "").unwrap();
    let out = blocker.join("sub");
    let (code, _, err) = scavenger(&["run", sc.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: cannot write") && err.contains("sub"),
        "{err}"
    );
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `validate` and `census` without root: no flag gives root, so it is a run failure
/// (exit 1), not a usage error; the message says why root is needed. Run as `nobody`
/// through setpriv when the tests run as root, skipped otherwise.
#[test]
fn a_missing_root_is_a_run_failure() {
    let as_nobody = |args: &[&str]| {
        std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_scavenger"))
            .args(args)
            .output()
    };
    let root = std::fs::read_to_string("/proc/self/status")
        .map(|s| {
            s.lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false);
    let out = match as_nobody(&["--version"]) {
        Ok(o) if root && o.status.success() => o,
        _ => {
            eprintln!("skipped: needs root and setpriv to run the command as nobody");
            return;
        }
    };
    drop(out);
    for (args, says) in [
        (
            &["validate", "--quick"][..],
            "validate needs root: the testbed side",
        ),
        (
            &["census", "http://10.0.0.1/"][..],
            "the census needs root: its receiver",
        ),
    ] {
        let out = as_nobody(args).unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(says), "{err}");
    }
}
