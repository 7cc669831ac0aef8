/* SPDX-License-Identifier: GPL-2.0 */
/* scv_shim: the kernel half of "algorithm in userspace, actuator in BPF". Every ACK is
 * streamed to `scavenger kernel agent` through a ring buffer; the agent runs a crates/cc
 * CongestionControl per socket and writes back cwnd (and optionally a pacing rate) into
 * scv_shim_cmd; cong_control applies the latest decision. While the agent's heartbeat is
 * older than max(200 ms, 2·srtt) (or it never wrote for this socket), the shim runs Reno
 * (tcp_reno_cong_avoid) so that a socket never stalls. */
#include "scv_common.bpf.h"
#include "scv_shim.h"
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} scv_shim_ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, SCV_SHIM_SLOTS);
	__type(key, __u32);
	__type(value, struct scv_shim_cmd);
} scv_shim_cmd SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, SCV_HB_N);
	__type(key, __u32);
	__type(value, __u64);
} scv_shim_hb SEC(".maps");

/* Per-socket DA-LBE goals by socket cookie (read by the agent, not by this program). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct scv_shim_goal);
} scv_shim_goal SEC(".maps");

SCV_STATS_MAP(scv_shim_sts);
#define SCV_STAT_APPLIED 8
#define SCV_STAT_FALLBACK 9
#define SCV_STAT_DROPS 10

/* Per-socket state in icsk_ca_priv. */
struct shim_sock {
	__u64 id;
	__u32 prr_delivered; /* packets delivered since this cwnd reduction began */
	__u8 paced; /* we set SK_PACING_NEEDED */
};

static __always_inline struct shim_sock *shim_sock(struct sock *sk)
{
	return (struct shim_sock *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}



static __always_inline __u64 hb_get(__u32 k)
{
	__u64 *p = bpf_map_lookup_elem(&scv_shim_hb, &k);
	return p ? *p : 0;
}

/* Ring-buffer notification for a record. A wake-up is a context switch for the agent and,
 * in a VM, an interrupt round trip for the waker: about 10 µs of the sender's time per
 * forced wake-up here (kernel.bpf_stats_enabled) and as much of the agent's. So a record
 * wakes the agent only if the last wake-up is at least SCV_HB_WAKE_NS (100 µs) old; the
 * records in between are read at the next one (or at the agent's 10 ms poll timeout).
 * Paths whose ACKs are further apart than that wake the agent on every record, at once.
 * (An agent polling on its own timer instead cost the sender nothing but took more CPU
 * and reacted later; loopback throughput was lower: docs/performance.md.) Opening and
 * closing sockets always wake it. */
static __always_inline __u64 wake_flag(__u32 kind, __u64 now)
{
	__u32 k = SCV_HB_LAST_WAKE;
	__u64 *last, iv;

	if (kind == SCV_EV_OPEN || kind == SCV_EV_CLOSE)
		return BPF_RB_FORCE_WAKEUP;
	last = bpf_map_lookup_elem(&scv_shim_hb, &k);
	if (!last)
		return 0;
	iv = hb_get(SCV_HB_WAKE_NS);
	if (!iv)
		iv = SCV_WAKE_DEFAULT_NS;
	if (now - *last < iv)
		return BPF_RB_NO_WAKEUP;
	*last = now;
	return BPF_RB_FORCE_WAKEUP;
}

/* Streams one record stamped `now` (bpf_ktime_get_ns: cong_control reads the clock once
 * per ACK for both the record and the heartbeat check). */
static __always_inline void emit(struct sock *sk, __u32 kind, __u32 flag, const struct rate_sample *rs, __u64 now)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct scv_shim_ev *e;

	e = bpf_ringbuf_reserve(&scv_shim_ring, sizeof(*e), 0);
	if (!e) {
		SCV_STAT_ADD(scv_shim_sts, SCV_STAT_DROPS, 1);
		return;
	}
	e->id = shim_sock(sk)->id;
	e->ts_ns = now;
	e->kind = kind;
	e->mss = tp->mss_cache;
	e->delivered = tp->delivered;
	e->srtt_us = tp->srtt_us >> 3;
	e->snd_cwnd = tp->snd_cwnd;
	e->snd_ssthresh = tp->snd_ssthresh;
	e->in_flight = scv_in_flight(tp);
	e->ca_state = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	e->cwnd_limited = scv_cwnd_limited(tp);
	e->flag = flag;
	if (tp->rx_opt.tstamp_ok) {
		e->tsval = tp->rx_opt.rcv_tsval;
		e->tsecr = tp->rx_opt.rcv_tsecr;
	} else {
		e->tsval = 0;
		e->tsecr = 0;
	}
	e->usec_ts = tp->tcp_usec_ts;
	e->sport = sk->__sk_common.skc_num;
	e->dport = bpf_ntohs(sk->__sk_common.skc_dport);
	/* Stream offsets for algorithms that count rounds by sequence (Vegas, Copa, FLOWER,
	 * DA-LBE's CWR end and A(t)); the agent derives on_sent calls from snd_nxt. */
	e->bytes_acked = tp->bytes_acked;
	e->nxt_minus_una = tp->snd_nxt - tp->snd_una;
	e->tsoffset = tp->tsoffset;
	e->cookie = scv_cookie(sk);
	if (rs) {
		e->rtt_us = rs->rtt_us;
		e->interval_us = rs->interval_us;
		e->acked_sacked = rs->acked_sacked;
		e->rs_delivered = rs->delivered;
		e->prior_in_flight = rs->prior_in_flight;
		e->losses = rs->losses;
		e->app_limited = rs->is_app_limited;
	} else {
		e->rtt_us = -1;
		e->interval_us = 0;
		e->acked_sacked = 0;
		e->rs_delivered = 0;
		e->prior_in_flight = 0;
		e->losses = 0;
		e->app_limited = 0;
	}
	bpf_ringbuf_submit(e, wake_flag(kind, now));
}

