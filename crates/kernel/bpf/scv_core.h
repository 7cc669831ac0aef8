/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * scv_core.h — the algorithm cores of Scavenger's native kernel congestion controls,
 * as pure functions over plain state structs (no kernel types, no helpers, no floats).
 *
 * The same file is compiled twice:
 *   - for BPF (clang -target bpf), included by the struct_ops programs scv_*.bpf.c, which
 *     copy the socket's window in, call a core function and copy the result back;
 *   - for the host (build.rs, `cc` crate), so that crates/kernel/tests/parity.rs can feed
 *     the same ACK sequences to these functions and to the Rust implementations in
 *     crates/cc and compare the windows.
 *
 * BPF constraints that shape the code: no floating point (fractional parameters are
 * fixed point: *_ppm = value × 10^6, LEDBAT++ windows in 1/65536 packets); clang 14
 * emits no signed division for BPF (scv_sdiv64 below); loops are bounded by constants.
 */
#ifndef SCV_CORE_H
#define SCV_CORE_H

#ifdef __bpf__
typedef __u8 scv_u8;
typedef __u16 scv_u16;
typedef __s8 scv_s8;
typedef __u32 scv_u32;
typedef __s32 scv_s32;
typedef __u64 scv_u64;
typedef __s64 scv_s64;
#else
#include <stdint.h>
typedef uint8_t scv_u8;
typedef uint16_t scv_u16;
typedef int8_t scv_s8;
typedef uint32_t scv_u32;
typedef int32_t scv_s32;
typedef uint64_t scv_u64;
typedef int64_t scv_s64;
#endif

#define SCV_INLINE static inline __attribute__((always_inline))


/* Linux TCP_INFINITE_SSTHRESH. */
#define SCV_INFINITE_SSTHRESH 0x7fffffffU
/* Array bounds: the largest values the Rust parameter tables allow. */
#define SCV_MAX_FILTER 100
#define SCV_MAX_BASE 60
/* Array sizes: powers of two, so that `i & (SIZE - 1)` is a bound the verifier sees. */
#define SCV_BASE_SLOTS 64
#define SCV_CUR_SLOTS 128
#define SCV_NS_PER_MIN 60000000000ULL
#define SCV_PPM 1000000LL
#define SCV_FP 65536LL /* LEDBAT++ window fixed point: 1 packet */

/* The socket's window, in packets, as Linux keeps it (tp->snd_cwnd, snd_ssthresh,
 * snd_cwnd_cnt). Core functions read and write it. */
struct scv_win {
	scv_u32 cwnd;
	scv_u32 ssthresh;
	scv_u32 cwnd_cnt;
	scv_u32 _pad;
};

/* What one ACK told the datapath (the subset of crates/cc `AckSample` the cores use). */
struct scv_ack {
	scv_u64 now_ns;
	scv_s64 owd_ns;      /* one-way delay incl. clock offset; valid if has_owd */
	scv_s64 rtt_ns;      /* RTT sample; valid if has_rtt */
	scv_u32 acked;       /* segments newly acknowledged (Linux `acked`) */
	scv_u32 packets_out; /* segments in flight after the ACK (tp->packets_out) */
	scv_u32 prior_in_flight; /* segments in flight before the ACK */
	scv_u8 has_owd;
	scv_u8 has_rtt;
	scv_u8 cwnd_limited; /* tcp_is_cwnd_limited() */
	scv_u8 in_recovery;
};

SCV_INLINE scv_s64 scv_min_s64(scv_s64 a, scv_s64 b) { return a < b ? a : b; }
SCV_INLINE scv_s64 scv_max_s64(scv_s64 a, scv_s64 b) { return a > b ? a : b; }
SCV_INLINE scv_u64 scv_abs_s64(scv_s64 a) { return a < 0 ? (scv_u64)0 - (scv_u64)a : (scv_u64)a; }

/* C signed division (truncation toward zero) from unsigned division, because BPF before
 * cpu v4 (clang 14) has only unsigned divide. b must not be 0. */
SCV_INLINE scv_s64 scv_sdiv64(scv_s64 a, scv_s64 b)
{
	scv_u64 q = scv_abs_s64(a) / scv_abs_s64(b);
	return ((a < 0) != (b < 0)) ? -(scv_s64)q : (scv_s64)q;
}

SCV_INLINE scv_s32 scv_sdiv32(scv_s32 a, scv_s32 b)
{
	return (scv_s32)scv_sdiv64((scv_s64)a, (scv_s64)b);
}

/* Linux `tcp_slow_start`: cwnd = min(cwnd + acked, ssthresh); returns what is left. */
SCV_INLINE scv_u32 scv_slow_start(struct scv_win *w, scv_u32 acked)
{
	scv_u64 c = (scv_u64)w->cwnd + acked;
	if (c > w->ssthresh)
		c = w->ssthresh;
	acked -= (scv_u32)c - w->cwnd;
	w->cwnd = (scv_u32)c;
	return acked;
}

/* Linux `tcp_cong_avoid_ai(tp, w, acked)`: +1 packet per w packets acknowledged. */
SCV_INLINE void scv_cong_avoid_ai(struct scv_win *win, scv_u32 w, scv_u32 acked)
{
	if (w < 1)
		w = 1;
	if (win->cwnd_cnt >= w) {
		win->cwnd_cnt = 0;
		win->cwnd++;
	}
	win->cwnd_cnt += acked;
	if (win->cwnd_cnt >= w) {
		scv_u32 delta = win->cwnd_cnt / w;
		win->cwnd_cnt -= delta * w;
		win->cwnd += delta;
	}
}

/* Linux `tcp_reno_cong_avoid` (without the cwnd-limited test, which callers do). */
SCV_INLINE void scv_reno_cong_avoid(struct scv_win *w, scv_u32 acked)
{
	if (w->cwnd < w->ssthresh) {
		acked = scv_slow_start(w, acked);
		if (!acked)
			return;
	}
	scv_cong_avoid_ai(w, w->cwnd, acked);
}

/* Linux `tcp_reno_ssthresh`: max(cwnd / 2, 2). */
SCV_INLINE scv_u32 scv_reno_ssthresh(scv_u32 cwnd)
{
	scv_u32 h = cwnd >> 1;
	return h > 2 ? h : 2;
}

/* ------------------------------------------------------------------------------------
 * RFC 6817 delay bookkeeping (crates/cc/src/estimators/base_delay.rs): BASE_HISTORY
 * one-minute minima and the last CURRENT_FILTER samples, FILTER = MIN (RFC 6817 §2.4.2
 * update_base_delay / update_current_delay).
 */
struct scv_delay_hist {
	scv_s64 base[SCV_BASE_SLOTS];    /* ring, oldest at base_head */
	scv_s64 cur[SCV_CUR_SLOTS];   /* ring, oldest at cur_head */
	scv_u64 last_rollover_ns;
	/* MIN over each list, recomputed on every update so that readers need no loop (the
	 * verifier would walk every loop once per call site). */
	scv_s64 base_min, cur_min;
	scv_u32 base_len, base_head, base_n;
	scv_u32 cur_len, cur_head, cur_n;
	scv_u8 rolled;                 /* RFC 6817 last_rollover = -INFINITY until the first sample */
	scv_u8 minute_boundary;        /* 1: RFC round_to_minute; 0: 60 s after the last roll-over (Linux module) */
	scv_u8 _pad[6];
};

SCV_INLINE void scv_delay_hist_init(struct scv_delay_hist *h, scv_u32 base_len, scv_u32 cur_len, scv_u8 minute)
{
	if (base_len < 1)
		base_len = 1;
	if (base_len > SCV_MAX_BASE)
		base_len = SCV_MAX_BASE;
	if (cur_len < 1)
		cur_len = 1;
	if (cur_len > SCV_MAX_FILTER)
		cur_len = SCV_MAX_FILTER;
	h->base_len = base_len;
	h->cur_len = cur_len;
	h->base_head = h->base_n = h->cur_head = h->cur_n = 0;
	h->rolled = 0;
	h->minute_boundary = minute;
	h->last_rollover_ns = 0;
}

SCV_INLINE void scv_delay_hist_update(struct scv_delay_hist *h, scv_u64 now, scv_s64 d)
{
	scv_u32 blen = h->base_len, clen = h->cur_len, i;
	int due;

	if (blen < 1 || blen > SCV_MAX_BASE || clen < 1 || clen > SCV_MAX_FILTER)
		return;
	/* RFC 6817 §2.4.2 update_base_delay */
	if (!h->rolled)
		due = 1;
	else if (h->minute_boundary)
		due = now / SCV_NS_PER_MIN != h->last_rollover_ns / SCV_NS_PER_MIN;
	else
		due = now >= h->last_rollover_ns + SCV_NS_PER_MIN;
	if (due) {
		h->rolled = 1;
		h->last_rollover_ns = now;
		if (h->base_n == blen) {
			/* delete first item: the oldest slot becomes the newest */
			i = h->base_head;
			h->base_head = h->base_head + 1 >= blen ? 0 : h->base_head + 1;
		} else {
			i = h->base_head + h->base_n;
			if (i >= blen)
				i -= blen;
			h->base_n++;
		}
		h->base[i & (SCV_BASE_SLOTS - 1)] = d;
	} else if (h->base_n > 0) {
		i = h->base_head + h->base_n - 1;
		if (i >= blen)
			i -= blen;
		if (d < h->base[i & (SCV_BASE_SLOTS - 1)])
			h->base[i & (SCV_BASE_SLOTS - 1)] = d;
	}
	/* RFC 6817 §2.4.2 update_current_delay */
	if (h->cur_n == clen) {
		i = h->cur_head;
		h->cur_head = h->cur_head + 1 >= clen ? 0 : h->cur_head + 1;
	} else {
		i = h->cur_head + h->cur_n;
		if (i >= clen)
			i -= clen;
		h->cur_n++;
	}
	h->cur[i & (SCV_CUR_SLOTS - 1)] = d;

	h->base_min = 0x7fffffffffffffffLL;
	for (i = 0; i < SCV_MAX_BASE; i++) {
		if (i >= h->base_n)
			break;
		if (h->base[i] < h->base_min)
			h->base_min = h->base[i];
	}
	h->cur_min = 0x7fffffffffffffffLL;
	for (i = 0; i < SCV_MAX_FILTER; i++) {
		if (i >= h->cur_n)
			break;
		if (h->cur[i] < h->cur_min)
			h->cur_min = h->cur[i];
	}
}

