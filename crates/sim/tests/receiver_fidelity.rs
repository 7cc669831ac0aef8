//! The Linux 6.x receiver (docs/receiver.md) against the testbed's kernel TCP on Ong 2020's
//! access link, 8 Mbit/s down, 1 Mbit/s up, 25 ms each way (issue 17, "The receiver";
//! issue 18, failures 2 and 4).

mod common;
use common::*;
use scavenger_cc::Rate;
use scavenger_cc::{Dur, Time};
use scavenger_net::{CodelParams, QdiscConfig};
use scavenger_sim::packet::{Packet, NO_TS_ECHO};
use scavenger_sim::receiver::{DataOutcome, Receiver, ReceiverConfig};
use scavenger_sim::{run, AckModel, PshRule, SimConfig};

/// Ong 2020's access link at 50 ms (`adsl_at` for another base RTT).
fn adsl(secs: u64, buffer: u32) -> SimConfig {
    adsl_at(50, secs, buffer)
}

/// The access link (8 Mbit/s down, 1 Mbit/s up) at a base RTT of `rtt_ms`.
fn adsl_at(rtt_ms: u64, secs: u64, buffer: u32) -> SimConfig {
    let mut c = dumbbell(8, rtt_ms, buffer, secs);
    c.reverse.rate = Rate::from_mbps(1);
    c
}

/// Goodput (Mbit/s) of `alg` alone for 60 s on the access link with `buffer` packets,
/// CoDel when `codel`, and the receiver `model`; PSH by `EveryAck`, the default when these
/// tests were written (`SkbTail` since docs/validation.md#psh-flip).
fn alone(alg: &str, buffer: u32, codel: bool, model: AckModel) -> f64 {
    alone_with(alg, buffer, codel, model, PshRule::EveryAck)
}

/// `alone` with the sender's PSH rule `rule`.
fn alone_with(alg: &str, buffer: u32, codel: bool, model: AckModel, rule: PshRule) -> f64 {
    let mut c = adsl(60, buffer);
    if codel {
        c.forward.qdisc = QdiscConfig::Codel(CodelParams::default());
        c.reverse.qdisc = QdiscConfig::Codel(CodelParams::default());
    }
    let mut f = flow("bg", alg);
    f.ack_model = model;
    f.psh_rule = rule;
    // The receiver comparison of issue 18, without the handshake: with it, the first data
    // segment queues 52 µs behind the client's ACK on the 8 Mbit/s link, which moves
    // Yield's and TCP-LP's first OWD sample (their base) by 52 µs and, through their 1 ms
    // OWD ticks, every later quantised delay by a tick. That alone gives (seed 1) Yield
    // 5.01 (legacy) and 7.62 (Linux), TCP-LP 4.59 and 2.30 Mbit/s (docs/receiver.md).
    f.handshake = false;
    c.flows.push(f);
    run(c).flows[0].goodput_bps / 1e6
}

/// Issue 18 failure 2: Yield alone, ½·BDP (17-packet) drop-tail buffer. Testbed (native
/// `scv_yield` on Linux 6.18): 4.75 Mbit/s. The legacy receiver held the odd segment of
/// each flight for 40 ms and Yield read the wait as 33–35 ms of queueing delay: 1.50.
/// With Linux's receiver the 16 quick ACKs of the start give Yield a clean minimum and the
/// flow no longer starves; it overshot the testbed (7.63, the link is 8). With PSH
/// (2026-11-28, docs/receiver.md#psh-spec) it keeps a shorter queue (mean 6.4 ms instead
/// of 11.6 ms) and gets 6.38: still above the testbed, documented in docs/receiver.md.
/// Since an ACK that only SACKs no longer grows the window in Open and Disorder (Linux
/// `tcp_may_raise_cwnd`, docs/deviations/ack-sample.md#ack-sample-may-raise), Yield's
/// losses in the small buffer cost more: legacy 1.50 -> 2.87, Linux receiver under the
/// default `SkbTail` 7.68 -> 6.20 (the kernel: 4.75 in the issue, 6.63 on 2026-11-28), under
/// `EveryAck` 6.37 -> 7.66.
#[test]
fn yield_alone_in_half_a_bdp_no_longer_starves() {
    let legacy = alone("yield", 17, false, AckModel::Legacy);
    let linux = alone_with("yield", 17, false, AckModel::Linux, PshRule::SkbTail);
    assert!(
        (2.8..2.95).contains(&legacy),
        "legacy receiver: {legacy:.3}"
    );
    assert!(
        (6.1..6.3).contains(&linux),
        "Linux receiver: {linux:.3} Mbit/s (testbed 4.75, legacy {legacy:.3})"
    );
    // Closer to the testbed than the legacy receiver, and not starving (≥ 90 % of the
    // testbed's).
    assert!((linux - 4.75).abs() < (legacy - 4.75).abs() && linux >= 0.9 * 4.75);
}

