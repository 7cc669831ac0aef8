//! The few system calls std does not wrap: entering a network namespace, TUN devices,
//! ppoll with a nanosecond timeout, real-time scheduling, TCP_CONGESTION/TCP_INFO and a
//! raw ICMP socket. Namespaces, opening files and ioctls go through `nix`; each remaining
//! `unsafe` block is one FFI call (or nix ioctl) on memory this module owns.

use nix::fcntl::{self, OFlag};
use nix::sched::{self, CloneFlags};
use nix::sys::stat::Mode;
use std::io;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn open(path: &str, flags: OFlag) -> io::Result<OwnedFd> {
    Ok(fcntl::open(path, flags | OFlag::O_CLOEXEC, Mode::empty())?)
}

/// Moves the calling thread (only it) into the named network namespace
/// (/run/netns/NAME, as `ip netns add` creates it). Sockets and TUN devices it opens
/// afterwards belong to that namespace and stay bound to it.
pub fn enter_netns(name: &str) -> io::Result<()> {
    let fd = open(&format!("/run/netns/{name}"), OFlag::O_RDONLY)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot open namespace {name}: {e}")))?;
    sched::setns(&fd, CloneFlags::CLONE_NEWNET).map_err(|e| {
        let e = io::Error::from(e);
        io::Error::new(e.kind(), format!("setns into {name}: {e}"))
    })
}

// TUNSETIFF is _IOW('T', 202, int) but passes a struct ifreq (<linux/if_tun.h>): hence
// the "bad" form with the literal request number.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
nix::ioctl_write_ptr_bad!(tun_set_iff, TUNSETIFF, [u8; IFREQ_LEN]);
/// sizeof(struct ifreq) on Linux.
const IFREQ_LEN: usize = 40;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// Creates (or attaches to) TUN device `name` in the calling thread's namespace,
/// non-blocking, without packet information headers. The device disappears when the
/// returned fd is closed.
pub fn open_tun(name: &str) -> io::Result<OwnedFd> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "TUN device name {name:?} must have 1..{} bytes",
                libc::IFNAMSIZ - 1
            ),
        ));
    }
    let fd = open("/dev/net/tun", OFlag::O_RDWR | OFlag::O_NONBLOCK)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot open /dev/net/tun: {e}")))?;
    // struct ifreq: 16 bytes of name, then the flags (a short) in the union.
    let mut ifr = [0u8; IFREQ_LEN];
    ifr[..name.len()].copy_from_slice(name.as_bytes());
    ifr[16..18].copy_from_slice(&(IFF_TUN | IFF_NO_PI).to_ne_bytes());
    // SAFETY: TUNSETIFF reads one struct ifreq (IFREQ_LEN bytes) at the pointer, which
    // `ifr` is for the whole call.
    unsafe { tun_set_iff(fd.as_raw_fd(), &ifr) }.map_err(|e| {
        let e = io::Error::from(e);
        io::Error::new(e.kind(), format!("TUNSETIFF {name}: {e}"))
    })?;
    Ok(fd)
}

/// Waits until one of `fds` is readable or `timeout_ns` passes; returns which are
/// readable. EINTR counts as a timeout.
pub fn wait_readable<const N: usize>(fds: [RawFd; N], timeout_ns: u64) -> io::Result<[bool; N]> {
    let mut p = fds.map(|fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    });
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `p` holds N pollfds; `ts` is a valid timespec; no signal mask.
    let r = unsafe { libc::ppoll(p.as_mut_ptr(), N as libc::nfds_t, &ts, std::ptr::null()) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok([false; N]);
        }
        return Err(e);
    }
    Ok(p.map(|x| x.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP) != 0))
}

/// One non-blocking read; `Ok(None)` when nothing is waiting.
pub fn read_nb(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: reads at most buf.len() bytes into `buf`.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

/// One write of a whole packet.
pub fn write_packet(fd: RawFd, buf: &[u8]) -> io::Result<()> {
    // SAFETY: writes buf.len() bytes from `buf`.
    let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Puts the calling thread under SCHED_FIFO at `prio`, so the emulator's timers are not
/// delayed by ordinary threads (kernel-and-testbed notes §2.3: p99 lateness 256 → 128 µs).
pub fn set_realtime(prio: i32) -> io::Result<()> {
    let p = libc::sched_param {
        sched_priority: prio,
    };
    // SAFETY: pid 0 = the calling thread; `p` is a valid sched_param.
    cvt(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) }).map(|_| ())
}