/* MIN(base_delays); returns 0 and leaves *out alone when empty. */
SCV_INLINE int scv_delay_hist_base(const struct scv_delay_hist *h, scv_s64 *out)
{
	if (!h->base_n)
		return 0;
	*out = h->base_min;
	return 1;
}

/* FILTER(current_delays) = MIN. */
SCV_INLINE int scv_delay_hist_current(const struct scv_delay_hist *h, scv_s64 *out)
{
	if (!h->cur_n)
		return 0;
	*out = h->cur_min;
	return 1;
}

/* queuing_delay = FILTER(current) − MIN(base) (RFC 6817 §2.4.2), 0 before any sample and
 * never negative (crates/cc DelaySignal::queuing_delay). */
SCV_INLINE scv_s64 scv_delay_hist_queuing(const struct scv_delay_hist *h)
{
	scv_s64 b = 0, c = 0;

	if (!scv_delay_hist_base(h, &b) || !scv_delay_hist_current(h, &c))
		return 0;
	return c - b > 0 ? c - b : 0;
}

/* ------------------------------------------------------------------------------------
 * LEDBAT (RFC 6817 §2.4 as the Linux module Ong 2020 evaluated, §2.2.7 / §3.6;
 * crates/cc/src/algorithms/ledbat.rs). Parameters carry the Rust names; units below.
 */
struct scv_ledbat_params {
	scv_s64 target_ns;        /* TARGET, RFC 6817 §2.5 (100 ms) */
	scv_s64 gain_ppm;         /* GAIN while under target ×1e6 (1.0) */
	scv_s64 gain_dec_ppm;     /* GAIN while over target ×1e6 (1.0; Trang 2015 studies 10) */
	scv_s64 allowed_increase; /* segments (1) */
	scv_s64 min_cwnd;         /* segments (2) */
	scv_s64 current_filter;   /* samples (2, module param); new sockets only */
	scv_s64 base_history;     /* minutes (2, module param); new sockets only */
	scv_s64 rollover;         /* 0 = "elapsed" (module), 1 = "minute" (RFC) */
	scv_s64 slow_start;       /* bool (1) */
	scv_s64 clamp_to_first_owd; /* bool (1) */
	scv_s64 delay_source;     /* kernel only: 0 = auto (OWD when timestamps, else RTT), 1 = owd, 2 = rtt */
	scv_s64 _reserved[5];
};

#define SCV_LEDBAT_NPARAMS 11

SCV_INLINE void scv_ledbat_defaults(struct scv_ledbat_params *p)
{
	p->target_ns = 100000000LL;
	p->gain_ppm = SCV_PPM;
	p->gain_dec_ppm = SCV_PPM;
	p->allowed_increase = 1;
	p->min_cwnd = 2;
	p->current_filter = 2;
	p->base_history = 2;
	p->rollover = 0;
	p->slow_start = 1;
	p->clamp_to_first_owd = 1;
	p->delay_source = 0;
}

struct scv_ledbat_state {
	struct scv_delay_hist hist;
	scv_s64 first_owd;
	scv_s64 cwnd_cnt;   /* the module's cwnd_cnt: Σ GAIN·off_target·acked, ns·segments */
	scv_s64 queuing_delay;
	scv_u8 has_first;
	scv_u8 _pad[7];
};

SCV_INLINE void scv_ledbat_init(struct scv_ledbat_state *s, const struct scv_ledbat_params *p)
{
	scv_delay_hist_init(&s->hist, (scv_u32)p->base_history, (scv_u32)p->current_filter, p->rollover == 1);
	s->first_owd = 0;
	s->has_first = 0;
	s->cwnd_cnt = 0;
	s->queuing_delay = 0;
}

/* One delay sample (DelaySignal::on_owd / on_raw). */
SCV_INLINE void scv_ledbat_sample(struct scv_ledbat_state *s, const struct scv_ledbat_params *p, scv_u64 now, scv_s64 d, int is_owd)
{
	if (is_owd && p->clamp_to_first_owd) {
		/* Module: the first timestamps are the origin; delay = time − remote_time if
		 * positive, else 0 (Ong 2020 notes §2.0). */
		if (!s->has_first) {
			s->has_first = 1;
			s->first_owd = d;
		}
		d = d - s->first_owd;
		if (d < 0)
			d = 0;
	}
	scv_delay_hist_update(&s->hist, now, d);
}

/* The module's cong_avoid (Ledbat::on_ack). */
SCV_INLINE void scv_ledbat_cong_avoid(struct scv_ledbat_state *s, const struct scv_ledbat_params *p, struct scv_win *w,
				      const struct scv_ack *a)
{
	scv_s64 q, off, gain, target = p->target_ns, cwnd, ncwnd, inc, thr;
	scv_u32 acked = a->acked;
	scv_u64 max_allowed;

	/* Linux calls cong_avoid only outside Recovery/CWR. */
	if (a->in_recovery)
		return;
	/* RFC 6817 §2.4.2: update_base_delay(delay); update_current_delay(delay). */
	if (p->delay_source != 2 && a->has_owd)
		scv_ledbat_sample(s, p, a->now_ns, a->owd_ns, 1);
	else if (p->delay_source != 1 && !a->has_owd && a->has_rtt)
		scv_ledbat_sample(s, p, a->now_ns, a->rtt_ns, 0);
	q = scv_delay_hist_queuing(&s->hist);
	s->queuing_delay = q;
	/* Module: "don't change cwnd if not cwnd-limited". */
	if (!a->cwnd_limited)
		return;
	if (p->slow_start && w->cwnd <= w->ssthresh) {
		acked = scv_slow_start(w, acked);
		if (!acked)
			return;
	}
	if (target <= 0)
		return;
	/* RFC 6817 §2.4.2: off_target = TARGET − queuing_delay; module form in segments:
	 * cwnd_cnt += GAIN·off_target·acked; once |cwnd_cnt| ≥ cwnd·TARGET,
	 * inc = cwnd_cnt / TARGET / cwnd (truncated), cwnd += inc, cwnd_cnt −= inc·cwnd·TARGET. */
	off = target - q;
	gain = off >= 0 ? p->gain_ppm : p->gain_dec_ppm;
	if (gain == SCV_PPM)
		s->cwnd_cnt += off * (scv_s64)acked;
	else
		s->cwnd_cnt += scv_sdiv64(gain * off * (scv_s64)acked, SCV_PPM);
	cwnd = (scv_s64)w->cwnd;
	ncwnd = cwnd;
	thr = cwnd * target;
	if (thr > 0 && (scv_s64)scv_abs_s64(s->cwnd_cnt) >= thr) {
		inc = scv_sdiv64(s->cwnd_cnt, thr);
		ncwnd += inc;
		s->cwnd_cnt -= inc * thr;
	}
	/* RFC 6817 §2.4.2: cwnd ≤ flightsize + ALLOWED_INCREASE (module: packets_out + acked +
	 * ALLOWED_INCREASE); cwnd ≥ MIN_CWND; ssthresh kept below cwnd. */
	max_allowed = (scv_u64)a->packets_out + acked + (scv_u64)p->allowed_increase;
	if (ncwnd < 0)
		ncwnd = 0;
	if ((scv_u64)ncwnd > max_allowed)
		ncwnd = (scv_s64)max_allowed;
	if (ncwnd < p->min_cwnd)
		ncwnd = p->min_cwnd;
	w->cwnd = (scv_u32)ncwnd;
	if (w->cwnd <= w->ssthresh)
		w->ssthresh = w->cwnd ? w->cwnd - 1 : 0;
}

/* ------------------------------------------------------------------------------------
 * Yield TCP (Ong 2020 ch. 5 and App. B tcp_yield.c; crates/cc/src/algorithms/yield_tcp.rs),
 * with the module's u32/s32/s8 integer arithmetic.
 */
struct scv_yield_params {
	scv_s64 beta;               /* % (15), Table 5.1 */
	scv_s64 min_reduction;      /* shift (5) */
	scv_s64 max_reduction;      /* shift (3) */
	scv_s64 maxc_reduction;     /* shift (0) */
	scv_s64 ct_threshold;       /* (2) */
	scv_s64 hist_factor;        /* shift (2) */
	scv_s64 trend_factor;       /* divisor (128) */
	scv_s64 increase_threshold; /* ms (1) */
	scv_s64 decrease_threshold; /* ms (-1) */
	scv_s64 owd_granularity_ns; /* (1 ms) */
	scv_s64 shift_semantics;    /* 0 = "x86", 1 = "math" */
	scv_s64 _reserved[5];
};

#define SCV_YIELD_NPARAMS 11

SCV_INLINE void scv_yield_defaults(struct scv_yield_params *p)
{
	p->beta = 15;
	p->min_reduction = 5;
	p->max_reduction = 3;
	p->maxc_reduction = 0;
	p->ct_threshold = 2;
	p->hist_factor = 2;
	p->trend_factor = 128;
	p->increase_threshold = 1;
	p->decrease_threshold = -1;
	p->owd_granularity_ns = 1000000;
	p->shift_semantics = 0;
}

