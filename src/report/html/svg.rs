//! A small SVG chart kit: a canvas, linear and logarithmic scales with readable ticks, axes
//! with titles and units, legends, a colour palette and text escaping. Every chart of the
//! report is drawn with it; the output is standalone SVG that browsers and resvg both read.

use std::fmt::Write as _;

/// Colour-blind-friendly categorical palette (Tableau 10).
pub const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// Distinct colours drawn before they repeat: the palette, then generated ones.
pub const COLOURS: usize = 240;

/// The colour of series `i`: the palette's ten, then colours spread around the hue circle by
/// the golden angle at alternating lightness, so that a figure of 22 configurations has 22
/// colours (they repeat after [`COLOURS`]).
pub fn color(i: usize) -> &'static str {
    static MORE: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let i = i % COLOURS;
    if i < PALETTE.len() {
        return PALETTE[i];
    }
    let more = MORE.get_or_init(|| (PALETTE.len()..COLOURS).map(generated).collect());
    &more[i - PALETTE.len()]
}

/// Colour `i` beyond the palette, as `#rrggbb`.
fn generated(i: usize) -> String {
    let hue = (i as f64 * 137.508 + 20.0) % 360.0;
    let (s, l) = if i.is_multiple_of(2) {
        (0.65, 0.38)
    } else {
        (0.55, 0.58)
    };
    // HSL to RGB.
    let c = (1.0 - (2.0 * l - 1.0_f64).abs()) * s;
    let h = hue / 60.0;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

/// Text escaped for HTML and SVG: markup characters as entities, and control characters
/// (NUL, which HTML cannot carry, and the rest but tab and newline) as U+FFFD.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' => out.push(ch),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

pub use crate::output::units::sig as num;

/// `text` cut to at most `max` characters, ending in `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` in lines of at most `max` characters, broken at spaces (a longer word is cut).
pub fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let n = line.chars().count();
        if n > 0 && n + 1 + word.chars().count() > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > max {
            let head: String = line.chars().take(max).collect();
            line = line.chars().skip(max).collect();
            lines.push(head);
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Longest row label drawn beside a chart, in characters.
pub const LABEL_CHARS: usize = 70;

/// An SVG document being drawn.
pub struct Svg {
    pub width: f64,
    pub height: f64,
    body: String,
    /// Data points drawn (recorded on the root element as `data-points`).
    pub points: usize,
}

impl Svg {
    pub fn new(width: f64, height: f64) -> Svg {
        Svg {
            width,
            height,
            body: String::new(),
            points: 0,
        }
    }

    /// Append raw SVG markup.
    pub fn raw(&mut self, markup: &str) {
        self.body.push_str(markup);
        self.body.push('\n');
    }

    pub fn text(&mut self, x: f64, y: f64, anchor: &str, extra: &str, content: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" {extra}>{}</text>"#,
            esc(content)
        );
    }

    /// A row label, clipped to [`LABEL_CHARS`] (the full text shows on hover).
    pub fn label(&mut self, x: f64, y: f64, anchor: &str, content: &str) {
        let shown = clip(content, LABEL_CHARS);
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}"><title>{}</title>{}</text>"#,
            esc(content),
            esc(&shown)
        );
    }

    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, style: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" {style}/>"#
        );
    }

    /// A rectangle with a hover title.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, title: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}"><title>{}</title></rect>"#,
            w.max(0.0),
            h.max(0.0),
            esc(title)
        );
    }

    pub fn circle(&mut self, x: f64, y: f64, r: f64, fill: &str, title: Option<&str>) {
        self.points += 1;
        match title {
            Some(t) => {
                let _ = writeln!(
                    self.body,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}"><title>{}</title></circle>"#,
                    esc(t)
                );
            }
            None => {
                let _ = writeln!(
                    self.body,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}"/>"#
                );
            }
        }
    }

    /// A polyline through `pts`.
    pub fn path(&mut self, pts: &[(f64, f64)], stroke: &str) {
        if pts.is_empty() {
            return;
        }
        self.points += pts.len();
        let mut d = String::new();
        for (i, (x, y)) in pts.iter().enumerate() {
            let _ = write!(d, "{}{x:.1},{y:.1} ", if i == 0 { "M" } else { "L" });
        }
        let _ = writeln!(
            self.body,
            r#"<path d="{}" fill="none" stroke="{stroke}" stroke-width="1.6"/>"#,
            d.trim_end()
        );
    }

    /// A legend of (colour, label) entries in rows starting at (x, y); the canvas grows to fit.
    pub fn legend(&mut self, x: f64, y: f64, entries: &[(String, String)]) {
        const CHAR: f64 = 6.2;
        // A label wider than the canvas is wrapped at spaces (or cut) onto lines of its own.
        let fit = (((self.width - 10.0 - x - 18.0) / CHAR) as usize).max(8);
        let mut cx = x;
        let mut cy = y;
        let mut row_lines = 1;
        for (fill, label) in entries {
            let lines = wrap(label, fit);
            let widest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
            let w = 18.0 + CHAR * widest as f64;
            if cx + w > self.width - 10.0 && cx > x {
                cx = x;
                cy += 3.0 + 13.0 * row_lines as f64;
                row_lines = 1;
            }
            self.rect(cx, cy - 9.0, 10.0, 10.0, fill, label);
            for (k, line) in lines.iter().enumerate() {
                self.text(cx + 14.0, cy + 13.0 * k as f64, "start", "", line);
            }
            row_lines = row_lines.max(lines.len());
            cx += w + 10.0;
        }
        // Grow the canvas when the legend wrapped past the bottom.
        self.height = self.height.max(cy + 13.0 * (row_lines - 1) as f64 + 10.0);
    }

    /// The finished document; `id` and the point count go on the root element.
    pub fn finish(self, id: &str, title: &str) -> String {
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{id}" data-points="{}" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif" font-size="11" role="img" aria-label="{t}">
<title>{t}</title>
<rect width="{w}" height="{h}" fill="#ffffff"/>
{}</svg>"##,
            self.points,
            self.body,
            w = self.width,
            h = self.height,
            t = esc(title)
        )
    }
}

