//! The metacontroller API (Wallenburg 2018 §3.5, Wallenburg 2018 notes §5.2): a user-written, sans-IO
//! control loop that is called periodically with a flow's statistics and goal and
//! returns the DA-LBE knob settings. It sees only [`FlowView`] (plain data), so the same
//! controller runs over the simulator (through [`ControlledFlow`]) and, later, over a
//! kernel datapath (stats from `getsockopt`) or a QUIC stack.

use super::knobs::{DaLbeInfo, Knobs};
use super::wrapper::DaLbe;
use crate::api::*;
use crate::units::{Dur, Rate, Time};

/// What the application wants from the flow: `dalbe_open`'s `size` and `deadline`
/// (Wallenburg 2018 App. A). Both are optional so that controllers without a deadline (e.g.
/// "LBE during working hours") can run on open-ended flows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowGoal {
    /// Bytes the application will send (S).
    pub size: Option<u64>,
    /// Soft deadline relative to the flow's start (t_D - t_start).
    pub deadline: Option<Dur>,
}

/// Everything a metacontroller is shown at a tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowView {
    pub now: Time,
    /// When the flow started (`dalbe_open`).
    pub start: Time,
    /// now - start.
    pub elapsed: Dur,
    /// Transfer size S, if known.
    pub size: Option<u64>,
    /// A(t): bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// R(t) = S - A(t), if the size is known.
    pub bytes_remaining: Option<u64>,
    /// Absolute soft deadline t_D, if any.
    pub deadline: Option<Time>,
    /// The datapath's DA-LBE statistics.
    pub info: DaLbeInfo,
    /// The knobs currently applied.
    pub knobs: Knobs,
}

impl FlowView {
    /// Builds a view from a goal and statistics (for datapaths and tests).
    pub fn new(now: Time, start: Time, goal: FlowGoal, info: DaLbeInfo, knobs: Knobs) -> FlowView {
        let bytes_acked = info.bytes_acked;
        FlowView {
            now,
            start,
            elapsed: now.since(start),
            size: goal.size,
            bytes_acked,
            bytes_remaining: goal.size.map(|s| s.saturating_sub(bytes_acked)),
            deadline: goal.deadline.map(|d| start + d),
            info,
            knobs,
        }
    }

    /// t_D - now, zero once the deadline has passed.
    pub fn time_to_deadline(&self) -> Option<Dur> {
        self.deadline.map(|d| d.since(self.now))
    }

    pub fn deadline_passed(&self) -> bool {
        self.deadline.is_some_and(|d| self.now >= d)
    }

    /// True when the whole transfer has been acknowledged.
    pub fn finished(&self) -> bool {
        self.bytes_remaining == Some(0)
    }
}

/// A metacontroller. `interval` is the tick period (Libdalbe: T_w = 10 s, Wallenburg 2018
/// §3.2.2); `on_start` runs once when the flow opens (`init_cc_func`), `on_tick` every
/// interval after that (`handle_cc_func`). Both return the complete knob setting to
/// apply (start from `view.knobs` to change only some). Controllers keep their own
/// history (Libdalbe's `info_prev`); they must not read clocks or draw randomness.
pub trait MetaController: Send {
    fn name(&self) -> &'static str;

    fn interval(&self) -> Dur;

    fn on_start(&mut self, view: &FlowView) -> Knobs {
        view.knobs
    }

    /// `now` equals `view.now`.
    fn on_tick(&mut self, now: Time, view: &FlowView) -> Knobs;

    /// Internal variables for traces, as `CongestionControl::trace`.
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// A `DaLbe` wrapper driven by a metacontroller: the Libdalbe daemon, sans-IO. Ticks
/// are due every `interval` after the start; one due tick runs at the first event
/// (ACK, send, congestion, timeout) at or after its time, or when the datapath calls
/// [`ControlledFlow::poll`] from a timer.
pub struct ControlledFlow {
    cc: DaLbe,
    ctrl: Box<dyn MetaController>,
    goal: FlowGoal,
    /// The application's progress (bytes of its data the receiver has), when the
    /// datapath reports it (`set_progress`); otherwise progress is `snd_una`.
    progress: Option<u64>,
    start: Time,
    next_tick: Time,
    ticks: u64,
}

impl ControlledFlow {
    /// Opens the flow at `start`: calls the controller's `on_start` and applies its knobs.
    pub fn new(
        cc: DaLbe,
        ctrl: Box<dyn MetaController>,
        goal: FlowGoal,
        start: Time,
    ) -> ControlledFlow {
        let mut f = ControlledFlow {
            cc,
            ctrl,
            goal,
            progress: None,
            start,
            next_tick: start,
            ticks: 0,
        };
        let view = f.view(start);
        let k = f.ctrl.on_start(&view);
        f.cc.set_knobs(k);
        f.next_tick = start + f.ctrl.interval().max(Dur(1));
        f
    }