/* struct yield (Ong 2020 App. B). */
struct scv_yield_state {
	scv_s64 owd_offset;
	scv_u32 delay, delay_min, delay_max, delay_smin, delay_smax, delay_prev;
	scv_s32 delay_trend;
	scv_s32 last_trend;
	scv_s8 reduction_factor;
	scv_u8 cross_traffic;
	scv_u8 has_offset;
	scv_u8 _pad[5];
};

SCV_INLINE void scv_yield_init(struct scv_yield_state *s)
{
	s->owd_offset = 0;
	s->has_offset = 0;
	s->delay = 0;
	s->delay_min = 0xffffffffU;
	s->delay_max = 0;
	s->delay_smin = 0;
	s->delay_smax = 0;
	s->delay_prev = 0;
	s->delay_trend = 0;
	s->last_trend = 0;
	s->reduction_factor = 3; /* tcp_yield_init */
	s->cross_traffic = 0;
}

/* C conversion of an int into the s8 reduction_factor: wrap ("x86") or saturate ("math"). */
SCV_INLINE scv_s8 scv_yield_s8(const struct scv_yield_params *p, scv_s32 x)
{
	if (p->shift_semantics == 1)
		return (scv_s8)(x < -128 ? -128 : x > 127 ? 127 : x);
	return (scv_s8)x;
}

/* update_delay: EWMA scaled by 2^f, u32 wrap (eq 5.6). */
SCV_INLINE scv_u32 scv_yield_update_delay(scv_u32 delay, scv_u32 avg, scv_u32 f)
{
	f &= 31;
	if (avg)
		return avg + (delay - (avg >> f));
	return delay << f;
}

/* update_delay_trend: EWMA scaled by trend_factor, s32 (eq 5.7). */
SCV_INLINE scv_s32 scv_yield_update_trend(scv_s32 x, scv_s32 avg, scv_s32 f)
{
	if (avg)
		return (scv_s32)((scv_u32)avg + ((scv_u32)x - (scv_u32)scv_sdiv32(avg, f)));
	return (scv_s32)((scv_u32)x * (scv_u32)f);
}

/* Ong 2020 App. B.1.1 tcp_yield_pkts_acked (Algorithm 1), per ACK, also in recovery. */
SCV_INLINE void scv_yield_pkts_acked(struct scv_yield_state *s, const struct scv_yield_params *p, int has_owd, scv_s64 owd)
{
	scv_u32 hf = (scv_u32)p->hist_factor & 31;
	scv_s32 trend = 0, r, r1, tf = (scv_s32)p->trend_factor;

	if (tf == 0)
		tf = 1;
	/* Shared OWD estimator: time − remote_time relative to the first sample, in ms
	 * quantised to the timestamp tick; only a strictly positive value is taken. */
	if (has_owd) {
		scv_s64 diff, tick = p->owd_granularity_ns > 0 ? p->owd_granularity_ns : 1;
		if (!s->has_offset) {
			s->has_offset = 1;
			s->owd_offset = owd;
		}
		diff = owd - s->owd_offset;
		if (diff > 0) {
			scv_u64 ticks = (scv_u64)diff / (scv_u64)tick;
			scv_u64 ms = ticks * (scv_u64)tick / 1000000ULL;
			if (ticks > 0 && ms > 0)
				s->delay = (scv_u32)ms;
		}
	}
	if (s->delay < s->delay_min)
		s->delay_min = s->delay;
	else if (s->delay > s->delay_max)
		s->delay_max = s->delay;

	if ((s->delay_min << 3) < s->delay_smin || s->delay_smin == 0)
		s->delay_smin = s->delay_min << 3;
	else if (s->delay_min > s->delay_smin)
		s->delay_smin = scv_yield_update_delay(s->delay, s->delay_smin, 3);

	if ((s->delay_max << 3) > s->delay_smax || s->delay_smax == 0)
		s->delay_smax = s->delay_max << 3;
	else if (s->delay_max > s->delay_smax)
		s->delay_smax = scv_yield_update_delay(s->delay, s->delay_smax, 3);

	/* Trend (eq 5.3) and cross-traffic test (eq 5.5). */
	if (s->delay_prev != 0) {
		scv_s32 thr;
		trend = (scv_s32)(s->delay - (s->delay_prev >> hf));
		thr = (scv_s32)((scv_u32)scv_sdiv32(s->delay_trend, tf) * (scv_u32)(scv_s32)p->ct_threshold);
		if (thr < 1)
			thr = 1;
		if (s->delay_trend != 0 && trend > thr)
			s->cross_traffic = 1;
	}
	/* Dynamic trend-based reduction (§5.3.1), clamped as in App. B. */
	r = s->reduction_factor;
	if (trend >= p->increase_threshold && s->cross_traffic == 1) {
		r1 = scv_yield_s8(p, r - 1);
		s->reduction_factor = scv_yield_s8(p, r1 > p->maxc_reduction ? r1 : (scv_s32)p->maxc_reduction);
	} else if (trend >= p->increase_threshold) {
		r1 = scv_yield_s8(p, r - 1);
		s->reduction_factor = scv_yield_s8(p, r1 > p->max_reduction ? r1 : (scv_s32)p->max_reduction);
	} else if (trend <= p->decrease_threshold) {
		r1 = scv_yield_s8(p, r + 1);
		s->reduction_factor = scv_yield_s8(p, r1 < p->min_reduction ? r1 : (scv_s32)p->min_reduction);
	}
	if (s->delay < s->delay_min && s->delay > 0)
		s->delay_min = s->delay;
	s->delay_prev = scv_yield_update_delay(s->delay, s->delay_prev, hf);
	s->delay_trend = scv_yield_update_trend(trend, s->delay_trend, tf);
	s->last_trend = trend;
}

/* target = beta·100·((smax − smin) >> 3) / 10000 in u32 (App. B; eq 5.4 minus smin). */
SCV_INLINE scv_s32 scv_yield_target_ms(const struct scv_yield_state *s, const struct scv_yield_params *p)
{
	scv_u32 span = (s->delay_smax - s->delay_smin) >> 3;
	scv_u32 beta100 = (scv_u32)((scv_s32)p->beta * 100);
	return (scv_s32)(beta100 * span / 10000U);
}

SCV_INLINE scv_u32 scv_yield_qdelay_ms(const struct scv_yield_state *s)
{
	return s->delay_smin ? s->delay - (s->delay_smin >> 3) : 0;
}

/* Ong 2020 App. B.1.2 tcp_yield_cong_avoid (Algorithm 2), every window-advancing ACK. */
SCV_INLINE void scv_yield_cong_avoid(struct scv_yield_state *s, const struct scv_yield_params *p, struct scv_win *w,
				     scv_u32 acked, int cwnd_limited)
{
	scv_u32 qdelay, dec;
	scv_s32 target, off, r;

	if (w->cwnd <= w->ssthresh) {
		acked = scv_slow_start(w, acked);
		if (!acked)
			return;
	}
	qdelay = scv_yield_qdelay_ms(s);
	target = scv_yield_target_ms(s, p);
	off = (scv_s32)((scv_u32)target - qdelay);
	if (off >= 0) {
		if (cwnd_limited)
			scv_reno_cong_avoid(w, acked);
	} else {
		/* cwnd −= cwnd >> r (eq 5.2); r unclamped here (Ong 2020 notes §8 item 4). */
		r = s->reduction_factor;
		if (p->shift_semantics == 1)
			dec = (r >= 0 && r < 32) ? w->cwnd >> r : 0;
		else
			dec = w->cwnd >> ((scv_u32)r & 31);
		w->cwnd -= dec;
		s->reduction_factor = scv_yield_s8(p, (scv_s32)s->reduction_factor + 1);
	}
	if (w->cwnd < 2)
		w->cwnd = 2; /* MIN_CWND */
	s->delay_min = 0xffffffffU;
	s->delay_max = 0;
	s->cross_traffic = 0;
}

/* ------------------------------------------------------------------------------------
 * LEDBAT++ (draft-irtf-iccrg-ledbat-plus-plus; crates/cc/src/algorithms/ledbat_plus_plus.rs):
 * RTT-based LEDBAT with reduced dynamic GAIN, modified slow start, multiplicative
 * decrease and periodic slowdowns. The fractional window of the Rust version is kept in
 * 1/65536 packets (SCV_FP); the kernel sees floor(cwnd).
 */
struct scv_lpp_params {
	scv_s64 target_ns;             /* TARGET (60 ms) */
	scv_s64 max_gain_divisor;      /* 16 */
	scv_s64 gain_target_factor_ppm;/* 2.0 */
	scv_s64 decrease_constant_ppm; /* C = 1.0 */
	scv_s64 md_cap_ppm;            /* 0.5 */
	scv_s64 ss_exit_ppm;           /* 0.75 */
	scv_s64 slowdown;              /* bool (1) */
	scv_s64 slowdown_cwnd;         /* packets (2) */
	scv_s64 slowdown_rtts_ppm;     /* 2.0 */
	scv_s64 slowdown_interval_ppm; /* 9.0 */
	scv_s64 initial_slowdown_rtts_ppm; /* 2.0 */
	scv_s64 base_history;          /* minutes (10); new sockets only */
	scv_s64 current_filter;        /* samples (4); new sockets only */
	scv_s64 min_cwnd;              /* packets (2) */
	scv_s64 allowed_increase;      /* packets (1) */
	scv_s64 _reserved[1];
};

#define SCV_LPP_NPARAMS 15

SCV_INLINE void scv_lpp_defaults(struct scv_lpp_params *p)
{
	p->target_ns = 60000000LL;
	p->max_gain_divisor = 16;
	p->gain_target_factor_ppm = 2 * SCV_PPM;
	p->decrease_constant_ppm = SCV_PPM;
	p->md_cap_ppm = SCV_PPM / 2;
	p->ss_exit_ppm = SCV_PPM * 3 / 4;
	p->slowdown = 1;
	p->slowdown_cwnd = 2;
	p->slowdown_rtts_ppm = 2 * SCV_PPM;
	p->slowdown_interval_ppm = 9 * SCV_PPM;
	p->initial_slowdown_rtts_ppm = 2 * SCV_PPM;
	p->base_history = 10;
	p->current_filter = 4;
	p->min_cwnd = 2;
	p->allowed_increase = 1;
}

