//! Ebb: our own less-than-best-effort controller (issue 18; design and evaluation in
//! docs/ebb.md). It is not from a source; each mechanism names the scorecard goal it
//! serves (docs/scorecard.md).
//!
//! Signals, once per round trip (a round ends when the cumulative ACK passes the
//! `snd_nxt` of the round's start, as BBR's round counting):
//! - `base`: the smallest RTT sample of the connection (Linux `ca_rtt`, `ack.rtt`);
//! - `q = min(RTT samples in the round) − base`: the queueing delay. The minimum over a
//!   round discards what the receiver's delayed-ACK timer adds to single samples
//!   (docs/deviations/ebb.md#ebb-round-min);
//! - `C`: the bottleneck-rate estimate, the largest delivery-rate sample of the last
//!   `bw_rounds` rounds in which the flow held at least its estimated BDP; rounds spent
//!   yielding do not age it, so it remembers the link across a foreground
//!   (docs/deviations/ebb.md#ebb-capacity-memory).
//!
//! Window rules at each round end, with `bdp = C·base`:
//! - `q > target` (yield, goal "yield"): if the previous round was also above the target,
//!   someone else is queueing: `cwnd ← cwnd·md` (default ½). Otherwise the queue may be
//!   our own: `cwnd ← cwnd·(base + target/2)/(base + q)`, which drains it to target/2 if
//!   we are alone (goal "no queue").
//! - `q ≤ refill` and `cwnd < bdp` (refill, goal "come back fast"): the queue is empty
//!   though we are below the remembered BDP, so the link has spare room:
//!   `cwnd ← max(cwnd, bdp)`, paced at `C`.
//! - otherwise `cwnd ← cwnd + 1 segment` (probe, so that `C` can grow).
//!
//! Loss or ECN: `cwnd ← cwnd·md`; timeout: one segment. Slow start (cwnd += acked) until
//! the round's running minimum exceeds `base + target` or a loss. The window never goes
//! below `min_cwnd`. Pacing: `pacing_gain · cwnd / base` (twice that in slow start).

use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Rate, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "ebb",
    aliases: &[],
    summary: "Ebb: LBE by queueing delay over a remembered bottleneck rate; yields on a few ms of queue, refills to the remembered BDP when the queue empties",
    source: "this project (issue 18); docs/ebb.md",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "target",
        kind: ParamKind::Duration {
            min: Dur::from_micros(100),
            max: Dur::from_secs(1),
        },
        default: ParamValue::Dur(Dur::from_millis(4)),
        unit: "ms",
        doc: "queueing delay above which Ebb decreases (round minimum RTT minus base RTT)",
        source: "docs/ebb.md#target (below the scorecard's 5 ms mean queue goal)",
    },
    ParamSpec {
        name: "refill",
        kind: ParamKind::Duration {
            min: Dur::ZERO,
            max: Dur::from_secs(1),
        },
        default: ParamValue::Dur(Dur::from_millis(1)),
        unit: "ms",
        doc: "queueing delay at or below which the queue counts as empty and Ebb jumps back to the remembered BDP",
        source: "docs/ebb.md#refill",
    },
    ParamSpec {
        name: "md",
        kind: ParamKind::Float { min: 0.05, max: 0.95 },
        default: ParamValue::Float(0.5),
        unit: "",
        doc: "multiplicative decrease: cwnd is multiplied by this on loss and on a second round above target",
        source: "docs/ebb.md#yield (as NewReno's beta, RFC 5681)",
    },
    ParamSpec {
        name: "min_cwnd",
        kind: ParamKind::Int { min: 1, max: 64 },
        default: ParamValue::Int(2),
        unit: "segments",
        doc: "floor of the window outside timeouts",
        source: "docs/ebb.md#parameters (RFC 6817 MIN_CWND)",
    },
    ParamSpec {
        name: "bw_rounds",
        kind: ParamKind::Int { min: 1, max: 1000 },
        default: ParamValue::Int(10),
        unit: "rounds",
        doc: "the bottleneck-rate estimate is the largest delivery rate of this many rounds held at the estimated BDP",
        source: "docs/ebb.md#capacity (BBR's 10-round max filter)",
    },
    ParamSpec {
        name: "pacing_gain",
        kind: ParamKind::Float { min: 1.0, max: 4.0 },
        default: ParamValue::Float(1.25),
        unit: "",
        doc: "pacing rate = pacing_gain · cwnd / base RTT (doubled in slow start)",
        source: "docs/ebb.md#parameters (Linux paces at 120 % of cwnd/srtt)",
    },
];

