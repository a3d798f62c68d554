//! Collections and their JSON Schemas: found, read, compiled once, shared by every thread.
//!
//! A collection is a record type (`gotcha`) with a schema (`schema/gotcha.schema.json`) and a
//! folder of records (`records/gotchas/`). Schemas are compiled with the `jsonschema` crate
//! built without network support; a `$ref` to another schema file is served from the schema
//! folder by `LocalSchemas`, so `$ref` between local files works and nothing is fetched.
//! A schema problem is fatal (exit code 2): every verdict would depend on it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jsonschema::{Retrieve, Uri, Validator};
use regex::Regex;
use serde_json::Value;

use crate::config::{Config, DEFAULT_ID_PATTERN};
use crate::diagnostic::{Anchor, Diagnostic};
use crate::references::{self, Reference};
use crate::rules;
use crate::source::display_path;

/// The suffix that marks a collection schema file.
pub const SCHEMA_SUFFIX: &str = ".schema.json";

/// One record type.
#[derive(Debug)]
pub struct Collection {
    /// The type name (`gotcha`), which `type` fields name.
    pub name: String,
    /// The folder under the records root (`gotchas`).
    pub folder: String,
    /// The schema file, as displayed.
    pub schema_display: String,
    /// The schema document.
    pub schema: Arc<Value>,
    /// The compiled schema.
    pub validator: Validator,
    /// The pattern ids must match.
    pub id_pattern: Regex,
    /// Top-level properties that are strings: what a Markdown `## Section` may hold.
    pub text_fields: HashSet<String>,
    /// Every top-level property the schema declares, for did-you-mean on unknown fields.
    pub properties: Vec<String>,
    /// The fields that hold references to other records.
    pub references: Vec<Reference>,
}

/// Every collection of the corpus, in name order.
#[derive(Debug, Default)]
pub struct Schemas {
    /// The collections.
    pub collections: Vec<Collection>,
    /// The index of every collection: what a wiki-link may point at.
    every_collection: &'static [usize],
    /// A hash of every schema document read, with its path: what the check cache
    /// ([`crate::cache`]) is valid for.
    documents_hash: u64,
}

