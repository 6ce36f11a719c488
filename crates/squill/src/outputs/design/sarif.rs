//! SARIF 2.1.0 for `squill advise`: the design's findings as a code-scanning
//! run, like `scan`'s and `workload`'s. The model file is the artifact: a
//! finding about an entity, a relationship or an operation points at the
//! line and column of its key there (`inputs::model_file::positions`), so a
//! CI view annotates the model where the decision is written. The rules,
//! results and document come from the one SARIF writer (`outputs::scan::sarif`).

use crate::design::Design;
use crate::finding::Location;
use crate::inputs::model_file::LineColumn;
use crate::outputs::sarif_uri::uri;
use crate::outputs::scan::sarif::{document, result, rule_object};
use crate::rules::{Rule, RuleKind};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The model file the design was advised from.
#[derive(Debug, Clone, Copy)]
pub struct ModelFile<'a> {
    /// Its path as given on the command line; `None` for standard input,
    /// which has no artifact to point at.
    pub path: Option<&'a str>,
    /// Where each named part is written (`entities.person` → 9:3).
    pub positions: &'a BTreeMap<String, LineColumn>,
}

/// The design rules (and any other rule a finding cites) with their docs,
/// and one result per finding.
pub fn render(design: &Design, model: ModelFile<'_>) -> String {
    let rules: Vec<&Rule> = crate::rules::all()
        .filter(|r| r.kind == RuleKind::Design || design.findings.iter().any(|f| f.rule == r.id))
        .collect();
    let rule_objects: Vec<Value> = rules.iter().map(|r| rule_object(r)).collect();
    let results: Vec<Value> = design
        .findings
        .iter()
        .map(|f| result(f, &rules, json!(locations(design, &f.location, model))))
        .collect();
    document(rule_objects, Vec::new(), results, true)
}

fn locations(design: &Design, location: &Location, model: ModelFile<'_>) -> Vec<Value> {
    let name = crate::outputs::scan::location_text(location);
    let mut at = json!({ "logicalLocations": [{ "fullyQualifiedName": name }] });
    let file = match location {
        Location::File { path, .. } => Some(path.to_string_lossy().into_owned()),
        _ => model.path.map(str::to_string),
    };
    if let Some(file) = file {
        let mut physical = json!({ "artifactLocation": { "uri": uri(&file) } });
        if let Location::Model { path } = location
            && let Some(p) = position(design, path, model.positions)
        {
            physical["region"] = json!({ "startLine": p.line, "startColumn": p.column });
        }
        at["physicalLocation"] = physical;
    }
    vec![at]
}

/// Where the model file writes what `path` names: the part itself, else
/// the nearest part that holds it (`entities.host` for a field the file
/// does not list). A collection is not written in the model: its place is
/// that of the entity it holds first (`collections.logmsg.time` → the
/// entity `logmsg`).
fn position(
    design: &Design,
    path: &str,
    positions: &BTreeMap<String, LineColumn>,
) -> Option<LineColumn> {
    let path = match path.strip_prefix("collections.") {
        Some(rest) => {
            let (name, field) = rest.split_once('.').unwrap_or((rest, ""));
            let entity = design
                .collections
                .iter()
                .find(|c| c.name == name)?
                .entities
                .first()?;
            if field.is_empty() {
                format!("entities.{entity}")
            } else {
                format!("entities.{entity}.fields.{field}")
            }
        }
        None => path.to_string(),
    };
    let mut at = path.as_str();
    loop {
        if let Some(p) = positions.get(at) {
            return Some(*p);
        }
        at = &at[..at.rfind('.')?];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example `host-logs.yaml` (two findings, on an entity and a
    /// relationship), its text and its design.
    fn host_logs() -> (String, Design) {
        let path = format!(
            "{}/../../examples/host-logs.yaml",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).expect("the example");
        let model = crate::inputs::model_file::parse(&path, &text).expect("it parses");
        let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
            .expect("it advises");
        (text, design)
    }

    fn sarif_of(
        design: &Design,
        path: Option<&str>,
        positions: &BTreeMap<String, LineColumn>,
    ) -> Value {
        let text = render(design, ModelFile { path, positions });
        serde_json::from_str(&text).expect("SARIF is JSON")
    }

    /// host-logs.yaml writes `ipaddr` at 14:7 and the entity `logmsg` at
    /// 15:3: `custom-id` is about the field, `index-write-cost` about the
    /// collection `logmsg`, which holds that entity.
    #[test]
    fn a_finding_points_at_its_key_in_the_model_file() {
        let (text, design) = host_logs();
        let positions = crate::inputs::model_file::positions(&text);
        let v = sarif_of(&design, Some("examples/host logs.yaml"), &positions);
        let results = v["runs"][0]["results"].as_array().expect("results");
        let rules = v["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .expect("rules");
        let mut seen = Vec::new();
        for r in results {
            let i = usize::try_from(r["ruleIndex"].as_u64().expect("an index")).expect("small");
            assert_eq!(rules[i]["id"], r["ruleId"]);
            let at = &r["locations"][0];
            let physical = &at["physicalLocation"];
            assert_eq!(
                physical["artifactLocation"]["uri"],
                "examples/host%20logs.yaml"
            );
            seen.push(format!(
                "{} {} {}:{}",
                r["ruleId"].as_str().unwrap_or_default(),
                at["logicalLocations"][0]["fullyQualifiedName"]
                    .as_str()
                    .unwrap_or_default(),
                physical["region"]["startLine"],
                physical["region"]["startColumn"],
            ));
        }
        assert_eq!(
            seen,
            [
                "custom-id entities.host.fields.ipaddr 14:7",
                "index-write-cost collections.logmsg 15:3",
            ]
        );
    }

    #[test]
    fn standard_input_has_no_artifact() {
        let (_, design) = host_logs();
        let v = sarif_of(&design, None, &BTreeMap::new());
        let at = &v["runs"][0]["results"][0]["locations"][0];
        assert!(at["physicalLocation"].is_null(), "{at}");
        assert!(at["logicalLocations"][0]["fullyQualifiedName"].is_string());
    }
}
