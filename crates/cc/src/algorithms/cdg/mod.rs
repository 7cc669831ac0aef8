//! CDG, "CAIA Delay-Gradient" (D. A. Hayes and G. Armitage, "Revisiting TCP Congestion
//! Control Using Delay Gradients", IFIP Networking 2011; Hayes & Armitage 2011).
//!
//! Once per RTT interval the minimum and maximum RTT seen in the interval are compared
//! with the previous interval's (gradients g_min, g_max, eq 1–2), smoothed by a moving
//! average over `window` = a intervals (eq 3–4). With probability P = 1 − e^(−ḡ/G)
//! (eq 5) the window is reduced by β (eq 6), otherwise it grows by one segment per RTT.
//! The pair (ḡ_min, ḡ_max) also gives a guess of the bottleneck queue state (Fig 1); a
//! loss reduces the window only when the queue is guessed full (loss tolerance, eq 8).
//! Coexistence with loss-based flows: ineffectual-backoff detection (§3.6) and a
//! NewReno-like shadow window (eq 7, eq 8).
//!
//! Two variants share the state and the per-ACK RTT sampling (this file):
//! - `variant = "paper"` (default, [`paper`]): the paper, refined by the authors' FreeBSD
//!   module `cc_cdg.c` v0.1 where the paper is silent (Hayes & Armitage 2011 notes §4, §6,
//!   §7). Windows in bytes.
//! - `variant = "linux"` ([`linux`]): the Linux module `net/ipv4/tcp_cdg.c` (Hayes & Armitage
//!   2011 notes §8): gradient sums with extrapolation, `backoff_factor`, a single
//!   ineffectual-backoff threshold, FULL/NONFULL states, the Linux loss ssthresh, Reno
//!   per-ACK increase, packet arithmetic, µs RTT samples and PRR during the CWR that
//!   follows a delay backoff.
//!
//! The numeric knobs default to the paper for both variants ([`config`]). Stock Linux
//! `tcp_cdg` (as Ong 2020 evaluated it, Ong 2020 notes §2.11) is `variant=linux
//! backoff_beta=0.7071 use_tolerance=false hystart_detect=3` ([`CdgConfig::linux`], the
//! registered preset `cdg-linux`); the LBE setting the Linux module documents adds
//! `use_shadow=false use_ineff=0` ([`CdgConfig::linux_lbe`]).
//!
//! Differences from the source (the reasoning is in docs/deviations/cdg.md):
//! - two variants, paper (default) and Linux; every knob defaults to the paper:
//!   docs/deviations/cdg.md#cdg-variants
//! - RTT samples filtered by Linux's delayed-ACK heuristic; "nothing SACKed" approximated by "not
//!   in recovery": docs/deviations/cdg.md#cdg-rtt-filter
//! - gradient sums over a ring of a entries, divided by a:
//!   docs/deviations/cdg.md#cdg-gradient-units
//! - the queue state of Fig 1 made explicit: docs/deviations/cdg.md#cdg-queue-state
//! - delay backoff details (PRR in the Linux variant): docs/deviations/cdg.md#cdg-delay-backoff
//! - ECN, RTO and recovery exit, where the paper is silent:
//!   docs/deviations/cdg.md#cdg-ecn-rto-recovery
//! - the datapath's newest-segment RTT sample (Linux ca_rtt) and PRR after a backoff:
//!   docs/deviations/cdg.md#cdg-linux-rtt-prr

pub mod config;
#[cfg(test)]
mod harness;
pub mod linux;
pub mod paper;

pub use config::{CdgConfig, Variant};
pub use linux::linux_backoff_probability;
pub use paper::backoff_probability;