impl Schemas {
    /// Every collection's index, shared: what a link may name.
    pub fn every_collection(&self) -> &'static [usize] {
        self.every_collection
    }

    /// A hash of every schema document these were compiled from, the same in every run.
    pub fn documents_hash(&self) -> u64 {
        self.documents_hash
    }

    /// Each collection's [`enum_fields`], by collection index, each name shared: worked out
    /// once for a load that draws them from every record (`graph`, `stats`, `index`).
    pub fn enum_fields_by_collection(&self) -> Vec<Vec<Arc<str>>> {
        self.collections
            .iter()
            .map(|collection| {
                enum_fields(&collection.schema)
                    .into_iter()
                    .map(Arc::from)
                    .collect()
            })
            .collect()
    }

    /// The qualified id of a record of these collections: `engines/vllm`.
    // Collection indices come from these schemas.
    #[allow(clippy::indexing_slicing)]
    pub fn qualified_id<F>(&self, record: &crate::load::Record<F>) -> String {
        format!(
            "{}/{}",
            self.collections[record.collection].folder, record.id
        )
    }

    /// The collection whose records live in `folder`.
    pub fn by_folder(&self, folder: &str) -> Option<usize> {
        self.collections.iter().position(|c| c.folder == folder)
    }

    /// Finds, reads and compiles every collection's schema. All problems are returned together.
    pub fn load(root: &Path, config: &Config) -> Result<Schemas, Vec<Diagnostic>> {
        let dir = root.join(&config.schemas);
        let mut errors = Vec::new();
        let (documents, unread, documents_hash) = read_schema_dir(root, &dir, &mut errors);
        let mut sources: BTreeMap<String, (PathBuf, Option<String>)> = BTreeMap::new();
        for path in documents.keys() {
            if let Some(name) = collection_name(path) {
                sources.insert(name.to_string(), (path.clone(), None));
            }
        }
        for (name, collection) in &config.collections {
            match &collection.schema {
                Some(file) => {
                    sources.insert(name.clone(), (dir.join(file), collection.folder.clone()));
                }
                None => {
                    if let Some(entry) = sources.get_mut(name) {
                        entry.1.clone_from(&collection.folder);
                    } else {
                        errors.push(Diagnostic::new(
                            rules::INVALID_CONFIG,
                            config_display(root, config),
                            format!(
                                "the collection `{name}` has no schema: expected {}",
                                display_path(root, &dir.join(format!("{name}{SCHEMA_SUFFIX}")))
                            ),
                        ));
                    }
                }
            }
        }
        if sources.is_empty() && errors.is_empty() {
            errors.push(
                Diagnostic::new(
                    rules::INVALID_CONFIG,
                    display_path(root, &dir),
                    format!("no collection schemas (`*{SCHEMA_SUFFIX}`) found"),
                )
                .with_help("point `schemas` in gotchas.toml at the schema folder, or use --root"),
            );
        }
        let retriever = LocalSchemas::new(&documents);
        let mut collections: Vec<Collection> = Vec::new();
        let mut declared: Vec<Vec<references::Declared>> = Vec::new();
        let named: Vec<String> = sources
            .keys()
            .map(String::as_str)
            .chain(unread.iter().filter_map(|path| collection_name(path)))
            .map(str::to_string)
            .collect();
        for (name, (path, folder)) in sources {
            let display = display_path(root, &path);
            let Some(schema) = documents.get(&path) else {
                if !errors.iter().any(|e| e.file == display) {
                    errors.push(Diagnostic::new(
                        rules::INVALID_SCHEMA,
                        &display,
                        "the schema file does not exist",
                    ));
                }
                continue;
            };
            let settings = config.collections.get(&name);
            let folder = folder
                .or_else(|| {
                    schema
                        .get("x-collection")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .unwrap_or_else(|| format!("{name}s"));
            let validator = match jsonschema::options()
                .with_base_uri(file_uri(&path))
                .with_retriever(retriever.clone())
                .should_validate_formats(true)
                .build(schema)
            {
                Ok(validator) => validator,
                Err(err) => {
                    errors.push(schema_error(&display, &path, &err));
                    continue;
                }
            };
            let pattern = settings
                .and_then(|s| s.id_pattern.as_deref())
                .unwrap_or(DEFAULT_ID_PATTERN);
            let id_pattern = match Regex::new(pattern) {
                Ok(regex) => regex,
                Err(err) => {
                    errors.push(Diagnostic::new(
                        rules::INVALID_CONFIG,
                        config_display(root, config),
                        format!(
                            "the id pattern of `{name}` is not a valid regular expression: {err}"
                        ),
                    ));
                    continue;
                }
            };
            if let Some(other) = collections.iter().find(|c| c.folder == folder) {
                errors.push(Diagnostic::new(
                    rules::INVALID_CONFIG,
                    &display,
                    format!(
                        "the collections `{}` and `{name}` both use the folder `{folder}`",
                        other.name
                    ),
                ));
                continue;
            }
            let (text_fields, properties) = describe(schema);
            declared.push(references::from_schema(schema, &path, &documents));
            collections.push(Collection {
                name,
                folder,
                schema_display: display,
                schema: Arc::new(schema.clone()),
                validator,
                id_pattern,
                text_fields,
                properties,
                references: Vec::new(),
            });
        }
        resolve_references(
            root,
            config,
            &mut collections,
            declared,
            &named,
            &mut errors,
        );
        check_graph_names(root, config, &collections, &named, &mut errors);
        if errors.is_empty() {
            Ok(Schemas {
                every_collection: crate::intern::collections(
                    &(0..collections.len()).collect::<Vec<_>>(),
                ),
                collections,
                documents_hash,
            })
        } else {
            Err(errors)
        }
    }
}

/// Gives each collection its reference fields: the schema's `x-ref`s and the config's
/// `[references]`, with target names checked against the known collections. A name among
/// `named`, the collections there are schemas for, that is not among `collections` is one
/// whose schema could not be used: that was reported, and a reference to it is not, since
/// it would send the reader after a name that is right.
fn resolve_references(
    root: &Path,
    config: &Config,
    collections: &mut [Collection],
    declared: Vec<Vec<references::Declared>>,
    named: &[String],
    errors: &mut Vec<Diagnostic>,
) {
    let names: Vec<String> = collections.iter().map(|c| c.name.clone()).collect();
    let index_of = |name: &str| names.iter().position(|n| n == name);
    let broken = |name: &str| named.iter().any(|n| n == name);
    let unknown = |name: &str| -> String {
        let suggestions = crate::suggest::suggest(name, names.iter().map(String::as_str), 3);
        let mut message = format!("`{name}` is not a collection");
        if let Some(help) = crate::suggest::did_you_mean(&suggestions) {
            message.push_str("; ");
            message.push_str(&help);
        }
        message
    };
    let mut fields: Vec<BTreeMap<Vec<String>, Vec<usize>>> =
        vec![BTreeMap::new(); collections.len()];
    for ((found, collection), fields) in declared.into_iter().zip(&*collections).zip(&mut fields) {
        for (path, targets) in found {
            for target in targets {
                match index_of(&target) {
                    Some(t) => push_target(fields, &path, t),
                    None if broken(&target) => {}
                    None => errors.push(Diagnostic::new(
                        rules::INVALID_SCHEMA,
                        &collection.schema_display,
                        format!(
                            "the `x-ref` of `{}` names an unknown collection: {}",
                            path.join("."),
                            unknown(&target)
                        ),
                    )),
                }
            }
        }
    }
    let display = config_display(root, config);
    for reference in &config.references {
        let owners: Vec<usize> = if reference.collection == "*" {
            (0..collections.len()).collect()
        } else {
            match index_of(&reference.collection) {
                Some(owner) => vec![owner],
                None if broken(&reference.collection) => continue,
                None => {
                    errors.push(
                        Diagnostic::new(
                            rules::INVALID_CONFIG,
                            &display,
                            unknown(&reference.collection),
                        )
                        .at_span(reference.span.clone()),
                    );
                    continue;
                }
            }
        };
        for target in &reference.targets {
            match index_of(target) {
                Some(t) => {
                    for &owner in &owners {
                        if let Some(fields) = fields.get_mut(owner) {
                            push_target(fields, &reference.path, t);
                        }
                    }
                }
                None if broken(target) => {}
                None => errors.push(
                    Diagnostic::new(rules::INVALID_CONFIG, &display, unknown(target))
                        .at_span(reference.span.clone()),
                ),
            }
        }
    }
    for (collection, found) in collections.iter_mut().zip(fields) {
        collection.references = found
            .into_iter()
            .map(|(path, targets)| Reference::new(path, targets))
            .collect();
    }
}

/// Checks the names `[graph]` lists: collections, by type or folder, and reference fields
/// (or `link`). A name that is neither would turn its rule off for nothing in silence. A
/// collection among `named` whose schema could not be used was reported already.
fn check_graph_names(
    root: &Path,
    config: &Config,
    collections: &[Collection],
    named: &[String],
    errors: &mut Vec<Diagnostic>,
) {
    let mut kinds: Vec<&str> = collections
        .iter()
        .flat_map(|c| [c.name.as_str(), c.folder.as_str()])
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut fields: Vec<&str> = collections
        .iter()
        .flat_map(|c| c.references.iter().map(|r| r.field()))
        .chain([crate::graph::LINK_FIELD])
        .collect();
    fields.sort_unstable();
    fields.dedup();
    let graph = &config.graph;
    let listed = (graph.leaf_collections.iter().chain(&graph.must_be_cited))
        .map(|entry| (entry, "collection", &kinds))
        .chain(
            graph
                .acyclic_fields
                .iter()
                .map(|entry| (entry, "reference field", &fields)),
        );
    let display = config_display(root, config);
    for ((name, span), what, known) in listed {
        if known.contains(&name.as_str()) || (what == "collection" && named.contains(name)) {
            continue;
        }
        let diagnostic = Diagnostic::new(
            rules::INVALID_CONFIG,
            &display,
            format!("`{name}` in [graph] names no {what}"),
        )
        .at_span(span.clone())
        .with_label(format!("no {what} has this name"));
        errors.push(crate::suggest::unknown_name(
            diagnostic,
            name,
            &format!("{what}s"),
            known,
        ));
    }
}

fn push_target(fields: &mut BTreeMap<Vec<String>, Vec<usize>>, path: &[String], target: usize) {
    let targets = fields.entry(path.to_vec()).or_default();
    if !targets.contains(&target) {
        targets.push(target);
    }
}

fn config_display(root: &Path, config: &Config) -> String {
    config.file.as_deref().map_or_else(
        || crate::config::FILE_NAME.to_string(),
        |f| crate::config::display(root, f),
    )
}

/// Reads every `.json` file of the schema folder (collection schemas and the shared files
/// they `$ref`), reporting unreadable or invalid JSON. Returns them by path, with a hash of
/// their paths and texts for [`Schemas::documents_hash`]: of the bytes as read, so that no
/// command pays for writing the parsed documents out again to hash them.
/// The collection a schema file describes, by its name: `engine` for `engine.schema.json`.
fn collection_name(path: &Path) -> Option<&str> {
    path.file_name()?.to_str()?.strip_suffix(SCHEMA_SUFFIX)
}

/// Reads every JSON file of the schema folder: the documents read, by path, the paths that
/// could not be read or parsed (each with its diagnostic in `errors`), and a hash of what
/// was read, for the check cache.
fn read_schema_dir(
    root: &Path,
    dir: &Path,
    errors: &mut Vec<Diagnostic>,
) -> (BTreeMap<PathBuf, Value>, Vec<PathBuf>, u64) {
    let mut documents = BTreeMap::new();
    let mut unread = Vec::new();
    let mut described: Vec<u8> = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) => {
            errors.push(
                Diagnostic::new(
                    rules::INVALID_CONFIG,
                    display_path(root, dir),
                    format!("cannot read the schema folder: {err}"),
                )
                .with_help("point `schemas` in gotchas.toml at the schema folder, or use --root"),
            );
            return (documents, unread, 0);
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let display = display_path(root, &path);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) => {
                errors.push(Diagnostic::new(
                    rules::INVALID_SCHEMA,
                    &display,
                    format!("cannot read the schema: {err}"),
                ));
                unread.push(path);
                continue;
            }
        };
        match crate::load::json::parse(&text) {
            Ok((value, _)) => {
                described.extend_from_slice(path.as_os_str().as_encoded_bytes());
                described.push(0);
                described
                    .extend_from_slice(&crate::cache::stable_hash(text.as_bytes()).to_le_bytes());
                documents.insert(path, value);
            }
            Err(err) => {
                errors.push(
                    Diagnostic::new(
                        rules::INVALID_SCHEMA,
                        &display,
                        format!("the schema is not valid JSON: {}", err.message),
                    )
                    .at_span(err.offset..err.offset),
                );
                unread.push(path);
            }
        }
    }
    (documents, unread, crate::cache::stable_hash(&described))
}

