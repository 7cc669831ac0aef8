#!/usr/bin/env python3
"""Writes cellular-like.down, a SYNTHETIC mahimahi trace that stands in for the
cellular traces Wang 2018 uses (M1, Starhub and Singtel downlinks recorded by Leong et
al., CoNEXT'17, on a shuttle bus around the NUS campus; not available here).

It is not fitted to those traces; it only has the features that matter to a
rate-based sender: a capacity that wanders over an order of magnitude on sub-second
time scales, short outages, and bursty per-grant delivery. Model (all numbers ours):

- capacity in 100 ms blocks, log-normal AR(1): log r = mu + phi (log r_prev - mu) + s e,
  phi = 0.95, stationary standard deviation of log r = 0.6, long-run mean 10 Mbit/s,
  clamped to [0.3, 40] Mbit/s;
- outages (no delivery at all) at exponential intervals of mean 10 s, each 0.2-1.0 s
  long (handover / coverage gaps);
- delivery in grants spaced 1-5 ms apart (uniform), each carrying the bytes earned
  since the previous grant, as whole 1500-byte opportunities (remainders carry over):
  a scheduler that serves the user in bursts, like an LTE eNodeB;
- 30 s period (mahimahi repeats the file).

Deterministic: python3 gen_cellular_like.py > cellular-like.down
"""
import math
import random
import sys

PERIOD_MS = 30_000
BLOCK_MS = 100
MEAN_MBPS = 10.0
SIGMA = 0.6
PHI = 0.95


def main():
    rng = random.Random(4)  # Wang 2018
    mu = math.log(MEAN_MBPS) - SIGMA**2 / 2  # so that E[r] = MEAN_MBPS
    x = mu
    rate = []  # Mbit/s per ms
    for _ in range(PERIOD_MS // BLOCK_MS):
        x = mu + PHI * (x - mu) + SIGMA * math.sqrt(1 - PHI**2) * rng.gauss(0, 1)
        r = min(40.0, max(0.3, math.exp(x)))
        rate += [r] * BLOCK_MS
    t = rng.expovariate(1 / 10_000)
    while t < PERIOD_MS:
        d = rng.uniform(200, 1000)
        for ms in range(int(t), min(PERIOD_MS, int(t + d))):
            rate[ms] = 0.0
        t += d + rng.expovariate(1 / 10_000)
    out = []
    acc = 0.0
    ms = 0
    while ms < PERIOD_MS:
        gap = rng.randint(1, 5)
        for m in range(ms, min(ms + gap, PERIOD_MS)):
            acc += rate[m] * 1e6 / 8 / 1000  # bytes earned in this millisecond
        ms += gap
        stamp = min(ms, PERIOD_MS)
        while acc >= 1500:
            out.append(stamp)
            acc -= 1500
    if not out or out[-1] != PERIOD_MS:
        out.append(PERIOD_MS)  # the last timestamp sets the period
    sys.stdout.write("".join(f"{t}\n" for t in out))


if __name__ == "__main__":
    main()
