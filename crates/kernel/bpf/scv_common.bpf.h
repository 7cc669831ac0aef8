/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Shared glue of Scavenger's BPF congestion controls: kernel helpers, the kfuncs of
 * tcp_cong.c, and how one ACK is read from a tcp_sock into a `struct scv_ack`. */
#ifndef SCV_COMMON_BPF_H
#define SCV_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "scv_core.h"

char _license[] SEC("license") = "GPL";

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

static __always_inline struct tcp_sock *scv_tcp_sk(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

/* Linux tcp_is_cwnd_limited (include/net/tcp.h), which is inline and not a kfunc.
 * Bitfields are read directly: the program is built against this kernel's BTF. */
static __always_inline int scv_cwnd_limited(struct tcp_sock *tp)
{
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return !!tp->is_cwnd_limited;
}

/* Linux FLAG_SND_UNA_ADVANCED (net/ipv4/tcp_input.c), as the kernel passes it to
 * cong_control. */
#define SCV_FLAG_SND_UNA_ADVANCED 0x400

/* Packets in flight, Linux tcp_packets_in_flight (include/net/tcp.h). */
static __always_inline __u32 scv_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/* In a window reduction (CWR or Recovery), where PRR sets the window. */
static __always_inline int scv_in_reduction(struct sock *sk)
{
	__u8 st = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	return st == TCP_CA_CWR || st == TCP_CA_Recovery;
}

/* An ACK that only SACKs gives the window nothing: Linux tcp_may_raise_cwnd as the shared
 * sample contract applies it (crates/cc/src/sample.rs raises_cwnd). In Open and Disorder,
 * an ACK that acknowledged no data cumulatively (`data_acked` false) raises nothing unless
 * reordering was seen: tp->reordering above the socket's namespace's
 * net.ipv4.tcp_reordering, read as tcp_may_raise_cwnd reads it. */
static __always_inline int scv_sack_only_raises_nothing(struct sock *sk, int data_acked)
{
	__u8 st = ((struct inet_connection_sock *)sk)->icsk_ca_state;

	return st <= TCP_CA_Disorder && !data_acked &&
	       scv_tcp_sk(sk)->reordering <=
		       BPF_CORE_READ(sk, __sk_common.skc_net.net, ipv4.sysctl_tcp_reordering);
}

/* Proportional Rate Reduction (RFC 6937, PRR-SSRB) towards `target` packets, as Linux
 * tcp_cwnd_reduction. With cong_control set the kernel skips its own PRR (tcp_cong_control
 * returns after calling us), so without this a loss would cut the window in one step and
 * hold back the fast retransmit; the simulator's sender runs the same PRR
 * (crates/sim/src/sender.rs). tp->prior_cwnd and tp->prr_out are kept by the kernel
 * (tcp_init_cwnd_reduction, tcp_write_xmit) whatever the congestion control;
 * `*prr_delivered` (packets delivered since the reduction began) is the caller's, reset
 * when a reduction begins. */
static __always_inline void scv_prr(struct sock *sk, __u32 *prr_delivered, __u32 target, int flag,
				    const struct rate_sample *rs)
{
	struct tcp_sock *tp = scv_tcp_sk(sk);
	__u32 pipe = scv_in_flight(tp), prior = tp->prior_cwnd;
	int sndcnt, acked = rs->acked_sacked;

	if (acked <= 0 || !prior)
		return;
	*prr_delivered += acked;
	if (pipe > target) {
		__u64 dividend = (__u64)target * *prr_delivered + prior - 1;
		sndcnt = (int)(dividend / prior) - (int)tp->prr_out;
	} else {
		int delta = target - pipe;
		sndcnt = (int)tp->prr_out - (int)*prr_delivered;
		if (sndcnt < acked)
			sndcnt = acked;
		if ((flag & SCV_FLAG_SND_UNA_ADVANCED) && !rs->losses)
			sndcnt++;
		if (sndcnt > delta)
			sndcnt = delta;
	}
	/* Force a fast retransmit upon entering fast recovery. */
	if (sndcnt < (tp->prr_out ? 0 : 1))
		sndcnt = tp->prr_out ? 0 : 1;
	tp->snd_cwnd = pipe + sndcnt;
}

/* The socket cookie if one was ever generated (SO_COOKIE, inet_diag/ss): the key of the
 * per-socket parameter overrides. 0 = none. */
static __always_inline __u64 scv_cookie(struct sock *sk)
{
	return (__u64)sk->__sk_common.skc_cookie.counter;
}

/* One-way delay from TCP timestamps: the peer's TSval of this ACK minus our own TSval
 * it echoes (TSecr). Both are millisecond clocks on Linux (unless usec timestamps were
 * negotiated), so this is OWD + clock offset, in 1 ms steps: the signal of the Linux
 * LEDBAT module (time − remote_time) and of Yield's App. B estimator. */
static __always_inline int scv_owd_ns(struct tcp_sock *tp, __s64 *owd)
{
	__u32 tsval = tp->rx_opt.rcv_tsval, tsecr = tp->rx_opt.rcv_tsecr;

	if (!tp->rx_opt.tstamp_ok || !tsecr)
		return 0;
	if (tp->tcp_usec_ts)
		*owd = (__s64)(__s32)(tsval - tsecr) * 1000LL;
	else
		*owd = (__s64)(__s32)(tsval - tsecr) * 1000000LL;
	return 1;
}

/* The window in and out of a core function. */
static __always_inline void scv_win_read(struct tcp_sock *tp, struct scv_win *w)
{
	w->cwnd = tp->snd_cwnd;
	w->ssthresh = tp->snd_ssthresh;
	w->cwnd_cnt = tp->snd_cwnd_cnt;
}

static __always_inline void scv_win_write(struct tcp_sock *tp, const struct scv_win *w)
{
	__u32 c = w->cwnd;
	if (c > tp->snd_cwnd_clamp)
		c = tp->snd_cwnd_clamp;
	if (c < 1)
		c = 1;
	tp->snd_cwnd = c;
	tp->snd_ssthresh = w->ssthresh;
	tp->snd_cwnd_cnt = w->cwnd_cnt;
}

/* Counters every algorithm keeps for `scavenger kernel status` and the tests. */
enum scv_stat {
	SCV_STAT_INIT = 0,   /* sockets that started with this CC */
	SCV_STAT_ACKS = 1,   /* cong_avoid / cong_control calls */
	SCV_STAT_CWND = 2,   /* last cwnd set (packets) */
	SCV_STAT_QDELAY = 3, /* last queuing delay (ns) */
	SCV_STAT_OVR = 4,    /* ACKs that used a per-socket override */
	SCV_STAT_LOSS = 5,   /* ssthresh calls (loss / ECN / RTO) */
	SCV_STAT_OWD = 6,    /* delay samples taken from TCP timestamps */
	SCV_STAT_RTT = 7,    /* delay samples taken from RTT */
	SCV_STAT_N = 16
};

#define SCV_STATS_MAP(name)                                   \
	struct {                                              \
		__uint(type, BPF_MAP_TYPE_ARRAY);             \
		__uint(max_entries, SCV_STAT_N);              \
		__type(key, __u32);                           \
		__type(value, __u64);                         \
	} name SEC(".maps")

#define SCV_STAT_ADD(map, k, v)                                       \
	do {                                                          \
		__u32 _k = (k);                                       \
		__u64 *_p = bpf_map_lookup_elem(&map, &_k);           \
		if (_p)                                               \
			__sync_fetch_and_add(_p, (v));                \
	} while (0)

#define SCV_STAT_SET(map, k, v)                                       \
	do {                                                          \
		__u32 _k = (k);                                       \
		__u64 *_p = bpf_map_lookup_elem(&map, &_k);           \
		if (_p)                                               \
			*_p = (v);                                    \
	} while (0)

#endif