/// TCP-LP alone with CoDel (2·BDP), as the simulator ran it by default before the PSH
/// default became `SkbTail` (Linux receiver, SYN handshake, 10 ms start jitter, `EveryAck`;
/// docs/validation.md#psh-flip), goodput in Mbit/s for `seed`.
fn tcp_lp_alone_with_codel(seed: u64) -> f64 {
    tcp_lp_alone_with_codel_by(seed, PshRule::EveryAck)
}

/// `tcp_lp_alone_with_codel` with the sender's PSH rule `rule`.
fn tcp_lp_alone_with_codel_by(seed: u64, rule: PshRule) -> f64 {
    let mut c = adsl(60, 67);
    c.seed = seed;
    c.forward.qdisc = QdiscConfig::Codel(CodelParams::default());
    c.reverse.qdisc = QdiscConfig::Codel(CodelParams::default());
    let mut f = flow("bg", "tcp-lp");
    f.psh_rule = rule;
    c.flows.push(f);
    run(c).flows[0].goodput_bps / 1e6
}

fn median_over_seeds_1_to_10(rule: PshRule) -> (f64, Vec<f64>) {
    let mut g: Vec<f64> = (1..=10)
        .map(|s| tcp_lp_alone_with_codel_by(s, rule))
        .collect();
    g.sort_by(f64::total_cmp);
    ((g[4] + g[5]) / 2.0, g)
}

/// The PSH rule the testbed's sender-side capture shows (`PshRule::SkbTail`: PSH on the
/// last segment of an answer of two or more segments, none on a lone one;
/// docs/deviations/simulator.md#sim-psh) against the fitted `EveryAck`, on the two
/// issue-18 cases (kernel: TCP-LP with CoDel, five 60 s runs 2.57, 2.91, 4.39, 4.62, 5.29,
/// median 4.39 Mbit/s; Yield in ½·BDP 4.75). TCP-LP, seeds 1–10: `SkbTail` median 2.15
/// before the simulator marked original transmissions lost by RACK's time order
/// (docs/validation.md#rack-originals), 2.77 since (seeds 1.16–4.93), now nearer the
/// kernel than `EveryAck`'s 6.38; Yield 7.68 under `SkbTail` against 6.37, unchanged (no
/// loss alone), further. Since an ACK that only SACKs no longer grows the window in Open
/// and Disorder (docs/deviations/ack-sample.md#ack-sample-may-raise): TCP-LP 2.92 (seeds
/// 1.03–3.29), Yield 6.20 under `SkbTail` against 7.66 under `EveryAck`, so `SkbTail` is now
/// the nearer rule for both. This holds those numbers (docs/receiver.md#psh-writer).
#[test]
fn psh_rules_against_the_kernels_small_window_goodput() {
    let kernel_lp = 4.39;
    let (skb_tail, g) = median_over_seeds_1_to_10(PshRule::SkbTail);
    assert!(
        (2.85..3.0).contains(&skb_tail),
        "TCP-LP median {skb_tail:.3} Mbit/s over seeds 1-10: {g:.3?}"
    );
    let (every_ack, _) = median_over_seeds_1_to_10(PshRule::EveryAck);
    assert!((skb_tail - kernel_lp).abs() < (every_ack - kernel_lp).abs());

    let kernel_yield = 4.75;
    let yield_skb_tail = alone_with("yield", 17, false, AckModel::Linux, PshRule::SkbTail);
    let yield_every_ack = alone("yield", 17, false, AckModel::Linux);
    assert!(
        (6.1..6.3).contains(&yield_skb_tail),
        "Yield: {yield_skb_tail:.3} Mbit/s"
    );
    assert!((yield_skb_tail - kernel_yield).abs() < (yield_every_ack - kernel_yield).abs());
}

