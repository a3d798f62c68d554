//! Reference fields: which fields of a collection hold ids of other records, and of which
//! collections.
//!
//! They are declared in the schema with `"x-ref"` on a string schema (one collection name or
//! a list), found by walking each collection's schema once through `properties`, `items`,
//! `prefixItems`, `allOf`, `anyOf`, `oneOf` and `$ref` (also `$dynamicRef`), which is
//! followed wherever the validator would follow it in the schema folder
//! ([`crate::schema::Documents`]); one that cannot be is an error, never a field left
//! unchecked in silence. Or, for schemas that cannot be changed, they are declared in the
//! config's `[references]` table. Either way a reference is a path of object
//! keys from the record's top, and arrays met on the way are looked through, so
//! `flops.source_id` reads `/flops/0/source_id`, `/flops/1/source_id` ... and `affects`
//! reads every item of the `affects` array.

use std::collections::HashSet;

use serde_json::Value;

use crate::diagnostic::{Diagnostic, join_pointer, push_pointer_index, push_pointer_segment};
use crate::schema::{Documents, Node, REF_KEYWORDS};

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

/// A reference field found in a schema.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Declared {
    /// The field's path below the record.
    pub path: Vec<String>,
    /// The collections it may point at, by name.
    pub targets: Vec<String>,
    /// Where its `x-ref` is: a file of the schema folder, and the pointer to the `x-ref`
    /// in it, for a problem with the names (a `$ref` may have led to another file).
    pub at: (usize, String),
}

/// Walks a collection's schema, the file `file` of `documents`, for `x-ref` declarations,
/// following `$ref`s wherever they lead in the schema folder. A `$ref` it cannot follow is
/// a problem (`invalid-schema`, at the `$ref`), returned beside what was found: the fields
/// under it would otherwise go unchecked in silence.
pub fn from_schema(documents: &Documents, file: usize) -> (Vec<Declared>, Vec<Diagnostic>) {
    let mut walker = Walker {
        documents,
        found: Vec::new(),
        problems: Vec::new(),
        visiting: HashSet::new(),
    };
    if let Some(root) = documents.root(file) {
        walker.walk(&root, &mut Vec::new());
    }
    // The same field may be reached along two ways (a `$ref` and an `allOf`): once.
    walker.found.sort();
    walker
        .found
        .dedup_by(|a, b| a.path == b.path && a.targets == b.targets);
    (walker.found, walker.problems)
}

/// What a JSON value is, for a message saying it is not what was expected.
fn what(value: &Value) -> String {
    match value {
        Value::Array(items) if items.is_empty() => "an empty list".to_string(),
        Value::Array(items) => match items.iter().find(|item| !item.is_string()) {
            Some(item) => format!("a list holding `{item}`"),
            None => "a list".to_string(),
        },
        Value::Object(_) => "an object".to_string(),
        other => format!("`{other}`"),
    }
}

struct Walker<'d> {
    documents: &'d Documents,
    found: Vec<Declared>,
    problems: Vec<Diagnostic>,
    /// The schemas `$ref`s lead to that are being walked on the current path (by file and
    /// pointer), so recursive schemas terminate.
    visiting: HashSet<(usize, String)>,
}

impl Walker<'_> {
    fn walk(&mut self, node: &Node<'_>, path: &mut Vec<String>) {
        let Value::Object(map) = node.value else {
            return;
        };
        let at = || (node.file, join_pointer(&node.pointer, "x-ref"));
        match map.get("x-ref") {
            None => {}
            Some(Value::String(target)) => self.found.push(Declared {
                path: path.clone(),
                targets: vec![target.clone()],
                at: at(),
            }),
            Some(Value::Array(targets))
                if !targets.is_empty() && targets.iter().all(Value::is_string) =>
            {
                self.found.push(Declared {
                    path: path.clone(),
                    targets: targets
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                    at: at(),
                });
            }
            // Anything else would leave the field unchecked in silence.
            Some(other) => self.problems.push(
                self.documents
                    .invalid_schema(
                        node.file,
                        &at().1,
                        format!(
                            "`x-ref` names the collections a field may point at, as a name or \
                             a list of names, not {}",
                            what(other)
                        ),
                    )
                    .with_label("expected a collection name or a list of them"),
            ),
        }
        for keyword in REF_KEYWORDS {
            let Some(Value::String(reference)) = map.get(*keyword) else {
                continue;
            };
            match self.documents.resolve(node, reference) {
                Ok(target) => {
                    let key = (target.file, target.pointer.clone());
                    if self.visiting.insert(key.clone()) {
                        self.walk(&target, path);
                        self.visiting.remove(&key);
                    }
                }
                Err(why) => self.problems.push(
                    self.documents
                        .invalid_schema(
                            node.file,
                            &join_pointer(&node.pointer, keyword),
                            format!(
                                "the `{keyword}` `{reference}` cannot be followed to find the \
                                 reference fields (`x-ref`) under it: {why}"
                            ),
                        )
                        .with_label("gotchas cannot follow this reference"),
                ),
            }
        }
        if let Some(properties) = node.child("properties")
            && let Value::Object(names) = properties.value
        {
            for name in names.keys() {
                if let Some(property) = properties.child(name) {
                    path.push(name.clone());
                    self.walk(&property, path);
                    path.pop();
                }
            }
        }
        for keyword in [
            "items",
            "additionalItems",
            "prefixItems",
            "allOf",
            "anyOf",
            "oneOf",
        ] {
            for part in node.children(keyword) {
                self.walk(&part, path);
            }
        }
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
        let (found, problems) = from_schema(&Documents::of(vec![("/s/x.schema.json", schema)]), 0);
        assert_eq!(problems, vec![]);
        let found: Vec<(Vec<String>, Vec<String>)> = found
            .into_iter()
            .map(|declared| (declared.path, declared.targets))
            .collect();
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
    fn a_ref_that_cannot_be_followed_is_said_where_it_is() {
        let schema = json!({"properties": {"affects": {"items": {"$ref": "other.json#/$defs/e"}}}});
        let documents = Documents::of(vec![("/s/x.schema.json", schema)]);
        let (found, problems) = from_schema(&documents, 0);
        assert!(found.is_empty());
        let [problem] = problems.as_slice() else {
            panic!("one problem: {problems:?}");
        };
        assert_eq!(problem.code, crate::rules::INVALID_SCHEMA);
        assert_eq!(problem.file, "/s/x.schema.json");
        assert_eq!(
            problem.message,
            "the `$ref` `other.json#/$defs/e` cannot be followed to find the reference fields \
             (`x-ref`) under it: `file:///s/other.json` is not a schema file of the schema folder"
        );
        // At the `$ref`'s value in the text.
        let text = documents.text(0);
        let crate::diagnostic::Anchor::Span(span) = &problem.anchor else {
            panic!("placed: {:?}", problem.anchor);
        };
        assert_eq!(&text[span.clone()], "\"other.json#/$defs/e\"");
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
