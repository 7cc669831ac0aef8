//! `--subset`: which runs of a study `reproduce` runs (docs/cli.md#subset).
//!
//! A run is labelled by its experiment id (`dl/8-1/50ms/newreno-short-1/cubic`) and has
//! a seed. The flag's value is one or more patterns separated by commas; a run is chosen
//! when any pattern matches it. A pattern is a glob over the whole label, where `*`
//! stands for any run of characters (`/` included) and every other character stands for
//! itself, optionally followed by `@SEEDS`: one seed (`@2`) or an inclusive range
//! (`@1-2`); without it every seed of the study is chosen.
//!
//! A pattern that chooses no run is an error, not an empty run: a typo would otherwise
//! silently run nothing (or, with several patterns, less than asked).

use crate::work::WorkItem;

/// Why a `--subset` value is not allowed. Each names the pattern and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubsetError {
    #[error("--subset {value:?}: pattern {index} is empty; allowed: GLOB[@SEEDS] patterns separated by commas, `*` matching any characters")]
    Empty { value: String, index: usize },
    #[error("--subset pattern {pattern:?}: seeds {seeds:?} are not a seed (`@2`) or an inclusive range of seeds (`@1-3`, first ≤ last)")]
    BadSeeds { pattern: String, seeds: String },
    #[error("--subset pattern {pattern:?} matches none of the {count} experiments of {study}{}; `*` matches any characters, e.g. `dl/*/cubic`", near.as_ref().map_or(String::new(), |n| format!(" (for example {n})")))]
    NoExperiment {
        pattern: String,
        study: String,
        count: usize,
        near: Option<String>,
    },
    #[error(
        "--subset pattern {pattern:?} asks for seeds the study does not run; its seeds: {allowed}"
    )]
    NoSeed { pattern: String, allowed: String },
}

/// One parsed pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Pattern {
    text: String,
    /// The glob split at its `*`s: the label must start with the first part, end with
    /// the last and hold the others in order between them.
    parts: Vec<String>,
    /// Inclusive seed range, or every seed.
    seeds: Option<(u64, u64)>,
}

impl Pattern {
    fn parse(text: &str) -> Result<Pattern, SubsetError> {
        let (glob, seeds) = match text.split_once('@') {
            Some((g, s)) => {
                let bad = || SubsetError::BadSeeds {
                    pattern: text.to_string(),
                    seeds: s.to_string(),
                };
                let (a, b) = s.split_once('-').unwrap_or((s, s));
                let a: u64 = a.trim().parse().map_err(|_| bad())?;
                let b: u64 = b.trim().parse().map_err(|_| bad())?;
                if a > b {
                    return Err(bad());
                }
                (g, Some((a, b)))
            }
            None => (text, None),
        };
        Ok(Pattern {
            text: text.to_string(),
            parts: glob.split('*').map(str::to_string).collect(),
            seeds,
        })
    }

    fn matches_label(&self, label: &str) -> bool {
        let (first, rest) = self.parts.split_first().expect("split gives one part");
        let Some(mut tail) = label.strip_prefix(first.as_str()) else {
            return false;
        };
        let Some((last, middle)) = rest.split_last() else {
            return tail.is_empty();
        };
        for m in middle {
            match tail.find(m.as_str()) {
                Some(i) => tail = &tail[i + m.len()..],
                None => return false,
            }
        }
        tail.ends_with(last.as_str())
    }

    fn matches_seed(&self, seed: u64) -> bool {
        self.seeds.is_none_or(|(a, b)| (a..=b).contains(&seed))
    }
}

/// A parsed `--subset` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subset {
    patterns: Vec<Pattern>,
}

