//! `scavenger plot RECORD_OR_DIR`: one run over time, as Flent draws a test: goodput,
//! congestion window, round-trip time and bottleneck queue, one colour per flow.
//!
//! Goodput, window and queue come from the record's time series (a scenario with
//! `[measure] series_bin`). The round-trip time comes from the TCP timestamps in the
//! sender-side captures (`scavenger run --pcap DIR` into the record's directory): each
//! ACK reaching the sender gives now − TSecr, the RTT a kernel measures (RFC 7323 RTTM),
//! which includes the receiver's delayed-ACK hold.

use crate::error::CliError;
use scavenger_lab::svg::{lines, Series2};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Panels of a plot: (file stem, title, SVG).
pub type Panels = Vec<(&'static str, String)>;

/// Where the record is and where the plot goes by default.
fn locate(input: &Path) -> (PathBuf, PathBuf) {
    if input.is_dir() {
        (input.join("record.json"), input.join("plot.html"))
    } else {
        let dir = input.parent().unwrap_or(Path::new("."));
        (input.to_path_buf(), dir.join("plot.html"))
    }
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
        .unwrap_or_default()
}

/// Why `scavenger plot` cannot draw a run from its input (I/O errors are `CliError::io`'s).
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("{}: {why}", path.display())]
    Capture { path: PathBuf, why: CaptureError },
    #[error("{} is not JSON: {source}", path.display())]
    NotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{} is not a result record (no `metrics`); give a record.json or the directory of `scavenger run --out`", path.display())]
    NotARecord { path: PathBuf },
    #[error("the record has no time series: give the scenario `[measure] series_bin = \"100ms\"` and run it again")]
    NoSeries,
}

/// A `--pcap` capture that cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CaptureError {
    #[error("truncated capture")]
    Truncated,
    #[error("not a nanosecond pcap file written by `scavenger run --pcap`")]
    NotOurs,
    #[error("truncated record")]
    TruncatedRecord,
}

impl PlotError {
    /// Whether the input given is at fault (not a record, no series) rather than I/O.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            PlotError::NotJson { .. } | PlotError::NotARecord { .. } | PlotError::NoSeries
        )
    }
}

/// One flow's RTT samples: its index and (time s, RTT ms) points.
pub type FlowRtts = (usize, Vec<(f64, f64)>);

/// RTT samples (time s, RTT ms) of every sender-side capture in `dir`, by flow index.
pub fn rtt_from_captures(dir: &Path) -> Result<Vec<FlowRtts>, CliError> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Ok(vec![]);
    };
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".sender.pcap"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let Some(index) = name.split('-').next().and_then(|n| n.parse::<usize>().ok()) else {
            continue;
        };
        let bytes = std::fs::read(&f).map_err(CliError::io("read", &f))?;
        let samples = ack_rtts(&bytes).map_err(|why| PlotError::Capture {
            path: f.clone(),
            why,
        })?;
        out.push((index, samples));
    }
    Ok(out)
}

/// (capture time s, now − TSecr in ms) of every pure ACK with timestamps in a capture
/// written by `--pcap` (nanosecond pcap, Ethernet, IPv4, TCP; timestamps in µs).
pub fn ack_rtts(b: &[u8]) -> Result<Vec<(f64, f64)>, CaptureError> {
    let le = |o: usize| -> Result<u32, CaptureError> {
        b.get(o..o + 4)
            .map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
            .ok_or(CaptureError::Truncated)
    };
    if le(0)? != scavenger_sim::pcap::MAGIC_NS {
        return Err(CaptureError::NotOurs);
    }
    let mut out = Vec::new();
    let mut o = 24;
    while o + 16 <= b.len() {
        let ns = le(o)? as u64 * 1_000_000_000 + le(o + 4)? as u64;
        let cap = le(o + 8)? as usize;
        let f = b
            .get(o + 16..o + 16 + cap)
            .ok_or(CaptureError::TruncatedRecord)?;
        o += 16 + cap;
        // Ethernet (14) + IPv4 (20) + TCP: ACKs are the segments without payload.
        if f.len() < 54 || f[23] != 6 {
            continue;
        }
        let ip_len = u16::from_be_bytes([f[16], f[17]]) as usize;
        let tcp = &f[34..];
        let hl = (tcp[12] >> 4) as usize * 4;
        if ip_len != 20 + hl || tcp[13] & 0x02 != 0 || tcp.len() < hl {
            continue;
        }
        let mut i = 20;
        while i + 1 < hl {
            match tcp[i] {
                0 => break,
                1 => i += 1,
                8 if i + 10 <= hl => {
                    let ecr = u32::from_be_bytes(tcp[i + 6..i + 10].try_into().expect("4"));
                    let now_us = (ns / 1000) as u32;
                    if ecr != 0 {
                        out.push((ns as f64 / 1e9, now_us.wrapping_sub(ecr) as f64 / 1e3));
                    }
                    break;
                }
                _ => i += tcp[i + 1].max(2) as usize,
            }
        }
    }
    Ok(out)
}