/// Ebb's parameters (docs/ebb.md#parameters).
#[derive(Clone, Debug, PartialEq)]
pub struct EbbConfig {
    /// Queueing delay above which the window decreases: 4 ms, below the scorecard's
    /// 5 ms mean queue goal.
    pub target: Dur,
    /// Queueing delay at or below which the queue counts as empty: 1 ms.
    pub refill: Dur,
    /// Multiplicative decrease on loss and on a second round above target: ½.
    pub md: f64,
    /// Window floor in segments: 2.
    pub min_cwnd: u64,
    /// Rounds of the bottleneck-rate max filter: 10.
    pub bw_rounds: usize,
    /// Pacing gain over cwnd/base: 1.25.
    pub pacing_gain: f64,
}

impl Default for EbbConfig {
    fn default() -> Self {
        EbbConfig {
            target: Dur::from_millis(4),
            refill: Dur::from_millis(1),
            md: 0.5,
            min_cwnd: 2,
            bw_rounds: 10,
            pacing_gain: 1.25,
        }
    }
}

impl TryFrom<&ParamSet> for EbbConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("ebb");
        Ok(EbbConfig {
            target: r.dur("target")?,
            refill: r.dur("refill")?,
            md: r.f64("md")?,
            min_cwnd: r.u64("min_cwnd")?,
            bw_rounds: r.usize("bw_rounds")?,
            pacing_gain: r.f64("pacing_gain")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = EbbConfig::try_from(p).expect("ebb: spec table and EbbConfig agree");
    Box::new(Ebb::new(&cfg, &init))
}

/// What the last round end decided (for traces and tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    /// Decreased on queueing delay above target.
    Yield,
    /// Jumped back to the remembered BDP.
    Refill,
    /// Additive increase.
    Probe,
}

#[derive(Clone, Debug)]
pub struct Ebb {
    cfg: EbbConfig,
    mss: u64,
    cwnd: u64,
    phase: Phase,
    /// Smallest RTT sample of the connection.
    base: Option<Dur>,
    /// Smallest RTT sample of the current round.
    round_min: Option<Dur>,
    /// The round ends when snd_una reaches this.
    round_end: u64,
    /// Largest delivery rate of the current round (bytes/s as `Rate`).
    round_max_bw: Rate,
    /// Per-round maxima of the rounds held at the BDP (newest last), at most bw_rounds.
    bw_ring: Vec<Rate>,
    /// Largest delivery rate seen since the ring was last refreshed (survives yields).
    capacity: Rate,
    /// The previous round ended above target.
    above_last: bool,
    /// The window at the start of the round (held-at-BDP test).
    round_start_cwnd: u64,
}

impl Ebb {
    pub fn new(cfg: &EbbConfig, init: &CcInit) -> Ebb {
        Ebb {
            cfg: cfg.clone(),
            mss: init.mss,
            cwnd: init.initial_cwnd,
            phase: Phase::SlowStart,
            base: None,
            round_min: None,
            round_end: 0,
            round_max_bw: Rate::ZERO,
            bw_ring: Vec::new(),
            capacity: Rate::ZERO,
            above_last: false,
            round_start_cwnd: init.initial_cwnd,
        }
    }

    fn floor(&self) -> u64 {
        self.cfg.min_cwnd * self.mss
    }

    /// The remembered BDP: C · base, in bytes (0 before the first samples).
    pub fn bdp(&self) -> u64 {
        match self.base {
            Some(b) => self.capacity.bytes_in(b),
            None => 0,
        }
    }

    fn scale(&self, w: u64, k: f64) -> u64 {
        ((w as f64 * k) as u64).max(self.floor())
    }

    /// Queueing delay of the round just ended.
    fn round_queue(&self) -> Option<Dur> {
        match (self.round_min, self.base) {
            (Some(m), Some(b)) => Some(m - b),
            _ => None,
        }
    }

