//! TCP-LP (Kuzmanovic & Knightly), as Linux `net/ipv4/tcp_lp.c`, which Ong 2020 ran
//! unchanged on Linux 4.4.15 (Ong 2020 §2.2.3, §3.1, §3.6). One-way delay from TCP
//! timestamps is smoothed (EWMA 7/8); when the smoothed OWD reaches
//! `owd_min + 15 %·(owd_max - owd_min)` it is an early congestion indication: cwnd is
//! halved, or set to one packet if it happens within the inference period `3·RTT` after
//! the previous one; owd_min/owd_max are then reset to sowd/2·sowd. No growth within the
//! inference period; otherwise Reno (slow start, AI, halving on loss).
//!
//! Two sources for the OWD (`owd_clock`):
//! - `linux-4.4` (default): the module's own computation, bit for bit. The datapath's
//!   timestamps are turned back into the two hosts' jiffy TCP timestamp clocks (TSecr =
//!   now − RTT on the sender, TSval = TSecr + `ack.owd` on the receiver), and the module
//!   estimates the remote HZ, computes `tsval·(1000/remote_hz) − tsecr·(1000/HZ)` and
//!   keeps every `u32` wrap-around and truncation. The OWD is "relative": it includes the
//!   difference between the hosts' uptimes, which sets the scale of the threshold.
//! - `exact`: the same control law fed with `ack.owd` in nanoseconds.
//!
//! Differences from the source (the reasoning is in docs/deviations/tcp-lp.md):
//! - the OWD is the Linux 4.4 module's own computation by default (`owd_clock`):
//!   docs/deviations/tcp-lp.md#tcp-lp-owd-clock
//! - the first valid OWD sample triggers an early indication, as Linux:
//!   docs/deviations/tcp-lp.md#tcp-lp-first-owd
//! - the inference period comes from now − TSecr: docs/deviations/tcp-lp.md#tcp-lp-inference-period
//! - loss handling is Linux's, not the paper's: docs/deviations/tcp-lp.md#tcp-lp-loss

use super::vegas::{acked_pkts, PktWindow};
use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "tcp-lp",
    aliases: &["lp"],
    summary: "TCP-LP: Reno with early OWD-based halving and an inference period (Linux tcp_lp)",
    source: "Ong 2020 §2.2.3; Linux net/ipv4/tcp_lp.c (4.4)",
    params: PARAMS,
    build,
};

/// 49 days: the longest uptime whose jiffies fit the u32 TCP timestamp at HZ 1000.
const MAX_UPTIME: Dur = Dur::from_secs(49 * 86_400);

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "threshold_pct",
        kind: ParamKind::Int { min: 0, max: 100 },
        default: ParamValue::Int(15),
        unit: "%",
        doc: "early congestion when sowd >= owd_min + threshold_pct·(owd_max - owd_min)/100",
        source: "Linux tcp_lp.c tcp_lp_pkts_acked (constant 15)",
    },
    ParamSpec {
        name: "inference_mult",
        kind: ParamKind::Int { min: 0, max: 100 },
        default: ParamValue::Int(3),
        unit: "RTTs",
        doc: "inference period after an early congestion indication, in RTTs (3·(now - TSecr))",
        source: "Ong 2020 §2.2.3 (\"3·(time - prev_time)\"); Linux tcp_lp.c lp->inference = 3 * delta",
    },
    ParamSpec {
        name: "owd_clock",
        kind: ParamKind::Choice(&["linux-4.4", "exact"]),
        default: ParamValue::Choice("linux-4.4"),
        unit: "",
        doc: "OWD source: the Linux 4.4 module's computation from jiffy TCP timestamps (remote-HZ estimator, u32 arithmetic), or the datapath's exact OWD",
        source: "Ong 2020 §3.1 (Linux 4.4.15, stock tcp_lp); Linux 4.4 tcp_lp.c tcp_lp_owd_calculator",
    },
    ParamSpec {
        name: "hz",
        kind: ParamKind::Int { min: 100, max: 1000 },
        default: ParamValue::Int(250),
        unit: "Hz",
        doc: "sender's CONFIG_HZ: its TCP timestamp clock and jiffies (linux-4.4 only)",
        source: "[inference] openSUSE Leap 42.1 kernel CONFIG_HZ=250; Ong 2020 does not state HZ (Ong 2020 notes §2.0)",
    },
    ParamSpec {
        name: "remote_hz",
        kind: ParamKind::Int { min: 100, max: 1000 },
        default: ParamValue::Int(250),
        unit: "Hz",
        doc: "receiver's TCP timestamp clock rate (linux-4.4 only; the module estimates it)",
        source: "[inference] Ong 2020 §3.1: all hosts run the same openSUSE 4.4.15 kernel",
    },
    ParamSpec {
        name: "sender_uptime",
        kind: ParamKind::Duration { min: Dur::ZERO, max: MAX_UPTIME },
        default: ParamValue::Dur(Dur::from_secs(3_600)),
        unit: "",
        doc: "sender host's uptime when the simulation starts: its TS clock reads (uptime - 300 s)·HZ (linux-4.4 only)",
        source: "[inference] Linux 4.4 INITIAL_JIFFIES = -300·HZ, TSval = jiffies; the testbed's uptimes are not stated",
    },
    ParamSpec {
        name: "receiver_uptime",
        kind: ParamKind::Duration { min: Dur::ZERO, max: MAX_UPTIME },
        default: ParamValue::Dur(Dur::from_secs(7_200)),
        unit: "",
        doc: "receiver host's uptime when the simulation starts (its clock offset from the datapath adds to it) (linux-4.4 only)",
        source: "[inference] as sender_uptime; receiver up longer than the sender (docs/deviations/tcp-lp.md §1)",
    },
];

