//! The algorithm registry: every algorithm's name, source, parameter table and
//! constructor, so that scenarios, the CLI and every datapath find algorithms by name.

use crate::api::{CcInit, CongestionControl};
use crate::params::{ParamError, ParamSet, ParamSpec, RawParam};

/// A controller by name: its source, parameter table and constructor. `Ctl` is the
/// controller's trait, `Init` what it starts from; [`AlgorithmInfo`] (senders) and
/// [`crate::receiver_api::ReceiverAlgorithmInfo`] (receivers) are the two kinds.
pub struct Registration<Ctl: ?Sized, Init> {
    pub name: &'static str,
    /// Other accepted names (e.g. "reno" for "newreno").
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    /// Document and section the controller follows.
    pub source: &'static str,
    pub params: &'static [ParamSpec],
    pub build: fn(&ParamSet, Init) -> Box<Ctl>,
}

/// A sender-side congestion control.
pub type AlgorithmInfo = Registration<dyn CongestionControl, CcInit>;

impl<Ctl: ?Sized, Init> Registration<Ctl, Init> {
    pub fn resolve<'a, I>(&self, user: I) -> Result<ParamSet, ParamError>
    where
        I: IntoIterator<Item = (&'a str, &'a RawParam)>,
    {
        ParamSet::resolve(self.name, self.params, user)
    }

    pub fn instantiate(&self, params: &ParamSet, init: Init) -> Box<Ctl> {
        (self.build)(params, init)
    }

    /// Whether `name` is this controller's name or one of its aliases, ignoring case.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
            || self.aliases.iter().any(|x| x.eq_ignore_ascii_case(name))
    }
}

/// The entry of `all` named `name` (or an alias of it), case-insensitively.
pub(crate) fn find_in<Ctl: ?Sized, Init>(
    all: &'static [&'static Registration<Ctl, Init>],
    name: &str,
) -> Option<&'static Registration<Ctl, Init>> {
    all.iter().copied().find(|a| a.answers_to(name))
}

/// The names in `all`, comma-separated, for error messages.
pub(crate) fn names_in<Ctl: ?Sized, Init>(all: &[&Registration<Ctl, Init>]) -> String {
    all.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
}

/// All registered algorithms, in the order `scavenger algorithms` lists them.
pub fn algorithms() -> &'static [&'static AlgorithmInfo] {
    crate::algorithms::ALL
}

/// Looks an algorithm up by name or alias, case-insensitively.
pub fn find(name: &str) -> Option<&'static AlgorithmInfo> {
    find_in(algorithms(), name)
}

/// The names a user may choose from, for error messages.
pub fn known_names() -> String {
    names_in(algorithms())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_defaults_are_within_their_own_ranges() {
        let mut seen = std::collections::BTreeSet::new();
        for a in algorithms() {
            for n in std::iter::once(&a.name).chain(a.aliases.iter()) {
                assert!(
                    seen.insert(n.to_ascii_lowercase()),
                    "duplicate algorithm name {n}"
                );
            }
            let mut pnames = std::collections::BTreeSet::new();
            for p in a.params {
                assert!(
                    pnames.insert(p.name),
                    "{}: duplicate parameter {}",
                    a.name,
                    p.name
                );
                assert!(
                    !p.source.is_empty() && !p.doc.is_empty(),
                    "{}: parameter {} lacks doc or source",
                    a.name,
                    p.name
                );
                use crate::params::{ParamKind as K, ParamValue as V};
                let ok = match (p.kind, p.default) {
                    (K::Float { min, max }, V::Float(x)) => x >= min && x <= max,
                    (K::Int { min, max }, V::Int(x)) => x >= min && x <= max,
                    (K::Bool, V::Bool(_)) => true,
                    (K::Duration { min, max }, V::Dur(d)) => d >= min && d <= max,
                    (K::Choice(opts), V::Choice(c)) => opts.contains(&c),
                    _ => false,
                };
                assert!(
                    ok,
                    "{}: default of {} does not fit its kind",
                    a.name, p.name
                );
            }
            assert!(!a.source.is_empty());
        }
        assert!(find("RENO").is_some_and(|a| a.name == "newreno"));
        assert!(find("no-such-algorithm").is_none());
    }
}
