//! Receive-window autotuning of the Linux 6.x receiver (docs/receiver.md): the advertised
//! window, `rcv_ssthresh`, `window_clamp` and `sk_rcvbuf`, for a pure receiver whose
//! application reads every segment at once. Functions cited are from the Linux 6.x tree
//! (net/ipv4/tcp_input.c, tcp_output.c, tcp_minisocks.c, include/net/tcp.h).
//!
//! What matters for the simulator's results is `tcp_grow_window`: while the window may
//! still grow (`rcv_ssthresh` below `min(window_clamp, tcp_space)`), every data segment of
//! 128 bytes or more raises `rcv_ssthresh` by two segments and sets `icsk_ack.quick |= 1`,
//! i.e. the receiver acknowledges it at once. A flow that runs at a small window after a
//! fast start (an LBE flow yielding) keeps growing `rcv_ssthresh` by only two segments per
//! segment towards a clamp that dynamic right-sizing (`tcp_rcv_space_adjust`) set from its
//! fastest round, so its lone segments are acknowledged at once for many seconds instead
//! of waiting for the delayed-ACK timer.
//!
//! Memory is counted in "space" units (skb truesize), windows in bytes:
//! `tcp_win_from_space(s) = s·scaling_ratio >> 8` and its inverse `tcp_space_from_win`.

use scavenger_cc::{Dur, Time};

/// sysctl `tcp_rmem` = 4096 131072 33554432 (Linux 6.x; tcp_rmem[2] is 32 MiB since "tcp:
/// increase tcp_rmem[2] to 32 MB", 6.16).
const RMEM_DEFAULT: u64 = 131_072;
const RMEM_MAX: u64 = 32 << 20;
/// TCP_RMEM_TO_WIN_SCALE and TCP_DEFAULT_SCALING_RATIO (50 %, until data has been seen).
const WIN_SCALE: u32 = 8;
const DEFAULT_SCALING_RATIO: u64 = 1 << (WIN_SCALE - 1);
/// TCP_INIT_CWND: the first DRS measure (`rcvq_space.space`) is ten segments.
const INIT_CWND: u64 = 10;
/// The truesize we assume for a full-sized segment's skb: a 2 KiB data buffer plus
/// `struct sk_buff` and shared info, 2304 bytes (SKB_TRUESIZE(2048) on x86-64). It only
/// sets `scaling_ratio` (1448·256/2304 = 160, about 63 %); docs/receiver.md.
const SKB_TRUESIZE: u64 = 2304;
/// Bytes of TCP options on every segment (timestamps): advmss = rcv_mss + 12.
const TS_OPTION_BYTES: u64 = 12;

/// What one data segment did to the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grow {
    /// `tcp_grow_window` raised `rcv_ssthresh`: set `icsk_ack.quick |= 1`.
    pub quick: bool,
}

#[derive(Clone, Debug)]
pub struct RcvBuf {
    /// `icsk_ack.rcv_mss` (payload bytes of a full segment) and `tp->advmss`.
    rcv_mss: u64,
    advmss: u64,
    /// `tp->scaling_ratio`.
    ratio: u64,
    /// `sk->sk_rcvbuf`, `tp->window_clamp`, `tp->rcv_ssthresh`, bytes.
    rcvbuf: u64,
    window_clamp: u64,
    rcv_ssthresh: u64,
    /// `tp->rx_opt.rcv_wscale`.
    wscale: u32,
    /// `rcvq_space.{space, seq, time}`: bytes read in the last measured RTT, where the
    /// measure started (bytes) and when.
    space: u64,
    space_seq: u64,
    space_time: Time,
    /// `rcv_rtt_est.rtt_us` (×8, µs) and `rcv_rtt_last_tsecr`.
    rtt_us8: u64,
    last_tsecr: Option<i64>,
    /// The first data segment has set `scaling_ratio` (`tcp_measure_rcv_mss`).
    measured: bool,
    started: bool,
}

