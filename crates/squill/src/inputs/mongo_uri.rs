//! MongoDB connection strings as squill shows them: never with the
//! password (`mongodb://user:secret@host` is named `mongodb://host`), and
//! any text a driver returns scrubbed of it, in either spelling.

/// The database a URI names: `mongodb://host:1/shop?x=y` → `shop`.
pub fn database_of(uri: &str) -> Option<String> {
    let rest = uri.split_once("://")?.1;
    let rest = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
    let path = rest.split_once('/')?.1;
    let db = path.split('?').next().unwrap_or("");
    (!db.is_empty()).then(|| db.to_string())
}

/// The password of `mongodb://user:password@host/…`, if any.
pub fn password_of(uri: &str) -> Option<String> {
    let rest = uri.split_once("://")?.1;
    let userinfo = rest.split('@').next().filter(|_| rest.contains('@'))?;
    userinfo
        .split_once(':')
        .map(|(_, p)| p.to_string())
        .filter(|p| !p.is_empty())
}

/// `mongodb://host:port/…` without `user:password@`.
pub fn without_credentials(uri: &str) -> String {
    match uri.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((_, host)) => format!("{scheme}://{host}"),
            None => uri.to_string(),
        },
        None => "(a MongoDB URI)".to_string(),
    }
}

/// `text` with the URI's password (as written and percent-decoded)
/// replaced by `***`.
pub fn redact(text: &str, uri: &str) -> String {
    let Some(p) = password_of(uri) else {
        return text.to_string();
    };
    let decoded = percent_decode(&p);
    text.replace(&p, "***").replace(&decoded, "***")
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = s.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(h, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn credentials_are_kept_out_of_names() {
        assert_eq!(
            super::without_credentials("mongodb://u:s3cret@h:27017/?tls=true"),
            "mongodb://h:27017/?tls=true"
        );
        assert_eq!(
            super::password_of("mongodb://u:s3cret@h:27017"),
            Some("s3cret".into())
        );
        assert_eq!(super::password_of("mongodb://h:27017"), None);
        assert_eq!(
            super::database_of("mongodb://u:p@h:1/shop?tls=true"),
            Some("shop".into())
        );
        assert_eq!(
            super::database_of("mongodb://h:1/?directConnection=true"),
            None
        );
        assert_eq!(
            super::redact(
                "auth failed for s3cr@t and s3cr%40t",
                "mongodb://u:s3cr%40t@h"
            ),
            "auth failed for *** and ***"
        );
    }
}
