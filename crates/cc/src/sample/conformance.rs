//! The datapath conformance script: one scripted connection (ACKs, SACKs, a fast
//! recovery, an ECN echo with its CWR period, an RTO) with the state Linux 6.x has after
//! each ACK, and the `AckSample` stream it implies. The simulator's sender, the kernel
//! agent's translation layer and (where the events map) the QUIC adapter each feed the
//! script to their own datapath in their tests and must produce `expected()`, field for
//! field in `Conformed`.
//!
//! The connection: MSS 1000, a controller whose window is fixed at 10 segments, no PRR,
//! no pacing, ECN on; the datapath sends all it may after every event. Times are ms, the
//! receiver's timestamps echo the send time of the segment named in `ts_ecr_ms`.
//! Everything in segments of 1000 bytes.

use super::{ack_sample, CaState, SenderAck};
use crate::api::{AckSample, CongestionControl, CongestionEvent, RtoEvent};
use crate::units::{Dur, Time};
use std::sync::{Arc, Mutex};

pub const MSS: u64 = 1000;
/// The fixed window of the scripted controller, in segments.
pub const CWND_SEGS: u64 = 10;

/// One event of the script.
#[derive(Clone, Copy, Debug)]
pub enum Step {
    /// An ACK arrives.
    Ack(Ack),
    /// The retransmission timer fires (the datapath's RTO handler runs).
    Rto { at_ms: u64 },
}

/// An ACK and the sender state Linux has after processing it.
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub at_ms: u64,
    /// Cumulative ACK (next expected segment).
    pub cum: u32,
    /// SACK blocks [start, end) in segments.
    pub sack: &'static [(u32, u32)],
    pub ece: bool,
    /// TSecr: the send time (ms) of the segment whose TSval the receiver echoes.
    pub ts_ecr_ms: u64,
    // Linux's state after the ACK (segments unless noted).
    pub acked: u64,
    /// `rs->rtt_us` in ms (ca_rtt_us, or the timestamp RTT when Karn withholds it).
    pub rtt_ms: Option<u64>,
    pub delivered: u64,
    pub prior_in_flight: u64,
    pub in_flight: u64,
    pub ca_state: CaState,
    /// `FLAG_DATA_ACKED`.
    pub data_acked: bool,
    /// SND.NXT after the sends that followed the previous event (SND.UNA is `cum`).
    pub nxt: u64,
}

/// The sample fields every datapath must agree on. Not compared: `owd` and
/// `ts_echo_rtt` (clock resolution and offsets are datapath-specific, each datapath tests
/// them itself), `rate` (the kernel's and our estimator's sampling windows differ),
/// `app_limited`, `cwnd_limited` (depend on the sending loop, not on the ACK).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conformed {
    pub bytes_acked: u64,
    pub rtt: Option<Dur>,
    pub delivered: u64,
    pub prior_in_flight: u64,
    pub bytes_in_flight: u64,
    pub ecn_ce: bool,
    pub in_recovery: bool,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub mss: u64,
}

impl From<&AckSample> for Conformed {
    fn from(a: &AckSample) -> Conformed {
        Conformed {
            bytes_acked: a.bytes_acked,
            rtt: a.rtt,
            delivered: a.delivered,
            prior_in_flight: a.prior_in_flight,
            bytes_in_flight: a.bytes_in_flight,
            ecn_ce: a.ecn_ce,
            in_recovery: a.in_recovery,
            snd_una: a.snd_una,
            snd_nxt: a.snd_nxt,
            mss: a.mss,
        }
    }
}

const fn ack(
    at_ms: u64,
    cum: u32,
    sack: &'static [(u32, u32)],
    ece: bool,
    ts_ecr_ms: u64,
    linux: (u64, Option<u64>, u64, u64, u64, CaState, bool, u64),
) -> Step {
    let (acked, rtt_ms, delivered, prior_in_flight, in_flight, ca_state, data_acked, nxt) = linux;
    Step::Ack(Ack {
        at_ms,
        cum,
        sack,
        ece,
        ts_ecr_ms,
        acked,
        rtt_ms,
        delivered,
        prior_in_flight,
        in_flight,
        ca_state,
        data_acked,
        nxt,
    })
}