/// Where TCP-LP's one-way delay comes from (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwdClock {
    /// The Linux 4.4 module's computation from jiffy TCP timestamps.
    Linux44,
    /// The datapath's exact OWD in nanoseconds.
    Exact,
}

/// TCP-LP's parameters. Defaults: Linux 4.4 `tcp_lp.c` as Ong 2020 ran it (§2.2.3,
/// §3.1); the clock values are inferences, marked so.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpLpConfig {
    /// Early congestion when sowd ≥ owd_min + threshold_pct·(owd_max − owd_min)/100: 15
    /// (Linux tcp_lp.c `tcp_lp_pkts_acked`).
    pub threshold_pct: u64,
    /// Inference period in RTTs: 3 (Ong 2020 §2.2.3; Linux `lp->inference = 3 * delta`).
    pub inference_mult: u64,
    /// OWD source: the Linux 4.4 module (Ong 2020 §3.1, stock tcp_lp on 4.4.15).
    pub owd_clock: OwdClock,
    /// Sender's CONFIG_HZ: 250 ([inference] openSUSE Leap 42.1; Ong 2020 notes §2.0).
    pub hz: u64,
    /// Receiver's TCP timestamp rate: 250 ([inference] Ong 2020 §3.1: same kernel on all
    /// hosts).
    pub remote_hz: u64,
    /// Sender's uptime at the start: 1 h ([inference] Linux 4.4 INITIAL_JIFFIES).
    pub sender_uptime: Dur,
    /// Receiver's uptime at the start: 2 h ([inference]; docs/deviations/tcp-lp.md §1).
    pub receiver_uptime: Dur,
}

impl Default for TcpLpConfig {
    fn default() -> Self {
        TcpLpConfig {
            threshold_pct: 15,
            inference_mult: 3,
            owd_clock: OwdClock::Linux44,
            hz: 250,
            remote_hz: 250,
            sender_uptime: Dur::from_secs(3_600),
            receiver_uptime: Dur::from_secs(7_200),
        }
    }
}

/// The only place TCP-LP's parameter names are looked up.
impl TryFrom<&ParamSet> for TcpLpConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<Self, ParamError> {
        let r = p.reader("tcp-lp");
        Ok(TcpLpConfig {
            threshold_pct: r.u64("threshold_pct")?,
            inference_mult: r.u64("inference_mult")?,
            owd_clock: r.choice_of(
                "owd_clock",
                &[("linux-4.4", OwdClock::Linux44), ("exact", OwdClock::Exact)],
            )?,
            hz: r.u64("hz")?,
            remote_hz: r.u64("remote_hz")?,
            sender_uptime: r.dur("sender_uptime")?,
            receiver_uptime: r.dur("receiver_uptime")?,
        })
    }
}

/// The registry's entry point. `p` was resolved against `PARAMS`, so the conversion
/// cannot fail unless the spec table and the config disagree, which
/// `config_defaults_match_spec_table` rules out.
fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = TcpLpConfig::try_from(p).expect("tcp-lp: spec table and TcpLpConfig agree");
    Box::new(TcpLp::new(&cfg, &init))
}

/// Linux tcp_lp.c `LP_RESOL` in 4.4: OWD resolution, ticks per second.
const LP_RESOL: u32 = 1000;
const NS_PER_S: i128 = 1_000_000_000;

/// What an early congestion indication does to cwnd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Response {
    /// After the inference period: cwnd = max(cwnd/2, 1).
    Halve,
    /// Within the inference period: cwnd = 1.
    One,
}

/// The Linux 4.4 module's state (`struct lp`), all `u32` as in C; times in jiffies,
/// OWDs in LP_RESOL ticks.
#[derive(Clone, Debug)]
struct Linux44 {
    hz: u32,
    remote_hz_true: u64,
    sender_uptime: Dur,
    receiver_uptime: Dur,
    valid_rhz: bool,
    sowd: u32,
    owd_min: u32,
    owd_max: u32,
    owd_max_rsv: u32,
    remote_hz: u32,
    remote_ref_time: u32,
    local_ref_time: u32,
    last_drop: u32,
    inference: u32,
}

