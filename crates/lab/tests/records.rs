//! The result record: determinism and contents.

use scavenger_lab::{load, run_scenario};
use std::path::Path;

fn example(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

#[test]
fn same_scenario_and_seed_give_byte_identical_records() {
    let s = load(&example("two-cubic.toml")).unwrap();
    let mut a = run_scenario(&s, 7);
    let mut b = run_scenario(&s, 7);
    a.wall_time_s = 0.0;
    b.wall_time_s = 0.0;
    assert_eq!(a.to_json(), b.to_json());
    let mut c = run_scenario(&s, 8);
    c.wall_time_s = 0.0;
    assert_ne!(
        a.to_json(),
        c.to_json(),
        "a different seed should change something"
    );
}

#[test]
fn record_describes_itself_and_writes_series() {
    let s = load(&example("two-cubic.toml")).unwrap();
    let rec = run_scenario(&s, 1);
    let v: serde_json::Value = serde_json::from_str(&rec.to_json()).unwrap();
    assert_eq!(v["format"], "scavenger.run/1");
    assert_eq!(v["datapath"], "sim");
    assert_eq!(v["scenario"]["link"]["rate"], "10Mbit/s");
    assert_eq!(v["scenario"]["flows"][0]["params"]["beta"], 0.7);
    assert!(v["tool"]["git_commit"]
        .as_str()
        .is_some_and(|c| !c.is_empty()));
    assert!(v["events"].as_u64().unwrap() > 0);
    assert_eq!(v["metrics"]["flows"].as_array().unwrap().len(), 2);
    let dir = std::env::temp_dir().join(format!("scavenger-record-test-{}", std::process::id()));
    let files = rec.write_to(&dir).unwrap();
    assert_eq!(files.len(), 2);
    let csv = std::fs::read_to_string(dir.join("series.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("time_s,cubic.1_goodput_bps,cubic.1_cwnd_bytes,"),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].ends_with(",bottleneck_utilisation,queue_pkts"),
        "{}",
        lines[0]
    );
    let cols = lines[0].split(',').count();
    assert!(lines.iter().all(|l| l.split(',').count() == cols));
    // 60 s in 500 ms bins.
    assert_eq!(lines.len(), 1 + 120);
    std::fs::remove_dir_all(&dir).unwrap();
}
