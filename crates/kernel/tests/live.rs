//! Real Linux TCP with the BPF congestion controls (root only; each test prints why it
//! skips otherwise). Transfers run over loopback (127.0.0.1) inside this process: a
//! listener thread drains, the test writes and samples TCP_INFO. Every registration is
//! held by a `LoadGuard`, which unregisters on drop, also when a test panics; the last
//! check of each test is that nothing of ours stays registered or pinned.
//!
//! Registrations use names and pin directories private to this process
//! (`Target::private`), so these tests never touch another process's registrations (a
//! user's `kernel load`, a testbed run, a second test binary) and run beside them.

use scavenger_kernel::agent::{AgentConfig, AgentHandle};
use scavenger_kernel::manage::{self, Force, LoadGuard, Target};
use scavenger_kernel::owner::Owner;
use scavenger_kernel::tcp::{self, TcpInfo};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The transfers compete for the CPU: run the live tests one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn skip() -> bool {
    if let Some(why) = scavenger_kernel::unavailable_reason() {
        eprintln!("SKIPPED (kernel test): {why}");
        return true;
    }
    false
}

fn alg(name: &str) -> &'static manage::NativeAlg {
    manage::find(name).unwrap()
}

fn assert_clean() {
    let left = manage::own_leftovers();
    assert!(left.is_empty(), "left behind: {left:?}");
}

struct Transfer {
    cc: String,
    bytes: u64,
    samples: Vec<(Duration, TcpInfo)>,
    /// The largest window read after any write, not only at the ~5 ms samples: on
    /// loopback a window can peak and halve (a backlog drop) between two samples.
    max_cwnd: u32,
}

/// Sends for `dur` over loopback with congestion control `cc`, sampling TCP_INFO every
/// ~5 ms; `during(stream, elapsed)` runs between writes (to change parameters, stop the
/// agent, ...).
fn transfer(cc: &str, dur: Duration, mut during: impl FnMut(&TcpStream, Duration)) -> Transfer {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let sink = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let mut n = 0u64;
        loop {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => return n,
                Ok(k) => n += k as u64,
            }
        }
    });
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp::set_congestion(&s, cc).unwrap();
    let got = tcp::congestion(&s).unwrap();
    let buf = vec![7u8; 1 << 16];
    let start = Instant::now();
    let mut last = Duration::ZERO;
    let mut samples = Vec::new();
    let mut max_cwnd = 0;
    while start.elapsed() < dur {
        s.write_all(&buf).unwrap();
        max_cwnd = max_cwnd.max(tcp::tcp_info(&s).unwrap().snd_cwnd);
        let t = start.elapsed();
        if t >= last + Duration::from_millis(5) {
            last = t;
            samples.push((t, tcp::tcp_info(&s).unwrap()));
            during(&s, t);
        }
    }
    drop(s);
    let bytes = sink.join().unwrap();
    Transfer {
        cc: got,
        bytes,
        samples,
        max_cwnd,
    }
}

#[test]
fn yield_native_carries_traffic_with_owd_samples() {
    let _s = serial();
    if skip() {
        return;
    }
    {
        let g = LoadGuard::new(alg("scv_yield"), &[]).unwrap();
        let t = transfer(g.name(), Duration::from_millis(600), |_, _| {});
        assert_eq!(t.cc, g.name());
        assert!(t.bytes > 10_000_000, "bytes {}", t.bytes);
        let st = g.stats().unwrap();
        eprintln!(
            "scv_yield: {} bytes, counters {st:?}, last cwnd {}",
            t.bytes,
            t.samples.last().unwrap().1.snd_cwnd
        );
        assert!(
            st.acks > 100 && st.owd_samples > 100,
            "pkts_acked and cong_avoid ran with timestamps: {st:?}"
        );
        // No queueing on loopback (OWD 0 ms): qdelay 0 ≤ target, so Yield grows as Reno
        // would (App. B: AI under target), from the initial window.
        let max = t.samples.iter().map(|(_, i)| i.snd_cwnd).max().unwrap();
        assert!(max > 10, "the window must grow under target (max {max})");
    }
    assert_clean();
}

