//! Issue 20, sharding without an engine: `--shard 0/2` and `--shard 1/2` merged are the
//! unsharded store, and `merge` refuses what it must; `export` writes one row per run.

mod common;
use common::scavenger;
use std::path::{Path, PathBuf};

fn tmpdir(tag: &str) -> PathBuf {
    common::tmpdir("shard", tag)
}

/// A plan of 6 settings × 2 seeds of a 2-second scenario.
fn plan(dir: &Path) -> PathBuf {
    std::fs::write(
        dir.join("base.toml"),
        "duration = \"2s\"\n[link]\nrate = \"10Mbit\"\ndelay = \"10ms\"\nbuffer = \"1BDP\"\n[[flow]]\nname = \"a\"\nalgorithm = \"cubic\"\n[[flow]]\nname = \"b\"\nalgorithm = \"ledbat\"\n",
    )
    .unwrap();
    let p = dir.join("plan.toml");
    std::fs::write(
        &p,
        "name = \"t\"\nscenario = \"base.toml\"\nrepetitions = 2\n[[vary]]\nset = \"link.delay\"\nvalues = [\"10ms\", \"20ms\", \"30ms\"]\n[[vary]]\nset = \"flow.b.params.target\"\nvalues = [\"25ms\", \"100ms\"]\n",
    )
    .unwrap();
    p
}

/// The store's lines in key order, the wall time (the one field that differs between
/// identical runs) blanked.
fn normalised(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| {
            let i = l.find("\"wall_time_s\":").expect("a wall time");
            let j = i + l[i..].find(',').unwrap();
            format!("{}\"wall_time_s\":0{}", &l[..i], &l[j..])
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn two_shards_merged_are_the_unsharded_store() {
    let d = tmpdir("merge");
    let p = plan(&d);
    let p = p.to_str().unwrap();
    let dir = |n: &str| d.join(n).to_str().unwrap().to_string();
    let (c, _, e) = scavenger(&["sweep", p, "--out", &dir("all"), "--jobs", "2"]);
    assert_eq!(c, 0, "{e}");
    let mut counts = Vec::new();
    for s in ["0/2", "1/2"] {
        let out = dir(&format!("shard{}", &s[..1]));
        let (c, _, e) = scavenger(&["sweep", p, "--out", &out, "--shard", s, "--jobs", "2"]);
        assert_eq!(c, 0, "{e}");
        assert!(e.contains(&format!("shard {s}: ")), "{e}");
        assert!(e.contains("scavenger merge"), "{e}");
        counts.push(normalised(Path::new(&out)).len());
    }
    assert_eq!(counts.iter().sum::<usize>(), 12);
    assert!(
        counts.iter().all(|&n| n > 0),
        "keys spread over both shards: {counts:?}"
    );

    let (c, _, e) = scavenger(&["merge", &dir("merged"), &dir("shard0"), &dir("shard1")]);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("12 records added"), "{e}");
    assert_eq!(normalised(&d.join("merged")), normalised(&d.join("all")));
    // The merged store is written in key order, and knows what it holds: report works.
    let merged = std::fs::read_to_string(d.join("merged/results.jsonl")).unwrap();
    let keys: Vec<&str> = merged.lines().map(|l| &l[8..40]).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    let (c, out, e) = scavenger(&["report", &dir("merged")]);
    assert_eq!(c, 0, "{e}");
    assert!(out.contains("link.delay=10ms"), "{out}");

    // Merging again adds nothing; the same records are not a conflict.
    let (c, _, e) = scavenger(&["merge", &dir("merged"), &dir("all")]);
    assert_eq!(c, 0, "{e}");
    assert!(e.contains("0 records added, 12 already there"), "{e}");

    // Two different records for one key are refused, and forced keep the first.
    let bad = d.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let first = merged.lines().next().unwrap();
    let changed = first.replacen("\"events\":", "\"events\":1", 1);
    assert_ne!(changed, first);
    std::fs::write(bad.join("results.jsonl"), changed + "\n").unwrap();
    let (c, _, e) = scavenger(&["merge", &dir("merged"), bad.to_str().unwrap()]);
    assert_eq!(c, 2);
    assert!(e.contains("hold different records for one run"), "{e}");
    assert!(e.contains("--force"), "{e}");
    let (c, _, e) = scavenger(&["merge", &dir("merged"), bad.to_str().unwrap(), "--force"]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(normalised(&d.join("merged")), normalised(&d.join("all")));

    // A record of another commit is refused unless forced.
    let other = d.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let foreign = first
        .replacen(&first[8..40], "00000000000000000000000000000000", 1)
        .replacen("\"git_commit\":\"", "\"git_commit\":\"elsewhere-", 1);
    std::fs::write(other.join("results.jsonl"), foreign + "\n").unwrap();
    let (c, _, e) = scavenger(&["merge", &dir("merged"), other.to_str().unwrap()]);
    assert_eq!(c, 2);
    assert!(e.contains("commit elsewhere-"), "{e}");
    assert!(e.contains("never asks for"), "{e}");

    // A study's store is not mixed into a sweep's.
    std::fs::write(
        other.join("store.json"),
        "{\"kind\":\"study\",\"name\":\"ong2020\",\"quick\":true,\"plan\":null}",
    )
    .unwrap();
    let (c, _, e) = scavenger(&["merge", &dir("merged"), other.to_str().unwrap(), "--force"]);
    assert_eq!(c, 0, "--force takes it: {e}");
    let (c, _, e) = scavenger(&["merge", &dir("m2"), &dir("all"), other.to_str().unwrap()]);
    assert_eq!(c, 2);
    assert!(e.contains("holds the results of"), "{e}");

    // Bad shards are refused with the rule.
    let (c, _, e) = scavenger(&["sweep", p, "--out", &dir("x"), "--shard", "2/2"]);
    assert_eq!(c, 2);
    assert!(e.contains("numbered 0 to 1"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn export_writes_one_row_per_run() {
    let d = tmpdir("export");
    let p = plan(&d);
    let out = d.join("s");
    let (c, _, e) = scavenger(&["sweep", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(c, 0, "{e}");
    let (c, csv, e) = scavenger(&["export", out.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(c, 0, "{e}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 13, "a header and 12 runs");
    let header: Vec<&str> = lines[0].split(',').collect();
    for col in [
        "key",
        "label",
        "param.link.delay",
        "param.flow.b.params.target",
        "seed",
        "version",
        "commit",
        "flows.a.goodput_bps",
        "flows.b.rtt_ms.mean",
    ] {
        assert!(header.contains(&col), "{col} in {header:?}");
    }
    assert!(
        header
            .iter()
            .any(|c| c.starts_with("links.") && c.ends_with(".utilisation")),
        "{header:?}"
    );
    // --out is a directory, as in every command; the file inside is results.parquet.
    let pq = d.join("t").join("results.parquet");
    let (c, _, e) = scavenger(&[
        "export",
        out.to_str().unwrap(),
        "--format",
        "parquet",
        "--out",
        d.join("t").to_str().unwrap(),
    ]);
    assert_eq!(c, 0, "{e}");
    let bytes = std::fs::read(&pq).unwrap();
    assert_eq!(&bytes[..4], b"PAR1");
    let (c, _, e) = scavenger(&[
        "export",
        d.join("nope").to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert_eq!(c, 2);
    assert!(e.contains("is not a result store"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}
