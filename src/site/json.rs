//! JSON for the site's data files, written straight into a string.
//!
//! `records.json`, every record's own JSON file and the search index hold every field of
//! every record, most of it prose, and serde_json's serializer looks up each byte of each
//! string in its escape table: at 10,000 generated Markdown records that was 9% of a
//! build's instructions (callgrind, one thread), more than any other function. Here a
//! string is scanned sixteen bytes at a time for the few bytes JSON escapes, and the runs
//! between them are copied whole. The output is serde_json's, byte for byte, compact and
//! pretty (two spaces, as `serde_json::to_string_pretty`): the tests below hold it to that.

use std::fmt::Write as _;

use super::kept::FieldValue;

/// A JSON text being written: values, and the arrays and objects that are open.
#[derive(Debug)]
pub struct Json {
    text: String,
    pretty: bool,
    /// For each array or object open, innermost last: whether it holds an element yet.
    open: Vec<bool>,
}

impl Json {
    /// A writer of JSON on one line, as `serde_json::to_string`.
    pub fn compact() -> Json {
        Json {
            text: String::new(),
            pretty: false,
            open: Vec::new(),
        }
    }

    /// A writer of indented JSON, as `serde_json::to_string_pretty`.
    pub fn pretty() -> Json {
        Json {
            pretty: true,
            ..Json::compact()
        }
    }

    /// Makes room for `bytes` more of text, so that a text of about that size is written
    /// without growing it again and again.
    pub fn reserve(&mut self, bytes: usize) {
        self.text.reserve(bytes);
    }

    /// The text written, leaving the writer empty, to be used again with its capacity.
    pub fn take(&mut self) -> String {
        self.open.clear();
        std::mem::take(&mut self.text)
    }

    /// The text written so far.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Empties the writer, keeping its capacity.
    pub fn clear(&mut self) {
        self.text.clear();
        self.open.clear();
    }

    /// Opens an object; its fields follow, each [`Json::key`] then its value.
    pub fn begin_object(&mut self) {
        self.text.push('{');
        self.open.push(false);
    }

    /// Closes the innermost object.
    pub fn end_object(&mut self) {
        self.close('}');
    }

    /// Opens an array; each element follows [`Json::item`].
    pub fn begin_array(&mut self) {
        self.text.push('[');
        self.open.push(false);
    }

    /// Closes the innermost array.
    pub fn end_array(&mut self) {
        self.close(']');
    }

    /// Starts the next field of the innermost object: its key, then the value to follow.
    pub fn key(&mut self, key: &str) {
        self.element();
        push_string(&mut self.text, key);
        self.text.push_str(if self.pretty { ": " } else { ":" });
    }

    /// Starts the next element of the innermost array.
    pub fn item(&mut self) {
        self.element();
    }

    /// A string value.
    pub fn string(&mut self, text: &str) {
        push_string(&mut self.text, text);
    }

    /// Fields of the innermost object whose values are strings, in order.
    pub fn strings(&mut self, fields: &[(&str, &str)]) {
        for (key, text) in fields {
            self.key(key);
            self.string(text);
        }
    }

    /// A string value, or `null`.
    pub fn optional(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.string(text),
            None => self.text.push_str("null"),
        }
    }

    /// A field's value, whatever its shape.
    pub fn value(&mut self, value: &FieldValue) {
        match value {
            FieldValue::Null => self.text.push_str("null"),
            FieldValue::Bool(yes) => self.text.push_str(if *yes { "true" } else { "false" }),
            // serde_json prints a number as it serialises one (itoa, or ryu for a float).
            FieldValue::Number(number) => {
                let _ = write!(self.text, "{number}");
            }
            FieldValue::String(text) => self.string(text),
            FieldValue::Array(items) => {
                self.begin_array();
                for item in items {
                    self.item();
                    self.value(item);
                }
                self.end_array();
            }
            FieldValue::Object(fields) => {
                self.begin_object();
                for (name, item) in fields {
                    self.key(name);
                    self.value(item);
                }
                self.end_object();
            }
        }
    }

    /// What goes before an element of the innermost array or object.
    fn element(&mut self) {
        let depth = self.open.len();
        if let Some(holds) = self.open.last_mut() {
            if *holds {
                self.text.push(',');
            }
            *holds = true;
            if self.pretty {
                self.text.push('\n');
                indent(&mut self.text, depth);
            }
        }
    }

    fn close(&mut self, bracket: char) {
        let held = self.open.pop().unwrap_or(false);
        if held && self.pretty {
            self.text.push('\n');
            indent(&mut self.text, self.open.len());
        }
        self.text.push(bracket);
    }
}

