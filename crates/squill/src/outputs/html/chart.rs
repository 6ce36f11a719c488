//! Bar charts as plain SVG rectangles sized from the numbers: a handful of
//! bars needs no plotting library, and the classes let the stylesheet color
//! them for light, dark and print.

use super::page::esc;
use crate::words;
use std::fmt::Write as _;

/// One bar: its label, its value, and its stylesheet class ("chosen", …).
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub class: &'static str,
    /// Words after the value ("+1,200 vs chosen").
    pub note: String,
}

const WIDTH: f64 = 640.0;
const LABEL_H: f64 = 16.0;
const BAR_H: f64 = 14.0;
const GAP: f64 = 8.0;

/// Horizontal bars from zero, each with its label above it, so that long
/// labels never squeeze the bars; `caption` names what is measured.
pub fn bars(caption: &str, bars: &[Bar]) -> String {
    let max = bars.iter().map(|b| b.value).fold(0.0, f64::max);
    let height = bars.len() as f64 * (LABEL_H + BAR_H + GAP) + GAP;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH:.0} {height:.0}\" width=\"{WIDTH:.0}\" role=\"img\" aria-label=\"{}\">",
        esc(caption)
    );
    let mut y = GAP;
    for b in bars {
        let w = if max > 0.0 && b.value.is_finite() {
            (b.value.max(0.0) / max * (WIDTH - 4.0)).max(1.0)
        } else {
            1.0
        };
        let mut label = format!("{}: {}", b.label, words::num(b.value));
        if !b.note.is_empty() {
            let _ = write!(label, " ({})", b.note);
        }
        let _ = writeln!(
            out,
            "<text x=\"2\" y=\"{:.1}\">{}</text>\n<rect class=\"bar {}\" x=\"2\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{BAR_H}\"><title>{}</title></rect>",
            y + 12.0,
            esc(&super::diagram::cut(&label, 96)),
            b.class,
            y + LABEL_H,
            esc(&label)
        );
        y += LABEL_H + BAR_H + GAP;
    }
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"2\" y1=\"0\" x2=\"2\" y2=\"{height:.0}\"/></svg><figcaption>{}</figcaption></figure>",
        esc(caption)
    );
    out
}