use CaState::*;

/// The script. Linux state columns: (acked, rtt ms, delivered, prior in flight, in flight,
/// ca_state, FLAG_DATA_ACKED, snd_nxt). Segments 0-9 leave at 0 ms.
pub const SCRIPT: &[Step] = &[
    // Segments 0, 1 acknowledged; 10, 11 leave at 100 ms.
    ack(
        100,
        2,
        &[],
        false,
        0,
        (2, Some(100), 2, 10, 8, Open, true, 10),
    ),
    // Segment 2 is missing: 3 is SACKed (Disorder); 12 leaves at 110 ms.
    ack(
        110,
        2,
        &[(3, 4)],
        false,
        0,
        (1, Some(110), 3, 10, 9, Disorder, false, 12),
    ),
    // Three segments SACKed above 2: it is lost (RACK with reo_wnd 0 once sacked_out
    // reaches the reordering degree, tcp_rack_reo_wnd), fast recovery to high_seq 13 with
    // 2 retransmitted and 13, 14 sent at 120 ms. ca_rtt: the newest SACKed segment, 5.
    ack(
        120,
        2,
        &[(3, 6)],
        false,
        0,
        (2, Some(120), 5, 10, 7, Recovery, false, 13),
    ),
    // Segment 6 SACKed; 15 leaves at 130 ms.
    ack(
        130,
        2,
        &[(3, 7)],
        false,
        0,
        (1, Some(130), 6, 10, 9, Recovery, false, 15),
    ),
    // The retransmission of 2 arrives: cumulative ACK to 7. Karn withholds the send-time
    // RTT, so Linux takes the timestamp RTT (tcp_ack_update_rtt: tcp_rtt_tsopt_us),
    // 200 − 120 ms. Still below high_seq: Recovery. 16 leaves at 200 ms.
    ack(
        200,
        7,
        &[],
        false,
        120,
        (1, Some(80), 7, 10, 9, Recovery, true, 16),
    ),
    // Cumulative ACK to 13 = high_seq: recovery ends before cong_control runs
    // (tcp_fastretrans_alert, tcp_try_undo_recovery → Open). 17-22 leave at 210 ms.
    ack(
        210,
        13,
        &[],
        false,
        110,
        (6, Some(100), 13, 10, 4, Open, true, 17),
    ),
    // ECN echo: tcp_try_to_open → tcp_enter_cwr (high_seq 23) before cong_control, so
    // this ACK already holds growth. 23, 24 leave at 250 ms.
    ack(
        250,
        15,
        &[],
        true,
        120,
        (2, Some(130), 15, 10, 8, Cwr, true, 23),
    ),
    // ECE again inside the CWR period: flagged, no new reduction. 25 leaves at 260 ms.
    ack(
        260,
        16,
        &[],
        true,
        130,
        (1, Some(130), 16, 10, 9, Cwr, true, 25),
    ),
    // SND.UNA 22 < high_seq 23: still CWR. 26-31 leave at 300 ms.
    ack(
        300,
        22,
        &[],
        false,
        200,
        (6, Some(90), 22, 10, 4, Cwr, true, 26),
    ),
    // SND.UNA 24 > high_seq: CWR ends (tcp_fastretrans_alert, "something *above*
    // high_seq"). 32, 33 leave at 310 ms.
    ack(
        310,
        24,
        &[],
        false,
        210,
        (2, Some(60), 24, 10, 8, Open, true, 32),
    ),
    // Nothing more arrives: the timer fires, tcp_enter_loss (high_seq 34), 24-33 are
    // retransmitted at 1500 ms.
    Step::Rto { at_ms: 1_500 },
    // The retransmission of 24 is acknowledged: CA_Loss with FLAG_DATA_ACKED, so
    // tcp_may_raise_cwnd lets cong_avoid run (in_recovery false). Timestamp RTT
    // 1600 − 1500 ms. 34 leaves at 1600 ms.
    ack(
        1_600,
        25,
        &[],
        false,
        1_500,
        (1, Some(100), 25, 10, 9, Loss, true, 34),
    ),
    // A duplicate ACK in CA_Loss: nothing new acknowledged, growth held.
    ack(
        1_610,
        25,
        &[],
        false,
        1_500,
        (0, None, 25, 10, 10, Loss, false, 35),
    ),
    // Everything up to high_seq 34 acknowledged: back to Open. Timestamp RTT 200 ms.
    ack(
        1_700,
        34,
        &[],
        false,
        1_500,
        (9, Some(200), 34, 10, 1, Open, true, 35),
    ),
];

