//! The mongosh script: header (what changes, the batch size, the flag of the
//! final step), the runtime helpers (batches, progress markers, figures:
//! `runtime`), one block per step (headed as `step_heading` says),
//! validators and indexes after the data, the verification, the guarded
//! final step and the rollback note (`rollback`).

use super::action::collection;
use super::action::{Action, Cleanup};
use super::layout_steps::Children;
use super::pipeline::pipeline;
use super::plan_value::Plan;
use super::rollback::rollback;
use super::runtime::{CHECK_RUNTIME, COMPLETE, RUNTIME, STAGE_RUNTIME};
use super::script_text::{js, js_path, remove_embedded};
use super::step_heading::what;
use super::step_parts::ParentField;
use super::verify::figures;
use crate::catalog::{indexes, schema};
use crate::design::Design;
use crate::words::script::comment;
use std::fmt::Write as _;

/// The transitions the generator writes; any other change is refused.
pub const SUPPORTED: &[&str] = &[
    "parent-reference → embed (the children into the parent's array or sub-document)",
    "parent-reference → child-references (the children's ids into the parent)",
    "parent-reference → extended-reference (the parent's fields copied into each child, or the children's into the parent's array)",
    "parent-reference → subset (the latest K children by the sort field into the parent)",
    "subset → parent-reference (the parent's copies dropped in the final step)",
    "subset → embed, child-references, extended-reference or outlier of the same array (built from the child collection by the final step, and checked there)",
    "embed → parent-reference (the embedded children unwound into their own collection)",
    "child-references → parent-reference (each child gets its parent's id)",
    "extended-reference → parent-reference or child-references (the copies taken out of the references)",
    "many-to-many-one-way ↔ many-to-many-two-way (the other side's ids built, or dropped in the final step)",
    "many-to-many-one-way ↔ edge-collection (one document per link, or the links grouped into the side that keeps the array)",
    "many-to-many-one-way, two-way or edge-collection → two-way-extended-reference (each side's ids with copies of the other side's fields, the link's attributes kept)",
    "two-way-extended-reference → many-to-many-one-way, two-way (the copies taken out of each side's array) or edge-collection",
    "many-to-many of an entity with itself (followers): the transitions above between one-way and two-way, each array's side as the design marks it",
    "extended references in the child's array (a shared child's or a many-to-many's `[{_id, copies…}]` of its parents) from or to the other many-to-many layouts and child-references",
    "a many-to-many side's array whose items change: ids gaining or losing copies of the other side or the link's attributes (from the other side's array when the side had none, or had an array without them)",
    "parent-reference ↔ bucket (the children grouped per parent, by count or time unit, into bucket documents with their aggregates, or unwound back into their own collection)",
    "embed → bucket (the parent's array unwound and grouped as from a child collection; the array unset in the final step)",
    "bucket → embed (each parent's buckets' items, in the buckets' order, into its array; the buckets dropped in the final step)",
    "outlier → embed (each parent's child documents appended to its array in place, the items reshaped and the child collection dropped in the final step)",
    "embed → outlier (each item given an `_id` in place, those past the threshold into the child collection; the array cut to the threshold in the final step)",
    "embed → subset of the same array (each item given an `_id` in place and copied into the child collection; the array cut to the latest K by the sort field in the final step, and checked)",
    "parent-reference ↔ outlier (the first children up to the threshold into the parent's array, taken out of the child collection in the final step; or the array unwound into the child collection)",
    "a timeline of today the recommended design has not (dropped in the final step)",
    "parent-reference ↔ child-references of a tree's nodes (both in the node's document, each field's side as the design marks it), and through it tree-path ↔ child-references",
    "two-way-references of a tree's nodes → parent-reference (the children's ids dropped in the final step), and through it tree-path",
    "parent-reference ↔ child-references of a one-to-one (the child's id a plain value in the parent), and through it shared-id ↔ child-references",
    "parent-reference ↔ tree-path (each node's path from the root built from the parent ids, or dropped in the final step)",
    "parent-reference ↔ path-reference (the path of ids of a tree's node built into its children, or dropped in the final step)",
    "parent-reference → embed-parent-in-child (each child's reference becomes its parent's document; the parent's collection goes in the final step, once each parent is held by a child)",
    "embed-parent-in-child → parent-reference (the parents embedded in the children become their own collection, one document per distinct parent; each child keeps the id)",
    "embed-parent-in-child → embed (the parents embedded in the children become their own collection, each with its children's own fields in its array; the children's collection dropped in the final step)",
    "shared-id → parent-reference (each child's parent id from its own _id, which stays) or embed (each child into its parent by the shared _id)",
    "parent-reference → shared-id (each child again under its parent's id, the documents of today deleted in the final step)",
    "computed counts, sums, minimums, maximums, averages and first/last values over children",
    "a timeline the recommended design adds (fan-out on write: each reader's newest items of those it follows, copied from where the other steps leave them, the followed outliers listed)",
    "a timeline of today whose shape changes (its copies, limit or outliers): built beside it, then again in place by the final step",
    "a polymorphic collection added (each kind's collection merged into it, the discriminator set) or dropped (its documents split by discriminator), the `_id`s kept: two kinds sharing one fail the check; a kind's relationship that changes layout changes it first in the kind's collection (two stages)",
    "an archive added (the documents older than its horizon copied into the archive collection, deleted from the live one in the final step) or dropped (the archived documents back into the live collection, the archive dropped in the final step); copied before the other steps when the archive keeps the live collection's shape of today",
    "any other change of a relationship's layout whose two halves through a parent reference are written above (bucket ↔ outlier, embed → shared-id, …): two stages in one script, the first checked before the second reads its result",
    "through a parent reference, a parent's array of today built again under its name (child-references ↔ outlier, …): by the final step, after the first stage's steps run again for the children added since, and checked before any removal",
];