enum scv_lpp_phase {
	SCV_LPP_SS_INITIAL = 0,
	SCV_LPP_SS = 1,
	SCV_LPP_CA = 2,
	SCV_LPP_FROZEN = 3,
	SCV_LPP_RAMPUP = 4,
};

struct scv_lpp_state {
	struct scv_delay_hist hist;
	scv_s64 cwnd_fp;
	scv_s64 ssthresh_fp;      /* < 0: infinite */
	scv_s64 queuing_delay;
	scv_u64 next_slowdown_ns;
	scv_u64 slowdown_start_ns;
	scv_u64 frozen_until_ns;
	scv_u64 slowdowns;
	scv_u8 phase;
	scv_u8 has_next_slowdown;
	scv_u8 has_slowdown_start;
	scv_u8 _pad[5];
};

SCV_INLINE void scv_lpp_init(struct scv_lpp_state *s, const struct scv_lpp_params *p, scv_u32 cwnd)
{
	scv_delay_hist_init(&s->hist, (scv_u32)p->base_history, (scv_u32)p->current_filter, 1);
	s->cwnd_fp = (scv_s64)(cwnd ? cwnd : 1) * SCV_FP;
	s->ssthresh_fp = -1;
	s->queuing_delay = 0;
	s->next_slowdown_ns = s->slowdown_start_ns = s->frozen_until_ns = 0;
	s->slowdowns = 0;
	s->phase = SCV_LPP_SS_INITIAL;
	s->has_next_slowdown = s->has_slowdown_start = 0;
}

/* GAIN = 1/min(16, ceil(2·TARGET/base)) ("Reduced GAIN"); returns the divisor. */
SCV_INLINE scv_u64 scv_lpp_gain_div(const struct scv_lpp_state *s, const struct scv_lpp_params *p)
{
	scv_s64 b = 0;
	scv_u64 maxd = p->max_gain_divisor > 0 ? (scv_u64)p->max_gain_divisor : 1, num, den, d;

	if (!scv_delay_hist_base(&s->hist, &b) || b <= 0)
		return maxd;
	num = (scv_u64)p->gain_target_factor_ppm * (scv_u64)p->target_ns;
	den = (scv_u64)SCV_PPM * (scv_u64)b;
	d = (num + den - 1) / den;
	if (d < 1)
		d = 1;
	return d < maxd ? d : maxd;
}

SCV_INLINE scv_u64 scv_lpp_rtt(const struct scv_lpp_state *s)
{
	scv_s64 c = 0;
	if (!scv_delay_hist_current(&s->hist, &c) || c < 0)
		return 0;
	return (scv_u64)c;
}

SCV_INLINE scv_u64 scv_mul_ppm(scv_u64 x, scv_s64 ppm)
{
	return ppm <= 0 ? 0 : x / SCV_PPM * (scv_u64)ppm + x % SCV_PPM * (scv_u64)ppm / SCV_PPM;
}

/* A slow start (initial, or the ramp of a slowdown) ends (PlusPlusClock::end_slow_start). */
SCV_INLINE void scv_lpp_end_slow_start(struct scv_lpp_state *s, const struct scv_lpp_params *p, scv_u64 now)
{
	scv_u64 rtt = scv_lpp_rtt(s);

	if (s->phase == SCV_LPP_SS_INITIAL) {
		if (p->slowdown) {
			s->next_slowdown_ns = now + scv_mul_ppm(rtt, p->initial_slowdown_rtts_ppm);
			s->has_next_slowdown = 1;
		}
	} else if (s->phase == SCV_LPP_RAMPUP) {
		scv_u64 start = s->has_slowdown_start ? s->slowdown_start_ns : now;
		scv_u64 dur = now > start ? now - start : 0;
		if (p->slowdown) {
			s->next_slowdown_ns = now + scv_mul_ppm(dur, p->slowdown_interval_ppm);
			s->has_next_slowdown = 1;
		}
		s->has_slowdown_start = 0;
	}
	s->phase = SCV_LPP_CA;
}

/* LedbatPlusPlus::on_ack outside recovery. `w` is the kernel window: the result is
 * floor(cwnd) (at least 1). */
SCV_INLINE void scv_lpp_on_ack(struct scv_lpp_state *s, const struct scv_lpp_params *p, struct scv_win *w,
			       const struct scv_ack *a)
{
	scv_s64 q, before, target = p->target_ns, flight_fp, cap_fp, acked = a->acked;
	scv_u64 div;

	if (a->in_recovery)
		return;
	if (a->has_rtt)
		scv_delay_hist_update(&s->hist, a->now_ns, a->rtt_ns);
	q = scv_delay_hist_queuing(&s->hist);
	s->queuing_delay = q;
	div = scv_lpp_gain_div(s, p);
	before = s->cwnd_fp;

	if (s->phase == SCV_LPP_FROZEN) {
		if (a->now_ns < s->frozen_until_ns)
			goto out; /* cwnd held at slowdown_cwnd */
		s->phase = SCV_LPP_RAMPUP;
	}
	if (s->phase == SCV_LPP_SS_INITIAL || s->phase == SCV_LPP_SS || s->phase == SCV_LPP_RAMPUP) {
		/* draft "Modified slow start": exit when queuing delay > 3/4 TARGET; grow by GAIN
		 * per acknowledged segment. */
		if ((scv_u64)q * SCV_PPM > (scv_u64)p->ss_exit_ppm * (scv_u64)target) {
			if (s->phase != SCV_LPP_RAMPUP)
				s->ssthresh_fp = s->cwnd_fp;
			scv_lpp_end_slow_start(s, p, a->now_ns);
		} else if (a->cwnd_limited) {
			s->cwnd_fp += (scv_s64)((scv_u64)acked * SCV_FP / div);
			if (s->ssthresh_fp >= 0 && s->cwnd_fp >= s->ssthresh_fp) {
				s->cwnd_fp = s->ssthresh_fp;
				scv_lpp_end_slow_start(s, p, a->now_ns);
			}
		}
	} else if (s->phase == SCV_LPP_CA) {
		if (s->has_next_slowdown && a->now_ns >= s->next_slowdown_ns) {
			/* draft "Periodic slowdown": remember cwnd as ssthresh, cwnd = 2 packets,
			 * frozen for 2 RTTs. */
			s->ssthresh_fp = s->cwnd_fp;
			s->cwnd_fp = p->slowdown_cwnd * SCV_FP;
			s->slowdown_start_ns = a->now_ns;
			s->has_slowdown_start = 1;
			s->has_next_slowdown = 0;
			s->slowdowns++;
			s->phase = SCV_LPP_FROZEN;
			s->frozen_until_ns = a->now_ns + scv_mul_ppm(scv_lpp_rtt(s), p->slowdown_rtts_ppm);
			goto out;
		}
		if (s->cwnd_fp <= 0)
			s->cwnd_fp = 1;
		if (q < target) {
			/* RFC 6817 increase with the reduced GAIN: GAIN·acked/W. */
			if (a->cwnd_limited)
				s->cwnd_fp += (scv_s64)((scv_u64)acked * (scv_u64)SCV_FP * (scv_u64)SCV_FP / (div * (scv_u64)s->cwnd_fp));
		} else {
			/* draft "Multiplicative decrease": W += max(GAIN − C·W·(delay/TARGET − 1), −W/2)
			 * per window of ACKs, i.e. ·acked/W per ACK. */
			scv_u64 over = (scv_u64)(q - target), x, term_b, cap;
			scv_s64 per_rtt;
			if (over > (1ULL << 34))
				over = 1ULL << 34;
			x = (scv_u64)s->cwnd_fp * over / (scv_u64)target; /* W·(q/T − 1), fp */
			term_b = scv_mul_ppm(x, p->decrease_constant_ppm);
			cap = scv_mul_ppm((scv_u64)s->cwnd_fp, p->md_cap_ppm);
			per_rtt = (scv_s64)((scv_u64)SCV_FP / div) - (scv_s64)term_b;
			if (per_rtt < -(scv_s64)cap)
				per_rtt = -(scv_s64)cap;
			s->cwnd_fp += scv_sdiv64(per_rtt * acked * SCV_FP, s->cwnd_fp);
		}
	}
	/* RFC 6817 §2.4.2: cwnd ≤ flightsize + ALLOWED_INCREASE (limits growth only); cwnd ≥ MIN_CWND. */
	flight_fp = (scv_s64)(a->prior_in_flight > a->packets_out + a->acked ? a->prior_in_flight : a->packets_out + a->acked) * SCV_FP;
	if (s->cwnd_fp > before) {
		cap_fp = flight_fp + p->allowed_increase * SCV_FP;
		if (cap_fp < before)
			cap_fp = before;
		if (s->cwnd_fp > cap_fp)
			s->cwnd_fp = cap_fp;
	}
	if (s->cwnd_fp < p->min_cwnd * SCV_FP)
		s->cwnd_fp = p->min_cwnd * SCV_FP;
out:
	w->cwnd = s->cwnd_fp >= SCV_FP ? (scv_u32)((scv_u64)s->cwnd_fp / SCV_FP) : 1;
	w->ssthresh = s->ssthresh_fp >= 0 ? (scv_u32)((scv_u64)s->ssthresh_fp / SCV_FP) : SCV_INFINITE_SSTHRESH;
}

/* What the ssthresh hook returns: the window after LedbatPlusPlus::on_congestion. */
SCV_INLINE scv_u32 scv_lpp_ssthresh(const struct scv_lpp_state *s, const struct scv_lpp_params *p)
{
	scv_s64 c = (scv_s64)((scv_u64)s->cwnd_fp / 2);
	if (c < p->min_cwnd * SCV_FP)
		c = p->min_cwnd * SCV_FP;
	if (c > s->cwnd_fp)
		c = s->cwnd_fp;
	return c >= SCV_FP ? (scv_u32)((scv_u64)c / SCV_FP) : 1;
}