use crate::api::*;
use crate::params::ParamSet;
use crate::registry::AlgorithmInfo;
use crate::reno::RenoWindow;
use crate::rng::Rng;
use crate::units::{Dur, Time};
use config::{LINUX_PARAMS, PARAMS};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "cdg",
    aliases: &[],
    summary: "CDG: probabilistic backoff on the RTT delay gradient, loss tolerance, shadow window (paper or Linux tcp_cdg)",
    source: "Hayes & Armitage, IFIP Networking 2011 (Hayes & Armitage 2011) §3; FreeBSD cc_cdg.c; Linux net/ipv4/tcp_cdg.c (Hayes & Armitage 2011 notes §7–8)",
    params: &PARAMS,
    build,
};

/// Stock Linux `tcp_cdg` as Ong 2020 ran it ([`CdgConfig::linux`]) under its own name; the
/// same parameters as `cdg`, other defaults (as the LEDBAT presets).
pub static LINUX: AlgorithmInfo = AlgorithmInfo {
    name: "cdg-linux",
    aliases: &[],
    summary: "CDG preset: stock Linux tcp_cdg as Ong 2020 ran it (variant linux, backoff_beta 0.7071, no loss tolerance, HyStart)",
    source: "Linux net/ipv4/tcp_cdg.c module defaults (Hayes & Armitage 2011 notes §8); Ong 2020 §2.11",
    params: &LINUX_PARAMS,
    build: build_linux,
};

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    // `INFO.resolve` checked every value against PARAMS, so the conversion cannot fail.
    let cfg = CdgConfig::try_from(p).expect("cdg: parameters resolved against PARAMS");
    Box::new(Cdg::new(&cfg, init))
}

fn build_linux(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = CdgConfig::try_from(p).expect("cdg-linux: parameters resolved against its table");
    let mut c = Cdg::new(&cfg, init);
    c.name = "cdg-linux";
    Box::new(c)
}

/// Inferred bottleneck queue state. Paper/FreeBSD: Empty, Rising, Falling, Full, Unknown
/// (Fig 1, Hayes & Armitage 2011 notes §4.4); Linux: Unknown, NonFull, Full, Backoff (Hayes & Armitage 2011 notes §8.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueState {
    Unknown,
    Empty,
    Rising,
    Falling,
    Full,
    NonFull,
    Backoff,
}

impl QueueState {
    /// Numeric code for traces: FreeBSD's codes (EMPTY 1 ... FULL 4, UNKNOWN 9999); the
    /// Linux-only states get 5 and 6.
    fn code(self) -> f64 {
        match self {
            QueueState::Empty => 1.0,
            QueueState::Rising => 2.0,
            QueueState::Falling => 3.0,
            QueueState::Full => 4.0,
            QueueState::NonFull => 5.0,
            QueueState::Backoff => 6.0,
            QueueState::Unknown => 9999.0,
        }
    }
}

const NO_MIN: u64 = u64::MAX;

#[derive(Clone, Debug)]
pub struct Cdg {
    /// `cdg`, or the preset's name.
    name: &'static str,
    cfg: CdgConfig,
    mss: u64,
    w: RenoWindow,
    /// Shadow window s in bytes (eq 7).
    shadow: u64,
    rng: Rng,
    snd_nxt: u64,
    /// The RTT interval ends when an ACK passes this sequence number.
    rtt_seq: u64,
    /// τ_min, τ_max of the current interval in ns (NO_MIN / 0 = no sample yet).
    cur_min: u64,
    cur_max: u64,
    /// Previous interval's (τ_min, τ_max) in ns; None = no valid previous interval.
    prev: Option<(u64, u64)>,
    /// Gradient ring of `window` entries (ns for the paper, µs for Linux), zero-filled.
    ring_min: Vec<i64>,
    ring_max: Vec<i64>,
    tail: usize,
    pushed: usize,
    sum_min: i64,
    sum_max: i64,
    /// Last raw gradients (same unit as the ring).
    g_min: i64,
    g_max: i64,
    queue: QueueState,
    /// FreeBSD consec_cong_cnt / Linux backoff_cnt.
    ineff_cnt: u32,
    /// Delay-backoff (or ECN) congestion window reduction in progress until snd_una
    /// reaches this sequence number (FreeBSD CONGRECOVERY / Linux CWR).
    cwr_until: Option<u64>,
    /// Linux variant: Proportional Rate Reduction state of the CWR (tcp_init_cwnd_reduction:
    /// prior_cwnd, prr_delivered, prr_out), in packets.
    prior_cwnd: u64,
    prr_delivered: u64,
    prr_out: u64,
    in_loss_recovery: bool,
    after_rto: bool,
    delack: u32,
    // HyStart (Linux tcp_cdg_hystart_update), µs.
    delay_min_us: u64,
    last_ack_us: Option<u64>,
    round_start_us: u64,
    sample_cnt: u32,
    // FreeBSD alpha_inc.
    window_incr: u64,
    rtt_count: u32,
    last_p: f64,
    delay_backoffs: u64,
    /// The RTT sample of the last ACK as the algorithm used it (ns; 0 = none), for traces.
    last_rtt: u64,
}