impl RcvBuf {
    /// The passive opener's state after the handshake at `now`, for segments of `mss`
    /// payload bytes: `tcp_select_initial_window` (on the SYN, with the default ratio),
    /// `tcp_init_buffer_space` (when the handshake completes).
    pub fn new(mss: u32, now: Time) -> RcvBuf {
        let rcv_mss = mss.max(1) as u64;
        let advmss = rcv_mss + TS_OPTION_BYTES;
        let mut r = RcvBuf {
            rcv_mss,
            advmss,
            ratio: DEFAULT_SCALING_RATIO,
            rcvbuf: RMEM_DEFAULT,
            window_clamp: 0,
            rcv_ssthresh: 0,
            wscale: 0,
            space: 0,
            space_seq: 0,
            space_time: now,
            rtt_us8: 0,
            last_tsecr: None,
            measured: false,
            started: false,
        };
        // tcp_select_initial_window: space = tcp_full_space, rounded down to the MSS;
        // rcv_wnd = space (tcp_workaround_signed_windows = 0); the window scale is set for
        // max(space, tcp_rmem[2], rmem_max = 212992).
        let full = r.win_from_space(r.rcvbuf);
        let rcv_wnd = full / rcv_mss * rcv_mss;
        r.wscale = (63 - RMEM_MAX.max(full).leading_zeros())
            .saturating_sub(15)
            .min(14);
        // tcp_create_openreq_child: rcv_ssthresh = rcv_wnd. tcp_init_buffer_space:
        // window_clamp = tcp_full_space, then "Force reservation of one segment"
        // (tcp_app_win = 31): max(2·advmss, maxwin - advmss); rcv_ssthresh is capped by it;
        // rcvq_space.space = min3(rcv_ssthresh, rcv_wnd, TCP_INIT_CWND·advmss).
        r.window_clamp = (2 * advmss).max(full - advmss);
        r.rcv_ssthresh = rcv_wnd.min(r.window_clamp);
        r.space = r.rcv_ssthresh.min(rcv_wnd).min(INIT_CWND * advmss);
        r
    }

    /// The window field of the SYN-ACK (unscaled, so at most 65535): `rcv_wnd`.
    pub fn syn_window(&self) -> u64 {
        // Chosen before any data, at the default ratio.
        let full = (RMEM_DEFAULT * DEFAULT_SCALING_RATIO) >> WIN_SCALE;
        (full / self.rcv_mss * self.rcv_mss).min(u16::MAX as u64)
    }

    /// `tcp_win_from_space`.
    fn win_from_space(&self, space: u64) -> u64 {
        (space * self.ratio) >> WIN_SCALE
    }
    /// `tcp_space_from_win`.
    fn space_from_win(&self, win: u64) -> u64 {
        (win << WIN_SCALE) / self.ratio
    }
    /// `tcp_space`: free receive memory as a window, with `queued` segments' skbs
    /// charged (`sk_rmem_alloc`).
    fn tcp_space(&self, queued: u64) -> u64 {
        self.win_from_space(self.rcvbuf.saturating_sub(queued * SKB_TRUESIZE))
    }

    pub fn rcv_ssthresh(&self) -> u64 {
        self.rcv_ssthresh
    }
    pub fn window_clamp(&self) -> u64 {
        self.window_clamp
    }
    pub fn rcvbuf(&self) -> u64 {
        self.rcvbuf
    }
    /// `rcv_rtt_est.rtt_us >> 3`.
    pub fn rcv_rtt(&self) -> Dur {
        Dur::from_micros(self.rtt_us8 >> 3)
    }

    /// The handshake completed at `now` (the client's ACK, or its first data segment if
    /// that ACK was lost, reached the passive opener): `tcp_init_buffer_space`, called from
    /// `tcp_init_transfer`, starts the first DRS measure (`rcvq_space.time =
    /// tcp_mstamp`). The handshake's ACK arrives one data segment's serialisation before
    /// the first data segment, which sets in which segment of each later round the
    /// measure's once-per-RTT check first passes (docs/receiver.md#drs-phase).
    pub fn on_established(&mut self, now: Time) {
        if !self.started {
            self.started = true;
            self.space_time = now;
        }
    }