    fn end_round(&mut self, ack: &AckSample) {
        // Capacity memory: a round counts towards the filter only when the flow held at
        // least ~its BDP, i.e. tried to use the whole link (docs/deviations/ebb.md#ebb-capacity-memory).
        let bdp = self.bdp();
        if self.round_max_bw > Rate::ZERO && (bdp == 0 || self.round_start_cwnd * 10 >= bdp * 9) {
            self.bw_ring.push(self.round_max_bw);
            if self.bw_ring.len() > self.cfg.bw_rounds {
                self.bw_ring.remove(0);
            }
            self.capacity = self.bw_ring.iter().copied().max().unwrap_or(Rate::ZERO);
        } else if self.round_max_bw > self.capacity {
            self.capacity = self.round_max_bw;
        }
        let q = self.round_queue();
        self.round_min = None;
        self.round_max_bw = Rate::ZERO;
        self.round_end = ack.snd_nxt;
        let (Some(q), Some(base)) = (q, self.base) else {
            self.round_start_cwnd = self.cwnd;
            return;
        };
        if self.phase == Phase::SlowStart {
            self.round_start_cwnd = self.cwnd;
            return;
        }
        if ack.in_recovery {
            self.above_last = false;
        } else if q > self.cfg.target {
            // Yield (docs/ebb.md#yield).
            self.cwnd = if self.above_last {
                self.scale(self.cwnd, self.cfg.md)
            } else {
                let k = (base.nanos() as f64 + self.cfg.target.nanos() as f64 / 2.0)
                    / (base.nanos() + q.nanos()) as f64;
                self.scale(self.cwnd, k)
            };
            self.above_last = true;
            self.phase = Phase::Yield;
        } else if q <= self.cfg.refill && self.cwnd < self.bdp() {
            // Refill (docs/ebb.md#refill).
            self.cwnd = self.bdp();
            self.above_last = false;
            self.phase = Phase::Refill;
        } else if ack.cwnd_limited {
            self.cwnd += self.mss;
            self.above_last = false;
            self.phase = Phase::Probe;
        } else {
            self.above_last = false;
        }
        self.round_start_cwnd = self.cwnd;
    }

    fn exit_slow_start(&mut self) {
        self.phase = Phase::Yield;
        // Drain what slow start queued: hold at the estimated BDP when there is one.
        let bdp = self.bdp();
        if bdp > 0 {
            self.cwnd = bdp.max(self.floor()).min(self.cwnd);
        }
    }
}

impl CongestionControl for Ebb {
    fn name(&self) -> &'static str {
        "ebb"
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.base = Some(self.base.map_or(rtt, |b| b.min(rtt)));
            self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
        }
        if let Some(rs) = ack.rate {
            if !rs.app_limited || rs.rate > self.capacity {
                self.round_max_bw = self.round_max_bw.max(rs.rate);
            }
        }
        if self.phase == Phase::SlowStart {
            let over = match (self.round_queue(), ack.in_recovery) {
                (_, true) => false,
                (Some(q), false) => q > self.cfg.target,
                _ => false,
            };
            if over {
                self.round_max_bw = self.round_max_bw.max(self.capacity);
                self.capacity = self.capacity.max(self.round_max_bw);
                self.exit_slow_start();
            } else if !ack.in_recovery && ack.cwnd_limited {
                self.cwnd += ack.bytes_acked;
            }
        }
        if ack.snd_una >= self.round_end {
            self.end_round(ack);
        }
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        if self.phase == Phase::SlowStart {
            self.capacity = self.capacity.max(self.round_max_bw);
        }
        self.cwnd = self.scale(self.cwnd, self.cfg.md);
        self.phase = Phase::Yield;
        self.above_last = true;
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        self.cwnd = ev.mss;
        if self.phase == Phase::SlowStart {
            self.phase = Phase::Yield;
        }
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        if self.phase == Phase::SlowStart {
            u64::MAX
        } else {
            self.cwnd
        }
    }

    fn pacing_rate(&self) -> Option<Rate> {
        let base = self.base?;
        let gain = if self.phase == Phase::SlowStart {
            2.0 * self.cfg.pacing_gain
        } else {
            self.cfg.pacing_gain
        };
        let bps = self.cwnd as f64 * 8.0 * gain / base.secs_f64();
        Some(Rate::from_bps(bps.max(1.0) as u64))
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("capacity_mbps", self.capacity.bps() as f64 / 1e6));
        out.push(("bdp_segments", self.bdp() as f64 / self.mss as f64));
        if let Some(b) = self.base {
            out.push(("base_rtt_ms", b.secs_f64() * 1e3));
        }
        let phase = match self.phase {
            Phase::SlowStart => 0.0,
            Phase::Yield => 1.0,
            Phase::Refill => 2.0,
            Phase::Probe => 3.0,
        };
        out.push(("phase", phase));
    }
}
