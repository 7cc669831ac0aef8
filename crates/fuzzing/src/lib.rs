//! What the fuzz targets in `fuzz/` run (docs/fuzzing.md): the congestion-control driver
//! that turns fuzz bytes into a well-formed event sequence and checks the invariants after
//! every call (s2n-quic fuzzes its controllers the same way), and the parser harnesses.
//! They live in the workspace so that a stable `cargo test` replays the committed corpora
//! through the same functions (tests/corpora.rs) without nightly or an instrumented build.

use arbitrary::{Result, Unstructured};
use scavenger_cc::{
    algorithms as registered, AckSample, CcInit, CongestionEvent, CongestionKind, Dur, ParamSet,
    Rate, RateSample, Rng, RtoEvent, SentInfo, Time,
};

/// The largest window any algorithm may hold: 1 GiB, far past any path we simulate.
pub const MAX_CWND: u64 = 1 << 30;

/// The largest bandwidth-delay product of a driven path (capacity × base RTT): 64 MiB,
/// 10 Gbit/s over 50 ms. Sixteen of these still fit under `MAX_CWND`, so a window that
/// follows the samples (BBR's 2·BDP, Ebb's refill to the BDP, plus a queue) never trips
/// the bound, and one that does has grown past anything its samples justify.
pub const MAX_BDP: u64 = 64 << 20;

/// The path the driver's samples are consistent with: a bottleneck of `capacity` bytes/s
/// and a base RTT. Samples a link cannot produce (576 kB delivered in 1 µs, a queue longer
/// than the bytes in flight can fill) would make a window "unbounded" only because the
/// input said the path was unbounded (docs/fuzzing.md, "Physically possible samples").
#[derive(Clone, Copy, Debug)]
pub struct Path {
    /// Bottleneck capacity, bytes per second.
    pub capacity: u64,
    pub base_rtt: Dur,
}

impl Path {
    /// Base RTT 100 µs to 2 s, capacity 10 kB/s (80 kbit/s) to 1.25 GB/s (10 Gbit/s),
    /// at most `MAX_BDP` per base RTT.
    pub fn arbitrary(u: &mut Unstructured) -> Result<Path> {
        let base_rtt = Dur(u.int_in_range(100_000u64..=2_000_000_000)?);
        let cap_max = (MAX_BDP as f64 / base_rtt.secs_f64()).min(1.25e9) as u64;
        let capacity = u.int_in_range(10_000u64..=cap_max.max(10_000))?;
        Ok(Path { capacity, base_rtt })
    }

    /// The time `bytes` take to leave the bottleneck.
    pub fn serialisation(&self, bytes: u64) -> Dur {
        Dur((bytes as u128 * 1_000_000_000 / self.capacity as u128) as u64)
    }

    /// The bandwidth-delay product: what the path holds in flight with an empty queue.
    pub fn bdp(&self) -> u64 {
        (self.capacity as u128 * self.base_rtt.nanos() as u128 / 1_000_000_000) as u64
    }
}

/// The bottleneck's drop-tail buffer: `quarters` quarters of the BDP (¼ to 4 BDP, the
/// scorecard's range), and never less than two segments, so that a path with a BDP under
/// one segment still queues a little. What is in flight beyond BDP + buffer is dropped
/// (docs/fuzzing.md#finite-buffer).
#[derive(Clone, Copy, Debug)]
pub struct Buffer {
    pub bytes: u64,
}

impl Buffer {
    pub fn new(path: &Path, quarters: u64, mss: u64) -> Buffer {
        Buffer {
            bytes: (path.bdp() * quarters / 4).max(2 * mss),
        }
    }

    /// The most bytes the path holds: the pipe plus the buffer.
    pub fn capacity(&self, path: &Path) -> u64 {
        path.bdp() + self.bytes
    }

    /// Whether a segment of `mss` bytes, sent while `in_path` bytes are in the pipe and
    /// the queue, finds the buffer full and is dropped.
    pub fn drops(&self, path: &Path, in_path: u64, mss: u64) -> bool {
        in_path + mss > self.capacity(path)
    }
}

