//! TCP Vegas as Linux `net/ipv4/tcp_vegas.c` (kernel 4.4, the version Ong 2020 ran
//! "unchanged with default parameters", Ong 2020 §2.2.1 and §3.6). Once per RTT (when
//! the cumulative ACK passes `beg_snd_nxt`) it compares the window with the one that
//! would fill the path at the base RTT and moves it by one packet; with fewer than
//! three RTT samples in the last RTT it behaves like Reno. Loss handling is Reno's.
//!
//! This file also holds `PktWindow`, the Linux packet-unit window shared by the
//! Linux-derived LBE modules of Ong 2020 (nice, tcp-lp, westwood-lp), and `VegasCore`
//! with the `VegasHooks` per-RTT loop that Nice builds on, as Linux's `tcp_vegas.h`
//! exports `tcp_vegas_init`, `tcp_vegas_pkts_acked`, `tcp_vegas_state` and
//! `tcp_vegas_cwnd_event` to other modules.
//!
//! Differences from the source (the reasoning is in docs/deviations/vegas.md):
//! - diff divides by baseRTT (Linux); Brakmo's rtt denominator is an option:
//!   docs/deviations/vegas.md#vegas-diff-denominator
//! - after a Vegas decrease ssthresh = min(ssthresh, cwnd − 1) (Linux 4.4):
//!   docs/deviations/vegas.md#vegas-ssthresh-after-decrease
//! - growth is gated on `cwnd_limited`; decisions and decreases are not:
//!   docs/deviations/vegas.md#vegas-cwnd-limited
//! - how Linux's events map onto the interface: docs/deviations/vegas.md#vegas-event-mapping

use crate::api::*;
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::Time;

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "vegas",
    aliases: &[],
    summary: "TCP Vegas (Linux tcp_vegas): keep alpha..beta packets queued, once-per-RTT +/-1",
    source: "Ong 2020 §2.2.1, §3.6; Linux net/ipv4/tcp_vegas.c (4.4)",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "alpha",
        kind: ParamKind::Int { min: 0, max: 10_000 },
        default: ParamValue::Int(2),
        unit: "packets",
        doc: "lower bound of extra packets in the network: below it cwnd grows by one per RTT",
        source: "Linux tcp_vegas.c module_param alpha = 2 (Ong 2020 §3.6: defaults used)",
    },
    ParamSpec {
        name: "beta",
        kind: ParamKind::Int { min: 0, max: 10_000 },
        default: ParamValue::Int(4),
        unit: "packets",
        doc: "upper bound of extra packets in the network: above it cwnd shrinks by one per RTT",
        source: "Linux tcp_vegas.c module_param beta = 4",
    },
    ParamSpec {
        name: "gamma",
        kind: ParamKind::Int { min: 0, max: 10_000 },
        default: ParamValue::Int(1),
        unit: "packets",
        doc: "slow-start exit limit: leave slow start when diff exceeds gamma",
        source: "Linux tcp_vegas.c module_param gamma = 1",
    },
    ParamSpec {
        name: "diff_denominator",
        kind: ParamKind::Choice(&["base_rtt", "rtt"]),
        default: ParamValue::Choice("base_rtt"),
        unit: "",
        doc: "divide cwnd*(rtt-baseRTT) by baseRTT (Linux) or by rtt (Brakmo's Diff = (Expected-Actual)*BaseRTT)",
        source: "Linux tcp_vegas.c tcp_vegas_cong_avoid (base_rtt); Brakmo et al. 1994 via Ong 2020 eq. 2.1 (rtt)",
    },
];

/// What Vegas's Diff is divided by (the `diff_denominator` parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffDenominator {
    /// Linux `tcp_vegas_cong_avoid`: diff = cwnd·(rtt − baseRTT)/baseRTT.
    BaseRtt,
    /// Brakmo et al. 1994 (via Ong 2020 eq. 2.1): Diff = (Expected − Actual)·BaseRTT,
    /// i.e. cwnd·(rtt − baseRTT)/rtt.
    Rtt,
}

