//! Sweep plans: a base scenario, the settings to vary (lists, numeric ranges, zipped
//! lists; separate `[[vary]]` axes are crossed) and the seeds. A plan expands into work
//! items, one per (scenario, seed).
//!
//! ```toml
//! name = "buffers"
//! scenario = "../examples/two-cubic.toml"   # relative to the plan file
//! repetitions = 3                            # seeds 1, 2, 3 (or: seeds = [7, 8])
//! [[vary]]
//! set = "link.buffer"
//! values = ["0.5BDP", "1BDP", "2BDP"]
//! [[vary]]                                   # settings that move together
//! zip = [{ set = "link.rate", values = ["8Mbit", "24Mbit"] },
//!        { set = "link.reverse_rate", values = ["1Mbit", "1.5Mbit"] }]
//! [[vary]]
//! set = "flow.cubic.params.beta"             # flows by name or index
//! range = { from = 0.5, to = 0.8, step = 0.1 }
//! ```

use crate::error::{AssignError, InputError};
use crate::scenario::parse_table;
use crate::toml_fields::Fields;
use crate::work::WorkItem;
use std::path::Path;
use toml::{Table, Value};

/// One setting: a dotted path into the scenario and the value to put there.
pub type Assignment = (String, Value);

pub struct Plan {
    pub name: String,
    pub base: Table,
    pub base_file: String,
    pub seeds: Vec<u64>,
    /// Each axis is a list of alternatives; each alternative sets one or more paths.
    pub axes: Vec<Vec<Vec<Assignment>>>,
}

fn value_label(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn parse_values(f: &Fields, key_prefix: &str) -> Result<Vec<Value>, InputError> {
    if let Some(Value::Array(vs)) = f.raw("values") {
        if vs.is_empty() {
            return Err(f.err("values", "must not be empty"));
        }
        return Ok(vs.clone());
    }
    if f.raw("values").is_some() {
        return Err(f.err("values", "must be a list"));
    }
    let Some(r) = f.table("range")? else {
        return Err(f.err(
            key_prefix,
            "needs `values = [...]` or `range = { from, to, step }`",
        ));
    };
    r.only(&["from", "to", "step", "unit"])?;
    let from = r
        .float("from", f64::MIN, f64::MAX)?
        .ok_or_else(|| r.err("from", "is required"))?;
    let to = r
        .float("to", f64::MIN, f64::MAX)?
        .ok_or_else(|| r.err("to", "is required"))?;
    let step = r
        .float("step", f64::MIN_POSITIVE, f64::MAX)?
        .ok_or_else(|| r.err("step", "is required and must be positive"))?;
    if to < from {
        return Err(r.err("to", format!("{to} is below `from` ({from})")));
    }
    let n = ((to - from) / step + 1e-9).floor() as usize + 1;
    if n > 100_000 {
        return Err(r.err("step", format!("gives {n} values; at most 100000")));
    }
    let unit = r.str("unit")?;
    let integral = [from, to, step].iter().all(|x| x.fract() == 0.0) && unit.is_none();
    Ok((0..n)
        .map(|i| {
            let x = from + i as f64 * step;
            // Round away binary noise (0.1 steps) so labels and keys stay clean.
            let x = (x * 1e9).round() / 1e9;
            match unit {
                Some(u) => Value::String(format!("{x}{u}")),
                None if integral => Value::Integer(x as i64),
                None => Value::Float(x),
            }
        })
        .collect())
}

/// A plan's text and its base scenario's, with the names they had: what a plan is,
/// without files, so a worker on another machine can expand it (the Python driver).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlanSource {
    pub file: String,
    pub text: String,
    pub base_file: String,
    pub base_text: String,
}

/// Reads a plan file and its base scenario (relative to the plan).
pub fn read_plan_source(path: &Path) -> Result<PlanSource, InputError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| InputError {
        file: file.clone(),
        field: String::new(),
        message: format!("cannot read the plan file: {e}"),
    })?;
    let table = parse_plan_toml(&file, &text)?;
    let top = Fields::new(&file, "", &table);
    let rel = base_path(&top)?;
    let base_path = path.parent().unwrap_or(Path::new(".")).join(rel);
    let base_file = base_path.display().to_string();
    let base_text = std::fs::read_to_string(&base_path)
        .map_err(|e| top.err("scenario", format!("cannot read \"{base_file}\": {e}")))?;
    Ok(PlanSource {
        file,
        text,
        base_file,
        base_text,
    })
}

