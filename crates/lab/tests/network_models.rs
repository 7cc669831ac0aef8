//! The `[link]` syntax of the network-models issue: queue disciplines, ECN, loss
//! models, traces, jitter, on/off schedules and presets; and the errors for bad input.

use scavenger_cc::{Dur, Rate};
use scavenger_lab::{parse, run_scenario};
use scavenger_net::{Jitter, LossModel, PieEstimator, QdiscConfig, QueueLimit};

const BASE: &str = r#"
duration = "10s"
[link]
rate = "10Mbit"
delay = "25ms"
buffer = "100 packets"
[[flow]]
name = "a"
algorithm = "newreno"
"#;

/// BASE with extra `[link]` lines.
fn with_link(extra: &str) -> String {
    BASE.replace(
        "buffer = \"100 packets\"",
        &format!("buffer = \"100 packets\"\n{extra}"),
    )
}

fn err(text: &str) -> String {
    match parse("bad.toml", text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "error {msg:?} should mention {p:?}");
    }
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("scavenger-lab-netmodels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn queue_disciplines_by_name_and_with_parameters() {
    let s = parse("ok.toml", BASE).unwrap();
    assert_eq!(s.link.qdisc, QdiscConfig::DropTail);
    let s = parse("ok.toml", &with_link("qdisc = \"fq_codel\"")).unwrap();
    assert!(
        matches!(&s.link.qdisc, QdiscConfig::FqCodel(p) if p.flows == 1024 && p.quantum == 1514 && p.ecn)
    );
    // The reverse direction gets the same discipline unless told otherwise.
    assert_eq!(s.link.reverse_qdisc, s.link.qdisc);
    let s = parse("ok.toml", &with_link("qdisc = { kind = \"codel\", target = \"5ms\", interval = \"100ms\", ecn = true }\nreverse_qdisc = \"drop-tail\"")).unwrap();
    match &s.link.qdisc {
        QdiscConfig::Codel(p) => assert_eq!(
            (p.target, p.interval, p.ecn),
            (Dur::from_millis(5), Dur::from_millis(100), true)
        ),
        q => panic!("{q:?}"),
    }
    assert_eq!(s.link.reverse_qdisc, QdiscConfig::DropTail);
    // Wang 2018's CoDel: a 70 ms "queuing delay threshold".
    let s = parse(
        "ok.toml",
        &with_link("qdisc = { kind = \"codel\", target = \"70ms\" }"),
    )
    .unwrap();
    assert!(matches!(&s.link.qdisc, QdiscConfig::Codel(p) if p.target == Dur::from_millis(70)));
    // Trang 2015's PIE (ns-2: 20 ms target, 30 ms update, departure-rate estimator) and RED.
    let s = parse("ok.toml", &with_link("qdisc = { kind = \"pie\", target = \"20ms\", t_update = \"30ms\", estimator = \"dequeue-rate\" }\nreverse_qdisc = { kind = \"red\", gentle = true, mode = \"packets\", min_th = 5, max_th = 15, max_p = 0.1 }")).unwrap();
    match &s.link.qdisc {
        QdiscConfig::Pie(p) => {
            assert_eq!(
                (p.target, p.t_update),
                (Dur::from_millis(20), Dur::from_millis(30))
            );
            assert_eq!(
                p.estimator,
                PieEstimator::DequeueRate {
                    dq_threshold: 16_384
                }
            );
            assert_eq!(
                (p.alpha, p.beta, p.max_burst),
                (0.125, 1.25, Dur::from_millis(150))
            );
        }
        q => panic!("{q:?}"),
    }
    assert!(
        matches!(&s.link.reverse_qdisc, QdiscConfig::Red(p) if p.min_th == Some(5.0) && !p.bytes && p.gentle)
    );
    // The record carries every parameter.
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["link"]["qdisc"]["kind"], "pie");
    assert_eq!(json["link"]["qdisc"]["max_burst"], "150ms");
    assert_eq!(json["link"]["reverse_qdisc"]["w_q"], "auto");
}

