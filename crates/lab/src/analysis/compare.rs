//! `scavenger compare A B`: two result records (record.json files, or directories
//! holding one) or two result stores (directories with results.jsonl) side by side,
//! per flow and per metric, with B's difference from A in percent — simulator versus
//! testbed, or two versions of the tool. Works on the JSON, so records of other
//! versions compare as long as the metric exists in both.

use serde_json::Value;
use std::path::Path;

/// (label, record) pairs read from a path.
pub fn load(path: &Path) -> Result<Vec<(String, Value)>, String> {
    let read = |p: &Path| -> Result<Value, String> {
        let t =
            std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        serde_json::from_str(&t)
            .map_err(|e| format!("{}: not a JSON result record: {e}", p.display()))
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
            let text = std::fs::read_to_string(&store)
                .map_err(|e| format!("cannot read {}: {e}", store.display()))?;
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            let mut out: Vec<(String, String, Value)> = Vec::new();
            for (i, l) in lines.iter().enumerate() {
                let v: Value = match serde_json::from_str(l) {
                    Ok(v) => v,
                    Err(_) if i + 1 == lines.len() => continue,
                    Err(e) => {
                        return Err(format!(
                            "{} line {}: not a result line: {e}",
                            store.display(),
                            i + 1
                        ))
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
        return Err(format!(
            "{} holds neither record.json nor {}",
            path.display(),
            crate::store::RESULTS_FILE
        ));
    }
    let v = read(path)?;
    if v.get("metrics").is_none() {
        return Err(format!("{}: has no `metrics`; expected a record written by `scavenger run --out` or `testbed run --out`", path.display()));
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
pub fn compare_paths(a: &Path, b: &Path) -> Result<String, String> {
    let (ra, rb) = (load(a)?, load(b)?);
    if ra.len() == 1 && rb.len() == 1 {
        return Ok(table(&ra[0].0, &rb[0].0, &ra[0].1, &rb[0].1));
    }
    let mut out = String::new();
    let mut paired = 0;
    for (la, va) in &ra {
        if let Some((lb, vb)) = rb.iter().find(|(lb, _)| lb == la) {
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
        return Err(format!("no result in {} has the label and seed of one in {}; compare two stores of the same study or sweep, or two records", a.display(), b.display()));
    }
    let unpaired = ra.len() + rb.len() - 2 * paired;
    if unpaired > 0 {
        out += &format!("({unpaired} results without a partner were left out)\n");
    }
    Ok(out)
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
            .contains("neither"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
