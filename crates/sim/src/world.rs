//! The dumbbell: N senders and N receivers on either side of one bottleneck with a
//! forward (data) and a reverse (ACK) direction, each with its own rate, queue, delay
//! and loss. Each flow may add its own access delay on the sender side.

use crate::config::{Direction, SimConfig, Traffic};
use crate::endpoint::{End, EndpointFlow, EndpointInit};
use crate::engine::{Event, EventQueue};
use crate::handshake::{self, Established};
use crate::packet::{Kind, Packet, HS_ACK, HS_NONE, HS_SYN, HS_SYNACK};
use crate::receiver::{DataOutcome, Receiver, ReceiverConfig};
use crate::result::*;
use crate::sender::{Sender, SenderConfig};
use crate::tap::{Tap, TapPoint};
use scavenger_cc::{CcInit, Dur, RecvInit, Rng, Time};
use scavenger_net::{DelayLine, Link, WirePacket};

const FWD: usize = 0;
const REV: usize = 1;

#[derive(Default)]
struct FlowCounters {
    data_dropped: u64,
    ack_sent: u64,
    ack_dropped: u64,
    ack_received: u64,
    /// Datagram flows: packets and wire bytes sent.
    cbr_sent_pkts: u64,
    cbr_sent_bytes: u64,
}

struct Flow {
    sender: Option<Sender>,
    receiver: Receiver,
    /// Access delay lines: towards the bottleneck, and back to the sender.
    up: Option<DelayLine<Packet>>,
    down: Option<DelayLine<Packet>>,
    up_wake: Option<Time>,
    down_wake: Option<Time>,
    rto_wake: Option<Time>,
    delack_wake: Option<Time>,
    send_wake: Option<Time>,
    counters: FlowCounters,
    /// Datagram flows: next sequence number, inter-departure draws, one-way delays.
    cbr_seq: u32,
    cbr_rng: Rng,
    cbr_owd: scavenger_net::Histogram,
    stopped: bool,
    /// Packet-endpoint flows (QUIC): the endpoints; `sender` stays `None`.
    ep: Option<EndpointFlow>,
    /// The handshake's client until the SYN-ACK arrives (`crate::handshake`).
    client: Option<handshake::Client>,
    /// The handshake's server side (established from the start without a handshake).
    server: handshake::Server,
    /// When the flow opened its connection (its start plus jitter): completion time runs
    /// from here.
    opened_at: Option<Time>,
}

struct SeriesState {
    bin: scavenger_cc::Dur,
    out: Series,
    last_rx: Vec<u64>,
    last_tx: u64,
}

pub struct Simulation {
    cfg: SimConfig,
    now: Time,
    end: Time,
    q: EventQueue,
    links: [Link<Packet>; 2],
    link_wake: [Option<Time>; 2],
    /// A `Link` event still queued for each link at a time its slot no longer holds (the
    /// latest one `arm_link` superseded; see there).
    link_later: [Option<Time>; 2],
    flows: Vec<Flow>,
    lost: Vec<Packet>,
    /// (jain spec index, true for the end of its window).
    probes: Vec<(usize, bool)>,
    jain_marks: Vec<(Vec<u64>, Vec<u64>)>,
    series: Option<SeriesState>,
    events: u64,
    /// Link events that found nothing due (`WorkCounts::noop_link_events`).
    noop_link_events: u64,
    /// Sees packets at the hosts' interfaces (`--pcap`); `None` costs one branch.
    tap: Option<Box<dyn Tap>>,
}

/// Arms a timer event unless one is already due no later than `deadline`.
#[inline]
fn arm(q: &mut EventQueue, slot: &mut Option<Time>, deadline: Option<Time>, ev: Event) {
    if let Some(d) = deadline {
        if slot.is_none_or(|s| d < s) {
            q.push(d, ev);
            *slot = Some(d);
        }
    }
}

/// `arm` for a link, which also remembers the wake-up it superseded. A link's wake-up
/// moves earlier whenever an idle link starts a transmission that ends before the head
/// of its delay line arrives (an ACK on the idle reverse link, about once per ACK); the
/// later entry stays in the queue, and when the link re-arms for that same time after
/// the earlier one has fired, that entry serves instead of a second one, which would
/// fire as a no-op (docs/performance.md#superseded-wakeups). Only the latest superseded
/// entry is remembered: an older one still fires, and `on_link` skips it.
#[inline(always)]
fn arm_link(
    q: &mut EventQueue,
    slot: &mut Option<Time>,
    later: &mut Option<Time>,
    deadline: Option<Time>,
    ev: Event,
) {
    if let Some(d) = deadline {
        if slot.is_none_or(|s| d < s) {
            if *later == Some(d) {
                *later = None;
            } else {
                if slot.is_some() {
                    *later = *slot;
                }
                q.push(d, ev);
            }
            *slot = Some(d);
        }
    }
}

