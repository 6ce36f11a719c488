//! A partial index beside one over every document that starts with the
//! same keys (review finding 10, issue 41): the design keeps one of the
//! two, unless each does what the other cannot, and then says why.

/// A partial index beside one over every document that starts with its
/// keys is a second copy of the same entries: the full one serves each
/// read the partial one serves, so no design keeps both, unless the
/// partial one is unique (it enforces what the full one does not). Every
/// fixture (review finding 10).
#[test]
fn no_partial_index_sits_beside_a_full_one_that_serves_it() {
    for (name, _, d) in crate::fixtures::all() {
        for c in &d.collections {
            for p in c
                .indexes
                .iter()
                .filter(|i| !i.partial.is_empty() && !i.unique)
            {
                let full = c.indexes.iter().find(|f| {
                    f.partial.is_empty()
                        && f.expire_after_seconds.is_none()
                        && f.keys.len() >= p.keys.len()
                        && f.keys[..p.keys.len()] == p.keys[..]
                });
                assert!(full.is_none(), "{name}: {} beside {:?}", p.name, full);
            }
        }
    }
}

/// A unique partial index stays beside one over every document with the
/// same keys, and says why: it is unique over the users that have an
/// email, which the full index cannot be, and the full one serves the
/// read that does not test for one (review finding 10). Near miss: with
/// no such read there is no full index, and nothing to say.
#[test]
fn a_unique_partial_index_kept_beside_a_full_one_says_why() {
    const USERS: &str = r"
entities:
  user: {count: 100000, fields: {email: {type: string, required: false}, name: string(30)}, unique: [[email]]}
operations:
  signup: {insert: user, rate: 1}
  READ
";
    let design = |read: &str| {
        let m = crate::inputs::model_file::parse("users.yaml", &USERS.replace("READ", read))
            .unwrap_or_else(|e| panic!("{e}"));
        crate::advise::advise(&m, &crate::settings::Settings::default(), None).expect("advise")
    };
    let d = design("by_email: {read: user, filter: {email: eq}, rate: 100}");
    let idx = &d.collections[0].indexes;
    let partial = idx
        .iter()
        .find(|i| !i.partial.is_empty())
        .unwrap_or_else(|| panic!("{idx:#?}"));
    assert!(partial.unique, "{idx:#?}");
    assert_eq!(
        partial.kept_beside,
        Some(crate::design::KeptBeside {
            index: "email_1".to_string(),
            why: crate::design::BesideWhy::Unique
        }),
        "{idx:#?}"
    );
    assert!(
        idx.iter()
            .any(|i| i.name == "email_1" && i.partial.is_empty()),
        "{idx:#?}"
    );
    let d = design("by_name: {read: user, filter: {name: eq}, rate: 100}");
    assert!(
        d.collections[0]
            .indexes
            .iter()
            .all(|i| i.kept_beside.is_none()),
        "{:#?}",
        d.collections[0].indexes
    );
}