    /// The controller's view. Progress A(t) is the application's (`set_progress`) once
    /// the datapath has reported one, else `DaLbeInfo::bytes_acked` (`snd_una`), which
    /// stays the sequence space's for the wrapped algorithm either way.
    pub fn view(&self, now: Time) -> FlowView {
        let mut v = FlowView::new(now, self.start, self.goal, self.cc.info(), self.cc.knobs());
        if let Some(p) = self.progress {
            v.bytes_acked = p;
            v.bytes_remaining = self.goal.size.map(|s| s.saturating_sub(p));
        }
        v
    }

    /// Replaces the goal, e.g. once the datapath knows how much of the transfer a resume
    /// skips: `dalbe_open`'s size is what is still to send (Libdalbe counts the bytes of
    /// this connection). The deadline stays relative to the flow's start.
    pub fn set_goal(&mut self, goal: FlowGoal) {
        self.goal = goal;
    }

    /// The application's progress in the goal's units: bytes of `FlowGoal::size` the
    /// receiver has. For datapaths whose sequence space is not the application's (QUIC:
    /// `snd_una` counts packet headers, the handshake and lost packets,
    /// docs/transfer.md "Progress the controller sees"); TCP's `snd_una` counts payload,
    /// as Libdalbe assumes, and needs no call. Takes effect at the next tick.
    pub fn set_progress(&mut self, bytes_done: u64) {
        self.progress = Some(bytes_done);
    }

    /// Runs the controller if a tick is due. Returns true if it ran.
    pub fn poll(&mut self, now: Time) -> bool {
        if now < self.next_tick {
            return false;
        }
        let view = self.view(now);
        let k = self.ctrl.on_tick(now, &view);
        self.cc.set_knobs(k);
        self.ticks += 1;
        let iv = self.ctrl.interval().max(Dur(1));
        self.next_tick += iv;
        if self.next_tick <= now {
            // Nothing happened for more than an interval: resume the schedule from now.
            self.next_tick = now + iv;
        }
        true
    }

    /// When the next tick is due (for a datapath timer).
    pub fn next_tick(&self) -> Time {
        self.next_tick
    }

    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    pub fn dalbe(&self) -> &DaLbe {
        &self.cc
    }

    pub fn controller(&self) -> &dyn MetaController {
        self.ctrl.as_ref()
    }

    pub fn goal(&self) -> FlowGoal {
        self.goal
    }
}

impl CongestionControl for ControlledFlow {
    fn name(&self) -> &'static str {
        self.ctrl.name()
    }
    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.poll(now);
        self.cc.on_ack(now, ack);
    }
    fn on_congestion(&mut self, now: Time, ev: &CongestionEvent) {
        self.poll(now);
        self.cc.on_congestion(now, ev);
    }
    fn on_rto(&mut self, now: Time, ev: &RtoEvent) {
        self.poll(now);
        self.cc.on_rto(now, ev);
    }
    fn on_recovery_exit(&mut self, now: Time) {
        self.cc.on_recovery_exit(now);
    }
    fn on_sent(&mut self, now: Time, sent: &SentInfo) {
        self.poll(now);
        self.cc.on_sent(now, sent);
    }
    fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }
    fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    fn pacing_rate(&self) -> Option<Rate> {
        self.cc.pacing_rate()
    }

    fn paces_payload(&self) -> bool {
        self.cc.paces_payload()
    }

    fn min_tso_segs(&self) -> u32 {
        self.cc.min_tso_segs()
    }

    fn cong_control(&self) -> bool {
        self.cc.cong_control()
    }
    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.cc.trace(out);
        self.ctrl.trace(out);
    }
}
