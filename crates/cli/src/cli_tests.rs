//! The command line's consistency (issue 23, "CLI consistency"), checked on clap's command
//! tree itself, so that a new subcommand or flag is held to the same rules:
//! every argument has help, durations take units, `--out` is a directory.

use super::Cli;
use clap::{Arg, Command, CommandFactory, Parser};

/// Every (command path, argument) of the tree, built-in help/version excluded.
fn all_args() -> Vec<(String, Arg)> {
    fn walk(cmd: &Command, path: &str, out: &mut Vec<(String, Arg)>) {
        for a in cmd.get_arguments() {
            if matches!(a.get_id().as_str(), "help" | "version") {
                continue;
            }
            out.push((path.to_string(), a.clone()));
        }
        for sub in cmd.get_subcommands() {
            walk(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }
    let mut out = Vec::new();
    walk(&Cli::command(), "scavenger", &mut out);
    out
}

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("scavenger").chain(args.iter().copied()))
}

#[test]
fn every_argument_of_every_subcommand_has_help() {
    let missing: Vec<String> = all_args()
        .into_iter()
        .filter(|(_, a)| a.get_help().is_none() && a.get_long_help().is_none())
        .map(|(p, a)| format!("{p}: {}", a.get_id()))
        .collect();
    assert!(
        missing.is_empty(),
        "arguments without help text: {missing:#?}"
    );
    // The tree walk sees the nested commands (a broken walk would pass vacuously).
    let paths: Vec<String> = all_args().into_iter().map(|(p, _)| p).collect();
    for p in [
        "scavenger run",
        "scavenger kernel agent",
        "scavenger testbed bench",
        "scavenger send",
    ] {
        assert!(paths.iter().any(|q| q == p), "{p} not walked");
    }
}

#[test]
fn no_flag_carries_its_unit_in_its_name() {
    // A duration is `--duration 30s`, not `--secs 30` or `--stale-ms 200`.
    let unit_named: Vec<String> = all_args()
        .into_iter()
        .filter_map(|(p, a)| a.get_long().map(|l| (p, l.to_string())))
        .filter(|(_, l)| {
            [
                "-ms", "-us", "-ns", "-secs", "-sec", "-s", "-seconds", "-min",
            ]
            .iter()
            .any(|u| l.ends_with(u))
                || l == "secs"
                || l == "seconds"
        })
        .map(|(p, l)| format!("{p} --{l}"))
        .collect();
    assert!(
        unit_named.is_empty(),
        "flags named by their unit: {unit_named:?}"
    );
}

#[test]
fn durations_take_units_and_bare_numbers_are_refused_naming_the_flag() {
    let cases: [&[&str]; 7] = [
        &["kernel", "agent", "ledbat", "--duration"],
        &["kernel", "agent", "ledbat", "--stale"],
        &["kernel", "agent", "ledbat", "--wake"],
        &["testbed", "bench", "--duration"],
        &["send", "f", "--to", "h:1", "--deadline"],
        &["census", "http://10.0.0.1/", "--rtt"],
        &["census", "http://10.0.0.1/", "--timeout"],
    ];
    for c in cases {
        let flag = c.last().unwrap();
        let with = |v: &'static str| [c, &[v]].concat();
        assert!(parse(&with("30s")).is_ok(), "{c:?} 30s");
        assert!(parse(&with("250ms")).is_ok(), "{c:?} 250ms");
        let e = parse(&with("30"))
            .err()
            .expect("a bare number is refused")
            .to_string();
        assert!(
            e.contains(flag) && e.contains("no unit") && e.contains("ms") && e.contains("min"),
            "{c:?}: {e}"
        );
    }
    // The old unit-named spellings still reach the flag, and so say what is allowed.
    let e = parse(&["kernel", "agent", "ledbat", "--stale-ms", "200"])
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("--stale") && e.contains("no unit"), "{e}");
    assert!(parse(&["kernel", "agent", "ledbat", "--wake-us", "100us"]).is_ok());
    assert!(parse(&["testbed", "bench", "--secs", "2s"]).is_ok());
}

#[test]
fn out_is_a_directory_in_every_subcommand() {
    let outs: Vec<(String, Arg)> = all_args()
        .into_iter()
        .filter(|(_, a)| a.get_long() == Some("out"))
        .collect();
    assert!(outs.len() >= 7, "{} --out flags", outs.len());
    for (p, a) in &outs {
        let names: Vec<&str> = a
            .get_value_names()
            .unwrap_or_default()
            .iter()
            .map(|s| s.as_str())
            .collect();
        assert_eq!(names, ["DIR"], "{p} --out");
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        assert!(help.contains("directory"), "{p} --out: {help}");
    }
    // A file given as --out is refused before any work.
    let f = std::env::temp_dir().join(format!("scavenger-out-file-{}", std::process::id()));
    std::fs::write(&f, "x").unwrap();
    let fs = f.to_str().unwrap();
    for args in [
        vec!["run", "s.toml", "--out", fs],
        vec!["export", "st", "--format", "csv", "--out", fs],
        vec!["plot", "r", "--out", fs],
        vec!["reproduce", "ong2020", "--out", fs],
    ] {
        let e = parse(&args).err().expect("a file is refused").to_string();
        assert!(
            e.contains("--out") && e.contains("is a file"),
            "{args:?}: {e}"
        );
    }
    let _ = std::fs::remove_file(&f);
}
