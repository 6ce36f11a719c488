//! The docs a user opens agree with the tool: every page of docs/ is in
//! its index, and the README's rule count is the registry's (issue 44).

use crate::support::repo_root;

/// The pages of docs/ (its own `.md` files, and a folder's `README.md`)
/// that no row of docs/README.md's table links to.
fn pages_missing_from_index(index: &str, docs: &std::path::Path) -> Vec<String> {
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(docs).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() && path.join("README.md").is_file() {
            pages.push(format!("{name}/README.md"));
        } else if name.ends_with(".md") && name != "README.md" {
            pages.push(name);
        }
    }
    pages.sort();
    // A page is listed when a row of the index's table links to it.
    let rows: Vec<&str> = index.lines().filter(|l| l.starts_with("| [")).collect();
    pages
        .into_iter()
        .filter(|page| !rows.iter().any(|r| r.contains(&format!("]({page})"))))
        .collect()
}

#[test]
fn every_page_of_docs_is_in_its_index() {
    let docs = repo_root().join("docs");
    let index = std::fs::read_to_string(docs.join("README.md")).unwrap();
    assert_eq!(
        pages_missing_from_index(&index, &docs),
        Vec::<String>::new(),
        "docs/README.md does not list these pages"
    );
    // The check can fail: the index without its last page misses it.
    let last = index.lines().rev().find(|l| l.starts_with("| [")).unwrap();
    let page = last.split("](").nth(1).unwrap().split(')').next().unwrap();
    let shorter = index.replace(last, "");
    assert_eq!(pages_missing_from_index(&shorter, &docs), [page]);
}

/// Every page the index links to exists.
#[test]
fn every_page_the_index_links_to_exists() {
    let docs = repo_root().join("docs");
    let index = std::fs::read_to_string(docs.join("README.md")).unwrap();
    for link in index.split("](").skip(1) {
        let target = link.split(')').next().unwrap();
        let file = target.split('#').next().unwrap();
        if file.is_empty() || file.contains("://") {
            continue;
        }
        assert!(docs.join(file).exists(), "docs/README.md links to {target}");
    }
}

/// The README states how many rules squill carries; the number is the
/// registry's (`squill rules` lists the same). `UPDATE_DOCS=1` writes the
/// registry's count into the README, as it regenerates docs/rules/.
#[test]
fn readme_rule_count_is_the_registry_count() {
    let path = repo_root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let count = squill::rules::all().count();
    let (before, after) = readme
        .split_once(" rules with their thresholds and sources")
        .expect("the README states the rule count");
    let digits = before.rsplit(' ').next().unwrap();
    let stated: usize = digits.parse().expect("a number of rules");
    if stated != count && std::env::var_os("UPDATE_DOCS").is_some() {
        let start = before.len() - digits.len();
        let updated = format!(
            "{}{count} rules with their thresholds and sources{after}",
            &before[..start]
        );
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert_eq!(
        stated, count,
        "README.md says {stated} rules, the registry has {count}: run UPDATE_DOCS=1 cargo test -p squill-cli readme_rule_count"
    );
    // `squill rules` lists as many.
    let listed = crate::support::Test::new()
        .args(["rules", "--format", "json"])
        .stdout_any()
        .check()
        .stdout;
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), count);
}
