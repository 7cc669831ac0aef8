//! `scavenger compare A B`: two result records (record.json files, or directories
//! holding one) or two result stores (directories with results.jsonl) side by side,
//! per flow and per metric, with B's difference from A in percent — simulator versus
//! testbed, or two versions of the tool. Works on the JSON, so records of other
//! versions compare as long as the metric exists in both.

use crate::error::LabError;
use serde_json::Value;
use std::path::Path;

/// (label, record) pairs read from a path.
pub fn load(path: &Path) -> Result<Vec<(String, Value)>, LabError> {
    let read = |p: &Path| -> Result<Value, LabError> {
        let t = std::fs::read_to_string(p).map_err(LabError::io("read", p))?;
        serde_json::from_str(&t).map_err(|e| LabError::NotARecord {
            path: p.to_path_buf(),
            line: None,
            what: "JSON result record",
            reason: e.to_string(),
        })
    };
    if path.is_dir() {
        let rec = path.join("record.json");
        if rec.exists() {
            return Ok(vec![(path.display().to_string(), read(&rec)?)]);
        }
        let store = path.join(crate::store::RESULTS_FILE);
        if store.exists() {
            // Read as JSON lines (a torn last line from a crash is skipped, as the store
            // does); a key seen twice keeps its last record.
            let text = std::fs::read_to_string(&store).map_err(LabError::io("read", &store))?;
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            let mut out: Vec<(String, String, Value)> = Vec::new();
            for (i, l) in lines.iter().enumerate() {
                let v: Value = match serde_json::from_str(l) {
                    Ok(v) => v,
                    Err(_) if i + 1 == lines.len() => continue,
                    Err(e) => {
                        return Err(LabError::NotARecord {
                            path: store.clone(),
                            line: Some(i + 1),
                            what: "result line",
                            reason: e.to_string(),
                        })
                    }
                };
                let key = v
                    .get("key")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let label = format!(
                    "{} seed {}",
                    v.get("label").and_then(Value::as_str).unwrap_or(""),
                    v.get("seed").and_then(Value::as_u64).unwrap_or(0)
                );
                out.retain(|o| o.0 != key);
                out.push((key, label, v.get("record").cloned().unwrap_or(Value::Null)));
            }
            return Ok(out.into_iter().map(|(_, l, r)| (l, r)).collect());
        }
        return Err(LabError::NothingToCompare {
            path: path.to_path_buf(),
        });
    }
    let v = read(path)?;
    if v.get("metrics").is_none() {
        return Err(LabError::NoMetrics {
            path: path.to_path_buf(),
        });
    }
    Ok(vec![(path.display().to_string(), v)])
}

/// Per-flow metrics: (name, JSON pointer inside a flow, scale for display).
const FLOW_METRICS: &[(&str, &str, f64)] = &[
    ("goodput Mbit/s", "/goodput_bps", 1e-6),
    ("throughput Mbit/s", "/throughput_bps", 1e-6),
    ("delivered MB", "/delivered_bytes", 1e-6),
    ("completion s", "/completion_time_s", 1.0),
    ("rtt mean ms", "/rtt_ms/mean", 1.0),
    ("rtt p50 ms", "/rtt_ms/p50", 1.0),
    ("rtt p95 ms", "/rtt_ms/p95", 1.0),
    ("retransmits", "/retransmits", 1.0),
    ("final cwnd KB", "/final_cwnd_bytes", 1e-3),
];
const LINK_METRICS: &[(&str, &str, f64)] = &[
    ("utilisation %", "/utilisation", 100.0),
    ("qdelay p50 ms", "/qdelay_ms/p50", 1.0),
    ("qdelay p95 ms", "/qdelay_ms/p95", 1.0),
    ("qdelay p99 ms", "/qdelay_ms/p99", 1.0),
    ("queue drops", "/queue_drops", 1.0),
    ("ecn marks", "/ecn_marks", 1.0),
];

/// One compared number.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub item: String,
    pub metric: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
}

impl Row {
    /// (B − A) / |A| in percent; `None` when undefined (A missing or zero with B ≠ 0).
    pub fn diff_pct(&self) -> Option<f64> {
        match (self.a, self.b) {
            (Some(a), Some(b)) if a == b => Some(0.0),
            (Some(a), Some(b)) if a != 0.0 => Some((b - a) / a.abs() * 100.0),
            _ => None,
        }
    }
}

