//! Root tests of `scavenger census` on the testbed: the kernel's reno, cubic and bbr are
//! classified as linear, polynomial and rate-based, over plain HTTP and over TLS; a
//! server that closes early, a page too small to classify and a server that never
//! answers end with the right outcome (the first two over TLS too).
//! Each skips, saying why, where namespaces cannot be created; every namespace, server
//! thread and TUN device is gone afterwards, whether the test passed or not (the
//! testbed's guards run on unwinding too).

mod common;

use common::{can_run, say};
use scavenger_testbed::census::classify::{classify, Class};
use scavenger_testbed::census::eval::{self, CensusBed, EvalOptions};
use scavenger_testbed::census::probe::{self, Target};
use scavenger_testbed::census::receiver::{End, ProbeConfig, ProbeError};
use scavenger_testbed::census::session::Trust;
use scavenger_testbed::netns;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// Namespaces of this process still there.
fn ours() -> Vec<String> {
    netns::list(&format!("{}{}-", netns::PREFIX, std::process::id()))
}

fn open_tun_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            std::fs::read_link(e.path()).is_ok_and(|p| p == std::path::Path::new("/dev/net/tun"))
        })
        .count()
}

fn reno_cubic_bbr(link: &str, runs: u32, tls: bool) {
    let opts = EvalOptions {
        links: vec![eval::link(link).unwrap()],
        algorithms: vec!["reno".into(), "cubic".into(), "bbr".into()],
        runs,
        cfg: ProbeConfig::default(),
        page_bytes: 1 << 30,
        realtime: true,
        tls,
    };
    let recs = eval::evaluate(&opts, &mut |r| {
        say(&format!(
            "{} run {}: {} {:.2} {}",
            r.true_algorithm.as_deref().unwrap_or("?"),
            r.run.unwrap_or(0),
            r.verdict.class,
            r.verdict.confidence,
            r.verdict.reason
        ))
    })
    .expect("evaluation");
    assert!(ours().is_empty(), "namespaces left: {:?}", ours());
    assert_eq!(open_tun_fds(), 0, "TUN devices left open");
    assert_eq!(recs.len(), 3 * runs as usize);
    for r in &recs {
        let alg = r.true_algorithm.as_deref().unwrap();
        assert_eq!(r.url.starts_with("https://"), tls, "{}", r.url);
        assert_eq!(
            Some(r.verdict.class),
            eval::expected(alg),
            "{alg}: {}",
            r.verdict.reason
        );
        let o = r.outcome.as_ref().expect("a trace");
        assert_eq!(o.end, End::Enough, "{alg}");
        assert_eq!(
            o.server_mss,
            Some(1460),
            "the server's own MSS in its SYN-ACK"
        );
        if tls {
            assert!(matches!(r.config.trust, Some(Trust::Pinned { .. })));
            assert_eq!(o.http.status, Some(200), "the page read through TLS");
        }
    }
}

#[test]
fn reno_cubic_bbr_are_linear_polynomial_rate_based() {
    let _g = serial();
    if !can_run("reno_cubic_bbr_are_linear_polynomial_rate_based") {
        return;
    }
    reno_cubic_bbr("ong-8-1", 2, false);
}

#[test]
fn over_tls_reno_cubic_bbr_are_linear_polynomial_rate_based() {
    let _g = serial();
    if !can_run("over_tls_reno_cubic_bbr_are_linear_polynomial_rate_based") {
        return;
    }
    reno_cubic_bbr("100mbit", 1, true);
}

