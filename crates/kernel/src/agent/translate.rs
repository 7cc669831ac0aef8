//! The translation layer: shim records (`ShimEvent`) become `CongestionControl` calls,
//! one algorithm instance per socket. No maps, no ring buffer, no root: the agent loop
//! (agent/mod.rs) hands each record to `Core::handle`, and tests do the same.
//!
//! Event mapping to the `CongestionControl` calls (crates/cc/src/api.rs call order):
//! ACK → `on_ack`; ca_state entering CWR → `on_congestion(Ecn)`, Recovery →
//! `on_congestion(Loss)`, Loss → `on_rto`; back to Open → `on_recovery_exit`. The ACK's
//! `AckSample` comes from the shared builder (scavenger_cc::sample).

use super::abi::*;
use super::trace::{self, FlowTrace};
use super::{read_goal, AgentStats, Commanded, Controller};
use scavenger_cc::api::*;
use scavenger_cc::params::ParamSet;
use scavenger_cc::registry::AlgorithmInfo;
use scavenger_cc::rng::Rng;
use scavenger_cc::sample::{self, CaState, SenderAck};
use scavenger_cc::units::{Dur, Rate, Time};
use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

pub(super) struct Flow {
    pub(super) cc: Box<dyn CongestionControl>,
    pub(super) mss: u64,
    pub(super) ca_state: u8,
    pub(super) rto_count: u32,
    pub(super) last_ece: bool,
    pub(super) sport: u16,
    pub(super) dport: u16,
    pub(super) dirty: bool,
    pub(super) last: ShimCmd,
    /// The highest snd_nxt (stream offset) already reported through `on_sent`.
    pub(super) sent_nxt: u64,
    /// Time of the previous record of this socket.
    pub(super) last_ts: u64,
    /// (TSval − TSecr of the first timestamped ACK, the OWD (ns) it stands for).
    pub(super) owd_ref: Option<(u32, i64)>,
    /// The socket's CSV trace, when the agent traces (agent/trace.rs).
    pub(super) trace: Option<FlowTrace>,
}

impl Flow {
    /// The kernel has no per-transmission hook for congestion control, so `on_sent` is
    /// derived: new data between two records (snd_nxt moved) were sent right after the
    /// earlier record's ACK was processed (tcp_ack → tcp_data_snd_check), as one call
    /// covering all of them; `in_flight_after` is the flight size after those sends.
    /// Retransmissions do not move snd_nxt and are not reported
    /// (docs/deviations/kernel.md#kernel-shim).
    fn report_sent(&mut self, snd_nxt: u64, in_flight_after: u64) {
        if snd_nxt > self.sent_nxt {
            let sent = SentInfo {
                bytes: snd_nxt - self.sent_nxt,
                bytes_in_flight: in_flight_after,
                retransmission: false,
                seq: self.sent_nxt,
                app_limited: false,
            };
            self.cc.on_sent(Time(self.last_ts), &sent);
            self.sent_nxt = snd_nxt;
        }
    }

