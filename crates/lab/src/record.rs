//! The self-describing JSON result record of one run.

use crate::scenario::Scenario;
use scavenger_sim::SimResult;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

pub const RECORD_FORMAT: &str = "scavenger.run/1";

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ToolInfo {
    pub name: &'static str,
    pub version: &'static str,
    pub git_commit: &'static str,
}

pub fn tool_info() -> ToolInfo {
    ToolInfo {
        name: "scavenger",
        version: env!("CARGO_PKG_VERSION"),
        git_commit: env!("SCAVENGER_GIT_COMMIT"),
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunRecord {
    pub format: &'static str,
    pub tool: ToolInfo,
    pub datapath: &'static str,
    pub seed: u64,
    pub scenario: Scenario,
    pub events: u64,
    /// Wall-clock seconds the run took: the one field that differs between identical runs.
    pub wall_time_s: f64,
    pub metrics: SimResult,
    /// Set on testbed runs (crates/testbed): kernel version, emulator and socket
    /// settings. Absent from simulator records, which stay byte-identical.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub testbed: Option<serde_json::Value>,
}

/// Runs a scenario on the simulator with `seed` (the default datapath; see
/// [`crate::datapath`] for the others).
pub fn run_scenario(scenario: &Scenario, seed: u64) -> RunRecord {
    crate::datapath::Simulator.record(scenario, seed)
}

impl RunRecord {
    /// The record of one simulator run of `scenario` with `seed` that took `wall` of wall
    /// time: the one place a simulator record is assembled (the plain and the progress-
    /// reporting runs both build it here).
    pub fn simulated(
        scenario: &Scenario,
        seed: u64,
        metrics: SimResult,
        wall: std::time::Duration,
    ) -> RunRecord {
        RunRecord {
            format: RECORD_FORMAT,
            tool: tool_info(),
            datapath: "sim",
            seed,
            scenario: scenario.clone(),
            events: metrics.events,
            wall_time_s: wall.as_secs_f64(),
            metrics,
            testbed: None,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("records serialise")
    }

    /// Writes `record.json` and, when the run kept time series, `series.csv` into `dir`.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut written = Vec::new();
        let rec = dir.join("record.json");
        std::fs::write(&rec, self.to_json() + "\n")?;
        written.push(rec);
        if let Some(s) = &self.metrics.series {
            let path = dir.join("series.csv");
            let mut w = std::io::BufWriter::new(std::fs::File::create(&path)?);
            write!(w, "time_s")?;
            for (f, tr) in self.metrics.flows.iter().zip(&s.flow_trace) {
                write!(w, ",{0}_goodput_bps,{0}_cwnd_bytes", f.name)?;
                for (var, _) in tr {
                    write!(w, ",{}_{}", f.name, var)?;
                }
            }
            writeln!(w, ",bottleneck_utilisation,queue_pkts")?;
            for (i, t) in s.time_s.iter().enumerate() {
                write!(w, "{t}")?;
                for ((g, c), tr) in s
                    .flow_goodput_bps
                    .iter()
                    .zip(&s.flow_cwnd_bytes)
                    .zip(&s.flow_trace)
                {
                    write!(w, ",{},{}", g[i], c[i])?;
                    for (_, col) in tr {
                        write!(w, ",{}", col[i])?;
                    }
                }
                writeln!(w, ",{},{}", s.link_utilisation[i], s.queue_pkts[i])?;
            }
            w.flush()?;
            written.push(path);
        }
        Ok(written)
    }

    /// A readable per-flow table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let m = &self.metrics;
        // The simulator counts events; the testbed counts the emulator's packets.
        let (verb, what) = if self.datapath == "sim" {
            ("simulated", "events")
        } else {
            ("run on the testbed", "packets emulated")
        };
        out += &format!(
            "scenario {:?}  seed {}  {} {verb} in {:.3} s wall ({} {what})\n",
            self.scenario.name, self.seed, self.scenario.duration, self.wall_time_s, m.events
        );
        // Units go in the header, numbers in the cells; each column is as wide as its
        // widest entry, so the table stays aligned at any rate (10 Gbit/s is 10000.000).
        let header = [
            "flow",
            "algorithm",
            "goodput Mbit/s",
            "throughput Mbit/s",
            "rtt mean ms",
            "rtt p95 ms",
            "fct s",
            "retransmits",
            "timeouts",
            "cwnd bytes",
        ];
        let mut rows = vec![header.map(String::from)];
        for f in &m.flows {
            let ms = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.1}"));
            rows.push([
                f.name.clone(),
                f.algorithm.clone(),
                format!("{:.3}", f.goodput_bps / 1e6),
                format!("{:.3}", f.throughput_bps / 1e6),
                ms(f.rtt_ms.mean),
                ms(f.rtt_ms.p95),
                f.completion_time_s
                    .map_or("-".to_string(), |c| format!("{c:.3}")),
                f.retransmits.to_string(),
                f.timeouts.to_string(),
                f.final_cwnd_bytes.to_string(),
            ]);
        }
        out += &aligned(&rows, 2);
        for l in &m.links {
            out += &format!(
                "link {:<8} utilisation {:.1}%  drops {}  losses {}  queueing delay p50 {} p95 {} p99 {}\n",
                l.name,
                l.utilisation * 100.0,
                l.queue_drops,
                l.wire_losses,
                l.qdelay_ms.p50.map_or("-".into(), |v| format!("{v:.2}ms")),
                l.qdelay_ms.p95.map_or("-".into(), |v| format!("{v:.2}ms")),
                l.qdelay_ms.p99.map_or("-".into(), |v| format!("{v:.2}ms")),
            );
        }
        for j in &m.jain {
            out += &format!(
                "jain {:<10} {:.4} over [{}, {}] s for {}\n",
                j.name,
                j.index,
                j.from_s,
                j.to_s,
                j.flows.join(", ")
            );
        }
        out
    }
}

/// Rows as text columns, each as wide as its widest cell: the first `left` columns
/// left-aligned (names), the rest right-aligned (numbers).
pub fn aligned<const N: usize>(rows: &[[String; N]], left: usize) -> String {
    let mut width = [0usize; N];
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .zip(width)
            .enumerate()
            .map(|(i, (c, w))| {
                if i < left {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        out += cells.join("  ").trim_end();
        out.push('\n');
    }
    out
}
