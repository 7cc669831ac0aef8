//! The census receiver: a TCP receiver of our own, sans-IO (IPv4 packets in with a time,
//! packets out when due), that shapes what the server sees as CAAI does (Wang 2018 §3.1,
//! after Yang et al.):
//!
//! - a small MSS in our SYN, "to increase the number of data packets for the probed web
//!   pages";
//! - an emulated long RTT: every ACK (the handshake's too, so the server's first RTT
//!   sample and its RTO already include it) leaves one emulated RTT after the segment it
//!   answers arrived, so that "the remote server stops sending packets after cwnd of
//!   packets have been sent", and the packets of one round can be counted;
//! - a long connection (a large page, a large receive window);
//! - an induced loss: the first new segment of round `loss_round` is dropped ("packet
//!   loss is used to trigger different behaviors of Congestion Recovery state");
//! - a forced RTO at round `rto_round` (§3.1: "we trigger an RTO event at 14th RTT"):
//!   from that round on every segment is discarded without an ACK until the server
//!   retransmits the first unacknowledged one after its timeout; then ACKs resume.
//!
//! Time is integer nanoseconds from any origin the caller picks.

use super::classify::{Phase, Round, Trace};
use super::session::{self, Session};
use super::tcp::{self, Out, Segment, ACK, FIN, PSH, RST, SYN};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// How the receiver probes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProbeConfig {
    /// MSS we announce, bytes (88–1460).
    pub mss: u16,
    /// Emulated RTT added to every ACK, ns (50–900 ms: the server's SYN-ACK timer is 1 s).
    pub rtt_ns: u64,
    /// Round (1-based) whose first new segment is dropped.
    pub loss_round: u32,
    /// Round (1-based) from which ACKs are withheld until the server's RTO.
    pub rto_round: u32,
    /// Rounds to watch after the RTO before stopping.
    pub rounds_after_rto: u32,
    /// Stop after this many in-order payload bytes.
    pub max_bytes: u64,
    /// Give up when the server does not answer our SYN within this, ns.
    pub connect_timeout_ns: u64,
    /// Stop when no packet arrives for this long once connected, ns.
    pub idle_timeout_ns: u64,
    /// https://: which certificates to accept (`None`: the system's roots).
    pub trust: Option<session::Trust>,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        ProbeConfig {
            mss: 200,
            rtt_ns: 300 * MS,
            loss_round: 6,
            rto_round: 14,
            rounds_after_rto: 12,
            max_bytes: 16 << 20,
            connect_timeout_ns: 10 * S,
            idle_timeout_ns: 10 * S,
            trust: None,
        }
    }
}

impl ProbeConfig {
    /// Checks every field; the error names the field, its value and what is allowed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        use ConfigError as E;
        if !(88..=1460).contains(&self.mss) {
            return Err(E::Mss(self.mss));
        }
        if !(50 * MS..=900 * MS).contains(&self.rtt_ns) {
            return Err(E::Rtt(self.rtt_ns));
        }
        if self.loss_round < 2 {
            return Err(E::LossRound(self.loss_round));
        }
        if self.rto_round < self.loss_round + 4 {
            return Err(E::RtoRound {
                rto_round: self.rto_round,
                loss_round: self.loss_round,
            });
        }
        if !(1..=200).contains(&self.rounds_after_rto) {
            return Err(E::RoundsAfterRto(self.rounds_after_rto));
        }
        if self.max_bytes < 64 << 10 {
            return Err(E::MaxBytes(self.max_bytes));
        }
        if self.connect_timeout_ns == 0 || self.idle_timeout_ns == 0 {
            return Err(E::Timeouts);
        }
        Ok(())
    }
}

/// A `ProbeConfig` field out of range: names the field (as its CLI flag), the value and
/// what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("mss = {0}: must be 88..=1460 bytes")]
    Mss(u16),
    /// The value is in ns; the message gives ms.
    #[error("rtt = {} ms: must be 50..=900 ms (longer than the path, shorter than the server's 1 s SYN-ACK timer)", .0 / MS)]
    Rtt(u64),
    #[error("loss-round = {0}: must be ≥ 2")]
    LossRound(u32),
    #[error("rto-round = {rto_round}: must be ≥ loss-round + 4 = {} (recovery and some congestion avoidance in between)", loss_round + 4)]
    RtoRound { rto_round: u32, loss_round: u32 },
    #[error("rounds-after-rto = {0}: must be 1..=200")]
    RoundsAfterRto(u32),
    #[error("max-bytes = {0}: must be ≥ 65536")]
    MaxBytes(u64),
    #[error("timeouts must be > 0")]
    Timeouts,
}

