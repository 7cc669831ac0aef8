//! Root tests of `transport = "quic"` flows on the testbed: quinn endpoints over UDP in
//! the hosts' namespaces, our algorithm inside quinn through crates/quic's adapter, every
//! datagram through the userspace emulator (docs/quic.md, "QUIC on the testbed"). Each
//! skips, saying why, where network namespaces cannot be created. They run one at a time
//! (a lock), so that their timing does not depend on each other.
//!
//! The link is Ong 2020's baseline, as in the simulator's QUIC acceptance
//! (crates/lab/tests/quic_sim.rs): 8/1 Mbit/s, 25 ms each way, drop-tail with 2 × BDP of
//! the downlink rounded up to 5 packets (70).

mod common;

use common::{can_run, say};
use scavenger_lab::RunRecord;
use scavenger_testbed::{netns, run_scenario, RunOptions};
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

const LINK: &str = "[link]\nrate = \"8Mbit\"\nreverse_rate = \"1Mbit\"\ndelay = \"25ms\"\nbuffer = \"70 packets\"\n";
const RATE_BPS: f64 = 8e6;

fn run(text: &str) -> RunRecord {
    let sc = scavenger_lab::parse("quic-testbed.toml", text).unwrap_or_else(|e| panic!("{e}"));
    let r = run_scenario(&sc, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    // Nothing of the run is left behind: its namespaces are gone.
    let id = r.record.testbed.as_ref().unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        netns::list(&format!("{id}-")).is_empty(),
        "namespaces of {id} left behind"
    );
    r.record
}

/// Goodputs (bit/s) of the record's first Jain window, in its flows' order.
fn window(r: &RunRecord) -> Vec<f64> {
    r.metrics.jain[0].goodput_bps.clone()
}

#[test]
fn quic_ledbat_plus_plus_yields_to_a_kernel_cubic_flow_and_the_link_stays_full() {
    let _g = serial();
    if !can_run("quic_ledbat_plus_plus_yields_to_a_kernel_cubic_flow_and_the_link_stays_full") {
        return;
    }
    // LEDBAT++ over QUIC from 0 s, kernel CUBIC from 5 s; shares over 10-30 s, after
    // CUBIC's slow start and LEDBAT++'s first reaction.
    let text = format!(
        "name = \"quic-ledbatpp-vs-cubic\"\nduration = \"30s\"\n[measure]\n[[measure.jain]]\nflows = [\"bg\", \"fg\"]\nfrom = \"10s\"\nto = \"30s\"\n{LINK}[[flow]]\nname = \"bg\"\nalgorithm = \"ledbat-plus-plus\"\ntransport = \"quic\"\n[[flow]]\nname = \"fg\"\nalgorithm = \"cubic\"\nstart = \"5s\"\n"
    );
    let r = run(&text);
    let g = window(&r);
    let (bg, fg) = (&r.metrics.flows[0], &r.metrics.flows[1]);
    let share = g[0] / (g[0] + g[1]);
    let used = (g[0] + g[1]) / RATE_BPS;
    say(&format!(
        "QUIC LEDBAT++ beside kernel CUBIC, 10-30 s: bg {:.3} Mbit/s, fg {:.3} Mbit/s, bg share {share:.3}, link used {used:.3}; bg RTT p50 {:?} ms, lost {}, loss reductions {}, final cwnd {} B; fg RTT p50 {:?} ms, retrans {}; forward drops {}",
        g[0] / 1e6,
        g[1] / 1e6,
        bg.rtt_ms.p50,
        bg.retransmits,
        bg.fast_recoveries,
        bg.final_cwnd_bytes,
        fg.rtt_ms.p50,
        fg.retransmits,
        r.metrics.links[0].queue_drops,
    ));
    let tb = r.testbed.as_ref().unwrap();
    assert_eq!(tb["flows"][0]["transport"], "quic", "{tb}");
    assert_eq!(tb["flows"][0]["cc_in_use"], "quic:ledbat-plus-plus", "{tb}");
    assert_eq!(tb["flows"][1]["cc_in_use"], "cubic", "{tb}");
    // The QUIC flow ran and its sender sampled quinn's path.
    assert!(bg.delivered_bytes > 1_000_000, "{bg:?}");
    assert!(bg.rtt_ms.p50.is_some_and(|x| x >= 50.0), "{bg:?}");
    assert!(bg.final_cwnd_bytes > 0, "{bg:?}");
    assert!(bg.conservation.holds(), "{:?}", bg.conservation);
    assert!(
        share < 0.3,
        "QUIC LEDBAT++ share {share:.3} beside kernel CUBIC"
    );
    assert!(used >= 0.8, "the two flows used {used:.3} of the link");
}

#[test]
fn quic_cubic_alone_fills_the_link() {
    let _g = serial();
    if !can_run("quic_cubic_alone_fills_the_link") {
        return;
    }
    // A sized flow, so that its completion time is measured as a TCP flow's is; its
    // goodput runs from its start (slow start included) to its last byte.
    let text = format!(
        "name = \"quic-cubic-alone\"\nduration = \"25s\"\n{LINK}[[flow]]\nname = \"bulk\"\nalgorithm = \"cubic\"\ntransport = \"quic\"\nsize = \"12MB\"\n"
    );
    let r = run(&text);
    let f = &r.metrics.flows[0];
    let used = f.goodput_bps / RATE_BPS;
    say(&format!(
        "QUIC CUBIC alone, 12 MB: completed in {:?} s, goodput {:.3} Mbit/s ({used:.3} of the link), RTT p50 {:?} ms p95 {:?} ms, lost {}, loss reductions {}, final cwnd {} B, link utilisation {:.3}",
        f.completion_time_s,
        f.goodput_bps / 1e6,
        f.rtt_ms.p50,
        f.rtt_ms.p95,
        f.retransmits,
        f.fast_recoveries,
        f.final_cwnd_bytes,
        r.metrics.links[0].utilisation,
    ));
    assert_eq!(f.delivered_bytes, 12_000_000, "{f:?}");
    assert!(f.completion_time_s.is_some(), "{f:?}");
    assert!(used >= 0.85, "QUIC CUBIC used {used:.3} of the link");
}