impl Subset {
    pub fn parse(value: &str) -> Result<Subset, SubsetError> {
        let patterns = value
            .split(',')
            .enumerate()
            .map(|(i, p)| {
                let p = p.trim();
                if p.is_empty() || p.starts_with('@') {
                    Err(SubsetError::Empty {
                        value: value.to_string(),
                        index: i + 1,
                    })
                } else {
                    Pattern::parse(p)
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(Subset { patterns })
    }

    /// Whether the run labelled `label` with `seed` is chosen.
    pub fn matches(&self, label: &str, seed: u64) -> bool {
        self.patterns
            .iter()
            .any(|p| p.matches_label(label) && p.matches_seed(seed))
    }

    /// The items of `study` that the subset chooses, in the study's order. Every pattern
    /// must choose at least one run.
    pub fn select(&self, study: &str, items: Vec<WorkItem>) -> Result<Vec<WorkItem>, SubsetError> {
        for p in &self.patterns {
            if !items.iter().any(|w| p.matches_label(&w.label)) {
                let mut seen = std::collections::HashSet::new();
                let labels: Vec<&str> = items
                    .iter()
                    .map(|w| w.label.as_str())
                    .filter(|l| seen.insert(*l))
                    .collect();
                // The first label, in the study's order, sharing the longest prefix with
                // the pattern's fixed start.
                let near = labels
                    .iter()
                    .min_by_key(|l| std::cmp::Reverse(common_prefix(l, &p.parts[0])))
                    .map(|l| l.to_string());
                return Err(SubsetError::NoExperiment {
                    pattern: p.text.clone(),
                    study: study.to_string(),
                    count: labels.len(),
                    near,
                });
            }
            if !items
                .iter()
                .any(|w| p.matches_label(&w.label) && p.matches_seed(w.seed))
            {
                let mut seeds: Vec<u64> = items.iter().map(|w| w.seed).collect();
                seeds.sort_unstable();
                seeds.dedup();
                return Err(SubsetError::NoSeed {
                    pattern: p.text.clone(),
                    allowed: seeds
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        Ok(items
            .into_iter()
            .filter(|w| self.matches(&w.label, w.seed))
            .collect())
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(label: &str, seed: u64) -> WorkItem {
        let sc = crate::parse(
            "t.toml",
            "duration = \"1s\"\n[link]\nrate = \"8Mbit\"\ndelay = \"10ms\"\nbuffer = \"10 packets\"\n[[flow]]\nalgorithm = \"newreno\"\n",
        )
        .unwrap();
        WorkItem::new(label, sc, seed)
    }

    fn items() -> Vec<WorkItem> {
        let mut v = Vec::new();
        for l in [
            "dl/8-1/50ms/newreno-short-1/cubic",
            "dl/8-1/50ms/newreno-short-1/ledbat",
            "dl/8-1/350ms/newreno-long-1/ledbat",
            "fair/8-1/50ms/n4/ledbat",
        ] {
            for s in 1..=3 {
                v.push(item(l, s));
            }
        }
        v
    }

    fn chosen(value: &str) -> Vec<(String, u64)> {
        Subset::parse(value)
            .unwrap()
            .select("t", items())
            .unwrap()
            .into_iter()
            .map(|w| (w.label, w.seed))
            .collect()
    }

    #[test]
    fn a_pattern_without_a_star_matches_the_whole_label_only() {
        let s = Subset::parse("dl/8-1/50ms/newreno-short-1/cubic").unwrap();
        assert!(s.matches("dl/8-1/50ms/newreno-short-1/cubic", 1));
        assert!(!s.matches("dl/8-1/50ms/newreno-short-1/cubic2", 1));
        assert!(!s.matches("xdl/8-1/50ms/newreno-short-1/cubic", 1));
    }

    #[test]
    fn stars_match_any_characters_including_slashes() {
        let s = Subset::parse("dl/*/ledbat").unwrap();
        assert!(s.matches("dl/8-1/50ms/newreno-short-1/ledbat", 2));
        assert!(s.matches("dl/8-1/350ms/newreno-long-1/ledbat", 2));
        assert!(!s.matches("fair/8-1/50ms/n4/ledbat", 2));
        let s = Subset::parse("*ledbat").unwrap();
        assert!(s.matches("fair/8-1/50ms/n4/ledbat", 2));
        assert!(!s.matches("fair/8-1/50ms/n4/ledbat-plus-plus", 2));
        let s = Subset::parse("*50ms*ledbat*").unwrap();
        assert!(s.matches("dl/8-1/50ms/newreno-short-1/ledbat", 1));
        assert!(s.matches("fair/8-1/50ms/n4/ledbat", 1));
        assert!(!s.matches("dl/8-1/350ms/newreno-long-1/cubic", 1));
        // A star needs its fixed parts in order, not overlapping.
        let s = Subset::parse("ab*ba").unwrap();
        assert!(!s.matches("aba", 1));
        assert!(s.matches("abba", 1));
    }

    #[test]
    fn seeds_select_one_or_an_inclusive_range() {
        assert_eq!(
            chosen("fair/*@2"),
            vec![("fair/8-1/50ms/n4/ledbat".to_string(), 2)]
        );
        let c = chosen("*350ms*@1-2,fair/*@3");
        assert_eq!(
            c,
            vec![
                ("dl/8-1/350ms/newreno-long-1/ledbat".to_string(), 1),
                ("dl/8-1/350ms/newreno-long-1/ledbat".to_string(), 2),
                ("fair/8-1/50ms/n4/ledbat".to_string(), 3),
            ]
        );
        // Overlapping patterns choose a run once, in the study's order.
        assert_eq!(chosen("*cubic,dl/*/newreno-short-1/*@1").len(), 3 + 1);
    }

    #[test]
    fn bad_values_are_errors_naming_the_pattern() {
        assert!(matches!(
            Subset::parse("a,,b"),
            Err(SubsetError::Empty { index: 2, .. })
        ));
        assert!(matches!(
            Subset::parse("@2"),
            Err(SubsetError::Empty { index: 1, .. })
        ));
        for bad in ["x@", "x@a", "x@3-1", "x@1-", "x@-2"] {
            let e = Subset::parse(bad).unwrap_err();
            assert!(matches!(e, SubsetError::BadSeeds { .. }), "{bad}: {e:?}");
            assert!(e.to_string().contains(bad), "{e}");
        }
        let e = Subset::parse("dl/*/vegas")
            .unwrap()
            .select("ong2020", items())
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--subset pattern \"dl/*/vegas\" matches none of the 4 experiments of ong2020 (for example dl/8-1/50ms/newreno-short-1/cubic); `*` matches any characters, e.g. `dl/*/cubic`"
        );
        let e = Subset::parse("fair/*@4-9")
            .unwrap()
            .select("ong2020", items())
            .unwrap_err();
        assert_eq!(
            e,
            SubsetError::NoSeed {
                pattern: "fair/*@4-9".into(),
                allowed: "1, 2, 3".into()
            }
        );
    }
}