/// Why a probe ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum End {
    /// Watched `rounds_after_rto` rounds after the RTO.
    Enough,
    /// The whole page arrived.
    PageComplete { bytes: u64 },
    /// The server closed (FIN) before the page was complete, or without a length.
    ServerClosed { bytes: u64 },
    /// The server reset the connection.
    Reset { bytes: u64 },
    /// No packet for the idle timeout.
    Silent { bytes: u64, secs: u64 },
    /// `max_bytes` arrived.
    ByteBudget { bytes: u64 },
    /// Asked to stop (signal).
    Interrupted,
    /// The TLS session failed (an alert, a certificate not trusted, a protocol error).
    Tls { bytes: u64, error: String },
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            End::Enough => write!(f, "watched enough rounds after the RTO"),
            End::PageComplete { bytes } => write!(f, "the page ended after {bytes} bytes"),
            End::ServerClosed { bytes } => {
                write!(f, "the server closed the connection after {bytes} bytes")
            }
            End::Reset { bytes } => {
                write!(f, "the server reset the connection after {bytes} bytes")
            }
            End::Silent { bytes, secs } => {
                write!(
                    f,
                    "the server sent nothing for {secs} s (after {bytes} bytes)"
                )
            }
            End::ByteBudget { bytes } => write!(f, "stopped at the byte budget ({bytes} bytes)"),
            End::Interrupted => write!(f, "interrupted"),
            End::Tls { bytes, error } => write!(f, "TLS failed after {bytes} bytes: {error}"),
        }
    }
}

/// A probe that produced no trace at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    #[error("no answer from {addr}:{port} within {secs} s (no SYN-ACK to {tries} SYNs)")]
    NoAnswer {
        addr: std::net::Ipv4Addr,
        port: u16,
        secs: u64,
        tries: u32,
    },
    #[error("{addr}:{port} refused the connection (RST to our SYN)")]
    Refused { addr: std::net::Ipv4Addr, port: u16 },
    #[error("interrupted before the server answered")]
    Interrupted,
    /// TLS could not be set up (no CA bundle, a bad server name).
    #[error("{0}")]
    Tls(String),
}

/// What the HTTP response said (HTTP/1.1, RFC 9112 §4 status line, §6.3 length).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HttpInfo {
    pub status: Option<u16>,
    pub content_length: Option<u64>,
    pub header_bytes: Option<u64>,
}

/// The result of a probe that connected.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProbeOutcome {
    pub trace: Trace,
    pub http: HttpInfo,
    /// In-order payload bytes received.
    pub bytes: u64,
    /// SYN to SYN-ACK, ns: the real path's RTT.
    pub path_rtt_ns: u64,
    /// Emulated round length (emulated RTT + path RTT), ns.
    pub round_ns: u64,
    pub server_mss: Option<u16>,
    pub end: End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    SynSent,
    Established,
    Done,
}

/// Our receive window: 65535 << WSCALE (16 MiB), so it never limits the server.
const WSCALE: u8 = 8;
/// SYN retransmission interval (RFC 6298 §2.1's initial RTO).
const SYN_RTO: u64 = S;

pub struct Receiver {
    cfg: ProbeConfig,
    local: ([u8; 4], u16),
    remote: ([u8; 4], u16),
    iss: u32,
    /// What we speak over the stream: plain HTTP or HTTP inside TLS.
    app: Box<dyn Session>,
    /// Every byte we sent (from iss + 1), for retransmission.
    sent: Vec<u8>,
    /// Bytes of `sent` the server acknowledged.
    sent_acked: u64,
    /// When our last data left (or will leave).
    last_send: u64,
    /// The stream offset where the response starts (in-order bytes when the request
    /// was queued): the trace counts segments from there, not the TLS handshake.
    trace_from: Option<u64>,
    state: State,
    started: u64,
    syn_sent_at: u64,
    syn_tries: u32,
    irs: u32,
    server_mss: Option<u16>,
    path_rtt: u64,
    /// Our next sequence number.
    snd_nxt: u32,
    /// When the request left (or will leave).
    request_at: Option<u64>,
    /// Transmissions of our unacknowledged data (1 = no retransmission yet).
    send_tries: u32,
    /// In-order payload bytes (offset from irs + 1).
    rcv_nxt: u64,
    fin_at: Option<u64>,
    /// Out-of-order segments, kept: TLS needs the whole in-order stream.
    ooo: BTreeMap<u64, Vec<u8>>,
    /// ACKs (and the request) waiting for their emulated RTT: (due, packet).
    delayed: VecDeque<(u64, Vec<u8>)>,
    /// Packets to send now (RST, SYN).
    now_out: VecDeque<Vec<u8>>,
    trace: Trace,
    last_arrival: u64,
    dropped: bool,
    /// In the RTO blackout: whether the segment at rcv_nxt was seen once already.
    blackout: Option<bool>,
    end: Option<End>,
    error: Option<ProbeError>,
    interrupted: bool,
}