/// The receiver's side of one-way delays: a one-way delay is the echoed segment's arrival
/// on the receiver's clock minus its send time (now − echo RTT). Arrivals are serialised
/// at the bottleneck: each is at least the acknowledged bytes' serialisation time after the
/// one before. Without that, a receive rate (PropRate and EvaRate divide bytes by
/// receiver-clock time, Wang 2018 §4.4.1) could exceed the capacity without bound: the
/// driver once drew each one-way delay independently, and PropRate's window reached 30 GB
/// on a 37 MB/s path (docs/fuzzing.md, "Physically possible samples").
#[derive(Clone, Copy, Debug, Default)]
pub struct ReceiverClock {
    /// Arrival of the newest delivered segment, in the sender's time base (ns; signed,
    /// see [`ReceiverClock::owd`]).
    last_arrival: Option<i64>,
    /// The receiver clock's offset from the sender's: the first one drawn, then fixed
    /// (clocks do not jump).
    offset: Option<i64>,
}

impl ReceiverClock {
    /// The one-way delay an ACK of `acked` bytes at `now` carries, for an echoed segment
    /// sent `echo` ago that met `queue` of queueing delay; `offset` is the drawn clock
    /// offset (used only on the first call).
    pub fn owd(
        &mut self,
        path: &Path,
        now: Time,
        echo: Dur,
        queue: Dur,
        acked: u64,
        offset: i64,
    ) -> i64 {
        // Signed: the driver's echo RTT may exceed the time since its clock's origin (an
        // ACK at 0.43 s echoing a 1.05 s RTT). Clamping the send time to 0 made the
        // receiver time the algorithm reconstructs (now − echo + owd) differ from the
        // arrival spaced here, and EvaRate saw 2.5 GB/s on a 47 MB/s path
        // (docs/fuzzing.md#evarate-negative-send-time).
        let sent_at = now.nanos() as i64 - echo.nanos() as i64;
        let forward = sent_at + (path.base_rtt.nanos() / 2 + queue.nanos()) as i64;
        let arrival = match self.last_arrival {
            Some(a) => forward.max(a + path.serialisation(acked).nanos() as i64),
            None => forward,
        };
        self.last_arrival = Some(arrival);
        arrival - sent_at + *self.offset.get_or_insert(offset)
    }

    /// `acked` bytes delivered on an ACK that carries no one-way delay: they took their
    /// serialisation time at the bottleneck all the same. Without this, a receive rate
    /// (delivered bytes over receiver-clock time) counted them in zero time and could
    /// exceed the capacity.
    pub fn delivered_unseen(&mut self, path: &Path, acked: u64) {
        if let Some(a) = self.last_arrival.as_mut() {
            *a += path.serialisation(acked).nanos() as i64;
        }
    }
}

/// The sender's retransmission timer (RFC 6298 §2, with Linux's 200 ms floor on the
/// variance term, `tcp_rto_min`, and its 120 s ceiling, `TCP_RTO_MAX`). A sender with data
/// outstanding that hears of no progress for an RTO times out; without this the driver
/// let an ACK arrive after 6.3 s of silence on a 1.64 s path with no timeout between, and
/// FlexiS, whose window grows with time while window-limited, jumped from 2 segments to
/// 1.77 GB on it (docs/fuzzing.md#flexis-no-timeout).
#[derive(Clone, Copy, Debug)]
pub struct RetransmitTimer {
    /// SRTT and RTTVAR (ns), from the first RTT sample on.
    estimate: Option<(u64, u64)>,
    /// When the timer was last (re)started: a send into an empty flight or an ACK that
    /// advanced SND.UNA (Linux `tcp_rearm_rto`).
    started: Time,
}