/// A Linux 4.4 TCP timestamp: `(u32) jiffies` with jiffies = (uptime - 300 s)·HZ
/// (INITIAL_JIFFIES), `clock_ns` after the simulation start on a host up `uptime` then.
fn jiffies_ts(clock_ns: i128, uptime: Dur, hz: u64) -> u32 {
    let ticks = (uptime.nanos() as i128 + clock_ns) * hz as i128;
    (ticks.div_euclid(NS_PER_S) - 300 * hz as i128).rem_euclid(1 << 32) as u32
}

impl Linux44 {
    fn new(cfg: &TcpLpConfig) -> Linux44 {
        Linux44 {
            hz: cfg.hz as u32,
            remote_hz_true: cfg.remote_hz,
            sender_uptime: cfg.sender_uptime,
            receiver_uptime: cfg.receiver_uptime,
            valid_rhz: false,
            sowd: 0,
            owd_min: 0xffff_ffff,
            owd_max: 0,
            owd_max_rsv: 0,
            remote_hz: 0,
            remote_ref_time: 0,
            local_ref_time: 0,
            last_drop: 0,
            inference: 0,
        }
    }

    /// tcp_time_stamp on the sender at `t`.
    fn local_ts(&self, t: i128) -> u32 {
        jiffies_ts(t, self.sender_uptime, self.hz as u64)
    }

    /// tcp_lp_remote_hz_estimator: HZ·Δtsval/Δtsecr (u32), EWMA 63/64 kept ×64 in s64.
    fn remote_hz_estimator(&mut self, tsval: u32, tsecr: u32) -> u32 {
        let mut rhz: i64 = (self.remote_hz as i64) << 6;
        let no_ref = self.remote_ref_time == 0 || self.local_ref_time == 0;
        if !no_ref && tsval != self.remote_ref_time && tsecr != self.local_ref_time {
            // `HZ * (u32 - u32) / (u32 - u32)`: unsigned 32-bit, then widened (never < 0).
            let num = self
                .hz
                .wrapping_mul(tsval.wrapping_sub(self.remote_ref_time));
            let mut m = (num / tsecr.wrapping_sub(self.local_ref_time)) as i64;
            if rhz > 0 {
                m -= rhz >> 6;
                rhz += m;
            } else {
                rhz = m << 6;
            }
        }
        self.valid_rhz = (rhz >> 6) > 0;
        self.remote_ref_time = tsval;
        self.local_ref_time = tsecr;
        (rhz >> 6) as u32
    }

    /// tcp_lp_owd_calculator: `tsval·(LP_RESOL/remote_hz) - tsecr·(LP_RESOL/HZ)`, all
    /// u32 (so `owd < 0` never holds); valid when non-zero.
    fn owd_calculator(&mut self, tsval: u32, tsecr: u32) -> u32 {
        self.remote_hz = self.remote_hz_estimator(tsval, tsecr);
        if !self.valid_rhz {
            return 0;
        }
        tsval
            .wrapping_mul(LP_RESOL / self.remote_hz)
            .wrapping_sub(tsecr.wrapping_mul(LP_RESOL / self.hz))
    }

