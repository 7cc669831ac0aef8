//! The TCP three-way handshake of a simulated connection (issue 17, "Connections"), as
//! Linux 6.x runs it for an active open and a passive one:
//!
//! - the client sends a SYN (`tcp_connect`) and retransmits it on a timer that starts at
//!   `TCP_TIMEOUT_INIT` = 1 s (RFC 6298 §2.1) and doubles per retry (`tcp_retransmit_timer`
//!   in SYN-SENT), giving up after `tcp_syn_retries` = 6 retransmissions;
//! - the server answers every SYN with a SYN-ACK (`tcp_conn_request`, and `tcp_check_req`
//!   for a retransmitted SYN: `inet_rtx_syn_ack`), which echoes the TSval of the first SYN
//!   it saw (`req->ts_recent` is not updated by a retransmitted SYN);
//! - the client's SYN-ACK processing (`tcp_rcv_synsent_state_process` → `tcp_ack` →
//!   `tcp_ack_update_rtt`) takes one RTT sample: a never-retransmitted SYN's own send time,
//!   else (Karn) the timestamp echo (`tcp_rtt_tsopt_us`), i.e. now − the echoed TSval;
//!   `tcp_try_undo_spurious_syn` forgets the retransmissions when the echo is the first
//!   SYN's; `tcp_init_transfer` then sets cwnd to 1 if more than one SYN was retransmitted
//!   (and not undone), else to the initial window;
//! - the client ACKs the SYN-ACK at once (`tcp_send_ack` from
//!   `tcp_rcv_synsent_state_process`) and data follows;
//! - the server measures its RTT from its SYN-ACK to that ACK (`tcp_synack_rtt_meas`),
//!   only if it sent a single SYN-ACK; a data segment completes the handshake too if the
//!   ACK is lost (`tcp_check_req` accepts any acceptable ACK).
//!
//! Sans-IO: the world moves the packets and calls in; this module keeps the state and
//! builds the packets. The handshake's packets are flagged with [`Packet::hs`] so that the
//! world routes them here and keeps them out of the flow's data counters.

use crate::packet::{Packet, HS_ACK, HS_SYN, HS_SYNACK};
use scavenger_cc::{Dur, Time};

/// `TCP_TIMEOUT_INIT`: the SYN's first retransmission timeout (RFC 6298 §2.1).
pub const SYN_RTO: Dur = Dur::from_secs(1);
/// `tcp_syn_retries` (net.ipv4.tcp_syn_retries, default 6): SYN retransmissions before
/// the connection fails.
pub const SYN_RETRIES: u32 = 6;

/// The client (active opener) in SYN-SENT.
#[derive(Clone, Debug)]
pub struct Client {
    flow: u32,
    header: u32,
    /// When the first SYN left (Linux `retrans_stamp` of a SYN: its TSval).
    first_syn: Time,
    /// When the last SYN left; its TSval.
    last_syn: Time,
    /// SYNs retransmitted so far (Linux `total_retrans` in SYN-SENT).
    retrans: u32,
    deadline: Option<Time>,
}

/// What the SYN-ACK gives the connection when it arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Established {
    /// The RTT sample of the handshake (`tcp_ack_update_rtt`): seeds SRTT, RTTVAR, the
    /// RTO and the minimum RTT.
    pub rtt: Dur,
    /// Initial window in segments: 1 after more than one (not spurious) SYN
    /// retransmission (`tcp_init_transfer`), else the configured one.
    pub initial_window: u32,
    /// The receiver's window in the SYN-ACK, bytes.
    pub rwnd: u32,
    /// The SYN-ACK's TSval (receiver clock): the client's first TS.Recent.
    pub ts_recent: i64,
}

impl Client {
    /// Opens the connection at `now`: the first SYN and its timer.
    pub fn open(flow: u32, header: u32, now: Time) -> (Client, Packet) {
        let c = Client {
            flow,
            header,
            first_syn: now,
            last_syn: now,
            retrans: 0,
            deadline: Some(now + SYN_RTO),
        };
        let p = c.syn(now);
        (c, p)
    }

    /// A SYN: a segment of header size without payload (a real one carries 8 more option
    /// bytes: MSS, SACK permitted and window scale; docs/deviations/simulator.md#sim-handshake).
    fn syn(&self, now: Time) -> Packet {
        let mut p = Packet::data(self.flow, 0, 0, self.header, now.nanos(), self.retrans > 0);
        p.hs = HS_SYN;
        p
    }

    /// The SYN retransmission timer's deadline; `None` once established or given up.
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// SYNs retransmitted so far.
    pub fn retransmissions(&self) -> u32 {
        self.retrans
    }

