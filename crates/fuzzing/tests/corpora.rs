//! Replays every committed fuzz input (fuzz/corpus/TARGET and fuzz/regressions/TARGET)
//! through the functions the fuzz targets run, on stable Rust: the CI part of the fuzzing
//! (docs/fuzzing.md, "In CI"). A finding that was fixed stays fixed because its input is
//! in fuzz/regressions.

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// Every file under fuzz/corpus/TARGET and fuzz/regressions/TARGET, sorted.
fn inputs(target: &str) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in ["corpus", "regressions"] {
        let dir = fuzz_dir().join(d).join(target);
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd {
            let p = e.expect("read fuzz directory").path();
            if p.is_file() {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// Runs `f` on each input; a panic names the input that caused it.
fn replay(target: &str, at_least: usize, f: fn(&[u8])) {
    let all = inputs(target);
    assert!(
        all.len() >= at_least,
        "{target}: {} inputs under fuzz/corpus and fuzz/regressions, expected at least {at_least}",
        all.len()
    );
    for p in &all {
        let data = std::fs::read(p).expect("read input");
        if std::panic::catch_unwind(|| f(&data)).is_err() {
            panic!("fuzz target {target} fails on {}", p.display());
        }
    }
}

#[test]
fn algorithms_corpus_and_regressions_hold_the_invariants() {
    replay("algorithms", 2, scavenger_fuzzing::algorithms);
}

#[test]
fn trace_corpus_parses_or_errs() {
    replay("trace", 3, scavenger_fuzzing::trace);
}

#[cfg(feature = "parsers")]
#[test]
fn scenario_corpus_parses_or_errs() {
    replay("scenario", 50, scavenger_fuzzing::scenario);
}

#[cfg(feature = "parsers")]
#[test]
fn plan_corpus_parses_or_errs() {
    replay("plan", 2, scavenger_fuzzing::plan);
}
