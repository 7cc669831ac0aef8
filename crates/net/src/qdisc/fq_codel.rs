//! FQ-CoDel (RFC 8290): packets are hashed by flow into `flows` queues, served by
//! deficit round robin with a list of new flows ahead of the old ones, and each queue
//! runs its own CoDel. Above the total limit the fattest queue loses packets from its
//! head.

use super::codel::{CodelParams, CodelSource, CodelVars};
use super::Ctx;
use crate::queue::Fifo;
use crate::WirePacket;
use scavenger_cc::{Dur, Rng, Time};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    /// Number of flow queues (RFC 8290 §5.2 "flows": 1024, as Linux).
    pub flows: u32,
    /// DRR quantum in bytes (RFC 8290 §5.2: 1514, an Ethernet MTU with its header).
    pub quantum: u32,
    /// CoDel target (RFC 8290 §4.4 / RFC 8289: 5 ms).
    pub target: Dur,
    /// CoDel interval (100 ms).
    pub interval: Dur,
    /// CoDel's MAXPACKET (Linux: the MTU with the Ethernet header, 1514).
    pub mtu: u32,
    /// ECN marking (RFC 8290 §5.2: enabled by default, as in Linux).
    pub ecn: bool,
    /// Packets dropped from the fattest queue in one go when the limit is exceeded
    /// (Linux `drop_batch_size` 64, never more than half that queue's bytes).
    pub drop_batch: u32,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            flows: 1024,
            quantum: 1514,
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            mtu: 1514,
            ecn: true,
            drop_batch: 64,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug)]
struct FlowQueue<T> {
    q: Fifo<T>,
    deficit: i64,
    vars: CodelVars,
    list: List,
}

/// One flow queue seen by CoDel: pops update the qdisc totals, and the backlog check is
/// on the whole qdisc (Linux passes `sch->qstats.backlog`).
struct Source<'a, T> {
    q: &'a mut Fifo<T>,
    total_bytes: &'a mut u64,
    total_len: &'a mut usize,
}

impl<T: WirePacket> CodelSource<T> for Source<'_, T> {
    fn pop(&mut self) -> Option<(Time, T)> {
        let r = self.q.pop_front()?;
        *self.total_bytes -= r.1.wire_bytes() as u64;
        *self.total_len -= 1;
        Some(r)
    }
    fn backlog(&self) -> u64 {
        *self.total_bytes
    }
}

#[derive(Debug)]
pub struct FqCodel<T> {
    pub(crate) params: FqCodelParams,
    codel: CodelParams,
    flows: Vec<FlowQueue<T>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    total_bytes: u64,
    total_len: usize,
    perturbation: u64,
}

