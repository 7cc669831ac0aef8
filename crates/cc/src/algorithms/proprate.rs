//! PropRate (Leong, Wang & Leong, CoNEXT 2017), as Wang 2018 describes it (§2.3.3,
//! §3.2, §6.1.3): a rate-based sender whose control variable is the bottleneck buffer
//! delay. It estimates the bottleneck bandwidth from the receive rate measured with
//! receiver timestamps (the technique EvaRate reuses, §4.4.1) and oscillates its sending
//! rate around it: "If the buffer delay exceeds an application-specified buffer delay,
//! PropRate sends slower than the estimated bandwidth to drain the bottleneck buffer,
//! otherwise it sends faster to gradually fill the buffer." It lets the buffer empty for
//! short periods, which is how it reaches lower latencies than EvaRate (§6.1.3).
//!
//! The thesis gives neither the target nor the fill/drain gains ("take from [27]"); the
//! defaults here and every other unstated detail are listed below.
//!
//! Differences from the source (the reasoning is in docs/deviations/proprate.md):
//! - target buffer delay 10 ms, fill gain 1.25, drain gain 0.75 (not given by the thesis):
//!   docs/deviations/proprate.md#proprate-targets
//! - buffer delay from one-way delays: docs/deviations/proprate.md#proprate-buffer-delay
//! - bandwidth from EvaRate's receive-rate sampler: docs/deviations/proprate.md#proprate-bandwidth
//! - slow start, loss, RTO and the in-flight guard:
//!   docs/deviations/proprate.md#proprate-ss-loss-rto

use crate::api::*;
use crate::estimators::receive_rate::{LostBytes, ReceiveRateSampler};
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Rate, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "proprate",
    aliases: &[],
    summary: "PropRate: rate oscillates around the receive-rate bandwidth estimate to hold a target buffer delay",
    source: "Wang 2018 §2.3.3, §3.2, §6.1.3 (Leong et al., CoNEXT 2017)",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "target_buffer_delay", kind: ParamKind::Duration { min: Dur::ZERO, max: Dur::from_secs(10) }, default: ParamValue::Dur(Dur::from_millis(10)), unit: "", doc: "application-specified buffer delay: drain above it, fill below it", source: "Wang 2018 §2.3.3 (value not given; ours)" },
    ParamSpec { name: "fill_gain", kind: ParamKind::Float { min: 1.0, max: 4.0 }, default: ParamValue::Float(1.25), unit: "", doc: "sending rate / estimated bandwidth while filling", source: "Wang 2018 §2.3.3 (\"faster\"; value ours)" },
    ParamSpec { name: "drain_gain", kind: ParamKind::Float { min: 0.0, max: 1.0 }, default: ParamValue::Float(0.75), unit: "", doc: "sending rate / estimated bandwidth while draining", source: "Wang 2018 §2.3.3 (\"slower\"; value ours)" },
    ParamSpec { name: "rho_ewma_alpha", kind: ParamKind::Float { min: 0.0, max: 1.0 }, default: ParamValue::Float(0.125), unit: "", doc: "weight of the old value in the bandwidth EWMA ρ̄ = a·ρ̄ + (1 − a)·ρ̂", source: "Wang 2018 §4.4.1 Eq. 4.12 (EvaRate's estimator, taken from PropRate)" },
    ParamSpec { name: "busy_delay", kind: ParamKind::Duration { min: Dur::ZERO, max: Dur::from_secs(1) }, default: ParamValue::Dur(Dur::from_millis(1)), unit: "", doc: "a receive-rate sample lower than the estimate counts only if the buffer delay stayed above this during its round (the link was busy)", source: "ours" },
    ParamSpec { name: "initial_burst", kind: ParamKind::Int { min: 1, max: 1000 }, default: ParamValue::Int(10), unit: "packets", doc: "packets sent before the first receive-rate sample", source: "Wang 2018 ch. 4 intro (\"like the previous algorithms [27], we send 10 initial packets\")" },
    ParamSpec { name: "ss_gain", kind: ParamKind::Float { min: 1.0, max: 4.0 }, default: ParamValue::Float(2.0), unit: "", doc: "slow-start rate growth per RTT until the buffer delay reaches the target", source: "ours (Wang 2018 ch. 4 intro contrasts EvaRate's 1.5 with doubling)" },
    ParamSpec { name: "ts_granularity", kind: ParamKind::Duration { min: Dur::ZERO, max: Dur::from_millis(100) }, default: ParamValue::Dur(Dur::ZERO), unit: "", doc: "receiver timestamp granularity (0: the datapath's resolution)", source: "Wang 2018 §4.4.1" },
];

