//! libpq's password file (`~/.pgpass`, `PGPASSFILE`, `passfile=`): lines
//! `hostname:port:database:username:password`, `*` matching anything in
//! the first four fields, `\` escaping `:` and `\`, `#` starting a comment.
//! The first line that matches wins. As libpq does, a file that group or
//! others may read is not used (a password there is not private), and why
//! is kept for the error a missing password gets.

use std::path::Path;

/// What the connection is for, as the file's lines are matched.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wanted<'a> {
    pub hosts: &'a [String],
    pub port: u16,
    pub database: &'a str,
    pub user: &'a str,
}

/// The password of the first matching line of `path`, or why none.
pub(super) fn lookup(path: &Path, wanted: &Wanted<'_>) -> Result<String, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("there is no {shown}"),
        _ => format!("{shown} was not read: {e}"),
    })?;
    if !meta.is_file() {
        return Err(format!("{shown} was not read: it is not a plain file"));
    }
    if too_open(&meta) {
        return Err(format!(
            "{shown} was not read: group or others may read it (as libpq, squill uses it only at mode 0600: chmod 0600 {shown})"
        ));
    }
    let text = std::fs::read(path).map_err(|e| format!("{shown} was not read: {e}"))?;
    let text = String::from_utf8_lossy(&text);
    find(&text, wanted).ok_or_else(|| {
        format!(
            "no line of {shown} matches {}:{}:{}:{}",
            wanted.hosts.first().map_or("localhost", String::as_str),
            wanted.port,
            wanted.database,
            wanted.user
        )
    })
}

#[cfg(unix)]
fn too_open(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    meta.permissions().mode() & 0o077 != 0
}

/// Elsewhere there are no such mode bits to check.
#[cfg(not(unix))]
fn too_open(_: &std::fs::Metadata) -> bool {
    false
}

/// The password of the first line of `text` that matches.
pub(super) fn find(text: &str, wanted: &Wanted<'_>) -> Option<String> {
    let port = wanted.port.to_string();
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(fields)
        .find(|f| {
            f.len() >= 5
                && (f[0] == "*" || wanted.hosts.iter().any(|h| *h == f[0]))
                && (f[1] == "*" || f[1] == port)
                && (f[2] == "*" || f[2] == wanted.database)
                && (f[3] == "*" || f[3] == wanted.user)
        })
        .map(|f| f[4..].join(":"))
}

/// The `:`-separated fields of a line, escapes undone.
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next()
                    && let Some(last) = out.last_mut()
                {
                    last.push(next);
                }
            }
            ':' => out.push(String::new()),
            c => {
                if let Some(last) = out.last_mut() {
                    last.push(c);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted<'a>(hosts: &'a [String], database: &'a str) -> Wanted<'a> {
        Wanted {
            hosts,
            port: 5433,
            database,
            user: "ann",
        }
    }

    #[test]
    fn the_first_matching_line_wins_with_wildcards_and_escapes() {
        let hosts = vec!["db.example".to_string()];
        let text = "# a comment\n\
                    other:5433:shop:ann:no\n\
                    db.example:5432:shop:ann:wrong-port\n\
                    db.example:5433:shop:ann:p\\:w\\\\d\n\
                    *:*:*:*:fallback\n";
        assert_eq!(
            find(text, &wanted(&hosts, "shop")).as_deref(),
            Some("p:w\\d")
        );
        assert_eq!(
            find(text, &wanted(&hosts, "crm")).as_deref(),
            Some("fallback")
        );
        assert_eq!(
            find("db.example:5433:shop:bob:x\n", &wanted(&hosts, "shop")),
            None
        );
    }

    #[test]
    fn a_file_others_may_read_is_not_used() {
        use std::os::unix::fs::PermissionsExt as _;
        let path = std::env::temp_dir().join(format!("squill-pgpass-{}", std::process::id()));
        std::fs::write(&path, "*:*:*:*:secret\n").unwrap();
        let hosts = vec!["h".to_string()];
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let why = lookup(&path, &wanted(&hosts, "shop")).unwrap_err();
        assert!(why.contains("chmod 0600"), "{why}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(
            lookup(&path, &wanted(&hosts, "shop")).as_deref(),
            Ok("secret")
        );
        std::fs::remove_file(&path).unwrap();
    }
}
