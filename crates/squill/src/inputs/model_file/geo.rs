//! The words for places: an entity's `density:` (how many instances a km²
//! holds), the geo filter operators (`near(3 km)`, `within(3 km)`,
//! `within(12 km2)`, `intersects`) and the checks that tie them to a
//! GeoJSON field. Kept apart from the other filters so the pricing's
//! inputs (an area, a density) are read in one place.

use super::context::Ctx;
use super::raw::{RawDensity, S};
use crate::model::{Density, EntityId, FieldType, Filter, FilterOp, GeoArea, Model};

/// The largest area a geo operator or a density's `per` may name, km²:
/// half the Earth's surface. A larger "area" is a typo, or a search with
/// no real bound that the pricing cannot tell from one.
pub const MAX_AREA_KM2: f64 = 2.55e8;

/// The largest radius a model takes, km: the circle of `MAX_AREA_KM2`
/// (about 9,009 km). `scan --emit-model` caps a log's radius at it.
pub fn max_radius_km() -> f64 {
    (MAX_AREA_KM2 / std::f64::consts::PI).sqrt()
}

/// The area a geo operator searches, from its argument: a radius
/// (`3 km`, `500 m`, `2 mi`) gives a circle, an area (`12 km2`) a polygon.
/// `None` for text that is neither, or an area above `MAX_AREA_KM2`.
pub(super) fn area(arg: &str) -> Option<GeoArea> {
    any_area(arg).filter(|a| a.km2 <= MAX_AREA_KM2)
}

/// `area` without its upper bound, so an error can tell a radius that is
/// too large from one that is not a radius.
fn any_area(arg: &str) -> Option<GeoArea> {
    let arg = arg.trim();
    let split = arg
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(arg.len());
    let (number, unit) = arg.split_at(split);
    let n: f64 = number.parse().ok()?;
    let unit = unit.trim();
    let (km2, radius_km) = match unit {
        "km2" | "km²" | "sq km" => (n, None),
        "m2" | "m²" => (n / 1e6, None),
        "mi2" | "mi²" | "sq mi" => (n * 2.589_988, None),
        _ => {
            let km = match unit {
                "km" => n,
                "m" => n / 1000.0,
                "mi" | "mile" | "miles" => n * 1.609_344,
                _ => return None,
            };
            (std::f64::consts::PI * km * km, Some(km))
        }
    };
    (km2.is_finite() && km2 > 0.0).then_some(GeoArea { km2, radius_km })
}

/// A geo operator as written: `near(3 km)`, `within(…)`, `intersects`.
/// `None` when the text is another operator; otherwise the operator and
/// the area (`None` after an error said why).
pub(super) fn geo_op(
    ctx: &mut Ctx<'_>,
    op: &S<String>,
    text: &str,
) -> Option<(FilterOp, Option<GeoArea>)> {
    if text == "intersects" {
        return Some((FilterOp::Intersects, None));
    }
    for (name, kind) in [("near", FilterOp::Near), ("within", FilterOp::Within)] {
        let Some(rest) = text.strip_prefix(name) else {
            continue;
        };
        let arg = rest
            .trim_start()
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'));
        let area = arg.and_then(any_area);
        // `near` orders by distance from a point: its area is a circle.
        let area = area.filter(|a| kind == FilterOp::Within || a.radius_km.is_some());
        if let Some(big) = area.filter(|a| a.km2 > MAX_AREA_KM2) {
            let (what, bound) = match big.radius_km {
                Some(_) => ("radius", format!("{} km", max_radius_km().floor())),
                None => ("area", format!("{MAX_AREA_KM2:.0} km2")),
            };
            ctx.error(
                ctx.pos(op),
                format!(
                    "`{}`: the {what} is too large (at most {bound}: a circle of half the Earth's surface)",
                    op.value
                ),
                "too large",
                Some(format!("`{name}({bound})` searches half the Earth")),
            );
            return Some((kind, None));
        }
        if area.is_none() {
            ctx.error(
                ctx.pos(op),
                format!(
                    "`{}`: `{name}` takes a radius (`3 km`, `500 m`, `2 mi`){}",
                    op.value,
                    if kind == FilterOp::Within {
                        " or an area (`12 km2`)"
                    } else {
                        ""
                    }
                ),
                "not a radius",
                Some(format!("`{name}(3 km)`")),
            );
        }
        return Some((kind, area));
    }
    None
}

