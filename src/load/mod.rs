//! Load: bytes on disk -> one [`Record`] model, whatever the format.
//!
//! Each file is loaded on its own (and in parallel, by the caller), so one bad file never
//! stops the others: every failure becomes a diagnostic with a position and the file is
//! simply not a record. Positions of values are not computed here; [`source_map`] computes
//! them later for the files that turn out to have problems.

pub mod json;
pub mod markdown;
pub mod yaml;

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use crate::diagnostic::{Anchor, Diagnostic, Label, join_pointer};
use crate::links::{Fragment, Link};
use crate::rules;
use crate::source::{self, Format, SourceFile, Span};
use crate::sourcemap::{Node, SourceMap};
use crate::stamp::Stamp;
use crate::suggest;

/// One record: a file's data as a JSON object, whatever format it was written in.
///
/// `F` is what the record keeps of its fields: the fields themselves (`Value`, the default),
/// or what a caller drew from them while loading and kept instead (see
/// [`crate::corpus::Corpus::load_with`]); the rest is the same either way.
#[derive(Clone, Debug)]
pub struct Record<F = Value> {
    /// Index of the record's collection in [`crate::schema::Schemas::collections`].
    pub collection: usize,
    /// The record's id: its `id` field when that is a string, else its file name.
    pub id: String,
    /// [`crate::index::id_hash`] of `id`, worked out as the record is made, while its id is
    /// at hand: the id index, built from every record's hash, read each record's id from
    /// wherever it was allocated, a cache miss a record (a third of building the index at
    /// 100,000 records).
    pub id_hash: u64,
    /// Index of the record's file in the corpus's file list.
    pub file: usize,
    /// The format it was read from.
    pub format: Format,
    /// Whether the id came from the record's `id` field (not from its file name).
    pub id_in_fields: bool,
    /// The fields: by default always a JSON object, kept as a `Value` so the validator takes
    /// it as is.
    pub value: F,
    /// A Markdown record's body, boxed: the other formats have none, and a record is kept
    /// for the whole run, where a span and two lists in place took 72 bytes of every
    /// record. `check` lets it go once drawn (see [`crate::check::draw`]).
    pub prose: Option<Box<Prose>>,
}

/// What a Markdown record has besides its front matter.
#[derive(Clone, Debug)]
pub struct Prose {
    /// The body after the front matter.
    pub body: Span,
    /// The fields read from `## Heading` sections (their links are found in the body, with
    /// exact positions).
    pub sections: Vec<String>,
    /// The corpus links of the body, found as it was parsed.
    pub links: Vec<Link>,
    /// The places in pages that the body's links name by their fragments, found with them.
    pub fragments: Vec<Fragment>,
}

impl<F> Record<F> {
    /// The same record keeping `value` instead of its fields.
    pub fn keeping<G>(self, value: G) -> Record<G> {
        Record {
            collection: self.collection,
            id: self.id,
            id_hash: self.id_hash,
            file: self.file,
            format: self.format,
            id_in_fields: self.id_in_fields,
            value,
            prose: self.prose,
        }
    }

    /// A Markdown record's fields read from `## Heading` sections; none for the others.
    pub fn sections(&self) -> &[String] {
        self.prose.as_ref().map_or(&[], |prose| &prose.sections)
    }

    /// The places in pages that a Markdown record's body links to by fragment; none for the
    /// others.
    pub fn fragments(&self) -> &[Fragment] {
        self.prose.as_ref().map_or(&[], |prose| &prose.fragments)
    }

    /// A Markdown record's corpus links in its body; none for the others.
    pub fn links(&self) -> &[Link] {
        self.prose.as_ref().map_or(&[], |prose| &prose.links)
    }
}

impl Record {
    /// Gives a parsed record its place in the corpus. Its id is its `id` field when that is
    /// a string, else its file name without extension (`stem`), so a record with a broken
    /// id still has a name to be cited and reported by.
    pub fn new(loaded: LoadedRecord, collection: usize, stem: &str, file: usize) -> Record {
        let written_id = loaded.value.get("id").and_then(Value::as_str);
        let id_in_fields = written_id.is_some();
        let id = written_id.unwrap_or(stem).to_string();
        Record {
            collection,
            id_hash: crate::index::id_hash(&id),
            id,
            file,
            format: loaded.format,
            id_in_fields,
            value: loaded.value,
            prose: loaded.prose.map(Box::new),
        }
    }
}

