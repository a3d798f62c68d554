//! Writing records: the same data as JSON, YAML or Markdown, so that reading it back gives
//! equal values.
//!
//! JSON is serde_json's pretty form. YAML is block style with a string left plain only when
//! YAML 1.2, and the YAML 1.1 other tools read, would read it back as the same string (not
//! `null`, `true`, `no`, `0.8`, `1_000`, nothing with `: ` or ` #`); every other string is double-quoted with JSON escapes, which YAML reads the
//! same way. Markdown puts each long text field the schema declares into a `## Heading`
//! section and everything else into front matter, and checks each section by parsing it back,
//! so a value a section cannot hold exactly (a line that would read as a heading, leading
//! spaces) stays in the front matter.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::load::markdown;

/// Pretty JSON with a final newline: every JSON file and output the tool makes whole (a
/// record, the baseline, a site's record file, `--format json` of the small commands);
/// [`crate::write::json_document`] streams the large ones in the same form.
pub fn to_json(value: &impl serde::Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Block-style YAML with a final newline.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => mapping(&mut out, map, 0),
        Value::Array(items) if !items.is_empty() => sequence(&mut out, items, 0),
        other => {
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
    out
}

fn mapping(out: &mut String, map: &Map<String, Value>, indent: usize) {
    for (key, value) in map {
        out.push_str(&" ".repeat(indent));
        out.push_str(&scalar_string(key));
        out.push(':');
        member(out, value, indent);
    }
}

/// Writes what follows `key:` or `-`: an inline value, or a nested block on the next lines.
fn member(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            mapping(out, map, indent + 2);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            sequence(out, items, indent + 2);
        }
        other => {
            out.push(' ');
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
}

fn sequence(out: &mut String, items: &[Value], indent: usize) {
    for item in items {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match item {
            Value::Object(map) if !map.is_empty() => {
                // The first key goes on the dash's line; the rest align under it.
                let mut nested = String::new();
                mapping(&mut nested, map, indent + 2);
                out.push(' ');
                out.push_str(nested.trim_start_matches(' '));
            }
            other => member(out, other, indent),
        }
    }
}

fn inline(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar_string(s),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// A string as a YAML scalar: plain when that reads back as the same string, else quoted.
fn scalar_string(text: &str) -> String {
    if plain_is_safe(text) {
        text.to_string()
    } else {
        double_quoted(text)
    }
}

/// A string in YAML's double quotes: JSON's escapes, which YAML reads alike, and an escape
/// for each character JSON may hold as it is but YAML may not (DEL, the C1 controls, the
/// non-characters U+FFFE and U+FFFF, and a byte-order mark, which YAML allows only at the
/// start of a stream), or that YAML 1.1 reads as a line break (U+0085, U+2028, U+2029):
/// other YAML readers (libyaml's, PyYAML's) refuse a file holding the first kind, and fold
/// the second into a space.
pub(crate) fn double_quoted(text: &str) -> String {
    format!("\"{}\"", double_quoted_content(text))
}

/// What [`double_quoted`] writes between the quotes: also what a fix writes into a JSON
/// string or a double-quoted YAML scalar, which read these escapes alike.
pub(crate) fn double_quoted_content(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    let quoted = quoted
        .strip_prefix('"')
        .and_then(|inner| inner.strip_suffix('"'))
        .unwrap_or_default();
    let printable = |c: char| {
        !matches!(
            c,
            '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
    };
    if quoted.chars().all(printable) {
        return quoted.to_string();
    }
    quoted
        .chars()
        .map(|c| {
            if printable(c) {
                c.to_string()
            } else {
                format!("\\u{:04x}", u32::from(c))
            }
        })
        .collect()
}

/// Whether `text`, written as a plain YAML scalar in a block or a flow collection, reads
/// back as itself: its first character is a letter, a digit or `/`, the others letters,
/// digits or ` -_./()+@` (no indicator, comment or flow syntax), and it is not read as
/// null, a boolean or a number, by YAML 1.2 or by the YAML 1.1 most other tools still
/// read (PyYAML takes a plain `no` for false, `1_000` for a thousand, `0b101` for five).
pub(crate) fn plain_is_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let reads_as_other = matches!(
        text,
        "null" | "Null" | "NULL" | "~" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
    ) || matches!(
        text,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    ) || text.parse::<f64>().is_ok()
        || (text.contains('_') && text.replace('_', "").parse::<f64>().is_ok())
        || text.starts_with("0x")
        || text.starts_with("0o")
        || text.starts_with("0b")
        || text.starts_with('.');
    !reads_as_other
        && (first.is_alphanumeric() || first == '/')
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || " -_./()+@".contains(c))
        && !text.ends_with(' ')
        && !text.contains("  ")
}

/// Markdown with front matter: the schema's text fields (`text_fields`) whose value is long or
/// spans lines become `## Heading` sections, in their order; the rest is front matter.
///
/// Each section is checked on its own, then the whole document is read back: one section's
/// text can change how the next is read (an HTML block or code fence left open swallows the
/// next heading), so a section that does not come back exactly moves to the front matter
/// and the document is tried again.
pub fn to_markdown(value: &Value, text_fields: &HashSet<String>) -> String {
    let Value::Object(map) = value else {
        return to_yaml(value);
    };
    let mut as_section: Vec<&str> = map
        .iter()
        .filter_map(|(key, field)| {
            let text = field.as_str()?;
            (text_fields.contains(key)
                && is_long(text)
                && section_round_trips(key, text, text_fields))
            .then_some(key.as_str())
        })
        .collect();
    loop {
        let document = render_markdown(map, &as_section);
        let Ok(front) = markdown::split_front_matter(&document) else {
            return document;
        };
        let found = markdown::sections(&document, &front.body, text_fields);
        let mismatch = as_section.iter().enumerate().position(|(i, key)| {
            found.get(i).is_none_or(|section| {
                section.field != *key
                    || document.get(section.content.clone())
                        != map.get(*key).and_then(Value::as_str)
            })
        });
        match mismatch {
            None if found.len() == as_section.len() => return document,
            Some(i) => {
                as_section.remove(i);
            }
            None => as_section.clear(),
        }
    }
}

fn render_markdown(map: &Map<String, Value>, as_section: &[&str]) -> String {
    let front: Map<String, Value> = map
        .iter()
        .filter(|(key, _)| !as_section.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let mut out = String::from("---\n");
    if !front.is_empty() {
        mapping(&mut out, &front, 0);
    }
    out.push_str("---\n");
    for key in as_section {
        let text = map.get(*key).and_then(Value::as_str).unwrap_or_default();
        out.push_str(&format!("\n## {}\n\n{text}\n", heading(key)));
    }
    out
}

/// Markdown for a new record: every empty text field becomes a section to write in, unless
/// its heading would read back as another field (`rootCause` is headed `RootCause`, which
/// reads as `rootcause`): such a field stays in the front matter, as [`to_markdown`] keeps it.
pub fn to_markdown_skeleton(value: &Value, text_fields: &HashSet<String>) -> String {
    let Value::Object(map) = value else {
        return to_yaml(value);
    };
    let (sections, front): (Map<String, Value>, Map<String, Value>) =
        map.clone().into_iter().partition(|(key, field)| {
            text_fields.contains(key)
                && field.as_str() == Some("")
                && section_round_trips(key, "", text_fields)
        });
    let mut out = String::from("---\n");
    if !front.is_empty() {
        mapping(&mut out, &front, 0);
    }
    out.push_str("---\n");
    for key in sections.keys() {
        out.push_str(&format!("\n## {}\n\n", heading(key)));
    }
    out
}

/// Long enough to read better as prose than as a front-matter line.
fn is_long(text: &str) -> bool {
    text.contains('\n') || text.chars().count() > 80
}

/// `root_cause` -> `Root cause`.
pub fn heading(field: &str) -> String {
    let words = field.replace('_', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Whether `text` holds a character a section may not hold as it is, where the front
/// matter's escapes can: a control character other than a tab or a line feed (C0, DEL, C1),
/// or a line or paragraph separator (U+2028, U+2029). Written raw into Markdown, a NUL makes
/// git take the file for binary, an ESC drives the terminal that shows it, and YAML 1.1
/// readers and some editors break lines at U+0085, U+2028 and U+2029; and a section's line
/// breaks are read as `\n` whatever the file's are, so a `\r` would be lost.
fn holds_what_prose_may_not(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && !matches!(c, '\t' | '\n')) || matches!(c, '\u{2028}' | '\u{2029}')
    })
}

/// Whether a section for this field would be read back as exactly this field and value.
fn section_round_trips(field: &str, text: &str, text_fields: &HashSet<String>) -> bool {
    if text.trim() != text
        || holds_what_prose_may_not(text)
        || markdown::field_name(&heading(field)) != field
    {
        return false;
    }
    let document = format!("---\n---\n\n## {}\n\n{text}\n", heading(field));
    let Ok(front) = markdown::split_front_matter(&document) else {
        return false;
    };
    let found = markdown::sections(&document, &front.body, text_fields);
    matches!(found.as_slice(), [section] if section.field == field && document.get(section.content.clone()) == Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reparse_yaml(text: &str) -> Value {
        crate::load::yaml::parse(text, 0, crate::load::yaml::Limits::default(), false)
            .unwrap()
            .value
            .unwrap()
    }

    #[test]
    fn yaml_escapes_what_yaml_may_not_hold_as_it_is() {
        let value =
            serde_json::json!({"odd": "a\u{7f}b\u{85}c\u{9f}\u{2028}\u{feff}\u{ffff}\u{1}"});
        let text = to_yaml(&value);
        assert_eq!(
            text,
            "odd: \"a\\u007fb\\u0085c\\u009f\\u2028\\ufeff\\uffff\\u0001\"\n"
        );
        assert_eq!(reparse_yaml(&text), value);
    }

    #[test]
    fn yaml_reads_back_equal() {
        let value = json!({
            "id": "kv-cache", "n": 3, "f": 0.8, "t": true, "z": null,
            "date": "2026-10-03", "tricky": ["null", "1.5", "yes", "a: b", "# not a comment", "", " lead", "é ü", "line\nbreak"],
            "empty": [], "nested": {"a": [{"x": 1, "y": [1, 2]}, {"q": {}}], "b": {"c": "d"}},
            "key: with colon": "v"
        });
        let text = to_yaml(&value);
        assert_eq!(reparse_yaml(&text), value, "{text}");
    }

    #[test]
    fn a_text_with_a_control_character_or_a_separator_stays_in_the_front_matter() {
        let fields: HashSet<String> = ["notes".to_string()].into();
        for odd in [
            "\0",
            "\u{1b}[31m",
            "\u{7}",
            "\u{7f}",
            "\u{85}",
            "\u{9f}",
            "\u{2028}",
            "\u{2029}",
            "\r",
        ] {
            let notes = format!("line one\nline two {odd} and on");
            let text = to_markdown(&json!({"notes": notes}), &fields);
            assert!(!text.contains("## Notes"), "{text:?}");
            assert!(!text.contains(odd), "{text:?}");
            assert_eq!(
                reparse_yaml(text.trim_matches(['-', '\n'])),
                json!({"notes": notes})
            );
        }
        let tabbed = "line one\n\tline two".to_string();
        assert!(to_markdown(&json!({"notes": tabbed}), &fields).contains("## Notes"));
    }

    #[test]
    fn markdown_sections_hold_long_text_and_read_back_equal() {
        let fields: HashSet<String> = ["symptom", "notes"].map(String::from).into();
        let long = "A long symptom that goes on and on and on so that it is clearly prose, not a label at all.";
        let tricky = "First line\n---\nwould be a setext heading";
        let value = json!({"id": "x", "symptom": long, "notes": tricky});
        let text = to_markdown(&value, &fields);
        assert!(text.contains("## Symptom\n\nA long"));
        assert!(
            !text.contains("## Notes"),
            "a value a section cannot hold stays in front matter"
        );
        let front = markdown::split_front_matter(&text).unwrap();
        let mut back = reparse_yaml(&text[front.yaml.clone()]);
        for section in markdown::sections(&text, &front.body, &fields) {
            back[section.field.as_str()] = Value::String(text[section.content].to_string());
        }
        assert_eq!(back["symptom"], value["symptom"]);
        assert_eq!(back["notes"], value["notes"]);
    }
}
