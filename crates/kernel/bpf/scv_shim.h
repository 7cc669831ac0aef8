/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Records shared by scv_shim.bpf.c and the userspace agent (crates/kernel/src/agent.rs,
 * which mirrors these layouts with #[repr(C)] structs). */
#ifndef SCV_SHIM_H
#define SCV_SHIM_H

enum scv_shim_kind {
	SCV_EV_OPEN = 0,       /* a socket started with scv_shim */
	SCV_EV_ACK = 1,        /* cong_control: one ACK */
	SCV_EV_CONGESTION = 2, /* ssthresh hook: loss recovery, ECN (CWR) or RTO starts */
	SCV_EV_STATE = 3,      /* set_state: ca_state changed (new state in ca_state) */
	SCV_EV_CLOSE = 4,      /* release */
	SCV_EV_TX_START = 5,   /* cwnd_event(CA_EVENT_TX_START): sending starts from idle */
};

/* One ring-buffer record, 128 bytes. */
struct scv_shim_ev {
	scv_u64 id;         /* per-socket id assigned in init */
	scv_u64 ts_ns;      /* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	scv_u64 delivered;  /* tp->delivered (packets, cumulative) */
	scv_u64 srtt_us;    /* tp->srtt_us >> 3 */
	scv_s64 rtt_us;     /* rate_sample rtt_us (-1: none) */
	scv_s64 interval_us;/* rate_sample interval_us */
	scv_u32 kind;
	scv_u32 mss;        /* tp->mss_cache */
	scv_u32 acked_sacked;
	scv_s32 rs_delivered; /* rate_sample delivered (packets) */
	scv_u32 prior_in_flight;
	scv_u32 in_flight;  /* tcp_packets_in_flight after the ACK */
	scv_u32 snd_cwnd;
	scv_u32 snd_ssthresh;
	scv_u32 tsval;      /* peer's TSval of this ACK (0: no timestamps) */
	scv_u32 tsecr;      /* our TSval it echoes */
	scv_s32 losses;     /* rate_sample losses */
	scv_u32 flag;       /* the ACK's FLAG_* bits (0x40 = FLAG_ECE) */
	scv_u8 ca_state;
	scv_u8 app_limited; /* rate_sample is_app_limited */
	scv_u8 cwnd_limited;
	scv_u8 usec_ts;     /* timestamps are in microseconds */
	scv_u16 sport;      /* local port (host order) */
	scv_u16 dport;      /* remote port (host order) */
	scv_u64 bytes_acked;/* tp->bytes_acked: snd_una as a byte offset in the stream */
	scv_u32 nxt_minus_una; /* tp->snd_nxt - tp->snd_una, bytes */
	scv_u32 tsoffset;   /* tp->tsoffset: our TSval = TCP clock (ms or µs) + tsoffset */
	scv_u64 cookie;     /* socket cookie if one was generated (SO_COOKIE), else 0 */
};
_Static_assert(sizeof(struct scv_shim_ev) == 128, "agent.rs ShimEvent mirrors this layout");

/* A DA-LBE goal for one socket, keyed by its cookie in scv_shim_goal (written by
 * `scavenger kernel goal`); the agent reads it when the socket opens. */
struct scv_shim_goal {
	scv_u64 size;        /* bytes the socket will send; 0 = unknown */
	scv_u64 deadline_ns; /* soft deadline after the socket's start; 0 = none */
};

/* Default of SCV_HB_WAKE_NS. */
#define SCV_WAKE_DEFAULT_NS 100000

/* Slots of scv_shim_cmd: a socket's decision lives at id % SCV_SHIM_SLOTS. */
#define SCV_SHIM_SLOTS 16384

/* The agent's decision for one socket. scv_shim_cmd is a memory-mappable array, so the
 * agent writes decisions with plain stores (no system call per decision); `id` tells
 * which socket the slot currently belongs to. */
struct scv_shim_cmd {
	scv_u64 id;          /* owner socket; the shim ignores the slot if it differs */
	scv_u32 cwnd;        /* packets; 0 = no decision yet */
	scv_u32 ssthresh;    /* packets; 0 = keep */
	scv_u64 pacing_rate; /* bytes/s; 0 = do not pace */
	scv_u64 written_ns;  /* CLOCK_MONOTONIC when written */
	scv_u64 seq;         /* decisions written so far */
};

/* scv_shim_hb slots (memory-mappable array of u64). */
enum scv_shim_hb_slot {
	SCV_HB_AGENT_NS = 0, /* agent heartbeat, CLOCK_MONOTONIC ns; 0 = no agent */
	SCV_HB_NEXT_ID = 1,  /* socket id counter */
	SCV_HB_STALE_NS = 2, /* staleness limit (default 200 ms; 2·srtt if larger) */
	SCV_HB_LAST_WAKE = 3,/* when a record last woke the agent */
	SCV_HB_WAKE_NS = 4,  /* records wake the agent at most this often (0: 100 µs) */
	SCV_HB_N = 8
};

#endif
