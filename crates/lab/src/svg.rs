//! Minimal inline-SVG plots for self-contained HTML reports (no scripts, no network).
//!
//! Every plot is an `<svg class="plot">` with its axes in `<g class="axes">` (the frame,
//! ticks, and the titles `x-title` and `y-title`) and its key in `<g class="legend">`, so
//! that tests (and the browser test) can check each plot has both. Series are coloured by
//! their mechanism through the shared palette (`crate::palette`).

use crate::palette::{styles, Style};
use std::fmt::Write;

pub struct Series2 {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// One series with a mean and a 95 % interval per x (a sweep's metric over seeds).
pub struct IntervalSeries {
    pub name: String,
    /// (x, mean, half-width of the interval); a half-width of 0 draws no bar.
    pub points: Vec<(f64, f64, f64)>,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The document's opening tag and the title, centred over the plot area.
fn start(w: f64, h: f64, ml: f64, mr: f64, title: &str) -> String {
    let mut svg = String::new();
    let _ = write!(svg, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"11\">");
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"18\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
        (w - mr + ml) / 2.0,
        esc(title)
    );
    svg
}

/// Closes a plot that has nothing to draw.
fn no_data(mut svg: String) -> String {
    svg += "<text class=\"no-data\" x=\"20\" y=\"60\">no data</text></svg>";
    svg
}

/// The plot area's frame: left and top margins `ml`, `mt`, size `pw` × `ph`. Opens the
/// axes group, which `axis_titles` closes.
fn frame(svg: &mut String, ml: f64, mt: f64, pw: f64, ph: f64) {
    let _ = write!(svg, "<g class=\"axes\"><rect x=\"{ml}\" y=\"{mt}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#444\"/>");
}

/// How a legend entry shows its series.
#[derive(Clone, Copy)]
enum Key {
    Dot,
    Line,
    Bar,
}

/// The legend: one entry per series, right of the plot area (`x` its left edge).
fn legend(svg: &mut String, x: f64, mt: f64, entries: &[(&str, &Style)], key: Key) {
    svg.push_str("<g class=\"legend\">");
    for (i, (name, st)) in entries.iter().enumerate() {
        let ly = mt + 12.0 + i as f64 * 15.0;
        let col = &st.colour;
        let _ = match key {
            Key::Dot => write!(
                svg,
                "<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{col}\"/>",
                x + 12.0,
                ly - 4.0
            ),
            Key::Line => write!(svg, "<line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"{col}\" stroke-width=\"2\"{}/>", x + 6.0, x + 18.0, dash_attr(st), y = ly - 4.0),
            Key::Bar => write!(
                svg,
                "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"8\" fill=\"{col}\"/>",
                x + 7.0,
                ly - 8.0
            ),
        };
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            x + 22.0,
            ly,
            esc(name)
        );
    }
    svg.push_str("</g>");
}

/// ` stroke-dasharray="…"` for a dashed style, nothing for a solid one.
fn dash_attr(st: &Style) -> String {
    if st.dash.is_empty() {
        String::new()
    } else {
        format!(" stroke-dasharray=\"{}\"", st.dash)
    }
}

/// The axis titles: `xlabel` under the plot area `(ml, mt, pw, ph)` of a plot `h` high,
/// `ylabel` turned upright at its left.
fn axis_titles(
    svg: &mut String,
    xlabel: &str,
    ylabel: &str,
    (ml, mt, pw, ph): (f64, f64, f64, f64),
    h: f64,
) {
    let _ = write!(
        svg,
        "<text class=\"x-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        ml + pw / 2.0,
        h - 8.0,
        esc(xlabel)
    );
    let _ = write!(
        svg,
        "<text class=\"y-title\" transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">{}</text></g>",
        mt + ph / 2.0,
        esc(ylabel)
    );
}