impl Receiver {
    /// A receiver that will connect from `local` to `remote` and speak `app` over the
    /// connection (the caller checks `cfg` with `validate`). `iss` is our initial
    /// sequence number.
    pub fn new(
        cfg: ProbeConfig,
        local: (std::net::Ipv4Addr, u16),
        remote: (std::net::Ipv4Addr, u16),
        app: Box<dyn Session>,
        iss: u32,
    ) -> Receiver {
        Receiver {
            cfg,
            local: (local.0.octets(), local.1),
            remote: (remote.0.octets(), remote.1),
            iss,
            app,
            sent: Vec::new(),
            sent_acked: 0,
            last_send: 0,
            trace_from: None,
            state: State::SynSent,
            started: 0,
            syn_sent_at: 0,
            syn_tries: 0,
            irs: 0,
            server_mss: None,
            path_rtt: 0,
            snd_nxt: iss.wrapping_add(1),
            request_at: None,
            send_tries: 0,
            rcv_nxt: 0,
            fin_at: None,
            ooo: BTreeMap::new(),
            delayed: VecDeque::new(),
            now_out: VecDeque::new(),
            trace: Trace::default(),
            last_arrival: 0,
            dropped: false,
            blackout: None,
            end: None,
            error: None,
            interrupted: false,
        }
    }

    fn out(&self, seq: u32, ack: u32, flags: u8, syn: bool, payload: &[u8]) -> Vec<u8> {
        tcp::build(&Out {
            src: self.local.0,
            dst: self.remote.0,
            sport: self.local.1,
            dport: self.remote.1,
            seq,
            ack,
            flags,
            window: u16::MAX,
            syn_options: syn.then_some((self.cfg.mss, WSCALE)),
            payload,
        })
    }

    /// Sends the first SYN.
    pub fn start(&mut self, now: u64) {
        self.started = now;
        self.send_syn(now);
    }

    fn send_syn(&mut self, now: u64) {
        self.syn_sent_at = now;
        self.syn_tries += 1;
        let p = self.out(self.iss, 0, SYN, true, &[]);
        self.now_out.push_back(p);
    }

    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    fn ack_number(&self) -> u32 {
        let fin = u32::from(self.fin_at.is_some_and(|f| f == self.rcv_nxt));
        self.irs
            .wrapping_add(1)
            .wrapping_add(self.rcv_nxt as u32)
            .wrapping_add(fin)
    }

    fn finish(&mut self, end: End) {
        if self.state == State::Done {
            return;
        }
        // A reset tells the server to stop sending (RFC 9293 §3.10.7.1); ACKs still
        // waiting are moot.
        if self.state == State::Established && !matches!(end, End::Reset { .. }) {
            let p = self.out(self.snd_nxt, self.ack_number(), RST | ACK, false, &[]);
            self.now_out.push_back(p);
        }
        self.delayed.clear();
        self.state = State::Done;
        self.end = Some(end);
    }

    fn fail(&mut self, e: ProbeError) {
        self.delayed.clear();
        self.state = State::Done;
        self.error = Some(e);
    }

    /// Asks the probe to stop (a signal): what was traced so far is kept.
    pub fn interrupt(&mut self) {
        self.interrupted = true;
        if self.state == State::Established {
            self.finish(End::Interrupted);
        } else if self.state == State::SynSent {
            self.fail(ProbeError::Interrupted);
        }
    }

    /// The next packet due by `now`.
    pub fn poll_transmit(&mut self, now: u64) -> Option<Vec<u8>> {
        if let Some(p) = self.now_out.pop_front() {
            return Some(p);
        }
        match self.delayed.front() {
            Some((due, _)) if *due <= now => self.delayed.pop_front().map(|(_, p)| p),
            _ => None,
        }
    }

