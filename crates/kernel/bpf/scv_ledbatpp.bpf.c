/* SPDX-License-Identifier: GPL-2.0 */
/* scv_ledbatpp: LEDBAT++ (draft-irtf-iccrg-ledbat-plus-plus), following
 * crates/cc/src/algorithms/ledbat_plus_plus.rs; the algorithm is scv_lpp_* in scv_core.h.
 * Delay samples are per-ACK RTTs (ack_sample.rtt_us from pkts_acked), as the draft says.
 * Loss/ECN: set_state(Recovery/CWR) applies on_congestion, set_state(Loss) on_rto; the
 * ssthresh hook only reports the halved window (Linux calls it before set_state, for RTOs
 * too, so acting there would halve twice). */
#include "scv_common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scv_lpp_params);
} scv_lpp_par SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct scv_lpp_params);
} scv_lpp_ovr SEC(".maps");

struct lpp_sock {
	struct scv_lpp_state core;
	__s64 rtt_us; /* RTT sample of the current ACK, -1: none */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct lpp_sock);
} scv_lpp_st SEC(".maps");

SCV_STATS_MAP(scv_lpp_sts);

static __always_inline struct scv_lpp_params *lpp_params(struct sock *sk)
{
	__u32 zero = 0;
	__u64 cookie = scv_cookie(sk);
	struct scv_lpp_params *p;

	if (cookie) {
		p = bpf_map_lookup_elem(&scv_lpp_ovr, &cookie);
		if (p) {
			SCV_STAT_ADD(scv_lpp_sts, SCV_STAT_OVR, 1);
			return p;
		}
	}
	return bpf_map_lookup_elem(&scv_lpp_par, &zero);
}

static __always_inline struct lpp_sock *lpp_sock(struct sock *sk)
{
	return bpf_sk_storage_get(&scv_lpp_st, sk, 0, 0);
}

SEC("struct_ops/lpp_init")
void BPF_PROG(bpf_lpp_init, struct sock *sk)
{
	struct scv_lpp_params *p = lpp_params(sk);
	struct lpp_sock *s;

	if (!p)
		return;
	s = bpf_sk_storage_get(&scv_lpp_st, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return;
	scv_lpp_init(&s->core, p, scv_tcp_sk(sk)->snd_cwnd);
	s->rtt_us = -1;
	SCV_STAT_ADD(scv_lpp_sts, SCV_STAT_INIT, 1);
}

SEC("struct_ops/lpp_pkts_acked")
void BPF_PROG(bpf_lpp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct lpp_sock *s = lpp_sock(sk);

	if (s)
		s->rtt_us = sample->rtt_us;
}

SEC("struct_ops/lpp_cong_avoid")
void BPF_PROG(bpf_lpp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct scv_lpp_params *p = lpp_params(sk);
	struct lpp_sock *s = lpp_sock(sk);
	struct scv_ack a = {};
	struct scv_win w;
	__u32 cur;

	if (!p || !s) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	/* The kernel moved the window on its own (end of recovery, RTO, undo): follow it. */
	cur = s->core.cwnd_fp >= SCV_FP ? (__u32)((__u64)s->core.cwnd_fp / SCV_FP) : 1;
	if (cur != tp->snd_cwnd)
		s->core.cwnd_fp = (__s64)tp->snd_cwnd * SCV_FP;
	a.now_ns = tp->tcp_mstamp * 1000;
	a.acked = acked;
	a.packets_out = tp->packets_out;
	a.prior_in_flight = 0;
	a.cwnd_limited = scv_cwnd_limited(tp);
	if (s->rtt_us > 0) {
		a.rtt_ns = s->rtt_us * 1000;
		a.has_rtt = 1;
		SCV_STAT_ADD(scv_lpp_sts, SCV_STAT_RTT, 1);
	}
	s->rtt_us = -1;
	scv_win_read(tp, &w);
	scv_lpp_on_ack(&s->core, p, &w, &a);
	scv_win_write(tp, &w);
	SCV_STAT_ADD(scv_lpp_sts, SCV_STAT_ACKS, 1);
	SCV_STAT_SET(scv_lpp_sts, SCV_STAT_CWND, tp->snd_cwnd);
	SCV_STAT_SET(scv_lpp_sts, SCV_STAT_QDELAY, s->core.queuing_delay);
}

SEC("struct_ops/lpp_ssthresh")
__u32 BPF_PROG(bpf_lpp_ssthresh, struct sock *sk)
{
	struct scv_lpp_params *p = lpp_params(sk);
	struct lpp_sock *s = lpp_sock(sk);

	SCV_STAT_ADD(scv_lpp_sts, SCV_STAT_LOSS, 1);
	if (!p || !s)
		return tcp_reno_ssthresh(sk);
	return scv_lpp_ssthresh(&s->core, p);
}

SEC("struct_ops/lpp_set_state")
void BPF_PROG(bpf_lpp_set_state, struct sock *sk, __u8 new_state)
{
	struct scv_lpp_params *p = lpp_params(sk);
	struct lpp_sock *s = lpp_sock(sk);
	__u8 old = ((struct inet_connection_sock *)sk)->icsk_ca_state;

	if (!p || !s)
		return;
	if (new_state == TCP_CA_Loss)
		scv_lpp_on_rto(&s->core, p);
	else if ((new_state == TCP_CA_Recovery || new_state == TCP_CA_CWR) && old < TCP_CA_CWR)
		scv_lpp_on_congestion(&s->core, p, scv_tcp_sk(sk)->tcp_mstamp * 1000);
}

SEC("struct_ops/lpp_undo_cwnd")
__u32 BPF_PROG(bpf_lpp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops scv_ledbatpp = {
	.init = (void *)bpf_lpp_init,
	.pkts_acked = (void *)bpf_lpp_pkts_acked,
	.cong_avoid = (void *)bpf_lpp_cong_avoid,
	.ssthresh = (void *)bpf_lpp_ssthresh,
	.set_state = (void *)bpf_lpp_set_state,
	.undo_cwnd = (void *)bpf_lpp_undo_cwnd,
	.name = "scv_ledbatpp",
};