/// Issue 18 failure 4: TCP-LP alone with CoDel (2·BDP buffer), default settings (handshake
/// on), seeds 1–10. Testbed (the shim on Linux 6.18, 2026-11-28, three runs): 6.51, 6.42,
/// 6.44 Mbit/s with the sender's cwnd at 30–34 packets throughout, which is NewReno's figure
/// (the simulator's NewReno: 6.40). Before the simulator's sender set PSH the simulator's
/// TCP-LP starved at 1–2 packets (1.57–3.21 Mbit/s over the ten seeds, median 2.60): each
/// lone segment waited for the delayed-ACK timer and TCP-LP read the wait as queueing.
/// With PSH on the last segment of each ACK's response, the kernel receiver's immediate
/// ACK for it (`tcp_measure_rcv_mss`, `tcp_cleanup_rbuf`; docs/receiver.md#psh-spec)
/// removes those waits: 6.21–6.38, median 6.38, within 4 % of the testbed's runs. The
/// testbed figures were the shim's echo-RTT bug (docs/validation.md#tcp-lp-issue-17); the
/// fixed kernel gets 2.15-5.29, and under `SkbTail` (the default since
/// docs/validation.md#psh-flip) so do we (`psh_rules_against_the_kernels_small_window_goodput`).
/// This test holds `EveryAck`'s distribution and fails when it moves.
#[test]
fn tcp_lp_alone_with_codel_no_longer_starves_once_psh_segments_are_acked_at_once() {
    let mut g: Vec<f64> = (1..=10).map(tcp_lp_alone_with_codel).collect();
    g.sort_by(f64::total_cmp);
    let median = (g[4] + g[5]) / 2.0;
    assert!(
        (6.25..6.5).contains(&median),
        "median {median:.3} Mbit/s over seeds 1-10: {g:.3?}"
    );
    assert!(
        g.iter().all(|&x| (0.9 * 6.42..7.0).contains(&x)),
        "every seed within 10 % of the testbed's 6.42-6.51: {g:.3?}"
    );
}

/// The receiver comparison of docs/receiver.md's table (seed 1, no handshake): the legacy
/// receiver against Linux's for TCP-LP alone with CoDel.
#[test]
fn tcp_lp_alone_with_codel_legacy_and_linux_receiver_without_handshake() {
    let legacy = alone("tcp-lp", 67, true, AckModel::Legacy);
    let linux = alone("tcp-lp", 67, true, AckModel::Linux);
    // With the default 10 ms start jitter (seed 1) the start phase moves these from 1.51
    // and 1.55 to 1.345 and 1.731: TCP-LP is bimodal from run to run (issue 17). Since lost
    // retransmissions are found by RACK's send-time order
    // (deviations/simulator.md#sim-loss-recovery) the legacy receiver's run no longer
    // waits for two RTOs: 2.62; since original transmissions are found lost by RACK's
    // time order too (docs/validation.md#rack-originals) the last hole of a window no
    // longer waits a round trip for new data to be SACKed: 4.18 (the Linux receiver's
    // run had none; unchanged). With PSH
    // (2026-11-28) the Linux receiver ACKs the last segment of each response at once and
    // TCP-LP fills the link: 6.38; the legacy receiver ignores PSH (unchanged).
    assert!(
        (4.1..4.25).contains(&legacy),
        "legacy receiver: {legacy:.3}"
    );
    assert!(
        (6.3..6.45).contains(&linux),
        "Linux receiver: {linux:.3} Mbit/s: update docs/receiver.md"
    );
}