/// A key that appeared twice in one mapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key.
    pub key: String,
    /// The later occurrence, which is ignored.
    pub span: Span,
    /// The first occurrence, which is kept.
    pub first: Span,
}

/// What loading one file produced.
#[derive(Debug)]
pub struct Loaded {
    /// The file, with its text when it could be read.
    pub file: SourceFile,
    /// The record, when the file could be parsed into one.
    pub record: Option<LoadedRecord>,
    /// Problems found while loading.
    pub diagnostics: Vec<Diagnostic>,
}

/// A parsed record before it is given its place in the corpus.
#[derive(Debug)]
pub struct LoadedRecord {
    /// The record's format.
    pub format: Format,
    /// The fields: always a JSON object.
    pub value: Value,
    /// A Markdown record's body.
    pub prose: Option<Prose>,
    /// Where the root value lies in the text (the front matter's mapping of a Markdown
    /// record), as a source map of the whole text would place it: a text that is let go
    /// keeps the line it starts on ([`crate::source::Head`]).
    pub root: Span,
}

/// What the loader needs to know about the file's collection.
pub struct LoadContext<'a> {
    /// String fields that a Markdown `## Heading` section may hold.
    pub text_fields: &'a HashSet<String>,
    /// Largest file read, in bytes.
    pub max_file_size: u64,
}