/// The native Ebb (scv_ebb) registers, passes the verifier, carries a transfer and takes
/// an RTT sample from (almost) every ACK. On loopback (RTT tens of µs, no queue) it
/// leaves slow start only on its own burst's delay; the window must have grown from the
/// initial 10.
#[test]
fn ebb_native_carries_traffic_with_rtt_samples() {
    let _s = serial();
    if skip() {
        return;
    }
    {
        // On loopback the base RTT is tens of microseconds, so the default thresholds
        // (4 ms target, 1 ms empty queue, 2 ms foreign) read the receiver thread's
        // scheduling delay as queue: on a busy machine Ebb left slow start at once and
        // stayed at its floor (max cwnd 3). Thresholds far above any scheduling delay
        // keep this test about the datapath (init, cong_control, RTT samples, growth).
        let params = [
            ("target", "200ms"),
            ("refill", "100ms"),
            ("own_target", "150ms"),
            ("foreign", "0ms"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let g = LoadGuard::new(alg("scv_ebb"), &params).unwrap();
        let t = transfer(g.name(), Duration::from_millis(600), |_, _| {});
        assert_eq!(t.cc, g.name());
        let st = g.stats().unwrap();
        let max = t.max_cwnd;
        eprintln!(
            "scv_ebb: {} bytes, counters {st:?}, max cwnd {max}",
            t.bytes
        );
        assert!(t.bytes > 10_000_000, "bytes {}", t.bytes);
        assert!(
            st.sockets >= 1 && st.acks > 100 && st.rtt_samples > st.acks / 2,
            "init and cong_control ran with RTT samples: {st:?}"
        );
        assert!(max > 10, "the window must grow (max {max})");
    }
    assert_clean();
}

#[test]
fn shim_falls_back_to_reno_when_the_agent_stops() {
    let _s = serial();
    if skip() {
        return;
    }
    {
        let g = LoadGuard::new(alg("scv_shim"), &[]).unwrap();
        // Vegas on loopback keeps a small window; Reno after the agent stops grows it.
        let mut cfg = AgentConfig::new("vegas");
        cfg.shim = Some(g.target.clone());
        let mut agent = Some(AgentHandle::spawn(cfg).unwrap());
        let mut stopped_at = None;
        let mut fallback_at_stop = 0;
        let t = transfer(g.name(), Duration::from_millis(1200), |_, el| {
            if agent.is_some() && el >= Duration::from_millis(400) {
                agent.take().unwrap().stop().unwrap();
                stopped_at = Some(el);
                fallback_at_stop = g.stats().unwrap().fallback_acks;
            }
        });
        let stopped = stopped_at.unwrap();
        let st = g.stats().unwrap();
        let late_bytes: Vec<u64> = t
            .samples
            .iter()
            .filter(|(el, _)| *el > stopped + Duration::from_millis(300))
            .map(|(_, i)| i.bytes_acked)
            .collect();
        eprintln!(
            "scv_shim fallback: {} fallback ACKs after the agent stopped; {} bytes in total",
            st.fallback_acks - fallback_at_stop,
            t.bytes
        );
        assert!(
            st.fallback_acks > fallback_at_stop + 100,
            "Reno fallback ran after the agent stopped: {st:?}"
        );
        assert!(
            late_bytes.len() > 10 && late_bytes.last() > late_bytes.first(),
            "the socket kept sending after the agent stopped"
        );
    }
    assert_clean();
}

#[test]
fn a_failing_test_leaves_nothing_registered_or_pinned() {
    let _s = serial();
    if skip() {
        return;
    }
    let r = std::panic::catch_unwind(|| {
        let g = LoadGuard::new(alg("scv_yield"), &[]).unwrap();
        let g2 = LoadGuard::new(alg("scv_ledbat"), &[]).unwrap();
        assert!(manage::is_registered(g.name()) && manage::is_registered(g2.name()));
        panic!("failing on purpose while two algorithms are registered");
    });
    assert!(r.is_err());
    assert_clean();
}

#[test]
fn unload_finds_a_registration_whose_pins_are_gone() {
    let _s = serial();
    if skip() {
        return;
    }
    // Two registrations of the same object: the map name is `scv_ledbat` for both, so
    // unload must find the right one by the congestion control's name.
    let keep = LoadGuard::new(alg("scv_ledbat"), &[]).unwrap();
    let t = Target::private(alg("scv_ledbat"));
    manage::load_target(&t, &[], Owner::this_process(true)).unwrap();
    // Simulate a crash that lost the pins: the registration stays in the kernel.
    std::fs::remove_dir_all(&t.pin_dir).unwrap();
    assert!(t.is_registered());
    let u = manage::unload_target(&t, Force::No).unwrap();
    assert!(u.was_registered && !u.via_pin);
    assert!(
        keep.target.is_registered(),
        "the other registration of the same object stays"
    );
    drop(keep);
    assert_clean();
}

/// Issue 23 item 9: two guards (or two processes) registering the same algorithm get
/// their own names and pins, and dropping one leaves the other registered. Before
/// owners, `LoadGuard::new` unloaded any registration of the same name first.
#[test]
fn two_guards_of_one_algorithm_do_not_touch_each_other() {
    let _s = serial();
    if skip() {
        return;
    }
    {
        let a = LoadGuard::new(alg("scv_yield"), &[]).unwrap();
        let b = LoadGuard::new(alg("scv_yield"), &[]).unwrap();
        assert_ne!(a.name(), b.name());
        assert_ne!(a.target.pin_dir, b.target.pin_dir);
        assert!(a.target.is_registered() && b.target.is_registered());
        let me = Owner::this_process(true);
        assert_eq!(a.target.owner(), Some(me));
        assert!(a
            .target
            .pin_dir
            .starts_with(format!("/sys/fs/bpf/scavenger-{}", std::process::id())));
        drop(a);
        assert!(
            b.target.is_registered(),
            "dropping one guard kept the other"
        );
        let t = transfer(b.name(), Duration::from_millis(200), |_, _| {});
        assert_eq!(t.cc, b.name());
    }
    assert_clean();
}

/// Issue 23 item 9: `unload` refuses a registration that a running process holds, unless
/// forced; once its owner is gone (or the pid was reused by another process) it is fair
/// game. Before owners, `unload` removed any registration with no check.
#[test]
fn unload_refuses_a_registration_held_by_a_running_process() {
    let _s = serial();
    if skip() {
        return;
    }
    let t = Target::private(alg("scv_ledbat"));
    let mut holder = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let owner = Owner::of(holder.id(), true).unwrap();
    let r = std::panic::catch_unwind(|| {
        manage::load_target(&t, &[], owner).unwrap();
        assert_eq!(t.owner(), Some(owner));
        let e = manage::unload_target(&t, Force::No)
            .unwrap_err()
            .to_string();
        assert!(e.contains("held by pid") && e.contains("--force"), "{e}");
        assert!(t.is_registered(), "a refused unload leaves it registered");
        // `kernel unload all` (every registration found) refuses it too.
        let found = manage::discover()
            .into_iter()
            .find(|f| f.target == t)
            .expect("discovered");
        assert!(!found.is_dead_leftover());
        assert!(manage::clean_dead()
            .kept
            .iter()
            .any(|k| k.contains(&t.name)));
        // With --force it goes.
        manage::unload_target(&t, Force::Yes).unwrap();
        assert!(!t.is_registered());
        // Held by a process that has exited: no force needed, and `clean_dead` takes it.
        manage::load_target(&t, &[], owner).unwrap();
    });
    holder.kill().unwrap();
    holder.wait().unwrap();
    let cleaned = manage::clean_dead();
    // Whatever happened above, nothing stays registered.
    let _ = manage::unload_target(&t, Force::Yes);
    assert!(r.is_ok(), "see the panic above");
    assert!(
        cleaned.removed.iter().any(|k| k.contains(&t.name)),
        "clean_dead removed the dead holder's registration: {cleaned:?}"
    );
    assert_clean();
}
