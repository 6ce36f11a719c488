//! Test support for the rules' own tests: a rule's verdict on one candidate
//! of one relationship of a model written as YAML (often an example of
//! `examples/`), the way squawk's rules carry their own SQL.

use crate::candidates::enumerate;
use crate::candidates::facts::Facts;
use crate::design::{Explain, Layout, Reason};
use crate::rules::judge::{Judgement, RelCheck};
use crate::rules::{Check, Rule};
use crate::settings::Settings;

/// `rule`'s verdict on the first candidate of kind `layout` (`"embed"`,
/// `"extended-reference"`, …, as `Layout::kind` names them) of relationship
/// `relationship` in the model `yaml`, in words: `forbid: …`, `support: …`
/// or `-`.
pub(crate) fn judge(rule: &Rule, yaml: &str, relationship: &str, layout: &str) -> String {
    judge_with(&Settings::default(), rule, yaml, relationship, layout)
}

/// `judge` under `settings` (a threshold changed in `squill.toml`).
pub(crate) fn judge_with(
    settings: &Settings,
    rule: &Rule,
    yaml: &str,
    relationship: &str,
    layout: &str,
) -> String {
    match verdict_with(settings, rule, yaml, relationship, layout) {
        None => "-".to_string(),
        Some(Judgement::Forbid(why)) => format!("forbid: {why}"),
        Some(Judgement::Support(why)) => format!("support: {why}"),
    }
}

/// The evidence of `rule`'s support (see `judge`), as the rule's own type.
pub(crate) fn support<T: Explain + Clone>(
    rule: &Rule,
    yaml: &str,
    relationship: &str,
    layout: &str,
) -> T {
    match verdict_with(&Settings::default(), rule, yaml, relationship, layout) {
        Some(Judgement::Support(why)) => evidence(&why),
        other => panic!("{}: expected a support, got {other:?}", rule.id),
    }
}

/// The evidence of `rule`'s forbidding (see `judge`), as the rule's own type.
pub(crate) fn forbid<T: Explain + Clone>(
    rule: &Rule,
    yaml: &str,
    relationship: &str,
    layout: &str,
) -> T {
    forbid_with(&Settings::default(), rule, yaml, relationship, layout)
}

/// `forbid` under `settings`.
pub(crate) fn forbid_with<T: Explain + Clone>(
    settings: &Settings,
    rule: &Rule,
    yaml: &str,
    relationship: &str,
    layout: &str,
) -> T {
    match verdict_with(settings, rule, yaml, relationship, layout) {
        Some(Judgement::Forbid(why)) => evidence(&why),
        other => panic!("{}: expected a forbid, got {other:?}", rule.id),
    }
}

/// A reason's evidence as `T`.
pub(crate) fn evidence<T: Explain + Clone>(why: &Reason) -> T {
    why.get::<T>()
        .cloned()
        .unwrap_or_else(|| panic!("evidence of another type: {why:?}"))
}

/// `rule`'s verdict, as a value (see `judge`).
pub(crate) fn verdict_with(
    settings: &Settings,
    rule: &Rule,
    yaml: &str,
    relationship: &str,
    layout: &str,
) -> Option<Judgement> {
    let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
    let facts = Facts::new(&model, settings, 0);
    let r = model
        .relationship_by_name(relationship)
        .unwrap_or_else(|| panic!("no relationship `{relationship}`"));
    let candidates = enumerate::for_relationship(&facts, r);
    let layout = candidates
        .iter()
        .find(|l| l.kind() == layout)
        .unwrap_or_else(|| panic!("no `{layout}` candidate for `{relationship}`"));
    let Check::Relationship { check, .. } = rule.check else {
        panic!("{} does not judge relationships", rule.id);
    };
    check(&RelCheck {
        facts: &facts,
        r,
        layout,
    })
}

/// `rule`'s verdict on `layout` for relationship `relationship` of the model
/// in `yaml`, in words as `judge` gives them: for a near miss whose layout
/// the search would not offer on that model (an outlier layout on counts
/// without a percentile), so the rule, not the enumeration, decides.
pub(crate) fn judge_layout(rule: &Rule, yaml: &str, relationship: &str, layout: &Layout) -> String {
    let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
    let settings = Settings::default();
    let facts = Facts::new(&model, &settings, 0);
    let r = model
        .relationship_by_name(relationship)
        .unwrap_or_else(|| panic!("no relationship `{relationship}`"));
    let Check::Relationship { check, .. } = rule.check else {
        panic!("{} does not judge relationships", rule.id);
    };
    match check(&RelCheck {
        facts: &facts,
        r,
        layout,
    }) {
        None => "-".to_string(),
        Some(Judgement::Forbid(why)) => format!("forbid: {why}"),
        Some(Judgement::Support(why)) => format!("support: {why}"),
    }
}