#[test]
fn an_aqm_without_a_buffer_gets_its_linux_limit() {
    let text = BASE.replace("buffer = \"100 packets\"", "qdisc = \"codel\"");
    let s = parse("ok.toml", &text).unwrap();
    assert_eq!(s.to_sim(1).forward.limit, QueueLimit::Packets(1000));
    let text = BASE.replace("buffer = \"100 packets\"", "qdisc = \"fq-codel\"");
    assert_eq!(
        parse("ok.toml", &text).unwrap().to_sim(1).forward.limit,
        QueueLimit::Packets(10_240)
    );
    // Drop-tail still needs one.
    let m = err(&BASE.replace("buffer = \"100 packets\"", "qdisc = \"drop-tail\""));
    assert_mentions(&m, &["link.buffer", "required"]);
}

#[test]
fn bad_queue_discipline_parameters() {
    assert_mentions(
        &err(&with_link("qdisc = { kind = \"codel\", target = \"0ms\" }")),
        &["link.qdisc.target", "0ms", "greater than zero"],
    );
    assert_mentions(
        &err(&with_link(
            "qdisc = { kind = \"codel\", interval = \"0s\" }",
        )),
        &["link.qdisc.interval", "greater than zero"],
    );
    assert_mentions(
        &err(&with_link("qdisc = { kind = \"codel\", taget = \"5ms\" }")),
        &["link.qdisc.taget", "unknown field", "target"],
    );
    assert_mentions(
        &err(&with_link("qdisc = \"wfq\"")),
        &["link.qdisc", "wfq", "codel", "fq-codel"],
    );
    assert_mentions(
        &err(&with_link(
            "qdisc = { kind = \"red\", min_th = 15, max_th = 5 }",
        )),
        &["link.qdisc.max_th", "5", "min_th"],
    );
    assert_mentions(
        &err(&with_link("qdisc = { kind = \"red\", max_p = 1.5 }")),
        &["link.qdisc.max_p", "1.5"],
    );
    assert_mentions(
        &err(&with_link("qdisc = { kind = \"pie\", t_update = \"0ms\" }")),
        &["link.qdisc.t_update", "greater than zero"],
    );
    assert_mentions(
        &err(&with_link(
            "qdisc = { kind = \"pie\", estimator = \"guess\" }",
        )),
        &["link.qdisc.estimator", "guess", "dequeue-rate"],
    );
    assert_mentions(
        &err(&with_link("qdisc = { kind = \"fq-codel\", flows = 0 }")),
        &["link.qdisc.flows", "0"],
    );
    assert_mentions(
        &err(&with_link("reverse_qdisc = { target = \"5ms\" }")),
        &["link.reverse_qdisc.kind", "required"],
    );
}

#[test]
fn loss_models() {
    let s = parse("ok.toml", &with_link("loss = 0.01")).unwrap();
    assert_eq!(s.link.loss, LossModel::Bernoulli { p: 0.01 });
    assert_eq!(s.link.reverse_loss, LossModel::None);
    let s = parse("ok.toml", &with_link("loss = { kind = \"gilbert-elliott\", p = 0.01, r = 0.3, loss_good = 0.001, loss_bad = 0.5 }\nreverse_loss = { kind = \"bernoulli\", p = 0.001 }")).unwrap();
    assert_eq!(
        s.link.loss,
        LossModel::GilbertElliott {
            p: 0.01,
            r: 0.3,
            loss_good: 0.001,
            loss_bad: 0.5
        }
    );
    let sim = s.to_sim(1);
    assert_eq!(sim.forward.loss, s.link.loss);
    assert_eq!(sim.reverse.loss, LossModel::Bernoulli { p: 0.001 });
    // Simple Gilbert by default: no loss in the good state, all in the bad one.
    let s = parse(
        "ok.toml",
        &with_link("loss = { kind = \"gilbert-elliott\", p = 0.01, r = 0.3 }"),
    )
    .unwrap();
    assert_eq!(
        s.link.loss,
        LossModel::GilbertElliott {
            p: 0.01,
            r: 0.3,
            loss_good: 0.0,
            loss_bad: 1.0
        }
    );
}