fn by_name<'a>(list: Option<&'a Value>, name: &str) -> Option<&'a Value> {
    list?
        .as_array()?
        .iter()
        .find(|x| x.get("name").and_then(Value::as_str) == Some(name))
}

/// The rows comparing two records: every flow and link of either, by name.
pub fn compare_records(a: &Value, b: &Value) -> Vec<Row> {
    let mut rows = Vec::new();
    for (key, metrics, kind) in [
        ("flows", FLOW_METRICS, "flow"),
        ("links", LINK_METRICS, "link"),
    ] {
        let (la, lb) = (
            a.pointer(&format!("/metrics/{key}")),
            b.pointer(&format!("/metrics/{key}")),
        );
        let mut names: Vec<String> = Vec::new();
        for l in [la, lb].into_iter().flatten() {
            for x in l.as_array().into_iter().flatten() {
                if let Some(n) = x.get("name").and_then(Value::as_str) {
                    if !names.iter().any(|m| m == n) {
                        names.push(n.to_string());
                    }
                }
            }
        }
        for n in names {
            let (fa, fb) = (by_name(la, &n), by_name(lb, &n));
            for (label, ptr, scale) in metrics {
                let get = |f: Option<&Value>| {
                    f.and_then(|x| x.pointer(ptr))
                        .and_then(Value::as_f64)
                        .map(|v| v * scale)
                };
                rows.push(Row {
                    item: format!("{kind} {n}"),
                    metric: label.to_string(),
                    a: get(fa),
                    b: get(fb),
                });
            }
        }
    }
    for j in a
        .pointer("/metrics/jain")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let n = j.get("name").and_then(Value::as_str).unwrap_or("");
        let jb = by_name(b.pointer("/metrics/jain"), n);
        rows.push(Row {
            item: format!("jain {n}"),
            metric: "index".into(),
            a: j.get("index").and_then(Value::as_f64),
            b: jb.and_then(|x| x.get("index")).and_then(Value::as_f64),
        });
    }
    rows
}

fn fmt(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| {
        if v.abs() >= 1000.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.3}")
        }
    })
}

