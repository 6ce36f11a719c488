//! The workload mixes as declared (`mixes:`): names, descriptions and the
//! total rate each is scaled to. `resolve` reads them and `workload` weights
//! the operations with them, so they sit below both.

use super::context::Ctx;
use super::names::{check_duplicates, check_name};
use super::raw::{NamedMap, RawMixes};

/// A mix as declared, with the total that weights are scaled to.
pub(super) struct DeclaredMix {
    pub mix: crate::model::Mix,
    pub total_rate: Option<f64>,
    /// Whether the file declared mixes at all (else the one mix is `default`).
    pub declared: bool,
}

pub(super) fn mixes(ctx: &mut Ctx<'_>, raw: Option<&RawMixes>) -> Vec<DeclaredMix> {
    let one = |name: &str, description: Option<String>, total_rate, declared| DeclaredMix {
        mix: crate::model::Mix {
            name: name.to_string(),
            description,
        },
        total_rate,
        declared,
    };
    let mut out = Vec::new();
    match raw {
        None => return vec![one("default", None, None, false)],
        Some(RawMixes::List(list)) => {
            let map = NamedMap(list.iter().map(|n| (n.clone(), ())).collect());
            check_duplicates(ctx, &map, "mix");
            for n in list {
                check_name(ctx, n, "mix");
                out.push(one(&n.value, None, None, true));
            }
        }
        Some(RawMixes::Map(map)) => {
            check_duplicates(ctx, map, "mix");
            for (n, m) in &map.0 {
                check_name(ctx, n, "mix");
                let (description, total) = match m {
                    Some(m) => (
                        m.description.clone(),
                        m.total_rate
                            .as_ref()
                            .and_then(|t| ctx.rate(t, "a mix's total_rate")),
                    ),
                    None => (None, None),
                };
                out.push(one(&n.value, description, total, true));
            }
        }
    }
    if out.is_empty() {
        ctx.error(
            None,
            "`mixes` is empty",
            "no mix",
            Some("remove `mixes` (one mix called `default`) or name at least one".into()),
        );
        return vec![one("default", None, None, false)];
    }
    out
}