/// Vegas's parameters. Defaults: Linux `tcp_vegas.c` (4.4) module parameters, which
/// Ong 2020 ran unchanged (§3.6).
#[derive(Clone, Debug, PartialEq)]
pub struct VegasConfig {
    /// `alpha`, packets: below this many extra packets in the network cwnd grows by one
    /// per RTT. Linux tcp_vegas.c module_param alpha = 2.
    pub alpha: u64,
    /// `beta`, packets: above this many extra packets cwnd shrinks by one per RTT.
    /// Linux tcp_vegas.c module_param beta = 4.
    pub beta: u64,
    /// `gamma`, packets: leave slow start when diff exceeds it. Linux tcp_vegas.c
    /// module_param gamma = 1.
    pub gamma: u64,
    /// `diff_denominator`: Linux divides by baseRTT (tcp_vegas_cong_avoid).
    pub diff_denominator: DiffDenominator,
}

impl Default for VegasConfig {
    fn default() -> VegasConfig {
        VegasConfig {
            alpha: 2,
            beta: 4,
            gamma: 1,
            diff_denominator: DiffDenominator::BaseRtt,
        }
    }
}

impl TryFrom<&ParamSet> for VegasConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<VegasConfig, ParamError> {
        let r = p.reader("vegas");
        Ok(VegasConfig {
            alpha: r.u64("alpha")?,
            beta: r.u64("beta")?,
            gamma: r.u64("gamma")?,
            diff_denominator: match r.choice("diff_denominator")? {
                "rtt" => DiffDenominator::Rtt,
                _ => DiffDenominator::BaseRtt,
            },
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = VegasConfig::try_from(p).expect("vegas: parameters resolved against PARAMS");
    Box::new(Vegas::new(&cfg, &init))
}

/// Linux's `0x7fffffff` "no RTT yet" value for baseRTT and minRTT (µs).
pub(crate) const RTT_UNSET_US: u64 = 0x7fff_ffff;

/// An RTT sample in whole microseconds plus one, as Linux `vrtt = rtt_us + 1` ("never
/// allow zero rtt or baseRTT", tcp_vegas_pkts_acked).
pub(crate) fn vrtt_us(rtt: crate::units::Dur) -> u64 {
    rtt.micros() + 1
}

/// Packets acknowledged by `bytes` (a partial segment counts as one packet, as Linux's
/// `acked` packet count).
pub(crate) fn acked_pkts(bytes: u64, mss: u64) -> u64 {
    bytes.div_ceil(mss.max(1))
}

/// Congestion window in packets with Linux's `snd_cwnd_cnt`, and Linux's Reno helpers
/// (`tcp_slow_start`, `tcp_cong_avoid_ai`, `tcp_reno_cong_avoid`, `tcp_reno_ssthresh`,
/// `tcp_current_ssthresh`) in packet units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PktWindow {
    pub cwnd: u64,
    /// `u64::MAX` when unset (Linux TCP_INFINITE_SSTHRESH).
    pub ssthresh: u64,
    pub cnt: u64,
}

impl PktWindow {
    pub fn new(initial_cwnd_bytes: u64, mss: u64) -> PktWindow {
        PktWindow {
            cwnd: (initial_cwnd_bytes / mss.max(1)).max(1),
            ssthresh: u64::MAX,
            cnt: 0,
        }
    }

    /// Linux `tcp_in_slow_start`: cwnd < ssthresh.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Linux `tcp_slow_start`: grow by the packets acknowledged, up to ssthresh; returns
    /// the packets left over.
    pub fn slow_start(&mut self, acked: u64) -> u64 {
        let used = acked.min(self.ssthresh.saturating_sub(self.cwnd));
        self.cwnd += used;
        acked - used
    }

    /// Linux `tcp_cong_avoid_ai`: one packet per `w` packets acknowledged.
    pub fn cong_avoid_ai(&mut self, w: u64, acked: u64) {
        let w = w.max(1);
        if self.cnt >= w {
            self.cnt = 0;
            self.cwnd += 1;
        }
        self.cnt += acked;
        if self.cnt >= w {
            let delta = self.cnt / w;
            self.cnt -= delta * w;
            self.cwnd += delta;
        }
    }

