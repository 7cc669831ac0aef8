//! Who takes the drops at a full drop-tail queue (issue 17, docs/validation.md#vfull-drops):
//! validate's short-fg/50ms/ledbat case, a LEDBAT background from 0 s and Ong 2020's
//! 2469 KiB NewReno foreground from 10 s on the 8/1 Mbit/s, 50 ms access link with a
//! 70-packet buffer. LEDBAT at its 100 ms target keeps the queue within a packet or two of
//! full; the flow whose packets come as a pair right after a departure takes the drop.
//! With PSH on every answer to an ACK (`PshRule::EveryAck`) the background's receiver ACKs
//! 80 % of its segments one by one, so the background sends lone segments that each fill
//! the slot a departure freed and it never overflows the queue: the foreground takes every
//! drop and needs 22-23 s. With the kernel's rule (`SkbTail`, PSH on multi-segment answers
//! only) the background's ACKs come every ~1.8 segments, it sends pairs as kernel TCP does,
//! takes a drop after the foreground's slow start, halves, and the foreground finishes in
//! about 7 s (kernel: 7.3-8.4 s).

mod common;
use common::*;
use scavenger_cc::{Dur, Rate, Time};
use scavenger_sim::{run, PshRule, SimConfig};

const FG_BYTES: u64 = 2469 * 1024;

/// The case with `rule` on both flows; with `fg` false the background runs alone.
fn short_fg(rule: PshRule, fg: bool) -> SimConfig {
    let mut c = dumbbell(8, 50, 70, 40);
    c.reverse.rate = Rate::from_mbps(1);
    let mut bg = flow("bg", "ledbat");
    bg.psh_rule = rule;
    c.flows.push(bg);
    if fg {
        let mut f = flow("fg", "newreno");
        f.psh_rule = rule;
        f.start = Time::ZERO + Dur::from_secs(10);
        f.size = Some(FG_BYTES);
        c.flows.push(f);
    }
    c
}

/// (background's fast recoveries beside the foreground minus alone, foreground's
/// completion time in s).
fn shared(rule: PshRule) -> (i64, f64) {
    let alone = run(short_fg(rule, false)).flows[0].fast_recoveries as i64;
    let r = run(short_fg(rule, true));
    let fct = r.flows[1].completion_time_s.unwrap_or(f64::INFINITY);
    (r.flows[0].fast_recoveries as i64 - alone, fct)
}

#[test]
fn ledbat_at_its_target_takes_a_drop_beside_the_foreground_only_when_it_sends_pairs() {
    let (every_ack_extra, every_ack_fct) = shared(PshRule::EveryAck);
    let (skb_tail_extra, skb_tail_fct) = shared(PshRule::SkbTail);
    // EveryAck: the background's lone segments never meet a full queue.
    assert_eq!(
        every_ack_extra, 0,
        "EveryAck: background recoveries beside the foreground"
    );
    // SkbTail: its pairs do, at least once, and the foreground gets the room.
    assert!(
        skb_tail_extra >= 1,
        "SkbTail: {skb_tail_extra} extra background recoveries"
    );
    assert!(
        skb_tail_fct * 2.0 < every_ack_fct,
        "foreground {skb_tail_fct:.2} s (SkbTail) vs {every_ack_fct:.2} s (EveryAck)"
    );
}