/// `tcp_grow_window` (net/ipv4/tcp_input.c): while `rcv_ssthresh` is below
/// min(window_clamp, tcp_space), each full segment raises it by 2·advmss and sets
/// `icsk_ack.quick |= 1`, so a lone segment is acknowledged at once. A flow at one packet
/// per 100 ms without a receiver RTT sample (so DRS leaves the clamp at 81920): segment 0
/// enters quick-ACK mode (16, `tcp_incr_quickack`) and `|= 1` makes it 17; each ACK uses
/// one and each growth step puts it back to 17, six steps (65160 → 80480 bytes), then the
/// 16 left are used up: 22 immediate ACKs, then the delayed-ACK timer holds every segment.
#[test]
fn lone_segments_are_acked_at_once_while_the_window_grows_then_held() {
    let mut rx = linux_receiver();
    // The SYN-ACK's window (tcp_select_initial_window): 45 segments.
    assert_eq!(rx.advertise(), 65_160);
    let mut at_once = vec![];
    let mut windows = vec![];
    for i in 0..30u64 {
        let t = Time(i * 100_000_000);
        let mut p = Packet::data(0, i as u32, 1448, 52, t.nanos(), false);
        p.rx_tsval = NO_TS_ECHO;
        let ack = match rx.on_data(t, &p) {
            DataOutcome::AckNow => {
                at_once.push(i);
                rx.make_ack(t)
            }
            DataOutcome::Delay(d) => {
                // 40 ms (TCP_ATO_MIN) for the first; the timer's firing inflates ato
                // (`tcp_delack_timer_handler`) and later ones wait min(ato, srtt) = 50 ms.
                let wait = if i == 22 { 40 } else { 50 };
                assert_eq!(d, t + Dur::from_millis(wait), "segment {i}");
                assert!(rx.on_ack_timer(d));
                rx.make_ack(d)
            }
        };
        windows.push(ack.wnd);
    }
    assert_eq!(at_once, (0..22).collect::<Vec<_>>());
    // __tcp_select_window: rcv_ssthresh rounded up to 1 KiB (window scale 10):
    // 65160 + 2920 = 68080 → 68608, ..., 80480 → 80896, then constant.
    assert_eq!(&windows[..2], &[68_608, 71_680]);
    assert!(windows[5..].iter().all(|&w| w == 80_896), "{windows:?}");
}

/// A Linux receiver for 1448-byte segments on a 50 ms path, every segment read at once.
fn linux_receiver() -> Receiver {
    Receiver::new(ReceiverConfig {
        flow: 0,
        header: 52,
        total_segs: None,
        ack_every: 2,
        delack_timeout: Dur::from_millis(40),
        ack_model: AckModel::Linux,
        path_rtt: Dur::from_millis(50),
        clock_offset: 0,
        mss: 1448,
        rwnd: 64 << 20,
    })
}

/// Segment `seg` arriving at `ms` milliseconds with PSH or not; returns when its ACK went
/// out (at arrival, or when the held-ACK timer fired).
fn arrive(rx: &mut Receiver, seg: u32, ms: u64, psh: bool) -> Time {
    let t = Time(ms * 1_000_000);
    let mut p = Packet::data(0, seg, 1448, 52, t.nanos(), false);
    p.rx_tsval = NO_TS_ECHO;
    p.psh = psh;
    let at = match rx.on_data(t, &p) {
        DataOutcome::AckNow => t,
        DataOutcome::Delay(d) => {
            assert!(
                rx.on_ack_timer(d),
                "segment {seg}: the timer at {d:?} sends"
            );
            d
        }
    };
    rx.make_ack(at);
    at
}

