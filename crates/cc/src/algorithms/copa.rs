//! Copa (Arun & Balakrishnan, "Copa: Practical Delay-Based Congestion Control for the
//! Internet", NSDI 2018), as Wang 2018 uses it for comparison (§2.3.2, §3.2, §5.5).
//!
//! Target rate λt = 1/(δ·dq) packets/s with dq = RTTstanding − RTTmin, RTTstanding the
//! smallest RTT over the last srtt/2 and RTTmin the smallest over 10 s (§2.1). Per ACK
//! the window moves by v/(δ·cwnd) packets toward the target (up if the current rate
//! λ = cwnd/RTTstanding ≤ λt, down otherwise); the velocity v doubles per RTT once the
//! direction has stayed the same for three RTTs and resets to 1 when it changes (§2.2).
//! Slow start doubles cwnd per RTT until λ first exceeds λt. Packets are paced at
//! 2·cwnd/RTTstanding. Competitive mode (§2.3): if the queue was not "nearly empty"
//! (dq < 10 % of the max queueing delay of the last 4 RTTs) at least once in the last 5
//! RTTs, a buffer filler is present and 1/δ follows AIMD (+1 per RTT, halved on loss,
//! δ ≤ δ_default); otherwise δ = δ_default. Differences listed below.
//!
//! Differences from the source (the reasoning is in docs/deviations/copa.md):
//! - windows of the RTT filters: docs/deviations/copa.md#copa-rtt-windows
//! - velocity: "once per window" is once per packet-timed round:
//!   docs/deviations/copa.md#copa-velocity
//! - the competitive-mode test: docs/deviations/copa.md#copa-competitive
//! - loss and RTO: docs/deviations/copa.md#copa-loss-rto
//! - Copa wants an ACK per packet: docs/deviations/copa.md#copa-ack-every-packet

use crate::api::*;
use crate::estimators::receive_rate::LostBytes;
use crate::estimators::windowed_minmax::{WindowedMax, WindowedMin};
use crate::params::{ParamError, ParamKind, ParamSet, ParamSpec, ParamValue};
use crate::registry::AlgorithmInfo;
use crate::units::{Dur, Rate, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "copa",
    aliases: &[],
    summary:
        "Copa: delay-based target rate 1/(delta*dq) with velocity and competitive-mode switching",
    source: "Arun & Balakrishnan, Copa, NSDI 2018 §2; Wang 2018 §2.3.2, §5.5",
    params: PARAMS,
    build,
};

static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "delta",
        kind: ParamKind::Float {
            min: 0.001,
            max: 10.0,
        },
        default: ParamValue::Float(0.5),
        unit: "1/packets",
        doc: "δ of the default mode: the flow keeps about 1/δ packets queued",
        source: "Copa §2.1, §2.3 (default mode)",
    },
    ParamSpec {
        name: "mode_switching",
        kind: ParamKind::Bool,
        default: ParamValue::Bool(true),
        unit: "",
        doc: "switch to competitive mode when the queue is never nearly empty",
        source: "Copa §2.3",
    },
    ParamSpec {
        name: "velocity_rtts",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(3),
        unit: "RTTs",
        doc: "the direction must stay the same this many RTTs before v doubles",
        source: "Copa §2.2",
    },
    ParamSpec {
        name: "standing_rtt_fraction",
        kind: ParamKind::Float {
            min: 0.01,
            max: 10.0,
        },
        default: ParamValue::Float(0.5),
        unit: "srtt",
        doc: "RTTstanding is the min RTT over this fraction of srtt",
        source: "Copa §2.1 (τ = srtt/2)",
    },
    ParamSpec {
        name: "min_rtt_window",
        kind: ParamKind::Duration {
            min: Dur::from_millis(1),
            max: Dur::from_secs(3600),
        },
        default: ParamValue::Dur(Dur::from_secs(10)),
        unit: "",
        doc: "window of the RTTmin filter",
        source: "Copa §2.1",
    },
    ParamSpec {
        name: "empty_fraction",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: ParamValue::Float(0.1),
        unit: "",
        doc: "the queue is nearly empty when dq is below this fraction of the max queueing delay",
        source: "Copa §2.3",
    },
    ParamSpec {
        name: "max_delay_rtts",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(4),
        unit: "RTTs",
        doc: "window of the max queueing delay (RTTmax − RTTmin)",
        source: "Copa §2.3",
    },
    ParamSpec {
        name: "empty_check_rtts",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(5),
        unit: "RTTs",
        doc: "competitive mode if the queue was not nearly empty in this many RTTs",
        source: "Copa §2.3; Wang 2018 §3 (\"once every 5 RTT\")",
    },
    ParamSpec {
        name: "pacing_gain",
        kind: ParamKind::Float {
            min: 0.1,
            max: 10.0,
        },
        default: ParamValue::Float(2.0),
        unit: "",
        doc: "packets are paced at pacing_gain · cwnd / RTTstanding",
        source: "Copa §2.1",
    },
    ParamSpec {
        name: "min_cwnd",
        kind: ParamKind::Int { min: 1, max: 100 },
        default: ParamValue::Int(2),
        unit: "packets",
        doc: "window floor (the paper states none)",
        source: "ours, see docs/deviations/copa.md",
    },
];