    /// tcp_lp_rtt_sample.
    fn rtt_sample(&mut self, tsval: u32, tsecr: u32) {
        let o = self.owd_calculator(tsval, tsecr);
        if !self.valid_rhz || o == 0 {
            return;
        }
        let mut mowd = o as i64;
        if mowd < self.owd_min as i64 {
            self.owd_min = o;
        }
        // "Always forget the max of the max": owd_max is set one below the largest.
        if mowd > self.owd_max as i64 {
            if mowd > self.owd_max_rsv as i64 {
                self.owd_max = if self.owd_max_rsv == 0 {
                    o
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = o;
            } else {
                self.owd_max = o;
            }
        }
        // sowd = 7/8 sowd + 1/8 new, ×8, stored in a u32 (truncating).
        if self.sowd != 0 {
            mowd -= (self.sowd >> 3) as i64;
            self.sowd = (self.sowd as i64).wrapping_add(mowd) as u32;
        } else {
            self.sowd = (mowd << 3) as u32;
        }
    }

    /// tcp_lp_pkts_acked (4.4): `now` is tcp_time_stamp, `ts` the ACK's (TSval, TSecr)
    /// when it carries an RTT sample. Returns (within inference, response).
    fn pkts_acked(
        &mut self,
        now: u32,
        ts: Option<(u32, u32)>,
        thr_pct: u32,
        inf_mult: u32,
    ) -> (bool, Option<Response>) {
        if let Some((tsval, tsecr)) = ts {
            self.rtt_sample(tsval, tsecr);
            // 4.4: `if (tcp_time_stamp > rcv_tsecr) inference = 3 * (tcp_time_stamp - rcv_tsecr)`.
            if now > tsecr {
                self.inference = inf_mult.wrapping_mul(now - tsecr);
            }
        }
        let within = self.last_drop != 0 && now.wrapping_sub(self.last_drop) < self.inference;
        let thr = self
            .owd_min
            .wrapping_add(thr_pct.wrapping_mul(self.owd_max.wrapping_sub(self.owd_min)) / 100);
        if (self.sowd >> 3) < thr {
            return (within, None);
        }
        // FIXME in Linux: reset owd_min/owd_max around the smoothed OWD.
        self.owd_min = self.sowd >> 3;
        self.owd_max = self.sowd >> 2;
        self.owd_max_rsv = self.sowd >> 2;
        self.last_drop = now;
        (
            within,
            Some(if within {
                Response::One
            } else {
                Response::Halve
            }),
        )
    }

    fn on_ack(
        &mut self,
        now: Time,
        ack: &AckSample,
        thr_pct: u32,
        inf_mult: u32,
    ) -> (bool, Option<Response>) {
        let now_ts = self.local_ts(now.nanos() as i128);
        // The ACK's TSecr is the sender's clock when the echoed segment left (now - RTT);
        // its TSval the receiver's clock when the ACK left (TSecr + OWD, clock offset
        // included). Linux 4.4 samples only when `pkts_acked`'s `rtt_us` (ca_rtt_us, our
        // `ack.rtt`) is valid, and then reads rcv_tsval/rcv_tsecr whatever they echo.
        let ts = match (ack.rtt, ack.echo_rtt(), ack.owd) {
            (Some(ca_rtt), Some(rtt), Some(owd)) if ca_rtt > Dur::ZERO && rtt > Dur::ZERO => {
                let sent = now.nanos() as i128 - rtt.nanos() as i128;
                Some((
                    jiffies_ts(
                        sent + owd as i128,
                        self.receiver_uptime,
                        self.remote_hz_true,
                    ),
                    self.local_ts(sent),
                ))
            }
            _ => None,
        };
        self.pkts_acked(now_ts, ts, thr_pct, inf_mult)
    }
}

/// The same control law on the datapath's OWD in nanoseconds.
#[derive(Clone, Debug)]
struct Exact {
    /// Smoothed OWD ×8 (ns), as Linux `sowd`.
    sowd: u64,
    owd_min: u64,
    owd_max: u64,
    owd_max_rsv: u64,
    last_drop: Option<Time>,
    inference: Dur,
}

impl Exact {
    fn new() -> Exact {
        Exact {
            sowd: 0,
            owd_min: u64::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            last_drop: None,
            inference: Dur::ZERO,
        }
    }

    /// tcp_lp_owd_calculator + tcp_lp_rtt_sample: |OWD| (Linux negates a negative
    /// difference), ignored when zero.
    fn owd_sample(&mut self, owd: i64) {
        let mowd = owd.unsigned_abs();
        if mowd == 0 {
            return;
        }
        self.owd_min = self.owd_min.min(mowd);
        if mowd > self.owd_max {
            if mowd > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 {
                    mowd
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = mowd;
            } else {
                self.owd_max = mowd;
            }
        }
        if self.sowd != 0 {
            let err = mowd as i128 - (self.sowd >> 3) as i128;
            self.sowd = (self.sowd as i128 + err).max(0) as u64;
        } else {
            self.sowd = mowd << 3;
        }
    }

