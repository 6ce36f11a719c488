//! A filtered aggregate: `count(tickets where status = open)`, the figure
//! over the children that meet a test on a constant. The aggregate itself
//! is read by `paths::aggregate`; the test by `conditional::condition`,
//! the same reader as a write's `when:`, against the child's fields. Kept
//! apart from both because it joins them (`conditional` reads `paths`).

use super::conditional::condition;
use super::context::Ctx;
use super::paths::aggregate;
use super::raw::S;
use crate::model::{Aggregate, AggregateFn, EntityId, Literal, Model};

/// The aggregate `raw` of a read of `entity`, with its `where` test when
/// it has one. Errors point at the aggregate.
pub(super) fn filtered_aggregate(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    raw: &S<String>,
) -> Option<Aggregate> {
    let Some((head, test)) = split_where(&raw.value) else {
        return aggregate(ctx, model, entity, raw);
    };
    let bare = S::new(head, raw.referenced, raw.defined);
    let mut agg = aggregate(ctx, model, entity, &bare)?;
    let text = raw.value.trim();
    let refuse = |ctx: &mut Ctx<'_>, message: String, label: &str, help: Option<String>| {
        ctx.error(ctx.pos(raw), message, label, help);
    };
    if agg.from_child {
        refuse(
            ctx,
            format!("aggregate `{text}`: a count of a child's parents takes no `where`"),
            "not children",
            None,
        );
        return None;
    }
    if matches!(
        agg.function,
        AggregateFn::Avg | AggregateFn::First | AggregateFn::Last
    ) {
        let name = agg.function.name();
        refuse(
            ctx,
            format!(
                "aggregate `{text}`: `{name}` takes no `where`; count, sum, min and max do"
            ),
            "not filtered",
            (agg.function == AggregateFn::Avg).then(|| {
                "ask for the sum and the count of the same children, each with the `where`, and divide"
                    .to_string()
            }),
        );
        return None;
    }
    if test.trim().is_empty() {
        refuse(
            ctx,
            format!("aggregate `{text}`: `where` needs a test of the child (`status = open`)"),
            "empty test",
            None,
        );
        return None;
    }
    let child = model.relationship(agg.relationship).child;
    let child = model.entity(child);
    let left = test
        .split(['=', '!', '<', '>'])
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    // `queue.name = x`: a field of another entity, which a write of the
    // child cannot see.
    if left.contains('.') {
        refuse(
            ctx,
            format!(
                "aggregate `{text}`: `{left}` is not a field of `{}`; `where` tests the child's own fields",
                child.name
            ),
            "not a child condition",
            None,
        );
        return None;
    }
    let cond_raw = S::new(test.trim().to_string(), raw.referenced, raw.defined);
    let cond = condition(ctx, &child.fields, &child.name, &[], &cond_raw)?;
    // A kept figure is one number per parent: its test must be the same on
    // every call and every child (not the caller's value, not another field).
    let constant = cond.plus.is_none() && cond.value.is_constant();
    if !constant {
        let what = match &cond.value {
            Literal::Param(_) => "a value the caller passes",
            Literal::Field(_) => "another field of the child",
            _ => "an amount",
        };
        refuse(
            ctx,
            format!(
                "aggregate `{text}`: the test compares `{}` with {what}; a filtered aggregate tests a constant (`status = open`)",
                cond.field
            ),
            "not a child condition",
            Some(
                "a figure that depends on the caller is a read with a filter, not an aggregate"
                    .into(),
            ),
        );
        return None;
    }
    agg.filter = Some(cond);
    Some(agg)
}

/// `count(tickets where status = open)` → (`count(tickets)`, `status = open`).
fn split_where(text: &str) -> Option<(String, String)> {
    let t = text.trim();
    let open = t.find('(')?;
    let close = t.rfind(')')?;
    let inner = &t[open + 1..close];
    let at = inner.find(" where ")?;
    let head = format!("{}({}){}", &t[..open], inner[..at].trim(), &t[close + 1..]);
    Some((head, inner[at + " where ".len()..].to_string()))
}

#[cfg(test)]
mod tests {
    use super::split_where;

    #[test]
    fn the_test_is_taken_out_of_the_parentheses() {
        assert_eq!(
            split_where("count(tickets where status = open)"),
            Some(("count(tickets)".into(), "status = open".into()))
        );
        assert_eq!(
            split_where("sum(invoices.amount where paid = false) within 1%"),
            Some((
                "sum(invoices.amount) within 1%".into(),
                "paid = false".into()
            ))
        );
        assert_eq!(split_where("count(tickets)"), None);
    }
}