impl RetransmitTimer {
    /// RFC 6298 (2.1): 1 s before the first RTT sample.
    pub const INITIAL: Dur = Dur(1_000_000_000);
    /// Linux `tcp_rto_min`: the least the variance term adds.
    pub const MIN_VAR: Dur = Dur(200_000_000);
    /// Linux `TCP_RTO_MAX`.
    pub const MAX: Dur = Dur(120_000_000_000);

    pub fn new(now: Time) -> RetransmitTimer {
        RetransmitTimer {
            estimate: None,
            started: now,
        }
    }

    /// RFC 6298 (2.2) and (2.3): the first sample sets SRTT = R and RTTVAR = R/2; later
    /// ones RTTVAR = ¾·RTTVAR + ¼·|SRTT − R|, then SRTT = ⅞·SRTT + ⅛·R.
    pub fn sample(&mut self, rtt: Dur) {
        let r = rtt.nanos();
        self.estimate = Some(match self.estimate {
            None => (r, r / 2),
            Some((srtt, var)) => ((7 * srtt + r) / 8, (3 * var + srtt.abs_diff(r)) / 4),
        });
    }

    /// RTO = SRTT + max(200 ms, 4·RTTVAR) (RFC 6298 (2.3) with Linux's floor), doubled
    /// per back-off (5.5), at most 120 s.
    pub fn rto(&self, backoff: u32) -> Dur {
        let base = match self.estimate {
            None => Self::INITIAL.nanos(),
            Some((srtt, var)) => srtt + (4 * var).max(Self::MIN_VAR.nanos()),
        };
        Dur(base
            .saturating_mul(1u64 << backoff.min(20))
            .min(Self::MAX.nanos()))
    }

    pub fn restart(&mut self, now: Time) {
        self.started = now;
    }

    /// Whether the timer, started at the last restart, has expired by `now`.
    pub fn expired(&self, now: Time, backoff: u32) -> bool {
        now.nanos()
            >= self
                .started
                .nanos()
                .saturating_add(self.rto(backoff).nanos())
    }
}

/// The `algorithms` target: [`drive`] on the input's bytes. An input too short for a whole
/// sequence ends it early (not a finding).
pub fn algorithms(data: &[u8]) {
    let _ = drive(&mut Unstructured::new(data));
}

