//! One colour per mechanism in every plot of every report: a single table keyed by
//! algorithm name (the names `scavenger algorithms` lists), so that LEDBAT is the same
//! orange in Ong 2020's scatter plots, in a sweep's interval plot and in `scavenger plot`.
//!
//! A series is named by its mechanism ("ledbat", "LEDBAT (5 ms; 10), B = 84",
//! "cubic then evarate", "fg (cubic)"): the algorithm is the whole name if the table has
//! it, else the first word that the table has. Names without an algorithm (settings such
//! as "n=05", the queue) take a colour from a second list, chosen by a hash of the name so
//! that it too is the same in every plot. Several series of one plot with the same colour
//! (parameter variants of one algorithm) keep its hue and differ in shade and dash.

/// Algorithm → colour. Tableau-10 for Ong 2020's ten mechanisms (the most crowded plots),
/// then darker hues for the rest.
pub const ALGORITHM_COLOURS: &[(&str, &str)] = &[
    ("newreno", "#7f7f7f"),
    ("cubic", "#1f77b4"),
    ("ledbat", "#ff7f0e"),
    ("apple-ledbat", "#8c564b"),
    ("cdg", "#2ca02c"),
    ("vegas", "#d62728"),
    ("nice", "#9467bd"),
    ("tcp-lp", "#e377c2"),
    ("westwood-lp", "#bcbd22"),
    ("yield", "#17becf"),
    ("bbr", "#393b79"),
    ("copa", "#637939"),
    ("vivace", "#8c6d31"),
    ("proprate", "#843c39"),
    ("evarate", "#222222"),
    ("evarate++", "#5254a3"),
    ("flower", "#31a354"),
    ("cubic-mbc", "#6baed6"),
    ("vegas-mbc", "#f28e8e"),
    ("dalbe", "#756bb1"),
    ("ledbat-rfc", "#fdae6b"),
    ("ledbat-tuned", "#e6550d"),
    ("ledbat-plus-plus", "#a63603"),
    ("rledbat", "#fdd0a2"),
    ("cdg-linux", "#74c476"),
    ("4cp", "#ce6dbd"),
    ("ebb", "#9c9ede"),
    ("imtcp-bg", "#b5cf6b"),
    ("linear-phantom", "#e7969c"),
    ("working-hours", "#a55194"),
    ("proteus-s", "#6b6ecf"),
    ("proteus-p", "#cedb9c"),
    ("proteus-h", "#8ca252"),
    ("flexis", "#e7ba52"),
];

/// Colours for names that are not algorithms; none is in the table above.
const OTHER_COLOURS: &[&str] = &[
    "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#4d4d4d",
];

/// The algorithm a series name stands for, if the table has one.
pub fn algorithm_of(name: &str) -> Option<&'static str> {
    let lower = name.trim().to_ascii_lowercase();
    let find = |k: &str| ALGORITHM_COLOURS.iter().find(|(a, _)| *a == k).map(|e| e.0);
    if let Some(a) = find(&lower) {
        return Some(a);
    }
    // "fg.1 (ledbat)": a flow named by its role, its algorithm in parentheses.
    if let Some(a) = lower
        .rsplit_once('(')
        .and_then(|(_, r)| r.split_once(')'))
        .and_then(|(inner, _)| find(inner.trim()))
    {
        return Some(a);
    }
    lower
        .split(|c: char| c.is_whitespace() || "(),;:=.".contains(c))
        .filter(|w| !w.is_empty())
        .find_map(|w| find(w).or_else(|| find(w.split('+').next().unwrap_or(""))))
}

/// The colour of a series name, the same in every plot.
pub fn colour(name: &str) -> &'static str {
    if let Some(a) = algorithm_of(name) {
        return ALGORITHM_COLOURS
            .iter()
            .find(|e| e.0 == a)
            .expect("in table")
            .1;
    }
    // FNV-1a: stable across runs and platforms (std's hasher is not).
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    OTHER_COLOURS[(h % OTHER_COLOURS.len() as u64) as usize]
}

