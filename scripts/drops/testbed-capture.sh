#!/usr/bin/env bash
# Runs one `scavenger testbed run` and captures both sides of the emulated bottleneck with
# tcpdump: tunS (router S: data entering the forward link, ACKs leaving the reverse link)
# and tunC (router C: data leaving the forward link, ACKs entering the reverse link).
# A data packet on tunS that never shows on tunC was dropped in the emulator's queue
# (scripts/drops/drops.py pairs them). Root; wrap in `flock /tmp/scv-testbed.lock`.
#
#   scripts/drops/testbed-capture.sh SCAVENGER SCENARIO SEED OUTDIR
#
# tcpdump attaches after the namespaces exist, a few tens of ms after the run starts, so
# the captures miss the first packets of a flow that starts at 0 s (the SYN and a part of
# the initial window); later packets are all there.
set -euo pipefail
scv=$1 scenario=$2 seed=$3 out=$4
mkdir -p "$out"
"$scv" testbed run "$scenario" --seed "$seed" --out "$out" >"$out/testbed.txt" 2>&1 &
run=$!
ns_s='' ns_c=''
for _ in $(seq 1 2000); do
  ns_s=$(ip netns list | awk -v p="scvtb-$run-" '$1 ~ "^"p && $1 ~ /-rs$/ {print $1}' | head -1)
  if [ -n "$ns_s" ] && ip -n "$ns_s" link show tunS >/dev/null 2>&1; then
    ns_c=${ns_s%-rs}-rc
    ip -n "$ns_c" link show tunC >/dev/null 2>&1 && break
  fi
  sleep 0.005
done
[ -n "$ns_c" ] || { echo "no testbed namespaces for pid $run" >&2; wait $run; exit 1; }
ip netns exec "$ns_s" tcpdump -i tunS -s 96 -U -n --time-stamp-precision=nano -w "$out/tunS.pcap" 2>"$out/tcpdump-S.err" &
ts=$!
ip netns exec "$ns_c" tcpdump -i tunC -s 96 -U -n --time-stamp-precision=nano -w "$out/tunC.pcap" 2>"$out/tcpdump-C.err" &
tc=$!
status=0
wait $run || status=$?
sleep 0.2
kill -INT $ts $tc 2>/dev/null || true
wait $ts $tc 2>/dev/null || true
cat "$out/testbed.txt"
exit $status
