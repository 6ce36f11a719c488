//! The diagram of a design's collections: one box per collection with its
//! top-level fields (embedded sub-documents nested in a dashed box inside
//! it; copied, computed, embedded and reference fields marked in color and
//! words), and one arrow per reference between collections with its
//! cardinality. `layout-rs` places the boxes and routes the arrows (a
//! layered, dot-like layout); squill draws the boxes' contents itself, sized
//! from its own text, so the layout makes room for exactly what is drawn.

use super::canvas::Canvas;
use super::page::{esc, id};
use crate::design::{Collection, Design, FieldOrigin, Shape, ShapeType};
use layout::core::base::Orientation;
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;
use std::fmt::Write as _;

/// Monospace text at 12 px is about 0.6 em wide per character; the
/// stylesheet draws the diagram's text in a monospace font so this holds.
const CHAR_W: f64 = 7.3;
const ROW_H: f64 = 16.0;
const HEAD_H: f64 = 40.0;
const PAD: f64 = 8.0;
const INDENT: f64 = 14.0;
/// A row longer than this is cut, with the whole text in its tooltip: one
/// long note must not make its box (and the whole diagram) wide.
const MAX_CHARS: usize = 56;
/// Collections past which the diagram's crossings are not minimized.
const LARGE: usize = 60;

/// One line of a box: a field at a nesting depth.
struct Row {
    depth: usize,
    name: String,
    ty: String,
    note: String,
    /// The stylesheet class of its origin ("copy", "computed", …), if marked.
    kind: &'static str,
    /// Rows below it that are its sub-document's fields.
    children: usize,
}

impl Row {
    fn text_len(&self) -> usize {
        let note = if self.note.is_empty() {
            0
        } else {
            self.note.chars().count() + 2
        };
        (self.name.chars().count() + 1 + self.ty.chars().count() + note).min(MAX_CHARS)
    }
}

/// The diagram as an inline `<svg>` element.
pub fn collections(design: &Design) -> String {
    let rows: Vec<Vec<Row>> = design
        .collections
        .iter()
        .map(|c| {
            let mut rows = Vec::new();
            flatten(&c.shape, 0, &mut rows);
            rows
        })
        .collect();
    let sizes: Vec<Point> = design
        .collections
        .iter()
        .zip(&rows)
        .map(|(c, rows)| size(c, rows))
        .collect();

    let mut graph = VisualGraph::new(Orientation::TopToBottom);
    let nodes: Vec<_> = sizes
        .iter()
        .enumerate()
        .map(|(n, size)| {
            graph.add_node(Element::create_with_properties(
                ShapeKind::Box(String::new()),
                StyleAttr::simple(),
                Orientation::TopToBottom,
                *size,
                n.to_string(),
            ))
        })
        .collect();
    let mut look = StyleAttr::simple();
    look.font_size = 8;
    for edge in references(design) {
        let mut arrow = Arrow::simple(&edge.label);
        arrow.look = look.clone();
        arrow.properties = Some(edge.title);
        graph.add_edge(arrow, nodes[edge.from], nodes[edge.to]);
    }
    let mut canvas = Canvas::default();
    // layout-rs checks its own invariants with assertions; a failure there
    // must cost the report its diagram, not the whole report.
    let laid_out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // layout-rs's crossing reduction grows fast with the graph: 3.2 s
        // for the 200-entity benchmark model's 172 collections
        // (BENCHMARKS.md, issue 22). Past `LARGE` boxes the layers are kept
        // in their first order.
        let skip_optimization = design.collections.len() > LARGE;
        graph.do_it(false, skip_optimization, false, &mut canvas);
        canvas
    }));
    let Ok(canvas) = laid_out else {
        return "<p>The diagram could not be laid out.</p>".into();
    };
    draw(design, &rows, &canvas)
}

fn size(c: &Collection, rows: &[Row]) -> Point {
    let head = c.name.chars().count() as f64 * 7.9;
    let holds = (holds(c).chars().count().min(MAX_CHARS)) as f64 * CHAR_W;
    let body = rows
        .iter()
        .map(|r| r.depth as f64 * INDENT + r.text_len() as f64 * CHAR_W)
        .fold(0.0, f64::max);
    Point::new(
        head.max(holds).max(body).max(80.0) + 2.0 * PAD,
        HEAD_H + rows.len() as f64 * ROW_H + PAD,
    )
}

