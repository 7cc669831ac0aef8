//! `scavenger bench --cpu` on a short configuration (root: namespaces, tc, BPF). Skipped
//! with a message when not root or when the kernel lacks what the BPF cases need.

mod common;

use std::process::Command;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Namespaces and BPF pins that carry `pid`: what the benchmark must leave behind: none.
fn leftovers(pid: u32) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/run/netns")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(&format!("scvtb-{pid}-")))
        .collect();
    let pins = format!("/sys/fs/bpf/scavenger-{pid}");
    if std::path::Path::new(&pins).exists() {
        v.push(pins);
    }
    v
}

#[test]
fn bench_cpu_prints_one_line_per_case_and_leaves_nothing_behind() {
    if !is_root() {
        eprintln!("SKIPPED (bench --cpu): needs root for namespaces, tc and BPF registration");
        return;
    }
    let child = Command::new(env!("CARGO_BIN_EXE_scavenger"))
        .args([
            "bench",
            "--cpu",
            "--rates",
            "200Mbit",
            "--reps",
            "1",
            "--duration",
            "300ms",
            "--quic-bytes",
            "3MB",
            "--only",
            "cubic,scv_ledbat,shim+ledbat@100us,quic+cubic",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let pid = child.id();
    let out = child.wait_with_output().expect("runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        leftovers(pid).is_empty(),
        "left behind: {:?}",
        leftovers(pid)
    );
    if !out.status.success() && stderr.contains("the BPF cases cannot run") {
        eprintln!("SKIPPED (bench --cpu): {stderr}");
        return;
    }
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("cc=")).collect();
    let names: Vec<&str> = lines
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "cc=cubic",
            "cc=scv_ledbat",
            // `--only` matches by substring: scv_ledbat also selects scv_ledbatpp.
            "cc=scv_ledbatpp",
            "cc=shim+ledbat@100us",
            "cc=quic+cubic"
        ],
        "{stdout}"
    );
    let field = |l: &str, k: &str| -> f64 {
        l.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("no {k} in {l}"))
            .parse()
            .unwrap()
    };
    for l in &lines {
        assert!(l.contains(" rate=200Mbit reps=1 "), "{l}");
        let gbps = field(l, "goodput_gbps");
        // Under the token bucket's 0.2 Gbit/s (plus its 64 KiB burst), and moving.
        assert!(gbps > 0.0 && gbps < 0.25, "{l}");
        assert!(field(l, "sender_cpu_s_per_gb") > 0.0, "{l}");
        assert!(
            field(l, "total_cpu_s_per_gb") >= field(l, "sender_cpu_s_per_gb"),
            "{l}"
        );
    }
    // Only the shim case has an agent.
    let shim = lines.iter().find(|l| l.starts_with("cc=shim")).unwrap();
    assert!(field(shim, "agent_cpu_s_per_gb") > 0.0, "{shim}");
    assert_eq!(field(lines[0], "agent_cpu_s_per_gb"), 0.0);
    assert!(stdout.starts_with("# bench --cpu: kernel "), "{stdout}");
}

#[test]
fn bench_cpu_rejects_bad_flags_naming_them() {
    let (code, _, err) = common::scavenger(&["bench", "--cpu", "--rates", "fast"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--rates \"fast\""), "{err}");
    let (code, _, err) = common::scavenger(&["bench", "--cpu", "--reps", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--reps 0"), "{err}");
    let (code, _, err) = common::scavenger(&["bench", "--reps", "3"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--cpu"), "{err}");
}
