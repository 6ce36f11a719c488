//! The diagram of collections: one box per collection with its top-level
//! fields (embedded sub-documents nested in a dashed box inside it; copied,
//! computed, embedded and reference fields marked in color and words), and
//! one arrow per reference between collections with its cardinality.
//! `layout-rs` places the boxes and routes the arrows (a layered, dot-like
//! layout); squill draws the boxes' contents itself, sized from its own
//! text, so the layout makes room for exactly what is drawn. `graph` draws
//! any such boxes and arrows (the scan report's are measured collections);
//! `collections` makes them from a design.

use super::canvas::{Canvas, HIDDEN};
use super::page::{F1, esc, id};
use crate::design::{Design, FieldOrigin, Shape, ShapeType};
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
/// How wide a row of boxes without arrows may grow (the page shows about
/// 1,150 px).
const ROW_W: f64 = 1100.0;
/// Collections past which the diagram's crossings are not minimized.
const LARGE: usize = 60;

/// A box: a collection's name, a line below it, its fields.
pub(super) struct Node {
    pub name: String,
    /// The fragment id its box links to (the collection's row in a table).
    pub anchor: String,
    /// The line under the name ("holds product, part"; "1,200 documents").
    pub subtitle: String,
    pub rows: Vec<Row>,
}

/// One line of a box: a field at a nesting depth.
pub(super) struct Row {
    pub depth: usize,
    pub name: String,
    pub ty: String,
    pub note: String,
    /// The stylesheet class of its origin ("copy", "computed", …), if marked.
    pub kind: &'static str,
    /// Rows below it that are its sub-document's fields.
    pub children: usize,
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

/// The diagram of a design's collections as an inline `<svg>` element.
pub(super) fn collections(design: &Design) -> String {
    let nodes: Vec<Node> = design
        .collections
        .iter()
        .map(|c| {
            let mut rows = Vec::new();
            flatten(&c.shape, 0, &mut rows);
            Node {
                name: c.name.clone(),
                anchor: id("coll", &c.name),
                subtitle: format!("holds {}", c.entities.join(", ")),
                rows,
            }
        })
        .collect();
    graph(&nodes, &references(design))
}

/// The boxes and the arrows between them (`Edge::from` and `to` index
/// `nodes`) as an inline `<svg>` element.
pub(super) fn graph(nodes: &[Node], edges: &[Edge]) -> String {
    let mut graph = VisualGraph::new(Orientation::TopToBottom);
    let handles: Vec<_> = nodes
        .iter()
        .enumerate()
        .map(|(n, node)| {
            graph.add_node(Element::create_with_properties(
                ShapeKind::Box(String::new()),
                StyleAttr::simple(),
                Orientation::TopToBottom,
                size(node),
                n.to_string(),
            ))
        })
        .collect();
    let mut look = StyleAttr::simple();
    look.font_size = 8;
    for edge in edges {
        let (Some(&from), Some(&to)) = (handles.get(edge.from), handles.get(edge.to)) else {
            continue;
        };
        let mut arrow = Arrow::simple(&edge.label);
        arrow.look = look.clone();
        arrow.properties = Some(edge.title.clone());
        graph.add_edge(arrow, from, to);
    }
    // Boxes without an arrow would all share the top layer, one wide row
    // that the page then shrinks past reading: they are stacked in rows
    // about `ROW_W` wide, each box tied to one in the row above by an
    // edge that is laid out, never drawn.
    let lone: Vec<usize> = (0..nodes.len())
        .filter(|&n| {
            !edges
                .iter()
                .any(|e| e.from != e.to && (e.from == n || e.to == n))
        })
        .collect();
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut width = 0.0;
    for &n in &lone {
        let w = size(&nodes[n]).x + 30.0;
        if width + w > ROW_W && rows.last().is_some_and(|r| !r.is_empty()) {
            rows.push(Vec::new());
            width = 0.0;
        }
        width += w;
        rows.last_mut().expect("a row").push(n);
    }
    for pair in rows.windows(2) {
        let (above, below) = (&pair[0], &pair[1]);
        for (column, &n) in below.iter().enumerate() {
            let mut arrow = Arrow::simple("");
            arrow.properties = Some(HIDDEN.to_string());
            graph.add_edge(
                arrow,
                handles[above[column.min(above.len() - 1)]],
                handles[n],
            );
        }
    }
    let mut canvas = Canvas::default();
    // layout-rs checks its own invariants with assertions; a failure there
    // must cost the report its diagram, not the whole report.
    let laid_out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // layout-rs's crossing reduction grows fast with the graph: 3.2 s
        // for the 200-entity benchmark model's 172 collections
        // (BENCHMARKS.md, issue 22). Past `LARGE` boxes the layers are kept
        // in their first order.
        let skip_optimization = nodes.len() > LARGE;
        graph.do_it(false, skip_optimization, false, &mut canvas);
        canvas
    }));
    let Ok(canvas) = laid_out else {
        return "<p>The diagram could not be laid out.</p>".into();
    };
    draw(nodes, &canvas)
}

