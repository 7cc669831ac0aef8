//! TCP-LP (Kuzmanovic & Knightly), as Linux `net/ipv4/tcp_lp.c`, which seed 000 ran
//! unchanged (Ong 2020 §2.2.3, §3.6). One-way delay from TCP timestamps is smoothed
//! (EWMA 7/8); when the smoothed OWD exceeds `owd_min + 15 %·(owd_max - owd_min)` it is an
//! early congestion indication: cwnd is halved, or set to one packet if it happens within
//! the inference period `3·RTT` after the previous one. No growth within the inference
//! period; otherwise Reno (slow start, AI, halving on loss).
//!
//! The datapath gives `ack.owd` in nanoseconds (receiver TSval minus sender TSecr,
//! including a constant clock offset), so Linux's remote-HZ estimator is not needed.

use super::vegas::{acked_pkts, PktWindow};
use crate::api::*;
use crate::params::{ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "tcp-lp",
    aliases: &["lp"],
    summary: "TCP-LP: Reno with early OWD-based halving and an inference period (Linux tcp_lp)",
    source: "seed 000 (Ong 2020) §2.2.3; Linux net/ipv4/tcp_lp.c (4.4)",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "threshold_pct",
        kind: ParamKind::Int { min: 0, max: 100 },
        default: ParamValue::Int(15),
        unit: "%",
        doc: "early congestion when sowd >= owd_min + threshold_pct·(owd_max - owd_min)/100",
        source: "Linux tcp_lp.c tcp_lp_pkts_acked (constant 15)",
    },
    ParamSpec {
        name: "inference_mult",
        kind: ParamKind::Int { min: 0, max: 100 },
        default: ParamValue::Int(3),
        unit: "RTTs",
        doc: "inference period after an early congestion indication, in RTTs (3·(now - TSecr))",
        source: "seed 000 §2.2.3 (\"3·(time - prev_time)\"); Linux tcp_lp.c lp->inference = 3 * delta",
    },
];

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    Box::new(TcpLp::new(p, &init))
}

#[derive(Clone, Debug)]
pub struct TcpLp {
    threshold_pct: u64,
    inference_mult: u64,
    mss: u64,
    w: PktWindow,
    /// Smoothed OWD ×8 (ns), as Linux `sowd`.
    sowd: u64,
    owd_min: u64,
    owd_max: u64,
    owd_max_rsv: u64,
    last_drop: Option<Time>,
    inference: Dur,
    within_inference: bool,
    early_events: u64,
}

impl TcpLp {
    pub fn new(p: &ParamSet, init: &CcInit) -> TcpLp {
        TcpLp {
            threshold_pct: p.int("threshold_pct") as u64,
            inference_mult: p.int("inference_mult") as u64,
            mss: init.mss,
            w: PktWindow::new(init.initial_cwnd, init.mss),
            sowd: 0,
            owd_min: u64::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            last_drop: None,
            inference: Dur::ZERO,
            within_inference: false,
            early_events: 0,
        }
    }