/// The reasons an entity rule gives for the entity-level candidates of the
/// model in `yaml`, one a line (`-` where it gives none).
pub(crate) fn judge_entities(rule: &Rule, yaml: &str) -> Vec<String> {
    entity_verdicts(rule, yaml)
        .into_iter()
        .map(|why| why.map_or_else(|| "-".to_string(), |why| why.words()))
        .collect()
}

/// The reasons an entity rule gives for the entity-level candidates of the
/// model in `yaml`, as values.
pub(crate) fn entity_verdicts(rule: &Rule, yaml: &str) -> Vec<Option<Reason>> {
    let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
    let settings = Settings::default();
    let facts = Facts::new(&model, &settings, 0);
    let Check::Entity(check) = rule.check else {
        panic!("{} does not judge entity candidates", rule.id);
    };
    crate::candidates::entity_candidates(&facts)
        .iter()
        .map(|c| check(&facts, c))
        .collect()
}

/// The evidence of every reason an entity rule gives on the model in
/// `yaml`, as the rule's own type.
pub(crate) fn entity_support<T: Explain + Clone>(rule: &Rule, yaml: &str) -> Vec<T> {
    entity_verdicts(rule, yaml)
        .iter()
        .flatten()
        .map(evidence)
        .collect()
}

/// The findings a design-level rule makes on the design advised for the
/// model in `yaml`: their messages.
pub(crate) fn judge_design(rule: &Rule, yaml: &str) -> Vec<String> {
    judge_design_findings(rule, yaml)
        .into_iter()
        .map(|f| f.message)
        .collect()
}

/// The findings a design-level rule makes on the design advised for the
/// model in `yaml`, whole: their evidence is what a test asserts.
pub(crate) fn judge_design_findings(rule: &Rule, yaml: &str) -> Vec<crate::finding::Finding> {
    let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
    let settings = Settings::default();
    let design = crate::advise::advise(&model, &settings, None).expect("a design");
    let facts = Facts::new(&model, &settings, 0);
    let Check::Design(check) = rule.check else {
        panic!("{} does not judge designs", rule.id);
    };
    check(&crate::rules::judge::DesignCheck {
        facts: &facts,
        design: &design,
    })
}

/// An example model's text.
pub(crate) fn example(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(name),
    )
    .unwrap_or_else(|e| panic!("examples/{name}: {e}"))
}

/// Every verdict of every relationship rule on the first candidate of each
/// kind of every relationship of every example, and every entity rule's on
/// every entity candidate: the rules' English, kept whole in one snapshot
/// (the rules' own tests assert their evidence), and where their own test
/// cases are chosen from.
#[test]
fn every_verdict_on_every_example() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let settings = Settings::default();
    let mut out = String::new();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let model =
            crate::inputs::model_file::parse("test.yaml", &example(&name)).expect("a valid model");
        let facts = Facts::new(&model, &settings, 0);
        for r in model.relationship_ids() {
            let rel = &model.relationship(r).name;
            let mut seen = Vec::new();
            for layout in enumerate::for_relationship(&facts, r) {
                if seen.contains(&layout.kind()) {
                    continue;
                }
                seen.push(layout.kind());
                for rule in crate::rules::design::ALL {
                    let Check::Relationship { check, .. } = rule.check else {
                        continue;
                    };
                    let v = match check(&RelCheck {
                        facts: &facts,
                        r,
                        layout: &layout,
                    }) {
                        None => continue,
                        Some(Judgement::Forbid(why)) => format!("forbid: {why}"),
                        Some(Judgement::Support(why)) => format!("support: {why}"),
                    };
                    out.push_str(&format!(
                        "{name} {rel} {} {}: {v}\n",
                        layout.kind(),
                        rule.id
                    ));
                }
            }
        }
        for c in crate::candidates::entity_candidates(&facts) {
            for rule in crate::rules::design::ALL {
                if let Check::Entity(check) = rule.check
                    && let Some(why) = check(&facts, &c)
                {
                    out.push_str(&format!("{name} entity {}: {why}\n", rule.id));
                }
            }
        }
    }
    insta::assert_snapshot!(out);
}

/// A model of one entity whose `n` reads each filter on a field of their
/// own: `n` secondary indexes on one collection.
pub(crate) fn reads_on_own_fields(n: usize) -> String {
    let fields: String = (0..n)
        .map(|i| format!("      f{i}: {{type: int, distinct: 1000000}}\n"))
        .collect();
    let ops: String = (0..n)
        .map(|i| format!("  by_f{i}: {{read: thing, rate: 100, filter: {{f{i}: eq}}}}\n"))
        .collect();
    format!(
        "name: wide\nentities:\n  thing:\n    count: 10000000\n    fields:\n{fields}operations:\n{ops}"
    )
}
