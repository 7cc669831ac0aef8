//! Socket options an application (and the tests) use with the kernel algorithms:
//! TCP_CONGESTION to select one, TCP_INFO to watch it, SO_COOKIE for per-socket
//! parameters.

use nix::sys::socket::{self, sockopt};
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsFd, AsRawFd};

fn getsockopt_buf(fd: &impl AsRawFd, level: i32, opt: i32, buf: &mut [u8]) -> io::Result<usize> {
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: nix has no TCP_INFO or SO_COOKIE option (so no safe wrapper); buf is
    // writable for len bytes, and the kernel writes at most len and updates it.
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
pub fn set_congestion(fd: &impl AsFd, name: &str) -> io::Result<()> {
    socket::setsockopt(fd, sockopt::TcpCongestion, &OsString::from(name))?;
    Ok(())
}

/// getsockopt(IPPROTO_TCP, TCP_CONGESTION).
pub fn congestion(fd: &impl AsFd) -> io::Result<String> {
    let name = socket::getsockopt(fd, sockopt::TcpCongestion)?;
    Ok(name.to_string_lossy().into_owned())
}

/// getsockopt(SOL_SOCKET, SO_COOKIE): the socket's cookie (generated on first use).
pub fn cookie(fd: &impl AsRawFd) -> io::Result<u64> {
    let mut buf = [0u8; 8];
    getsockopt_buf(fd, libc::SOL_SOCKET, libc::SO_COOKIE, &mut buf)?;
    Ok(u64::from_ne_bytes(buf))
}

/// The fields of `struct tcp_info` (include/uapi/linux/tcp.h) the tools read: the one
/// definition for the kernel tests and the testbed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpInfo {
    pub ca_state: u8,
    pub snd_mss: u32,
    /// Smoothed RTT, µs.
    pub rtt_us: u32,
    pub rttvar_us: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub bytes_acked: u64,
    pub min_rtt_us: u32,
    pub delivery_rate: u64,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub bytes_sent: u64,
    /// RTO expirations (kernel ≥ 6.7); `None` on older kernels.
    pub total_rto: Option<u16>,
}

/// Parses the bytes getsockopt(TCP_INFO) returned (`b.len()` is what the kernel filled;
/// fields past it, from a newer struct than the kernel's, read as 0).
pub fn parse_tcp_info(b: &[u8]) -> TcpInfo {
    let u32_at = |o: usize| {
        b.get(o..o + 4)
            .map_or(0, |s| u32::from_ne_bytes(s.try_into().expect("4 bytes")))
    };
    let u64_at = |o: usize| {
        b.get(o..o + 8)
            .map_or(0, |s| u64::from_ne_bytes(s.try_into().expect("8 bytes")))
    };
    TcpInfo {
        ca_state: b.get(1).copied().unwrap_or(0),
        snd_mss: u32_at(16),
        rtt_us: u32_at(68),
        rttvar_us: u32_at(72),
        snd_ssthresh: u32_at(76),
        snd_cwnd: u32_at(80),
        total_retrans: u32_at(100),
        pacing_rate: u64_at(104),
        bytes_acked: u64_at(120),
        min_rtt_us: u32_at(148),
        delivery_rate: u64_at(160),
        delivered: u32_at(192),
        delivered_ce: u32_at(196),
        bytes_sent: u64_at(200),
        total_rto: b.get(240..242).map(|s| u16::from_ne_bytes([s[0], s[1]])),
    }
}

pub fn tcp_info(fd: &impl AsRawFd) -> io::Result<TcpInfo> {
    let mut b = [0u8; 256];
    let n = getsockopt_buf(fd, libc::IPPROTO_TCP, libc::TCP_INFO, &mut b)?;
    Ok(parse_tcp_info(&b[..n]))
}

/// BBR's model as `bbr_get_info` (net/ipv4/tcp_bbr.c) reports it through
/// getsockopt(TCP_CC_INFO): `struct tcp_bbr_info` (include/uapi/linux/inet_diag.h).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrInfo {
    /// `bbr_max_bw` in bytes per second (`bw · mss · USEC_PER_SEC >> BW_SCALE`).
    pub bw_bytes_per_s: u64,
    /// `bbr->min_rtt_us`.
    pub min_rtt_us: u32,
    /// `pacing_gain` and `cwnd_gain` as ratios (the kernel's are `<< BBR_SCALE`, 8 bits).
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
}

/// Parses what getsockopt(TCP_CC_INFO) filled. `None` unless it is a whole
/// `tcp_bbr_info` (20 bytes): other congestion controls fill nothing (cubic, reno, our
/// struct_ops) or their own struct (Vegas's and DCTCP's are 16 bytes).
pub fn parse_bbr_info(b: &[u8]) -> Option<BbrInfo> {
    let u32_at =
        |o: usize| -> Option<u32> { Some(u32::from_ne_bytes(b.get(o..o + 4)?.try_into().ok()?)) };
    if b.len() != 20 {
        return None;
    }
    let bw = (u32_at(4)? as u64) << 32 | u32_at(0)? as u64;
    Some(BbrInfo {
        bw_bytes_per_s: bw,
        min_rtt_us: u32_at(8)?,
        pacing_gain: u32_at(12)? as f64 / 256.0,
        cwnd_gain: u32_at(16)? as f64 / 256.0,
    })
}

/// BBR's model of the socket, `None` when its congestion control is not BBR.
pub fn bbr_info(fd: &impl AsRawFd) -> io::Result<Option<BbrInfo>> {
    // union tcp_cc_info is at most 20 bytes in 6.18 (tcp_bbr_info).
    let mut b = [0u8; 64];
    let n = getsockopt_buf(fd, libc::IPPROTO_TCP, libc::TCP_CC_INFO, &mut b)?;
    Ok(parse_bbr_info(&b[..n]))
}

#[cfg(test)]
mod bbr_info_tests {
    use super::*;

    #[test]
    fn tcp_bbr_info_fields_come_from_their_uapi_offsets() {
        let mut b = Vec::new();
        for v in [0x0000_0010u32, 0x0000_0001, 52_000, 2 * 256 + 227, 2 * 256] {
            b.extend_from_slice(&v.to_ne_bytes());
        }
        let i = parse_bbr_info(&b).unwrap();
        assert_eq!(i.bw_bytes_per_s, (1 << 32) + 16);
        assert_eq!(i.min_rtt_us, 52_000);
        assert!((i.pacing_gain - 2.88671875).abs() < 1e-12, "{i:?}");
        assert_eq!(i.cwnd_gain, 2.0);
        assert_eq!(parse_bbr_info(&b[..16]), None, "Vegas's 16-byte struct");
        assert_eq!(parse_bbr_info(&[]), None, "cubic fills nothing");
    }
}
