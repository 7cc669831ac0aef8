/* SPDX-License-Identifier: GPL-2.0 */
/* scv_ebb: Ebb, our own LBE controller (docs/ebb.md), following
 * crates/cc/src/algorithms/ebb/ in its default variant; the algorithm is scv_ebb_* in
 * scv_core.h. The glue builds the ACK as the shim agent's translation does
 * (crates/kernel/src/agent/translate.rs and crates/cc sample.rs): rs->rtt_us (else the
 * timestamp RTT on an ACK that advanced SND.UNA), the delivery rate
 * rs->delivered·mss/rs->interval_us, SND.UNA and SND.NXT as byte offsets
 * (tp->bytes_acked), growth held in CWR and Recovery and in Loss without FLAG_DATA_ACKED.
 * It owns cong_control, so it runs Linux's PRR itself in CWR and Recovery, towards Ebb's
 * window, as the shim does; the window is Ebb's bytes / mss, the pacing rate Ebb's bit/s
 * / 8. Loss/ECN: set_state(Recovery/CWR) applies on_congestion, set_state(Loss) on_rto;
 * the ssthresh hook only reports the window on_congestion will set. */
#include "scv_common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scv_ebb_params);
} scv_ebb_par SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct scv_ebb_params);
} scv_ebb_ovr SEC(".maps");

struct ebb_sock {
	struct scv_ebb_state core;
	__u32 prr_delivered; /* packets delivered since this cwnd reduction began */
	__u8 paced;          /* we set SK_PACING_NEEDED */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ebb_sock);
} scv_ebb_st SEC(".maps");

SCV_STATS_MAP(scv_ebb_sts);

/* Linux FLAG_DATA_ACKED and FLAG_SND_UNA_ADVANCED (net/ipv4/tcp_input.c). */
#define SCV_FLAG_DATA_ACKED 0x04

static __always_inline struct scv_ebb_params *ebb_params(struct sock *sk)
{
	__u32 zero = 0;
	__u64 cookie = scv_cookie(sk);
	struct scv_ebb_params *p;

	if (cookie) {
		p = bpf_map_lookup_elem(&scv_ebb_ovr, &cookie);
		if (p) {
			SCV_STAT_ADD(scv_ebb_sts, SCV_STAT_OVR, 1);
			return p;
		}
	}
	return bpf_map_lookup_elem(&scv_ebb_par, &zero);
}

static __always_inline struct ebb_sock *ebb_sock(struct sock *sk)
{
	return bpf_sk_storage_get(&scv_ebb_st, sk, 0, 0);
}


/* Bytes to whole packets as the shim agent writes them: clamp(bytes / mss, 1, 2^31 − 1). */
static __always_inline __u32 ebb_pkts(__u64 bytes, __u64 mss)
{
	__u64 n = bytes / mss;
	if (n < 1)
		n = 1;
	if (n > SCV_INFINITE_SSTHRESH)
		n = SCV_INFINITE_SSTHRESH;
	return (__u32)n;
}

SEC("struct_ops/ebb_init")
void BPF_PROG(bpf_ebb_init, struct sock *sk)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct ebb_sock *s;
	__u64 mss = tp->mss_cache ? tp->mss_cache : 1;

	if (!ebb_params(sk))
		return;
	s = bpf_sk_storage_get(&scv_ebb_st, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return;
	scv_ebb_init(&s->core, mss, (__u64)tp->snd_cwnd * mss);
	s->prr_delivered = 0;
	s->paced = 0;
	SCV_STAT_ADD(scv_ebb_sts, SCV_STAT_INIT, 1);
}