/// How one series of a plot is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Style {
    pub colour: String,
    /// An SVG `stroke-dasharray`, empty for a solid line.
    pub dash: &'static str,
}

const DASHES: &[&str] = &["", "6,3", "2,2", "8,3,2,3"];

/// Styles for the series of one plot, in order: the series' colour, and for the k-th
/// repeat of a colour within the plot a shade of it and a dash pattern.
pub fn styles<S: AsRef<str>>(names: &[S]) -> Vec<Style> {
    let mut seen: Vec<&'static str> = Vec::new();
    names
        .iter()
        .map(|n| {
            let c = colour(n.as_ref());
            let k = seen.iter().filter(|s| **s == c).count();
            seen.push(c);
            Style {
                colour: shade(c, k),
                dash: DASHES[k % DASHES.len()],
            }
        })
        .collect()
}

/// The k-th shade of `#rrggbb`: k = 0 itself, then alternately darker and lighter.
fn shade(hex: &str, k: usize) -> String {
    if k == 0 {
        return hex.to_string();
    }
    let ch = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0) as f64;
    let step = k.div_ceil(2);
    let amount = (0.3 * step as f64).min(0.75);
    let towards = if k % 2 == 1 { 0.0 } else { 255.0 };
    let mix = |v: f64| (v + (towards - v) * amount).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(ch(1)), mix(ch(3)), mix(ch(5)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mechanism_has_its_algorithms_colour_whatever_its_label() {
        assert_eq!(colour("ledbat"), "#ff7f0e");
        assert_eq!(colour("LEDBAT (5 ms; 10), B = 84"), "#ff7f0e");
        assert_eq!(colour("apple-ledbat"), "#8c564b");
        assert_eq!(colour("cdg+newreno"), colour("cdg"));
        assert_eq!(colour("evarate++"), "#5254a3");
        assert_eq!(colour("cubic then evarate"), colour("cubic"));
        assert_eq!(colour("yield max_reduction=0"), colour("yield"));
        assert_eq!(algorithm_of("n=05"), None);
        // A flow: its algorithm in parentheses wins over its name.
        assert_eq!(algorithm_of("fg.1 (ledbat)"), Some("ledbat"));
        assert_eq!(algorithm_of("cubic (vegas)"), Some("vegas"));
        assert_eq!(algorithm_of("cubic.2"), Some("cubic"));
        // Not an algorithm: a colour outside the table, the same every time.
        let c = colour("n=05");
        assert!(!ALGORITHM_COLOURS.iter().any(|e| e.1 == c));
        assert_eq!(c, colour("n=05"));
    }

    #[test]
    fn the_table_has_one_colour_per_algorithm() {
        for (i, (a, c)) in ALGORITHM_COLOURS.iter().enumerate() {
            assert!(
                !ALGORITHM_COLOURS[..i]
                    .iter()
                    .any(|e| e.0 == *a || e.1 == *c),
                "{a} {c} repeated"
            );
            assert!(c.len() == 7 && c.starts_with('#'), "{c}");
        }
    }

    #[test]
    fn repeats_in_one_plot_keep_the_hue_and_differ() {
        let s = styles(&[
            "LEDBAT (5 ms; 10)",
            "FLOWER",
            "LEDBAT (100 ms; 1)",
            "ledbat",
        ]);
        assert_eq!(s[0].colour, "#ff7f0e");
        assert_eq!(s[0].dash, "");
        assert_eq!(s[1].colour, colour("flower"));
        // Second LEDBAT: 30 % towards black; third: 30 % towards white.
        assert_eq!(s[2].colour, "#b3590a");
        assert_eq!(s[2].dash, "6,3");
        assert_eq!(s[3].colour, "#ffa556");
        assert_ne!(s[2], s[3]);
    }
}
