//! Rate-based, paced algorithms of Wang 2018 (BBR, Copa, EvaRate, EvaRate++, PropRate,
//! PCC Vivace) alone on Wang 2018's baseline link (§5.1): a constant 16 Mbit/s
//! bottleneck (a constant-rate link stands in for the constant 16 Mbit/s Cellsim trace),
//! 40 ms base RTT, and a deep 2000-packet buffer that a low-latency sender never fills.

mod common;
use common::*;
use scavenger_cc::algorithms::evarate::{Env, EvaRateConfig};
use scavenger_cc::profiles::acks_every_packet;
use scavenger_cc::Dur;
use scavenger_sim::{run, SimConfig};

const RATE_BASED: &[&str] = &["bbr", "copa", "evarate", "evarate++", "proprate", "vivace"];
/// The low-queue ones: EvaRate (Wang 2018 §5.1 keeps its buffer occupancy low on this
/// link), PropRate (§2.3.3: its feedback loop keeps "the buffer occupancy low") and Copa,
/// whose default mode keeps about 1/δ = 2 packets queued (Copa §2.1) with a small
/// oscillation. Wang 2018 shows no Copa run on this link (§2.3.2 says Copa keeps "1 BDP"
/// queued); the 20 ms bound is ours.
const LOW_DELAY: &[&str] = &["evarate", "copa", "proprate"];

fn baseline(secs: u64) -> SimConfig {
    let mut c = dumbbell(16, 40, 2000, secs);
    c.measure.series_bin = Some(Dur::from_secs(1));
    c
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// (utilisation over 5 s .. end, p95 queueing delay in ms over the run, loss packets).
fn alone(alg: &str, secs: u64) -> (f64, f64, u64) {
    let mut c = baseline(secs);
    let mut f = flow("f", alg);
    // Wang 2018 ran Copa and Vivace as user-space UDP clients that acknowledge every
    // packet (§3.1); with delayed ACKs and Linux-style RTT samples Copa's "nearly empty"
    // test fails alone and it turns competitive (docs/deviations/copa.md#copa-ack-every-packet).
    // The rule lives in cc's profiles.
    if acks_every_packet(alg) {
        f.ack_every = 1;
    }
    c.flows.push(f);
    let r = run(c);
    let s = r.series.as_ref().unwrap();
    let util = mean(&s.link_utilisation[5..secs as usize]);
    (
        util,
        r.links[0].qdelay_ms.p95.unwrap_or(0.0),
        r.links[0].queue_drops,
    )
}

#[test]
fn each_algorithm_alone_uses_at_least_90_percent_of_the_link() {
    for &alg in RATE_BASED {
        let (util, p95, drops) = alone(alg, 30);
        eprintln!("{alg}: utilisation {util:.3}, p95 queueing delay {p95:.1} ms, drops {drops}");
        assert!(
            util >= 0.90,
            "{alg}: utilisation over 5-30 s is {util:.3}, want >= 0.90"
        );
    }
}

#[test]
fn evarate_copa_and_proprate_keep_the_p95_queueing_delay_within_20_ms() {
    for &alg in LOW_DELAY {
        let (_, p95, drops) = alone(alg, 30);
        assert!(p95 <= 20.0, "{alg}: p95 queueing delay {p95:.1} ms > 20 ms");
        assert_eq!(drops, 0, "{alg} overflowed a 2000-packet buffer");
    }
}

#[test]
fn cubic_fills_the_buffer() {
    let mut c = baseline(30);
    c.flows.push(flow("f", "cubic"));
    let r = run(c);
    let s = r.series.as_ref().unwrap();
    let max_q = *s.queue_pkts.iter().max().unwrap();
    assert!(
        max_q >= 1900,
        "CUBIC's largest queue was {max_q} of 2000 packets"
    );
    assert!(
        r.links[0].queue_drops > 0,
        "CUBIC never overflowed the buffer"
    );
    // 2000 packets drain in 1.5 s at 16 Mbit/s; CUBIC keeps most of that.
    let p95 = r.links[0].qdelay_ms.p95.unwrap();
    assert!(p95 >= 750.0, "CUBIC p95 queueing delay {p95:.0} ms");
}

#[test]
fn bbr_keeps_its_queue_near_one_bdp_or_less() {
    // cwnd gain 2 caps in-flight at 2 BDP, so the queue stays below about 1 BDP
    // (40 ms) once STARTUP's queue is drained, and nothing is lost in a deep buffer.
    let (_, p95, drops) = alone("bbr", 30);
    assert!(p95 <= 45.0, "BBR p95 queueing delay {p95:.1} ms");
    assert_eq!(drops, 0);
}

#[test]
fn evarate_estimates_its_own_buffer_occupancy() {
    // Wang 2018 §5.1 (Fig. 5.2): B_est tracks the actual occupancy. Alone on the link,
    // the whole queue is the flow's own; B is estimated once per RTT, so compare the
    // mean over 10-30 s rather than instants.
    let mut c = baseline(30);
    c.measure.series_bin = Some(Dur::from_millis(100));
    c.flows.push(flow("f", "evarate"));
    let r = run(c);
    let s = r.series.as_ref().unwrap();
    let b = s.trace(0, "b_pkts").unwrap();
    let est = mean(&b[100..300]);
    let act = mean(
        &s.queue_pkts[100..300]
            .iter()
            .map(|&q| q as f64)
            .collect::<Vec<_>>(),
    );
    assert!(
        (est - act).abs() <= 5.0,
        "mean B estimate {est:.1} packets vs actual queue {act:.1}"
    );
    // And it keeps that occupancy small (B_target oscillates around 10-25 packets).
    assert!(act <= 30.0, "mean queue {act:.1} packets");
}

#[test]
fn evarate_benevolent_loop_alone_fills_the_link_with_tcp_style_smoothing() {
    // Eq. 4.11 acts on t_buff·C, which lags the queue by about an RTT. With Eq. 4.12 as
    // printed (new sample weight 7/8) a drained queue drags ρ̄ down at once and a lone
    // flow in benevolent mode used only ~72 % of this link; with the conventional
    // ρ̄ = 7/8 ρ̄ + 1/8 ρ̂ it fills it (docs/deviations/evarate.md#evarate-eq412-default).
    let mut c = baseline(30);
    let mut f = flow("f", "evarate");
    let cfg = EvaRateConfig {
        initial_mode: Env::Benevolent,
        rho_ewma_alpha: 0.875,
        ..Default::default()
    };
    let raw = cfg.to_params();
    f.params = f
        .algorithm
        .resolve(raw.iter().map(|(n, v)| (*n, v)))
        .unwrap();
    c.flows.push(f);
    let r = run(c);
    let util = mean(&r.series.as_ref().unwrap().link_utilisation[5..30]);
    assert!(
        util >= 0.90,
        "benevolent EvaRate alone: utilisation {util:.3}"
    );
    let p95 = r.links[0].qdelay_ms.p95.unwrap();
    assert!(
        p95 <= 20.0,
        "benevolent EvaRate alone: p95 queueing delay {p95:.1} ms"
    );
}