/// Copa's parameters. Defaults: Arun & Balakrishnan, Copa, NSDI 2018 §2 (the window
/// floor is ours, docs/deviations/copa.md).
#[derive(Clone, Debug, PartialEq)]
pub struct CopaConfig {
    /// `delta`: δ of the default mode, the flow keeps about 1/δ packets queued. Copa §2.1,
    /// §2.3.
    pub delta: f64,
    /// `mode_switching`: switch to competitive mode when the queue is never nearly empty.
    /// Copa §2.3.
    pub mode_switching: bool,
    /// `velocity_rtts`: the direction must stay the same this many RTTs before v doubles.
    /// Copa §2.2.
    pub velocity_rtts: u64,
    /// `standing_rtt_fraction`: RTTstanding is the min RTT over this fraction of srtt.
    /// Copa §2.1 (τ = srtt/2).
    pub standing_rtt_fraction: f64,
    /// `min_rtt_window`: window of the RTTmin filter. Copa §2.1.
    pub min_rtt_window: Dur,
    /// `empty_fraction`: the queue is nearly empty when dq is below this fraction of the
    /// max queueing delay. Copa §2.3.
    pub empty_fraction: f64,
    /// `max_delay_rtts`, RTTs: window of the max queueing delay (RTTmax − RTTmin). Copa §2.3.
    pub max_delay_rtts: u64,
    /// `empty_check_rtts`, RTTs: competitive mode if the queue was not nearly empty in
    /// this many RTTs. Copa §2.3; Wang 2018 §3 ("once every 5 RTT").
    pub empty_check_rtts: u64,
    /// `pacing_gain`: packets are paced at pacing_gain·cwnd/RTTstanding. Copa §2.1.
    pub pacing_gain: f64,
    /// `min_cwnd`, packets: window floor (the paper states none); ours, see
    /// docs/deviations/copa.md.
    pub min_cwnd: u64,
}

impl Default for CopaConfig {
    fn default() -> CopaConfig {
        CopaConfig {
            delta: 0.5,
            mode_switching: true,
            velocity_rtts: 3,
            standing_rtt_fraction: 0.5,
            min_rtt_window: Dur::from_secs(10),
            empty_fraction: 0.1,
            max_delay_rtts: 4,
            empty_check_rtts: 5,
            pacing_gain: 2.0,
            min_cwnd: 2,
        }
    }
}

impl TryFrom<&ParamSet> for CopaConfig {
    type Error = ParamError;
    fn try_from(p: &ParamSet) -> Result<CopaConfig, ParamError> {
        let r = p.reader("copa");
        Ok(CopaConfig {
            delta: r.f64("delta")?,
            mode_switching: r.bool("mode_switching")?,
            velocity_rtts: r.u64("velocity_rtts")?,
            standing_rtt_fraction: r.f64("standing_rtt_fraction")?,
            min_rtt_window: r.dur("min_rtt_window")?,
            empty_fraction: r.f64("empty_fraction")?,
            max_delay_rtts: r.u64("max_delay_rtts")?,
            empty_check_rtts: r.u64("empty_check_rtts")?,
            pacing_gain: r.f64("pacing_gain")?,
            min_cwnd: r.u64("min_cwnd")?,
        })
    }
}