/// A text file that was read (or could not be), with the problems reading it.
#[derive(Debug)]
pub struct LoadedText {
    /// The file; `text` is `None` when it could not be read or decoded.
    pub file: SourceFile,
    /// Problems reading it.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads and decodes a text file: the size limit, I/O errors and invalid UTF-8 become
/// diagnostics.
pub fn load_text(path: &Path, display: String, max_file_size: u64) -> LoadedText {
    match read_limited(path, max_file_size) {
        Err(diagnostic) => {
            let diagnostics = vec![diagnostic(&display)];
            LoadedText {
                file: SourceFile::new(path.to_path_buf(), display, None, false),
                diagnostics,
            }
        }
        Ok((bytes, stamp)) => {
            let mut loaded = decode_text(path, display, bytes);
            loaded.file.stamp = stamp;
            loaded
        }
    }
}

/// Decodes bytes already read (from disk, or from an editor's buffer).
pub fn decode_text(path: &Path, display: String, bytes: Vec<u8>) -> LoadedText {
    let mut file = SourceFile::new(path.to_path_buf(), display, None, false);
    let mut diagnostics = Vec::new();
    match source::decode(bytes) {
        Ok((text, had_bom)) => {
            file.text = Some(text);
            file.had_bom = had_bom;
        }
        // Spans are in the text a report shows, `source::decode_lossy`'s, where the bad
        // bytes are replacement characters.
        Err(source::DecodeError::InvalidUtf8 { offset }) => diagnostics.push(
            Diagnostic::new(
                rules::INVALID_UTF8,
                &file.display,
                "the file is not valid UTF-8",
            )
            .at_span(offset..offset + char::REPLACEMENT_CHARACTER.len_utf8())
            .with_label("this byte does not start a UTF-8 character")
            .with_help("re-save the file as UTF-8"),
        ),
        Err(source::DecodeError::OtherEncoding { name, mark }) => diagnostics.push(
            Diagnostic::new(
                rules::INVALID_UTF8,
                &file.display,
                format!("the file is {name}, not UTF-8"),
            )
            .at_span(0..source::decode_lossy(mark).len())
            .with_label(format!("a {name} byte-order mark"))
            .with_help("re-save the file as UTF-8"),
        ),
        Err(source::DecodeError::UnmarkedUtf16 { name, len }) => diagnostics.push(
            Diagnostic::new(
                rules::INVALID_UTF8,
                &file.display,
                format!("the file looks like {name} without a byte-order mark, not UTF-8"),
            )
            .at_span(0..len)
            .with_label("a NUL in every other byte")
            .with_help("re-save the file as UTF-8"),
        ),
    }
    LoadedText { file, diagnostics }
}

/// Parses a record from bytes that are already in memory: what [`load`] does after reading,
/// and what a fuzzer or an editor integration calls directly.
pub fn load_bytes(
    path: &Path,
    display: String,
    bytes: Vec<u8>,
    format: Format,
    context: &LoadContext<'_>,
) -> Loaded {
    let LoadedText {
        file,
        mut diagnostics,
    } = decode_text(path, display, bytes);
    finish(file, &mut diagnostics, format, context)
}

fn finish(
    file: SourceFile,
    diagnostics: &mut Vec<Diagnostic>,
    format: Format,
    context: &LoadContext<'_>,
) -> Loaded {
    let record = match file.text.as_deref() {
        Some(text) => parse(text, &file.display, format, context, diagnostics),
        None => None,
    };
    Loaded {
        file,
        record,
        diagnostics: std::mem::take(diagnostics),
    }
}

/// Reads and parses one record file.
pub fn load(path: &Path, display: String, format: Format, context: &LoadContext<'_>) -> Loaded {
    parse_read(
        load_text(path, display, context.max_file_size),
        format,
        context,
    )
}

/// Parses a record file that [`load_text`] read: what [`load`] does after reading.
pub fn parse_read(read: LoadedText, format: Format, context: &LoadContext<'_>) -> Loaded {
    let LoadedText {
        file,
        mut diagnostics,
    } = read;
    finish(file, &mut diagnostics, format, context)
}

type DeferredDiagnostic = Box<dyn FnOnce(&str) -> Diagnostic>;

/// Reads a file, refusing one larger than `max` bytes without reading it.
/// The file's bytes, and its stamp as it was opened: taken before reading, so that a write
/// during the read leaves a stamp that the next run finds changed.
fn read_limited(path: &Path, max: u64) -> Result<(Vec<u8>, Option<Stamp>), DeferredDiagnostic> {
    let io_error = |err: std::io::Error| -> DeferredDiagnostic {
        Box::new(move |display: &str| {
            Diagnostic::new(
                rules::IO_ERROR,
                display,
                format!("cannot read the file: {err}"),
            )
        })
    };
    let (file, meta) = open_regular(path).map_err(io_error)?;
    let size = meta.len();
    if size > max {
        return Err(Box::new(move |display: &str| {
            Diagnostic::new(
                rules::LIMIT_EXCEEDED,
                display,
                format!("the file is {size} bytes, over the limit of {max} bytes"),
            )
            .with_help(
                "raise `max_file_size` in gotchas.toml if this file is meant to be this large",
            )
        }));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    Ok((bytes, Stamp::of(&meta)))
}

/// Opens a file to read it, with its metadata, refusing one that is no regular file (a
/// named pipe, socket or device): opening a pipe waits for a writer, for ever when none
/// comes, and reading a device may never end. Every file read by name goes through it (or
/// is known to be regular first), whatever a folder was found to hold earlier.
pub fn open_regular(path: &Path) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    let file = open_without_waiting(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "it is not a regular file (a named pipe, socket or device)",
        ));
    }
    Ok((file, meta))
}

/// The bytes of a regular file (see [`open_regular`]).
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let (file, meta) = open_regular(path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::io::BufReader::new(file).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The text of a regular file (see [`open_regular`]), refused as `read_to_string` refuses
/// one that is not UTF-8.
pub fn read_regular_to_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_regular(path)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// Opens `path` for reading without waiting on a named pipe: `O_NONBLOCK` makes opening one
/// return at once, and reading a regular file ignores it; no extra system call per file.
/// A regular file another process holds a lease on (a file server's) refuses such an open
/// rather than wait for the lease to be given up, and is then opened as any file is.
#[cfg(target_os = "linux")]
fn open_without_waiting(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path);
    match opened {
        Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => std::fs::File::open(path),
        opened => opened,
    }
}

