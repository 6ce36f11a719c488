//! A read's `returns: count`: how many instances the filter matches, not
//! the instances. Kept apart so that what a count refuses (anything that
//! shapes documents it does not send back) is read in one place.

use super::context::Ctx;
use super::raw::{OneOrMany, RawOperation, S};

/// Whether read `op` returns a count; records an error for any other
/// value and for the keys that shape documents a count does not return.
pub(super) fn counts(ctx: &mut Ctx<'_>, name: &S<String>, op: &RawOperation) -> bool {
    let Some(returns) = &op.returns else {
        return false;
    };
    if returns.value.trim() != "count" {
        ctx.error(
            ctx.pos(returns),
            format!(
                "operation `{}`: `returns: {}` is not something a read returns",
                name.value, returns.value
            ),
            "unknown",
            Some(
                "`returns: count` for how many the filter matches; leave it out for the documents"
                    .into(),
            ),
        );
        return false;
    }
    if op.read.is_none() {
        return false; // refused as misplaced (`returns` belongs to a read)
    }
    let shaped = [
        ("fields", op.fields.is_some()),
        ("include", op.include.is_some()),
        ("aggregates", op.aggregates.is_some()),
        ("window", op.window.is_some()),
        ("sort", op.sort.is_some()),
        ("limit", op.limit.is_some()),
        ("paging", op.paging.is_some()),
        (
            "a family of entities",
            op.read
                .as_ref()
                .is_some_and(|r| matches!(r.value, OneOrMany::Many(_))),
        ),
    ];
    let mut ok = true;
    for (key, present) in shaped {
        if present {
            ok = false;
            ctx.error(
                ctx.pos(returns),
                format!(
                    "operation `{}` returns a count, and `{key}` shapes documents it does not send back",
                    name.value
                ),
                "a count has no documents",
                Some(format!("drop `{key}`, or drop `returns: count` to read the documents")),
            );
        }
    }
    ok
}
