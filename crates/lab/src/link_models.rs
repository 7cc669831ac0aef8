//! The `[link]` syntax for network models: queue disciplines, loss models, jitter,
//! delivery traces, on/off schedules and presets. Each parser checks every field and
//! names it in errors; each serialiser writes the model with every default filled in,
//! so result records say exactly what ran.

use crate::error::InputError;
use crate::toml_fields::Fields;
use scavenger_cc::units::parse_bytes;
use scavenger_cc::{Dur, Rate};
use scavenger_net::{
    CodelParams, DeliveryTrace, FqCodelParams, Jitter, LossModel, OnOff, PieEstimator, PieParams,
    QdiscConfig, RedParams,
};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::sync::Arc;
use toml::Value;

const QDISCS: &str = "drop-tail, drop-head, red, codel, pie, fq-codel";

fn kind_of(s: &str) -> Option<&'static str> {
    Some(match s.to_ascii_lowercase().replace('_', "-").as_str() {
        "drop-tail" | "droptail" | "pfifo" | "fifo" => "drop-tail",
        "drop-head" | "drophead" => "drop-head",
        "red" => "red",
        "codel" => "codel",
        "pie" => "pie",
        "fq-codel" | "fqcodel" => "fq-codel",
        _ => return None,
    })
}

/// A positive duration field.
fn pos_dur(t: &Fields, key: &str) -> Result<Option<Dur>, InputError> {
    let d = t.dur(key)?;
    if d == Some(Dur::ZERO) {
        return Err(t.err(
            key,
            format!("{} must be greater than zero", t.raw(key).expect("present")),
        ));
    }
    Ok(d)
}

/// A positive byte count, written as an integer or a size string.
fn pos_bytes(t: &Fields, key: &str, max: u64) -> Result<Option<u64>, InputError> {
    let b = match t.raw(key) {
        None => return Ok(None),
        Some(Value::Integer(i)) if *i > 0 => *i as u64,
        Some(Value::String(s)) => parse_bytes(s).map_err(|m| t.err(key, m.to_string()))?,
        Some(v) => {
            return Err(t.err(
                key,
                format!("{v}: expected a positive number of bytes (e.g. 1514 or \"1514B\")"),
            ))
        }
    };
    if b == 0 || b > max {
        return Err(t.err(
            key,
            format!("{b} bytes is out of range; allowed: 1 to {max} bytes"),
        ));
    }
    Ok(Some(b))
}

