#!/bin/bash
# `scavenger send` over loopback (issue 19: at least 1 Gbit/s): a SIZE-byte file (default
# 500 MB), receiver in another process, once with the default LBE controller and once with
# CUBIC; prints each JSON summary's rate and the load average (the machine is shared).
# Run from the workspace root after `cargo build --release -p scavenger-cli`.
set -euo pipefail
BIN=${BIN:-target/release/scavenger}
SIZE=${SIZE:-500000000}
D=$(mktemp -d /tmp/transfer-bench.XXXXXX)
trap 'kill $RP 2>/dev/null || true; rm -rf "$D"' EXIT
mkdir -p $D/src $D/dst
head -c "$SIZE" /dev/urandom > $D/src/big.bin
echo tok > $D/token
$BIN receive --listen 127.0.0.1:0 --dir $D/dst --token-file $D/token > $D/recv.out 2>$D/recv.err &
RP=$!
for _ in $(seq 50); do [ -s $D/recv.out ] && break; sleep 0.1; done
read _ _ ADDR _ FP < $D/recv.out
for alg in "" "--algorithm cubic"; do
  rm -f $D/dst/big.bin
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  $BIN send $D/src/big.bin --to $ADDR --token-file $D/token --fingerprint $FP --json $alg \
    | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%s: %d B in %.2f s = %.0f Mbit/s" % (j["algorithm"], j["bytes"], j["duration_s"], j["mean_rate_mbit_per_s"]))'
done