/// A mapping from data to pixels along one axis.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    pub lo: f64,
    pub hi: f64,
    pub px_lo: f64,
    pub px_hi: f64,
    pub log: bool,
}

impl Scale {
    /// A scale covering `values` (with a margin), logarithmic when asked and possible.
    pub fn fit(values: impl Iterator<Item = f64>, px_lo: f64, px_hi: f64, log: bool) -> Scale {
        let v: Vec<f64> = values
            .filter(|x| x.is_finite() && (!log || *x > 0.0))
            .collect();
        let (mut lo, mut hi) = v
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
        if v.is_empty() {
            (lo, hi) = if log { (1.0, 10.0) } else { (0.0, 1.0) };
        }
        if log {
            lo = 10f64.powf(lo.log10().floor());
            hi = 10f64.powf(hi.log10().ceil().max(lo.log10() + 1.0));
        } else {
            lo = lo.min(0.0);
            if hi <= lo {
                hi = lo + 1.0;
            }
            let step = nice_step((hi - lo) / 5.0);
            hi = (hi / step).ceil() * step;
            lo = (lo / step).floor() * step;
        }
        Scale {
            lo,
            hi,
            px_lo,
            px_hi,
            log,
        }
    }

    pub fn map(&self, v: f64) -> f64 {
        let t = if self.log {
            let v = v.max(self.lo * 1e-3);
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.px_lo + t * (self.px_hi - self.px_lo)
    }

    pub fn ticks(&self) -> Vec<(f64, String)> {
        if self.log {
            let mut out = Vec::new();
            let mut p = self.lo;
            while p <= self.hi * 1.0001 && p.is_finite() && out.len() < 400 {
                out.push((p, num(p)));
                p *= 10.0;
            }
            return out;
        }
        // At most a dozen ticks, whatever the values: a scale whose ends are not finite, or
        // whose step vanishes beside them, never loops without end.
        let step = nice_step((self.hi - self.lo) / 5.0);
        if !(self.lo.is_finite() && self.hi.is_finite() && step.is_finite()) {
            return Vec::new();
        }
        (0..12)
            .map(|i| self.lo + step * f64::from(i))
            .take_while(|v| *v <= self.hi + step * 1e-6)
            .map(|v| (v, num(v)))
            .collect()
    }
}

/// 1, 2 or 5 × 10^k at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    if raw.is_nan() || raw <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    let f = raw / p;
    p * if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// Draw grid lines, ticks and axis titles for a plot area.
pub fn axes(svg: &mut Svg, x: &Scale, y: &Scale, x_title: &str, y_title: &str) {
    let grid = r##"stroke="#e5e5e5" stroke-width="1""##;
    let axis = r##"stroke="#333333" stroke-width="1""##;
    for (v, label) in y.ticks() {
        let py = y.map(v);
        svg.line(x.px_lo, py, x.px_hi, py, grid);
        svg.text(x.px_lo - 6.0, py + 4.0, "end", "", &label);
    }
    for (v, label) in x.ticks() {
        let px = x.map(v);
        svg.line(px, y.px_lo, px, y.px_hi, grid);
        svg.text(px, y.px_lo + 15.0, "middle", "", &label);
    }
    svg.line(x.px_lo, y.px_lo, x.px_hi, y.px_lo, axis);
    svg.line(x.px_lo, y.px_lo, x.px_lo, y.px_hi, axis);
    svg.text(
        (x.px_lo + x.px_hi) / 2.0,
        y.px_lo + 32.0,
        "middle",
        r#"font-weight="bold""#,
        x_title,
    );
    let cy = (y.px_lo + y.px_hi) / 2.0;
    let cx = x.px_lo - 48.0;
    svg.text(
        cx,
        cy,
        "middle",
        &format!(r#"font-weight="bold" transform="rotate(-90 {cx:.1} {cy:.1})""#),
        y_title,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_and_ticks_are_readable() {
        let s = Scale::fit([3.0, 87.0].into_iter(), 0.0, 100.0, false);
        assert_eq!((s.lo, s.hi), (0.0, 100.0));
        let labels: Vec<String> = s.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(labels, ["0", "20", "40", "60", "80", "100"]);
        let l = Scale::fit([3.0, 870.0].into_iter(), 0.0, 300.0, true);
        assert_eq!((l.lo, l.hi), (1.0, 1000.0));
        assert!((l.map(10.0) - 100.0).abs() < 1e-9);
        assert_eq!(l.ticks().len(), 4);
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(num(1234.0), "1234");
        assert_eq!(num(0.01234), "0.0123");
        assert_eq!(num(0.0002), "0.0002");
        assert_eq!(num(2.5e6), "2.5M");
        assert_eq!(num(12.26), "12.3");
    }

    #[test]
    fn twenty_two_configurations_get_twenty_two_colours_and_whole_labels() {
        let colours: std::collections::BTreeSet<&str> = (0..22).map(color).collect();
        assert_eq!(colours.len(), 22);
        assert_eq!(color(0), PALETTE[0]);
        assert_eq!(color(COLOURS), color(0));
        assert!(color(17).starts_with('#') && color(17).len() == 7);
        assert_eq!(
            wrap("engine=sqlite:wal/normal delay=lognormal:6.67ms", 26),
            ["engine=sqlite:wal/normal", "delay=lognormal:6.67ms"]
        );
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        // A legend of 22 long labels on a narrow canvas: every label whole, none past the edge.
        let mut svg = Svg::new(300.0, 100.0);
        let entries: Vec<(String, String)> = (0..22)
            .map(|i| {
                (
                    color(i).to_string(),
                    format!("configuration {i} with a long name indeed"),
                )
            })
            .collect();
        svg.legend(70.0, 80.0, &entries);
        assert!(svg.height > 100.0);
        for line in svg.body.lines().filter(|l| l.starts_with("<text")) {
            let x: f64 = line
                .split("x=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let text = line.split('>').nth(1).unwrap().split('<').next().unwrap();
            assert!(x + 6.2 * text.chars().count() as f64 <= 290.0, "{line}");
        }
    }

    #[test]
    fn extreme_values_give_few_ticks_and_control_characters_are_replaced() {
        // 1.7e308 rounds up past f64's largest value: the scale's top is infinite, and ticks
        // stepping towards it would never end.
        let s = Scale::fit([1.7e308, 1.7e308].into_iter(), 0.0, 100.0, false);
        assert!(s.ticks().len() <= 12);
        let tiny = Scale {
            lo: 1e300,
            hi: 1e300 + 1e290,
            px_lo: 0.0,
            px_hi: 1.0,
            log: false,
        };
        assert!(tiny.ticks().len() <= 12);
        assert_eq!(esc("a\0b\u{7}c\td"), "a\u{FFFD}b\u{FFFD}c\td");
    }
}
