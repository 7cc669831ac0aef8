//! Behaviour of the transport model with NewReno: the foundation issue's acceptance.

mod common;
use common::*;
use scavenger_cc::{Dur, Time};
use scavenger_sim::{run, JainSpec};

#[test]
fn newreno_fills_a_one_bdp_link() {
    let mut cfg = dumbbell(10, 40, bdp_packets(10, 40), 60);
    cfg.flows.push(flow("a", "newreno"));
    let r = run(cfg);
    let util = r.links[0].utilisation;
    assert!(util >= 0.95, "utilisation {util}");
    assert!(
        r.flows[0].conservation.holds(),
        "{:?}",
        r.flows[0].conservation
    );
}

#[test]
fn newreno_under_random_loss_follows_mathis() {
    let mut cfg = dumbbell(10, 40, bdp_packets(10, 40), 60);
    cfg.forward.loss = bernoulli(0.01);
    cfg.flows.push(flow("a", "newreno"));
    let r = run(cfg);
    let f = &r.flows[0];
    // Mathis et al.: MSS/RTT · sqrt(3/2)/sqrt(p), with the measured mean RTT.
    let rtt = f.rtt_ms.mean.unwrap() / 1000.0;
    let mathis = 1448.0 * 8.0 / rtt * 1.22 / 0.01f64.sqrt();
    let ratio = f.goodput_bps / mathis;
    assert!(
        (0.75..=1.25).contains(&ratio),
        "goodput {} vs Mathis {} (ratio {ratio})",
        f.goodput_bps,
        mathis
    );
}

#[test]
fn slow_start_doubles_the_window_every_round_trip() {
    // A deep buffer and a fast link so nothing is lost during the first rounds.
    let mut cfg = dumbbell(1000, 100, 100_000, 1);
    cfg.measure.series_bin = Some(Dur::from_millis(100));
    let mut f = flow("a", "newreno");
    f.start = Time(50_000_000); // sample mid-round
    cfg.flows.push(f);
    let r = run(cfg);
    let cw = &r.series.unwrap().flow_cwnd_bytes[0];
    // cwnd at the middle of successive rounds: IW10 = 14480 bytes, then doubling. Data
    // starts after the handshake's round trip (at 150 ms), so at 100 ms there is no
    // sender yet and the doubling starts one bin later.
    let rounds: Vec<u64> = cw[0..6].iter().map(|c| c / 1448).collect();
    assert_eq!(rounds, vec![0, 10, 20, 40, 80, 160], "{cw:?}");
}

#[test]
fn recovers_after_a_blackout() {
    let mut cfg = dumbbell(10, 40, bdp_packets(10, 40), 30);
    cfg.forward.outages = vec![outage(10, 2)];
    cfg.measure.series_bin = Some(Dur::from_secs(1));
    cfg.flows.push(flow("a", "newreno"));
    let r = run(cfg);
    let s = r.series.unwrap();
    assert!(
        r.flows[0].timeouts >= 1,
        "the blackout must cause a timeout"
    );
    // Bins end at 1 s, 2 s, ...: bin i covers (i, i+1].
    assert!(s.link_utilisation[10] < 0.05 && s.link_utilisation[11] == 0.0);
    let back = (12..22).find(|&i| s.link_utilisation[i] >= 0.9);
    assert!(
        back.is_some(),
        "no 1-s bin at >= 90% within 10 s after the blackout: {:?}",
        &s.link_utilisation[10..22]
    );
    assert!(r.flows[0].conservation.holds());
}

#[test]
fn same_seed_same_result_and_conservation_with_many_flows() {
    let mk = || {
        let mut cfg = dumbbell(20, 30, 50, 10);
        cfg.forward.loss = bernoulli(0.001);
        cfg.reverse.loss = bernoulli(0.001);
        for i in 0..6 {
            let mut f = flow(&format!("f{i}"), "newreno");
            f.start = Time(i * 300_000_000);
            f.extra_delay = Dur::from_millis(i * 3);
            if i % 2 == 1 {
                f.size = Some(500_000 + i * 1000);
            }
            cfg.flows.push(f);
        }
        cfg.measure.jain.push(JainSpec {
            name: "all".into(),
            flows: (0..6).collect(),
            from: Time(2_000_000_000),
            to: Time(10_000_000_000),
        });
        cfg
    };
    let a = run(mk());
    let b = run(mk());
    assert_eq!(a, b);
    for f in &a.flows {
        assert!(f.conservation.holds(), "{}: {:?}", f.name, f.conservation);
        assert!(f.delivered_bytes > 0);
        if let Some(size) = f.size_bytes {
            assert_eq!(f.delivered_bytes, size, "{} must complete", f.name);
            assert!(f.completion_time_s.is_some());
        }
    }
    for l in &a.links {
        assert!(l.conservation.holds(), "{}: {:?}", l.name, l.conservation);
    }
    // A different seed changes the loss pattern.
    let mut c = mk();
    c.seed = 2;
    assert_ne!(run(c).flows[0].delivered_bytes, a.flows[0].delivered_bytes);
}

#[test]
fn two_cubic_flows_share_fairly() {
    for seed in 1..=3 {
        let mut cfg = dumbbell(10, 50, bdp_packets(10, 50), 60);
        cfg.seed = seed;
        cfg.flows.push(flow("a", "cubic"));
        let mut b = flow("b", "cubic");
        b.start = Time(seed * 100_000_000); // staggered so the seeds differ
        cfg.flows.push(b);
        cfg.measure.jain.push(JainSpec {
            name: "last40".into(),
            flows: vec![0, 1],
            from: Time(20_000_000_000),
            to: Time(60_000_000_000),
        });
        let r = run(cfg);
        let j = &r.jain[0];
        assert!(
            j.index >= 0.95,
            "seed {seed}: Jain {} rates {:?}",
            j.index,
            j.goodput_bps
        );
        assert!(
            r.links[0].utilisation > 0.9,
            "seed {seed}: {}",
            r.links[0].utilisation
        );
    }
}

