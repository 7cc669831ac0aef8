//! The link emulator: the net layer's `Link` (the very objects the simulator drives),
//! one per direction, fed with packets read from two TUN devices and driven by the real
//! clock. Per-flow extra delay (host access delays and a flow's `extra_delay`, as the
//! simulator's per-flow delay lines) follows the bottleneck.
//!
//! `Emulator` is sans-IO (packets in with a time, packets out through a callback);
//! `run_io` is the loop that reads and writes the TUN devices and sleeps with ppoll
//! until the next wake-up the links ask for.

use crate::clock::Clock;
use crate::packet::{FiveTuple, FlowTag, IpPacket, PROTO_TCP, PROTO_UDP};
use crate::sys;
use scavenger_cc::{Dur, Rng, Time};
use scavenger_net::{DelayLine, Histogram, Link, LinkConfig, LinkStats, WirePacket};
use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub const FORWARD: usize = 0;
pub const REVERSE: usize = 1;

/// How the emulator recognises a scenario flow: the port its receiver listens on, the
/// direction its data takes, and the one-way delay added after the bottleneck.
#[derive(Clone, Debug)]
pub struct FlowRoute {
    pub port: u16,
    pub data_forward: bool,
    pub extra_delay: Dur,
}

#[derive(Clone, Debug)]
pub struct EmulatorConfig {
    pub forward: LinkConfig,
    pub reverse: LinkConfig,
    pub seed: u64,
    pub flows: Vec<FlowRoute>,
    /// Keep the per-packet log (at most this many records per direction).
    pub log_limit: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum LogKind {
    Arrival = b'+',
    Departure = b'-',
    QueueDrop = b'd',
    WireLoss = b'l',
}

/// One per-packet event, 16 bytes. For departures `qdelay_ns` is the time from arrival
/// to the end of transmission minus nothing else (sojourn + serialisation), as
/// mahimahi's departure delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogRecord {
    pub t_ns: u64,
    pub qdelay_ns: u32,
    pub bytes: u16,
    pub kind: LogKind,
    pub flow: u8,
}

/// Data-direction counters of one flow, in IP bytes (as the simulator's conservation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowCounters {
    pub data_arrived_bytes: u64,
    pub data_delivered_bytes: u64,
    pub data_dropped_bytes: u64,
    pub data_in_flight_bytes: u64,
}

struct Direction {
    link: Link<IpPacket>,
    delay: Dur,
    /// Per flow: its extra delay after the bottleneck, if any.
    extra: Vec<Option<DelayLine<IpPacket>>>,
    log: Vec<LogRecord>,
    log_dropped: u64,
    /// How late each packet left the emulator (now − due), ns.
    late: Histogram,
}

pub struct Emulator {
    dirs: [Direction; 2],
    ports: HashMap<u16, u32>,
    routes: Vec<FlowRoute>,
    flows: Vec<FlowCounters>,
    dropped: Vec<IpPacket>,
    pool: Vec<Vec<u8>>,
    log_limit: usize,
    pub packets: u64,
}

/// What the emulator measured.
#[derive(Clone, Debug)]
pub struct EmulatorReport {
    pub links: [LinkStats; 2],
    pub configs: [LinkConfig; 2],
    /// Bytes still inside each link at the end.
    pub in_transit_bytes: [u64; 2],
    pub flows: Vec<FlowCounters>,
    pub logs: [Vec<LogRecord>; 2],
    pub log_dropped: [u64; 2],
    pub lateness_ns: [Histogram; 2],
    pub packets: u64,
    pub write_errors: u64,
    /// Whether the emulator thread ran under SCHED_FIFO (or why not).
    pub realtime: Result<(), NotRealtime>,
    /// CPU seconds the emulator thread used (user + system, including the kernel work
    /// of writing into the TUN devices) and the wall seconds it ran.
    pub cpu_s: f64,
    pub wall_s: f64,
}