fn header(out: &mut String, recommended: &Design, plan: &Plan, batch: u64) {
    let _ = writeln!(
        out,
        "// Migration for model `{}` (mix `{}`), written by `squill generate --migration`:\n\
         // turns the collections of the design of today (the model's `current:`) into\n\
         // those of the recommended design.\n//\n\
         // Run: mongosh \"mongodb://HOST/DB\" migration.js   (MongoDB 5.0 or later)\n//",
        comment(&recommended.model),
        comment(&recommended.mix)
    );
    if !plan.changes.is_empty() {
        out.push_str("// What changes:\n");
        let through = plan.through.as_deref();
        for (rel, from, to) in &plan.changes {
            let via = through
                .filter(|t| t.relationships.contains(rel))
                .map(|t| t.via);
            let rel = comment(rel);
            if via == Some(super::plan_value::Via::Layouts) {
                let _ = writeln!(
                    out,
                    "//   {rel}: {from} → {to} (first, in the collections of today; then the kinds move)"
                );
            } else if via.is_some() {
                let _ = writeln!(
                    out,
                    "//   {rel}: {from} → parent-reference → {to} (two stages: no step goes straight from {from} to {to})"
                );
            } else {
                let _ = writeln!(out, "//   {rel}: {from} → {to}");
            }
        }
        out.push_str("//\n");
    }
    out.push_str(
        "// Safe to run again and to resume: each step works in batches of parent `_id`s,\n\
         // writes with $merge on `_id` (a batch done twice changes nothing), and records\n\
         // its progress in the collection `squill_migration`; a finished step is skipped.\n\
         // The collections of today are never dropped and their fields never removed,\n\
         // except by the final step, which runs only with DROP_OLD = true (below).\n//\n\
         // Transitions this generator writes (squill refuses any other change):\n",
    );
    for s in SUPPORTED {
        let _ = writeln!(out, "//   - {s}");
    }
    let _ = writeln!(
        out,
        "\n// Parents (or children) per batch.\nconst BATCH = {batch};\n\
         // The final step: drop the collections and fields of today that the new design\n\
         // no longer has. Set to true only once the application uses the new design.\n\
         const DROP_OLD = false;\nconst PROGRESS = \"squill_migration\";\n"
    );
}