/* LedbatPlusPlus::on_congestion (loss or ECN): RFC 6817 cwnd = min(cwnd, max(cwnd/2, MIN_CWND)). */
SCV_INLINE void scv_lpp_on_congestion(struct scv_lpp_state *s, const struct scv_lpp_params *p, scv_u64 now)
{
	scv_s64 c = (scv_s64)((scv_u64)s->cwnd_fp / 2);
	if (c < p->min_cwnd * SCV_FP)
		c = p->min_cwnd * SCV_FP;
	if (c < s->cwnd_fp)
		s->cwnd_fp = c;
	if (s->phase == SCV_LPP_SS_INITIAL || s->phase == SCV_LPP_SS || s->phase == SCV_LPP_RAMPUP) {
		s->ssthresh_fp = s->cwnd_fp;
		scv_lpp_end_slow_start(s, p, now);
	} else if (s->phase == SCV_LPP_CA) {
		s->ssthresh_fp = s->cwnd_fp;
	}
}

/* LedbatPlusPlus::on_rto: ssthresh = max(cwnd/2, MIN_CWND), cwnd = 1, slow start. */
SCV_INLINE void scv_lpp_on_rto(struct scv_lpp_state *s, const struct scv_lpp_params *p)
{
	scv_s64 h = (scv_s64)((scv_u64)s->cwnd_fp / 2);
	if (h < p->min_cwnd * SCV_FP)
		h = p->min_cwnd * SCV_FP;
	s->ssthresh_fp = h;
	s->cwnd_fp = SCV_FP;
	if (s->phase == SCV_LPP_FROZEN || s->phase == SCV_LPP_RAMPUP)
		s->has_slowdown_start = 0;
	s->phase = s->phase == SCV_LPP_SS_INITIAL ? SCV_LPP_SS_INITIAL : SCV_LPP_SS;
}

/* ------------------------------------------------------------------------------------
 * Ebb, our own LBE controller (docs/ebb.md; crates/cc/src/algorithms/ebb/), the default
 * variant: every boolean of EbbConfig at its default (probe_up, refill_guard, own_rate,
 * pace_cap, probe_hold, ss_own, ss_ack_rate on; drain_bytes, held_prev, refill_drain,
 * held_clean, stage_from_floor, refill_pace_window, own_measured off),
 * jitter_gain = 0, refill_growth = 0, refill_rounds = 1, probe_queue = 0,
 * bw_rounds = 10, foreign_samples = 8, foreign_in_hold off, stage_backoff = 0 and, since
 * variant 35 (docs/ebb.md#faster-yield), stage_mean on fixed; the other numbers are
 * parameters (struct scv_ebb_params), and so are four booleans: refill_own and
 * foreign_burst (off), refill_burst (on since the simulator sends the kernel's paced
 * pairs, docs/ebb.md#variants-104e573-tso) and stage_early (on since variant 37,
 * docs/ebb.md#variant-37), and refill_backoff (0 since variant 37, 1 in variant 35).
 * Bytes, nanoseconds and bit/s as the Rust version; the section of docs/ebb.md each
 * rule follows is named beside it. Where the Rust code computes in f64, this code
 * computes the exact rational in integers (floor where Rust truncates, round where
 * Rust rounds); the two can differ only where the f64 result rounds across an integer,
 * by one unit of the result (one byte, one bit/s, one ns):
 * docs/deviations/kernel.md#kernel-ebb-integer.
 */
#define SCV_EBB_BW_ROUNDS 10
#define SCV_EBB_SS_SAMPLES 8 /* a power of two: ring index by mask */
#define SCV_EBB_SLOWDOWN_ROUNDS 2
#define SCV_EBB_NONE 0xffffffffffffffffULL
#define SCV_NS_PER_S 1000000000ULL

enum scv_ebb_phase {
	SCV_EBB_SLOW_START = 0,
	SCV_EBB_YIELD = 1,
	SCV_EBB_REFILL = 2,
	SCV_EBB_PROBE = 3,
	SCV_EBB_SLOWDOWN = 4,
};

/* Slot order = params::EBB (crates/kernel/src/params.rs). */
struct scv_ebb_params {
	scv_s64 target;          /* ns */
	scv_s64 refill;          /* ns */
	scv_s64 md_ppm;
	scv_s64 min_cwnd;        /* segments */
	scv_s64 pacing_gain_ppm;
	scv_s64 foreign;         /* ns; 0 = off */
	scv_s64 slowdown_every;  /* rounds */
	scv_s64 ack_pair_gap;    /* ns; 0 = off */
	scv_s64 probe_max_queue; /* ns; 0 = a quarter of the window */
	scv_s64 refill_stage_ppm;
	scv_s64 own_target;      /* ns; 0 = target */
	scv_s64 refill_own;      /* bool */
	scv_s64 foreign_burst;   /* bool */
	scv_s64 refill_burst;    /* bool */
	scv_s64 refill_backoff;  /* rounds; 0 = off */
	scv_s64 stage_early;     /* bool */
};

SCV_INLINE void scv_ebb_defaults(struct scv_ebb_params *p)
{
	p->target = 4000000;
	p->refill = 1000000;
	p->md_ppm = 500000;
	p->min_cwnd = 2;
	p->pacing_gain_ppm = 1250000;
	p->foreign = 2000000;
	p->slowdown_every = 64;
	p->ack_pair_gap = 20000000;
	p->probe_max_queue = 4000000;
	p->refill_stage_ppm = 500000;
	p->own_target = 3000000;
	p->refill_own = 0;
	p->foreign_burst = 0;
	p->refill_burst = 1;
	p->refill_backoff = 0;
	p->stage_early = 1;
}

/* The subset of crates/cc `AckSample` Ebb reads, in its units. */
struct scv_ebb_ack {
	scv_u64 now_ns;
	scv_u64 rtt_ns;      /* valid if has_rtt */
	scv_u64 rate_bps;    /* delivery-rate sample; valid if has_rate */
	scv_u64 bytes_acked;
	scv_u64 snd_una;     /* stream offsets, bytes */
	scv_u64 snd_nxt;
	scv_u8 has_rtt;
	scv_u8 has_rate;
	scv_u8 rate_app_limited;
	scv_u8 cwnd_limited;
	scv_u8 in_recovery;
	scv_u8 _pad[3];
};

/* The fields of crates/cc `Ebb` the default variant uses (same names). */
struct scv_ebb_state {
	scv_u64 mss;
	scv_u64 cwnd;
	scv_u64 base;        /* SCV_EBB_NONE: no sample yet */
	scv_u64 round_min;   /* SCV_EBB_NONE: none this round */
	scv_u64 round_max;   /* SCV_EBB_NONE: none this round */
	scv_u64 probe_step;
	scv_u64 recent[SCV_EBB_SS_SAMPLES]; /* SCV_EBB_NONE = Dur::MAX */
	scv_u64 round_end;
	scv_u64 round_max_bw;
	/* Vec rings of the Rust version: only their maxima are read, and rates are never
	 * negative, so a fixed ring of zeros has the same maximum as the shorter Vec. */
	scv_u64 bw_ring[SCV_EBB_BW_ROUNDS];
	scv_u64 avail_ring[SCV_EBB_BW_ROUNDS];
	scv_u64 capacity;
	scv_u64 saved_cwnd;
	scv_u64 round_start_cwnd;
	scv_u64 prev_start_cwnd;
	scv_u64 probe_added;
	scv_u64 probe_cap_before;
	scv_u64 ack_time[SCV_EBB_SS_SAMPLES];
	scv_u64 ack_una[SCV_EBB_SS_SAMPLES];
	scv_u64 acks_seen;
	scv_u32 recent_at, bw_at, avail_at, acks_at;
	scv_u32 slowdown_left, until_slowdown;
	/* refill_backoff and stage_mean (docs/ebb.md#faster-yield): the round's RTT sum and
	 * sample count, consecutive clean round ends, refills from the floor in a row that
	 * ended in a yield to a foreign queue (at most refill_backoff), and whether the last
	 * refill from the floor still waits for a probe at the BDP. */
	scv_u64 round_rtt_sum;
	/* stage_early (docs/ebb.md#stage-early): snd_nxt at a first refill stage and the
	 * bytes after it that must come back clean; valid while has_stage_mark. */
	scv_u64 stage_mark, stage_need;
	scv_u32 round_samples, clean_run, failed_refills;
	scv_u8 phase, hold, ss_queue, refill_unconfirmed, has_stage_mark, _pad[3];
};

SCV_INLINE scv_u64 scv_min_u64(scv_u64 a, scv_u64 b) { return a < b ? a : b; }
SCV_INLINE scv_u64 scv_max_u64(scv_u64 a, scv_u64 b) { return a > b ? a : b; }
SCV_INLINE scv_u64 scv_sat_sub(scv_u64 a, scv_u64 b) { return a > b ? a - b : 0; }

/* floor(a·b/c) without a 128-bit product: exact while (a mod c)·b and (a/c)·b fit in
 * 64 bits (callers put the operand with the small remainder first). c = 0 gives 0. */
SCV_INLINE scv_u64 scv_muldiv(scv_u64 a, scv_u64 b, scv_u64 c)
{
	if (!c)
		return 0;
	return (a / c) * b + ((a % c) * b) / c;
}

/* Rate::bytes_in: bps·ns / (8·10^9), floor; exact for durations below 2^31 ns. */
SCV_INLINE scv_u64 scv_ebb_bytes_in(scv_u64 bps, scv_u64 ns)
{
	return scv_muldiv(bps, ns, 8 * SCV_NS_PER_S);
}

