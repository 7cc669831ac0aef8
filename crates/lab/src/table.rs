//! A result store as a table, one row per run: the key, the label, the parameters the
//! label sets (sweep labels are `path=value,...`), the seed, the code version and commit,
//! then every summary metric of the record flattened to a dotted column name
//! (`flow.bulk.goodput_bps`, `link.0.utilisation`, `flow.bulk.rtt_ms.p95`). Time series are
//! left out. `scavenger export` writes it as CSV here and as Parquet through
//! scavenger-export, which also hands it to Python as Arrow.

use crate::store::{for_each_raw_line, is_blank, RESULTS_FILE};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// A column's type, the narrowest that holds every non-null value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    Bool,
    Text,
}

#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
    /// One per row; `Value::Null` where the run has no such value.
    pub values: Vec<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: usize,
}

/// Flattens `v` into (dotted name, scalar) pairs. Lists of named objects (flows, Jain
/// groups) are addressed by name, other lists by index.
pub fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    let join = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                flatten(&join(k), x, out);
            }
        }
        Value::Array(xs) => {
            for (i, x) in xs.iter().enumerate() {
                match x.get("name").and_then(Value::as_str) {
                    Some(name) => {
                        let Value::Object(m) = x else { continue };
                        for (k, y) in m.iter().filter(|(k, _)| k.as_str() != "name") {
                            flatten(&format!("{}.{k}", join(name)), y, out);
                        }
                    }
                    None => flatten(&join(&i.to_string()), x, out),
                }
            }
        }
        scalar => out.push((prefix.to_string(), scalar.clone())),
    }
}

/// `a=1,b.c=x` → [("a","1"), ("b.c","x")]; a label that is not all `path=value` (a study's
/// experiment name) gives no parameters.
pub fn label_params(label: &str) -> Vec<(String, String)> {
    let parts: Vec<_> = label.split(',').map(|p| p.split_once('=')).collect();
    if parts.iter().all(Option::is_some) {
        parts
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    } else {
        Vec::new()
    }
}

/// A parameter value as typed as it reads: 3 → Int, 0.5 → Float, "1BDP" → Text.
fn param_value(s: &str) -> Value {
    if let Ok(i) = s.parse::<i64>() {
        Value::from(i)
    } else if let Some(f) = s.parse::<f64>().ok().filter(|f| f.is_finite()) {
        Value::from(f)
    } else {
        Value::from(s)
    }
}

/// One run's cells: key, label, param.*, seed, version, commit, then the metrics.
pub fn run_row(line: &Value) -> Vec<(String, Value)> {
    let get = |p: &str| line.pointer(p).cloned().unwrap_or(Value::Null);
    let label = line.get("label").and_then(Value::as_str).unwrap_or("");
    let mut row = vec![
        ("key".to_string(), get("/key")),
        ("label".to_string(), Value::from(label)),
    ];
    for (k, v) in label_params(label) {
        row.push((format!("param.{k}"), param_value(&v)));
    }
    row.push(("seed".into(), get("/seed")));
    row.push(("version".into(), get("/record/tool/version")));
    row.push(("commit".into(), get("/record/tool/git_commit")));
    row.push(("datapath".into(), get("/record/datapath")));
    if let Some(Value::Object(m)) = line.pointer("/record/metrics") {
        for (k, v) in m.iter().filter(|(k, _)| k.as_str() != "series") {
            flatten(k, v, &mut row);
        }
    }
    row
}

impl Table {
    /// Builds a table from rows of (column, value); columns in first-seen order.
    pub fn from_rows(rows: Vec<Vec<(String, Value)>>) -> Table {
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut columns: Vec<Column> = Vec::new();
        let n = rows.len();
        for (r, row) in rows.into_iter().enumerate() {
            for (name, v) in row {
                let i = *index.entry(name.clone()).or_insert_with(|| {
                    columns.push(Column {
                        name,
                        kind: Kind::Int,
                        values: vec![Value::Null; n],
                    });
                    columns.len() - 1
                });
                columns[i].values[r] = v;
            }
        }
        for c in &mut columns {
            c.kind = kind_of(&c.values);
        }
        Table { columns, rows: n }
    }