/// "Nice" tick step for a range.
fn tick_step(span: f64) -> f64 {
    if span <= 0.0 || !span.is_finite() {
        return 1.0;
    }
    let raw = span / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// Tick positions at multiples of a "nice" step within [lo, hi].
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = tick_step(hi - lo);
    let mut v = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi {
        v.push(t);
        t += step;
    }
    v
}

/// A vertical grid line at pixel `x` with its label under a plot area starting at `mt`,
/// `ph` high.
fn x_gridline(svg: &mut String, x: f64, label: f64, mt: f64, ph: f64) {
    let _ = write!(svg, "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>", x, mt, mt + ph, mt + ph + 14.0, fmt_tick(label));
}

/// A horizontal grid line at pixel `y` with its label left of a plot area starting at
/// `ml`, `pw` wide.
fn y_gridline(svg: &mut String, y: f64, label: f64, ml: f64, pw: f64) {
    let _ = write!(svg, "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>", ml, ml + pw, y, ml - 4.0, y + 4.0, fmt_tick(label));
}

/// A 95 % ellipse: centre, radii and rotation (radians), in data units.
pub type Ellipse = ((f64, f64), (f64, f64), f64);

/// Covariance ellipse of points at the 95 % level (chi-square, 2 degrees of freedom):
/// centre, radii and rotation in data units. None with fewer than 3 points.
pub fn confidence_ellipse(pts: &[(f64, f64)]) -> Option<Ellipse> {
    let n = pts.len();
    if n < 3 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n as f64;
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for (x, y) in pts {
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
        sxy += (x - mx) * (y - my);
    }
    let d = (n - 1) as f64;
    let (a, b, c) = (sxx / d, sxy / d, syy / d);
    // Eigenvalues of [[a, b], [b, c]].
    let tr = (a + c) / 2.0;
    let disc = (((a - c) / 2.0).powi(2) + b * b).sqrt();
    let (l1, l2) = (tr + disc, (tr - disc).max(0.0));
    let angle = if b == 0.0 {
        if a >= c {
            0.0
        } else {
            std::f64::consts::FRAC_PI_2
        }
    } else {
        (l1 - a).atan2(b)
    };
    let k = 5.991f64; // chi-square(2) at 95 %
    Some(((mx, my), ((k * l1).sqrt(), (k * l2).sqrt()), angle))
}

/// How the x axis maps data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XAxis {
    Linear,
    /// log10 and inverted: large values on the left (Pantheon's delay axis).
    LogInverted,
}

/// Scatter plot, one colour per series, with each series' 95 % confidence ellipse.
pub fn scatter(title: &str, xlabel: &str, ylabel: &str, series: &[Series2]) -> String {
    scatter_with(title, xlabel, ylabel, series, XAxis::Linear)
}

