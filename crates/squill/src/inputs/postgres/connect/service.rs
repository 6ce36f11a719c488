//! libpq's connection service files (`pg_service.conf`): `[name]`
//! sections of `key=value` lines, `#` comments. The user's file
//! (`PGSERVICEFILE`, else `~/.pg_service.conf`) is searched first, then the
//! system's (`PGSYSCONFDIR/pg_service.conf`); the first file that defines
//! the service gives all of it, as in libpq.

use std::path::{Path, PathBuf};

/// A service's settings, each with where it was read (`file:line`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Service {
    pub settings: Vec<Setting>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Setting {
    pub key: String,
    pub value: String,
    /// `file:line`, for messages about it.
    pub at: String,
}

/// The service `name` from the first of `files` that defines it. A file
/// that does not exist is passed over; one that cannot be parsed is an
/// error with its `file:line`.
pub(super) fn find(name: &str, files: &[PathBuf]) -> Result<Service, String> {
    for file in files {
        let Ok(bytes) = std::fs::read(file) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        if let Some(service) = parse(file, &text, name)? {
            return Ok(service);
        }
    }
    Err(format!(
        "the service `{name}` (service= or PGSERVICE) is defined in none of {}",
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The section `name` of one file's text, if it has one.
fn parse(file: &Path, text: &str, name: &str) -> Result<Option<Service>, String> {
    let mut current: Option<&str> = None;
    let mut found: Option<Service> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at = format!("{}:{}", file.display(), i + 1);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(section) = line.strip_prefix('[') {
            let Some(section) = section.strip_suffix(']') else {
                return Err(format!("{at}: a section line must end with `]`"));
            };
            // A service named twice: libpq takes the first section.
            if found.is_some() {
                break;
            }
            current = Some(section);
            if section == name {
                found = Some(Service {
                    settings: Vec::new(),
                });
            }
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(format!(
                "{at}: expected `key=value`, `[service]` or `# comment`"
            ));
        };
        if current.is_none() {
            return Err(format!(
                "{at}: `{}` comes before any `[service]`",
                key.trim()
            ));
        }
        if let Some(service) = &mut found {
            service.settings.push(Setting {
                key: key.trim().to_string(),
                value: value.trim().to_string(),
                at,
            });
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_section_is_read_with_where_each_setting_is() {
        let text = "# services\n[other]\nhost=x\n\n[shop]\nhost = db.example\n port=5433\ndbname=shop\n[shop]\nhost=ignored\n";
        let s = parse(Path::new("svc.conf"), text, "shop").unwrap().unwrap();
        let got: Vec<_> = s
            .settings
            .iter()
            .map(|s| (s.key.as_str(), s.value.as_str(), s.at.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("host", "db.example", "svc.conf:6"),
                ("port", "5433", "svc.conf:7"),
                ("dbname", "shop", "svc.conf:8"),
            ]
        );
        assert_eq!(parse(Path::new("svc.conf"), text, "none").unwrap(), None);
    }

    #[test]
    fn a_broken_file_says_where() {
        assert_eq!(
            parse(Path::new("svc.conf"), "[a]\nhost\n", "a").unwrap_err(),
            "svc.conf:2: expected `key=value`, `[service]` or `# comment`"
        );
        assert_eq!(
            parse(Path::new("svc.conf"), "host=x\n", "a").unwrap_err(),
            "svc.conf:1: `host` comes before any `[service]`"
        );
    }
}
