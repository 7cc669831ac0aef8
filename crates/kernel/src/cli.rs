//! `scavenger kernel …`: list, load, unload, status, set, agent.

use crate::agent::{self, AgentConfig};
use crate::manage::{self, ALGS};
use clap::Subcommand;
use scavenger_cc::units::Dur;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[derive(Subcommand, Debug)]
pub enum KernelCmd {
    /// The kernel congestion controls this build carries, and whether each is registered.
    List,
    /// Register one (e.g. `scv_ledbat` or `ledbat`) with optional NAME=VALUE parameters;
    /// it stays registered after this command exits (maps pinned under /sys/fs/bpf/scavenger).
    Load {
        /// The kernel algorithm (`scv_ledbat`) or its crates/cc name (`ledbat`); see `list`.
        alg: String,
        /// Parameters as NAME=VALUE (same names, units and ranges as `scavenger algorithms`).
        params: Vec<String>,
    },
    /// Unregister one and remove its pins (`all` for every registration of ours). A
    /// registration held by a running process (a test, a testbed run) is refused.
    Unload {
        /// The kernel algorithm, or `all` for every registration of ours.
        alg: String,
        /// Also unregister registrations that a running process holds.
        #[arg(long)]
        force: bool,
    },
    /// What is registered, where it is pinned, its parameters, overrides and counters.
    Status,
    /// Change a parameter live: every socket (default) or one socket by its cookie
    /// (SO_COOKIE; `ss -te` prints it as `sk:<hex>`).
    Set {
        /// The registered kernel algorithm whose parameter changes.
        alg: String,
        /// NAME=VALUE
        assignment: String,
        /// Apply to this socket only (decimal or 0x hex cookie).
        #[arg(long)]
        cookie: Option<String>,
        /// Remove this socket's override instead of setting a value (give NAME=any).
        #[arg(long)]
        clear: bool,
    },
    /// Run a crates/cc algorithm in userspace for every socket using `scv_shim`
    /// (load it first: `scavenger kernel load scv_shim`). Stops on Ctrl-C.
    Agent {
        /// Algorithm name as in `scavenger algorithms` (ledbat, yield, cdg, vegas, ...).
        alg: String,
        /// NAME=VALUE parameters of that algorithm.
        params: Vec<String>,
        /// Stop after this long, with a unit (e.g. 30s, 5min).
        #[arg(long, value_name = "DURATION", value_parser = parse_duration_arg)]
        duration: Option<Dur>,
        /// Heartbeat age after which the shim falls back to Reno, with a unit (at least
        /// 2·srtt is used). Was `--stale-ms N`.
        #[arg(long, value_name = "DURATION", default_value = "200ms", value_parser = parse_duration_arg, alias = "stale-ms")]
        stale: Dur,
        /// Records wake the agent at most this often, with a unit, 1us to 1s (the agent's
        /// reaction delay at high ACK rates against the CPU cost of wake-ups); slower paths
        /// wake it per ACK. Was `--wake-us N`.
        #[arg(long, value_name = "DURATION", default_value = "100us", value_parser = parse_duration_arg, alias = "wake-us")]
        wake: Dur,
        /// Wrap the algorithm in DA-LBE under this metacontroller (deadline, working-hours,
        /// cubic-mbc, vegas-mbc, linear-phantom), one controller per socket.
        #[arg(long)]
        dalbe: Option<String>,
        /// A metacontroller parameter NAME=VALUE (repeatable).
        #[arg(long = "dalbe-param")]
        dalbe_params: Vec<String>,
        /// Bytes each socket will send (for deadline controllers).
        #[arg(long)]
        size: Option<u64>,
        /// Soft deadline after each socket's start, e.g. 30s (for deadline controllers).
        #[arg(long)]
        deadline: Option<String>,
        /// Write one CSV per socket into this directory: each shim record, the sample
        /// built from it and the algorithm's window after it (docs/kernel.md#agent-trace).
        /// SCAVENGER_AGENT_TRACE=DIR does the same for agents inside other commands.
        #[arg(long, value_name = "DIR")]
        trace: Option<std::path::PathBuf>,
    },
    /// Give one socket its own DA-LBE goal (for an agent running with --dalbe): register
    /// it by the socket's cookie (SO_COOKIE) before the socket selects scv_shim.
    Goal {
        /// The socket's cookie (decimal or 0x hex).
        #[arg(long)]
        cookie: String,
        /// Bytes the socket will send.
        #[arg(long)]
        size: Option<u64>,
        /// Soft deadline after the socket's start, e.g. 30s.
        #[arg(long)]
        deadline: Option<String>,
        /// Forget this socket's goal.
        #[arg(long)]
        clear: bool,
    },
}