    /// When the receiver next needs `handle_timeout` or `poll_transmit`.
    pub fn next_wakeup(&self) -> Option<u64> {
        if !self.now_out.is_empty() {
            return Some(0);
        }
        let timer = match self.state {
            State::SynSent => {
                Some((self.syn_sent_at + SYN_RTO).min(self.started + self.cfg.connect_timeout_ns))
            }
            State::Established => {
                Some(self.last_arrival.max(self.last_send) + self.cfg.idle_timeout_ns)
            }
            State::Done => None,
        };
        let ack = self.delayed.front().map(|(d, _)| *d);
        match (timer, ack) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn round_ns(&self) -> u64 {
        self.cfg.rtt_ns + self.path_rtt
    }

    /// Timers: SYN retransmission and the connect timeout, the request's retransmission,
    /// the idle timeout.
    pub fn handle_timeout(&mut self, now: u64) {
        match self.state {
            State::SynSent => {
                if now >= self.started + self.cfg.connect_timeout_ns {
                    self.fail(ProbeError::NoAnswer {
                        addr: self.remote.0.into(),
                        port: self.remote.1,
                        secs: self.cfg.connect_timeout_ns / S,
                        tries: self.syn_tries,
                    });
                } else if now >= self.syn_sent_at + SYN_RTO {
                    self.send_syn(now);
                }
            }
            State::Established => {
                let since = self.last_arrival.max(self.last_send);
                if now >= since + self.cfg.idle_timeout_ns {
                    self.finish(End::Silent {
                        bytes: self.rcv_nxt,
                        secs: self.cfg.idle_timeout_ns / S,
                    });
                    return;
                }
                // Our data (the request, TLS handshake messages) not acknowledged three
                // rounds after it left: send it again (a lost request would otherwise
                // end as a silent server).
                if self.sent_acked < self.sent.len() as u64
                    && self.send_tries < 4
                    && now >= self.last_send + 3 * self.round_ns()
                {
                    self.send_tries += 1;
                    self.last_send = now;
                    self.transmit(now, self.sent_acked as usize);
                }
            }
            State::Done => {}
        }
    }

    /// Queues what the session wants sent, one emulated RTT from now (with the ACK of
    /// what it answers: the server's RTT samples all include the emulated RTT).
    fn send(&mut self, now: u64, s: session::Send) {
        if s.bytes.is_empty() {
            return;
        }
        let due = now + self.cfg.rtt_ns;
        let from = self.sent.len();
        self.sent.extend_from_slice(&s.bytes);
        self.transmit(due, from);
        self.snd_nxt = self
            .iss
            .wrapping_add(1)
            .wrapping_add(self.sent.len() as u32);
        self.last_send = due;
        self.send_tries = 1;
        if s.request && self.request_at.is_none() {
            self.request_at = Some(due);
            self.trace_from = Some(self.rcv_nxt);
        }
    }

    /// Queues our bytes from offset `from` on, in segments of the server's MSS, due at
    /// `due`.
    fn transmit(&mut self, due: u64, from: usize) {
        let mss = usize::from(self.server_mss.unwrap_or(536)).max(64);
        let ack = self.ack_number();
        let mut seq = self.iss.wrapping_add(1).wrapping_add(from as u32);
        let chunks: Vec<Vec<u8>> = self.sent[from..].chunks(mss).map(|c| c.to_vec()).collect();
        for c in chunks {
            let p = self.out(seq, ack, ACK | PSH, false, &c);
            seq = seq.wrapping_add(c.len() as u32);
            self.delayed.push_back((due, p));
        }
    }

    /// A packet read from the device at `now`; anything not of this connection is
    /// ignored.
    pub fn on_packet(&mut self, now: u64, buf: &[u8]) {
        let Some(s) = tcp::parse(buf) else { return };
        if s.src != self.remote.0
            || s.sport != self.remote.1
            || s.dst != self.local.0
            || s.dport != self.local.1
        {
            return;
        }
        match self.state {
            State::SynSent => self.on_handshake(now, &s),
            State::Established => self.on_segment(now, &s),
            State::Done => {}
        }
    }

    fn on_handshake(&mut self, now: u64, s: &Segment) {
        if s.has(RST) && s.has(ACK) && s.ack == self.iss.wrapping_add(1) {
            self.fail(ProbeError::Refused {
                addr: self.remote.0.into(),
                port: self.remote.1,
            });
            return;
        }
        if !(s.has(SYN) && s.has(ACK)) || s.ack != self.iss.wrapping_add(1) {
            return;
        }
        self.irs = s.seq;
        self.server_mss = s.mss;
        self.path_rtt = now - self.syn_sent_at;
        self.state = State::Established;
        self.last_arrival = now;
        // The handshake's ACK waits one emulated RTT too: the server's first RTT sample
        // (and so its RTO) then already includes it.
        match self.app.start() {
            Ok(s) if !s.bytes.is_empty() => self.send(now, s),
            Ok(_) => {
                let p = self.out(self.snd_nxt, self.ack_number(), ACK, false, &[]);
                self.delayed.push_back((now + self.cfg.rtt_ns, p));
            }
            Err(error) => self.finish(End::Tls {
                bytes: 0,
                error: error.to_string(),
            }),
        }
    }

    /// Counts a data segment into the round it belongs to. A round starts with the first
    /// packet one round length after the previous round's start, or with the first packet
    /// after a silence of 1/10 of a round once half a round has passed (ACK-clocked
    /// bursts: this tolerates a round length measured up to 50 % too long, e.g. when the
    /// handshake's sample was delayed by a busy machine).
    fn count(&mut self, now: u64, bytes: u64, force_new: bool) {
        let p = self.round_ns();
        let g = p / 10;
        let new = match self.trace.rounds.last() {
            None => true,
            Some(r) => {
                let rel = now - self.started;
                force_new
                    || rel >= r.start_ns + p
                    || (rel >= r.start_ns + p / 2 && now - self.last_arrival >= g)
            }
        };
        if new {
            let round = self.trace.rounds.len() as u32 + 1;
            let idx = self.trace.rounds.len();
            let phase = if self.trace.resume.is_some() {
                Phase::AfterRto
            } else if self.blackout.is_some() || round == self.cfg.rto_round {
                if self.blackout.is_none() {
                    self.blackout = Some(false);
                    self.trace.rto = Some(idx);
                }
                Phase::RtoWait
            } else if round == self.cfg.loss_round {
                self.trace.loss = Some(idx);
                Phase::Loss
            } else {
                Phase::Normal
            };
            self.trace.rounds.push(Round {
                round,
                start_ns: now - self.started,
                packets: 0,
                bytes: 0,
                phase,
            });
        }
        let r = self.trace.rounds.last_mut().expect("a round exists");
        r.packets += 1;
        r.bytes += bytes;
        self.last_arrival = now;
    }

    fn on_segment(&mut self, now: u64, s: &Segment) {
        if s.has(RST) {
            self.finish(End::Reset {
                bytes: self.rcv_nxt,
            });
            return;
        }
        if s.has(SYN) {
            // The server did not see our ACK yet and repeats its SYN-ACK: nothing to do,
            // the ACK is on its way.
            return;
        }
        if s.has(ACK) {
            let acked = u64::from(s.ack.wrapping_sub(self.iss.wrapping_add(1)));
            if acked <= self.sent.len() as u64 {
                self.sent_acked = self.sent_acked.max(acked);
            }
        }
        let len = s.payload.len() as u64;
        let fin = s.has(FIN);
        if len == 0 && !fin {
            return;
        }
        // Offsets relative to the server's first data byte; anything more than 2 GiB
        // "ahead" is a wrapped old duplicate.
        let off = u64::from(s.seq.wrapping_sub(self.irs.wrapping_add(1)));
        let off = if off >= 1 << 31 { 0 } else { off };

        // The trace counts the response's segments: those before the request (a TLS
        // handshake) are a separate exchange, as the TCP handshake is.
        let counted = self
            .trace_from
            .is_some_and(|f| off + len > f || (len == 0 && off >= f));
        if !counted {
            self.receive(now, s, off, fin);
            return;
        }
        // A second sample of the path's RTT: the request left at `request_at`, its first
        // answer is here. The smaller sample sets the round length (a sample can only be
        // delayed, never early).
        if self.trace.rounds.is_empty() && self.send_tries == 1 {
            if let Some(at) = self.request_at {
                self.path_rtt = self.path_rtt.min(now.saturating_sub(at));
            }
        }
        // The forced RTO: discard everything until the server retransmits the first
        // unacknowledged segment a second time (its RTO retransmission).
        let mut resume = false;
        if let Some(seen) = self.blackout {
            if self.trace.resume.is_none() {
                if off == self.rcv_nxt && seen {
                    self.blackout = None;
                    self.trace.resume = Some(self.trace.rounds.len());
                    resume = true;
                } else {
                    self.count(now, len, false);
                    if off == self.rcv_nxt {
                        self.blackout = Some(true);
                    }
                    return;
                }
            }
        }
        self.count(now, len, resume);
        if self.blackout.is_some() && self.trace.resume.is_none() {
            // This packet opened the RTO round: discard it like the rest.
            if off == self.rcv_nxt {
                self.blackout = Some(true);
            }
            return;
        }
        // The induced loss: the first new segment of the loss round never "arrives".
        let in_loss_round = self
            .trace
            .loss
            .is_some_and(|l| l + 1 == self.trace.rounds.len());
        if in_loss_round && !self.dropped && len > 0 && off >= self.rcv_nxt {
            self.dropped = true;
            return;
        }
        if let Some(r) = self.trace.resume {
            if self.trace.rounds.len() > r + self.cfg.rounds_after_rto as usize {
                // This packet opened one round too many: it is not part of the trace.
                self.trace.rounds.pop();
                self.finish(End::Enough);
                return;
            }
        }

        self.receive(now, s, off, fin);
    }

    /// Reassembles a segment at stream offset `off` into the session, ACKs it one
    /// emulated RTT later (with whatever the session answers), and ends the probe when
    /// the page is complete, the server closed, or the byte budget is spent.
    fn receive(&mut self, now: u64, s: &Segment, off: u64, fin: bool) {
        let len = s.payload.len() as u64;
        let end = off + len;
        let mut out = session::Send::default();
        let mut failed = None;
        if off <= self.rcv_nxt && end > self.rcv_nxt {
            let skip = (self.rcv_nxt - off) as usize;
            self.deliver(&s.payload[skip..], &mut out, &mut failed);
            while let Some(e) = self.ooo.first_entry() {
                if *e.key() > self.rcv_nxt {
                    break;
                }
                let (o, data) = e.remove_entry();
                if o + data.len() as u64 > self.rcv_nxt {
                    let skip = (self.rcv_nxt - o) as usize;
                    self.deliver(&data[skip..], &mut out, &mut failed);
                }
            }
        } else if off > self.rcv_nxt && len > 0 {
            let kept = self.ooo.entry(off).or_default();
            if s.payload.len() > kept.len() {
                *kept = s.payload.to_vec();
            }
        }
        if fin {
            self.fin_at = Some(end);
        }
        let ack = self.ack_number();
        let p = self.out(self.snd_nxt, ack, ACK, false, &[]);
        self.delayed.push_back((now + self.cfg.rtt_ns, p));
        self.send(now, out);

        if let Some(error) = failed {
            self.finish(End::Tls {
                bytes: self.rcv_nxt,
                error,
            });
        } else if self.fin_at.is_some_and(|f| f == self.rcv_nxt) {
            let bytes = self.rcv_nxt;
            let complete = self.app.page_complete();
            self.finish(if complete {
                End::PageComplete { bytes }
            } else {
                End::ServerClosed { bytes }
            });
        } else if self.app.page_complete() {
            self.finish(End::PageComplete {
                bytes: self.rcv_nxt,
            });
        } else if self.rcv_nxt >= self.cfg.max_bytes {
            self.finish(End::ByteBudget {
                bytes: self.rcv_nxt,
            });
        }
    }

    /// In-order bytes to the session; what it answers is added to `out`, its first
    /// error kept in `failed` (bytes after an error are counted, not read).
    fn deliver(&mut self, bytes: &[u8], out: &mut session::Send, failed: &mut Option<String>) {
        self.rcv_nxt += bytes.len() as u64;
        if failed.is_some() {
            return;
        }
        match self.app.on_bytes(bytes) {
            Ok(s) => {
                out.bytes.extend(s.bytes);
                out.request |= s.request;
            }
            Err(e) => *failed = Some(e.to_string()),
        }
    }

    /// The trace and what ended it, or why there is none.
    pub fn finish_probe(mut self, now: u64) -> Result<ProbeOutcome, ProbeError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.state == State::SynSent {
            // Stopped before an answer (the caller's own deadline).
            return Err(ProbeError::NoAnswer {
                addr: self.remote.0.into(),
                port: self.remote.1,
                secs: (now - self.started) / S,
                tries: self.syn_tries,
            });
        }
        let end = self.end.take().unwrap_or(End::Interrupted);
        Ok(ProbeOutcome {
            path_rtt_ns: self.path_rtt,
            round_ns: self.round_ns(),
            server_mss: self.server_mss,
            bytes: self.rcv_nxt,
            http: self.app.http().clone(),
            trace: self.trace,
            end,
        })
    }
}