/// PropRate's parameters (Wang 2018 §2.3.3, after Leong et al., CoNEXT 2017). Wang 2018
/// gives few values; the rest are ours (docs/deviations/proprate.md).
#[derive(Clone, Debug, PartialEq)]
pub struct PropRateConfig {
    /// `target_buffer_delay`: application-specified buffer delay, drain above it, fill
    /// below it. Wang 2018 §2.3.3 (value not given; ours).
    pub target_buffer_delay: Dur,
    /// `fill_gain`: sending rate / estimated bandwidth while filling. Wang 2018 §2.3.3
    /// ("faster"; value ours).
    pub fill_gain: f64,
    /// `drain_gain`: sending rate / estimated bandwidth while draining. Wang 2018 §2.3.3
    /// ("slower"; value ours).
    pub drain_gain: f64,
    /// `rho_ewma_alpha`: weight of the old value in ρ̄ = a·ρ̄ + (1 − a)·ρ̂. Wang 2018 §4.4.1
    /// eq. 4.12.
    pub rho_ewma_alpha: f64,
    /// `busy_delay`: a lower receive-rate sample counts only if the buffer delay stayed
    /// above this during its round (the link was busy). Ours.
    pub busy_delay: Dur,
    /// `initial_burst`, packets sent before the first receive-rate sample. Wang 2018 ch. 4
    /// intro ("we send 10 initial packets").
    pub initial_burst: u64,
    /// `ss_gain`: slow-start rate growth per RTT until the buffer delay reaches the target.
    /// Ours (Wang 2018 ch. 4 intro contrasts EvaRate's 1.5 with doubling).
    pub ss_gain: f64,
    /// `ts_granularity`: receiver timestamp granularity (0: the datapath's resolution).
    /// Wang 2018 §4.4.1.
    pub ts_granularity: Dur,
}

impl Default for PropRateConfig {
    fn default() -> PropRateConfig {
        PropRateConfig {
            target_buffer_delay: Dur::from_millis(10),
            fill_gain: 1.25,
            drain_gain: 0.75,
            rho_ewma_alpha: 0.125,
            busy_delay: Dur::from_millis(1),
            initial_burst: 10,
            ss_gain: 2.0,
            ts_granularity: Dur::ZERO,
        }
    }
}