/// ICSK_ACK_PUSHED for a full-sized PSH segment (`tcp_measure_rcv_mss`, Linux commit
/// 4720852ed9af) and the ACK of the read that drains the queue (`tcp_cleanup_rbuf`): once
/// the window stopped growing (segment 22 on, as in the test above), a lone segment
/// without PSH waits for the delayed-ACK timer, a lone one with PSH is ACKed on arrival,
/// and the ACK clears the flag for the next one.
#[test]
fn a_lone_full_segment_with_psh_is_acked_on_arrival_without_psh_after_the_timer() {
    let mut rx = linux_receiver();
    rx.advertise();
    for i in 0..22 {
        assert_eq!(
            arrive(&mut rx, i, 100 * i as u64, false),
            Time(i as u64 * 100_000_000)
        );
    }
    // Segment 22 waits ato = 40 ms; the timer's firing raises ato to 80, so later
    // lone segments without PSH wait min(ato, max(srtt 50, 40)) = 50 ms.
    assert_eq!(arrive(&mut rx, 22, 2200, false), Time(2_240_000_000));
    assert_eq!(arrive(&mut rx, 23, 2300, true), Time(2_300_000_000));
    assert_eq!(arrive(&mut rx, 24, 2400, false), Time(2_450_000_000));
    assert_eq!(arrive(&mut rx, 25, 2500, true), Time(2_500_000_000));
    assert_eq!(arrive(&mut rx, 26, 2600, false), Time(2_650_000_000));
    assert!(!rx.linux_delack().unwrap().pushed());
}

/// With out-of-order data queued, a PSH segment that does not fill the hole sets the flag
/// but the read leaves `sk_rmem_alloc` non-zero, so `tcp_cleanup_rbuf` sends nothing; the
/// ACK that goes is `__tcp_ack_snd_check`'s out-of-order one, and it clears the flag.
#[test]
fn a_psh_segment_behind_a_hole_is_acked_by_the_out_of_order_rule_not_the_read() {
    let mut rx = linux_receiver();
    rx.advertise();
    for i in 0..23 {
        arrive(&mut rx, i, 100 * i as u64, false);
    }
    // 24 and 26 arrive out of order (25 and 23 missing); each is ACKed at once (the
    // first three ACKs per RCV.NXT).
    assert_eq!(arrive(&mut rx, 24, 2400, false), Time(2_400_000_000));
    assert_eq!(arrive(&mut rx, 26, 2500, false), Time(2_500_000_000));
    // 23 with PSH: in order, 26 still queued beyond the hole at 25.
    let t = Time(2_600_000_000);
    let mut p = Packet::data(0, 23, 1448, 52, t.nanos(), false);
    p.psh = true;
    assert!(matches!(rx.on_data(t, &p), DataOutcome::AckNow));
    assert!(rx.linux_delack().unwrap().pushed());
    assert!(!rx.linux_delack().unwrap().read_drained(true));
    rx.make_ack(t);
    assert!(!rx.linux_delack().unwrap().pushed());
}

/// The model on the wire: a NewReno bulk flow's receiver sends one ACK per segment for
/// the first 16 segments (quick-ACK mode), then about one per two.
#[test]
fn quick_acks_at_the_start_then_about_one_ack_per_two_segments() {
    let ratio = |model: AckModel, secs: u64| {
        let mut c = adsl(secs, 70);
        let mut f = flow("bulk", "newreno");
        f.ack_model = model;
        f.size = Some(16 * 1448);
        c.flows.push(f);
        let r = run(c);
        let l = &r.links[1];
        (r.flows[0].delivered_bytes, l.tx_bytes)
    };
    // 16 segments, all in quick-ACK mode: 16 ACKs of 52 bytes; the legacy receiver sends
    // 8 (IW10: five pairs, then the last six segments in three pairs). The SYN-ACK (52
    // bytes) crosses the same link.
    let (_, linux_ack_bytes) = ratio(AckModel::Linux, 2);
    let (_, legacy_ack_bytes) = ratio(AckModel::Legacy, 2);
    assert_eq!(
        (linux_ack_bytes, legacy_ack_bytes),
        (16 * 52 + 52, 8 * 52 + 52)
    );
}

