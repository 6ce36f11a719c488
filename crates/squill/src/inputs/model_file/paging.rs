//! The words for deep pages: a sorted, limited read's (or include's)
//! `paging: {by: keyset | skip, past_first: 0.05, depth: {typical: 20,
//! max: 1000, max_share: 0.001}}`. Kept apart from the other read words so the pricing's
//! inputs (how pages are found, how deep readers go) are read in one place.

use super::context::Ctx;
use super::raw::{RawPaging, S};
use crate::model::{Paging, PagingBy};

/// The paging of a read with this `limit` and sort, or `None` after an
/// error said why at the offending word.
pub(super) fn paging(
    ctx: &mut Ctx<'_>,
    raw: &S<RawPaging>,
    limit: Option<u64>,
    sorted: bool,
) -> Option<Paging> {
    let p = &raw.value;
    let by = match p.by.value.trim() {
        "keyset" => PagingBy::Keyset,
        "skip" => PagingBy::Skip,
        other => {
            ctx.error(
                ctx.pos(&p.by),
                format!("paging: `by: {other}` is not a way to page"),
                "not keyset or skip",
                Some(
                    "`by: keyset` (a range from the last item seen) or `by: skip` (`skip(n)`)"
                        .into(),
                ),
            );
            return None;
        }
    };
    let past_first = ctx.non_negative(&p.past_first, "`past_first`")?;
    if past_first > 1.0 {
        ctx.error(
            ctx.pos(&p.past_first),
            format!("paging: `past_first` is a share of the executions, found {past_first}"),
            "above 1",
            Some("`past_first: 0.05` says 5% of the executions ask for a later page".into()),
        );
        return None;
    }
    let depth = &p.depth.value;
    let typical = ctx.non_negative(&depth.typical, "a page number")?;
    let deepest = match &depth.max {
        Some(m) => ctx.non_negative(m, "a page number")?,
        None => typical,
    };
    if typical < 2.0 {
        ctx.error(
            ctx.pos(&depth.typical),
            format!("paging: `depth` counts pages past the first, found {typical}"),
            "below 2",
            Some("the first page is page 1: a later page is page 2 or deeper".into()),
        );
        return None;
    }
    if deepest < typical {
        ctx.error(
            ctx.pos(depth.max.as_ref().unwrap_or(&depth.typical)),
            format!("paging: the deepest page ({deepest}) is below the typical one ({typical})"),
            "below typical",
            Some("`max` is the deepest page readers reach, at least `typical`".into()),
        );
        return None;
    }
    let deepest_share = match &depth.max_share {
        Some(share) => Some(deepest_share(ctx, share, past_first)?),
        None => None,
    };
    if limit.is_none() {
        ctx.error(
            ctx.pos(raw),
            "paging: a read without `limit` has no pages",
            "no limit",
            Some("a page is `limit` items: add `limit: 25`".into()),
        );
        return None;
    }
    if by == PagingBy::Keyset && !sorted {
        ctx.error(
            ctx.pos(raw),
            "paging: keyset paging starts after the last item's sort key, and this read has no `sort`",
            "no sort",
            Some("add the order pages follow: `sort: created_at`".into()),
        );
        return None;
    }
    Some(Paging {
        by,
        past_first,
        depth: typical,
        deepest,
        deepest_share,
    })
}

/// `max_share`: part of the executions that ask for a later page, so at
/// most `past_first`.
fn deepest_share(ctx: &mut Ctx<'_>, share: &S<f64>, past_first: f64) -> Option<f64> {
    let s = ctx.non_negative(share, "`max_share`")?;
    if s > past_first {
        ctx.error(
            ctx.pos(share),
            format!(
                "paging: `max_share` ({s}) is above `past_first` ({past_first}): the executions that ask for the deepest page are some of those that ask for a later page"
            ),
            "above past_first",
            Some("`max_share: 0.002` says 0.2% of all executions ask for the deepest page".into()),
        );
        return None;
    }
    Some(s)
}