impl TryFrom<&ParamSet> for PropRateConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<PropRateConfig, ParamError> {
        let r = p.reader("proprate");
        Ok(PropRateConfig {
            target_buffer_delay: r.dur("target_buffer_delay")?,
            fill_gain: r.f64("fill_gain")?,
            drain_gain: r.f64("drain_gain")?,
            rho_ewma_alpha: r.f64("rho_ewma_alpha")?,
            busy_delay: r.dur("busy_delay")?,
            initial_burst: r.u64("initial_burst")?,
            ss_gain: r.f64("ss_gain")?,
            ts_granularity: r.dur("ts_granularity")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = PropRateConfig::try_from(p).expect("proprate: parameters resolved against PARAMS");
    Box::new(PropRate::new(&cfg, &init))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    SlowStart,
    Fill,
    Drain,
}

#[derive(Clone, Debug)]
pub struct PropRate {
    target: Dur,
    fill_gain: f64,
    drain_gain: f64,
    rho_a: f64,
    busy_delay: Dur,
    initial_burst: u64,
    ss_gain: f64,
    mss: u64,
    state: State,
    rr: ReceiveRateSampler,
    lost: LostBytes,
    rtt_min: Option<Dur>,
    srtt: Option<Dur>,
    owd_min: Option<i64>,
    /// Latest buffer delay estimate: OWD − min OWD.
    t_buff: Dur,
    /// Smallest buffer delay seen since the last receive-rate sample.
    round_min_tbuff: Dur,
    /// Bandwidth estimate ρ̄, bytes/s.
    rho: Option<f64>,
    ss_rate: Option<f64>,
    /// The largest ρ̂ of this slow start: the slow-start rate stays within `ss_gain²` of
    /// it (docs/deviations/proprate.md#proprate-ss-loss-rto).
    ss_peak: f64,
    cwnd: u64,
}

impl PropRate {
    pub fn new(cfg: &PropRateConfig, init: &CcInit) -> PropRate {
        let mss = init.mss.max(1);
        let initial_burst = cfg.initial_burst;
        PropRate {
            target: cfg.target_buffer_delay,
            fill_gain: cfg.fill_gain,
            drain_gain: cfg.drain_gain,
            rho_a: cfg.rho_ewma_alpha,
            busy_delay: cfg.busy_delay,
            initial_burst,
            ss_gain: cfg.ss_gain,
            mss,
            state: State::SlowStart,
            rr: ReceiveRateSampler::new(cfg.ts_granularity),
            lost: LostBytes::default(),
            rtt_min: None,
            srtt: None,
            owd_min: None,
            t_buff: Dur::ZERO,
            round_min_tbuff: Dur::MAX,
            rho: None,
            ss_rate: None,
            ss_peak: 0.0,
            cwnd: initial_burst * mss,
        }
    }

    pub fn state(&self) -> State {
        self.state
    }

    fn on_sample(&mut self, rho_hat: f64) {
        // Only a round in which the bottleneck stayed busy measures its bandwidth; an
        // emptied buffer gives our own (lower) sending rate.
        let busy = self.round_min_tbuff >= self.busy_delay;
        self.round_min_tbuff = Dur::MAX;
        self.rho = match self.rho {
            None => Some(rho_hat),
            Some(old) if busy || rho_hat > old || self.state == State::SlowStart => {
                Some(self.rho_a * old + (1.0 - self.rho_a) * rho_hat)
            }
            keep => keep,
        };
        if self.state == State::SlowStart {
            // Doubling per round (ours, the thesis gives PropRate no start-up), but never
            // more than two doublings ahead of the best receive rate measured: the receive
            // rate lags the sending rate by a round, and a buffer shallower than the target
            // delay never ends slow start, so without the bound the rate (and the in-flight
            // guard) would double forever (docs/deviations/proprate.md#proprate-ss-loss-rto).
            self.ss_peak = self.ss_peak.max(rho_hat);
            let doubled = self.ss_gain * self.ss_rate.unwrap_or(rho_hat);
            self.ss_rate = Some(doubled.min(self.ss_gain * self.ss_gain * self.ss_peak));
        }
    }

    fn sending_rate(&self) -> Option<f64> {
        match self.state {
            State::SlowStart => self.ss_rate,
            State::Fill => self.rho.map(|r| self.fill_gain * r),
            State::Drain => self.rho.map(|r| self.drain_gain * r),
        }
    }
}

impl CongestionControl for PropRate {
    fn name(&self) -> &'static str {
        "proprate"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
            self.srtt = Some(
                self.srtt
                    .map_or(rtt, |s| Dur((7 * s.nanos() + rtt.nanos()) / 8)),
            );
        }
        if let Some(owd) = ack.owd {
            // Buffer delay from receiver timestamps: the one-way delay above its minimum.
            let m = self.owd_min.map_or(owd, |m| m.min(owd));
            self.owd_min = Some(m);
            self.t_buff = Dur((owd - m) as u64);
            self.round_min_tbuff = self.round_min_tbuff.min(self.t_buff);
        }
        if let Some(s) = self.rr.on_ack(now, ack) {
            self.on_sample(s.bytes_per_sec);
        }
        // Fill below the target buffer delay, drain above it.
        let above = self.t_buff >= self.target;
        self.state = match self.state {
            State::SlowStart if above && self.rho.is_some() => State::Drain,
            State::SlowStart => State::SlowStart,
            _ if above => State::Drain,
            _ => State::Fill,
        };
        self.cwnd = match (self.sending_rate(), self.rtt_min) {
            (Some(s), Some(rtt_min)) => {
                // Outage guard (rate-based senders are not ACK-clocked): at most twice
                // the rate times (RTT_min + target) in flight.
                let base = s.max(self.rho.unwrap_or(0.0));
                ((2.0 * base * (rtt_min + self.target).secs_f64()).ceil() as u64).max(4 * self.mss)
            }
            _ => self.initial_burst * self.mss,
        };
    }