/// Runs one registered algorithm (chosen by the input) through a random but well-formed
/// sequence of sends, ACKs, losses, ECN echoes and timeouts. Panics on a broken invariant:
/// a window under one segment or over `MAX_CWND`, a NaN, an infinite or zero pacing rate.
pub fn drive(u: &mut Unstructured) -> Result<()> {
    let all = registered();
    let alg = all[u.choose_index(all.len())?];
    let mss = u.int_in_range(536u64..=9000)?;
    let iw = u.int_in_range(1u64..=100)? * mss;
    let mut now = Time(u.int_in_range(0u64..=1_000_000_000)?);
    let rng_seed: u64 = u.arbitrary()?;
    let mut cc = alg.instantiate(
        &ParamSet::defaults(alg.params),
        CcInit {
            now,
            mss,
            initial_cwnd: iw,
            rng: Rng::derive(rng_seed, 7),
        },
    );
    // The datapath's view: bytes sent but not yet acknowledged, in sequence order.
    let (mut snd_una, mut snd_nxt, mut delivered) = (0u64, 0u64, 0u64);
    let mut in_recovery = false;
    let mut backoff = 0u32;
    let path = Path::arbitrary(u)?;
    // The buffer's size comes from the top four bits of the seed already drawn, not from
    // new bytes: every committed input decodes to the same event sequence as before the
    // buffer existed, and the fuzzer still controls the size.
    let buffer = Buffer::new(&path, 1 + (rng_seed >> 60), mss);
    // Bytes in flight that the full buffer dropped and no ACK has reported yet.
    let mut dropped = 0u64;
    // Whether the window was full at the last send step: the only state in which a sender
    // is window-limited (Linux `tcp_is_cwnd_limited`; the simulator's sender sets it when
    // the window refuses a send). A drawn `cwnd_limited` is honoured only then.
    let mut window_full = false;
    let mut receiver = ReceiverClock::default();
    let mut timer = RetransmitTimer::new(now);
    let check = |cc: &dyn scavenger_cc::CongestionControl, what: &str| {
        let w = cc.cwnd();
        assert!(
            w >= mss,
            "{}: cwnd {w} < one segment ({mss}) after {what}",
            alg.name
        );
        assert!(
            w <= MAX_CWND,
            "{}: cwnd {w} unbounded after {what}",
            alg.name
        );
        let _ = cc.ssthresh();
        if let Some(r) = cc.pacing_rate() {
            let bps = r.bps();
            assert!(bps > 0, "{}: pacing rate 0 after {what}", alg.name);
        }
        // Trace variables are not checked: NaN there means "no value yet" (westwood-lp's
        // rtt_loss_ms before its first loss), as in the simulator's time series.
        let mut tr = Vec::new();
        cc.trace(&mut tr);
    };
    check(&*cc, "init");
    let steps = u.int_in_range(1usize..=2000)?;
    for _ in 0..steps {
        if u.is_empty() {
            break;
        }
        now = Time(now.0 + u.int_in_range(0u64..=50_000_000)?);
        // The timer fires before anything else happens at `now`: a timeout drawn below is
        // an early (spurious) one, this one is due.
        if snd_nxt > snd_una && timer.expired(now, backoff) {
            backoff = backoff.saturating_add(1);
            cc.on_rto(
                now,
                &RtoEvent {
                    bytes_in_flight: snd_nxt - snd_una,
                    backoff_count: backoff,
                    mss,
                },
            );
            snd_nxt = snd_una;
            dropped = 0;
            in_recovery = false;
            check(&*cc, "on_rto (timer)");
        }
        let in_flight = snd_nxt - snd_una;
        match u.int_in_range(0u8..=9)? {
            // Send up to the window.
            0..=3 => {
                window_full = in_flight + mss > cc.cwnd().max(mss);
                if !window_full {
                    let retransmission = u.ratio(1u8, 20)?;
                    // Drop-tail: the segment arrives at a full buffer and is lost.
                    if buffer.drops(&path, in_flight - dropped, mss) {
                        dropped += mss;
                    }
                    if snd_nxt == snd_una {
                        timer.restart(now);
                    }
                    snd_nxt += mss;
                    cc.on_sent(
                        now,
                        &SentInfo {
                            bytes: mss,
                            bytes_in_flight: snd_nxt - snd_una,
                            retransmission,
                            seq: snd_nxt - mss,
                            app_limited: u.ratio(1u8, 10)?,
                        },
                    );
                    check(&*cc, "on_sent");
                }
            }
            // An ACK for some of the data in flight.
            4..=7 => {
                // The segments after a drop arrive and their ACKs (SACKs in TCP) report
                // it: one loss event per recovery episode, as for the drawn losses below.
                // The dropped bytes then leave the pipe undelivered, as Linux stops
                // counting lost segments in flight.
                if dropped > 0 {
                    if !in_recovery {
                        cc.on_congestion(
                            now,
                            &CongestionEvent {
                                kind: CongestionKind::Loss,
                                bytes_in_flight: in_flight,
                                bytes_lost: dropped,
                                mss,
                            },
                        );
                        in_recovery = true;
                        check(&*cc, "on_congestion (buffer overflow)");
                    }
                    snd_una += dropped;
                    dropped = 0;
                }
                let in_flight = snd_nxt - snd_una;
                let segs = in_flight / mss;
                let acked = u.int_in_range(0..=segs.min(64))? * mss;
                let prior = in_flight;
                snd_una += acked;
                delivered += acked;
                // A queue can hold at most what is in flight: its delay is at most the
                // in-flight bytes' serialisation time at the bottleneck, ...
                // and at most the buffer's.
                let max_queue = path
                    .serialisation(prior.min(buffer.bytes))
                    .nanos()
                    .min(500_000_000);
                let queue = Dur(u.int_in_range(0..=max_queue)?);
                let rtt = (acked > 0 && u.ratio(9u8, 10)?).then_some(path.base_rtt + queue);
                // A delivery-rate sample is at most the capacity: its interval is at
                // least the acknowledged bytes' serialisation time.
                let interval =
                    Dur(u.int_in_range(1_000u64..=1_000_000_000)?).max(path.serialisation(acked));
                let hold = Dur(u.int_in_range(0u64..=40_000_000)?);
                let owd_draw = u
                    .ratio(3u8, 4)?
                    .then_some(u.int_in_range(-1_000_000_000i64..=1_000_000_000)?);
                let owd = match (owd_draw, rtt) {
                    (Some(offset), Some(r)) => {
                        Some(receiver.owd(&path, now, r + hold, queue, acked, offset))
                    }
                    // No echo, no send time to subtract: no one-way delay. The bytes still
                    // crossed the bottleneck, so the next arrival comes after theirs.
                    _ => {
                        receiver.delivered_unseen(&path, acked);
                        None
                    }
                };
                let ack = AckSample {
                    bytes_acked: acked,
                    rtt,
                    owd,
                    ts_echo_rtt: rtt.map(|r| r + hold),
                    delivered,
                    rate: (acked > 0 && u.ratio(1u8, 2)?).then_some(RateSample {
                        rate: Rate::from_bytes_over(acked, interval),
                        interval,
                        delivered: acked,
                        app_limited: u.ratio(1u8, 5)?,
                    }),
                    prior_in_flight: prior,
                    bytes_in_flight: snd_nxt - snd_una,
                    app_limited: u.ratio(1u8, 10)?,
                    // Drawn, then only where the window limited sending: a window-limited
                    // flag with the window nearly empty let FlexiS grow its window on
                    // every ACK to 1 GB (docs/fuzzing.md#flexis-cwnd-limited).
                    cwnd_limited: u.ratio(3u8, 4)? && window_full,
                    ecn_ce: u.ratio(1u8, 20)?,
                    in_recovery,
                    snd_una,
                    snd_nxt,
                    mss,
                };
                cc.on_ack(now, &ack);
                check(&*cc, "on_ack");
                if let Some(r) = rtt {
                    timer.sample(r);
                }
                if acked > 0 {
                    backoff = 0;
                    timer.restart(now);
                }
                if in_recovery && acked > 0 && u.ratio(1u8, 3)? {
                    in_recovery = false;
                    cc.on_recovery_exit(now);
                    check(&*cc, "on_recovery_exit");
                }
            }
            // Loss (once per episode) or an ECN echo.
            8 => {
                let ecn: bool = u.arbitrary()?;
                if !ecn && in_recovery {
                    continue;
                }
                let lost = if ecn {
                    0
                } else {
                    u.int_in_range(1..=(in_flight / mss).max(1))? * mss
                };
                cc.on_congestion(
                    now,
                    &CongestionEvent {
                        kind: if ecn {
                            CongestionKind::Ecn
                        } else {
                            CongestionKind::Loss
                        },
                        bytes_in_flight: in_flight,
                        bytes_lost: lost,
                        mss,
                    },
                );
                in_recovery |= !ecn;
                check(&*cc, "on_congestion");
            }
            // A retransmission timeout: everything in flight is deemed lost.
            _ => {
                backoff = backoff.saturating_add(1);
                cc.on_rto(
                    now,
                    &RtoEvent {
                        bytes_in_flight: in_flight,
                        backoff_count: backoff,
                        mss,
                    },
                );
                snd_nxt = snd_una;
                dropped = 0;
                in_recovery = false;
                check(&*cc, "on_rto");
            }
        }
    }
    Ok(())
}