fn holds(c: &Collection) -> String {
    format!("holds {}", c.entities.join(", "))
}

fn flatten(shape: &Shape, depth: usize, rows: &mut Vec<Row>) {
    for f in &shape.fields {
        let (kind, note) = origin(&f.origin);
        let at = rows.len();
        rows.push(Row {
            depth,
            name: f.name.clone(),
            ty: type_name(&f.ty),
            note,
            kind,
            children: 0,
        });
        let inner = match &f.ty {
            ShapeType::Object { shape } => Some(shape),
            ShapeType::Array { items, .. } => match items.as_ref() {
                ShapeType::Object { shape } => Some(shape),
                _ => None,
            },
            ShapeType::Scalar { .. } => None,
        };
        if let Some(shape) = inner {
            flatten(shape, depth + 1, rows);
            rows[at].children = rows.len() - at - 1;
        }
    }
}

fn type_name(ty: &ShapeType) -> String {
    match ty {
        ShapeType::Scalar { bson_type, .. } => bson_type.clone(),
        ShapeType::Object { .. } => "object".into(),
        ShapeType::Array { items, max_items } => {
            let bound = max_items.map_or_else(String::new, |m| format!(" ≤{m}"));
            format!("[{}]{bound}", type_name(items))
        }
    }
}

/// A field's mark: its class and the words beside it.
fn origin(origin: &FieldOrigin) -> (&'static str, String) {
    match origin {
        FieldOrigin::Embedded { relationship } => ("embedded", format!("embedded {relationship}")),
        FieldOrigin::Copy {
            entity,
            field,
            snapshot,
            ..
        } => (
            "copy",
            format!(
                "copy of {entity}.{field}{}",
                if *snapshot { " (snapshot)" } else { "" }
            ),
        ),
        FieldOrigin::Computed { description, .. } => {
            ("computed", format!("computed: {description}"))
        }
        FieldOrigin::Reference { relationship } => ("reference", format!("→ {relationship}")),
        FieldOrigin::Path { tree, .. } => ("reference", format!("path in {tree}")),
        FieldOrigin::Timeline { entity, .. } => ("copy", format!("copies of the newest {entity}")),
        FieldOrigin::Outliers { entity, .. } => ("reference", format!("{entity} not pushed")),
        FieldOrigin::Bucket { description, .. } => ("", description.clone()),
        FieldOrigin::Attribute { relationship, .. } => ("", format!("of the link {relationship}")),
        FieldOrigin::Discriminator => ("", "type".into()),
        FieldOrigin::Id | FieldOrigin::Own { .. } => ("", String::new()),
    }
}

/// An arrow between two boxes.
struct Edge {
    from: usize,
    to: usize,
    label: String,
    title: String,
}

/// Every reference field (at any depth) whose other side lives in a
/// collection of the design.
fn references(design: &Design) -> Vec<Edge> {
    let embedded = embedded_homes(design);
    // The collection an entity's documents live in, or the one it is
    // embedded in (an arrow to a product's parts embedded in products).
    let home = |entity: &str| {
        design
            .collections
            .iter()
            .position(|c| c.entities.iter().any(|e| e == entity))
            .or_else(|| embedded.iter().find(|(e, _)| e == entity).map(|(_, c)| *c))
    };
    let mut edges = Vec::new();
    for (from, c) in design.collections.iter().enumerate() {
        let mut fields = Vec::new();
        reference_fields(&c.shape, "", &mut fields);
        for (path, relationship, many) in fields {
            let Some(d) = design
                .relationships
                .iter()
                .find(|d| d.relationship == relationship)
            else {
                continue;
            };
            let sides = [home(&d.parent), home(&d.child)];
            // A tree's reference stays home; any other points to the
            // collection that keeps the other side, as documents or embedded.
            let to = if d.parent == d.child {
                Some(from)
            } else {
                sides.iter().flatten().copied().find(|&t| t != from)
            };
            let Some(to) = to else { continue };
            // Pointing at an entity embedded in `to`, the title says which.
            let target = [&d.parent, &d.child]
                .into_iter()
                .find(|e| home(e) == Some(to) && !design.collections[to].entities.contains(e))
                .map_or_else(
                    || design.collections[to].name.clone(),
                    |e| format!("{e}, embedded in {}", design.collections[to].name),
                );
            edges.push(Edge {
                from,
                to,
                label: format!("{path} ({})", if many { "n" } else { "1" }),
                title: format!(
                    "{}.{path} holds {} of {target} ({relationship}, {})",
                    c.name,
                    if many { "ids" } else { "the id" },
                    d.class
                ),
            });
        }
    }
    edges
}