SCV_INLINE scv_u64 scv_ebb_max_ring(const scv_u64 *r)
{
	scv_u64 m = 0;
	int i;
	for (i = 0; i < SCV_EBB_BW_ROUNDS; i++)
		m = r[i] > m ? r[i] : m;
	return m;
}

SCV_INLINE void scv_ebb_init(struct scv_ebb_state *s, scv_u64 mss, scv_u64 initial_cwnd)
{
	int i;

	s->mss = mss ? mss : 1;
	s->cwnd = initial_cwnd;
	s->phase = SCV_EBB_SLOW_START;
	s->base = s->round_min = s->round_max = SCV_EBB_NONE;
	s->probe_step = 1;
	for (i = 0; i < SCV_EBB_SS_SAMPLES; i++) {
		s->recent[i] = SCV_EBB_NONE;
		s->ack_time[i] = 0;
		s->ack_una[i] = 0;
	}
	for (i = 0; i < SCV_EBB_BW_ROUNDS; i++) {
		s->bw_ring[i] = 0;
		s->avail_ring[i] = 0;
	}
	s->recent_at = s->bw_at = s->avail_at = s->acks_at = 0;
	s->round_end = 0;
	s->round_max_bw = 0;
	s->capacity = 0;
	s->hold = 0;
	s->round_start_cwnd = s->prev_start_cwnd = initial_cwnd;
	s->slowdown_left = s->until_slowdown = 0;
	s->saved_cwnd = 0;
	s->probe_added = 0;
	s->probe_cap_before = 0;
	s->ss_queue = 0;
	s->acks_seen = 0;
	s->round_rtt_sum = 0;
	s->round_samples = s->clean_run = s->failed_refills = 0;
	s->refill_unconfirmed = 0;
	s->stage_mark = s->stage_need = 0;
	s->has_stage_mark = 0;
}

SCV_INLINE scv_u64 scv_ebb_floor(const struct scv_ebb_state *s, const struct scv_ebb_params *p)
{
	return (scv_u64)p->min_cwnd * s->mss;
}

/* The remembered BDP C·base (docs/ebb.md#capacity), 0 before the first samples. */
SCV_INLINE scv_u64 scv_ebb_bdp(const struct scv_ebb_state *s)
{
	return s->base == SCV_EBB_NONE ? 0 : scv_ebb_bytes_in(s->capacity, s->base);
}

/* Ebb::scale with k = num/den: max(floor(w·num/den), floor). */
SCV_INLINE scv_u64 scv_ebb_scale(const struct scv_ebb_state *s, const struct scv_ebb_params *p, scv_u64 w,
				 scv_u64 num, scv_u64 den)
{
	return scv_max_u64(scv_muldiv(w, num, den), scv_ebb_floor(s, p));
}

SCV_INLINE scv_u64 scv_ebb_scale_md(const struct scv_ebb_state *s, const struct scv_ebb_params *p, scv_u64 w)
{
	return scv_ebb_scale(s, p, w, (scv_u64)p->md_ppm, SCV_PPM);
}

/* own_target, or target when it is 0 (docs/ebb.md#own-target). */
SCV_INLINE scv_u64 scv_ebb_own_target(const struct scv_ebb_params *p)
{
	if (p->own_target > 0)
		return (scv_u64)(p->own_target < p->target ? p->own_target : p->target);
	return (scv_u64)p->target;
}

/* Ebb::segment_time: one segment at the remembered rate, floor(mss·8·10^9/C) ns. */
SCV_INLINE scv_u64 scv_ebb_segment_time(const struct scv_ebb_state *s)
{
	return s->capacity > 0 ? scv_muldiv(s->mss * 8, SCV_NS_PER_S, s->capacity) : 0;
}

/* Ebb::foreign_allowance (docs/ebb.md#foreign-burst): foreign, and with foreign_burst
 * one segment's transmission at the remembered rate. */
SCV_INLINE scv_u64 scv_ebb_foreign_allowance(const struct scv_ebb_state *s, const struct scv_ebb_params *p)
{
	return (scv_u64)p->foreign + (p->foreign_burst ? scv_ebb_segment_time(s) : 0);
}

/* Ebb::refill_threshold (jitter_gain fixed at 0): refill, and with refill_burst one
 * segment at the remembered rate (docs/ebb.md#foreign-burst). */
SCV_INLINE scv_u64 scv_ebb_refill_threshold(const struct scv_ebb_state *s, const struct scv_ebb_params *p)
{
	return (scv_u64)p->refill + (p->refill_burst ? scv_ebb_segment_time(s) : 0);
}

/* Queueing delay of the round so far (round minimum − base); 0 = none. */
SCV_INLINE int scv_ebb_round_queue(const struct scv_ebb_state *s, scv_u64 *q)
{
	if (s->round_min == SCV_EBB_NONE || s->base == SCV_EBB_NONE)
		return 0;
	*q = scv_sat_sub(s->round_min, s->base);
	return 1;
}

/* Queueing delay over the last SS_SAMPLES samples; 0 = fewer samples than that. */
SCV_INLINE int scv_ebb_recent_queue(const struct scv_ebb_state *s, scv_u64 *q)
{
	scv_u64 m = SCV_EBB_NONE;
	int i;

	if (s->base == SCV_EBB_NONE)
		return 0;
	for (i = 0; i < SCV_EBB_SS_SAMPLES; i++) {
		if (s->recent[i] == SCV_EBB_NONE)
			return 0;
		m = s->recent[i] < m ? s->recent[i] : m;
	}
	*q = scv_sat_sub(m, s->base);
	return 1;
}

/* The queue Ebb's own window explains, with own_rate (docs/ebb.md#foreign): its window
 * above the recent delivery rate's BDP, drained at the remembered rate; ns, rounded as
 * Dur::from_secs_f64. */
SCV_INLINE scv_u64 scv_ebb_own_queue(const struct scv_ebb_state *s)
{
	scv_u64 bdp = s->base == SCV_EBB_NONE ? 0 : scv_ebb_bytes_in(scv_ebb_max_ring(s->avail_ring), s->base);
	scv_u64 twice;

	if (!bdp || !s->capacity || s->cwnd <= bdp)
		return 0;
	/* round(x) = floor((floor(2x) + 1) / 2) */
	twice = scv_muldiv(8 * SCV_NS_PER_S, 2 * (s->cwnd - bdp), s->capacity);
	return (twice + 1) / 2;
}

/* One ACK's samples into the round's estimates (Ebb::record_sample; jitter_gain = 0,
 * so the jitter estimator is not kept). */
SCV_INLINE void scv_ebb_record_sample(struct scv_ebb_state *s, const struct scv_ebb_ack *a)
{
	if (a->has_rtt) {
		scv_u64 rtt = a->rtt_ns;
		s->base = s->base == SCV_EBB_NONE ? rtt : scv_min_u64(s->base, rtt);
		s->round_min = s->round_min == SCV_EBB_NONE ? rtt : scv_min_u64(s->round_min, rtt);
		s->round_max = s->round_max == SCV_EBB_NONE ? rtt : scv_max_u64(s->round_max, rtt);
		s->recent[s->recent_at & (SCV_EBB_SS_SAMPLES - 1)] = rtt;
		s->recent_at = (s->recent_at + 1) & (SCV_EBB_SS_SAMPLES - 1);
		s->round_samples++;
		s->round_rtt_sum = s->round_rtt_sum + rtt < s->round_rtt_sum ? SCV_EBB_NONE : s->round_rtt_sum + rtt;
	}
	if (a->has_rate && (!a->rate_app_limited || a->rate_bps > s->capacity))
		s->round_max_bw = scv_max_u64(s->round_max_bw, a->rate_bps);
}

/* One value into a ring of SCV_EBB_BW_ROUNDS (an explicit bound on the index, which the
 * verifier can follow where it cannot follow `% 10`). */
SCV_INLINE void scv_ebb_ring_put(scv_u64 *ring, scv_u32 *at, scv_u64 v)
{
	scv_u32 i = *at;

	if (i >= SCV_EBB_BW_ROUNDS)
		i = 0;
	ring[i] = v;
	*at = i + 1 >= SCV_EBB_BW_ROUNDS ? 0 : i + 1;
}

SCV_INLINE void scv_ebb_push_bw(struct scv_ebb_state *s, scv_u64 rate)
{
	scv_ebb_ring_put(s->bw_ring, &s->bw_at, rate);
}

/* The ACK rate of the last 8 ACKs at a slow-start exit on delay (docs/ebb.md#ss-ack-rate). */
SCV_INLINE void scv_ebb_take_ack_rate(struct scv_ebb_state *s)
{
	scv_u32 newest = (s->acks_at + SCV_EBB_SS_SAMPLES - 1) & (SCV_EBB_SS_SAMPLES - 1);
	scv_u32 oldest = s->acks_at & (SCV_EBB_SS_SAMPLES - 1);
	scv_u64 span, bytes, rate;

	if (s->acks_seen < SCV_EBB_SS_SAMPLES)
		return;
	span = scv_sat_sub(s->ack_time[newest], s->ack_time[oldest]);
	bytes = scv_sat_sub(s->ack_una[newest], s->ack_una[oldest]);
	if (!span || !bytes)
		return;
	rate = scv_muldiv(8 * SCV_NS_PER_S, bytes, span);
	if (rate > s->capacity) {
		s->capacity = rate;
		scv_ebb_push_bw(s, rate);
	}
}

/* The capacity filter at a round end (docs/ebb.md#capacity): a round held at ≥ 90 % of
 * the remembered BDP enters C's ring, every round the recent-rate ring A. */