    /// Every run of the store in `dir` (the last line of a key wins, as in `Store::read`),
    /// sorted by key so that equal stores give equal tables.
    pub fn from_store(dir: &Path) -> Result<Table, crate::error::LabError> {
        let path = dir.join(RESULTS_FILE);
        if !path.is_file() {
            return Err(crate::error::LabError::NotAStore {
                dir: dir.to_path_buf(),
            });
        }
        let mut by_key: HashMap<String, Vec<(String, Value)>> = HashMap::new();
        for_each_raw_line(&path, |line| {
            if is_blank(&line.bytes) {
                return Ok(());
            }
            match serde_json::from_slice::<Value>(&line.bytes) {
                Ok(v) => {
                    let key = v
                        .get("key")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    by_key.insert(key, run_row(&v));
                    Ok(())
                }
                Err(_) if !line.complete => Ok(()),
                Err(e) => Err(crate::error::LabError::DamagedLine {
                    path: path.clone(),
                    line: line.number,
                    reason: e.to_string(),
                    dir: dir.to_path_buf(),
                }),
            }
        })?;
        let mut rows: Vec<_> = by_key.into_iter().collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Table::from_rows(rows.into_iter().map(|r| r.1).collect()))
    }

    /// RFC 4180 CSV: a header line, then one line per row; nulls are empty cells.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let line = |cells: Vec<String>| cells.join(",") + "\n";
        out += &line(self.columns.iter().map(|c| csv_cell(&c.name)).collect());
        for r in 0..self.rows {
            out += &line(
                self.columns
                    .iter()
                    .map(|c| match &c.values[r] {
                        Value::Null => String::new(),
                        Value::String(s) => csv_cell(s),
                        v => csv_cell(&v.to_string()),
                    })
                    .collect(),
            );
        }
        out
    }
}

fn kind_of(values: &[Value]) -> Kind {
    let present: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
    if present.iter().all(|v| v.is_i64()) {
        Kind::Int
    } else if present.iter().all(|v| v.is_number()) {
        Kind::Float
    } else if present.iter().all(|v| v.is_boolean()) {
        Kind::Bool
    } else {
        Kind::Text
    }
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattens_named_lists_by_name_and_skips_series() {
        let line: Value = serde_json::json!({
            "key": "k1", "label": "link.buffer=1BDP,flow.0.params.beta=0.5", "seed": 3,
            "record": {"tool": {"version": "0.1.0", "git_commit": "abc"}, "datapath": "sim",
                "metrics": {"duration_s": 1.0, "events": 10,
                    "flows": [{"name": "bulk", "goodput_bps": 5.5, "rtt": {"mean": 0.1, "p95": null}}],
                    "links": [{"utilisation": 0.9}],
                    "series": {"time_s": [0.0]}}}
        });
        let row = run_row(&line);
        let names: Vec<&str> = row.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "key",
                "label",
                "param.link.buffer",
                "param.flow.0.params.beta",
                "seed",
                "version",
                "commit",
                "datapath",
                "duration_s",
                "events",
                "flows.bulk.goodput_bps",
                "flows.bulk.rtt.mean",
                "flows.bulk.rtt.p95",
                "links.0.utilisation"
            ]
        );
        assert_eq!(row[3].1, Value::from(0.5));
        assert_eq!(row[2].1, Value::from("1BDP"));
    }

    #[test]
    fn study_labels_give_no_parameters() {
        assert!(label_params("ch4/vegas/10Mbit").is_empty());
        assert_eq!(label_params("a=1").len(), 1);
    }

    #[test]
    fn types_and_csv_quoting() {
        let t = Table::from_rows(vec![
            vec![
                ("a".into(), Value::from(1)),
                ("b".into(), Value::from("x,y")),
            ],
            vec![
                ("a".into(), Value::from(2.5)),
                ("c".into(), Value::from(true)),
            ],
        ]);
        assert_eq!(t.columns[0].kind, Kind::Float);
        assert_eq!(t.columns[1].kind, Kind::Text);
        assert_eq!(t.columns[2].kind, Kind::Bool);
        assert_eq!(t.to_csv(), "a,b,c\n1,\"x,y\",\n2.5,,true\n");
    }
}
