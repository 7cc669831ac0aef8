//! The datapath conformance script (scavenger_cc::sample::conformance) fed to the
//! simulator's sender: its sample stream must be the one Linux's state implies.

use crate::packet::{Kind, Packet};
use crate::sender::{Sender, SenderConfig};
use scavenger_cc::sample::conformance::{self, Recorder, Step, MSS};
use scavenger_cc::Time;

fn ms(m: u64) -> Time {
    Time(m * 1_000_000)
}

fn send_all(s: &mut Sender, now: Time) {
    while s.next_packet(now).is_some() {}
}

#[test]
fn the_simulators_sender_produces_the_conformance_stream() {
    let recorder = Recorder::default();
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
        psh: false,
        psh_rule: crate::sender::PshRule::EveryAck,
        gso_max_segs: crate::tso::GSO_MAX_SEGS,
        shim_lag: false,
        pacing_credit: false,
    };
    let mut s = Sender::new(cfg, Box::new(recorder.clone()), Time::ZERO);
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
    conformance::assert_conforms(&recorder.conformed());
}
