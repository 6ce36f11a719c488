//! The words for children arriving over time with a spread per parent:
//! a cardinality's `growth: {typical: 50, p99: 5000, max: 200000, per:
//! day}`, or the older one-figure `growth_per_day: 50` (the same as
//! `growth: {typical: 50, per: day}`). Kept apart from the rest of the
//! cardinality so the figures growth projections read are checked in one
//! place.

use super::context::Ctx;
use super::raw::{RawGrowth, S};
use crate::model::{Growth, Period};

/// A cardinality's growth from `growth_per_day` or `growth` (at most one
/// of them): `Ok(None)` when neither is given, `Err(())` after an error
/// said why at the offending word.
pub(super) fn growth(
    ctx: &mut Ctx<'_>,
    side: &str,
    per_day: Option<&S<f64>>,
    spread: Option<&S<RawGrowth>>,
) -> Result<Option<Growth>, ()> {
    match (per_day, spread) {
        (None, None) => Ok(None),
        (Some(g), None) => {
            let typical = ctx
                .non_negative(g, &format!("`{side}.growth_per_day`"))
                .ok_or(())?;
            Ok(Some(Growth::per_day(typical)))
        }
        (Some(_), Some(s)) => {
            ctx.error(
                ctx.pos(s),
                format!("`{side}` gives both `growth_per_day` and `growth`"),
                "one growth only",
                Some(
                    "`growth: {typical: 50, p99: 5000, max: 200000, per: day}` says all that `growth_per_day: 50` does; keep one"
                        .into(),
                ),
            );
            Err(())
        }
        (None, Some(s)) => spread_of(ctx, side, s).ok_or(()).map(Some),
    }
}

fn spread_of(ctx: &mut Ctx<'_>, side: &str, raw: &S<RawGrowth>) -> Option<Growth> {
    let g = &raw.value;
    let per = match &g.per {
        None => Period::Day,
        Some(p) => {
            let Some(per) = Period::parse(p.value.trim()) else {
                ctx.error(
                    ctx.pos(p),
                    format!("`{side}.growth`: `per: {}` is not a period", p.value),
                    "not a period",
                    Some("minute, hour, day, week, month (30 days) or year (365 days)".into()),
                );
                return None;
            };
            per
        }
    };
    let typical = ctx.non_negative(&g.typical, &format!("`{side}.growth.typical`"))?;
    let mut figures: [Option<f64>; 3] = [None; 3];
    let mut below = ("typical", typical);
    for (i, (name, raw)) in [("p95", &g.p95), ("p99", &g.p99), ("max", &g.max)]
        .into_iter()
        .enumerate()
    {
        let Some(raw) = raw else { continue };
        let v = ctx.non_negative(raw, &format!("`{side}.growth.{name}`"))?;
        if v < below.1 {
            ctx.error(
                ctx.pos(raw),
                format!(
                    "`{side}.growth`: {name} {} is below {} {}",
                    crate::words::num(v),
                    below.0,
                    crate::words::num(below.1)
                ),
                "out of order",
                Some(
                    "typical ≤ p95 ≤ p99 ≤ max: each says how much more the busier parents gain"
                        .into(),
                ),
            );
            return None;
        }
        figures[i] = Some(v);
        below = (name, v);
    }
    let day = |v: f64| per.to_per_day(v);
    Some(Growth {
        typical: day(typical),
        p95: figures[0].map(day),
        p99: figures[1].map(day),
        max: figures[2].map(day),
        per,
    })
}
