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

use serde_json::{Number, Value};

use crate::anchors::KnownIds;
use crate::graph::Named;
use crate::index::{FieldFragment, KeepsWritten, Written};
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

/// A record's fields and the references written in them (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Kept {
    /// Exactly as many as there are, as [`crate::check::Drawn`] keeps them.
    written: Box<[Written]>,
    /// The fragments of the links in its string fields, for `broken-anchor`.
    field_fragments: Box<[FieldFragment]>,
    /// The fields.
    pub fields: FieldValue,
    /// A Markdown record's body, the text its page renders (see [`Body`]).
    body: Option<Body>,
    /// The ids of its page, when a fragment of its own names a place in it, for the
    /// build's `broken-anchor` (see [`crate::check::own_page_ids`]).
    own_page_ids: Option<Box<KnownIds>>,
}

/// A Markdown record's body, kept out of its file's text, which the site lets go: the
/// front matter before it is in the fields already, and so is each `## Heading` section's
/// text, which the body names rather than holds again. Whole, the bodies held 144 MiB
/// more at 100,000 generated Markdown records, a build's memory that the host hands over
/// at several milliseconds of CPU a megabyte (see the module's documentation).
#[derive(Clone, Debug)]
struct Body {
    /// The body, in order: the text between sections (headings, blank lines, text under a
    /// heading that names no field), and the sections, by field name.
    pieces: Box<[Piece]>,
}

#[derive(Clone, Debug)]
enum Piece {
    Text(Box<str>),
    /// The text of the field of this name, a string.
    Field(&'static str),
}

impl Body {
    /// Splits `body` at the texts of its `sections` (field names, in the body's order),
    /// each found in `fields` as a string. A section whose field's text is not found as it
    /// is written (its line breaks made `\n`) stays in the text around it, so that the
    /// pieces always make the body again, byte for byte.
    fn new(body: &str, sections: &[String], fields: &FieldValue) -> Body {
        let mut pieces = Vec::with_capacity(sections.len() * 2 + 1);
        let mut at = 0;
        let FieldValue::Object(entries) = fields else {
            return Body {
                pieces: Box::new([Piece::Text(body.into())]),
            };
        };
        for name in sections {
            let Some((name, FieldValue::String(text))) = entries.iter().find(|(n, _)| n == name)
            else {
                continue;
            };
            let rest = body.get(at..).unwrap_or_default();
            if let Some(found) = rest.find(&**text).filter(|_| !text.is_empty()) {
                pieces.push(Piece::Text(rest.get(..found).unwrap_or_default().into()));
                pieces.push(Piece::Field(name));
                at += found + text.len();
            }
        }
        pieces.push(Piece::Text(body.get(at..).unwrap_or_default().into()));
        Body {
            pieces: pieces.into(),
        }
    }

    /// The body, made again from its pieces and the fields.
    fn text(&self, fields: &FieldValue) -> String {
        let parts = || self.pieces.iter().map(|piece| piece.text(fields));
        let mut text = String::with_capacity(parts().map(str::len).sum());
        parts().for_each(|part| text.push_str(part));
        text
    }
}

impl Piece {
    fn text<'a>(&'a self, fields: &'a FieldValue) -> &'a str {
        match self {
            Piece::Text(text) => text,
            Piece::Field(name) => fields.get(name).and_then(FieldValue::as_str).unwrap_or(""),
        }
    }
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
        let written = crate::index::written_in_read(&record, index, file, schemas);
        let own_page_ids = crate::check::own_page_ids(&record, &written.fragments, file, schemas);
        let fields: FieldValue = std::mem::take(&mut record.value).into();
        let body = record.prose.as_ref().and_then(|prose| {
            let body = file.text.as_deref()?.get(prose.body.clone())?;
            Some(Body::new(body, &prose.sections, &fields))
        });
        record.keeping(Kept {
            written: written.references.into(),
            field_fragments: written.fragments.into(),
            fields,
            body,
            own_page_ids,
        })
    }
}

impl Kept {
    /// A Markdown record's body, as written after its front matter.
    pub fn body(&self) -> Option<String> {
        self.body.as_ref().map(|body| body.text(&self.fields))
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

    fn field_fragments(&self) -> &[FieldFragment] {
        &self.field_fragments
    }

    fn own_page_ids(&self) -> Option<&KnownIds> {
        self.own_page_ids.as_deref()
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
    fn fields_keep_the_values_they_were_made_from() {
        let text =
            r#"{"id":"vllm","none":null,"list":[1,"two",{"b":[],"a":{}}],"z":"\"quoted\" é"}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        let kept = FieldValue::from(value);
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

    fn fields(pairs: &[(&str, &str)]) -> FieldValue {
        let map = pairs
            .iter()
            .map(|(name, text)| (name.to_string(), Value::from(*text)))
            .collect();
        FieldValue::from(Value::Object(map))
    }

    fn held(body: &Body) -> usize {
        body.pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.len(),
                Piece::Field(_) => 0,
            })
            .sum()
    }

    #[test]
    fn a_body_holds_no_section_twice_and_is_made_again_whole() {
        let body = "Intro.\n\n## Symptom\n\nIt drops pages.\n\n## Other\n\nKept.\n\n## Notes\n\nSee [[engines/vllm]].\n";
        let fields = fields(&[
            ("id", "x"),
            ("symptom", "It drops pages."),
            ("notes", "See [[engines/vllm]]."),
        ]);
        let sections = ["symptom".to_string(), "notes".to_string()];
        let kept = Body::new(body, &sections, &fields);
        assert_eq!(kept.text(&fields), body);
        assert_eq!(
            held(&kept),
            body.len() - "It drops pages.".len() - "See [[engines/vllm]].".len()
        );
    }

    /// A body, its fields' names and texts, and the fields its sections set.
    type Case = (
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static [&'static str],
    );

    #[test]
    fn a_body_is_made_again_whole_whatever_its_sections_hold() {
        let cases: [Case; 5] = [
            // The section's text is in its own heading too: whichever place is taken,
            // the pieces make the body.
            ("## Notes\n\nNotes\n", &[("notes", "Notes")], &["notes"]),
            // Line breaks the field holds as `\n`: not found, kept as text.
            (
                "## Notes\r\n\r\na\r\nb\r\n",
                &[("notes", "a\nb")],
                &["notes"],
            ),
            ("## Notes\n\n", &[("notes", "")], &["notes"]),
            // A section whose field is no string, or missing.
            ("## Notes\n\n1\n", &[], &["notes"]),
            ("", &[("notes", "x")], &["notes"]),
        ];
        for (body, pairs, sections) in cases {
            let fields = fields(pairs);
            let sections: Vec<String> = sections.iter().map(|s| s.to_string()).collect();
            assert_eq!(Body::new(body, &sections, &fields).text(&fields), body);
        }
        let not_an_object = FieldValue::Null;
        let body = Body::new("text", &["notes".to_string()], &not_an_object);
        assert_eq!(body.text(&not_an_object), "text");
    }
}
