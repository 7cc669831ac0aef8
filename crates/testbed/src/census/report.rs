//! What `scavenger census` prints and writes: one line per URL, a JSON record with the
//! window trace, and a plot of the trace like Wang 2018 Fig. 3.1–3.3 (window per round,
//! the induced loss and the forced RTO marked).

use super::classify::{Trace, Verdict};
use super::receiver::{ProbeConfig, ProbeOutcome};
use scavenger_lab::svg::{lines, Series2};
use serde::Serialize;

/// One probe as written to `census-*.json`.
#[derive(Clone, Debug, Serialize)]
pub struct CensusRecord {
    pub url: String,
    pub addr: String,
    /// On the testbed: the server's real congestion control and the link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub true_algorithm: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<u32>,
    pub config: ProbeConfig,
    pub verdict: Verdict,
    /// Why the probe ended (e.g. "the page ended after 5120 bytes"), or why it failed.
    pub end: String,
    /// None when the probe failed before a trace (no answer, refused).
    pub outcome: Option<ProbeOutcome>,
    pub version: String,
}

/// `URL class confidence reason` (the reason last: it has spaces).
pub fn line(url: &str, v: &Verdict) -> String {
    format!("{url} {} {:.2} {}", v.class, v.confidence, v.reason)
}

/// The window trace as an SVG line plot; the induced loss and the RTO are vertical
/// marks at their rounds.
pub fn plot(title: &str, t: &Trace) -> String {
    let w: Vec<(f64, f64)> = t
        .rounds
        .iter()
        .map(|r| (f64::from(r.round), f64::from(r.packets)))
        .collect();
    let top = t.rounds.iter().map(|r| r.packets).max().unwrap_or(1) as f64;
    let mark = |i: Option<usize>| {
        i.and_then(|i| t.rounds.get(i))
            .map(|r| vec![(f64::from(r.round), 0.0), (f64::from(r.round), top)])
            .unwrap_or_default()
    };
    let mut series = vec![Series2 {
        name: "packets per round".into(),
        points: w,
    }];
    for (name, i) in [("induced loss", t.loss), ("forced RTO", t.rto)] {
        let points = mark(i);
        if !points.is_empty() {
            series.push(Series2 {
                name: name.into(),
                points,
            });
        }
    }
    lines(title, "round (emulated RTT)", "window (packets)", &series)
}

/// A file name for `url`: its characters outside [A-Za-z0-9.-] become '_'.
pub fn file_stem(url: &str) -> String {
    let s: String = url
        .trim_start_matches("http://")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.chars().take(100).collect()
}

#[cfg(test)]
mod tests {
    use super::super::classify::{classify, Trace};
    use super::*;

    #[test]
    fn the_line_has_url_class_confidence_and_reason() {
        let mut t = Trace::from_windows(&[10, 20]);
        t.loss = None;
        let v = classify(&t);
        let l = line("http://x/", &v);
        assert!(
            l.starts_with("http://x/ unknown 0.00 too little to classify"),
            "{l}"
        );
    }

    #[test]
    fn the_plot_marks_loss_and_rto() {
        let mut t = Trace::from_windows(&[10, 20, 40, 20, 21, 22, 22, 1, 2]);
        t.loss = Some(2);
        t.rto = Some(6);
        let svg = plot("reno", &t);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("induced loss") && svg.contains("forced RTO"));
        assert_eq!(svg.matches("<polyline").count(), 3);
    }

    #[test]
    fn file_stems_are_safe() {
        assert_eq!(
            file_stem("http://10.1.0.2:8001/bytes/9"),
            "10.1.0.2_8001_bytes_9"
        );
    }
}
