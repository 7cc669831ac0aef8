//! Hayes & Armitage 2011 ("Revisiting TCP Congestion Control Using Delay
//! Gradients", IFIP Networking 2011): CDG's four experiments of §4 on the 10 Mbit/s,
//! 84-packet dummynet testbed of Fig 3. Set-up from Hayes & Armitage 2011 §4 and Hayes & Armitage 2011 notes §10;
//! published numbers from spec §11 (the text states them; the figures carry no data).
//!
//! - E1 (§4.1, Fig 4): one 60 s flow under forward-path random loss, NewReno, Vegas and
//!   CDG over a sweep of loss rates.
//! - E2 (§4.2, Figs 5–7): three flows of one kind (all NewReno or all CDG), 60 s each,
//!   starting 20 s apart; without and with 1 % random loss.
//! - E3 (§4.3, Fig 8): CDG, NewReno, NewReno, CDG, 80 s each, starting 20 s apart; without
//!   and with 1 % random loss; goodput per 20 s window.
//! - E4 (§4.4, Fig 9): two flows of one kind with 40 ms and 70 ms base RTTs, 60 s each,
//!   the second 20 s after the first, in both orders.

use super::*;
use crate::builder::{Buffer, FlowBuilder, LinkBuilder, ScenarioBuilder};
use scavenger_cc::{Dur, Rate};

/// §4: "This router provides a 10 Mbps bottleneck link".
pub const RATE_MBPS: u64 = 10;
/// §4: "base RTTs of 40 ms (20 ms each way) and 70 ms (35 ms each way)".
pub const ONE_WAY_MS: u64 = 20;
pub const LONG_ONE_WAY_MS: u64 = 35;
/// §4: "The bottleneck queue is 84 packets long" (about 100 ms at 1500 B).
pub const BUFFER_PKTS: u64 = 84;
/// The random loss of E2 and E3's second variants (§4.2 "an extra 1% packet loss rate",
/// §4.3 Fig 8b).
pub const EXTRA_LOSS: f64 = 0.01;
/// E1's loss rates (%). The text does not give Fig 4's x axis (Hayes & Armitage 2011 notes §13.9); these are
/// the rates of Hayes & Armitage 2011 notes §11's Mathis table, around the one point the text states (1 %).
pub const LOSS_PCT: &[f64] = &[0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0];
/// E1's mechanisms (§4.1: "NewReno, TCP Vegas [6], and CDG"), plus, in the full study, CDG
/// with delayed-ACK receivers to show what ERTT's delayed-ACK handling is worth here.
const E1_MECHANISMS: &[&str] = &["newreno", "vegas", "cdg"];
const CDG_DELACK: &str = "cdg-delack";

/// §4: "CDG operates with moving average sample window a = 8, exponential scaling
/// parameter G = 3, ineffectual backoff trigger b = 5 and ineffectual backoff ignore count
/// b' = 5"; §3.5: β = 0.7 (Hayes & Armitage 2011 notes §5). The paper's own algorithm (variant = paper: the
/// paper refined by the authors' FreeBSD module), not Linux tcp_cdg.
fn cdg_flow(name: &str) -> FlowBuilder {
    FlowBuilder::tcp(name, "cdg")
        .param("variant", "paper")
        .param("window", 8)
        .param("exp_backoff_scale", 3.0)
        .param("backoff_beta", 0.7)
        .param("use_ineff", 5)
        .param("hold_backoff", 5)
}

/// A flow of `alg` ("newreno", "vegas", "cdg" or "cdg-delack").
///
/// CDG's RTT samples came from the ERTT module (§3.2, [13]), which keeps the receiver's
/// delayed-ACK timer out of them; our datapath's sample is the newest segment's send time,
/// and a lone segment held by the 40 ms delayed-ACK timer still inflates τ_max. We let the
/// CDG flows' receivers acknowledge every segment instead
/// (docs/deviations/studies-hayes2011.md#hayes2011-ack-every);
/// `cdg-delack` keeps delayed ACKs to show the difference.
fn flow(name: &str, alg: &str) -> FlowBuilder {
    match alg {
        "cdg" => cdg_flow(name).delayed_ack(false),
        CDG_DELACK => cdg_flow(name),
        // §4: "NewReno flows use the default parameters"; Vegas likewise.
        _ => FlowBuilder::tcp(name, alg),
    }
}

