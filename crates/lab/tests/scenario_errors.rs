//! Bad input: every error names the file, the field and the offending value.

use scavenger_lab::parse;

const GOOD: &str = r#"
duration = "10s"
[link]
rate = "8Mbit"
delay = "25ms"
buffer = "70 packets"
[[flow]]
name = "a"
algorithm = "newreno"
"#;

/// Parses GOOD with `from` replaced by `to` and returns the error text.
fn error_with(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "test bug: {from}");
    let text = GOOD.replace(from, to);
    match parse("bad.toml", &text) {
        Ok(_) => panic!("expected an error for {to:?}"),
        Err(e) => {
            assert_eq!(e.file, "bad.toml");
            e.to_string()
        }
    }
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "error {msg:?} should mention {p:?}");
    }
}

#[test]
fn the_good_scenario_parses_with_defaults() {
    let s = parse("good.toml", GOOD).unwrap();
    assert_eq!(s.flows.len(), 1);
    assert_eq!(s.flows[0].mss, 1448);
    assert_eq!(s.flows[0].initial_window, 10);
    assert_eq!(s.link.reverse_rate, s.link.rate);
    assert_eq!(s.seed, 1);
}

#[test]
fn unknown_field() {
    let m = error_with(
        "delay = \"25ms\"",
        "delay = \"25ms\"\nbandwidth = \"8Mbit\"",
    );
    assert_mentions(&m, &["bad.toml", "link.bandwidth", "unknown field", "rate"]);
    let m = error_with("duration", "durration");
    assert_mentions(&m, &["durration", "unknown field"]);
}

#[test]
fn unknown_algorithm() {
    let m = error_with("\"newreno\"", "\"tcp-fancy\"");
    assert_mentions(&m, &["flow[0].algorithm", "tcp-fancy", "newreno"]);
}

#[test]
fn unknown_and_out_of_range_parameters() {
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nparams = { beta = 0.5 }",
    );
    assert_mentions(&m, &["flow[0].params.beta", "0.5", "no parameters"]);
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"cubic\"\nparams = { beta = 1.5 }",
    );
    assert_mentions(&m, &["flow[0].params.beta", "1.5", "allowed"]);
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"cubic\"\nparams = { gamma = 1 }",
    );
    assert_mentions(&m, &["flow[0].params.gamma", "known parameters"]);
}

#[test]
fn malformed_units() {
    assert_mentions(
        &error_with("\"8Mbit\"", "\"8 furlongs\""),
        &["link.rate", "8 furlongs", "Mbit"],
    );
    assert_mentions(
        &error_with("\"25ms\"", "\"25\""),
        &["link.delay", "\"25\"", "no unit"],
    );
    assert_mentions(
        &error_with("\"25ms\"", "25"),
        &["link.delay", "25", "string with a unit"],
    );
    assert_mentions(
        &error_with("\"70 packets\"", "\"70 parcels\""),
        &["link.buffer", "70 parcels", "packets"],
    );
    assert_mentions(
        &error_with("\"10s\"", "\"ten seconds\""),
        &["duration", "ten seconds"],
    );
}

#[test]
fn zero_or_negative_rate() {
    assert_mentions(
        &error_with("\"8Mbit\"", "\"0Mbit\""),
        &["link.rate", "0Mbit", "greater than zero"],
    );
    assert_mentions(
        &error_with("\"8Mbit\"", "\"-8Mbit\""),
        &["link.rate", "-8Mbit"],
    );
    assert_mentions(
        &error_with(
            "rate = \"8Mbit\"",
            "rate = \"8Mbit\"\nreverse_rate = \"0kbit\"",
        ),
        &["link.reverse_rate", "greater than zero"],
    );
}

#[test]
fn zero_buffer() {
    assert_mentions(
        &error_with("\"70 packets\"", "\"0 packets\""),
        &["link.buffer", "0 packets", "at least one packet"],
    );
    assert_mentions(
        &error_with("\"70 packets\"", "\"0KB\""),
        &["link.buffer", "0KB"],
    );
    assert_mentions(
        &error_with("\"70 packets\"", "70"),
        &["link.buffer", "unit"],
    );
}

#[test]
fn start_after_the_end_of_the_run() {
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nstart = \"12s\"",
    );
    assert_mentions(&m, &["flow[0].start", "12s", "end of the run", "10s"]);
    let m = error_with(
        "buffer = \"70 packets\"",
        "buffer = \"70 packets\"\noutages = [{ start = \"11s\", duration = \"1s\" }]",
    );
    assert_mentions(&m, &["link.outages[0].start", "11s"]);
}