    fn on_congestion(&mut self, _now: Time, _ev: &CongestionEvent) {
        // The thesis describes no loss reaction (Wang 2018 §3.2: loss "negligible").
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        self.state = State::SlowStart;
        self.rho = None;
        self.ss_rate = None;
        self.ss_peak = 0.0;
        self.rr.reset();
        self.round_min_tbuff = Dur::MAX;
        self.cwnd = self.initial_burst * self.mss;
    }

    fn on_sent(&mut self, _now: Time, sent: &SentInfo) {
        self.lost.on_sent(sent.bytes);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn pacing_rate(&self) -> Option<Rate> {
        self.sending_rate().map(|s| Rate((s * 8.0).round() as u64))
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("state", self.state as u8 as f64));
        out.push(("bw_mbps", self.rho.map_or(0.0, |r| r * 8.0 / 1e6)));
        out.push((
            "rate_mbps",
            self.sending_rate().map_or(0.0, |r| r * 8.0 / 1e6),
        ));
        out.push(("buffer_delay_ms", self.t_buff.secs_f64() * 1e3));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            PropRateConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            PropRateConfig::default()
        );
    }
    use crate::rng::Rng;

    const MSS: u64 = 1000;

    fn pr() -> PropRate {
        PropRate::new(
            &PropRateConfig::default(),
            &CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(1),
            },
        )
    }

    /// An ACK at `t` ms with RTT 40 ms and one-way delay `owd` ms (plus a clock offset).
    fn ack(owd_ms: f64, delivered: u64, una: u64, nxt: u64) -> AckSample {
        AckSample {
            rtt: Some(Dur::from_millis(40)),
            owd: Some((owd_ms * 1e6) as i64 + 5_000_000_000),
            delivered: delivered * MSS,
            snd_una: una * MSS,
            snd_nxt: nxt * MSS,
            bytes_acked: MSS,
            ..AckSample::empty(MSS)
        }
    }

    fn ms(x: f64) -> Time {
        Time((x * 1e6) as u64)
    }

    #[test]
    fn fills_below_target_and_drains_above_it() {
        let mut p = pr();
        p.state = State::Fill;
        p.rho = Some(2e6);
        p.rtt_min = Some(Dur::from_millis(40));
        // OWD 20 ms sets the minimum: buffer delay 0 < 10 ms → fill at 1.25 · 2e6.
        p.on_ack(ms(100.0), &ack(20.0, 1, 1, 50));
        assert_eq!(
            (p.state(), p.pacing_rate()),
            (State::Fill, Some(Rate(20_000_000)))
        );
        // In-flight guard: 2 · 2.5e6 · (0.040 + 0.010) = 250,000 bytes.
        assert_eq!(p.cwnd(), 250_000);
        // OWD 31 ms: buffer delay 11 ms ≥ 10 ms → drain at 0.75 · 2e6 = 1.5e6 B/s.
        p.on_ack(ms(101.0), &ack(31.0, 2, 2, 50));
        assert_eq!(
            (p.state(), p.pacing_rate()),
            (State::Drain, Some(Rate(12_000_000)))
        );
        assert_eq!(p.t_buff, Dur::from_millis(11));
        // Back to 29 ms: 9 ms < 10 ms → fill.
        p.on_ack(ms(102.0), &ack(29.0, 3, 3, 50));
        assert_eq!(p.state(), State::Fill);
    }

    #[test]
    fn bandwidth_samples_from_an_idle_bottleneck_do_not_lower_the_estimate() {
        let mut p = pr();
        p.state = State::Fill;
        p.rho = Some(2e6);
        // A busy round (buffer delay ≥ 1 ms throughout): EWMA 1/8 · 2e6 + 7/8 · 1.6e6 = 1.65e6.
        p.round_min_tbuff = Dur::from_millis(3);
        p.on_sample(1.6e6);
        assert_eq!(p.rho, Some(1.65e6));
        // A round in which the buffer emptied: a lower sample is ignored ...
        p.round_min_tbuff = Dur::ZERO;
        p.on_sample(1.0e6);
        assert_eq!(p.rho, Some(1.65e6));
        // ... a higher one is taken: 1/8 · 1.65e6 + 7/8 · 2.05e6 = 2.0e6.
        p.round_min_tbuff = Dur::ZERO;
        p.on_sample(2.05e6);
        assert!((p.rho.unwrap() - 2.0e6).abs() < 1e-6);
        assert_eq!(p.round_min_tbuff, Dur::MAX);
    }

    #[test]
    fn slow_start_stays_within_two_doublings_of_the_best_receive_rate() {
        // A buffer shallower than the target delay: the one-way delay never grows, so only
        // the bound ends the doubling. Each round delivers 10 packets in 10 ms: ρ̂ = 1e6.
        let mut p = pr();
        p.on_ack(ms(100.0), &ack(20.0, 2, 2, 10));
        let mut rates = Vec::new();
        for k in 1..=4u64 {
            p.on_ack(
                ms(100.0 + 10.0 * k as f64),
                &ack(20.0, 2 + 10 * k, 1 + 10 * k, 10 + 10 * k),
            );
            rates.push(p.ss_rate);
        }
        // 2·ρ̂, then 4·ρ̂ = ss_gain² · peak, where doubling alone would give 8e6 and 1.6e7.
        assert_eq!(rates, [Some(2e6), Some(4e6), Some(4e6), Some(4e6)]);
        assert_eq!(p.state(), State::SlowStart);
        // A faster round (15 packets in 10 ms) raises the peak and with it the bound.
        p.on_ack(ms(150.0), &ack(20.0, 57, 51, 60));
        assert_eq!(p.ss_rate, Some(6e6));
        // After an RTO the peak is forgotten with the other estimates.
        p.on_rto(
            ms(160.0),
            &RtoEvent {
                bytes_in_flight: 0,
                backoff_count: 1,
                mss: MSS,
            },
        );
        assert_eq!((p.ss_rate, p.ss_peak), (None, 0.0));
    }

    #[test]
    fn slow_start_doubles_per_round_until_the_buffer_delay_reaches_the_target() {
        let mut p = pr();
        assert_eq!((p.pacing_rate(), p.cwnd()), (None, 10 * MSS));
        // First ACK marks the round (R = 100 − 40 + 20 ms); the next one past the signal
        // packet (10 000 bytes) 10 ms later gives ρ̂ = 8 packets / 10 ms = 8e5 B/s.
        p.on_ack(ms(100.0), &ack(20.0, 2, 2, 10));
        p.on_ack(ms(110.0), &ack(20.0, 10, 11, 20));
        assert_eq!(
            (p.state(), p.rho, p.ss_rate),
            (State::SlowStart, Some(8e5), Some(1.6e6))
        );
        // Next round: ρ̂ = 10 packets in 10 ms = 1e6 → ss rate 3.2e6 (doubling the rate,
        // not ρ̂).
        p.on_ack(ms(120.0), &ack(20.0, 20, 21, 40));
        assert_eq!(p.ss_rate, Some(3.2e6));
        // Buffer delay reaches 10 ms: drain at 0.75 · ρ̄, ρ̄ = 1/8 · 8e5 + 7/8 · 1e6 = 9.75e5.
        p.on_ack(ms(121.0), &ack(30.0, 21, 22, 40));
        assert_eq!(p.state(), State::Drain);
        assert_eq!(
            p.pacing_rate(),
            Some(Rate((0.75 * 9.75e5 * 8.0f64).round() as u64))
        );
    }
}