/// Timing noise of the testbed (not in the source): uniform ±0.5 ms on each direction's
/// delay, order kept, as dummynet's 1 ms scheduling tick spreads packet departures. Without
/// any noise, NewReno runs are identical across seeds and lock into phase effects (§4.4
/// names them) that the testbed's runs did not show on average: the 70 ms NewReno flow
/// started first kept 66 % in every run
/// (docs/deviations/studies-hayes2011.md#hayes2011-timing-noise).
pub const JITTER_US: u64 = 500;

fn secs(s: u64) -> Dur {
    Dur::from_secs(s)
}

/// A run of `run_s` seconds on the Fig 3 bottleneck: 10 Mbit/s, 20 ms each way, 84
/// packets drop-tail, random loss (a probability) on the forward (data) path only (§4:
/// "random packet loss added by dummynet in the the forward (data) path only").
fn testbed(id: &str, run_s: u64, loss: f64) -> ScenarioBuilder {
    let mut link = LinkBuilder::new(Rate::from_mbps(RATE_MBPS), Dur::from_millis(ONE_WAY_MS))
        .buffer(Buffer::Packets(BUFFER_PKTS as u32))
        .field("jitter", Dur::from_micros(JITTER_US));
    if loss > 0.0 {
        link = link.loss(loss);
    }
    ScenarioBuilder::new(id, secs(run_s)).link(link)
}

/// Jain's index of `flows` over [from, to) s.
fn jain<S: AsRef<str>>(
    sc: ScenarioBuilder,
    name: &str,
    flows: &[S],
    from: u64,
    to: u64,
) -> ScenarioBuilder {
    let flows: Vec<&str> = flows.iter().map(|f| f.as_ref()).collect();
    sc.jain(name, &flows, secs(from), secs(to))
}

fn build(id: &str, group: String, mechanism: &str, scenario: ScenarioBuilder) -> Experiment {
    let scenario = scenario
        .build()
        .unwrap_or_else(|e| panic!("study scenario {id} is invalid: {e}"));
    Experiment {
        id: id.to_string(),
        group,
        mechanism: mechanism.to_string(),
        scenario,
    }
}

fn loss_label(loss: f64) -> &'static str {
    if loss > 0.0 {
        "loss1%"
    } else {
        "noloss"
    }
}

fn loss_heading(loss: f64) -> &'static str {
    if loss > 0.0 {
        "1 % random loss"
    } else {
        "no random loss"
    }
}

pub fn e1_id(pct: f64, alg: &str) -> String {
    format!("e1/p={pct}%/{alg}")
}

/// E1: "the average goodput achieved over 60 s versus the probability of non-congestion
/// related packet loss" (§4.1), one flow alone.
fn e1(pct: f64, alg: &str) -> Experiment {
    let id = e1_id(pct, alg);
    let sc = testbed(&id, 60, pct / 100.0).flow(flow(alg, alg));
    build(&id, format!("E1 one flow, {pct} % random loss"), alg, sc)
}

pub fn e2_id(alg: &str, loss: f64) -> String {
    format!("e2/{}/{alg}", loss_label(loss))
}

