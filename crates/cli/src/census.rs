//! `scavenger census URL...` and `scavenger census --testbed`: the CAAI-style census of
//! Wang 2018 §3.1 (crates/testbed/src/census; docs/census.md).

use crate::error::{ArgError, CliError};
use scavenger_lab::store::write_atomic;
use scavenger_testbed::census::eval::{self, EvalOptions};
use scavenger_testbed::census::probe;
use scavenger_testbed::census::receiver::ProbeConfig;
use scavenger_testbed::census::report::{self, CensusRecord};
use scavenger_testbed::census::session::{self, Trust};
use scavenger_testbed::{netns, sys};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct CensusArgs {
    /// http:// or https:// URLs to probe.
    urls: Vec<String>,
    /// Instead of URLs: the evaluation on the testbed (servers with known congestion
    /// controls behind emulated links; root).
    #[arg(long)]
    testbed: bool,
    /// --testbed: runs per link and algorithm.
    #[arg(long, default_value_t = 10)]
    runs: u32,
    /// --testbed: the servers' congestion controls: kernel names (reno, cubic, bbr), ours with a native BPF version (ledbat, yield, ledbat-plus-plus), any other of ours through the scv_shim agent (vegas, ...), or shim:NAME to force the shim.
    #[arg(long, value_delimiter = ',', default_value = "reno,cubic,bbr")]
    algorithms: Vec<String>,
    /// --testbed: serve and probe over TLS (https://; the servers' self-signed certificate is pinned).
    #[arg(long)]
    tls: bool,
    /// https://: accept any server certificate (the handshake's signature is still checked). The census measures the transport and reads only the response's status and length.
    #[arg(long, conflicts_with = "pin")]
    insecure: bool,
    /// https://: accept only the certificate with this SHA-256 (64 hex digits).
    #[arg(long, value_name = "SHA256")]
    pin: Option<String>,
    /// --testbed: the links (ong-8-1, 100mbit).
    #[arg(long, value_delimiter = ',', default_value = "ong-8-1,100mbit")]
    links: Vec<String>,
    /// MSS announced to the server, bytes.
    #[arg(long, default_value_t = 200)]
    mss: u16,
    /// Emulated RTT added to every ACK (a duration with its unit, e.g. 300ms).
    #[arg(long, value_name = "DURATION", default_value = "300ms", value_parser = scavenger_cc::units::parse_duration)]
    rtt: scavenger_cc::units::Dur,
    /// Round whose first new segment is dropped.
    #[arg(long, default_value_t = 6)]
    loss_round: u32,
    /// Round from which ACKs are withheld until the server's RTO (Wang 2018: the 14th).
    #[arg(long, default_value_t = 14)]
    rto_round: u32,
    /// Rounds watched after the RTO.
    #[arg(long, default_value_t = 12)]
    rounds_after_rto: u32,
    /// Stop a probe after this many bytes.
    #[arg(long, default_value_t = 16 << 20)]
    max_bytes: u64,
    /// How long to wait for a SYN-ACK, and for any packet once connected (e.g. 10s).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = scavenger_cc::units::parse_duration)]
    timeout: scavenger_cc::units::Dur,
    /// Print each probe's JSON record (one line each) instead of the text line.
    #[arg(long)]
    json: bool,
    /// Output directory: census-*.json records and census-*.svg plots (and table.md with --testbed).
    #[arg(long, value_name = "DIR", value_parser = crate::out_dir)]
    out: Option<PathBuf>,
    /// --testbed: do not ask for SCHED_FIFO for the emulator thread.
    #[arg(long)]
    no_realtime: bool,
}

impl CensusArgs {
    fn config(&self) -> Result<ProbeConfig, CliError> {
        let c = ProbeConfig {
            mss: self.mss,
            rtt_ns: self.rtt.nanos(),
            loss_round: self.loss_round,
            rto_round: self.rto_round,
            rounds_after_rto: self.rounds_after_rto,
            max_bytes: self.max_bytes,
            connect_timeout_ns: self.timeout.nanos(),
            idle_timeout_ns: self.timeout.nanos(),
            trust: match (&self.pin, self.insecure) {
                (Some(p), _) => Some(Trust::Pinned {
                    sha256: session::parse_pin(p)?,
                }),
                (None, true) => Some(Trust::Insecure),
                (None, false) => None,
            },
        };
        c.validate()?;
        Ok(c)
    }
}

pub fn run(a: CensusArgs) -> ExitCode {
    crate::error::exit(run_inner(&a))
}

