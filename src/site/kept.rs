//! What the site keeps of a record: its fields, in a smaller form than `serde_json`'s, and the
//! references written in them.
//!
//! The site shows every field of every record, so a corpus loaded for it keeps them all,
//! where `check` and the graph commands let them go (see `check::Drawn`, `graph::Linked`).
//! As `serde_json::Value`s (with `preserve_order`, 72 bytes a value and 104 an object
//! entry) a corpus of 100,000 generated records held 682 MB for 243 MB of JSON, most of a
//! build's peak memory; on the development machine memory is handed over by the host the
//! first time it is touched, at several milliseconds of CPU a megabyte. A [`FieldValue`] is
//! 24 bytes, an object entry 40, and strings are moved over without a copy, so the same
//! corpus holds 430 MB, and the build's peak fell from 906 to 700 MiB.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Number, Value};

use crate::graph::Named;
use crate::index::{KeepsWritten, Written};
use crate::load::Record;
use crate::schema::Schemas;
use crate::source::SourceFile;

/// A JSON value as the site keeps it: the same shapes as `serde_json::Value`, in boxed
/// slices, with an object's fields in the order they were written.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as parsed.
    Number(Number),
    /// A string.
    String(Box<str>),
    /// An array.
    Array(Box<[FieldValue]>),
    /// An object: its fields, in order, each name interned ([`crate::intern::field`]): a
    /// corpus writes the same few dozen names in every record, and a name of its own for
    /// each was a million and a half small allocations kept at 100,000 generated records.
    Object(Box<[(&'static str, FieldValue)]>),
}

impl FieldValue {
    /// The field `key` of an object, if this is one and has it.
    pub fn get(&self, key: &str) -> Option<&FieldValue> {
        match self {
            FieldValue::Object(fields) => fields
                .iter()
                .find(|(name, _)| *name == key)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            FieldValue::String(text) => Some(text),
            _ => None,
        }
    }
}

impl From<Value> for FieldValue {
    fn from(value: Value) -> FieldValue {
        match value {
            Value::Null => FieldValue::Null,
            Value::Bool(yes) => FieldValue::Bool(yes),
            Value::Number(number) => FieldValue::Number(number),
            Value::String(text) => FieldValue::String(text.into_boxed_str()),
            Value::Array(items) => FieldValue::Array(items.into_iter().map(Into::into).collect()),
            Value::Object(fields) => FieldValue::Object(
                fields
                    .into_iter()
                    .map(|(name, value)| (crate::intern::field(&name), value.into()))
                    .collect(),
            ),
        }
    }
}

/// Serialised as the `serde_json::Value` it was made from is.
impl Serialize for FieldValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            FieldValue::Null => serializer.serialize_unit(),
            FieldValue::Bool(yes) => serializer.serialize_bool(*yes),
            FieldValue::Number(number) => number.serialize(serializer),
            FieldValue::String(text) => serializer.serialize_str(text),
            FieldValue::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            FieldValue::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (name, value) in fields {
                    map.serialize_entry(name, value)?;
                }
                map.end()
            }
        }
    }
}

/// A record's fields and the references written in them (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Kept {
    /// Exactly as many as there are, as [`crate::check::Drawn`] keeps them.
    written: Box<[Written]>,
    /// The fields.
    pub fields: FieldValue,
    /// A Markdown record's body, the text its page renders: copied out of its file's text,
    /// which the site lets go. The front matter before it is in `fields` already; keeping
    /// the whole text held 95 MiB more at 100,000 generated Markdown records.
    pub body: Option<Box<str>>,
}

impl Kept {
    /// Draws from `record`, the record at `index` of its corpus read from `file`, what the
    /// site keeps.
    pub fn draw(
        mut record: Record,
        index: usize,
        file: &SourceFile,
        schemas: &Schemas,
    ) -> Record<Kept> {
        let written = crate::index::written_in_read(&record, index, file, schemas).into();
        let fields = std::mem::take(&mut record.value).into();
        let body = record
            .prose
            .as_ref()
            .and_then(|prose| file.text.as_deref()?.get(prose.body.clone()))
            .map(Box::from);
        record.keeping(Kept {
            written,
            fields,
            body,
        })
    }
}

impl KeepsWritten for Kept {
    /// The references written in the record's fields, with where each is: the ones of its
    /// reference fields first, in the schema's order.
    fn written(&self) -> &[Written] {
        &self.written
    }

    fn written_mut(&mut self) -> &mut [Written] {
        &mut self.written
    }
}

impl Named for Kept {
    fn name(&self) -> Option<&str> {
        self.fields.get("name").and_then(FieldValue::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_serialise_as_the_json_they_were_made_from() {
        let text = r#"{"id":"vllm","n":-1.5e3,"big":18446744073709551615,"none":null,"yes":true,"list":[1,"two",{"b":[],"a":{}}],"z":"\"quoted\" é"}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        let kept = FieldValue::from(value);
        assert_eq!(
            serde_json::to_string(&kept).unwrap(),
            text.replace("-1.5e3", "-1500.0")
        );
        assert_eq!(serde_json::to_string_pretty(&kept).unwrap(), pretty);
        assert_eq!(
            kept.get("z").and_then(FieldValue::as_str),
            Some("\"quoted\" é")
        );
        assert_eq!(kept.get("missing"), None);
        assert_eq!(
            kept.get("list").and_then(|l| l.get("b")),
            None,
            "an array has no fields"
        );
    }
}