/// Why the emulator thread runs at normal priority (recorded as `realtime_note`).
/// (`Arc`: the report is `Clone`, an `io::Error` is not.)
#[derive(Clone, Debug, thiserror::Error)]
pub enum NotRealtime {
    #[error("not requested")]
    NotRequested,
    #[error("SCHED_FIFO not allowed ({0}); running at normal priority")]
    Refused(#[source] std::sync::Arc<std::io::Error>),
}

impl Emulator {
    pub fn new(cfg: EmulatorConfig) -> Emulator {
        // Same RNG streams as the simulator (crates/sim world.rs): a seed gives the same
        // loss and AQM draws on both datapaths, in packet order.
        let mk = |c: &LinkConfig, stream: u64| Direction {
            link: Link::new(c.clone(), Rng::derive(cfg.seed, stream)),
            delay: c.delay,
            extra: cfg
                .flows
                .iter()
                .map(|f| (f.extra_delay > Dur::ZERO).then(|| DelayLine::new(f.extra_delay)))
                .collect(),
            log: Vec::with_capacity(cfg.log_limit.min(1 << 20)),
            log_dropped: 0,
            late: Histogram::new(),
        };
        let dirs = [mk(&cfg.forward, 1), mk(&cfg.reverse, 2)];
        let ports = cfg
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| (f.port, i as u32))
            .collect();
        Emulator {
            dirs,
            ports,
            flows: vec![FlowCounters::default(); cfg.flows.len()],
            routes: cfg.flows,
            dropped: Vec::new(),
            pool: Vec::new(),
            log_limit: cfg.log_limit,
            packets: 0,
        }
    }

    /// A packet buffer from the pool (cleared).
    pub fn buffer(&mut self) -> Vec<u8> {
        let mut b = self.pool.pop().unwrap_or_else(|| Vec::with_capacity(2048));
        b.clear();
        b
    }

    fn tag(ports: &HashMap<u16, u32>, t: &FiveTuple) -> Option<FlowTag> {
        if t.proto != PROTO_TCP && t.proto != PROTO_UDP {
            return None;
        }
        if let Some(&f) = ports.get(&t.dport) {
            return Some(FlowTag {
                flow: f,
                to_receiver: true,
            });
        }
        ports.get(&t.sport).map(|&f| FlowTag {
            flow: f,
            to_receiver: false,
        })
    }

    fn log(&mut self, dir: usize, r: LogRecord) {
        let d = &mut self.dirs[dir];
        if d.log.len() < self.log_limit {
            d.log.push(r);
        } else {
            d.log_dropped += 1;
        }
    }

    fn record(p: &IpPacket, t: Time, kind: LogKind, qdelay: Dur) -> LogRecord {
        LogRecord {
            t_ns: t.nanos(),
            qdelay_ns: qdelay.nanos().min(u32::MAX as u64) as u32,
            bytes: p.wire_bytes().min(u16::MAX as u32) as u16,
            kind,
            flow: p.tag.map_or(u8::MAX, |t| t.flow.min(254) as u8),
        }
    }

    fn account_drops(&mut self, dir: usize, now: Time, kind: LogKind) {
        let mut dropped = std::mem::take(&mut self.dropped);
        for p in dropped.drain(..) {
            if let Some(t) = p.tag.filter(|t| t.to_receiver) {
                self.flows[t.flow as usize].data_dropped_bytes += p.wire_bytes() as u64;
            }
            let r = Self::record(&p, now, kind, Dur::ZERO);
            self.log(dir, r);
            self.pool.push(p.data);
        }
        self.dropped = dropped;
    }

    /// Completes the transmissions due by `now` in direction `dir` (wire losses logged).
    fn advance(&mut self, dir: usize, now: Time) {
        let n0 = self.dirs[dir].link.stats().lost_pkts;
        self.dirs[dir].link.advance(now, &mut self.dropped);
        if !self.dropped.is_empty() {
            // Dequeue-time drops (CoDel, FQ-CoDel) and wire losses both come back here;
            // the Link does not say which is which, so when both happen in one call the
            // log calls them all wire losses (the Link's own counters stay exact).
            let lost = self.dirs[dir].link.stats().lost_pkts - n0;
            let kind = if lost > 0 {
                LogKind::WireLoss
            } else {
                LogKind::QueueDrop
            };
            self.account_drops(dir, now, kind);
        }
    }

    /// A packet read from direction `dir`'s input at `now`.
    pub fn arrive(&mut self, dir: usize, now: Time, data: Vec<u8>) {
        self.packets += 1;
        // Transmissions that ended before this arrival complete first, so the queue
        // discipline sees events in time order (Link serves a packet no earlier than it
        // was enqueued only if it is advanced to `now` first).
        self.advance(dir, now);
        let ports = &self.ports;
        let p = IpPacket::new(data, now, |t| Self::tag(ports, t));
        if let Some(t) = p.tag.filter(|t| t.to_receiver) {
            self.flows[t.flow as usize].data_arrived_bytes += p.wire_bytes() as u64;
        }
        let r = Self::record(&p, now, LogKind::Arrival, Dur::ZERO);
        self.log(dir, r);
        self.dirs[dir].link.enqueue(now, p, &mut self.dropped);
        if !self.dropped.is_empty() {
            self.account_drops(dir, now, LogKind::QueueDrop);
        }
    }

