//! CUBIC (RFC 9438) as Linux `tcp_cubic` (net/ipv4/tcp_cubic.c), name "cubic".
//!
//! Window growth in congestion avoidance follows W_cubic(t) = C·(t−K)³ + W_max around the
//! window W_max at the last congestion event; every ACK aims at W_cubic(t + delay_min)
//! one round trip ahead, expressed as Linux's `cnt` (bytes to acknowledge per one-segment
//! increase). The Reno-friendly estimate W_est caps `cnt` when Reno would be faster.
//! Multiplicative decrease uses β = 0.7 with fast convergence. Slow start is Reno's, with
//! Linux's HyStart (ACK-train and delay-increase exit) on by default.
//!
//! Windows are bytes at the interface; Linux's packet counters become byte counters
//! (`cnt` and the Reno estimate are kept in bytes, one segment = `ack.mss`). The cubic
//! function is evaluated in f64 rather than Linux's fixed-point approximation.
//! Where RFC 9438 and Linux differ we follow Linux; differences listed below.
//!
//! Differences from the source (the reasoning is in docs/deviations/cubic.md):
//! - the target W_cubic(t + RTT) uses the minimum RTT, as Linux, not the RFC's smoothed RTT:
//!   docs/deviations/cubic.md#cubic-target-rtt
//! - K comes from the window at the epoch start (Linux), not W_max·(1 − β):
//!   docs/deviations/cubic.md#cubic-k-from-cwnd-epoch
//! - ssthresh from cwnd, not flight size; an ECN floor: docs/deviations/cubic.md#cubic-ssthresh-ecn
//! - β and C are Linux's fixed-point values: docs/deviations/cubic.md#cubic-beta-c
//! - HyStart follows Linux's details: docs/deviations/cubic.md#cubic-hystart
//! - no undo of spurious reductions: docs/deviations/cubic.md#cubic-no-undo

use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::reno::{RenoWindow, MIN_SSTHRESH_SEGMENTS};
use crate::units::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "cubic",
    aliases: &[],
    summary: "CUBIC: cubic growth around W_max, beta 0.7, fast convergence, Reno-friendly region, HyStart (as Linux tcp_cubic)",
    source: "RFC 9438 §4; Linux net/ipv4/tcp_cubic.c",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "c",
        kind: ParamKind::Float { min: 0.001, max: 100.0 },
        default: ParamValue::Float(0.4),
        unit: "segments/s^3",
        doc: "Aggressiveness constant C of W_cubic(t) = C(t-K)^3 + W_max",
        source: "RFC 9438 §4.2, §5.1; Linux net/ipv4/tcp_cubic.c bic_scale=41 (C = 41*10/1024)",
    },
    ParamSpec {
        name: "beta",
        kind: ParamKind::Float { min: 0.01, max: 0.99 },
        default: ParamValue::Float(0.7),
        unit: "",
        doc: "Multiplicative decrease factor beta_cubic: ssthresh = max(cwnd*beta, 2 MSS)",
        source: "RFC 9438 §4.6; Linux net/ipv4/tcp_cubic.c beta=717 (/1024)",
    },
    ParamSpec {
        name: "fast_convergence",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "Lower W_max to cwnd*(1+beta)/2 when a congestion event comes below the previous W_max",
        source: "RFC 9438 §4.7; Linux net/ipv4/tcp_cubic.c fast_convergence=1",
    },
    ParamSpec {
        name: "tcp_friendliness",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "Reno-friendly region: grow at least as fast as the Reno estimate W_est",
        source: "RFC 9438 §4.3; Linux net/ipv4/tcp_cubic.c tcp_friendliness=1",
    },
    ParamSpec {
        name: "hystart",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "Hybrid slow start: leave slow start on an ACK train spanning delay_min/2 or on an RTT increase",
        source: "RFC 9438 §4.10; Linux net/ipv4/tcp_cubic.c hystart=1",
    },
    ParamSpec {
        name: "hystart_detect",
        kind: ParamKind::Choice(&["both", "train", "delay"]),
        default: ParamValue::Choice("both"),
        unit: "",
        doc: "HyStart detection mechanisms: ACK train, delay increase, or both",
        source: "Linux net/ipv4/tcp_cubic.c hystart_detect=3 (HYSTART_ACK_TRAIN|HYSTART_DELAY)",
    },
    ParamSpec {
        name: "hystart_low_window",
        kind: ParamKind::Int { min: 0, max: 1 << 30 },
        default: ParamValue::Int(16),
        unit: "packets",
        doc: "HyStart only acts when cwnd is at least this many segments",
        source: "Linux net/ipv4/tcp_cubic.c hystart_low_window=16",
    },
    ParamSpec {
        name: "hystart_ack_delta",
        kind: ParamKind::Duration { min: Dur::ZERO, max: Dur::from_secs(1) },
        default: ParamValue::Dur(Dur::from_millis(2)),
        unit: "",
        doc: "Maximum spacing between ACKs that still counts as one ACK train",
        source: "Linux net/ipv4/tcp_cubic.c hystart_ack_delta_us=2000",
    },
    ParamSpec {
        name: "initial_ssthresh",
        kind: ParamKind::Int { min: 0, max: 1 << 30 },
        default: ParamValue::Int(0),
        unit: "packets",
        doc: "Initial slow-start threshold in segments (0 = unset/infinite); applied only when hystart is off",
        source: "Linux net/ipv4/tcp_cubic.c initial_ssthresh=0, cubictcp_init",
    },
];

/// HyStart: number of RTT samples per round before the delay test (Linux HYSTART_MIN_SAMPLES).
const HYSTART_MIN_SAMPLES: u32 = 8;
/// HyStart delay threshold clamp: clamp(delay_min/8, 4 ms, 16 ms) (Linux HYSTART_DELAY_MIN/MAX).
const HYSTART_DELAY_MIN: Dur = Dur::from_millis(4);
const HYSTART_DELAY_MAX: Dur = Dur::from_millis(16);
/// `sk_gso_max_size` of a device with GSO (Linux GSO_LEGACY_MAX_SIZE), bytes.
const GSO_MAX_SIZE: u64 = 65_536;