impl Cdg {
    pub fn new(cfg: &CdgConfig, init: CcInit) -> Cdg {
        let cfg = cfg.clone();
        let a = cfg.window.max(1);
        Cdg {
            name: "cdg",
            mss: init.mss,
            w: RenoWindow::new(init.initial_cwnd),
            // FreeBSD cdg_conn_init / Linux tcp_cdg_init: s starts at the initial window.
            shadow: init.initial_cwnd,
            rng: init.rng,
            snd_nxt: 0,
            rtt_seq: 0,
            cur_min: NO_MIN,
            cur_max: 0,
            prev: None,
            ring_min: vec![0; a],
            ring_max: vec![0; a],
            tail: 0,
            pushed: 0,
            sum_min: 0,
            sum_max: 0,
            g_min: 0,
            g_max: 0,
            queue: QueueState::Unknown,
            ineff_cnt: 0,
            cwr_until: None,
            prior_cwnd: 0,
            prr_delivered: 0,
            prr_out: 0,
            in_loss_recovery: false,
            after_rto: false,
            delack: 0,
            delay_min_us: 0,
            last_ack_us: None,
            round_start_us: 0,
            sample_cnt: 0,
            window_incr: 0,
            rtt_count: 0,
            last_p: 0.0,
            delay_backoffs: 0,
            last_rtt: 0,
            cfg,
        }
    }

    pub fn queue_state(&self) -> QueueState {
        self.queue
    }
    pub fn shadow(&self) -> u64 {
        self.shadow
    }
    /// Smoothed gradients (ḡ_min, ḡ_max) in ms per RTT interval (eq 3).
    pub fn smoothed_gradients_ms(&self) -> (f64, f64) {
        let a = self.ring_min.len() as f64;
        let unit = self.unit_per_ms();
        (
            self.sum_min as f64 / a / unit,
            self.sum_max as f64 / a / unit,
        )
    }
    /// Last raw gradients (g_min, g_max) in ms per RTT interval (eq 1–2).
    pub fn raw_gradients_ms(&self) -> (f64, f64) {
        let unit = self.unit_per_ms();
        (self.g_min as f64 / unit, self.g_max as f64 / unit)
    }
    /// The backoff probability of the last decision (0 when none was possible).
    pub fn last_backoff_probability(&self) -> f64 {
        self.last_p
    }
    pub fn ineffectual_count(&self) -> u32 {
        self.ineff_cnt
    }

    fn unit_per_ms(&self) -> f64 {
        match self.cfg.variant {
            Variant::Paper => 1e6,
            Variant::Linux => 1e3,
        }
    }

    fn in_slow_start(&self) -> bool {
        match self.cfg.variant {
            // FreeBSD cdg_ack_received: slowstart = (cwnd <= ssthresh).
            Variant::Paper => self.w.cwnd <= self.w.ssthresh,
            // Linux tcp_in_slow_start: cwnd < ssthresh.
            Variant::Linux => self.w.cwnd < self.w.ssthresh,
        }
    }