/// Each entity embedded somewhere, with the collection it is embedded in
/// (the first, when several embed it): walked down from each collection's
/// entities, an embedded field holding the relationship's other side.
fn embedded_homes(design: &Design) -> Vec<(String, usize)> {
    fn walk(
        design: &Design,
        shape: &Shape,
        owner: &str,
        at: usize,
        out: &mut Vec<(String, usize)>,
    ) {
        for f in &shape.fields {
            let inner = match &f.ty {
                ShapeType::Object { shape } => Some(shape),
                ShapeType::Array { items, .. } => match items.as_ref() {
                    ShapeType::Object { shape } => Some(shape),
                    _ => None,
                },
                _ => None,
            };
            let FieldOrigin::Embedded { relationship } = &f.origin else {
                continue;
            };
            let Some(d) = design
                .relationships
                .iter()
                .find(|d| d.relationship == *relationship)
            else {
                continue;
            };
            let other = if d.parent == owner {
                &d.child
            } else {
                &d.parent
            };
            if out.iter().all(|(e, _)| e != other) {
                out.push((other.clone(), at));
            }
            if let Some(inner) = inner {
                walk(design, inner, other, at, out);
            }
        }
    }
    let mut out = Vec::new();
    for (at, c) in design.collections.iter().enumerate() {
        if let [owner] = c.entities.as_slice() {
            walk(design, &c.shape, owner, at, &mut out);
        }
    }
    out
}

/// (path, relationship, holds many ids) of each reference field.
fn reference_fields(shape: &Shape, prefix: &str, out: &mut Vec<(String, String, bool)>) {
    for f in &shape.fields {
        let path = if prefix.is_empty() {
            f.name.clone()
        } else {
            format!("{prefix}.{}", f.name)
        };
        match (&f.origin, &f.ty) {
            (FieldOrigin::Reference { relationship }, ty) => {
                let many = matches!(ty, ShapeType::Array { .. });
                out.push((path, relationship.clone(), many));
            }
            (_, ShapeType::Object { shape }) => reference_fields(shape, &path, out),
            (_, ShapeType::Array { items, .. }) => {
                if let ShapeType::Object { shape } = items.as_ref() {
                    reference_fields(shape, &path, out);
                }
            }
            _ => {}
        }
    }
}

fn draw(design: &Design, rows: &[Vec<Row>], canvas: &Canvas) -> String {
    let (min, size) = canvas.bounds();
    let margin = 10.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg class=\"diagram\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{:.0} {:.0} {:.0} {:.0}\" width=\"{:.0}\" role=\"group\" aria-label=\"Diagram of the {} collections and their references\">",
        min.x - margin,
        min.y - margin,
        size.x + 2.0 * margin,
        size.y + 2.0 * margin,
        size.x + 2.0 * margin,
        design.collections.len()
    );
    out.push_str(concat!(
        "<defs><marker id=\"sq-arrow-end\" markerWidth=\"10\" markerHeight=\"7\" refX=\"10\" refY=\"3.5\" orient=\"auto\">",
        "<polygon class=\"arrowhead\" points=\"0 0, 10 3.5, 0 7\"/></marker>",
        "<marker id=\"sq-arrow-start\" markerWidth=\"10\" markerHeight=\"7\" refX=\"0\" refY=\"3.5\" orient=\"auto\">",
        "<polygon class=\"arrowhead\" points=\"10 0, 10 7, 0 3.5\"/></marker></defs>\n"
    ));
    for &(n, xy, size) in &canvas.boxes {
        if let (Some(c), Some(rows)) = (design.collections.get(n), rows.get(n)) {
            node(&mut out, c, rows, xy, size);
        }
    }
    out.push_str(&canvas.edges);
    out.push_str("</svg>\n");
    out
}

