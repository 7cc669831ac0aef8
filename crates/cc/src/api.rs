//! The congestion-control interface every datapath drives (simulator, kernel agent,
//! QUIC adapter). It follows Linux's split: the datapath owns loss detection and
//! recovery (SACK, RTO, retransmission); the algorithm owns the congestion window, the
//! slow-start threshold and, optionally, a pacing rate. Every call carries `now`;
//! algorithms never read a clock.
//!
//! Call order per connection: `on_sent` for every transmission; `on_ack` for every ACK
//! that the datapath processes (also in recovery: `ack.in_recovery` tells); on entering
//! loss recovery `on_congestion(Loss)` once per episode; on an ECN echo `on_congestion(Ecn)`
//! at most once per round trip (CWR semantics); on a retransmission timeout `on_rto`;
//! when recovery ends, `on_recovery_exit`. During recovery the datapath sends while its
//! pipe estimate is below `cwnd()` (RFC 6675), so an algorithm that wants the RFC 5681
//! response sets cwnd to ssthresh in `on_congestion`.

use crate::rng::Rng;
use crate::units::{Dur, Rate, Time};

/// Linux's `net.ipv4.tcp_min_tso_segs` default (Documentation/networking/ip-sysctl.rst:
/// "Minimal number of segments per TSO frame ... Default: 2"): the least segments a paced
/// socket sends per pacing gap when its congestion control has no `.min_tso_segs`.
pub const TCP_MIN_TSO_SEGS: u32 = 2;

/// The largest skb Linux's TSO autosizing builds on a legacy GSO device:
/// `GSO_LEGACY_MAX_SIZE − (MAX_TCP_HEADER + 1)`, 65536 − 1 − 320 on x86-64
/// (`sk_setup_caps` sets `sk_gso_max_size` to it). Both `tcp_tso_autosize`
/// (the simulator's paced bursts) and `bbr_tso_segs_goal` cap their bytes with it.
pub const GSO_MAX_BYTES: u64 = 65536 - 1 - 320;

/// A delivery-rate sample (Linux `struct rate_sample`, draft-cheng-iccrg-delivery-rate-estimation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    pub rate: Rate,
    /// The interval over which `delivered` bytes were delivered.
    pub interval: Dur,
    pub delivered: u64,
    /// The sample was taken while the sender was application-limited, so it is a lower
    /// bound on the path's capacity.
    pub app_limited: bool,
}

/// Everything the datapath learnt from one ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample {
    /// Bytes newly acknowledged by this ACK, cumulatively or by SACK.
    pub bytes_acked: u64,
    /// Round-trip sample from this ACK, as Linux's `ca_rtt_us` (the rate sample's RTT):
    /// now minus the send time of the newest segment this ACK newly SACKs, else of the
    /// newest it newly acknowledges cumulatively. When the cumulative part covers a
    /// retransmission (Karn's rule) and no SACK gives a sample, the timestamp-echo RTT if
    /// the ACK advanced SND.UNA (Linux `tcp_ack_update_rtt`), else none.
    pub rtt: Option<Dur>,
    /// One-way delay sample in nanoseconds: the receiver's clock when it sent the ACK
    /// (TSval) minus the sender's clock when it sent the echoed segment (TSecr). It
    /// includes the unknown offset between the two clocks, so only differences and
    /// minima are meaningful, as in RFC 6817. `None` when the datapath has no timestamps.
    pub owd: Option<i64>,
    /// The timestamp-echo RTT (RFC 7323 RTTM): now minus the time the segment whose TSval
    /// this ACK echoes was sent, i.e. what a kernel module computes from TSecr. A delayed
    /// ACK echoes the oldest segment it covers, so this is `rtt` plus the time the
    /// receiver held that segment. Present for an echo of a retransmission too (the
    /// timestamp names the transmission, RFC 7323 §4.1). TCP-LP's Linux clock model
    /// needs this one, consistent with `owd`.
    pub ts_echo_rtt: Option<Dur>,
    /// Total bytes delivered (cumulatively or SACKed) since the connection started.
    pub delivered: u64,
    pub rate: Option<RateSample>,
    /// Bytes in flight (RFC 6675 pipe) before and after this ACK was processed.
    pub prior_in_flight: u64,
    pub bytes_in_flight: u64,
    /// The sender had nothing more to send (finite transfer drained, or pacing/rwnd
    /// limited) when the acknowledged data left.
    pub app_limited: bool,
    /// The window was the limit on sending in the last round (Linux `tcp_is_cwnd_limited`);
    /// algorithms should not grow a window that is not being used.
    pub cwnd_limited: bool,
    /// The ACK carried an ECN echo (the data it acknowledges was CE-marked).
    pub ecn_ce: bool,
    /// The datapath is in fast recovery (CA_Recovery), in the window reduction after an
    /// ECN response (CA_CWR), or in RTO recovery (CA_Loss) on an ACK that does not advance
    /// the cumulative ACK. Linux does not call `cong_avoid` then, and classic algorithms
    /// should not grow. In RTO recovery an ACK that advances SND.UNA has it false, because
    /// Linux calls `cong_avoid` then: the window slow-starts while the lost flight is
    /// retransmitted. Every datapath sets it through `sample::holds_growth`.
    pub in_recovery: bool,
    /// Sequence state in bytes: highest cumulative ACK and next new byte to send.
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Sender maximum segment size (payload bytes).
    pub mss: u64,
}

impl AckSample {
    /// The timestamp-echo RTT, or `rtt` from a datapath that gives no separate echo
    /// sample: what modules that compute from TSecr (TCP-LP, EvaRate's receiver clock) use.
    pub fn echo_rtt(&self) -> Option<Dur> {
        self.ts_echo_rtt.or(self.rtt)
    }

