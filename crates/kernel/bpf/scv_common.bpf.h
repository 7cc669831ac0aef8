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
