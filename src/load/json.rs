//! JSON records: a fast path for every file, a position-aware pass for files with problems.
//!
//! The fast path is serde_json, with a value visitor of our own for one reason: serde_json's
//! `Value` keeps the last of two duplicate keys silently, and a linter must not. The visitor
//! keeps the first value (as the YAML loader does) and counts the duplicates; only then does
//! [`scan`] re-read the text to find where they are. serde_json's recursion limit (128) bounds
//! nesting, so deeply nested input is an error, not a stack overflow.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::DuplicateKey;
use crate::diagnostic::{push_pointer_index, push_pointer_segment};
use crate::source::Span;
use crate::sourcemap::{Node, SourceMap};

/// A parse failure, at a byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// serde_json's message, without its own "at line X column Y" suffix.
    pub message: String,
    /// Where in the text.
    pub offset: usize,
    /// Whether the nesting limit was hit rather than a syntax rule.
    pub too_deep: bool,
}

/// Parses `text`; returns the value and how many duplicate keys were dropped.
pub fn parse(text: &str) -> Result<(Value, usize), Error> {
    let mut duplicates = 0;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = StrictValue {
        duplicates: &mut duplicates,
    }
    .deserialize(&mut deserializer)
    .and_then(|value| deserializer.end().map(|()| value))
    .map_err(|err| {
        let offset =
            crate::source::offset_of_line(text, err.line(), err.column().saturating_sub(1));
        let message = err.to_string();
        let message = match message
            .rfind(" at line ")
            .and_then(|cut| message.get(..cut))
        {
            Some(cut) => cut.to_string(),
            None => message,
        };
        Error {
            too_deep: message.contains("recursion limit"),
            message,
            offset,
        }
    })?;
    Ok((value, duplicates))
}

/// Builds a `Value`, keeping the first of duplicate keys and counting the others.
struct StrictValue<'a> {
    duplicates: &'a mut usize,
}

impl<'de> DeserializeSeed<'de> for StrictValue<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(StrictValue {
            duplicates: &mut *self.duplicates,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            match map.entry(key) {
                serde_json::map::Entry::Occupied(_) => {
                    *self.duplicates += 1;
                    access.next_value::<IgnoredAny>()?;
                }
                serde_json::map::Entry::Vacant(slot) => {
                    slot.insert(access.next_value_seed(StrictValue {
                        duplicates: &mut *self.duplicates,
                    })?);
                }
            }
        }
        Ok(Value::Object(map))
    }
}

/// The span of the root value of a JSON text that [`parse`] accepted, found without
/// scanning the text: only whitespace may surround the root value, so it runs from the
/// first byte that is not whitespace to the last. [`scan`] maps the pointer `""` to the
/// same span.
pub fn root_span(text: &str) -> Span {
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    let start = text.len() - text.trim_start_matches(is_space).len();
    let end = text.trim_end_matches(is_space).len();
    start..end.max(start)
}

/// Maps every value of a JSON text that [`parse`] accepted to its position, and finds where
/// duplicate keys are.
pub fn scan(text: &str) -> (SourceMap, Vec<DuplicateKey>) {
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        pointer: String::new(),
        map: SourceMap::default(),
        duplicates: Vec::new(),
    };
    scanner.skip_ws();
    scanner.value(None, 0);
    (scanner.map, scanner.duplicates)
}

/// A minimal recursive-descent reader of valid JSON that records spans. It is only run on
/// text serde_json already parsed, so it does not validate; it stops quietly on anything
/// unexpected rather than panicking, and its depth is bounded like serde_json's.
struct Scanner<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    /// The pointer of the value being read: a segment is pushed on the way into a member or
    /// an element and cut off on the way out, so that no value builds a pointer of its own.
    pointer: String,
    map: SourceMap,
    duplicates: Vec<DuplicateKey>,
}

const MAX_DEPTH: usize = 128;

