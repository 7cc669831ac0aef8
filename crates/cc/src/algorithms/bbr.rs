//! BBR v1 as Linux `net/ipv4/tcp_bbr.c` (v4.9 design, with the later v5.x additions
//! that are still BBR v1: ACK-aggregation cwnd, EDT-free in our datapath): STARTUP at
//! 2/ln2, DRAIN, PROBE_BW with the 8-phase pacing-gain cycle started at a random phase,
//! PROBE_RTT (cwnd 4 for max(200 ms, 1 round) when min_rtt was not refreshed for 10 s),
//! a windowed max-bandwidth filter over 10 round trips, full-pipe detection, cwnd gain 2
//! and long-term ("lt") bandwidth sampling for token-bucket policers.
//!
//! The arithmetic is Linux's fixed point: bandwidth in packets per µs << 24 (`BW_UNIT`),
//! gains in 1/256 (`BBR_UNIT`), cwnd in packets, min_rtt in µs. Parameters keep their
//! Linux names (module constants of tcp_bbr.c) so the simulated behaviour can be compared
//! with the kernel's. Differences listed below.
//!
//! Differences from the source (the reasoning is in docs/deviations/bbr.md):
//! - rs->prior_delivered, rs->losses and tp->lost are derived from the interface:
//!   docs/deviations/bbr.md#bbr-derived-counters
//! - no EDT: packets in the network = prior_in_flight: docs/deviations/bbr.md#bbr-no-edt
//! - TSO budget computed as Linux, although the datapath sends single segments:
//!   docs/deviations/bbr.md#bbr-tso-budget
//! - is_ack_delayed is false; tp->app_limited in PROBE_RTT emulated:
//!   docs/deviations/bbr.md#bbr-ack-delayed-app-limited
//! - pacing on payload bytes as Linux, without its first-10 and late-send credit:
//!   docs/deviations/bbr.md#bbr-pacing-payload

use crate::api::*;
use crate::estimators::receive_rate::LostBytes;
use crate::estimators::windowed_minmax::WindowedMax;
use crate::params::{ParamError, ParamSet, ParamSpec};
use crate::registry::AlgorithmInfo;
use crate::rng::Rng;
use crate::units::{Dur, Rate, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "bbr",
    aliases: &["bbr1", "bbrv1"],
    summary: "BBR v1: model-based (max bandwidth x min RTT) paced sending, as Linux tcp_bbr",
    source: "Cardwell et al., BBR, ACM Queue 2016; Linux net/ipv4/tcp_bbr.c; Wang 2018 §2.3.3",
    params: PARAMS,
    build,
};

const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
const BBR_SCALE: u32 = 8;
const BBR_UNIT: u64 = 1 << BBR_SCALE;
const CYCLE_LEN: usize = 8;
const TCP_INIT_CWND: u32 = 10;

/// Where every parameter below comes from.
const SOURCE: &str = "Linux net/ipv4/tcp_bbr.c (module constant of the same name)";

static PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "bbr_high_gain",
        256,
        4096,
        739,
        "1/256",
        "STARTUP pacing and cwnd gain: BBR_UNIT * 2885 / 1000 + 1 (2/ln2)",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_drain_gain",
        1,
        256,
        88,
        "1/256",
        "DRAIN pacing gain: BBR_UNIT * 1000 / 2885 (ln2/2)",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_cwnd_gain",
        256,
        4096,
        512,
        "1/256",
        "PROBE_BW cwnd gain: BBR_UNIT * 2",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_pacing_gain_0",
        256,
        1024,
        320,
        "1/256",
        "bbr_pacing_gain[0], the probing phase of the gain cycle: BBR_UNIT * 5 / 4",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_pacing_gain_1",
        1,
        256,
        192,
        "1/256",
        "bbr_pacing_gain[1], the draining phase: BBR_UNIT * 3 / 4 (phases 2..7 are BBR_UNIT)",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_cycle_rand",
        1,
        7,
        7,
        "phases",
        "randomize the starting gain cycle phase over [0, bbr_cycle_rand)",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_bw_rtts",
        1,
        100,
        10,
        "rounds",
        "window length of the max-bandwidth filter: CYCLE_LEN + 2",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_min_rtt_win_sec",
        1,
        3600,
        10,
        "s",
        "window length of the min_rtt filter",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_probe_rtt_mode_ms",
        0,
        10_000,
        200,
        "ms",
        "minimum time in PROBE_RTT (0 disables PROBE_RTT)",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_cwnd_min_target",
        1,
        100,
        4,
        "packets",
        "cwnd floor, and the cwnd in PROBE_RTT",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_full_bw_thresh",
        257,
        1024,
        320,
        "1/256",
        "bandwidth must grow by this factor (5/4) per round to stay in STARTUP",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_full_bw_cnt",
        1,
        100,
        3,
        "rounds",
        "rounds without such growth that mean the pipe is full",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_lt_intvl_min_rtts",
        1,
        100,
        4,
        "rounds",
        "minimum length of a long-term sampling interval",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_lt_loss_thresh",
        1,
        256,
        50,
        "1/256",
        "loss rate (lost/delivered) that ends an lt interval: 50/256 = 20 %",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_lt_bw_ratio",
        0,
        256,
        32,
        "1/256",
        "two intervals' bandwidths within this ratio (1/8) mean a policer",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_lt_bw_diff",
        0,
        1_000_000_000,
        500,
        "bytes/s",
        "or within this absolute difference: 4000 bit/s / 8",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_lt_bw_max_rtts",
        1,
        10_000,
        48,
        "rounds",
        "rounds to keep using the policed rate lt_bw",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_extra_acked_gain",
        0,
        4096,
        256,
        "1/256",
        "gain on the ACK-aggregation cwnd allowance (0 disables it)",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_extra_acked_win_rtts",
        1,
        31,
        5,
        "rounds",
        "window of the extra_acked max filter",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_ack_epoch_acked_reset_thresh",
        1,
        1 << 30,
        1 << 20,
        "packets",
        "restart the aggregation epoch after this many packets",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_extra_acked_max_us",
        0,
        10_000_000,
        100_000,
        "us",
        "cap on the aggregation allowance, in time at bw",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_pacing_margin_percent",
        0,
        99,
        1,
        "%",
        "pace this much below the estimated bandwidth",
        SOURCE,
    ),
    ParamSpec::int(
        "bbr_min_tso_rate",
        0,
        1_000_000_000,
        1_200_000,
        "bit/s",
        "below this pacing rate the TSO goal is 1 segment, else 2 (bbr_min_tso_segs)",
        SOURCE,
    ),
    ParamSpec::int(
        "sk_pacing_shift",
        0,
        20,
        10,
        "",
        "TSO/GSO budget is pacing_rate >> sk_pacing_shift bytes (about 1 ms), as tcp_tso_autosize",
        SOURCE,
    ),
];

