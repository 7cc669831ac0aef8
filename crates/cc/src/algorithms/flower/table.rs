//! FLOWER's fuzzy table: the membership functions of e, Δe and Δcwnd and the rule base
//! (Trang 2015 §4.4–4.6), as Rust constants, and the inference over them.
//!
//! Table 4.1 (the rule base) and Fig 4.6 (the membership functions) are images lost from
//! the thesis text; the constants are Trang 2015 notes §3.4–3.6's reconstruction ([R]):
//! e centres every 20 %, Δe centres −q_max, sde₋, −3, −2, −1, 0, 1, 2, 3, sde₊, q_max ms
//! (thesis verbatim), output centres every 0.2 packet plus NVVL = −∞, and the "diagonal"
//! rule base out = clamp(i_e + j_Δe, −5, 5) with the Δe = PVL column = NVVL. It
//! reproduces the thesis's worked example (e = 35 %, Δe = 1 ms → +0.55 packet) and its
//! four anchor rules; see docs/deviations/flower.md#flower-rule-base.
//!
//! Membership functions are triangles whose feet sit on the neighbouring centres (a
//! partition of unity); inputs outside the first/last centre are clamped, so the
//! outermost sets act as shoulders. Inference is fixed by the thesis (§4.6): AND = min,
//! implication = min, centre-average defuzzification Δcwnd = Σ b_i·w_i / Σ w_i over the
//! rules that fire; a reset consequent (−∞) that fires with any weight resets cwnd.
//!
//! Another table (for example the original Table 4.1, if the LCN 2015 / Computer
//! Networks 2016 papers print it) is a [`FuzzyTable`] built in code and checked with
//! [`FuzzyTable::check`], given to `Flower::with_table`.

/// A Δe membership-function centre: a number (ms) or one of the adaptive breakpoints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DeCentre {
    Ms(f64),
    NegQmax,
    SdeNeg,
    SdePos,
    Qmax,
}

/// The adaptive Δe breakpoints in ms (Trang 2015 §4.5.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Breakpoints {
    pub qmax: f64,
    pub sde_pos: f64,
    pub sde_neg: f64,
}

/// Membership functions of e, Δe and Δcwnd and the rule base (Trang 2015 §4.4–4.5).
#[derive(Clone, Debug, PartialEq)]
pub struct FuzzyTable {
    pub e_labels: Vec<String>,
    pub e_centres: Vec<f64>,
    pub de_labels: Vec<String>,
    pub de_centres: Vec<DeCentre>,
    pub out_labels: Vec<String>,
    /// Packets per RTT; `f64::NEG_INFINITY` is a reset consequent.
    pub out_centres: Vec<f64>,
    /// `rules[i][j]`: index into `out_*` for e set i and Δe set j.
    pub rules: Vec<Vec<usize>>,
}

/// The result of one inference.
#[derive(Clone, Debug, PartialEq)]
pub struct Inference {
    /// Rules that fired: (e set, Δe set, weight, consequent).
    pub fired: Vec<(usize, usize, f64, usize)>,
    /// Δcwnd in packets, or `None` when a reset consequent fired.
    pub dcwnd: Option<f64>,
}

/// The e sets (Trang 2015 §4.5.1): normalised queueing-delay error e_n in % of the
/// target (+100 = empty queue, 0 = at the target, −100 = at q_max), centres every 20 %
/// ("linearly distributed on [−100, 100] %").
pub const E_SETS: [(&str, f64); 11] = [
    ("NVL", -100.0),
    ("NL", -80.0),
    ("NM", -60.0),
    ("NS", -40.0),
    ("NVS", -20.0),
    ("Z", 0.0),
    ("PVS", 20.0),
    ("PS", 40.0),
    ("PM", 60.0),
    ("PL", 80.0),
    ("PVL", 100.0),
];

/// The Δe sets (Trang 2015 §4.5.2, verbatim): "−q_max, sde₋, −3, −2, −1, 0, 1, 2, 3, sde₊,
/// q_max" ms, Δe(k) = q(k−1) − q(k).
pub const DE_SETS: [(&str, DeCentre); 11] = [
    ("NVL", DeCentre::NegQmax),
    ("NL", DeCentre::SdeNeg),
    ("NM", DeCentre::Ms(-3.0)),
    ("NS", DeCentre::Ms(-2.0)),
    ("NVS", DeCentre::Ms(-1.0)),
    ("Z", DeCentre::Ms(0.0)),
    ("PVS", DeCentre::Ms(1.0)),
    ("PS", DeCentre::Ms(2.0)),
    ("PM", DeCentre::Ms(3.0)),
    ("PL", DeCentre::SdePos),
    ("PVL", DeCentre::Qmax),
];