/// Clears the slot if the event that fired is the one it recorded.
#[inline]
fn fired(slot: &mut Option<Time>, now: Time) {
    if *slot == Some(now) {
        *slot = None;
    }
}

impl Simulation {
    pub fn new(cfg: SimConfig) -> Simulation {
        let seed = cfg.seed;
        let links = [
            Link::new(cfg.forward.clone(), Rng::derive(seed, 1)),
            Link::new(cfg.reverse.clone(), Rng::derive(seed, 2)),
        ];
        let mut q = EventQueue::default();
        let end = Time::ZERO + cfg.duration;
        let flows = cfg
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let total_segs = f.size.map(|s| s.div_ceil(f.mss as u64).max(1) as u32);
                let until = f.stop.map_or(end, |s| s.min(end));
                q.push(
                    f.start + start_jitter(seed, i, f.start_jitter, until.since(f.start)),
                    Event::FlowStart(i as u32),
                );
                if let Some(stop) = f.stop {
                    q.push(stop, Event::FlowStop(i as u32));
                }
                let line = || (f.extra_delay.nanos() > 0).then(|| DelayLine::new(f.extra_delay));
                // What a handshake would measure: both bottleneck directions' delays and
                // the flow's access delay each way.
                let path_rtt =
                    cfg.forward.delay + cfg.reverse.delay + f.extra_delay + f.extra_delay;
                let mut receiver = Receiver::new(ReceiverConfig {
                    flow: i as u32,
                    header: f.header,
                    total_segs,
                    ack_every: f.ack_every,
                    delack_timeout: f.delack_timeout,
                    ack_model: f.ack_model,
                    path_rtt,
                    clock_offset: f.clock_offset,
                    mss: f.mss,
                    rwnd: f.rwnd,
                });
                if let (Some(rc), Traffic::Tcp) = (&f.receiver, f.traffic) {
                    receiver.set_window_control(rc.algorithm.instantiate(
                        &rc.params,
                        RecvInit {
                            now: f.start,
                            mss: f.mss as u64,
                            max_window: f.rwnd,
                        },
                    ));
                }
                Flow {
                    sender: None,
                    receiver,
                    up: line(),
                    down: line(),
                    up_wake: None,
                    down_wake: None,
                    rto_wake: None,
                    delack_wake: None,
                    send_wake: None,
                    counters: FlowCounters::default(),
                    cbr_seq: 0,
                    cbr_rng: Rng::derive(seed, 2000 + i as u64),
                    cbr_owd: scavenger_net::Histogram::new(),
                    stopped: false,
                    ep: None,
                    client: None,
                    server: handshake::Server::new(f.handshake && f.traffic == Traffic::Tcp),
                    opened_at: None,
                }
            })
            .collect();
        let mut probes = Vec::new();
        for (i, j) in cfg.measure.jain.iter().enumerate() {
            q.push(j.from, Event::Probe(probes.len() as u32));
            probes.push((i, false));
            // A window reaching past the end of the run closes at the end.
            q.push(
                j.to.min(Time::ZERO + cfg.duration),
                Event::Probe(probes.len() as u32),
            );
            probes.push((i, true));
        }
        let jain_marks = cfg
            .measure
            .jain
            .iter()
            .map(|j| (vec![0; j.flows.len()], vec![0; j.flows.len()]))
            .collect();
        let series = cfg.measure.series_bin.map(|bin| {
            q.push(Time::ZERO + bin, Event::SeriesTick);
            SeriesState {
                bin,
                out: Series {
                    bin_s: bin.secs_f64(),
                    time_s: vec![],
                    flow_goodput_bps: vec![vec![]; cfg.flows.len()],
                    flow_cwnd_bytes: vec![vec![]; cfg.flows.len()],
                    flow_trace: vec![vec![]; cfg.flows.len()],
                    link_utilisation: vec![],
                    queue_pkts: vec![],
                },
                last_rx: vec![0; cfg.flows.len()],
                last_tx: 0,
            }
        });
        let end = Time::ZERO + cfg.duration;
        Simulation {
            cfg,
            now: Time::ZERO,
            end,
            q,
            links,
            link_wake: [None, None],
            link_later: [None, None],
            flows,
            lost: Vec::new(),
            probes,
            jain_marks,
            series,
            events: 0,
            noop_link_events: 0,
            tap: None,
        }
    }

    /// Shows every packet leaving or reaching a host to `tap`. Reading only: the result
    /// is the same as without.
    pub fn set_tap(&mut self, tap: Box<dyn Tap>) {
        self.tap = Some(tap);
    }

    #[inline]
    fn tapped(&mut self, at: TapPoint, p: &Packet) {
        if let Some(t) = self.tap.as_mut() {
            t.packet(self.now, at, p);
        }
    }

    /// Runs to the configured duration and returns the measurements.
    pub fn run(self) -> SimResult {
        self.run_observed(&mut |_| {})
    }

    /// Runs as `run` does, calling `observe` with the simulated time every
    /// `OBSERVE_EVERY` events, so a front end can show progress. Observing reads only the
    /// clock: the result is the same as `run`'s.
    pub fn run_observed(mut self, observe: &mut dyn FnMut(Time)) -> SimResult {
        self.run_events(observe);
        self.finish()
    }

    /// Runs as `run` does and also returns the senders' scoreboard steps and ACKs,
    /// summed over flows, for the test that the work per ACK is flat in the window, and
    /// the link events that had nothing to do.
    pub fn run_counted(mut self) -> (SimResult, WorkCounts) {
        self.run_events(&mut |_| {});
        let mut c = WorkCounts {
            noop_link_events: self.noop_link_events,
            ..WorkCounts::default()
        };
        for s in self.flows.iter().filter_map(|f| f.sender.as_ref()) {
            let (ops, acks) = s.scoreboard_counts();
            c.ops += ops;
            c.acks += acks;
        }
        (self.finish(), c)
    }

    fn run_events(&mut self, observe: &mut dyn FnMut(Time)) {
        while let Some((t, ev)) = self.q.pop_until(self.end) {
            self.now = t;
            self.events += 1;
            if self.events & (OBSERVE_EVERY - 1) == 0 {
                observe(self.now);
            }
            self.handle(ev);
        }
        self.now = self.end;
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Link(d) => self.on_link(d as usize),
            Event::Access(f, dir) => self.on_access(f as usize, dir),
            Event::FlowStart(f) => self.on_flow_start(f as usize),
            Event::FlowStop(f) => self.on_flow_stop(f as usize),
            Event::CbrSend(f) => self.on_cbr_send(f as usize),
            Event::Send(f) => {
                fired(&mut self.flows[f as usize].send_wake, self.now);
                self.try_send(f as usize);
            }
            Event::Rto(f) => self.on_rto(f as usize),
            Event::DelAck(f) => self.on_delack(f as usize),
            Event::Probe(i) => self.on_probe(i as usize),
            Event::SeriesTick => self.on_series_tick(),
        }
    }

    fn on_flow_stop(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        flow.stopped = true;
        if let Some(s) = flow.sender.as_mut() {
            s.stop();
        }
        if let Some(ep) = flow.ep.as_mut() {
            ep.eps.stop(self.now);
        }
    }

    fn on_cbr_send(&mut self, f: usize) {
        let Traffic::Cbr {
            rate,
            payload,
            poisson,
        } = self.cfg.flows[f].traffic
        else {
            return;
        };
        let header = self.cfg.flows[f].header;
        let flow = &mut self.flows[f];
        if flow.stopped {
            return;
        }
        let p = Packet::data(
            f as u32,
            flow.cbr_seq,
            payload,
            header,
            self.now.nanos(),
            false,
        );
        flow.cbr_seq = flow.cbr_seq.wrapping_add(1);
        flow.counters.cbr_sent_pkts += 1;
        flow.counters.cbr_sent_bytes += p.wire as u64;
        let mean = rate.tx_time(p.wire as u64);
        // Exponential gaps (Wallenburg 2018's noise) by inversion; 1 − u is never zero.
        let gap = if poisson {
            mean.mul_f64(-(1.0 - flow.cbr_rng.uniform()).ln())
        } else {
            mean
        };
        self.q.push(self.now + gap, Event::CbrSend(f as u32));
        self.route_data(f, p);
    }

    fn on_flow_start(&mut self, f: usize) {
        if matches!(self.cfg.flows[f].traffic, Traffic::Cbr { .. }) {
            self.on_cbr_send(f);
            return;
        }
        if self.flows[f].stopped {
            return;
        }
        self.flows[f].opened_at = Some(self.now);
        if let Some(make) = &self.cfg.flows[f].endpoints {
            let init = EndpointInit {
                flow: f as u32,
                now: self.now,
                seed: self.cfg.seed,
                size: self.cfg.flows[f].size,
            };
            self.flows[f].ep = Some(EndpointFlow::new(make(&init)));
            self.pump_endpoints(f);
            return;
        }
        if self.cfg.flows[f].handshake {
            let (c, syn) = handshake::Client::open(f as u32, self.cfg.flows[f].header, self.now);
            let flow = &mut self.flows[f];
            arm(
                &mut self.q,
                &mut flow.rto_wake,
                c.deadline(),
                Event::Rto(f as u32),
            );
            flow.client = Some(c);
            self.route_data(f, syn);
            return;
        }
        self.start_sender(f, None);
    }

    /// Starts the flow's sender: at the flow's start without a handshake, else when the
    /// SYN-ACK arrives, with what it established (initial window, the SYN-ACK's window,
    /// the RTT sample and TS.Recent).
    fn start_sender(&mut self, f: usize, est: Option<Established>) {
        let fc = &self.cfg.flows[f];
        let total_segs = fc.size.map(|s| s.div_ceil(fc.mss as u64).max(1) as u32);
        let last_seg_len = fc.size.map_or(fc.mss, |s| {
            (s - (s.div_ceil(fc.mss as u64).max(1) - 1) * fc.mss as u64) as u32
        });
        let iw = est.map_or(fc.initial_window, |e| e.initial_window);
        let init = CcInit {
            now: self.now,
            mss: fc.mss as u64,
            initial_cwnd: iw as u64 * fc.mss as u64,
            rng: Rng::derive(self.cfg.seed, 1000 + f as u64),
        };
        let cc = match &fc.wrap {
            Some(wrap) => {
                let outer = init.clone();
                wrap(fc.algorithm.instantiate(&fc.params, init), &outer)
            }
            None => fc.algorithm.instantiate(&fc.params, init),
        };
        // With a receive-side controller the connection starts with the window the
        // receiver advertises in the handshake (not modelled otherwise).
        // Linux's autotuning starts from the SYN-ACK's window (`crate::rcvbuf`).
        let receiver_window = self.flows[f].receiver.limits_window();
        let rwnd = match (receiver_window, est) {
            (true, Some(e)) => e.rwnd as u64,
            (true, None) => self.flows[f].receiver.advertise(),
            (false, _) => fc.rwnd,
        };
        let scfg = SenderConfig {
            flow: f as u32,
            mss: fc.mss,
            header: fc.header,
            rwnd,
            receiver_window,
            total_segs,
            last_seg_len,
            pacing: fc.pacing,
            ecn: fc.ecn,
            prr: true,
            psh: fc.psh,
            psh_rule: fc.psh_rule,
            shim_lag: fc.shim_lag,
            pacing_credit: fc.pacing_credit,
            gso_max_segs: fc.gso_max_segs,
        };
        let mut sender = Sender::new(scfg, cc, self.now);
        if let Some(e) = est {
            sender.on_handshake(self.now, e.rtt, e.ts_recent);
        }
        self.flows[f].sender = Some(sender);
        self.try_send(f);
    }

    /// A SYN-ACK reached the client: the first establishes the connection, which ACKs it
    /// and starts sending (`crate::handshake`).
    fn on_synack(&mut self, f: usize, p: Packet) {
        let iw = self.cfg.flows[f].initial_window;
        let flow = &mut self.flows[f];
        if flow.stopped || flow.sender.is_some() {
            return;
        }
        let Some(c) = flow.client.as_mut() else {
            return;
        };
        let Some(est) = c.on_synack(self.now, &p, iw) else {
            return;
        };
        let ack = c.ack(self.now, est.ts_recent);
        self.route_data(f, ack);
        self.start_sender(f, Some(est));
    }

    /// A handshake packet (SYN or the client's ACK) reached the server.
    fn on_handshake_at_server(&mut self, f: usize, p: Packet) {
        let now = self.now;
        let header = self.cfg.flows[f].header;
        let offset = self.cfg.flows[f].clock_offset;
        let flow = &mut self.flows[f];
        match p.hs {
            HS_SYN => {
                let receiver = &mut flow.receiver;
                let Some(sa) = flow
                    .server
                    .on_syn(now, &p, header, offset, || receiver.advertise())
                else {
                    return;
                };
                self.tapped(TapPoint::ReceiverOut, &sa);
                self.enqueue(1 - self.data_link(f), sa);
            }
            HS_ACK => {
                if let Some(rtt) = flow.server.establish(now) {
                    flow.receiver.on_established(now, rtt);
                }
            }
            _ => {}
        }
    }

    fn try_send(&mut self, f: usize) {
        if self.flows[f].ep.is_some() {
            self.pump_endpoints(f);
            return;
        }
        let now = self.now;
        loop {
            let Some(s) = self.flows[f].sender.as_mut() else {
                return;
            };
            let Some(p) = s.next_packet(now) else { break };
            self.route_data(f, p);
        }
        let flow = &mut self.flows[f];
        let s = flow.sender.as_ref().expect("started");
        if !s.completed() && s.next_send_time() > now {
            arm(
                &mut self.q,
                &mut flow.send_wake,
                Some(s.next_send_time()),
                Event::Send(f as u32),
            );
        }
        arm(
            &mut self.q,
            &mut flow.rto_wake,
            s.rto_deadline(),
            Event::Rto(f as u32),
        );
    }

    /// The bottleneck direction that carries flow `f`'s data (its ACKs use the other).
    fn data_link(&self, f: usize) -> usize {
        match self.cfg.flows[f].direction {
            Direction::Forward => FWD,
            Direction::Reverse => REV,
        }
    }

    fn route_data(&mut self, f: usize, p: Packet) {
        self.tapped(TapPoint::SenderOut, &p);
        if let Some(line) = self.flows[f].up.as_mut() {
            line.push(self.now, p);
            let next = line.next_wakeup();
            arm(
                &mut self.q,
                &mut self.flows[f].up_wake,
                next,
                Event::Access(f as u32, 0),
            );
        } else {
            self.enqueue(self.data_link(f), p);
        }
    }

    fn enqueue(&mut self, d: usize, p: Packet) {
        self.links[d].enqueue(self.now, p, &mut self.lost);
        if !self.lost.is_empty() {
            self.count_lost();
        }
        let next = self.links[d].next_wakeup();
        arm_link(
            &mut self.q,
            &mut self.link_wake[d],
            &mut self.link_later[d],
            next,
            Event::Link(d as u8),
        );
    }

    /// Counts the packets in `self.lost` against their flows (and tells a packet
    /// endpoint, e.g. QUIC, that its datagram is gone) and empties it.
    #[cold]
    fn count_lost(&mut self) {
        for p in self.lost.drain(..) {
            let f = &mut self.flows[p.flow as usize];
            if p.hs != HS_NONE {
                // Handshake packets are not the flow's data or ACKs.
                continue;
            }
            if let Some(ep) = f.ep.as_mut() {
                ep.dropped(&p);
            }
            let c = &mut f.counters;
            match p.kind {
                Kind::Data => c.data_dropped += p.wire as u64,
                Kind::Ack => c.ack_dropped += p.wire as u64,
            }
        }
    }

    fn on_link(&mut self, d: usize) {
        let now = self.now;
        if self.link_later[d] == Some(now) {
            self.link_later[d] = None;
        }
        // A wake-up that `arm` superseded with an earlier one (the link's slot moved
        // off this time) has nothing to do: the slot is never later than the link's next
        // work, so the link has none due now. It still counts as an event (the count is
        // part of every result), but skips the link's advance, poll and re-arm.
        if self.link_wake[d] != Some(now) {
            debug_assert!(
                self.links[d].next_wakeup().is_none_or(|t| t > now),
                "a superseded link wake-up found work due"
            );
            self.noop_link_events += 1;
            return;
        }
        fired(&mut self.link_wake[d], now);
        self.links[d].advance(now, &mut self.lost);
        if !self.lost.is_empty() {
            self.count_lost();
        }
        while let Some((_, p)) = self.links[d].poll(now) {
            match p.kind {
                Kind::Data => self.on_data_arrival(p),
                Kind::Ack => self.ack_to_sender(p),
            }
        }
        let next = self.links[d].next_wakeup();
        arm_link(
            &mut self.q,
            &mut self.link_wake[d],
            &mut self.link_later[d],
            next,
            Event::Link(d as u8),
        );
    }

    fn on_access(&mut self, f: usize, dir: u8) {
        let now = self.now;
        let flow = &mut self.flows[f];
        let (line, wake) = if dir == 0 {
            (flow.up.as_mut(), &mut flow.up_wake)
        } else {
            (flow.down.as_mut(), &mut flow.down_wake)
        };
        fired(wake, now);
        let Some(line) = line else { return };
        let mut due = Vec::new();
        while let Some((_, p)) = line.poll(now) {
            due.push(p);
        }
        let next = line.next_wakeup();
        arm(&mut self.q, wake, next, Event::Access(f as u32, dir));
        for p in due {
            if dir == 0 {
                self.enqueue(self.data_link(f), p);
            } else {
                self.on_ack_arrival(p);
            }
        }
    }

    fn on_data_arrival(&mut self, p: Packet) {
        self.tapped(TapPoint::ReceiverIn, &p);
        let f = p.flow as usize;
        if p.hs != HS_NONE {
            self.on_handshake_at_server(f, p);
            return;
        }
        if self.flows[f].ep.is_some() {
            self.endpoint_arrival(p);
            return;
        }
        if matches!(self.cfg.flows[f].traffic, Traffic::Cbr { .. }) {
            let flow = &mut self.flows[f];
            flow.cbr_owd
                .record(self.now.nanos().saturating_sub(p.tsval));
            let st = &mut flow.receiver.stats;
            st.data_pkts += 1;
            st.data_wire_bytes += p.wire as u64;
            st.unique_bytes += p.len as u64;
            st.first_byte.get_or_insert(self.now);
            return;
        }
        let flow = &mut self.flows[f];
        if !flow.server.established() {
            // The client's ACK was lost: its first data segment ends the handshake.
            if let Some(rtt) = flow.server.establish(self.now) {
                flow.receiver.on_established(self.now, rtt);
            }
        }
        match self.flows[f].receiver.on_data(self.now, &p) {
            DataOutcome::AckNow => self.send_ack(f),
            DataOutcome::Delay(t) => arm(
                &mut self.q,
                &mut self.flows[f].delack_wake,
                Some(t),
                Event::DelAck(f as u32),
            ),
        }
    }

    fn send_ack(&mut self, f: usize) {
        let a = self.flows[f].receiver.make_ack(self.now);
        self.tapped(TapPoint::ReceiverOut, &a);
        self.flows[f].counters.ack_sent += a.wire as u64;
        self.enqueue(1 - self.data_link(f), a);
    }

    fn ack_to_sender(&mut self, p: Packet) {
        let f = p.flow as usize;
        if let Some(line) = self.flows[f].down.as_mut() {
            line.push(self.now, p);
            let next = line.next_wakeup();
            arm(
                &mut self.q,
                &mut self.flows[f].down_wake,
                next,
                Event::Access(f as u32, 1),
            );
        } else {
            self.on_ack_arrival(p);
        }
    }

    fn on_ack_arrival(&mut self, p: Packet) {
        self.tapped(TapPoint::SenderIn, &p);
        let f = p.flow as usize;
        self.flows[f].counters.ack_received += p.wire as u64;
        if self.flows[f].ep.is_some() {
            self.endpoint_arrival(p);
            return;
        }
        if p.hs == HS_SYNACK {
            self.on_synack(f, p);
            return;
        }
        let Some(s) = self.flows[f].sender.as_mut() else {
            return;
        };
        s.on_ack(self.now, &p);
        self.try_send(f);
    }

    /// Sends what flow `f`'s endpoints have to send now and arms their next timer (the
    /// flow's `Send` event, which for these flows means "the endpoints have work due").
    fn pump_endpoints(&mut self, f: usize) {
        let now = self.now;
        let header = self.cfg.flows[f].header;
        let ep = self.flows[f].ep.as_mut().expect("an endpoint flow");
        if ep.eps.next_timeout().is_some_and(|t| t <= now) {
            ep.eps.handle_timeout(now);
        }
        while let Some((from, p)) = self.flows[f]
            .ep
            .as_mut()
            .expect("started")
            .next_packet(now, f as u32, header)
        {
            match from {
                End::Client => self.route_data(f, p),
                End::Server => {
                    self.tapped(TapPoint::ReceiverOut, &p);
                    self.flows[f].counters.ack_sent += p.wire as u64;
                    self.enqueue(1 - self.data_link(f), p);
                }
            }
        }
        let flow = &mut self.flows[f];
        // A timer still due now was just handled: run it again a nanosecond later rather
        // than at this instant, so that no pair of endpoints can hold the clock still.
        let next = flow.ep.as_mut().expect("started").eps.next_timeout();
        let next = next.map(|t| t.max(now + scavenger_cc::Dur(1)));
        arm(
            &mut self.q,
            &mut flow.send_wake,
            next,
            Event::Send(f as u32),
        );
    }

    /// A datagram of an endpoint flow reached its end (after the host's tap).
    fn endpoint_arrival(&mut self, p: Packet) {
        let f = p.flow as usize;
        let now = self.now;
        let flow = &mut self.flows[f];
        let ep = flow.ep.as_mut().expect("an endpoint flow");
        ep.arrive(now, &p);
        if p.kind == Kind::Data {
            let status = ep.eps.status();
            let st = &mut flow.receiver.stats;
            st.data_pkts += 1;
            st.data_wire_bytes += p.wire as u64;
            st.unique_bytes = status.delivered;
            if status.delivered > 0 {
                st.first_byte.get_or_insert(now);
            }
            if status.finished && st.completed_at.is_none() {
                st.completed_at = Some(now);
            }
        }
        self.pump_endpoints(f);
    }

    fn on_rto(&mut self, f: usize) {
        let now = self.now;
        fired(&mut self.flows[f].rto_wake, now);
        let flow = &mut self.flows[f];
        if flow.sender.is_none() {
            // SYN-SENT: the SYN's timer (`crate::handshake`).
            let Some(c) = flow.client.as_mut() else {
                return;
            };
            if flow.stopped {
                return;
            }
            let syn = if c.deadline().is_some_and(|d| d <= now) {
                c.on_timeout(now)
            } else {
                None
            };
            let next = c.deadline();
            arm(&mut self.q, &mut flow.rto_wake, next, Event::Rto(f as u32));
            if let Some(syn) = syn {
                self.route_data(f, syn);
            }
            return;
        }
        let Some(s) = self.flows[f].sender.as_mut() else {
            return;
        };
        if s.rto_deadline().is_some_and(|d| d <= now) {
            s.on_rto(now);
        }
        self.try_send(f);
    }

    fn on_delack(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        fired(&mut flow.delack_wake, now);
        if flow.receiver.on_ack_timer(now) {
            self.send_ack(f);
        } else {
            let d = flow.receiver.ack_deadline();
            arm(
                &mut self.q,
                &mut flow.delack_wake,
                d,
                Event::DelAck(f as u32),
            );
        }
    }

    fn on_probe(&mut self, i: usize) {
        let (j, is_end) = self.probes[i];
        let spec = &self.cfg.measure.jain[j];
        for (k, &f) in spec.flows.iter().enumerate() {
            let b = self.flows[f].receiver.stats.unique_bytes;
            if is_end {
                self.jain_marks[j].1[k] = b;
            } else {
                self.jain_marks[j].0[k] = b;
            }
        }
    }

    fn on_series_tick(&mut self) {
        let Some(st) = self.series.as_mut() else {
            return;
        };
        let bin = st.bin.secs_f64();
        st.out.time_s.push(self.now.secs_f64());
        for (i, f) in self.flows.iter_mut().enumerate() {
            let rx = f.receiver.stats.unique_bytes;
            st.out.flow_goodput_bps[i].push((rx - st.last_rx[i]) as f64 * 8.0 / bin);
            st.last_rx[i] = rx;
            let cwnd = match (&f.sender, &f.ep) {
                (Some(s), _) => s.cwnd(),
                (None, Some(ep)) => ep.eps.status().cwnd,
                (None, None) => 0,
            };
            st.out.flow_cwnd_bytes[i].push(cwnd);
            let bins = st.out.time_s.len();
            if let Some(s) = f.sender.as_mut() {
                let tr = &mut st.out.flow_trace[i];
                let mut vars = s.trace().to_vec();
                if let Some(c) = f.receiver.window_control() {
                    c.trace(&mut vars);
                }
                for &(name, v) in &vars {
                    let col = match tr.iter().position(|(n, _)| n == name) {
                        Some(c) => c,
                        None => {
                            // A variable first seen now: earlier bins had no value.
                            tr.push((name.to_string(), vec![f64::NAN; bins - 1]));
                            tr.len() - 1
                        }
                    };
                    tr[col].1.push(v);
                }
                for (_, col) in tr.iter_mut() {
                    col.resize(bins, f64::NAN);
                }
            }
        }
        let tx = self.links[FWD].stats().tx_bytes;
        let cap = self.links[FWD].config().rate.bytes_in(st.bin) as f64;
        st.out.link_utilisation.push(if cap > 0.0 {
            (tx - st.last_tx) as f64 / cap
        } else {
            0.0
        });
        st.last_tx = tx;
        st.out.queue_pkts.push(self.links[FWD].queue_len() as u64);
        let next = self.now + st.bin;
        if next <= self.end {
            self.q.push(next, Event::SeriesTick);
        }
    }

    fn finish(mut self) -> SimResult {
        let end = self.end;
        let n = self.flows.len();
        // Bytes still inside the network, per flow and kind.
        let mut data_in_flight = vec![0u64; n];
        let mut data_in_flight_pkts = vec![0u64; n];
        let mut ack_in_flight = vec![0u64; n];
        let mut tally = |p: &Packet| match p.kind {
            _ if p.hs != HS_NONE => {}
            Kind::Data => {
                data_in_flight[p.flow as usize] += p.wire as u64;
                data_in_flight_pkts[p.flow as usize] += 1;
            }
            Kind::Ack => ack_in_flight[p.flow as usize] += p.wire as u64,
        };
        for l in &self.links {
            l.in_transit().for_each(&mut tally);
        }
        for f in &self.flows {
            f.up.iter().flat_map(|l| l.iter()).for_each(&mut tally);
            f.down.iter().flat_map(|l| l.iter()).for_each(&mut tally);
        }
        let flows = self
            .flows
            .iter_mut()
            .zip(&self.cfg.flows)
            .enumerate()
            .map(|(i, (f, fc))| {
                let rs = &f.receiver.stats;
                let stop = rs
                    .completed_at
                    .unwrap_or(fc.stop.map_or(end, |s| s.min(end)));
                let active = stop.since(fc.start).secs_f64();
                let per_s = |b: u64| {
                    if active > 0.0 {
                        b as f64 * 8.0 / active
                    } else {
                        0.0
                    }
                };
                let srtt_ms = f
                    .sender
                    .as_ref()
                    .and_then(|s| s.stats.srtt_weighted_mean_ns())
                    .map(|ns| ns * 1e-6);
                let (sent, rtt, retrans, frs, tos, cwnd, ecn) = match (&f.sender, &f.ep) {
                    (None, Some(ep)) => {
                        let st = ep.eps.status();
                        (
                            ep.sent_wire_bytes,
                            stats_from(&ep.rtt, 1e-6),
                            st.lost_packets,
                            st.loss_reductions,
                            st.timeouts,
                            st.cwnd,
                            st.ecn_reductions,
                        )
                    }
                    (Some(s), _) => (
                        s.stats.data_wire_bytes_sent,
                        stats_from(&s.stats.rtt, 1e-6),
                        s.stats.retransmits,
                        s.stats.fast_recoveries,
                        s.stats.timeouts,
                        s.cwnd(),
                        s.stats.ecn_responses,
                    ),
                    (None, None) => (
                        f.counters.cbr_sent_bytes,
                        stats_from(&scavenger_net::Histogram::new(), 1e-6),
                        0,
                        0,
                        0,
                        0,
                        0,
                    ),
                };
                FlowResult {
                    name: fc.name.clone(),
                    algorithm: match (fc.traffic, &fc.receiver) {
                        (Traffic::Tcp, None) => fc.algorithm.name.to_string(),
                        // The sender's algorithm and the receiver's window controller.
                        (Traffic::Tcp, Some(rc)) => {
                            format!("{}+{}", fc.algorithm.name, rc.algorithm.name)
                        }
                        (Traffic::Cbr { .. }, _) => "cbr".to_string(),
                    },
                    start_s: fc.start.secs_f64(),
                    size_bytes: fc.size,
                    // From when the connection opened (the SYN, or the first data without
                    // a handshake), as a user's wall clock measures a download.
                    completion_time_s: rs
                        .completed_at
                        .map(|c| c.since(f.opened_at.unwrap_or(fc.start)).secs_f64()),
                    completed_at_s: rs.completed_at.map(|c| c.secs_f64()),
                    active_s: active,
                    delivered_bytes: rs.unique_bytes,
                    goodput_bps: per_s(rs.unique_bytes),
                    throughput_bps: per_s(rs.data_wire_bytes),
                    rtt_ms: rtt,
                    srtt_ms,
                    retransmits: retrans,
                    fast_recoveries: frs,
                    timeouts: tos,
                    ecn_responses: ecn,
                    final_cwnd_bytes: cwnd,
                    owd_ms: matches!(fc.traffic, Traffic::Cbr { .. })
                        .then(|| stats_from(&f.cbr_owd, 1e-6)),
                    loss_rate: match fc.traffic {
                        Traffic::Cbr { .. } if f.counters.cbr_sent_pkts > 0 => {
                            // Datagrams still in the network at the end are neither lost nor received.
                            let in_flight_pkts = data_in_flight_pkts[i];
                            let settled = f.counters.cbr_sent_pkts - in_flight_pkts;
                            Some(if settled > 0 {
                                1.0 - rs.data_pkts as f64 / settled as f64
                            } else {
                                0.0
                            })
                        }
                        _ => None,
                    },
                    conservation: Conservation {
                        sent_bytes: sent,
                        delivered_bytes: rs.data_wire_bytes,
                        dropped_bytes: f.counters.data_dropped,
                        in_flight_bytes: data_in_flight[i],
                    },
                }
            })
            .collect();
        let duration = self.cfg.duration;
        let links = ["forward", "reverse"]
            .iter()
            .zip(&self.links)
            .map(|(name, l)| {
                let in_transit: u64 = l.in_transit().map(|p| p.wire_bytes() as u64).sum();
                LinkResult::from_stats(name, l.stats(), l.config().rate, duration, in_transit)
            })
            .collect();
        let jain = self
            .cfg
            .measure
            .jain
            .iter()
            .zip(&self.jain_marks)
            .map(|(j, (from, to))| {
                let span = j.to.min(end).since(j.from).secs_f64();
                let rates: Vec<f64> = from
                    .iter()
                    .zip(to)
                    .map(|(a, b)| {
                        if span > 0.0 {
                            (b - a) as f64 * 8.0 / span
                        } else {
                            0.0
                        }
                    })
                    .collect();
                JainResult {
                    name: j.name.clone(),
                    flows: j
                        .flows
                        .iter()
                        .map(|&f| self.cfg.flows[f].name.clone())
                        .collect(),
                    from_s: j.from.secs_f64(),
                    to_s: j.to.secs_f64(),
                    index: jain_index(&rates),
                    goodput_bps: rates,
                }
            })
            .collect();
        SimResult {
            duration_s: duration.secs_f64(),
            events: self.events,
            flows,
            links,
            jain,
            series: self.series.map(|s| s.out),
        }
    }
}