/// E2: "three 60 s NewReno or CDG flows ... starting at 0 s, 20 s and 40 s" (§4.2).
/// Jain groups: 0 = all three together (40–60 s), 1 = the 8 s after the second flow joins
/// (20–28 s, two 4 s points of Fig 5), 2 = the first flow alone after slow start (10–20 s,
/// "Figure 5 between t = 10 s and t = 20 s").
fn e2(alg: &str, loss: f64) -> Experiment {
    let id = e2_id(alg, loss);
    let names: Vec<String> = (1..=3).map(|i| format!("{alg}.{i}")).collect();
    let mut sc = testbed(&id, 100, loss);
    for (i, n) in names.iter().enumerate() {
        let start = 20 * i as u64;
        sc = sc.flow(flow(n, alg).start(secs(start)).stop(secs(start + 60)));
    }
    sc = jain(sc, "all three", &names, 40, 60);
    sc = jain(sc, "second joins", &names[..2], 20, 28);
    sc = jain(sc, "first alone", &names[..1], 10, 20);
    build(
        &id,
        format!("E2 three flows, {}", loss_heading(loss)),
        alg,
        sc,
    )
}

/// E3's flows in start order (§4.3: "four 80s flows (CDG, NewReno, NewReno, and CDG) at
/// 20s intervals").
pub const E3_FLOWS: [&str; 4] = ["cdg.1", "newreno.1", "newreno.2", "cdg.2"];
/// E3 runs 4 × 20 s + 80 s − 20 s = 140 s, in seven 20 s windows (Fig 8: "Goodput
/// averaged every 20s").
pub const E3_WINDOWS: u64 = 7;

pub fn e3_id(loss: f64) -> String {
    format!("e3/{}/cdg-newreno", loss_label(loss))
}

/// E3: Jain group k is the window [20k, 20k + 20) s over the flows active in it.
fn e3(loss: f64) -> Experiment {
    let id = e3_id(loss);
    let mut sc = testbed(&id, 140, loss);
    for (i, n) in E3_FLOWS.iter().enumerate() {
        let start = 20 * i as u64;
        let alg = n.split('.').next().expect("role");
        sc = sc.flow(flow(n, alg).start(secs(start)).stop(secs(start + 80)));
    }
    for k in 0..E3_WINDOWS {
        let (from, to) = (20 * k, 20 * k + 20);
        // Flow i runs over [20i, 20i + 80): active in window k when i ≤ k < i + 4.
        let active: Vec<&str> = E3_FLOWS
            .iter()
            .enumerate()
            .filter(|(i, _)| (*i as u64) <= k && k < *i as u64 + 4)
            .map(|(_, n)| *n)
            .collect();
        sc = jain(sc, &format!("{from}-{to}s"), &active, from, to);
    }
    build(
        &id,
        format!("E3 CDG and NewReno, {}", loss_heading(loss)),
        "cdg+newreno",
        sc,
    )
}

pub fn e4_id(alg: &str, long_first: bool) -> String {
    format!("e4/{}/{alg}", if long_first { "L-S" } else { "S-L" })
}

/// E4: "Each flow transmits for 60 s, with the second flow starting 20 s later" (Fig 9);
/// the short flow at 40 ms, the long at 70 ms base RTT (15 ms more each way). Jain groups:
/// 0 = the end of the overlap (30–60 s: where the flows "end up", after the first 10 s
/// point of Fig 9), 1 = the first 10 s of the overlap (20–30 s), 2 = its last 10 s
/// (50–60 s).
fn e4(alg: &str, long_first: bool) -> Experiment {
    let id = e4_id(alg, long_first);
    let order = if long_first {
        ["long", "short"]
    } else {
        ["short", "long"]
    };
    let mut sc = testbed(&id, 80, 0.0);
    for (i, n) in order.iter().enumerate() {
        let start = 20 * i as u64;
        let mut f = flow(n, alg).start(secs(start)).stop(secs(start + 60));
        if *n == "long" {
            f = f.field(
                "extra_delay",
                Dur::from_millis(LONG_ONE_WAY_MS - ONE_WAY_MS),
            );
        }
        sc = sc.flow(f);
    }
    let both = ["short", "long"];
    sc = jain(sc, "end of overlap", &both, 30, 60);
    sc = jain(sc, "second joins", &both, 20, 30);
    sc = jain(sc, "last 10 s", &both, 50, 60);
    build(
        &id,
        format!(
            "E4 40 ms and 70 ms, {} first",
            if long_first { "70 ms" } else { "40 ms" }
        ),
        alg,
        sc,
    )
}