/// Linux 6.x `hystart_ack_delay`: min(1 ms, 4·gso_max_size / sk_pacing_rate), a cushion for
/// ACKs that TSO/GRO batching delays. `sk_pacing_rate` is what `tcp_update_pacing_rate`
/// sets in slow start whether or not anything paces: 200 % (tcp_pacing_ss_ratio) of
/// cwnd/srtt; this ACK's RTT sample stands in for srtt. So the cushion is
/// 4·65536·srtt / (2·cwnd), capped at 1 ms: the cap holds below about 90·RTT_ms segments.
fn hystart_ack_delay(cwnd_bytes: u64, srtt: Dur) -> Dur {
    let cushion =
        (4 * GSO_MAX_SIZE as u128 * srtt.nanos() as u128) / (2 * cwnd_bytes.max(1) as u128);
    Dur((cushion as u64).min(Dur::from_millis(1).nanos()))
}
/// Linux `cubictcp_acked`: "Discard delay samples right after fast recovery" (HZ = 1 s
/// after the start of a congestion-avoidance epoch).
const DELAY_SAMPLE_HOLDOFF: Dur = Dur::from_secs(1);
/// Linux `bictcp_update`: with no W_max yet, grow at least 5% per RTT (cnt capped at 20).
const NO_WMAX_CNT_CAP_SEGMENTS: u64 = 20;
/// Linux `bictcp_update`: target at or below cwnd gives "very small increment", cnt = 100·cwnd.
const FLAT_CNT_FACTOR: u64 = 100;
/// Linux `bictcp_update`: at most one segment per two segments acknowledged (1.5x per RTT;
/// the same bound as RFC 9438 §4.2's target ≤ 1.5·cwnd).
const MIN_CNT_SEGMENTS: u64 = 2;

/// Which HyStart exit tests run (the `hystart_detect` parameter; Linux `hystart_detect`
/// bits HYSTART_ACK_TRAIN = 1, HYSTART_DELAY = 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HystartDetect {
    /// Both (Linux hystart_detect = 3).
    Both,
    /// The ACK-train test only.
    Train,
    /// The delay-increase test only.
    Delay,
}

impl HystartDetect {
    pub fn train(self) -> bool {
        matches!(self, HystartDetect::Both | HystartDetect::Train)
    }
    pub fn delay(self) -> bool {
        matches!(self, HystartDetect::Both | HystartDetect::Delay)
    }
}

/// CUBIC's parameters. Defaults: Linux `net/ipv4/tcp_cubic.c` module parameters, which
/// match RFC 9438 §4 where the RFC names a value.
#[derive(Clone, Debug, PartialEq)]
pub struct CubicConfig {
    /// `c`, segments/s³: C of W_cubic(t) = C(t−K)³ + W_max. RFC 9438 §4.2, §5.1;
    /// Linux bic_scale = 41 (C = 41·10/1024 ≈ 0.4).
    pub c: f64,
    /// `beta`: multiplicative decrease β_cubic, ssthresh = max(cwnd·β, 2 MSS).
    /// RFC 9438 §4.6; Linux beta = 717/1024 ≈ 0.7.
    pub beta: f64,
    /// `fast_convergence`: lower W_max to cwnd·(1+β)/2 when a congestion event comes
    /// below the previous W_max. RFC 9438 §4.7; Linux fast_convergence = 1.
    pub fast_convergence: bool,
    /// `tcp_friendliness`: grow at least as fast as the Reno estimate W_est.
    /// RFC 9438 §4.3; Linux tcp_friendliness = 1.
    pub tcp_friendliness: bool,
    /// `hystart`: hybrid slow start. RFC 9438 §4.10; Linux hystart = 1.
    pub hystart: bool,
    /// `hystart_detect`: Linux hystart_detect = 3 (ACK train and delay).
    pub hystart_detect: HystartDetect,
    /// `hystart_low_window`, segments: HyStart acts only from this cwnd. Linux
    /// hystart_low_window = 16.
    pub hystart_low_window: u64,
    /// `hystart_ack_delta`: largest ACK spacing within one ACK train. Linux
    /// hystart_ack_delta_us = 2000.
    pub hystart_ack_delta: Dur,
    /// `initial_ssthresh`, segments; 0 = unset. Applied only with HyStart off (Linux
    /// cubictcp_init; initial_ssthresh = 0).
    pub initial_ssthresh: u64,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: true,
            hystart_detect: HystartDetect::Both,
            hystart_low_window: 16,
            hystart_ack_delta: Dur::from_millis(2),
            initial_ssthresh: 0,
        }
    }
}

