//! Sweep plans, the result store and the executor: expansion counts, resume after an
//! interruption without losing or repeating work, torn lines, reports.

use scavenger_cc::algorithms::cubic::CubicConfig;
use scavenger_lab::exec::{clear_stop, request_stop, run_into_store, Executor, LocalExecutor};
use scavenger_lab::plan::{assign, load_plan};
use scavenger_lab::store::Store;
use std::path::{Path, PathBuf};

const BASE: &str = r#"
name = "base"
duration = "3s"
[link]
rate = "10Mbit"
delay = "10ms"
buffer = "1BDP"
[[flow]]
name = "a"
algorithm = "newreno"
[[flow]]
name = "b"
algorithm = "cubic"
"#;

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("scavenger-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write_plan(dir: &Path, body: &str) -> PathBuf {
    std::fs::write(dir.join("base.toml"), BASE).unwrap();
    let p = dir.join("plan.toml");
    std::fs::write(
        &p,
        format!("name = \"t\"\nscenario = \"base.toml\"\n{body}"),
    )
    .unwrap();
    p
}

#[test]
fn cross_products_zips_ranges_and_seeds_expand_as_written() {
    let dir = tmpdir("plan");
    let p = write_plan(
        &dir,
        r#"repetitions = 2
[[vary]]
set = "link.buffer"
values = ["0.5BDP", "1BDP", "2BDP"]
[[vary]]
zip = [{ set = "link.rate", values = ["8Mbit", "24Mbit"] }, { set = "link.delay", values = ["25ms", "50ms"] }]
[[vary]]
set = "flow.b.params.beta"
range = { from = 0.5, to = 0.7, step = 0.1 }
"#,
    );
    let plan = load_plan(&p).unwrap();
    assert_eq!(plan.seeds, vec![1, 2]);
    let combos = plan.combinations();
    // 3 buffers × 2 zipped (rate, delay) pairs × 3 betas.
    assert_eq!(combos.len(), 18);
    assert_eq!(
        combos[0].0,
        "link.buffer=0.5BDP,link.rate=8Mbit,link.delay=25ms,flow.b.params.beta=0.5"
    );
    let items = plan.expand().unwrap();
    assert_eq!(items.len(), 36);
    let it = items
        .iter()
        .find(|w| {
            w.label.contains("24Mbit") && w.label.contains("beta=0.7") && w.label.contains("=2BDP")
        })
        .unwrap();
    assert_eq!(it.scenario.link.rate.bps(), 24_000_000);
    assert_eq!(it.scenario.link.delay, scavenger_cc::Dur::from_millis(50));
    let cubic = CubicConfig::try_from(&it.scenario.flows[1].params).unwrap();
    assert_eq!(cubic.beta, 0.7);
    let keys: std::collections::HashSet<_> = items.iter().map(|w| &w.key).collect();
    assert_eq!(keys.len(), 36, "every (scenario, seed) has its own key");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plan_errors_name_the_setting() {
    let dir = tmpdir("plan-err");
    let p = write_plan(
        &dir,
        "[[vary]]\nset = \"flow.zz.algorithm\"\nvalues = [\"cubic\"]\n",
    );
    let e = load_plan(&p).unwrap().expand().unwrap_err().to_string();
    assert!(e.contains("flow.zz.algorithm") && e.contains("zz"), "{e}");
    let p = write_plan(
        &dir,
        "[[vary]]\nset = \"link.rate\"\nvalues = [\"0Mbit\"]\n",
    );
    let e = load_plan(&p).unwrap().expand().unwrap_err().to_string();
    assert!(
        e.contains("link.rate") && e.contains("greater than zero"),
        "{e}"
    );
    let p = write_plan(&dir, "[[vary]]\nzip = [{ set = \"link.rate\", values = [\"8Mbit\"] }, { set = \"link.delay\", values = [\"1ms\", \"2ms\"] }]\n");
    let e = load_plan(&p).err().unwrap().to_string();
    assert!(e.contains("equal lengths"), "{e}");
    let p = write_plan(&dir, "seeds = [1]\nrepetitions = 2\n");
    assert!(load_plan(&p)
        .err()
        .unwrap()
        .to_string()
        .contains("not both"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn assign_reaches_into_lists_by_name_or_index() {
    let mut t: toml::Table = BASE.parse().unwrap();
    assign(
        &mut t,
        "flow.1.algorithm",
        toml::Value::String("vegas".into()),
    )
    .unwrap();
    assign(&mut t, "flow.a.params.x", toml::Value::Integer(3)).unwrap();
    assert_eq!(t["flow"][1]["algorithm"].as_str(), Some("vegas"));
    assert_eq!(t["flow"][0]["params"]["x"].as_integer(), Some(3));
    assert!(assign(&mut t, "flow.7.algorithm", toml::Value::Integer(1))
        .unwrap_err()
        .to_string()
        .contains("no index 7"));
}

/// Stops the executor after `n` results have been stored.
struct StopAfter(usize);
impl StopAfter {
    fn run(
        &self,
        store: &mut Store,
        items: Vec<scavenger_lab::work::WorkItem>,
    ) -> Result<(usize, usize), scavenger_lab::exec::Interrupted> {
        let exec = LocalExecutor {
            threads: 1,
            progress: false,
            ..LocalExecutor::new(false)
        };
        let mut seen = 0;
        let n = self.0;
        let todo: Vec<_> = items
            .into_iter()
            .filter(|w| !store.contains(&w.key))
            .collect();
        let r = exec
            .execute(todo, &mut |w, rec| {
                store.append(&w.key, &w.label, w.seed, &rec)?;
                seen += 1;
                if seen == n {
                    request_stop();
                }
                Ok(())
            })
            .unwrap();
        clear_stop();
        r.map(|_| (seen, 0))
    }
}

#[test]
fn an_interrupted_sweep_resumes_without_losing_or_repeating_work() {
    let dir = tmpdir("resume");
    let p = write_plan(
        &dir,
        "repetitions = 3\n[[vary]]\nset = \"link.buffer\"\nvalues = [\"0.5BDP\", \"1BDP\"]\n",
    );
    let items = load_plan(&p).unwrap().expand().unwrap();
    assert_eq!(items.len(), 6);
    let store_dir = dir.join("store");
    let first = {
        let mut store = Store::open(&store_dir).unwrap();
        let r = StopAfter(2).run(&mut store, items.clone());
        let i = r.unwrap_err();
        // The item a worker had already started when the stop came finishes and is kept.
        assert!((2..=3).contains(&i.completed), "{i:?}");
        assert_eq!(store.len(), i.completed);
        i.completed
    };
    // A crash mid-write leaves a torn last line: it is ignored and that item reruns.
    let f = store_dir.join("results.jsonl");
    let mut text = std::fs::read_to_string(&f).unwrap();
    text.push_str("{\"key\":\"torn");
    std::fs::write(&f, text).unwrap();
    let mut store = Store::open(&store_dir).unwrap();
    assert_eq!(store.len(), first);
    let exec = LocalExecutor {
        threads: 2,
        progress: false,
        ..LocalExecutor::new(false)
    };
    let (ran, skipped) = run_into_store(&exec, &mut store, items.clone(), false)
        .unwrap()
        .unwrap();
    assert_eq!((ran, skipped), (6 - first, first));
    // Everything once, nothing twice; a second run does nothing.
    let stored = Store::read(&store_dir).unwrap();
    let mut keys: Vec<_> = stored.iter().map(|s| s.key.clone()).collect();
    keys.sort();
    let mut want: Vec<_> = items.iter().map(|w| w.key.clone()).collect();
    want.sort();
    assert_eq!(keys, want);
    let (ran, skipped) = run_into_store(&exec, &mut store, items.clone(), false)
        .unwrap()
        .unwrap();
    assert_eq!((ran, skipped), (0, 6));
    // --force reruns everything; the store keeps the newest line per key.
    let (ran, _) = run_into_store(&exec, &mut store, items, true)
        .unwrap()
        .unwrap();
    assert_eq!(ran, 6);
    assert_eq!(Store::read(&store_dir).unwrap().len(), 6);
    std::fs::remove_dir_all(&dir).unwrap();
}
