//! Issue 23, "Everyday use": `run --pcap`, `plot`, and the `algorithms` listing.

use std::path::PathBuf;
use std::process::Command;

fn scavenger(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scavenger"))
        .args(args)
        .output()
        .expect("runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("scavenger-everyday-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const SCENARIO: &str = r#"
name = "plot-me"
duration = "4s"
[link]
rate = "10Mbit"
delay = "20ms"
buffer = "1BDP"
[[flow]]
name = "fg"
algorithm = "cubic"
[[flow]]
name = "bg"
algorithm = "ledbat"
start = "1s"
[measure]
series_bin = "100ms"
"#;

#[test]
fn run_writes_two_captures_per_flow_and_plot_draws_four_panels() {
    let d = tmp("plot");
    let sc = d.join("s.toml");
    std::fs::write(&sc, SCENARIO).unwrap();
    let dir = d.join("run");
    let o = scavenger(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--pcap",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".pcap"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "00-fg.receiver.pcap",
            "00-fg.sender.pcap",
            "01-bg.receiver.pcap",
            "01-bg.sender.pcap"
        ]
    );
    // The same run without --pcap gives the same record (the tap only reads).
    let plain = d.join("plain");
    let o2 = scavenger(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        plain.to_str().unwrap(),
    ]);
    assert!(o2.status.success());
    let strip = |p: PathBuf| {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        v["wall_time_s"] = serde_json::Value::Null;
        v
    };
    assert_eq!(
        strip(dir.join("record.json")),
        strip(plain.join("record.json"))
    );

    let o = scavenger(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(dir.join("plot.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 4, "four panels");
    for id in ["goodput", "cwnd", "rtt", "queue"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "panel {id}");
    }
    // RTT from the captures: one line per flow, and the legend names both flows.
    assert!(html.contains("TCP timestamp echo"));
    assert!(html.contains("fg (cubic)") && html.contains("bg (ledbat)"));
    assert!(!html.contains("no data"), "every panel has data");

    // --out is a directory (as in every command); --svg picks one stacked SVG.
    let svg = d.join("p").join("plot.svg");
    let o = scavenger(&[
        "plot",
        dir.join("record.json").to_str().unwrap(),
        "--out",
        d.join("p").to_str().unwrap(),
        "--svg",
    ]);
    assert!(o.status.success());
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg") && s.matches("<svg").count() == 5);
}

#[test]
fn plot_without_series_says_how_to_get_them() {
    let d = tmp("noseries");
    let sc = d.join("s.toml");
    std::fs::write(
        &sc,
        SCENARIO.replace("[measure]\nseries_bin = \"100ms\"\n", ""),
    )
    .unwrap();
    let o = scavenger(&["run", sc.to_str().unwrap(), "--out", d.to_str().unwrap()]);
    assert!(o.status.success());
    let o = scavenger(&["plot", d.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("series_bin"), "{err}");
}

#[test]
fn algorithms_prints_each_unit_once() {
    let o = scavenger(&["algorithms"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("= 100ms"), "LEDBAT's target is listed");
    for line in text.lines() {
        assert!(!line.contains("ms ms"), "unit twice: {line}");
    }
}

/// tshark (Wireshark) reads the captures: every frame decodes, nothing is malformed, and
/// the SACK blocks, timestamps and ECN marks are where the simulator put them. Runs where
/// tshark is installed and we are root (CI installs it); elsewhere it says why it skips.
#[test]
fn tshark_reads_the_captures() {
    let root = unsafe { libc::geteuid() } == 0;
    let has = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !(root && has) {
        eprintln!("skipped: needs root and tshark (apt-get install tshark)");
        return;
    }
    let d = tmp("tshark");
    let sc = d.join("s.toml");
    std::fs::write(
        &sc,
        r#"
name = "tshark"
duration = "5s"
[link]
rate = "10Mbit"
delay = "20ms"
qdisc = { kind = "codel", target = "5ms", interval = "100ms", ecn = true }
loss = 0.01
[[flow]]
name = "ecn"
algorithm = "newreno"
ecn = true
"#,
    )
    .unwrap();
    let o = scavenger(&["run", sc.to_str().unwrap(), "--pcap", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let count = |file: &str, filter: &str| -> usize {
        let o = Command::new("tshark")
            .args(["-n", "-r"])
            .arg(d.join(file))
            .args(["-Y", filter, "-T", "fields", "-e", "frame.number"])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "tshark: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).lines().count()
    };
    for f in ["00-ecn.sender.pcap", "00-ecn.receiver.pcap"] {
        let all = count(f, "frame");
        assert!(all > 1000, "{f}: {all} frames");
        assert_eq!(count(f, "tcp"), all, "{f}: every frame is TCP");
        assert_eq!(count(f, "_ws.malformed"), 0, "{f}: malformed frames");
        assert_eq!(
            count(f, "tcp.options.timestamp.tsval"),
            all,
            "{f}: timestamps"
        );
    }
    assert!(
        count("00-ecn.sender.pcap", "tcp.options.sack_le") > 10,
        "SACK blocks"
    );
    assert!(
        count("00-ecn.receiver.pcap", "ip.dsfield.ecn == 3") > 0,
        "CE marks"
    );
    assert!(
        count("00-ecn.sender.pcap", "tcp.flags.ece == 1") > 0,
        "ECE echoes"
    );
    assert!(count("00-ecn.sender.pcap", "tcp.flags.cwr == 1") > 0, "CWR");
}