/// A schema that does not compile: point at the offending keyword in the schema file.
fn schema_error(display: &str, path: &Path, err: &jsonschema::ValidationError<'_>) -> Diagnostic {
    let pointer = err.instance_path().as_str().to_string();
    let diagnostic = Diagnostic::new(
        rules::INVALID_SCHEMA,
        display,
        format!("the schema is not a valid JSON Schema: {err}"),
    );
    let located = std::fs::read_to_string(path).ok().and_then(|text| {
        crate::load::json::scan(&text)
            .0
            .locate(&Anchor::Value(pointer))
    });
    match located {
        Some(span) => diagnostic.at_span(span),
        None => diagnostic,
    }
}

/// The string fields and all property names declared at the top of a schema, following
/// `allOf` so that composed schemas are described too.
fn describe(schema: &Value) -> (HashSet<String>, Vec<String>) {
    let mut text_fields = HashSet::new();
    let mut properties = Vec::new();
    let mut pending = vec![schema];
    while let Some(schema) = pending.pop() {
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in props {
                if !properties.contains(name) {
                    properties.push(name.clone());
                }
                let is_text = match property.get("type") {
                    Some(Value::String(t)) => t == "string",
                    Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
                    _ => false,
                };
                if is_text && property.get("enum").is_none() && property.get("const").is_none() {
                    text_fields.insert(name.clone());
                }
            }
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            pending.extend(parts.iter());
        }
    }
    (text_fields, properties)
}