fn node(out: &mut String, c: &Collection, rows: &[Row], xy: Point, size: Point) {
    let (x, y) = (xy.x, xy.y);
    let _ = writeln!(
        out,
        "<a href=\"#{}\" aria-label=\"Collection {}\"><g class=\"node\" data-collection=\"{}\">",
        id("coll", &c.name),
        esc(&c.name),
        esc(&c.name)
    );
    let _ = writeln!(
        out,
        "<rect class=\"box\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"4\"/>",
        size.x, size.y
    );
    let _ = writeln!(
        out,
        "<rect class=\"head\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\"/>",
        x + 1.0,
        y + 1.0,
        size.x - 2.0,
        HEAD_H - 4.0
    );
    let _ = writeln!(
        out,
        "<text class=\"name\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        x + PAD,
        y + 16.0,
        esc(&c.name)
    );
    let _ = writeln!(
        out,
        "<text class=\"holds\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        x + PAD,
        y + 31.0,
        esc(&cut(&holds(c), MAX_CHARS))
    );
    let top = y + HEAD_H;
    for (i, r) in rows.iter().enumerate() {
        let rx = x + PAD + r.depth as f64 * INDENT;
        if r.children > 0 {
            let _ = writeln!(
                out,
                "<rect class=\"sub\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\"/>",
                rx + INDENT - 4.0,
                top + (i + 1) as f64 * ROW_H + 1.0,
                (x + size.x - PAD / 2.0) - (rx + INDENT - 4.0),
                r.children as f64 * ROW_H
            );
        }
        let full = if r.note.is_empty() {
            format!("{} {}", r.name, r.ty)
        } else {
            format!("{} {}  {}", r.name, r.ty, r.note)
        };
        let shown = cut(&full, MAX_CHARS);
        // The name, its type and its note in their own colors.
        let name_len = r.name.chars().count();
        let rest: String = shown.chars().skip(name_len).collect();
        let (ty, note) = match rest.find("  ") {
            Some(at) => (rest[..at].to_string(), rest[at..].to_string()),
            None => (rest, String::new()),
        };
        let kind = if r.kind.is_empty() {
            String::new()
        } else {
            format!(" class=\"{}\"", r.kind)
        };
        let _ = writeln!(
            out,
            "<text x=\"{rx:.1}\" y=\"{:.1}\"><title>{}</title><tspan{kind}>{}</tspan><tspan class=\"type\">{}</tspan><tspan{kind}>{}</tspan></text>",
            top + i as f64 * ROW_H + 12.0,
            esc(&full),
            esc(&r.name),
            esc(&ty),
            esc(&note)
        );
    }
    out.push_str("</g></a>\n");
}

/// `text` cut to `max` characters, `…` marking the cut.
pub(super) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::collections;

    /// One box per collection, every reference drawn as a path.
    #[test]
    fn one_box_per_collection() {
        for design in [
            crate::outputs::design::sample::product_parts(),
            crate::fixtures::shop().1,
        ] {
            let svg = collections(&design);
            assert_eq!(
                svg.matches("data-collection=").count(),
                design.collections.len(),
                "{svg}"
            );
            assert!(svg.starts_with("<svg class=\"diagram\""), "{svg}");
        }
    }

    /// A shipment keeps the id of an order line, and the lines are
    /// embedded in their orders: the arrow goes to the orders.
    #[test]
    fn a_reference_to_an_embedded_entity_points_to_its_holder() {
        let yaml = "name: shipping
entities:
  orders: {count: 1000, fields: {placed_at: date}}
  lines: {count: 5000, fields: {sku: string, qty: int}}
  shipments: {count: 3000, fields: {sent_at: date}}
relationships:
  order_lines:
    parent: orders
    child: lines
    children: {min: 1, typical: 5, max: 20}
    layout: embed
  line_shipments:
    parent: lines
    child: shipments
    children: {min: 0, typical: 1, max: 3}
    child_field: line
    standalone: true
    layout: parent-reference
";
        let model = crate::inputs::model_file::parse("shipping.yaml", yaml).expect("parses");
        let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
            .expect("a design");
        let edges = super::references(&design);
        let names: Vec<(&str, &str)> = edges
            .iter()
            .map(|e| {
                (
                    design.collections[e.from].name.as_str(),
                    design.collections[e.to].name.as_str(),
                )
            })
            .collect();
        assert_eq!(names, [("shipments", "orders")], "{:?}", design.collections);
        assert!(
            edges[0].title.contains("of lines, embedded in orders"),
            "{}",
            edges[0].title
        );
    }
}