/// Parses `qdisc = "codel"` or `qdisc = { kind = "codel", target = "5ms", ... }`.
pub fn parse_qdisc(f: &Fields, key: &str) -> Result<Option<QdiscConfig>, InputError> {
    let (kind, table) = match f.raw(key) {
        None => return Ok(None),
        Some(Value::String(s)) => (kind_of(s).ok_or_else(|| f.err(key, format!("unknown queue discipline \"{s}\"; known: {QDISCS}")))?, None),
        Some(Value::Table(_)) => {
            let t = f.table(key)?.expect("a table");
            let k = t.str("kind")?.ok_or_else(|| t.err("kind", format!("is required; one of {QDISCS}")))?;
            (kind_of(k).ok_or_else(|| t.err("kind", format!("unknown queue discipline \"{k}\"; known: {QDISCS}")))?, Some(t))
        }
        Some(v) => return Err(f.err(key, format!("expected a discipline name or a table such as {{ kind = \"codel\", target = \"5ms\" }}, found {v}"))),
    };
    let Some(t) = table else {
        return Ok(Some(match kind {
            "drop-tail" => QdiscConfig::DropTail,
            "drop-head" => QdiscConfig::DropHead,
            "red" => QdiscConfig::Red(RedParams::default()),
            "codel" => QdiscConfig::Codel(CodelParams::default()),
            "pie" => QdiscConfig::Pie(PieParams::default()),
            _ => QdiscConfig::FqCodel(FqCodelParams::default()),
        }));
    };
    Ok(Some(match kind {
        "drop-tail" => {
            t.only(&["kind"])?;
            QdiscConfig::DropTail
        }
        "drop-head" => {
            t.only(&["kind"])?;
            QdiscConfig::DropHead
        }
        "red" => {
            t.only(&[
                "kind",
                "min_th",
                "max_th",
                "max_p",
                "w_q",
                "gentle",
                "mode",
                "mean_pktsize",
                "wait",
                "target_delay",
                "ecn",
                "mark_p",
            ])?;
            let d = RedParams::default();
            let min_th = t.float("min_th", 0.0, 1e9)?;
            let max_th = t.float("max_th", 0.0, 1e9)?;
            if let (Some(a), Some(b)) = (min_th, max_th) {
                if b <= a {
                    return Err(t.err("max_th", format!("{b} must be greater than min_th ({a})")));
                }
            }
            let max_p = t.float("max_p", 0.0, 1.0)?.unwrap_or(d.max_p);
            if max_p == 0.0 {
                return Err(t.err(
                    "max_p",
                    "0 is out of range; allowed: a number greater than 0 and at most 1",
                ));
            }
            let w_q = t.float("w_q", 0.0, 1.0)?;
            if w_q == Some(0.0) {
                return Err(t.err("w_q", "0 is out of range; allowed: a number greater than 0 and at most 1 (omit it for ns-2's automatic value)"));
            }
            let bytes = match t.str("mode")? {
                None => d.bytes,
                Some("bytes") => true,
                Some("packets") => false,
                Some(m) => {
                    return Err(t.err(
                        "mode",
                        format!("\"{m}\" is not a RED mode; allowed: \"packets\", \"bytes\""),
                    ))
                }
            };
            QdiscConfig::Red(RedParams {
                min_th,
                max_th,
                max_p,
                w_q,
                gentle: t.bool("gentle")?.unwrap_or(d.gentle),
                bytes,
                mean_pktsize: pos_bytes(&t, "mean_pktsize", 65_535)?
                    .map_or(d.mean_pktsize, |b| b as u32),
                wait: t.bool("wait")?.unwrap_or(d.wait),
                target_delay: pos_dur(&t, "target_delay")?.unwrap_or(d.target_delay),
                ecn: t.bool("ecn")?.unwrap_or(d.ecn),
                mark_p: t.float("mark_p", 0.0, 1.0)?.unwrap_or(d.mark_p),
            })
        }
        "codel" => {
            t.only(&["kind", "target", "interval", "mtu", "ecn"])?;
            let d = CodelParams::default();
            QdiscConfig::Codel(CodelParams {
                target: pos_dur(&t, "target")?.unwrap_or(d.target),
                interval: pos_dur(&t, "interval")?.unwrap_or(d.interval),
                mtu: pos_bytes(&t, "mtu", 65_535)?.map_or(d.mtu, |b| b as u32),
                ecn: t.bool("ecn")?.unwrap_or(d.ecn),
            })
        }
        "pie" => {
            t.only(&[
                "kind",
                "target",
                "t_update",
                "alpha",
                "beta",
                "max_burst",
                "ecn",
                "max_ecnth",
                "bytemode",
                "mean_pktsize",
                "derandomize",
                "estimator",
                "dq_threshold",
            ])?;
            let d = PieParams::default();
            let estimator = match t.str("estimator")? {
                None | Some("timestamp") => {
                    if t.raw("dq_threshold").is_some() {
                        return Err(t.err("dq_threshold", "only applies with estimator = \"dequeue-rate\""));
                    }
                    PieEstimator::Timestamp
                }
                Some("dequeue-rate") => PieEstimator::DequeueRate { dq_threshold: pos_bytes(&t, "dq_threshold", u32::MAX as u64)?.map_or(16_384, |b| b as u32) },
                Some(e) => return Err(t.err("estimator", format!("\"{e}\" is not a PIE delay estimator; allowed: \"timestamp\", \"dequeue-rate\""))),
            };
            let max_burst = match t.dur("max_burst")? {
                Some(b) => b,
                None => d.max_burst,
            };
            QdiscConfig::Pie(PieParams {
                target: pos_dur(&t, "target")?.unwrap_or(d.target),
                t_update: pos_dur(&t, "t_update")?.unwrap_or(d.t_update),
                alpha: t.float("alpha", 0.0, 1e6)?.unwrap_or(d.alpha),
                beta: t.float("beta", 0.0, 1e6)?.unwrap_or(d.beta),
                max_burst,
                ecn: t.bool("ecn")?.unwrap_or(d.ecn),
                max_ecnth: t.float("max_ecnth", 0.0, 1.0)?.unwrap_or(d.max_ecnth),
                bytemode: t.bool("bytemode")?.unwrap_or(d.bytemode),
                mean_pktsize: pos_bytes(&t, "mean_pktsize", 65_535)?
                    .map_or(d.mean_pktsize, |b| b as u32),
                derandomize: t.bool("derandomize")?.unwrap_or(d.derandomize),
                estimator,
            })
        }
        _ => {
            t.only(&[
                "kind",
                "flows",
                "quantum",
                "target",
                "interval",
                "mtu",
                "ecn",
                "drop_batch",
            ])?;
            let d = FqCodelParams::default();
            QdiscConfig::FqCodel(FqCodelParams {
                flows: t.int("flows", 1, 65_536)?.map_or(d.flows, |x| x as u32),
                quantum: pos_bytes(&t, "quantum", 1 << 20)?.map_or(d.quantum, |b| b as u32),
                target: pos_dur(&t, "target")?.unwrap_or(d.target),
                interval: pos_dur(&t, "interval")?.unwrap_or(d.interval),
                mtu: pos_bytes(&t, "mtu", 65_535)?.map_or(d.mtu, |b| b as u32),
                ecn: t.bool("ecn")?.unwrap_or(d.ecn),
                drop_batch: t
                    .int("drop_batch", 1, 65_536)?
                    .map_or(d.drop_batch, |x| x as u32),
            })
        }
    }))
}