/// Top-level properties whose schema is a string `enum` (severity, status, class ...): the
/// fields worth counting, filtering and showing as badges.
pub fn enum_fields(schema: &Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .filter(|(_, p)| {
                    p.get("enum")
                        .and_then(Value::as_array)
                        .is_some_and(|values| values.iter().any(Value::is_string))
                })
                .map(|(name, _)| name.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The `file://` URI of a path, percent-encoded, used as a schema's base URI so that relative
/// `$id`s and `$ref`s resolve against the schema folder.
pub fn file_uri(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file://");
    for component in absolute.components() {
        if let std::path::Component::Normal(part) = component {
            uri.push('/');
            uri.push_str(&crate::source::uri_segment(&part.to_string_lossy()));
        }
    }
    uri
}

/// Serves `$ref`s to schema files of the schema folder from memory; refuses everything else,
/// so no schema is ever fetched from the network.
#[derive(Clone)]
struct LocalSchemas {
    by_uri: Arc<HashMap<String, Value>>,
}

impl LocalSchemas {
    fn new(documents: &BTreeMap<PathBuf, Value>) -> Self {
        let by_uri = documents
            .iter()
            .map(|(path, value)| (file_uri(path), value.clone()))
            .collect();
        LocalSchemas {
            by_uri: Arc::new(by_uri),
        }
    }
}

impl Retrieve for LocalSchemas {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let wanted = uri.as_str();
        let without_fragment = wanted.split('#').next().unwrap_or(wanted);
        self.by_uri
            .get(without_fragment)
            .cloned()
            .ok_or_else(|| format!("`{wanted}` is not a schema file of the schema folder, and schemas are never fetched from the network").into())
    }
}

/// The string values the schema allows at a field path (`enum` and `const`), looking
/// through arrays, `allOf`/`anyOf`/`oneOf` and local `$ref`s: what the language server
/// completes and `query list --where` accepts.
pub fn enum_values(schema: &Value, path: &[String]) -> Vec<String> {
    let mut nodes = expand(schema, schema, 0);
    for key in path {
        nodes = nodes
            .iter()
            .filter_map(|node| node.get("properties").and_then(|p| p.get(key)))
            .flat_map(|node| expand(schema, node, 0))
            .collect();
    }
    let mut values: Vec<String> = Vec::new();
    for node in nodes {
        let found = node
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .chain(node.get("const"))
            .filter_map(Value::as_str);
        for value in found {
            if !values.iter().any(|v| v == value) {
                values.push(value.to_string());
            }
        }
    }
    values
}

/// A schema node with the parts a value at it must or may also match.
fn expand<'s>(root: &'s Value, node: &'s Value, depth: usize) -> Vec<&'s Value> {
    let mut out = vec![node];
    if depth > 16 {
        return out;
    }
    for keyword in ["allOf", "anyOf", "oneOf"] {
        for part in node
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.extend(expand(root, part, depth + 1));
        }
    }
    if let Some(items) = node.get("items") {
        out.extend(expand(root, items, depth + 1));
    }
    if let Some(target) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
    {
        out.extend(expand(root, target, depth + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enum_values_look_through_items_and_combinators() {
        let schema = json!({
            "$defs": {"level": {"enum": ["low", "high", null]}},
            "properties": {
                "severity": {"enum": ["blocker", "major"]},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "a"}, {"$ref": "#/$defs/level"}]}}
            }
        });
        assert_eq!(
            enum_values(&schema, &["severity".into()]),
            vec!["blocker", "major"]
        );
        assert_eq!(
            enum_values(&schema, &["tags".into()]),
            vec!["a", "low", "high"]
        );
        assert!(enum_values(&schema, &["name".into()]).is_empty());
    }
}