    /// The timer fired at `now` (the caller checked the deadline): the next SYN, with the
    /// timeout doubled (`tcp_retransmit_timer`: `icsk_backoff`++, RTO = 1 s · 2^backoff),
    /// or `None` after `SYN_RETRIES` retransmissions (`tcp_write_timeout`: the connection
    /// fails and the flow sends nothing).
    pub fn on_timeout(&mut self, now: Time) -> Option<Packet> {
        if self.retrans >= SYN_RETRIES {
            self.deadline = None;
            return None;
        }
        self.retrans += 1;
        self.last_syn = now;
        self.deadline = Some(now + Dur(SYN_RTO.nanos() << self.retrans));
        Some(self.syn(now))
    }

    /// A SYN-ACK arrived at `now`. The first one establishes the connection; later ones
    /// (duplicates) return `None`. `initial_window` is the flow's configured one.
    pub fn on_synack(&mut self, now: Time, p: &Packet, initial_window: u32) -> Option<Established> {
        self.deadline?;
        self.deadline = None;
        // tcp_ack_update_rtt: the SYN's send time unless it was retransmitted (Karn,
        // FLAG_RETRANS_DATA_ACKED), else the echo (tcp_rtt_tsopt_us). Only the last SYN can
        // have a send time of its own here, so both read "now − the echoed TSval" except
        // that an echo of an older SYN is what Linux measures too.
        let sent = if self.retrans == 0 {
            self.first_syn
        } else {
            Time(p.ts_ecr)
        };
        let rtt = Dur(now.nanos().saturating_sub(sent.nanos()));
        // tcp_try_undo_spurious_syn: the echo is the first SYN's TSval, so the first SYN
        // got through and the retransmissions were spurious (undo_marker = 0).
        let spurious = p.ts_ecr == self.first_syn.nanos();
        let initial_window = if self.retrans > 1 && !spurious {
            1
        } else {
            initial_window
        };
        Some(Established {
            rtt,
            initial_window,
            rwnd: p.wnd,
            ts_recent: p.rx_tsval,
        })
    }

    /// The ACK of the SYN-ACK, sent at once (`tcp_send_ack`).
    pub fn ack(&self, now: Time, ts_recent: i64) -> Packet {
        let mut p = Packet::data(self.flow, 0, 0, self.header, now.nanos(), false);
        p.hs = HS_ACK;
        p.rx_tsval = ts_recent;
        p
    }
}

/// The server (passive opener) between the first SYN and the end of the handshake.
#[derive(Clone, Debug, Default)]
pub struct Server {
    /// The TSval of the first SYN seen (`req->ts_recent`), echoed by every SYN-ACK.
    ts_recent: Option<u64>,
    /// The window of the first SYN-ACK, repeated by the others.
    wnd: u32,
    /// When the first SYN-ACK left, and how many left (`req->num_retrans` + 1).
    first_synack: Option<Time>,
    synacks: u32,
    established: bool,
}

impl Server {
    /// The server of a flow with a handshake (`true`), or of one without, which is
    /// established from the start.
    pub fn new(handshake: bool) -> Server {
        Server {
            established: !handshake,
            ..Server::default()
        }
    }

    /// A SYN arrived at `now`: the SYN-ACK to send. `window` advertises the receive window
    /// on the first call only (the receiver's handshake window).
    pub fn on_syn(
        &mut self,
        now: Time,
        syn: &Packet,
        header: u32,
        clock_offset: i64,
        window: impl FnOnce() -> u64,
    ) -> Option<Packet> {
        if self.established {
            return None;
        }
        let echo = *self.ts_recent.get_or_insert(syn.tsval);
        if self.first_synack.is_none() {
            self.first_synack = Some(now);
            self.wnd = window().min(u32::MAX as u64) as u32;
        }
        self.synacks += 1;
        let mut p = Packet::data(syn.flow, 0, 0, header, 0, false);
        p.kind = crate::packet::Kind::Ack;
        p.hs = HS_SYNACK;
        p.ts_ecr = echo;
        p.rx_tsval = now.nanos() as i64 + clock_offset;
        p.wnd = self.wnd;
        Some(p)
    }

    /// The client's ACK, or its first data segment, arrived at `now`: the handshake is
    /// over. Returns `Some(rtt)` the first time: the RTT sample of `tcp_synack_rtt_meas`
    /// (`None` inside if more than one SYN-ACK was sent), and `None` after.
    pub fn establish(&mut self, now: Time) -> Option<Option<Dur>> {
        if self.established {
            return None;
        }
        self.established = true;
        let first = self.first_synack?;
        Some((self.synacks == 1).then(|| now.since(first)))
    }