    /// Per-ACK RTT sampling with the delayed-ACK heuristic (Hayes & Armitage 2011 §3.2 ERTT [13];
    /// Linux tcp_cdg_acked). Updates τ_min / τ_max of the current interval.
    fn sample(&mut self, rtt: Option<Dur>, ack: &AckSample) {
        let Some(rtt) = rtt else { return };
        let ns = rtt.nanos();
        self.last_rtt = ns;
        // Linux ignores rtt_us <= 0 (and works in whole µs); zero is no sample here either.
        let ns = match self.cfg.variant {
            Variant::Paper => ns,
            Variant::Linux => ns / 1000 * 1000,
        };
        if ns == 0 {
            return;
        }
        // Linux applies the heuristic only when nothing is SACKed (tp->sacked_out == 0);
        // the interface has no SACK count, so "not in recovery" stands in (deviations §delack).
        if self.cfg.delack_filter && !ack.in_recovery {
            let pkts = ack.bytes_acked.div_ceil(self.mss.max(1));
            if pkts == 1 && self.delack > 0 {
                // "A delayed ACK is only used for the minimum if it is provenly lower than
                // an existing non-zero minimum."
                if self.cur_min != NO_MIN {
                    self.cur_min = self.cur_min.min(ns);
                }
                self.delack -= 1;
                return;
            } else if pkts > 1 && self.delack < 5 {
                self.delack += 1;
            }
        }
        self.cur_min = self.cur_min.min(ns);
        self.cur_max = self.cur_max.max(ns);
    }

    /// Closes the current RTT interval: previous := current, current := empty.
    fn roll_interval(&mut self) {
        self.prev = if self.cur_max > 0 {
            Some((self.cur_min, self.cur_max))
        } else {
            None
        };
        self.cur_min = NO_MIN;
        self.cur_max = 0;
        // Linux resets the HyStart round here.
        self.last_ack_us = None;
        self.sample_cnt = 0;
    }

    /// Pushes one (g_min, g_max) pair into the ring (eq 4: ḡ_n = ḡ_{n−1} + (g_n − g_{n−a})/a;
    /// kept as exact sums, the ring starts zero-filled: missing samples count as 0, as
    /// FreeBSD calc_moving_average).
    fn push_gradients(&mut self, gmin: i64, gmax: i64) {
        self.g_min = gmin;
        self.g_max = gmax;
        let t = self.tail;
        self.sum_min += gmin - self.ring_min[t];
        self.sum_max += gmax - self.ring_max[t];
        self.ring_min[t] = gmin;
        self.ring_max[t] = gmax;
        self.tail = (t + 1) % self.ring_min.len();
        self.pushed = (self.pushed + 1).min(self.ring_min.len());
    }

    /// Linux tcp_cdg_hystart_update (Hayes & Armitage 2011 notes §8.1); sets ssthresh = cwnd on detection.
    fn hystart_update(&mut self, now: Time, cwnd_limited: bool) {
        let rtt_min_us = if self.cur_min == NO_MIN {
            0
        } else {
            self.cur_min / 1000
        };
        // min_not_zero(delay_min, rtt.min)
        if self.delay_min_us == 0 || (rtt_min_us != 0 && rtt_min_us < self.delay_min_us) {
            self.delay_min_us = rtt_min_us;
        }
        if self.delay_min_us == 0 {
            return;
        }
        if self.cfg.hystart_detect & 1 != 0 {
            // HYSTART_ACK_TRAIN: ACKs no more than 3 ms apart spanning more than base_owd.
            let now_us = now.nanos() / 1000;
            match self.last_ack_us {
                Some(last) if cwnd_limited => {
                    if now_us < last + 3000 {
                        let base_owd = (self.delay_min_us / 2).max(125);
                        self.last_ack_us = Some(now_us);
                        if now_us > self.round_start_us + base_owd {
                            self.w.ssthresh = self.w.cwnd;
                            return;
                        }
                    }
                }
                _ => {
                    self.last_ack_us = Some(now_us);
                    self.round_start_us = now_us;
                }
            }
        }
        if self.cfg.hystart_detect & 2 != 0 {
            // HYSTART_DELAY: after 8 samples, rtt.min > max(delay_min·9/8, 125 µs).
            if self.sample_cnt < 8 {
                self.sample_cnt += 1;
            } else {
                let thresh = (self.delay_min_us + self.delay_min_us / 8).max(125);
                if rtt_min_us > thresh {
                    self.w.ssthresh = self.w.cwnd;
                }
            }
        }
    }