/// BBR v1's parameters: the module constants of Linux `net/ipv4/tcp_bbr.c` (each field's
/// parameter is the constant's name), gains in BBR_UNIT = 1/256.
#[derive(Clone, Debug, PartialEq)]
pub struct BbrConfig {
    /// `bbr_high_gain`: STARTUP pacing and cwnd gain, BBR_UNIT·2885/1000 + 1 (2/ln 2).
    pub high_gain: u64,
    /// `bbr_drain_gain`: DRAIN pacing gain, BBR_UNIT·1000/2885 (ln 2/2).
    pub drain_gain: u64,
    /// `bbr_cwnd_gain`: PROBE_BW cwnd gain, BBR_UNIT·2.
    pub cwnd_gain: u64,
    /// `bbr_pacing_gain_0`: bbr_pacing_gain[0], the probing phase, BBR_UNIT·5/4.
    pub pacing_gain_up: u64,
    /// `bbr_pacing_gain_1`: bbr_pacing_gain[1], the draining phase, BBR_UNIT·3/4
    /// (phases 2..7 are BBR_UNIT).
    pub pacing_gain_down: u64,
    /// `bbr_cycle_rand`: the gain cycle starts at a random phase in [0, 7).
    pub cycle_rand: u64,
    /// `bbr_bw_rtts`, rounds: max-bandwidth filter window, CYCLE_LEN + 2.
    pub bw_rtts: u64,
    /// `bbr_min_rtt_win_sec`: min_rtt filter window, 10 s (whole seconds).
    pub min_rtt_win: Dur,
    /// `bbr_probe_rtt_mode_ms`: minimum time in PROBE_RTT, 200 ms (whole ms; 0 disables
    /// PROBE_RTT).
    pub probe_rtt_mode: Dur,
    /// `bbr_cwnd_min_target`, packets: cwnd floor and the cwnd in PROBE_RTT, 4.
    pub cwnd_min_target: u64,
    /// `bbr_full_bw_thresh`: bandwidth must grow by 5/4 per round to stay in STARTUP.
    pub full_bw_thresh: u64,
    /// `bbr_full_bw_cnt`, rounds without such growth that mean the pipe is full: 3.
    pub full_bw_cnt: u64,
    /// `bbr_lt_intvl_min_rtts`, rounds: minimum long-term sampling interval, 4.
    pub lt_intvl_min_rtts: u64,
    /// `bbr_lt_loss_thresh`: loss rate that ends an lt interval, 50/256 = 20 %.
    pub lt_loss_thresh: u64,
    /// `bbr_lt_bw_ratio`: two intervals' bandwidths within 1/8 mean a policer.
    pub lt_bw_ratio: u64,
    /// `bbr_lt_bw_diff`, bytes/s: or within 4000 bit/s / 8.
    pub lt_bw_diff: u64,
    /// `bbr_lt_bw_max_rtts`, rounds to keep using the policed rate: 48.
    pub lt_bw_max_rtts: u64,
    /// `bbr_extra_acked_gain`: gain on the ACK-aggregation allowance (0 disables it).
    pub extra_acked_gain: u64,
    /// `bbr_extra_acked_win_rtts`, rounds: window of the extra_acked max filter, 5.
    pub extra_acked_win_rtts: u64,
    /// `bbr_ack_epoch_acked_reset_thresh`, packets: restart the aggregation epoch, 2^20.
    pub ack_epoch_acked_reset_thresh: u64,
    /// `bbr_extra_acked_max_us`, µs: cap on the aggregation allowance, 100 ms at bw.
    pub extra_acked_max_us: u64,
    /// `bbr_pacing_margin_percent`, %: pace this much below the bandwidth estimate, 1.
    pub pacing_margin_percent: u64,
    /// `bbr_min_tso_rate`, bit/s: below it the TSO goal is 1 segment, else 2.
    pub min_tso_rate: u64,
    /// `sk_pacing_shift`: the TSO/GSO budget is pacing_rate >> 10 bytes (about 1 ms),
    /// as tcp_tso_autosize.
    pub pacing_shift: u64,
}

impl Default for BbrConfig {
    fn default() -> BbrConfig {
        BbrConfig {
            high_gain: 739,
            drain_gain: 88,
            cwnd_gain: 512,
            pacing_gain_up: 320,
            pacing_gain_down: 192,
            cycle_rand: 7,
            bw_rtts: 10,
            min_rtt_win: Dur::from_secs(10),
            probe_rtt_mode: Dur::from_millis(200),
            cwnd_min_target: 4,
            full_bw_thresh: 320,
            full_bw_cnt: 3,
            lt_intvl_min_rtts: 4,
            lt_loss_thresh: 50,
            lt_bw_ratio: 32,
            lt_bw_diff: 500,
            lt_bw_max_rtts: 48,
            extra_acked_gain: 256,
            extra_acked_win_rtts: 5,
            ack_epoch_acked_reset_thresh: 1 << 20,
            extra_acked_max_us: 100_000,
            pacing_margin_percent: 1,
            min_tso_rate: 1_200_000,
            pacing_shift: 10,
        }
    }
}

