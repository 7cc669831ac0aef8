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
    let mut cc = alg.instantiate(
        &ParamSet::defaults(alg.params),
        CcInit {
            now,
            mss,
            initial_cwnd: iw,
            rng: Rng::derive(u.arbitrary()?, 7),
        },
    );
    // The datapath's view: bytes sent but not yet acknowledged, in sequence order.
    let (mut snd_una, mut snd_nxt, mut delivered) = (0u64, 0u64, 0u64);
    let mut in_recovery = false;
    let mut backoff = 0u32;
    let path = Path::arbitrary(u)?;
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
        let in_flight = snd_nxt - snd_una;
        match u.int_in_range(0u8..=9)? {
            // Send up to the window.
            0..=3 => {
                if in_flight + mss <= cc.cwnd().max(mss) {
                    let retransmission = u.ratio(1u8, 20)?;
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
                let segs = in_flight / mss;
                let acked = u.int_in_range(0..=segs.min(64))? * mss;
                let prior = in_flight;
                snd_una += acked;
                delivered += acked;
                // A queue can hold at most what is in flight: its delay is at most the
                // in-flight bytes' serialisation time at the bottleneck.
                let max_queue = path.serialisation(prior).nanos().min(500_000_000);
                let queue = Dur(u.int_in_range(0..=max_queue)?);
                let rtt = (acked > 0 && u.ratio(9u8, 10)?).then_some(path.base_rtt + queue);
                // A delivery-rate sample is at most the capacity: its interval is at
                // least the acknowledged bytes' serialisation time.
                let interval =
                    Dur(u.int_in_range(1_000u64..=1_000_000_000)?).max(path.serialisation(acked));
                let hold = Dur(u.int_in_range(0u64..=40_000_000)?);
                let ack = AckSample {
                    bytes_acked: acked,
                    rtt,
                    owd: u
                        .ratio(3u8, 4)?
                        .then_some(u.int_in_range(-1_000_000_000i64..=1_000_000_000)?),
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
                    cwnd_limited: u.ratio(3u8, 4)?,
                    ecn_ce: u.ratio(1u8, 20)?,
                    in_recovery,
                    snd_una,
                    snd_nxt,
                    mss,
                };
                cc.on_ack(now, &ack);
                check(&*cc, "on_ack");
                if acked > 0 {
                    backoff = 0;
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