    pub fn established(&self) -> bool {
        self.established
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Kind;

    fn ms(m: u64) -> Time {
        Time(m * 1_000_000)
    }

    fn synack_for(s: &mut Server, now: Time, syn: &Packet) -> Packet {
        s.on_syn(now, syn, 52, 0, || 65160).expect("a SYN-ACK")
    }

    #[test]
    fn one_rtt_sample_from_the_syn_and_the_initial_window_kept() {
        let (mut c, syn) = Client::open(3, 52, ms(10));
        assert_eq!(
            (syn.hs, syn.kind, syn.len, syn.wire),
            (HS_SYN, Kind::Data, 0, 52)
        );
        assert_eq!(c.deadline(), Some(ms(1010)), "TCP_TIMEOUT_INIT = 1 s");
        let mut s = Server::default();
        let sa = synack_for(&mut s, ms(35), &syn);
        assert_eq!(
            (sa.hs, sa.kind, sa.wnd, sa.ts_ecr),
            (HS_SYNACK, Kind::Ack, 65160, syn.tsval)
        );
        let e = c.on_synack(ms(60), &sa, 10).unwrap();
        assert_eq!(e.rtt, Dur::from_millis(50));
        assert_eq!(e.initial_window, 10);
        assert_eq!(e.ts_recent, ms(35).nanos() as i64);
        assert_eq!(c.deadline(), None);
        assert!(
            c.on_synack(ms(61), &sa, 10).is_none(),
            "a duplicate SYN-ACK"
        );
        assert_eq!(s.establish(ms(85)), Some(Some(Dur::from_millis(50))));
        assert_eq!(s.establish(ms(86)), None);
    }

    #[test]
    fn syn_timeouts_double_and_give_up_after_six_retries() {
        let (mut c, _) = Client::open(0, 52, ms(0));
        let mut at = ms(0);
        for k in 1..=SYN_RETRIES {
            let d = c.deadline().unwrap();
            assert_eq!(d.since(at), Dur(SYN_RTO.nanos() << (k - 1)), "retry {k}");
            at = d;
            let p = c.on_timeout(d).expect("a retransmitted SYN");
            assert!(p.retrans && p.hs == HS_SYN);
        }
        // 1 + 2 + 4 + 8 + 16 + 32 s, then 64 s more before giving up (127 s in all).
        assert_eq!(at, ms(63_000));
        assert_eq!(c.deadline(), Some(ms(127_000)));
        assert!(c.on_timeout(ms(127_000)).is_none());
        assert_eq!(c.deadline(), None);
    }

    #[test]
    fn one_lost_syn_keeps_the_initial_window_two_cut_it_to_one() {
        // tcp_init_transfer: cwnd = 1 only when total_retrans > 1 (and not undone).
        for (lost, iw) in [(1, 10), (2, 1)] {
            let (mut c, _) = Client::open(0, 52, ms(0));
            let mut syn = None;
            for _ in 0..lost {
                syn = c.on_timeout(c.deadline().unwrap());
            }
            let syn = syn.unwrap();
            let t = Time(syn.tsval);
            let mut s = Server::default();
            let sa = synack_for(&mut s, t + Dur::from_millis(25), &syn);
            let e = c.on_synack(t + Dur::from_millis(50), &sa, 10).unwrap();
            assert_eq!(e.initial_window, iw, "{lost} lost SYNs");
            assert_eq!(
                e.rtt,
                Dur::from_millis(50),
                "the echo of the retransmitted SYN"
            );
        }
    }

    #[test]
    fn a_lost_synack_is_answered_again_with_the_first_echo_and_no_server_sample() {
        let (mut c, syn0) = Client::open(0, 52, ms(0));
        let mut s = Server::default();
        let _lost = synack_for(&mut s, ms(25), &syn0);
        let syn1 = c.on_timeout(ms(1000)).unwrap();
        let syn2 = c.on_timeout(ms(3000)).unwrap();
        let _lost = synack_for(&mut s, ms(1025), &syn1);
        let sa = synack_for(&mut s, ms(3025), &syn2);
        assert_eq!(sa.ts_ecr, syn0.tsval, "req->ts_recent is the first SYN's");
        let e = c.on_synack(ms(3050), &sa, 10).unwrap();
        // Two retransmissions, but spurious (tcp_try_undo_spurious_syn): IW kept; the RTT
        // sample is the echo of the first SYN (tcp_rtt_tsopt_us), as Linux measures it.
        assert_eq!(e.initial_window, 10);
        assert_eq!(e.rtt, Dur::from_millis(3050));
        assert_eq!(
            s.establish(ms(3075)),
            Some(None),
            "num_retrans > 0: no sample"
        );
    }
}
