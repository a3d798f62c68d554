//! Collections and their JSON Schemas: found, read, compiled once, shared by every thread.
//!
//! A collection is a record type (`gotcha`) with a schema (`schema/gotcha.schema.json`) and a
//! folder of records (`records/gotchas/`). Schemas are compiled with the `jsonschema` crate
//! built without network support; a `$ref` to another schema file is served from the schema
//! folder by `LocalSchemas`, by the file's path or its `$id`, so `$ref` between local files
//! works and nothing is fetched. What reads a schema's structure follows `$ref`s the same
//! way ([`Documents`]).
//! A schema problem is fatal (exit code 2): every verdict would depend on it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ReferencingError, Retrieve, Uri, Validator};
use regex::Regex;
use serde_json::Value;

use crate::config::{Config, DEFAULT_ID_PATTERN};
use crate::diagnostic::{Anchor, Diagnostic};
use crate::diagnostic::{join_pointer, pointer_segments, push_pointer_segment};
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
    /// The schema folder's files, shared by every collection: where its `$ref`s lead.
    documents: Arc<Documents>,
    /// Its schema's file among them.
    file: usize,
}

impl Collection {
    /// The schema folder's files, through which its `$ref`s are followed.
    pub fn documents(&self) -> &Documents {
        &self.documents
    }

    /// Its schema, as a node of [`Collection::documents`].
    pub fn schema_node(&self) -> Option<Node<'_>> {
        self.documents.root(self.file)
    }

    /// Whether the schema declares the field at `path` (object keys from the record's top,
    /// arrays on the way looked through, as a reference's path is read): `Err` with the
    /// index of the first key it does not declare and the names declared where it was
    /// looked for. A key is taken as declared where the schema cannot say (an object that
    /// lists no properties, takes any name through `additionalProperties`, or one matching
    /// its `patternProperties`).
    pub(crate) fn field(&self, path: &[String]) -> Result<(), (usize, Vec<String>)> {
        let Some(root) = self.documents.root(self.file) else {
            return Ok(());
        };
        let mut level = vec![root];
        for (at, key) in path.iter().enumerate() {
            let nodes: Vec<Node<'_>> = level
                .into_iter()
                .flat_map(|node| self.documents.gather(node, THROUGH_ARRAYS))
                .collect();
            let open = nodes.iter().any(|node| {
                node.value
                    .get("additionalProperties")
                    .is_some_and(Value::is_object)
                    || node
                        .value
                        .get("patternProperties")
                        .and_then(Value::as_object)
                        .is_some_and(|patterns| {
                            patterns
                                .keys()
                                .any(|p| Regex::new(p).is_ok_and(|p| p.is_match(key)))
                        })
            });
            let declared = properties(&nodes);
            if open || declared.is_empty() {
                return Ok(());
            }
            level = declared
                .iter()
                .filter(|(name, _)| name == key)
                .map(|(_, schema)| schema.clone())
                .collect();
            if level.is_empty() {
                return Err((at, names(&declared)));
            }
        }
        Ok(())
    }

    /// The properties declared by the schema object that holds the keyword at `location`
    /// (an absolute keyword location, as the validator reports it, in whichever file the
    /// object is), for the did-you-mean of an unknown field: its own `properties` for
    /// `additionalProperties`, which counts no others; with `evaluated`, for
    /// `unevaluatedProperties`, also those of every schema a value there is evaluated
    /// against (its `$ref`, `allOf`, `anyOf`, `oneOf`). The root's, [`Collection::properties`],
    /// when the location cannot be followed.
    pub fn declared_at(&self, location: Option<&str>, evaluated: bool) -> Vec<String> {
        let holder = location.and_then(|location| {
            let (resource, fragment) = location.split_once('#').unwrap_or((location, ""));
            let parent = fragment.rsplit_once('/').map_or("", |(parent, _)| parent);
            self.documents.at_uri(&format!("{resource}#{parent}")).ok()
        });
        let Some(holder) = holder else {
            return self.properties.clone();
        };
        let nodes = if evaluated {
            self.documents.gather(holder, BRANCHES)
        } else {
            vec![holder]
        };
        names(&properties(&nodes))
    }
}

