//! Windows kept in fractional packets (LEDBAT++, 4CP, ImTCP-bg, FLOWER): what the
//! datapath is told, in bytes. The datapath sends whole segments, so a window of 7.6
//! packets allows 7, and never fewer than one.

/// cwnd in bytes for a window of `pkts` fractional packets: whole packets, at least one.
pub fn cwnd_bytes(pkts: f64, mss: u64) -> u64 {
    (pkts.floor().max(1.0) as u64).saturating_mul(mss)
}

/// ssthresh in bytes for `pkts` fractional packets; an infinite ssthresh (slow start
/// not yet left) is `u64::MAX`, as the datapath's "no threshold".
pub fn ssthresh_bytes(pkts: f64, mss: u64) -> u64 {
    if pkts.is_finite() {
        (pkts as u64).saturating_mul(mss)
    } else {
        u64::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_packets_at_least_one() {
        assert_eq!(cwnd_bytes(7.6, 1000), 7000);
        assert_eq!(cwnd_bytes(0.3, 1000), 1000);
        assert_eq!(cwnd_bytes(f64::MAX, 1000), u64::MAX);
    }

    #[test]
    fn infinite_ssthresh_is_no_threshold() {
        assert_eq!(ssthresh_bytes(f64::INFINITY, 1000), u64::MAX);
        assert_eq!(ssthresh_bytes(12.9, 1000), 12_000);
    }
}