fn size(node: &Node) -> Point {
    let head = node.name.chars().count() as f64 * 7.9;
    let subtitle = (node.subtitle.chars().count().min(MAX_CHARS)) as f64 * CHAR_W;
    let body = node
        .rows
        .iter()
        .map(|r| r.depth as f64 * INDENT + r.text_len() as f64 * CHAR_W)
        .fold(0.0, f64::max);
    Point::new(
        head.max(subtitle).max(body).max(80.0) + 2.0 * PAD,
        HEAD_H + node.rows.len() as f64 * ROW_H + PAD,
    )
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
        FieldOrigin::Reference { relationship, .. } => ("reference", format!("→ {relationship}")),
        FieldOrigin::Path { tree, .. } => ("reference", format!("path in {tree}")),
        FieldOrigin::Timeline { entity, .. } => ("copy", format!("copies of the newest {entity}")),
        FieldOrigin::Outliers { entity, .. } => ("reference", format!("{entity} not pushed")),
        FieldOrigin::Bucket { description, .. } => ("", description.clone()),
        FieldOrigin::Attribute { relationship, .. } => ("", format!("of the link {relationship}")),
        FieldOrigin::Discriminator => ("", "type".into()),
        FieldOrigin::Id | FieldOrigin::Own { .. } => ("", String::new()),
    }
}

/// An arrow between two boxes: from the one holding the reference to the
/// one it points to, with a short label and a longer tooltip.
pub(super) struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: String,
    pub title: String,
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
            (FieldOrigin::Reference { relationship, .. }, ty) => {
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

fn draw(nodes: &[Node], canvas: &Canvas) -> String {
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
        nodes.len()
    );
    out.push_str(concat!(
        "<defs><marker id=\"sq-arrow-end\" markerWidth=\"10\" markerHeight=\"7\" refX=\"10\" refY=\"3.5\" orient=\"auto\">",
        "<polygon class=\"arrowhead\" points=\"0 0, 10 3.5, 0 7\"/></marker>",
        "<marker id=\"sq-arrow-start\" markerWidth=\"10\" markerHeight=\"7\" refX=\"0\" refY=\"3.5\" orient=\"auto\">",
        "<polygon class=\"arrowhead\" points=\"10 0, 10 7, 0 3.5\"/></marker></defs>\n"
    ));
    for &(n, xy, size) in &canvas.boxes {
        if let Some(node) = nodes.get(n) {
            draw_node(&mut out, node, xy, size);
        }
    }
    out.push_str(&canvas.edges);
    out.push_str("</svg>\n");
    out
}

fn draw_node(out: &mut String, node: &Node, xy: Point, size: Point) {
    let (x, y) = (xy.x, xy.y);
    let _ = writeln!(
        out,
        "<a href=\"#{}\" aria-label=\"Collection {}\"><g class=\"node\" data-collection=\"{}\">",
        esc(&node.anchor),
        esc(&node.name),
        esc(&node.name)
    );
    let _ = writeln!(
        out,
        "<rect class=\"box\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" rx=\"4\"/>",
        F1(size.x),
        F1(size.y),
        x = F1(x),
        y = F1(y)
    );
    let _ = writeln!(
        out,
        "<rect class=\"head\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\"/>",
        F1(x + 1.0),
        F1(y + 1.0),
        F1(size.x - 2.0),
        F1(HEAD_H - 4.0)
    );
    let _ = writeln!(
        out,
        "<text class=\"name\" x=\"{}\" y=\"{}\">{}</text>",
        F1(x + PAD),
        F1(y + 16.0),
        esc(&node.name)
    );
    let _ = writeln!(
        out,
        "<text class=\"holds\" x=\"{}\" y=\"{}\">{}</text>",
        F1(x + PAD),
        F1(y + 31.0),
        esc(&cut(&node.subtitle, MAX_CHARS))
    );
    let rows = &node.rows;
    let top = y + HEAD_H;
    for (i, r) in rows.iter().enumerate() {
        let rx = x + PAD + r.depth as f64 * INDENT;
        if r.children > 0 {
            let _ = writeln!(
                out,
                "<rect class=\"sub\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\"/>",
                F1(rx + INDENT - 4.0),
                F1(top + (i + 1) as f64 * ROW_H + 1.0),
                F1((x + size.x - PAD / 2.0) - (rx + INDENT - 4.0)),
                F1(r.children as f64 * ROW_H)
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
            "<text x=\"{rx}\" y=\"{}\"><title>{}</title><tspan{kind}>{}</tspan><tspan class=\"type\">{}</tspan><tspan{kind}>{}</tspan></text>",
            F1(top + i as f64 * ROW_H + 12.0),
            esc(&full),
            esc(&r.name),
            esc(&ty),
            esc(&note),
            rx = F1(rx)
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