pub(super) fn render(today: &Design, recommended: &Design, plan: &Plan, batch: u64) -> String {
    let mut out = String::new();
    header(&mut out, recommended, plan, batch);
    let first = plan.through.as_deref();
    let actions: Vec<&Action> = first
        .map(|t| t.actions.iter())
        .into_iter()
        .flatten()
        .chain(&plan.actions)
        .collect();
    if actions.is_empty() && plan.last.is_empty() && plan.cleanup.is_empty() {
        out.push_str(
            "print(\"squill migration: the design of today is already the best for this workload: no data to move; its indexes are asked for\");\n",
        );
        // The layouts stay, but the deployment may lack an index the
        // recommended design has (a TTL index for expiry, a 2dsphere
        // index, a partial one): the model says nothing of the indexes of
        // today, so each is asked for; the server leaves an identical
        // index in place.
        out.push_str("\n// ---- Indexes of the recommended design (kept where they exist) ----\n");
        out.push_str(indexes::ENSURE_INDEXES);
        out.push_str(&indexes::unique_preflight(recommended));
        for c in &recommended.collections {
            out.push_str(&indexes::mongosh(c));
        }
        return out;
    }
    out.push_str(RUNTIME);
    out.push_str(COMPLETE);
    out.push_str(indexes::ENSURE_INDEXES);
    let checks = !plan.checks.is_empty()
        || !plan.last.is_empty()
        || first.is_some_and(|t| !t.checks.is_empty() || !t.rebuilt.is_empty())
        || actions.iter().any(|a| {
            matches!(
                a,
                Action::Path { .. }
                    | Action::Computed { of: Some(_), .. }
                    | Action::ParentsFromChildren { .. }
                    | Action::RefFromOwnId { .. }
                    | Action::Rekey { .. }
                    | Action::Bucket(_)
                    | Action::Overflow(_)
                    | Action::Gather(_)
                    | Action::BuildParent {
                        what: ParentField::FromBuckets { .. },
                        ..
                    }
            ) || matches!(a, Action::BuildParent { lookups, .. } if !lookups.is_empty())
        });
    if checks {
        out.push_str(CHECK_RUNTIME);
    }
    if actions.iter().any(|a| matches!(a, Action::Timeline(_))) {
        out.push_str(super::timeline::RUNTIME);
    }
    if first.is_some() || !plan.last.is_empty() {
        out.push_str(STAGE_RUNTIME);
    }
    // Through a parent reference, the first stage's source is today's
    // data, the second's the first stage's result.
    let (from, figs) = match first {
        Some(t) => (&t.design, figures(&t.actions, &t.checks, today, &t.design)),
        None => (
            today,
            figures(&plan.actions, &plan.checks, today, recommended),
        ),
    };
    out.push_str("\n// ---- The source, measured before the first step ----\nconst before = squillBefore(() => [\n");
    for f in &figs {
        let _ = writeln!(out, "  {},", f.before);
    }
    out.push_str("]);\n");
    let mut before = "before";
    let mut figs = figs;
    if let Some(t) = first {
        steps(&mut out, &t.actions, 0, None, &|a| t.bypass(a, recommended));
        // The kinds' collections reshaped past today's validator: theirs
        // in the intermediate design, after the data, as the recommended
        // ones are (the final step drops the collections).
        for c in &t.design.collections {
            if t.actions
                .iter()
                .any(|a| t.bypass(a, recommended) && collection(a) == c.name)
            {
                let _ = writeln!(
                    out,
                    "\n// The validator of {} as its documents now are (until the final step drops it).\n\
                     ensureCollection({}, {});",
                    comment(&c.name),
                    js(&c.name),
                    schema::validator(c)
                );
            }
        }
        stage_verification(&mut out, &figs, t);
        figs = figures(&plan.actions, &plan.checks, from, recommended);
        out.push_str("\n// ---- The second stage's source (the first stage's result), measured before its first step ----\nconst before2 = squillBeforeStage(\"50-before-2\", () => [\n");
        for f in &figs {
            let _ = writeln!(out, "  {},", f.before);
        }
        out.push_str("]);\n");
        before = "before2";
    }
    for c in &recommended.collections {
        if plan.early.contains(&c.name) {
            let _ = writeln!(
                out,
                "\n// The validator of {} before the steps: today's would reject what they write.\n\
                 ensureCollection({}, {});",
                comment(&c.name),
                js(&c.name),
                schema::validator(c)
            );
        }
    }
    let offset = first.map_or(0, |t| t.actions.len());
    let created: Vec<&str> = first.map(|t| t.created(today)).unwrap_or_default();
    steps(
        &mut out,
        &plan.actions,
        offset,
        first.map(|_| (created.as_slice(), today)),
        &|_| false,
    );

    out.push_str(
        "\n// ---- Validators and indexes of the recommended design, after the data ----\n",
    );
    for c in &recommended.collections {
        if plan.deferred.contains(&c.name) {
            let _ = writeln!(
                out,
                "// The validator of {} is set by the final step: it would reject the writes of\n\
                 // today's application until then.",
                comment(&c.name)
            );
        } else if plan.early.contains(&c.name) {
            let _ = writeln!(
                out,
                "// The validator of {}: set before the steps.",
                comment(&c.name)
            );
        } else {
            let _ = writeln!(
                out,
                "ensureCollection({}, {});",
                js(&c.name),
                schema::validator(c)
            );
        }
        out.push_str(&indexes::mongosh(c));
    }
    verification(&mut out, &figs, before);
    cleanup(&mut out, plan, (today, recommended));
    rollback(&mut out, today, recommended, plan);
    out
}

