//! What the graph commands keep of a record: its references, its name and its enum values.
//!
//! `gotchas graph`, `refs` and `stats` need of a record the references written in it (the
//! edges), its name (the node's label) and, for `stats`, the values of its collection's enum
//! fields. A corpus loaded for them draws those as each record is loaded and lets the rest
//! of its fields and its file's text go, as a corpus loaded for `check` does: a record's
//! fields take about two and a half times its file's size in memory, and at 100,000 records
//! keeping them all made these commands hold 1.2 GB where the corpus is 240 MB on disk.

use std::sync::Arc;

use crate::graph::Named;
use crate::index::{FieldFragment, KeepsWritten, Written};
use crate::load::Record;
use crate::schema::Schemas;
use crate::source::SourceFile;

/// The references, name and enum values of a record (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Linked {
    written: Vec<Written>,
    /// The fragments of the links in its string fields, which the graph commands check
    /// nothing of, kept as every record's drawn form keeps them.
    field_fragments: Vec<FieldFragment>,
    name: Option<String>,
    /// `(field, value)` for each of the collection's enum fields the record gives a string,
    /// in the schema's order. The field's name is shared by every record of the collection.
    values: Vec<(Arc<str>, String)>,
}

impl Linked {
    /// Draws from `record`, the record at `index` of its corpus read from `file`, what the
    /// graph commands need, and lets its fields go. `enum_fields` are its collection's enum
    /// fields ([`crate::schema::enum_fields`]), worked out once per collection by the caller.
    pub fn draw(
        record: Record,
        index: usize,
        file: &SourceFile,
        schemas: &Schemas,
        enum_fields: &[Arc<str>],
    ) -> Record<Linked> {
        let values = enum_fields
            .iter()
            .filter_map(|field| {
                let value = record.value.get(&**field)?.as_str()?;
                Some((Arc::clone(field), value.to_string()))
            })
            .collect();
        let written = crate::index::written_in_read(&record, index, file, schemas);
        let linked = Linked {
            written: written.references,
            field_fragments: written.fragments,
            name: record.value.name().map(str::to_string),
            values,
        };
        record.keeping(linked)
    }

    /// The record's enum fields that hold a string, with their values, in the schema's order.
    pub fn enum_values(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values
            .iter()
            .map(|(field, value)| (&**field, value.as_str()))
    }
}

impl KeepsWritten for Linked {
    fn written(&self) -> &[Written] {
        &self.written
    }

    fn field_fragments(&self) -> &[FieldFragment] {
        &self.field_fragments
    }

    fn written_mut(&mut self) -> &mut [Written] {
        &mut self.written
    }
}

impl Named for Linked {
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}
