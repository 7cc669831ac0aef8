/* SPDX-License-Identifier: GPL-2.0 */
/* scv_yield: Yield TCP (Ong 2020 ch. 5 and App. B tcp_yield.c), following
 * crates/cc/src/algorithms/yield_tcp.rs; the algorithm is scv_yield_* in scv_core.h.
 * Hooks as in App. B: pkts_acked = the per-ACK operation (Algorithm 1), cong_avoid = the
 * "per-round" operation (Algorithm 2), ssthresh = tcp_reno_ssthresh. */
#include "scv_common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scv_yield_params);
} scv_yield_par SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct scv_yield_params);
} scv_yield_ovr SEC(".maps");

SCV_STATS_MAP(scv_yield_sts);

/* struct yield lives in icsk_ca_priv (104 bytes), as the module keeps it (inet_csk_ca). */
static __always_inline struct scv_yield_state *yield_state(struct sock *sk)
{
	return (struct scv_yield_state *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline struct scv_yield_params *yield_params(struct sock *sk)
{
	__u32 zero = 0;
	__u64 cookie = scv_cookie(sk);
	struct scv_yield_params *p;

	if (cookie) {
		p = bpf_map_lookup_elem(&scv_yield_ovr, &cookie);
		if (p) {
			SCV_STAT_ADD(scv_yield_sts, SCV_STAT_OVR, 1);
			return p;
		}
	}
	return bpf_map_lookup_elem(&scv_yield_par, &zero);
}

SEC("struct_ops/yield_init")
void BPF_PROG(bpf_yield_init, struct sock *sk)
{
	scv_yield_init(yield_state(sk));
	SCV_STAT_ADD(scv_yield_sts, SCV_STAT_INIT, 1);
}

SEC("struct_ops/yield_pkts_acked")
void BPF_PROG(bpf_yield_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct scv_yield_params *p = yield_params(sk);
	__s64 owd = 0;
	int has;

	if (!p || !sample->pkts_acked)
		return;
	has = scv_owd_ns(tp, &owd);
	SCV_STAT_ADD(scv_yield_sts, has ? SCV_STAT_OWD : SCV_STAT_RTT, 1);
	scv_yield_pkts_acked(yield_state(sk), p, has, owd);
}

SEC("struct_ops/yield_cong_avoid")
void BPF_PROG(bpf_yield_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct scv_yield_params *p = yield_params(sk);
	struct scv_yield_state *s = yield_state(sk);
	struct scv_win w;

	if (!p) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	scv_win_read(tp, &w);
	scv_yield_cong_avoid(s, p, &w, acked, scv_cwnd_limited(tp));
	scv_win_write(tp, &w);
	SCV_STAT_ADD(scv_yield_sts, SCV_STAT_ACKS, 1);
	SCV_STAT_SET(scv_yield_sts, SCV_STAT_CWND, tp->snd_cwnd);
	SCV_STAT_SET(scv_yield_sts, SCV_STAT_QDELAY, (__u64)scv_yield_qdelay_ms(s) * 1000000ULL);
}

SEC("struct_ops/yield_ssthresh")
__u32 BPF_PROG(bpf_yield_ssthresh, struct sock *sk)
{
	SCV_STAT_ADD(scv_yield_sts, SCV_STAT_LOSS, 1);
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/yield_undo_cwnd")
__u32 BPF_PROG(bpf_yield_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops scv_yield = {
	.init = (void *)bpf_yield_init,
	.pkts_acked = (void *)bpf_yield_pkts_acked,
	.cong_avoid = (void *)bpf_yield_cong_avoid,
	.ssthresh = (void *)bpf_yield_ssthresh,
	.undo_cwnd = (void *)bpf_yield_undo_cwnd,
	.name = "scv_yield",
};
