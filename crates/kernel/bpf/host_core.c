/* Host build of scv_core.h for the parity tests (crates/kernel/tests/parity.rs): exported
 * wrappers around the inline cores, compiled by build.rs with the system C compiler. */
#include "scv_core.h"

unsigned long scv_host_sizeof_ledbat_state(void) { return sizeof(struct scv_ledbat_state); }
unsigned long scv_host_sizeof_yield_state(void) { return sizeof(struct scv_yield_state); }

void scv_host_ledbat_defaults(struct scv_ledbat_params *p) { scv_ledbat_defaults(p); }
void scv_host_ledbat_init(struct scv_ledbat_state *s, const struct scv_ledbat_params *p) { scv_ledbat_init(s, p); }
void scv_host_ledbat_cong_avoid(struct scv_ledbat_state *s, const struct scv_ledbat_params *p, struct scv_win *w,
				const struct scv_ack *a)
{
	scv_ledbat_cong_avoid(s, p, w, a);
}
long long scv_host_ledbat_cwnd_cnt(const struct scv_ledbat_state *s) { return s->cwnd_cnt; }
long long scv_host_ledbat_queuing_delay(const struct scv_ledbat_state *s) { return s->queuing_delay; }

void scv_host_yield_defaults(struct scv_yield_params *p) { scv_yield_defaults(p); }
void scv_host_yield_init(struct scv_yield_state *s) { scv_yield_init(s); }
void scv_host_yield_pkts_acked(struct scv_yield_state *s, const struct scv_yield_params *p, int has_owd, long long owd)
{
	scv_yield_pkts_acked(s, p, has_owd, owd);
}
void scv_host_yield_cong_avoid(struct scv_yield_state *s, const struct scv_yield_params *p, struct scv_win *w,
			       unsigned acked, int cwnd_limited)
{
	scv_yield_cong_avoid(s, p, w, acked, cwnd_limited);
}
unsigned scv_host_reno_ssthresh(unsigned cwnd) { return scv_reno_ssthresh(cwnd); }

unsigned long scv_host_sizeof_lpp_state(void) { return sizeof(struct scv_lpp_state); }
void scv_host_lpp_defaults(struct scv_lpp_params *p) { scv_lpp_defaults(p); }
void scv_host_lpp_init(struct scv_lpp_state *s, const struct scv_lpp_params *p, unsigned cwnd) { scv_lpp_init(s, p, cwnd); }
void scv_host_lpp_on_ack(struct scv_lpp_state *s, const struct scv_lpp_params *p, struct scv_win *w, const struct scv_ack *a)
{
	scv_lpp_on_ack(s, p, w, a);
}
unsigned scv_host_lpp_ssthresh(const struct scv_lpp_state *s, const struct scv_lpp_params *p) { return scv_lpp_ssthresh(s, p); }
void scv_host_lpp_on_congestion(struct scv_lpp_state *s, const struct scv_lpp_params *p, unsigned long long now)
{
	scv_lpp_on_congestion(s, p, now);
}
void scv_host_lpp_on_rto(struct scv_lpp_state *s, const struct scv_lpp_params *p) { scv_lpp_on_rto(s, p); }
long long scv_host_lpp_cwnd_fp(const struct scv_lpp_state *s) { return s->cwnd_fp; }

unsigned long scv_host_sizeof_ebb_state(void) { return sizeof(struct scv_ebb_state); }
unsigned long scv_host_sizeof_ebb_ack(void) { return sizeof(struct scv_ebb_ack); }
void scv_host_ebb_defaults(struct scv_ebb_params *p) { scv_ebb_defaults(p); }
void scv_host_ebb_init(struct scv_ebb_state *s, unsigned long long mss, unsigned long long cwnd) { scv_ebb_init(s, mss, cwnd); }
void scv_host_ebb_on_ack(struct scv_ebb_state *s, const struct scv_ebb_params *p, const struct scv_ebb_ack *a)
{
	scv_ebb_on_ack(s, p, a);
}
void scv_host_ebb_on_congestion(struct scv_ebb_state *s, const struct scv_ebb_params *p) { scv_ebb_on_congestion(s, p); }
void scv_host_ebb_on_rto(struct scv_ebb_state *s, const struct scv_ebb_params *p, unsigned long long mss)
{
	scv_ebb_on_rto(s, p, mss);
}
unsigned long long scv_host_ebb_cwnd(const struct scv_ebb_state *s) { return s->cwnd; }
unsigned long long scv_host_ebb_ssthresh(const struct scv_ebb_state *s) { return scv_ebb_ssthresh(s); }
unsigned long long scv_host_ebb_pacing_bps(const struct scv_ebb_state *s, const struct scv_ebb_params *p)
{
	return scv_ebb_pacing_bps(s, p);
}
unsigned long long scv_host_ebb_capacity(const struct scv_ebb_state *s) { return s->capacity; }
unsigned scv_host_ebb_phase(const struct scv_ebb_state *s) { return s->phase; }