/// What is wrong with a `scavenger kernel` command line, or what failed running it.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("parameter `{0}` is not NAME=VALUE")]
    NotAssignment(String),
    #[error("--cookie {0:?} is not a number (decimal or 0x hex)")]
    BadCookie(String),
    #[error("--deadline {text:?}: {why}")]
    BadDeadline {
        text: String,
        #[source]
        why: scavenger_cc::units::UnitError,
    },
    #[error("give --size BYTES and/or --deadline DURATION (or --clear)")]
    NoGoal,
    #[error("--clear needs --cookie")]
    ClearNeedsCookie,
    #[error("--wake {0}: must be 1us to 1s")]
    BadWake(Dur),
    #[error("--dalbe-param, --size and --deadline need --dalbe CONTROLLER")]
    DalbeFlagsWithoutDalbe,
    /// `unload all`: the registrations that were refused, one per line.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Refused(Vec<manage::ManageError>),
    #[error(transparent)]
    Manage(#[from] manage::ManageError),
    #[error(transparent)]
    Agent(#[from] agent::AgentError),
}

fn split_assignments(v: &[String]) -> Result<Vec<(String, String)>, CliError> {
    v.iter()
        .map(|a| match a.split_once('=') {
            Some((n, x)) if !n.is_empty() => Ok((n.trim().to_string(), x.trim().to_string())),
            _ => Err(CliError::NotAssignment(a.clone())),
        })
        .collect()
}

/// A duration flag's value: a number with a unit. A bare number is refused (clap's
/// message names the flag; ours the allowed units), since "200" could be ms or s.
/// (A clap value parser; the message is crates/cc's `UnitError`.)
pub fn parse_duration_arg(s: &str) -> Result<Dur, scavenger_cc::units::UnitError> {
    scavenger_cc::units::parse_duration(s)
}

/// `--deadline DURATION`, if given.
fn parse_deadline(d: Option<&str>) -> Result<Option<scavenger_cc::units::Dur>, CliError> {
    d.map(|d| {
        scavenger_cc::units::parse_duration(d).map_err(|why| CliError::BadDeadline {
            text: d.to_string(),
            why,
        })
    })
    .transpose()
}

fn parse_cookie(s: &str) -> Result<u64, CliError> {
    let r = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|_| CliError::BadCookie(s.to_string()))
}

/// The agent's heartbeat age, from the shim's pinned heartbeat map.
fn agent_heartbeat() -> String {
    let Ok(shim) = manage::find("scv_shim") else {
        return "unknown".into();
    };
    let Ok(fd) = shim.open_pinned("hb") else {
        return "unknown (no pin)".into();
    };
    let mut v = [0u8; 8];
    if crate::sys::map_lookup(&fd, &0u32.to_ne_bytes(), &mut v).is_err() {
        return "unknown (cannot read the heartbeat)".into();
    }
    let hb = u64::from_ne_bytes(v);
    if hb == 0 {
        return "none running (sockets use the Reno fallback)".into();
    }
    let now = crate::sys::monotonic_ns();
    format!(
        "heartbeat {:.1} ms ago",
        now.saturating_sub(hb) as f64 / 1e6
    )
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

fn catch_sigint() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_sigint as *const () as libc::sighandler_t);
    }
}