/// CUBIC alone on the access link at 350 ms (8/1 Mbit/s, 175 ms each way, 470 packets,
/// 5 s): HyStart's exits as Linux's MIB counts them (`TCPHystartTrainDetect`,
/// `...TrainCwnd`, `...DelayDetect`, `...DelayCwnd`), from the last bin of the trace.
fn cubic_hystart_exits_at_350_ms(seed: u64) -> [f64; 4] {
    let mut c = adsl_at(350, 5, 470);
    c.seed = seed;
    c.measure.series_bin = Some(Dur::from_millis(100));
    c.flows.push(flow("bg", "cubic"));
    let r = run(c);
    let s = r.series.expect("series");
    let last = |name: &str| -> f64 {
        let v = s.trace(0, name).unwrap_or_else(|| panic!("trace {name}"));
        *v.last().expect("bins")
    };
    [
        last("hystart_train_detect"),
        last("hystart_train_cwnd"),
        last("hystart_delay_detect"),
        last("hystart_delay_cwnd"),
    ]
}

#[test]
fn cubic_leaves_slow_start_on_the_ack_train_at_350_ms_as_the_kernel_does() {
    // The kernel (Linux 6.18, testbed, `nstat` in the sender's namespace,
    // docs/receiver.md#drs-phase): TCPHystartTrainDetect 1, TCPHystartTrainCwnd 279. The
    // train holds only while the receiver ACKs every segment from the start of each
    // round, which it does while tcp_grow_window has room; the room comes back when DRS
    // raises the clamp, on the first read at least one receiver RTT after the last
    // measure. With the first measure started at the handshake's ACK (Linux
    // `tcp_init_buffer_space`) that is each round's first segment; started at the first
    // data segment (before) it was the second or third at 7 of 12 seeds, the first ACK
    // of each round covered two segments (3 ms apart at 8 Mbit/s, more than the train's
    // 2 ms) and the delay test ended slow start at 649-650 packets instead.
    for seed in 1..=6 {
        assert_eq!(
            cubic_hystart_exits_at_350_ms(seed),
            [1.0, 279.0, 0.0, 0.0],
            "seed {seed}"
        );
    }
}

/// BBR's min RTT after its first PROBE_RTT (cwnd 4) on the access link, 70 packets, with
/// the sender's PSH rule `rule`. Linux 6.18 on the testbed: 53.56 ms
/// (docs/validation.md#bbr-psh-pairs).
fn bbr_min_rtt_after_probe_rtt_ms(rule: PshRule) -> f64 {
    let mut c = adsl(12, 70);
    c.measure.series_bin = Some(Dur::from_millis(100));
    let mut f = flow("bg", "bbr");
    f.psh_rule = rule;
    c.flows.push(f);
    let r = run(c);
    let s = r.series.as_ref().unwrap();
    let min_rtt = s.trace(0, "min_rtt_ms").expect("bbr traces min_rtt_ms");
    // The last bin: 12 s, well after PROBE_RTT (10.05-10.3 s) refreshed the filter.
    *min_rtt.last().unwrap()
}

/// Linux sends BBR's 2-segment skbs with PSH on the tail and a lone segment without it
/// (the testbed's capture: 8 729 of 9 110 bursts `-P`, 372 lone `-`), so in PROBE_RTT the
/// receiver ACKs pairs, and the pair's second segment, one serialisation behind the first
/// with the skb's send time, sets the min RTT: 25 ms, two serialisations of 1.5 ms, the
/// ACK's 0.5 ms at 1 Mbit/s and 25 ms. With PSH on every lone segment (`SkbTail`'s paced
/// rule) each is ACKed at once and the flow stays in singles: one serialisation less.
/// docs/deviations/simulator.md#sim-psh-paced.
#[test]
fn bbrs_probe_rtt_pairs_give_linuxs_min_rtt_only_with_psh_on_burst_tails() {
    let tails = bbr_min_rtt_after_probe_rtt_ms(PshRule::SkbTailBursts);
    let lone = bbr_min_rtt_after_probe_rtt_ms(PshRule::SkbTail);
    assert!((tails - 53.56).abs() < 0.5, "skb-tail-bursts {tails} ms");
    let serialisation = 1514.0 * 8.0 / 8e6 * 1e3;
    assert!(
        (tails - lone - serialisation).abs() < 0.3,
        "skb-tail-bursts {tails} ms, skb-tail {lone} ms"
    );
}