fn run_inner(a: &CensusArgs) -> Result<ExitCode, CliError> {
    let cfg = a.config()?;
    let usage = |m: &str| Err(ArgError::Invalid(m.into()).into());
    if a.testbed && !a.urls.is_empty() {
        return usage("give URLs or --testbed, not both");
    }
    if !a.testbed && a.urls.is_empty() {
        return usage("no URL given (or --testbed for the evaluation)");
    }
    if a.tls && !a.testbed {
        return usage("--tls is for --testbed; give https:// URLs instead");
    }
    if a.runs == 0 {
        return usage("--runs 0: must be ≥ 1");
    }
    // Parse every URL before touching the system: a typo fails at once.
    let targets = a
        .urls
        .iter()
        .map(|u| probe::parse_url(u))
        .collect::<Result<Vec<_>, _>>()?;
    // https:// without --insecure or --pin: the system's roots, found before any probe.
    let mut cfg = cfg;
    if cfg.trust.is_none() && targets.iter().any(|t| t.https) {
        cfg.trust = Some(Trust::system()?);
    }
    if !sys::is_root() {
        return usage("the census needs root (its receiver runs on a TUN device)");
    }
    if let Some(d) = &a.out {
        std::fs::create_dir_all(d).map_err(CliError::io("create", d))?;
    }
    netns::install_signal_handlers();
    let emit = |r: &CensusRecord| -> Result<(), CliError> {
        if a.json {
            println!(
                "{}",
                serde_json::to_string(r).expect("a census record serialises")
            );
        } else {
            let prefix = match (&r.link, &r.true_algorithm, r.run) {
                (Some(l), Some(t), Some(n)) => format!("{l} {t} run {n}: "),
                _ => String::new(),
            };
            println!("{prefix}{}", report::line(&r.url, &r.verdict));
        }
        if let Some(d) = &a.out {
            write_record(d, r)?;
        }
        Ok(())
    };
    if a.testbed {
        let links = a
            .links
            .iter()
            .map(|l| eval::link(l))
            .collect::<Result<Vec<_>, _>>()?;
        let opts = EvalOptions {
            links,
            algorithms: a.algorithms.clone(),
            runs: a.runs,
            cfg,
            page_bytes: 1 << 30,
            realtime: !a.no_realtime,
            tls: a.tls,
        };
        let mut err = None;
        let recs = eval::evaluate(&opts, &mut |r| {
            if let Err(e) = emit(r) {
                err.get_or_insert(e);
            }
        })?;
        if let Some(e) = err {
            return Err(e);
        }
        let t = eval::table(&recs);
        if !a.json {
            println!("\n{t}");
        }
        if let Some(d) = &a.out {
            let p = d.join("table.md");
            write_atomic(&p, t.as_bytes()).map_err(CliError::io("write", &p))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let ip_forward = std::fs::read_to_string("/proc/sys/net/ipv4/ip_forward").unwrap_or_default();
    if ip_forward.trim() != "1" {
        return usage("the census receiver's packets are forwarded by this host's kernel: enable forwarding (sysctl -w net.ipv4.ip_forward=1) and, for servers beyond this host, NAT its address range (iptables -t nat -A POSTROUTING -s 10.254.0.0/16 -j MASQUERADE); docs/census.md");
    }
    let pid = std::process::id();
    let octet = (pid % 250) as u8 + 1;
    let tun = probe::open_tun(
        None,
        &format!("scvcen{}", pid % 1_000_000),
        Ipv4Addr::new(10, 254, octet, 1),
        Ipv4Addr::new(10, 254, octet, 2),
    )?;
    let mut failed = false;
    for (i, t) in targets.iter().enumerate() {
        let port = 40000 + (pid % 10000) as u16 + i as u16;
        let r = probe::run(&tun, t, &cfg, port);
        failed |= r.is_err();
        emit(&eval::record(t, &cfg, r))?;
        if netns::stop_requested() {
            break;
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn write_record(dir: &Path, r: &CensusRecord) -> Result<(), CliError> {
    let mut stem = format!("census-{}", report::file_stem(&r.url));
    if let (Some(l), Some(t), Some(n)) = (&r.link, &r.true_algorithm, r.run) {
        stem = format!("census-{l}-{}-{n:02}", t.replace(':', "-"));
    }
    let json = serde_json::to_vec_pretty(r).expect("a census record serialises");
    let p = dir.join(format!("{stem}.json"));
    write_atomic(&p, &json).map_err(CliError::io("write", &p))?;
    if let Some(o) = &r.outcome {
        let title = match &r.true_algorithm {
            Some(t) => format!("{t}: {} ({:.2})", r.verdict.class, r.verdict.confidence),
            None => format!(
                "{}: {} ({:.2})",
                r.url, r.verdict.class, r.verdict.confidence
            ),
        };
        let p = dir.join(format!("{stem}.svg"));
        write_atomic(&p, report::plot(&title, &o.trace).as_bytes())
            .map_err(CliError::io("write", &p))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(a: &[&str]) -> Result<CensusArgs, clap::Error> {
        let argv = ["scavenger", "census"].iter().chain(a.iter()).copied();
        match crate::Cli::try_parse_from(argv)?.cmd {
            crate::Cmd::Census(c) => Ok(c),
            _ => unreachable!("the census subcommand"),
        }
    }

    #[test]
    fn tls_trust_options_become_the_probe_config() {
        let c = args(&["https://10.0.0.1/", "--insecure"]).unwrap();
        assert_eq!(c.config().unwrap().trust, Some(Trust::Insecure));
        let pin = "ab".repeat(32);
        let c = args(&["https://10.0.0.1/", "--pin", &pin]).unwrap();
        assert_eq!(
            c.config().unwrap().trust,
            Some(Trust::Pinned {
                sha256: pin.clone()
            })
        );
        let c = args(&["https://10.0.0.1/", "--pin", "xyz"]).unwrap();
        let e = c.config().unwrap_err();
        assert!(e.to_string().starts_with("pin = \"xyz\""), "{e}");
        assert!(e.is_usage(), "a bad --pin is a usage error (exit 2)");
        assert!(args(&["https://10.0.0.1/", "--insecure", "--pin", &pin]).is_err());
        // --tls is the evaluation's; URLs say https:// themselves.
        let c = args(&["https://10.0.0.1/", "--tls"]).unwrap();
        let e = run_inner(&c).unwrap_err();
        assert!(e.to_string().contains("--tls is for --testbed"), "{e}");
        assert!(e.is_usage());
    }
}
