//! The words of a capacity projection in a model file: an entity's
//! `growth: {percent: 8, per: month}` (or `{add: 50000, per: day}`) and
//! the model's `deployment: {ram: 64GiB, disk: 4TiB, shards: 1,
//! compression: 0.5}`. Checked here, at the word, so an error points at
//! it; `model::capacity` says what they mean.

use super::context::Ctx;
use super::raw::{RawCountGrowth, RawDeployment, S};
use crate::model::{CountGrowth, Deployment, Period, parse_bytes};

/// An entity's growth, `Err(())` after an error said why at its word.
pub(super) fn count_growth(
    ctx: &mut Ctx<'_>,
    entity: &str,
    raw: &S<RawCountGrowth>,
) -> Result<CountGrowth, ()> {
    let g = &raw.value;
    let per = match &g.per {
        None => Period::Day,
        Some(p) => Period::parse(p.value.trim()).ok_or_else(|| {
            ctx.error(
                ctx.pos(p),
                format!("`{entity}.growth`: `per: {}` is not a period", p.value),
                "not a period",
                Some("minute, hour, day, week, month (30 days) or year (365 days)".into()),
            );
        })?,
    };
    match (&g.percent, &g.add) {
        (Some(p), None) => {
            let percent = ctx
                .at_most(
                    p,
                    &format!("`{entity}.growth.percent`"),
                    1000.0,
                    "more than ten times a period is no growth rate a projection can follow",
                )
                .ok_or(())?;
            Ok(CountGrowth::Percent { percent, per })
        }
        (None, Some(a)) => {
            let count = ctx
                .at_most(
                    a,
                    &format!("`{entity}.growth.add`"),
                    1e15,
                    "no collection holds that many",
                )
                .ok_or(())?;
            Ok(CountGrowth::Added { count, per })
        }
        (Some(_), Some(a)) => {
            ctx.error(
                ctx.pos(a),
                format!("`{entity}.growth` gives both `percent` and `add`"),
                "one of them",
                Some("`{percent: 8, per: month}` or `{add: 50000, per: day}`".into()),
            );
            Err(())
        }
        (None, None) => {
            ctx.error(
                ctx.pos(raw),
                format!("`{entity}.growth` gives neither `percent` nor `add`"),
                "how much?",
                Some("`{percent: 8, per: month}` or `{add: 50000, per: day}`".into()),
            );
            Err(())
        }
    }
}

/// The model's deployment; the figures that fail are left out after an
/// error at each.
pub(super) fn deployment(ctx: &mut Ctx<'_>, raw: &S<RawDeployment>) -> Deployment {
    let d = &raw.value;
    let mut size = |v: &Option<S<String>>, what: &str| -> Option<u64> {
        let v = v.as_ref()?;
        let bytes = parse_bytes(&v.value);
        if bytes.is_none() {
            ctx.error(
                ctx.pos(v),
                format!("`deployment.{what}`: `{}` is not a size", v.value),
                "not a size",
                Some("a number and a unit: `64GiB`, `4TiB`, `512MB`".into()),
            );
        }
        bytes
    };
    let ram_bytes = size(&d.ram, "ram");
    let disk_bytes = size(&d.disk, "disk");
    let shards = d.shards.as_ref().and_then(|s| {
        let n = ctx.whole(s, "`deployment.shards`", 1)?;
        u32::try_from(n).ok().or_else(|| {
            ctx.error(
                ctx.pos(s),
                "`deployment.shards` is too large",
                "too large",
                None,
            );
            None
        })
    });
    let compression = d.compression.as_ref().and_then(|c| {
        let v = ctx.at_most(
            c,
            "`deployment.compression`",
            1.0,
            "on-disk bytes per byte of data; 1 is no compression",
        )?;
        if v == 0.0 {
            ctx.error(
                ctx.pos(c),
                "`deployment.compression` must be above 0",
                "zero",
                Some("0.4 says the data takes 40 % of its size on disk".into()),
            );
            return None;
        }
        Some(v)
    });
    Deployment {
        ram_bytes,
        disk_bytes,
        shards,
        compression,
    }
}
