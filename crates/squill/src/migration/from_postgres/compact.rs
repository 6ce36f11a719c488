//! The JSON text PostgreSQL builds, made what the validators and the JSON
//! lines want: object members whose value is `null` dropped (an absent
//! optional field, as `json_strip_nulls` would, at a fraction of its cost
//! on the server), and the whitespace `json_agg` puts between elements
//! (a newline among them) removed, so that a document is one line. Nulls
//! inside arrays are kept. The input is PostgreSQL's own valid JSON.

/// Writes `input` compacted, without null members, to `out`.
pub fn strip_nulls(input: &[u8], out: &mut Vec<u8>) {
    // Per open container: whether it is an object, and whether a member
    // (or element) was written, which decides the comma before the next.
    let mut stack: Vec<(bool, bool)> = Vec::with_capacity(16);
    let mut i = 0;
    let n = input.len();
    // Where the member being written started, to take it back when its
    // value turns out to be null.
    let mut member_start: Option<usize> = None;
    while i < n {
        let c = input[i];
        match c {
            b' ' | b'\n' | b'\r' | b'\t' | b',' => {
                i += 1;
            }
            b'{' | b'[' => {
                comma(&mut stack, out, &mut member_start);
                out.push(c);
                stack.push((c == b'{', false));
                i += 1;
            }
            b'}' | b']' => {
                out.push(c);
                stack.pop();
                i += 1;
            }
            b'"' => {
                let end = string_end(input, i);
                let in_object = stack.last().is_some_and(|s| s.0);
                // A key: the string is followed by `:`.
                let mut j = end;
                while j < n && matches!(input[j], b' ' | b'\n' | b'\r' | b'\t') {
                    j += 1;
                }
                if in_object && j < n && input[j] == b':' {
                    let start = out.len();
                    let had = stack.last().is_some_and(|s| s.1);
                    if had {
                        out.push(b',');
                    }
                    out.extend_from_slice(&input[i..end]);
                    out.push(b':');
                    i = j + 1;
                    while i < n && matches!(input[i], b' ' | b'\n' | b'\r' | b'\t') {
                        i += 1;
                    }
                    if input[i..].starts_with(b"null") {
                        out.truncate(start);
                        i += 4;
                        continue;
                    }
                    if let Some(top) = stack.last_mut() {
                        top.1 = true;
                    }
                    // The value follows; it writes no comma of its own.
                    member_start = Some(start);
                    continue;
                }
                comma(&mut stack, out, &mut member_start);
                out.extend_from_slice(&input[i..end]);
                i = end;
            }
            _ => {
                // A number, true, false or null (in an array, or the whole text).
                let start = i;
                while i < n
                    && !matches!(input[i], b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                {
                    i += 1;
                }
                comma(&mut stack, out, &mut member_start);
                out.extend_from_slice(&input[start..i]);
            }
        }
    }
}

/// Before a value: the comma that separates it from the previous element
/// of an array (a member's value needs none: its key took care of it).
fn comma(stack: &mut [(bool, bool)], out: &mut Vec<u8>, member_start: &mut Option<usize>) {
    if member_start.take().is_some() {
        return;
    }
    if let Some(top) = stack.last_mut()
        && !top.0
    {
        if top.1 {
            out.push(b',');
        }
        top.1 = true;
    }
}

/// The index just past the string that starts at `i` (a `"`).
fn string_end(s: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < s.len() {
        match memchr::memchr2(b'"', b'\\', &s[j..]) {
            Some(k) if s[j + k] == b'\\' => j += k + 2,
            Some(k) => return j + k + 1,
            None => return s.len(),
        }
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::strip_nulls;

    fn run(s: &str) -> String {
        let mut out = Vec::new();
        strip_nulls(s.as_bytes(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn null_members_go_and_the_rest_stays_in_order() {
        assert_eq!(run(r#"{"a":1,"b":null,"c":"x"}"#), r#"{"a":1,"c":"x"}"#);
        assert_eq!(run(r#"{"a":null,"b":2}"#), r#"{"b":2}"#);
        assert_eq!(run(r#"{"a":null}"#), r#"{}"#);
        assert_eq!(
            run(r#"{"a":{"b":null,"c":[1, null, {"d":null}]}}"#),
            r#"{"a":{"c":[1,null,{}]}}"#
        );
    }

    #[test]
    fn json_agg_whitespace_is_removed_and_strings_are_kept_as_they_are() {
        assert_eq!(
            run("{\"xs\":[{\"a\":1}, \n {\"a\":2}], \"s\":\"a, \\\"b\\\": null\\n\"}"),
            "{\"xs\":[{\"a\":1},{\"a\":2}],\"s\":\"a, \\\"b\\\": null\\n\"}"
        );
        assert_eq!(
            run(r#"{"d":{"$date":{"$numberLong":"1"}},"n":-1.5e3,"t":true}"#),
            r#"{"d":{"$date":{"$numberLong":"1"}},"n":-1.5e3,"t":true}"#
        );
        assert_eq!(run("[]"), "[]");
        assert_eq!(run(r#"{"a":[]}"#), r#"{"a":[]}"#);
    }
}
