//! Linux's TSO autosizing for a paced sender: how many segments leave back to back per
//! pacing gap (docs/deviations/simulator.md#sim-paced-bursts).
//!
//! `tcp_tso_segs` (net/ipv4/tcp_output.c, Linux 6.x) is
//! `min(tcp_tso_autosize(sk, mss, min_tso_segs), sk_gso_max_segs)`, where `min_tso_segs`
//! is the congestion control's `.min_tso_segs` or the sysctl `tcp_min_tso_segs`, and
//!
//! ```text
//! bytes = sk_pacing_rate >> sk_pacing_shift;
//! r = tcp_min_rtt(tp) >> sysctl_tcp_tso_rtt_log;
//! if (r < BITS_PER_TYPE(sk_gso_max_size)) bytes += sk_gso_max_size >> r;
//! bytes = min(bytes, sk_gso_max_size);
//! return max(bytes / mss_now, min_tso_segs);
//! ```

use scavenger_cc::{Dur, Rate};

/// `sk_pacing_shift`'s default (`sk->sk_pacing_shift = 10` in `tcp_init_sock`): an skb
/// carries about 1 ms (2^-10 s) of the pacing rate.
pub const SK_PACING_SHIFT: u32 = 10;

/// `net.ipv4.tcp_tso_rtt_log`'s default, 9: below a min RTT of 2^9 µs · 32 the skb also
/// gets `sk_gso_max_size >> (min_rtt_us >> 9)` bytes (Linux 5.18's "adjust TSO packet
/// sizes based on min_rtt"; the testbed runs 6.18).
pub const TCP_TSO_RTT_LOG: u32 = 9;

/// `sk_gso_max_size` of a legacy GSO device, the cap BBR's `bbr_tso_segs_goal` shares.
pub use scavenger_cc::GSO_MAX_BYTES;

/// `sk_gso_max_segs` of a device with GSO (`GSO_MAX_SEGS`); 1 turns bursts off.
pub const GSO_MAX_SEGS: u32 = 65535;

/// `tcp_tso_segs`: the segments of one paced skb at pacing rate `rate` (bit/s; Linux's
/// `sk_pacing_rate` is this over 8) for segments of `mss` payload bytes, with the flow's
/// windowed min RTT (`None` before the first sample: `tcp_min_rtt` is then ~0U and adds
/// nothing), the congestion control's `min_tso_segs` and the device's `gso_max_segs`.
pub fn tso_segs(
    rate: Rate,
    mss: u32,
    min_rtt: Option<Dur>,
    min_tso_segs: u32,
    gso_max_segs: u32,
) -> u32 {
    let mut bytes = (rate.0 / 8) >> SK_PACING_SHIFT;
    if let Some(rtt) = min_rtt {
        let r = (rtt.0 / 1000) >> TCP_TSO_RTT_LOG;
        if r < 32 {
            bytes += GSO_MAX_BYTES >> r;
        }
    }
    let bytes = bytes.min(GSO_MAX_BYTES);
    let segs = (bytes / mss.max(1) as u64).max(min_tso_segs as u64);
    segs.min(gso_max_segs as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn autosize_is_a_millisecond_of_the_rate_at_least_min_tso_segs() {
        // MSS 1448: 1 ms at 8 Mbit/s is 976 B (0 segments) -> min_tso_segs 2; at 100
        // Mbit/s 12,207 B -> 8; at 4 Gbit/s capped at 65,215 B -> 45.
        let rtt = Some(Dur::from_millis(50));
        assert_eq!(
            tso_segs(Rate::from_bps(8_000_000), 1448, rtt, 2, GSO_MAX_SEGS),
            2
        );
        assert_eq!(
            tso_segs(Rate::from_bps(8_000_000), 1448, rtt, 1, GSO_MAX_SEGS),
            1
        );
        assert_eq!(
            tso_segs(Rate::from_bps(100_000_000), 1448, rtt, 2, GSO_MAX_SEGS),
            8
        );
        assert_eq!(
            tso_segs(Rate::from_bps(4_000_000_000), 1448, rtt, 2, GSO_MAX_SEGS),
            45
        );
        // gso_max_segs caps it (1: GSO off, one segment per gap).
        assert_eq!(tso_segs(Rate::from_bps(100_000_000), 1448, rtt, 2, 1), 1);
    }

    #[test]
    fn a_short_min_rtt_adds_gso_max_size_shifted_by_it() {
        // min RTT 1 ms: r = 1000 >> 9 = 1, + 65,215 >> 1 = 32,607 B -> 23 segments at
        // 8 Mbit/s; 8 ms: r = 15, + 1 B; no sample yet: nothing added.
        let rate = Rate::from_bps(8_000_000);
        assert_eq!(
            tso_segs(rate, 1448, Some(Dur::from_millis(1)), 2, GSO_MAX_SEGS),
            23
        );
        assert_eq!(
            tso_segs(rate, 1448, Some(Dur::from_millis(8)), 2, GSO_MAX_SEGS),
            2
        );
        assert_eq!(tso_segs(rate, 1448, None, 2, GSO_MAX_SEGS), 2);
    }
}