#[cfg(feature = "parsers")]
/// The scenario parser: any text gives a scenario or an error, never a panic; a scenario it
/// accepts converts to a simulator configuration.
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(sc) = scavenger_lab::scenario::parse("fuzz.toml", text) {
        let _ = sc.check_cost();
        let _ = sc.to_sim(1);
    }
}

/// The delivery-trace parsers (mahimahi and native).
pub fn trace(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = scavenger_net::DeliveryTrace::parse(text, 1500);
    let _ = scavenger_net::DeliveryTrace::parse_mahimahi(text, 1500);
    let _ = scavenger_net::DeliveryTrace::parse_native(text);
}

#[cfg(feature = "parsers")]
/// The sweep-plan parser and its expansion. Plans name their base scenario by path, so the
/// input is split at the first NUL into the plan and the base scenario, which are written
/// to a per-process temporary directory as plan.toml and base.toml.
pub fn plan(data: &[u8]) {
    use std::sync::OnceLock;
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let d = DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("scavenger-fuzz-plan-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temporary directory");
        d
    });
    let (plan, base) = text.split_once('\0').unwrap_or((text, ""));
    std::fs::write(d.join("plan.toml"), plan).expect("write plan");
    std::fs::write(d.join("base.toml"), base).expect("write base");
    if let Ok(p) = scavenger_lab::plan::load_plan(&d.join("plan.toml")) {
        // Expansion builds every scenario of the sweep; cap the work per input.
        let n = p.axes.iter().fold(1usize, |n, a| n.saturating_mul(a.len()));
        if n <= 64 {
            let _ = p.expand();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An echo RTT longer than the time since the driver's clock began (its segment would
    /// have been sent before 0) still gives receiver times spaced by the bottleneck: the
    /// time the algorithm reconstructs, now − echo + owd, advances by at least the
    /// serialisation of what each ACK delivers. With the send time clamped at 0 it
    /// advanced by 9.5 µs for 23 732 bytes at 47 MB/s (the EvaRate finding).
    #[test]
    fn an_echo_from_before_time_zero_keeps_the_receive_rate_physical() {
        let path = Path {
            capacity: 47_193_648,
            base_rtt: Dur(1_027_523_540),
        };
        let mut rc = ReceiverClock::default();
        let recv = |now: u64, echo: u64, owd: i64| now as i64 - echo as i64 + owd;
        let (n1, e1) = (433_336_151, 1_050_886_302);
        let r1 = recv(
            n1,
            e1,
            rc.owd(&path, Time(n1), Dur(e1), Dur(171_444), 5933, 0),
        );
        let (n2, e2) = (433_345_660, 1_051_892_038);
        let r2 = recv(
            n2,
            e2,
            rc.owd(&path, Time(n2), Dur(e2), Dur(1_177_180), 23_732, 0),
        );
        assert_eq!(r2 - r1, path.serialisation(23_732).nanos() as i64);
        assert!(23_732.0 / ((r2 - r1) as f64 / 1e9) <= path.capacity as f64 * 1.000_001);
    }

    /// RFC 6298's estimator with Linux's 200 ms floor: 1 s before any sample; SRTT = R and
    /// RTTVAR = R/2 after the first; the variance term never under 200 ms; doubled per
    /// back-off, at most 120 s. On the FlexiS input's path (an RTT of 1.645 s) the timer
    /// expires 4.9 s after the last progress, before its 6.3 s of silence ended.
    #[test]
    fn the_timer_follows_rfc_6298_with_linux_floor_and_ceiling() {
        let mut t = RetransmitTimer::new(Time(0));
        assert_eq!(t.rto(0), Dur(1_000_000_000));
        assert_eq!(t.rto(2), Dur(4_000_000_000));
        t.sample(Dur(100_000_000));
        // 100 ms + max(200 ms, 4 · 50 ms).
        assert_eq!(t.rto(0), Dur(300_000_000));
        t.sample(Dur(180_000_000));
        // SRTT = (7·100 + 180)/8 = 110 ms; RTTVAR = (3·50 + 80)/4 = 57.5 ms.
        assert_eq!(t.rto(0), Dur(110_000_000 + 230_000_000));
        assert_eq!(t.rto(30), RetransmitTimer::MAX);
        t.restart(Time(1_000_000_000));
        assert!(!t.expired(Time(1_339_999_999), 0));
        assert!(t.expired(Time(1_340_000_000), 0));
        assert!(!t.expired(Time(1_340_000_000), 1));

        let mut f = RetransmitTimer::new(Time(0));
        f.sample(Dur(1_645_130_039));
        f.restart(Time(4_952_952_965));
        assert_eq!(f.rto(0), Dur(1_645_130_039 + 4 * (1_645_130_039 / 2)));
        assert!(f.expired(Time(11_249_594_871), 0));
    }

    /// The buffer is ¼ to 4 BDP (quarters 1..=16 from the seed's top four bits), at least
    /// two segments, and a segment is dropped exactly when it would take the path past
    /// BDP + buffer.
    #[test]
    fn the_buffer_holds_quarters_of_the_bdp_and_drops_beyond_it() {
        // 1 MB/s over 40 ms: a BDP of 40 000 bytes.
        let path = Path {
            capacity: 1_000_000,
            base_rtt: Dur(40_000_000),
        };
        assert_eq!(path.bdp(), 40_000);
        let seed_quarters = |seed: u64| 1 + (seed >> 60);
        assert_eq!(seed_quarters(0), 1);
        assert_eq!(seed_quarters(u64::MAX), 16);
        assert_eq!(Buffer::new(&path, 1, 1500).bytes, 10_000);
        assert_eq!(Buffer::new(&path, 16, 1500).bytes, 160_000);
        let b = Buffer::new(&path, 4, 1500);
        assert_eq!(b.capacity(&path), 80_000);
        assert!(!b.drops(&path, 78_500, 1500));
        assert!(b.drops(&path, 78_501, 1500));
        // A path whose BDP is under one segment (74 kB/s over 100 µs: 7 bytes, the open
        // Vivace input's path) still queues two segments and drops the third.
        let tiny = Path {
            capacity: 73_600,
            base_rtt: Dur(100_000),
        };
        let b = Buffer::new(&tiny, 16, 5705);
        assert_eq!(b.bytes, 2 * 5705);
        assert!(!b.drops(&tiny, 5705, 5705));
        assert!(b.drops(&tiny, 2 * 5705, 5705));
    }

    /// Compressed ACKs (all at the same instant, as after an ACK-path stall) still carry
    /// receiver arrivals spaced by the bottleneck: the receive rate over any run of them is
    /// at most the capacity, and the first drawn clock offset stays.
    #[test]
    fn receive_rate_from_one_way_delays_is_at_most_the_capacity() {
        let path = Path {
            capacity: 1_000_000,
            base_rtt: Dur(40_000_000),
        };
        let mut rc = ReceiverClock::default();
        let now = Time(5_000_000_000);
        let echo = Dur(40_000_000);
        // Receiver time of an arrival = send time + owd, as the sampler computes it.
        let recv = |owd: i64| (now.nanos() - echo.nanos()) as i64 + owd;
        let first = recv(rc.owd(&path, now, echo, Dur::ZERO, 1500, -7));
        let mut bytes = 0u64;
        let mut last = first;
        for i in 0..100 {
            // A different offset each time: only the first is kept.
            last = recv(rc.owd(&path, now, echo, Dur::ZERO, 9000, i));
            bytes += 9000;
        }
        let secs = (last - first) as f64 / 1e9;
        assert!(secs > 0.0);
        let rate = bytes as f64 / secs;
        assert!(
            rate <= path.capacity as f64 * 1.000_001,
            "receive rate {rate} B/s"
        );
        // 900 kB at 1 MB/s: 0.9 s, exactly, from the first arrival.
        assert_eq!(last - first, 900_000_000);
        // The first arrival's one-way delay: half the base RTT plus the first offset.
        assert_eq!(first - (now.nanos() - echo.nanos()) as i64, 20_000_000 - 7);
    }
}
