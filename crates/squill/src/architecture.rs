//! The layering test: every `crate::…` (and `super::…`) path in the library
//! points to its own top-level module or to one in a lower layer. The order is
//! written once, here; ARCHITECTURE.md explains it.
//!
//! Test code (`#[cfg(test)]` items and the files they declare) may reach up:
//! a test of `generate` runs `advise` to get a design, as a user would.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Bottom to top. A module may import from its own folder and from the layers
/// below it, never from its own layer's other modules or from above.
const LAYERS: &[&[&str]] = &[
    &["model", "words", "finding", "text_codec"],
    &["design", "inputs", "settings"],
    // The mongod logs read into a workload report (`squill workload`);
    // `scan --workload` joins it to the data.
    &["workload"],
    &["candidates", "scan", "catalog"],
    &["rules", "costs", "synthetic"],
    &["advise", "outputs", "artifacts"],
    // Both sources of a migration take the advised design and build its
    // collections with `artifacts`' validators and indexes.
    &["migration"],
    // Test designs made by advising YAML models; only tests and benches use it.
    &["fixtures"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// A source file and its module path (`["rules", "data", "massive_array"]`).
struct Source {
    file: PathBuf,
    module: Vec<String>,
}

fn sources() -> Vec<Source> {
    fn walk(dir: &Path, module: &[String], out: &mut Vec<Source>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("src is readable")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                let mut m = module.to_vec();
                m.push(name);
                walk(&path, &m, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let mut m = module.to_vec();
                if name != "mod" && name != "lib" {
                    m.push(name);
                }
                out.push(Source {
                    file: path,
                    module: m,
                });
            }
        }
    }
    let mut out = Vec::new();
    walk(&src(), &[], &mut out);
    out
}

/// The text without comments, `#[cfg(test)]` items, and the names of the
/// modules those items declare in other files (`#[cfg(test)] mod tests;`).
fn production_text(text: &str) -> (String, Vec<String>) {
    let uncommented: String = text
        .lines()
        .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut test_modules = Vec::new();
    let mut rest = uncommented.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at + "#[cfg(test)]".len()..];
        let semi = item.find(';').unwrap_or(item.len());
        let brace = item.find('{').unwrap_or(item.len());
        if semi < brace {
            // `mod x;`, `pub mod x;`, `pub(crate) mod x;`: the word after `mod`.
            let mut words = item[..semi].split_whitespace();
            if words.any(|w| w == "mod")
                && let Some(name) = words.next()
            {
                test_modules.push(name.to_string());
            }
            rest = &item[(semi + 1).min(item.len())..];
        } else {
            let mut depth = 0usize;
            let mut end = item.len();
            for (i, c) in item.char_indices().skip(brace) {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = &item[end..];
        }
    }
    out.push_str(rest);
    (out, test_modules)
}

fn ident_at(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// Top-level modules a file's code names.
fn imports(module: &[String], text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        let after = &text[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            // `crate::{a::b, c}`: the first segment of each path in the group.
            let mut depth = 0;
            let mut segment_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => segment_start = true,
                    c if segment_start && (c.is_ascii_alphabetic() || c == '_') => {
                        found.insert(ident_at(&group[i..]).to_string());
                        segment_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident_at(after).to_string());
        }
    }
    // `super::super::x` climbing to the crate root names top-level `x`.
    for (at, _) in text.match_indices("super::") {
        if at > 0 && text[..at].ends_with("super::") {
            continue;
        }
        let mut after = &text[at..];
        let mut up = 0;
        while let Some(r) = after.strip_prefix("super::") {
            up += 1;
            after = r;
        }
        if up == module.len() {
            found.insert(ident_at(after).to_string());
        } else if up == module.len() - 1 && module.len() >= 2 {
            // Still inside the same top-level module.
        }
    }
    found.retain(|m| !m.is_empty());
    found
}

/// Every file of the library but `lib.rs` and the test files (those that
/// `#[cfg(test)] mod x;` declares), with its production text.
fn production_sources() -> Vec<(Source, String)> {
    let sources = sources();
    let mut test_files: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut texts = Vec::new();
    for s in &sources {
        let (text, tests) = production_text(&std::fs::read_to_string(&s.file).unwrap());
        for t in tests {
            let mut m = s.module.clone();
            m.push(t);
            test_files.insert(m);
        }
        texts.push(text);
    }
    sources
        .into_iter()
        .zip(texts)
        .filter(|(s, _)| {
            !s.module.is_empty() && !test_files.iter().any(|t| s.module.starts_with(t))
        })
        .collect()
}