    fn enter_cwr(&mut self) {
        self.cwr_until = Some(self.snd_nxt);
    }
}

impl CongestionControl for Cdg {
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.snd_nxt = self.snd_nxt.max(ack.snd_nxt);
        // Samples are taken on every ACK, also in recovery (FreeBSD ERTT, Linux pkts_acked).
        // The datapath's `rtt` is Linux's `ca_rtt_us` (the send time of the newest segment
        // the ACK newly SACKs, else newly acknowledges; none under Karn's rule), which is
        // what tcp_cdg_acked receives, so CDG keeps no send-time table of its own.
        self.sample(ack.rtt, ack);
        match self.cfg.variant {
            Variant::Paper => self.on_ack_paper(now, ack),
            Variant::Linux => self.on_ack_linux(now, ack),
        }
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        match self.cfg.variant {
            Variant::Paper => self.on_congestion_paper(ev.kind),
            Variant::Linux => self.on_congestion_linux(ev.kind),
        }
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        if ev.backoff_count <= 1 {
            match self.cfg.variant {
                // FreeBSD NewReno CC_RTO (first timeout only).
                Variant::Paper => self.w.ssthresh = self.newreno_half(),
                Variant::Linux => self.rto_ssthresh_linux(),
            }
        }
        self.w.cwnd = self.mss;
        self.w.ca_acked = 0;
        self.cwr_until = None;
        self.in_loss_recovery = true;
        self.after_rto = true;
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        // Linux: tcp_end_cwnd_reduction (CA_EVENT_COMPLETE_CWR) ends fast recovery, not
        // RTO recovery. FreeBSD: NewReno post-recovery leaves cwnd = ssthresh.
        if self.cfg.variant == Variant::Linux && self.in_loss_recovery && !self.after_rto {
            self.complete_cwr();
        }
        self.in_loss_recovery = false;
        self.after_rto = false;
    }

    fn on_sent(&mut self, _now: Time, sent: &SentInfo) {
        self.snd_nxt = self.snd_nxt.max(sent.seq + sent.bytes);
        if self.cfg.variant == Variant::Linux {
            self.on_sent_linux(sent);
        }
    }

    fn cwnd(&self) -> u64 {
        self.w.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        let (gmin_bar, gmax_bar) = self.smoothed_gradients_ms();
        let (gmin, gmax) = self.raw_gradients_ms();
        out.push(("shadow_bytes", self.shadow as f64));
        out.push(("gmin_ms", gmin));
        out.push(("gmax_ms", gmax));
        out.push(("gmin_bar_ms", gmin_bar));
        out.push(("gmax_bar_ms", gmax_bar));
        out.push(("queue_state", self.queue.code()));
        out.push(("ineff_cnt", self.ineff_cnt as f64));
        out.push(("backoff_p", self.last_p));
        out.push(("delay_backoffs", self.delay_backoffs as f64));
        out.push(("rtt_sample_ms", self.last_rtt as f64 / 1e6));
        out.push((
            "ssthresh_bytes",
            if self.w.ssthresh == u64::MAX {
                -1.0
            } else {
                self.w.ssthresh as f64
            },
        ));
    }
}