fn published() -> Vec<Published> {
    let p = Published::new;
    vec![
        // §4.1/§6: "a single CDG flow achieving 65 % of the available capacity at 1 % packet
        // loss, compared to 35 % for NewReno (a 86 % improvement over NewReno)".
        p(
            "Fig 4, §6",
            e1_id(1.0, "cdg"),
            Metric::Goodput("*"),
            None,
            0.65 * RATE_MBPS as f64,
        ),
        p(
            "Fig 4, §6",
            e1_id(1.0, "newreno"),
            Metric::Goodput("*"),
            None,
            0.35 * RATE_MBPS as f64,
        ),
        p(
            "Fig 4, §6",
            e1_id(1.0, "cdg"),
            Metric::Goodput("*"),
            Some(e1_id(1.0, "newreno")),
            86.0,
        ),
        // §4.3, Fig 8a: "The first CDG flow retains about 24% of the available capacity
        // once the first NewReno flow starts up" (window 1 = 20–40 s).
        p(
            "Fig 8a, §4.3",
            e3_id(0.0),
            Metric::WinUtil(1, "cdg"),
            None,
            24.0,
        ),
        // §4.4, Fig 9: "the NewReno and CDG flows with higher (70 ms) base RTT end up with a
        // smaller (roughly 30 %) share of available capacity", in both orders.
        p(
            "Fig 9a, §4.4",
            e4_id("newreno", false),
            Metric::WinUtil(0, "long"),
            None,
            30.0,
        ),
        p(
            "Fig 9b, §4.4",
            e4_id("newreno", true),
            Metric::WinUtil(0, "long"),
            None,
            30.0,
        ),
        p(
            "Fig 9c, §4.4",
            e4_id("cdg", false),
            Metric::WinUtil(0, "long"),
            None,
            30.0,
        ),
        p(
            "Fig 9d, §4.4",
            e4_id("cdg", true),
            Metric::WinUtil(0, "long"),
            None,
            30.0,
        ),
    ]
}

/// Mathis et al.'s B = (pkt-size / rtt) · C / √p with rtt = 40 ms, C = √(3/2) and 1500 B
/// packets (§4.1), in Mbit/s.
pub fn mathis_mbps(p: f64) -> f64 {
    1500.0 * 8.0 / 0.040 * (1.5f64).sqrt() / p.sqrt() / 1e6
}

fn not_run(what: &str) -> ClaimOutcome {
    ClaimOutcome {
        holds: None,
        evidence: format!("not run: needs {what}"),
    }
}

/// The medians of `m` in `exps`, or which experiment lacks them.
fn medians(r: &Results, exps: &[String], m: Metric) -> Result<Vec<f64>, ClaimOutcome> {
    exps.iter()
        .map(|e| r.median(e, m).ok_or_else(|| not_run(e)))
        .collect()
}

fn med1(r: &Results, exp: &str, m: Metric) -> Result<f64, ClaimOutcome> {
    r.median(exp, m).ok_or_else(|| not_run(exp))
}

/// 20th and 80th percentiles over runs (the paper's error bars, §4), nearest rank.
fn p20_p80(xs: &[f64]) -> Option<(f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    Some((at(0.2), at(0.8)))
}