impl TryFrom<&ParamSet> for BbrConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<BbrConfig, ParamError> {
        let r = p.reader("bbr");
        Ok(BbrConfig {
            high_gain: r.u64("bbr_high_gain")?,
            drain_gain: r.u64("bbr_drain_gain")?,
            cwnd_gain: r.u64("bbr_cwnd_gain")?,
            pacing_gain_up: r.u64("bbr_pacing_gain_0")?,
            pacing_gain_down: r.u64("bbr_pacing_gain_1")?,
            cycle_rand: r.u64("bbr_cycle_rand")?,
            bw_rtts: r.u64("bbr_bw_rtts")?,
            min_rtt_win: Dur::from_secs(r.u64("bbr_min_rtt_win_sec")?),
            probe_rtt_mode: Dur::from_millis(r.u64("bbr_probe_rtt_mode_ms")?),
            cwnd_min_target: r.u64("bbr_cwnd_min_target")?,
            full_bw_thresh: r.u64("bbr_full_bw_thresh")?,
            full_bw_cnt: r.u64("bbr_full_bw_cnt")?,
            lt_intvl_min_rtts: r.u64("bbr_lt_intvl_min_rtts")?,
            lt_loss_thresh: r.u64("bbr_lt_loss_thresh")?,
            lt_bw_ratio: r.u64("bbr_lt_bw_ratio")?,
            lt_bw_diff: r.u64("bbr_lt_bw_diff")?,
            lt_bw_max_rtts: r.u64("bbr_lt_bw_max_rtts")?,
            extra_acked_gain: r.u64("bbr_extra_acked_gain")?,
            extra_acked_win_rtts: r.u64("bbr_extra_acked_win_rtts")?,
            ack_epoch_acked_reset_thresh: r.u64("bbr_ack_epoch_acked_reset_thresh")?,
            extra_acked_max_us: r.u64("bbr_extra_acked_max_us")?,
            pacing_margin_percent: r.u64("bbr_pacing_margin_percent")?,
            min_tso_rate: r.u64("bbr_min_tso_rate")?,
            pacing_shift: r.u64("sk_pacing_shift")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = BbrConfig::try_from(p).expect("bbr: parameters resolved against PARAMS");
    Box::new(Bbr::new(&cfg, init))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Linux icsk_ca_state as far as BBR looks at it (TCP_CA_Open < Recovery < Loss).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum CaState {
    Open,
    Recovery,
    Loss,
}

#[derive(Clone, Debug)]
struct Cfg {
    high_gain: u64,
    drain_gain: u64,
    cwnd_gain: u64,
    pacing_gain: [u64; CYCLE_LEN],
    cycle_rand: u64,
    bw_rtts: u64,
    min_rtt_win: Dur,
    probe_rtt_mode: Dur,
    cwnd_min_target: u32,
    full_bw_thresh: u64,
    full_bw_cnt: u32,
    lt_intvl_min_rtts: u32,
    lt_loss_thresh: u64,
    lt_bw_ratio: u64,
    lt_bw_diff: u64,
    lt_bw_max_rtts: u32,
    extra_acked_gain: u64,
    extra_acked_win_rtts: u32,
    ack_epoch_acked_reset_thresh: u32,
    extra_acked_max_us: u64,
    pacing_margin_percent: u64,
    min_tso_rate: u64,
    pacing_shift: u32,
}

impl Cfg {
    /// The typed parameters in the integer widths `tcp_bbr.c` computes with.
    fn from(p: &BbrConfig) -> Cfg {
        let (up, down) = (p.pacing_gain_up, p.pacing_gain_down);
        Cfg {
            high_gain: p.high_gain,
            drain_gain: p.drain_gain,
            cwnd_gain: p.cwnd_gain,
            pacing_gain: [
                up, down, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT,
            ],
            cycle_rand: p.cycle_rand,
            bw_rtts: p.bw_rtts,
            min_rtt_win: p.min_rtt_win,
            probe_rtt_mode: p.probe_rtt_mode,
            cwnd_min_target: p.cwnd_min_target as u32,
            full_bw_thresh: p.full_bw_thresh,
            full_bw_cnt: p.full_bw_cnt as u32,
            lt_intvl_min_rtts: p.lt_intvl_min_rtts as u32,
            lt_loss_thresh: p.lt_loss_thresh,
            lt_bw_ratio: p.lt_bw_ratio,
            lt_bw_diff: p.lt_bw_diff,
            lt_bw_max_rtts: p.lt_bw_max_rtts as u32,
            extra_acked_gain: p.extra_acked_gain,
            extra_acked_win_rtts: p.extra_acked_win_rtts as u32,
            ack_epoch_acked_reset_thresh: p.ack_epoch_acked_reset_thresh as u32,
            extra_acked_max_us: p.extra_acked_max_us,
            pacing_margin_percent: p.pacing_margin_percent,
            min_tso_rate: p.min_tso_rate,
            pacing_shift: p.pacing_shift as u32,
        }
    }
}

/// Linux `struct rate_sample` as BBR reads it (packets, µs).
#[derive(Clone, Copy, Debug, Default)]
struct Rs {
    /// Packets delivered over the sample interval (−1: no valid sample).
    delivered: i64,
    interval_us: i64,
    /// tp->delivered (bytes here) when the acked packet was sent.
    prior_delivered: u64,
    is_app_limited: bool,
    acked_sacked: u32,
    losses: u32,
    rtt_us: Option<u32>,
    prior_in_flight: u32,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    c: Cfg,
    rng: Rng,
    mss: u64,
    // --- struct bbr ---
    min_rtt_us: u32,
    min_rtt_stamp: Time,
    probe_rtt_done_stamp: Option<Time>,
    bw: WindowedMax,
    rtt_cnt: u64,
    /// tp->delivered (bytes) at which the next round starts.
    next_rtt_delivered: u64,
    cycle_mstamp: Time,
    mode: Mode,
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: u64,
    lt_last_delivered: u64,
    lt_last_stamp_ms: u64,
    lt_last_lost: u64,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    cycle_idx: usize,
    has_seen_rtt: bool,
    prior_cwnd: u32,
    full_bw: u64,
    ack_epoch_mstamp: Time,
    extra_acked: [u32; 2],
    ack_epoch_acked: u32,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    // --- the parts of tcp_sock BBR reads or writes ---
    snd_cwnd: u32,
    snd_ssthresh: u32,
    /// sk_pacing_rate, bytes per second.
    pacing_rate: u64,
    srtt_us: Option<u64>,
    /// tp->delivered in bytes (packets = bytes / mss).
    delivered: u64,
    delivered_mstamp: Time,
    /// tp->lost, packets.
    lost: u64,
    lost_bytes: LostBytes,
    packets_in_flight: u32,
    ca_state: CaState,
    /// tp->app_limited: samples of packets sent before `delivered` passes this are
    /// app-limited (set in PROBE_RTT). Stored with the delivered count when it was set.
    app_limited_mark: Option<(u64, u64)>,
    last_ack_app_limited: bool,
}

impl Bbr {
    pub fn new(cfg: &BbrConfig, init: CcInit) -> Bbr {
        let c = Cfg::from(cfg);
        let mss = init.mss.max(1);
        let mut b = Bbr {
            c,
            rng: init.rng,
            mss,
            min_rtt_us: u32::MAX,
            min_rtt_stamp: init.now,
            probe_rtt_done_stamp: None,
            bw: WindowedMax::new(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: Time::ZERO,
            mode: Mode::Startup,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp_ms: 0,
            lt_last_lost: 0,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: init.now,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            snd_cwnd: (init.initial_cwnd / mss).max(1) as u32,
            snd_ssthresh: u32::MAX,
            pacing_rate: 0,
            srtt_us: None,
            delivered: 0,
            delivered_mstamp: init.now,
            lost: 0,
            lost_bytes: LostBytes::default(),
            packets_in_flight: 0,
            ca_state: CaState::Open,
            app_limited_mark: None,
            last_ack_app_limited: false,
        };
        // bbr_init
        b.bw.reset(0, 0);
        b.init_pacing_rate_from_rtt();
        b.reset_lt_bw_sampling();
        b.reset_startup_mode();
        b
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    fn delivered_pkts(&self) -> u64 {
        self.delivered / self.mss
    }

    fn max_bw(&self) -> u64 {
        self.bw.get().unwrap_or(0)
    }

    /// bbr_bw: the estimated bottleneck bandwidth, packets/µs << 24.
    fn bbr_bw(&self) -> u64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// bbr_rate_bytes_per_sec: bw × mss × gain, less the pacing margin, in bytes/s.
    fn rate_bytes_per_sec(&self, bw: u64, gain: u64) -> u64 {
        let mut rate = bw as u128 * self.mss as u128;
        rate *= gain as u128;
        rate >>= BBR_SCALE;
        rate *= (1_000_000 / 100 * (100 - self.c.pacing_margin_percent)) as u128;
        (rate >> BW_SCALE) as u64
    }

    fn init_pacing_rate_from_rtt(&mut self) {
        let rtt_us = match self.srtt_us {
            Some(s) => {
                self.has_seen_rtt = true;
                s.max(1)
            }
            None => 1000, // USEC_PER_MSEC: nominal default RTT
        };
        let bw = self.snd_cwnd as u64 * BW_UNIT / rtt_us;
        self.pacing_rate = self.rate_bytes_per_sec(bw, self.c.high_gain);
    }

    fn set_pacing_rate(&mut self, bw: u64, gain: u64) {
        let rate = self.rate_bytes_per_sec(bw, gain);
        if !self.has_seen_rtt && self.srtt_us.is_some() {
            self.init_pacing_rate_from_rtt();
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn min_tso_segs(&self) -> u64 {
        if self.pacing_rate < self.c.min_tso_rate >> 3 {
            1
        } else {
            2
        }
    }

    fn tso_segs_goal(&self) -> u64 {
        let bytes = (self.pacing_rate >> self.c.pacing_shift).min(GSO_MAX_BYTES);
        (bytes / self.mss).max(self.min_tso_segs()).min(0x7F)
    }

    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.snd_cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.snd_cwnd);
        }
    }

    /// bbr_bdp: packets needed to fill bw × min_rtt, scaled by gain, rounded up.
    fn bdp(&self, bw: u64, gain: u64) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return TCP_INIT_CWND;
        }
        let w = bw as u128 * self.min_rtt_us as u128;
        (((w * gain as u128) >> BBR_SCALE).div_ceil(BW_UNIT as u128)) as u32
    }

    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal() as u32;
        cwnd = (cwnd + 1) & !1u32;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    fn inflight(&self, bw: u64, gain: u64) -> u32 {
        let i = self.bdp(bw, gain);
        self.quantization_budget(i)
    }

    fn ack_aggregation_cwnd(&self) -> u32 {
        if self.c.extra_acked_gain == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr =
            (self.bbr_bw() as u128 * self.c.extra_acked_max_us as u128 / BW_UNIT as u128) as u64;
        let aggr = (self.c.extra_acked_gain * self.extra_acked() as u64) >> BBR_SCALE;
        aggr.min(max_aggr) as u32
    }

    fn set_cwnd_to_recover_or_restore(&mut self, rs: &Rs, acked: u32) -> (bool, u32) {
        let prev = self.prev_ca_state;
        let state = self.ca_state;
        let mut cwnd = self.snd_cwnd;
        // An ACK for P pkts should release at most 2*P packets: deduct the lost ones.
        if rs.losses > 0 {
            cwnd = (cwnd as i64 - rs.losses as i64).max(1) as u32;
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            // Starting the first round of Recovery: packet conservation.
            self.packet_conservation = true;
            self.next_rtt_delivered = self.delivered;
            cwnd = self.packets_in_flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            // Exiting loss recovery: restore the cwnd saved before it.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (true, cwnd.max(self.packets_in_flight + acked));
        }
        (false, cwnd)
    }

    fn set_cwnd(&mut self, rs: &Rs, acked: u32, bw: u64, gain: u64) {
        let mut cwnd = self.snd_cwnd;
        if acked > 0 {
            let (conserving, c) = self.set_cwnd_to_recover_or_restore(rs, acked);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || self.delivered_pkts() < TCP_INIT_CWND as u64 {
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.c.cwnd_min_target);
            }
        }
        self.snd_cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            self.snd_cwnd = self.snd_cwnd.min(self.c.cwnd_min_target);
        }
    }