/// The four panels of the run in `record` (its directory holds any captures).
pub fn panels(record: &Value, dir: &Path) -> Result<Panels, CliError> {
    let m = &record["metrics"];
    let s = &m["series"];
    if s.is_null() {
        return Err(PlotError::NoSeries.into());
    }
    let names: Vec<String> = m["flows"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| {
                    format!(
                        "{} ({})",
                        f["name"].as_str().unwrap_or("?"),
                        f["algorithm"].as_str().unwrap_or("?")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let t = f64s(&s["time_s"]);
    let per_flow = |key: &str, scale: f64| -> Vec<Series2> {
        s[key]
            .as_array()
            .map(|flows| {
                flows
                    .iter()
                    .zip(&names)
                    .map(|(v, n)| Series2 {
                        name: n.clone(),
                        points: t
                            .iter()
                            .copied()
                            .zip(f64s(v).into_iter().map(|y| y * scale))
                            .collect(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out: Panels = Vec::new();
    out.push((
        "goodput",
        lines(
            "Goodput per flow",
            "time (s)",
            "goodput (Mbit/s)",
            &per_flow("flow_goodput_bps", 1e-6),
        ),
    ));
    out.push((
        "cwnd",
        lines(
            "Congestion window",
            "time (s)",
            "window (kB)",
            &per_flow("flow_cwnd_bytes", 1e-3),
        ),
    ));
    let rtts = rtt_from_captures(dir)?;
    let rtt_series: Vec<Series2> = rtts
        .into_iter()
        .map(|(i, pts)| Series2 {
            name: names.get(i).cloned().unwrap_or_else(|| format!("flow {i}")),
            points: pts,
        })
        .collect();
    out.push((
        "rtt",
        if rtt_series.is_empty() {
            lines(
                "Round-trip time: no captures here (run with --pcap into this directory)",
                "time (s)",
                "RTT (ms)",
                &[],
            )
        } else {
            lines(
                "Round-trip time (TCP timestamp echo at the sender)",
                "time (s)",
                "RTT (ms)",
                &rtt_series,
            )
        },
    ));
    out.push((
        "queue",
        lines(
            "Bottleneck queue (forward direction)",
            "time (s)",
            "queue (packets)",
            &[Series2 {
                name: "queue".into(),
                points: t.iter().copied().zip(f64s(&s["queue_pkts"])).collect(),
            }],
        ),
    ));
    Ok(out)
}

fn html(title: &str, panels: &Panels) -> String {
    let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;");
    let mut h = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>\
         <style>body{{font-family:sans-serif;margin:1.5em}} .p{{display:inline-block;margin:4px}}</style>\
         </head><body><h1>{0}</h1>\n",
        esc(title)
    );
    for (id, svg) in panels {
        h += &format!("<div class=\"p\" id=\"{id}\">{svg}</div>\n");
    }
    h + "</body></html>\n"
}

/// All panels stacked in one SVG document.
fn stacked_svg(panels: &Panels) -> String {
    let (w, h) = (560, 260);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{0}\" viewBox=\"0 0 {w} {0}\">",
        h * panels.len()
    );
    for (i, (_, svg)) in panels.iter().enumerate() {
        // Each panel is an <svg> of its own: nested at its offset.
        s += &svg.replacen("<svg ", &format!("<svg y=\"{}\" ", i * h), 1);
    }
    s + "</svg>\n"
}

/// Runs `scavenger plot`: writes `out` (default: plot.html next to the record); an `.svg`
/// name gets one SVG with the panels stacked, anything else an HTML page.
pub fn run(input: &Path, out: Option<&Path>) -> Result<PathBuf, CliError> {
    let (rec_path, default_out) = locate(input);
    let text = std::fs::read_to_string(&rec_path).map_err(CliError::io("read", &rec_path))?;
    let record: Value = serde_json::from_str(&text).map_err(|source| PlotError::NotJson {
        path: rec_path.clone(),
        source,
    })?;
    if record["metrics"].is_null() {
        return Err(PlotError::NotARecord { path: rec_path }.into());
    }
    let dir = rec_path.parent().unwrap_or(Path::new("."));
    let panels = panels(&record, dir)?;
    let out = out.map_or(default_out, Path::to_path_buf);
    let title = format!(
        "{} (seed {})",
        record["scenario"]["name"].as_str().unwrap_or("run"),
        record["seed"]
    );
    let body = if out.extension().is_some_and(|e| e == "svg") {
        stacked_svg(&panels)
    } else {
        html(&title, &panels)
    };
    let tmp = out.with_extension("tmp");
    std::fs::write(&tmp, body)
        .and_then(|_| std::fs::rename(&tmp, &out))
        .map_err(CliError::io("write", &out))?;
    Ok(out)
}