    /// tcp_lp_owd_calculator + tcp_lp_rtt_sample: |OWD| (Linux negates a negative
    /// difference), ignored when zero.
    fn owd_sample(&mut self, owd: i64) {
        let mowd = owd.unsigned_abs();
        if mowd == 0 {
            return;
        }
        self.owd_min = self.owd_min.min(mowd);
        // "Always forget the max of the max": owd_max is set one below the largest.
        if mowd > self.owd_max {
            if mowd > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 { mowd } else { self.owd_max_rsv };
                self.owd_max_rsv = mowd;
            } else {
                self.owd_max = mowd;
            }
        }
        // sowd = 7/8 sowd + 1/8 new, kept ×8; the first sample initialises it.
        if self.sowd != 0 {
            let err = mowd as i128 - (self.sowd >> 3) as i128;
            self.sowd = (self.sowd as i128 + err).max(0) as u64;
        } else {
            self.sowd = mowd << 3;
        }
    }

    /// tcp_lp_pkts_acked: inference period, inference/threshold tests and the early
    /// congestion response.
    fn pkts_acked(&mut self, now: Time, ack: &AckSample) {
        if let (Some(_), Some(owd)) = (ack.rtt, ack.owd) {
            self.owd_sample(owd);
        }
        // inference = 3·(now - TSecr): the round trip of the echoed segment.
        if let Some(rtt) = ack.rtt {
            if rtt > Dur::ZERO {
                self.inference = Dur(rtt.0.saturating_mul(self.inference_mult));
            }
        }
        self.within_inference = self.last_drop.is_some_and(|d| now.since(d) < self.inference);
        if std::env::var("LPDBG").is_ok() && now.0 < 3_000_000_000 { eprintln!("DBG t={:.1} owd={:.1} rtt={:.1} sowd={:.1} min={:.1} max={:.1} rsv={:.1} inf={:.0} within={} cwnd={} acked={} cl={}", now.0 as f64/1e6, ack.owd.unwrap_or(0) as f64/1e6, ack.rtt.map(|r| r.0 as f64/1e6).unwrap_or(-1.0), (self.sowd>>3) as f64/1e6, self.owd_min as f64/1e6, self.owd_max as f64/1e6, self.owd_max_rsv as f64/1e6, self.inference.0 as f64/1e6, self.within_inference, self.w.cwnd, ack.bytes_acked, ack.cwnd_limited); }
        // Within threshold: sowd/8 < owd_min + 15·(owd_max - owd_min)/100.
        let thr = self.owd_min.saturating_add(self.threshold_pct * self.owd_max.saturating_sub(self.owd_min) / 100);
        if (self.sowd >> 3) < thr {
            return;
        }
        // Reset owd_min/owd_max around the smoothed OWD (Linux FIXME: "so decrease the
        // chance the min/max is no longer suitable").
        self.owd_min = self.sowd >> 3;
        self.owd_max = self.sowd >> 2;
        self.owd_max_rsv = self.sowd >> 2;
        self.w.cwnd = if self.within_inference { 1 } else { (self.w.cwnd >> 1).max(1) };
        self.last_drop = Some(now);
        self.early_events += 1;
    }
}