SCV_INLINE void scv_ebb_update_capacity(struct scv_ebb_state *s)
{
	scv_u64 bdp = scv_ebb_bdp(s);

	s->prev_start_cwnd = s->round_start_cwnd;
	if (s->round_max_bw > 0 && (bdp == 0 || s->round_start_cwnd * 10 >= bdp * 9)) {
		scv_ebb_push_bw(s, s->round_max_bw);
		s->capacity = scv_ebb_max_ring(s->bw_ring);
	} else if (s->round_max_bw > s->capacity) {
		s->capacity = s->round_max_bw;
	}
	scv_ebb_ring_put(s->avail_ring, &s->avail_at, s->round_max_bw);
}

SCV_INLINE void scv_ebb_exit_slow_start(struct scv_ebb_state *s, const struct scv_ebb_params *p)
{
	scv_u64 bdp = scv_ebb_bdp(s);

	s->phase = SCV_EBB_YIELD;
	s->hold = 1;
	s->ss_queue = 1; /* ss_own (docs/ebb.md#ss-own) */
	s->until_slowdown = 2;
	if (bdp > 0)
		s->cwnd = scv_min_u64(scv_max_u64(bdp, scv_ebb_floor(s, p)), s->cwnd);
}

/* A decision within a round (Ebb::restart_round). */
SCV_INLINE void scv_ebb_restart_round(struct scv_ebb_state *s, const struct scv_ebb_ack *a)
{
	s->hold = 1;
	s->probe_added = 0;
	s->round_min = s->round_max = SCV_EBB_NONE;
	s->probe_step = 1;
	s->round_samples = 0;
	s->round_rtt_sum = 0;
	s->round_max_bw = 0;
	s->round_end = a->snd_nxt;
	s->prev_start_cwnd = s->round_start_cwnd;
	s->round_start_cwnd = s->cwnd;
	s->has_stage_mark = 0;
}

/* Ebb::note_foreign_yield (refill_backoff, docs/ebb.md#faster-yield): a yield to a
 * foreign queue after a refill from the floor not yet confirmed at the BDP; with
 * stage_backoff fixed at 0 the count is capped at refill_backoff. */
SCV_INLINE void scv_ebb_note_foreign_yield(struct scv_ebb_state *s, const struct scv_ebb_params *p)
{
	if (s->refill_unconfirmed) {
		s->refill_unconfirmed = 0;
		s->failed_refills = (scv_u32)scv_min_u64((scv_u64)s->failed_refills + 1, (scv_u64)p->refill_backoff);
	}
}

/* Fast yield (docs/ebb.md#yield, #foreign): with own_rate only a foreign queue cuts
 * within the round, to min_cwnd. */
SCV_INLINE int scv_ebb_fast_yield(struct scv_ebb_state *s, const struct scv_ebb_params *p, const struct scv_ebb_ack *a)
{
	scv_u64 q;

	if (s->hold || s->slowdown_left > 0 || a->in_recovery || s->ss_queue)
		return 0;
	if (!scv_ebb_recent_queue(s, &q))
		return 0;
	if (!(p->foreign > 0 && scv_ebb_bdp(s) > 0 && q > scv_ebb_own_queue(s) + scv_ebb_foreign_allowance(s, p)))
		return 0;
	scv_ebb_note_foreign_yield(s, p);
	s->cwnd = scv_ebb_floor(s, p);
	s->phase = SCV_EBB_YIELD;
	scv_ebb_restart_round(s, a);
	return 1;
}

/* Yield on a round queue q above target (docs/ebb.md#yield). */
SCV_INLINE void scv_ebb_yield_to_queue(struct scv_ebb_state *s, const struct scv_ebb_params *p, scv_u64 q,
				       scv_u64 base, int ss_overshoot)
{
	scv_u64 t = (scv_u64)p->target;
	int own = ss_overshoot || q <= scv_ebb_own_queue(s) + scv_ebb_foreign_allowance(s, p);

	s->probe_added = 0;
	if (q <= 2 * t || own) {
		/* cwnd·(base + own_target/2)/(base + q) */
		s->cwnd = scv_ebb_scale(s, p, s->cwnd, 2 * base + scv_ebb_own_target(p), 2 * (base + q));
	} else {
		/* cwnd·min(md, (target/q)²); floor(w·t²/q²) = floor((floor(w·t/q)·t + floor((w·t mod q)·t/q))/q) */
		scv_u64 wt = s->cwnd * t;
		scv_u64 sq = ((wt / q) * t + ((wt % q) * t) / q) / q;
		scv_u64 md = scv_muldiv(s->cwnd, (scv_u64)p->md_ppm, SCV_PPM);
		scv_ebb_note_foreign_yield(s, p);
		s->cwnd = scv_max_u64(scv_min_u64(md, sq), scv_ebb_floor(s, p));
	}
	s->hold = 1;
	s->phase = SCV_EBB_YIELD;
}

/* Did the delivery rate follow the last probe-up step (probe_hold)? Rust: capacity ≥
 * before + added·4·10^9/base (f64); here capacity − before ≥ ceil of that. */
SCV_INLINE int scv_ebb_rate_followed(const struct scv_ebb_state *s, scv_u64 added, scv_u64 base)
{
	scv_u64 a = 4 * SCV_NS_PER_S, want;

	if (!base)
		return 0;
	want = scv_muldiv(a, added, base) + (((a % base) * added) % base != 0);
	return s->capacity >= s->probe_cap_before && s->capacity - s->probe_cap_before >= want;
}

/* Probe (docs/ebb.md#probe, #probe-hold): the held, bounded, doubling step up at or
 * above the remembered BDP with an empty queue, else one segment. */
SCV_INLINE void scv_ebb_probe(struct scv_ebb_state *s, const struct scv_ebb_params *p, scv_u64 q, int has_qmax,
			      scv_u64 qmax, scv_u64 step, scv_u64 base)
{
	int clean = has_qmax && qmax <= (scv_u64)p->target;
	scv_u64 added = s->probe_added, add;

	s->probe_added = 0;
	if (s->cwnd >= scv_ebb_bdp(s)) {
		/* A decision at the BDP that does not yield confirms the last refill
		 * (docs/ebb.md#faster-yield). */
		s->refill_unconfirmed = 0;
		s->failed_refills = 0;
	}
	if (q <= scv_ebb_refill_threshold(s, p) && clean && s->cwnd >= scv_ebb_bdp(s)) {
		if (added > 0 && !scv_ebb_rate_followed(s, added, base))
			step = 1;
		add = scv_min_u64(step * s->mss, scv_max_u64(s->cwnd / 4, s->mss));
		if (p->probe_max_queue > 0)
			add = scv_min_u64(add, scv_max_u64(scv_ebb_bytes_in(s->capacity, (scv_u64)p->probe_max_queue), s->mss));
		s->cwnd += add;
		s->probe_step = step > SCV_EBB_NONE / 2 ? SCV_EBB_NONE : step * 2;
		s->hold = 1;
		s->probe_added = add;
		s->probe_cap_before = s->capacity;
	} else {
		s->cwnd += s->mss;
	}
	s->phase = SCV_EBB_PROBE;
}

/* The first refill stage, refill_stage·C·base bytes (0 when off; Ebb::stage_bytes). */
SCV_INLINE scv_u64 scv_ebb_stage_bytes(const struct scv_ebb_state *s, const struct scv_ebb_params *p)
{
	if (p->refill_stage_ppm <= 0)
		return 0;
	return scv_max_u64(scv_muldiv(scv_ebb_bdp(s), (scv_u64)p->refill_stage_ppm, SCV_PPM), scv_ebb_floor(s, p));
}

/* Refill (docs/ebb.md#refill, #refill-stage): to the remembered BDP, in two stages from
 * below refill_stage of it; snd_nxt marks the first packet a first stage sends
 * (stage_early). */
SCV_INLINE void scv_ebb_refill(struct scv_ebb_state *s, const struct scv_ebb_params *p, scv_u64 snd_nxt)
{
	scv_u64 bdp = scv_ebb_bdp(s), stage = scv_ebb_stage_bytes(s, p);

	s->probe_added = 0;
	/* Confirmed by a probe at the BDP, or failed by a yield to a foreign queue first
	 * (refill_backoff, docs/ebb.md#faster-yield). */
	if (s->cwnd <= scv_ebb_floor(s, p))
		s->refill_unconfirmed = 1;
	/* refill_own: a jump from the floor is Ebb's own burst until the first decision
	 * round after the held one, as after a slow-start exit (docs/ebb.md#refill-own). */
	if (p->refill_own && s->cwnd <= scv_ebb_floor(s, p))
		s->ss_queue = 1;
	if (s->cwnd < stage) {
		/* stage_early (docs/ebb.md#stage-early): the first 8 segments sent after the
		 * stage (HyStart's sample count), or the whole stage if smaller, tell an empty
		 * link within a round. */
		if (p->stage_early) {
			s->stage_mark = snd_nxt;
			s->stage_need = scv_min_u64((scv_u64)SCV_EBB_SS_SAMPLES * s->mss, stage);
			s->has_stage_mark = 1;
		}
		s->cwnd = stage;
	} else {
		s->cwnd = bdp;
	}
	s->hold = 1;
	s->phase = SCV_EBB_REFILL;
}

/* Ebb::early_stage (stage_early, docs/ebb.md#stage-early): within the round that carries
 * the first stage's ACKs, once stage_need bytes sent after the stage came back, every one
 * of their RTT samples within refill of base, on to the remembered BDP at once. Any
 * sample with a queue ends the wait. 1 when it jumped. */
SCV_INLINE int scv_ebb_early_stage(struct scv_ebb_state *s, const struct scv_ebb_params *p, const struct scv_ebb_ack *a)
{
	if (a->in_recovery || s->slowdown_left > 0 || s->phase != SCV_EBB_REFILL) {
		s->has_stage_mark = 0;
		return 0;
	}
	/* An ACK for a packet sent before the stage. */
	if (a->snd_una <= s->stage_mark)
		return 0;
	if (!a->has_rtt || s->base == SCV_EBB_NONE)
		return 0;
	if (scv_sat_sub(a->rtt_ns, s->base) > scv_ebb_refill_threshold(s, p)) {
		s->has_stage_mark = 0;
		return 0;
	}
	if (a->snd_una - s->stage_mark < s->stage_need)
		return 0;
	s->cwnd = scv_max_u64(s->cwnd, scv_ebb_bdp(s));
	s->phase = SCV_EBB_REFILL;
	scv_ebb_restart_round(s, a);
	return 1;
}

