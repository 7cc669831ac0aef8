//! Socket options an application (and the tests) use with the kernel algorithms:
//! TCP_CONGESTION to select one, TCP_INFO to watch it, SO_COOKIE for per-socket
//! parameters.

use std::io;
use std::os::fd::AsRawFd;

fn getsockopt_buf(fd: &impl AsRawFd, level: i32, opt: i32, buf: &mut [u8]) -> io::Result<usize> {
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: buf is writable for len bytes; the kernel writes at most len and updates it.
    let r = unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            level,
            opt,
            buf.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(len as usize)
}

/// setsockopt(IPPROTO_TCP, TCP_CONGESTION, name).
pub fn set_congestion(fd: &impl AsRawFd, name: &str) -> io::Result<()> {
    // SAFETY: the name bytes are readable for their length.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr() as *const libc::c_void,
            name.len() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// getsockopt(IPPROTO_TCP, TCP_CONGESTION).
pub fn congestion(fd: &impl AsRawFd) -> io::Result<String> {
    let mut buf = [0u8; 16];
    let n = getsockopt_buf(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, &mut buf)?;
    let end = buf[..n].iter().position(|&b| b == 0).unwrap_or(n);
    Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// getsockopt(SOL_SOCKET, SO_COOKIE): the socket's cookie (generated on first use).
pub fn cookie(fd: &impl AsRawFd) -> io::Result<u64> {
    let mut buf = [0u8; 8];
    getsockopt_buf(fd, libc::SOL_SOCKET, libc::SO_COOKIE, &mut buf)?;
    Ok(u64::from_ne_bytes(buf))
}

/// The fields of `struct tcp_info` (include/uapi/linux/tcp.h) the tools read.
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpInfo {
    pub ca_state: u8,
    pub rtt_us: u32,
    pub rttvar_us: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub snd_mss: u32,
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub bytes_acked: u64,
    pub delivery_rate: u64,
}

pub fn tcp_info(fd: &impl AsRawFd) -> io::Result<TcpInfo> {
    let mut b = [0u8; 232];
    let n = getsockopt_buf(fd, libc::IPPROTO_TCP, libc::TCP_INFO, &mut b)?;
    let u32_at = |o: usize| {
        if o + 4 <= n {
            u32::from_ne_bytes(b[o..o + 4].try_into().unwrap())
        } else {
            0
        }
    };
    let u64_at = |o: usize| {
        if o + 8 <= n {
            u64::from_ne_bytes(b[o..o + 8].try_into().unwrap())
        } else {
            0
        }
    };
    Ok(TcpInfo {
        ca_state: b[1],
        snd_mss: u32_at(16),
        rtt_us: u32_at(68),
        rttvar_us: u32_at(72),
        snd_ssthresh: u32_at(76),
        snd_cwnd: u32_at(80),
        total_retrans: u32_at(100),
        pacing_rate: u64_at(104),
        bytes_acked: u64_at(120),
        delivery_rate: u64_at(160),
    })
}