/// The hard limit an AQM gets when the scenario gives no buffer (Linux defaults):
/// 1000 packets for CoDel and PIE, 10240 for FQ-CoDel.
pub fn default_limit_packets(q: &QdiscConfig) -> Option<u32> {
    match q {
        QdiscConfig::Codel(_) | QdiscConfig::Pie(_) => Some(1000),
        QdiscConfig::FqCodel(_) => Some(10_240),
        _ => None,
    }
}

fn fmt_dur(d: Dur) -> String {
    d.to_string()
}

/// Writes a discipline with all its parameters.
pub fn ser_qdisc<S: Serializer>(q: &QdiscConfig, s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(None)?;
    m.serialize_entry("kind", q.name())?;
    match q {
        QdiscConfig::DropTail | QdiscConfig::DropHead => {}
        QdiscConfig::Red(p) => {
            match p.min_th {
                Some(x) => m.serialize_entry("min_th", &x)?,
                None => m.serialize_entry("min_th", "auto")?,
            }
            match p.max_th {
                Some(x) => m.serialize_entry("max_th", &x)?,
                None => m.serialize_entry("max_th", "auto")?,
            }
            m.serialize_entry("max_p", &p.max_p)?;
            match p.w_q {
                Some(x) => m.serialize_entry("w_q", &x)?,
                None => m.serialize_entry("w_q", "auto")?,
            }
            m.serialize_entry("gentle", &p.gentle)?;
            m.serialize_entry("mode", if p.bytes { "bytes" } else { "packets" })?;
            m.serialize_entry("mean_pktsize", &p.mean_pktsize)?;
            m.serialize_entry("wait", &p.wait)?;
            m.serialize_entry("target_delay", &fmt_dur(p.target_delay))?;
            m.serialize_entry("ecn", &p.ecn)?;
            m.serialize_entry("mark_p", &p.mark_p)?;
        }
        QdiscConfig::Codel(p) => {
            m.serialize_entry("target", &fmt_dur(p.target))?;
            m.serialize_entry("interval", &fmt_dur(p.interval))?;
            m.serialize_entry("mtu", &p.mtu)?;
            m.serialize_entry("ecn", &p.ecn)?;
        }
        QdiscConfig::Pie(p) => {
            m.serialize_entry("target", &fmt_dur(p.target))?;
            m.serialize_entry("t_update", &fmt_dur(p.t_update))?;
            m.serialize_entry("alpha", &p.alpha)?;
            m.serialize_entry("beta", &p.beta)?;
            m.serialize_entry("max_burst", &fmt_dur(p.max_burst))?;
            m.serialize_entry("ecn", &p.ecn)?;
            m.serialize_entry("max_ecnth", &p.max_ecnth)?;
            m.serialize_entry("bytemode", &p.bytemode)?;
            m.serialize_entry("mean_pktsize", &p.mean_pktsize)?;
            m.serialize_entry("derandomize", &p.derandomize)?;
            match p.estimator {
                PieEstimator::Timestamp => m.serialize_entry("estimator", "timestamp")?,
                PieEstimator::DequeueRate { dq_threshold } => {
                    m.serialize_entry("estimator", "dequeue-rate")?;
                    m.serialize_entry("dq_threshold", &dq_threshold)?;
                }
            }
        }
        QdiscConfig::FqCodel(p) => {
            m.serialize_entry("flows", &p.flows)?;
            m.serialize_entry("quantum", &p.quantum)?;
            m.serialize_entry("target", &fmt_dur(p.target))?;
            m.serialize_entry("interval", &fmt_dur(p.interval))?;
            m.serialize_entry("mtu", &p.mtu)?;
            m.serialize_entry("ecn", &p.ecn)?;
            m.serialize_entry("drop_batch", &p.drop_batch)?;
        }
    }
    m.end()
}