#[test]
fn wrong_types_and_missing_required_fields() {
    assert_mentions(
        &error_with("name = \"a\"", "name = 3"),
        &["flow[0].name", "string"],
    );
    assert_mentions(
        &error_with("rate = \"8Mbit\"\n", ""),
        &["link.rate", "required"],
    );
    assert_mentions(
        &error_with("[[flow]]\nname = \"a\"\nalgorithm = \"newreno\"\n", ""),
        &["flow", "at least one"],
    );
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\n[measure]\njain = [{ flows = [\"zz\"] }]",
    );
    assert_mentions(&m, &["measure.jain[0].flows", "zz"]);
    assert_mentions(&error_with("[link]", "[link"), &["bad.toml", "TOML"]);
}

#[test]
fn missing_file() {
    let e = scavenger_lab::load(std::path::Path::new("/nonexistent/scenario.toml")).unwrap_err();
    assert_mentions(
        &e.to_string(),
        &["/nonexistent/scenario.toml", "cannot read"],
    );
}

#[test]
fn units_in_common_spellings_are_accepted() {
    for r in ["8Mbit", "8Mbps", "8mbit/s", "8 Mbit/s"] {
        let s = parse("ok.toml", &GOOD.replace("\"8Mbit\"", &format!("\"{r}\""))).unwrap();
        assert_eq!(s.link.rate.bps(), 8_000_000, "{r}");
    }
    let s = parse(
        "ok.toml",
        &GOOD.replace(
            "algorithm = \"newreno\"",
            "algorithm = \"newreno\"\nsize = \"2469KiB\"",
        ),
    )
    .unwrap();
    assert_eq!(s.flows[0].size_bytes, Some(2469 * 1024));
    // 1 BDP of 8 Mbit/s × 50 ms = 50 000 bytes = 34 packets of 1500 bytes (rounded up).
    let s = parse("ok.toml", &GOOD.replace("\"70 packets\"", "\"1BDP\"")).unwrap();
    assert_eq!(s.link.buffer, scavenger_lab::scenario::Buffer::Packets(34));
}

#[test]
fn count_expands_flows_and_groups_resolve_in_jain() {
    let text = GOOD.replace("name = \"a\"", "name = \"a\"\ncount = 3")
        + "[measure]\njain = [{ flows = [\"a\"], from = \"2s\" }]\n";
    let s = parse("ok.toml", &text).unwrap();
    let names: Vec<_> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a.1", "a.2", "a.3"]);
    assert_eq!(s.jain[0].flows, ["a.1", "a.2", "a.3"]);
}

#[test]
fn hosts_give_direction_and_access_delay() {
    let text = r#"
duration = "10s"
[link]
rate = "8Mbit"
reverse_rate = "1Mbit"
delay = "25ms"
buffer = "70 packets"
[[host]]
name = "server"
side = "server"
delay = "2ms"
[[host]]
name = "home"
side = "client"
delay = "1ms"
[[flow]]
name = "down"
algorithm = "newreno"
from = "server"
to = "home"
[[flow]]
name = "backup"
algorithm = "ledbat"
from = "home"
to = "server"
"#;
    let s = parse("hosts.toml", text).unwrap();
    use scavenger_lab::scenario::FlowDirection::*;
    assert_eq!(s.flows[0].direction, Download);
    assert_eq!(s.flows[1].direction, Upload);
    assert_eq!(s.flows[1].extra_delay, scavenger_cc::Dur::from_millis(3));
    let cfg = s.to_sim(1);
    assert_eq!(cfg.flows[1].direction, scavenger_sim::Direction::Reverse);
    let m = parse("h.toml", &text.replace("to = \"server\"", "to = \"nas\""))
        .unwrap_err()
        .to_string();
    assert_mentions(&m, &["flow[1].to", "nas", "server, home"]);
    let m = parse(
        "h.toml",
        &text.replace("side = \"client\"", "side = \"server\""),
    )
    .unwrap_err()
    .to_string();
    assert_mentions(&m, &["same side"]);
    let m = parse(
        "h.toml",
        &text.replace("side = \"client\"", "side = \"lan\""),
    )
    .unwrap_err()
    .to_string();
    assert_mentions(&m, &["host[1].side", "lan"]);
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\ndirection = \"sideways\"",
    );
    assert_mentions(&m, &["flow[0].direction", "sideways", "upload"]);
}

#[test]
fn datagram_flows_and_stop_times() {
    let cbr = GOOD.replace("algorithm = \"newreno\"", "kind = \"cbr\"\nrate = \"64kbit\"\npacket_size = 160\narrivals = \"poisson\"\nstop = \"8s\"");
    let s = parse("ok.toml", &cbr).unwrap();
    assert_eq!(s.flows[0].algorithm, "none");
    let c = s.to_sim(1);
    assert_eq!(
        c.flows[0].traffic,
        scavenger_sim::Traffic::Cbr {
            rate: scavenger_cc::Rate(64_000),
            payload: 160,
            poisson: true
        }
    );
    assert_eq!(c.flows[0].stop, Some(scavenger_cc::Time(8_000_000_000)));
    assert_mentions(
        &error_with("algorithm = \"newreno\"", "kind = \"cbr\""),
        &["flow[0].rate", "required"],
    );
    assert_mentions(
        &error_with(
            "algorithm = \"newreno\"",
            "algorithm = \"newreno\"\nkind = \"cbr\"\nrate = \"1Mbit\"",
        ),
        &["flow[0].algorithm", "no congestion control"],
    );
    assert_mentions(
        &error_with("algorithm = \"newreno\"", "kind = \"quic\""),
        &["flow[0].kind", "quic", "cbr"],
    );
    assert_mentions(
        &error_with(
            "algorithm = \"newreno\"",
            "algorithm = \"newreno\"\nrate = \"1Mbit\"",
        ),
        &["flow[0].rate", "datagram"],
    );
    assert_mentions(
        &error_with(
            "algorithm = \"newreno\"",
            "kind = \"cbr\"\nrate = \"1Mbit\"\narrivals = \"bursty\"",
        ),
        &["flow[0].arrivals", "bursty", "poisson"],
    );
    assert_mentions(
        &error_with(
            "algorithm = \"newreno\"",
            "algorithm = \"newreno\"\nstart = \"2s\"\nstop = \"1s\"",
        ),
        &["flow[0].stop", "1s", "start"],
    );
}

#[test]
fn httperf_split_and_web_traffic() {
    let split = GOOD.replace(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\ncount = 4\ntotal_size = \"2469KiB\"",
    );
    let s = parse("ok.toml", &split).unwrap();
    assert_eq!(s.flows.len(), 4);
    assert!(s
        .flows
        .iter()
        .all(|f| f.size_bytes == Some((2469.0f64 * 1024.0 / 4.0).round() as u64)));
    assert_mentions(
        &error_with(
            "algorithm = \"newreno\"",
            "algorithm = \"newreno\"\nsize = \"1KB\"\ntotal_size = \"4KB\"",
        ),
        &["flow[0].total_size", "not both"],
    );

    let web = GOOD.replace("algorithm = \"newreno\"", "algorithm = \"cubic\"\nkind = \"web\"\nflows_per_s = 2.0\nmean_size = \"100KB\"\nsize_dist = \"pareto\"");
    let s = parse("ok.toml", &web).unwrap();
    let a = s.to_sim(1);
    let b = s.to_sim(1);
    let c = s.to_sim(2);
    // About 2 arrivals per second over 10 s, the same for the same seed.
    let n = a.flows.len();
    assert!((8..=35).contains(&n), "{n} flows");
    assert_eq!(
        a.flows
            .iter()
            .map(|f| (f.start, f.size))
            .collect::<Vec<_>>(),
        b.flows
            .iter()
            .map(|f| (f.start, f.size))
            .collect::<Vec<_>>()
    );
    assert_ne!(
        a.flows.iter().map(|f| f.start).collect::<Vec<_>>(),
        c.flows.iter().map(|f| f.start).collect::<Vec<_>>()
    );
    assert_eq!(a.flows[0].name, "a.1");
    assert!(a.flows.windows(2).all(|w| w[0].start <= w[1].start));
    let r = scavenger_sim::run(a);
    assert!(
        r.flows
            .iter()
            .filter(|f| f.completion_time_s.is_some())
            .count()
            >= n / 2
    );
    assert_mentions(
        &error_with(
            "algorithm = \"newreno\"",
            "algorithm = \"cubic\"\nkind = \"web\"\nmean_size = \"1KB\"",
        ),
        &["flow[0].flows_per_s", "required"],
    );
    assert_mentions(&error_with("algorithm = \"newreno\"", "algorithm = \"cubic\"\nkind = \"web\"\nflows_per_s = 1\nmean_size = \"1KB\"\nsize_dist = \"zipf\""), &["flow[0].size_dist", "zipf", "pareto"]);
    let m = parse(
        "x.toml",
        &(web + "[measure]\njain = [{ flows = [\"a\"] }]\n"),
    )
    .unwrap_err()
    .to_string();
    assert_mentions(&m, &["measure.jain[0].flows", "web traffic"]);
}

#[test]
fn web_flow_sizes_have_the_asked_mean() {
    // Through the scenario layer: 20 000 draws at 1000 flows/s.
    let web = GOOD.replace("duration = \"10s\"", "duration = \"20s\"").replace("algorithm = \"newreno\"", "algorithm = \"cubic\"\nkind = \"web\"\nflows_per_s = 1000\nmean_size = \"100KB\"\nsize_dist = \"exponential\"");
    let cfg = parse("ok.toml", &web).unwrap().to_sim(3);
    let sizes: Vec<f64> = cfg.flows.iter().map(|f| f.size.unwrap() as f64).collect();
    let mean = sizes.iter().sum::<f64>() / sizes.len() as f64;
    assert!(
        (sizes.len() as f64 - 20_000.0).abs() < 600.0,
        "{}",
        sizes.len()
    );
    assert!((mean - 100_000.0).abs() / 100_000.0 < 0.03, "{mean}");
}

#[test]
fn ack_model_names_the_allowed_models() {
    let msg = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nack_model = \"bsd\"",
    );
    assert_mentions(&msg, &["ack_model", "bsd", "\"linux\"", "\"legacy\""]);
}

