//! The datapath conformance script (scavenger_cc::sample::conformance) fed to the
//! simulator's sender: its sample stream must be the one Linux's state implies.

use crate::packet::{Kind, Packet};
use crate::sender::{Sender, SenderConfig};
use scavenger_cc::sample::conformance::{self, Conformed, Step, CWND_SEGS, MSS};
use scavenger_cc::{AckSample, CongestionControl, CongestionEvent, RtoEvent, Time};
use std::sync::{Arc, Mutex};

/// The script's controller: a window fixed at 10 segments, every sample kept.
struct Recorder(Arc<Mutex<Vec<AckSample>>>);

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        self.0.lock().unwrap().push(*ack);
    }
    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {}
    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {}
    fn cwnd(&self) -> u64 {
        CWND_SEGS * MSS
    }
}

fn ms(m: u64) -> Time {
    Time(m * 1_000_000)
}

fn send_all(s: &mut Sender, now: Time) {
    while s.next_packet(now).is_some() {}
}

#[test]
fn the_simulators_sender_produces_the_conformance_stream() {
    let samples = Arc::new(Mutex::new(Vec::new()));
    let cfg = SenderConfig {
        flow: 0,
        mss: MSS as u32,
        header: 52,
        rwnd: u64::MAX,
        receiver_window: false,
        total_segs: None,
        last_seg_len: MSS as u32,
        pacing: false,
        ecn: true,
        prr: false,
    };
    let mut s = Sender::new(cfg, Box::new(Recorder(samples.clone())), Time::ZERO);
    send_all(&mut s, Time::ZERO);
    for step in conformance::SCRIPT {
        match step {
            Step::Ack(a) => {
                let mut p = Packet::data(0, 0, 0, 52, 0, false);
                p.kind = Kind::Ack;
                p.ack = a.cum;
                for (k, &b) in a.sack.iter().enumerate() {
                    p.sack[k] = b;
                }
                p.nsack = a.sack.len() as u8;
                p.ece = a.ece;
                p.ts_ecr = ms(a.ts_ecr_ms).nanos();
                p.rx_tsval = ms(a.at_ms).nanos() as i64;
                s.on_ack(ms(a.at_ms), &p);
                send_all(&mut s, ms(a.at_ms));
            }
            Step::Rto { at_ms } => {
                s.on_rto(ms(*at_ms));
                send_all(&mut s, ms(*at_ms));
            }
        }
    }
    let got: Vec<Conformed> = samples
        .lock()
        .unwrap()
        .iter()
        .map(Conformed::from)
        .collect();
    let want = conformance::expected();
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "sample {k}");
    }
}
