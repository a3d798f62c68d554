//! Reference fields: which fields of a collection hold ids of other records, and of which
//! collections.
//!
//! They are declared in the schema with `"x-ref"` on a string schema (one collection name or
//! a list), found by walking each collection's schema once through `properties`, `items`,
//! `prefixItems`, `$ref`, `allOf`, `anyOf` and `oneOf`; or, for schemas that cannot be
//! changed, in the config's `[references]` table. Either way a reference is a path of object
//! keys from the record's top, and arrays met on the way are looked through, so
//! `flops.source_id` reads `/flops/0/source_id`, `/flops/1/source_id` ... and `affects`
//! reads every item of the `affects` array.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diagnostic::{push_pointer_index, push_pointer_segment};

/// A field of a collection that holds references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// Object keys from the record's top to the field.
    pub path: Vec<String>,
    /// The collections (by index) the field may point at: interned ([`crate::intern`]), as
    /// is its name, so that the hundreds of thousands of references a large corpus writes
    /// neither allocate them nor share a count.
    pub targets: &'static [usize],
    /// `path` joined with dots.
    field: &'static str,
}

impl Reference {
    /// The field at `path` of a record, pointing at the collections `targets`.
    pub fn new(path: Vec<String>, targets: Vec<usize>) -> Reference {
        Reference {
            field: crate::intern::field(&path.join(".")),
            path,
            targets: crate::intern::collections(&targets),
        }
    }

    /// The field's name in messages and graph edges: its path joined with dots.
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// Every string value of the field in a record, with its JSON pointer, interned
    /// ([`crate::intern::pointer`]). Nulls and other non-strings are not references (the
    /// schema checks their type).
    pub fn values<'v>(&self, record: &'v Value) -> Vec<(&'static str, &'v str)> {
        let mut found = Vec::new();
        collect(record, &self.path, &mut String::new(), &mut found);
        found
    }
}

fn collect<'v>(
    value: &'v Value,
    path: &[String],
    pointer: &mut String,
    found: &mut Vec<(&'static str, &'v str)>,
) {
    let depth = pointer.len();
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                push_pointer_index(pointer, index);
                collect(item, path, pointer, found);
                pointer.truncate(depth);
            }
        }
        Value::Object(map) => {
            if let Some((first, rest)) = path.split_first()
                && let Some(child) = map.get(first)
            {
                push_pointer_segment(pointer, first);
                collect(child, rest, pointer, found);
                pointer.truncate(depth);
            }
        }
        Value::String(text) if path.is_empty() => {
            found.push((crate::intern::pointer(pointer), text))
        }
        _ => {}
    }
}

/// A reference found in a schema: the path and the target collection names.
pub type Declared = (Vec<String>, Vec<String>);

/// Walks a collection schema for `x-ref` declarations. `documents` are the schema folder's
/// files, for `$ref`s into other files; `file` is the schema's own path.
pub fn from_schema(
    schema: &Value,
    file: &Path,
    documents: &BTreeMap<PathBuf, Value>,
) -> Vec<Declared> {
    let mut walker = Walker {
        documents,
        found: Vec::new(),
        visiting: HashSet::new(),
    };
    walker.walk(schema, schema, file, &mut Vec::new());
    walker.found.sort();
    walker.found.dedup();
    walker.found
}

struct Walker<'d> {
    documents: &'d BTreeMap<PathBuf, Value>,
    found: Vec<Declared>,
    /// `$ref`s being expanded on the current path, so recursive schemas terminate.
    visiting: HashSet<(PathBuf, String)>,
}

impl Walker<'_> {
    fn walk(&mut self, schema: &Value, document: &Value, file: &Path, path: &mut Vec<String>) {
        let Value::Object(map) = schema else {
            return;
        };
        match map.get("x-ref") {
            Some(Value::String(target)) => self.found.push((path.clone(), vec![target.clone()])),
            Some(Value::Array(targets)) => self.found.push((
                path.clone(),
                targets
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
            )),
            _ => {}
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            self.follow(reference, document, file, path);
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (name, property) in properties {
                path.push(name.clone());
                self.walk(property, document, file, path);
                path.pop();
            }
        }
        for keyword in ["items", "additionalItems"] {
            match map.get(keyword) {
                Some(Value::Array(items)) => {
                    for item in items {
                        self.walk(item, document, file, path);
                    }
                }
                Some(item) => self.walk(item, document, file, path),
                None => {}
            }
        }
        for keyword in ["prefixItems", "allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(parts)) = map.get(keyword) {
                for part in parts {
                    self.walk(part, document, file, path);
                }
            }
        }
    }

    /// Follows a local `$ref`: `#/pointer` in the same document, or `file.json#/pointer` in
    /// another file of the schema folder. Anything else cannot hold local `x-ref`s.
    fn follow(&mut self, reference: &str, document: &Value, file: &Path, path: &mut Vec<String>) {
        let (target_file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let (target_path, target_document) = if target_file.is_empty() {
            (file.to_path_buf(), document)
        } else {
            let Some(dir) = file.parent() else { return };
            let candidate = dir.join(target_file);
            match self.documents.get(&candidate) {
                Some(found) => (candidate, found),
                None => return,
            }
        };
        let key = (target_path.clone(), fragment.to_string());
        if !self.visiting.insert(key.clone()) {
            return;
        }
        if let Some(target) = target_document.pointer(fragment) {
            self.walk(target, target_document, &target_path, path);
        }
        self.visiting.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_x_ref_through_items_refs_and_combinators() {
        let schema = json!({
            "$defs": {"src": {"type": "string", "x-ref": "source"}},
            "properties": {
                "affects": {"type": "array", "items": {"type": "string", "x-ref": ["engine", "accelerator"]}},
                "sources": {"type": "array", "items": {"$ref": "#/$defs/src"}},
                "flops": {"items": {"allOf": [{"properties": {"source_id": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/src"}]}}}]}},
                "tree": {"$ref": "#"}
            }
        });
        let found = from_schema(&schema, Path::new("/s/x.schema.json"), &BTreeMap::new());
        assert_eq!(
            found,
            vec![
                (
                    vec!["affects".to_string()],
                    vec!["engine".to_string(), "accelerator".to_string()]
                ),
                (
                    vec!["flops".to_string(), "source_id".to_string()],
                    vec!["source".to_string()]
                ),
                (vec!["sources".to_string()], vec!["source".to_string()]),
                (
                    vec!["tree".to_string(), "affects".to_string()],
                    vec!["engine".to_string(), "accelerator".to_string()]
                ),
                (
                    vec![
                        "tree".to_string(),
                        "flops".to_string(),
                        "source_id".to_string()
                    ],
                    vec!["source".to_string()]
                ),
                (
                    vec!["tree".to_string(), "sources".to_string()],
                    vec!["source".to_string()]
                ),
            ]
        );
    }

    #[test]
    fn values_look_through_arrays_and_skip_nulls() {
        let reference = Reference::new(vec!["flops".into(), "source_id".into()], vec![0]);
        let record =
            json!({"flops": [{"source_id": "a"}, {"source_id": null}, {"source_id": "b"}]});
        assert_eq!(
            reference.values(&record),
            vec![("/flops/0/source_id", "a"), ("/flops/2/source_id", "b")]
        );
    }
}