fn parse_plan_toml(file: &str, text: &str) -> Result<Table, InputError> {
    text.parse().map_err(|e: toml::de::Error| InputError {
        file: file.to_string(),
        field: String::new(),
        message: format!("not valid TOML: {}", e.message()),
    })
}

fn base_path<'a>(top: &Fields<'a>) -> Result<&'a str, InputError> {
    top.only(&["name", "scenario", "seeds", "repetitions", "vary"])?;
    top.str("scenario")?
        .ok_or_else(|| top.err("scenario", "is required: the base scenario file"))
}

/// Reads a plan file; the base scenario path is relative to the plan.
pub fn load_plan(path: &Path) -> Result<Plan, InputError> {
    parse_plan(&read_plan_source(path)?)
}

/// A plan from its source (see [`read_plan_source`]).
pub fn parse_plan(src: &PlanSource) -> Result<Plan, InputError> {
    let file = src.file.clone();
    let table = parse_plan_toml(&file, &src.text)?;
    let top = Fields::new(&file, "", &table);
    base_path(&top)?;
    let base_file = src.base_file.clone();
    let base: Table = src
        .base_text
        .parse()
        .map_err(|e: toml::de::Error| InputError {
            file: base_file.clone(),
            field: String::new(),
            message: format!("not valid TOML: {}", e.message()),
        })?;
    let seeds = match (top.raw("seeds"), top.int("repetitions", 1, 100_000)?) {
        (Some(_), Some(_)) => {
            return Err(top.err(
                "repetitions",
                "give either `seeds` or `repetitions`, not both",
            ))
        }
        (Some(Value::Array(xs)), None) => xs
            .iter()
            .map(|v| match v {
                Value::Integer(i) if *i >= 0 => Ok(*i as u64),
                other => Err(top.err(
                    "seeds",
                    format!("{other} is not a seed; seeds are non-negative integers"),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?,
        (Some(other), None) => {
            return Err(top.err(
                "seeds",
                format!("expected a list of integers, found {other}"),
            ))
        }
        (None, Some(n)) => (1..=n as u64).collect(),
        (None, None) => vec![1],
    };
    if seeds.is_empty() {
        return Err(top.err("seeds", "must not be empty"));
    }
    let mut axes = Vec::new();
    for v in top.tables("vary")? {
        v.only(&["set", "values", "range", "unit", "zip"])?;
        if let Some(Value::Array(parts)) = v.raw("zip") {
            let mut cols: Vec<(String, Vec<Value>)> = Vec::new();
            for (i, p) in parts.iter().enumerate() {
                let Value::Table(t) = p else {
                    return Err(v.err(&format!("zip[{i}]"), "expected a table { set, values }"));
                };
                let pf = Fields::new(&file, format!("{}.zip[{i}]", v.path), t);
                pf.only(&["set", "values", "range"])?;
                let set = pf
                    .str("set")?
                    .ok_or_else(|| pf.err("set", "is required"))?
                    .to_string();
                cols.push((set, parse_values(&pf, "values")?));
            }
            let len = cols.first().map_or(0, |c| c.1.len());
            if let Some((set, c)) = cols.iter().find(|c| c.1.len() != len) {
                return Err(v.err("zip", format!("zipped lists must have equal lengths; `{set}` has {} values, the first has {len}", c.len())));
            }
            axes.push(
                (0..len)
                    .map(|k| {
                        cols.iter()
                            .map(|(set, vals)| (set.clone(), vals[k].clone()))
                            .collect()
                    })
                    .collect(),
            );
        } else {
            let set = v
                .str("set")?
                .ok_or_else(|| v.err("set", "is required (or use `zip`)"))?
                .to_string();
            axes.push(
                parse_values(&v, "values")?
                    .into_iter()
                    .map(|x| vec![(set.clone(), x)])
                    .collect(),
            );
        }
    }
    Ok(Plan {
        name: top.str("name")?.unwrap_or("sweep").to_string(),
        base,
        base_file,
        seeds,
        axes,
    })
}

/// Sets `path` (dotted; array-of-table elements by index or by their `name`) in `t`.
/// `flow[0].algorithm`, as scenario errors name fields, means `flow.0.algorithm`.
pub fn assign(t: &mut Table, path: &str, value: Value) -> Result<(), AssignError> {
    let dotted = dotted_path(path);
    let parts: Vec<&str> = dotted.split('.').collect();
    let mut cur = t;
    let mut i = 0;
    while i + 1 < parts.len() {
        let key = parts[i];
        let entry = cur
            .entry(key.to_string())
            .or_insert_with(|| Value::Table(Table::new()));
        cur = match entry {
            Value::Table(t) => t,
            Value::Array(items) => {
                let sel =
                    parts
                        .get(i + 1)
                        .copied()
                        .ok_or_else(|| AssignError::ListNeedsElement {
                            path: path.to_string(),
                            key: key.to_string(),
                        })?;
                let idx = match sel.parse::<usize>() {
                    Ok(n) => n,
                    Err(_) => items
                        .iter()
                        .position(|it| it.get("name").and_then(Value::as_str) == Some(sel))
                        .ok_or_else(|| AssignError::NoSuchElement {
                            path: path.to_string(),
                            key: key.to_string(),
                            name: sel.to_string(),
                        })?,
                };
                let len = items.len();
                i += 1;
                match items.get_mut(idx) {
                    Some(Value::Table(t)) => t,
                    Some(_) => {
                        return Err(AssignError::ElementNotTable {
                            path: path.to_string(),
                            key: key.to_string(),
                            index: idx,
                        })
                    }
                    None => {
                        return Err(AssignError::IndexOutOfRange {
                            path: path.to_string(),
                            key: key.to_string(),
                            len,
                            index: idx,
                        })
                    }
                }
            }
            _ => {
                return Err(AssignError::NotTable {
                    path: path.to_string(),
                    key: key.to_string(),
                })
            }
        };
        i += 1;
    }
    let last = parts.last().copied().unwrap_or_default();
    if i >= parts.len() || last.is_empty() {
        return Err(AssignError::NoSetting {
            path: path.to_string(),
        });
    }
    cur.insert(last.to_string(), value);
    Ok(())
}

/// `flow[0].params.beta` → `flow.0.params.beta`: the bracketed index of scenario error
/// messages, written as the plan's dotted form.
fn dotted_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' => out.push('.'),
            ']' => {}
            c => out.push(c),
        }
        if c == ']' && chars.peek().is_some_and(|n| *n != '.' && *n != '[') {
            out.push('.');
        }
    }
    out
}

impl Plan {
    /// Every combination of the axes: its label and its settings.
    pub fn combinations(&self) -> Vec<(String, Vec<Assignment>)> {
        let mut combos: Vec<Vec<Assignment>> = vec![vec![]];
        for axis in &self.axes {
            combos = combos
                .iter()
                .flat_map(|c| {
                    axis.iter()
                        .map(move |alt| c.iter().cloned().chain(alt.iter().cloned()).collect())
                })
                .collect();
        }
        combos
            .into_iter()
            .map(|c| {
                let label = if c.is_empty() {
                    "base".to_string()
                } else {
                    c.iter()
                        .map(|(p, v)| format!("{p}={}", value_label(v)))
                        .collect::<Vec<_>>()
                        .join(",")
                };
                (label, c)
            })
            .collect()
    }

    /// Expands into work items; every combination is validated as a scenario.
    pub fn expand(&self) -> Result<Vec<WorkItem>, InputError> {
        let mut items = Vec::new();
        for (label, sets) in self.combinations() {
            let mut t = self.base.clone();
            for (path, v) in &sets {
                assign(&mut t, path, v.clone()).map_err(|m| InputError {
                    file: self.base_file.clone(),
                    field: path.clone(),
                    message: m.to_string(),
                })?;
            }
            let sc = parse_table(&format!("{} [{label}]", self.base_file), &t)?;
            for &seed in &self.seeds {
                items.push(WorkItem::new(label.clone(), sc.clone(), seed));
            }
        }
        Ok(items)
    }
}