#[test]
fn ack_model_reaches_the_simulator_and_is_left_out_of_the_record_when_unset() {
    use scavenger_lab::scenario::AckModelChoice;
    let unset = parse("good.toml", GOOD).unwrap();
    assert_eq!(unset.flows[0].ack_model, None);
    let unset_json = serde_json::to_string(&unset.flows[0]).unwrap();
    assert!(!unset_json.contains("ack_model"), "{unset_json}");
    let text = GOOD.replace(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nack_model = \"linux\"",
    );
    let linux = parse("good.toml", &text).unwrap();
    assert_eq!(linux.flows[0].ack_model, Some(AckModelChoice::Linux));
    let cfg = linux.to_sim(1);
    assert_eq!(cfg.flows[0].ack_model, scavenger_sim::AckModel::Linux);
}

#[test]
fn start_jitter_takes_a_duration_or_zero() {
    let with = |v: &str| {
        GOOD.replace(
            "algorithm = \"newreno\"",
            &format!("algorithm = \"newreno\"\nstart_jitter = {v}"),
        )
    };
    for ok in ["\"10ms\"", "\"0ms\"", "0", "\"0\""] {
        parse("ok.toml", &with(ok)).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    let s = parse("ok.toml", &with("\"3ms\"")).unwrap();
    assert_eq!(
        s.flows[0].start_jitter,
        Some(scavenger_cc::Dur::from_millis(3))
    );
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nstart_jitter = \"soon\"",
    );
    assert_mentions(&m, &["flow[0].start_jitter", "soon", "ms"]);
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nstart_jitter = 5",
    );
    assert_mentions(&m, &["flow[0].start_jitter", "duration"]);
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nstart_jitter = \"-5ms\"",
    );
    assert_mentions(&m, &["flow[0].start_jitter", "-5ms", "non-negative"]);
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nstart_jitter = \"20s\"",
    );
    assert_mentions(&m, &["flow[0].start_jitter", "at most 10s"]);
}