#[test]
fn every_import_points_down() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let top: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod ")
                .or(l.trim().strip_prefix("mod "))
        })
        .map(|l| l.trim_end_matches(';'))
        .filter(|m| *m != "architecture")
        .collect();
    for m in &top {
        assert!(
            layer_of(m).is_some(),
            "top-level module `{m}` has no layer: add it to LAYERS in architecture.rs"
        );
    }

    let mut wrong = Vec::new();
    for (s, text) in &production_sources() {
        let own = s.module[0].as_str();
        if own == "architecture" {
            continue;
        }
        let Some(from) = layer_of(own) else { continue };
        for target in imports(&s.module, text) {
            if target == own {
                continue;
            }
            let Some(to) = layer_of(&target) else {
                continue; // a local name or an item of lib.rs
            };
            if to >= from {
                wrong.push(format!(
                    "{}: `{own}` (layer {}) imports `{target}` (layer {})",
                    s.file.strip_prefix(src()).unwrap().display(),
                    from + 1,
                    to + 1
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that do not point down:\n{}",
        wrong.join("\n")
    );
}

/// The test itself can fail: a made-up upward import is caught.
#[test]
fn an_upward_import_is_caught() {
    let module = vec!["model".to_string(), "entity".to_string()];
    let text = "use crate::advise::advise;\nuse crate::{outputs::x, model::y};\nfn f() { super::super::rules::all(); }";
    let found = imports(&module, text);
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["advise", "model", "outputs", "rules"]
    );
    let (kept, tests) = production_text(
        "use crate::model::A;\n#[cfg(test)]\nmod tests {\n use crate::advise::advise; { }\n}\n#[cfg(test)]\nmod more;\n#[cfg(test)]\npub(crate) mod testing;\n// crate::outputs\nfn g() {}",
    );
    assert!(!kept.contains("advise") && !kept.contains("outputs"));
    assert_eq!(tests, ["more", "testing"]);
}

/// No `unsafe` anywhere in the library: the workspace denies `unsafe_code`,
/// and no module may allow it back (issue 18).
#[test]
fn no_module_allows_unsafe_code() {
    for s in sources()
        .into_iter()
        .filter(|s| s.module != ["architecture"])
    {
        let text = std::fs::read_to_string(&s.file).unwrap();
        let (code, _) = production_text(&text);
        for bad in ["allow(unsafe_code)", "unsafe {", "unsafe fn", "unsafe impl"] {
            assert!(
                !code.contains(bad),
                "{} has `{bad}`",
                s.file.strip_prefix(src()).unwrap().display()
            );
        }
    }
}

/// Every path a file's code names through `crate::` or `super::`, as
/// absolute segments (`super::plan::ShapePlan` in `synthetic::documents` →
/// `["synthetic", "plan", "ShapePlan"]`), one level of `{…}` groups
/// expanded. `module` is the file's module path (a `mod.rs` is its folder's).
fn paths(module: &[String], text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let after_ident =
            i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || matches!(bytes[i - 1], b'_' | b':'));
        if after_ident || !(rest.starts_with("crate::") || rest.starts_with("super::")) {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        }
        // `super` is the module's parent (a leaf file's folder, a `mod.rs`'s
        // folder above), each further `super` one more up.
        let mut after = rest;
        let base: Vec<String> = if let Some(r) = after.strip_prefix("crate::") {
            after = r;
            Vec::new()
        } else {
            let mut ups = 0;
            while let Some(r) = after.strip_prefix("super::") {
                ups += 1;
                after = r;
            }
            module[..module.len().saturating_sub(ups)].to_vec()
        };
        let consumed_prefix = rest.len() - after.len();
        let mut segs = base;
        let mut tail = after;
        loop {
            let id = ident_at(tail);
            if id.is_empty() {
                break;
            }
            segs.push(id.to_string());
            tail = &tail[id.len()..];
            match tail.strip_prefix("::") {
                Some(r) => tail = r,
                None => break,
            }
        }
        if let Some(group) = tail.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let mut p = segs.clone();
                p.extend(
                    part.trim()
                        .split("::")
                        .map(ident_at)
                        .take_while(|s| !s.is_empty())
                        .map(str::to_string),
                );
                out.push(p);
            }
        } else {
            out.push(segs);
        }
        i += consumed_prefix.max(1);
    }
    out
}

