//! A diverging bar chart of cost differences split by operation: one row
//! per alternative, what it costs more per second stacked right of zero,
//! what it saves stacked left, each operation in its own color with a
//! legend. It answers "which operations make this layout lose", which a
//! single total cannot.

use super::page::esc;
use crate::words;
use std::fmt::Write as _;

/// One alternative: its label and its differences per part (an operation,
/// or "index upkeep"), in the order of the chart's legend.
pub(super) struct Row {
    pub label: String,
    pub parts: Vec<f64>,
}

/// Colors for the parts, distinct on light and dark backgrounds and in
/// print; parts past the palette share its last color.
const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
];

const WIDTH: f64 = 640.0;
const LABEL_H: f64 = 16.0;
const BAR_H: f64 = 14.0;
const GAP: f64 = 8.0;

/// The chart: `names` are the parts (the legend), `rows` the alternatives.
pub(super) fn diverging(caption: &str, names: &[String], rows: &[Row]) -> String {
    let side = |row: &Row, sign: f64| -> f64 {
        row.parts
            .iter()
            .filter(|v| v.is_finite() && **v * sign > 0.0)
            .map(|v| v.abs())
            .sum()
    };
    let left = rows.iter().map(|r| side(r, -1.0)).fold(0.0, f64::max);
    let right = rows.iter().map(|r| side(r, 1.0)).fold(0.0, f64::max);
    // Alternatives that all cost the same draw no bars (and no NaN).
    let scale = if left + right > 0.0 {
        (WIDTH - 4.0) / (left + right)
    } else {
        0.0
    };
    let zero = 2.0 + left * scale;
    let legend_h = LABEL_H * names.len().div_ceil(3) as f64 + GAP;
    let height = rows.len() as f64 * (LABEL_H + BAR_H + GAP) + GAP + legend_h;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart split\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH:.0} {height:.0}\" width=\"{WIDTH:.0}\" role=\"img\" aria-label=\"{}\">",
        esc(caption)
    );
    let mut y = GAP;
    for row in rows {
        let total: f64 = row.parts.iter().filter(|v| v.is_finite()).sum();
        // The total first: a long label is cut at its end.
        let label = format!(
            "{}{} a second: {}",
            if total > 0.0 { "+" } else { "" },
            words::num(total),
            row.label
        );
        let _ = writeln!(
            out,
            "<text x=\"2\" y=\"{:.1}\">{}</text>",
            y + 12.0,
            esc(&super::diagram::cut(&label, 96))
        );
        // Savings grow leftward from zero, extra costs rightward.
        let (mut neg, mut pos) = (zero, zero);
        for (i, v) in row.parts.iter().enumerate() {
            if !v.is_finite() || *v == 0.0 {
                continue;
            }
            let w = (v.abs() * scale).max(0.5);
            let x = if *v > 0.0 {
                pos += w;
                pos - w
            } else {
                neg -= w;
                neg
            };
            let _ = writeln!(
                out,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{BAR_H}\" fill=\"{}\"><title>{}: {}{}</title></rect>",
                y + LABEL_H,
                PALETTE[i.min(PALETTE.len() - 1)],
                esc(names.get(i).map_or("", String::as_str)),
                if *v > 0.0 { "+" } else { "" },
                words::num(*v)
            );
        }
        y += LABEL_H + BAR_H + GAP;
    }
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{zero:.1}\" y1=\"0\" x2=\"{zero:.1}\" y2=\"{:.0}\"/>",
        y - GAP
    );
    for (i, name) in names.iter().enumerate() {
        let (col, line) = (i % 3, i / 3);
        let x = 2.0 + col as f64 * (WIDTH / 3.0);
        let ly = y + line as f64 * LABEL_H;
        let _ = writeln!(
            out,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            ly + 3.0,
            PALETTE[i.min(PALETTE.len() - 1)],
            x + 14.0,
            ly + 12.0,
            esc(&super::diagram::cut(name, 30))
        );
    }
    let _ = writeln!(
        out,
        "</svg><figcaption>{}</figcaption></figure>",
        esc(caption)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Savings left of the axis, extra costs right, one rectangle per
    /// non-zero part and one legend entry per name.
    #[test]
    fn parts_fall_on_their_side_of_zero() {
        let names = vec!["read".to_string(), "write".to_string()];
        let svg = diverging(
            "by operation",
            &names,
            &[Row {
                label: "embed".into(),
                parts: vec![30.0, -10.0],
            }],
        );
        // Span 40 over 636 px: zero at 2 + 10 × 15.9.
        assert!(svg.contains("x1=\"161.0\""), "{svg}");
        assert!(svg.contains("<title>read: +30</title>"), "{svg}");
        assert!(svg.contains("<title>write: -10</title>"), "{svg}");
        assert!(svg.contains("+20 a second: embed"), "{svg}");
        assert_eq!(svg.matches("<rect").count(), 2 + 2);
        // All differences zero: an axis at the left, no bar, no NaN.
        let flat = diverging(
            "by operation",
            &names,
            &[Row {
                label: "embed".into(),
                parts: vec![0.0, 0.0],
            }],
        );
        assert!(!flat.contains("NaN"), "{flat}");
        assert_eq!(flat.matches("<rect").count(), 2);
    }
}
