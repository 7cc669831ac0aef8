#!/usr/bin/env bash
# Replays each fuzz target's corpus, then fuzzes each for a few seconds (CI; .ci/run calls
# this when cargo-fuzz and nightly are installed). Long runs: docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")"
secs="${FUZZ_SECONDS:-5}"
for t in scenario trace plan algorithms; do
    mkdir -p "corpus/$t"
    # A copy, so CI does not add to the committed corpus.
    work="$(mktemp -d)"
    cp -r "corpus/$t/." "$work/"
    cargo +nightly fuzz run -O --debug-assertions "$t" "$work" -- -max_total_time="$secs" -rss_limit_mb=2048 2>&1 | tail -n 3
    rm -rf "$work"
done