/// A readable table of rows, A and B named in the header.
pub fn table(a_name: &str, b_name: &str, a: &Value, b: &Value) -> String {
    let dp = |v: &Value| {
        v.get("datapath")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    let mut out = format!("A: {a_name} ({})\nB: {b_name} ({})\n", dp(a), dp(b));
    out += &format!(
        "{:<22} {:<18} {:>12} {:>12} {:>9}\n",
        "item", "metric", "A", "B", "B vs A"
    );
    for r in compare_records(a, b) {
        let d = r.diff_pct().map_or("-".into(), |d| format!("{d:+.1}%"));
        out += &format!(
            "{:<22} {:<18} {:>12} {:>12} {:>9}\n",
            r.item,
            r.metric,
            fmt(r.a),
            fmt(r.b),
            d
        );
    }
    out
}

/// Compares two paths (records or stores). Stores are paired by label and seed.
pub fn compare_paths(a: &Path, b: &Path) -> Result<String, LabError> {
    let (ra, rb) = (load(a)?, load(b)?);
    if ra.len() == 1 && rb.len() == 1 {
        return Ok(table(&ra[0].0, &rb[0].0, &ra[0].1, &rb[0].1));
    }
    let mut out = String::new();
    let mut paired = 0;
    let mut all_rows: Vec<(String, Row)> = Vec::new();
    for (la, va) in &ra {
        if let Some((lb, vb)) = rb.iter().find(|(lb, _)| lb == la) {
            all_rows.extend(compare_records(va, vb).into_iter().map(|r| (la.clone(), r)));
            out += &format!(
                "== {la}\n{}\n",
                table(
                    &format!("{} [{la}]", a.display()),
                    &format!("{} [{lb}]", b.display()),
                    va,
                    vb
                )
            );
            paired += 1;
        }
    }
    if paired == 0 {
        return Err(LabError::NothingPaired {
            a: a.to_path_buf(),
            b: b.to_path_buf(),
        });
    }
    let unpaired = ra.len() + rb.len() - 2 * paired;
    if unpaired > 0 {
        out += &format!("({unpaired} results without a partner were left out)\n");
    }
    Ok(format!(
        "{}\nPer run:\n\n{out}",
        aggregate_table(a, b, paired, &all_rows)
    ))
}

// A difference is judged by the thresholds of the studies' reports.
use crate::study::closeness;

/// One metric's differences over every paired run and item.
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregate {
    pub metric: String,
    /// Pairs with a value on both sides.
    pub pairs: usize,
    /// Of those, pairs with no percentage (A is zero and B is not).
    pub undefined: usize,
    pub median_abs_pct: Option<f64>,
    /// The largest |B − A| / |A| in percent, and the run and item where it is.
    pub max_abs_pct: Option<(f64, String)>,
    pub close: usize,
    pub near: usize,
    pub differs: usize,
}

/// Per metric, in the order metrics first appear: the median and largest relative
/// difference over every paired run and item, and how many are close, near or differ.
pub fn aggregate(rows: &[(String, Row)]) -> Vec<Aggregate> {
    let mut order: Vec<&str> = Vec::new();
    for (_, r) in rows {
        if !order.contains(&r.metric.as_str()) {
            order.push(&r.metric);
        }
    }
    order
        .into_iter()
        .map(|m| {
            let both: Vec<&(String, Row)> = rows
                .iter()
                .filter(|(_, r)| r.metric == m && r.a.is_some() && r.b.is_some())
                .collect();
            let mut d: Vec<(f64, String)> = both
                .iter()
                .filter_map(|(run, r)| {
                    r.diff_pct()
                        .filter(|x| x.is_finite())
                        .map(|x| (x, format!("{run}, {}", r.item)))
                })
                .collect();
            let count = |v: &str| d.iter().filter(|x| closeness(x.0) == v).count();
            let (close, near, differs) = (count("close"), count("near"), count("differs"));
            let abs: Vec<f64> = d.iter().map(|x| x.0.abs()).collect();
            d.sort_by(|x, y| y.0.abs().total_cmp(&x.0.abs()));
            Aggregate {
                metric: m.to_string(),
                pairs: both.len(),
                undefined: both.len() - abs.len(),
                median_abs_pct: crate::study::median(&abs),
                max_abs_pct: d.first().map(|x| (x.0.abs(), x.1.clone())),
                close,
                near,
                differs,
            }
        })
        .collect()
}

/// The aggregate as text, first in `compare`'s output for two stores.
fn aggregate_table(a: &Path, b: &Path, paired: usize, rows: &[(String, Row)]) -> String {
    let mut out = format!(
        "A: {}\nB: {}\n{paired} runs paired by label and seed. Per metric over every paired run, flow and link: the median and largest |B − A| / |A|, and how many are close (within 10 %), near (within 25 %) or differ (further); \"no %\" counts pairs where A is 0 and B is not.\n\n",
        a.display(),
        b.display()
    );
    out += &format!(
        "{:<18} {:>6} {:>12} {:>10} {:>6} {:>5} {:>8} {:>5}  largest at\n",
        "metric", "pairs", "median |Δ|", "max |Δ|", "close", "near", "differs", "no %"
    );
    let pct = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.1}%"));
    for g in aggregate(rows) {
        out += &format!(
            "{:<18} {:>6} {:>12} {:>10} {:>6} {:>5} {:>8} {:>5}  {}\n",
            g.metric,
            g.pairs,
            pct(g.median_abs_pct),
            pct(g.max_abs_pct.as_ref().map(|m| m.0)),
            g.close,
            g.near,
            g.differs,
            g.undefined,
            g.max_abs_pct.as_ref().map_or("", |m| m.1.as_str())
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(goodput: f64, rtt: f64) -> Value {
        json!({"datapath": "sim", "metrics": {"flows": [{"name": "f", "goodput_bps": goodput, "rtt_ms": {"mean": rtt}}], "links": [{"name": "forward", "utilisation": 0.5}], "jain": []}})
    }

    #[test]
    fn differences_are_relative_to_a() {
        let rows = compare_records(&rec(10e6, 40.0), &rec(9e6, 50.0));
        let g = rows.iter().find(|r| r.metric == "goodput Mbit/s").unwrap();
        assert_eq!((g.a, g.b), (Some(10.0), Some(9.0)));
        assert!((g.diff_pct().unwrap() + 10.0).abs() < 1e-9);
        let r = rows.iter().find(|r| r.metric == "rtt mean ms").unwrap();
        assert!((r.diff_pct().unwrap() - 25.0).abs() < 1e-9);
        let u = rows
            .iter()
            .find(|r| r.item == "link forward" && r.metric == "utilisation %")
            .unwrap();
        assert_eq!(u.diff_pct(), Some(0.0));
    }

    #[test]
    fn missing_or_zero_baselines_have_no_percentage() {
        assert_eq!(
            Row {
                item: "x".into(),
                metric: "m".into(),
                a: Some(0.0),
                b: Some(1.0)
            }
            .diff_pct(),
            None
        );
        assert_eq!(
            Row {
                item: "x".into(),
                metric: "m".into(),
                a: None,
                b: Some(1.0)
            }
            .diff_pct(),
            None
        );
        let mut b = rec(1.0, 1.0);
        b["metrics"]["flows"][0]["name"] = json!("g");
        let rows = compare_records(&rec(1.0, 1.0), &b);
        // Flows present on one side only still appear, with a gap on the other.
        assert!(rows
            .iter()
            .any(|r| r.item == "flow g" && r.a.is_none() && r.b.is_some()));
    }

    #[test]
    fn compares_two_stores_paired_by_label_and_seed() {
        let root =
            std::env::temp_dir().join(format!("scvtb-compare-stores-{}", std::process::id()));
        for (name, g) in [("a", 10e6), ("b", 15e6)] {
            let d = root.join(name);
            std::fs::create_dir_all(&d).unwrap();
            let line = |label: &str, seed: u64, g: f64| {
                json!({"key": format!("{label}-{seed}"), "label": label, "seed": seed, "record": rec(g, 40.0)}).to_string()
            };
            // b has an extra item without a partner in a.
            let mut text = format!("{}\n{}\n", line("x", 1, g), line("x", 2, g));
            if name == "b" {
                text += &format!("{}\n", line("y", 1, g));
            }
            std::fs::write(d.join("results.jsonl"), text).unwrap();
        }
        let t = compare_paths(&root.join("a"), &root.join("b")).unwrap();
        assert_eq!(t.matches("+50.0%").count(), 2, "{t}");
        // The aggregate comes first: goodput differs by 50 % in both runs.
        let agg = t.split("Per run:").next().unwrap();
        let g = agg
            .lines()
            .find(|l| l.starts_with("goodput Mbit/s"))
            .unwrap_or_else(|| panic!("{t}"));
        let cols: Vec<&str> = g.split_whitespace().collect();
        assert_eq!(
            &cols[2..9],
            ["2", "50.0%", "50.0%", "0", "0", "2", "0"],
            "{g}"
        );
        assert!(t.find("goodput Mbit/s").unwrap() < t.find("== x seed 1").unwrap());
        assert!(
            t.contains("== x seed 1")
                && t.contains("== x seed 2")
                && t.contains("1 results without a partner"),
            "{t}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn compares_two_record_files() {
        let dir = std::env::temp_dir().join(format!("scvtb-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.json"), rec(10e6, 40.0).to_string()).unwrap();
        std::fs::write(dir.join("b.json"), rec(12e6, 40.0).to_string()).unwrap();
        let t = compare_paths(&dir.join("a.json"), &dir.join("b.json")).unwrap();
        assert!(t.contains("+20.0%"), "{t}");
        assert!(compare_paths(&dir, &dir.join("b.json"))
            .unwrap_err()
            .to_string()
            .contains("neither"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn aggregate_counts_close_near_and_differs_per_metric() {
        let row = |m: &str, a: f64, b: f64| Row {
            item: "flow f".into(),
            metric: m.into(),
            a: Some(a),
            b: Some(b),
        };
        let rows = vec![
            ("r1".to_string(), row("m", 100.0, 105.0)),
            ("r2".to_string(), row("m", 100.0, 80.0)),
            ("r3".to_string(), row("m", 100.0, 150.0)),
            ("r4".to_string(), row("m", 0.0, 1.0)),
            ("r1".to_string(), row("n", 1.0, 1.0)),
        ];
        let g = aggregate(&rows);
        assert_eq!(g.len(), 2);
        // |Δ| = 5, 20, 50 % (median 20); the fourth pair has no percentage.
        assert_eq!((g[0].pairs, g[0].undefined), (4, 1));
        assert_eq!(g[0].median_abs_pct, Some(20.0));
        assert_eq!(g[0].max_abs_pct, Some((50.0, "r3, flow f".to_string())));
        assert_eq!((g[0].close, g[0].near, g[0].differs), (1, 1, 1));
        assert_eq!((g[1].metric.as_str(), g[1].close), ("n", 1));
    }
}