/// The blocks of `actions`, numbered after `offset` steps; for a second
/// stage, the collections the first stage wrote (no index of their own
/// yet) and the design of today (whose indexes are the ones there: the
/// intermediate design's are never built); `bypass`, the steps that write
/// past the validator of today.
fn steps(
    out: &mut String,
    actions: &[Action],
    offset: usize,
    second: Option<(&[&str], &Design)>,
    bypass: &dyn Fn(&Action) -> bool,
) {
    for (k, a) in actions.iter().enumerate() {
        let n = offset + k;
        let id = a.id(n + 1);
        let coll = collection(a);
        let mut stages: Vec<String> = pipeline(a).iter().map(|s| format!("    {s}")).collect();
        let _ = writeln!(
            out,
            "\n// ---- {}: {} ----",
            comment(&id),
            comment(&what(a))
        );
        if let Action::Timeline(t) = a {
            // The outliers, measured once per run, not per batch: a count
            // over all the follows.
            let var = format!("outliers{}", n + 1);
            if let Some(line) = super::timeline::outliers_statement(t, &var) {
                let _ = writeln!(out, "{line}");
                let placeholder = js(super::timeline::OUTLIER_IDS);
                for s in &mut stages {
                    *s = s.replace(&placeholder, &var);
                }
            }
        }
        // `index3`, then `index3b`, … when a step needs more than one.
        let indexes: Vec<(String, &str)> = a
            .lookup_indexes()
            .into_iter()
            .chain(
                second
                    .and_then(|(created, today)| super::through::children_index(a, created, today)),
            )
            .zip(["", "b", "c"])
            .map(|((coll, path), suffix)| {
                let var = format!("index{}{suffix}", n + 1);
                let _ = writeln!(
                    out,
                    "const {var} = squillLookupIndex({}, {}, {});",
                    js(&id),
                    js(coll),
                    js(path)
                );
                (var, coll)
            })
            .collect();
        if let Action::Overflow(o) = a {
            // Called by the final step too (a function declaration is
            // hoisted: the final step may run in a later run that skips
            // the step).
            let _ = writeln!(out, "{}", o.definition());
        }
        if let Action::Gather(g) = a {
            let _ = writeln!(out, "{}", g.definition());
        }
        let _ = writeln!(
            out,
            "runStep({}, {}, {}, (range, ids) => {{",
            js(&id),
            js(&what(a)),
            js(coll)
        );
        if let Action::Unwind {
            child,
            ref_field,
            keeps_id: false,
            ..
        } = a
        {
            // New documents get new ids: what an interrupted run of this batch
            // wrote goes first, so the batch is written once.
            let _ = writeln!(
                out,
                "  db.getCollection({}).deleteMany({{ {}: {{ $in: ids }} }});",
                js(child),
                js(ref_field)
            );
        }
        if let Action::Unbucket(u) = a
            && !u.keeps_id
        {
            // New documents get new ids: what an interrupted run of this batch
            // wrote goes first, so the batch is written once.
            let _ = writeln!(
                out,
                "  db.getCollection({}).deleteMany({{ {}: {{ $in: ids }} }});",
                js(&u.child),
                js(&u.ref_field)
            );
        }
        if let Action::Archive(a) = a {
            let _ = writeln!(out, "{}\n}});", a.batch());
            continue;
        }
        if let Action::Overflow(o) = a {
            let _ = writeln!(out, "{}\n}});", o.batch());
            continue;
        }
        if let Action::Gather(g) = a {
            let _ = writeln!(out, "{}\n}});", g.batch());
            continue;
        }
        if let Action::Kind(k) = a {
            let _ = writeln!(out, "{}\n}});", k.batch());
            continue;
        }
        if let Action::Edge {
            edge,
            holder_ref,
            other_ref,
            ..
        } = a
        {
            // The `_id` of each link from both references: written twice, a
            // link replaces itself.
            let _ = writeln!(
                out,
                "  const links = db.getCollection({}).aggregate([{{ $match: range }},\n{}\n  ]).toArray();\n\
                 \x20 if (links.length > 0) {{\n\
                 \x20   db.getCollection({}).bulkWrite(links.map((l) => ({{ replaceOne: {{ filter: {{ _id: squillLinkId(l{}, l{}) }}, replacement: l, upsert: true }} }})));\n\
                 \x20 }}\n}});",
                js(coll),
                stages.join(",\n"),
                js(edge),
                js_path(&holder_ref.id_path()),
                js_path(&other_ref.id_path()),
            );
            continue;
        }
        if let Action::Bucket(b) = a
            && b.made_ids()
        {
            // Each bucket's `_id` from its parent's id and its place (time
            // unit, first child's index): written twice, a bucket replaces
            // itself.
            let _ = writeln!(
                out,
                "  const buckets = db.getCollection({}).aggregate([{{ $match: range }},\n{}\n  ]).toArray();\n\
                 \x20 if (buckets.length > 0) {{\n\
                 \x20   db.getCollection({}).bulkWrite(buckets.map((b) => {{ const id = squillLinkId(b._id.p, [b._id.k, b._id.n]); return {{ replaceOne: {{ filter: {{ _id: id }}, replacement: Object.assign(b, {{ _id: id }}), upsert: true }} }}; }}));\n\
                 \x20 }}\n}});",
                js(coll),
                stages.join(",\n"),
                js(&b.bucket),
            );
            continue;
        }
        let (from, batch) = match a {
            // The children of the batch's parents (or the parents
            // themselves, their children embedded).
            Action::Bucket(b) => match &b.children {
                Children::Collection { child, ref_path } => (
                    child.as_str(),
                    format!("{{ $match: {{ {}: {{ $in: ids }} }} }}", js(ref_path)),
                ),
                Children::Embedded { .. } => (coll, "{ $match: range }".to_string()),
            },
            // The buckets of the batch's parents.
            Action::Unbucket(u) => (
                u.bucket.as_str(),
                format!("{{ $match: {{ {}: {{ $in: ids }} }} }}", js(&u.bucket_ref)),
            ),
            _ => (coll, "{ $match: range }".to_string()),
        };
        // Today's validator wants the reference the documents written
        // under their parent's id drop, and the shape a step changes in
        // place (an id made `{_id, copies…}` or back): MongoDB applies it
        // to `$merge`'s writes. The recommended one, set after the data,
        // holds them.
        let options = if matches!(a, Action::Rekey { .. }) || a.runs_last() || bypass(a) {
            ", { bypassDocumentValidation: true }"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  db.getCollection({}).aggregate([{batch},\n{}\n  ]{options}).toArray();\n}});",
            js(from),
            stages.join(",\n")
        );
        for (var, coll) in &indexes {
            let _ = writeln!(
                out,
                "if ({var} !== null) db.getCollection({}).dropIndex({var});",
                js(coll)
            );
        }
    }
}