/// Timer slack of the calling thread: 1 ns, so ppoll wakes when asked, not up to 50 µs later.
pub fn set_min_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes an integer argument and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
}

pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn setsockopt_bytes(fd: RawFd, level: libc::c_int, opt: libc::c_int, val: &[u8]) -> io::Result<()> {
    // SAFETY: passes `val` with its length.
    cvt(unsafe {
        libc::setsockopt(
            fd,
            level,
            opt,
            val.as_ptr().cast(),
            val.len() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// A TCP socket of the calling thread's namespace whose congestion control is `cc`.
fn tcp_socket(cc: &str) -> io::Result<OwnedFd> {
    // SAFETY: plain socket(2); the fd is owned by `sock` at once.
    let sock = unsafe {
        OwnedFd::from_raw_fd(cvt(libc::socket(
            libc::AF_INET,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
        ))?)
    };
    setsockopt_bytes(
        sock.as_raw_fd(),
        libc::IPPROTO_TCP,
        libc::TCP_CONGESTION,
        cc.as_bytes(),
    )
    .map_err(|e| io::Error::new(e.kind(), format!("setsockopt(TCP_CONGESTION, {cc}): {e}")))?;
    Ok(sock)
}

fn sockaddr_in(addr: Ipv4Addr, port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(addr).to_be(),
        },
        sin_zero: [0; 8],
    }
}

/// A TCP connection to `addr:port` from the calling thread's namespace whose congestion
/// control is set to `cc` before the SYN is sent.
pub fn tcp_connect(addr: Ipv4Addr, port: u16, cc: &str) -> io::Result<TcpStream> {
    let sock = tcp_socket(cc)?;
    let sa = sockaddr_in(addr, port);
    // SAFETY: connect with a sockaddr_in of the right length.
    cvt(unsafe {
        libc::connect(
            sock.as_raw_fd(),
            (&sa as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    })?;
    Ok(TcpStream::from(sock))
}

/// A non-blocking listener on `addr:port` (SO_REUSEADDR) in the calling thread's namespace
/// whose accepted connections inherit the congestion control `cc`.
pub fn tcp_listen(addr: Ipv4Addr, port: u16, cc: &str) -> io::Result<TcpListener> {
    let sock = tcp_socket(cc)?;
    setsockopt_bytes(
        sock.as_raw_fd(),
        libc::SOL_SOCKET,
        libc::SO_REUSEADDR,
        &1i32.to_ne_bytes(),
    )?;
    let sa = sockaddr_in(addr, port);
    // SAFETY: bind with a sockaddr_in of the right length; listen on our fd.
    cvt(unsafe {
        libc::bind(
            sock.as_raw_fd(),
            (&sa as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    })?;
    // SAFETY: listen(2) on our own fd.
    cvt(unsafe { libc::listen(sock.as_raw_fd(), 64) })?;
    let l = TcpListener::from(sock);
    l.set_nonblocking(true)?;
    Ok(l)
}

/// The congestion control a socket uses.
pub fn tcp_congestion(fd: RawFd) -> io::Result<String> {
    let mut buf = [0u8; 16];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `buf`.
    cvt(unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    })?;
    let s = &buf[..len as usize];
    Ok(String::from_utf8_lossy(s.split(|b| *b == 0).next().unwrap_or(&[])).into_owned())
}

pub use scavenger_kernel::tcp::{parse_tcp_info, TcpInfo};

pub fn tcp_info(fd: RawFd) -> io::Result<TcpInfo> {
    let mut buf = [0u8; 256];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `buf`.
    cvt(unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    })?;
    Ok(parse_tcp_info(&buf[..len as usize]))
}

/// A raw ICMP socket in the calling thread's namespace (needs CAP_NET_RAW).
pub struct IcmpSocket(OwnedFd);

impl IcmpSocket {
    pub fn open() -> io::Result<IcmpSocket> {
        // SAFETY: plain socket(2); the fd is owned at once.
        let fd = cvt(unsafe {
            libc::socket(
                libc::AF_INET,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                libc::IPPROTO_ICMP,
            )
        })?;
        // SAFETY: `fd` is new and ours.
        Ok(IcmpSocket(unsafe { OwnedFd::from_raw_fd(fd) }))
    }
    pub fn send_to(&self, msg: &[u8], to: Ipv4Addr) -> io::Result<()> {
        let sa = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: 0,
            sin_addr: libc::in_addr {
                s_addr: u32::from(to).to_be(),
            },
            sin_zero: [0; 8],
        };
        // SAFETY: sends `msg` to a sockaddr_in of the right length.
        let n = unsafe {
            libc::sendto(
                self.0.as_raw_fd(),
                msg.as_ptr().cast(),
                msg.len(),
                0,
                (&sa as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
    /// The kernel's receive time of the last datagram read (SIOCGSTAMPNS, CLOCK_REALTIME),
    /// as ping(8) uses: it leaves the reader's wake-up latency out of a measured RTT.
    pub fn last_rx_time(&self) -> io::Result<std::time::SystemTime> {
        // SIOCGSTAMPNS (SIOCGSTAMPNS_OLD on 64-bit: struct timespec of the last packet).
        const SIOCGSTAMPNS: libc::c_ulong = 0x8907;
        nix::ioctl_read_bad!(siocgstampns, SIOCGSTAMPNS, libc::timespec);
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: the ioctl writes one struct timespec into `ts`, which outlives the call.
        unsafe { siocgstampns(self.0.as_raw_fd(), &mut ts) }?;
        Ok(std::time::UNIX_EPOCH + std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }

    /// One datagram (IP header included), or `None` after `timeout_ns`.
    pub fn recv(&self, buf: &mut [u8], timeout_ns: u64) -> io::Result<Option<usize>> {
        if !wait_readable([self.0.as_raw_fd()], timeout_ns)?[0] {
            return Ok(None);
        }
        // SAFETY: reads at most buf.len() bytes into `buf`.
        let n = unsafe {
            libc::recv(
                self.0.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                libc::MSG_DONTWAIT,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::WouldBlock {
                Ok(None)
            } else {
                Err(e)
            };
        }
        Ok(Some(n as usize))
    }
}

/// Sends `count` copies of `payload` to `to` from a connected-less UDP socket with one
/// sendmmsg(2) call; returns how many were sent. For the benchmark's blaster, where one
/// syscall per datagram would make the sender, not the emulator, the bottleneck.
pub fn send_udp_batch(
    sock: &std::net::UdpSocket,
    payload: &[u8],
    to: std::net::SocketAddrV4,
    count: usize,
) -> io::Result<usize> {
    let sa = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: to.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*to.ip()).to_be(),
        },
        sin_zero: [0; 8],
    };
    let mut iov = libc::iovec {
        iov_base: payload.as_ptr() as *mut libc::c_void,
        iov_len: payload.len(),
    };
    // SAFETY: an all-zero mmsghdr is a valid "empty" header; every pointer set below
    // (`sa`, `iov`) outlives the sendmmsg call, and the kernel only reads through them.
    let mut hdrs: Vec<libc::mmsghdr> = (0..count)
        .map(|_| {
            let mut h: libc::mmsghdr = unsafe { std::mem::zeroed() };
            h.msg_hdr.msg_name = (&sa as *const libc::sockaddr_in) as *mut libc::c_void;
            h.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            h.msg_hdr.msg_iov = &mut iov;
            h.msg_hdr.msg_iovlen = 1;
            h
        })
        .collect();
    // SAFETY: `hdrs` holds `count` initialised headers (see above).
    let n = unsafe {
        libc::sendmmsg(
            sock.as_raw_fd(),
            hdrs.as_mut_ptr(),
            count as libc::c_uint,
            0,
        )
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// CPU time (user + system) the calling thread has used, in seconds.
pub fn thread_cpu_seconds() -> f64 {
    // SAFETY: an all-zero rusage is valid; getrusage fills it.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_THREAD with a valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut r) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(r.ru_utime) + tv(r.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_info_fields_come_from_their_uapi_offsets() {
        let mut b = vec![0u8; 248];
        b[1] = 3; // TCP_CA_Recovery
        b[16..20].copy_from_slice(&1448u32.to_ne_bytes());
        b[68..72].copy_from_slice(&40_123u32.to_ne_bytes());
        b[80..84].copy_from_slice(&57u32.to_ne_bytes());
        b[100..104].copy_from_slice(&9u32.to_ne_bytes());
        b[240..242].copy_from_slice(&2u16.to_ne_bytes());
        let i = parse_tcp_info(&b);
        assert_eq!(
            (
                i.ca_state,
                i.snd_mss,
                i.rtt_us,
                i.snd_cwnd,
                i.total_retrans,
                i.total_rto
            ),
            (3, 1448, 40_123, 57, 9, Some(2))
        );
        // An older kernel's shorter struct: no RTO counter.
        assert_eq!(parse_tcp_info(&b[..232]).total_rto, None);
    }
}