#[test]
fn psh_is_on_by_default_and_off_per_flow() {
    let s = parse("good.toml", GOOD).unwrap();
    assert_eq!(s.flows[0].psh, None);
    assert!(s.to_sim(1).flows[0].psh, "on by default");
    let json = serde_json::to_string(&s.flows[0]).unwrap();
    assert!(!json.contains("psh"), "{json}");
    let off = GOOD.replace(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\npsh = false",
    );
    let s = parse("off.toml", &off).unwrap();
    assert!(!s.to_sim(1).flows[0].psh);
    assert!(serde_json::to_string(&s.flows[0])
        .unwrap()
        .contains("\"psh\":false"));
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\npsh = 1",
    );
    assert_mentions(&m, &["flow[0].psh"]);
}

#[test]
fn psh_rule_defaults_to_skb_tail_bursts_and_names_the_allowed_rules() {
    use scavenger_sim::PshRule;
    let s = parse("good.toml", GOOD).unwrap();
    assert_eq!(s.to_sim(1).flows[0].psh_rule, PshRule::SkbTailBursts);
    assert!(!serde_json::to_string(&s.flows[0])
        .unwrap()
        .contains("psh_rule"));
    let every = GOOD.replace(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\npsh_rule = \"every-ack\"",
    );
    let s = parse("every.toml", &every).unwrap();
    assert_eq!(s.to_sim(1).flows[0].psh_rule, PshRule::EveryAck);
    let tail = GOOD.replace(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\npsh_rule = \"skb-tail\"",
    );
    let b = parse("tail.toml", &tail).unwrap();
    assert_eq!(b.to_sim(1).flows[0].psh_rule, PshRule::SkbTail);
    assert!(serde_json::to_string(&b.flows[0])
        .unwrap()
        .contains("\"psh_rule\":\"skb-tail\""));
    assert!(serde_json::to_string(&s.flows[0])
        .unwrap()
        .contains("\"psh_rule\":\"every-ack\""));
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\npsh_rule = \"every-segment\"",
    );
    assert_mentions(
        &m,
        &[
            "flow[0].psh_rule",
            "every-segment",
            "every-ack",
            "skb-tail",
            "skb-tail-bursts",
        ],
    );
}

