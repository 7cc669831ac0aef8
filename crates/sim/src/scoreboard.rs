//! Indexes over the sender's segment scoreboard, so that the work per ACK does not grow
//! with the number of segments in flight (issue 21).
//!
//! The sender keeps one `Seg` per outstanding segment (flags `sacked`, `lost`,
//! `in_flight`, `retransmitted`); those flags stay the truth. The scoreboard adds three
//! indexes that answer the per-ACK questions without walking the window, in the spirit of
//! Linux's rb-tree of skbs and its retransmit queue:
//!
//! - the SACKed segments as disjoint ranges (`BTreeMap` start → end): a SACK block visits
//!   only the parts of it not SACKed before, and RFC 6675's DupThresh-th highest SACKed
//!   segment is found by looking at no more than DupThresh ranges;
//! - the retransmission queue: segments marked lost, not in flight and not SACKed, in
//!   sequence order (`BTreeSet`), so the next retransmission is its first element;
//! - the retransmissions sent, in the order sent, each with its send time (`VecDeque`,
//!   nondecreasing in time): a retransmission is lost when a segment sent after it is
//!   delivered (RACK, RFC 8985 §6.2; Linux tcp_rack_detect_loss), and only the entries
//!   at the front can be.
//!
//! Each operation is O(log n) in segments in flight, or amortised O(1) per segment over
//! the segment's life. `ops` counts the steps taken (one per range, queue entry or segment
//! visited, one per tree operation), so a test can check that the steps per ACK stay flat
//! when the window grows.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

#[derive(Clone, Debug, Default)]
pub(crate) struct Scoreboard {
    /// SACKed segments at or above SND.UNA: start → end (exclusive); ranges neither
    /// overlap nor touch.
    sacked: BTreeMap<u32, u32>,
    /// Segments with `lost && !in_flight && !sacked`, at or above SND.UNA after `advance`.
    retx_queue: BTreeSet<u32>,
    /// (send time in ns, segment) for each retransmission, oldest first. Entries whose
    /// segment has since been acknowledged, SACKed, retransmitted again or marked lost
    /// are stale; the sender checks each entry against the segment's flags.
    retx_sent: VecDeque<(u64, u32)>,
    /// Steps taken (see the module comment).
    pub ops: u64,
    /// ACKs processed.
    pub acks: u64,
}

impl Scoreboard {
    /// SND.UNA moved from `old` to `una`: forget what lies below it.
    pub fn advance(&mut self, old: u32, una: u32) {
        // The sender pops one segment per step.
        self.ops += (una - old) as u64;
        while let Some((&a, &b)) = self.sacked.first_key_value() {
            if a >= una {
                break;
            }
            self.ops += 1;
            self.sacked.pop_first();
            if b > una {
                self.sacked.insert(una, b);
                break;
            }
        }
        while self.retx_queue.first().is_some_and(|&i| i < una) {
            self.ops += 1;
            self.retx_queue.pop_first();
        }
        while self.retx_sent.front().is_some_and(|&(_, i)| i < una) {
            self.ops += 1;
            self.retx_sent.pop_front();
        }
    }

    /// Records the SACK of segments `s..e` and writes into `gaps`, in ascending order,
    /// the ranges of it that were not SACKed before. The caller marks those segments.
    pub fn sack(&mut self, s: u32, e: u32, gaps: &mut Vec<(u32, u32)>) {
        gaps.clear();
        self.ops += 1;
        if s >= e {
            return;
        }
        let (mut lo, mut hi, mut cur) = (s, e, s);
        // A range that starts at or before `s` and reaches it absorbs the block's start.
        if let Some((&a, &b)) = self.sacked.range(..=s).next_back() {
            if b >= s {
                self.ops += 1;
                self.sacked.remove(&a);
                lo = a;
                cur = cur.max(b);
                hi = hi.max(b);
            }
        }
        // Ranges that start inside the block (or touch its end) merge into it.
        while let Some((&a, &b)) = self.sacked.range(s..=e).next() {
            self.ops += 1;
            if a > cur {
                gaps.push((cur, a));
            }
            cur = cur.max(b);
            hi = hi.max(b);
            self.sacked.remove(&a);
        }
        if cur < e {
            gaps.push((cur, e));
        }
        self.sacked.insert(lo, hi);
    }

    /// RFC 6675 IsLost: the `k`-th highest SACKed segment in `floor..=high`, below which
    /// every segment with `k` SACKed segments above it lies; `None` if there are fewer.
    pub fn kth_highest_sacked(&mut self, floor: u32, high: u32, k: u32) -> Option<u32> {
        self.ops += 1;
        if high < floor {
            return None;
        }
        let mut need = k;
        for (&a, &b) in self.sacked.range(..=high).rev() {
            self.ops += 1;
            let (lo, hi) = (a.max(floor), b.min(high + 1));
            if hi <= lo {
                break;
            }
            if hi - lo >= need {
                return Some(hi - need);
            }
            need -= hi - lo;
            if lo == floor {
                break;
            }
        }
        None
    }