    /// Hands every packet due by `now` to `out(dir, bytes)`.
    pub fn deliver(&mut self, now: Time, out: &mut dyn FnMut(usize, &[u8])) {
        for dir in [FORWARD, REVERSE] {
            self.advance(dir, now);
            while let Some((t, p)) = self.dirs[dir].link.poll(now) {
                // Left the transmitter at t − delay (exact without jitter).
                let left =
                    Time(t.nanos().saturating_sub(self.dirs[dir].delay.nanos())).max(p.arrived);
                let r = Self::record(&p, left, LogKind::Departure, left.since(p.arrived));
                self.log(dir, r);
                match p
                    .tag
                    .and_then(|g| self.dirs[dir].extra[g.flow as usize].as_mut())
                {
                    Some(line) => line.push(t, p),
                    None => self.emit(dir, now, t, p, out),
                }
            }
            for f in 0..self.routes.len() {
                while let Some((t, p)) = self.dirs[dir].extra[f].as_mut().and_then(|l| l.poll(now))
                {
                    self.emit(dir, now, t, p, out);
                }
            }
        }
    }

    fn emit(
        &mut self,
        dir: usize,
        now: Time,
        due: Time,
        p: IpPacket,
        out: &mut dyn FnMut(usize, &[u8]),
    ) {
        self.dirs[dir].late.record(now.since(due).nanos());
        if let Some(t) = p.tag.filter(|t| t.to_receiver) {
            self.flows[t.flow as usize].data_delivered_bytes += p.wire_bytes() as u64;
        }
        out(dir, &p.data);
        self.pool.push(p.data);
    }

    /// The earliest time `deliver` has work.
    pub fn next_wakeup(&self) -> Option<Time> {
        self.dirs
            .iter()
            .flat_map(|d| {
                d.link
                    .next_wakeup()
                    .into_iter()
                    .chain(d.extra.iter().flatten().filter_map(|l| l.next_wakeup()))
            })
            .min()
    }

    pub fn report(
        mut self,
        write_errors: u64,
        realtime: Result<(), NotRealtime>,
    ) -> EmulatorReport {
        for d in &self.dirs {
            for p in d
                .link
                .in_transit()
                .chain(d.extra.iter().flatten().flat_map(|l| l.iter()))
            {
                if let Some(t) = p.tag.filter(|t| t.to_receiver) {
                    self.flows[t.flow as usize].data_in_flight_bytes += p.wire_bytes() as u64;
                }
            }
        }
        let transit = |d: &Direction| {
            d.link
                .in_transit()
                .map(|p| p.wire_bytes() as u64)
                .sum::<u64>()
        };
        let [f, r] = self.dirs;
        EmulatorReport {
            in_transit_bytes: [transit(&f), transit(&r)],
            links: [f.link.stats().clone(), r.link.stats().clone()],
            configs: [f.link.config().clone(), r.link.config().clone()],
            flows: self.flows,
            log_dropped: [f.log_dropped, r.log_dropped],
            logs: [f.log, r.log],
            lateness_ns: [f.late, r.late],
            packets: self.packets,
            write_errors,
            realtime,
            cpu_s: 0.0,
            wall_s: 0.0,
        }
    }
}