    /// The `AckSample` of an ACK record (after `mss` and `last_ece` were updated).
    pub(super) fn ack_sample(&mut self, ev: &ShimEvent) -> AckSample {
        let mss = self.mss;
        let (snd_una, snd_nxt) = ev.una_nxt();
        let unit = if ev.usec_ts != 0 { 1_000 } else { 1_000_000 };
        // TSval − TSecr is the OWD plus the peer's timestamp offset, which Linux
        // randomises per connection (secure_tcp_ts_off; our own offset is already off
        // TSecr, see below), so it can be anywhere in ±2^31 ms and wrap. Only differences are meaningful
        // (AckSample::owd), so it is taken relative to the first sample, which
        // stands for half the smoothed RTT then (at least 1 ms): positive, small
        // and without wrap-around, as the simulator's OWD
        // (docs/deviations/kernel.md#kernel-timestamps).
        let owd = (ev.tsecr != 0).then(|| {
            let diff = ev.tsval.wrapping_sub(ev.tsecr);
            let (d0, base) = *self
                .owd_ref
                .get_or_insert((diff, (ev.srtt_us as i64 * 500).max(1_000_000)));
            diff.wrapping_sub(d0) as i32 as i64 * unit + base
        });
        // RFC 7323 RTTM as Linux tcp_rtt_tsopt_us: our TCP timestamp clock now
        // (tcp_time_stamp_ts: CLOCK_MONOTONIC in ms, or µs) minus TSecr. Linux keeps
        // rcv_tsecr with the connection's tsoffset already taken off (tcp_input.c
        // tcp_parse_aligned_timestamp, tcp_fast_parse_options), so it is on that clock
        // as it is: adding tsoffset again made this RTT + a random 32-bit number, which
        // TCP-LP's clock model dropped when negative (issue 17). A TSecr ahead of our
        // clock is no sample, as in Linux (docs/deviations/kernel.md#kernel-timestamps).
        // The echo is measured from the start of the echoed clock tick, not in whole
        // ticks: `now − ts_echo_rtt` is then the same instant for every ACK that echoes
        // the same TSecr, as TSecr itself is. Whole ticks (clock − TSecr, as
        // tcp_rtt_tsopt_us) put that instant at TSecr plus the fraction of a tick at which
        // the ACK arrived, so ACKs echoing one TSecr could step back a tick, and TCP-LP's
        // clock model, which rebuilds jiffies from `now − echo`, read each backward step
        // as a wrapped Δtsecr: a remote-HZ sample of 0 that pulled its estimate below 200
        // at 350 ms (docs/deviations/kernel.md#kernel-echo-tick).
        let ts_echo_rtt = (ev.tsecr != 0)
            .then(|| {
                let clock = (ev.ts_ns / unit as u64) as u32;
                let d = clock.wrapping_sub(ev.tsecr) as i32;
                (d >= 0).then(|| Dur(d as u64 * unit as u64 + ev.ts_ns % unit as u64))
            })
            .flatten();
        let rate = (ev.interval_us > 0 && ev.rs_delivered > 0).then(|| {
            let interval = Dur::from_micros(ev.interval_us as u64);
            let delivered = ev.rs_delivered as u64 * mss;
            RateSample {
                rate: Rate::from_bytes_over(delivered, interval),
                interval,
                delivered,
                app_limited: ev.app_limited != 0,
            }
        });
        sample::ack_sample(&SenderAck {
            bytes_acked: ev.acked_sacked as u64 * mss,
            // rs->rtt_us: ca_rtt_us, or the timestamp RTT the kernel already substituted
            // (tcp_ack_update_rtt).
            rtt: (ev.rtt_us > 0).then(|| Dur::from_micros(ev.rtt_us as u64)),
            owd,
            ts_echo_rtt,
            delivered: ev.delivered * mss,
            rate,
            prior_in_flight: ev.prior_in_flight as u64 * mss,
            bytes_in_flight: ev.in_flight as u64 * mss,
            app_limited: ev.app_limited != 0,
            cwnd_limited: ev.cwnd_limited != 0,
            ece: self.last_ece,
            // cong_control runs after tcp_fastretrans_alert: the state it sees is the
            // one the ACK left. An unknown value (a newer kernel) counts as Open.
            ca_state: CaState::from_linux(ev.ca_state).unwrap_or(CaState::Open),
            data_acked: ev.flag & FLAG_DATA_ACKED != 0,
            cong_control: self.cc.cong_control(),
            // The record does not carry tp->reordering; the testbed's emulated link never
            // reorders, so it stays at net.ipv4.tcp_reordering (3)
            // (docs/deviations/ack-sample.md#ack-sample-may-raise).
            reordering: false,
            snd_una,
            snd_nxt,
            mss,
        })
    }
}

/// The agent's per-run state: one `Flow` per socket id, and the counters.
pub(super) struct Core {
    pub(super) info: &'static AlgorithmInfo,
    pub(super) params: ParamSet,
    pub(super) dalbe: Option<Controller>,
    pub(super) seed: u64,
    pub(super) flows: HashMap<u64, Flow>,
    pub(super) stats: AgentStats,
    pub(super) closed: Vec<u64>,
    pub(super) commanded: Commanded,
    /// scv_shim_goal (per-socket DA-LBE goals by cookie), when the shim is loaded.
    pub(super) goals: Option<OwnedFd>,
    /// CLOCK_MONOTONIC when the agent started: algorithms see time since then, so that
    /// `Time::ZERO` is the start of the run as in the simulator (controllers such as
    /// working-hours map it to a time of day), not the machine's boot.
    pub(super) epoch_ns: u64,
    /// Where each socket's CSV trace goes, if the agent traces (agent/trace.rs).
    pub(super) trace_dir: Option<PathBuf>,
}

