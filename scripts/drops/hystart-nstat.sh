#!/usr/bin/env bash
# Runs one `scavenger testbed run` and reads Linux's HyStart counters in every testbed
# namespace while it runs: which test ended CUBIC's slow start and at what window
# (`TcpExtTCPHystartTrainDetect`, `...TrainCwnd`, `...DelayDetect`, `...DelayCwnd`; the
# window sums are in segments). The simulator's CUBIC traces the same four counters
# (`hystart_train_detect`, ...; docs/receiver.md#drs-phase). The counters are per network
# namespace, and the testbed removes its namespaces when the run ends, so they are polled
# every 0.5 s and the last reading of each namespace is printed. Root; wrap in
# `flock /tmp/scv-testbed.lock`.
#
#   scripts/drops/hystart-nstat.sh SCAVENGER SCENARIO SEED OUTDIR
set -euo pipefail
scv=$1 scenario=$2 seed=$3 out=$4
mkdir -p "$out"
"$scv" testbed run "$scenario" --seed "$seed" --out "$out" >"$out/testbed.txt" 2>&1 &
run=$!
while kill -0 "$run" 2>/dev/null; do
  for ns in $(ip netns list | awk -v p="scvtb-$run-" '$1 ~ "^"p {print $1}'); do
    v=$(ip netns exec "$ns" awk '/^TcpExt:/ { if (!h) { split($0, k); h = 1 } else {
          split($0, v); for (i = 2; i <= NF; i++) if (k[i] ~ /Hystart/) printf "%s=%s ", k[i], v[i] } }' \
        /proc/net/netstat 2>/dev/null || true)
    [ -n "$v" ] && echo "$ns $v" >>"$out/nstat.log"
  done
  sleep 0.5
done
rc=0; wait "$run" || rc=$?
[ -f "$out/nstat.log" ] || { echo "no namespace of pid $run was seen" >&2; exit 1; }
for ns in $(awk '{print $1}' "$out/nstat.log" | sort -u); do grep "^$ns " "$out/nstat.log" | tail -1; done
exit "$rc"