/// Two files of one folder that import each other, directly or through
/// others of the folder, are one idea split in two (or two ideas tangled):
/// a lower file should own what both need. A folder's `mod.rs` is its
/// facade and is left out; a name it re-exports (`pub use x::T`) counts as
/// an import of `x`.
fn file_circles() -> Vec<Vec<String>> {
    use std::collections::BTreeMap;
    let sources = sources();
    let known: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let mut test_files: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut texts = Vec::new();
    // Re-exports of each folder's mod.rs: name → the child that holds it.
    let mut reexports: BTreeMap<Vec<String>, String> = BTreeMap::new();
    for s in &sources {
        let raw = std::fs::read_to_string(&s.file).unwrap();
        let (text, tests) = production_text(&raw);
        for t in tests {
            let mut m = s.module.clone();
            m.push(t);
            test_files.insert(m);
        }
        if s.file.file_name().is_some_and(|n| n == "mod.rs") {
            // One `pub use …;` at a time, however rustfmt wrapped it.
            for (at, _) in text.match_indices("pub use ") {
                let rest = &text[at + "pub use ".len()..];
                let rest = &rest[..rest.find(';').unwrap_or(rest.len())];
                let child = ident_at(rest).to_string();
                let names = rest[child.len()..].trim_start_matches("::");
                let names = names.trim_start_matches('{').trim_end_matches(['}', ';']);
                for n in names.split(',') {
                    let last = n.trim().rsplit("::").next().unwrap_or("").trim();
                    let last = last.rsplit(" as ").next().unwrap_or(last).trim();
                    if !last.is_empty() && last != "self" {
                        let mut key = s.module.clone();
                        key.push(last.to_string());
                        reexports.insert(key, child.clone());
                    }
                }
            }
        }
        texts.push(text);
    }
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (s, text) in sources.iter().zip(&texts) {
        let is_mod = s
            .file
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        if is_mod || s.module.is_empty() || test_files.iter().any(|t| s.module.starts_with(t)) {
            continue;
        }
        let folder = &s.module[..s.module.len() - 1];
        for mut p in paths(&s.module, text) {
            // A name re-exported by the folder's mod.rs stands for its child.
            if p.len() == folder.len() + 1
                && p.starts_with(folder)
                && let Some(child) = reexports.get(&p)
            {
                p.truncate(folder.len());
                p.push(child.clone());
            }
            let target = (1..=p.len())
                .rev()
                .map(|n| p[..n].to_vec())
                .find(|m| known.contains(m));
            let Some(target) = target else { continue };
            if target.len() == s.module.len()
                && target.starts_with(folder)
                && target != s.module
                && !test_files.contains(&target)
            {
                edges.entry(s.module.clone()).or_default().insert(target);
            }
        }
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| c.into_iter().map(|m| m.join("::")).collect())
        .collect()
}

/// Tarjan's strongly connected components of a small graph.
fn strongly_connected<N: Ord + Clone>(
    edges: &std::collections::BTreeMap<N, BTreeSet<N>>,
) -> Vec<Vec<N>> {
    use std::collections::BTreeMap;
    struct Walk<'a, N: Ord> {
        edges: &'a BTreeMap<N, BTreeSet<N>>,
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on_stack: BTreeSet<N>,
        out: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(w: &mut Walk<'_, N>, v: &N) {
        let i = w.index.len();
        w.index.insert(v.clone(), i);
        w.low.insert(v.clone(), i);
        w.stack.push(v.clone());
        w.on_stack.insert(v.clone());
        for t in w.edges.get(v).into_iter().flatten() {
            if !w.index.contains_key(t) {
                visit(w, t);
                let l = w.low[t].min(w.low[v]);
                w.low.insert(v.clone(), l);
            } else if w.on_stack.contains(t) {
                let l = w.index[t].min(w.low[v]);
                w.low.insert(v.clone(), l);
            }
        }
        if w.low[v] == w.index[v] {
            let mut c = Vec::new();
            while let Some(x) = w.stack.pop() {
                w.on_stack.remove(&x);
                let done = &x == v;
                c.push(x);
                if done {
                    break;
                }
            }
            c.sort();
            w.out.push(c);
        }
    }
    let mut w = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !w.index.contains_key(v) {
            visit(&mut w, v);
        }
    }
    w.out.sort();
    w.out
}

#[test]
fn no_two_files_of_a_folder_import_each_other_in_a_circle() {
    let circles = file_circles();
    assert!(
        circles.is_empty(),
        "files that import each other in a circle (give what they share to a lower file):\n{}",
        circles
            .iter()
            .map(|c| c.join(" ↔ "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The circle test can fail: two files that name each other are found.
#[test]
fn a_circle_of_files_is_caught() {
    let a = vec!["m".to_string(), "a".to_string()];
    let p = paths(&a, "use super::b::X; fn f() { crate::m::{c::Y, d}; }");
    assert_eq!(
        p,
        [vec!["m", "b", "X"], vec!["m", "c", "Y"], vec!["m", "d"]]
    );
    let mut edges = std::collections::BTreeMap::new();
    edges.insert("a", BTreeSet::from(["b"]));
    edges.insert("b", BTreeSet::from(["c"]));
    edges.insert("c", BTreeSet::from(["a"]));
    edges.insert("d", BTreeSet::from(["a"]));
    assert_eq!(strongly_connected(&edges), [vec!["a", "b", "c"], vec!["d"]]);
}

/// Lines of production code (no comments, no `#[cfg(test)]` items or test
/// files) per top-level module.
fn production_lines() -> std::collections::BTreeMap<String, usize> {
    let mut lines = std::collections::BTreeMap::new();
    for (s, text) in &production_sources() {
        let n = text.lines().filter(|l| !l.trim().is_empty()).count();
        *lines.entry(s.module[0].clone()).or_insert(0) += n;
    }
    lines
}

/// No top-level module holds more than a quarter of the library: a module
/// that large is several jobs in one room (issue 47: `generate` held 27 %).
#[test]
fn no_module_holds_more_than_a_quarter_of_the_library() {
    let lines = production_lines();
    let total: usize = lines.values().sum();
    let big: Vec<String> = lines
        .iter()
        .filter(|(_, n)| **n * 4 > total)
        .map(|(m, n)| format!("{m}: {n} of {total} lines"))
        .collect();
    assert!(
        big.is_empty(),
        "modules over a quarter of the library:\n{}",
        big.join("\n")
    );
}