    /// A sample with everything zero/absent except `mss`; handy for tests and adapters.
    pub fn empty(mss: u64) -> AckSample {
        AckSample {
            bytes_acked: 0,
            rtt: None,
            owd: None,
            ts_echo_rtt: None,
            delivered: 0,
            rate: None,
            prior_in_flight: 0,
            bytes_in_flight: 0,
            app_limited: false,
            cwnd_limited: true,
            ecn_ce: false,
            in_recovery: false,
            snd_una: 0,
            snd_nxt: 0,
            mss,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Fast retransmit: a loss was inferred from SACK/duplicate ACKs.
    Loss,
    /// An ECN echo (ECN-CE at the receiver).
    Ecn,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CongestionEvent {
    pub kind: CongestionKind,
    /// Bytes in flight when the event was detected.
    pub bytes_in_flight: u64,
    /// Bytes newly marked lost (zero for ECN).
    pub bytes_lost: u64,
    pub mss: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoEvent {
    pub bytes_in_flight: u64,
    /// Consecutive timeouts without progress (1 for the first).
    pub backoff_count: u32,
    pub mss: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SentInfo {
    /// Bytes of payload in this transmission.
    pub bytes: u64,
    /// Bytes in flight after it was sent.
    pub bytes_in_flight: u64,
    pub retransmission: bool,
    /// Sequence number (bytes) of the first payload byte.
    pub seq: u64,
    /// The sender had no more data waiting after this transmission.
    pub app_limited: bool,
}

/// What an algorithm instance is given when a connection starts.
#[derive(Clone, Debug)]
pub struct CcInit {
    pub now: Time,
    /// Sender maximum segment size (payload bytes).
    pub mss: u64,
    /// Initial congestion window in bytes (IW10 by default: 10 × mss).
    pub initial_cwnd: u64,
    /// This flow's own generator, derived from the run's seed.
    pub rng: Rng,
}

/// A congestion controller. Implementations are sans-IO state machines.
pub trait CongestionControl: Send {
    /// Registry name ("cubic", "ledbat", ...).
    fn name(&self) -> &'static str;

    fn on_ack(&mut self, now: Time, ack: &AckSample);

    /// Start of a congestion episode: once per loss recovery, at most once per RTT for ECN.
    fn on_congestion(&mut self, now: Time, ev: &CongestionEvent);

    /// Retransmission timeout.
    fn on_rto(&mut self, now: Time, ev: &RtoEvent);

    /// Loss recovery (fast recovery or RTO recovery) completed.
    fn on_recovery_exit(&mut self, _now: Time) {}

    fn on_sent(&mut self, _now: Time, _sent: &SentInfo) {}

    /// Congestion window in bytes. The datapath keeps at most this many bytes in flight.
    /// Algorithms with windows below one segment (e.g. TCP Nice) report one segment and
    /// express the fraction through `pacing_rate`.
    fn cwnd(&self) -> u64;

    /// Slow-start threshold in bytes (`u64::MAX` when unset).
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }

    /// Pacing rate, if the algorithm paces. `None` lets the datapath send on ACK clocking
    /// (or apply its own optional pacing).
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }

    /// Whether `pacing_rate` counts payload bytes, as Linux's TCP pacing does:
    /// `tcp_update_skb_after_send` (net/ipv4/tcp_output.c) advances `tcp_wstamp_ns` by
    /// `skb->len / sk_pacing_rate`, and `skb->len` there is the headerless payload. The
    /// default, false, spaces packets by their wire size (payload and headers), as a
    /// qdisc would; algorithms whose source defines a Linux pacing rate return true.
    fn paces_payload(&self) -> bool {
        false
    }

    /// The least segments per skb that Linux's TSO autosizing gives this algorithm's
    /// paced flow: `tcp_tso_segs` (net/ipv4/tcp_output.c) takes the congestion control's
    /// `.min_tso_segs` if it has one, else the sysctl `net.ipv4.tcp_min_tso_segs`, and
    /// `tcp_tso_autosize` sends at least that many per pacing gap. The datapath applies
    /// the rule itself (docs/deviations/simulator.md#sim-paced-bursts); an algorithm only
    /// overrides this when its Linux module registers `.min_tso_segs` (BBR). Default 2:
    /// the sysctl's default.
    fn min_tso_segs(&self) -> u32 {
        TCP_MIN_TSO_SEGS
    }

    /// The handshake's RTT sample, given once right after the algorithm is built when the
    /// datapath opened the connection with a handshake that measured one. Linux builds the
    /// congestion control after the handshake (`tcp_init_transfer` →
    /// `tcp_init_congestion_control`), when `tcp_min_rtt(tp)` already holds the SYN/SYN-ACK
    /// sample, and BBR starts its min-RTT filter from it (`bbr_init`). Default: ignored.
    fn on_handshake_rtt(&mut self, _now: Time, _rtt: Dur) {}

    /// Whether the algorithm sets the window on every ACK itself, in loss recovery too,
    /// like a Linux `tcp_congestion_ops` with `cong_control` (BBR): `tcp_cong_control`
    /// (net/ipv4/tcp_input.c) then returns before `tcp_cwnd_reduction`, so the datapath
    /// must not apply RFC 6937 PRR over this algorithm's window. Default false: PRR.
    fn cong_control(&self) -> bool {
        false
    }

    /// Internal variables for traces (name, value), appended to `out`. Names are stable
    /// per algorithm, e.g. ("base_delay_ms", 12.0).
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_ack_sample_is_neutral() {
        let a = AckSample::empty(1448);
        assert_eq!(a.mss, 1448);
        assert_eq!(a.bytes_acked, 0);
        assert!(a.rtt.is_none() && a.owd.is_none() && !a.in_recovery);
    }
}