/// Parses `loss = 0.01` (Bernoulli) or a table:
/// `{ kind = "bernoulli", p = 0.01 }` or
/// `{ kind = "gilbert-elliott", p = 0.01, r = 0.3, loss_good = 0, loss_bad = 1 }`.
pub fn parse_loss(f: &Fields, key: &str) -> Result<Option<LossModel>, InputError> {
    match f.raw(key) {
        None => Ok(None),
        Some(Value::Integer(_) | Value::Float(_)) => {
            let p = f.float(key, 0.0, 1.0)?.expect("present");
            Ok(Some(if p > 0.0 { LossModel::Bernoulli { p } } else { LossModel::None }))
        }
        Some(Value::Table(_)) => {
            let t = f.table(key)?.expect("a table");
            let kind = t.str("kind")?.ok_or_else(|| t.err("kind", "is required: \"bernoulli\" or \"gilbert-elliott\""))?;
            match kind.to_ascii_lowercase().replace('_', "-").as_str() {
                "none" => {
                    t.only(&["kind"])?;
                    Ok(Some(LossModel::None))
                }
                "bernoulli" => {
                    t.only(&["kind", "p"])?;
                    let p = t.float("p", 0.0, 1.0)?.ok_or_else(|| t.err("p", "is required: the loss probability per packet"))?;
                    Ok(Some(if p > 0.0 { LossModel::Bernoulli { p } } else { LossModel::None }))
                }
                "gilbert-elliott" | "gilbert" | "ge" => {
                    t.only(&["kind", "p", "r", "loss_good", "loss_bad"])?;
                    let p = t.float("p", 0.0, 1.0)?.ok_or_else(|| t.err("p", "is required: the probability of moving from the good to the bad state, per packet"))?;
                    let r = t.float("r", 0.0, 1.0)?.ok_or_else(|| t.err("r", "is required: the probability of moving from the bad to the good state, per packet"))?;
                    let loss_good = t.float("loss_good", 0.0, 1.0)?.unwrap_or(0.0);
                    let loss_bad = t.float("loss_bad", 0.0, 1.0)?.unwrap_or(1.0);
                    if p > 0.0 && r == 0.0 {
                        return Err(t.err("r", "0 with p > 0 traps the chain in the bad state; give r > 0"));
                    }
                    Ok(Some(LossModel::GilbertElliott { p, r, loss_good, loss_bad }))
                }
                other => Err(t.err("kind", format!("unknown loss model \"{other}\"; known: none, bernoulli, gilbert-elliott"))),
            }
        }
        Some(v) => Err(f.err(key, format!("expected a probability (e.g. 0.01) or a table such as {{ kind = \"gilbert-elliott\", p = 0.01, r = 0.3 }}, found {v}"))),
    }
}