fn claims() -> Vec<Claim> {
    let g = Metric::Goodput("*");
    vec![
        Claim::fallible("§4.1, Fig 4", "CDG tolerates non-congestion loss better than NewReno and Vegas: higher goodput at every loss rate from 0.5 %", move |r| {
            let mut ok = true;
            let mut ev = Vec::new();
            let mut seen = 0;
            for &p in LOSS_PCT.iter().filter(|&&p| p >= 0.5) {
                let ids: Vec<String> = ["cdg", "newreno", "vegas"].iter().map(|a| e1_id(p, a)).collect();
                let Ok(v) = medians(r, &ids, g) else { continue };
                seen += 1;
                ok &= v[0] > v[1] && v[0] > v[2];
                ev.push(format!("{p} %: CDG {:.2}, NewReno {:.2}, Vegas {:.2} Mbit/s", v[0], v[1], v[2]));
            }
            if seen == 0 {
                return Err(not_run("E1 at 0.5 % loss or more"));
            }
            Ok(ClaimOutcome { holds: Some(ok), evidence: ev.join("; ") })
        }),
        Claim::fallible("§4.1, Fig 4", "NewReno and Vegas track the Mathis et al. curve B = (1500 B / 40 ms)·√1.5/√p: within 40 % of it at every loss rate from 0.5 % to 2 %", move |r| {
            let mut ok = true;
            let mut ev = Vec::new();
            for &p in LOSS_PCT.iter().filter(|&&p| (0.5..=2.0).contains(&p)) {
                let b = mathis_mbps(p / 100.0);
                for alg in ["newreno", "vegas"] {
                    let Some(v) = r.median(&e1_id(p, alg), g) else { continue };
                    ok &= (v / b - 1.0).abs() <= 0.4;
                    ev.push(format!("{alg} {p} %: {v:.2} vs {b:.2} Mbit/s ({:+.0} %)", (v / b - 1.0) * 100.0));
                }
            }
            if ev.is_empty() {
                return Err(not_run("E1 NewReno or Vegas at 0.5–2 % loss"));
            }
            Ok(ClaimOutcome { holds: Some(ok), evidence: ev.join("; ") })
        }),
        Claim::fallible("§4.1", "CDG's goodput still drops as the loss rate rises (each step of the sweep lower, within 5 %; the highest rate at least 30 % below the lowest)", move |r| {
            let pts: Vec<(f64, f64)> = LOSS_PCT.iter().filter_map(|&p| Some((p, r.median(&e1_id(p, "cdg"), g)?))).collect();
            if pts.len() < 2 {
                return Err(not_run("E1 CDG at two loss rates or more"));
            }
            let steps = pts.windows(2).all(|w| w[1].1 <= w[0].1 * 1.05);
            let (first, last) = (pts[0].1, pts[pts.len() - 1].1);
            let ok = steps && last <= 0.7 * first;
            Ok(ClaimOutcome { holds: Some(ok), evidence: pts.iter().map(|(p, v)| format!("{p} %: {v:.2}")).collect::<Vec<_>>().join(", ") + " Mbit/s" })
        }),
        Claim::fallible("§4.2, Fig 5", "Without random loss, three NewReno and three CDG flows each share fairly among themselves (Jain's index ≥ 0.9 over 40–60 s, all three active)", move |r| {
            let v = medians(r, &[e2_id("newreno", 0.0), e2_id("cdg", 0.0)], Metric::JainAt(0))?;
            Ok(ClaimOutcome { holds: Some(v.iter().all(|&j| j >= 0.9)), evidence: format!("Jain NewReno {:.3}, CDG {:.3}", v[0], v[1]) })
        }),
        Claim::fallible("§4.2, Fig 6", "NewReno fills the queue (RTT up to 140 ms: queueing-delay p95 ≥ 90 ms of the 100 ms buffer) while CDG keeps the RTT much lower (mean RTT at most 60 % of NewReno's)", move |r| {
            let ids = [e2_id("newreno", 0.0), e2_id("cdg", 0.0)];
            let q = medians(r, &ids, Metric::QdelayP95)?;
            let rtt = medians(r, &ids, Metric::RttMean("*"))?;
            let ok = q[0] >= 90.0 && rtt[1] <= 0.6 * rtt[0];
            Ok(ClaimOutcome { holds: Some(ok), evidence: format!("queueing p95 NewReno {:.0} ms, CDG {:.0} ms; mean RTT NewReno {:.0} ms, CDG {:.0} ms", q[0], q[1], rtt[0], rtt[1]) })
        }),
        Claim::fallible("§4.2, Fig 5", "CDG flows converge on their fair share faster than NewReno flows (higher Jain's index over the 8 s after the second flow joins)", move |r| {
            let v = medians(r, &[e2_id("newreno", 0.0), e2_id("cdg", 0.0)], Metric::JainAt(1))?;
            Ok(ClaimOutcome { holds: Some(v[1] > v[0]), evidence: format!("Jain over 20–28 s: NewReno {:.3}, CDG {:.3}", v[0], v[1]) })
        }),
        Claim::fallible("§4.2, Fig 5", "A single CDG flow never quite matches the goodput of a single NewReno flow (10–20 s), as CDG lets the link go idle briefly", move |r| {
            let v = medians(r, &[e2_id("newreno", 0.0), e2_id("cdg", 0.0)], Metric::WinUtil(2, "*"))?;
            Ok(ClaimOutcome { holds: Some(v[1] < v[0]), evidence: format!("10–20 s: NewReno {:.1} %, CDG {:.1} % of capacity", v[0], v[1]) })
        }),
        Claim::fallible("§4.2, Fig 7", "With 1 % random loss the losses cripple NewReno (less total goodput than without) while CDG keeps using the capacity (more total goodput than NewReno) and sharing it (Jain ≥ 0.9), over 40–60 s", move |r| {
            let nr = medians(r, &[e2_id("newreno", 0.0), e2_id("newreno", EXTRA_LOSS)], Metric::WinUtil(0, "*"))?;
            let cdg = med1(r, &e2_id("cdg", EXTRA_LOSS), Metric::WinUtil(0, "*"))?;
            let j = med1(r, &e2_id("cdg", EXTRA_LOSS), Metric::JainAt(0))?;
            let ok = nr[1] < nr[0] && cdg > nr[1] && j >= 0.9;
            Ok(ClaimOutcome { holds: Some(ok), evidence: format!("40–60 s total: NewReno {:.1} % without loss, {:.1} % with; CDG {:.1} % with (Jain {j:.3})", nr[0], nr[1], cdg) })
        }),
        Claim::fallible("§4.3, Fig 8a", "Against NewReno without random loss the first CDG flow keeps only a minority of the capacity once NewReno joins (20–40 s), and CDG never quite claims its fair share (60–80 s, two of four flows)", move |r| {
            let e = e3_id(0.0);
            let (first, both) = (med1(r, &e, Metric::WinUtil(1, "cdg"))?, med1(r, &e, Metric::WinUtil(1, "*"))?);
            let (c4, all4) = (med1(r, &e, Metric::WinUtil(3, "cdg"))?, med1(r, &e, Metric::WinUtil(3, "*"))?);
            let ok = first < 0.5 * both && c4 < 0.5 * all4;
            Ok(ClaimOutcome { holds: Some(ok), evidence: format!("20–40 s: CDG {first:.1} % of {both:.1} %; 60–80 s: CDG {c4:.1} % of {all4:.1} %") })
        }),
        Claim::fallible("§4.3, Fig 8a", "CDG does slightly better as the next NewReno and CDG flows join: the CDG flows' goodput per flow relative to a fair share is higher over 60–80 s than over 20–40 s", move |r| {
            let e = e3_id(0.0);
            let (c2, all2) = (med1(r, &e, Metric::WinUtil(1, "cdg"))?, med1(r, &e, Metric::WinUtil(1, "*"))?);
            let (c4, all4) = (med1(r, &e, Metric::WinUtil(3, "cdg"))?, med1(r, &e, Metric::WinUtil(3, "*"))?);
            // A fair share per flow: the total over the flows active (2 over 20–40 s, one of
            // them CDG; 4 over 60–80 s, two of them CDG).
            let early = c2 / (all2 / 2.0);
            let late = (c4 / 2.0) / (all4 / 4.0);
            Ok(ClaimOutcome { holds: Some(late > early), evidence: format!("per CDG flow, fraction of a fair share: 20–40 s {early:.2}, 60–80 s {late:.2}") })
        }),
        Claim::fallible("§4.3, Fig 8b", "With 1 % random loss NewReno cannot use the capacity and CDG uses what it leaves, not at NewReno's expense: over 20–40 s NewReno gets at least 80 % of what it gets alone at 1 % loss (E1) and the two flows together get more than NewReno alone", move |r| {
            let alone = med1(r, &e1_id(1.0, "newreno"), g)? / RATE_MBPS as f64 * 100.0;
            let e = e3_id(EXTRA_LOSS);
            let (nr, cdg, both) = (med1(r, &e, Metric::WinUtil(1, "newreno"))?, med1(r, &e, Metric::WinUtil(1, "cdg"))?, med1(r, &e, Metric::WinUtil(1, "*"))?);
            let ok = nr >= 0.8 * alone && both > alone;
            Ok(ClaimOutcome { holds: Some(ok), evidence: format!("20–40 s: NewReno {nr:.1} %, CDG {cdg:.1} %, together {both:.1} % of capacity; NewReno alone at 1 % loss {alone:.1} %") })
        }),
        Claim::fallible("§4.4, Fig 9", "The 70 ms flow ends up with the smaller share, for NewReno and CDG, in both start orders (30–60 s)", move |r| {
            let mut ok = true;
            let mut ev = Vec::new();
            for alg in ["newreno", "cdg"] {
                for lf in [false, true] {
                    let e = e4_id(alg, lf);
                    let v = (med1(r, &e, Metric::WinUtil(0, "long"))?, med1(r, &e, Metric::WinUtil(0, "short"))?);
                    ok &= v.0 < v.1;
                    ev.push(format!("{e}: 70 ms {:.1} %, 40 ms {:.1} %", v.0, v.1));
                }
            }
            Ok(ClaimOutcome { holds: Some(ok), evidence: ev.join("; ") })
        }),
        Claim::fallible("§4.4, Fig 9", "Capacity sharing stabilises faster with CDG: the 70 ms flow's share moves less between the first 10 s of the overlap and its last 10 s (median over runs and both orders)", move |r| {
            let moves = |alg: &str| -> Result<f64, ClaimOutcome> {
                let mut d = Vec::new();
                for lf in [false, true] {
                    let e = e4_id(alg, lf);
                    let a = r.values(&e, Metric::WinUtil(1, "long"));
                    let b = r.values(&e, Metric::WinUtil(2, "long"));
                    if a.is_empty() || a.len() != b.len() {
                        return Err(not_run(&e));
                    }
                    d.extend(a.iter().zip(&b).map(|(x, y)| (x - y).abs()));
                }
                Ok(median(&d).expect("non-empty"))
            };
            let (nr, cdg) = (moves("newreno")?, moves("cdg")?);
            Ok(ClaimOutcome { holds: Some(cdg < nr), evidence: format!("median |share 20–30 s − share 50–60 s| of the 70 ms flow: NewReno {nr:.1}, CDG {cdg:.1} percentage points") })
        }),
        Claim::fallible("§4.4, Fig 9", "NewReno's results vary more from run to run than CDG's (phase effects; CDG's probabilistic backoff damps them): wider 20th–80th percentile band of the 70 ms flow's share", move |r| {
            let band = |alg: &str| -> Result<f64, ClaimOutcome> {
                let mut w = Vec::new();
                for lf in [false, true] {
                    let e = e4_id(alg, lf);
                    let (lo, hi) = p20_p80(&r.values(&e, Metric::WinUtil(0, "long"))).ok_or_else(|| not_run(&e))?;
                    w.push(hi - lo);
                }
                Ok(w.iter().sum::<f64>() / w.len() as f64)
            };
            let (nr, cdg) = (band("newreno")?, band("cdg")?);
            Ok(ClaimOutcome { holds: Some(nr > cdg), evidence: format!("mean 20th–80th percentile band over both orders: NewReno {nr:.2}, CDG {cdg:.2} percentage points") })
        }),
    ]
}

