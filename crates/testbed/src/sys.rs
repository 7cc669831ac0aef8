//! The few system calls std does not wrap: entering a network namespace, TUN devices,
//! ppoll with a nanosecond timeout, real-time scheduling, TCP_CONGESTION and a raw ICMP
//! socket. They go through `nix`; `unsafe` is left only where nix has no safe wrapper:
//! the two ioctls (nix's ioctl macros make `unsafe fn`s) and sched_setscheduler (nix has
//! none), each with its SAFETY comment. Errors are `io::Error`s with the same text as
//! the system's (nix's `Errno` converts to one).

use nix::fcntl::{self, OFlag};
use nix::poll::{PollFd, PollFlags};
use nix::sched::{self, CloneFlags};
use nix::sys::resource::{getrusage, UsageWho};
use nix::sys::socket::{
    self, sockopt, AddressFamily, Backlog, MsgFlags, SockFlag, SockProtocol, SockType, SockaddrIn,
};
use nix::sys::stat::Mode;
use nix::sys::time::{TimeSpec, TimeValLike};
use std::ffi::OsString;
use std::io::{self, IoSlice};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

fn open(path: &str, flags: OFlag) -> io::Result<OwnedFd> {
    Ok(fcntl::open(path, flags | OFlag::O_CLOEXEC, Mode::empty())?)
}

/// A socket call that timed out (`SO_RCVTIMEO`/`SO_SNDTIMEO`), would block or was
/// interrupted by a signal: nothing is wrong, try again (after checking the run's clock
/// or stop flag). The endpoints and the census server both poll their sockets this way.
pub fn retry_later(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
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
    // SAFETY: nix's ioctl macros generate `unsafe fn`s (no safe TUNSETIFF wrapper):
    // TUNSETIFF reads one struct ifreq (IFREQ_LEN bytes) at the pointer, which
    // `ifr` is for the whole call.
    unsafe { tun_set_iff(fd.as_raw_fd(), &ifr) }.map_err(|e| {
        let e = io::Error::from(e);
        io::Error::new(e.kind(), format!("TUNSETIFF {name}: {e}"))
    })?;
    Ok(fd)
}