/// Work counters of a run (`Simulation::run_counted`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkCounts {
    /// Steps the senders' scoreboards took (segments, ranges and queue entries visited).
    pub ops: u64,
    /// ACKs the senders processed.
    pub acks: u64,
    /// Link events that found nothing due: wake-ups superseded by an earlier one.
    pub noop_link_events: u64,
}

/// Runs a configuration to completion.
pub fn run(cfg: SimConfig) -> SimResult {
    Simulation::new(cfg).run()
}

/// How many events pass between two calls of `run_observed`'s observer (a power of two,
/// a few milliseconds of wall time).
pub const OBSERVE_EVERY: u64 = 1 << 16;

/// `run`, calling `observe(simulated time)` every `OBSERVE_EVERY` events.
pub fn run_observed(cfg: SimConfig, observe: &mut dyn FnMut(Time)) -> SimResult {
    Simulation::new(cfg).run_observed(observe)
}

/// The flow's start offset, U[0, `jitter`] in whole nanoseconds from the run's seed (one
/// stream per flow, 3000 + index, so adding a flow leaves the others' draws alone), capped
/// to start before `room` (the time from the configured start to the flow's stop or the
/// end of the run) runs out (docs/deviations/simulator.md#sim-start-jitter).
pub fn start_jitter(seed: u64, flow: usize, jitter: Dur, room: Dur) -> Dur {
    if jitter == Dur::ZERO {
        return Dur::ZERO;
    }
    let bound = jitter.nanos().min(room.nanos().saturating_sub(1));
    Dur::from_nanos(Rng::derive(seed, 3000 + flow as u64).below(bound + 1))
}