/// The Δcwnd sets in packets per RTT ("linear on [−1, 1] packet", every 0.2 packet), and
/// NVVL = −∞, the reset consequent of the loss-detection zone (§4.4.3 zone 6, §4.5.2).
pub const OUT_SETS: [(&str, f64); 12] = [
    ("NVVL", f64::NEG_INFINITY),
    ("NVL", -1.0),
    ("NL", -0.8),
    ("NM", -0.6),
    ("NS", -0.4),
    ("NVS", -0.2),
    ("Z", 0.0),
    ("PVS", 0.2),
    ("PS", 0.4),
    ("PM", 0.6),
    ("PL", 0.8),
    ("PVL", 1.0),
];

/// Indices of the [`OUT_SETS`], named by their labels, for writing [`RULES`].
#[allow(clippy::upper_case_acronyms)]
mod out {
    pub const NVVL: usize = 0;
    pub const NVL: usize = 1;
    pub const NL: usize = 2;
    pub const NM: usize = 3;
    pub const NS: usize = 4;
    pub const NVS: usize = 5;
    pub const Z: usize = 6;
    pub const PVS: usize = 7;
    pub const PS: usize = 8;
    pub const PM: usize = 9;
    pub const PL: usize = 10;
    pub const PVL: usize = 11;
}

/// The rule base: `RULES[i][j]` is the consequent (an index into [`OUT_SETS`]) of e set
/// i and Δe set j. Trang 2015 notes §3.6's "diagonal" reconstruction of the lost Table
/// 4.1: out = clamp(i_e + j_Δe, −5, 5), and the Δe = PVL column is NVVL (§4.4.3).
#[rustfmt::skip]
pub const RULES: [[usize; 11]; 11] = {
    use out::*;
    [
        // Δe: NVL   NL    NM    NS    NVS   Z     PVS   PS    PM    PL    PVL
        [NVL , NVL , NVL , NVL , NVL , NVL , NL  , NM  , NS  , NVS , NVVL], // e = NVL
        [NVL , NVL , NVL , NVL , NVL , NL  , NM  , NS  , NVS , Z   , NVVL], // e = NL
        [NVL , NVL , NVL , NVL , NL  , NM  , NS  , NVS , Z   , PVS , NVVL], // e = NM
        [NVL , NVL , NVL , NL  , NM  , NS  , NVS , Z   , PVS , PS  , NVVL], // e = NS
        [NVL , NVL , NL  , NM  , NS  , NVS , Z   , PVS , PS  , PM  , NVVL], // e = NVS
        [NVL , NL  , NM  , NS  , NVS , Z   , PVS , PS  , PM  , PL  , NVVL], // e = Z
        [NL  , NM  , NS  , NVS , Z   , PVS , PS  , PM  , PL  , PVL , NVVL], // e = PVS
        [NM  , NS  , NVS , Z   , PVS , PS  , PM  , PL  , PVL , PVL , NVVL], // e = PS
        [NS  , NVS , Z   , PVS , PS  , PM  , PL  , PVL , PVL , PVL , NVVL], // e = PM
        [NVS , Z   , PVS , PS  , PM  , PL  , PVL , PVL , PVL , PVL , NVVL], // e = PL
        [Z   , PVS , PS  , PM  , PL  , PVL , PVL , PVL , PVL , PVL , NVVL], // e = PVL
    ]
};

/// What is wrong with a fuzzy table's shape ([`FuzzyTable::check`]). `axis` is `e`, `Δe`
/// or `out`. (crates/cc has no dependencies: `Display` and `Error` are written out.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableError {
    NoSets {
        axis: &'static str,
    },
    CentreCount {
        axis: &'static str,
        centres: usize,
        labels: usize,
    },
    DuplicateLabel {
        axis: &'static str,
        label: String,
    },
    NotIncreasing {
        axis: &'static str,
    },
    /// One rule row per e set.
    RowCount {
        rows: usize,
        e_sets: usize,
    },
    /// One consequent per Δe set in each row.
    RowLength {
        row: String,
        entries: usize,
        de_sets: usize,
    },
    /// A consequent that is not an index into the output sets.
    NotAnOutput {
        row: String,
        consequent: usize,
        outputs: usize,
    },
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableError::NoSets { axis } => write!(f, "{axis}: no sets"),
            TableError::CentreCount {
                axis,
                centres,
                labels,
            } => write!(f, "{axis}: {centres} centres for {labels} labels"),
            TableError::DuplicateLabel { axis, label } => {
                write!(f, "{axis}: label `{label}` appears twice")
            }
            TableError::NotIncreasing { axis } => {
                write!(f, "{axis}: centres must be strictly increasing")
            }
            TableError::RowCount { rows, e_sets } => {
                write!(f, "rules: {rows} rows for {e_sets} e sets")
            }
            TableError::RowLength {
                row,
                entries,
                de_sets,
            } => write!(
                f,
                "rules: row `{row}` has {entries} entries for {de_sets} Δe sets"
            ),
            TableError::NotAnOutput {
                row,
                consequent,
                outputs,
            } => write!(
                f,
                "rules: row `{row}`: consequent {consequent} is not an output set (0..{outputs})"
            ),
        }
    }
}

