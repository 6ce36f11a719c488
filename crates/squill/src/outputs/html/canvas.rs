//! A `layout-rs` render backend that records where the layout put things
//! instead of drawing them its own way: the boxes' places (squill draws their
//! fields itself, in classes the stylesheet colors for light, dark and
//! print), the edges' curves and their labels. layout-rs's own SVG writer
//! hard-codes colors and fonts, and has no hook for a box's contents.

use super::page::F1;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use std::fmt::Write as _;

/// The properties of an edge that only places boxes: never drawn.
pub(super) const HIDDEN: &str = "\u{0}hidden";

/// What the layout drew, in the layout's coordinates.
#[derive(Default)]
pub(super) struct Canvas {
    /// (node number, top-left corner, size) of each collection's box.
    pub boxes: Vec<(usize, Point, Point)>,
    /// SVG elements of the edges and their labels, in drawing order.
    pub edges: String,
    min: Option<Point>,
    max: Option<Point>,
}

impl Canvas {
    fn grow(&mut self, p: Point) {
        let min = self.min.get_or_insert(p);
        min.x = min.x.min(p.x);
        min.y = min.y.min(p.y);
        let max = self.max.get_or_insert(p);
        max.x = max.x.max(p.x);
        max.y = max.y.max(p.y);
    }

    /// The area everything drawn covers: (top-left, size).
    pub(super) fn bounds(&self) -> (Point, Point) {
        match (self.min, self.max) {
            (Some(min), Some(max)) => (min, Point::new(max.x - min.x, max.y - min.y)),
            _ => (Point::zero(), Point::zero()),
        }
    }
}

impl RenderBackend for Canvas {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        _look: &StyleAttr,
        properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        // Only the collections' boxes carry properties: their node number.
        if let Some(n) = properties.and_then(|p| p.parse::<usize>().ok()) {
            self.grow(xy);
            self.grow(xy.add(size));
            self.boxes.push((n, xy, size));
        }
    }

    fn draw_line(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    fn draw_circle(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    fn draw_text(&mut self, xy: Point, text: &str, _look: &StyleAttr) {
        // The boxes have no label of their own; what remains are the edges'.
        if text.is_empty() {
            return;
        }
        let half = text.chars().count() as f64 * 3.6;
        self.grow(Point::new(xy.x - half, xy.y - 8.0));
        self.grow(Point::new(xy.x + half, xy.y + 8.0));
        let _ = writeln!(
            self.edges,
            "<text class=\"edge-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" dominant-baseline=\"middle\">{}</text>",
            F1(xy.x),
            F1(xy.y),
            super::page::esc(text)
        );
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        dashed: bool,
        head: (bool, bool),
        _look: &StyleAttr,
        properties: Option<String>,
        _text: &str,
    ) {
        // An edge that only places boxes (`HIDDEN`) is not drawn.
        if properties.as_deref() == Some(HIDDEN) {
            return;
        }
        // The path is a cubic Bézier chain: the first pair is the start and
        // its control point, each later pair a control point and a point.
        let [(p0, c0), (c1, p1), rest @ ..] = path else {
            return;
        };
        let mut d = format!(
            "M {} {} C {} {}, {} {}, {} {}",
            F1(p0.x),
            F1(p0.y),
            F1(c0.x),
            F1(c0.y),
            F1(c1.x),
            F1(c1.y),
            F1(p1.x),
            F1(p1.y)
        );
        for (c, p) in rest {
            let _ = write!(d, " S {} {}, {} {}", F1(c.x), F1(c.y), F1(p.x), F1(p.y));
        }
        for (a, b) in path {
            self.grow(*a);
            self.grow(*b);
        }
        let _ = writeln!(
            self.edges,
            "<path class=\"edge\" d=\"{d}\"{}{}{}><title>{}</title></path>",
            if dashed {
                " stroke-dasharray=\"5 4\""
            } else {
                ""
            },
            if head.0 {
                " marker-start=\"url(#sq-arrow-start)\""
            } else {
                ""
            },
            if head.1 {
                " marker-end=\"url(#sq-arrow-end)\""
            } else {
                ""
            },
            super::page::esc(properties.as_deref().unwrap_or(""))
        );
    }

    fn create_clip(&mut self, _: Point, _: Point, _: usize) -> ClipHandle {
        0
    }
}