/// The status code and Content-Length of a response head (RFC 9112 §4, §6.3).
pub fn parse_head(head: &[u8]) -> HttpInfo {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let status = lines.next().and_then(|l| {
        let mut it = l.split(' ');
        let v = it.next()?;
        if !v.starts_with("HTTP/1.") {
            return None;
        }
        it.next()?.parse::<u16>().ok()
    });
    let content_length = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<u64>().ok());
    HttpInfo {
        status,
        content_length,
        header_bytes: Some(head.len() as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 2, 200, 2);
    const SERVER: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 2);
    const IRS: u32 = 5_000;
    const RTT: u64 = 300 * MS;
    const PATH: u64 = 50 * MS;

    fn cfg() -> ProbeConfig {
        ProbeConfig {
            loss_round: 3,
            rto_round: 7,
            rounds_after_rto: 3,
            ..ProbeConfig::default()
        }
    }

    fn rx() -> Receiver {
        let mut r = Receiver::new(
            cfg(),
            (CLIENT, 40000),
            (SERVER, 80),
            Box::new(session::PlainHttp::new(b"GET / HTTP/1.1\r\n\r\n".to_vec())),
            1000,
        );
        r.start(0);
        r
    }

    /// A segment from the server; `off` counts from its first data byte.
    fn seg(flags: u8, off: u32, payload: &[u8], syn_mss: bool) -> Vec<u8> {
        let seq = if flags & SYN != 0 { IRS } else { IRS + 1 + off };
        tcp::build(&Out {
            src: SERVER.octets(),
            dst: CLIENT.octets(),
            sport: 80,
            dport: 40000,
            seq,
            ack: if flags & SYN != 0 { 1001 } else { 1001 + 18 },
            flags,
            window: 65535,
            syn_options: syn_mss.then_some((1460, 7)),
            payload,
        })
    }

    fn drain(r: &mut Receiver, now: u64) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| r.poll_transmit(now)).collect()
    }

    fn connected() -> Receiver {
        let mut r = rx();
        let syn = drain(&mut r, 0);
        assert_eq!(syn.len(), 1);
        r.on_packet(PATH, &seg(SYN | ACK, 0, &[], true));
        r
    }

    #[test]
    fn the_syn_announces_the_small_mss_and_a_large_window() {
        let mut r = rx();
        let p = drain(&mut r, 0).remove(0);
        let s = tcp::parse(&p).unwrap();
        assert!(s.has(SYN) && !s.has(ACK));
        assert_eq!((s.mss, s.wscale, s.seq), (Some(200), Some(WSCALE), 1000));
        assert!(tcp::tcp_checksum_ok(&p));
    }

    #[test]
    fn the_handshake_ack_and_request_wait_one_emulated_rtt() {
        let mut r = connected();
        assert!(
            drain(&mut r, PATH + RTT - 1).is_empty(),
            "nothing before the emulated RTT"
        );
        let out = drain(&mut r, PATH + RTT);
        assert_eq!(out.len(), 1);
        let s = tcp::parse(&out[0]).unwrap();
        assert_eq!((s.seq, s.ack), (1001, IRS + 1));
        assert_eq!(s.payload, b"GET / HTTP/1.1\r\n\r\n");
    }

    #[test]
    fn no_syn_ack_times_out_with_a_clear_message() {
        let mut r = rx();
        let mut now = 0;
        let mut syns = 0;
        while !r.is_done() {
            syns += drain(&mut r, now).len();
            now = r.next_wakeup().unwrap().max(now);
            r.handle_timeout(now);
        }
        assert_eq!(now, 10 * S);
        assert_eq!(syns, 10, "one SYN a second");
        let e = r.finish_probe(now).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no answer from 10.1.0.2:80 within 10 s (no SYN-ACK to 10 SYNs)"
        );
    }

    #[test]
    fn a_refused_connection_says_so() {
        let mut r = rx();
        drain(&mut r, 0);
        let mut p = seg(RST | ACK, 0, &[], false);
        // ACK our SYN: ack = iss + 1.
        p[28..32].copy_from_slice(&1001u32.to_be_bytes());
        let s = tcp::parse(&p).unwrap();
        let fixed = tcp::build(&Out {
            src: s.src,
            dst: s.dst,
            sport: 80,
            dport: 40000,
            seq: 0,
            ack: 1001,
            flags: RST | ACK,
            window: 0,
            syn_options: None,
            payload: &[],
        });
        r.on_packet(1, &fixed);
        assert!(r.is_done());
        assert!(matches!(r.finish_probe(1), Err(ProbeError::Refused { .. })));
    }

    /// Sends `n` 100-byte segments starting at `off` at `t`, 1 ms apart; returns the new
    /// offset.
    fn burst(r: &mut Receiver, t: u64, off: u32, n: u32) -> u32 {
        for i in 0..n {
            r.on_packet(
                t + u64::from(i) * MS,
                &seg(ACK, off + i * 100, &[b'x'; 100], false),
            );
        }
        off + n * 100
    }

    fn acks(r: &mut Receiver, now: u64) -> Vec<u32> {
        drain(r, now)
            .iter()
            .map(|p| tcp::parse(p).unwrap().ack - IRS - 1)
            .collect()
    }

    #[test]
    fn rounds_are_counted_acks_delayed_and_one_segment_dropped_in_the_loss_round() {
        let mut r = connected();
        let round = RTT + PATH;
        drain(&mut r, PATH + RTT);
        // Round 1: 10 segments; each ACKed one emulated RTT after it arrived.
        let t1 = 2 * round;
        let off = burst(&mut r, t1, 0, 10);
        assert!(acks(&mut r, t1 + RTT - 1).is_empty());
        assert_eq!(acks(&mut r, t1 + RTT), vec![100]);
        assert_eq!(
            acks(&mut r, t1 + RTT + 9 * MS),
            (2..=10).map(|i| i * 100).collect::<Vec<_>>()
        );
        // Round 2: 20; round 3 (the loss round): 40, the first dropped → 39 dup ACKs.
        let off = burst(&mut r, t1 + round, off, 20);
        let t3 = t1 + 2 * round;
        let end3 = burst(&mut r, t3, off, 40);
        let a = acks(&mut r, t3 + RTT + 40 * MS);
        assert_eq!(a.len(), 20 + 39);
        assert!(a[20..].iter().all(|&x| x == off), "dup ACKs at the hole");
        // Round 4: the retransmission fills the hole: the ACK jumps past round 3.
        let t4 = t1 + 3 * round;
        r.on_packet(t4, &seg(ACK, off, &[b'x'; 100], false));
        assert_eq!(acks(&mut r, t4 + RTT), vec![end3]);
        let w: Vec<u32> = r.trace.rounds.iter().map(|x| x.packets).collect();
        assert_eq!(w, vec![10, 20, 40, 1]);
        assert_eq!(r.trace.loss, Some(2));
        assert_eq!(r.trace.rounds[2].phase, Phase::Loss);
    }

    #[test]
    fn the_rto_round_is_discarded_until_the_retransmission_of_its_first_segment() {
        let mut r = connected();
        let round = RTT + PATH;
        drain(&mut r, PATH + RTT);
        let mut off = 0;
        let mut t = 2 * round;
        for k in 1..=6 {
            if k == 3 {
                // Loss round: deliver everything (the drop takes the first; resend it).
                off = burst(&mut r, t, off, 10);
                r.on_packet(t + 20 * MS, &seg(ACK, off - 1000, &[b'x'; 100], false));
            } else {
                off = burst(&mut r, t, off, 10);
            }
            t += round;
        }
        drain(&mut r, t);
        // Round 7: the RTO round. Nothing is ACKed.
        let end7 = burst(&mut r, t, off, 10);
        assert!(acks(&mut r, t + 2 * round).is_empty());
        assert_eq!(r.trace.rto, Some(6));
        // The RTO retransmission of the first unacknowledged segment resumes ACKs.
        let t8 = t + 2 * round;
        r.on_packet(t8, &seg(ACK, off, &[b'x'; 100], false));
        assert_eq!(acks(&mut r, t8 + RTT), vec![off + 100]);
        assert_eq!(r.trace.resume, Some(7));
        assert_eq!(r.trace.rounds[7].phase, Phase::AfterRto);
        assert!(end7 > off);
        // Three more rounds after the RTO, then it stops with a reset.
        let mut o = off + 100;
        let mut t = t8 + round;
        while !r.is_done() {
            o = burst(&mut r, t, o, 2);
            t += round;
        }
        assert_eq!(r.end, Some(End::Enough));
        let last = drain(&mut r, t);
        assert!(tcp::parse(last.last().unwrap()).unwrap().has(RST));
    }

    #[test]
    fn a_delayed_syn_ack_does_not_stretch_the_rounds() {
        let mut r = rx();
        drain(&mut r, 0);
        // The SYN-ACK's sample is 250 ms (a busy machine), the path's RTT 50 ms.
        r.on_packet(250 * MS, &seg(SYN | ACK, 0, &[], true));
        let left = 250 * MS + RTT;
        drain(&mut r, left);
        let t1 = left + PATH;
        let off = burst(&mut r, t1, 0, 10);
        burst(&mut r, t1 + RTT + PATH, off, 20);
        let w: Vec<u32> = r.trace.rounds.iter().map(|x| x.packets).collect();
        assert_eq!(w, vec![10, 20]);
        assert_eq!(r.round_ns(), RTT + PATH);
    }

    #[test]
    fn a_server_that_closes_early_ends_the_probe_with_a_short_trace() {
        let mut r = connected();
        drain(&mut r, PATH + RTT);
        let head = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n";
        let t = 2 * (RTT + PATH);
        r.on_packet(t, &seg(ACK, 0, head, false));
        let n = head.len() as u32;
        r.on_packet(t + MS, &seg(ACK | FIN, n, &[b'x'; 50], false));
        assert!(r.is_done());
        let o = r.finish_probe(t + MS).unwrap();
        assert_eq!(
            o.end,
            End::ServerClosed {
                bytes: u64::from(n) + 50
            }
        );
        assert_eq!(o.http.status, Some(200));
        assert_eq!(o.http.content_length, Some(100000));
        let v = super::super::classify::classify(&o.trace);
        assert_eq!(v.class, super::super::classify::Class::Unknown);
        assert!(v.reason.contains("before the induced loss"), "{}", v.reason);
    }

    #[test]
    fn a_complete_small_page_ends_the_probe() {
        let mut r = connected();
        drain(&mut r, PATH + RTT);
        let page = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        r.on_packet(2 * S, &seg(ACK, 0, page, false));
        assert!(r.is_done());
        let o = r.finish_probe(2 * S).unwrap();
        assert_eq!(
            o.end,
            End::PageComplete {
                bytes: page.len() as u64
            }
        );
    }

    #[test]
    fn a_silent_server_ends_the_probe_after_the_idle_timeout() {
        let mut r = connected();
        drain(&mut r, PATH + RTT);
        let t = r.next_wakeup().unwrap();
        r.handle_timeout(t);
        // The request is resent after three rounds without data, then the idle timeout.
        let mut now = t;
        while !r.is_done() {
            drain(&mut r, now);
            now = r.next_wakeup().unwrap().max(now + 1);
            r.handle_timeout(now);
        }
        let o = r.finish_probe(now).unwrap();
        assert!(
            matches!(o.end, End::Silent { bytes: 0, secs: 10 }),
            "{:?}",
            o.end
        );
    }

    #[test]
    fn config_errors_name_the_field() {
        let bad = |f: fn(&mut ProbeConfig)| {
            let mut c = ProbeConfig::default();
            f(&mut c);
            c.validate().unwrap_err().to_string()
        };
        assert!(ProbeConfig::default().validate().is_ok());
        assert!(bad(|c| c.mss = 20).starts_with("mss = 20"));
        assert!(bad(|c| c.rtt_ns = 2 * S).starts_with("rtt = 2000 ms"));
        assert!(bad(|c| c.rto_round = 7).starts_with("rto-round = 7"));
    }

    #[test]
    fn response_heads_parse() {
        let h = parse_head(b"HTTP/1.1 404 Not Found\r\ncontent-length:  12\r\n\r\n");
        assert_eq!((h.status, h.content_length), (Some(404), Some(12)));
        assert_eq!(parse_head(b"garbage\r\n\r\n").status, None);
    }
}
