//! `scavenger._scavenger`: the compiled half of the Python package (python/scavenger).
//! Everything here is a thin call into scavenger-lab's public API: scenarios, studies,
//! plans, the result store and its table; the Python half adds pandas, plotting and the
//! driver that spreads work over any `concurrent.futures`-style executor.
//!
//! Across process boundaries only strings cross (JSON, store lines): PyO3 objects do
//! not pickle. Long work runs with the interpreter released (`Python::detach`), so
//! threads run simulations in parallel.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use scavenger_lab::plan::{parse_plan, read_plan_source, PlanSource};
use scavenger_lab::store::{store_line, Store};
use scavenger_lab::store_meta::{write_meta, StoreMeta};
use scavenger_lab::work::WorkItem;
use scavenger_lab::{Datapath, InputError, Simulator};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pyo3::create_exception!(
    _scavenger,
    ScenarioError,
    PyValueError,
    "A scenario or sweep plan is not valid. `field` names the setting (e.g. `flow[0].params.beta`), `file` the file or string it came from; the message says what is allowed."
);
pyo3::create_exception!(
    _scavenger,
    StoreError,
    PyRuntimeError,
    "A result store cannot be opened, read or written (in use by another process, damaged, of another study, or of another build)."
);
pyo3::create_exception!(
    _scavenger,
    RunError,
    PyRuntimeError,
    "A run or a study could not be done (unknown study, a datapath failure, a worker of another build)."
);

fn scenario_error(py: Python<'_>, e: InputError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value(py);
    let _ = v.setattr("field", e.field.clone());
    let _ = v.setattr("file", e.file.clone());
    err
}

/// What a set of work items comes from: a study or a sweep plan (its text, so a worker on
/// another machine needs no file). Sent to workers as JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Source {
    Study { name: String, quick: bool },
    Plan { plan: PlanSource, force: bool },
}

/// Expanded sources, per process: a worker expands a study once, then runs batch after
/// batch of it by key.
type Expanded = Arc<(Vec<WorkItem>, HashMap<String, usize>)>;
static CACHE: Mutex<Option<HashMap<String, Expanded>>> = Mutex::new(None);

enum ExpandError {
    Input(InputError),
    Other(String),
}

fn expand(source_json: &str) -> Result<Expanded, ExpandError> {
    if let Some(e) = CACHE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .get(source_json)
    {
        return Ok(e.clone());
    }
    let source: Source = serde_json::from_str(source_json)
        .map_err(|e| ExpandError::Other(format!("not a work source: {e}")))?;
    let items = match &source {
        Source::Study { name, quick } => scavenger_lab::study::study(name, *quick)
            .map_err(|e| ExpandError::Other(e.to_string()))?
            .work_items(),
        Source::Plan { plan, force } => {
            let p = parse_plan(plan).map_err(ExpandError::Input)?;
            let items = p.expand().map_err(ExpandError::Input)?;
            if !force {
                for w in &items {
                    // The CLI's check and message (`scavenger sweep` without --force).
                    w.scenario.check_cost().map_err(|e| {
                        ExpandError::Other(format!(
                            "{}: setting {}: {e}; pass force=True to run it anyway",
                            plan.file, w.label
                        ))
                    })?;
                }
            }
            items
        }
    };
    let index = items
        .iter()
        .enumerate()
        .map(|(i, w)| (w.key.clone(), i))
        .collect();
    let e: Expanded = Arc::new((items, index));
    CACHE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(source_json.to_string(), e.clone());
    Ok(e)
}

fn expand_py(py: Python<'_>, source: &str) -> PyResult<Expanded> {
    py.detach(|| expand(source)).map_err(|e| match e {
        ExpandError::Input(i) => scenario_error(py, i),
        ExpandError::Other(m) => RunError::new_err(m),
    })
}

/// The source of a study's runs (JSON): `study_source("ong2020", True)`.
#[pyfunction]
fn study_source(py: Python<'_>, name: &str, quick: bool) -> PyResult<String> {
    let s = serde_json::to_string(&Source::Study {
        name: name.to_string(),
        quick,
    })
    .expect("serialises");
    expand_py(py, &s)?;
    Ok(s)
}

/// The source of a sweep plan's runs (JSON), the plan and its base scenario read now.
#[pyfunction]
#[pyo3(signature = (path, force=false))]
fn plan_source(py: Python<'_>, path: PathBuf, force: bool) -> PyResult<String> {
    let plan = read_plan_source(&path).map_err(|e| scenario_error(py, e))?;
    let s = serde_json::to_string(&Source::Plan { plan, force }).expect("serialises");
    expand_py(py, &s)?;
    Ok(s)
}

/// Every work item of a source: (key, label, seed), in the source's order.
#[pyfunction]
fn items(py: Python<'_>, source: &str) -> PyResult<Vec<(String, String, u64)>> {
    let e = expand_py(py, source)?;
    Ok(e.0
        .iter()
        .map(|w| (w.key.clone(), w.label.clone(), w.seed))
        .collect())
}

