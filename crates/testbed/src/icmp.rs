//! ICMP echo over a raw socket, for measuring the emulated path's RTT.

use crate::clock::Clock;
use crate::error::TestbedError;
use crate::netns;
use crate::packet::header_checksum;
use crate::sys::IcmpSocket;
use std::net::Ipv4Addr;

/// Sends `count` echo requests `gap_ms` apart from inside namespace `ns` to `to`, and
/// returns the RTT of each reply received (ms), in order: from just before the send to
/// the kernel's receive timestamp of the reply.
pub fn ping(ns: &str, to: Ipv4Addr, count: u16, gap_ms: u64) -> Result<Vec<f64>, TestbedError> {
    netns::run_in(ns, move || {
        let s = IcmpSocket::open().map_err(|e| TestbedError::io("raw ICMP socket", e))?;
        let id = (std::process::id() & 0xffff) as u16;
        let clock = Clock::start();
        let mut rtts = Vec::new();
        let mut buf = [0u8; 1500];
        for seq in 0..count {
            // Echo request (RFC 792): type 8, code 0, checksum, identifier, sequence, data.
            let mut m = vec![8u8, 0, 0, 0];
            m.extend_from_slice(&id.to_be_bytes());
            m.extend_from_slice(&seq.to_be_bytes());
            m.extend_from_slice(&[0xa5; 56]);
            let c = header_checksum(&m);
            m[2..4].copy_from_slice(&c.to_be_bytes());
            let t0 = clock.now();
            let sent_at = std::time::SystemTime::now();
            s.send_to(&m, to)
                .map_err(|e| TestbedError::io(format!("send echo to {to}"), e))?;
            let deadline = t0.nanos() + 2_000_000_000;
            loop {
                let now = clock.now().nanos();
                if now >= deadline {
                    break;
                }
                let Some(n) = s
                    .recv(&mut buf, deadline - now)
                    .map_err(|e| TestbedError::io("recv", e))?
                else {
                    break;
                };
                let ihl = (buf[0] & 0x0f) as usize * 4;
                let r = &buf[ihl..n];
                if r.len() >= 8
                    && r[0] == 0
                    && u16::from_be_bytes([r[4], r[5]]) == id
                    && u16::from_be_bytes([r[6], r[7]]) == seq
                {
                    // The kernel's receive timestamp, as ping(8); our own clock if the
                    // socket has none.
                    let rtt = s
                        .last_rx_time()
                        .ok()
                        .and_then(|rx| rx.duration_since(sent_at).ok())
                        .map_or_else(
                            || clock.now().since(t0).nanos() as f64 / 1e6,
                            |d| d.as_secs_f64() * 1e3,
                        );
                    rtts.push(rtt);
                    break;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(gap_ms));
        }
        Ok(rtts)
    })
}