/// Waits until one of `fds` is readable or `timeout_ns` passes; returns which are
/// readable. EINTR counts as a timeout.
pub fn wait_readable<const N: usize>(
    fds: [BorrowedFd<'_>; N],
    timeout_ns: u64,
) -> io::Result<[bool; N]> {
    let mut p = fds.map(|fd| PollFd::new(fd, PollFlags::POLLIN));
    let ts = TimeSpec::nanoseconds(timeout_ns.min(i64::MAX as u64) as i64);
    match nix::poll::ppoll(&mut p, Some(ts), None) {
        Ok(_) => {}
        Err(nix::errno::Errno::EINTR) => return Ok([false; N]),
        Err(e) => return Err(e.into()),
    }
    let ready = PollFlags::POLLIN | PollFlags::POLLERR | PollFlags::POLLHUP;
    Ok(p.map(|x| x.revents().is_some_and(|r| r.intersects(ready))))
}

/// One non-blocking read; `Ok(None)` when nothing is waiting.
pub fn read_nb(fd: impl AsFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    match nix::unistd::read(fd, buf) {
        Ok(n) => Ok(Some(n)),
        Err(nix::errno::Errno::EAGAIN | nix::errno::Errno::EINTR) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// One write of a whole packet.
pub fn write_packet(fd: impl AsFd, buf: &[u8]) -> io::Result<()> {
    nix::unistd::write(fd, buf)?;
    Ok(())
}

/// Puts the calling thread under SCHED_FIFO at `prio`, so the emulator's timers are not
/// delayed by ordinary threads (kernel-and-testbed notes §2.3: p99 lateness 256 → 128 µs).
pub fn set_realtime(prio: i32) -> io::Result<()> {
    let p = libc::sched_param {
        sched_priority: prio,
    };
    // SAFETY: nix has no sched_setscheduler. pid 0 = the calling thread; `p` is a valid
    // sched_param that outlives the call, and the kernel only reads it.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Timer slack of the calling thread: 1 ns, so ppoll wakes when asked, not up to 50 µs later.
pub fn set_min_timer_slack() {
    // Best effort: without it ppoll may wake up to 50 µs late, which lateness shows.
    let _ = nix::sys::prctl::set_timerslack(1);
}

pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// A TCP socket of the calling thread's namespace whose congestion control is `cc`.
fn tcp_socket(cc: &str) -> io::Result<OwnedFd> {
    let sock = socket::socket(
        AddressFamily::Inet,
        SockType::Stream,
        SockFlag::SOCK_CLOEXEC,
        None,
    )?;
    socket::setsockopt(&sock, sockopt::TcpCongestion, &OsString::from(cc)).map_err(|e| {
        let e = io::Error::from(e);
        io::Error::new(e.kind(), format!("setsockopt(TCP_CONGESTION, {cc}): {e}"))
    })?;
    Ok(sock)
}

/// A TCP connection to `addr:port` from the calling thread's namespace whose congestion
/// control is set to `cc` before the SYN is sent.
pub fn tcp_connect(addr: Ipv4Addr, port: u16, cc: &str) -> io::Result<TcpStream> {
    let sock = tcp_socket(cc)?;
    socket::connect(
        sock.as_raw_fd(),
        &SockaddrIn::from(SocketAddrV4::new(addr, port)),
    )?;
    Ok(TcpStream::from(sock))
}

/// A non-blocking listener on `addr:port` (SO_REUSEADDR) in the calling thread's namespace
/// whose accepted connections inherit the congestion control `cc`.
pub fn tcp_listen(addr: Ipv4Addr, port: u16, cc: &str) -> io::Result<TcpListener> {
    let sock = tcp_socket(cc)?;
    socket::setsockopt(&sock, sockopt::ReuseAddr, &true)?;
    socket::bind(
        sock.as_raw_fd(),
        &SockaddrIn::from(SocketAddrV4::new(addr, port)),
    )?;
    socket::listen(&sock, Backlog::new(64)?)?;
    let l = TcpListener::from(sock);
    l.set_nonblocking(true)?;
    Ok(l)
}

/// The congestion control a socket uses.
pub fn tcp_congestion(fd: impl AsFd) -> io::Result<String> {
    let name = socket::getsockopt(&fd, sockopt::TcpCongestion)?;
    Ok(name.to_string_lossy().into_owned())
}

/// TCP_INFO: crates/kernel's reader (nix has no TCP_INFO option), one definition for both.
pub use scavenger_kernel::tcp::{bbr_info, parse_tcp_info, tcp_info, BbrInfo, TcpInfo};

/// A raw ICMP socket in the calling thread's namespace (needs CAP_NET_RAW).
pub struct IcmpSocket(OwnedFd);

impl IcmpSocket {
    pub fn open() -> io::Result<IcmpSocket> {
        Ok(IcmpSocket(socket::socket(
            AddressFamily::Inet,
            SockType::Raw,
            SockFlag::SOCK_CLOEXEC,
            SockProtocol::Icmp,
        )?))
    }
    pub fn send_to(&self, msg: &[u8], to: Ipv4Addr) -> io::Result<()> {
        socket::sendto(
            self.0.as_raw_fd(),
            msg,
            &SockaddrIn::from(SocketAddrV4::new(to, 0)),
            MsgFlags::empty(),
        )?;
        Ok(())
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
        // SAFETY: nix's ioctl macros generate `unsafe fn`s (no safe SIOCGSTAMPNS wrapper):
        // the ioctl writes one struct timespec into `ts`, which outlives the call.
        unsafe { siocgstampns(self.0.as_raw_fd(), &mut ts) }?;
        Ok(std::time::UNIX_EPOCH + std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }

    /// One datagram (IP header included), or `None` after `timeout_ns`.
    pub fn recv(&self, buf: &mut [u8], timeout_ns: u64) -> io::Result<Option<usize>> {
        if !wait_readable([self.0.as_fd()], timeout_ns)?[0] {
            return Ok(None);
        }
        match socket::recv(self.0.as_raw_fd(), buf, MsgFlags::MSG_DONTWAIT) {
            Ok(n) => Ok(Some(n)),
            Err(nix::errno::Errno::EAGAIN) => Ok(None),
            Err(e) => Err(e.into()),
        }
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
    let mut headers = socket::MultiHeaders::<SockaddrIn>::preallocate(count, None);
    let iov = [IoSlice::new(payload)];
    let slices = vec![iov; count];
    let addrs = vec![Some(SockaddrIn::from(to)); count];
    let sent = socket::sendmmsg(
        sock.as_raw_fd(),
        &mut headers,
        &slices,
        &addrs,
        [],
        MsgFlags::empty(),
    )?;
    Ok(sent.count())
}

/// CPU time (user + system) the calling thread has used, in seconds.
pub fn thread_cpu_seconds() -> f64 {
    let (user, system) = thread_cpu_times();
    user + system
}

/// (user, system) CPU seconds of the calling thread, from the kernel's accounting.
pub fn thread_cpu_times() -> (f64, f64) {
    // RUSAGE_THREAD of the calling thread cannot fail; 0 if it ever did.
    let Ok(r) = getrusage(UsageWho::RUSAGE_THREAD) else {
        return (0.0, 0.0);
    };
    let tv = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    (tv(r.user_time()), tv(r.system_time()))
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