#[test]
fn negative_or_malformed_loss() {
    assert_mentions(
        &err(&with_link("loss = -0.1")),
        &["link.loss", "-0.1", "out of range", "0 to 1"],
    );
    assert_mentions(
        &err(&with_link(
            "reverse_loss = { kind = \"bernoulli\", p = -0.2 }",
        )),
        &["link.reverse_loss.p", "-0.2"],
    );
    assert_mentions(
        &err(&with_link(
            "loss = { kind = \"gilbert-elliott\", p = -0.01, r = 0.3 }",
        )),
        &["link.loss.p", "-0.01"],
    );
    assert_mentions(
        &err(&with_link(
            "loss = { kind = \"gilbert-elliott\", p = 0.01 }",
        )),
        &["link.loss.r", "required"],
    );
    assert_mentions(
        &err(&with_link(
            "loss = { kind = \"gilbert-elliott\", p = 0.01, r = 0 }",
        )),
        &["link.loss.r", "bad state"],
    );
    assert_mentions(
        &err(&with_link("loss = { kind = \"markov\" }")),
        &["link.loss.kind", "markov", "gilbert-elliott"],
    );
    assert_mentions(
        &err(&with_link("loss = \"1%\"")),
        &["link.loss", "probability"],
    );
}

#[test]
fn traces_in_both_formats() {
    let mm = tmp("link.down", "1\n1\n3\n4\n4\n4\n7\n10\n");
    let text = BASE
        .replace("rate = \"10Mbit\"", &format!("trace = \"{mm}\""))
        .replace("buffer = \"100 packets\"", "buffer = \"1BDP\"");
    let s = parse("ok.toml", &text).unwrap();
    // 8 × 1500 bytes per 10 ms = 9.6 Mbit/s; the reverse direction uses the same trace.
    assert_eq!(s.link.rate, Rate::from_bps(9_600_000));
    assert_eq!(s.link.reverse_rate, s.link.rate);
    let t = s.link.trace.as_ref().unwrap();
    assert_eq!(
        (t.format, t.opportunities, t.period),
        ("mahimahi", 8, Dur::from_millis(10))
    );
    // 1 BDP at the trace's mean rate: 9.6 Mbit/s × 50 ms = 60000 bytes = 40 packets.
    assert_eq!(s.link.buffer, scavenger_lab::scenario::Buffer::Packets(40));
    let sim = s.to_sim(1);
    assert!(sim.forward.trace.is_some() && sim.reverse.trace.is_some());
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["link"]["trace"]["format"], "mahimahi");
    assert_eq!(json["link"]["trace"]["mean_rate"], s.link.rate.to_string());
    // A native uplink trace with its own rate; a relative path is relative to the
    // scenario file.
    let native = tmp(
        "link.up",
        "scavenger-trace v1 unit=us period=2000\n0 125\n1000 125\n",
    );
    let scenario_path = std::path::Path::new(&native)
        .parent()
        .unwrap()
        .join("s.toml");
    let text = with_link("reverse_trace = \"link.up\"");
    let s = parse(&scenario_path.display().to_string(), &text).unwrap();
    // 125 bytes per ms = 1 Mbit/s.
    assert_eq!(s.link.reverse_rate, Rate::from_mbps(1));
    assert!(s.link.trace.is_none());
    // A forward trace alone and an explicit reverse rate: the reverse is constant.
    let text = BASE.replace(
        "rate = \"10Mbit\"",
        &format!(
            "trace = {{ file = \"{mm}\", opportunity_bytes = 1504 }}\nreverse_rate = \"1Mbit\""
        ),
    );
    let s = parse("ok.toml", &text).unwrap();
    assert_eq!(s.link.reverse_rate, Rate::from_mbps(1));
    assert!(s.link.reverse_trace.is_none());
    assert_eq!(s.link.rate, Rate::from_bps(8 * 1504 * 8 * 100));
}

#[test]
fn unreadable_or_bad_traces() {
    let m = err(&BASE.replace("rate = \"10Mbit\"", "trace = \"/nonexistent/trace.down\""));
    assert_mentions(
        &m,
        &["link.trace", "/nonexistent/trace.down", "cannot read"],
    );
    let dec = tmp("decreasing.down", "1\n5\n3\n8\n");
    let m = err(&BASE.replace("rate = \"10Mbit\"", &format!("trace = \"{dec}\"")));
    assert_mentions(
        &m,
        &[
            "link.trace",
            "decreasing.down",
            "line 3",
            "non-decreasing",
            "3 ms follows 5 ms",
        ],
    );
    let zero = tmp("zero.down", "0\n0\n");
    assert_mentions(
        &err(&BASE.replace("rate = \"10Mbit\"", &format!("trace = \"{zero}\""))),
        &["link.trace", "nonzero"],
    );
    let junk = tmp("junk.down", "1\nfast\n");
    assert_mentions(
        &err(&BASE.replace("rate = \"10Mbit\"", &format!("trace = \"{junk}\""))),
        &["link.trace", "line 2", "fast"],
    );
    let native = tmp("bad.trace", "scavenger-trace v1 unit=us\n10 1500\n5 1500\n");
    assert_mentions(
        &err(&BASE.replace("rate = \"10Mbit\"", &format!("trace = \"{native}\""))),
        &["link.trace", "line 3", "non-decreasing"],
    );
    let mm = tmp("ok.down", "1\n2\n");
    assert_mentions(
        &err(&with_link(&format!("trace = \"{mm}\""))),
        &["link.rate", "trace"],
    );
}