/// Runs `emu` between `tuns.0` (forward input, reverse output: the server-side router's
/// TUN) and `tuns.1` until `stop` is set.
pub fn run_io(
    mut emu: Emulator,
    tuns: (OwnedFd, OwnedFd),
    clock: Clock,
    stop: Arc<AtomicBool>,
    realtime: bool,
) -> EmulatorReport {
    let rt = if realtime {
        sys::set_realtime(50).map_err(|e| NotRealtime::Refused(e.into()))
    } else {
        Err(NotRealtime::NotRequested)
    };
    sys::set_min_timer_slack();
    let (cpu0, wall0) = (sys::thread_cpu_seconds(), std::time::Instant::now());
    let fds = [tuns.0.as_fd(), tuns.1.as_fd()];
    let out_fd = [fds[1], fds[0]];
    let mut write_errors = 0u64;
    // Wake at least this often to notice `stop`.
    const MAX_SLEEP: u64 = 20_000_000;
    while !stop.load(Ordering::Relaxed) {
        let now = clock.now();
        emu.deliver(now, &mut |dir, bytes| {
            if sys::write_packet(out_fd[dir], bytes).is_err() {
                write_errors += 1;
            }
        });
        let timeout = emu
            .next_wakeup()
            .map_or(MAX_SLEEP, |w| w.since(clock.now()).nanos().min(MAX_SLEEP));
        // On a poll error, try both reads (they are non-blocking).
        let ready = sys::wait_readable(fds, timeout).unwrap_or([true, true]);
        for dir in [FORWARD, REVERSE] {
            if !ready[dir] {
                continue;
            }
            // Bounded batch per wake-up, so one busy direction cannot starve the timers.
            for _ in 0..64 {
                let mut buf = emu.buffer();
                buf.resize(2048, 0);
                match sys::read_nb(fds[dir], &mut buf) {
                    Ok(Some(n)) if n > 0 => {
                        buf.truncate(n);
                        emu.arrive(dir, clock.now(), buf);
                    }
                    _ => {
                        emu.pool.push(buf);
                        break;
                    }
                }
            }
        }
    }
    let mut r = emu.report(write_errors, rt);
    r.cpu_s = sys::thread_cpu_seconds() - cpu0;
    r.wall_s = wall0.elapsed().as_secs_f64();
    r
}

