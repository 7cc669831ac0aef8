//! Errors of the testbed's system layer: namespaces, `ip` and `ethtool`, sysctls, TUN
//! devices and the threads that run inside namespaces. Each names the command, file or
//! namespace and what the system said, so a failed set-up says what to fix.

use std::io;
use std::net::Ipv4Addr;

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
    /// The census bed's work in its namespaces failed: a server, a registration or an
    /// agent.
    /// Boxed: the kernel crate's errors it carries would make every `TestbedError` large.
    #[error(transparent)]
    Inside(Box<InsideError>),
    /// The census evaluation's TLS set-up (its self-signed certificate).
    #[error(transparent)]
    Tls(#[from] crate::census::session::SessionError),
    /// Several clean-up steps failed; each is listed.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    Several(Vec<TestbedError>),
}

/// What failed in the census bed's namespaces (its HTTP servers, the congestion controls
/// it registers and the shim agents it starts), each with the server or algorithm it
/// concerns and the underlying error.
#[derive(Debug, thiserror::Error)]
pub enum InsideError {
    /// A census server could not listen (bind, listen or set TCP_CONGESTION).
    #[error("census server on {addr}:{port} ({cc}): {source}")]
    Listen {
        addr: Ipv4Addr,
        port: u16,
        cc: String,
        source: io::Error,
    },
    /// A census server's thread ended before it said whether it listens.
    #[error("census server on {addr}:{port} did not start")]
    ServerNotStarted { addr: Ipv4Addr, port: u16 },
    /// A census server's thread panicked while serving.
    #[error("the census server panicked")]
    ServerPanicked,
    /// A server's connection ran another congestion control than the server's.
    #[error("the server for {cc} accepted a connection running {seen}")]
    WrongCongestionControl { cc: String, seen: String },
    /// Registering a native BPF congestion control (or the shim) failed.
    #[error("cannot register {name}: {source}")]
    Register {
        name: &'static str,
        source: scavenger_kernel::manage::ManageError,
    },
    /// The shim's BPF object is not in this build, so `algorithm` cannot run.
    #[error("{algorithm} runs through the scv_shim agent: {source}")]
    ShimNotBuilt {
        algorithm: String,
        source: scavenger_kernel::objects::ObjectError,
    },
    /// The shim is not among the native algorithms this build knows.
    #[error(transparent)]
    ShimUnknown(scavenger_kernel::manage::ManageError),
    /// The shim agent for `algorithm` could not start.
    #[error("cannot start the agent for {algorithm}: {source}")]
    AgentStart {
        algorithm: String,
        source: scavenger_kernel::agent::AgentError,
    },
    /// A shim agent failed while it ran or stopped.
    #[error("the shim agent: {0}")]
    AgentStop(#[source] scavenger_kernel::agent::AgentError),
}

impl From<InsideError> for TestbedError {
    fn from(e: InsideError) -> TestbedError {
        TestbedError::Inside(Box::new(e))
    }
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