SEC("struct_ops/ebb_cong_control")
void BPF_PROG(bpf_ebb_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	struct scv_ebb_params *p = ebb_params(sk);
	struct ebb_sock *s = ebb_sock(sk);
	__u8 st = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	__u64 mss = tp->mss_cache ? tp->mss_cache : 1, ss, bps;
	struct scv_ebb_ack a = {};
	__u32 w, sst;

	if (!p || !s) {
		/* No state (socket storage could not be allocated): Reno growth outside
		 * reductions; in CWR/Recovery the window stays where the kernel put it. */
		if (scv_in_reduction(sk))
			return;
		if (rs->acked_sacked > 0)
			tcp_reno_cong_avoid(sk, ack, rs->acked_sacked);
		return;
	}
	a.now_ns = tp->tcp_mstamp * 1000;
	if (rs->rtt_us > 0) {
		a.rtt_ns = (__u64)rs->rtt_us * 1000;
		a.has_rtt = 1;
	} else if ((flag & SCV_FLAG_DATA_ACKED) && tp->rx_opt.tstamp_ok && tp->rx_opt.rcv_tsecr) {
		/* RFC 7323 RTTM as Linux tcp_rtt_tsopt_us (crates/cc sample.rs). */
		__u64 unit = tp->tcp_usec_ts ? 1000 : 1000000;
		__u32 clock = (__u32)(tp->tcp_usec_ts ? tp->tcp_mstamp : tp->tcp_mstamp / 1000);
		__s32 d = (__s32)(clock - tp->rx_opt.rcv_tsecr);
		if (d >= 0) {
			a.rtt_ns = (__u64)d * unit;
			a.has_rtt = 1;
		}
	}
	if (a.has_rtt)
		SCV_STAT_ADD(scv_ebb_sts, SCV_STAT_RTT, 1);
	if (rs->interval_us > 0 && rs->delivered > 0) {
		/* Rate::from_bytes_over(delivered·mss, interval): bytes·8·10^6 / µs. */
		a.rate_bps = (__u64)rs->delivered * mss * 8000000ULL / (__u64)rs->interval_us;
		a.has_rate = 1;
		a.rate_app_limited = rs->is_app_limited;
	}
	/* tcp_may_raise_cwnd, as the shared sample contract applies it to every algorithm
	 * without its own cong_control, although Ebb owns cong_control here. */
	if (scv_sack_only_raises_nothing(sk, flag & SCV_FLAG_DATA_ACKED))
		a.bytes_acked = 0;
	else
		a.bytes_acked = (__u64)rs->acked_sacked * mss;
	a.snd_una = tp->bytes_acked;
	a.snd_nxt = tp->bytes_acked + (__u32)(tp->snd_nxt - tp->snd_una);
	a.cwnd_limited = scv_cwnd_limited(tp);
	a.in_recovery = st == TCP_CA_CWR || st == TCP_CA_Recovery ||
			(st == TCP_CA_Loss && !(flag & SCV_FLAG_DATA_ACKED));
	scv_ebb_on_ack(&s->core, p, &a);

	w = ebb_pkts(s->core.cwnd, mss);
	if (w > tp->snd_cwnd_clamp)
		w = tp->snd_cwnd_clamp;
	ss = scv_ebb_ssthresh(&s->core);
	sst = ss == SCV_EBB_NONE ? SCV_INFINITE_SSTHRESH : ebb_pkts(ss, mss);
	tp->snd_ssthresh = sst;
	if (scv_in_reduction(sk))
		scv_prr(sk, &s->prr_delivered, sst < w ? sst : w, flag, rs);
	else
		tp->snd_cwnd = w;
	bps = scv_ebb_pacing_bps(&s->core, p);
	if (bps) {
		sk->sk_pacing_status = SK_PACING_NEEDED;
		sk->sk_pacing_rate = bps / 8 ? bps / 8 : 1;
		s->paced = 1;
	} else if (s->paced) {
		sk->sk_pacing_rate = ~0UL;
	}
	SCV_STAT_ADD(scv_ebb_sts, SCV_STAT_ACKS, 1);
	SCV_STAT_SET(scv_ebb_sts, SCV_STAT_CWND, tp->snd_cwnd);
	if (s->core.round_min != SCV_EBB_NONE && s->core.base != SCV_EBB_NONE)
		SCV_STAT_SET(scv_ebb_sts, SCV_STAT_QDELAY, s->core.round_min - s->core.base);
}

SEC("struct_ops/ebb_ssthresh")
__u32 BPF_PROG(bpf_ebb_ssthresh, struct sock *sk)
{
	struct scv_ebb_params *p = ebb_params(sk);
	struct ebb_sock *s = ebb_sock(sk);
	struct tcp_sock *tp = scv_tcp_sk(sk);
	__u64 mss = tp->mss_cache ? tp->mss_cache : 1;

	SCV_STAT_ADD(scv_ebb_sts, SCV_STAT_LOSS, 1);
	if (!p || !s)
		return tcp_reno_ssthresh(sk);
	return ebb_pkts(scv_ebb_scale_md(&s->core, p, s->core.cwnd), mss);
}

SEC("struct_ops/ebb_set_state")
void BPF_PROG(bpf_ebb_set_state, struct sock *sk, __u8 new_state)
{
	struct scv_ebb_params *p = ebb_params(sk);
	struct ebb_sock *s = ebb_sock(sk);
	__u8 old = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	struct tcp_sock *tp = scv_tcp_sk(sk);

	if (!p || !s)
		return;
	/* Called before icsk_ca_state changes: a reduction begins when CWR or Recovery is
	 * entered from outside both (as the agent's translation and scv_shim). */
	if (new_state == TCP_CA_Loss) {
		scv_ebb_on_rto(&s->core, p, tp->mss_cache ? tp->mss_cache : 1);
	} else if ((new_state == TCP_CA_Recovery || new_state == TCP_CA_CWR) && old < TCP_CA_CWR) {
		s->prr_delivered = 0;
		scv_ebb_on_congestion(&s->core, p);
	}
}

SEC("struct_ops/ebb_undo_cwnd")
__u32 BPF_PROG(bpf_ebb_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops scv_ebb = {
	.init = (void *)bpf_ebb_init,
	.cong_control = (void *)bpf_ebb_cong_control,
	.ssthresh = (void *)bpf_ebb_ssthresh,
	.set_state = (void *)bpf_ebb_set_state,
	.undo_cwnd = (void *)bpf_ebb_undo_cwnd,
	.name = "scv_ebb",
};