fn verification(out: &mut String, figs: &[super::figure::Figure], before: &str) {
    out.push_str("\n// ---- Verification: the figures of the source against the result ----\n");
    compare(out, figs, before);
}

/// Through a parent reference: the first stage's figures, checked once its
/// steps are done and before the second stage reads its result (a re-run
/// finds them passed, as the second stage may change the data they read).
fn stage_verification(
    out: &mut String,
    figs: &[super::figure::Figure],
    t: &super::plan_value::Through,
) {
    let what = match t.via {
        super::plan_value::Via::ParentReference => "as parent references",
        super::plan_value::Via::Layouts => {
            "on their recommended layouts in the collections of today"
        }
    };
    let _ = writeln!(
        out,
        "\n// ---- Verification of the first stage ({} {what}), once, before the second reads it ----\n\
         if (squillProgress().findOne({{ _id: \"50-first-stage\" }}) === null) {{",
        comment(&t.relationships.join(", "))
    );
    let mut block = String::new();
    compare(&mut block, figs, "before");
    for line in block.lines() {
        let _ = writeln!(out, "  {line}");
    }
    out.push_str("  squillProgress().insertOne({ _id: \"50-first-stage\", at: new Date() });\n}\n");
}

/// The figures after against those `before`: the script stops on one that differs.
fn compare(out: &mut String, figs: &[super::figure::Figure], before: &str) {
    compare_or(
        out,
        figs,
        before,
        "the collections of today are untouched (see the rollback note at the end)",
    );
}

