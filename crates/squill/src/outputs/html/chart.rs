//! Charts as plain SVG rectangles and lines sized from the numbers: bars,
//! spreads (p50, p95, max) and histograms. A handful of shapes needs no
//! plotting library, and the classes let the stylesheet color them for
//! light, dark and print.

use super::page::{F1, esc};
use crate::scan::histogram::Bin;
use crate::words;
use std::fmt::Write as _;

/// One bar: its label, its value, and its stylesheet class ("chosen", …).
pub(super) struct Bar {
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

/// A chart's `<figure>` and `<svg>` opened, `height` tall.
fn open(caption: &str, height: f64) -> String {
    format!(
        "<figure><svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH:.0} {height:.0}\" width=\"{WIDTH:.0}\" role=\"img\" aria-label=\"{}\">\n",
        esc(caption)
    )
}

/// Horizontal bars from zero, each with its label above it, so that long
/// labels never squeeze the bars; `caption` names what is measured.
pub(super) fn bars(caption: &str, bars: &[Bar]) -> String {
    let max = bars.iter().map(|b| b.value).fold(0.0, f64::max);
    let height = bars.len() as f64 * (LABEL_H + BAR_H + GAP) + GAP;
    let mut out = open(caption, height);
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
            "<text x=\"2\" y=\"{}\">{}</text>\n<rect class=\"bar {}\" x=\"2\" y=\"{}\" width=\"{w}\" height=\"{BAR_H}\"><title>{}</title></rect>",
            F1(y + 12.0),
            esc(&super::diagram::cut(&label, 96)),
            b.class,
            F1(y + LABEL_H),
            esc(&label),
            w = F1(w)
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

/// A spread of values: the least, the median, the 95th percentile and the
/// greatest (the scan's and the logs' summaries keep these, not every value).
pub(super) struct Spread {
    pub label: String,
    /// `None` when not kept (the logs' latencies): the line starts at p50.
    pub min: Option<f64>,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
}

const AXIS_H: f64 = 20.0;
const PLOT_W: f64 = WIDTH - 24.0;

/// Where `v` falls on a log axis from 0 to `top` (`ln(1 + v)`, so zero has a
/// place), `PLOT_W` wide.
fn log_x(v: f64, top: f64) -> f64 {
    let span = top.max(1.0).ln_1p();
    4.0 + v.max(0.0).ln_1p() / span * PLOT_W
}

/// Ticks of a log axis: 0, then each power of ten up to `top`, and `top`.
fn log_ticks(out: &mut String, y: f64, top: f64, unit: fn(f64) -> String) {
    let mut ticks = vec![0.0];
    let mut p = 1.0;
    while p < top * 0.5 {
        ticks.push(p);
        p *= 10.0;
    }
    ticks.push(top);
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"4\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
        F1(4.0 + PLOT_W),
        y = F1(y)
    );
    let mut last = f64::NEG_INFINITY;
    for t in ticks {
        let x = log_x(t, top);
        // Ticks closer than a label's width keep their line, not their text.
        let text = unit(t);
        let room = text.chars().count() as f64 * 6.5;
        let _ = writeln!(
            out,
            "<line class=\"axis\" x1=\"{x}\" y1=\"{y}\" x2=\"{x}\" y2=\"{}\"/>",
            F1(y + 4.0),
            x = F1(x),
            y = F1(y)
        );
        if x - last >= room {
            // The ends' labels stay inside the chart.
            let anchor = if x < 20.0 {
                "start"
            } else if x > PLOT_W - 20.0 {
                "end"
            } else {
                "middle"
            };
            let _ = writeln!(
                out,
                "<text class=\"tick\" x=\"{x}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
                F1(y + 15.0),
                esc(&text),
                x = F1(x)
            );
            last = x + room / 2.0;
        }
    }
}

/// One row per spread on one shared log axis: a thin line from the least
/// (or the median) to the greatest, a thick bar from the median to the 95th percentile, and
/// marks at p50, p95 and max; `unit` writes a value ("1.2 KiB", "12 ms").
pub(super) fn spreads(caption: &str, unit: fn(f64) -> String, rows: &[Spread]) -> String {
    let top = rows.iter().map(|r| r.max).fold(1.0, f64::max);
    let height = rows.len() as f64 * (LABEL_H + BAR_H + GAP) + GAP + AXIS_H;
    let mut out = open(caption, height);
    let mut y = GAP;
    for r in rows {
        let label = format!(
            "{}: p50 {} · p95 {} · max {}",
            r.label,
            unit(r.p50),
            unit(r.p95),
            unit(r.max)
        );
        let (x0, x50, x95, x1) = (
            log_x(r.min.unwrap_or(r.p50), top),
            log_x(r.p50, top),
            log_x(r.p95, top),
            log_x(r.max, top),
        );
        let mid = y + LABEL_H + BAR_H / 2.0;
        let _ = writeln!(
            out,
            "<text x=\"2\" y=\"{}\"><title>{}</title>{}</text>",
            F1(y + 12.0),
            esc(&label),
            esc(&super::diagram::cut(&label, 96))
        );
        let _ = writeln!(
            out,
            "<line class=\"range\" x1=\"{x0}\" y1=\"{mid}\" x2=\"{x1}\" y2=\"{mid}\"/>\n<rect class=\"bar\" x=\"{x50}\" y=\"{}\" width=\"{}\" height=\"{BAR_H}\"/>",
            F1(y + LABEL_H),
            F1((x95 - x50).max(1.5)),
            x0 = F1(x0),
            mid = F1(mid),
            x1 = F1(x1),
            x50 = F1(x50)
        );
        for (name, x, v) in [("p50", x50, r.p50), ("p95", x95, r.p95), ("max", x1, r.max)] {
            let _ = writeln!(
                out,
                "<line class=\"mark {name}\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"><title>{name} {}</title></line>",
                F1(y + LABEL_H - 2.0),
                F1(y + LABEL_H + BAR_H + 2.0),
                esc(&unit(v)),
                x = F1(x)
            );
        }
        y += LABEL_H + BAR_H + GAP;
    }
    log_ticks(&mut out, y, top, unit);
    let _ = writeln!(
        out,
        "</svg><figcaption>{} Log scale; the bar spans p50 to p95, the line {} to max.</figcaption></figure>",
        esc(caption),
        if rows.iter().all(|r| r.min.is_some()) {
            "min"
        } else {
            "min (or p50, when the least is not kept)"
        }
    );
    out
}

/// A histogram on a log axis: one bar per bin (its height the bin's count),
/// and a labelled line at each of `marks` (("p50", value), …).
pub(super) fn histogram(
    caption: &str,
    bins: &[Bin],
    marks: &[(&str, f64)],
    unit: fn(f64) -> String,
) -> String {
    const PLOT_H: f64 = 110.0;
    let (Some(first), Some(last)) = (bins.first(), bins.last()) else {
        return String::new();
    };
    let (lo, top) = (first.lo as f64, last.hi as f64);
    let span = top.ln_1p() - lo.ln_1p();
    let x = |v: f64| 4.0 + (v.max(lo).ln_1p() - lo.ln_1p()) / span.max(f64::MIN_POSITIVE) * PLOT_W;
    let most = bins.iter().map(|b| b.count).max().unwrap_or(0).max(1) as f64;
    let marks_h = marks.len() as f64 * LABEL_H;
    let base = marks_h + PLOT_H + GAP;
    let height = base + AXIS_H;
    let mut out = open(caption, height);
    for b in bins.iter().filter(|b| b.count > 0) {
        let h = (b.count as f64 / most * PLOT_H).max(1.0);
        let (x0, x1) = (x(b.lo as f64), x(b.hi as f64));
        let _ = writeln!(
            out,
            "<rect class=\"bar\" x=\"{x0}\" y=\"{}\" width=\"{}\" height=\"{h}\"><title>{} to {}: {}</title></rect>",
            F1(base - h),
            F1((x1 - x0 - 0.5).max(1.0)),
            esc(&unit(b.lo as f64)),
            esc(&unit(b.hi as f64)),
            words::int(b.count),
            x0 = F1(x0),
            h = F1(h)
        );
    }
    for (i, (name, v)) in marks.iter().enumerate() {
        let mx = x(*v);
        let ty = (i + 1) as f64 * LABEL_H - 4.0;
        // A label near the right edge reads leftwards.
        let anchor = if mx > WIDTH * 0.7 { "end" } else { "start" };
        let _ = writeln!(
            out,
            "<line class=\"mark {name}\" x1=\"{mx}\" y1=\"{}\" x2=\"{mx}\" y2=\"{base}\"/><text x=\"{}\" y=\"{ty}\" text-anchor=\"{anchor}\">{name} {}</text>",
            F1(ty + 3.0),
            F1(if anchor == "end" { mx - 3.0 } else { mx + 3.0 }),
            esc(&unit(*v)),
            mx = F1(mx),
            base = F1(base),
            ty = F1(ty)
        );
    }
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"4\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\"/>\n<text class=\"tick\" x=\"4\" y=\"{}\">{}</text><text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        F1(4.0 + PLOT_W),
        F1(base + 15.0),
        esc(&unit(lo)),
        F1(4.0 + PLOT_W),
        F1(base + 15.0),
        esc(&unit(top)),
        base = F1(base)
    );
    let _ = writeln!(
        out,
        "</svg><figcaption>{}</figcaption></figure>",
        esc(caption)
    );
    out
}