/// Every collection of the corpus, in name order.
#[derive(Debug, Default)]
pub struct Schemas {
    /// The collections.
    pub collections: Vec<Collection>,
    /// The index of every collection: what a wiki-link may point at.
    every_collection: &'static [usize],
    /// A hash of every schema document read, with its path from the root: what the check
    /// cache ([`crate::cache`]) is valid for.
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
        let limit = config.max_setup_file_size();
        let (documents, unread, documents_hash) = read_schema_dir(root, &dir, limit, &mut errors);
        let documents = Arc::new(documents);
        let mut sources: BTreeMap<String, (PathBuf, Option<String>)> = BTreeMap::new();
        for path in documents.paths() {
            if let Some(name) = collection_name(path) {
                sources.insert(name.to_string(), (path.to_path_buf(), None));
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
                        let known: Vec<&str> = sources.keys().map(String::as_str).collect();
                        let diagnostic = Diagnostic::new(
                            rules::INVALID_CONFIG,
                            config.shown(root),
                            format!(
                                "the collection `{name}` has no schema: expected {}",
                                display_path(root, &dir.join(format!("{name}{SCHEMA_SUFFIX}")))
                            ),
                        )
                        .at_span(collection.span.clone())
                        .with_label("no schema file for this collection");
                        errors.push(crate::suggest::unknown_name(
                            diagnostic,
                            name,
                            "collections with a schema",
                            &known,
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
        let retriever = LocalSchemas {
            documents: Arc::clone(&documents),
        };
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
            let Some((file, schema)) = documents.file_of(&path) else {
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
                    errors.extend(schema_errors(&documents, file, schema, &err));
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
                        config.shown(root),
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
            let (text_fields, properties) = describe(&documents, file);
            let (found, problems) = references::from_schema(&documents, file);
            declared.push(found);
            for problem in problems {
                // A file shared by several collections is reported once.
                if !errors.contains(&problem) {
                    errors.push(problem);
                }
            }
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
                documents: Arc::clone(&documents),
                file,
            });
        }
        resolve_references(
            root,
            config,
            &documents,
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
    documents: &Documents,
    collections: &mut [Collection],
    declared: Vec<Vec<references::Declared>>,
    named: &[String],
    errors: &mut Vec<Diagnostic>,
) {
    // A collection is named by its type or its folder, as `[graph]` and the commands name
    // it: a corpus's own tables list both.
    let names: Vec<String> = collections.iter().map(|c| c.name.clone()).collect();
    let folders: Vec<String> = collections.iter().map(|c| c.folder.clone()).collect();
    let index_of = |name: &str| {
        (names.iter().position(|n| n == name)).or_else(|| folders.iter().position(|f| f == name))
    };
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
    let mut kinds: Vec<&str> = names.iter().chain(&folders).map(String::as_str).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let display = config.shown(root);
    let unknown_in_config = |name: &str, span: &std::ops::Range<usize>| {
        let diagnostic = Diagnostic::new(
            rules::INVALID_CONFIG,
            &display,
            format!("`{name}` in [references] names no collection"),
        )
        .at_span(span.clone())
        .with_label("no collection has this name");
        crate::suggest::unknown_name(diagnostic, name, "collections", &kinds)
    };
    let mut fields: Vec<BTreeMap<Vec<String>, Vec<usize>>> =
        vec![BTreeMap::new(); collections.len()];
    for ((found, collection), fields) in declared.into_iter().zip(&*collections).zip(&mut fields) {
        for declared in found {
            for target in &declared.targets {
                match index_of(target) {
                    Some(t) => push_target(fields, &declared.path, t),
                    None if broken(target) => {}
                    None => {
                        let (file, pointer) = &declared.at;
                        let message = format!(
                            "the `x-ref` of `{}` in `{}` names an unknown collection: {}",
                            declared.path.join("."),
                            collection.name,
                            unknown(target)
                        );
                        errors.push(
                            documents
                                .invalid_schema(*file, pointer, message)
                                .with_label("no collection has this name"),
                        );
                    }
                }
            }
        }
    }
    for reference in &config.references {
        let owners: Vec<usize> = if reference.collection == "*" {
            (0..collections.len()).collect()
        } else {
            match index_of(&reference.collection) {
                Some(owner) => vec![owner],
                None if broken(&reference.collection) => continue,
                None => {
                    errors.push(unknown_in_config(
                        &reference.collection,
                        &reference.collection_span,
                    ));
                    continue;
                }
            }
        };
        let usable = named.iter().all(|name| index_of(name).is_some());
        if let Some(problem) = unknown_field(&display, collections, &owners, reference, usable) {
            errors.push(problem);
        }
        for (target, span) in &reference.targets {
            match index_of(target) {
                Some(t) => {
                    for &owner in &owners {
                        if let Some(fields) = fields.get_mut(owner) {
                            push_target(fields, &reference.path, t);
                        }
                    }
                }
                None if broken(target) => {}
                None => errors.push(unknown_in_config(target, span)),
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

/// The problem with the field path of a `[references]` entry, if its collection's schema
/// does not declare it (for `*`, if no collection's does): a misspelt field would otherwise
/// be a reference never checked. `usable` says that every collection's schema could be
/// read; if one could not, a `*` field may be that one's, and is not said to be no one's.
fn unknown_field(
    display: &str,
    collections: &[Collection],
    owners: &[usize],
    reference: &crate::config::ReferenceConfig,
    usable: bool,
) -> Option<Diagnostic> {
    let mut misses = Vec::new();
    for collection in owners.iter().filter_map(|&owner| collections.get(owner)) {
        match collection.field(&reference.path) {
            Ok(()) => return None,
            Err(miss) => misses.push((collection, miss)),
        }
    }
    let path = reference.path.join(".");
    let (at, mut names, message, label) = match misses.as_slice() {
        [] => return None,
        [(collection, (at, names))] if reference.collection != "*" => {
            let key = reference.path.get(*at)?;
            let within = match at.checked_sub(1).and_then(|up| reference.path.get(..=up)) {
                Some(up) => format!(": `{}` declares no `{key}`", up.join(".")),
                None => String::new(),
            };
            (
                *at,
                names.clone(),
                format!("`{path}` is not a field of `{}`{within}", collection.name),
                format!("the schema of `{}` declares no such field", collection.name),
            )
        }
        _ if !usable => return None,
        misses => {
            let at = misses.iter().map(|(_, (at, _))| *at).max().unwrap_or(0);
            let names = misses
                .iter()
                .filter(|(_, (found_at, _))| *found_at == at)
                .flat_map(|(_, (_, names))| names.iter().cloned())
                .collect();
            (
                at,
                names,
                format!("`{path}` is a field of no collection"),
                "no collection's schema declares this field".to_string(),
            )
        }
    };
    names.sort();
    names.dedup();
    let key = reference.path.get(at)?;
    let span = reference.path_spans.get(at).unwrap_or(&reference.span);
    let diagnostic = Diagnostic::new(rules::INVALID_CONFIG, display, message)
        .at_span(span.clone())
        .with_label(label);
    let suggestions = crate::suggest::suggest(key, names.iter().map(String::as_str), 3);
    Some(match crate::suggest::did_you_mean(&suggestions) {
        Some(help) => diagnostic.with_help(help),
        // Every collection's fields together would be a list too long to read.
        None if reference.collection == "*" => diagnostic,
        None => diagnostic.with_note(format!(
            "declared fields: {}",
            names
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    })
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
    let display = config.shown(root);
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

/// The collection a schema file describes, by its name: `engine` for `engine.schema.json`.
fn collection_name(path: &Path) -> Option<&str> {
    path.file_name()?.to_str()?.strip_suffix(SCHEMA_SUFFIX)
}

/// Reads every JSON file of the schema folder (collection schemas and the shared files they
/// `$ref`) as records are read ([`read_setup_file`]), a UTF-8 byte-order mark allowed: the
/// documents read, the paths that could not be read or parsed (each with its diagnostic in
/// `errors`), and a hash of what was read for [`Schemas::documents_hash`]: of the text as
/// read, so that no command pays for writing the parsed documents out again to hash them,
/// with each file's path as displayed, from the root: the path joined to the root as given
/// made a cache written under `--root kb` useless to a check from inside `kb`.
fn read_schema_dir(
    root: &Path,
    dir: &Path,
    max_file_size: u64,
    errors: &mut Vec<Diagnostic>,
) -> (Documents, Vec<PathBuf>, u64) {
    let mut files = Vec::new();
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
            return (Documents::default(), unread, 0);
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    let within = SetupFolder::new(root, dir);
    for path in paths {
        let display = display_path(root, &path);
        let bytes = match read_setup_file(&path, &within, max_file_size) {
            Ok(bytes) => bytes,
            Err(refused) => {
                errors.push(refused.diagnostic(rules::INVALID_SCHEMA, &display, "schema"));
                unread.push(path);
                continue;
            }
        };
        let text = match crate::source::decode(bytes) {
            Ok((text, _)) => text,
            Err(err) => {
                let (message, at) = match err {
                    crate::source::DecodeError::InvalidUtf8 { offset } => {
                        ("the schema is not valid UTF-8".to_string(), offset)
                    }
                    crate::source::DecodeError::OtherEncoding { name, .. } => {
                        (format!("the schema is {name}, not UTF-8"), 0)
                    }
                    crate::source::DecodeError::UnmarkedUtf16 { name, .. } => (
                        format!(
                            "the schema looks like {name} without a byte-order mark, not UTF-8"
                        ),
                        0,
                    ),
                };
                errors.push(
                    Diagnostic::new(rules::INVALID_SCHEMA, &display, message)
                        .at_span(at..at)
                        .with_help("re-save the file as UTF-8"),
                );
                unread.push(path);
                continue;
            }
        };
        match crate::load::json::parse(&text) {
            Ok((value, _)) => {
                described.extend_from_slice(display.as_bytes());
                described.push(0);
                described
                    .extend_from_slice(&crate::cache::stable_hash(text.as_bytes()).to_le_bytes());
                files.push(SchemaFile {
                    path,
                    display,
                    text,
                    draft: Draft::of(&value),
                    value,
                });
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
    (
        Documents::new(files),
        unread,
        crate::cache::stable_hash(&described),
    )
}

/// Where the files of a folder of the corpus's setup (its schemas, its templates) may lead
/// through a symbolic link: into the corpus, or into the folder itself, which the config
/// may have put outside it.
pub(crate) struct SetupFolder {
    allowed: Vec<PathBuf>,
}

impl SetupFolder {
    /// The folder `dir` of the corpus at `root`.
    pub(crate) fn new(root: &Path, dir: &Path) -> SetupFolder {
        SetupFolder {
            allowed: [root, dir]
                .iter()
                .filter_map(|folder| std::fs::canonicalize(folder).ok())
                .collect(),
        }
    }
}

/// Why a file of the corpus's setup was not read.
pub(crate) enum Refused {
    /// It could not be opened or read.
    Unreadable(std::io::Error),
    /// It is a symbolic link leading out of the corpus, to this file.
    OutOfCorpus(PathBuf),
    /// It is a named pipe, a socket or a device.
    NotRegular,
    /// It is larger than `max_file_size`.
    TooLarge { size: u64, max: u64 },
}

impl Refused {
    /// The diagnostic saying so, of the rule `code`, about the file shown as `display`, which
    /// is a `what` (`schema`, `template`).
    pub(crate) fn diagnostic(&self, code: &'static str, display: &str, what: &str) -> Diagnostic {
        match self {
            Refused::Unreadable(err) => {
                Diagnostic::new(code, display, format!("cannot read the {what}: {err}"))
            }
            Refused::OutOfCorpus(target) => Diagnostic::new(
                code,
                display,
                "this symlink points outside the corpus, so it is not read",
            )
            .with_note(format!("it points at {}", target.display())),
            Refused::NotRegular => Diagnostic::new(
                code,
                display,
                "this is not a regular file (a folder, named pipe, socket or device), so it is not read",
            ),
            Refused::TooLarge { size, max } => Diagnostic::new(
                code,
                display,
                format!("the {what} is {size} bytes, over the limit of {max} bytes"),
            )
            .with_help(
                "raise `max_file_size` in gotchas.toml if this file is meant to be this large",
            ),
        }
    }
}

/// Reads a file of the corpus's setup with the care records are read with
/// ([`crate::discover`]), since a checked-out repository may hold anything: a symlink
/// leading out of the corpus (and out of `within`) is not followed, so no file of the
/// machine is read and quoted; a named pipe, socket or device is not opened, since reading
/// one may wait for ever (a pipe) or never end (`/dev/zero`), and its type is known before
/// opening it; and a file over `max` bytes is not read.
pub(crate) fn read_setup_file(
    path: &Path,
    within: &SetupFolder,
    max: u64,
) -> Result<Vec<u8>, Refused> {
    let link = std::fs::symlink_metadata(path).map_err(Refused::Unreadable)?;
    if link.file_type().is_symlink() {
        let target = std::fs::canonicalize(path).map_err(Refused::Unreadable)?;
        if !within
            .allowed
            .iter()
            .any(|folder| target.starts_with(folder))
        {
            return Err(Refused::OutOfCorpus(target));
        }
    }
    let metadata = std::fs::metadata(path).map_err(Refused::Unreadable)?;
    if !metadata.is_file() {
        return Err(Refused::NotRegular);
    }
    if metadata.len() > max {
        return Err(Refused::TooLarge {
            size: metadata.len(),
            max,
        });
    }
    let file = std::fs::File::open(path).map_err(Refused::Unreadable)?;
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // Bounded even if the file grew since its size was taken.
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, max.saturating_add(1)),
        &mut bytes,
    )
    .map_err(Refused::Unreadable)?;
    let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if size > max {
        return Err(Refused::TooLarge { size, max });
    }
    Ok(bytes)
}

/// Every reason a schema does not compile: the validator stops at the first breach of its
/// draft's meta-schema, which is checked again for all of them, so that a schema with
/// several mistakes is not fixed one run at a time. Only for a draft gotchas knows: another
/// `$schema`'s meta-schema would have to be fetched, and nothing is.
fn schema_errors(
    documents: &Documents,
    file: usize,
    schema: &Value,
    err: &jsonschema::ValidationError<'_>,
) -> Vec<Diagnostic> {
    let first = schema_error(documents, file, err);
    let known = jsonschema::Draft::default().detect(schema) != jsonschema::Draft::Unknown;
    if matches!(err.kind(), ValidationErrorKind::Referencing(_)) || !known {
        return vec![first];
    }
    let Ok(meta) = jsonschema::meta::validator_for(schema) else {
        return vec![first];
    };
    let mut all: Vec<Diagnostic> = meta
        .iter_errors(schema)
        .map(|breach| schema_error(documents, file, &breach))
        .collect();
    if all.is_empty() {
        all.push(first);
    }
    all.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    all
}

/// A schema that does not compile: point at the offending keyword in the schema file, as
/// it was read (read again, it may have changed), or at the `$ref` naming a schema that
/// cannot be had.
fn schema_error(
    documents: &Documents,
    file: usize,
    err: &jsonschema::ValidationError<'_>,
) -> Diagnostic {
    let message = format!("the schema is not a valid JSON Schema: {err}");
    if let ValidationErrorKind::Referencing(ReferencingError::Unretrievable { uri, .. }) =
        err.kind()
        && let Some(pointer) = documents.reference_to(file, uri)
    {
        return documents
            .invalid_schema(file, &pointer, message)
            .with_label("this schema is not in the schema folder");
    }
    documents.invalid_schema(file, err.instance_path().as_str(), message)
}

/// The string fields and all property names declared at the top of a schema file, following
/// `$ref` and `allOf` (into other files too) so that composed schemas are described too: a
/// field whose schema is a `$ref` to `{"type": "string"}` is text, which a Markdown record
/// may write as a `## Section`.
fn describe(documents: &Documents, file: usize) -> (HashSet<String>, Vec<String>) {
    let Some(root) = documents.root(file) else {
        return (HashSet::new(), Vec::new());
    };
    let declared = properties(&documents.gather(root, CONJUNCTS));
    let names = names(&declared);
    let text_fields = names
        .iter()
        .filter(|name| {
            let schemas = declared
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, node)| node.clone())
                .collect();
            documents.is_text(schemas, 0)
        })
        .cloned()
        .collect();
    (text_fields, names)
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

/// Serves `$ref`s to the schema folder's files from memory, by their own `file://` URIs and
/// their `$id`s (a schema with an absolute `$id` refers to its neighbours by it); refuses
/// everything else, so no schema is ever fetched from the network.
#[derive(Clone)]
struct LocalSchemas {
    documents: Arc<Documents>,
}

impl Retrieve for LocalSchemas {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let wanted = uri.as_str();
        let without_fragment = wanted.split('#').next().unwrap_or(wanted);
        self.documents
            .at_uri(without_fragment)
            .map(|node| node.value.clone())
            .map_err(|_| format!("`{wanted}` is not a schema file of the schema folder, and schemas are never fetched from the network").into())
    }
}

/// One file of the schema folder, read and parsed.
#[derive(Debug)]
struct SchemaFile {
    path: PathBuf,
    /// Its path as displayed.
    display: String,
    /// Its text: where a problem found in it later is placed.
    text: String,
    value: Value,
    /// The draft its `$schema` names, which says how it identifies its schemas.
    draft: Draft,
}

/// What a schema file's draft changes about where a `$ref` leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Draft {
    /// Draft 4 (or 3): identifiers are `id`, and a `$ref` makes its siblings ignored.
    Four,
    /// Drafts 6 and 7: identifiers are `$id`, and a `$ref` makes its siblings ignored.
    SixOrSeven,
    /// 2019-09, 2020-12, and a file that names none (the validator's default, 2020-12).
    Current,
}

impl Draft {
    /// The draft a document's `$schema` names.
    fn of(document: &Value) -> Draft {
        let named = document
            .get("$schema")
            .and_then(Value::as_str)
            .unwrap_or("");
        if named.contains("draft-04") || named.contains("draft-03") {
            Draft::Four
        } else if named.contains("draft-06") || named.contains("draft-07") {
            Draft::SixOrSeven
        } else {
            Draft::Current
        }
    }

    /// The identifier a schema declares (`$id`, or `id` in draft 4), when it has effect:
    /// before 2019-09 a `$ref` makes every keyword beside it ignored, its identifier too.
    fn id(self, schema: &Value) -> Option<&str> {
        let keyword = if self == Draft::Four { "id" } else { "$id" };
        if self != Draft::Current && schema.get("$ref").is_some() {
            return None;
        }
        schema.get(keyword).and_then(Value::as_str)
    }
}

/// The keywords that lead to another schema, followed statically: a `$dynamicRef` (or
/// 2019-09's `$recursiveRef`) goes where a `$ref` of the same text would, which is where it
/// goes unless some schema rebinds its anchor.
pub const REF_KEYWORDS: &[&str] = &["$ref", "$dynamicRef", "$recursiveRef"];

/// The keywords whose schemas a value must match as well as the one holding them.
pub const CONJUNCTS: &[&str] = &["allOf"];

/// The keywords whose schemas a value may be evaluated against besides the one holding
/// them: the fields they declare are fields of the same object.
const BRANCHES: &[&str] = &["allOf", "anyOf", "oneOf"];

/// The keywords whose schemas a value at a field path may be read through: its branches,
/// and the items of an array, which a reference's path looks through.
const THROUGH_ARRAYS: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "items",
    "prefixItems",
    "additionalItems",
];

/// Keywords that hold data rather than schemas: an `$id` or `$anchor` in them names nothing.
const DATA_KEYWORDS: &[&str] = &["const", "default", "enum", "examples"];

/// The schema folder's files, and where a `$ref` leads among them.
///
/// A `$ref` is resolved as the validator resolves it: as a URI reference (RFC 3986, `..`
/// and all) against the base URI, which is the nearest `$id` above it (`id` in draft 4)
/// or else its file's `file://` URI; then the fragment, percent-decoded, is a JSON pointer
/// (with its `~0` and `~1` escapes) or an anchor (`$anchor`, `$dynamicAnchor`, or an `$id`
/// of the form `#name`). Everything that reads a schema's structure rather than validating with it (the
/// text fields of Markdown records, the `x-ref` walk, the did-you-mean of unknown fields)
/// follows `$ref`s here, so that none of them loses what the validator finds.
#[derive(Debug, Default)]
pub struct Documents {
    files: Vec<SchemaFile>,
    /// Each resource by its URI without fragment (a file's own URI and every `$id`), and
    /// each anchor by its resource's URI and `#name`: the file and the JSON pointer of the
    /// schema there.
    resources: HashMap<String, (usize, String)>,
}

/// A schema in a file of the schema folder, with what a `$ref` in it resolves against.
#[derive(Clone, Debug)]
pub struct Node<'d> {
    /// The schema.
    pub value: &'d Value,
    /// Its file, by index in the [`Documents`].
    pub file: usize,
    /// Its JSON pointer in the file, where a problem with it is placed.
    pub pointer: String,
    /// Its base URI.
    base: Arc<str>,
    /// Its file's draft.
    draft: Draft,
}

impl<'d> Node<'d> {
    /// The value under `key` (an array index for an array), with the base URI an `$id` on it
    /// sets.
    pub fn child(&self, key: &str) -> Option<Node<'d>> {
        let value = match self.value {
            Value::Object(map) => map.get(key)?,
            Value::Array(items) => items.get(key.parse::<usize>().ok()?)?,
            _ => return None,
        };
        let mut pointer = self.pointer.clone();
        push_pointer_segment(&mut pointer, key);
        Some(Node {
            value,
            file: self.file,
            pointer,
            base: based(&self.base, self.draft.id(value)),
            draft: self.draft,
        })
    }

    /// The schemas under `keyword`: its value when that is one, each item when a list.
    pub fn children(&self, keyword: &str) -> Vec<Node<'d>> {
        let Some(under) = self.child(keyword) else {
            return Vec::new();
        };
        match under.value {
            Value::Array(items) => (0..items.len())
                .filter_map(|index| under.child(&index.to_string()))
                .collect(),
            _ => vec![under],
        }
    }
}

impl Documents {
    /// Indexes the files' resources and anchors. When two name the same URI, the first
    /// file (in path order) keeps it.
    fn new(files: Vec<SchemaFile>) -> Documents {
        let mut documents = Documents {
            files,
            resources: HashMap::new(),
        };
        let mut found = Vec::new();
        for file in 0..documents.files.len() {
            if let Some(root) = documents.root(file) {
                if let Some(own) = documents
                    .files
                    .get(file)
                    .and_then(|f| normalized_uri(&f.path))
                {
                    found.push((own, (file, String::new())));
                }
                identifiers(&root, &mut found);
            }
        }
        for (uri, place) in found {
            documents.resources.entry(uri).or_insert(place);
        }
        documents
    }

    /// The paths of the files read.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|file| file.path.as_path())
    }

    /// An `invalid-schema` diagnostic about the value at `pointer` in a file, placed there.
    pub fn invalid_schema(&self, file: usize, pointer: &str, message: String) -> Diagnostic {
        let Some(found) = self.files.get(file) else {
            return Diagnostic::new(rules::INVALID_SCHEMA, "", message);
        };
        let diagnostic = Diagnostic::new(rules::INVALID_SCHEMA, &found.display, message);
        match crate::load::json::scan(&found.text)
            .0
            .locate(&Anchor::Value(pointer.to_string()))
        {
            Some(span) => diagnostic.at_span(span),
            None => diagnostic,
        }
    }

    /// The pointer of the first reference in a file (`$ref` ...) to a schema of the
    /// resource `uri`, when there is one.
    fn reference_to(&self, file: usize, uri: &str) -> Option<String> {
        let wanted = uri.split('#').next().unwrap_or(uri);
        let mut found = None;
        each_node(&self.root(file)?, &mut |node| {
            for keyword in REF_KEYWORDS {
                let Some(reference) = node.value.get(keyword).and_then(Value::as_str) else {
                    continue;
                };
                let target = resolve_uri(&node.base, reference);
                if found.is_none()
                    && target.as_deref().and_then(|t| t.split('#').next()) == Some(wanted)
                {
                    found = Some(join_pointer(&node.pointer, keyword));
                }
            }
        });
        found
    }

    /// The file at `path`, by index, with its document.
    fn file_of(&self, path: &Path) -> Option<(usize, &Value)> {
        let index = self.files.iter().position(|file| file.path == path)?;
        Some((index, &self.files.get(index)?.value))
    }

    /// The document of a file, as a schema node based at its `$id` or its own URI.
    pub fn root(&self, file: usize) -> Option<Node<'_>> {
        let found = self.files.get(file)?;
        let own: Arc<str> = Arc::from(normalized_uri(&found.path)?);
        Some(Node {
            value: &found.value,
            file,
            pointer: String::new(),
            base: based(&own, found.draft.id(&found.value)),
            draft: found.draft,
        })
    }

    /// Where the `$ref` `reference`, written in `from`, leads; why not, when it leads
    /// nowhere in the schema folder.
    pub fn resolve(&self, from: &Node<'_>, reference: &str) -> Result<Node<'_>, String> {
        let target = resolve_uri(&from.base, reference)
            .ok_or_else(|| format!("`{reference}` is not a URI reference"))?;
        self.at_uri(&target)
    }

    /// The schema a URI names: a resource, then a JSON pointer or an anchor in its fragment.
    fn at_uri(&self, uri: &str) -> Result<Node<'_>, String> {
        let (resource, fragment) = uri.split_once('#').unwrap_or((uri, ""));
        let fragment = percent_encoding::percent_decode_str(fragment)
            .decode_utf8()
            .map_err(|_| format!("the fragment of `{uri}` is not UTF-8 once decoded"))?;
        let (key, pointer) = if fragment.is_empty() || fragment.starts_with('/') {
            (resource.to_string(), Some(fragment.as_ref()))
        } else {
            (format!("{resource}#{fragment}"), None)
        };
        let (file, at) = self.resources.get(&key).ok_or_else(|| match pointer {
            Some(_) => format!("`{resource}` is not a schema file of the schema folder"),
            None => format!("no schema in `{resource}` has the anchor `{fragment}`"),
        })?;
        let (found, draft) = self
            .files
            .get(*file)
            .and_then(|f| Some((f.value.pointer(at)?, f.draft)))
            .ok_or_else(|| format!("`{uri}` leads nowhere"))?;
        let mut node = Node {
            value: found,
            file: *file,
            pointer: at.clone(),
            base: Arc::from(resource),
            draft,
        };
        for segment in pointer_segments(pointer.unwrap_or_default()) {
            node = node
                .child(&segment)
                .ok_or_else(|| format!("`{uri}` leads nowhere: there is no `{segment}`"))?;
        }
        Ok(node)
    }

    /// `node` and every schema reached from it through its references and the `keywords`
    /// (`allOf` ...), each once, so that a recursive schema ends: in document order, the
    /// node first.
    pub fn gather<'n>(&'n self, node: Node<'n>, keywords: &[&str]) -> Vec<Node<'n>> {
        let mut out: Vec<Node<'n>> = Vec::new();
        let mut pending = vec![node];
        while let Some(node) = pending.pop() {
            if out
                .iter()
                .any(|seen| seen.file == node.file && seen.pointer == node.pointer)
            {
                continue;
            }
            let mut next: Vec<Node<'n>> = REF_KEYWORDS
                .iter()
                .filter_map(|keyword| node.value.get(keyword)?.as_str())
                .filter_map(|reference| self.resolve(&node, reference).ok())
                .collect();
            for keyword in keywords {
                next.extend(node.children(keyword));
            }
            out.push(node);
            pending.extend(next.into_iter().rev());
        }
        out
    }

    /// Whether a value at the schemas `nodes`, which it must all match, may be text: one of
    /// them allows a string (or, through `anyOf`/`oneOf`, one of its branches does) and
    /// none fixes the value with `enum` or `const`.
    fn is_text(&self, nodes: Vec<Node<'_>>, depth: usize) -> bool {
        let all: Vec<Node<'_>> = nodes
            .into_iter()
            .flat_map(|node| self.gather(node, CONJUNCTS))
            .collect();
        if all
            .iter()
            .any(|node| node.value.get("enum").is_some() || node.value.get("const").is_some())
        {
            return false;
        }
        let says_string = |node: &Node<'_>| match node.value.get("type") {
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
            _ => false,
        };
        all.iter().any(says_string)
            || (depth < 16
                && all.iter().any(|node| {
                    ["anyOf", "oneOf"]
                        .iter()
                        .flat_map(|keyword| node.children(keyword))
                        .any(|branch| self.is_text(vec![branch], depth + 1))
                }))
    }
}

#[cfg(test)]
impl Documents {
    /// The text of a file, as it was read.
    pub(crate) fn text(&self, file: usize) -> &str {
        self.files.get(file).map_or("", |f| f.text.as_str())
    }