impl Scanner<'_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Reads one value starting at the current position and records it under the current
    /// pointer.
    fn value(&mut self, key: Option<Span>, depth: usize) {
        let start = self.pos;
        match self.peek() {
            Some(b'{') if depth < MAX_DEPTH => self.object(depth),
            Some(b'[') if depth < MAX_DEPTH => self.array(depth),
            Some(b'"') => self.string(),
            Some(_) => {
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.pos += 1;
                }
            }
            None => return,
        }
        self.map.insert(
            &self.pointer,
            Node {
                key,
                value: start..self.pos,
            },
        );
    }

    /// Skips a string; on text that ends inside one (a backslash last), stops at the end.
    fn string(&mut self) {
        self.pos += 1;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'\\' => self.pos = (self.pos + 1).min(self.bytes.len()),
                b'"' => return,
                _ => {}
            }
        }
    }

    /// Reads an object's members. A key met before in the same object is a duplicate: its
    /// member's pointer is mapped already, since a value is mapped as it ends, and keys
    /// that decode alike make the same pointer.
    fn object(&mut self, depth: usize) {
        self.pos += 1;
        let parent = self.pointer.len();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'"') => {}
                Some(b'}') => {
                    self.pos += 1;
                    return;
                }
                _ => return,
            }
            let key_start = self.pos;
            self.string();
            let key_span = key_start..self.pos;
            let Some(raw) = self.text.get(key_span.clone()) else {
                return;
            };
            // A key without a backslash is the text between its quotes; only one with an
            // escape needs decoding (decoding every key, and keeping the keys met in a
            // SipHash map, took a sixth of the instructions of mapping a file).
            let plain = raw
                .strip_prefix('"')
                .and_then(|rest| rest.strip_suffix('"'))
                .filter(|inner| !inner.contains('\\'));
            let key = match plain {
                Some(inner) => Cow::Borrowed(inner),
                None => Cow::Owned(
                    serde_json::from_str::<String>(raw)
                        .unwrap_or_else(|_| raw.trim_matches('"').to_string()),
                ),
            };
            self.skip_ws();
            if self.peek() != Some(b':') {
                return;
            }
            self.pos += 1;
            self.skip_ws();
            push_pointer_segment(&mut self.pointer, &key);
            match self
                .map
                .get(&self.pointer)
                .and_then(|first| first.key.clone())
            {
                Some(first) => {
                    self.duplicates.push(DuplicateKey {
                        key: key.into_owned(),
                        span: key_span,
                        first,
                    });
                    // Read into a throwaway map: the first occurrence is the value, and
                    // the repeated value's own objects find their duplicates there.
                    let mapped = std::mem::take(&mut self.map);
                    self.value(None, depth + 1);
                    self.map = mapped;
                }
                None => self.value(Some(key_span), depth + 1),
            }
            self.pointer.truncate(parent);
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
    }

    fn array(&mut self, depth: usize) {
        self.pos += 1;
        let parent = self.pointer.len();
        let mut index = 0;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b']') => {
                    self.pos += 1;
                    return;
                }
                None => return,
                Some(_) => {}
            }
            let before = self.pos;
            push_pointer_index(&mut self.pointer, index);
            self.value(None, depth + 1);
            self.pointer.truncate(parent);
            if self.pos == before {
                return;
            }
            index += 1;
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_first_of_duplicate_keys_and_counts_them() {
        let (value, duplicates) = parse(r#"{"a": 1, "a": 2, "b": {"c": 1, "c": 3}}"#).unwrap();
        assert_eq!(value, json!({"a": 1, "b": {"c": 1}}));
        assert_eq!(duplicates, 2);
    }

    #[test]
    fn syntax_error_has_an_offset() {
        let err = parse("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!(err.offset, 12);
        assert!(!err.message.contains(" at line "));
    }

    #[test]
    fn deep_nesting_is_an_error() {
        let text = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(parse(&text).unwrap_err().too_deep);
    }

    #[test]
    fn scan_survives_text_that_ends_inside_an_escape() {
        // Found by the `load_record` fuzz target.
        let text = "? [[{\"\\q\u{feff}[\t{\\q\u{feff}\\q },[[[\\";
        let _ = scan(text);
        let _ = scan("{\"a\\");
    }

    #[test]
    fn scan_maps_keys_values_and_duplicates() {
        let text = r#"{"a": [1, "x\"y"], "b\u0020c": null, "a": 3}"#;
        let (map, duplicates) = scan(text);
        assert_eq!(&text[map.get("/a/1").unwrap().value.clone()], r#""x\"y""#);
        assert_eq!(
            &text[map.get("/b c").unwrap().key.clone().unwrap()],
            r#""b\u0020c""#
        );
        assert_eq!(&text[map.get("").unwrap().value.clone()], text);
        assert_eq!(duplicates.len(), 1);
        assert_eq!(&text[duplicates[0].span.clone()], r#""a""#);
    }

    /// A key repeated in the same object is a duplicate however it is spelled, a key in
    /// another object is not, and a repeated value's own repeated keys are reported too,
    /// while the first occurrence keeps the pointer.
    #[test]
    fn scan_finds_duplicates_per_object() {
        let text = r#"{"a/b": {"x": 1}, "c": {"a/b": 2, "x": 3}, "a\u002fb": {"y": 4, "y": 5}}"#;
        let (map, duplicates) = scan(text);
        let spans: Vec<(&str, &str, &str)> = duplicates
            .iter()
            .map(|d| {
                (
                    d.key.as_str(),
                    &text[d.span.clone()],
                    &text[d.first.clone()],
                )
            })
            .collect();
        assert_eq!(
            spans,
            [
                ("a/b", r#""a\u002fb""#, r#""a/b""#),
                ("y", r#""y""#, r#""y""#)
            ]
        );
        assert_eq!(
            &text[map.get("/a~1b").unwrap().value.clone()],
            r#"{"x": 1}"#
        );
        assert_eq!(&text[map.get("/c/a~1b").unwrap().value.clone()], "2");
        assert_eq!(map.get("/a~1b/y"), None);
    }
}
