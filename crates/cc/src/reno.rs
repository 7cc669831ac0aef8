//! Reno slow start and congestion avoidance (RFC 5681, with appropriate byte counting as
//! in RFC 3465 and Linux `tcp_slow_start` / `tcp_cong_avoid_ai`). Algorithms that fall
//! back to Reno behaviour embed a `RenoWindow`.

/// Congestion window and slow-start threshold in bytes, with the byte counter for
/// congestion avoidance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenoWindow {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Bytes acknowledged since the window last grew by one segment in congestion avoidance.
    pub ca_acked: u64,
}

/// Linux never lets a window fall below two segments after a loss (`tcp_reno_ssthresh`).
pub const MIN_SSTHRESH_SEGMENTS: u64 = 2;

impl RenoWindow {
    pub fn new(initial_cwnd: u64) -> RenoWindow {
        RenoWindow {
            cwnd: initial_cwnd,
            ssthresh: u64::MAX,
            ca_acked: 0,
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Slow start: grow by the bytes acknowledged, up to ssthresh (Linux `tcp_slow_start`).
    /// Returns the acknowledged bytes left over once ssthresh is reached.
    pub fn slow_start(&mut self, acked: u64) -> u64 {
        let room = self.ssthresh.saturating_sub(self.cwnd);
        let used = acked.min(room);
        self.cwnd += used;
        acked - used
    }

    /// Additive increase: one `mss` per `w` bytes acknowledged (Linux `tcp_cong_avoid_ai`
    /// in bytes; `w` is normally the current window, i.e. one segment per RTT).
    pub fn cong_avoid_ai(&mut self, w: u64, acked: u64, mss: u64) {
        let w = w.max(mss);
        if self.ca_acked >= w {
            // The window shrank since the counter filled: credit one segment now, as Linux does.
            self.ca_acked = 0;
            self.cwnd += mss;
        }
        self.ca_acked += acked;
        if self.ca_acked >= w {
            let inc = self.ca_acked / w;
            self.ca_acked -= inc * w;
            self.cwnd += inc * mss;
        }
    }

    /// Linux `tcp_reno_cong_avoid`: slow start below ssthresh, then one segment per RTT.
    pub fn reno_on_ack(&mut self, acked: u64, mss: u64) {
        let mut acked = acked;
        if self.in_slow_start() {
            acked = self.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        self.cong_avoid_ai(self.cwnd, acked, mss);
    }

    /// Multiplicative decrease to `factor` of the current window, floored at two segments
    /// (Linux `tcp_reno_ssthresh` for factor 0.5); cwnd follows ssthresh.
    pub fn multiplicative_decrease(&mut self, factor: f64, mss: u64) {
        let target = ((self.cwnd as f64) * factor) as u64;
        self.ssthresh = target.max(MIN_SSTHRESH_SEGMENTS * mss);
        self.cwnd = self.ssthresh;
        self.ca_acked = 0;
    }

    /// Retransmission timeout: ssthresh from the halved window, cwnd to one segment
    /// (RFC 5681 §3.1 eq. 4 and the loss window of §3.1; Linux `tcp_enter_loss`).
    pub fn on_timeout(&mut self, mss: u64) {
        self.ssthresh = (self.cwnd / 2).max(MIN_SSTHRESH_SEGMENTS * mss);
        self.cwnd = mss;
        self.ca_acked = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MSS: u64 = 1000;

    #[test]
    fn slow_start_grows_by_acked_and_stops_at_ssthresh() {
        let mut w = RenoWindow::new(10 * MSS);
        w.ssthresh = 15 * MSS;
        assert_eq!(w.slow_start(2 * MSS), 0);
        assert_eq!(w.cwnd, 12 * MSS);
        assert_eq!(w.slow_start(5 * MSS), 2 * MSS);
        assert_eq!(w.cwnd, 15 * MSS);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window() {
        let mut w = RenoWindow::new(10 * MSS);
        w.ssthresh = 10 * MSS;
        for _ in 0..9 {
            w.reno_on_ack(MSS, MSS);
        }
        assert_eq!(w.cwnd, 10 * MSS);
        w.reno_on_ack(MSS, MSS);
        assert_eq!(w.cwnd, 11 * MSS);
        assert_eq!(w.ca_acked, 0);
        // A stretch ACK of 22 segments at cwnd 11 adds exactly two.
        w.reno_on_ack(22 * MSS, MSS);
        assert_eq!(w.cwnd, 13 * MSS);
    }

    #[test]
    fn decrease_and_timeout_floors() {
        let mut w = RenoWindow::new(3 * MSS);
        w.multiplicative_decrease(0.5, MSS);
        assert_eq!((w.cwnd, w.ssthresh), (2 * MSS, 2 * MSS));
        let mut w = RenoWindow::new(40 * MSS);
        w.on_timeout(MSS);
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 20 * MSS));
    }
}
