//! Progress of one long run: simulated time done and an estimate of the time left. On a
//! terminal a line rewritten in place once a second; elsewhere (a CI log, nohup) a log line
//! every `exec::LOG_EVERY`. Nothing is printed for runs shorter than `QUIET_FOR`.

use crate::record::RunRecord;
use crate::scenario::Scenario;
use std::io::Write;
use std::time::{Duration, Instant};

/// Runs shorter than this in wall time print no progress.
pub const QUIET_FOR: Duration = Duration::from_secs(3);

/// "1h02m", "3m05s", "12s".
pub fn hms(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// "simulated 120.0 s of 600 s (20.0 %), 30s elapsed, ETA 2m00s".
pub fn progress_line(sim_s: f64, total_s: f64, elapsed: Duration) -> String {
    let frac = if total_s > 0.0 {
        (sim_s / total_s).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let eta = if frac > 0.0 {
        format!(", ETA {}", hms(elapsed.as_secs_f64() * (1.0 - frac) / frac))
    } else {
        String::new()
    };
    format!(
        "simulated {sim_s:.1} s of {total_s:.0} s ({:.1} %), {} elapsed{eta}",
        100.0 * frac,
        hms(elapsed.as_secs_f64())
    )
}

/// `record::run_scenario` with progress on stderr (`terminal`: rewrite one line, else log
/// lines). The record is the same as `run_scenario`'s.
pub fn run_with_progress(scenario: &Scenario, seed: u64, terminal: bool) -> RunRecord {
    run_tapped_with_progress(scenario, seed, terminal, None)
}

/// `run_with_progress` with a tap that sees every packet at the hosts (`--pcap`). The
/// record is the same as without.
pub fn run_tapped_with_progress(
    scenario: &Scenario,
    seed: u64,
    terminal: bool,
    tap: Option<Box<dyn scavenger_sim::tap::Tap>>,
) -> RunRecord {
    let t0 = Instant::now();
    let total_s = scenario.duration.secs_f64();
    let every = if terminal {
        Duration::from_secs(1)
    } else {
        crate::exec::LOG_EVERY
    };
    let mut last: Option<Instant> = None;
    let mut shown = false;
    let mut sim = scavenger_sim::Simulation::new(scenario.to_sim(seed));
    if let Some(tap) = tap {
        sim.set_tap(tap);
    }
    let metrics = sim.run_observed(&mut |now| {
        let elapsed = t0.elapsed();
        if elapsed < QUIET_FOR || last.is_some_and(|l| l.elapsed() < every) {
            return;
        }
        last = Some(Instant::now());
        let line = progress_line(now.secs_f64(), total_s, elapsed);
        if terminal {
            eprint!("\r{line}\x1b[K");
            let _ = std::io::stderr().flush();
        } else {
            eprintln!("{line}");
        }
        shown = true;
    });
    if shown && terminal {
        eprintln!();
    }
    RunRecord::simulated(scenario, seed, metrics, t0.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_give_simulated_time_and_eta() {
        assert_eq!(
            progress_line(150.0, 600.0, Duration::from_secs(30)),
            "simulated 150.0 s of 600 s (25.0 %), 30s elapsed, ETA 1m30s"
        );
        assert_eq!(hms(3725.0), "1h02m");
        assert_eq!(
            progress_line(0.0, 600.0, Duration::from_secs(4)),
            "simulated 0.0 s of 600 s (0.0 %), 4s elapsed"
        );
    }
}
