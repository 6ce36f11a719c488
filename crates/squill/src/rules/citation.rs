//! The published texts the rules rest on, as a reader can find them: title,
//! author, where it was published. A rule's `sources` name the five seed
//! texts by their file names (stable keys that the rule files share); every
//! output that shows a source to a user (`squill rule ID`, `squill rules
//! --format json`, docs/rules/, SARIF's rule properties) shows the citation
//! instead. Other sources (`MongoDB manual: limits`) are already public names
//! and pass unchanged.

/// One seed text as published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Citation {
    /// The seed's file name, as rules write it in `sources`.
    pub key: &'static str,
    /// A few words for a table cell: `Zola, part 1`.
    pub short: &'static str,
    /// Author (when the text names one), title, where it was published.
    pub full: &'static str,
}

/// The seed texts, read from their headers: titles and authors as they
/// print them; where the text itself does not say where it appeared, the
/// site it was taken from.
pub const SEEDS: [Citation; 5] = [
    Citation {
        key: "000_34acd10fa9a500cb.txt",
        short: "Zola, part 1",
        full: "William Zola, \"6 Rules of Thumb for MongoDB Schema Design: Part 1\", MongoDB blog, 2014",
    },
    Citation {
        key: "001_5782b55841006ac6.txt",
        short: "Zola, part 2",
        full: "William Zola, \"6 Rules of Thumb for MongoDB Schema Design: Part 2\", MongoDB blog, 2014 (reprinted on DZone)",
    },
    Citation {
        key: "002_6843193bac1933d0.txt",
        short: "\"MongoDB Schema Design Patterns\" tutorial",
        full: "\"MongoDB Schema Design Patterns\", a tutorial of the \"Advanced MongoDB\" series on the UnifySQL website (no author named)",
    },
    Citation {
        key: "003_8caca105590b9080.txt",
        short: "Kvalheim, \"Schema Basics\"",
        full: "Christian Kvalheim, \"Schema Basics\", a chapter of The Little MongoDB Schema Design Book (the \"Schema Book\" published online with Learn MongoDB The Hard Way)",
    },
    Citation {
        key: "004_16209cf0db7b32ff.txt",
        short: "\"Schema Design\" notes",
        full: "\"Schema Design\", unsigned notes published as a Notion page, summarizing William Zola's \"6 Rules of Thumb for MongoDB Schema Design: Part 3\" (MongoDB blog, 2014) and MongoDB's indexing advice",
    },
];

/// The citation a user reads for `source`: the seed's, or `source` itself.
pub fn cite(source: &str) -> &str {
    SEEDS
        .iter()
        .find(|c| c.key == source)
        .map_or(source, |c| c.full)
}

/// A rule's sources as a user reads them, in order.
pub fn cited(sources: &[&'static str]) -> Vec<&'static str> {
    sources.iter().map(|s| cite(s)).collect()
}

/// For `#[serde(serialize_with)]`: the cited sources.
pub(crate) fn serialize<S: serde::Serializer>(
    sources: &&'static [&'static str],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&cited(sources), serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `text` names a seed by its file name or points into the
    /// `shared` folder beside the repository, which a user does not have.
    fn internal_reference(text: &str) -> Option<String> {
        if let Some(at) = text.find("../shared") {
            return Some(text[at..].chars().take(40).collect());
        }
        SEEDS
            .iter()
            .find(|c| text.contains(c.key))
            .map(|c| c.key.to_string())
    }

    /// Issue 44: every rule's docs and sources, as a user sees them, cite
    /// the published text.
    #[test]
    fn rule_docs_cite_published_sources() {
        let mut found = Vec::new();
        for rule in crate::rules::all() {
            let page = crate::outputs::rules::docs(rule);
            if let Some(what) = internal_reference(&page) {
                found.push(format!("{}: {what}", rule.id));
            }
            for source in cited(rule.sources) {
                if let Some(what) = internal_reference(source) {
                    found.push(format!("{} sources: {what}", rule.id));
                }
            }
        }
        assert_eq!(found, Vec::<String>::new());
        // The check can fail: a seed's file name is caught.
        assert!(internal_reference("see `004_16209cf0db7b32ff.txt`").is_some());
        assert!(internal_reference("`../shared/scenarios.md`, S3").is_some());
    }

    /// Issue 44: the examples' headers and the docs cite the published
    /// text too, not the seed's file name.
    #[test]
    fn examples_and_docs_cite_published_sources() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        let mut dirs = vec![root.join("examples"), root.join("docs")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("a folder").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "yaml" || e == "md") {
                    files.push(path);
                }
            }
        }
        assert!(files.len() > 20, "{files:?}");
        let mut found = Vec::new();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a text file");
            for c in SEEDS.iter().filter(|c| text.contains(c.key)) {
                found.push(format!("{}: {}", path.display(), c.key));
            }
        }
        assert_eq!(found, Vec::<String>::new());
    }

    #[test]
    fn a_seed_is_cited_and_anything_else_passes() {
        assert!(cite("000_34acd10fa9a500cb.txt").starts_with("William Zola, \"6 Rules"));
        assert_eq!(cite("MongoDB manual: limits"), "MongoDB manual: limits");
    }
}
