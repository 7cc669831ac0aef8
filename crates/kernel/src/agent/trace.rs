//! Per-socket CSV trace of the agent: each shim record as it arrived, the `AckSample`
//! the translation built from it, and the algorithm's window and state after the call.
//! Off unless asked for (`scavenger kernel agent --trace DIR`, or the environment variable
//! `SCAVENGER_AGENT_TRACE=DIR` for agents started inside other commands such as
//! `scavenger testbed run`); it exists to compare the agent's live inputs with a capture
//! (issue 17, docs/kernel.md#agent-trace).

use super::abi::*;
use scavenger_cc::api::{AckSample, CongestionControl};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The environment variable that turns the trace on for agents started by other commands.
pub const TRACE_ENV: &str = "SCAVENGER_AGENT_TRACE";

/// The CSV header. Raw fields are the shim record's (bpf/scv_shim.h); `s_*` the sample
/// handed to `on_ack` (ns, empty when absent or for non-ACK records); `cwnd_pkts` and
/// `ssthresh_pkts` what the agent would command after the record; `state` the
/// algorithm's `trace()` as `name=value` pairs separated by `;`.
pub(super) const HEADER: &str = "ts_ns,kind,tsval,tsecr,tsoffset,usec_ts,srtt_us,rtt_us,\
acked_sacked,in_flight,ca_state,flag,s_rtt_ns,s_owd_ns,s_echo_rtt_ns,cwnd_pkts,ssthresh_pkts,state";

/// One socket's trace file.
pub(super) struct FlowTrace {
    out: BufWriter<File>,
}

fn kind_name(kind: u32) -> &'static str {
    match kind {
        EV_OPEN => "open",
        EV_ACK => "ack",
        EV_CONGESTION => "congestion",
        EV_STATE => "state",
        EV_CLOSE => "close",
        EV_TX_START => "tx_start",
        _ => "unknown",
    }
}

/// `<dir>/agent-<pid>-<socket id>-<local port>-<remote port>.csv`: the process id keeps
/// agents of concurrent runs (which share the shim's socket ids) apart.
pub(super) fn path_for(dir: &Path, ev: &ShimEvent) -> PathBuf {
    dir.join(format!(
        "agent-{}-{}-{}-{}.csv",
        std::process::id(),
        ev.id,
        ev.sport,
        ev.dport
    ))
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

impl FlowTrace {
    pub(super) fn create(path: &Path) -> io::Result<FlowTrace> {
        let mut out = BufWriter::new(File::create(path)?);
        writeln!(out, "{HEADER}")?;
        Ok(FlowTrace { out })
    }

    /// Appends the row of one record; `sample` is the ACK's sample, `cc` the algorithm
    /// after the call the record caused.
    pub(super) fn record(
        &mut self,
        ev: &ShimEvent,
        sample: Option<&AckSample>,
        cc: &dyn CongestionControl,
        mss: u64,
    ) -> io::Result<()> {
        let mut state = Vec::new();
        cc.trace(&mut state);
        let mut st = String::new();
        for (i, (name, v)) in state.iter().enumerate() {
            let sep = if i == 0 { "" } else { ";" };
            let _ = write!(st, "{sep}{name}={v}");
        }
        let ss = cc.ssthresh();
        writeln!(
            self.out,
            "{},{},{},{},{},{},{},{},{},{},{},{:#x},{},{},{},{},{},{}",
            ev.ts_ns,
            kind_name(ev.kind),
            ev.tsval,
            ev.tsecr,
            ev.tsoffset,
            ev.usec_ts,
            ev.srtt_us,
            ev.rtt_us,
            ev.acked_sacked,
            ev.in_flight,
            ev.ca_state,
            ev.flag,
            opt(sample.and_then(|s| s.rtt).map(|d| d.nanos())),
            opt(sample.and_then(|s| s.owd)),
            opt(sample.and_then(|s| s.ts_echo_rtt).map(|d| d.nanos())),
            cc.cwnd() / mss.max(1),
            if ss == u64::MAX {
                "inf".to_string()
            } else {
                (ss / mss.max(1)).to_string()
            },
            st
        )
    }
}