#[test]
fn over_tls_short_pages_early_closes_and_wrong_certificates_end_clearly() {
    let _g = serial();
    if !can_run("over_tls_short_pages_early_closes_and_wrong_certificates_end_clearly") {
        return;
    }
    let link = eval::link("100mbit").unwrap();
    let bed = CensusBed::start(&link, &["cubic".to_string()], true, true).expect("census bed");
    let id = bed.id();
    let cfg = bed.probe_config(&ProbeConfig {
        connect_timeout_ns: 2_000_000_000,
        idle_timeout_ns: 2_000_000_000,
        ..ProbeConfig::default()
    });
    // A page of 3,000 bytes in TLS: too small to classify.
    let t = bed.target(0, "/bytes/3000");
    assert!(t.https);
    let o = probe::run(bed.tun(), &t, &cfg, 30011).expect("a trace");
    assert!(matches!(o.end, End::PageComplete { .. }), "{:?}", o.end);
    assert_eq!(o.http.status, Some(200));
    assert_eq!(o.http.content_length, Some(3000));
    let v = classify(&o.trace);
    assert_eq!(v.class, Class::Unknown);
    assert!(v.reason.contains("before the induced loss"), "{}", v.reason);
    // The trace counts the response's segments, not the TLS handshake's: 3,000 bytes
    // and a head in records of MSS 200 are under 20 segments.
    let n: u32 = o.trace.rounds.iter().map(|r| r.packets).sum();
    assert!((15..=22).contains(&n), "{n} segments");

    // A server that announces 200,000 bytes and closes after 20,000.
    let t = bed.target(0, "/close-after/20000");
    let o = probe::run(bed.tun(), &t, &cfg, 30012).expect("a trace");
    assert!(matches!(o.end, End::ServerClosed { .. }), "{:?}", o.end);
    assert_eq!(o.http.content_length, Some(200_000));
    assert_eq!(classify(&o.trace).class, Class::Unknown);

    // A pin that is not the server's certificate: the handshake fails, clearly.
    let wrong = ProbeConfig {
        trust: Some(Trust::Pinned {
            sha256: "00".repeat(32),
        }),
        ..cfg.clone()
    };
    let o = probe::run(bed.tun(), &t, &wrong, 30013).expect("connected");
    match &o.end {
        End::Tls { error, .. } => assert!(error.contains("not the pinned"), "{error}"),
        e => panic!("expected a TLS failure, got {e:?}"),
    }
    bed.shutdown().expect("clean shutdown");
    assert!(netns::list(&format!("{id}-")).is_empty());
    assert_eq!(open_tun_fds(), 0);
}

#[test]
fn short_pages_early_closes_and_silent_servers_end_clearly() {
    let _g = serial();
    if !can_run("short_pages_early_closes_and_silent_servers_end_clearly") {
        return;
    }
    let link = eval::link("100mbit").unwrap();
    let bed = CensusBed::start(&link, &["cubic".to_string()], true, false).expect("census bed");
    let id = bed.id();
    let cfg = ProbeConfig {
        connect_timeout_ns: 2_000_000_000,
        idle_timeout_ns: 2_000_000_000,
        ..ProbeConfig::default()
    };
    // A page of 3,000 bytes: 15 segments, two rounds: too small to classify.
    let t = bed.target(0, "/bytes/3000");
    let o = probe::run(bed.tun(), &t, &cfg, 30001).expect("a trace");
    assert!(matches!(o.end, End::PageComplete { .. }), "{:?}", o.end);
    assert_eq!(o.http.status, Some(200));
    let v = classify(&o.trace);
    assert_eq!(v.class, Class::Unknown);
    assert!(v.reason.contains("before the induced loss"), "{}", v.reason);

    // A server that announces 200,000 bytes and closes after 20,000.
    let t = bed.target(0, "/close-after/20000");
    let o = probe::run(bed.tun(), &t, &cfg, 30002).expect("a trace");
    assert!(matches!(o.end, End::ServerClosed { .. }), "{:?}", o.end);
    assert_eq!(o.http.content_length, Some(200_000));
    assert_eq!(classify(&o.trace).class, Class::Unknown);

    // Nobody listens on this port of an address that exists: the kernel refuses...
    let refused = Target {
        port: 9,
        ..bed.target(0, "/")
    };
    let e = probe::run(bed.tun(), &refused, &cfg, 30003).unwrap_err();
    assert!(matches!(e, ProbeError::Refused { .. }), "{e}");
    // ...and an address behind the emulator that nobody has: no answer.
    let silent = Target {
        addr: std::net::Ipv4Addr::new(10, 1, 9, 9),
        ..bed.target(0, "/")
    };
    let e = probe::run(bed.tun(), &silent, &cfg, 30004).unwrap_err();
    assert_eq!(
        e.to_string(),
        "no answer from 10.1.9.9:8000 within 2 s (no SYN-ACK to 2 SYNs)"
    );
    bed.shutdown().expect("clean shutdown");
    assert!(netns::list(&format!("{id}-")).is_empty());
    assert_eq!(open_tun_fds(), 0);
}