impl TryFrom<&ParamSet> for CubicConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<CubicConfig, ParamError> {
        let r = p.reader("cubic");
        Ok(CubicConfig {
            c: r.f64("c")?,
            beta: r.f64("beta")?,
            fast_convergence: r.bool("fast_convergence")?,
            tcp_friendliness: r.bool("tcp_friendliness")?,
            hystart: r.bool("hystart")?,
            hystart_detect: match r.choice("hystart_detect")? {
                "train" => HystartDetect::Train,
                "delay" => HystartDetect::Delay,
                _ => HystartDetect::Both,
            },
            hystart_low_window: r.u64("hystart_low_window")?,
            hystart_ack_delta: r.dur("hystart_ack_delta")?,
            initial_ssthresh: r.u64("initial_ssthresh")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = CubicConfig::try_from(p).expect("cubic: parameters resolved against PARAMS");
    Box::new(Cubic::new(&cfg, &init))
}

/// Rounds a byte count computed in floating point down to whole bytes, except that a
/// value within a millionth of a byte below an integer counts as that integer (β = 0.7
/// and the cube root are not exact in binary, and 36000·0.7 must give 25200, as
/// Linux's integer arithmetic does).
fn floor_bytes(x: f64) -> u64 {
    if x <= 0.0 {
        0
    } else {
        (x + 1e-6).floor() as u64
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    w: RenoWindow,
    mss: u64,
    // Linux `struct bictcp`, windows in bytes.
    /// Bytes to acknowledge per one-segment increase (Linux `cnt` × mss).
    cnt: u64,
    /// W_max in bytes (Linux `last_max_cwnd`); 0 = none yet.
    last_max_cwnd: u64,
    /// Plateau of the current epoch's curve in bytes (Linux `bic_origin_point`).
    origin_point: u64,
    /// K in seconds (Linux `bic_K`).
    k: f64,
    /// Minimum RTT seen (Linux `delay_min`); None = no sample yet.
    delay_min: Option<Dur>,
    /// Start of the congestion-avoidance epoch (Linux `epoch_start`); None = ended.
    epoch_start: Option<Time>,
    /// Bytes acknowledged towards the next W_est increase (Linux `ack_cnt`).
    ack_cnt: f64,
    /// Reno-friendly estimate W_est in bytes (Linux `tcp_cwnd`).
    tcp_cwnd: u64,
    // HyStart.
    found: bool,
    round_start: Time,
    end_seq: u64,
    last_ack: Time,
    /// Minimum RTT of the current round (Linux `curr_rtt`, ~0 = None).
    curr_rtt: Option<Dur>,
    sample_cnt: u32,
    /// What HyStart's exits add to Linux's MIB counters (`LINUX_MIB_TCPHYSTART*`:
    /// detections and the sum of cwnd at each, segments), so a run can be set beside
    /// the kernel's `nstat` of the same scenario.
    exits: HystartExits,
    // Datapath bookkeeping.
    snd_nxt: u64,
    last_send: Option<Time>,
}

/// HyStart's exits as Linux counts them in its MIB (`TcpExtTCPHystartTrainDetect`,
/// `...TrainCwnd`, `...DelayDetect`, `...DelayCwnd` in `nstat`): detections, and the sum of
/// the window at each detection in segments (Linux adds `tcp_snd_cwnd`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HystartExits {
    pub train_detect: u64,
    pub train_cwnd: u64,
    pub delay_detect: u64,
    pub delay_cwnd: u64,
}

/// Which HyStart test ended slow start (Linux `HYSTART_ACK_TRAIN`, `HYSTART_DELAY`).
#[derive(Debug, Clone, Copy)]
enum HystartExit {
    Train,
    Delay,
}

impl Cubic {
    /// HyStart's exits so far, counted as Linux's MIB counts them.
    pub fn hystart_exits(&self) -> HystartExits {
        self.exits
    }

    pub fn new(cfg: &CubicConfig, init: &CcInit) -> Cubic {
        let cfg = cfg.clone();
        let mut w = RenoWindow::new(init.initial_cwnd);
        // Linux cubictcp_init: initial_ssthresh only when HyStart is off.
        if !cfg.hystart && cfg.initial_ssthresh > 0 {
            w.ssthresh = cfg.initial_ssthresh * init.mss;
        }
        Cubic {
            cfg,
            w,
            mss: init.mss,
            cnt: 0,
            last_max_cwnd: 0,
            origin_point: 0,
            k: 0.0,
            delay_min: None,
            epoch_start: None,
            ack_cnt: 0.0,
            tcp_cwnd: 0,
            found: false,
            // Linux bictcp_hystart_reset at init: the round starts now and ends at snd_nxt,
            // which is the first data byte (0 here).
            round_start: init.now,
            end_seq: 0,
            last_ack: init.now,
            curr_rtt: None,
            sample_cnt: 0,
            exits: HystartExits::default(),
            snd_nxt: 0,
            last_send: None,
        }
    }

    /// W_cubic(t) in bytes for the current epoch, t in seconds since the epoch start.
    /// RFC 9438 §4.2 Figure 1: W_cubic(t) = C·(t − K)³ + W_max (W_max = the epoch's
    /// origin point, Linux `bic_origin_point`).
    pub fn w_cubic(&self, t: f64) -> f64 {
        let offs = t - self.k;
        self.origin_point as f64 + self.cfg.c * offs * offs * offs * self.mss as f64
    }

    /// K in seconds of the current epoch.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// W_max in bytes (0 before the first congestion event and after a timeout).
    pub fn w_max(&self) -> u64 {
        self.last_max_cwnd
    }

    /// Linux `bictcp_hystart_reset`.
    fn hystart_reset(&mut self, now: Time) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = self.snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// Linux `bictcp_reset` (on entering the Loss state): forget the curve, W_max,
    /// delay_min and the Reno estimate.
    fn bictcp_reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.origin_point = 0;
        self.k = 0.0;
        self.delay_min = None;
        self.epoch_start = None;
        self.ack_cnt = 0.0;
        self.tcp_cwnd = 0;
        self.found = false;
    }

    /// Linux `cubictcp_recalc_ssthresh`: end the epoch, update W_max (with fast
    /// convergence) and return the new ssthresh in bytes.
    fn recalc_ssthresh(&mut self, mss: u64) -> u64 {
        let cwnd = self.w.cwnd;
        // RFC 9438 §4.6: the epoch ends at a congestion event.
        self.epoch_start = None;
        // RFC 9438 §4.7 Fast Convergence: W_max = cwnd·(1+β)/2 if cwnd < W_max, else cwnd.
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.cfg.fast_convergence {
            floor_bytes(cwnd as f64 * (1.0 + self.cfg.beta) / 2.0)
        } else {
            cwnd
        };
        // RFC 9438 §4.6 Figure 5 with cwnd for flight_size (as Linux):
        // ssthresh = max(cwnd·β, 2 MSS).
        floor_bytes(cwnd as f64 * self.cfg.beta).max(MIN_SSTHRESH_SEGMENTS * mss)
    }

    /// Linux `cubictcp_acked` (pkts_acked): delay_min and HyStart, run before cong_avoid.
    fn on_rtt_sample(&mut self, now: Time, rtt: Dur, ack: &AckSample) {
        // "Discard delay samples right after fast recovery".
        if let Some(e) = self.epoch_start {
            if now.since(e) < DELAY_SAMPLE_HOLDOFF {
                return;
            }
        }
        // Linux: "if (delay == 0) delay = 1" (µs).
        let delay = rtt.max(Dur::from_micros(1));
        // "first time call or link delay decreases"
        if self.delay_min.is_none_or(|d| d > delay) {
            self.delay_min = Some(delay);
        }
        if !self.found && self.w.in_slow_start() && self.cfg.hystart {
            self.hystart_update(now, delay, ack);
        }
    }

    /// Linux `hystart_update`.
    fn hystart_update(&mut self, now: Time, delay: Dur, ack: &AckSample) {
        if ack.snd_una > self.end_seq {
            // A new round begins once the round's last byte is acknowledged.
            self.hystart_reset(now);
        }
        // "hystart triggers when cwnd is larger than some threshold"
        if self.w.cwnd < self.cfg.hystart_low_window * ack.mss {
            return;
        }
        let delay_min = self.delay_min.unwrap_or(delay);
        if self.cfg.hystart_detect.train() && now.since(self.last_ack) <= self.cfg.hystart_ack_delta
        {
            // ACK-train detection: ACKs still arrive closely spaced after
            // (delay_min + hystart_ack_delay)/2 of the round. Linux 6.x halves the
            // threshold when the socket is not paced by TCP itself (SK_PACING_NONE, as for
            // CUBIC always).
            self.last_ack = now;
            let threshold = Dur((delay_min + hystart_ack_delay(self.w.cwnd, delay)).nanos() / 2);
            if now.since(self.round_start) > threshold {
                self.leave_slow_start(HystartExit::Train, ack.mss);
            }
        }
        if self.cfg.hystart_detect.delay() {
            // Delay-increase detection: the minimum RTT of the round's first
            // HYSTART_MIN_SAMPLES samples exceeds delay_min + clamp(delay_min/8, 4ms, 16ms).
            if self.curr_rtt.is_none_or(|c| c > delay) {
                self.curr_rtt = Some(delay);
            }
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let eta = Dur(delay_min.nanos() / 8).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX);
                if self.curr_rtt.is_some_and(|c| c > delay_min + eta) {
                    self.leave_slow_start(HystartExit::Delay, ack.mss);
                }
            }
        }
    }

    /// HyStart found the exit: ssthresh = cwnd, counted as Linux's MIB counts it
    /// (`TCPHystartTrainDetect`/`TrainCwnd` or `DelayDetect`/`DelayCwnd`).
    fn leave_slow_start(&mut self, by: HystartExit, mss: u64) {
        self.found = true;
        self.w.ssthresh = self.w.cwnd;
        let packets = self.w.cwnd / mss.max(1);
        match by {
            HystartExit::Train => {
                self.exits.train_detect += 1;
                self.exits.train_cwnd += packets;
            }
            HystartExit::Delay => {
                self.exits.delay_detect += 1;
                self.exits.delay_cwnd += packets;
            }
        }
    }

    /// Linux `bictcp_update`: recompute `cnt` (bytes acknowledged per one-segment
    /// increase) for this ACK.
    fn update(&mut self, now: Time, acked: u64, mss: u64) {
        let cwnd = self.w.cwnd;
        self.ack_cnt += acked as f64;
        let epoch_start = match self.epoch_start {
            Some(e) => e,
            None => {
                // RFC 9438 §4.2: a new congestion-avoidance stage; cwnd_epoch = cwnd.
                self.epoch_start = Some(now);
                self.ack_cnt = acked as f64;
                // RFC 9438 §4.3: W_est = cwnd_epoch at the start of the stage.
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    // RFC 9438 §4.8/§4.10 (no W_max above cwnd): K = 0, plateau at cwnd.
                    self.k = 0.0;
                    self.origin_point = cwnd;
                } else {
                    // RFC 9438 §4.2 Figure 2: K = cbrt((W_max − cwnd_epoch)/C), in segments.
                    let diff_segments = (self.last_max_cwnd - cwnd) as f64 / mss as f64;
                    self.k = (diff_segments / self.cfg.c).cbrt();
                    self.origin_point = self.last_max_cwnd;
                }
                now
            }
        };
        // RFC 9438 §4.2: target = W_cubic(t + RTT); Linux uses delay_min for the RTT.
        let t_ns = now.since(epoch_start).nanos() + self.delay_min.map_or(0, |d| d.nanos());
        let t = t_ns as f64 / 1e9;
        let target = floor_bytes(self.w_cubic(t));
        // RFC 9438 §4.4/§4.5: cwnd += (target − cwnd)/cwnd per segment acknowledged, i.e.
        // one segment per cwnd·mss/(target − cwnd) bytes (Linux cnt = cwnd/(target − cwnd)).
        let mut cnt = if target > cwnd {
            ((cwnd as u128 * mss as u128) / (target - cwnd) as u128).min(u64::MAX as u128) as u64
        } else {
            // Linux: "very small increment" (RFC 9438 §4.2 would use target = cwnd).
            FLAT_CNT_FACTOR.saturating_mul(cwnd)
        };
        // Linux: "The initial growth of cubic function may be too conservative when the
        // available bandwidth is still unknown": with no W_max, at least 5% per RTT.
        if self.last_max_cwnd == 0 && cnt > NO_WMAX_CNT_CAP_SEGMENTS * mss {
            cnt = NO_WMAX_CNT_CAP_SEGMENTS * mss;
        }
        if self.cfg.tcp_friendliness {
            // RFC 9438 §4.3 Figure 4: W_est += α·segments_acked/cwnd with
            // α = 3(1−β)/(1+β): one segment per cwnd·(1+β)/(3(1−β)) bytes acknowledged
            // (Linux: delta = cwnd·beta_scale/8 packets).
            let beta = self.cfg.beta;
            let delta = cwnd as f64 * (1.0 + beta) / (3.0 * (1.0 - beta));
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += mss;
            }
            if self.tcp_cwnd > cwnd {
                // "if bic is slower than tcp": catch up with W_est within one window.
                let max_cnt = (cwnd as u128 * mss as u128 / (self.tcp_cwnd - cwnd) as u128) as u64;
                cnt = cnt.min(max_cnt);
            }
        }
        // RFC 9438 §4.2 target ≤ 1.5·cwnd; Linux: cnt ≥ 2.
        self.cnt = cnt.max(MIN_CNT_SEGMENTS * mss);
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        let mss = if ack.mss > 0 { ack.mss } else { self.mss };
        self.mss = mss;
        self.snd_nxt = self.snd_nxt.max(ack.snd_nxt);
        // Linux calls pkts_acked (delay_min, HyStart) for every ACK with an RTT sample,
        // before cong_avoid, in every state.
        if let Some(rtt) = ack.rtt {
            self.on_rtt_sample(now, rtt, ack);
        }
        // Linux cubictcp_cong_avoid is called only in Open/Disorder and when cwnd-limited.
        if ack.in_recovery || !ack.cwnd_limited || ack.bytes_acked == 0 {
            return;
        }
        let mut acked = ack.bytes_acked;
        if self.w.in_slow_start() {
            acked = self.w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        self.update(now, acked, mss);
        // Linux tcp_cong_avoid_ai(tp, ca->cnt, acked), in bytes.
        self.w.cong_avoid_ai(self.cnt, acked, mss);
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        // Loss and ECN alike (Linux calls ssthresh() from tcp_enter_recovery and
        // tcp_enter_cwr); cwnd = ssthresh at once (RFC 9438 §4.6, RFC 6675 style).
        let mss = if ev.mss > 0 { ev.mss } else { self.mss };
        let ssthresh = self.recalc_ssthresh(mss);
        self.w.ssthresh = ssthresh;
        self.w.cwnd = ssthresh;
        self.w.ca_acked = 0;
    }

    fn on_rto(&mut self, now: Time, ev: &RtoEvent) {
        let mss = if ev.mss > 0 { ev.mss } else { self.mss };
        // Linux tcp_enter_loss recomputes ssthresh only on the first timeout of an
        // episode (not when already in Loss with retransmissions outstanding).
        if ev.backoff_count <= 1 {
            self.w.ssthresh = self.recalc_ssthresh(mss);
        }
        // RFC 9438 §4.8 / RFC 5681: cwnd = 1 segment (Linux: in_flight + 1 = 1).
        self.w.cwnd = mss;
        self.w.ca_acked = 0;
        // Linux cubictcp_state(TCP_CA_Loss): bictcp_reset + bictcp_hystart_reset.
        self.bictcp_reset();
        self.hystart_reset(now);
    }

    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        self.snd_nxt = self.snd_nxt.max(sent.seq + sent.bytes);
        // Linux cubictcp_cwnd_event(CA_EVENT_TX_START): sending with nothing in flight
        // after an idle period shifts epoch_start by the idle time so the curve is not
        // advanced by application-limited periods (RFC 9438 §4.2, §5.8).
        let prior_in_flight = sent.bytes_in_flight.saturating_sub(sent.bytes);
        if prior_in_flight == 0 {
            if let (Some(e), Some(last)) = (self.epoch_start, self.last_send) {
                let idle = now.since(last);
                if idle > Dur::ZERO {
                    self.epoch_start = Some((e + idle).min(now));
                }
            }
        }
        self.last_send = Some(now);
    }

    fn cwnd(&self) -> u64 {
        self.w.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        let mss = self.mss.max(1) as f64;
        out.push(("w_max_segments", self.last_max_cwnd as f64 / mss));
        out.push(("origin_segments", self.origin_point as f64 / mss));
        out.push(("k_s", self.k));
        out.push(("cnt_segments", self.cnt as f64 / mss));
        out.push(("w_est_segments", self.tcp_cwnd as f64 / mss));
        out.push((
            "delay_min_ms",
            self.delay_min.map_or(0.0, |d| d.secs_f64() * 1e3),
        ));
        out.push(("hystart_found", if self.found { 1.0 } else { 0.0 }));
        out.push(("hystart_train_detect", self.exits.train_detect as f64));
        out.push(("hystart_train_cwnd", self.exits.train_cwnd as f64));
        out.push(("hystart_delay_detect", self.exits.delay_detect as f64));
        out.push(("hystart_delay_cwnd", self.exits.delay_cwnd as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;

    fn init(now: Time, cwnd_segments: u64) -> CcInit {
        CcInit {
            now,
            mss: MSS,
            initial_cwnd: cwnd_segments * MSS,
            rng: Rng::new(1),
        }
    }

    fn cubic_with(cfg: CubicConfig, cwnd_segments: u64) -> Cubic {
        Cubic::new(&cfg, &init(Time::ZERO, cwnd_segments))
    }

    fn ack(bytes: u64) -> AckSample {
        AckSample {
            bytes_acked: bytes,
            ..AckSample::empty(MSS)
        }
    }

    fn ms(x: u64) -> Dur {
        Dur::from_millis(x)
    }

    fn at(d: Dur) -> Time {
        Time::ZERO + d
    }

    fn loss(c: &mut Cubic) {
        c.on_congestion(
            Time::ZERO,
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: c.cwnd(),
                bytes_lost: MSS,
                mss: MSS,
            },
        );
    }

    /// An ACK that only carries an RTT sample (not cwnd-limited, so no growth).
    fn rtt_only(c: &mut Cubic, now: Time, rtt: Dur) {
        c.on_ack(
            now,
            &AckSample {
                rtt: Some(rtt),
                cwnd_limited: false,
                ..ack(0)
            },
        );
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            CubicConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            CubicConfig::default()
        );
    }

    #[test]
    fn choice_words_map_to_their_variants() {
        use crate::params::RawParam;
        let v = RawParam::Text("train".into());
        let p = INFO.resolve([("hystart_detect", &v)]).unwrap();
        assert_eq!(
            CubicConfig::try_from(&p).unwrap(),
            CubicConfig {
                hystart_detect: HystartDetect::Train,
                ..CubicConfig::default()
            }
        );
        let v = RawParam::Text("delay".into());
        let p = INFO.resolve([("hystart_detect", &v)]).unwrap();
        assert_eq!(
            CubicConfig::try_from(&p).unwrap(),
            CubicConfig {
                hystart_detect: HystartDetect::Delay,
                ..CubicConfig::default()
            }
        );
    }

    #[test]
    fn defaults_match_sources() {
        let cfg = CubicConfig::default();
        assert_eq!(cfg.c, 0.4);
        assert_eq!(cfg.beta, 0.7);
        assert!(cfg.fast_convergence && cfg.tcp_friendliness && cfg.hystart);
        assert_eq!(cfg.hystart_detect, HystartDetect::Both);
        assert_eq!(cfg.hystart_low_window, 16);
        assert_eq!(cfg.hystart_ack_delta, ms(2));
        assert_eq!(cfg.initial_ssthresh, 0);
        assert!(crate::registry::find("cubic").is_some_and(|a| a.name == "cubic"));
        // Linux applies initial_ssthresh only with HyStart off.
        let c = cubic_with(
            CubicConfig {
                initial_ssthresh: 50,
                ..CubicConfig::default()
            },
            10,
        );
        assert_eq!(c.ssthresh(), u64::MAX);
        let c = cubic_with(
            CubicConfig {
                initial_ssthresh: 50,
                hystart: false,
                ..CubicConfig::default()
            },
            10,
        );
        assert_eq!(c.ssthresh(), 50 * MSS);
    }

    #[test]
    fn k_is_cube_root_of_wmax_times_one_minus_beta_over_c() {
        // W_max = 36 segments, no fast convergence (first loss, W_max was 0):
        // ssthresh = cwnd_epoch = 0.7·36 = 25.2 segments = 25200 bytes;
        // K = cbrt((36 − 25.2)/0.4) = cbrt(W_max(1−β)/C) = cbrt(27) = 3 s.
        let mut c = cubic_with(CubicConfig::default(), 36);
        loss(&mut c);
        assert_eq!(
            (c.cwnd(), c.ssthresh(), c.w_max()),
            (25_200, 25_200, 36_000)
        );
        c.on_ack(at(Dur::from_secs(10)), &ack(MSS));
        assert!((c.k() - 3.0).abs() < 1e-9, "K = {}", c.k());
        assert_eq!(c.origin_point, 36_000);
        // W_cubic(0) = 36 − 0.4·27 = 25.2 segments = cwnd_epoch; W_cubic(K) = W_max.
        assert!((c.w_cubic(0.0) - 25_200.0).abs() < 1e-6);
        assert!((c.w_cubic(3.0) - 36_000.0).abs() < 1e-6);
        // W_max = 288 segments: K = cbrt(288·0.3/0.4) = cbrt(216) = 6 s.
        let mut c = cubic_with(CubicConfig::default(), 288);
        loss(&mut c);
        c.on_ack(at(Dur::from_secs(1)), &ack(MSS));
        assert!((c.k() - 6.0).abs() < 1e-9, "K = {}", c.k());
    }

    #[test]
    fn window_follows_the_cubic_curve_after_a_loss() {
        // delay_min = 100 ms (sample taken before the loss, no growth: not cwnd-limited).
        let mut c = cubic_with(CubicConfig::default(), 36);
        rtt_only(&mut c, at(Dur::from_secs(1)), ms(100));
        assert_eq!(c.cwnd(), 36_000);
        loss(&mut c);
        assert_eq!(c.cwnd(), 25_200);
        let t0 = Time(Dur::from_secs(10).nanos());
        // ACK 1 at t0 (epoch start), 1000 bytes. K = 3, target = W_cubic(0 + 0.1):
        // 36 + 0.4·(0.1 − 3)³ = 36 − 0.4·24.389 = 26.2444 segments -> 26244 bytes;
        // cnt = 25200·1000/(26244 − 25200) = 25200000/1044 = 24137; ca_acked = 1000.
        c.on_ack(t0, &ack(1000));
        assert_eq!(c.cnt, 24_137);
        assert_eq!(c.cwnd(), 25_200);
        // ACK 2 at t0 + 1.9 s, 5000 bytes: t + RTT = 2.0 s, W_cubic = 36 + 0.4·(−1)³ =
        // 35.6 segments = 35600 bytes; cnt = 25200000/10400 = 2423;
        // ca_acked = 1000 + 5000 = 6000 -> +2 segments (4846), ca_acked 1154; cwnd 27200.
        c.on_ack(t0 + ms(1900), &ack(5000));
        assert_eq!(c.cnt, 2423);
        assert_eq!((c.cwnd(), c.w.ca_acked), (27_200, 1154));
        // ACK 3 at t0 + 3.9 s, 3000 bytes: W_cubic(4.0) = 36 + 0.4·1³ = 36.4 -> 36400;
        // cnt = 27200000/9200 = 2956; ca_acked 1154 + 3000 = 4154 -> +1, 1198; cwnd 28200.
        c.on_ack(t0 + ms(3900), &ack(3000));
        assert_eq!(c.cnt, 2956);
        assert_eq!((c.cwnd(), c.w.ca_acked), (28_200, 1198));
        // ACK 4 at t0 + 5.9 s, 4000 bytes: W_cubic(6.0) = 36 + 0.4·3³ = 46.8 -> 46800;
        // cnt = 28200000/18600 = 1516 < 2 segments -> 2000 (target ≤ 1.5·cwnd);
        // ca_acked 1198 + 4000 = 5198 -> +2, 1198; cwnd 30200.
        c.on_ack(t0 + ms(5900), &ack(4000));
        assert_eq!(c.cnt, 2000);
        assert_eq!((c.cwnd(), c.w.ca_acked), (30_200, 1198));
        // Reno-friendly estimate never caught up: W_est = 25200 + 0 (13000 bytes acked
        // < cwnd·(1+β)/(3(1−β)) = 25200·1.889 = 47600).
        assert_eq!(c.tcp_cwnd, 25_200);
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut c = cubic_with(CubicConfig::default(), 36);
        loss(&mut c);
        c.on_ack(
            at(Dur::from_secs(1)),
            &AckSample {
                in_recovery: true,
                ..ack(20_000)
            },
        );
        c.on_ack(
            at(Dur::from_secs(1)),
            &AckSample {
                cwnd_limited: false,
                ..ack(20_000)
            },
        );
        assert_eq!(c.cwnd(), 25_200);
        assert!(c.epoch_start.is_none(), "cong_avoid did not run");
        // The RTT sample of a recovery ACK still counts (Linux pkts_acked).
        c.on_ack(
            at(Dur::from_secs(1)),
            &AckSample {
                in_recovery: true,
                rtt: Some(ms(30)),
                ..ack(1000)
            },
        );
        assert_eq!(c.delay_min, Some(ms(30)));
    }

    #[test]
    fn ssthresh_floor_and_ecn_like_loss() {
        // cwnd 2 segments: 0.7·2000 = 1400 < 2 MSS -> ssthresh = cwnd = 2000.
        let mut c = cubic_with(CubicConfig::default(), 2);
        loss(&mut c);
        assert_eq!((c.cwnd(), c.ssthresh()), (2000, 2000));
        // ECN: same response. 10 segments -> 7000.
        let mut c = cubic_with(CubicConfig::default(), 10);
        c.on_congestion(
            Time::ZERO,
            &CongestionEvent {
                kind: CongestionKind::Ecn,
                bytes_in_flight: 0,
                bytes_lost: 0,
                mss: MSS,
            },
        );
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max()), (7000, 7000, 10_000));
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        // First loss at 100 segments: W_max = 100000, cwnd 70000.
        let mut c = cubic_with(CubicConfig::default(), 100);
        loss(&mut c);
        assert_eq!((c.w_max(), c.cwnd()), (100_000, 70_000));
        // The next loss comes at 72 segments < W_max: W_max = 72000·(1 + 0.7)/2 = 61200,
        // ssthresh = 72000·0.7 = 50400. K = cbrt((61.2 − 50.4)/0.4) = cbrt(27) = 3 s.
        c.w.cwnd = 72_000;
        loss(&mut c);
        assert_eq!(
            (c.w_max(), c.ssthresh(), c.cwnd()),
            (61_200, 50_400, 50_400)
        );
        c.on_ack(at(Dur::from_secs(5)), &ack(MSS));
        assert!((c.k() - 3.0).abs() < 1e-9, "K = {}", c.k());
        assert_eq!(c.origin_point, 61_200);

        // Without fast convergence W_max is the cwnd before the reduction: 72000, and
        // K = cbrt((72 − 50.4)/0.4) = cbrt(54).
        let mut c = cubic_with(
            CubicConfig {
                fast_convergence: false,
                ..CubicConfig::default()
            },
            100,
        );
        loss(&mut c);
        c.w.cwnd = 72_000;
        loss(&mut c);
        assert_eq!((c.w_max(), c.ssthresh()), (72_000, 50_400));
        c.on_ack(at(Dur::from_secs(5)), &ack(MSS));
        assert!((c.k() - 54f64.cbrt()).abs() < 1e-9);

        // A loss above W_max (convex region) sets W_max = cwnd even with fast convergence.
        let mut c = cubic_with(CubicConfig::default(), 100);
        loss(&mut c);
        c.w.cwnd = 110_000;
        loss(&mut c);
        assert_eq!(c.w_max(), 110_000);
    }

    #[test]
    fn reno_friendly_region_takes_over_at_small_rtt_and_large_window() {
        // W_max = 1000 segments, delay_min = 1 ms, one window of 700 ACKs per RTT.
        // K = cbrt(300/0.4) = cbrt(750) = 9.0856 s, so over a few ms the cubic target
        // barely moves: W_cubic(0.001) ≈ 700 + 0.4·3K²·0.001 = 700.099 segments, i.e.
        // cnt ≈ 700000·1000/99 ≈ 7.07e6 bytes, and ≈ 2.45e6 bytes after 1323 ACKs.
        // Reno estimate: one segment per cwnd·(1+β)/(3(1−β)) = 700000·1.7/0.9
        // = 1322222.2 bytes acknowledged: after 1322 ACKs of 1000 bytes W_est = cwnd;
        // ACK 1323 brings ack_cnt to 1323000 > 1322222.2 -> W_est = 701000 > cwnd, so
        // cnt = min(cnt, 700000·1000/1000 = 700000) and ca_acked (1322000 ≥ 700000)
        // credits one segment: cwnd = 701000.
        let run = |friendly: bool| {
            let mut c = cubic_with(
                CubicConfig {
                    tcp_friendliness: friendly,
                    ..CubicConfig::default()
                },
                1000,
            );
            rtt_only(&mut c, at(Dur::from_secs(1)), ms(1));
            loss(&mut c);
            assert_eq!(c.cwnd(), 700_000);
            let t0 = at(Dur::from_secs(2));
            let mut after_1322 = 0;
            for i in 0..1323u64 {
                c.on_ack(t0 + Dur(i * 1428), &ack(1000));
                if i == 1321 {
                    after_1322 = c.cwnd();
                }
            }
            (after_1322, c.cwnd(), c.tcp_cwnd)
        };
        assert_eq!(run(true), (700_000, 701_000, 701_000));
        // Cubic alone: no growth yet (ca_acked 1323000 < cnt ≈ 2.45e6).
        assert_eq!(run(false).0, 700_000);
        assert_eq!(run(false).1, 700_000);
    }

    /// ACK for the HyStart tests: `snd_una` after it, `snd_nxt`, RTT sample.
    fn hs_ack(snd_una: u64, snd_nxt: u64, rtt: Dur) -> AckSample {
        AckSample {
            snd_una,
            snd_nxt,
            rtt: Some(rtt),
            ..ack(MSS)
        }
    }

    fn delay_run(round2_rtt: Dur, detect: HystartDetect) -> (Cubic, Vec<(u64, u64)>) {
        // cwnd 20 segments ≥ hystart_low_window 16. ACKs 5 ms apart, so the ACK-train
        // test (spacing ≤ 2 ms) never passes after a round's first ACK.
        let mut c = cubic_with(
            CubicConfig {
                hystart_detect: detect,
                ..CubicConfig::default()
            },
            20,
        );
        let mut trace = Vec::new();
        // Round 1: first ACK (snd_una 1000 > end_seq 0) starts a round ending at 40000.
        // Ten ACKs with RTT 100 ms -> delay_min = 100 ms; cwnd 20000 -> 30000.
        for i in 0..10u64 {
            c.on_ack(
                at(ms(100 + 5 * i)),
                &hs_ack(1000 * (i + 1), 40_000, ms(100)),
            );
            trace.push((c.cwnd(), c.ssthresh()));
        }
        // Round 2: snd_una 41000 > 40000 starts a new round (end_seq 100000).
        for j in 0..12u64 {
            c.on_ack(
                at(ms(200 + 5 * j)),
                &hs_ack(41_000 + 1000 * j, 100_000, round2_rtt),
            );
            trace.push((c.cwnd(), c.ssthresh()));
        }
        (c, trace)
    }

    #[test]
    fn hystart_exits_on_delay_increase() {
        // Threshold = delay_min + clamp(100/8 = 12.5 ms, 4, 16) = 112.5 ms. In round 2 the
        // first 8 samples only count (sample_cnt 1..8); the 9th ACK (index 18) finds
        // curr_rtt = 120 ms > 112.5 ms: ssthresh = cwnd before this ACK's growth =
        // 30000 + 8·1000 = 38000, and the ACK then falls into congestion avoidance
        // (W_max = 0 -> cnt capped at 20 segments, no growth from 1000 bytes).
        let (c, tr) = delay_run(ms(120), HystartDetect::Both);
        assert_eq!(tr[9], (30_000, u64::MAX));
        assert_eq!(tr[17], (38_000, u64::MAX));
        assert_eq!(tr[18], (38_000, 38_000));
        assert!(c.found);
        assert_eq!(c.cnt, 20_000);
        // Counted as Linux's MIB counts it: one delay detection at a 38-segment window.
        assert_eq!(
            c.hystart_exits(),
            HystartExits {
                delay_detect: 1,
                delay_cwnd: 38,
                ..HystartExits::default()
            }
        );
        // Train-only detection ignores the delay increase: slow start goes on.
        let (_, tr) = delay_run(ms(120), HystartDetect::Train);
        assert_eq!(tr[21], (42_000, u64::MAX));
        // 112 ms stays below the 112.5 ms threshold.
        let (c, tr) = delay_run(ms(112), HystartDetect::Both);
        assert_eq!(tr[21], (42_000, u64::MAX));
        assert!(!c.found);
        // The clamp bounds: delay_min 20 ms -> 2.5 ms raised to 4 ms; 200 ms -> 25 ms
        // lowered to 16 ms.
        let eta = |d: Dur| Dur(d.nanos() / 8).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX);
        assert_eq!(eta(ms(20)), ms(4));
        assert_eq!(eta(ms(200)), ms(16));
    }

    fn train_run(detect: HystartDetect, cwnd_segments: u64) -> Vec<(u64, u64)> {
        // RTT 10 ms constant, ACKs every 1 ms (≤ 2 ms apart): an ACK train. The round
        // starts at the first ACK (10 ms); the train threshold is (delay_min + 1 ms)/2 =
        // 5.5 ms (hystart_ack_delay capped at 1 ms).
        let mut c = cubic_with(
            CubicConfig {
                hystart_detect: detect,
                ..CubicConfig::default()
            },
            cwnd_segments,
        );
        let mut trace = Vec::new();
        for i in 0..12u64 {
            c.on_ack(at(ms(10 + i)), &hs_ack(1000 * (i + 1), 100_000, ms(10)));
            trace.push((c.cwnd(), c.ssthresh()));
        }
        trace
    }

    #[test]
    fn hystart_ack_delay_is_four_gso_bursts_at_the_slow_start_pacing_rate_capped_at_1ms() {
        // 4·65536 B at 2·cwnd/srtt: cwnd 2 MB, srtt 10 ms -> 262144·10 ms / 4 MB = 0.655 ms.
        assert_eq!(hystart_ack_delay(2_000_000, ms(10)), Dur(655_360));
        // cwnd 26 kB: 50.4 ms, capped at 1 ms.
        assert_eq!(hystart_ack_delay(26_000, ms(10)), ms(1));
        // The train threshold with the cushion: RTT 11 ms, ACKs 1 ms apart from the round
        // start at 11 ms. Without the cushion 11/2 = 5.5 ms and ACK index 6 (6 ms) would
        // end slow start; with it (11 + 1)/2 = 6 ms, so it is index 7: ssthresh =
        // 20000 + 7·1000.
        let mut c = cubic_with(CubicConfig::default(), 20);
        let mut trace = Vec::new();
        for i in 0..10u64 {
            c.on_ack(at(ms(11 + i)), &hs_ack(1000 * (i + 1), 100_000, ms(11)));
            trace.push((c.cwnd(), c.ssthresh()));
        }
        assert_eq!(trace[6], (27_000, u64::MAX));
        assert_eq!(trace[7], (27_000, 27_000));
        // One train detection at 27 segments; later ACKs of the round add nothing.
        assert_eq!(
            c.hystart_exits(),
            HystartExits {
                train_detect: 1,
                train_cwnd: 27,
                ..HystartExits::default()
            }
        );
    }

    #[test]
    fn hystart_exits_on_ack_train() {
        // ACK index 6 arrives 6 ms > 5.5 ms after the round start: ssthresh = cwnd =
        // 20000 + 6·1000 = 26000 and no further growth.
        let tr = train_run(HystartDetect::Both, 20);
        assert_eq!(tr[5], (26_000, u64::MAX));
        assert_eq!(tr[6], (26_000, 26_000));
        assert_eq!(tr[11].0, 26_000);
        // Delay-only detection does not fire (RTT constant).
        let tr = train_run(HystartDetect::Delay, 20);
        assert_eq!(tr[11], (32_000, u64::MAX));
        // Starting below hystart_low_window (10 segments): ACKs 0..5 see cwnd < 16
        // segments and return before the train test, so last_ack stays at the round
        // start (10 ms); from ACK 6 on (cwnd 16000) the spacing to last_ack is 6 ms or
        // more > 2 ms, so no train is detected in this round (as Linux): slow start
        // continues to 10000 + 12·1000 = 22000.
        let tr = train_run(HystartDetect::Both, 10);
        assert_eq!(tr[5], (16_000, u64::MAX));
        assert_eq!(tr[11], (22_000, u64::MAX));
    }

    #[test]
    fn rto_resets_the_epoch_and_keeps_ssthresh_on_repeated_timeouts() {
        let mut c = cubic_with(
            CubicConfig {
                hystart: false,
                ..CubicConfig::default()
            },
            100,
        );
        rtt_only(&mut c, at(Dur::from_secs(1)), ms(100));
        loss(&mut c);
        c.on_ack(at(Dur::from_secs(2)), &ack(1000));
        assert!(c.epoch_start.is_some());
        assert_eq!((c.cwnd(), c.w_max()), (70_000, 100_000));
        // RTO: ssthresh = 70000·0.7 = 49000 (W_max would become 59500 by fast
        // convergence, then Linux's bictcp_reset forgets it); cwnd = 1 MSS.
        c.on_rto(
            at(Dur::from_secs(3)),
            &RtoEvent {
                bytes_in_flight: 70_000,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((c.cwnd(), c.ssthresh()), (1000, 49_000));
        assert_eq!(
            (c.w_max(), c.delay_min, c.epoch_start, c.k()),
            (0, None, None, 0.0)
        );
        // A second, backed-off timeout keeps ssthresh.
        c.on_rto(
            at(Dur::from_secs(4)),
            &RtoEvent {
                bytes_in_flight: 1000,
                backoff_count: 2,
                mss: MSS,
            },
        );
        assert_eq!((c.cwnd(), c.ssthresh()), (1000, 49_000));
        // Slow start up to ssthresh: 48 ACKs of 1000 bytes -> 49000.
        for i in 0..48u64 {
            c.on_ack(
                at(Dur::from_secs(5) + ms(i)),
                &AckSample {
                    rtt: Some(ms(100)),
                    ..ack(1000)
                },
            );
        }
        assert_eq!(c.cwnd(), 49_000);
        assert!(c.epoch_start.is_none());
        // First CA ACK: W_max = 0 -> K = 0, plateau at cwnd (RFC 9438 §4.8), and cnt
        // capped at 20 segments (Linux): target = 49000 + 0.4·0.1³·1000 = 49000.4 ->
        // 49000 ≤ cwnd -> cnt = 100·cwnd -> 20000.
        c.on_ack(at(Dur::from_secs(6)), &ack(1000));
        assert_eq!(
            (c.k(), c.origin_point, c.cnt, c.cwnd()),
            (0.0, 49_000, 20_000, 49_000)
        );
    }

    #[test]
    fn idle_period_shifts_the_epoch() {
        let mut c = cubic_with(CubicConfig::default(), 36);
        loss(&mut c);
        let t0 = at(Dur::from_secs(10));
        c.on_ack(t0, &ack(1000));
        assert_eq!(c.epoch_start, Some(t0));
        // Sending with data in flight: no shift, remembers the send time.
        c.on_sent(
            t0 + ms(500),
            &SentInfo {
                bytes: 1000,
                bytes_in_flight: 5000,
                retransmission: false,
                seq: 50_000,
                app_limited: false,
            },
        );
        assert_eq!(c.epoch_start, Some(t0));
        // Restart after 3 s of idle (nothing in flight before this send): epoch + 3 s.
        c.on_sent(
            t0 + ms(3500),
            &SentInfo {
                bytes: 1000,
                bytes_in_flight: 1000,
                retransmission: false,
                seq: 51_000,
                app_limited: false,
            },
        );
        assert_eq!(c.epoch_start, Some(t0 + ms(3000)));
        assert_eq!(c.snd_nxt, 52_000);
    }

    #[test]
    fn delay_samples_right_after_an_epoch_start_are_discarded() {
        let mut c = cubic_with(CubicConfig::default(), 36);
        rtt_only(&mut c, at(Dur::from_secs(1)), ms(100));
        loss(&mut c);
        let t0 = at(Dur::from_secs(10));
        c.on_ack(t0, &ack(1000));
        // 0.5 s after the epoch start: ignored (Linux: within HZ of epoch_start).
        c.on_ack(
            t0 + ms(500),
            &AckSample {
                rtt: Some(ms(50)),
                ..ack(1000)
            },
        );
        assert_eq!(c.delay_min, Some(ms(100)));
        // 1 s after: accepted.
        c.on_ack(
            t0 + ms(1000),
            &AckSample {
                rtt: Some(ms(50)),
                ..ack(1000)
            },
        );
        assert_eq!(c.delay_min, Some(ms(50)));
    }

    #[test]
    fn trace_names_are_stable() {
        let c = cubic_with(CubicConfig::default(), 10);
        let mut out = Vec::new();
        c.trace(&mut out);
        let names: Vec<_> = out.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "w_max_segments",
                "origin_segments",
                "k_s",
                "cnt_segments",
                "w_est_segments",
                "delay_min_ms",
                "hystart_found",
                "hystart_train_detect",
                "hystart_train_cwnd",
                "hystart_delay_detect",
                "hystart_delay_cwnd"
            ]
        );
    }
}