/* The round-end decision (Ebb::decide_round; docs/ebb.md#design). */
SCV_INLINE void scv_ebb_end_round(struct scv_ebb_state *s, const struct scv_ebb_params *p, const struct scv_ebb_ack *a)
{
	scv_u64 q = 0, qmax = 0, qmean = 0, step, base = s->base, t = (scv_u64)p->target;
	int has_q, has_qmax, has_mean, ss_overshoot, clean;

	scv_ebb_update_capacity(s);
	has_q = scv_ebb_round_queue(s, &q);
	has_qmax = s->round_max != SCV_EBB_NONE && base != SCV_EBB_NONE;
	if (has_qmax)
		qmax = scv_sat_sub(s->round_max, base);
	/* Consecutive clean round ends, held ones included (refill_backoff). */
	clean = has_q && q <= scv_ebb_refill_threshold(s, p) && has_qmax && qmax <= t;
	s->clean_run = clean ? (s->clean_run + 1 ? s->clean_run + 1 : s->clean_run) : 0;
	/* The round's mean queue (stage_mean, docs/ebb.md#faster-yield). */
	has_mean = base != SCV_EBB_NONE && s->round_samples > 0;
	if (has_mean)
		qmean = scv_sat_sub(s->round_rtt_sum / s->round_samples, base);
	s->round_rtt_sum = 0;
	s->round_samples = 0;
	s->round_min = s->round_max = SCV_EBB_NONE;
	step = s->probe_step;
	s->probe_step = 1;
	s->round_max_bw = 0;
	s->round_end = a->snd_nxt;
	if (!has_q || s->phase == SCV_EBB_SLOW_START) {
		s->round_start_cwnd = s->cwnd;
		return;
	}
	ss_overshoot = s->ss_queue;
	if (!s->hold)
		s->ss_queue = 0;
	/* Base-delay refresh (docs/ebb.md#refresh). */
	if (s->slowdown_left > 0) {
		s->slowdown_left--;
		if (s->slowdown_left == 0) {
			s->cwnd = scv_max_u64(s->cwnd, s->saved_cwnd);
			s->hold = 1;
			s->phase = SCV_EBB_REFILL;
			s->until_slowdown = (scv_u32)p->slowdown_every;
		}
		s->round_start_cwnd = s->cwnd;
		return;
	}
	if (s->until_slowdown > 0) {
		s->until_slowdown--;
		if (s->until_slowdown == 0) {
			s->saved_cwnd = s->cwnd;
			s->cwnd = scv_ebb_floor(s, p);
			s->slowdown_left = SCV_EBB_SLOWDOWN_ROUNDS;
			s->phase = SCV_EBB_SLOWDOWN;
			s->round_start_cwnd = s->cwnd;
			return;
		}
	}
	/* Any decision ends the wait for an early second stage; a held round (the one right
	 * after the first stage) keeps it (docs/ebb.md#stage-early). */
	if (!s->hold || a->in_recovery)
		s->has_stage_mark = 0;
	if (a->in_recovery) {
		s->hold = 1;
		s->probe_added = 0;
	} else if (s->hold) {
		/* The round carried the packets sent before the last change (docs/ebb.md#yield). */
		s->hold = 0;
		if (s->probe_added > 0)
			s->probe_step = step;
	} else if (q > t) {
		scv_ebb_yield_to_queue(s, p, q, base, ss_overshoot);
	} else if (p->own_target > 0 && q > scv_ebb_own_target(p) && q <= scv_ebb_own_queue(s) + scv_ebb_foreign_allowance(s, p)) {
		/* Drain Ebb's own queue to own_target/2 (docs/ebb.md#own-target). */
		s->cwnd = scv_ebb_scale(s, p, s->cwnd, 2 * base + scv_ebb_own_target(p), 2 * (base + q));
		s->probe_added = 0;
		s->hold = 1;
		s->phase = SCV_EBB_YIELD;
	} else if (q <= scv_ebb_refill_threshold(s, p) && s->cwnd < scv_ebb_bdp(s) && has_qmax && qmax <= t &&
		   (p->refill_backoff == 0 ||
		    s->clean_run > scv_min_u64(s->failed_refills, (scv_u64)p->refill_backoff)) &&
		   (s->cwnd < scv_ebb_stage_bytes(s, p) || (has_mean && qmean <= scv_ebb_refill_threshold(s, p)))) {
		/* refill_backoff: one more clean round end per failed refill; stage_mean: the
		 * second stage needs the round's mean queue within refill
		 * (docs/ebb.md#faster-yield). */
		scv_ebb_refill(s, p, a->snd_nxt);
	} else if (a->cwnd_limited) {
		scv_ebb_probe(s, p, q, has_qmax, qmax, step, base);
	}
	s->round_start_cwnd = s->cwnd;
}

/* Ebb::on_ack. */
SCV_INLINE void scv_ebb_on_ack(struct scv_ebb_state *s, const struct scv_ebb_params *p, const struct scv_ebb_ack *a)
{
	scv_u64 q, rq;

	scv_ebb_record_sample(s, a);
	if (s->phase == SCV_EBB_SLOW_START) {
		scv_u32 i = s->acks_at & (SCV_EBB_SS_SAMPLES - 1);
		s->ack_time[i] = a->now_ns;
		s->ack_una[i] = a->snd_una;
		s->acks_at = (s->acks_at + 1) & (SCV_EBB_SS_SAMPLES - 1);
		s->acks_seen++;
		/* The minimum of the last 8 samples above target ends slow start
		 * (docs/ebb.md#startup). */
		if (!a->in_recovery && scv_ebb_round_queue(s, &q) && scv_ebb_recent_queue(s, &rq) &&
		    rq > (scv_u64)p->target) {
			scv_ebb_take_ack_rate(s);
			s->round_max_bw = scv_max_u64(s->round_max_bw, s->capacity);
			s->capacity = scv_max_u64(s->capacity, s->round_max_bw);
			scv_ebb_exit_slow_start(s, p);
		} else if (!a->in_recovery && a->cwnd_limited) {
			s->cwnd += a->bytes_acked;
		}
	}
	if (s->has_stage_mark && scv_ebb_early_stage(s, p, a))
		return;
	if (s->phase != SCV_EBB_SLOW_START && scv_ebb_fast_yield(s, p, a))
		return;
	if (a->snd_una >= s->round_end)
		scv_ebb_end_round(s, p, a);
}

/* Ebb::on_congestion (loss or ECN): cwnd·md. */
SCV_INLINE void scv_ebb_on_congestion(struct scv_ebb_state *s, const struct scv_ebb_params *p)
{
	if (s->phase == SCV_EBB_SLOW_START) {
		s->capacity = scv_max_u64(s->capacity, s->round_max_bw);
		s->until_slowdown = 2;
	}
	s->cwnd = scv_ebb_scale_md(s, p, s->cwnd);
	s->saved_cwnd = scv_ebb_scale_md(s, p, s->saved_cwnd);
	s->probe_step = 1;
	s->ss_queue = 0;
	if (s->slowdown_left == 0)
		s->phase = SCV_EBB_YIELD;
	s->hold = 1;
}

/* Ebb::on_rto: one segment. */
SCV_INLINE void scv_ebb_on_rto(struct scv_ebb_state *s, const struct scv_ebb_params *p, scv_u64 mss)
{
	s->cwnd = mss;
	s->probe_step = 1;
	s->saved_cwnd = scv_ebb_scale_md(s, p, s->saved_cwnd);
	if (s->phase == SCV_EBB_SLOW_START) {
		s->phase = SCV_EBB_YIELD;
		s->until_slowdown = 2;
	}
}

/* Ebb::ssthresh: unbounded in slow start, else the window (bytes). */
SCV_INLINE scv_u64 scv_ebb_ssthresh(const struct scv_ebb_state *s)
{
	return s->phase == SCV_EBB_SLOW_START ? SCV_EBB_NONE : s->cwnd;
}

/* Ebb::pacing_rate in bit/s; 0 = none (no RTT sample yet). docs/ebb.md#foreign (refill
 * at C), #pacing (the cap), #ack-pair (two segments within ack_pair_gap). */
SCV_INLINE scv_u64 scv_ebb_pacing_bps(const struct scv_ebb_state *s, const struct scv_ebb_params *p)
{
	scv_u64 base = s->base, gain, bps;

	if (base == SCV_EBB_NONE || !base)
		return 0;
	if (p->foreign > 0 && s->phase == SCV_EBB_REFILL && s->capacity > 0)
		return s->capacity;
	gain = (scv_u64)p->pacing_gain_ppm * (s->phase == SCV_EBB_SLOW_START ? 2 : 1);
	/* cwnd·8·gain/base = cwnd·8000·gain_ppm/base_ns */
	bps = scv_muldiv(s->cwnd * 8000, gain, base);
	if (s->phase != SCV_EBB_SLOW_START && s->capacity > 0)
		bps = scv_min_u64(bps, scv_max_u64(s->capacity, scv_muldiv(8 * SCV_NS_PER_S, s->cwnd, base)));
	if (p->ack_pair_gap > 0) {
		scv_u64 fl = scv_muldiv(8 * SCV_NS_PER_S, s->mss, (scv_u64)p->ack_pair_gap);
		if (s->capacity > 0)
			fl = scv_min_u64(fl, s->capacity);
		bps = scv_max_u64(bps, fl);
	}
	return bps ? bps : 1;
}

#endif /* SCV_CORE_H */