fn build(p: &ParamSet, init: CcInit) -> Box<dyn CongestionControl> {
    let cfg = CopaConfig::try_from(p).expect("copa: parameters resolved against PARAMS");
    Box::new(Copa::new(&cfg, &init))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    Up,
    Down,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopaMode {
    Default,
    Competitive,
}

#[derive(Clone, Debug)]
pub struct Copa {
    delta_default: f64,
    delta: f64,
    mode_switching: bool,
    velocity_rtts: u32,
    standing_fraction: f64,
    min_rtt_window: Dur,
    empty_fraction: f64,
    max_delay_rtts: u64,
    empty_check_rtts: u64,
    pacing_gain: f64,
    min_cwnd: f64,
    mss: u64,
    /// Window in packets (fractional, as the per-ACK update needs).
    cwnd: f64,
    slow_start: bool,
    srtt: Option<Dur>,
    min_rtt: WindowedMin,
    standing: WindowedMin,
    rtt_max: WindowedMax,
    velocity: f64,
    direction: Option<Dir>,
    same_dir_rounds: u32,
    cwnd_at_round_start: f64,
    round_end: u64,
    mode: CopaMode,
    last_nearly_empty: Time,
    loss_in_round: bool,
    lost_bytes: LostBytes,
    lost_total: u64,
    /// Last computed target rate λt (packets/s, infinite when dq = 0) and dq, for traces.
    target_rate: f64,
    dq: Dur,
}

impl Copa {
    pub fn new(cfg: &CopaConfig, init: &CcInit) -> Copa {
        let mss = init.mss.max(1);
        let cwnd = (init.initial_cwnd as f64 / mss as f64).max(1.0);
        Copa {
            delta_default: cfg.delta,
            delta: cfg.delta,
            mode_switching: cfg.mode_switching,
            velocity_rtts: cfg.velocity_rtts as u32,
            standing_fraction: cfg.standing_rtt_fraction,
            min_rtt_window: cfg.min_rtt_window,
            empty_fraction: cfg.empty_fraction,
            max_delay_rtts: cfg.max_delay_rtts,
            empty_check_rtts: cfg.empty_check_rtts,
            pacing_gain: cfg.pacing_gain,
            min_cwnd: cfg.min_cwnd as f64,
            mss,
            cwnd,
            slow_start: true,
            srtt: None,
            min_rtt: WindowedMin::new(),
            standing: WindowedMin::new(),
            rtt_max: WindowedMax::new(),
            velocity: 1.0,
            direction: None,
            same_dir_rounds: 0,
            cwnd_at_round_start: cwnd,
            round_end: 0,
            mode: CopaMode::Default,
            last_nearly_empty: init.now,
            loss_in_round: false,
            lost_bytes: LostBytes::default(),
            lost_total: 0,
            target_rate: f64::INFINITY,
            dq: Dur::ZERO,
        }
    }

    pub fn mode(&self) -> CopaMode {
        self.mode
    }

    fn standing_rtt(&self) -> Option<Dur> {
        self.standing.get().map(Dur)
    }

    /// §2.2: "if the direction changes, v is reset to 1" (mvfst's `changeDirection`).
    fn change_direction(&mut self, dir: Dir) {
        self.velocity = 1.0;
        self.same_dir_rounds = 0;
        self.direction = Some(dir);
    }

    /// A new round begins: the next direction comparison is against this cwnd, and the
    /// round ends once what is in flight now is acknowledged (§2.2 "once per window").
    fn start_round(&mut self, ack: &AckSample) {
        self.cwnd_at_round_start = self.cwnd;
        self.round_end = ack.snd_nxt.max(ack.snd_una + 1);
    }

    /// Once per RTT: velocity (§2.2) and, in competitive mode, δ (§2.3); then the next
    /// round starts.
    fn on_round_end(&mut self, ack: &AckSample) {
        if !self.slow_start {
            let dir = if self.cwnd > self.cwnd_at_round_start {
                Dir::Up
            } else {
                Dir::Down
            };
            if Some(dir) == self.direction {
                self.same_dir_rounds += 1;
                // "start doubling v only after the direction has remained the same for
                // three RTTs" (§2.2).
                if self.same_dir_rounds >= self.velocity_rtts {
                    self.velocity *= 2.0;
                }
            } else {
                self.change_direction(dir);
            }
        }
        if self.mode == CopaMode::Competitive {
            // AIMD on 1/δ: +1 per RTT without loss, halved on loss; δ never above the
            // default δ.
            let inv = 1.0 / self.delta;
            let inv = if self.loss_in_round {
                inv / 2.0
            } else {
                inv + 1.0
            };
            self.delta = (1.0 / inv).min(self.delta_default);
        }
        self.loss_in_round = false;
        self.start_round(ack);
    }

    fn update_mode(&mut self, now: Time, rtt_min: Dur, standing: Dur, srtt: Dur) {
        if !self.mode_switching {
            return;
        }
        let dq = standing - rtt_min;
        let max_dq = Dur(self.rtt_max.get().unwrap_or(0)) - rtt_min;
        // "Nearly empty": dq < 10 % of the max queueing delay over the last 4 RTTs.
        if dq.nanos() as f64 <= self.empty_fraction * max_dq.nanos() as f64 {
            self.last_nearly_empty = now;
        }
        let competitive =
            now.since(self.last_nearly_empty) > Dur(srtt.nanos() * self.empty_check_rtts);
        match (self.mode, competitive) {
            (CopaMode::Default, true) => self.mode = CopaMode::Competitive,
            (CopaMode::Competitive, false) => {
                self.mode = CopaMode::Default;
                self.delta = self.delta_default;
            }
            _ => {}
        }
    }
}

impl CongestionControl for Copa {
    fn name(&self) -> &'static str {
        "copa"
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        let mss = self.mss as f64;
        let lost = self.lost_bytes.lost(ack);
        if lost > self.lost_total {
            self.loss_in_round = true;
            self.lost_total = lost;
        }
        if let Some(rtt) = ack.rtt {
            self.srtt = Some(match self.srtt {
                None => rtt,
                Some(s) => Dur((7 * s.nanos() + rtt.nanos()) / 8),
            });
            let srtt = self.srtt.unwrap_or(rtt);
            self.min_rtt
                .update_at(now, rtt.nanos(), self.min_rtt_window);
            self.standing
                .update_at(now, rtt.nanos(), srtt.mul_f64(self.standing_fraction));
            self.rtt_max
                .update_at(now, rtt.nanos(), Dur(srtt.nanos() * self.max_delay_rtts));
        }
        let (Some(rtt_min), Some(standing), Some(srtt)) =
            (self.min_rtt.get().map(Dur), self.standing_rtt(), self.srtt)
        else {
            return;
        };
        self.update_mode(now, rtt_min, standing, srtt);
        if ack.snd_una >= self.round_end {
            self.on_round_end(ack);
        }
        if ack.bytes_acked == 0 {
            return;
        }
        let acked = ack.bytes_acked as f64 / mss;
        // §2.1: dq = RTTstanding − RTTmin; λt = 1/(δ·dq); λ = cwnd/RTTstanding.
        // Increase iff λ ≤ λt ⇔ cwnd·δ·dq ≤ RTTstanding (and always when dq = 0).
        let dq = standing - rtt_min;
        self.dq = dq;
        self.target_rate = if dq == Dur::ZERO {
            f64::INFINITY
        } else {
            1.0 / (self.delta * dq.secs_f64())
        };
        let increase =
            dq == Dur::ZERO || self.cwnd * self.delta * dq.secs_f64() <= standing.secs_f64();
        if self.slow_start {
            if increase {
                // Slow start: cwnd doubles per RTT while λ < λt.
                self.cwnd += acked;
                return;
            }
            self.slow_start = false;
            self.cwnd_at_round_start = self.cwnd;
        }
        // §2.2: v resets to 1 when the direction changes. The per-round test in
        // `on_round_end` sees a change only at the end of a round, so a v doubled for one
        // direction would keep pushing the other way for the rest of the round; as mvfst's
        // Copa (`changeDirection`) we reset v on the first ACK that asks for the other
        // direction, and the next comparison is a whole window from here: this cwnd, and
        // a new round that ends when what is in flight now is acknowledged (mvfst restarts
        // `lastCwndRecordTime`). Keeping the old round end made its rest count as a full
        // round of the new direction, and v doubled a round early
        // (docs/deviations/copa.md#copa-velocity).
        let want = if increase { Dir::Up } else { Dir::Down };
        if self.velocity > 1.0 && self.direction != Some(want) {
            self.change_direction(want);
            self.start_round(ack);
        }
        // §2.1 step 3: cwnd ± v/(δ·cwnd) per acknowledged packet.
        let step = acked * self.velocity / (self.delta * self.cwnd);
        if increase {
            self.cwnd += step;
        } else {
            self.cwnd -= step;
        }
        if self.cwnd < self.min_cwnd {
            self.cwnd = self.min_cwnd;
            self.velocity = 1.0;
        }
    }

    fn on_congestion(&mut self, _now: Time, ev: &CongestionEvent) {
        // Default mode ignores loss (§2.3); competitive mode halves 1/δ at the round end.
        if ev.kind == CongestionKind::Loss {
            self.loss_in_round = true;
        }
    }

    fn on_rto(&mut self, _now: Time, _ev: &RtoEvent) {
        self.cwnd = self.min_cwnd;
        self.velocity = 1.0;
        self.direction = None;
        self.same_dir_rounds = 0;
        self.slow_start = true;
        self.loss_in_round = true;
    }

    fn on_sent(&mut self, _now: Time, sent: &SentInfo) {
        self.lost_bytes.on_sent(sent.bytes);
    }

    fn cwnd(&self) -> u64 {
        (self.cwnd * self.mss as f64).round() as u64
    }

    fn pacing_rate(&self) -> Option<Rate> {
        let standing = self.standing_rtt()?;
        if standing == Dur::ZERO {
            return None;
        }
        let bytes = self.pacing_gain * self.cwnd * self.mss as f64;
        Some(Rate((bytes * 8.0 / standing.secs_f64()).round() as u64))
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cwnd_pkts", self.cwnd));
        out.push(("velocity", self.velocity));
        out.push(("delta", self.delta));
        out.push(("dq_ms", self.dq.secs_f64() * 1e3));
        // 1 = competitive (a buffer filler is present), 0 = default mode (§2.3).
        out.push((
            "mode",
            if self.mode == CopaMode::Competitive {
                1.0
            } else {
                0.0
            },
        ));
        out.push(("slow_start", if self.slow_start { 1.0 } else { 0.0 }));
        // The inputs of the "nearly empty" test (§2.3): dq is compared with
        // empty_fraction · (rtt_max_4rtt − rtt_min); competitive after empty_check_rtts · srtt
        // without a pass (docs/deviations/copa.md#copa-trace-grid-lock-in).
        out.push((
            "rtt_min_ms",
            self.min_rtt.get().map_or(0.0, |n| n as f64 / 1e6),
        ));
        out.push((
            "rtt_max_4rtt_ms",
            self.rtt_max.get().map_or(0.0, |n| n as f64 / 1e6),
        ));
        out.push(("last_nearly_empty_s", self.last_nearly_empty.secs_f64()));
        out.push((
            "standing_rtt_ms",
            self.standing_rtt().map_or(0.0, |d| d.secs_f64() * 1e3),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_defaults_match_spec_table() {
        assert_eq!(
            CopaConfig::try_from(&ParamSet::defaults(PARAMS)).unwrap(),
            CopaConfig::default()
        );
    }
    use crate::rng::Rng;

    const MSS: u64 = 1000;

    fn copa() -> Copa {
        Copa::new(
            &CopaConfig::default(),
            &CcInit {
                now: Time(0),
                mss: MSS,
                initial_cwnd: 10 * MSS,
                rng: Rng::new(1),
            },
        )
    }

    fn ack(rtt_ms: f64, pkts: u64, una: u64, nxt: u64) -> AckSample {
        AckSample {
            bytes_acked: pkts * MSS,
            rtt: Some(Dur::from_secs_f64(rtt_ms / 1e3)),
            snd_una: una * MSS,
            snd_nxt: nxt * MSS,
            ..AckSample::empty(MSS)
        }
    }

    fn ms(x: f64) -> Time {
        Time((x * 1e6) as u64)
    }

    #[test]
    fn slow_start_doubles_until_rate_exceeds_target() {
        let mut c = copa();
        // 40 ms RTTs: dq = 0 → λt infinite → +1 packet per ACKed packet.
        c.on_ack(ms(40.0), &ack(40.0, 1, 1, 10));
        assert_eq!(c.cwnd, 11.0);
        // RTT 42 ms at 41 ms: standing = min over srtt/2 (≈ 20 ms) = 40 → dq = 0 still.
        c.on_ack(ms(41.0), &ack(42.0, 1, 2, 11));
        assert_eq!(c.cwnd, 12.0);
        // 100 ms later, RTT 50 ms: srtt = 7/8·(7/8·40 + 42/8 = 40.25) + 50/8 = 41.47 ms,
        // standing window ≈ 20.7 ms holds only this sample → standing = 50, min = 40,
        // dq = 10 ms; λt = 1/(0.5 · 0.01) = 200 pkt/s; λ = 12 / 0.05 = 240 > 200 → leave
        // slow start and decrease by v/(δ·cwnd) = 1/(0.5·12) = 1/6.
        c.on_ack(ms(141.0), &ack(50.0, 1, 3, 12));
        assert!(!c.slow_start);
        assert!((c.target_rate - 200.0).abs() < 1e-9);
        assert!((c.cwnd - (12.0 - 1.0 / 6.0)).abs() < 1e-12, "{}", c.cwnd);
        // Pacing: 2 · cwnd · 1000 B / 50 ms in bit/s = 2·11.8333·1000·8/0.05.
        let expect = (2.0 * (12.0 - 1.0 / 6.0) * 1000.0 * 8.0 / 0.05f64).round() as u64;
        assert_eq!(c.pacing_rate(), Some(Rate(expect)));
    }

    #[test]
    fn per_ack_step_is_v_over_delta_cwnd_and_two_packet_acks_count_twice() {
        let mut c = copa();
        c.slow_start = false;
        c.cwnd = 20.0;
        c.on_ack(ms(40.0), &ack(40.0, 2, 1, 20));
        // dq = 0 → increase by 2 · 1/(0.5 · 20) = 0.2.
        assert!((c.cwnd - 20.2).abs() < 1e-12);
        // With v = 4: 2·4/(0.5·20.2) = 0.792079...
        c.velocity = 4.0;
        c.on_ack(ms(41.0), &ack(40.0, 2, 3, 22));
        assert!((c.cwnd - (20.2 + 8.0 / 10.1)).abs() < 1e-12);
    }

    #[test]
    fn velocity_doubles_after_three_same_direction_rounds_and_resets_on_change() {
        let mut c = copa();
        c.slow_start = false;
        let mut seq = Vec::new();
        // Rounds with cwnd rising: directions Up, Up, Up, Up, Up.
        for _ in 0..6 {
            c.cwnd += 1.0;
            c.on_round_end(&AckSample::empty(MSS));
            seq.push(c.velocity);
        }
        // Round 1 sets the direction (reset to 1); rounds 2, 3: same count 1, 2 (no
        // doubling); round 4: count 3 → 2; 5 → 4; 6 → 8.
        assert_eq!(seq, vec![1.0, 1.0, 1.0, 2.0, 4.0, 8.0]);
        // Direction changes: v = 1.
        c.cwnd -= 1.0;
        c.on_round_end(&AckSample::empty(MSS));
        assert_eq!((c.velocity, c.same_dir_rounds), (1.0, 0));
    }

    #[test]
    fn velocity_resets_on_the_ack_that_turns_the_direction_mid_round() {
        let mut c = copa();
        c.slow_start = false;
        c.cwnd = 20.0;
        c.velocity = 4.0;
        c.direction = Some(Dir::Up);
        c.same_dir_rounds = 5;
        c.cwnd_at_round_start = 18.0;
        // The round ends when SND.UNA reaches packet 100: every ACK below is mid-round.
        c.round_end = 100 * MSS;
        // RTT 40 ms: dq = 0 → up with v = 4: 20 + 4/(0.5·20) = 20.4.
        c.on_ack(ms(40.0), &ack(40.0, 1, 1, 30));
        assert!((c.cwnd - 20.4).abs() < 1e-12, "{}", c.cwnd);
        assert_eq!((c.velocity, c.direction), (4.0, Some(Dir::Up)));
        // 101 ms later, RTT 60 ms: srtt = (7·40 + 60)/8 = 42.5 ms, the standing window
        // (21.25 ms) holds only this sample → standing 60, min 40, dq = 20 ms;
        // cwnd·δ·dq = 20.4·0.5·0.02 = 0.204 s > 0.06 s → down. The direction turned: v = 1
        // before the step, so 20.4 − 1/(0.5·20.4) (with v = 4 it was 20.4 − 4/10.2).
        c.on_ack(ms(141.0), &ack(60.0, 1, 2, 31));
        let after = 20.4 - 1.0 / 10.2;
        assert!((c.cwnd - after).abs() < 1e-12, "{}", c.cwnd);
        assert_eq!(
            (c.velocity, c.direction, c.same_dir_rounds),
            (1.0, Some(Dir::Down), 0)
        );
        assert_eq!(c.cwnd_at_round_start, 20.4);
        // The comparison restarts a whole window from here: the round now ends when
        // SND.NXT at the turn (packet 31) is acknowledged, not at packet 100.
        assert_eq!(c.round_end, 31 * MSS);
        // Still down at the next ACK: v stays 1.
        c.on_ack(ms(142.0), &ack(60.0, 1, 3, 32));
        let after2 = after - 1.0 / (0.5 * after);
        assert!((c.cwnd - after2).abs() < 1e-12, "{}", c.cwnd);
        // Packet 30 acknowledged: still inside the window that started at the turn.
        c.on_ack(ms(143.0), &ack(60.0, 1, 30, 40));
        assert_eq!((c.direction, c.same_dir_rounds), (Some(Dir::Down), 0));
        // The round ends: cwnd fell from 20.4, the direction it turned to, so the count of
        // same-direction rounds starts (1 of the 3 before v doubles).
        c.on_ack(ms(144.0), &ack(60.0, 1, 100, 130));
        assert_eq!(
            (c.velocity, c.direction, c.same_dir_rounds),
            (1.0, Some(Dir::Down), 1)
        );
        // A velocity of 1 is not reset by a mid-round turn (nothing to reset): the
        // direction is left to the round end, as the paper's once-per-window test.
        c.on_ack(ms(300.0), &ack(40.0, 1, 101, 131));
        assert_eq!((c.velocity, c.direction), (1.0, Some(Dir::Down)));
    }

    /// Feeds one ACK per ms from `t0` for `n` ms: a sawtooth of RTTs that restarts every
    /// 10 ms at `floor_ms` and climbs to `floor_ms + rise_ms` (the queue Copa keeps in
    /// default mode, draining to its floor twice per standing window).
    fn sawtooth(c: &mut Copa, t0: f64, n: u64, floor_ms: f64, rise_ms: f64) -> f64 {
        let mut t = t0;
        for i in 0..n {
            t += 1.0;
            let r = floor_ms + rise_ms * (i % 10) as f64 / 9.0;
            c.on_ack(ms(t), &ack(r, 1, 1 + i, 60 + i));
        }
        t
    }

    /// The nearly-empty test of §2.3 (dq ≤ 0.1 · (RTTmax over 4 RTTs − RTTmin)) against a
    /// floor that is not RTTmin. On Wang 2018's 16 Mbit/s trace link (delivery on a 1 ms
    /// grid both ways) RTTmin is one lucky sample, 40.382 ms, and an empty queue reads
    /// 41.0 ms afterwards: dq = 0.618 ms > 0.1 · (44.64 − 40.382) = 0.426 ms, so Copa alone
    /// goes competitive (docs/deviations/copa.md#copa-trace-grid-lock-in).
    #[test]
    fn a_queue_floor_above_a_tenth_of_the_max_queueing_delay_reads_as_a_buffer_filler() {
        let run = |floor_ms: f64| {
            let mut c = copa();
            c.slow_start = false;
            c.cwnd = 55.0;
            // One lucky sample sets RTTmin (10 s window) at 40.382 ms.
            c.on_ack(ms(0.0), &ack(40.382, 1, 0, 60));
            // The max over 4 RTTs is 40.382 + 4.258 = 44.64 ms in both runs.
            let t = sawtooth(&mut c, 0.0, 400, floor_ms, 44.64 - floor_ms);
            (c, t)
        };
        // Floor 41.0: dq ≥ 0.618 ms at every ACK, never ≤ 0.4258 ms → competitive once
        // 5 srtt (≈ 5 · 43 ms) have passed without a nearly-empty reading. The last pass
        // is at 21 ms, the last ACK whose standing window (srtt/2 ≈ 21 ms) still held the
        // lucky sample.
        let (c, _) = run(41.0);
        assert_eq!(c.mode(), CopaMode::Competitive);
        assert_eq!(c.last_nearly_empty, ms(21.0));
        assert_eq!(c.min_rtt.get(), Some(40_382_000));
        assert_eq!(c.rtt_max.get(), Some(44_640_000));
        // Floor 40.782: dq = 0.4 ms ≤ 0.4258 ms at the floor → nearly empty every 10 ms,
        // default mode throughout with δ = 0.5.
        let (c, t) = run(40.782);
        assert_eq!((c.mode(), c.delta), (CopaMode::Default, 0.5));
        assert!(ms(t).since(c.last_nearly_empty) <= Dur::from_millis(10));
    }

    #[test]
    fn competitive_mode_when_queue_never_nearly_empty_and_aimd_on_inverse_delta() {
        let mut c = copa();
        c.slow_start = false;
        c.cwnd = 50.0;
        // RTTs at 40 ms first, then a queue that stays 60..70 ms for longer than 5 RTTs.
        let mut t = 0.0;
        let mut una = 0;
        for _ in 0..10 {
            t += 4.0;
            una += 1;
            c.on_ack(ms(t), &ack(40.0, 1, una, una + 50));
        }
        assert_eq!(c.mode(), CopaMode::Default);
        for i in 0..200 {
            t += 4.0;
            una += 1;
            let r = 60.0 + (i % 10) as f64;
            c.on_ack(ms(t), &ack(r, 1, una, una + 50));
        }
        // dq ≈ 20 ms is never below 10 % of max dq (≈ 29 ms): competitive after 5 srtt.
        assert_eq!(c.mode(), CopaMode::Competitive);
        // AIMD on 1/δ: from δ = 0.5 (1/δ = 2) a loss-free round gives 1/δ = 3.
        c.delta = 0.5;
        c.loss_in_round = false;
        c.on_round_end(&AckSample::empty(MSS));
        assert!((c.delta - 1.0 / 3.0).abs() < 1e-12);
        // A round with loss halves 1/δ: 3 / 2 = 1.5 → δ = 0.667, capped at 0.5.
        c.loss_in_round = true;
        c.on_round_end(&AckSample::empty(MSS));
        assert_eq!(c.delta, 0.5);
        // Two loss-free rounds: 1/δ = 2 + 1 + 1 = 4 → δ = 0.25.
        c.on_round_end(&AckSample::empty(MSS));
        c.on_round_end(&AckSample::empty(MSS));
        assert!((c.delta - 0.25).abs() < 1e-12);
        // The queue empties (RTT back to 40 ms): default mode, δ reset to 0.5.
        for _ in 0..30 {
            t += 4.0;
            una += 1;
            c.on_ack(ms(t), &ack(40.0, 1, una, una + 50));
        }
        assert_eq!((c.mode(), c.delta), (CopaMode::Default, 0.5));
    }
}
