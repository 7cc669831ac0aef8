//! The host build of bpf/scv_core.h (compiled by build.rs), for the parity tests that
//! compare the BPF algorithm cores with the crates/cc implementations. The structs mirror
//! the C layouts; tests/parity.rs checks the sizes against the C side.

#![allow(missing_docs)]

use crate::params::SLOTS;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Win {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub cwnd_cnt: u32,
    pub _pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Ack {
    pub now_ns: u64,
    pub owd_ns: i64,
    pub rtt_ns: i64,
    pub acked: u32,
    pub packets_out: u32,
    pub prior_in_flight: u32,
    pub has_owd: u8,
    pub has_rtt: u8,
    pub cwnd_limited: u8,
    pub in_recovery: u8,
}

/// `struct scv_ebb_ack`: the part of `AckSample` Ebb reads, in bytes, ns and bit/s.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct EbbAck {
    pub now_ns: u64,
    pub rtt_ns: u64,
    pub rate_bps: u64,
    pub bytes_acked: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub has_rtt: u8,
    pub has_rate: u8,
    pub rate_app_limited: u8,
    pub cwnd_limited: u8,
    pub in_recovery: u8,
    pub _pad: [u8; 3],
}

/// Opaque, generously sized state buffers (the C sizes are checked at run time).
#[repr(C, align(8))]
pub struct State(pub [u8; 4096]);

impl State {
    pub fn new() -> Box<State> {
        Box::new(State([0; 4096]))
    }
}

pub type Params = [i64; SLOTS];

extern "C" {
    pub fn scv_host_sizeof_ledbat_state() -> libc::c_ulong;
    pub fn scv_host_sizeof_yield_state() -> libc::c_ulong;
    pub fn scv_host_sizeof_lpp_state() -> libc::c_ulong;
    pub fn scv_host_ledbat_defaults(p: *mut Params);
    pub fn scv_host_ledbat_init(s: *mut State, p: *const Params);
    pub fn scv_host_ledbat_cong_avoid(s: *mut State, p: *const Params, w: *mut Win, a: *const Ack);
    pub fn scv_host_ledbat_cwnd_cnt(s: *const State) -> i64;
    pub fn scv_host_ledbat_queuing_delay(s: *const State) -> i64;
    pub fn scv_host_yield_defaults(p: *mut Params);
    pub fn scv_host_yield_init(s: *mut State);
    pub fn scv_host_yield_pkts_acked(
        s: *mut State,
        p: *const Params,
        has_owd: libc::c_int,
        owd: i64,
    );
    pub fn scv_host_yield_cong_avoid(
        s: *mut State,
        p: *const Params,
        w: *mut Win,
        acked: u32,
        cwnd_limited: libc::c_int,
    );
    pub fn scv_host_reno_ssthresh(cwnd: u32) -> u32;
    pub fn scv_host_lpp_defaults(p: *mut Params);
    pub fn scv_host_lpp_init(s: *mut State, p: *const Params, cwnd: u32);
    pub fn scv_host_lpp_on_ack(s: *mut State, p: *const Params, w: *mut Win, a: *const Ack);
    pub fn scv_host_lpp_ssthresh(s: *const State, p: *const Params) -> u32;
    pub fn scv_host_lpp_on_congestion(s: *mut State, p: *const Params, now: u64);
    pub fn scv_host_lpp_on_rto(s: *mut State, p: *const Params);
    pub fn scv_host_lpp_cwnd_fp(s: *const State) -> i64;
    pub fn scv_host_sizeof_ebb_state() -> libc::c_ulong;
    pub fn scv_host_sizeof_ebb_ack() -> libc::c_ulong;
    pub fn scv_host_ebb_defaults(p: *mut Params);
    pub fn scv_host_ebb_init(s: *mut State, mss: u64, cwnd: u64);
    pub fn scv_host_ebb_on_ack(s: *mut State, p: *const Params, a: *const EbbAck);
    pub fn scv_host_ebb_on_congestion(s: *mut State, p: *const Params);
    pub fn scv_host_ebb_on_rto(s: *mut State, p: *const Params, mss: u64);
    pub fn scv_host_ebb_cwnd(s: *const State) -> u64;
    pub fn scv_host_ebb_ssthresh(s: *const State) -> u64;
    pub fn scv_host_ebb_pacing_bps(s: *const State, p: *const Params) -> u64;
    pub fn scv_host_ebb_capacity(s: *const State) -> u64;
    pub fn scv_host_ebb_phase(s: *const State) -> u32;
}