    /// Segment `i` is now lost, not in flight and not SACKed: it awaits retransmission.
    pub fn queue_retransmission(&mut self, i: u32) {
        self.ops += 1;
        self.retx_queue.insert(i);
    }

    /// Segment `i` left the retransmission queue (retransmitted or SACKed).
    pub fn dequeue_retransmission(&mut self, i: u32) {
        self.ops += 1;
        self.retx_queue.remove(&i);
    }

    /// The lowest segment awaiting retransmission.
    pub fn next_retransmission(&mut self) -> Option<u32> {
        self.ops += 1;
        self.retx_queue.first().copied()
    }

    /// How many segments await retransmission (no work counted: a peek).
    pub fn retransmissions_queued(&self) -> usize {
        self.retx_queue.len()
    }

    /// After a timeout: `lost` (ascending) is the whole retransmission queue, and no
    /// retransmission is in flight any more.
    pub fn requeue_all(&mut self, lost: impl Iterator<Item = u32>) {
        self.retx_sent.clear();
        self.retx_queue = lost.inspect(|_| self.ops += 1).collect();
    }

    /// Segment `seg` was retransmitted at `sent_ns` (not earlier than any retransmission
    /// recorded before).
    pub fn sent_retransmission(&mut self, sent_ns: u64, seg: u32) {
        self.ops += 1;
        self.retx_sent.push_back((sent_ns, seg));
    }

    /// The oldest retransmission sent before `(sent_ns, seg)`, the latest-sent delivered
    /// segment, removed from the list. Equal times are ordered by segment, as Linux's
    /// `tcp_skb_sent_after` orders them by sequence.
    pub fn pop_retransmission_sent_before(&mut self, sent_ns: u64, seg: u32) -> Option<(u64, u32)> {
        self.ops += 1;
        if self
            .retx_sent
            .front()
            .is_some_and(|&(t, i)| (t, i) < (sent_ns, seg))
        {
            self.retx_sent.pop_front()
        } else {
            None
        }
    }

    /// Whether any retransmission may still be in flight.
    pub fn retransmissions_sent(&self) -> bool {
        !self.retx_sent.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Scoreboard;

    fn ranges(b: &Scoreboard) -> Vec<(u32, u32)> {
        b.sacked.iter().map(|(&a, &b)| (a, b)).collect()
    }

    #[test]
    fn a_sack_block_yields_only_what_was_not_sacked_and_ranges_merge() {
        let mut b = Scoreboard::default();
        let mut gaps = Vec::new();
        b.sack(10, 12, &mut gaps);
        assert_eq!(gaps, [(10, 12)]);
        b.sack(15, 20, &mut gaps);
        assert_eq!(gaps, [(15, 20)]);
        // 8..22 covers both ranges: new are 8..10, 12..15 and 20..22; one range remains.
        b.sack(8, 22, &mut gaps);
        assert_eq!(gaps, [(8, 10), (12, 15), (20, 22)]);
        assert_eq!(ranges(&b), [(8, 22)]);
        // Inside an existing range: nothing new. Touching its end: merged.
        b.sack(9, 21, &mut gaps);
        assert!(gaps.is_empty());
        b.sack(22, 25, &mut gaps);
        assert_eq!(gaps, [(22, 25)]);
        assert_eq!(ranges(&b), [(8, 25)]);
        b.sack(30, 31, &mut gaps);
        assert_eq!(ranges(&b), [(8, 25), (30, 31)]);
        // SND.UNA passes into the first range: it is cut, not dropped.
        b.advance(0, 12);
        assert_eq!(ranges(&b), [(12, 25), (30, 31)]);
        b.advance(12, 26);
        assert_eq!(ranges(&b), [(30, 31)]);
    }

    #[test]
    fn the_dupthresh_th_highest_sacked_segment_spans_ranges() {
        let mut b = Scoreboard::default();
        let mut gaps = Vec::new();
        // SACKed: 5, 7, 8 and 12.
        b.sack(5, 6, &mut gaps);
        b.sack(7, 9, &mut gaps);
        b.sack(12, 13, &mut gaps);
        // From 12 down: 12, 8, 7 -> the third is 7.
        assert_eq!(b.kth_highest_sacked(0, 12, 3), Some(7));
        // From 8 down: 8, 7, 5.
        assert_eq!(b.kth_highest_sacked(0, 8, 3), Some(5));
        // Not counting below 6: only 8 and 7.
        assert_eq!(b.kth_highest_sacked(6, 8, 3), None);
        assert_eq!(b.kth_highest_sacked(13, 12, 3), None);
        assert_eq!(b.kth_highest_sacked(8, 12, 2), Some(8));
    }
}