/// An entity's `density:`, per km² (or per the circle of `per`'s radius).
pub(super) fn density(ctx: &mut Ctx<'_>, raw: &S<RawDensity>) -> Option<Density> {
    let d = &raw.value;
    let densest_share = densest_share(ctx, d.densest_share.as_ref());
    let typical = ctx.non_negative(&d.typical, "a density")?;
    let max = match &d.max {
        Some(m) => ctx.non_negative(m, "a density")?,
        None => typical,
    };
    if max < typical {
        ctx.error(
            ctx.pos(d.max.as_ref().unwrap_or(&d.typical)),
            format!("density: the max ({max}) is below the typical ({typical})"),
            "below typical",
            Some("`max` is the densest place (a city centre), at least `typical`".into()),
        );
        // The file is refused already; the typical figure keeps the
        // reads that need a density from repeating the error.
        return Some(Density {
            typical,
            max: typical,
            densest_share,
        });
    }
    let per = match &d.per {
        None => 1.0,
        Some(p) => {
            let text = p.value.trim().to_ascii_lowercase();
            let text = text.strip_prefix("radius").unwrap_or(&text).trim();
            // A unit alone is one of it: `per: km2` (the default) and
            // `per: m2`, as the docs and this error's help write them.
            let one = format!("1 {text}");
            let bare = !text.starts_with(|c: char| c.is_ascii_digit() || c == '.');
            let Some(a) = area(if bare { &one } else { text }) else {
                ctx.error(
                    ctx.pos(p),
                    format!("density: `per: {}` is not a radius or an area", p.value),
                    "not a radius",
                    Some("`per: 3 km` counts the instances within 3 km, `per: km2` (the default) in one km²".into()),
                );
                // Refused already; per km², so no read repeats the error.
                return Some(Density {
                    typical,
                    max,
                    densest_share,
                });
            };
            a.km2
        }
    };
    Some(Density {
        typical: typical / per,
        max: max / per,
        densest_share,
    })
}

/// `densest_share`: a share of the searches, from 0 to 1; an error at the
/// value otherwise (the density is still read, so reads that need it do
/// not repeat the error).
fn densest_share(ctx: &mut Ctx<'_>, share: Option<&S<f64>>) -> Option<f64> {
    let s = share?;
    let v = ctx.non_negative(s, "`densest_share`")?;
    if v > 1.0 {
        ctx.error(
            ctx.pos(s),
            format!("density: `densest_share` is a share of the searches, found {v}"),
            "above 1",
            Some(
                "`densest_share: 0.1` says a tenth of the searches land where places are at `max`"
                    .into(),
            ),
        );
        return None;
    }
    Some(v)
}

/// Checks a geo filter against the field it tests: `near` needs a point,
/// `within` a point (or a polygon, found whole inside), `intersects` a
/// polygon (the shapes that contain the point the query gives);
/// `near` and a `within` of points need the entity's `density`. Says why
/// not at `key`.
pub(super) fn check_filter(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    f: &Filter,
    key: &S<String>,
) -> bool {
    let e = model.entity(entity);
    let ty = match (&f.related, f.path.as_slice()) {
        (None, [name]) => e.field(name).map(|x| &x.ty),
        _ => None,
    };
    let word = match f.op {
        FilterOp::Near => "near",
        FilterOp::Within => "within",
        _ => "intersects",
    };
    // An array of places (a store's locations) is searched as its
    // elements are: a document matches when one of them does.
    let fits = match (f.op, ty) {
        (FilterOp::Near, Some(t)) => t.holds(&FieldType::Point),
        (FilterOp::Intersects, Some(t)) => t.holds(&FieldType::Polygon),
        (FilterOp::Within, Some(t)) => t.holds_geo(),
        _ => false,
    };
    // A place field of the other kind (a polygon searched by `near`): say
    // what it is and which words test it, not that it is no place.
    if !fits && let Some(t) = ty.filter(|t| t.holds_geo()) {
        let (is, use_instead) = if t.holds(&FieldType::Polygon) {
            ("a polygon", "`intersects` or `within`")
        } else {
            ("a point", "`near` or `within`")
        };
        ctx.error(
            ctx.pos(key),
            format!(
                "`{}: {word}` tests a {} field; `{}` is {is} (use {use_instead})",
                key.value,
                match f.op {
                    FilterOp::Near => "point",
                    _ => "polygon",
                },
                key.value,
            ),
            format!("{is} field"),
            None,
        );
        return false;
    }
    if !fits {
        ctx.error(
            ctx.pos(key),
            format!(
                "`{}: {word}` tests a {} field of {}",
                key.value,
                match f.op {
                    FilterOp::Near => "point",
                    FilterOp::Intersects => "polygon",
                    _ => "point or polygon",
                },
                e.name
            ),
            "not a GeoJSON field of the entity",
            Some(
                "declare the field `type: point` (a location), `type: polygon` (an area), or an array of them (`point[3]`: several locations)".into(),
            ),
        );
        return false;
    }
    if ty.is_some_and(|t| t.holds(&FieldType::Point))
        && f.op != FilterOp::Intersects
        && e.density.is_none()
    {
        ctx.error(
            ctx.pos(key),
            format!(
                "`{}: {word}`: how many {} lie in the area depends on their density, which {} does not give",
                key.value,
                crate::words::plural(&e.name),
                e.name
            ),
            "no density",
            Some(format!(
                "give `{}` a `density: {{typical: 40, max: 2500}}` (instances per km²)",
                e.name
            )),
        );
        return false;
    }
    true
}