impl std::error::Error for TableError {}

impl FuzzyTable {
    /// The default table: [`E_SETS`], [`DE_SETS`], [`OUT_SETS`] and [`RULES`].
    pub fn default_table() -> FuzzyTable {
        FuzzyTable {
            e_labels: E_SETS.iter().map(|(l, _)| l.to_string()).collect(),
            e_centres: E_SETS.iter().map(|(_, c)| *c).collect(),
            de_labels: DE_SETS.iter().map(|(l, _)| l.to_string()).collect(),
            de_centres: DE_SETS.iter().map(|(_, c)| *c).collect(),
            out_labels: OUT_SETS.iter().map(|(l, _)| l.to_string()).collect(),
            out_centres: OUT_SETS.iter().map(|(_, c)| *c).collect(),
            rules: RULES.iter().map(|row| row.to_vec()).collect(),
        }
    }

    /// Checks the table's shape: each axis has unique labels and one centre per label,
    /// strictly increasing (on Δe, among the numeric centres); there is one rule row per
    /// e set with one consequent per Δe set, i.e. exactly one rule for every input
    /// combination; and every consequent is an output set.
    pub fn check(&self) -> Result<(), TableError> {
        fn axis(what: &'static str, labels: &[String], centres: usize) -> Result<(), TableError> {
            if labels.is_empty() {
                return Err(TableError::NoSets { axis: what });
            }
            if centres != labels.len() {
                return Err(TableError::CentreCount {
                    axis: what,
                    centres,
                    labels: labels.len(),
                });
            }
            for (i, l) in labels.iter().enumerate() {
                if labels[..i].contains(l) {
                    return Err(TableError::DuplicateLabel {
                        axis: what,
                        label: l.clone(),
                    });
                }
            }
            Ok(())
        }
        fn increasing(what: &'static str, xs: &[f64]) -> Result<(), TableError> {
            if xs.windows(2).all(|w| w[0] < w[1]) {
                Ok(())
            } else {
                Err(TableError::NotIncreasing { axis: what })
            }
        }
        axis("e", &self.e_labels, self.e_centres.len())?;
        axis("Δe", &self.de_labels, self.de_centres.len())?;
        axis("out", &self.out_labels, self.out_centres.len())?;
        increasing("e", &self.e_centres)?;
        let de_ms: Vec<f64> = self
            .de_centres
            .iter()
            .filter_map(|c| match c {
                DeCentre::Ms(x) => Some(*x),
                _ => None,
            })
            .collect();
        increasing("Δe", &de_ms)?;
        increasing("out", &self.out_centres)?;
        if self.rules.len() != self.e_labels.len() {
            return Err(TableError::RowCount {
                rows: self.rules.len(),
                e_sets: self.e_labels.len(),
            });
        }
        for (i, row) in self.rules.iter().enumerate() {
            let el = &self.e_labels[i];
            if row.len() != self.de_labels.len() {
                return Err(TableError::RowLength {
                    row: el.clone(),
                    entries: row.len(),
                    de_sets: self.de_labels.len(),
                });
            }
            if let Some(&bad) = row.iter().find(|&&o| o >= self.out_labels.len()) {
                return Err(TableError::NotAnOutput {
                    row: el.clone(),
                    consequent: bad,
                    outputs: self.out_labels.len(),
                });
            }
        }
        Ok(())
    }

    /// The Δe centres in ms for the current breakpoints, made strictly increasing: the
    /// sde entries are clamped strictly between their neighbours, then any remaining
    /// overlap is resolved by nudging later centres up (Trang 2015 notes §3.5 monotonicity guard).
    pub fn de_centres_ms(&self, bp: &Breakpoints) -> Vec<f64> {
        const EPS: f64 = 1e-3; // 1 µs
        let mut c: Vec<f64> = self
            .de_centres
            .iter()
            .map(|d| match d {
                DeCentre::Ms(x) => *x,
                DeCentre::NegQmax => -bp.qmax,
                DeCentre::SdeNeg => bp.sde_neg,
                DeCentre::SdePos => bp.sde_pos,
                DeCentre::Qmax => bp.qmax,
            })
            .collect();
        for i in 0..c.len() {
            if matches!(self.de_centres[i], DeCentre::SdeNeg | DeCentre::SdePos) {
                if i + 1 < c.len() && c[i] >= c[i + 1] {
                    c[i] = c[i + 1] - EPS;
                }
                if i > 0 && c[i] <= c[i - 1] {
                    c[i] = c[i - 1] + EPS;
                }
            }
        }
        for i in 1..c.len() {
            if c[i] <= c[i - 1] {
                c[i] = c[i - 1] + EPS;
            }
        }
        c
    }