    /// The documents of files at the given paths, for tests: each file's text is its
    /// document written out.
    pub fn of(files: Vec<(&str, Value)>) -> Documents {
        Documents::new(
            files
                .into_iter()
                .map(|(path, value)| SchemaFile {
                    path: PathBuf::from(path),
                    display: path.to_string(),
                    text: value.to_string(),
                    draft: Draft::of(&value),
                    value,
                })
                .collect(),
        )
    }
}

/// The properties the `nodes` declare, in order, each with its schema: a name declared by
/// several comes once for each.
fn properties<'d>(nodes: &[Node<'d>]) -> Vec<(&'d str, Node<'d>)> {
    let mut found = Vec::new();
    for node in nodes {
        let Some(declared) = node.child("properties") else {
            continue;
        };
        if let Value::Object(map) = declared.value {
            for name in map.keys() {
                if let Some(schema) = declared.child(name) {
                    found.push((name.as_str(), schema));
                }
            }
        }
    }
    found
}

/// Calls `visit` on `node` and on every value under it but the data of `enum`, `const`,
/// `default` and `examples`: on every schema of a document, and on the maps and lists
/// that hold them.
fn each_node<'d>(node: &Node<'d>, visit: &mut impl FnMut(&Node<'d>)) {
    visit(node);
    let keys: Vec<String> = match node.value {
        Value::Object(map) => map
            .keys()
            .filter(|key| !DATA_KEYWORDS.contains(&key.as_str()))
            .cloned()
            .collect(),
        Value::Array(items) => (0..items.len()).map(|index| index.to_string()).collect(),
        _ => Vec::new(),
    };
    for key in keys {
        if let Some(child) = node.child(&key) {
            each_node(&child, visit);
        }
    }
}

