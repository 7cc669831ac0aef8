//! `--transport tcp`: a kernel TCP socket whose congestion control is a BPF algorithm
//! registered by `scavenger kernel load` (crates/kernel), chosen with TCP_CONGESTION
//! before `connect` and read back with getsockopt after it. When the algorithm is not
//! registered the transfer stops with an error that says why and how to register it:
//! never a silent fallback to the kernel's default (CUBIC on most systems).

use std::net::SocketAddr;

use scavenger_kernel::{manage, tcp};

use super::{Congestion, TransferError};

/// The kernel congestion-control name a TCP transfer asks for. A crates/cc name with a
/// native BPF version (`ledbat-plus-plus` → `scv_ledbatpp`, `ledbat`, `yield`) maps to
/// it; a name the kernel lists as it is (`scv_ledbatpp`, a private registration,
/// `cubic`) is taken as given. DA-LBE has no native BPF version: `--deadline` is refused
/// (docs/transfer.md, "--transport tcp").
pub fn kernel_algorithm(c: &Congestion) -> Result<String, TransferError> {
    let name = match c {
        Congestion::Deadline { .. } => {
            return Err(TransferError::BadOption {
                field: "--deadline with --transport tcp",
                value: c.label(),
                allowed: "QUIC only (the default transport): DA-LBE runs in userspace and has no native BPF version for kernel TCP",
            })
        }
        Congestion::Algorithm(a) => a,
    };
    if manage::is_registered(name) {
        return Ok(name.clone());
    }
    let kernel = match manage::find(name) {
        Ok(a) if a.layout.is_none() => {
            return Err(TransferError::BadOption {
                field: "--algorithm",
                value: name.clone(),
                allowed: "with --transport tcp, a native BPF algorithm (scv_ledbat, scv_ledbatpp, scv_yield) or another congestion control the kernel lists; the shim needs `scavenger kernel agent` per socket",
            })
        }
        Ok(a) => a.name.to_string(),
        Err(_) => name.clone(),
    };
    if manage::is_registered(&kernel) {
        return Ok(kernel);
    }
    Err(not_registered(name, &kernel))
}

fn not_registered(asked: &str, kernel: &str) -> TransferError {
    let why = scavenger_kernel::unavailable_reason().unwrap_or_else(|| {
        "BPF struct_ops is available here, but the algorithm is not registered".into()
    });
    let load = if manage::find(kernel).is_ok() {
        format!("`sudo scavenger kernel load {kernel}`")
    } else {
        "`sudo scavenger kernel load scv_ledbatpp` (or scv_ledbat, scv_yield)".into()
    };
    let asked = if asked == kernel {
        format!("\"{kernel}\"")
    } else {
        format!("\"{kernel}\" (for {asked})")
    };
    TransferError::Kernel(format!(
        "--transport tcp: the kernel congestion control {asked} is not registered (the kernel lists: {}); {why}. Register it with {load}, or use --transport quic; there is no fallback to the kernel's default",
        manage::available().join(" ")
    ))
}

/// Connects a TCP socket that runs `algorithm`: set before `connect`, so that the
/// handshake already runs under it, and checked after it.
pub async fn connect(
    addr: SocketAddr,
    algorithm: &str,
) -> Result<tokio::net::TcpStream, TransferError> {
    let io = |what: String| move |source| TransferError::Io { what, source };
    let sock = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()
    } else {
        tokio::net::TcpSocket::new_v6()
    }
    .map_err(io("creating a TCP socket".into()))?;
    tcp::set_congestion(&sock, algorithm).map_err(|e| {
        if e.raw_os_error() == Some(libc_enoent()) {
            not_registered(algorithm, algorithm)
        } else {
            TransferError::Kernel(format!(
                "--transport tcp: setsockopt(TCP_CONGESTION, \"{algorithm}\"): {e}"
            ))
        }
    })?;
    let stream = sock
        .connect(addr)
        .await
        .map_err(|e| TransferError::Connection(format!("{addr} (TCP): {e}")))?;
    let got = tcp::congestion(&stream).map_err(io("getsockopt(TCP_CONGESTION)".into()))?;
    if got != algorithm {
        return Err(TransferError::Kernel(format!(
            "--transport tcp: the socket runs \"{got}\" after connect, not \"{algorithm}\""
        )));
    }
    stream
        .set_nodelay(true)
        .map_err(io("setsockopt(TCP_NODELAY)".into()))?;
    Ok(stream)
}

/// ENOENT: setsockopt(TCP_CONGESTION) names no registered algorithm.
fn libc_enoent() -> i32 {
    nix::errno::Errno::ENOENT as i32
}