    /// Linux `tcp_reno_cong_avoid`: nothing unless cwnd-limited; slow start below
    /// ssthresh, then one packet per window.
    pub fn reno_cong_avoid(&mut self, acked: u64, cwnd_limited: bool) {
        if !cwnd_limited {
            return;
        }
        let mut acked = acked;
        if self.in_slow_start() {
            acked = self.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        self.cong_avoid_ai(self.cwnd, acked);
    }

    /// Linux `tcp_reno_ssthresh`: max(cwnd/2, 2).
    pub fn reno_ssthresh(&self) -> u64 {
        (self.cwnd >> 1).max(2)
    }

    /// Linux `tcp_current_ssthresh` outside a cwnd reduction: max(ssthresh, 3/4 cwnd).
    pub fn current_ssthresh(&self) -> u64 {
        self.ssthresh.max((self.cwnd >> 1) + (self.cwnd >> 2))
    }

    /// Entering fast recovery or CWR: ssthresh = tcp_reno_ssthresh, and cwnd goes to
    /// ssthresh (RFC 6675 style as the interface asks; Linux gets there through PRR).
    pub fn on_loss(&mut self) {
        self.ssthresh = self.reno_ssthresh();
        self.cwnd = self.ssthresh;
        self.cnt = 0;
    }

    /// Linux `tcp_enter_loss`: ssthresh = tcp_reno_ssthresh, cwnd = 1 packet.
    pub fn on_timeout(&mut self) {
        self.ssthresh = self.reno_ssthresh();
        self.cwnd = 1;
        self.cnt = 0;
    }

    /// Linux `tcp_vegas_ssthresh` (4.4): min(ssthresh, cwnd - 1).
    pub fn vegas_ssthresh(&self) -> u64 {
        self.ssthresh.min(self.cwnd.saturating_sub(1))
    }

    pub fn ssthresh_bytes(&self, mss: u64) -> u64 {
        if self.ssthresh == u64::MAX {
            u64::MAX
        } else {
            self.ssthresh.saturating_mul(mss)
        }
    }
}

/// Vegas's per-RTT measurement (Linux `struct vegas` and the functions `tcp_vegas.h`
/// exports): the round boundary `beg_snd_nxt` and the RTT samples of the current round.
/// Vegas and Nice embed it and drive it through [`VegasHooks`].
#[derive(Clone, Debug)]
pub(crate) struct VegasCore {
    /// Linux `doing_vegas_now`: set in TCP_CA_Open, cleared in recovery/loss.
    pub enabled: bool,
    /// Right edge of the window when the current RTT started (bytes).
    pub beg_snd_nxt: u64,
    pub snd_nxt: u64,
    /// RTT samples, minimum RTT in the current RTT, minimum ever (µs, `vrtt`).
    pub cnt_rtt: u64,
    pub min_rtt: u64,
    pub base_rtt: u64,
}

impl VegasCore {
    pub fn new() -> VegasCore {
        let mut c = VegasCore {
            enabled: false,
            beg_snd_nxt: 0,
            snd_nxt: 0,
            cnt_rtt: 0,
            min_rtt: RTT_UNSET_US,
            base_rtt: RTT_UNSET_US,
        };
        c.init();
        c
    }

    /// Linux `tcp_vegas_init`: forget baseRTT and start sampling.
    pub fn init(&mut self) {
        self.base_rtt = RTT_UNSET_US;
        self.enable();
    }

    /// Linux `vegas_enable` (`tcp_vegas_state` on entering TCP_CA_Open).
    pub fn enable(&mut self) {
        self.enabled = true;
        self.beg_snd_nxt = self.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = RTT_UNSET_US;
    }

    /// Linux `vegas_disable` (`tcp_vegas_state` on entering recovery, CWR or loss).
    pub fn disable(&mut self) {
        self.enabled = false;
    }

