//! Every study's quick mode runs (at reduced duration) and its report renders with a row
//! of ours for every published number of the experiments it ran.

use scavenger_lab::exec::{run_into_store, LocalExecutor};
use scavenger_lab::report::study_report;
use scavenger_lab::store::Store;
use scavenger_lab::study::{study, STUDIES};

#[test]
fn quick_studies_run_and_report() {
    for (name, _) in STUDIES {
        let mut def = study(name, true).unwrap();
        // One seed keeps the test fast; the full quick mode is the CLI's.
        def.seeds.truncate(1);
        assert!(!def.experiments.is_empty());
        let dir =
            std::env::temp_dir().join(format!("scavenger-study-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut store = Store::open(&dir).unwrap();
        let exec = LocalExecutor {
            threads: 2,
            progress: false,
            ..LocalExecutor::new(false)
        };
        let (ran, _) = run_into_store(&exec, &mut store, def.work_items(), false)
            .unwrap()
            .unwrap();
        assert_eq!(ran, def.experiments.len() * def.seeds.len());
        let r = study_report(&def, &dir).unwrap();
        let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(html.starts_with("<!doctype html>") && html.trim_end().ends_with("</html>"));
        assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
        assert!(
            html.matches("<svg").count() >= def.plots.len(),
            "{name}: one plot per plot kind expected at least"
        );
        // Every published number whose experiment ran has our value beside it.
        let ran_ids: std::collections::HashSet<&str> =
            def.experiments.iter().map(|e| e.id.as_str()).collect();
        let csv = std::fs::read_to_string(dir.join("published-vs-ours.csv")).unwrap();
        for p in def.published.iter().filter(|p| {
            ran_ids.contains(p.experiment.as_str())
                && p.relative_to
                    .as_ref()
                    .is_none_or(|r| ran_ids.contains(r.as_str()))
        }) {
            let row = csv
                .lines()
                .find(|l| l.contains(&format!(",{},", p.experiment)) && l.starts_with(p.source))
                .unwrap_or_else(|| panic!("no row for {}", p.experiment));
            let ours = row.split(',').nth(5).unwrap();
            assert!(
                ours.parse::<f64>().is_ok(),
                "{name}: no value of ours for {} ({row})",
                p.experiment
            );
        }
        assert!(r.summary.contains("claims:"));
        if *name == "ong2020" {
            // The background can use at most the capacity the foreground leaves (IP bytes).
            let results =
                scavenger_lab::study::Results::from_stored(&Store::read(&dir).unwrap(), |_| true);
            let mut checked = 0;
            for e in def.experiments.iter().filter(|e| e.id.starts_with("dl/")) {
                if let Some(x) = results.median(&e.id, scavenger_lab::study::Metric::BgSpareShare) {
                    assert!(x > 0.0 && x <= 1.02, "{}: spare share {x}", e.id);
                    checked += 1;
                }
            }
            assert!(checked > 0);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
