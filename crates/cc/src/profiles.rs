//! Per-algorithm facts that the studies we reproduce rely on, kept in one table that the
//! studies (crates/lab) and the simulator tests both read instead of restating them:
//!
//! - the configuration a source ran an algorithm in, as a registered preset (the Ong 2020
//!   CDG is stock Linux `tcp_cdg`, the `cdg-linux` preset);
//! - what an algorithm expects of the datapath (Copa and Vivace acknowledge every packet).

use crate::algorithms::cdg;
use crate::registry::{find, AlgorithmInfo};

/// How a source ran an algorithm: a registered preset whose defaults are that
/// configuration and whose parameters are the algorithm's own (same names and kinds), so
/// the configuration can be given to the algorithm itself as parameters.
pub struct SourceConfig {
    /// The source's short name (docs/sources.md), e.g. "Ong 2020".
    pub source: &'static str,
    pub preset: &'static AlgorithmInfo,
    /// Where the source says so.
    pub cite: &'static str,
}

/// What one algorithm needs beyond its registry defaults.
pub struct Profile {
    /// The registry name.
    pub algorithm: &'static str,
    /// The receiver acknowledges every packet (no delayed ACKs): the algorithm's only
    /// public implementation is a user-space client that does, and its behaviour
    /// depends on it.
    pub ack_every_packet: bool,
    /// Why, with source and section ("" when `ack_every_packet` is false).
    pub ack_cite: &'static str,
    /// The configurations sources ran it in, if not the registry defaults.
    pub source_configs: &'static [SourceConfig],
}

pub static PROFILES: &[Profile] = &[
    Profile {
        algorithm: "cdg",
        ack_every_packet: false,
        ack_cite: "",
        source_configs: &[SourceConfig {
            source: "Ong 2020",
            preset: &cdg::LINUX,
            cite: "Ong 2020 §2.11 (the Linux 4.4 tcp_cdg module with its defaults; Ong 2020 notes §2.11)",
        }],
    },
    Profile {
        algorithm: "copa",
        ack_every_packet: true,
        ack_cite: "Wang 2018 §3.1: only user-space UDP implementations are publicly available, and they acknowledge every packet; with delayed ACKs Copa's \"nearly empty\" test fails alone (docs/deviations/copa.md#copa-ack-every-packet)",
        source_configs: &[],
    },
    Profile {
        algorithm: "vivace",
        ack_every_packet: true,
        ack_cite: "Wang 2018 §3.1: only user-space UDP implementations are publicly available, and they acknowledge every packet",
        source_configs: &[],
    },
];

/// The profile of `algorithm` (a registry name or alias), if it has one.
pub fn profile(algorithm: &str) -> Option<&'static Profile> {
    let name = find(algorithm)?.name;
    PROFILES.iter().find(|p| p.algorithm == name)
}

/// Whether `algorithm`'s receiver must acknowledge every packet.
pub fn acks_every_packet(algorithm: &str) -> bool {
    profile(algorithm).is_some_and(|p| p.ack_every_packet)
}

/// The preset holding the configuration `source` ran `algorithm` in, if it differs from
/// the registry defaults.
pub fn source_config(source: &str, algorithm: &str) -> Option<&'static AlgorithmInfo> {
    profile(algorithm)?
        .source_configs
        .iter()
        .find(|c| c.source == source)
        .map(|c| c.preset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::cdg::CdgConfig;
    use crate::params::ParamSet;

    #[test]
    fn every_profile_names_a_registered_algorithm_and_compatible_presets() {
        for p in PROFILES {
            let info = find(p.algorithm).expect(p.algorithm);
            assert_eq!(info.name, p.algorithm, "use the registry name");
            assert_eq!(
                p.ack_every_packet,
                !p.ack_cite.is_empty(),
                "{}",
                p.algorithm
            );
            for c in p.source_configs {
                // The preset is registered and takes exactly the algorithm's parameters.
                assert!(find(c.preset.name).is_some(), "{}", c.preset.name);
                let kinds = |i: &AlgorithmInfo| -> Vec<_> {
                    i.params
                        .iter()
                        .map(|s| (s.name, std::mem::discriminant(&s.kind)))
                        .collect()
                };
                assert_eq!(kinds(c.preset), kinds(info), "{}", c.preset.name);
                assert!(!c.cite.is_empty());
            }
        }
    }

    #[test]
    fn copa_and_vivace_ack_every_packet_and_ong_2020_ran_stock_linux_cdg() {
        assert!(acks_every_packet("copa") && acks_every_packet("pcc-vivace"));
        assert!(!acks_every_packet("cubic") && !acks_every_packet("no-such"));
        let preset = source_config("Ong 2020", "cdg").unwrap();
        assert_eq!(preset.name, "cdg-linux");
        assert_eq!(
            CdgConfig::try_from(&ParamSet::defaults(preset.params)).unwrap(),
            CdgConfig::linux()
        );
        assert!(source_config("Hayes & Armitage 2011", "cdg").is_none());
        assert!(source_config("Ong 2020", "vegas").is_none());
    }
}