pub fn run(cmd: KernelCmd) -> ExitCode {
    match run_inner(cmd) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn run_inner(cmd: KernelCmd) -> Result<(), CliError> {
    match cmd {
        KernelCmd::List => {
            if let Err(e) = crate::objects::built() {
                println!("note: {e}");
            }
            for a in ALGS {
                let state = if manage::is_registered(a.name) {
                    "registered"
                } else {
                    "-"
                };
                println!("{:<14} {:<11} {}", a.name, state, a.summary);
            }
            Ok(())
        }
        KernelCmd::Load { alg, params } => {
            let a = manage::find(&alg)?;
            let dir = manage::load(a, &split_assignments(&params)?)?;
            println!("registered {} (maps pinned in {}); sockets select it with setsockopt(TCP_CONGESTION, \"{}\")", a.name, dir.display(), a.name);
            Ok(())
        }
        KernelCmd::Unload { alg, force } => {
            let force = if force {
                manage::Force::Yes
            } else {
                manage::Force::No
            };
            let targets: Vec<manage::Target> = if alg == "all" {
                manage::discover().into_iter().map(|f| f.target).collect()
            } else {
                vec![manage::Target::by_name(&alg)?]
            };
            let mut refused = Vec::new();
            for t in targets {
                let u = match manage::unload_target(&t, force) {
                    Ok(u) => u,
                    Err(e) if alg == "all" => {
                        refused.push(e);
                        continue;
                    }
                    Err(e) => return Err(e.into()),
                };
                if u.was_registered {
                    println!(
                        "unregistered {}{}",
                        t.name,
                        if u.via_pin {
                            ""
                        } else {
                            " (found by name: its pins were missing)"
                        }
                    );
                } else if alg != "all" {
                    println!("{} was not registered; pins (if any) removed", t.name);
                } else {
                    println!("removed stale pins of {}", t.name);
                }
            }
            if refused.is_empty() {
                Ok(())
            } else {
                Err(CliError::Refused(refused))
            }
        }
        KernelCmd::Status => {
            if let Err(e) = crate::objects::built() {
                println!("note: {e}");
            }
            for s in manage::status() {
                let name = &s.target.name;
                if !s.registered && s.pinned.is_none() {
                    println!("{name:<14} not loaded");
                    continue;
                }
                let pin = s
                    .pinned
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "no pins (registered outside scavenger?)".into());
                println!(
                    "{name:<14} {} at {}{}",
                    if s.registered {
                        "registered"
                    } else {
                        "NOT registered (stale pins)"
                    },
                    pin,
                    s.owner
                        .map(|o| format!(" ({})", o.describe()))
                        .unwrap_or_default()
                );
                if !s.params.is_empty() {
                    let p: Vec<String> = s.params.iter().map(|(n, v)| format!("{n}={v}")).collect();
                    println!("  params: {}", p.join(" "));
                }
                if !s.overrides.is_empty() {
                    println!("  per-socket overrides (cookies): {:?}", s.overrides);
                }
                if let Some(st) = s.stats {
                    println!(
                        "  sockets {} acks {} last_cwnd {} last_qdelay {:.3} ms ssthresh_calls {} owd_samples {} rtt_samples {} override_acks {}",
                        st.sockets,
                        st.acks,
                        st.last_cwnd,
                        st.last_queuing_delay_ns as f64 / 1e6,
                        st.ssthresh_calls,
                        st.owd_samples,
                        st.rtt_samples,
                        st.override_acks
                    );
                    if s.target.alg.name == "scv_shim" {
                        println!("  agent: {}", agent_heartbeat());
                        println!(
                            "  agent_applied {} reno_fallback {} ring_drops {}",
                            st.agent_applied, st.fallback_acks, st.ring_drops
                        );
                    }
                }
            }
            Ok(())
        }
        KernelCmd::Goal {
            cookie,
            size,
            deadline,
            clear,
        } => {
            let c = parse_cookie(&cookie)?;
            if clear {
                crate::agent::clear_goal(c)?;
                println!("socket {c}: goal removed");
                return Ok(());
            }
            if size.is_none() && deadline.is_none() {
                return Err(CliError::NoGoal);
            }
            let deadline = parse_deadline(deadline.as_deref())?;
            crate::agent::set_goal(c, scavenger_cc::dalbe::FlowGoal { size, deadline })?;
            let show = |x: Option<String>| x.unwrap_or_else(|| "none".into());
            println!(
                "socket {c}: DA-LBE goal: size {}, deadline {} after its start (read by the agent when the socket selects scv_shim)",
                show(size.map(|b| format!("{b} bytes"))),
                show(deadline.map(|d| format!("{:.3} s", d.secs_f64())))
            );
            Ok(())
        }
        KernelCmd::Set {
            alg,
            assignment,
            cookie,
            clear,
        } => {
            let a = manage::Target::by_name(&alg)?;
            let (name, value) = split_assignments(std::slice::from_ref(&assignment))?.remove(0);
            let cookie = cookie.as_deref().map(parse_cookie).transpose()?;
            if clear {
                let c = cookie.ok_or(CliError::ClearNeedsCookie)?;
                manage::clear_override(&a, c)?;
                println!("{}: socket {c} follows the global parameters again", a.name);
                return Ok(());
            }
            let v = manage::set_param(&a, &name, &value, cookie)?;
            let shown = a.alg.layout.map(|l| l.describe(&v)).unwrap_or_default();
            let now = shown
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            match cookie {
                None => println!(
                    "{}: {name} = {now} for every socket (from its next ACK)",
                    a.name
                ),
                Some(c) => println!("{}: {name} = {now} for socket {c}", a.name),
            }
            Ok(())
        }
        KernelCmd::Agent {
            alg,
            params,
            duration,
            stale,
            wake,
            dalbe,
            dalbe_params,
            size,
            deadline,
            trace,
        } => {
            let mut cfg = AgentConfig::new(&alg);
            cfg.trace = trace;
            cfg.params = split_assignments(&params)?;
            cfg.stale = stale;
            if wake < Dur::from_micros(1) || wake > Dur::from_secs(1) {
                return Err(CliError::BadWake(wake));
            }
            cfg.wake = wake;
            if let Some(controller) = dalbe {
                let deadline = parse_deadline(deadline.as_deref())?;
                cfg.dalbe = Some(crate::agent::DalbeConfig {
                    controller,
                    params: split_assignments(&dalbe_params)?,
                    size,
                    deadline,
                });
            } else if !dalbe_params.is_empty() || size.is_some() || deadline.is_some() {
                return Err(CliError::DalbeFlagsWithoutDalbe);
            }
            cfg.resolve()?;
            catch_sigint();
            eprintln!(
                "agent running {} for sockets using scv_shim; Ctrl-C to stop",
                cfg.algorithm
            );
            let st = agent::run(
                &cfg,
                &INTERRUPTED,
                duration.map(|d| Duration::from_nanos(d.nanos())),
                Default::default(),
            )?;
            println!(
                "agent stopped: {} ACKs, {} sockets opened, {} closed, {} commands, {} RTOs; CPU {:.0} ns per ACK ({:.1} % of one core)",
                st.acks,
                st.opens,
                st.closes,
                st.commands,
                st.rtos,
                st.cpu_ns_per_ack(),
                100.0 * st.cpu_ns as f64 / st.wall_ns.max(1) as f64
            );
            if st.trace_errors > 0 {
                eprintln!(
                    "agent: {} socket traces could not be written (those sockets ran untraced)",
                    st.trace_errors
                );
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_and_cookies_parse_or_say_why_not() {
        let a = split_assignments(&["target=25ms".into(), " gain = 0.5".into()]).unwrap();
        assert_eq!(
            a,
            vec![
                ("target".into(), "25ms".into()),
                ("gain".into(), "0.5".into())
            ]
        );
        let e = split_assignments(&["target".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`target` is not NAME=VALUE"), "{e}");
        assert!(split_assignments(&["=3".into()]).is_err());
        assert_eq!(parse_cookie("42").unwrap(), 42);
        assert_eq!(parse_cookie("0x2a").unwrap(), 42);
        let e = parse_cookie("cookie").unwrap_err().to_string();
        assert!(e.contains("--cookie") && e.contains("cookie"), "{e}");
        assert_eq!(
            CliError::BadWake(Dur::from_secs(2)).to_string(),
            format!("--wake {}: must be 1us to 1s", Dur::from_secs(2))
        );
        // `unload all` lists every refusal, one per line.
        let refused = CliError::Refused(vec![
            manage::ManageError::UnloadNeedsRoot,
            manage::ManageError::UnloadNeedsRoot,
        ]);
        assert_eq!(
            refused.to_string(),
            "unregistering needs root\nunregistering needs root"
        );
    }

    #[test]
    fn algorithms_are_found_by_kernel_or_crates_cc_name() {
        assert_eq!(manage::find("scv_ledbat").unwrap().name, "scv_ledbat");
        assert_eq!(manage::find("ledbat").unwrap().name, "scv_ledbat");
        assert_eq!(
            manage::find("ledbat-plus-plus").unwrap().name,
            "scv_ledbatpp"
        );
        assert_eq!(manage::find("SHIM").unwrap().name, "scv_shim");
        let e = manage::find("cubic").err().unwrap().to_string();
        assert!(
            e.contains("unknown kernel algorithm `cubic`") && e.contains("scv_yield"),
            "{e}"
        );
    }
}