    fn is_next_cycle_phase(&self, rs: &Rs) -> bool {
        let is_full_length =
            self.delivered_mstamp.since(self.cycle_mstamp).micros() > self.min_rtt_us as u64;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        // No EDT in our datapaths: packets in the network = prior_in_flight (v4.9).
        let inflight = rs.prior_in_flight;
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = self.delivered_mstamp;
    }

    fn update_cycle_phase(&mut self, rs: &Rs) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase();
        }
    }

    fn reset_startup_mode(&mut self) {
        self.mode = Mode::Startup;
    }

    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.rng.below(self.c.cycle_rand) as usize;
        self.advance_cycle_phase();
    }

    fn reset_mode(&mut self) {
        if !self.full_bw_reached {
            self.reset_startup_mode();
        } else {
            self.reset_probe_bw_mode();
        }
    }

    fn reset_lt_bw_sampling_interval(&mut self) {
        self.lt_last_stamp_ms = self.delivered_mstamp.nanos() / 1_000_000;
        self.lt_last_delivered = self.delivered_pkts();
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt_bw_sampling(&mut self) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval();
    }

    fn lt_bw_interval_done(&mut self, bw: u64) {
        if self.lt_bw != 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff * BBR_UNIT <= self.c.lt_bw_ratio * self.lt_bw
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= self.c.lt_bw_diff
            {
                // All criteria met: we are policed. Average the two intervals.
                self.lt_bw = (bw + self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval();
    }

    fn lt_bw_sampling(&mut self, rs: &Rs) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= self.c.lt_bw_max_rtts {
                    self.reset_lt_bw_sampling();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Wait for the first loss, so the policer's tokens are exhausted.
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval();
            self.lt_is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_lt_bw_sampling();
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < self.c.lt_intvl_min_rtts {
            return;
        }
        if self.lt_rtt_cnt > 4 * self.c.lt_intvl_min_rtts {
            self.reset_lt_bw_sampling();
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = self.lost - self.lt_last_lost;
        let delivered = self.delivered_pkts() - self.lt_last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < self.c.lt_loss_thresh * delivered {
            return;
        }
        let t_ms =
            (self.delivered_mstamp.nanos() / 1_000_000) as i64 - self.lt_last_stamp_ms as i64;
        if t_ms < 1 {
            return;
        }
        if t_ms as u64 >= u32::MAX as u64 / 1000 {
            self.reset_lt_bw_sampling();
            return;
        }
        let t_us = t_ms as u64 * 1000;
        let bw = delivered * BW_UNIT / t_us;
        self.lt_bw_interval_done(bw);
    }

    fn update_bw(&mut self, rs: &Rs) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs);
        let bw = rs.delivered as u64 * BW_UNIT / rs.interval_us as u64;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(self.rtt_cnt, bw, self.c.bw_rtts);
        }
    }

    fn update_ack_aggregation(&mut self, rs: &Rs) {
        if self.c.extra_acked_gain == 0
            || rs.acked_sacked == 0
            || rs.delivered < 0
            || rs.interval_us <= 0
        {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= self.c.extra_acked_win_rtts {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = self.delivered_mstamp.since(self.ack_epoch_mstamp).micros();
        let mut expected_acked =
            (self.bbr_bw() as u128 * epoch_us as u128 / BW_UNIT as u128) as u32;
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked + rs.acked_sacked >= self.c.ack_epoch_acked_reset_thresh
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = self.delivered_mstamp;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked - expected_acked).min(self.snd_cwnd);
        if extra > self.extra_acked[self.extra_acked_win_idx] {
            self.extra_acked[self.extra_acked_win_idx] = extra;
        }
    }

    fn check_full_bw_reached(&mut self, rs: &Rs) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = (self.full_bw * self.c.full_bw_thresh) >> BBR_SCALE;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.c.full_bw_cnt;
    }

    fn check_drain(&mut self) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.snd_ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain
            && self.packets_in_flight <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode();
        }
    }

    fn check_probe_rtt_done(&mut self, now: Time) {
        match self.probe_rtt_done_stamp {
            Some(done) if now > done => {}
            _ => return,
        }
        self.min_rtt_stamp = now;
        self.snd_cwnd = self.snd_cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    fn update_min_rtt(&mut self, now: Time, rs: &Rs) {
        let filter_expired = now > self.min_rtt_stamp + self.c.min_rtt_win;
        if let Some(rtt_us) = rs.rtt_us {
            // No delayed-ACK flag in our interface: is_ack_delayed is taken as false.
            if rtt_us < self.min_rtt_us || filter_expired {
                self.min_rtt_us = rtt_us;
                self.min_rtt_stamp = now;
            }
        }
        if self.c.probe_rtt_mode > Dur::ZERO
            && filter_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore low-rate samples during this mode (tp->app_limited).
            let mark = (self.delivered + self.packets_in_flight as u64 * self.mss).max(1);
            let since = self.app_limited_mark.map_or(self.delivered, |m| m.1);
            self.app_limited_mark = Some((mark, since));
            if self.probe_rtt_done_stamp.is_none()
                && self.packets_in_flight <= self.c.cwnd_min_target
            {
                self.probe_rtt_done_stamp = Some(now + self.c.probe_rtt_mode);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(now);
                }
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        match self.mode {
            Mode::Startup => {
                self.pacing_gain = self.c.high_gain;
                self.cwnd_gain = self.c.high_gain;
            }
            Mode::Drain => {
                self.pacing_gain = self.c.drain_gain;
                self.cwnd_gain = self.c.high_gain;
            }
            Mode::ProbeBw => {
                self.pacing_gain = if self.lt_use_bw {
                    BBR_UNIT
                } else {
                    self.c.pacing_gain[self.cycle_idx]
                };
                self.cwnd_gain = self.c.cwnd_gain;
            }
            Mode::ProbeRtt => {
                self.pacing_gain = BBR_UNIT;
                self.cwnd_gain = BBR_UNIT;
            }
        }
    }

    /// bbr_main for one ACK.
    fn main(&mut self, now: Time, rs: &Rs) {
        self.update_bw(rs);
        self.update_ack_aggregation(rs);
        self.update_cycle_phase(rs);
        self.check_full_bw_reached(rs);
        self.check_drain();
        self.update_min_rtt(now, rs);
        self.update_gains();
        let bw = self.bbr_bw();
        self.set_pacing_rate(bw, self.pacing_gain);
        self.set_cwnd(rs, rs.acked_sacked, bw, self.cwnd_gain);
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// `bbr_init`: `bbr->min_rtt_us = tcp_min_rtt(tp); bbr->min_rtt_stamp =
    /// tcp_jiffies32;`: the filter starts from the handshake's RTT, stamped when the
    /// connection is established, so the first PROBE_RTT comes `min_rtt_win` after the
    /// handshake unless a data sample is lower (a data segment, with its longer
    /// serialisation, rarely is). Started at the first data ACK instead, it moved with the
    /// lower samples of slow start and PROBE_RTT came 0.1 s (50 ms path) to 0.7 s (350 ms)
    /// later than the kernel's (docs/validation.md#bbr-handshake-min-rtt;
    /// docs/deviations/bbr.md#bbr-min-rtt-init for the datapaths that do not call it).
    fn on_handshake_rtt(&mut self, now: Time, rtt: Dur) {
        self.min_rtt_us = rtt.micros().min(u32::MAX as u64 - 1) as u32;
        self.min_rtt_stamp = now;
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        let mss = self.mss;
        if ack.bytes_acked > 0 {
            self.delivered_mstamp = now;
        }
        self.delivered = ack.delivered;
        self.packets_in_flight = ack.bytes_in_flight.div_ceil(mss) as u32;
        let lost_total = self.lost_bytes.lost(ack) / mss;
        let losses = lost_total.saturating_sub(self.lost) as u32;
        self.lost = self.lost.max(lost_total);
        if let Some(r) = ack.rtt {
            // RFC 6298 / tcp_rtt_estimator: srtt = 7/8 srtt + 1/8 rtt.
            let r_us = r.micros().max(1);
            self.srtt_us = Some(match self.srtt_us {
                None => r_us,
                Some(s) => (7 * s + r_us) / 8,
            });
        }
        if self.app_limited_mark.is_some_and(|m| self.delivered > m.0) {
            self.app_limited_mark = None;
        }
        self.ca_state = if self.ca_state == CaState::Loss {
            CaState::Loss
        } else if ack.in_recovery {
            CaState::Recovery
        } else {
            CaState::Open
        };
        let mut rs = Rs {
            delivered: -1,
            interval_us: -1,
            prior_delivered: 0,
            is_app_limited: false,
            acked_sacked: ack.bytes_acked.div_ceil(mss) as u32,
            losses,
            rtt_us: ack.rtt.map(|r| r.micros().min(u32::MAX as u64 - 1) as u32),
            prior_in_flight: ack.prior_in_flight.div_ceil(mss) as u32,
        };
        if let Some(s) = ack.rate {
            rs.delivered = (s.delivered / mss) as i64;
            rs.interval_us = s.interval.micros() as i64;
            rs.prior_delivered = ack.delivered.saturating_sub(s.delivered);
            // Packets sent while tp->app_limited was set (PROBE_RTT) are app-limited.
            let marked = self.app_limited_mark.is_some_and(|(end, since)| {
                rs.prior_delivered >= since && rs.prior_delivered <= end
            });
            rs.is_app_limited = s.app_limited || marked;
        }
        self.last_ack_app_limited = ack.app_limited;
        self.main(now, &rs);
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        // tcp_enter_recovery calls bbr_ssthresh, which saves cwnd and leaves ssthresh.
        if ev.kind == CongestionKind::Loss {
            self.save_cwnd();
        }
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        // tcp_enter_loss: bbr_ssthresh (save cwnd), cwnd = in_flight + 1 (all presumed
        // lost), then bbr_set_state(TCP_CA_Loss).
        self.save_cwnd();
        self.snd_cwnd = 1;
        self.ca_state = CaState::Loss;
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        let rs = Rs {
            losses: 1,
            ..Rs::default()
        };
        self.lt_bw_sampling(&rs);
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        self.ca_state = CaState::Open;
    }

    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        self.lost_bytes.on_sent(sent.bytes);
        // CA_EVENT_TX_START: sending restarts from idle while app-limited.
        if sent.bytes_in_flight == sent.bytes && self.last_ack_app_limited && !sent.retransmission {
            self.idle_restart = true;
            self.ack_epoch_mstamp = now;
            self.ack_epoch_acked = 0;
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(self.bbr_bw(), BBR_UNIT);
            } else if self.mode == Mode::ProbeRtt {
                self.check_probe_rtt_done(now);
            }
        }
    }

    fn cwnd(&self) -> u64 {
        self.snd_cwnd as u64 * self.mss
    }

    fn ssthresh(&self) -> u64 {
        if self.snd_ssthresh == u32::MAX {
            u64::MAX
        } else {
            self.snd_ssthresh as u64 * self.mss
        }
    }

    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate(self.pacing_rate * 8))
    }

    /// sk_pacing_rate is in payload bytes (bbr_rate_bytes_per_sec: bw × mss_cache), and
    /// Linux's TCP pacing spaces skbs by their payload (tcp_update_skb_after_send).
    fn paces_payload(&self) -> bool {
        true
    }

    /// tcp_bbr registers `.min_tso_segs = bbr_min_tso_segs`: 1 below 1.2 Mbit/s, else 2.
    /// The datapath's `tcp_tso_autosize` takes it from here, so that the bursts it sends
    /// are `bbr_tso_segs_goal` (deviations/bbr.md#bbr-tso-bursts,
    /// deviations/simulator.md#sim-paced-bursts).
    fn min_tso_segs(&self) -> u32 {
        Bbr::min_tso_segs(self) as u32
    }

    /// tcp_bbr registers `.cong_control = bbr_main`: it sets cwnd on every ACK, in
    /// recovery by its own packet conservation (bbr_set_cwnd_to_recover_or_restore), and
    /// Linux's tcp_cong_control skips PRR for it.
    fn cong_control(&self) -> bool {
        true
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        let bw_bps = self.rate_bytes_per_sec(self.bbr_bw(), BBR_UNIT) as f64 * 8.0
            / (1.0 - self.c.pacing_margin_percent as f64 / 100.0);
        out.push(("mode", self.mode as u8 as f64));
        out.push(("bw_mbps", bw_bps / 1e6));
        out.push((
            "min_rtt_ms",
            if self.min_rtt_us == u32::MAX {
                0.0
            } else {
                self.min_rtt_us as f64 / 1e3
            },
        ));
        out.push(("pacing_gain", self.pacing_gain as f64 / BBR_UNIT as f64));
        out.push(("cwnd_gain", self.cwnd_gain as f64 / BBR_UNIT as f64));
        out.push(("cycle_idx", self.cycle_idx as f64));
        out.push(("lt_use_bw", if self.lt_use_bw { 1.0 } else { 0.0 }));
        out.push(("round", self.rtt_cnt as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            BbrConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            BbrConfig::default()
        );
    }

    fn bbr() -> Bbr {
        Bbr::new(
            &BbrConfig::default(),
            CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(1),
            },
        )
    }

    /// One ACK of `pkts` packets, delivery-rate sample of `rate_pkts` packets over
    /// `interval_us`, RTT `rtt_us`, `inflight` packets after the ACK.
    struct A {
        t_us: u64,
        pkts: u64,
        delivered_total: u64,
        rate_pkts: u64,
        interval_us: u64,
        rtt_us: u64,
        inflight: u64,
        prior_inflight: u64,
    }

    fn feed(b: &mut Bbr, a: &A) {
        // Keep the loss inference at zero: sent = delivered + in flight.
        let sent_needed = (a.delivered_total + a.inflight) * MSS;
        if sent_needed > b.lost_bytes.sent() {
            b.lost_bytes.on_sent(sent_needed - b.lost_bytes.sent());
        }
        let ack = AckSample {
            bytes_acked: a.pkts * MSS,
            rtt: Some(Dur::from_micros(a.rtt_us)),
            delivered: a.delivered_total * MSS,
            rate: Some(RateSample {
                rate: Rate::from_bytes_over(a.rate_pkts * MSS, Dur::from_micros(a.interval_us)),
                interval: Dur::from_micros(a.interval_us),
                delivered: a.rate_pkts * MSS,
                app_limited: false,
            }),
            prior_in_flight: a.prior_inflight * MSS,
            bytes_in_flight: a.inflight * MSS,
            ..AckSample::empty(MSS)
        };
        b.on_ack(Time(a.t_us * 1000), &ack);
    }

    #[test]
    fn initial_pacing_rate_is_high_gain_times_cwnd_per_ms() {
        let b = bbr();
        // bbr_init_pacing_rate_from_rtt without an RTT: rtt_us = 1000,
        // bw = 10 · 2^24 / 1000 = 167,772 (floor of 167,772.16);
        // bbr_rate_bytes_per_sec: 167,772 · 1000 (mss) = 167,772,000; · 739 (high gain)
        // = 123,983,508,000; >> 8 = 484,310,578; · 990,000 (1 % margin) =
        // 479,467,472,220,000; >> 24 = 28,578,488 bytes/s (≈ 228.6 Mbit/s).
        let expect = 28_578_488;
        assert_eq!(b.pacing_rate, expect);
        assert_eq!(b.pacing_rate(), Some(Rate(expect * 8)));
        assert_eq!(
            (b.mode(), b.cwnd(), b.pacing_gain),
            (Mode::Startup, 10 * MSS, 0)
        );
    }

    /// `bbr_init` starts the min-RTT filter from the handshake's RTT, stamped at the
    /// connection's start: a higher data sample leaves both alone, a lower one replaces
    /// them, and the filter expires `min_rtt_win` (10 s) after the handshake.
    #[test]
    fn min_rtt_filter_starts_from_the_handshake_rtt() {
        let mut b = bbr();
        assert_eq!(b.min_rtt_us, u32::MAX, "no sample before the handshake's");
        b.on_handshake_rtt(Time(1_000_000), Dur::from_micros(50_120));
        assert_eq!((b.min_rtt_us, b.min_rtt_stamp), (50_120, Time(1_000_000)));
        let sample = |us| Rs {
            rtt_us: Some(us),
            ..Rs::default()
        };
        // A data segment's RTT, 1.5 ms of serialisation more: no change.
        b.update_min_rtt(Time(2_000_000_000), &sample(51_600));
        assert_eq!((b.min_rtt_us, b.min_rtt_stamp), (50_120, Time(1_000_000)));
        // Just after 10 s from the handshake the filter has expired: the next sample
        // takes over and PROBE_RTT begins.
        b.update_min_rtt(Time(10_001_000_001), &sample(51_600));
        assert_eq!(
            (b.min_rtt_us, b.min_rtt_stamp),
            (51_600, Time(10_001_000_001))
        );
        assert_eq!(b.mode, Mode::ProbeRtt);
        // A lower sample replaces it at once.
        let mut b = bbr();
        b.on_handshake_rtt(Time(0), Dur::from_micros(50_120));
        b.update_min_rtt(Time(3_000_000_000), &sample(50_000));
        assert_eq!(
            (b.min_rtt_us, b.min_rtt_stamp),
            (50_000, Time(3_000_000_000))
        );
    }

    #[test]
    fn bdp_and_quantization_budget() {
        let mut b = bbr();
        b.min_rtt_us = 40_000;
        b.pacing_rate = 2_000_000; // 16 Mbit/s in bytes/s
                                   // 16 Mbit/s = 2 packets (1000 B) per ms = 0.002 pkt/µs → bw = 0.002 · 2^24 = 33554 (floor).
        let bw = 2 * BW_UNIT / 1000;
        assert_eq!(bw, 33_554);
        // bdp(gain 1) = ceil(33554 · 40000 · 256 >> 8 / 2^24) = ceil(1,342,160,000 / 16,777,216)
        // = ceil(79.999) = 80 packets.
        assert_eq!(b.bdp(bw, BBR_UNIT), 80);
        // gain 2: ceil(159.996) = 160.
        assert_eq!(b.bdp(bw, 512), 160);
        // TSO goal: 2,000,000 >> 10 = 1953 bytes → 1 segment, but min_tso_segs = 2
        // (2e6 ≥ 1.2e6/8 = 150,000): 3·2 = 6 more, then rounded up to even: 86.
        assert_eq!(b.tso_segs_goal(), 2);
        assert_eq!(b.inflight(bw, BBR_UNIT), 86);
        // In PROBE_BW phase 0 two more: 88.
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 0;
        assert_eq!(b.inflight(bw, BBR_UNIT), 88);
        // Without an RTT sample: TCP_INIT_CWND.
        b.min_rtt_us = u32::MAX;
        assert_eq!(b.bdp(bw, BBR_UNIT), 10);
    }

    #[test]
    fn tso_segs_goal_is_linux_tso_autosize_with_bbr_min_tso_segs() {
        // tcp_tso_autosize: max(sk_pacing_rate >> 10 / mss, bbr_min_tso_segs) (MSS 1000
        // here); the datapath takes bbr_min_tso_segs from the min_tso_segs hook.
        let mut b = bbr();
        for (rate, segs, min) in [
            (100_000, 1, 1),      // 0.8 Mbit/s: below bbr_min_tso_rate (150,000 B/s)
            (150_000, 2, 2),      // 1.2 Mbit/s: 146 B per ms, bbr_min_tso_segs 2
            (1_000_000, 2, 2),    // 8 Mbit/s: 976 B per ms, still 2
            (12_500_000, 12, 2),  // 100 Mbit/s: 12,207 B per ms
            (500_000_000, 65, 2), // 4 Gbit/s: capped at GSO's 65,215 B
        ] {
            b.pacing_rate = rate;
            assert_eq!(b.tso_segs_goal(), segs, "pacing rate {rate} B/s");
            assert_eq!(
                crate::CongestionControl::min_tso_segs(&b),
                min,
                "pacing rate {rate} B/s"
            );
        }
    }

    #[test]
    fn startup_finds_full_pipe_after_three_flat_rounds_then_drains_into_probe_bw() {
        let mut b = bbr();
        let mut delivered = 0;
        let mut t = 0;
        // Round r: bw samples of 2 packets per ms (constant), one ACK per round ends it.
        // Each ACK's prior_delivered = delivered − rate_pkts ≥ next_rtt_delivered starts a round.
        let mut rounds = Vec::new();
        for _ in 0..5 {
            t += 40_000;
            delivered += 80;
            feed(
                &mut b,
                &A {
                    t_us: t,
                    pkts: 80,
                    delivered_total: delivered,
                    rate_pkts: 80,
                    interval_us: 40_000,
                    rtt_us: 40_000,
                    inflight: 200,
                    prior_inflight: 280,
                },
            );
            rounds.push((b.rtt_cnt, b.full_bw_cnt, b.full_bw_reached, b.mode));
        }
        // Round 1 sets full_bw = 33554 (≥ 0·5/4); rounds 2, 3, 4 see no 25 % growth:
        // full_bw_cnt 1, 2, 3 → full pipe at round 4 → DRAIN (in flight 200 > 86).
        assert_eq!(rounds[0], (1, 0, false, Mode::Startup));
        assert_eq!(rounds[1], (2, 1, false, Mode::Startup));
        assert_eq!(rounds[2], (3, 2, false, Mode::Startup));
        assert_eq!(rounds[3], (4, 3, true, Mode::Drain));
        // ssthresh = inflight(bw, 1): bdp 80 packets (see the bdp test, same bw and
        // min_rtt) + 3 × TSO goal, where the STARTUP pacing rate is
        // 33554 · 1000 · 739 >> 8 = 96,860,960; · 990,000 >> 24 = 5,715,629 bytes/s;
        // >> 10 = 5581 bytes = 5 segments → 80 + 15 = 95 → even: 96 packets.
        assert_eq!(b.ssthresh(), 96 * MSS);
        assert_eq!(b.pacing_gain, 88);
        // In flight drops to 80 ≤ inflight(bw,1): PROBE_BW at a random phase ≠ 1.
        t += 1000;
        delivered += 1;
        feed(
            &mut b,
            &A {
                t_us: t,
                pkts: 1,
                delivered_total: delivered,
                rate_pkts: 80,
                interval_us: 40_000,
                rtt_us: 40_000,
                inflight: 80,
                prior_inflight: 81,
            },
        );
        assert_eq!(b.mode(), Mode::ProbeBw);
        // cycle_idx = 7 − below(7) + 1 (mod 8): never 1 (the 3/4 phase).
        assert_ne!(b.cycle_idx, 1);
        let mut r = Rng::new(1);
        let expect = (CYCLE_LEN - 1 - r.below(7) as usize + 1) & 7;
        assert_eq!(b.cycle_idx, expect);
        assert_eq!(b.pacing_gain, b.c.pacing_gain[expect]);
        // Full bw reached: cwnd = min(cwnd + acked, target) where target =
        // quantization_budget(bdp(bw, 2) + aggregation allowance).
        assert!(
            b.cwnd()
                <= (b.quantization_budget(b.bdp(b.max_bw(), 512) + b.ack_aggregation_cwnd())
                    as u64)
                    * MSS
        );
    }

    #[test]
    fn gain_cycle_advances_on_time_and_inflight() {
        let mut b = bbr();
        b.full_bw_reached = true;
        b.min_rtt_us = 40_000;
        b.min_rtt_stamp = Time(0);
        b.bw.reset(0, 33_554);
        b.pacing_rate = 2_000_000;
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 0;
        b.pacing_gain = 320;
        b.cycle_mstamp = Time(0);
        b.delivered_mstamp = Time(30_000_000);
        // Phase 0 (5/4): full length needs > min_rtt (30 ms is not) — stays.
        let rs = Rs {
            prior_in_flight: 200,
            ..Rs::default()
        };
        assert!(!b.is_next_cycle_phase(&rs));
        // 41 ms elapsed but inflight 90 < inflight(bw, 5/4) = ceil(1,677,700,000 / 2^24 = 99.9987) = 100, + 6 → 106,
        // +2 for phase 0 → 108: stays.
        b.delivered_mstamp = Time(41_000_000);
        assert_eq!(b.inflight(33_554, 320), 108);
        let rs = Rs {
            prior_in_flight: 90,
            ..Rs::default()
        };
        assert!(!b.is_next_cycle_phase(&rs));
        // ... unless there was a loss.
        let rs = Rs {
            prior_in_flight: 90,
            losses: 1,
            ..Rs::default()
        };
        assert!(b.is_next_cycle_phase(&rs));
        // In-flight reaches 108: advance to phase 1 (3/4), cycle_mstamp = 41 ms.
        let rs = Rs {
            prior_in_flight: 108,
            ..Rs::default()
        };
        b.update_cycle_phase(&rs);
        assert_eq!((b.cycle_idx, b.cycle_mstamp), (1, Time(41_000_000)));
        b.update_gains();
        assert_eq!(b.pacing_gain, 192);
        // Phase 1 ends early once in flight ≤ inflight(bw, 1) = 80 + 6 = 86.
        b.delivered_mstamp = Time(50_000_000);
        assert!(!b.is_next_cycle_phase(&Rs {
            prior_in_flight: 87,
            ..Rs::default()
        }));
        assert!(b.is_next_cycle_phase(&Rs {
            prior_in_flight: 86,
            ..Rs::default()
        }));
    }

    #[test]
    fn probe_rtt_after_ten_seconds_holds_four_packets_for_200_ms_and_a_round() {
        let mut b = bbr();
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 2;
        b.min_rtt_us = 40_000;
        b.min_rtt_stamp = Time(0);
        b.snd_cwnd = 100;
        b.bw.reset(0, 33_554);
        let mut delivered = 1000;
        // At 10.001 s a 50 ms RTT sample: the filter expired, so min_rtt = 50 ms and
        // PROBE_RTT starts with prior_cwnd = 100.
        feed(
            &mut b,
            &A {
                t_us: 10_001_000,
                pkts: 1,
                delivered_total: delivered,
                rate_pkts: 80,
                interval_us: 40_000,
                rtt_us: 50_000,
                inflight: 90,
                prior_inflight: 91,
            },
        );
        assert_eq!(
            (b.mode(), b.min_rtt_us, b.prior_cwnd, b.cwnd()),
            (Mode::ProbeRtt, 50_000, 100, 4 * MSS)
        );
        assert_eq!(b.pacing_gain, BBR_UNIT);
        // In flight falls to 4 at 10.1 s: done stamp = 10.3 s, a new round starts now.
        delivered += 86;
        feed(
            &mut b,
            &A {
                t_us: 10_100_000,
                pkts: 1,
                delivered_total: delivered,
                rate_pkts: 4,
                interval_us: 40_000,
                rtt_us: 50_000,
                inflight: 4,
                prior_inflight: 5,
            },
        );
        assert_eq!(b.probe_rtt_done_stamp, Some(Time(10_300_000_000)));
        assert_eq!(b.next_rtt_delivered, delivered * MSS);
        // Samples of packets sent now are app-limited (tp->app_limited).
        assert!(b.app_limited_mark.is_some());
        // 10.2 s: round done (prior_delivered ≥ next_rtt_delivered) but not 200 ms yet.
        delivered += 4;
        feed(
            &mut b,
            &A {
                t_us: 10_200_000,
                pkts: 4,
                delivered_total: delivered,
                rate_pkts: 4,
                interval_us: 50_000,
                rtt_us: 40_000,
                inflight: 4,
                prior_inflight: 8,
            },
        );
        assert!(b.probe_rtt_round_done);
        assert_eq!(b.mode(), Mode::ProbeRtt);
        // 10.301 s: both done: min_rtt_stamp = now, cwnd restored to 100 (then capped by
        // the PROBE_BW target), back to PROBE_BW.
        delivered += 4;
        feed(
            &mut b,
            &A {
                t_us: 10_301_000,
                pkts: 4,
                delivered_total: delivered,
                rate_pkts: 4,
                interval_us: 50_000,
                rtt_us: 40_000,
                inflight: 4,
                prior_inflight: 8,
            },
        );
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert_eq!(b.min_rtt_stamp, Time(10_301_000_000));
        // 40 ms RTT was a new minimum on the previous ACK.
        assert_eq!(b.min_rtt_us, 40_000);
    }

    #[test]
    fn lt_bw_detects_a_policer_from_two_lossy_intervals() {
        let mut b = bbr();
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 2;
        b.min_rtt_us = 40_000;
        b.min_rtt_stamp = Time(0);
        // Direct calls of bbr_lt_bw_sampling with hand-set tp state (packets).
        b.delivered = 1000 * MSS;
        b.delivered_mstamp = Time(1_000_000_000);
        b.lost = 0;
        // First loss starts sampling: interval starts at 1000 ms, delivered 1000, lost 0.
        b.lt_bw_sampling(&Rs {
            losses: 1,
            ..Rs::default()
        });
        assert!(b.lt_is_sampling);
        assert_eq!(
            (
                b.lt_last_stamp_ms,
                b.lt_last_delivered,
                b.lt_last_lost,
                b.lt_rtt_cnt
            ),
            (1000, 1000, 0, 0)
        );
        // Four rounds later (lt_intvl_min_rtts): 200 delivered, 50 lost in 100 ms.
        // 50·256 = 12800 ≥ 50·200 = 10000 → interval done:
        // bw = 200 · 2^24 / 100,000 µs = 33554 (floor of 33554.432).
        b.round_start = true;
        for _ in 0..3 {
            b.lt_bw_sampling(&Rs::default());
        }
        assert_eq!(b.lt_rtt_cnt, 3);
        b.delivered = 1200 * MSS;
        b.lost = 50;
        b.delivered_mstamp = Time(1_100_000_000);
        b.lt_bw_sampling(&Rs {
            losses: 1,
            ..Rs::default()
        });
        assert_eq!((b.lt_bw, b.lt_use_bw), (33_554, false));
        assert_eq!(
            (b.lt_last_stamp_ms, b.lt_last_delivered, b.lt_last_lost),
            (1100, 1200, 50)
        );
        // Second interval: 210 delivered, 60 lost in 100 ms: bw = 210·2^24/1e5 = 35232
        // (floor of 35232.65); diff = 1678; 1678·256 = 429,568 ≤ 32·33554 = 1,073,728
        // → policed: lt_bw = (35232 + 33554) / 2 = 34393.
        for _ in 0..3 {
            b.lt_bw_sampling(&Rs::default());
        }
        b.delivered = 1410 * MSS;
        b.lost = 110;
        b.delivered_mstamp = Time(1_200_000_000);
        b.lt_bw_sampling(&Rs {
            losses: 1,
            ..Rs::default()
        });
        assert_eq!(
            (b.lt_bw, b.lt_use_bw, b.pacing_gain),
            (34_393, true, BBR_UNIT)
        );
        assert_eq!(b.bbr_bw(), 34_393);
        // 48 rounds later in PROBE_BW the policer estimate is dropped.
        for _ in 0..47 {
            b.lt_bw_sampling(&Rs::default());
        }
        assert!(b.lt_use_bw);
        b.lt_bw_sampling(&Rs::default());
        assert!(!b.lt_use_bw && b.lt_bw == 0);
    }

    #[test]
    fn recovery_conserves_packets_then_restores_cwnd() {
        let mut b = bbr();
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 2;
        b.min_rtt_us = 40_000;
        b.min_rtt_stamp = Time(0);
        b.bw.reset(0, 33_554);
        b.snd_cwnd = 90;
        b.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 90 * MSS,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!(b.prior_cwnd, 90);
        // First ACK in recovery: 3 lost (inferred: sent 100, in flight 50, delivered 47),
        // 2 acked, 50 in flight → conservation: cwnd = in_flight + acked = 52.
        b.lost_bytes.on_sent(100 * MSS);
        let ack = AckSample {
            bytes_acked: 2 * MSS,
            delivered: 47 * MSS,
            bytes_in_flight: 50 * MSS,
            prior_in_flight: 55 * MSS,
            in_recovery: true,
            rtt: Some(Dur::from_millis(45)),
            ..AckSample::empty(MSS)
        };
        b.on_ack(Time(1_000_000), &ack);
        assert_eq!(b.lost, 3);
        assert_eq!(b.cwnd(), 52 * MSS);
        assert!(b.packet_conservation);
        // Recovery ends: cwnd = max(cwnd − losses, prior_cwnd) = 90, then the normal
        // min(cwnd + acked, target) with target = bdp(·,2)=160 + budget ≥ 90.
        b.on_recovery_exit(Time(2_000_000));
        let ack = AckSample {
            bytes_acked: MSS,
            delivered: 48 * MSS,
            bytes_in_flight: 49 * MSS,
            prior_in_flight: 50 * MSS,
            rtt: Some(Dur::from_millis(45)),
            ..AckSample::empty(MSS)
        };
        b.on_ack(Time(2_000_000), &ack);
        assert_eq!(b.cwnd(), 91 * MSS);
        // RTO: cwnd 1, state Loss.
        b.on_rto(
            Time(3_000_000),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((b.cwnd(), b.prior_cwnd), (MSS, 91));
    }
}