/// Runs the items of `source` named by `keys` on the simulator and returns their store
/// lines (what `Store.append` would write), in the order of `keys`. A key this build
/// does not know means the worker runs another build than the driver.
#[pyfunction]
fn run_batch(py: Python<'_>, source: &str, keys: Vec<String>) -> PyResult<Vec<String>> {
    let e = expand_py(py, source)?;
    py.detach(|| {
        keys.iter()
            .map(|k| {
                let Some(&i) = e.1.get(k) else {
                    return Err(format!(
                        "this worker's scavenger ({} commit {}) has no run keyed {k}: it is not the driver's build; install the same wheel on every node",
                        scavenger_lab::record::tool_info().version,
                        scavenger_lab::record::tool_info().git_commit
                    ));
                };
                let w = &e.0[i];
                let rec = Simulator
                    .run(&w.scenario, w.seed)
                    .map_err(|e| format!("run {} (seed {}): {e}", w.label, w.seed))?;
                Ok(store_line(&w.key, &w.label, w.seed, &rec))
            })
            .collect::<Result<Vec<_>, String>>()
    })
    .map_err(RunError::new_err)
}

/// Runs one scenario; returns the record as JSON (as `scavenger run --json` prints it).
/// `kind`: "path" (a TOML file), "toml" (TOML text) or "json" (a table as JSON).
#[pyfunction]
#[pyo3(signature = (scenario, kind, seed=None, force=false))]
fn run(
    py: Python<'_>,
    scenario: &str,
    kind: &str,
    seed: Option<u64>,
    force: bool,
) -> PyResult<String> {
    let (name, sc) = match kind {
        "path" => (
            scenario.to_string(),
            scavenger_lab::load(Path::new(scenario)),
        ),
        "toml" => (
            "<string>".to_string(),
            scavenger_lab::parse("<string>", scenario),
        ),
        "json" => {
            let dict_err = |m: String| {
                scenario_error(
                    py,
                    InputError {
                        file: "<dict>".into(),
                        field: String::new(),
                        message: m,
                    },
                )
            };
            let v: serde_json::Value = serde_json::from_str(scenario)
                .map_err(|e| dict_err(format!("not a table: {e}")))?;
            let t = match toml::Value::try_from(v) {
                Ok(toml::Value::Table(t)) => t,
                Ok(other) => {
                    return Err(dict_err(format!(
                        "expected a table, found {}",
                        other.type_str()
                    )))
                }
                Err(e) => {
                    return Err(dict_err(format!(
                        "not expressible as a TOML table ({e}); values are str, int, float, bool, lists and dicts, not None"
                    )))
                }
            };
            (
                "<dict>".to_string(),
                scavenger_lab::scenario::parse_table("<dict>", &t),
            )
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "kind \"{other}\": expected \"path\", \"toml\" or \"json\""
            )))
        }
    };
    let sc = sc.map_err(|e| scenario_error(py, e))?;
    if !force {
        sc.check_cost().map_err(|e| {
            RunError::new_err(format!("{name}: {e}; pass force=True to run it anyway"))
        })?;
    }
    let seed = seed.unwrap_or(sc.seed);
    let rec = py.detach(|| scavenger_lab::run_scenario(&sc, seed));
    Ok(rec.to_json())
}

/// Every algorithm with its parameters, as JSON rows (kind, algorithm, aliases, summary,
/// source, param, default, unit, range, doc, param_source).
#[pyfunction]
fn algorithms() -> String {
    let mut rows = Vec::new();
    let mut add = |kind: &str,
                   name: &str,
                   aliases: String,
                   summary: &str,
                   source: &str,
                   params: &[scavenger_cc::ParamSpec]| {
        let base = serde_json::json!({"kind": kind, "algorithm": name, "aliases": aliases,
            "summary": summary, "source": source});
        if params.is_empty() {
            rows.push(base);
            return;
        }
        for p in params {
            let mut r = base.clone();
            let range = match p.kind {
                scavenger_cc::ParamKind::Bool => String::new(),
                k => k.describe(),
            };
            r["param"] = p.name.into();
            r["default"] = p.default.to_string().into();
            r["unit"] = p.unit.into();
            r["range"] = range.into();
            r["doc"] = p.doc.into();
            r["param_source"] = p.source.into();
            rows.push(r);
        }
    };
    for a in scavenger_cc::algorithms() {
        add(
            "sender",
            a.name,
            a.aliases.join(", "),
            a.summary,
            a.source,
            a.params,
        );
    }
    for r in scavenger_cc::receiver_api::receiver_algorithms() {
        add(
            "receiver",
            r.name,
            String::new(),
            r.summary,
            r.source,
            r.params,
        );
    }
    for c in scavenger_cc::dalbe::CONTROLLERS {
        add("dalbe", c.name, String::new(), c.summary, "", c.params);
    }
    serde_json::Value::from(rows).to_string()
}

