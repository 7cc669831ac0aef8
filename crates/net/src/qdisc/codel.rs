//! CoDel (RFC 8289): a FIFO whose dequeue drops (or ECN-marks) packets once their
//! sojourn time has stayed above `target` for at least `interval`, at a rate that grows
//! with the square root of the number of drops. The state machine is shared with
//! FQ-CoDel, which runs one instance per flow queue.

use super::{Ctx, QdiscStats};
use crate::queue::Fifo;
use crate::WirePacket;
use scavenger_cc::{Dur, Time};

#[derive(Clone, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing queue delay. RFC 8289 §4.3: 5 ms.
    pub target: Dur,
    /// Sliding window for the minimum sojourn time. RFC 8289 §4.4: 100 ms.
    pub interval: Dur,
    /// MAXPACKET of RFC 8289 §5 (pseudocode `queue_.bytes() <= MAXPACKET`): the queue is
    /// never dropped from while it holds at most this many bytes. Linux uses the device
    /// MTU with its Ethernet header, 1514.
    pub mtu: u32,
    /// Mark ECN-capable packets instead of dropping them (RFC 8289 §5 "ECN"; Linux `ecn`).
    pub ecn: bool,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            mtu: 1514,
            ecn: false,
        }
    }
}

/// Where CoDel takes packets from: a plain FIFO, or one flow queue of FQ-CoDel (whose
/// backlog check looks at the whole qdisc, as Linux does).
pub(crate) trait CodelSource<T> {
    fn pop(&mut self) -> Option<(Time, T)>;
    /// Bytes still queued after the last pop.
    fn backlog(&self) -> u64;
}

impl<T: WirePacket> CodelSource<T> for Fifo<T> {
    #[inline]
    fn pop(&mut self) -> Option<(Time, T)> {
        self.pop_front()
    }
    #[inline]
    fn backlog(&self) -> u64 {
        self.bytes()
    }
}

/// RFC 8289 §5 `control_law`: t + interval / sqrt(count).
pub(crate) fn control_law(t: Time, interval: Dur, count: u32) -> Time {
    t + Dur((interval.nanos() as f64 / (count.max(1) as f64).sqrt()) as u64)
}

/// The per-queue state variables of RFC 8289 §5.
#[derive(Clone, Debug, Default)]
pub(crate) struct CodelVars {
    /// `first_above_time_`; `None` stands for the pseudocode's 0.
    first_above_time: Option<Time>,
    drop_next: Time,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl CodelVars {
    /// RFC 8289 §5 `dodequeue`: the head packet and whether it may be dropped.
    fn dodequeue<T, Q: CodelSource<T>>(
        &mut self,
        p: &CodelParams,
        now: Time,
        q: &mut Q,
    ) -> (Option<(Time, T)>, bool) {
        let Some((enq, pkt)) = q.pop() else {
            // "queue is empty - we can't be above TARGET"
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.since(enq);
        let mut ok_to_drop = false;
        if sojourn < p.target || q.backlog() <= p.mtu as u64 {
            // "went below - stay below for at least INTERVAL"
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                // "just went above from below; if still above at first_above_time, will say it's ok to drop"
                None => self.first_above_time = Some(now + p.interval),
                Some(f) if now >= f => ok_to_drop = true,
                Some(_) => {}
            }
        }
        (Some((enq, pkt)), ok_to_drop)
    }

    /// RFC 8289 §5 `dequeue`, with ECN marking as Linux `codel_dequeue` does it: a packet
    /// that would be dropped is marked and delivered instead, and the next drop time is
    /// scheduled as if it had been dropped.
    pub(crate) fn dequeue<T: WirePacket, Q: CodelSource<T>>(
        &mut self,
        p: &CodelParams,
        now: Time,
        q: &mut Q,
        drops: &mut Vec<T>,
        stats: &mut QdiscStats,
    ) -> Option<(Time, T)> {
        let (mut r, mut ok_to_drop) = self.dodequeue(p, now, q);
        if r.is_none() {
            // "an empty queue takes us out of dropping state"
            self.dropping = false;
            return None;
        }
        if self.dropping {
            if !ok_to_drop {
                // "sojourn time below TARGET - leave dropping state"
                self.dropping = false;
            }
            // "Time for the next drop. Drop current packet and dequeue next. If the
            // dequeue doesn't take us out of dropping state, schedule the next drop."
            while self.dropping && now >= self.drop_next {
                let (enq, mut pkt) = r.take().expect("dropping implies a packet");
                self.count += 1;
                if p.ecn && pkt.ecn_capable() {
                    pkt.set_ce();
                    stats.marks += 1;
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    return Some((enq, pkt));
                }
                drops.push(pkt);
                stats.aqm_drops += 1;
                (r, ok_to_drop) = self.dodequeue(p, now, q);
                if !ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                }
            }
        } else if ok_to_drop {
            // "If we get here, we're not in dropping state. The 'ok_to_drop' return from
            // dodequeue means that the sojourn time has been above TARGET for INTERVAL,
            // so enter dropping state."
            let (enq, mut pkt) = r.take().expect("checked above");
            if p.ecn && pkt.ecn_capable() {
                pkt.set_ce();
                stats.marks += 1;
                r = Some((enq, pkt));
            } else {
                drops.push(pkt);
                stats.aqm_drops += 1;
                r = self.dodequeue(p, now, q).0;
            }
            self.dropping = true;
            // "If min went above TARGET close to when it last went below, assume that the
            // drop rate that controlled the queue on the last cycle is a good starting
            // point to control it now." (the Linux version, as RFC 8289 §5 gives it)
            let delta = self.count.wrapping_sub(self.lastcount);
            // now - drop_next is signed in Linux (codel_time_before): a drop_next in the
            // future counts as "close".
            let recent =
                now < self.drop_next || now.since(self.drop_next) < Dur(16 * p.interval.nanos());
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = control_law(now, p.interval, self.count);
            self.lastcount = self.count;
        }
        r
    }