    /// Linux `tcp_vegas_pkts_acked`: every RTT sample, also in recovery.
    pub fn pkts_acked(&mut self, vrtt: u64) {
        self.base_rtt = self.base_rtt.min(vrtt);
        self.min_rtt = self.min_rtt.min(vrtt);
        self.cnt_rtt += 1;
    }

    /// Linux CA_EVENT_TX_START: a new segment leaves when nothing was in flight.
    pub fn is_tx_start(sent: &SentInfo) -> bool {
        !sent.retransmission && sent.bytes_in_flight <= sent.bytes
    }

    /// Linux `tcp_vegas_cwnd_event(CA_EVENT_TX_START)`: `tcp_vegas_init` with the
    /// round starting at this segment.
    pub fn tx_start(&mut self, sent: &SentInfo) {
        self.snd_nxt = self.snd_nxt.max(sent.seq);
        self.init();
    }

    /// Tracks the right edge of what has been sent (Linux `tp->snd_nxt`).
    pub fn sent(&mut self, sent: &SentInfo) {
        self.snd_nxt = self.snd_nxt.max(sent.seq + sent.bytes);
    }

    /// The "Vegas calculations" of `tcp_vegas_cong_avoid` for this round's minRTT:
    /// (target_cwnd, diff). target_cwnd = cwnd·baseRTT/rtt (actual rate × baseRTT);
    /// diff = cwnd·(rtt − baseRTT)/baseRTT, "extra packets in the network" (Linux), or
    /// divided by rtt (Brakmo's Diff = (cwnd/BaseRTT − cwnd/RTT)·BaseRTT). Integer
    /// division, as Linux.
    pub fn target_and_diff(&self, cwnd: u64, den: DiffDenominator) -> (u64, u64) {
        let rtt = self.min_rtt;
        let base = self.base_rtt;
        let target_cwnd = cwnd * base / rtt;
        let den = match den {
            DiffDenominator::BaseRtt => base,
            DiffDenominator::Rtt => rtt,
        };
        (target_cwnd, cwnd * rtt.saturating_sub(base) / den)
    }

    /// Pushes baseRTT and this round's minRTT (ms; NaN while unset) to a trace.
    pub fn trace_rtts(&self, out: &mut Vec<(&'static str, f64)>) {
        let ms = |us: u64| {
            if us == RTT_UNSET_US {
                f64::NAN
            } else {
                us as f64 / 1000.0
            }
        };
        out.push(("base_rtt_ms", ms(self.base_rtt)));
        out.push(("min_rtt_ms", ms(self.min_rtt)));
    }
}

/// Vegas's per-RTT loop with the places a module built on it fills in (Nice). The loop
/// is Linux `tcp_vegas_pkts_acked` followed by `tcp_vegas_cong_avoid`'s structure:
/// Reno while disabled; once per RTT (the cumulative ACK passes `beg_snd_nxt`) the
/// module's decision, or Reno with fewer than three samples; slow start in between.
pub(crate) trait VegasHooks {
    fn core(&mut self) -> &mut VegasCore;
    fn window(&mut self) -> &mut PktWindow;
    /// Extra work on each RTT sample after `tcp_vegas_pkts_acked` (Nice: maxRTT and
    /// congestion events).
    fn on_rtt_sample(&mut self, _vrtt: u64) {}
    /// `tcp_reno_cong_avoid`: Vegas disabled, or fewer than three samples in the round.
    fn reno(&mut self, acked: u64, cwnd_limited: bool);
    /// `tcp_slow_start` between round boundaries.
    fn slow_start(&mut self, acked: u64);
    /// The once-per-RTT decision on this round's samples.
    fn per_rtt(&mut self, acked: u64, cwnd_limited: bool);
    /// Clears the module's own per-round state after the decision.
    fn end_round(&mut self) {}