SEC("struct_ops/shim_init")
void BPF_PROG(bpf_shim_init, struct sock *sk)
{
	__u32 k = SCV_HB_NEXT_ID;
	__u64 *ctr = bpf_map_lookup_elem(&scv_shim_hb, &k);
	struct shim_sock *s = shim_sock(sk);

	s->id = ctr ? __sync_fetch_and_add(ctr, 1) + 1 : 0;
	s->paced = 0;
	s->prr_delivered = 0;
	SCV_STAT_ADD(scv_shim_sts, SCV_STAT_INIT, 1);
	emit(sk, SCV_EV_OPEN, 0, 0, bpf_ktime_get_ns());
}

SEC("struct_ops/shim_release")
void BPF_PROG(bpf_shim_release, struct sock *sk)
{
	__u64 id = shim_sock(sk)->id;
	__u32 slot = (__u32)id & (SCV_SHIM_SLOTS - 1);
	struct scv_shim_cmd *c = bpf_map_lookup_elem(&scv_shim_cmd, &slot);

	emit(sk, SCV_EV_CLOSE, 0, 0, bpf_ktime_get_ns());
	if (c && c->id == id)
		c->cwnd = 0; /* free the slot's decision */
}

/* Reno for when the agent is away: Linux's tcp_cong_control without cong_control —
 * PRR towards ssthresh (tcp_reno_ssthresh, set by the kernel when the reduction began)
 * in CWR/Recovery, tcp_reno_cong_avoid otherwise (also slow start after an RTO). */
static __always_inline void fallback(struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct shim_sock *s = shim_sock(sk);

	if (scv_in_reduction(sk)) {
		scv_prr(sk, &s->prr_delivered, tp->snd_ssthresh, flag, rs);
		return;
	}
	if (rs->acked_sacked > 0)
		tcp_reno_cong_avoid(sk, ack, rs->acked_sacked);
	if (s->paced)
		sk->sk_pacing_rate = ~0UL;
}

