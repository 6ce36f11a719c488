//! The rollback note at the end of the script: the statements that undo
//! each step (a field unset, a collection dropped, a reshaped field put
//! back) while the final step has not run, and what to do after it.

use super::action::{Cleanup, Undo};
use super::plan_value::Plan;
use super::script_text::{js, remove_embedded};
use crate::catalog::indexes;
use crate::design::Design;
use crate::words::script::js_json;
use std::fmt::Write as _;

/// The rollback note: the statements that undo the steps while the final
/// step has not run, the second stage's first.
pub(super) fn rollback(out: &mut String, today: &Design, recommended: &Design, plan: &Plan) {
    out.push_str(
        "\n// ---- Rollback ----\n// Until the final step has run, the data of today is all still there: to undo\n\
         // the migration, run these statements (or restore a backup after DROP_OLD):\n",
    );
    for u in &plan.undo {
        if let Undo::Archive(a) = u {
            for line in a.undo() {
                let _ = writeln!(out, "//   {}", js_json(&line));
            }
            continue;
        }
        let line = match u {
            Undo::Unset { collection, field } => format!(
                "db.getCollection({}).updateMany({{}}, {{ $unset: {{ {}: \"\" }} }});",
                js(collection),
                js(field)
            ),
            Undo::Drop { collection } => format!("db.getCollection({}).drop();", js(collection)),
            Undo::DeleteLacking { collection, field } => format!(
                "db.getCollection({}).deleteMany({{ {}: {{ $exists: false }} }});",
                js(collection),
                js(field)
            ),
            Undo::RemoveEmbedded {
                child,
                parent,
                field,
            } => remove_embedded(child, parent, field),
            Undo::BackToId { collection, field } => format!(
                "db.getCollection({c}).updateMany({{ {f}: {{ $type: \"object\" }} }}, [{{ $set: {{ {f}: {v} }} }}]);",
                c = js(collection),
                f = js(field),
                v = js(&format!("${field}._id"))
            ),
            Undo::Archive(_) => continue,
            Undo::Overflow(o) => o.undo(),
            Undo::Gather(g) => g.undo(),
            Undo::CopiesBack(_) | Undo::ItemsBack(_) | Undo::CopiesIntoArray { .. } => {
                let Some((coll, stages)) = super::pipeline::undo_pipeline(u) else {
                    continue;
                };
                let stages: Vec<String> = stages.iter().map(ToString::to_string).collect();
                let note = match u {
                    Undo::ItemsBack(_) => {
                        "the items of today (any copies as the referenced documents hold them now)"
                    }
                    _ => "the copies as the referenced documents hold them now",
                };
                format!(
                    "db.getCollection({}).aggregate([{}]);  // {note}",
                    js(&coll),
                    stages.join(", ")
                )
            }
        };
        let _ = writeln!(out, "//   {}", js_json(&line));
    }
    // A collection the statements above drop takes its indexes with it.
    let dropped = |name: &str| {
        plan.undo
            .iter()
            .any(|u| matches!(u, Undo::Drop { collection } if collection == name))
    };
    for c in &recommended.collections {
        if dropped(&c.name) {
            continue;
        }
        let old = today.collections.iter().find(|o| o.name == c.name);
        for i in indexes::created(c) {
            if old.is_some_and(|o| o.indexes.iter().any(|x| x.name == i.name)) {
                continue;
            }
            let _ = writeln!(
                out,
                "//   db.getCollection({}).dropIndex({});",
                js(&c.name),
                js(&i.name)
            );
        }
    }
    let rebuilt: Vec<String> = plan
        .cleanup
        .iter()
        .filter_map(|c| match c {
            Cleanup::DropIndex { collection, index } => Some(format!(
                "//   db.runCommand({{ createIndexes: {}, indexes: [{}] }});",
                js(collection),
                js_json(&indexes::spec(index).to_string())
            )),
            _ => None,
        })
        .collect();
    out.push_str("//   db.getCollection(\"squill_migration\").drop();\n");
    if !rebuilt.is_empty() {
        let _ = writeln!(
            out,
            "// After the final step, with the backup's data back, rebuild the indexes of today\n\
             // it dropped:\n{}",
            rebuilt.join("\n")
        );
    }
    out.push_str(
        "// (The validators of the recommended design stay; setup.js of the design of today\n\
         // puts its own back.)\n\
         print(\"squill migration: to undo it before the final step, run the rollback statements at the end of migration.js\");\n",
    );
}
