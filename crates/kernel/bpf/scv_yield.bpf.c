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

/* struct yield lives in icsk_ca_priv (104 bytes), as the module keeps it (inet_csk_ca), with
 * tp->delivered at the last ACK: which ACKs run the per-ACK part (bpf_yield_pkts_acked). */
struct yield_sock {
	struct scv_yield_state core;
	__u32 last_delivered;
};

_Static_assert(sizeof(struct yield_sock) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "struct yield_sock fits in icsk_ca_priv");

static __always_inline struct yield_sock *yield_sock(struct sock *sk)
{
	return (struct yield_sock *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline struct scv_yield_state *yield_state(struct sock *sk)
{
	return &yield_sock(sk)->core;
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
	yield_sock(sk)->last_delivered = scv_tcp_sk(sk)->delivered;
	SCV_STAT_ADD(scv_yield_sts, SCV_STAT_INIT, 1);
}

SEC("struct_ops/yield_pkts_acked")
void BPF_PROG(bpf_yield_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct scv_yield_params *p = yield_params(sk);
	__s64 owd = 0;
	int has;

	struct yield_sock *ys = yield_sock(sk);
	__u32 newly = tp->delivered - ys->last_delivered;

	/* The per-ACK part runs on the ACKs the shared sample contract gives bytes to
	 * (crates/cc yield_tcp.rs on_ack: bytes_acked > 0; docs/deviations/yield.md#yield-ack-parts):
	 * segments newly delivered, cumulatively or by SACK (tp->delivered, which sacktag and
	 * tcp_clean_rtx_queue have advanced by now), except an ACK that only SACKs in Open or
	 * Disorder (tcp_may_raise_cwnd, sample::raises_cwnd). Until 2026-11-29 it ran only on
	 * ACKs that advanced SND.UNA (sample->pkts_acked), which skipped every SACK-only ACK of
	 * a recovery: at 350 ms the delay state then differed from the Rust version's, and the
	 * window collapsed and slow-started back once a second (docs/validation.md#yield-native-ack-parts). */
	ys->last_delivered = tp->delivered;
	if (!p || !newly)
		return;
	if (scv_sack_only_raises_nothing(sk, sample->pkts_acked != 0))
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