SEC("struct_ops/shim_cong_control")
void BPF_PROG(bpf_shim_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct shim_sock *s = shim_sock(sk);
	__u64 now = bpf_ktime_get_ns(), hb = hb_get(SCV_HB_AGENT_NS), stale = hb_get(SCV_HB_STALE_NS);
	__u64 two_srtt = (__u64)(tp->srtt_us >> 3) * 2000;
	struct scv_shim_cmd *c;
	__u64 id = s->id;
	__u32 slot = (__u32)id & (SCV_SHIM_SLOTS - 1);

	emit(sk, SCV_EV_ACK, (__u32)flag, rs, now);
	SCV_STAT_ADD(scv_shim_sts, SCV_STAT_ACKS, 1);
	if (!stale)
		stale = 200000000ULL;
	if (two_srtt > stale)
		stale = two_srtt;
	c = bpf_map_lookup_elem(&scv_shim_cmd, &slot);
	if (!hb || now > hb + stale || !c || c->id != id || !c->cwnd) {
		fallback(sk, ack, flag, rs);
		SCV_STAT_ADD(scv_shim_sts, SCV_STAT_FALLBACK, 1);
	} else {
		__u32 w = c->cwnd;
		if (w > tp->snd_cwnd_clamp)
			w = tp->snd_cwnd_clamp;
		if (c->ssthresh)
			tp->snd_ssthresh = c->ssthresh;
		if (scv_in_reduction(sk)) {
			/* The agent's window (or its ssthresh, if lower) is PRR's target. PRR's
			 * window stays above it while the pipe is (pipe + sndcnt, as Linux and
			 * the simulator's sender): capping it at the target would stop sending,
			 * the fast retransmit included, until the pipe had drained below. */
			scv_prr(sk, &s->prr_delivered, c->ssthresh && c->ssthresh < w ? c->ssthresh : w, flag, rs);
		} else {
			tp->snd_cwnd = w;
		}
		if (c->pacing_rate) {
			sk->sk_pacing_status = SK_PACING_NEEDED;
			sk->sk_pacing_rate = c->pacing_rate;
			s->paced = 1;
		} else if (s->paced) {
			sk->sk_pacing_rate = ~0UL;
		}
		SCV_STAT_ADD(scv_shim_sts, SCV_STAT_APPLIED, 1);
	}
	SCV_STAT_SET(scv_shim_sts, SCV_STAT_CWND, tp->snd_cwnd);
}

SEC("struct_ops/shim_ssthresh")
__u32 BPF_PROG(bpf_shim_ssthresh, struct sock *sk)
{
	SCV_STAT_ADD(scv_shim_sts, SCV_STAT_LOSS, 1);
	emit(sk, SCV_EV_CONGESTION, 0, 0, bpf_ktime_get_ns());
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/shim_set_state")
void BPF_PROG(bpf_shim_set_state, struct sock *sk, __u8 new_state)
{
	/* Called before icsk_ca_state changes: a reduction begins when CWR or Recovery is
	 * entered from outside both (CWR -> Recovery continues it, tcp_enter_recovery). */
	if ((new_state == TCP_CA_CWR || new_state == TCP_CA_Recovery) && !scv_in_reduction(sk))
		shim_sock(sk)->prr_delivered = 0;
	emit(sk, SCV_EV_STATE, new_state, 0, bpf_ktime_get_ns());
}

/* CA_EVENT_TX_START: the first transmission with nothing in flight (tcp_event_data_sent),
 * which algorithms use to restart after idle (CUBIC's epoch shift, Vegas's re-init). */
SEC("struct_ops/shim_cwnd_event")
void BPF_PROG(bpf_shim_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	if (ev == CA_EVENT_TX_START)
		emit(sk, SCV_EV_TX_START, 0, 0, bpf_ktime_get_ns());
}

SEC("struct_ops/shim_undo_cwnd")
__u32 BPF_PROG(bpf_shim_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops scv_shim = {
	.init = (void *)bpf_shim_init,
	.release = (void *)bpf_shim_release,
	.cong_control = (void *)bpf_shim_cong_control,
	.ssthresh = (void *)bpf_shim_ssthresh,
	.set_state = (void *)bpf_shim_set_state,
	.cwnd_event = (void *)bpf_shim_cwnd_event,
	.undo_cwnd = (void *)bpf_shim_undo_cwnd,
	.name = "scv_shim",
};