/// Scatter plot with a choice of x axis. On a log axis the ellipse is computed in log
/// space (delays are closer to log-normal than normal) and points ≤ 0 are left out.
pub fn scatter_with(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[Series2],
    xaxis: XAxis,
) -> String {
    let log = xaxis == XAxis::LogInverted;
    let tf = |x: f64| if log { x.log10() } else { x };
    let series: Vec<Series2> = series
        .iter()
        .map(|s| Series2 {
            name: s.name.clone(),
            points: s
                .points
                .iter()
                .filter(|p| !log || p.0 > 0.0)
                .map(|&(x, y)| (tf(x), y))
                .collect(),
        })
        .collect();
    let (w, h, ml, mr, mt, mb) = (560.0, 360.0, 60.0, 150.0, 30.0, 45.0);
    let all: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    let mut svg = start(w, h, ml, mr, title);
    if all.is_empty() {
        return no_data(svg);
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (x, y) in &all {
        x0 = x0.min(*x);
        x1 = x1.max(*x);
        y0 = y0.min(*y);
        y1 = y1.max(*y);
    }
    let pad = |a: f64, b: f64| {
        if b > a {
            (b - a) * 0.1
        } else {
            a.abs().max(1.0) * 0.1
        }
    };
    let (px, py) = (pad(x0, x1), pad(y0, y1));
    let (x0, x1, y0, y1) = (
        if log { x0 - px } else { (x0 - px).max(0.0) },
        x1 + px,
        (y0 - py).max(0.0),
        y1 + py,
    );
    let pw = w - ml - mr;
    let ph = h - mt - mb;
    let sx = |x: f64| {
        if log {
            ml + (x1 - x) / (x1 - x0) * pw
        } else {
            ml + (x - x0) / (x1 - x0) * pw
        }
    };
    let sy = |y: f64| mt + ph - (y - y0) / (y1 - y0) * ph;
    frame(&mut svg, ml, mt, pw, ph);
    let xticks: Vec<(f64, f64)> = if log {
        // 1, 2, 5 × 10^k within the range, in data units.
        let mut v = Vec::new();
        for k in (x0.floor() as i32)..=(x1.ceil() as i32) {
            for m in [1.0, 2.0, 5.0] {
                let t = (m * 10f64.powi(k)).log10();
                if t >= x0 && t <= x1 {
                    v.push((t, 10f64.powf(t)));
                }
            }
        }
        v
    } else {
        linear_ticks(x0, x1).into_iter().map(|t| (t, t)).collect()
    };
    for (t, label) in xticks {
        x_gridline(&mut svg, sx(t), label, mt, ph);
    }
    for t in linear_ticks(y0, y1) {
        y_gridline(&mut svg, sy(t), t, ml, pw);
    }
    axis_titles(&mut svg, xlabel, ylabel, (ml, mt, pw, ph), h);
    let st = styles(&series.iter().map(|s| &s.name).collect::<Vec<_>>());
    for (s, st) in series.iter().zip(&st) {
        let col = &st.colour;
        if let Some(((cx, cy), (rx, ry), ang)) = confidence_ellipse(&s.points) {
            // Sample the ellipse in data space and map each point, since the axes scale
            // differently.
            let pts: Vec<String> = (0..48)
                .map(|k| {
                    let t = k as f64 / 48.0 * std::f64::consts::TAU;
                    let (ex, ey) = (rx * t.cos(), ry * t.sin());
                    let (x, y) = (
                        cx + ex * ang.cos() - ey * ang.sin(),
                        cy + ex * ang.sin() + ey * ang.cos(),
                    );
                    format!(
                        "{:.1},{:.1}",
                        sx(x).clamp(ml, ml + pw),
                        sy(y).clamp(mt, mt + ph)
                    )
                })
                .collect();
            let _ = write!(svg, "<polygon points=\"{}\" fill=\"{col}\" fill-opacity=\"0.12\" stroke=\"{col}\" stroke-opacity=\"0.6\"{}/>", pts.join(" "), dash_attr(st));
        }
        for (x, y) in &s.points {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{col}\"/>",
                sx(*x),
                sy(*y)
            );
        }
    }
    let entries: Vec<(&str, &Style)> = series.iter().map(|s| s.name.as_str()).zip(&st).collect();
    legend(&mut svg, w - mr, mt, &entries, Key::Dot);
    svg += "</svg>";
    svg
}