    #[cfg(test)]
    pub(crate) fn dropping(&self) -> bool {
        self.dropping
    }
    #[cfg(test)]
    pub(crate) fn count(&self) -> u32 {
        self.count
    }
}

/// CoDel on a single FIFO.
#[derive(Debug)]
pub struct Codel<T> {
    pub(crate) params: CodelParams,
    pub(crate) q: Fifo<T>,
    vars: CodelVars,
}

impl<T: WirePacket> Codel<T> {
    pub fn new(params: CodelParams, cap: usize) -> Self {
        Codel {
            params,
            q: Fifo::with_capacity(cap),
            vars: CodelVars::default(),
        }
    }

    /// Tail-drops only at the hard limit (RFC 8289 §5 `enqueue`).
    pub(crate) fn enqueue(&mut self, now: Time, pkt: T, cx: &mut Ctx<'_, T>) {
        if cx
            .limit
            .admits(self.q.len(), self.q.bytes(), pkt.wire_bytes() as u64)
        {
            self.q.push_back(now, pkt);
        } else {
            cx.stats.overflow_drops += 1;
            cx.drops.push(pkt);
        }
    }

    pub(crate) fn dequeue(&mut self, now: Time, cx: &mut Ctx<'_, T>) -> Option<(Time, T)> {
        self.vars
            .dequeue(&self.params, now, &mut self.q, cx.drops, cx.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::QueueLimit;
    use scavenger_cc::Rng;

    #[derive(Debug, PartialEq)]
    struct P {
        id: u32,
        ect: bool,
        ce: bool,
    }
    impl WirePacket for P {
        fn wire_bytes(&self) -> u32 {
            1500
        }
        fn ecn_capable(&self) -> bool {
            self.ect
        }
        fn set_ce(&mut self) {
            self.ce = true;
        }
    }
    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    #[test]
    fn control_law_divides_the_interval_by_sqrt_count() {
        // 100 ms / sqrt(4) = 50 ms; 100 ms / sqrt(2) = 70.710678 ms.
        assert_eq!(control_law(ms(1000), Dur::from_millis(100), 4), ms(1050));
        assert_eq!(
            control_law(Time::ZERO, Dur::from_millis(100), 2),
            Time(70_710_678)
        );
    }

    /// Drives a queue in which every packet waits exactly 20 ms (above the 5 ms target):
    /// 20 packets are queued at the start, then one arrives and one is served every ms
    /// from 100 ms to 499 ms. Returns the times (ms) at which a drop or mark happened.
    fn pipeline(params: CodelParams) -> (Vec<u64>, Codel<P>, QdiscStats, Vec<P>) {
        let mut c = Codel::new(params, 100);
        let mut rng = Rng::new(1);
        let mut drops = Vec::new();
        let mut stats = QdiscStats::default();
        let mut events = Vec::new();
        let mut cx = Ctx {
            limit: QueueLimit::Packets(1000),
            rng: &mut rng,
            drops: &mut drops,
            stats: &mut stats,
        };
        for i in 0..20 {
            c.enqueue(
                ms(80 + i),
                P {
                    id: i as u32,
                    ect: params_ecn(&c),
                    ce: false,
                },
                &mut cx,
            );
        }
        for t in 100..500u64 {
            let ect = params_ecn(&c);
            c.enqueue(
                ms(t),
                P {
                    id: t as u32,
                    ect,
                    ce: false,
                },
                &mut cx,
            );
            let before = cx.drops.len();
            let (_, p) = c.dequeue(ms(t), &mut cx).expect("the queue is never empty");
            if cx.drops.len() > before || p.ce {
                events.push(t);
            }
        }
        (events, c, stats, drops)
    }
    fn params_ecn(c: &Codel<P>) -> bool {
        c.params.ecn
    }

    #[test]
    fn drops_start_after_an_interval_above_target_and_follow_the_control_law() {
        let (at, c, stats, _) = pipeline(CodelParams::default());
        // First dequeue at 100 ms, sojourn 20 ms >= target and backlog 20 packets > MAXPACKET:
        // first_above_time = 100 + 100 = 200 ms, so the first drop is at 200 ms (count 1,
        // drop_next = 200 + 100/sqrt(1) = 300). Then count 2 at 300 ms, drop_next = 300 +
        // 100/sqrt(2) = 370.71 -> dequeue at 371; count 3: 370.71 + 57.74 = 428.45 -> 429;
        // count 4: 428.45 + 50 = 478.45 -> 479; count 5 would be at 523.17, after the run.
        assert_eq!(at, vec![200, 300, 371, 429, 479]);
        assert_eq!(stats.aqm_drops, 5);
        assert!(c.vars.dropping());
        assert_eq!(c.vars.count(), 5);
    }

    #[test]
    fn ecn_capable_packets_are_marked_not_dropped() {
        let (at, _, stats, drops) = pipeline(CodelParams {
            ecn: true,
            ..CodelParams::default()
        });
        assert!(drops.is_empty());
        // A mark leaves the queue as it was, so the sojourn stays 20 ms and the schedule is
        // the same as with drops.
        assert_eq!(at, vec![200, 300, 371, 429, 479]);
        assert_eq!(stats.marks, 5);
    }

    #[test]
    fn short_sojourn_or_small_backlog_never_drops() {
        let mut c = Codel::new(CodelParams::default(), 100);
        let mut rng = Rng::new(1);
        let mut drops = Vec::new();
        let mut stats = QdiscStats::default();
        for t in 0..1000u64 {
            let mut cx = Ctx {
                limit: QueueLimit::Packets(1000),
                rng: &mut rng,
                drops: &mut drops,
                stats: &mut stats,
            };
            // One packet at a time, served after 50 ms: above target, but the backlog after
            // the dequeue (0 bytes) is below MAXPACKET.
            c.enqueue(
                ms(t),
                P {
                    id: t as u32,
                    ect: false,
                    ce: false,
                },
                &mut cx,
            );
            c.dequeue(ms(t + 50), &mut cx).unwrap();
        }
        assert!(drops.is_empty());
    }

    #[test]
    fn hard_limit_tail_drops() {
        let mut c = Codel::new(CodelParams::default(), 2);
        let mut rng = Rng::new(1);
        let mut drops = Vec::new();
        let mut stats = QdiscStats::default();
        let mut cx = Ctx {
            limit: QueueLimit::Packets(2),
            rng: &mut rng,
            drops: &mut drops,
            stats: &mut stats,
        };
        for id in 0..3 {
            c.enqueue(
                Time::ZERO,
                P {
                    id,
                    ect: true,
                    ce: false,
                },
                &mut cx,
            );
        }
        assert_eq!(stats.overflow_drops, 1);
        assert_eq!(drops[0].id, 2);
    }
}