pub fn ser_loss<S: Serializer>(l: &LossModel, s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(None)?;
    match *l {
        LossModel::None => m.serialize_entry("kind", "none")?,
        LossModel::Bernoulli { p } => {
            m.serialize_entry("kind", "bernoulli")?;
            m.serialize_entry("p", &p)?;
        }
        LossModel::GilbertElliott {
            p,
            r,
            loss_good,
            loss_bad,
        } => {
            m.serialize_entry("kind", "gilbert-elliott")?;
            m.serialize_entry("p", &p)?;
            m.serialize_entry("r", &r)?;
            m.serialize_entry("loss_good", &loss_good)?;
            m.serialize_entry("loss_bad", &loss_bad)?;
            m.serialize_entry("mean_loss", &l.mean_loss())?;
        }
    }
    m.end()
}

/// Parses `jitter = "5ms"` (uniform ±5 ms, order kept) or
/// `{ distribution = "normal", amount = "5ms", preserve_order = false }`.
pub fn parse_jitter(f: &Fields, key: &str) -> Result<Option<Jitter>, InputError> {
    match f.raw(key) {
        None => Ok(None),
        Some(Value::String(_)) => {
            let amount = f.dur(key)?.expect("present");
            Ok(Some(if amount == Dur::ZERO { Jitter::None } else { Jitter::Uniform { amount, preserve_order: true } }))
        }
        Some(Value::Table(_)) => {
            let t = f.table(key)?.expect("a table");
            t.only(&["distribution", "amount", "preserve_order"])?;
            let amount = t.dur("amount")?.ok_or_else(|| t.err("amount", "is required: the half-width (uniform) or standard deviation (normal), e.g. \"5ms\""))?;
            let preserve_order = t.bool("preserve_order")?.unwrap_or(true);
            if amount == Dur::ZERO {
                return Ok(Some(Jitter::None));
            }
            match t.str("distribution")?.unwrap_or("uniform") {
                "uniform" => Ok(Some(Jitter::Uniform { amount, preserve_order })),
                "normal" => Ok(Some(Jitter::Normal { stdev: amount, preserve_order })),
                d => Err(t.err("distribution", format!("\"{d}\" is not a jitter distribution; allowed: \"uniform\", \"normal\""))),
            }
        }
        Some(v) => Err(f.err(key, format!("expected a duration such as \"5ms\" or a table such as {{ distribution = \"normal\", amount = \"5ms\" }}, found {v}"))),
    }
}

pub fn ser_jitter<S: Serializer>(j: &Jitter, s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(None)?;
    match *j {
        Jitter::None => m.serialize_entry("distribution", "none")?,
        Jitter::Uniform {
            amount,
            preserve_order,
        } => {
            m.serialize_entry("distribution", "uniform")?;
            m.serialize_entry("amount", &fmt_dur(amount))?;
            m.serialize_entry("preserve_order", &preserve_order)?;
        }
        Jitter::Normal {
            stdev,
            preserve_order,
        } => {
            m.serialize_entry("distribution", "normal")?;
            m.serialize_entry("amount", &fmt_dur(stdev))?;
            m.serialize_entry("preserve_order", &preserve_order)?;
        }
    }
    m.end()
}

/// A delivery trace read from a file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceSpec {
    /// As written in the scenario.
    pub file: String,
    pub format: &'static str,
    pub opportunities: usize,
    #[serde(serialize_with = "crate::link_models::ser_to_string")]
    pub period: Dur,
    #[serde(serialize_with = "crate::link_models::ser_to_string")]
    pub mean_rate: Rate,
    #[serde(skip)]
    pub trace: Arc<DeliveryTrace>,
}

pub fn ser_to_string<T: std::fmt::Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}