/// Empirical CDFs of the x values of each series (y values are ignored), as step lines.
pub fn cdf(title: &str, xlabel: &str, series: &[Series2]) -> String {
    let (w, h, ml, mr, mt, mb) = (560.0, 300.0, 60.0, 150.0, 30.0, 45.0);
    let mut svg = start(w, h, ml, mr, title);
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .filter(|x| x.is_finite())
        .collect();
    if xs.is_empty() {
        return no_data(svg);
    }
    let (lo, hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let pad = if hi > lo {
        (hi - lo) * 0.05
    } else {
        lo.abs().max(1.0) * 0.05
    };
    let (x0, x1) = (lo - pad, hi + pad);
    let (pw, ph) = (w - ml - mr, h - mt - mb);
    let sx = |x: f64| ml + (x - x0) / (x1 - x0) * pw;
    let sy = |p: f64| mt + ph - p * ph;
    frame(&mut svg, ml, mt, pw, ph);
    for t in linear_ticks(x0, x1) {
        x_gridline(&mut svg, sx(t), t, mt, ph);
    }
    for p in [0.0, 0.25, 0.5, 0.75, 1.0] {
        y_gridline(&mut svg, sy(p), p, ml, pw);
    }
    axis_titles(
        &mut svg,
        xlabel,
        "fraction of runs ≤ x",
        (ml, mt, pw, ph),
        h,
    );
    let st = styles(&series.iter().map(|s| &s.name).collect::<Vec<_>>());
    for (s, st) in series.iter().zip(&st) {
        let col = &st.colour;
        let mut v: Vec<f64> = s
            .points
            .iter()
            .map(|p| p.0)
            .filter(|x| x.is_finite())
            .collect();
        v.sort_by(f64::total_cmp);
        let n = v.len() as f64;
        let mut pts = vec![format!("{:.1},{:.1}", sx(x0), sy(0.0))];
        for (k, x) in v.iter().enumerate() {
            pts.push(format!("{:.1},{:.1}", sx(*x), sy(k as f64 / n)));
            pts.push(format!("{:.1},{:.1}", sx(*x), sy((k + 1) as f64 / n)));
        }
        pts.push(format!("{:.1},{:.1}", sx(x1), sy(1.0)));
        let _ = write!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{col}\" stroke-width=\"1.5\"{}/>",
            pts.join(" "),
            dash_attr(st)
        );
    }
    let entries: Vec<(&str, &Style)> = series.iter().map(|s| s.name.as_str()).zip(&st).collect();
    legend(&mut svg, w - mr, mt, &entries, Key::Line);
    svg += "</svg>";
    svg
}

/// Line plot of (x, y) series on shared axes (time series of one run).
pub fn lines(title: &str, xlabel: &str, ylabel: &str, series: &[Series2]) -> String {
    let (w, h, ml, mr, mt, mb) = (560.0, 260.0, 60.0, 150.0, 30.0, 45.0);
    let mut svg = start(w, h, ml, mr, title);
    let all: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    if all.is_empty() {
        return no_data(svg);
    }
    let (x0, x1) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let y1 = all.iter().fold(0.0f64, |m, p| m.max(p.1)) * 1.05;
    let (x1, y1) = (
        if x1 > x0 { x1 } else { x0 + 1.0 },
        if y1 > 0.0 { y1 } else { 1.0 },
    );
    let (pw, ph) = (w - ml - mr, h - mt - mb);
    let sx = |x: f64| ml + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| mt + ph - y / y1 * ph;
    frame(&mut svg, ml, mt, pw, ph);
    for t in linear_ticks(x0, x1) {
        x_gridline(&mut svg, sx(t), t, mt, ph);
    }
    for t in linear_ticks(0.0, y1) {
        y_gridline(&mut svg, sy(t), t, ml, pw);
    }
    axis_titles(&mut svg, xlabel, ylabel, (ml, mt, pw, ph), h);
    let st = styles(&series.iter().map(|s| &s.name).collect::<Vec<_>>());
    for (s, st) in series.iter().zip(&st) {
        let col = &st.colour;
        let pts: Vec<String> = s
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let _ = write!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{col}\" stroke-width=\"1.2\"{}/>",
            pts.join(" "),
            dash_attr(st)
        );
    }
    let entries: Vec<(&str, &Style)> = series.iter().map(|s| s.name.as_str()).zip(&st).collect();
    legend(&mut svg, w - mr, mt, &entries, Key::Line);
    svg += "</svg>";
    svg
}