#[test]
fn handshake_is_on_by_default_and_off_per_flow_or_in_sim() {
    let s = parse("good.toml", GOOD).unwrap();
    assert_eq!(s.flows[0].handshake, None);
    assert!(s.to_sim(1).flows[0].handshake, "on by default");
    let json = serde_json::to_string(&s.flows[0]).unwrap();
    assert!(!json.contains("handshake"), "{json}");
    let off = GOOD.replace(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nhandshake = false",
    );
    assert!(!parse("off.toml", &off).unwrap().to_sim(1).flows[0].handshake);
    let sim_off = format!("{GOOD}\n[sim]\nhandshake = false\n");
    let s = parse("sim.toml", &sim_off).unwrap();
    assert_eq!(s.flows[0].handshake, Some(false));
    assert!(!s.to_sim(1).flows[0].handshake);
    let m = error_with(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nhandshake = \"no\"",
    );
    assert_mentions(&m, &["flow[0].handshake"]);
}

#[test]
fn gso_max_segs_defaults_to_gso_and_takes_1_to_65535() {
    let s = parse("good.toml", GOOD).unwrap();
    assert_eq!(
        s.to_sim(1).flows[0].gso_max_segs,
        scavenger_sim::tso::GSO_MAX_SEGS
    );
    assert!(!serde_json::to_string(&s.flows[0])
        .unwrap()
        .contains("gso_max_segs"));
    let one = GOOD.replace(
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\ngso_max_segs = 1",
    );
    let s = parse("one.toml", &one).unwrap();
    assert_eq!(s.to_sim(1).flows[0].gso_max_segs, 1);
    assert!(serde_json::to_string(&s.flows[0])
        .unwrap()
        .contains("\"gso_max_segs\":1"));
    for bad in ["0", "65536", "\"two\""] {
        let m = error_with(
            "algorithm = \"newreno\"",
            &format!("algorithm = \"newreno\"\ngso_max_segs = {bad}"),
        );
        assert_mentions(&m, &["flow[0].gso_max_segs"]);
    }
}

/// A boolean flow key that is off by default: off in the simulator's flow and left out
/// of the record when unset; `KEY = true` reaches the simulator (read by `get`) and the
/// record; a value that is not a bool is an error naming the key.
fn assert_off_by_default_bool_key(key: &str, get: fn(&scavenger_sim::FlowConfig) -> bool) {
    let s = parse("good.toml", GOOD).unwrap();
    assert!(!get(&s.to_sim(1).flows[0]), "{key}");
    assert!(!serde_json::to_string(&s.flows[0]).unwrap().contains(key));
    let on = GOOD.replace(
        "algorithm = \"newreno\"",
        &format!("algorithm = \"newreno\"\n{key} = true"),
    );
    let s = parse("on.toml", &on).unwrap();
    assert!(get(&s.to_sim(1).flows[0]), "{key}");
    assert!(serde_json::to_string(&s.flows[0])
        .unwrap()
        .contains(&format!("\"{key}\":true")));
    let m = error_with(
        "algorithm = \"newreno\"",
        &format!("algorithm = \"newreno\"\n{key} = \"yes\""),
    );
    assert_mentions(&m, &[&format!("flow[0].{key}")]);
}

#[test]
fn shim_lag_is_off_by_default_and_takes_a_bool() {
    assert_off_by_default_bool_key("shim_lag", |f| f.shim_lag);
}

#[test]
fn pacing_credit_is_off_by_default_takes_a_bool_and_no_datagram_flow_has_it() {
    assert_off_by_default_bool_key("pacing_credit", |f| f.pacing_credit);
    let m = error_with(
        "algorithm = \"newreno\"",
        "kind = \"cbr\"\nrate = \"64kbit\"\npacket_size = 160\nstop = \"8s\"\npacing_credit = true",
    );
    assert_mentions(
        &m,
        &[
            "flow[0].pacing_credit",
            "datagram",
            "remove `pacing_credit`",
        ],
    );
}