    fn vegas_on_ack(&mut self, ack: &AckSample) {
        let c = self.core();
        c.snd_nxt = c.snd_nxt.max(ack.snd_nxt);
        if let Some(rtt) = ack.rtt {
            let vrtt = vrtt_us(rtt);
            self.core().pkts_acked(vrtt);
            self.on_rtt_sample(vrtt);
        }
        // Linux calls cong_avoid only outside recovery/CWR and when data was acked.
        if ack.in_recovery || ack.bytes_acked == 0 {
            return;
        }
        let acked = acked_pkts(ack.bytes_acked, ack.mss);
        if !self.core().enabled {
            self.reno(acked, ack.cwnd_limited);
            return;
        }
        // after(ack, beg_snd_nxt): the ACK covers the window of the previous RTT.
        let c = self.core();
        if ack.snd_una > c.beg_snd_nxt {
            c.beg_snd_nxt = ack.snd_nxt;
            if c.cnt_rtt <= 2 {
                // Fewer than 3 samples: probably delayed ACKs only; behave like Reno.
                self.reno(acked, ack.cwnd_limited);
            } else {
                self.per_rtt(acked, ack.cwnd_limited);
            }
            // Wipe the slate clean for the next RTT.
            let c = self.core();
            c.cnt_rtt = 0;
            c.min_rtt = RTT_UNSET_US;
            self.end_round();
        } else if self.window().in_slow_start() && ack.cwnd_limited {
            self.slow_start(acked);
        }
    }

    /// Loss or ECN: ssthresh = tcp_reno_ssthresh; set_state(Recovery/CWR) ->
    /// vegas_disable.
    fn vegas_on_congestion(&mut self) {
        self.window().on_loss();
        self.core().disable();
    }

    /// Timeout: tcp_enter_loss; set_state(Loss) -> vegas_disable.
    fn vegas_on_rto(&mut self) {
        self.window().on_timeout();
        self.core().disable();
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    mss: u64,
    w: PktWindow,
    core: VegasCore,
    last_diff: Option<u64>,
}

impl Vegas {
    pub fn new(cfg: &VegasConfig, init: &CcInit) -> Vegas {
        Vegas {
            cfg: cfg.clone(),
            mss: init.mss,
            w: PktWindow::new(init.initial_cwnd, init.mss),
            core: VegasCore::new(),
            last_diff: None,
        }
    }
}

impl VegasHooks for Vegas {
    fn core(&mut self) -> &mut VegasCore {
        &mut self.core
    }

    fn window(&mut self) -> &mut PktWindow {
        &mut self.w
    }

    fn reno(&mut self, acked: u64, cwnd_limited: bool) {
        self.w.reno_cong_avoid(acked, cwnd_limited);
    }

    fn slow_start(&mut self, acked: u64) {
        self.w.slow_start(acked);
    }

    /// The once-per-RTT adjustment (Linux `tcp_vegas_cong_avoid`, "Vegas calculations").
    fn per_rtt(&mut self, acked: u64, cwnd_limited: bool) {
        let cwnd = self.w.cwnd;
        let (target_cwnd, diff) = self.core.target_and_diff(cwnd, self.cfg.diff_denominator);
        self.last_diff = Some(diff);
        if diff > self.cfg.gamma && self.w.in_slow_start() {
            // Going too fast: cwnd = actual rate x baseRTT (+1 for truncation), and
            // leave slow start.
            self.w.cwnd = cwnd.min(target_cwnd + 1);
            self.w.ssthresh = self.w.vegas_ssthresh();
        } else if self.w.in_slow_start() {
            if cwnd_limited {
                self.w.slow_start(acked);
            }
        } else if diff > self.cfg.beta {
            self.w.cwnd -= 1;
            self.w.ssthresh = self.w.vegas_ssthresh();
        } else if diff < self.cfg.alpha && cwnd_limited {
            self.w.cwnd += 1;
        }
        if self.w.cwnd < 2 {
            self.w.cwnd = 2;
        }
        self.w.ssthresh = self.w.current_ssthresh();
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        self.mss = ack.mss;
        self.vegas_on_ack(ack);
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        self.mss = ev.mss;
        self.vegas_on_congestion();
    }

    fn on_rto(&mut self, _now: Time, ev: &RtoEvent) {
        self.mss = ev.mss;
        self.vegas_on_rto();
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        // set_state(TCP_CA_Open) -> vegas_enable.
        self.core.enable();
    }