    /// A data segment of `len` bytes arrived; `queued` skbs are held (itself and the
    /// out-of-order queue); `last_adv` is the window of the last ACK (`tp->rcv_wnd`).
    /// `tcp_measure_rcv_mss` (scaling ratio), then `tcp_grow_window` (called from
    /// `tcp_event_data_recv` in order and from `tcp_data_queue_ofo` out of order).
    /// Without a handshake (`handshake = false`) the first segment starts the first DRS
    /// measure.
    pub fn on_segment(&mut self, now: Time, len: u32, queued: u64, last_adv: u64) -> Grow {
        let len = len as u64;
        // Without a handshake the first segment stands for its end.
        self.on_established(now);
        if !self.measured && len >= self.rcv_mss {
            // tcp_measure_rcv_mss: the first full segment differs from the initial rcv_mss
            // (TCP_MSS_DEFAULT): scaling_ratio = len·256/truesize, and the clamp follows
            // (tcp_set_window_clamp: a larger clamp lifts rcv_ssthresh to min(rcv_wnd,
            // clamp)).
            self.measured = true;
            self.ratio = ((len << WIN_SCALE) / SKB_TRUESIZE).max(1);
            let clamp = self.win_from_space(self.rcvbuf);
            if clamp > self.window_clamp {
                self.rcv_ssthresh = self.rcv_ssthresh.max(last_adv.min(clamp));
            } else {
                self.rcv_ssthresh = self.rcv_ssthresh.min(clamp);
            }
            self.window_clamp = clamp;
        }
        if len < 128 {
            return Grow::default();
        }
        // tcp_grow_window: room = min(window_clamp, tcp_space) - rcv_ssthresh. "Check #2":
        // tcp_win_from_space(truesize) <= len (1440 <= 1448 with our truesize), so the
        // increment is 2·advmss, at least 2·len.
        let room = self
            .window_clamp
            .min(self.tcp_space(queued))
            .saturating_sub(self.rcv_ssthresh);
        if room == 0 || self.win_from_space(SKB_TRUESIZE) > len {
            return Grow::default();
        }
        let incr = (2 * self.advmss).max(2 * len);
        self.rcv_ssthresh += room.min(incr);
        Grow { quick: true }
    }

    /// `tcp_rcv_rtt_measure_ts`: a data segment of `len` bytes echoing the receiver's
    /// timestamp `tsecr` (ns of the receiver's clock) arrived at receiver time `now_rx`.
    /// One sample per new TSecr, from full-sized segments; the timestamp clock ticks in
    /// milliseconds (`tcp_rtt_tsopt_us`, a zero delta counts as one tick).
    pub fn rtt_measure(&mut self, now_rx: i64, tsecr: i64, len: u32) {
        if self.last_tsecr == Some(tsecr) {
            return;
        }
        self.last_tsecr = Some(tsecr);
        if (len as u64) < self.rcv_mss {
            return;
        }
        let ticks = now_rx.div_euclid(1_000_000) - tsecr.div_euclid(1_000_000);
        if ticks < 0 {
            return;
        }
        let sample = ticks.max(1) as u64 * 1000;
        // tcp_rcv_rtt_update (6.16+, "always seek for minimal rtt"): a lower sample is
        // taken at once, a higher one is smoothed with gain 1/8.
        let m = sample << 3;
        self.rtt_us8 = if self.rtt_us8 == 0 || m < self.rtt_us8 {
            m
        } else {
            self.rtt_us8 - (self.rtt_us8 >> 3) + sample
        };
    }

    /// `tcp_rcv_space_adjust` after the application read everything up to `rcv_nxt`
    /// (bytes) at `now`; `ooo_bytes` = end of the out-of-order queue - rcv_nxt.
    pub fn space_adjust(&mut self, now: Time, rcv_nxt: u64, ooo_bytes: u64) {
        if self.rtt_us8 == 0 {
            return;
        }
        let time_us = now.since(self.space_time).nanos() / 1000;
        if time_us < self.rtt_us8 >> 3 {
            return;
        }
        // Bytes copied to the user in the last RTT (the queue is empty: inq = 0).
        let copied = rcv_nxt.saturating_sub(self.space_seq);
        if copied > self.space {
            self.rcvbuf_grow(copied, ooo_bytes);
        }
        self.space_seq = rcv_nxt;
        self.space_time = now;
    }