/// SplitMix64's finaliser: a fast, well-mixed 64-bit hash.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<T: WirePacket> FqCodel<T> {
    /// The hash perturbation is drawn from `rng`, as Linux draws it at qdisc creation.
    pub fn new(params: FqCodelParams, rng: &mut Rng) -> Self {
        let n = params.flows.max(1) as usize;
        let flows = (0..n)
            .map(|_| FlowQueue {
                q: Fifo::default(),
                deficit: 0,
                vars: CodelVars::default(),
                list: List::None,
            })
            .collect();
        let codel = CodelParams {
            target: params.target,
            interval: params.interval,
            mtu: params.mtu,
            ecn: params.ecn,
        };
        FqCodel {
            params,
            codel,
            flows,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            total_bytes: 0,
            total_len: 0,
            perturbation: rng.next_u64(),
        }
    }

    pub fn len(&self) -> usize {
        self.total_len
    }
    pub fn is_empty(&self) -> bool {
        self.total_len == 0
    }
    pub fn bytes(&self) -> u64 {
        self.total_bytes
    }
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.flows.iter().flat_map(|f| f.q.iter())
    }

    /// The queue index of a flow key (RFC 8290 §4.1.1: hash then scale to the number of
    /// queues, as Linux `reciprocal_scale`).
    pub fn classify(&self, key: u64) -> usize {
        let h = mix(key ^ self.perturbation);
        ((h as u128 * self.flows.len() as u128) >> 64) as usize
    }

    /// RFC 8290 §4.1 enqueue.
    pub(crate) fn enqueue(&mut self, now: Time, pkt: T, cx: &mut Ctx<'_, T>) {
        let idx = self.classify(pkt.flow_key());
        let size = pkt.wire_bytes() as u64;
        let f = &mut self.flows[idx];
        f.q.push_back(now, pkt);
        self.total_bytes += size;
        self.total_len += 1;
        if f.list == List::None {
            // "...added to the end of the list of new queues, with its deficit set to the quantum"
            f.list = List::New;
            f.deficit = self.params.quantum as i64;
            self.new_flows.push_back(idx as u32);
        }
        // The hard limit counts the whole qdisc; the new packet is already in.
        let over = match cx.limit {
            crate::queue::QueueLimit::Packets(n) => self.total_len > n as usize,
            crate::queue::QueueLimit::Bytes(b) => self.total_bytes > b,
        };
        if over {
            self.drop_from_fattest(cx);
        }
    }

    /// RFC 8290 §4.1: drop from the head of the queue with the largest byte count (in
    /// Linux batches: up to `drop_batch` packets or half that queue's bytes).
    fn drop_from_fattest(&mut self, cx: &mut Ctx<'_, T>) {
        let (fat, _) = self
            .flows
            .iter()
            .enumerate()
            .fold((0, 0u64), |(bi, bb), (i, f)| {
                if f.q.bytes() > bb {
                    (i, f.q.bytes())
                } else {
                    (bi, bb)
                }
            });
        let threshold = self.flows[fat].q.bytes() / 2;
        let mut dropped_bytes = 0;
        let mut n = 0;
        while n < self.params.drop_batch.max(1) && dropped_bytes < threshold.max(1) {
            let Some((_, p)) = self.flows[fat].q.pop_front() else {
                break;
            };
            let size = p.wire_bytes() as u64;
            dropped_bytes += size;
            self.total_bytes -= size;
            self.total_len -= 1;
            cx.stats.overflow_drops += 1;
            cx.drops.push(p);
            n += 1;
        }
    }

    /// RFC 8290 §4.2 dequeue.
    pub(crate) fn dequeue(&mut self, now: Time, cx: &mut Ctx<'_, T>) -> Option<(Time, T)> {
        loop {
            let (from_new, idx) = match self.new_flows.front() {
                Some(&i) => (true, i as usize),
                None => match self.old_flows.front() {
                    Some(&i) => (false, i as usize),
                    None => return None,
                },
            };
            let list = if from_new {
                &mut self.new_flows
            } else {
                &mut self.old_flows
            };
            if self.flows[idx].deficit <= 0 {
                // "...its deficit is increased by the quantum, and the queue is put onto
                // the end of the list of old queues"
                list.pop_front();
                let f = &mut self.flows[idx];
                f.deficit += self.params.quantum as i64;
                f.list = List::Old;
                self.old_flows.push_back(idx as u32);
                continue;
            }
            let f = &mut self.flows[idx];
            let mut src = Source {
                q: &mut f.q,
                total_bytes: &mut self.total_bytes,
                total_len: &mut self.total_len,
            };
            match f
                .vars
                .dequeue(&self.codel, now, &mut src, cx.drops, cx.stats)
            {
                Some((enq, p)) => {
                    f.deficit -= p.wire_bytes() as i64;
                    return Some((enq, p));
                }
                None => {
                    // "If the queue is empty ... if it was on the list of new queues, it is
                    // moved to the end of the old list (to prevent starvation, when that
                    // list is not empty); otherwise it is removed."
                    list.pop_front();
                    if from_new && !self.old_flows.is_empty() {
                        f.list = List::Old;
                        self.old_flows.push_back(idx as u32);
                    } else {
                        f.list = List::None;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::QdiscStats;
    use crate::queue::QueueLimit;

    #[derive(Debug, PartialEq)]
    struct P {
        flow: u64,
        size: u32,
    }
    impl WirePacket for P {
        fn wire_bytes(&self) -> u32 {
            self.size
        }
        fn flow_key(&self) -> u64 {
            self.flow
        }
    }

    fn fq() -> FqCodel<P> {
        FqCodel::new(FqCodelParams::default(), &mut Rng::new(7))
    }

    #[test]
    fn a_new_sparse_flow_is_served_before_a_backlogged_one() {
        let mut q = fq();
        let mut rng = Rng::new(1);
        let (mut drops, mut stats) = (Vec::new(), QdiscStats::default());
        assert_ne!(q.classify(1), q.classify(2), "test flows must not collide");
        let mut cx = Ctx {
            limit: QueueLimit::Packets(10_240),
            rng: &mut rng,
            drops: &mut drops,
            stats: &mut stats,
        };
        for _ in 0..10 {
            q.enqueue(
                Time::ZERO,
                P {
                    flow: 1,
                    size: 1500,
                },
                &mut cx,
            );
        }
        // Flow 1 (new, deficit 1514) sends a packet (deficit 14 > 0) and a second one
        // (deficit −1486).
        assert_eq!(q.dequeue(Time::ZERO, &mut cx).unwrap().1.flow, 1);
        assert_eq!(q.dequeue(Time::ZERO, &mut cx).unwrap().1.flow, 1);
        // A packet of flow 2 arrives and joins the new list behind flow 1. Flow 1 has no
        // deficit left, so it moves to the old list (deficit 28) and flow 2 goes first.
        q.enqueue(Time::ZERO, P { flow: 2, size: 100 }, &mut cx);
        assert_eq!(q.dequeue(Time::ZERO, &mut cx).unwrap().1.flow, 2);
        assert_eq!(q.dequeue(Time::ZERO, &mut cx).unwrap().1.flow, 1);
        assert_eq!(q.len(), 7);
    }

    #[test]
    fn drr_shares_bytes_between_backlogged_flows() {
        let mut q = fq();
        let mut rng = Rng::new(1);
        let (mut drops, mut stats) = (Vec::new(), QdiscStats::default());
        let mut cx = Ctx {
            limit: QueueLimit::Packets(10_240),
            rng: &mut rng,
            drops: &mut drops,
            stats: &mut stats,
        };
        // Flow 1 sends 1500-byte packets, flow 2 500-byte packets: per round each gets
        // about a quantum (1514 bytes), i.e. 1 big or 3 small packets.
        for _ in 0..300 {
            q.enqueue(
                Time::ZERO,
                P {
                    flow: 1,
                    size: 1500,
                },
                &mut cx,
            );
            q.enqueue(Time::ZERO, P { flow: 2, size: 500 }, &mut cx);
        }
        let mut bytes = [0u64; 3];
        for _ in 0..200 {
            let (_, p) = q.dequeue(Time::ZERO, &mut cx).unwrap();
            bytes[p.flow as usize] += p.size as u64;
        }
        let ratio = bytes[1] as f64 / bytes[2] as f64;
        assert!((0.9..1.1).contains(&ratio), "{bytes:?}");
    }

    #[test]
    fn over_the_limit_the_fattest_queue_loses_from_its_head() {
        let params = FqCodelParams {
            drop_batch: 1,
            ..FqCodelParams::default()
        };
        let mut q = FqCodel::new(params, &mut Rng::new(7));
        let mut rng = Rng::new(1);
        let (mut drops, mut stats) = (Vec::new(), QdiscStats::default());
        let mut cx = Ctx {
            limit: QueueLimit::Packets(5),
            rng: &mut rng,
            drops: &mut drops,
            stats: &mut stats,
        };
        for i in 0..4 {
            q.enqueue(
                Time(i),
                P {
                    flow: 1,
                    size: 1500,
                },
                &mut cx,
            );
        }
        q.enqueue(Time(10), P { flow: 2, size: 100 }, &mut cx);
        // Sixth packet (flow 2): over the limit of 5; flow 1 is fattest and loses its head.
        q.enqueue(Time(11), P { flow: 2, size: 100 }, &mut cx);
        assert_eq!(stats.overflow_drops, 1);
        assert_eq!(
            drops,
            vec![P {
                flow: 1,
                size: 1500
            }]
        );
        assert_eq!(q.len(), 5);
    }
}
