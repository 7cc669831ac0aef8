//! Executors run work items. The unit of work is one idempotent `WorkItem`; an executor
//! may run items in any order and in parallel, and a distributed engine can implement the
//! same trait later.

use crate::record::RunRecord;
use crate::work::WorkItem;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::OnceLock;

/// Set by Ctrl-C: executors stop handing out new items; items already running finish
/// and are stored, so nothing is lost and nothing is repeated on resume.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static HANDLER: OnceLock<bool> = OnceLock::new();

/// Installs the Ctrl-C handler once per process (false if the platform refused it).
pub fn install_interrupt_handler() -> bool {
    *HANDLER
        .get_or_init(|| ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst)).is_ok())
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// For tests and embedders: request a stop as Ctrl-C would.
pub fn request_stop() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}
pub fn clear_stop() {
    INTERRUPTED.store(false, Ordering::SeqCst);
}

#[derive(Debug, PartialEq, Eq)]
pub struct Interrupted {
    pub completed: usize,
    pub remaining: usize,
}

pub trait Executor {
    /// Runs `items`, calling `done` on the calling thread as each finishes.
    fn execute(
        &self,
        items: Vec<WorkItem>,
        done: &mut dyn FnMut(&WorkItem, RunRecord) -> Result<(), String>,
    ) -> Result<Result<(), Interrupted>, String>;
}

/// Runs items on this machine's cores, on one datapath (the simulator unless set).
pub struct LocalExecutor {
    pub threads: usize,
    pub progress: bool,
    pub datapath: std::sync::Arc<dyn crate::datapath::Datapath>,
}

impl LocalExecutor {
    pub fn new(progress: bool) -> LocalExecutor {
        LocalExecutor {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            progress,
            datapath: std::sync::Arc::new(crate::datapath::Simulator),
        }
    }
}

impl Executor for LocalExecutor {
    fn execute(
        &self,
        items: Vec<WorkItem>,
        done: &mut dyn FnMut(&WorkItem, RunRecord) -> Result<(), String>,
    ) -> Result<Result<(), Interrupted>, String> {
        let total = items.len();
        let next = AtomicUsize::new(0);
        let bar = if self.progress {
            let b = indicatif::ProgressBar::new(total as u64);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} runs  {per_sec}  ETA {eta}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            b
        } else {
            indicatif::ProgressBar::hidden()
        };
        let mut completed = 0;
        let mut error = None;
        std::thread::scope(|s| {
            // A rendezvous channel: a worker hands over its result before it takes the
            // next item, so results never pile up in memory and a stop requested while
            // storing one result lets at most one more item per worker finish.
            let (tx, rx) = mpsc::sync_channel::<(usize, Result<RunRecord, String>)>(0);
            let datapath = &*self.datapath;
            let threads = self.threads.min(datapath.max_parallel()).max(1);
            for _ in 0..threads.min(total.max(1)) {
                let tx = tx.clone();
                let (items, next) = (&items, &next);
                s.spawn(move || loop {
                    if interrupted() {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(i) else { return };
                    let rec = item.run_on(datapath).map_err(|e| e.to_string());
                    if tx.send((i, rec)).is_err() {
                        return;
                    }
                });
            }
            drop(tx);
            for (i, rec) in rx {
                if error.is_none() {
                    if let Err(e) = rec.and_then(|rec| done(&items[i], rec)) {
                        // Stop handing out work; what runs now finishes but is not stored.
                        error = Some(e);
                        next.store(total, Ordering::SeqCst);
                    }
                }
                completed += 1;
                bar.inc(1);
            }
        });
        bar.finish_and_clear();
        if let Some(e) = error {
            return Err(e);
        }
        Ok(if completed < total {
            Err(Interrupted {
                completed,
                remaining: total - completed,
            })
        } else {
            Ok(())
        })
    }
}

/// Runs `items` into `store`, skipping those already there unless `force`.
/// Returns (ran, skipped) or the interruption.
pub fn run_into_store(
    exec: &dyn Executor,
    store: &mut crate::store::Store,
    items: Vec<WorkItem>,
    force: bool,
) -> Result<Result<(usize, usize), Interrupted>, String> {
    let before = items.len();
    let todo: Vec<WorkItem> = items
        .into_iter()
        .filter(|w| force || !store.contains(&w.key))
        .collect();
    let skipped = before - todo.len();
    let n = todo.len();
    let r = exec.execute(todo, &mut |w, rec| {
        store.append(&w.key, &w.label, w.seed, &rec)
    })?;
    Ok(r.map(|_| (n, skipped)))
}