/// (version, git commit) of this build: part of every key.
#[pyfunction]
fn version() -> (&'static str, &'static str) {
    let t = scavenger_lab::record::tool_info();
    (t.version, t.git_commit)
}

/// Records in `dir/store.json` what the store holds (refusing another study's store
/// unless `force`), as the CLI does.
#[pyfunction]
fn describe_store(source: &str, dir: PathBuf, force: bool) -> PyResult<()> {
    let source: Source =
        serde_json::from_str(source).map_err(|e| RunError::new_err(e.to_string()))?;
    let meta = match source {
        Source::Study { name, quick } => StoreMeta {
            kind: "study".into(),
            name,
            quick,
            plan: None,
            datapath: "sim".into(),
        },
        Source::Plan { plan, .. } => {
            let p = parse_plan(&plan).map_err(|e| RunError::new_err(e.to_string()))?;
            let path = PathBuf::from(&plan.file);
            StoreMeta {
                kind: "sweep".into(),
                name: p.name,
                quick: false,
                plan: Some(std::fs::canonicalize(&path).unwrap_or(path)),
                datapath: "sim".into(),
            }
        }
    };
    write_meta(&dir, &meta, force).map_err(|e| StoreError::new_err(e.to_string()))
}

/// Writes the report of `source`'s runs in the store `dir`; returns its summary text.
#[pyfunction]
fn report(py: Python<'_>, source: &str, dir: PathBuf) -> PyResult<String> {
    let source: Source =
        serde_json::from_str(source).map_err(|e| RunError::new_err(e.to_string()))?;
    py.detach(|| match source {
        Source::Study { name, quick } => {
            let def = scavenger_lab::study::study(&name, quick)?;
            scavenger_lab::report::study_report(&def, &dir)
        }
        Source::Plan { plan, .. } => {
            let p = parse_plan(&plan)?;
            let labels: Vec<String> = p.combinations().into_iter().map(|c| c.0).collect();
            scavenger_lab::report::sweep_report(&p.name, &dir, &labels)
        }
    })
    .map(|r| r.summary)
    .map_err(|e| StoreError::new_err(e.to_string()))
}

/// The store in `dir` as a pyarrow RecordBatch, one row per run (scavenger_lab::table),
/// handed over through the Arrow C data interface.
#[pyfunction]
fn table<'py>(py: Python<'py>, dir: PathBuf) -> PyResult<Bound<'py, PyAny>> {
    let batch = py
        .detach(|| {
            scavenger_lab::table::Table::from_store(&dir)
                .map_err(scavenger_export::ExportError::from)
                .and_then(|t| scavenger_export::to_record_batch(&t))
        })
        .map_err(|e| StoreError::new_err(e.to_string()))?;
    pyo3_arrow::PyRecordBatch::new(batch).into_pyarrow(py)
}

/// The result store in `dir`, opened and locked by this process: the one writer.
#[pyclass(module = "scavenger._scavenger")]
struct ResultStore {
    inner: Mutex<Option<Store>>,
}

impl ResultStore {
    fn with<T>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, scavenger_lab::error::LabError>,
    ) -> PyResult<T> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        match g.as_mut() {
            Some(s) => f(s).map_err(|e| StoreError::new_err(e.to_string())),
            None => Err(StoreError::new_err("the store is closed")),
        }
    }
}

#[pymethods]
impl ResultStore {
    #[new]
    fn new(dir: PathBuf) -> PyResult<Self> {
        let s = Store::open(&dir).map_err(|e| StoreError::new_err(e.to_string()))?;
        Ok(ResultStore {
            inner: Mutex::new(Some(s)),
        })
    }
    /// What opening repaired (damaged lines moved aside), one message each.
    fn repairs(&self) -> PyResult<Vec<String>> {
        self.with(|s| Ok(s.repairs().to_vec()))
    }
    fn __contains__(&self, key: &str) -> PyResult<bool> {
        self.with(|s| Ok(s.contains(key)))
    }
    fn __len__(&self) -> PyResult<usize> {
        self.with(|s| Ok(s.len()))
    }
    /// Appends store lines [(key, line)] and syncs once.
    fn append_lines(&self, py: Python<'_>, lines: Vec<(String, String)>) -> PyResult<()> {
        let lines: Vec<(String, Vec<u8>)> = lines
            .into_iter()
            .map(|(k, l)| (k, l.into_bytes()))
            .collect();
        py.detach(|| self.with(|s| s.append_lines(&lines)))
    }
    /// Releases the lock.
    fn close(&self) {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

#[pymodule]
fn _scavenger(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add_class::<ResultStore>()?;
    m.add_function(wrap_pyfunction!(study_source, m)?)?;
    m.add_function(wrap_pyfunction!(plan_source, m)?)?;
    m.add_function(wrap_pyfunction!(items, m)?)?;
    m.add_function(wrap_pyfunction!(run_batch, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(describe_store, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(table, m)?)?;
    Ok(())
}