/// Parses `trace = "path"` or `trace = { file = "path", opportunity_bytes = 1504 }`.
/// Relative paths are relative to the scenario file's directory.
pub fn parse_trace(f: &Fields, key: &str) -> Result<Option<TraceSpec>, InputError> {
    let (file, bytes) = match f.raw(key) {
        None => return Ok(None),
        Some(Value::String(s)) => (s.clone(), scavenger_net::trace::MAHIMAHI_OPPORTUNITY_BYTES),
        Some(Value::Table(_)) => {
            let t = f.table(key)?.expect("a table");
            t.only(&["file", "opportunity_bytes"])?;
            let file = t.str("file")?.ok_or_else(|| t.err("file", "is required: the trace file's path"))?.to_string();
            let b = pos_bytes(&t, "opportunity_bytes", 65_535)?.map_or(scavenger_net::trace::MAHIMAHI_OPPORTUNITY_BYTES, |b| b as u32);
            (file, b)
        }
        Some(v) => return Err(f.err(key, format!("expected a file path or a table such as {{ file = \"trace.up\", opportunity_bytes = 1500 }}, found {v}"))),
    };
    let path = std::path::Path::new(&file);
    let resolved = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::path::Path::new(f.file)
            .parent()
            .map_or_else(|| path.to_path_buf(), |d| d.join(path))
    };
    let text = std::fs::read_to_string(&resolved).map_err(|e| {
        f.err(
            key,
            format!("cannot read trace file \"{}\": {e}", resolved.display()),
        )
    })?;
    let trace = DeliveryTrace::parse(&text, bytes)
        .map_err(|e| f.err(key, format!("trace file \"{}\": {e}", resolved.display())))?;
    let format = match trace.format() {
        scavenger_net::trace::TraceFormat::Mahimahi => "mahimahi",
        scavenger_net::trace::TraceFormat::Native => "scavenger-trace v1",
    };
    Ok(Some(TraceSpec {
        file,
        format,
        opportunities: trace.len(),
        period: trace.period(),
        mean_rate: trace.mean_rate(),
        trace: Arc::new(trace),
    }))
}

/// Parses `on_off = { on = "9s", off = "1s", phase = "0s" }`.
pub fn parse_on_off(f: &Fields, key: &str) -> Result<Option<OnOff>, InputError> {
    let Some(t) = f.table(key)? else {
        return Ok(None);
    };
    t.only(&["on", "off", "phase"])?;
    let on = pos_dur(&t, "on")?
        .ok_or_else(|| t.err("on", "is required: how long the link is up in each cycle"))?;
    let off = pos_dur(&t, "off")?.ok_or_else(|| {
        t.err(
            "off",
            "is required: how long the link is down in each cycle",
        )
    })?;
    let phase = t.dur("phase")?.unwrap_or(Dur::ZERO);
    Ok(Some(OnOff { on, off, phase }))
}

pub fn ser_on_off<S: Serializer>(o: &Option<OnOff>, s: S) -> Result<S::Ok, S::Error> {
    match o {
        None => s.serialize_none(),
        Some(o) => {
            let mut m = s.serialize_map(None)?;
            m.serialize_entry("on", &fmt_dur(o.on))?;
            m.serialize_entry("off", &fmt_dur(o.off))?;
            m.serialize_entry("phase", &fmt_dur(o.phase))?;
            m.end()
        }
    }
}

/// Named link set-ups (see docs/network-models.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// Ong 2020's 802.11n last hop: a variable-rate trace around `rate` with aggregation
    /// bursts and per-frame jitter, generated per run from the run's seed.
    Wifi,
    /// Trang 2015's GEO path: 250 ms one way, 10 Mbit/s and a 1-BDP buffer unless given.
    Satellite,
}

pub fn parse_preset(f: &Fields, key: &str) -> Result<Option<Preset>, InputError> {
    Ok(match f.str(key)? {
        None => None,
        Some("wifi") | Some("wireless") | Some("802.11n") => Some(Preset::Wifi),
        Some("satellite") | Some("geo") => Some(Preset::Satellite),
        Some(p) => {
            return Err(f.err(
                key,
                format!("unknown preset \"{p}\"; known: wifi, satellite"),
            ))
        }
    })
}