    /// `tcp_rcvbuf_grow` (6.18): rcvwin = 2·copied, plus 2·rcvwin·(copied - old)/old for a
    /// sender still in slow start, plus the out-of-order span; sk_rcvbuf =
    /// min(tcp_space_from_win(rcvwin), tcp_rmem[2]) if larger, and the clamp follows.
    fn rcvbuf_grow(&mut self, newval: u64, ooo_bytes: u64) {
        let old = self.space.max(1);
        self.space = newval;
        let mut rcvwin = newval << 1;
        rcvwin += (rcvwin * (newval - old.min(newval)) / old) << 1;
        rcvwin += ooo_bytes;
        let rcvbuf = self.space_from_win(rcvwin).min(RMEM_MAX);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            self.window_clamp = self.win_from_space(rcvbuf);
        }
    }

    /// `__tcp_select_window` for a receiver that has read everything: rcv_ssthresh (below
    /// tcp_space), rounded up to the window scale's unit.
    pub fn select_window(&self) -> u64 {
        let free = self.tcp_space(0).min(self.rcv_ssthresh);
        let unit = 1u64 << self.wscale;
        free.div_ceil(unit) * unit
    }

    /// `tcp_cleanup_rbuf`'s window-update rule after a read, when no ACK is due otherwise:
    /// if what is left of the advertised window (`rcv_window_now`) is at most half the
    /// clamp and the window now selectable is at least twice it, send an ACK now.
    pub fn window_update_due(&self, rcv_window_now: u64) -> bool {
        2 * rcv_window_now <= self.window_clamp && self.select_window() >= 2 * rcv_window_now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;

    #[test]
    fn handshake_window_clamp_and_ssthresh_follow_tcp_init_buffer_space() {
        let r = RcvBuf::new(MSS, Time::ZERO);
        // tcp_full_space = 131072·128/256 = 65536; rcv_wnd = 45·1448 = 65160; the clamp
        // reserves one advmss: 65536 - 1460 = 64076; rcv_ssthresh = min(65160, 64076).
        assert_eq!(r.syn_window(), 65_160);
        assert_eq!((r.window_clamp(), r.rcv_ssthresh()), (64_076, 64_076));
        // rcvq_space.space = 10·advmss; window scale for 32 MiB: ilog2 = 25 → 10.
        assert_eq!((r.space, r.wscale), (14_600, 10));
        assert_eq!(r.select_window(), 64_512);
    }

    #[test]
    fn the_first_segment_sets_the_ratio_and_each_segment_grows_the_window_with_a_quick_ack() {
        let mut r = RcvBuf::new(MSS, Time::ZERO);
        // ratio = 1448·256/2304 = 160; clamp = 131072·160/256 = 81920; rcv_ssthresh is
        // lifted to min(rcv_wnd 65160, clamp) (tcp_set_window_clamp).
        let g = r.on_segment(Time::ZERO, MSS, 1, 65_160);
        assert_eq!(r.ratio, 160);
        assert_eq!(r.window_clamp(), 81_920);
        // tcp_grow_window: room = min(81920, (131072-2304)·160/256 = 80480) - 65160
        // = 15320; +2·advmss = 2920 and quick |= 1.
        assert!(g.quick);
        assert_eq!(r.rcv_ssthresh(), 65_160 + 2_920);
        for _ in 0..4 {
            assert!(r.on_segment(Time::ZERO, MSS, 1, 65_160).quick);
        }
        assert_eq!(r.rcv_ssthresh(), 65_160 + 5 * 2_920);
        // The sixth takes the rest of the room (80480 - 79760 = 720), then none is left.
        assert!(r.on_segment(Time::ZERO, MSS, 1, 65_160).quick);
        assert_eq!(r.rcv_ssthresh(), 80_480);
        assert!(!r.on_segment(Time::ZERO, MSS, 1, 65_160).quick);
        // Short segments never grow the window.
        assert!(!r.on_segment(Time::ZERO, 100, 1, 65_160).quick);
    }

    #[test]
    fn drs_grows_the_buffer_from_the_bytes_read_per_receiver_rtt() {
        let mut r = RcvBuf::new(MSS, Time::ZERO);
        r.on_segment(Time::ZERO, MSS, 1, 65_160);
        // No RTT sample yet: no adjustment.
        r.space_adjust(Time(10 * 1_000_000), 100_000, 0);
        assert_eq!(r.rcvbuf(), RMEM_DEFAULT);
        // TSecr echoed 50 ms ago (ms ticks): rtt_us = 50 000.
        r.rtt_measure(60_000_000, 10_000_000, MSS);
        assert_eq!(r.rcv_rtt(), Dur::from_millis(50));
        // A repeated TSecr gives no new sample; a larger one is smoothed by 1/8.
        r.rtt_measure(200_000_000, 10_000_000, MSS);
        r.rtt_measure(190_000_000, 60_000_000, MSS); // 130 ms
        assert_eq!(r.rcv_rtt(), Dur::from_micros(60_000));
        // Less than one RTT since the measure started (t = 0): nothing.
        r.space_adjust(Time(59 * 1_000_000), 29_200, 0);
        assert_eq!(r.rcvbuf(), RMEM_DEFAULT);
        // 29200 bytes in 60 ms > space 14600: rcvwin = 58400 + 2·58400·14600/14600 =
        // 175200; rcvbuf = 175200·256/160 = 280320; clamp back to 175200.
        r.space_adjust(Time(60 * 1_000_000), 29_200, 0);
        assert_eq!((r.rcvbuf(), r.window_clamp()), (280_320, 175_200));
        assert_eq!(r.space, 29_200);
        // The next RTT reads less than the last: no change, a new measure starts.
        r.space_adjust(Time(130 * 1_000_000), 40_000, 0);
        assert_eq!(
            (r.rcvbuf(), r.space, r.space_seq),
            (280_320, 29_200, 40_000)
        );
    }

    #[test]
    fn the_first_drs_measure_starts_when_the_handshake_completes() {
        // Linux tcp_init_buffer_space (from tcp_init_transfer) starts rcvq_space.time at
        // the handshake's ACK, 1.5 ms (one segment at 8 Mbit/s) before the first data
        // segment. A receiver RTT of 352 ms: the read at 352.0 ms is one RTT after the
        // handshake but 350.5 ms after the first segment.
        let ms = |m: u64, us: u64| Time(m * 1_000_000 + us * 1_000);
        let drs_at = |established: Option<Time>| {
            let mut r = RcvBuf::new(MSS, Time::ZERO);
            if let Some(t) = established {
                r.on_established(t);
            }
            r.on_segment(ms(1, 500), MSS, 1, 65_160);
            r.rtt_measure(352_000_000, 0, MSS);
            assert_eq!(r.rcv_rtt(), Dur::from_millis(352));
            r.space_adjust(ms(352, 0), 20 * MSS as u64, 0);
            r.space_seq
        };
        // Measured from the handshake: the check passes and a new measure starts at the
        // bytes read.
        assert_eq!(drs_at(Some(Time::ZERO)), 20 * MSS as u64);
        // Without a handshake the first segment starts it: 350.5 ms < 352 ms, no check.
        assert_eq!(drs_at(None), 0);
        // A second completion (the ACK after a data segment ended it) moves nothing.
        let mut r = RcvBuf::new(MSS, Time::ZERO);
        r.on_established(ms(1, 0));
        r.on_established(ms(5, 0));
        assert_eq!(r.space_time, ms(1, 0));
    }

    #[test]
    fn a_window_update_ack_when_the_window_left_is_under_half_the_selectable_one() {
        let mut r = RcvBuf::new(MSS, Time::ZERO);
        r.on_segment(Time::ZERO, MSS, 1, 65_160);
        // clamp 81920: the rule looks only when rcv_window_now <= 40960, and fires when
        // the window now selectable (68608 after one growth step) is at least twice it.
        assert!(!r.window_update_due(41_000));
        assert!(!r.window_update_due(40_000));
        assert!(r.window_update_due(34_000));
    }
}