/// Histogram of values in `bins` equal-width bins (coefficients of variation over
/// experiments). `series_name` says what is counted, for the legend.
pub fn histogram(
    title: &str,
    xlabel: &str,
    series_name: &str,
    values: &[f64],
    bins: usize,
) -> String {
    let (w, h, ml, mr, mt, mb) = (420.0, 240.0, 50.0, 20.0, 30.0, 45.0);
    let mut svg = start(w, h, ml, mr, title);
    let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() || bins == 0 {
        return no_data(svg);
    }
    let (lo, hi) = v
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let lo = lo.min(0.0);
    let width = if hi > lo {
        (hi - lo) / bins as f64
    } else {
        1.0
    };
    let mut counts = vec![0usize; bins];
    for x in &v {
        counts[(((x - lo) / width) as usize).min(bins - 1)] += 1;
    }
    let top = *counts.iter().max().unwrap() as f64;
    let (pw, ph) = (w - ml - mr, h - mt - mb);
    let bw = pw / bins as f64;
    frame(&mut svg, ml, mt, pw, ph);
    // Not a mechanism's series: a neutral colour outside the palette.
    let bar = Style {
        colour: "#5b7083".into(),
        dash: "",
    };
    for (i, c) in counts.iter().enumerate() {
        let bh = *c as f64 / top * ph;
        let _ = write!(svg, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{c}</title></rect>", ml + i as f64 * bw + 1.0, mt + ph - bh, (bw - 2.0).max(1.0), bh, bar.colour);
    }
    for k in 0..=4 {
        let x = lo + (hi.max(lo + width) - lo) * k as f64 / 4.0;
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            ml + pw * k as f64 / 4.0,
            mt + ph + 14.0,
            fmt_tick(x)
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        ml - 4.0,
        mt + 10.0,
        top
    );
    axis_titles(&mut svg, xlabel, "count", (ml, mt, pw, ph), h);
    legend(
        &mut svg,
        ml + pw - 130.0,
        mt,
        &[(series_name, &bar)],
        Key::Bar,
    );
    svg += "</svg>";
    svg
}

/// Means with 95 % intervals against a numeric x (a sweep's metric against the swept
/// setting): a line through each series' means, a bar per interval. With `categories`,
/// x is the index of a category and the ticks are its names.
pub fn intervals(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[IntervalSeries],
    categories: Option<&[String]>,
) -> String {
    // The legend names can be long ("cubic.1 (cubic), link.rate=10Mbit, …"): the plot
    // widens to fit them (about 6 px a character at 11 px).
    let longest = series
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    let mr = (30.0 + 6.0 * longest as f64).max(150.0);
    let (w, h, ml, mt, mb) = (410.0 + mr, 300.0, 60.0, 30.0, 45.0);
    let mut svg = start(w, h, ml, mr, title);
    let all: Vec<(f64, f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|p| p.0.is_finite() && p.1.is_finite() && p.2.is_finite())
        .collect();
    if all.is_empty() {
        return no_data(svg);
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (x, m, hw) in &all {
        x0 = x0.min(*x);
        x1 = x1.max(*x);
        y0 = y0.min(m - hw);
        y1 = y1.max(m + hw);
    }
    // Room at the ends so the first and last bars are not on the frame.
    let px = if x1 > x0 { (x1 - x0) * 0.06 } else { 0.5 };
    let (x0, x1) = (x0 - px, x1 + px);
    let y0 = y0.min(0.0);
    let y1 = if y1 > y0 {
        y1 + (y1 - y0) * 0.05
    } else {
        y0 + 1.0
    };
    let (pw, ph) = (w - ml - mr, h - mt - mb);
    let sx = |x: f64| ml + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| mt + ph - (y - y0) / (y1 - y0) * ph;
    frame(&mut svg, ml, mt, pw, ph);
    match categories {
        Some(names) => {
            for (i, n) in names.iter().enumerate() {
                let x = sx(i as f64);
                let _ = write!(svg, "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{mt}\" y2=\"{}\" stroke=\"#ddd\"/><text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\" font-size=\"9\">{}</text>", mt + ph, mt + ph + 14.0, esc(n));
            }
        }
        None => {
            for t in linear_ticks(x0, x1) {
                x_gridline(&mut svg, sx(t), t, mt, ph);
            }
        }
    }
    for t in linear_ticks(y0, y1) {
        y_gridline(&mut svg, sy(t), t, ml, pw);
    }
    axis_titles(&mut svg, xlabel, ylabel, (ml, mt, pw, ph), h);
    let st = styles(&series.iter().map(|s| &s.name).collect::<Vec<_>>());
    for (s, st) in series.iter().zip(&st) {
        let col = &st.colour;
        let pts: Vec<&(f64, f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite() && p.2.is_finite())
            .collect();
        let line: Vec<String> = pts
            .iter()
            .map(|p| format!("{:.1},{:.1}", sx(p.0), sy(p.1)))
            .collect();
        let _ = write!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{col}\" stroke-width=\"1.5\"{}/>",
            line.join(" "),
            dash_attr(st)
        );
        for (x, m, hw) in pts {
            let (x, lo, hi) = (sx(*x), sy(m - hw), sy(m + hw));
            if *hw > 0.0 {
                let _ = write!(svg, "<path class=\"interval\" d=\"M{x:.1},{lo:.1}V{hi:.1}M{:.1},{lo:.1}h8M{:.1},{hi:.1}h8\" stroke=\"{col}\" fill=\"none\"/>", x - 4.0, x - 4.0);
            }
            let _ = write!(
                svg,
                "<circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{col}\"/>",
                sy(*m)
            );
        }
    }
    let entries: Vec<(&str, &Style)> = series.iter().map(|s| s.name.as_str()).zip(&st).collect();
    legend(&mut svg, w - mr, mt, &entries, Key::Line);
    svg += "</svg>";
    svg
}

fn fmt_tick(t: f64) -> String {
    if t.abs() >= 100.0 || t.fract().abs() < 1e-9 {
        format!("{:.0}", t)
    } else {
        format!("{:.2}", t)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ellipse_of_an_axis_aligned_cloud() {
        // x spread (variance 1), y constant-ish: the major axis lies along x.
        let pts = [(-1.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (1.0, 0.0), (0.0, 0.0)];
        let ((cx, cy), (rx, ry), ang) = confidence_ellipse(&pts).unwrap();
        assert_eq!((cx, cy), (0.0, 0.0));
        // sample variance 4/4 = 1 -> radius sqrt(5.991)
        assert!((rx - 5.991f64.sqrt()).abs() < 1e-12 && ry == 0.0 && ang == 0.0);
        assert!(confidence_ellipse(&pts[..2]).is_none());
    }

    #[test]
    fn scatter_is_well_formed_svg() {
        let s = scatter(
            "t<1>",
            "x",
            "y",
            &[Series2 {
                name: "a".into(),
                points: vec![(1.0, 2.0), (2.0, 3.0), (3.0, 5.0)],
            }],
        );
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
        assert!(s.contains("t&lt;1&gt;") && s.contains("<polygon"));
    }

    #[test]
    fn log_inverted_axis_puts_large_delays_left() {
        let pts = vec![(10.0, 1.0), (100.0, 2.0), (1000.0, 3.0)];
        let s = scatter_with(
            "p",
            "delay",
            "tput",
            &[Series2 {
                name: "a".into(),
                points: pts,
            }],
            XAxis::LogInverted,
        );
        // The circles in drawing order: x of 10 ms must be right of x of 1000 ms.
        let cx: Vec<f64> = s
            .split("<circle cx=\"")
            .skip(1)
            .take(3)
            .map(|t| t.split('"').next().unwrap().parse().unwrap())
            .collect();
        assert!(cx[0] > cx[1] && cx[1] > cx[2], "{cx:?}");
        // Decade ticks are labelled in data units.
        assert!(s.contains(">100<") && s.contains(">10<"));
    }

    #[test]
    fn histogram_counts_every_value_once() {
        let s = histogram("h", "cv", "experiments", &[0.0, 0.1, 0.1, 0.2, 0.4], 4);
        // Bins of width 0.1 over [0, 0.4]: counts 1, 2, 1, 1 (the maximum lands in the last).
        let counts: Vec<usize> = s
            .split("<title>")
            .skip(1)
            .map(|t| t.split('<').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(counts, vec![1, 2, 1, 1]);
        assert_eq!(counts.iter().sum::<usize>(), 5);
    }

    #[test]
    fn lines_draw_one_polyline_per_series() {
        let s = lines(
            "t",
            "s",
            "Mbit/s",
            &[
                Series2 {
                    name: "a".into(),
                    points: vec![(0.0, 1.0), (1.0, 2.0)],
                },
                Series2 {
                    name: "b".into(),
                    points: vec![(0.0, 0.5), (1.0, 0.5)],
                },
            ],
        );
        assert_eq!(s.matches("<polyline").count(), 2);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
    }

    #[test]
    fn cdf_steps_reach_one() {
        let s = cdf(
            "c",
            "x",
            &[Series2 {
                name: "a".into(),
                points: vec![(1.0, 0.0), (2.0, 0.0)],
            }],
        );
        assert!(s.starts_with("<svg") && s.ends_with("</svg>") && s.contains("<polyline"));
        // Two samples: steps at 0, 0.5 and 1 of the plot height (y = 30 + 225 − p·225).
        assert!(s.contains(",142.5") && s.contains(",30.0"), "{s}");
    }

    fn one(name: &str, pts: Vec<(f64, f64)>) -> Series2 {
        Series2 {
            name: name.into(),
            points: pts,
        }
    }

    #[test]
    fn every_plot_has_axes_titles_and_a_legend() {
        let pts = vec![(1.0, 2.0), (2.0, 3.0), (3.0, 5.0)];
        let plots = [
            scatter("s", "x", "y", &[one("ledbat", pts.clone())]),
            cdf("c", "x", &[one("ledbat", pts.clone())]),
            lines("l", "x", "y", &[one("ledbat", pts.clone())]),
            histogram("h", "x", "experiments", &[0.1, 0.2], 4),
            intervals(
                "i",
                "x",
                "y",
                &[IntervalSeries {
                    name: "ledbat".into(),
                    points: vec![(1.0, 2.0, 0.5), (2.0, 3.0, 0.0)],
                }],
                None,
            ),
        ];
        for p in &plots {
            assert!(p.starts_with("<svg class=\"plot\""), "{p}");
            for part in [
                "<g class=\"axes\">",
                "class=\"x-title\"",
                "class=\"y-title\"",
                "<g class=\"legend\">",
            ] {
                assert_eq!(p.matches(part).count(), 1, "{part} in {p}");
            }
            // The axes group closes before the series are drawn.
            assert_eq!(p.matches("<g").count(), p.matches("</g>").count());
        }
        // LEDBAT is LEDBAT's colour in each of them.
        for p in &plots[..3] {
            assert!(p.contains("#ff7f0e"), "{p}");
        }
    }

    #[test]
    fn intervals_draw_a_bar_only_where_there_is_one() {
        let s = intervals(
            "i",
            "buffer (BDP)",
            "goodput (Mbit/s)",
            &[
                IntervalSeries {
                    name: "cubic".into(),
                    points: vec![(0.5, 2.0, 0.5), (1.0, 3.0, 0.0), (2.0, 3.5, 0.2)],
                },
                IntervalSeries {
                    name: "ledbat".into(),
                    points: vec![(0.5, 1.0, 0.1)],
                },
            ],
            None,
        );
        assert_eq!(s.matches("class=\"interval\"").count(), 3);
        assert_eq!(s.matches("<polyline").count(), 2);
        assert!(s.contains(">cubic<") && s.contains(">ledbat<"));
        let c = intervals(
            "i",
            "setting",
            "y",
            &[IntervalSeries {
                name: "f".into(),
                points: vec![(0.0, 1.0, 0.1), (1.0, 2.0, 0.1)],
            }],
            Some(&["a=1".to_string(), "a=2".to_string()]),
        );
        assert!(c.contains(">a=1<") && c.contains(">a=2<"));
    }
}