    fn on_ack(
        &mut self,
        now: Time,
        ack: &AckSample,
        thr_pct: u64,
        inf_mult: u64,
    ) -> (bool, Option<Response>) {
        if let (Some(_), Some(owd)) = (ack.rtt, ack.owd) {
            self.owd_sample(owd);
        }
        // inference = 3·(now - TSecr): the round trip of the echoed segment.
        if let Some(rtt) = ack.rtt.and(ack.echo_rtt()) {
            if rtt > Dur::ZERO {
                self.inference = Dur(rtt.0.saturating_mul(inf_mult));
            }
        }
        let within = self
            .last_drop
            .is_some_and(|d| now.since(d) < self.inference);
        let thr = self
            .owd_min
            .saturating_add(thr_pct * self.owd_max.saturating_sub(self.owd_min) / 100);
        if (self.sowd >> 3) < thr {
            return (within, None);
        }
        self.owd_min = self.sowd >> 3;
        self.owd_max = self.sowd >> 2;
        self.owd_max_rsv = self.sowd >> 2;
        self.last_drop = Some(now);
        (
            within,
            Some(if within {
                Response::One
            } else {
                Response::Halve
            }),
        )
    }
}

#[derive(Clone, Debug)]
enum Detector {
    Linux(Box<Linux44>),
    Exact(Exact),
}

#[derive(Clone, Debug)]
pub struct TcpLp {
    threshold_pct: u64,
    inference_mult: u64,
    mss: u64,
    w: PktWindow,
    det: Detector,
    within_inference: bool,
    early_events: u64,
}

impl TcpLp {
    pub fn new(cfg: &TcpLpConfig, init: &CcInit) -> TcpLp {
        let det = match cfg.owd_clock {
            OwdClock::Exact => Detector::Exact(Exact::new()),
            OwdClock::Linux44 => Detector::Linux(Box::new(Linux44::new(cfg))),
        };
        TcpLp {
            threshold_pct: cfg.threshold_pct,
            inference_mult: cfg.inference_mult,
            mss: init.mss,
            w: PktWindow::new(init.initial_cwnd, init.mss),
            det,
            within_inference: false,
            early_events: 0,
        }
    }
}

impl CongestionControl for TcpLp {
    fn name(&self) -> &'static str {
        "tcp-lp"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.mss = ack.mss;
        if ack.bytes_acked == 0 {
            return;
        }
        // tcp_lp_pkts_acked runs for every ACK of new data, in any congestion state.
        let (within, resp) = match &mut self.det {
            Detector::Linux(l) => l.on_ack(
                now,
                ack,
                self.threshold_pct as u32,
                self.inference_mult as u32,
            ),
            Detector::Exact(e) => e.on_ack(now, ack, self.threshold_pct, self.inference_mult),
        };
        self.within_inference = within;
        match resp {
            Some(Response::One) => self.w.cwnd = 1,
            Some(Response::Halve) => self.w.cwnd = (self.w.cwnd >> 1).max(1),
            None => {}
        }
        if resp.is_some() {
            self.early_events += 1;
        }
        if ack.in_recovery {
            return;
        }
        // tcp_lp_cong_avoid: Reno unless within the inference period (flag computed
        // before any drop made by this ACK, as in Linux).
        if !self.within_inference {
            self.w
                .reno_cong_avoid(acked_pkts(ack.bytes_acked, ack.mss), ack.cwnd_limited);
        }
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        self.mss = ev.mss;
        // .ssthresh = tcp_reno_ssthresh.
        self.w.on_loss();
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        self.mss = ev.mss;
        self.w.on_timeout();
    }

    fn cwnd(&self) -> u64 {
        self.w.cwnd * self.mss
    }

    fn ssthresh(&self) -> u64 {
        self.w.ssthresh_bytes(self.mss)
    }

    /// OWDs in ms: LP_RESOL ticks for linux-4.4 (clock offsets included), ns/1e6 for exact.
    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        match &self.det {
            Detector::Linux(l) => {
                out.push(("sowd_ms", (l.sowd >> 3) as f64));
                out.push((
                    "owd_min_ms",
                    if l.owd_min == 0xffff_ffff {
                        f64::NAN
                    } else {
                        l.owd_min as f64
                    },
                ));
                out.push(("owd_max_ms", l.owd_max as f64));
                out.push(("remote_hz", l.remote_hz as f64));
                out.push(("inference_ms", l.inference as f64 * 1000.0 / l.hz as f64));
            }
            Detector::Exact(e) => {
                let ms = |ns: u64| ns as f64 / 1e6;
                out.push(("sowd_ms", ms(e.sowd >> 3)));
                out.push((
                    "owd_min_ms",
                    if e.owd_min == u64::MAX {
                        f64::NAN
                    } else {
                        ms(e.owd_min)
                    },
                ));
                out.push(("owd_max_ms", ms(e.owd_max)));
                out.push(("remote_hz", f64::NAN));
                out.push(("inference_ms", ms(e.inference.0)));
            }
        }
        out.push((
            "within_inference",
            if self.within_inference { 1.0 } else { 0.0 },
        ));
        out.push(("early_events", self.early_events as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    fn lp_with(owd_clock: OwdClock) -> TcpLp {
        let cfg = TcpLpConfig {
            owd_clock,
            ..Default::default()
        };
        let init = CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: 10 * MSS,
            rng: Rng::new(1),
        };
        TcpLp::new(&cfg, &init)
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            TcpLpConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            TcpLpConfig::default()
        );
    }

    fn exact(v: &TcpLp) -> &Exact {
        match &v.det {
            Detector::Exact(e) => e,
            _ => unreachable!(),
        }
    }
    fn exact_mut(v: &mut TcpLp) -> &mut Exact {
        match &mut v.det {
            Detector::Exact(e) => e,
            _ => unreachable!(),
        }
    }
    fn linux(v: &TcpLp) -> &Linux44 {
        match &v.det {
            Detector::Linux(l) => l,
            _ => unreachable!(),
        }
    }