pub fn study(quick: bool) -> StudyDef {
    let mut ex = Vec::new();
    // Quick: the loss rates around the one the text quantifies, without the extra CDG
    // run; everything else as in the full study (the runs are short).
    let rates: Vec<f64> = if quick {
        vec![0.5, 1.0, 2.0]
    } else {
        LOSS_PCT.to_vec()
    };
    for &p in &rates {
        for alg in E1_MECHANISMS {
            ex.push(e1(p, alg));
        }
        if !quick {
            ex.push(e1(p, CDG_DELACK));
        }
    }
    for loss in [0.0, EXTRA_LOSS] {
        for alg in ["newreno", "cdg"] {
            ex.push(e2(alg, loss));
        }
        ex.push(e3(loss));
    }
    for alg in ["newreno", "cdg"] {
        for lf in [false, true] {
            ex.push(e4(alg, lf));
        }
    }
    StudyDef {
        name: "hayes2011",
        title: "Hayes & Armitage 2011: CDG's loss tolerance, sharing, coexistence with NewReno and mixed RTTs",
        quick,
        experiments: ex,
        // §4: "Each experiment is repeated 10 times."
        seeds: if quick { (1..=3).collect() } else { (1..=10).collect() },
        published: published(),
        claims: claims(),
        notes: vec![
            "Fig 3 testbed: 10 Mbit/s both ways, 20 ms each way (40 ms base RTT; 70 ms flows add 15 ms each way), 84-packet drop-tail buffer, random loss on the forward (data) path only.",
            "CDG is the paper's algorithm (variant = paper: a = 8, G = 3, β = 0.7, b = b' = 5); NewReno and Vegas with their defaults.",
            "CDG flows' receivers acknowledge every segment: a stand-in for ERTT keeping delayed-ACK waits out of CDG's RTT samples (our CDG samples the timestamp echo). E1 of the full study also runs CDG with delayed ACKs (cdg-delack).",
            "E1 loss rates 0.1–5 % (Fig 4's axis is not in the text); goodput over the 60 s run.",
            "Windowed goodput (% of the 10 Mbit/s rate) comes from the Jain groups: E2 0 = 40–60 s, 1 = 20–28 s, 2 = 10–20 s; E3 k = [20k, 20k+20) s; E4 0 = 30–60 s, 1 = 20–30 s, 2 = 50–60 s.",
            "Testbed timing noise: uniform ±0.5 ms on the delay of each direction (order kept), standing in for dummynet's 1 ms tick; without it NewReno runs without random loss are identical across seeds and lock into phase effects.",
        ],
        table: vec![Metric::Goodput("*"), Metric::RttMean("*"), Metric::QdelayP95, Metric::LinkUtil, Metric::LossRate("*"), Metric::JainAt(0), Metric::WinUtil(0, "*")],
        cv: vec![Metric::Goodput("*")],
        plots: vec![
            Plot::Scatter { heading: "Goodput per flow against RTT", x: Metric::RttMean("*"), y: Metric::Goodput("*"), pantheon: false },
            Plot::Cdf { heading: "Distribution over runs of the goodput per flow", metric: Metric::Goodput("*") },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mathis_matches_the_spec_table() {
        // Hayes & Armitage 2011 notes §11: 3.67 Mbit/s at 1 %, 1.64 at 5 %, 8.22 at 0.2 %.
        assert!((mathis_mbps(0.01) - 3.67).abs() < 0.01);
        assert!((mathis_mbps(0.05) - 1.64).abs() < 0.01);
        assert!((mathis_mbps(0.002) - 8.22).abs() < 0.01);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(p20_p80(&v), Some((2.0, 8.0)));
        assert_eq!(p20_p80(&[]), None);
    }
}