impl Core {
    fn flow(&mut self, ev: &ShimEvent) -> &mut Flow {
        let (info, params, seed, dalbe) = (self.info, &self.params, self.seed, &self.dalbe);
        let epoch = self.epoch_ns;
        let (goals, stats) = (&self.goals, &mut self.stats);
        let trace_dir = &self.trace_dir;
        self.flows.entry(ev.id).or_insert_with(|| {
            // A trace that cannot be created is counted (AgentStats::trace_errors) and
            // the socket runs untraced: the trace must never stop the agent.
            let trace = trace_dir.as_ref().and_then(|d| {
                FlowTrace::create(&trace::path_for(d, ev))
                    .map_err(|_| stats.trace_errors += 1)
                    .ok()
            });
            let mss = (ev.mss as u64).max(1);
            let init = CcInit {
                now: Time(ev.ts_ns.saturating_sub(epoch)),
                mss,
                initial_cwnd: ev.snd_cwnd.max(1) as u64 * mss,
                rng: Rng::new(seed ^ ev.id.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            };
            let cc = match dalbe {
                // DA-LBE (crates/cc/src/dalbe): the socket's instance under its own
                // controller, ticked by the socket's events.
                Some((c, cp, goal)) => {
                    let inner = info.instantiate(params, init.clone());
                    // A goal registered for this socket's cookie replaces the agent's.
                    let own = goals
                        .as_ref()
                        .filter(|_| ev.cookie != 0)
                        .and_then(|fd| read_goal(fd, ev.cookie));
                    if own.is_some() {
                        stats.own_goals += 1;
                    }
                    scavenger_cc::dalbe::controlled(
                        inner,
                        (c.build)(cp),
                        own.unwrap_or(*goal),
                        &init,
                    )
                }
                None => info.instantiate(params, init),
            };
            Flow {
                cc,
                mss,
                ca_state: CA_OPEN,
                rto_count: 0,
                last_ece: false,
                sport: ev.sport,
                dport: ev.dport,
                dirty: true,
                last: ShimCmd::default(),
                sent_nxt: ev.una_nxt().1,
                last_ts: ev.ts_ns.saturating_sub(epoch),
                owd_ref: None,
                trace,
            }
        })
    }

    /// Appends the record (and the ACK's sample) to the socket's trace, if it has one.
    fn trace(&mut self, ev: &ShimEvent, sample: Option<&AckSample>) {
        // Untraced agents (the default) skip the per-record flow lookup.
        if self.trace_dir.is_none() {
            return;
        }
        let Some(f) = self.flows.get_mut(&ev.id) else {
            return;
        };
        if let Some(t) = f.trace.as_mut() {
            if t.record(ev, sample, f.cc.as_ref(), f.mss).is_err() {
                f.trace = None;
                self.stats.trace_errors += 1;
            }
        }
    }

    pub(super) fn handle(&mut self, ev: &ShimEvent) {
        if ev.kind == EV_CLOSE {
            self.trace(ev, None);
        }
        let sample = self.apply(ev);
        if ev.kind != EV_CLOSE {
            self.trace(ev, sample.as_ref());
        }
    }

    /// The `CongestionControl` calls of one record; the ACK's sample for the trace.
    fn apply(&mut self, ev: &ShimEvent) -> Option<AckSample> {
        self.stats.events += 1;
        let now = Time(ev.ts_ns.saturating_sub(self.epoch_ns));
        match ev.kind {
            EV_OPEN => {
                self.stats.opens += 1;
                self.flow(ev);
            }
            EV_CLOSE => {
                self.stats.closes += 1;
                self.flows.remove(&ev.id);
                self.closed.push(ev.id);
            }
            EV_CONGESTION => self.stats.congestion_events += 1,
            EV_TX_START => {
                // CA_EVENT_TX_START fires before the first segment from an empty pipe
                // is counted: report that segment now (in flight = itself), so that
                // idle-restart logic (CUBIC's epoch shift, Vegas/Nice re-init) runs at
                // the right time. With snd_nxt past snd_una it is an RTO retransmission.
                let f = self.flow(ev);
                let (una, nxt) = ev.una_nxt();
                let mss = f.mss;
                f.report_sent(nxt, nxt - una);
                let sent = SentInfo {
                    bytes: mss,
                    bytes_in_flight: mss,
                    retransmission: nxt > una,
                    // The head of the queue: new data at snd_nxt = snd_una, or the RTO's
                    // retransmission of snd_una.
                    seq: una,
                    app_limited: false,
                };
                f.cc.on_sent(now, &sent);
                if nxt == una {
                    f.sent_nxt = nxt + mss;
                }
                f.last_ts = now.nanos();
                f.dirty = true;
            }
            EV_STATE => {
                let new = ev.flag as u8;
                let f = self.flow(ev);
                let old = f.ca_state;
                let mss = f.mss;
                let in_flight = ev.in_flight as u64 * mss;
                if new == CA_LOSS {
                    f.rto_count += 1;
                    let n = f.rto_count;
                    f.cc.on_rto(
                        now,
                        &RtoEvent {
                            bytes_in_flight: in_flight,
                            backoff_count: n,
                            mss,
                        },
                    );
                    f.ca_state = new;
                    f.dirty = true;
                    self.stats.rtos += 1;
                    return None;
                } else if (new == CA_RECOVERY || new == CA_CWR) && old < CA_CWR {
                    let kind = if new == CA_CWR {
                        CongestionKind::Ecn
                    } else {
                        CongestionKind::Loss
                    };
                    let lost = if kind == CongestionKind::Loss { mss } else { 0 };
                    f.cc.on_congestion(
                        now,
                        &CongestionEvent {
                            kind,
                            bytes_in_flight: in_flight,
                            bytes_lost: lost,
                            mss,
                        },
                    );
                } else if new == CA_OPEN && old >= CA_CWR {
                    f.cc.on_recovery_exit(now);
                    f.rto_count = 0;
                }
                f.ca_state = new;
                f.dirty = true;
            }
            EV_ACK => {
                self.stats.acks += 1;
                let f = self.flow(ev);
                let mss = (ev.mss as u64).max(1);
                f.mss = mss;
                let snd_nxt = ev.una_nxt().1;
                f.report_sent(snd_nxt, ev.prior_in_flight as u64 * mss);
                f.last_ts = now.nanos();
                f.ca_state = ev.ca_state;
                f.last_ece = ev.flag & FLAG_ECE != 0;
                let ack = f.ack_sample(ev);
                f.cc.on_ack(now, &ack);
                f.dirty = true;
                return Some(ack);
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{AgentConfig, DalbeConfig};

    const MSS: u32 = 1000;

    fn core(cfg: &AgentConfig) -> Core {
        let (info, params) = cfg.resolve().unwrap();
        Core {
            info,
            params,
            dalbe: cfg.dalbe.as_ref().map(|d| d.resolve().unwrap()),
            seed: cfg.seed,
            flows: HashMap::new(),
            stats: AgentStats::default(),
            closed: Vec::new(),
            commanded: Commanded::default(),
            goals: None,
            epoch_ns: 0,
            trace_dir: None,
        }
    }

    fn ev(kind: u32, ts_ms: u64, una: u64, nxt: u64) -> ShimEvent {
        ShimEvent {
            id: 7,
            ts_ns: ts_ms * 1_000_000,
            delivered: una / MSS as u64,
            srtt_us: 0,
            rtt_us: -1,
            interval_us: 0,
            kind,
            mss: MSS,
            acked_sacked: 0,
            rs_delivered: 0,
            prior_in_flight: 0,
            in_flight: ((nxt - una) / MSS as u64) as u32,
            snd_cwnd: 10,
            snd_ssthresh: INFINITE_SSTHRESH,
            tsval: 0,
            tsecr: 0,
            losses: 0,
            // The tests' ACKs advance SND.UNA; the conformance test sets its own flags.
            flag: if kind == EV_ACK { FLAG_DATA_ACKED } else { 0 },
            ca_state: CA_OPEN,
            app_limited: 0,
            cwnd_limited: 1,
            usec_ts: 0,
            sport: 1,
            dport: 2,
            bytes_acked: una,
            nxt_minus_una: (nxt - una) as u32,
            tsoffset: 0,
            cookie: 0,
        }
    }

    /// The value the test socket's algorithm traces under `name`.
    fn traced(c: &Core, name: &str) -> f64 {
        let mut out = Vec::new();
        c.flows[&7].cc.trace(&mut out);
        out.iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no {name} in the trace"))
            .1
    }

    /// A cwnd-limited transfer: every ACK covers one segment and releases the window's
    /// worth of new data; the RTT is `rtt_ms(ack number)`.
    fn drive(c: &mut Core, acks: u64, rtt_ms: impl Fn(u64) -> u64) -> Vec<u64> {
        c.handle(&ev(EV_OPEN, 0, 0, 0));
        c.handle(&ev(EV_TX_START, 0, 0, 0));
        let (mut una, mut t) = (0u64, 0u64);
        let mut nxt = 10 * MSS as u64;
        let mut windows = Vec::new();
        for k in 0..acks {
            una += MSS as u64;
            t += 10;
            let mut e = ev(EV_ACK, t, una, nxt);
            e.acked_sacked = 1;
            e.rtt_us = (rtt_ms(k) * 1000) as i64;
            e.prior_in_flight = ((nxt - una) / MSS as u64 + 1) as u32;
            c.handle(&e);
            let cwnd = c.flows[&7].cc.cwnd();
            windows.push(cwnd / MSS as u64);
            nxt = nxt.max(una + cwnd);
        }
        windows
    }

    /// Vegas runs its per-RTT adjustment only when snd_una passes the snd_nxt of the
    /// previous round: with the stream offsets from the shim it leaves slow start when
    /// the RTT triples (without them it would slow-start forever).
    #[test]
    fn vegas_in_the_agent_counts_rounds_from_the_stream_offsets() {
        let mut c = core(&AgentConfig::new("vegas"));
        let w = drive(&mut c, 200, |k| if k < 40 { 100 } else { 300 });
        let peak = *w.iter().max().unwrap();
        let last = *w.last().unwrap();
        assert!(
            last < peak,
            "Vegas never backed off: peak {peak}, last {last}"
        );
        assert!(
            c.flows[&7].cc.ssthresh() != u64::MAX,
            "Vegas is still in slow start"
        );
    }

    /// DA-LBE's A(t) is snd_una: the metacontroller's measured rate x̄ after its first
    /// 10 s tick is the rate at which the stream was acknowledged.
    #[test]
    fn dalbe_in_the_agent_measures_the_acknowledged_rate() {
        let mut cfg = AgentConfig::new("cubic");
        cfg.dalbe = Some(DalbeConfig {
            controller: "cubic-mbc".into(),
            params: Vec::new(),
            size: Some(100_000_000),
            deadline: Some(Dur::from_secs(60)),
        });
        let mut c = core(&cfg);
        // One 1000-byte segment acknowledged every 10 ms: 100 kB/s = 0.8 Mbit/s.
        drive(&mut c, 1_100, |_| 50);
        let xbar = traced(&c, "mbc_xbar_mbps");
        assert!(
            (xbar - 0.8).abs() < 0.01,
            "x̄ = {xbar} Mbit/s, acknowledged at 0.8"
        );
    }

    /// A send from an empty pipe is reported to the algorithm as such, and the data
    /// sent between two ACKs as one `on_sent` at the earlier ACK.
    #[test]
    fn sends_are_derived_from_snd_nxt() {
        let mut c = core(&AgentConfig::new("cubic"));
        drive(&mut c, 3, |_| 50);
        let f = &c.flows[&7];
        // 10 segments of initial window (one at TX_START) plus what each ACK released.
        assert!(f.sent_nxt >= 12 * MSS as u64, "sent_nxt {}", f.sent_nxt);
        assert_eq!(f.last_ts, 30_000_000);
    }

    /// Linux randomises each end's timestamp offset, so TSval − TSecr may sit anywhere in
    /// u32 and wrap; the OWD handed to the algorithm is relative to the first sample
    /// (standing for srtt/2), so it stays positive and follows the queue. The echo RTT is
    /// our timestamp clock (CLOCK_MONOTONIC ms) minus TSecr as the shim reads it from
    /// `rx_opt.rcv_tsecr`, where Linux has already taken our tsoffset off (issue 17: the
    /// agent added it again and got 60 ms + 2^31 - 16 ms, negative as i32, so 0).
    #[test]
    fn owd_is_relative_to_the_first_sample_and_echo_rtt_is_clock_minus_tsecr() {
        let mut c = core(&AgentConfig::new("ledbat"));
        c.handle(&ev(EV_OPEN, 0, 0, 0));
        let off: u32 = 0x7fff_fff0; // our offset; the peer's differs by about 2^31
        let peer_off: u32 = 0xffff_fff8;
        let mut got = Vec::new();
        // Queueing delay 0, 5, 10 ms on a 20 ms OWD; the echoed segment left 60, 65, 70 ms
        // before the ACK's record.
        for (k, q) in [0u64, 5, 10].iter().enumerate() {
            let now_ms = 1_000 + 100 * k as u64;
            let sent_ms = (now_ms - 60 - q) as u32;
            let mut e = ev(EV_ACK, now_ms, 1000 * (k as u64 + 1), 1000 * (k as u64 + 5));
            e.srtt_us = 60_000;
            // On the wire TSecr is sent_ms + off; rcv_tsecr holds it minus tsoffset.
            e.tsecr = sent_ms.wrapping_add(off).wrapping_sub(off);
            e.tsval = (sent_ms + 20 + *q as u32).wrapping_add(peer_off);
            e.tsoffset = off;
            let a = c.flows.get_mut(&7).unwrap().ack_sample(&e);
            got.push((a.owd, a.ts_echo_rtt.map(|d| d.nanos() / 1_000_000)));
        }
        assert_eq!(
            got,
            vec![
                (Some(30_000_000), Some(60)),
                (Some(35_000_000), Some(65)),
                (Some(40_000_000), Some(70))
            ],
            "OWD: srtt/2 first, then +5 ms per step; echo RTT 60, 65, 70 ms"
        );
        // A TSecr 3 ms ahead of our clock is no echo sample (tcp_rtt_tsopt_us gives -1),
        // not a zero one; the same 0 ms echo is a zero sample.
        let f = c.flows.get_mut(&7).unwrap();
        let mut e = ev(EV_ACK, 2_000, 5000, 9000);
        e.tsval = 123;
        e.tsecr = 2_003;
        assert_eq!(f.ack_sample(&e).ts_echo_rtt, None);
        e.tsecr = 2_000;
        assert_eq!(f.ack_sample(&e).ts_echo_rtt, Some(Dur::ZERO));
        // In µs mode (usec_ts) the clock is CLOCK_MONOTONIC in µs.
        e.usec_ts = 1;
        e.tsecr = (2_000_000u64 - 61_250) as u32;
        assert_eq!(f.ack_sample(&e).ts_echo_rtt, Some(Dur::from_micros(61_250)));
        // Without timestamps neither is given.
        let a = f.ack_sample(&ev(EV_ACK, 2_000, 5000, 9000));
        assert_eq!((a.owd, a.ts_echo_rtt), (None, None));
    }

    /// Two ACKs that echo the same TSecr, on either side of a millisecond boundary of our
    /// clock, rebuild the same send instant (`now − ts_echo_rtt`): the echo is measured
    /// from the start of the echoed tick (docs/deviations/kernel.md#kernel-echo-tick).
    /// In whole ticks they gave 940.9 ms and then 940.2 ms.
    #[test]
    fn acks_echoing_one_tsecr_rebuild_one_send_instant() {
        let mut c = core(&AgentConfig::new("tcp-lp"));
        c.handle(&ev(EV_OPEN, 0, 0, 0));
        let f = c.flows.get_mut(&7).unwrap();
        let mut sent = Vec::new();
        for ts_ns in [1_000_900_000u64, 1_001_200_000] {
            let mut e = ev(EV_ACK, 0, 5000, 9000);
            e.ts_ns = ts_ns;
            e.tsval = 777;
            e.tsecr = 940;
            let echo = f.ack_sample(&e).ts_echo_rtt.unwrap();
            // Never shorter than Linux's whole-tick RTT, and less than a tick longer.
            let whole_ms = ts_ns / 1_000_000 - 940;
            assert!(
                echo.nanos() >= whole_ms * 1_000_000 && echo.nanos() < (whole_ms + 1) * 1_000_000,
                "echo {echo:?} against {whole_ms} ms"
            );
            sent.push(ts_ns - echo.nanos());
        }
        assert_eq!(sent, vec![940_000_000, 940_000_000]);
    }

    /// TCP-LP's remote-HZ estimate through the agent: a run of ACKs that all echo one
    /// TSecr (a recovery, where TS.Recent does not move) must leave it where it was, as
    /// Linux 4.4 does (Δtsecr = 0 is no sample). With the echo in whole ticks and the
    /// agent's clock not on a millisecond boundary, every other ACK rebuilt its send a
    /// jiffy earlier, a wrapped Δtsecr and a sample of 0, and the estimate fell by 1/64 each
    /// time (docs/validation.md#tcp-lp-350-rhz).
    #[test]
    fn acks_echoing_one_tsecr_leave_tcp_lps_remote_hz_alone() {
        let mut c = core(&AgentConfig::new("tcp-lp"));
        c.epoch_ns = 500_000;
        c.handle(&ev(EV_OPEN, 0, 0, 0));
        let peer_off: u32 = 0x1234_5678;
        let (mut una, nxt) = (0u64, 1_000 * MSS as u64);
        let mut ack = |c: &mut Core, ts_ns: u64, tsecr_ms: u32, tsval_ms: u32| {
            una += MSS as u64;
            let mut e = ev(EV_ACK, 0, una, nxt);
            e.ts_ns = ts_ns;
            e.acked_sacked = 1;
            e.rtt_us = 350_000;
            e.srtt_us = 350_000;
            e.prior_in_flight = 100;
            e.tsecr = tsecr_ms;
            e.tsval = tsval_ms.wrapping_add(peer_off);
            c.handle(&e);
        };
        // 200 ACKs 4 ms apart, each echoing a segment sent 350 ms before (175 ms each way).
        for k in 0..200u64 {
            let now_ms = 2_000 + 4 * k;
            ack(
                &mut c,
                now_ms * 1_000_000 + 300_000,
                (now_ms - 350) as u32,
                (now_ms - 175) as u32,
            );
        }
        let before = traced(&c, "remote_hz");
        assert!(before > 200.0, "estimate {before} after the steady ACKs");
        // 400 ACKs 1.5 ms apart that all echo TSecr 2448 (a multiple of 4 ms, so that the
        // agent's jiffy boundary, 0.5 ms after it on our clock, falls inside the tick).
        let t0 = 2_800_000_000u64 + 300_000;
        for k in 0..400u64 {
            let ts_ns = t0 + k * 1_500_000;
            ack(&mut c, ts_ns, 2_448, (ts_ns / 1_000_000 - 175) as u32);
        }
        assert_eq!(traced(&c, "remote_hz"), before);
    }

    /// TCP-LP with its default Linux 4.4 clock model, through the translation layer with
    /// the timestamps as a kernel socket delivers them (random offsets on both ends, TSecr
    /// already without ours): a standing queue that grows by 1 ms per ACK must give early
    /// congestion indications and a window far below Reno's, as in the simulator. Before
    /// the issue-17 fix every echo RTT was 0, TCP-LP took no OWD sample and ran as Reno.
    #[test]
    fn tcp_lp_in_the_agent_sees_early_congestion_from_kernel_timestamps() {
        let run = |alg: &str| {
            let mut c = core(&AgentConfig::new(alg));
            c.handle(&ev(EV_OPEN, 0, 0, 0));
            let off: u32 = 0x9e37_79b9;
            let peer_off: u32 = 0x1234_5678;
            let (mut una, mut nxt) = (0u64, 10 * MSS as u64);
            let mut min_cwnd = u64::MAX;
            for k in 0..400u64 {
                // 25 ms each way plus a queue of k % 100 ms: it builds and drains.
                let q = k % 100;
                let now_ms = 1_000 + 10 * k;
                let sent_ms = (now_ms - 50 - q) as u32;
                una += MSS as u64;
                let mut e = ev(EV_ACK, now_ms, una, nxt);
                e.acked_sacked = 1;
                e.rtt_us = ((50 + q) * 1000) as i64;
                e.srtt_us = 60_000;
                e.prior_in_flight = ((nxt - una) / MSS as u64 + 1) as u32;
                e.tsecr = sent_ms; // rcv_tsecr: our tsoffset already off
                e.tsoffset = off;
                e.tsval = (sent_ms + 25 + q as u32).wrapping_add(peer_off);
                c.handle(&e);
                let cwnd = c.flows[&7].cc.cwnd();
                min_cwnd = min_cwnd.min(cwnd / MSS as u64);
                nxt = nxt.max(una + cwnd);
            }
            (c.flows[&7].cc.cwnd() / MSS as u64, min_cwnd)
        };
        let (reno, _) = run("newreno");
        let (lp, lp_min) = run("tcp-lp");
        assert!(
            lp_min <= 2 && lp * 4 < reno,
            "TCP-LP ended at {lp} (min {lp_min}) packets, NewReno at {reno}"
        );
    }

    /// The trace writes one row per record with the raw fields, the sample and the
    /// window after it, and is complete once the socket closes.
    #[test]
    fn the_trace_has_a_row_per_record_with_the_sample() {
        let dir = std::env::temp_dir().join(format!("scv-agent-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut c = core(&AgentConfig::new("newreno"));
        c.trace_dir = Some(dir.clone());
        c.handle(&ev(EV_OPEN, 0, 0, 0));
        let mut e = ev(EV_ACK, 1_000, 1000, 10_000);
        e.acked_sacked = 1;
        e.rtt_us = 50_000;
        e.tsval = 77;
        e.tsecr = 940;
        e.tsoffset = 5;
        c.handle(&e);
        c.handle(&ev(EV_CLOSE, 1_010, 1000, 10_000));
        let path = trace::path_for(&dir, &e);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 4, "{text}");
        assert_eq!(rows[0], trace::HEADER);
        assert!(rows[1].starts_with("0,open,"), "{}", rows[1]);
        let ack: Vec<&str> = rows[2].split(',').collect();
        let col = |name: &str| {
            let i = trace::HEADER.split(',').position(|h| h == name).unwrap();
            ack[i]
        };
        assert_eq!(
            (col("kind"), col("tsecr"), col("tsoffset"), col("s_rtt_ns")),
            ("ack", "940", "5", "50000000")
        );
        // 1000 ms − 940: the echo RTT; the first OWD stands for max(srtt/2, 1 ms).
        assert_eq!(
            (col("s_echo_rtt_ns"), col("s_owd_ns")),
            ("60000000", "1000000")
        );
        assert_eq!(col("cwnd_pkts"), "11", "slow start: 10 + 1");
        assert!(rows[3].starts_with("1010000000,close,"), "{}", rows[3]);
    }

    /// The conformance script (scavenger_cc::sample::conformance) as the shim would
    /// stream it: a `set_state` record at each transition of Linux's ca_state (it comes
    /// from tcp_fastretrans_alert, before cong_control's ACK record), then the ACK record
    /// with the kernel's counters in packets. The translation must give the same sample
    /// stream as the simulator's sender.
    #[test]
    fn the_translation_layer_produces_the_conformance_stream() {
        use sample::conformance::{self, Recorder, Step};
        assert_eq!(conformance::MSS, MSS as u64);
        let recorder = Recorder::default();
        let mut c = core(&AgentConfig::new("reno"));
        c.handle(&ev(EV_OPEN, 0, 0, 0));
        c.flows.get_mut(&7).unwrap().cc = Box::new(recorder.clone());
        let mut state = CaState::Open;
        let mut last = (0u64, 0u64);
        let set_state = |c: &mut Core, at_ms: u64, new: CaState, last: (u64, u64)| {
            let mut e = ev(EV_STATE, at_ms, last.0, last.1);
            e.flag = new as u32;
            c.handle(&e);
        };
        for step in conformance::SCRIPT {
            match step {
                Step::Rto { at_ms } => {
                    set_state(&mut c, *at_ms, CaState::Loss, last);
                    state = CaState::Loss;
                }
                Step::Ack(a) => {
                    let (una, nxt) = (a.cum as u64 * MSS as u64, a.nxt * MSS as u64);
                    if a.ca_state != state {
                        set_state(&mut c, a.at_ms, a.ca_state, (una, nxt));
                        state = a.ca_state;
                    }
                    let mut e = ev(EV_ACK, a.at_ms, una, nxt);
                    e.acked_sacked = a.acked as u32;
                    e.rtt_us = a.rtt_ms.map_or(-1, |r| r as i64 * 1000);
                    e.delivered = a.delivered;
                    e.prior_in_flight = a.prior_in_flight as u32;
                    e.in_flight = a.in_flight as u32;
                    e.ca_state = a.ca_state as u8;
                    e.flag = if a.ece { FLAG_ECE } else { 0 }
                        | if a.data_acked { FLAG_DATA_ACKED } else { 0 };
                    c.handle(&e);
                    last = (una, nxt);
                }
            }
        }
        conformance::assert_conforms(&recorder.conformed());
    }
}
