//! Issue 23, "CLI consistency", as a user sees it: the run table carries units in its
//! header and stays aligned above 1 Gbit/s; `--out` is a directory for export too; a
//! bare-number duration is refused by name. (The clap tree rules: src/cli_tests.rs.)

mod common;
use common::{scavenger, tmpdir};

const FAST: &str = r#"
name = "fast"
duration = "300ms"
[link]
rate = "2Gbit"
delay = "1ms"
buffer = "1BDP"
[[flow]]
name = "a-long-flow-name"
algorithm = "cubic"
[[flow]]
name = "b"
algorithm = "newreno"
"#;

/// The character offsets where each column of `line` ends (a cell is a run of
/// non-spaces; names here have no spaces).
fn right_edges(line: &str) -> Vec<usize> {
    let b = line.as_bytes();
    (0..b.len())
        .filter(|&i| b[i] != b' ' && (i + 1 == b.len() || b[i + 1] == b' '))
        .map(|i| i + 1)
        .collect()
}

#[test]
fn run_table_has_units_in_the_header_and_stays_aligned_above_1_gbit() {
    let d = tmpdir("consistency", "table");
    let sc = d.join("fast.toml");
    std::fs::write(&sc, FAST).unwrap();
    let (c, out, e) = scavenger(&["run", sc.to_str().unwrap()]);
    assert_eq!(c, 0, "{e}");
    let lines: Vec<&str> = out.lines().collect();
    let h = lines
        .iter()
        .position(|l| l.starts_with("flow"))
        .expect("header");
    let header = lines[h];
    for unit in ["goodput Mbit/s", "rtt mean ms", "fct s", "cwnd bytes"] {
        assert!(header.contains(unit), "{header}");
    }
    let rows = &lines[h + 1..h + 3];
    // Above 1 Gbit/s: a goodput of four digits before the point.
    assert!(
        rows.iter()
            .any(|r| r.split_whitespace().nth(2).is_some_and(|g| g.len() >= 8)),
        "{out}"
    );
    // Numbers are right-aligned under their header: every right edge of a numeric
    // column lines up (the header's multi-word cells end where their column ends).
    // (The first two columns, names, are left-aligned.)
    let want = right_edges(rows[0]);
    assert_eq!(right_edges(rows[1])[2..], want[2..], "{out}");
    assert_eq!(want.len(), 10, "{out}");
    for edge in &want[2..] {
        assert!(
            header.len() >= *edge && header.as_bytes()[edge - 1] != b' ',
            "column ending at {edge} not under a header cell:\n{out}"
        );
    }
    // No unit inside a number cell.
    assert!(
        !rows
            .iter()
            .any(|r| r.contains("Mbit/s") || r.contains("ms ")),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_bare_number_duration_is_refused_naming_the_flag_and_the_units() {
    let (c, _, e) = scavenger(&["testbed", "bench", "--duration", "5"]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("--duration") && e.contains("no unit") && e.contains("ms"),
        "{e}"
    );
}
