//! Network namespaces with guaranteed cleanup. Every namespace this process creates is
//! registered before it exists, so the guard's `Drop` (normal exit, error, panic) and
//! the SIGINT/SIGTERM path both find it. Names are `scvtb-<pid>-<n>-<role>`: unique per
//! process and per testbed, and a namespace left by a killed process (SIGKILL cannot be
//! caught) is recognised as stale because its pid is gone.

use crate::error::TestbedError;
use crate::sys;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

/// Every testbed namespace starts with this.
pub const PREFIX: &str = "scvtb-";

static COUNTER: AtomicU32 = AtomicU32::new(0);
static STOP: AtomicBool = AtomicBool::new(false);

/// A fresh testbed id, `scvtb-<pid>-<n>`.
pub fn unique_id() -> String {
    format!(
        "{PREFIX}{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    )
}

extern "C" fn on_signal(_: libc::c_int) {
    // Only an atomic store: async-signal-safe. The run loop sees it and unwinds through
    // the guards, which kill threads first and delete namespaces last.
    STOP.store(true, Ordering::SeqCst);
}

/// Routes SIGINT, SIGTERM and SIGHUP to a stop request (once per process).
pub fn install_signal_handlers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: nix's signal() is unsafe as well (a handler runs in signal context),
            // so libc directly; the handler only stores to an atomic, which is
            // async-signal-safe.
            unsafe {
                libc::signal(
                    sig,
                    on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
                )
            };
        }
    });
}

pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}
/// For tests: ask running testbeds to stop as a signal would.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}
pub fn clear_stop() {
    STOP.store(false, Ordering::SeqCst);
}