impl Ack {
    /// The Linux-side sender state of this ACK, in bytes.
    pub fn sender_ack(&self) -> SenderAck {
        SenderAck {
            bytes_acked: self.acked * MSS,
            rtt: self.rtt_ms.map(Dur::from_millis),
            owd: None,
            ts_echo_rtt: None,
            delivered: self.delivered * MSS,
            rate: None,
            prior_in_flight: self.prior_in_flight * MSS,
            bytes_in_flight: self.in_flight * MSS,
            app_limited: false,
            cwnd_limited: true,
            ece: self.ece,
            ca_state: self.ca_state,
            data_acked: self.data_acked,
            // The script's controller is a window-based one; no reordering in the script.
            cong_control: false,
            reordering: false,
            snd_una: self.cum as u64 * MSS,
            snd_nxt: self.nxt * MSS,
            mss: MSS,
        }
    }
}

/// The sample stream every datapath must produce from the script, one per ACK.
pub fn expected() -> Vec<Conformed> {
    SCRIPT
        .iter()
        .filter_map(|s| match s {
            Step::Ack(a) => Some(Conformed::from(&ack_sample(&a.sender_ack()))),
            Step::Rto { .. } => None,
        })
        .collect()
}

/// The script's controller: a window fixed at [`CWND_SEGS`] segments that keeps every
/// sample. A datapath's test gives it (a clone: the samples are shared) to the datapath,
/// feeds the script and checks [`Recorder::conformed`] with [`assert_conforms`].
#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<AckSample>>>);

impl Recorder {
    /// The samples so far, as the fields the script fixes.
    pub fn conformed(&self) -> Vec<Conformed> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(Conformed::from)
            .collect()
    }
}

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(*ack);
    }
    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {}
    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {}
    fn cwnd(&self) -> u64 {
        CWND_SEGS * MSS
    }
}

/// Panics, naming the first differing sample, unless `got` is [`expected`].
pub fn assert_conforms(got: &[Conformed]) {
    let want = expected();
    assert_eq!(got.len(), want.len(), "number of samples");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "sample {k}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The script's bookkeeping is consistent: in flight after = before − newly
    /// acknowledged (− newly lost), delivered grows by `acked`, SND.UNA by `cum`.
    #[test]
    fn the_script_is_consistent() {
        let mut delivered = 0;
        for s in SCRIPT {
            if let Step::Ack(a) = s {
                delivered += a.acked;
                assert_eq!(a.delivered, delivered, "at {} ms", a.at_ms);
                assert!(
                    a.in_flight + a.acked <= a.prior_in_flight,
                    "at {} ms",
                    a.at_ms
                );
                assert!(a.cum as u64 <= a.nxt, "at {} ms", a.at_ms);
            }
        }
        let e = expected();
        // The disagreements this contract settled: growth held through CWR (ECE at 250
        // and 260 ms, and 300 ms), allowed in CA_Loss on cumulative progress (1600 ms).
        let held: Vec<bool> = e.iter().map(|c| c.in_recovery).collect();
        assert_eq!(
            held,
            [false, false, true, true, true, false, true, true, true, false, false, true, false]
        );
        assert_eq!(e.iter().filter(|c| c.ecn_ce).count(), 2);
    }
}
