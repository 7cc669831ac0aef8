//! Errors of the testbed's system layer: namespaces, `ip` and `ethtool`, sysctls, TUN
//! devices and the threads that run inside namespaces. Each names the command, file or
//! namespace and what the system said, so a failed set-up says what to fix.

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum TestbedError {
    /// The testbed runs as root only (namespaces, veth and TUN devices).
    #[error("the testbed needs root (network namespaces, veth and TUN devices); run it as root or see `scavenger testbed doctor`")]
    NotRoot,
    /// A helper program is not installed or could not start.
    #[error("cannot run `{program}` ({install}): {source}")]
    Spawn {
        program: &'static str,
        install: &'static str,
        source: io::Error,
    },
    /// A helper program is not installed (found before running anything).
    #[error("{program} is missing ({why}): {install}")]
    Missing {
        program: &'static str,
        why: &'static str,
        install: &'static str,
    },
    /// A command ran and failed; `stderr` is what it printed.
    #[error("`{command}` failed: {stderr}")]
    Command { command: String, stderr: String },
    /// `ip -batch` failed; the commands it was given follow the message.
    #[error("`{command}` failed: {stderr}\ncommands:\n{input}")]
    Batch {
        command: String,
        stderr: String,
        input: String,
    },
    /// A system call or file operation; `what` says which, on what.
    #[error("{what}: {source}")]
    Io { what: String, source: io::Error },
    /// A topology asked for more hosts on one side than its addressing allows.
    #[error("{hosts} hosts on the {side} side: at most {max} hosts per side")]
    TooManyHosts {
        side: &'static str,
        hosts: usize,
        max: usize,
    },
    /// A flow's algorithm has no kernel congestion control (nor a native BPF version).
    #[error("algorithm `{algorithm}` has no kernel implementation on the testbed; the kernel offers: {} (scenario names: newreno → reno, cubic, bbr; native BPF: ledbat, yield, ledbat-plus-plus). The testbed runs the others through the scv_shim agent", available.join(", "))]
    NoKernelCc {
        algorithm: String,
        available: Vec<String>,
    },
    /// The kernel does not offer the congestion control an algorithm maps to.
    #[error("algorithm `{algorithm}` needs the kernel's `{kernel}`, which this kernel does not offer; it has: {}", available.join(", "))]
    KernelLacks {
        algorithm: String,
        kernel: &'static str,
        available: Vec<String>,
    },
    /// A thread running inside a namespace panicked.
    #[error("a thread inside namespace {ns} panicked")]
    Panicked { ns: String },
    /// The work a thread ran inside a namespace failed.
    #[error("{0}")]
    Inside(String),
    /// The census evaluation's TLS set-up (its self-signed certificate).
    #[error(transparent)]
    Tls(#[from] crate::census::session::SessionError),
    /// Several clean-up steps failed; each is listed.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    Several(Vec<TestbedError>),
}

impl TestbedError {
    pub(crate) fn io(what: impl Into<String>, source: io::Error) -> TestbedError {
        TestbedError::Io {
            what: what.into(),
            source,
        }
    }
}

/// Callers that still report errors as text (the run loop, the CLI) take these with `?`.
impl From<TestbedError> for String {
    fn from(e: TestbedError) -> String {
        e.to_string()
    }
}
