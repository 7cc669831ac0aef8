//! The shim's record and command layouts and constants (bpf/scv_shim.h), shared by the
//! translation layer and the agent loop.

/// `struct scv_shim_ev` (bpf/scv_shim.h).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ShimEvent {
    pub id: u64,
    pub ts_ns: u64,
    pub delivered: u64,
    pub srtt_us: u64,
    pub rtt_us: i64,
    pub interval_us: i64,
    pub kind: u32,
    pub mss: u32,
    pub acked_sacked: u32,
    pub rs_delivered: i32,
    pub prior_in_flight: u32,
    pub in_flight: u32,
    pub snd_cwnd: u32,
    pub snd_ssthresh: u32,
    pub tsval: u32,
    pub tsecr: u32,
    pub losses: i32,
    pub flag: u32,
    pub ca_state: u8,
    pub app_limited: u8,
    pub cwnd_limited: u8,
    pub usec_ts: u8,
    pub sport: u16,
    pub dport: u16,
    /// `tp->bytes_acked`: snd_una as a byte offset in the stream.
    pub bytes_acked: u64,
    /// `tp->snd_nxt - tp->snd_una`, bytes.
    pub nxt_minus_una: u32,
    /// `tp->tsoffset`: our TSval is the TCP clock (ms, or µs with usec_ts) plus this.
    pub tsoffset: u32,
    /// The socket's cookie if one was generated (SO_COOKIE), else 0.
    pub cookie: u64,
}

// bpf/scv_shim.h asserts the same size on the C side.
const _: () = assert!(std::mem::size_of::<ShimEvent>() == 128);

impl ShimEvent {
    /// snd_una and snd_nxt as byte offsets in the stream.
    pub(crate) fn una_nxt(&self) -> (u64, u64) {
        (
            self.bytes_acked,
            self.bytes_acked + self.nxt_minus_una as u64,
        )
    }
}

/// `struct scv_shim_cmd` (bpf/scv_shim.h).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShimCmd {
    pub id: u64,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub pacing_rate: u64,
    pub written_ns: u64,
    pub seq: u64,
}

pub(crate) const EV_OPEN: u32 = 0;
pub(crate) const EV_ACK: u32 = 1;
pub(crate) const EV_CONGESTION: u32 = 2;
pub(crate) const EV_STATE: u32 = 3;
pub(crate) const EV_CLOSE: u32 = 4;
pub(crate) const EV_TX_START: u32 = 5;
pub(crate) const HB_AGENT_NS: u32 = 0;
pub(crate) const HB_STALE_NS: u32 = 2;
pub(crate) const HB_WAKE_NS: u32 = 4;
/// `SCV_SHIM_SLOTS` and `SCV_HB_N` (bpf/scv_shim.h).
pub(crate) const SLOTS: usize = 16384;
pub(crate) const HB_N: usize = 8;
pub(crate) const CMD_SIZE: usize = std::mem::size_of::<ShimCmd>();
/// Linux FLAG_ECE (net/ipv4/tcp_input.c): the ACK carried an ECN echo.
pub(crate) const FLAG_ECE: u32 = 0x40;
/// Linux FLAG_DATA_ACKED (net/ipv4/tcp_input.c): the ACK advanced SND.UNA over new data.
pub(crate) const FLAG_DATA_ACKED: u32 = 0x04;
pub(crate) const CA_OPEN: u8 = 0;
pub(crate) const CA_CWR: u8 = 2;
pub(crate) const CA_RECOVERY: u8 = 3;
pub(crate) const CA_LOSS: u8 = 4;
pub(crate) const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