/// Runs `ip` with `args`; the error names the command and its stderr.
pub fn ip(args: &[&str]) -> Result<(), TestbedError> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(no_ip)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(TestbedError::Command {
            command: format!("ip {}", args.join(" ")),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

fn no_ip(source: std::io::Error) -> TestbedError {
    TestbedError::Spawn {
        program: "ip",
        install: "install iproute2",
        source,
    }
}

/// Runs several `ip` commands in one process (`ip [-n NS] -batch -`).
pub fn ip_batch(ns: Option<&str>, lines: &[String]) -> Result<(), TestbedError> {
    let mut cmd = Command::new("ip");
    if let Some(n) = ns {
        cmd.args(["-n", n]);
    }
    let mut child = cmd
        .args(["-batch", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(no_ip)?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(lines.join("\n").as_bytes())
        .map_err(|e| TestbedError::io("ip -batch", e))?;
    let out = child
        .wait_with_output()
        .map_err(|e| TestbedError::io("ip -batch", e))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(TestbedError::Batch {
            command: format!(
                "ip{} -batch",
                ns.map_or(String::new(), |n| format!(" -n {n}"))
            ),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            input: lines.join("\n"),
        })
    }
}

/// Runs `f` on a new thread that has entered namespace `ns`; sockets and devices it
/// opens belong there. `f`'s error type takes the namespace's own errors too.
pub fn spawn_in<F, R, E>(
    ns: &str,
    name: &str,
    f: F,
) -> Result<std::thread::JoinHandle<Result<R, E>>, TestbedError>
where
    F: FnOnce() -> Result<R, E> + Send + 'static,
    R: Send + 'static,
    E: From<TestbedError> + Send + 'static,
{
    let ns = ns.to_string();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            sys::enter_netns(&ns)
                .map_err(|e| TestbedError::io(format!("cannot enter namespace {ns}"), e))?;
            f()
        })
        .map_err(|e| TestbedError::io("cannot start a thread", e))
}

/// Starts a server thread in namespace `ns`: it runs `bind` (a listener, a socket), then
/// `serve` on what `bind` made. Returns once `bind` has succeeded, so a client started
/// next finds the port open; when `bind` fails (or the thread cannot enter `ns`), returns
/// its error instead. `panicked` is the error when the thread ended without saying.
pub fn spawn_listening<L, R, E>(
    ns: &str,
    name: &str,
    bind: impl FnOnce() -> Result<L, E> + Send + 'static,
    serve: impl FnOnce(L) -> Result<R, E> + Send + 'static,
    panicked: impl FnOnce() -> E,
) -> Result<std::thread::JoinHandle<Result<R, E>>, E>
where
    R: Send + 'static,
    E: From<TestbedError> + Send + 'static,
{
    // Whether the server is bound; when it is not, its thread's result says why.
    let (tx, rx) = std::sync::mpsc::channel::<bool>();
    let h = spawn_in(ns, name, move || {
        let l = match bind() {
            Ok(l) => l,
            Err(e) => {
                let _ = tx.send(false);
                return Err(e);
            }
        };
        let _ = tx.send(true);
        serve(l)
    })
    .map_err(E::from)?;
    match rx.recv() {
        Ok(true) => Ok(h),
        // It did not bind (or never got to try): the thread has ended with the reason.
        _ => match h.join() {
            Ok(Err(e)) => Err(e),
            Ok(Ok(_)) | Err(_) => Err(panicked()),
        },
    }
}

/// Runs `f` inside namespace `ns` and waits for it.
pub fn run_in<F, R, E>(ns: &str, f: F) -> Result<R, E>
where
    F: FnOnce() -> Result<R, E> + Send + 'static,
    R: Send + 'static,
    E: From<TestbedError> + Send + 'static,
{
    spawn_in(ns, "scvtb-ns", f)?
        .join()
        .map_err(|_| TestbedError::Panicked { ns: ns.to_string() })?
}

/// Writes a sysctl of namespace `ns` (/proc/sys/net resolves to the writer's namespace).
pub fn sysctl(ns: &str, key: &str, value: &str) -> Result<(), TestbedError> {
    let path = format!("/proc/sys/{}", key.replace('.', "/"));
    let (v, ns_name) = (value.to_string(), ns.to_string());
    run_in(ns, move || {
        std::fs::write(&path, &v)
            .map_err(|e| TestbedError::io(format!("cannot set {path} = {v} in {ns_name}"), e))
    })
}

/// Namespaces `ip netns list` shows that start with `prefix`.
pub fn list(prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/run/netns")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(prefix))
        .collect();
    v.sort();
    v
}

fn delete(name: &str) -> Result<(), TestbedError> {
    ip(&["netns", "del", name])
}

/// Deletes testbed namespaces whose creating process no longer exists (left by SIGKILL
/// or a crash). Returns the names removed.
pub fn clean_stale() -> Result<Vec<String>, TestbedError> {
    let stale = list_stale();
    for n in &stale {
        delete(n)?;
    }
    Ok(stale)
}

/// Testbed namespaces whose creating process no longer exists.
pub fn list_stale() -> Vec<String> {
    list(PREFIX)
        .into_iter()
        .filter(|n| {
            let pid = n[PREFIX.len()..]
                .split('-')
                .next()
                .and_then(|p| p.parse::<u32>().ok());
            !pid.is_some_and(|p| std::path::Path::new(&format!("/proc/{p}")).exists())
        })
        .collect()
}

/// Namespaces created by this process, deleted on drop (and by `delete_all_now` from a
/// stop path). Children before namespaces: callers stop their threads and processes
/// first, since a namespace deleted under a running process lives on with it.
#[derive(Default)]
pub struct Namespaces {
    names: Mutex<Vec<String>>,
}

impl Namespaces {
    pub fn new() -> Namespaces {
        Namespaces::default()
    }

    /// Creates namespace `name` with its loopback up.
    pub fn add(&self, name: &str) -> Result<(), TestbedError> {
        self.names
            .lock()
            .expect("not poisoned")
            .push(name.to_string());
        ip(&["netns", "add", name])?;
        ip(&["-n", name, "link", "set", "lo", "up"])
    }

    pub fn names(&self) -> Vec<String> {
        self.names.lock().expect("not poisoned").clone()
    }

    /// Deletes every namespace; reports those it could not delete.
    pub fn delete_all(&self) -> Result<(), TestbedError> {
        let names: Vec<String> =
            std::mem::take(&mut *self.names.lock().unwrap_or_else(|p| p.into_inner()));
        let mut errs = Vec::new();
        for n in names.iter().rev() {
            if std::path::Path::new(&format!("/run/netns/{n}")).exists() {
                if let Err(e) = delete(n) {
                    errs.push(e);
                }
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(TestbedError::Several(errs))
        }
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        if let Err(e) = self.delete_all() {
            eprintln!("testbed cleanup: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_carry_the_pid() {
        let a = unique_id();
        let b = unique_id();
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("{PREFIX}{}-", std::process::id())));
    }
}