    /// Min/min inference and centre-average defuzzification (Trang 2015 §4.6).
    pub fn infer(&self, e_n: f64, de_ms: f64, bp: &Breakpoints) -> Inference {
        let fe = fuzzify(e_n, &self.e_centres);
        let fde = fuzzify(de_ms, &self.de_centres_ms(bp));
        let mut fired = Vec::new();
        let (mut num, mut den, mut reset) = (0.0, 0.0, false);
        for &(i, mi) in &fe {
            for &(j, mj) in &fde {
                // Trang 2015 §4.6.2: μ_Ai = min(μ_Ai1(x1), μ_Ai2(x2)); μ_Ri = min(μ_Ai, μ_Bi).
                let w = mi.min(mj);
                if w <= 0.0 {
                    continue;
                }
                let out = self.rules[i][j];
                fired.push((i, j, w, out));
                let b = self.out_centres[out];
                if b == f64::NEG_INFINITY {
                    // §4.5.2: "even if the certainty μ_PVL(Δe(k)) is small, FLOWER reduces
                    // the congestion window to its initial value".
                    reset = true;
                } else {
                    // §4.6.3: y = Σ b_i μ_Ri / Σ μ_Ri.
                    num += b * w;
                    den += w;
                }
            }
        }
        let dcwnd = if reset {
            None
        } else if den == 0.0 {
            Some(0.0)
        } else {
            Some(num / den)
        };
        Inference { fired, dcwnd }
    }
}

/// Triangular membership functions whose feet are the neighbouring centres (Trang 2015
/// §4.5, eq. of Fig 4.5 with a = c[k−1], b = c[k], c = c[k+1]); inputs are clamped to the
/// universe [c[0], c[last]]. Returns the sets with a non-zero degree.
pub fn fuzzify(x: f64, centres: &[f64]) -> Vec<(usize, f64)> {
    let last = centres.len() - 1;
    let x = x.clamp(centres[0], centres[last]);
    for k in 0..last {
        let (a, b) = (centres[k], centres[k + 1]);
        if x == a {
            return vec![(k, 1.0)];
        }
        if x > a && x < b {
            // μ_k(x) = (b − x)/(b − a) (falling edge), μ_{k+1}(x) = (x − a)/(b − a).
            return vec![(k, (b - x) / (b - a)), (k + 1, (x - a) / (b - a))];
        }
    }
    vec![(last, 1.0)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_table_has_exactly_one_rule_per_input_combination() {
        let t = FuzzyTable::default_table();
        assert_eq!(t.check(), Ok(()));
        // One row per e set, one consequent per Δe set in each: 11 × 11 rules.
        assert_eq!(RULES.len(), E_SETS.len());
        assert!(RULES.iter().all(|row| row.len() == DE_SETS.len()));
        assert_eq!(t.rules.iter().map(Vec::len).sum::<usize>(), 11 * 11);
        // Both inputs use the same eleven labels, symmetric around Z.
        fn labels(v: &[(&'static str, f64)]) -> Vec<&'static str> {
            v.iter().map(|(l, _)| *l).collect()
        }
        let de: Vec<&str> = DE_SETS.iter().map(|(l, _)| *l).collect();
        assert_eq!(labels(&E_SETS), de);
        assert_eq!(E_SETS[5], ("Z", 0.0));
        for k in 0..5 {
            assert_eq!(E_SETS[k].1, -E_SETS[10 - k].1);
        }
        // The output has the reset set NVVL (−∞) first, then NVL..PVL like the inputs.
        assert_eq!(OUT_SETS[0], ("NVVL", f64::NEG_INFINITY));
        assert_eq!(labels(&OUT_SETS[1..]), de);
        // The reset consequent is the whole Δe = PVL column and appears nowhere else.
        for (i, row) in RULES.iter().enumerate() {
            for (j, &o) in row.iter().enumerate() {
                assert_eq!(
                    o == 0,
                    j == 10,
                    "rule e = {}, Δe = {}",
                    E_SETS[i].0,
                    DE_SETS[j].0
                );
            }
        }
        // The adaptive breakpoints sit at the outer Δe positions (Trang 2015 §4.5.2).
        assert_eq!(
            [DE_SETS[0].1, DE_SETS[1].1, DE_SETS[9].1, DE_SETS[10].1],
            [
                DeCentre::NegQmax,
                DeCentre::SdeNeg,
                DeCentre::SdePos,
                DeCentre::Qmax
            ]
        );
    }
}