fn indent(text: &mut String, depth: usize) {
    for _ in 0..depth {
        text.push_str("  ");
    }
}

/// Whether JSON writes `byte` escaped: a control character, a quote or a backslash.
fn escaped(byte: u8) -> bool {
    (byte < 0x20) | (byte == b'"') | (byte == b'\\')
}

/// Writes `text` as a JSON string, escaped as serde_json escapes it: `\"`, `\\`, the short
/// forms `\b \t \n \f \r`, and `\u00xx` (lowercase) for the other control characters.
fn push_string(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let run = crate::scan::unmarked_run(bytes.get(at..).unwrap_or_default(), escaped);
        // Every escaped byte is ASCII, so a run ends on a character boundary.
        out.push_str(text.get(at..at + run).unwrap_or_default());
        at += run;
        let Some(&byte) = bytes.get(at) else { break };
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            _ => {
                let _ = write!(out, "\\u{byte:04x}");
            }
        }
        at += 1;
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn both(value: &Value) -> (String, String) {
        let kept = FieldValue::from(value.clone());
        let mut compact = Json::compact();
        compact.value(&kept);
        let mut pretty = Json::pretty();
        pretty.value(&kept);
        (compact.take(), pretty.take())
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let text = r#"{"id":"vllm","n":-1.5e3,"big":18446744073709551615,"neg":-7,"none":null,"yes":true,"no":false,"list":[1,"two",{"b":[],"a":{}}],"z":"\"quoted\" é \\ \n\r\t\u0008\u000c\u0001\u001f\u007f","empty":"","nested":[[[]],{"k":[{}]}]}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        let (compact, pretty) = both(&value);
        assert_eq!(compact, serde_json::to_string(&value).unwrap());
        assert_eq!(pretty, serde_json::to_string_pretty(&value).unwrap());
    }

    #[test]
    fn a_writer_is_used_again_from_empty() {
        let mut json = Json::pretty();
        json.begin_object();
        json.key("a");
        json.optional(None);
        json.end_object();
        assert_eq!(json.take(), "{\n  \"a\": null\n}");
        json.begin_array();
        json.item();
        json.optional(Some("x"));
        json.end_array();
        assert_eq!(json.as_str(), "[\n  \"x\"\n]");
        json.clear();
        assert_eq!(json.as_str(), "");
    }

    fn json_value() -> impl Strategy<Value = Value> {
        // Strings mixing plain runs longer than a chunk with every byte JSON escapes.
        let string = proptest::collection::vec(
            prop_oneof![
                Just("plain text over sixteen bytes ".to_string()),
                "[\\x00-\\x7f]{0,3}",
                Just("é—".to_string()),
                Just("\"\\".to_string()),
            ],
            0..6,
        )
        .prop_map(|parts| parts.concat());
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e12f64..1e12).prop_map(Value::from),
            string.clone().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec(("[a-z\"\\\\]{0,4}", inner), 0..5)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_is_written_as_serde_json_writes_it(value in json_value()) {
            let (compact, pretty) = both(&value);
            prop_assert_eq!(compact, serde_json::to_string(&value).unwrap());
            prop_assert_eq!(pretty, serde_json::to_string_pretty(&value).unwrap());
        }
    }
}
