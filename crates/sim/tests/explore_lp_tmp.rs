mod common;
use common::*;
use scavenger_cc::{Dur, Time};
use scavenger_sim::{run, JainSpec};

fn adsl(secs: u64) -> scavenger_sim::SimConfig {
    let mut c = dumbbell(8, 50, 70, secs);
    c.reverse.rate = scavenger_cc::Rate::from_mbps(1);
    c
}

fn algs() -> Vec<String> {
    std::env::var("ALGS").unwrap_or("tcp-lp,westwood-lp".into()).split(',').map(|s| s.to_string()).collect()
}

#[test]
fn series() {
    let bin: u64 = std::env::var("BIN_MS").ok().and_then(|s| s.parse().ok()).unwrap_or(100);
    let secs: u64 = std::env::var("SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    for alg in algs() {
        let mut c = adsl(secs);
        c.measure.series_bin = Some(Dur::from_millis(bin));
        c.flows.push(flow("bg", &alg));
        let r = run(c);
        let s = r.series.as_ref().unwrap();
        eprintln!("== {alg}");
        let names: Vec<&String> = s.flow_trace[0].iter().map(|(n, _)| n).collect();
        eprintln!("t util q cwnd {:?}", names);
        for i in 0..s.time_s.len() {
            let tr: Vec<String> = s.flow_trace[0].iter().map(|(_, v)| format!("{:.2}", v[i])).collect();
            eprintln!("{:.2} {:.2} {} {} {}", s.time_s[i], s.link_utilisation[i], s.queue_pkts[i], s.flow_cwnd_bytes[0][i] / 1448, tr.join(" "));
        }
    }
}

#[test]
fn summary() {
    for alg in algs() {
        let mut c = adsl(20);
        c.measure.series_bin = Some(Dur::from_secs(1));
        c.flows.push(flow("bg", &alg));
        let r = run(c);
        let u = &r.series.as_ref().unwrap().link_utilisation;
        let alone = u[15..20].iter().sum::<f64>() / 5.0;
        let rtt = r.flows[0].rtt_ms.mean.unwrap_or(0.0);
        let mut c = adsl(60);
        c.flows.push(flow("bg", &alg));
        let mut fg = flow("fg", "newreno"); fg.start = Time(5_000_000_000); c.flows.push(fg);
        c.measure.jain.push(JainSpec { name: "w".into(), flows: vec![0, 1], from: Time(10_000_000_000), to: Time(60_000_000_000) });
        let r = run(c);
        let g = &r.jain[0].goodput_bps;
        let mut fcts = vec![];
        for st in [10u64, 17, 24] {
            let mut c = adsl(60);
            c.flows.push(flow("bg", &alg));
            let mut fg = flow("fg", "newreno"); fg.start = Time(st * 1_000_000_000); fg.size = Some(2469 * 1024); c.flows.push(fg);
            let r = run(c);
            fcts.push(r.flows[1].completion_time_s.unwrap_or(f64::NAN));
        }
        eprintln!("{alg:12} alone util(15-20s) {alone:.3} rtt {rtt:.1} | vs reno(10-60s) bg {:.2} fg {:.2} Mbps ({:.0} / {:.0} KiB/s) | short fct {:?}", g[0]/1e6, g[1]/1e6, g[0]/8.0/1024.0, g[1]/8.0/1024.0, fcts);
    }
}
