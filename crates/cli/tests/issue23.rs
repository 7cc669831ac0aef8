//! Regression tests for issue 23 at the command line, named after its numbered failures.

mod common;
use common::scavenger;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn tmpdir(tag: &str) -> PathBuf {
    common::tmpdir("cli-i23", tag)
}

/// A plan of `n` settings over a base scenario of `duration`.
fn plan(dir: &Path, duration: &str, n: usize) -> PathBuf {
    std::fs::write(
        dir.join("base.toml"),
        format!("duration = \"{duration}\"\n[link]\nrate = \"50Mbit\"\ndelay = \"20ms\"\nbuffer = \"1BDP\"\n[[flow]]\nname = \"a\"\nalgorithm = \"cubic\"\ncount = 4\n"),
    )
    .unwrap();
    let delays: Vec<String> = (0..n).map(|i| format!("\"{}ms\"", 20 + i)).collect();
    let p = dir.join("plan.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"t\"\nscenario = \"base.toml\"\n[[vary]]\nset = \"link.delay\"\nvalues = [{}]\n",
            delays.join(", ")
        ),
    )
    .unwrap();
    p
}

#[test]
fn issue23_03_a_store_of_another_study_is_refused_without_force() {
    let dir = tmpdir("meta");
    let p = plan(&dir, "1s", 1);
    let out = dir.join("store");
    std::fs::create_dir_all(&out).unwrap();
    let meta = r#"{"kind":"study","name":"ong2020","quick":true,"plan":null}"#;
    std::fs::write(out.join("store.json"), meta).unwrap();
    let (code, _, err) = scavenger(&["sweep", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("study ong2020 (quick)") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("store.json")).unwrap(),
        meta
    );
    let (code, _, err) = scavenger(&[
        "sweep",
        p.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(out.join("store.json"))
        .unwrap()
        .contains("\"sweep\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SIGTERM and SIGHUP stop a sweep as Ctrl-C does: a message, exit 130, the store intact
/// and the partial report written.
#[test]
fn issue23_07_sigterm_and_sighup_stop_cleanly_with_a_partial_report() {
    for sig in [libc::SIGTERM, libc::SIGHUP] {
        let dir = tmpdir(&format!("sig{sig}"));
        let p = plan(&dir, "20s", 40);
        let out = dir.join("store");
        let child = Command::new(env!("CARGO_BIN_EXE_scavenger"))
            .args(["sweep", p.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .args(["--jobs", "1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Signal once the first run is stored (or after a while regardless).
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(60)
            && std::fs::read(out.join("results.jsonl")).map_or(true, |b| b.is_empty())
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: signalling the child we spawned.
        unsafe { libc::kill(child.id() as libc::pid_t, sig) };
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "signal {sig}: {err}");
        assert!(err.contains("interrupt"), "{err}");
        let stored = scavenger_lab::store::Store::read(&out).unwrap();
        assert!(!stored.is_empty() && stored.len() < 40, "{}", stored.len());
        assert!(out.join("report.md").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn issue23_15_run_refuses_an_absurd_scenario_without_force() {
    let dir = tmpdir("cost");
    let p = dir.join("long.toml");
    std::fs::write(
        &p,
        "duration = \"24000h\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nalgorithm = \"newreno\"\n",
    )
    .unwrap();
    let (code, _, err) = scavenger(&["run", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("packets") && err.contains("bound") && err.contains("--force"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn issue23_16_jobs_zero_is_refused() {
    let (code, _, err) = scavenger(&["reproduce", "hayes2011", "--quick", "--jobs", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--jobs") && err.contains("at least 1"),
        "{err}"
    );
}

#[test]
fn issue23_16_compare_of_unrelated_records_is_an_error() {
    let dir = tmpdir("compare");
    let rec = |flow: &str| {
        format!(
            r#"{{"datapath":"sim","metrics":{{"flows":[{{"name":"{flow}","goodput_bps":1e6}}],"links":[],"jain":[]}}}}"#
        )
    };
    std::fs::write(dir.join("a.json"), rec("x")).unwrap();
    std::fs::write(dir.join("b.json"), rec("y")).unwrap();
    std::fs::write(dir.join("c.json"), "{\"hello\": 1}").unwrap();
    let (a, b, c) = (dir.join("a.json"), dir.join("b.json"), dir.join("c.json"));
    let (code, out, err) = scavenger(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("nothing to compare"), "{err}");
    let (code, _, err) = scavenger(&["compare", a.to_str().unwrap(), c.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("no `metrics`"), "{err}");
    let (code, out, _) = scavenger(&["compare", a.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
