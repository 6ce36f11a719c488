//! The capacity projection in the HTML report: the same sentences as the
//! text report (deployment, limits in the order reached, changes), a chart
//! of each shard's working set and data on disk month by month against
//! the cache and the disk, and the table of months.

use super::page::{F1, esc};
use crate::design::capacity::Capacity;
use crate::outputs::design::capacity::{self as cap, Medium};
use crate::words;
use std::fmt::Write as _;

const WIDTH: f64 = 640.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 10.0;
const TOP: f64 = 10.0;
const PLOT_H: f64 = 200.0;
const AXIS_H: f64 = 34.0;

/// The section, `id="capacity"`.
pub(super) fn section(c: &Capacity) -> String {
    let mut out = String::from("<section id=\"capacity\"><h2>Capacity</h2>\n");
    let _ = writeln!(out, "<p>{}.</p>", esc(&cap::deployment(c)));
    if let Some(u) = cap::unchecked(c, Medium::Text) {
        let _ = writeln!(out, "<p>{}.</p>", esc(&u));
    }
    out.push_str("<ul>\n");
    match c.limits.first() {
        Some(first) => {
            let _ = writeln!(
                out,
                "<li><strong>First limit</strong>: {}</li>",
                esc(&cap::limit(first, Medium::Text))
            );
            for l in &c.limits[1..] {
                let _ = writeln!(out, "<li>then: {}</li>", esc(&cap::limit(l, Medium::Text)));
            }
        }
        None => {
            let _ = writeln!(
                out,
                "<li>No limit reached within {}.</li>",
                words::count(f64::from(c.horizon_months), "month")
            );
        }
    }
    for r in &c.remedies {
        let _ = writeln!(
            out,
            "<li><strong>Change</strong>: {}</li>",
            esc(&cap::remedy(r, Medium::Text))
        );
    }
    out.push_str("</ul>\n");
    out.push_str(&chart(c));
    out.push_str("<table><tr>");
    for (i, h) in cap::COLUMNS.iter().enumerate() {
        let class = if i == 1 || i == 5 {
            ""
        } else {
            " class=\"num\""
        };
        let _ = write!(out, "<th{class}>{}</th>", esc(h));
    }
    out.push_str("</tr>\n");
    for row in c.months.iter().flat_map(cap::rows) {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let class = if i == 1 || i == 5 {
                ""
            } else {
                " class=\"num\""
            };
            let _ = write!(out, "<td{class}>{}</td>", esc(&words::visible(cell)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></section>\n");
    out
}

/// One line of the chart: its class, its name, a value per month.
struct Series {
    class: &'static str,
    name: &'static str,
    values: Vec<f64>,
}

/// Each shard's working set and data on disk (with indexes), month by
/// month, on a log axis, with the cache and the disk as dashed lines.
fn chart(c: &Capacity) -> String {
    let shards = f64::from(c.deployment.shards.max(1));
    let per = |f: fn(&crate::design::capacity::CapacityMonth) -> u64| -> Vec<f64> {
        c.months.iter().map(|m| f(m) as f64 / shards).collect()
    };
    // On disk first, wide and light, so the working set drawn over it
    // stays visible where the two are equal (every document touched).
    let series = [
        Series {
            class: "on-disk",
            name: "on disk",
            values: per(|m| m.disk_bytes),
        },
        Series {
            class: "working-set",
            name: "working set",
            values: per(|m| m.working_set_bytes),
        },
    ];
    let limits: Vec<(&str, &str, f64)> = [
        ("cache", "WiredTiger cache", c.deployment.cache_bytes),
        ("disk", "disk", c.deployment.disk_bytes),
    ]
    .into_iter()
    .filter_map(|(class, name, v)| v.map(|v| (class, name, v as f64)))
    .collect();
    let all = series
        .iter()
        .flat_map(|s| s.values.iter().copied())
        .chain(limits.iter().map(|l| l.2))
        .filter(|v| *v > 0.0);
    let (lo, hi) = all.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !hi.is_finite() || hi <= 0.0 || c.months.is_empty() {
        return String::new();
    }
    // Ticks at 1, 10 and 100 of each binary unit (1 GiB, 10 GiB, 100 GiB,
    // 1 TiB…), so that each reads as a round figure; the axis runs from
    // the tick at or below the least figure to the one at or above the
    // greatest.
    let ticks: Vec<f64> = (0..7)
        .flat_map(|k| [1.0, 10.0, 100.0].map(|m| m * 1024f64.powi(k)))
        .collect();
    let lo = ticks
        .iter()
        .copied()
        .filter(|t| *t <= lo)
        .fold(1.0, f64::max);
    let hi = ticks
        .iter()
        .copied()
        .find(|t| *t >= hi && *t > lo)
        .unwrap_or(hi);
    let plot_w = WIDTH - LEFT - RIGHT;
    let last = f64::from(c.months.last().map_or(1, |m| m.month).max(1));
    let x = |month: f64| LEFT + month / last * plot_w;
    let y = |v: f64| TOP + (hi.log10() - v.max(lo).log10()) / (hi.log10() - lo.log10()) * PLOT_H;
    let legend_h = (series.len() + limits.len()) as f64 * 16.0;
    let height = TOP + PLOT_H + AXIS_H + legend_h;
    let caption = format!(
        "Per shard, month by month: the working set and the data on disk with its indexes{}.",
        if limits.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = limits.iter().map(|l| l.1).collect();
            format!(", against the {}", names.join(" and the "))
        }
    );
    let mut out = format!(
        "<figure><svg class=\"chart capacity\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH:.0} {height:.0}\" width=\"{WIDTH:.0}\" role=\"img\" aria-label=\"{}\">\n",
        esc(&caption)
    );
    // The axes: a tick per decade, and the months at a few even steps.
    for &d in ticks.iter().filter(|t| **t >= lo && **t <= hi) {
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/><text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            F1(LEFT),
            F1(LEFT + plot_w),
            F1(LEFT - 4.0),
            F1(y(d) + 4.0),
            esc(&words::bytes(d)),
            y = F1(y(d))
        );
    }
    let step = (last / 6.0).ceil().max(1.0);
    let mut m = 0.0;
    while m <= last {
        let _ = writeln!(
            out,
            "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            F1(x(m)),
            F1(TOP + PLOT_H + 14.0),
            m
        );
        m += step;
    }
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{b}\"/><line class=\"axis\" x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/><text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">month</text>",
        F1(LEFT + plot_w / 2.0),
        F1(TOP + PLOT_H + 28.0),
        l = F1(LEFT),
        t = F1(TOP),
        b = F1(TOP + PLOT_H),
        r = F1(LEFT + plot_w)
    );
    for (class, name, v) in &limits {
        let _ = writeln!(
            out,
            "<line class=\"limit {class}\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"><title>{} {}</title></line>",
            F1(LEFT),
            F1(LEFT + plot_w),
            esc(name),
            esc(&words::bytes(*v)),
            y = F1(y(*v))
        );
    }
    for s in &series {
        let points: Vec<String> = c
            .months
            .iter()
            .zip(&s.values)
            .map(|(m, v)| format!("{},{}", F1(x(f64::from(m.month))), F1(y(*v))))
            .collect();
        let _ = writeln!(
            out,
            "<polyline class=\"series {}\" points=\"{}\"><title>{}: {} in month 0, {} in month {}</title></polyline>",
            s.class,
            points.join(" "),
            s.name,
            esc(&words::bytes(s.values.first().copied().unwrap_or(0.0))),
            esc(&words::bytes(s.values.last().copied().unwrap_or(0.0))),
            last
        );
    }
    // The legend, under the axis.
    let mut ly = TOP + PLOT_H + AXIS_H + 10.0;
    let keys = series
        .iter()
        .map(|s| (format!("series {}", s.class), s.name.to_string()))
        .chain(limits.iter().map(|(class, name, v)| {
            (
                format!("limit {class}"),
                format!("{name} ({})", words::bytes(*v)),
            )
        }));
    for (class, label) in keys {
        let _ = writeln!(
            out,
            "<line class=\"{class}\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            F1(LEFT),
            F1(LEFT + 24.0),
            F1(LEFT + 30.0),
            F1(ly + 4.0),
            esc(&label),
            y = F1(ly)
        );
        ly += 16.0;
    }
    let _ = writeln!(
        out,
        "</svg><figcaption>{} Log scale; the shards are taken to share the data evenly.</figcaption></figure>",
        esc(&caption)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample projection: 64 GiB RAM and a 4 TiB disk, two months.
    #[test]
    fn the_chart_draws_both_series_and_both_limits_on_round_ticks() {
        let design = crate::outputs::design::sample::every_variant();
        let c = design
            .capacity
            .as_ref()
            .expect("the sample has a projection");
        let html = section(c);
        assert_eq!(html.matches("<polyline class=\"series").count(), 2);
        assert!(html.contains("<line class=\"limit cache\""));
        assert!(html.contains("<line class=\"limit disk\""));
        // One point per month in each line.
        let points = html
            .split("points=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or_default();
        assert_eq!(points.split(' ').count(), c.months.len());
        // Every tick is 1, 10 or 100 of a binary unit.
        for label in html.split("text-anchor=\"end\">").skip(1) {
            let label = label.split('<').next().unwrap_or_default();
            let n = label.split(' ').next().unwrap_or_default();
            assert!(
                ["1.0", "10.0", "100.0", "1", "10", "100"].contains(&n),
                "{label}"
            );
        }
        assert!(html.contains("<section id=\"capacity\">"));
    }
}