    fn ack_rtt(lp: &mut TcpLp, t_ms: u64, rtt_ms: u64, owd_ms: i64) {
        let a = AckSample {
            bytes_acked: MSS,
            rtt: Some(Dur::from_millis(rtt_ms)),
            owd: Some(owd_ms * MS as i64),
            ..AckSample::empty(MSS)
        };
        lp.on_ack(Time(t_ms * MS), &a);
    }
    fn ack(lp: &mut TcpLp, t_ms: u64, owd_ms: u64) {
        ack_rtt(lp, t_ms, 100, owd_ms as i64);
    }

    /// Exact clock; owd_min 50 ms, owd_max 100 ms, sowd 50 ms; threshold = 50 + 15 %·50 = 57.5 ms.
    fn primed(cwnd: u64, ssthresh: u64, last_drop_ms: u64) -> TcpLp {
        let mut v = lp_with(OwdClock::Exact);
        let e = exact_mut(&mut v);
        e.owd_min = 50 * MS;
        e.owd_max = 100 * MS;
        e.owd_max_rsv = 100 * MS;
        e.sowd = 400 * MS;
        e.last_drop = Some(Time(last_drop_ms * MS));
        v.w.cwnd = cwnd;
        v.w.ssthresh = ssthresh;
        v
    }

    #[test]
    fn defaults_are_the_evaluated_kernel() {
        let v = lp_with(OwdClock::Linux44);
        let l = linux(&v);
        assert_eq!((l.hz, l.remote_hz_true), (250, 250));
        assert_eq!(
            (l.sender_uptime, l.receiver_uptime),
            (Dur::from_secs(3_600), Dur::from_secs(7_200))
        );
        assert_eq!((l.owd_min, l.owd_max, l.sowd), (0xffff_ffff, 0, 0));
        assert_eq!(TcpLpConfig::default().owd_clock, OwdClock::Linux44);
    }

    #[test]
    fn jiffy_timestamps_start_300_s_before_boot_and_wrap() {
        // 1 h uptime at 250 Hz: (3600 - 300)·250 = 825_000 ticks; +3.999 ms is still the
        // same tick, +4 ms the next one.
        assert_eq!(jiffies_ts(0, Dur::from_secs(3_600), 250), 825_000);
        assert_eq!(jiffies_ts(3_999_999, Dur::from_secs(3_600), 250), 825_000);
        assert_eq!(jiffies_ts(4_000_000, Dur::from_secs(3_600), 250), 825_001);
        // At boot: -300·250 = -75_000 -> 2^32 - 75_000 = 4_294_892_296.
        assert_eq!(jiffies_ts(0, Dur::ZERO, 250), 4_294_892_296);
    }

    #[test]
    fn linux_remote_hz_estimator_and_integer_owd() {
        let mut l = Linux44::new(&TcpLpConfig::default());
        // First ACK: no reference times yet -> no rhz, no OWD, refs recorded. The threshold
        // test is in u32: 0xffffffff + 15·(0 - 0xffffffff)/100 = 0xffffffff + 15·1/100 =
        // 0xffffffff > sowd/8 = 0 -> nothing.
        assert_eq!(
            l.pkts_acked(1_000, Some((2_000, 990)), 15, 3),
            (false, None)
        );
        assert_eq!(
            (
                l.remote_hz,
                l.valid_rhz,
                l.remote_ref_time,
                l.local_ref_time
            ),
            (0, false, 2_000, 990)
        );
        assert_eq!(l.inference, 30);
        // Second: Δtsval = 1, Δtsecr = 1 -> m = 250·1/1 = 250; rhz = 250 -> factor
        // 1000/250 = 4: owd = 2001·4 - 991·4 = 4040. First sample: owd_min = owd_max =
        // rsv = 4040, sowd = 32_320; 4040 < 4040 + 0 is false -> early indication, outside
        // inference (no drop yet): halve; reset owd_min = 4040, owd_max = rsv = 8080.
        assert_eq!(
            l.pkts_acked(1_001, Some((2_001, 991)), 15, 3),
            (false, Some(Response::Halve))
        );
        assert_eq!(
            (l.remote_hz, l.sowd, l.owd_min, l.owd_max, l.owd_max_rsv),
            (250, 32_320, 4_040, 8_080, 8_080)
        );
        assert_eq!(l.last_drop, 1_001);
        // Third: Δtsval = 2, Δtsecr = 1 -> m = 500; rhz×64 = 16_000 + (500 - 250) = 16_250
        // -> rhz = 253 -> 1000/253 = 3: owd = 2003·3 - 992·4 = 6009 - 3968 = 2041.
        // owd_min = 2041; sowd = 32_320 + (2041 - 4040) = 30_321 -> sowd/8 = 3790;
        // threshold = 2041 + 15·(8080 - 2041)/100 = 2041 + 905 = 2946 <= 3790 -> early
        // indication within inference (1002 - 1001 = 1 < 3·(1002 - 992) = 30): cwnd 1.
        assert_eq!(
            l.pkts_acked(1_002, Some((2_003, 992)), 15, 3),
            (true, Some(Response::One))
        );
        // Reset: owd_min = 3790, owd_max = rsv = 30_321 >> 2 = 7580.
        assert_eq!(
            (l.remote_hz, l.sowd, l.owd_min, l.owd_max, l.owd_max_rsv),
            (253, 30_321, 3_790, 7_580, 7_580)
        );
        assert_eq!((l.last_drop, l.inference), (1_002, 30));
    }