/// Writes a direction's log in mahimahi's text format (`mm-link --uplink-log`):
/// a `# base timestamp` line, then `T + BYTES` arrivals, `T - BYTES DELAY_MS`
/// departures and `T d BYTES` drops (T in ms since the start). Wire losses are written
/// as drops with an `l` kind, which mahimahi's tools skip.
pub fn write_mahimahi(log: &[LogRecord], w: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(w, "# base timestamp: 0")?;
    // Departures are logged when packets leave the link, after later arrivals; the
    // format is read in time order.
    let mut sorted: Vec<&LogRecord> = log.iter().collect();
    sorted.sort_by_key(|r| r.t_ns);
    for r in sorted {
        let ms = r.t_ns / 1_000_000;
        match r.kind {
            LogKind::Arrival => writeln!(w, "{ms} + {}", r.bytes)?,
            LogKind::Departure => writeln!(w, "{ms} - {} {}", r.bytes, r.qdelay_ns / 1_000_000)?,
            LogKind::QueueDrop => writeln!(w, "{ms} d {}", r.bytes)?,
            LogKind::WireLoss => writeln!(w, "{ms} l {}", r.bytes)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_realtime_note_is_the_old_text() {
        assert_eq!(NotRealtime::NotRequested.to_string(), "not requested");
        let e = NotRealtime::Refused(std::io::Error::from_raw_os_error(libc::EPERM).into());
        assert_eq!(
            e.to_string(),
            "SCHED_FIFO not allowed (Operation not permitted (os error 1)); running at normal priority"
        );
    }
    use crate::packet::header_checksum;
    use scavenger_cc::Rate;
    use scavenger_net::{QdiscConfig, QueueLimit};

    fn udp(len: usize, sport: u16, dport: u16, tos: u8) -> Vec<u8> {
        let mut p = vec![0u8; len];
        p[..20].copy_from_slice(&[
            0x45,
            tos,
            (len >> 8) as u8,
            len as u8,
            0,
            0,
            0x40,
            0,
            64,
            PROTO_UDP,
            0,
            0,
            10,
            1,
            0,
            2,
            10,
            2,
            0,
            2,
        ]);
        p[20..22].copy_from_slice(&sport.to_be_bytes());
        p[22..24].copy_from_slice(&dport.to_be_bytes());
        let c = header_checksum(&p[..20]);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        p
    }

    fn cfg(rate_mbps: u64, delay_ms: u64, limit: u32, flows: Vec<FlowRoute>) -> EmulatorConfig {
        let l = LinkConfig::new(
            Rate::from_mbps(rate_mbps),
            Dur::from_millis(delay_ms),
            QueueLimit::Packets(limit),
        );
        EmulatorConfig {
            forward: l.clone(),
            reverse: l,
            seed: 1,
            flows,
            log_limit: 1 << 20,
        }
    }

    fn drain(e: &mut Emulator, until: Time) -> Vec<(usize, Time, usize)> {
        let mut out = Vec::new();
        while let Some(t) = e.next_wakeup().filter(|t| *t <= until) {
            e.deliver(t, &mut |d, b| out.push((d, t, b.len())));
        }
        out
    }

    #[test]
    fn packets_are_serialised_at_the_rate_then_delayed() {
        // 1500 bytes at 12 Mbit/s take 1 ms; 10 ms propagation.
        let mut e = Emulator::new(cfg(12, 10, 100, vec![]));
        for _ in 0..3 {
            let mut b = e.buffer();
            b.extend_from_slice(&udp(1500, 1, 2, 0));
            e.arrive(FORWARD, Time(0), b);
        }
        let ms = |x: u64| Time(x * 1_000_000);
        assert_eq!(
            drain(&mut e, ms(100)),
            vec![(0, ms(11), 1500), (0, ms(12), 1500), (0, ms(13), 1500)]
        );
        let r = e.report(0, Ok(()));
        // Departure log: left the transmitter at 1, 2, 3 ms after arriving at 0.
        let dep: Vec<u32> = r.logs[0]
            .iter()
            .filter(|x| x.kind == LogKind::Departure)
            .map(|x| x.qdelay_ns)
            .collect();
        assert_eq!(dep, vec![1_000_000, 2_000_000, 3_000_000]);
        assert_eq!(r.lateness_ns[0].max(), Some(0));
    }

    #[test]
    fn flows_get_their_extra_delay_and_conservation_holds() {
        let flows = vec![FlowRoute {
            port: 5001,
            data_forward: true,
            extra_delay: Dur::from_millis(5),
        }];
        let mut e = Emulator::new(cfg(12, 10, 2, flows));
        for _ in 0..5 {
            let b = udp(1500, 40000, 5001, 0);
            e.arrive(FORWARD, Time(0), b);
        }
        // One in service, two queued, two dropped; ACK-direction packet untagged as data.
        e.arrive(REVERSE, Time(0), udp(100, 5001, 40000, 0));
        let out = drain(&mut e, Time(1_000_000_000));
        let fwd: Vec<Time> = out.iter().filter(|o| o.0 == FORWARD).map(|o| o.1).collect();
        assert_eq!(
            fwd,
            vec![Time(16_000_000), Time(17_000_000), Time(18_000_000)]
        );
        let r = e.report(0, Ok(()));
        let f = r.flows[0];
        assert_eq!(
            (
                f.data_arrived_bytes,
                f.data_delivered_bytes,
                f.data_dropped_bytes,
                f.data_in_flight_bytes
            ),
            (7500, 4500, 3000, 0)
        );
        assert_eq!(r.links[0].dropped_pkts, 2);
    }

    #[test]
    fn codel_marks_ect_packets_with_ce_instead_of_dropping() {
        let mut c = cfg(12, 0, 10_000, vec![]);
        c.forward.qdisc = QdiscConfig::Codel(scavenger_net::CodelParams {
            ecn: true,
            ..Default::default()
        });
        let mut e = Emulator::new(c);
        // 600 packets at once: 600 ms of queue, far above CoDel's 5 ms target.
        for _ in 0..600 {
            e.arrive(FORWARD, Time(0), udp(1500, 1, 2, 0b10));
        }
        let mut ce = 0;
        let mut bad_sum = 0;
        let mut t = Time(0);
        while let Some(w) = e.next_wakeup() {
            t = w;
            e.deliver(t, &mut |_, b| {
                ce += (b[1] & 3 == 3) as u32;
                bad_sum += (header_checksum(&b[..20]) != 0) as u32;
            });
        }
        assert!(t > Time(500_000_000));
        let r = e.report(0, Ok(()));
        assert_eq!(
            r.links[0].dropped_pkts, 0,
            "ECT packets are marked, not dropped"
        );
        assert!(ce > 0 && ce as u64 == r.links[0].marked_pkts, "{ce} marks");
        assert_eq!(bad_sum, 0, "every marked header keeps a valid checksum");
    }

    #[test]
    fn mahimahi_export_has_one_line_per_event() {
        let mut e = Emulator::new(cfg(12, 10, 1, vec![]));
        for _ in 0..3 {
            e.arrive(FORWARD, Time(0), udp(1500, 1, 2, 0));
        }
        drain(&mut e, Time(1_000_000_000));
        let r = e.report(0, Ok(()));
        let mut s = Vec::new();
        write_mahimahi(&r.logs[0], &mut s).unwrap();
        let text = String::from_utf8(s).unwrap();
        // 3 arrivals, 1 drop (limit 1 with one in service), 2 departures at 1 and 2 ms.
        assert_eq!(
            text,
            "# base timestamp: 0\n0 + 1500\n0 + 1500\n0 + 1500\n0 d 1500\n1 - 1500 1\n2 - 1500 2\n"
        );
    }
}