#[test]
fn jitter_on_off_and_flow_ecn() {
    let text = with_link("jitter = \"2ms\"\nreverse_jitter = { distribution = \"normal\", amount = \"1ms\", preserve_order = false }\non_off = { on = \"9s\", off = \"1s\" }")
        .replace("algorithm = \"newreno\"", "algorithm = \"newreno\"\necn = true");
    let s = parse("ok.toml", &text).unwrap();
    assert_eq!(
        s.link.jitter,
        Jitter::Uniform {
            amount: Dur::from_millis(2),
            preserve_order: true
        }
    );
    assert_eq!(
        s.link.reverse_jitter,
        Jitter::Normal {
            stdev: Dur::from_millis(1),
            preserve_order: false
        }
    );
    assert!(s.flows[0].ecn);
    let sim = s.to_sim(1);
    assert!(sim.flows[0].ecn);
    assert_eq!(sim.forward.on_off, sim.reverse.on_off);
    let on_off = sim.forward.on_off.unwrap();
    assert_eq!(
        (on_off.on, on_off.off),
        (Dur::from_secs(9), Dur::from_secs(1))
    );
    assert_mentions(
        &err(&with_link(
            "jitter = { distribution = \"pareto\", amount = \"1ms\" }",
        )),
        &["link.jitter.distribution", "pareto", "normal"],
    );
    assert_mentions(
        &err(&with_link("on_off = { on = \"0s\", off = \"1s\" }")),
        &["link.on_off.on", "greater than zero"],
    );
    assert_mentions(
        &err(&with_link("jitter = \"-1ms\"")),
        &["link.jitter", "-1ms"],
    );
}

#[test]
fn satellite_and_wifi_presets() {
    let text = r#"
duration = "20s"
[link]
preset = "satellite"
[[flow]]
name = "a"
algorithm = "newreno"
"#;
    let s = parse("sat.toml", text).unwrap();
    assert_eq!(s.link.delay, Dur::from_millis(250));
    assert_eq!(s.link.rate, Rate::from_mbps(10));
    // 1 BDP: 10 Mbit/s × 500 ms / 1500 B = 416.7 → 417 packets (Trang 2015's table).
    assert_eq!(s.link.buffer, scavenger_lab::scenario::Buffer::Packets(417));
    let r = run_scenario(&s, 1);
    let f = &r.metrics.flows[0];
    assert!(f.rtt_ms.p50.unwrap() >= 500.0, "{:?}", f.rtt_ms);

    let text = r#"
duration = "20s"
[link]
preset = "wifi"
rate = "8Mbit"
reverse_rate = "1Mbit"
delay = "25ms"
buffer = "70 packets"
[[flow]]
name = "a"
algorithm = "newreno"
"#;
    let s = parse("wifi.toml", text).unwrap();
    assert!(matches!(
        s.link.jitter,
        Jitter::Uniform {
            preserve_order: true,
            ..
        }
    ));
    let a = s.to_sim(1);
    let b = s.to_sim(2);
    // A trace around the nominal rate, drawn per seed.
    assert_eq!(a.forward.rate, Rate::from_mbps(8));
    assert_eq!(a.reverse.rate, Rate::from_mbps(1));
    assert_ne!(a.forward.trace, b.forward.trace);
    assert_eq!(a.forward.trace, s.to_sim(1).forward.trace);
    let r = run_scenario(&s, 1);
    assert!(
        r.metrics.links[0].utilisation > 0.85,
        "{}",
        r.metrics.links[0].utilisation
    );
    assert!(r.metrics.flows[0].conservation.holds());
    assert_mentions(
        &err(&text.replace("preset = \"wifi\"", "preset = \"lte\"")),
        &["link.preset", "lte", "wifi", "satellite"],
    );
}