    #[test]
    fn linux_owd_wraps_when_the_receiver_clock_is_behind() {
        let mut l = Linux44::new(&TcpLpConfig::default());
        l.pkts_acked(1_000, Some((500, 990)), 15, 3);
        // rhz = 250: owd = 501·4 - 991·4 = -1960 -> u32 4_294_965_336. sowd = owd << 3
        // truncated to u32 = 2^32 - 15_680 = 4_294_951_616 -> sowd/8 = 536_868_952;
        // threshold = owd_min = 4_294_965_336 > sowd/8 -> no indication, ever after.
        assert_eq!(l.pkts_acked(1_001, Some((501, 991)), 15, 3), (false, None));
        assert_eq!((l.owd_min, l.sowd), (4_294_965_336, 4_294_951_616));
        assert_eq!(l.pkts_acked(1_002, Some((502, 992)), 15, 3), (false, None));
    }

    #[test]
    fn linux_offset_widens_the_threshold_after_the_first_indication() {
        // Through the datapath interface: sender up 1 h, receiver up 2 h, both at 250 Hz.
        // ACK at 1000 ms with RTT 100 ms and OWD 40 ms: TSecr = jiffies(900 ms) =
        // 825_000 + 225 = 825_225, TSval = jiffies(7200 s - 300 s + 940 ms) = 1_725_000 +
        // 235 = 1_725_235; now = 825_250.
        let mut v = lp_with(OwdClock::Linux44);
        ack_rtt(&mut v, 1_000, 100, 40);
        assert_eq!(
            (
                linux(&v).remote_ref_time,
                linux(&v).local_ref_time,
                linux(&v).inference
            ),
            (1_725_235, 825_225, 75)
        );
        // No sample yet, outside inference: slow start 10 -> 11.
        assert_eq!(v.cwnd(), 11 * MSS);
        // 8 ms later, same delays: TSecr 825_227, TSval 1_725_237, now 825_252; Δ = 2
        // ticks each -> m = 250·2/2 = 250 = rhz; owd = 4·(1_725_237 - 825_227) = 3_600_040
        // (one hour of uptime difference + 40 ms). First sample -> halve 11 -> 5, then
        // slow start adds this ACK's packet: 6. Reset: owd_max = 2·3_600_040.
        ack_rtt(&mut v, 1_008, 100, 40);
        assert_eq!(
            (linux(&v).owd_min, linux(&v).owd_max, linux(&v).last_drop),
            (3_600_040, 7_200_080, 825_252)
        );
        assert_eq!(v.cwnd(), 6 * MSS);
        // 100 ms more queueing: ACK at 1016 ms, RTT 200 ms, OWD 140 ms -> TSecr 825_204
        // (behind the reference: Δ wraps, m = 500/4_294_967_273 = 0, rhz×64 = 16_000 - 250
        // -> 246, factor still 1000/246 = 4), TSval 1_725_239, owd = 4·900_035 =
        // 3_600_140; sowd = 28_800_320 + 100 -> /8 = 3_600_052, far below the threshold
        // 3_600_040 + 15·3_600_040/100 = 4_140_046. Inference = 3·(825_254 - 825_204) =
        // 150 ticks, 2 since the drop: within, so no growth.
        ack_rtt(&mut v, 1_016, 200, 140);
        assert_eq!(
            (
                linux(&v).remote_hz,
                linux(&v).sowd >> 3,
                linux(&v).inference
            ),
            (246, 3_600_052, 150)
        );
        assert_eq!(
            (v.early_events, v.cwnd(), v.within_inference),
            (1, 6 * MSS, true)
        );
    }