#[test]
fn a_download_finishes_against_a_reno_upload() {
    // Ong 2020 §3.3's upload scenario (the thesis implies about 9 s for the foreground).
    // It used to never finish: the slow-start overshoot lost most of a window, the RTO
    // (RFC 6298 with a 200 ms floor, below the 800 ms RTT's headroom) fired, and the
    // window was held at one segment through RTO recovery, one retransmission per 0.8 s.
    // Linux's RTO keeps 200 ms above SRTT, PRR avoids the burst that lost the tail, and
    // in RTO recovery the window slow-starts (CA_Loss calls cong_avoid).
    let mut c = dumbbell(8, 50, 70, 60);
    c.reverse.rate = scavenger_cc::Rate::from_mbps(1);
    let mut up = flow("up", "newreno");
    up.direction = scavenger_sim::Direction::Reverse;
    c.flows.push(up);
    let mut fg = flow("fg", "newreno");
    fg.start = Time(10_000_000_000);
    fg.size = Some(2469 * 1024);
    c.flows.push(fg);
    let r = run(c);
    let fg = &r.flows[1];
    let fct = fg.completion_time_s.expect("the download must finish");
    assert!(fct < 15.0, "completion {fct} s");
    assert!(fg.conservation.holds());
}

#[test]
fn an_upload_queues_behind_itself_and_delays_a_downloads_acks() {
    // Ong 2020 §3.3: on an 8/1 Mbit/s access link a saturating upload fills the uplink
    // queue, and the download's ACKs wait in it.
    let adsl = |upload: bool| {
        let mut c = dumbbell(8, 50, 70, 30);
        c.reverse.rate = scavenger_cc::Rate::from_mbps(1);
        c.flows.push(flow("down", "newreno"));
        if upload {
            let mut up = flow("up", "newreno");
            up.direction = scavenger_sim::Direction::Reverse;
            c.flows.push(up);
        }
        run(c)
    };
    let alone = adsl(false);
    let both = adsl(true);
    let up = &both.flows[1];
    assert!(
        up.goodput_bps > 0.85e6 && up.goodput_bps < 1e6,
        "upload goodput {}",
        up.goodput_bps
    );
    let uplink_qdelay = both.links[1].qdelay_ms.mean.unwrap();
    assert!(
        uplink_qdelay > 100.0,
        "uplink queueing delay {uplink_qdelay}"
    );
    let (rtt_alone, rtt_both) = (
        alone.flows[0].rtt_ms.mean.unwrap(),
        both.flows[0].rtt_ms.mean.unwrap(),
    );
    // The download's own downlink queue empties (it is now ACK-clock limited), and RTT
    // samples are denser while the uplink queue is short, so the mean RTT grows by less
    // than the uplink's mean queueing delay, but by a large fraction of it. Since the
    // sender sets PSH (2026-11-28) the download's receiver ACKs the last segment of each
    // response at once: about 5 600 ACKs on the uplink in 30 s instead of 2 100, and as
    // the 70-packet buffer counts packets, they leave less room for the upload's data
    // (124 drops instead of 77): mean uplink queueing 183 ms instead of 363, the
    // download's RTT 118 -> 241 ms (2.0x; it was 117 -> 406, 3.5x).
    assert!(
        rtt_both >= rtt_alone + 0.5 * uplink_qdelay && rtt_both >= 1.8 * rtt_alone,
        "download RTT {rtt_alone} -> {rtt_both}, uplink queueing {uplink_qdelay}"
    );
    assert!(
        both.flows[0].goodput_bps < 0.5 * alone.flows[0].goodput_bps,
        "ACK starvation should slow the download"
    );
    for f in &both.flows {
        assert!(f.conservation.holds());
    }
}

/// Issue 17 "Connections": each flow starts at start + U[0, 10 ms] from the run's seed
/// (docs/deviations/simulator.md#sim-start-jitter). Without random loss the transfer
/// itself is the same; only its phase moves.
#[test]
fn start_jitter_moves_each_seeds_start_and_repeats_within_a_seed() {
    let at = |seed: u64, jitter: Option<Dur>| {
        let mut cfg = dumbbell(10, 40, bdp_packets(10, 40), 10);
        cfg.seed = seed;
        let mut f = flow("a", "newreno");
        f.start = Time(1_000_000_000);
        f.size = Some(200_000);
        if let Some(j) = jitter {
            f.start_jitter = j;
        }
        cfg.flows.push(f);
        run(cfg)
    };
    let done = |r: &scavenger_sim::SimResult| r.flows[0].completed_at_s.unwrap();
    // The default is 10 ms.
    assert_eq!(scavenger_sim::DEFAULT_START_JITTER, Dur::from_millis(10));
    let (a, b) = (at(1, None), at(2, None));
    assert_ne!(done(&a), done(&b), "two seeds, one start phase");
    // Each lies within [start, start + 10 ms] of the unjittered run's completion.
    let base = done(&at(1, Some(Dur::ZERO)));
    for r in [&a, &b] {
        let d = done(r) - base;
        // (The delayed-ACK timer fires on 1 ms jiffies, so the phase may shift the
        // transfer itself by a jiffy or two.)
        assert!((-0.002..=0.012).contains(&d), "jitter {d} s");
    }
    // Same seed: the same record, byte for byte.
    let again = at(2, None);
    assert_eq!(format!("{b:?}"), format!("{again:?}"));
    // Zero: every seed starts exactly on time.
    assert_eq!(done(&at(2, Some(Dur::ZERO))), base);
}