/// `compare`, saying `after_all` when a figure differs.
fn compare_or(out: &mut String, figs: &[super::figure::Figure], before: &str, after_all: &str) {
    out.push_str("const after = [\n");
    for f in figs {
        let _ = writeln!(out, "  {},", f.after);
    }
    out.push_str("];\nconst labels = [\n");
    for f in figs {
        let _ = writeln!(out, "  {},", js(&f.label));
    }
    let _ = write!(
        out,
        "];\nlet failed = 0;\nfor (let i = 0; i < labels.length; i++) {{\n\
         \x20 const good = Number({before}[i]) === Number(after[i]);\n\
         \x20 if (!good) failed += 1;\n\
         \x20 print(`squill migration: ${{good ? \"ok\" : \"FAILED\"}}: ${{labels[i]}}: ${{after[i]}} (source: ${{{before}[i]}})`);\n}}\n\
         if (failed > 0) {{\n\
         \x20 throw new Error(`squill migration: ${{failed}} check(s) failed; {after_all}`);\n}}\n",
    );
}

/// Through a parent reference, a field of today built again under its name
/// by the final step (`Through::rebuilt`): the first stage's steps that read
/// it run again, then the builds, checked against the figures measured
/// between the two (kept, as a final step run again compares with them).
fn rebuilt(again: &[Action], builds: &[Action], source: &Design) -> Option<String> {
    if builds.is_empty() {
        return None;
    }
    let mut out = String::from(if again.is_empty() {
        "// Today's application read these fields until now: they are built in the\n\
         // recommended shape."
    } else {
        "// Today's application read these fields until now: the steps that read them run\n\
         // again (the children added since), then they are built in the recommended shape."
    });
    steps(&mut out, again, 90, None, &|_| false);
    let figs = super::verify::step_figures(builds);
    out.push_str("\nconst beforeLast = squillBeforeStage(\"90-before-final\", () => [\n");
    for f in &figs {
        let _ = writeln!(out, "  {},", f.before);
    }
    out.push_str("]);");
    // Their children are read by the parent's id through an index made for
    // the step, as in a collection the first stage made (the recommended
    // design may have none on it).
    let children: Vec<&str> = builds
        .iter()
        .filter_map(|a| match a {
            Action::BuildParent { child, .. } => Some(child.as_str()),
            _ => None,
        })
        .collect();
    steps(
        &mut out,
        builds,
        90 + again.len(),
        Some((&children, source)),
        &|_| false,
    );
    compare_or(
        &mut out,
        &figs,
        "beforeLast",
        "the final step stopped before its removals: run it again once fixed",
    );
    // Indented as the final step's other lines (the first is, by the caller).
    Some(
        out.lines()
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("  {l}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            .trim_start()
            .to_string(),
    )
}

fn cleanup(out: &mut String, plan: &Plan, (today, recommended): (&Design, &Design)) {
    out.push_str("\n// ---- Final step (separate, guarded): remove what only the design of today used ----\n");
    let (again, mut builds) = match plan.through.as_deref() {
        Some(t) => (t.again.as_slice(), t.rebuilt.clone()),
        None => (&[][..], Vec::new()),
    };
    builds.extend(plan.last.iter().cloned());
    // The children the builds read are today's, or the first stage's.
    let source = plan.through.as_deref().map_or(today, |t| &t.design);
    let mut lines: Vec<String> = rebuilt(again, &builds, source).into_iter().collect();
    for c in &plan.cleanup {
        lines.push(match c {
            Cleanup::RemoveEmbedded {
                child,
                parent,
                field,
            } => remove_embedded(child, parent, field),
            Cleanup::DropCollection { collection } => {
                format!("db.getCollection({}).drop();", js(collection))
            }
            Cleanup::Unset { collection, field } => format!(
                "db.getCollection({}).updateMany({{}}, {{ $unset: {{ {}: \"\" }} }});",
                js(collection),
                js(field)
            ),
            Cleanup::DeleteHolding { collection, field } => format!(
                "db.getCollection({}).deleteMany({{ {}: {{ $exists: true }} }});",
                js(collection),
                js(field)
            ),
            // Only if it is there: a final step run again drops nothing.
            Cleanup::DropIndex { collection, index } => format!(
                "if (db.getCollection({c}).getIndexes().some((i) => i.name === {n})) db.getCollection({c}).dropIndex({n});",
                c = js(collection),
                n = js(&index.name)
            ),
            Cleanup::Archived(a) => a.cleanup(),
            Cleanup::Overflow(o) => o.cleanup(),
            Cleanup::Gather(g) => g.cleanup(),
            Cleanup::Timeline(t) => super::timeline::rebuild(t),
        });
    }
    // The validators that waited for the data of today to go.
    for c in &recommended.collections {
        if plan.deferred.contains(&c.name) {
            lines.push(format!(
                "ensureCollection({}, {});",
                js(&c.name),
                schema::validator(c)
            ));
        }
    }
    if lines.is_empty() {
        out.push_str("// Nothing of today's design is left over.\n");
        return;
    }
    let _ = writeln!(
        out,
        "function squillDropOld() {{\n{}\n}}\n\
         if (DROP_OLD) {{\n  squillDropOld();\n  squillProgress().updateOne({{ _id: FINAL }}, {{ $set: {{ at: new Date() }} }}, {{ upsert: true }});\n  print(\"squill migration: final step done: the old collections and fields are removed\");\n}} else {{\n\
         \x20 print(\"squill migration: done; the old collections and fields are kept. Once the application uses the new design, set DROP_OLD = true and run again (it then removes them).\");\n}}",
        lines
            .iter()
            .map(|l| format!("  {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