/// Opens `path` for reading once its metadata says it is a regular file (see the Linux
/// version, which needs no look first).
#[cfg(not(target_os = "linux"))]
fn open_without_waiting(path: &Path) -> std::io::Result<std::fs::File> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "it is not a regular file (a named pipe, socket or device)",
        ));
    }
    std::fs::File::open(path)
}

/// Parses a record from text already in memory: what [`load`] does after reading the file,
/// and what an editor's unsaved buffer needs (the language server re-parses one file per
/// edit without touching the disk).
pub fn parse(
    text: &str,
    display: &str,
    format: Format,
    context: &LoadContext<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<LoadedRecord> {
    if text.trim().is_empty() {
        diagnostics.push(
            Diagnostic::new(rules::EMPTY_FILE, display, "the record file is empty")
                .with_help("fill in the record or delete the file"),
        );
        return None;
    }
    let (value, prose, root) = match format {
        Format::Json => (
            parse_json(text, display, diagnostics)?,
            None,
            json::root_span(text),
        ),
        Format::Yaml => {
            let parsed = parse_yaml(text, 0, display, diagnostics)?;
            let (Some(value), Some(root)) = (parsed.value, parsed.root) else {
                diagnostics.push(
                    Diagnostic::new(rules::EMPTY_FILE, display, "the YAML file has no document")
                        .with_help("fill in the record or delete the file"),
                );
                return None;
            };
            (value, None, root)
        }
        Format::Markdown => {
            let read = parse_markdown(text, display, context, diagnostics)?;
            (read.value, Some(read.prose), read.root)
        }
    };
    match value {
        value @ Value::Object(_) => Some(LoadedRecord {
            format,
            value,
            prose,
            root,
        }),
        other => {
            let found = json_type(&other);
            let diagnostic = Diagnostic::new(
                rules::NOT_A_MAPPING,
                display,
                format!("a record must be a mapping of fields, found {found}"),
            )
            .at(Anchor::Value(String::new()))
            .with_label(format!("this is {found}"));
            diagnostics.push(diagnostic);
            None
        }
    }
}

fn parse_json(text: &str, display: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<Value> {
    match json::parse(text) {
        Ok((value, duplicates)) => {
            if duplicates > 0 {
                let (_, found) = json::scan(text);
                diagnostics.extend(found.into_iter().map(|d| duplicate_key(display, d)));
            }
            Some(value)
        }
        Err(err) => {
            let code = if err.too_deep {
                rules::LIMIT_EXCEEDED
            } else {
                rules::SYNTAX_ERROR
            };
            let mut diagnostic =
                Diagnostic::new(code, display, format!("invalid JSON: {}", err.message))
                    .at_span(err.offset..err.offset);
            if let Some(help) = text.get(err.offset..).and_then(json_help) {
                diagnostic = diagnostic.with_help(help);
            }
            diagnostics.push(diagnostic);
            None
        }
    }
}

/// A help line for what JSON's parser stopped at, `rest` being the text from there, when it
/// is something JSON has no room for but people write in it: comments, which editors'
/// JSON-with-comments accepts, and the numbers JavaScript has and JSON does not. The
/// parser says only "expected value" there.
fn json_help(rest: &str) -> Option<&'static str> {
    if rest.starts_with("//") || rest.starts_with("/*") {
        Some("JSON has no comments: remove it, or write the record in YAML, where `#` starts one")
    } else if ["NaN", "Infinity", "-Infinity"]
        .iter()
        .any(|word| rest.starts_with(word))
    {
        Some("JSON has no NaN or Infinity: write a number, or `null`")
    } else if rest.starts_with('\'') {
        Some("JSON strings and keys take double quotes")
    } else {
        None
    }
}

/// The YAML document of `text`, at byte `base` of the file (see [`yaml::parse`]; its
/// `value` is `None` for a stream with no document), with its repeated keys reported.
fn parse_yaml(
    text: &str,
    base: usize,
    display: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<yaml::Parsed> {
    match yaml::parse(text, base, yaml::Limits::default(), false) {
        Ok(mut parsed) => {
            diagnostics.extend(
                std::mem::take(&mut parsed.duplicates)
                    .into_iter()
                    .map(|d| duplicate_key(display, d)),
            );
            Some(parsed)
        }
        Err(err) => {
            let code = match err.kind {
                yaml::ErrorKind::Syntax => rules::SYNTAX_ERROR,
                yaml::ErrorKind::Limit => rules::LIMIT_EXCEEDED,
            };
            let mut diagnostic =
                Diagnostic::new(code, display, format!("invalid YAML: {}", err.message))
                    .at_span(err.span.clone());
            // The scanner says where tabs are not allowed, not what to write instead.
            if indented_with_a_tab(text, err.span.start.saturating_sub(base)) {
                diagnostic = diagnostic.with_help("YAML indents with spaces, never tabs");
            }
            diagnostics.push(diagnostic);
            None
        }
    }
}

/// Whether the line of `text` holding byte `at` is indented, up to `at`, with a tab.
fn indented_with_a_tab(text: &str, at: usize) -> bool {
    let Some(before) = text.get(..at) else {
        return false;
    };
    let line = before
        .get(crate::source::line_start(text, at)..)
        .unwrap_or(before);
    line.trim_start_matches([' ', '\t']).is_empty() && line.contains('\t')
}

fn parse_markdown(
    text: &str,
    display: &str,
    context: &LoadContext<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<MarkdownRecord> {
    let front = match markdown::split_front_matter(text) {
        Ok(front) => front,
        Err(err) => {
            let (message, span, label) = match err {
                markdown::FrontMatterError::Missing(span) => (
                    "a Markdown record must start with YAML front matter",
                    span,
                    "expected a `---` line here",
                ),
                markdown::FrontMatterError::Unterminated(span) => (
                    "the front matter is never closed",
                    span,
                    "opened here, but no closing `---` line follows",
                ),
            };
            // Zola and Hugo take TOML front matter between `+++` lines; a page moved over
            // from either starts with one.
            let help = if text.starts_with("+++") {
                "`+++` opens TOML front matter, as Zola and Hugo write it; a record's fields \
                 are YAML, between two `---` lines at the top of the file"
            } else {
                "put the fields between two `---` lines at the top of the file"
            };
            diagnostics.push(
                Diagnostic::new(rules::FRONT_MATTER, display, message)
                    .at_span(span)
                    .with_label(label)
                    .with_help(help),
            );
            return None;
        }
    };
    let yaml_text = text.get(front.yaml.clone()).unwrap_or_default();
    let parsed = parse_yaml(yaml_text, front.yaml.start, display, diagnostics)?;
    // Front matter with no document is an empty mapping, placed at the opening `---`.
    let root = parsed.root.unwrap_or(FRONT_MATTER_OPENING);
    let mut value = match parsed.value {
        None => Value::Object(Map::new()),
        Some(value) => value,
    };
    let mut fields = Vec::new();
    let body = markdown::read_body(text, &front.body, context.text_fields);
    diagnostics.extend(
        body.other_headings.iter().filter_map(|(heading, field)| {
            misspelt_section(text, display, heading, field, context)
        }),
    );
    if let Value::Object(map) = &mut value {
        for section in body.sections {
            // Line breaks as the front matter's values have them: YAML reads `\r\n` and a
            // `\r` alone as `\n`, and a field's value must not depend on where in the file
            // it is written.
            let content = text.get(section.content.clone()).unwrap_or_default();
            let content = if content.contains('\r') {
                content.replace("\r\n", "\n").replace('\r', "\n")
            } else {
                content.to_string()
            };
            if map.contains_key(&section.field) {
                diagnostics.push(
                    Diagnostic::new(
                        rules::DUPLICATE_KEY,
                        display,
                        format!("the field `{}` is set twice", section.field),
                    )
                    .at_span(section.heading.clone())
                    .with_label("this section sets it again")
                    .with_secondary(Label {
                        file: display.to_string(),
                        anchor: Anchor::Key(join_pointer("", &section.field)),
                        message: "first set here".into(),
                    })
                    .with_help("keep one of the two; the first is used"),
                );
            } else {
                fields.push(section.field.clone());
                map.insert(section.field, Value::String(content));
            }
        }
    }
    Some(MarkdownRecord {
        value,
        prose: Prose {
            body: front.body,
            sections: fields,
            links: body.links,
            fragments: body.fragments,
        },
        root,
    })
}

/// What [`parse_markdown`] reads of a Markdown record, as [`LoadedRecord`] holds it.
struct MarkdownRecord {
    value: Value,
    prose: Prose,
    root: Span,
}

/// Where a Markdown record whose front matter holds no document places its fields: the
/// opening `---`.
const FRONT_MATTER_OPENING: Span = 0..3;

/// `unknown-section`: a level-2 heading of a Markdown record that names no text field but is
/// a typo of one's (`## Workarond`): its text stays prose while the field stays empty, as
/// a misspelt key in the front matter would leave it. A heading that is no typo of a field
/// is prose on purpose, and is let be.
fn misspelt_section(
    text: &str,
    display: &str,
    heading: &Span,
    field: &str,
    context: &LoadContext<'_>,
) -> Option<Diagnostic> {
    if field.is_empty() {
        return None;
    }
    let fields = context.text_fields.iter().map(String::as_str);
    let meant: Vec<String> = suggest::suggest(field, fields, 3)
        .into_iter()
        .filter(|suggestion| {
            matches!(
                suggestion.kind,
                suggest::MatchKind::Same | suggest::MatchKind::Typo
            )
        })
        .map(|suggestion| format!("`## {}`", crate::serialize::heading(suggestion.name)))
        .collect();
    if meant.is_empty() {
        return None;
    }
    // A setext heading (`Workarond` over a line of `-`) is named by its text line.
    let written = text
        .get(heading.clone())
        .and_then(|h| h.split(['\n', '\r']).next())
        .unwrap_or_default()
        .trim_end();
    let heading = crate::source::first_line(text, heading);
    Some(
        Diagnostic::new(
            rules::UNKNOWN_SECTION,
            display,
            format!("the section `{written}` names no field"),
        )
        .at_span(heading)
        .with_label("its text stays prose; no field is set")
        .with_help(format!("did you mean {}?", meant.join(" or "))),
    )
}

fn duplicate_key(display: &str, duplicate: DuplicateKey) -> Diagnostic {
    Diagnostic::new(
        rules::DUPLICATE_KEY,
        display,
        format!("the key `{}` appears twice in one mapping", duplicate.key),
    )
    .at_span(duplicate.span)
    .with_label("duplicate key")
    .with_secondary(Label {
        file: display.to_string(),
        anchor: Anchor::Span(duplicate.first),
        message: "first defined here".into(),
    })
    .with_help("keep one of the two; the first value is the one used")
}

/// "a string", "an array" ...: the JSON type of a value, for messages.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

/// Builds the source map of a record file that has problems.
pub fn source_map(text: &str, format: Format, text_fields: &HashSet<String>) -> SourceMap {
    match format {
        Format::Json => json::scan(text).0,
        Format::Yaml => yaml_map(text, 0),
        Format::Markdown => {
            let Ok(front) = markdown::split_front_matter(text) else {
                return SourceMap::default();
            };
            let mut map = yaml_map(
                text.get(front.yaml.clone()).unwrap_or_default(),
                front.yaml.start,
            );
            if map.get("").is_none() {
                map.insert(
                    "",
                    Node {
                        key: None,
                        value: FRONT_MATTER_OPENING,
                    },
                );
            }
            for section in markdown::sections(text, &front.body, text_fields) {
                map.insert(
                    &join_pointer("", &section.field),
                    Node {
                        key: Some(section.heading),
                        value: section.content,
                    },
                );
            }
            map
        }
    }
}

fn yaml_map(text: &str, base: usize) -> SourceMap {
    yaml::parse(text, base, yaml::Limits::default(), true)
        .ok()
        .and_then(|parsed| parsed.source_map)
        .unwrap_or_default()
}
