//! Names as file names. A collection, entity or table name comes from data
//! and may hold `/`, `\`, `..`, a leading dot or a NUL: joined raw to an
//! output folder it would write elsewhere, make subdirectories or hide the
//! file. Every writer that makes a file from a name calls `file_in`, which
//! encodes the name as mongodump does and checks that the file is a plain
//! child of the folder, so mongorestore reads the dump back.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// The longest file name most file systems take, in bytes.
const MAX_FILE_NAME: usize = 255;

/// A name no file name can be made from, or that would leave its folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot write a file for `{name}` in {}: {why}", dir.display())]
pub struct UnsafeFileName {
    pub name: String,
    pub dir: PathBuf,
    pub why: String,
}

/// `name` encoded as mongodump encodes a collection name in a file name (Go's
/// `url.PathEscape`: every byte but ASCII letters, digits and
/// `-_.~$&+:=@` as `%XX`, so `/` is `%2F` and `%` is `%25`), and a leading
/// `.` as `%2E` so the file is not hidden and never `.` or `..`.
/// mongorestore decodes every `%XX`, so it restores the name itself.
pub fn encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (i, b) in name.bytes().enumerate() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_' | b'~' | b'$' | b'&' | b'+' | b':' | b'=' | b'@'
            )
            || (b == b'.' && i > 0);
        if keep {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// `dir/ENCODED` + `suffix` (`.bson`, `.metadata.json`): the file of `name` in
/// `dir`, refused when it would not be a plain file directly in `dir`.
pub fn file_in(dir: &Path, name: &str, suffix: &str) -> Result<PathBuf, UnsafeFileName> {
    let refuse = |why: String| UnsafeFileName {
        name: crate::words::visible(name).into_owned(),
        dir: dir.to_path_buf(),
        why,
    };
    let file = format!("{}{suffix}", encode(name));
    if file.len() > MAX_FILE_NAME {
        return Err(refuse(format!(
            "its file name would be {} bytes, more than the {MAX_FILE_NAME} a file system takes",
            file.len()
        )));
    }
    let mut parts = Path::new(&file).components();
    let plain = matches!(parts.next(), Some(Component::Normal(_))) && parts.next().is_none();
    let path = dir.join(&file);
    if !plain || path.parent() != Some(dir) {
        return Err(refuse(format!("`{file}` is not a file name")));
    }
    Ok(path)
}

/// The first path of `paths` that appears twice: two names that would
/// write one file.
pub fn repeated(paths: &[PathBuf]) -> Option<&PathBuf> {
    let mut seen = std::collections::HashSet::new();
    paths.iter().find(|p| !seen.insert(p.as_path()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_encoded_as_mongodump_encodes_them() {
        assert_eq!(encode("users"), "users");
        assert_eq!(encode("a/b"), "a%2Fb");
        assert_eq!(encode("/abs/path"), "%2Fabs%2Fpath");
        assert_eq!(encode("../x"), "%2E.%2Fx");
        assert_eq!(encode(".hidden"), "%2Ehidden");
        assert_eq!(encode("system.views"), "system.views");
        assert_eq!(encode("100%"), "100%25");
        assert_eq!(encode("a\\b\0"), "a%5Cb%00");
        assert_eq!(encode("a b"), "a%20b");
        assert_eq!(encode("é"), "%C3%A9");
        assert_eq!(encode("$x&y+z:w=v@u~t"), "$x&y+z:w=v@u~t");
    }

    #[test]
    fn every_name_stays_in_its_folder() {
        let dir = Path::new("/out/dump/db");
        for name in [
            "/abs/path",
            "../x",
            "a/b",
            ".hidden",
            "..",
            ".",
            "a\0b",
            "a\\b",
            "x",
        ] {
            let p = file_in(dir, name, ".bson").unwrap();
            assert_eq!(p.parent(), Some(dir), "{name}");
            assert!(!p.file_name().unwrap().to_string_lossy().starts_with('.'));
        }
        assert_eq!(
            file_in(dir, "a/b", ".bson").unwrap(),
            Path::new("/out/dump/db/a%2Fb.bson")
        );
    }

    #[test]
    fn a_name_too_long_for_a_file_is_refused() {
        let e = file_in(Path::new("out"), &"/".repeat(90), ".bson").unwrap_err();
        assert!(e.why.contains("275 bytes"), "{e}");
    }

    #[test]
    fn a_repeated_path_is_found() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(repeated(&[p("a"), p("b")]), None);
        assert_eq!(repeated(&[p("a"), p("b"), p("a")]), Some(&p("a")));
    }
}