    #[test]
    fn linux_takes_timestamps_from_the_echo_and_samples_only_with_a_valid_ca_rtt() {
        // As linux_offset_widens…, but the datapath gives the newest segment's RTT (90 ms)
        // and the echo (100 ms) apart: TSecr comes from the echo, so the reference times
        // are the same as there.
        let mut v = lp_with(OwdClock::Linux44);
        let a = AckSample {
            bytes_acked: MSS,
            rtt: Some(Dur::from_millis(90)),
            ts_echo_rtt: Some(Dur::from_millis(100)),
            owd: Some(40 * MS as i64),
            ..AckSample::empty(MSS)
        };
        v.on_ack(Time(1_000 * MS), &a);
        assert_eq!(
            (
                linux(&v).remote_ref_time,
                linux(&v).local_ref_time,
                linux(&v).inference
            ),
            (1_725_235, 825_225, 75)
        );
        // An ACK whose cumulative part covers a retransmission has no ca_rtt_us:
        // tcp_lp_pkts_acked skips it even though the echo is there.
        let before = (
            linux(&v).remote_ref_time,
            linux(&v).local_ref_time,
            linux(&v).sowd,
        );
        let a = AckSample { rtt: None, ..a };
        v.on_ack(Time(1_008 * MS), &a);
        assert_eq!(
            (
                linux(&v).remote_ref_time,
                linux(&v).local_ref_time,
                linux(&v).sowd
            ),
            before
        );
    }

    #[test]
    fn first_owd_sample_is_an_early_indication_as_in_linux() {
        // Exact clock. First sample 50 ms: owd_min = owd_max = sowd/8 = 50 ms; 50 < 50 + 0
        // is false -> early congestion: owd_min = 50, owd_max = 100 ms, cwnd 10 -> 5; the
        // inference flag was false, so Reno slow start still adds one packet: 6.
        let mut v = lp_with(OwdClock::Exact);
        ack(&mut v, 100, 50);
        let e = exact(&v);
        assert_eq!(
            (e.owd_min, e.owd_max, e.owd_max_rsv),
            (50 * MS, 100 * MS, 100 * MS)
        );
        assert_eq!(v.cwnd(), 6 * MSS);
        assert_eq!(exact(&v).last_drop, Some(Time(100 * MS)));
        assert_eq!(exact(&v).inference, Dur::from_millis(300));
        // 10 ms later, OWD 50: within threshold (50 < 57.5) but within inference
        // (10 < 300 ms): no growth.
        ack(&mut v, 110, 50);
        assert!(v.within_inference);
        assert_eq!(v.cwnd(), 6 * MSS);
        // After the inference period (400 ms > 300 ms) Reno slow start resumes.
        ack(&mut v, 500, 50);
        assert!(!v.within_inference);
        assert_eq!(v.cwnd(), 7 * MSS);
    }

    #[test]
    fn early_congestion_after_inference_halves() {
        // Last drop at 100 ms, ACK at 500 ms: 400 >= 300 ms -> outside inference.
        // OWD 130 ms: owd_max: 130 > rsv 100 -> owd_max = 100, rsv = 130;
        // sowd = 400 + (130 - 50) = 480 -> 60 ms >= 57.5 ms -> cwnd 20 -> 10, ssthresh
        // untouched (5); then Reno CA counts one packet (cnt 1 < 10).
        let mut v = primed(20, 5, 100);
        ack(&mut v, 500, 130);
        assert_eq!((v.cwnd(), v.ssthresh(), v.w.cnt), (10 * MSS, 5 * MSS, 1));
        // Reset around sowd: owd_min = 60, owd_max = rsv = 120 ms.
        let e = exact(&v);
        assert_eq!(
            (e.owd_min, e.owd_max, e.owd_max_rsv),
            (60 * MS, 120 * MS, 120 * MS)
        );
        assert_eq!(e.last_drop, Some(Time(500 * MS)));
    }

    #[test]
    fn early_congestion_within_inference_drops_to_one_packet() {
        // Same samples, ACK at 300 ms: 200 < 300 ms -> within inference -> cwnd = 1, and
        // no Reno growth within the inference period.
        let mut v = primed(20, 5, 100);
        ack(&mut v, 300, 130);
        assert_eq!((v.cwnd(), v.w.cnt), (MSS, 0));
    }

    #[test]
    fn below_threshold_is_reno() {
        // OWD 55 ms: sowd = 400 + 5 = 405 -> 50.625 ms < 57.5 ms -> no indication; outside
        // inference -> Reno CA (cnt 1).
        let mut v = primed(20, 5, 100);
        ack(&mut v, 500, 55);
        assert_eq!((v.cwnd(), v.w.cnt, exact(&v).sowd), (20 * MSS, 1, 405 * MS));
        // Within inference and below threshold: nothing at all.
        let mut v = primed(20, 5, 100);
        ack(&mut v, 300, 55);
        assert_eq!((v.cwnd(), v.w.cnt), (20 * MSS, 0));
    }

    #[test]
    fn negative_owd_is_taken_in_absolute_value_and_loss_is_reno() {
        let mut v = lp_with(OwdClock::Exact);
        ack_rtt(&mut v, 0, 100, -40);
        assert_eq!(exact(&v).owd_min, 40 * MS);
        v.w.cwnd = 30;
        v.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 0,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!((v.cwnd(), v.ssthresh()), (15 * MSS, 15 * MSS));
        v.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((v.cwnd(), v.ssthresh()), (MSS, 7 * MSS));
    }
}
