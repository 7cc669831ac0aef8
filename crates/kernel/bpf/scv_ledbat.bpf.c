/* SPDX-License-Identifier: GPL-2.0 */
/* scv_ledbat: LEDBAT (RFC 6817) as the Linux module Ong 2020 evaluated (§2.2.7, §3.6),
 * following crates/cc/src/algorithms/ledbat.rs; the algorithm is scv_ledbat_cong_avoid
 * in scv_core.h. Loss/ECN: tcp_reno_ssthresh (RFC 6817 §2.4.2 "on data loss"). */
#include "scv_common.bpf.h"

/* Parameters: [0] global, written by the loader and `scavenger kernel set`. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scv_ledbat_params);
} scv_ledbat_par SEC(".maps");

/* Per-socket overrides keyed by socket cookie (`kernel set --cookie`). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct scv_ledbat_params);
} scv_ledbat_ovr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct scv_ledbat_state);
} scv_ledbat_st SEC(".maps");

SCV_STATS_MAP(scv_ledbat_sts);

static __always_inline struct scv_ledbat_params *ledbat_params(struct sock *sk)
{
	__u32 zero = 0;
	__u64 cookie = scv_cookie(sk);
	struct scv_ledbat_params *p;

	if (cookie) {
		p = bpf_map_lookup_elem(&scv_ledbat_ovr, &cookie);
		if (p) {
			SCV_STAT_ADD(scv_ledbat_sts, SCV_STAT_OVR, 1);
			return p;
		}
	}
	return bpf_map_lookup_elem(&scv_ledbat_par, &zero);
}

SEC("struct_ops/ledbat_init")
void BPF_PROG(bpf_ledbat_init, struct sock *sk)
{
	struct scv_ledbat_params *p = ledbat_params(sk);
	struct scv_ledbat_state *s;

	if (!p)
		return;
	s = bpf_sk_storage_get(&scv_ledbat_st, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return;
	scv_ledbat_init(s, p);
	SCV_STAT_ADD(scv_ledbat_sts, SCV_STAT_INIT, 1);
}

SEC("struct_ops/ledbat_cong_avoid")
void BPF_PROG(bpf_ledbat_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct scv_ledbat_params *p = ledbat_params(sk);
	struct scv_ledbat_state *s;
	struct scv_ack a = {};
	struct scv_win w;

	s = bpf_sk_storage_get(&scv_ledbat_st, sk, 0, 0);
	if (!p || !s) {
		/* No state (storage full): behave as Reno rather than stall. */
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	a.now_ns = tp->tcp_mstamp * 1000;
	a.acked = acked;
	a.packets_out = tp->packets_out;
	a.cwnd_limited = scv_cwnd_limited(tp);
	a.has_owd = scv_owd_ns(tp, &a.owd_ns);
	if (tp->srtt_us) {
		/* RTT fallback when timestamps are off (delay_source auto/rtt): the latest
		 * smoothed RTT is the only RTT cong_avoid sees. */
		a.rtt_ns = (__s64)(tp->srtt_us >> 3) * 1000;
		a.has_rtt = 1;
	}
	if (p->delay_source == 2)
		a.has_owd = 0;
	SCV_STAT_ADD(scv_ledbat_sts, a.has_owd ? SCV_STAT_OWD : SCV_STAT_RTT, 1);
	scv_win_read(tp, &w);
	scv_ledbat_cong_avoid(s, p, &w, &a);
	scv_win_write(tp, &w);
	SCV_STAT_ADD(scv_ledbat_sts, SCV_STAT_ACKS, 1);
	SCV_STAT_SET(scv_ledbat_sts, SCV_STAT_CWND, tp->snd_cwnd);
	SCV_STAT_SET(scv_ledbat_sts, SCV_STAT_QDELAY, s->queuing_delay);
}

SEC("struct_ops/ledbat_ssthresh")
__u32 BPF_PROG(bpf_ledbat_ssthresh, struct sock *sk)
{
	SCV_STAT_ADD(scv_ledbat_sts, SCV_STAT_LOSS, 1);
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/ledbat_undo_cwnd")
__u32 BPF_PROG(bpf_ledbat_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops scv_ledbat = {
	.init = (void *)bpf_ledbat_init,
	.cong_avoid = (void *)bpf_ledbat_cong_avoid,
	.ssthresh = (void *)bpf_ledbat_ssthresh,
	.undo_cwnd = (void *)bpf_ledbat_undo_cwnd,
	.name = "scv_ledbat",
};