    fn on_sent(&mut self, _now: Time, sent: &SentInfo) {
        if VegasCore::is_tx_start(sent) {
            self.core.tx_start(sent);
        }
        self.core.sent(sent);
    }

    fn cwnd(&self) -> u64 {
        self.w.cwnd * self.mss
    }

    fn ssthresh(&self) -> u64 {
        self.w.ssthresh_bytes(self.mss)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.core.trace_rtts(out);
        out.push(("cnt_rtt", self.core.cnt_rtt as f64));
        out.push(("diff_pkts", self.last_diff.map_or(f64::NAN, |d| d as f64)));
        out.push(("cwnd_pkts", self.w.cwnd as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::units::Dur;

    const MSS: u64 = 1000;

    fn init(cwnd_pkts: u64) -> CcInit {
        CcInit {
            now: Time(0),
            mss: MSS,
            initial_cwnd: cwnd_pkts * MSS,
            rng: Rng::new(1),
        }
    }

    fn vegas_with(cfg: VegasConfig) -> Vegas {
        Vegas::new(&cfg, &init(10))
    }

    /// Acknowledges one packet: snd_una advances by one MSS; `rtt_us` is the wire RTT
    /// (the algorithm adds 1 µs: vrtt).
    fn ack(v: &mut Vegas, una: &mut u64, nxt: u64, rtt_us: u64) {
        *una += MSS;
        let a = AckSample {
            bytes_acked: MSS,
            rtt: Some(Dur::from_micros(rtt_us)),
            snd_una: *una,
            snd_nxt: nxt,
            ..AckSample::empty(MSS)
        };
        v.on_ack(Time(0), &a);
    }

    /// A Vegas in a given state whose next per-RTT decision falls on the third of three
    /// ACKs: baseRTT = 100_000 µs (vrtt), beg_snd_nxt = 2 packets.
    fn primed(cwnd: u64, ssthresh: u64) -> Vegas {
        let mut v = vegas_with(VegasConfig::default());
        v.w.cwnd = cwnd;
        v.w.ssthresh = ssthresh;
        v.core.base_rtt = 100_000;
        v.core.beg_snd_nxt = 2 * MSS;
        v
    }

    fn three_acks(v: &mut Vegas, rtt_us: u64) {
        let mut una = 0;
        for _ in 0..3 {
            ack(v, &mut una, 100 * MSS, rtt_us);
        }
    }

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            VegasConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            VegasConfig::default()
        );
    }

    #[test]
    fn choice_words_map_to_their_variants() {
        use crate::params::RawParam;
        let v = RawParam::Text("rtt".into());
        let p = INFO.resolve([("diff_denominator", &v)]).unwrap();
        assert_eq!(
            VegasConfig::try_from(&p).unwrap(),
            VegasConfig {
                diff_denominator: DiffDenominator::Rtt,
                ..VegasConfig::default()
            }
        );
    }

    #[test]
    fn increase_when_diff_below_alpha() {
        // cwnd 20 in CA (ssthresh 10); minRTT = 104_999 + 1 = 105_000 µs.
        // diff = 20 * (105_000 - 100_000) / 100_000 = 1 < alpha 2  -> cwnd 21.
        // ssthresh = max(10, 21/2 + 21/4 = 10 + 5) = 15.
        let mut v = primed(20, 10);
        three_acks(&mut v, 104_999);
        assert_eq!(v.last_diff, Some(1));
        assert_eq!((v.cwnd(), v.ssthresh()), (21 * MSS, 15 * MSS));
        assert_eq!((v.core.cnt_rtt, v.core.min_rtt), (0, RTT_UNSET_US));
    }

    #[test]
    fn hold_when_diff_between_alpha_and_beta() {
        // minRTT 110_000: diff = 20 * 10_000 / 100_000 = 2 (not < 2, not > 4) -> hold 20.
        // ssthresh = max(10, 10 + 5) = 15.
        let mut v = primed(20, 10);
        three_acks(&mut v, 109_999);
        assert_eq!(v.last_diff, Some(2));
        assert_eq!((v.cwnd(), v.ssthresh()), (20 * MSS, 15 * MSS));
        // minRTT 120_000: diff = 20 * 20_000 / 100_000 = 4 = beta, not above it -> hold.
        let mut v = primed(20, 10);
        three_acks(&mut v, 119_999);
        assert_eq!(v.last_diff, Some(4));
        assert_eq!(v.cwnd(), 20 * MSS);
    }

    #[test]
    fn decrease_when_diff_above_beta() {
        // minRTT 130_000: diff = 20 * 30_000 / 100_000 = 6 > beta 4 -> cwnd 19,
        // ssthresh = min(10, 19 - 1) = 10, then current_ssthresh = max(10, 9 + 4) = 13.
        let mut v = primed(20, 10);
        three_acks(&mut v, 129_999);
        assert_eq!(v.last_diff, Some(6));
        assert_eq!((v.cwnd(), v.ssthresh()), (19 * MSS, 13 * MSS));
    }

    #[test]
    fn brakmo_denominator_option_divides_by_rtt() {
        // Same RTTs as the decrease case but diff = 20 * 30_000 / 130_000 = 4 (4.6
        // truncated) -> not > beta: hold.
        let mut v = vegas_with(VegasConfig {
            diff_denominator: DiffDenominator::Rtt,
            ..VegasConfig::default()
        });
        v.w.cwnd = 20;
        v.w.ssthresh = 10;
        v.core.base_rtt = 100_000;
        v.core.beg_snd_nxt = 2 * MSS;
        three_acks(&mut v, 129_999);
        assert_eq!(v.last_diff, Some(4));
        assert_eq!(v.cwnd(), 20 * MSS);
    }

    #[test]
    fn slow_start_exits_when_diff_exceeds_gamma() {
        // Slow start (ssthresh unset), cwnd 20. The two ACKs before the decision each
        // slow-start by one packet: cwnd 22. Decision with minRTT 115_000:
        // diff = 22 * 15_000 / 100_000 = 3 > gamma 1 and in slow start:
        // target = 22 * 100_000 / 115_000 = 19 (19.13) -> cwnd = min(22, 19 + 1) = 20,
        // ssthresh = min(inf, 20 - 1) = 19, current_ssthresh = max(19, 10 + 5) = 19.
        let mut v = primed(20, u64::MAX);
        three_acks(&mut v, 114_999);
        assert_eq!(v.last_diff, Some(3));
        assert_eq!((v.cwnd(), v.ssthresh()), (20 * MSS, 19 * MSS));
    }

    #[test]
    fn slow_start_continues_when_diff_at_most_gamma() {
        // minRTT 105_000: two ACKs grow 20 -> 22; diff = 22 * 5_000 / 100_000 = 1, not
        // > gamma -> tcp_slow_start(acked = 1): 23. ssthresh stays unset (max(inf, ..)).
        let mut v = primed(20, u64::MAX);
        three_acks(&mut v, 104_999);
        assert_eq!(v.last_diff, Some(1));
        assert_eq!((v.cwnd(), v.ssthresh()), (23 * MSS, u64::MAX));
    }

    #[test]
    fn slow_start_grows_in_every_round_not_every_other() {
        // Linux tcp_vegas.c (header: "To avoid the performance penalty imposed by
        // increasing cwnd only every-other RTT during slow start, we increase during every
        // RTT during slow start, just like Reno"): tcp_vegas_cong_avoid slow-starts on
        // every ACK between per-RTT decisions, and at a decision with diff <= gamma.
        // Round 1 ends at the 3rd ACK (beg_snd_nxt 2 packets), round 2 runs on to ACK 8;
        // RTT = baseRTT (diff 0): +1 packet on each of the 8 ACKs, 10 -> 18.
        let mut v = primed(10, u64::MAX);
        let mut una = 0;
        let mut w = Vec::new();
        for _ in 0..8 {
            ack(&mut v, &mut una, 100 * MSS, 99_999);
            w.push(v.cwnd() / MSS);
        }
        assert_eq!(w, [11, 12, 13, 14, 15, 16, 17, 18]);
        assert_eq!(v.last_diff, Some(0));
    }

    #[test]
    fn fewer_than_three_samples_behaves_like_reno() {
        // Decision on the second ACK: cntRTT = 2 -> Reno. In CA at cwnd 20 Reno only
        // counts: cnt = 1 -> no change even though diff would be 6 (> beta).
        let mut v = primed(20, 10);
        v.core.beg_snd_nxt = MSS;
        let mut una = 0;
        ack(&mut v, &mut una, 100 * MSS, 129_999);
        ack(&mut v, &mut una, 100 * MSS, 129_999);
        assert_eq!(v.last_diff, None);
        assert_eq!((v.cwnd(), v.w.cnt), (20 * MSS, 1));
        // Slow start with 2 samples: Reno slow start, +1 per packet on both ACKs.
        let mut v = primed(20, u64::MAX);
        v.core.beg_snd_nxt = MSS;
        let mut una = 0;
        ack(&mut v, &mut una, 100 * MSS, 129_999);
        ack(&mut v, &mut una, 100 * MSS, 129_999);
        assert_eq!(v.cwnd(), 22 * MSS);
    }

    #[test]
    fn base_rtt_is_the_minimum_ever_and_min_rtt_per_round() {
        let mut v = vegas_with(VegasConfig::default());
        let mut una = 0;
        // First ACK: snd_una 1000 > beg 0 -> decision with cntRTT 1 (Reno slow start).
        ack(&mut v, &mut una, 10 * MSS, 50_000);
        assert_eq!(
            (v.core.base_rtt, v.core.beg_snd_nxt, v.core.cnt_rtt),
            (50_001, 10 * MSS, 0)
        );
        ack(&mut v, &mut una, 10 * MSS, 80_000);
        ack(&mut v, &mut una, 10 * MSS, 60_000);
        assert_eq!(
            (v.core.base_rtt, v.core.min_rtt, v.core.cnt_rtt),
            (50_001, 60_001, 2)
        );
    }

    #[test]
    fn loss_halves_and_disables_until_recovery_exit() {
        let mut v = primed(20, u64::MAX);
        v.on_congestion(
            Time(0),
            &CongestionEvent {
                kind: CongestionKind::Loss,
                bytes_in_flight: 20 * MSS,
                bytes_lost: MSS,
                mss: MSS,
            },
        );
        assert_eq!(
            (v.cwnd(), v.ssthresh(), v.core.enabled),
            (10 * MSS, 10 * MSS, false)
        );
        let a = AckSample {
            bytes_acked: MSS,
            in_recovery: true,
            snd_una: 5 * MSS,
            snd_nxt: 30 * MSS,
            ..AckSample::empty(MSS)
        };
        v.on_ack(Time(0), &a);
        assert_eq!(v.cwnd(), 10 * MSS);
        v.on_recovery_exit(Time(0));
        assert!(v.core.enabled);
        assert_eq!(v.core.beg_snd_nxt, 30 * MSS);
        v.on_rto(
            Time(0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((v.cwnd(), v.ssthresh()), (MSS, 5 * MSS));
    }

    #[test]
    fn tx_start_after_idle_resets_base_rtt() {
        let mut v = primed(20, 10);
        v.on_sent(
            Time(0),
            &SentInfo {
                bytes: MSS,
                bytes_in_flight: MSS,
                retransmission: false,
                seq: 7 * MSS,
                app_limited: false,
            },
        );
        assert_eq!(
            (v.core.base_rtt, v.core.beg_snd_nxt, v.core.snd_nxt),
            (RTT_UNSET_US, 7 * MSS, 8 * MSS)
        );
        // Not idle: nothing reset.
        v.core.base_rtt = 100_000;
        v.on_sent(
            Time(0),
            &SentInfo {
                bytes: MSS,
                bytes_in_flight: 2 * MSS,
                retransmission: false,
                seq: 8 * MSS,
                app_limited: false,
            },
        );
        assert_eq!((v.core.base_rtt, v.core.snd_nxt), (100_000, 9 * MSS));
    }
}
