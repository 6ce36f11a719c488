//! A tiny BSON encoder for fixtures: tests and benches build the documents they
//! scan instead of committing binary files. Not a general-purpose writer.

/// A value to encode.
#[derive(Debug, Clone)]
pub enum B<'a> {
    I32(i32),
    I64(i64),
    F64(f64),
    Str(&'a str),
    Owned(String),
    Oid([u8; 12]),
    Bool(bool),
    /// A UTC datetime, in milliseconds since the epoch.
    Date(i64),
    Null,
    Doc(Vec<(&'a str, B<'a>)>),
    Arr(Vec<B<'a>>),
}

impl B<'_> {
    fn type_byte(&self) -> u8 {
        match self {
            B::F64(_) => 0x01,
            B::Str(_) | B::Owned(_) => 0x02,
            B::Doc(_) => 0x03,
            B::Arr(_) => 0x04,
            B::Oid(_) => 0x07,
            B::Bool(_) => 0x08,
            B::Date(_) => 0x09,
            B::Null => 0x0A,
            B::I32(_) => 0x10,
            B::I64(_) => 0x12,
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            B::I32(i) => out.extend_from_slice(&i.to_le_bytes()),
            B::I64(i) | B::Date(i) => out.extend_from_slice(&i.to_le_bytes()),
            B::F64(f) => out.extend_from_slice(&f.to_le_bytes()),
            B::Str(s) => string(s, out),
            B::Owned(s) => string(s, out),
            B::Oid(b) => out.extend_from_slice(b),
            B::Bool(b) => out.push(u8::from(*b)),
            B::Null => {}
            B::Doc(fields) => encode(fields.iter().map(|(k, v)| (*k, v)), out),
            B::Arr(items) => {
                let keys: Vec<String> = (0..items.len()).map(|i| i.to_string()).collect();
                encode(keys.iter().map(String::as_str).zip(items.iter()), out);
            }
        }
    }
}

fn string(s: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(s.len() as i32 + 1).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

fn encode<'a, 'b: 'a>(fields: impl Iterator<Item = (&'a str, &'a B<'b>)>, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for (k, v) in fields {
        out.push(v.type_byte());
        out.extend_from_slice(k.as_bytes());
        out.push(0);
        v.write(out);
    }
    out.push(0);
    let len = (out.len() - start) as i32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Encodes a document.
pub fn doc(fields: &[(&str, B<'_>)]) -> Vec<u8> {
    let mut out = Vec::new();
    encode(fields.iter().map(|(k, v)| (*k, v)), &mut out);
    out
}

/// An ObjectId whose last 8 bytes are `n` (big-endian), for readable fixtures.
pub fn oid(n: u64) -> [u8; 12] {
    let mut b = [0u8; 12];
    b[0..4].copy_from_slice(&0x6500_0000u32.to_be_bytes());
    b[4..].copy_from_slice(&n.to_be_bytes());
    b
}

/// One collection of a test input.
pub struct Coll {
    pub db: &'static str,
    pub name: &'static str,
    pub docs: Vec<Vec<u8>>,
    pub indexes: Option<Vec<super::report::IndexReport>>,
}

pub fn coll(db: &'static str, name: &'static str, docs: Vec<Vec<u8>>) -> Coll {
    Coll {
        db,
        name,
        docs,
        indexes: None,
    }
}

/// An ascending/descending index on `keys`.
pub fn index(name: &str, keys: &[(&str, i32)]) -> super::report::IndexReport {
    super::report::IndexReport {
        name: name.to_string(),
        key: keys
            .iter()
            .map(|(k, d)| ((*k).to_string(), serde_json::Value::from(*d)))
            .collect(),
        unique: false,
        sparse: false,
        partial: false,
        expire_after_seconds: None,
    }
}

/// Scans test collections with `settings`, single-threaded.
pub fn scan(colls: Vec<Coll>, settings: &crate::settings::Settings) -> super::report::ScanReport {
    let profiles = colls
        .into_iter()
        .map(|c| {
            let (p, errors) = super::analyze::profile_documents(
                c.docs.iter().map(Vec::as_slice),
                super::Limits::default(),
            );
            assert!(errors.is_empty(), "{errors:?}");
            let meta = super::report::CollectionMeta {
                database: Some(c.db.to_string()),
                name: c.name.to_string(),
                file: None,
                indexes: c.indexes,
            };
            (meta, p)
        })
        .collect();
    super::analyze::analyze(profiles, Vec::new(), settings)
}

/// The findings of one rule.
pub fn fired<'r>(
    report: &'r super::report::ScanReport,
    rule: &str,
) -> Vec<&'r crate::finding::Finding> {
    report.findings.iter().filter(|f| f.rule == rule).collect()
}