/// The names of `declared` properties, each once, in order.
fn names(declared: &[(&str, Node<'_>)]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in declared {
        if !names.iter().any(|n| n == name) {
            names.push((*name).to_string());
        }
    }
    names
}

/// Every resource (`$id`) and anchor under `node`, with where it is.
fn identifiers(node: &Node<'_>, found: &mut Vec<(String, (usize, String))>) {
    each_node(node, &mut |node| {
        let place = || (node.file, node.pointer.clone());
        if let Some(id) = node.draft.id(node.value) {
            match id.strip_prefix('#') {
                Some(anchor) => found.push((format!("{}#{anchor}", node.base), place())),
                None => found.push((node.base.to_string(), place())),
            }
        }
        for keyword in ["$anchor", "$dynamicAnchor"] {
            if let Some(Value::String(anchor)) = node.value.get(keyword) {
                found.push((format!("{}#{anchor}", node.base), place()));
            }
        }
    });
}

/// The base URI of a schema with the identifier `id`, within a schema based at `outer`:
/// where the identifier leads, unless it is a bare anchor (`#name`).
fn based(outer: &Arc<str>, id: Option<&str>) -> Arc<str> {
    match id {
        Some(id) if !id.starts_with('#') => resolve_uri(outer, id)
            .map(|uri| Arc::from(uri.split('#').next().unwrap_or(&uri)))
            .unwrap_or_else(|| Arc::clone(outer)),
        _ => Arc::clone(outer),
    }
}

/// `reference` resolved against `base` (RFC 3986, normalised) as the validator resolves it.
fn resolve_uri(base: &str, reference: &str) -> Option<String> {
    let base = Uri::parse(base).ok()?;
    let resolved = jsonschema::uri::resolve_against(&base, reference).ok()?;
    Some(resolved.as_str().to_string())
}

/// A file's `file://` URI, normalised as a resolved reference is, so that the two compare.
fn normalized_uri(path: &Path) -> Option<String> {
    jsonschema::uri::from_str(&file_uri(path))
        .ok()
        .map(|uri| uri.as_str().to_string())
}

/// The string values the schema allows at a field path (`enum` and `const`), looking
/// through arrays, `allOf`/`anyOf`/`oneOf` and local `$ref`s: what the language server
/// completes.
pub fn enum_values(schema: &Value, path: &[String]) -> Vec<String> {
    enum_members(schema, path)
        .into_iter()
        .filter_map(|value| match value {
            Value::String(text) => Some(text),
            _ => None,
        })
        .collect()
}

/// The values of any type the schema allows at a field path (`enum` and `const`, each once,
/// in order), found as [`enum_values`] finds them: what `query list --where` accepts, where
/// `null` or `1` is as much a value as a string.
pub fn enum_members(schema: &Value, path: &[String]) -> Vec<Value> {
    let mut nodes = expand(schema, schema, 0);
    for key in path {
        nodes = nodes
            .iter()
            .filter_map(|node| node.get("properties").and_then(|p| p.get(key)))
            .flat_map(|node| expand(schema, node, 0))
            .collect();
    }
    let mut values: Vec<Value> = Vec::new();
    for node in nodes {
        let found = node
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .chain(node.get("const"));
        for value in found {
            if !values.contains(value) {
                values.push(value.clone());
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
