#!/usr/bin/env bash
# A short real fuzz run (CI: .ci/run calls this, installing nightly and cargo-fuzz if missing).
# Each target starts from a copy of its committed corpus and regressions, then fuzzes
# (runs, seed and time below). FUZZ_TARGETS picks the targets (default: algorithms trace,
# which build without lab in about a minute; the parser targets need lab and take much
# longer to build, so CI replays their corpora in the stable `cargo test` only:
# crates/fuzzing/tests/corpora.rs). Long runs and why: docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")"
# CI's run is reproducible: a fixed libFuzzer seed and a fixed number of executions
# (FUZZ_RUNS, default 100000: about 20 s here), so a finding in CI replays the same way on
# any machine; FUZZ_SECONDS (default 60) only caps a slow machine. Exploration is the long
# local runs' job (docs/fuzzing.md, "In CI"). FUZZ_SEED=0 lets libFuzzer pick a seed.
secs="${FUZZ_SECONDS:-60}"
runs="${FUZZ_RUNS:-100000}"
seed="${FUZZ_SEED:-1}"
targets="${FUZZ_TARGETS:-algorithms trace}"
features=(--no-default-features)
for t in $targets; do
    case "$t" in scenario | plan) features=() ;; esac
done
for t in $targets; do
    # A copy, so CI does not add to the committed corpus.
    work="$(mktemp -d)"
    cp -r "corpus/$t/." "$work/" 2>/dev/null || true
    cp -r "regressions/$t/." "$work/" 2>/dev/null || true
    echo "fuzz $t: $runs runs (seed $seed, at most ${secs}s) from $(ls "$work" | wc -l) inputs" >&2
    status=0
    cargo +nightly fuzz run "${features[@]}" -O --debug-assertions "$t" "$work" -- \
        -runs="$runs" -seed="$seed" -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 >"$work.log" 2>&1 ||
        status=$?
    # -A1: the line after "panicked at" is the broken invariant (algorithm, value, event).
    grep -E -A1 "^stat::number_of_executed_units|^Done|ERROR|panicked" "$work.log" || true
    if [ "$status" != 0 ]; then
        tail -n 40 "$work.log"
        echo "fuzz $t: finding or failure (exit $status); the input is under fuzz/artifacts/$t" >&2
        exit 1
    fi
    rm -rf "$work" "$work.log"
done