impl CongestionControl for TcpLp {
    fn name(&self) -> &'static str {
        "tcp-lp"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.mss = ack.mss;
        if ack.bytes_acked == 0 {
            return;
        }
        // pkts_acked runs for every ACK of new data, in any congestion state.
        self.pkts_acked(now, ack);
        if ack.in_recovery {
            return;
        }
        // tcp_lp_cong_avoid: Reno unless within the inference period (flag computed
        // before any drop made by this ACK, as in Linux).
        if !self.within_inference {
            self.w.reno_cong_avoid(acked_pkts(ack.bytes_acked, ack.mss), ack.cwnd_limited);
        }
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        self.mss = ev.mss;
        // .ssthresh = tcp_reno_ssthresh.
        self.w.on_loss();
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        self.mss = ev.mss;
        self.w.on_timeout();
    }

    fn cwnd(&self) -> u64 {
        self.w.cwnd * self.mss
    }

    fn ssthresh(&self) -> u64 {
        self.w.ssthresh_bytes(self.mss)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        let ms = |ns: u64| ns as f64 / 1e6;
        out.push(("sowd_ms", ms(self.sowd >> 3)));
        out.push(("owd_min_ms", if self.owd_min == u64::MAX { f64::NAN } else { ms(self.owd_min) }));
        out.push(("owd_max_ms", ms(self.owd_max)));
        out.push(("inference_ms", ms(self.inference.0)));
        out.push(("within_inference", if self.within_inference { 1.0 } else { 0.0 }));
        out.push(("early_events", self.early_events as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    fn lp() -> TcpLp {
        let init = CcInit { now: Time(0), mss: MSS, initial_cwnd: 10 * MSS, rng: Rng::new(1) };
        TcpLp::new(&ParamSet::defaults(PARAMS), &init)
    }

    fn ack(lp: &mut TcpLp, t_ms: u64, owd_ms: u64) {
        let a = AckSample { bytes_acked: MSS, rtt: Some(Dur::from_millis(100)), owd: Some((owd_ms * MS) as i64), ..AckSample::empty(MSS) };
        lp.on_ack(Time(t_ms * MS), &a);
    }

    /// owd_min 50 ms, owd_max 100 ms, sowd 50 ms; threshold = 50 + 15 %·50 = 57.5 ms.
    fn primed(cwnd: u64, ssthresh: u64, last_drop_ms: u64) -> TcpLp {
        let mut v = lp();
        v.owd_min = 50 * MS;
        v.owd_max = 100 * MS;
        v.owd_max_rsv = 100 * MS;
        v.sowd = 400 * MS;
        v.w.cwnd = cwnd;
        v.w.ssthresh = ssthresh;
        v.last_drop = Some(Time(last_drop_ms * MS));
        v
    }

    #[test]
    fn first_owd_sample_is_an_early_indication_as_in_linux() {
        // First sample 50 ms: owd_min = owd_max = sowd/8 = 50 ms; 50 < 50 + 0 is false ->
        // early congestion: owd_min = 50, owd_max = 100 ms, cwnd 10 -> 5; the inference
        // flag was false, so Reno slow start still adds one packet: 6.
        let mut v = lp();
        ack(&mut v, 100, 50);
        assert_eq!((v.owd_min, v.owd_max, v.owd_max_rsv), (50 * MS, 100 * MS, 100 * MS));
        assert_eq!(v.cwnd(), 6 * MSS);
        assert_eq!(v.last_drop, Some(Time(100 * MS)));
        assert_eq!(v.inference, Dur::from_millis(300));
        // 10 ms later, OWD 50: within threshold (50 < 57.5) but within inference
        // (10 < 300 ms): no growth.
        ack(&mut v, 110, 50);
        assert!(v.within_inference);
        assert_eq!(v.cwnd(), 6 * MSS);
        // After the inference period (400 ms > 300 ms) Reno slow start resumes.
        ack(&mut v, 500, 50);
        assert!(!v.within_inference);
        assert_eq!(v.cwnd(), 7 * MSS);
    }

    #[test]
    fn early_congestion_after_inference_halves() {
        // Last drop at 100 ms, ACK at 500 ms: 400 >= 300 ms -> outside inference.
        // OWD 130 ms: owd_max: 130 > rsv 100 -> owd_max = 100, rsv = 130;
        // sowd = 400 + (130 - 50) = 480 -> 60 ms >= 57.5 ms -> cwnd 20 -> 10, ssthresh
        // untouched (5); then Reno CA counts one packet (cnt 1 < 10).
        let mut v = primed(20, 5, 100);
        ack(&mut v, 500, 130);
        assert_eq!((v.cwnd(), v.ssthresh(), v.w.cnt), (10 * MSS, 5 * MSS, 1));
        // Reset around sowd: owd_min = 60, owd_max = rsv = 120 ms.
        assert_eq!((v.owd_min, v.owd_max, v.owd_max_rsv), (60 * MS, 120 * MS, 120 * MS));
        assert_eq!(v.last_drop, Some(Time(500 * MS)));
    }

    #[test]
    fn early_congestion_within_inference_drops_to_one_packet() {
        // Same samples, ACK at 300 ms: 200 < 300 ms -> within inference -> cwnd = 1, and
        // no Reno growth within the inference period.
        let mut v = primed(20, 5, 100);
        ack(&mut v, 300, 130);
        assert_eq!((v.cwnd(), v.w.cnt), (MSS, 0));
    }

    #[test]
    fn below_threshold_is_reno() {
        // OWD 55 ms: sowd = 400 + 5 = 405 -> 50.625 ms < 57.5 ms -> no indication; outside
        // inference -> Reno CA (cnt 1).
        let mut v = primed(20, 5, 100);
        ack(&mut v, 500, 55);
        assert_eq!((v.cwnd(), v.w.cnt, v.sowd), (20 * MSS, 1, 405 * MS));
        // Within inference and below threshold: nothing at all.
        let mut v = primed(20, 5, 100);
        ack(&mut v, 300, 55);
        assert_eq!((v.cwnd(), v.w.cnt), (20 * MSS, 0));
    }

    #[test]
    fn negative_owd_is_taken_in_absolute_value_and_loss_is_reno() {
        let mut v = lp();
        let a = AckSample { bytes_acked: MSS, rtt: Some(Dur::from_millis(100)), owd: Some(-(40 * MS as i64)), ..AckSample::empty(MSS) };
        v.on_ack(Time(0), &a);
        assert_eq!(v.owd_min, 40 * MS);
        v.w.cwnd = 30;
        v.on_congestion(Time(0), &CongestionEvent { kind: CongestionKind::Loss, bytes_in_flight: 0, bytes_lost: MSS, mss: MSS });
        assert_eq!((v.cwnd(), v.ssthresh()), (15 * MSS, 15 * MSS));
        v.on_rto(Time(0), &RtoEvent { bytes_in_flight: 0, backoff_count: 1, mss: MSS });
        assert_eq!((v.cwnd(), v.ssthresh()), (MSS, 7 * MSS));
    }
}
