//! `gotchas.toml`: where things are, which collections exist, and how loud each rule is.
//!
//! Every key is optional; with no file at all the tool runs on the zero-config layout
//! (`records/`, `schema/`). The file is read with the TOML parser's spanned tree rather than
//! through serde so that every mistake in it, an unknown key above all, gets a position and a
//! did-you-mean like any other diagnostic.
//!
//! ```toml
//! records = "records"            # the records root, relative to the corpus root
//! schemas = "schema"             # where `<type>.schema.json` files live
//! max_file_size = 10485760       # bytes; larger records are reported, not read
//! docs = ["docs/*.md"]           # prose files whose links are checked
//! baseline = "gotchas-baseline.json"  # accepted known problems
//!
//! [collections.gotcha]
//! folder = "gotchas"             # default: the schema's "x-collection", else type + "s"
//! schema = "gotcha.schema.json"  # default: <type>.schema.json
//! id_pattern = "^[a-z0-9]+(-[a-z0-9]+)*$"
//!
//! [rules]
//! missing-field = "warn"         # error | warn | allow
//!
//! [references]                   # reference fields, for schemas without "x-ref"
//! gotcha.affects = ["engine", "accelerator"]
//! "*.sources" = "source"         # `*`: every collection that has the field
//!
//! [graph]
//! leaf_collections = ["source"]  # exempt from `orphan`
//! acyclic_fields = ["supersedes"]
//! must_be_cited = ["source"]
//!
//! [site]
//! base_url = "/"
//! title = "gotchas"
//! repo_url = "https://github.com/org/kb"
//! enum_pages = ["severity", "status"]
//! paginate_by = 1000
//! ```

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::diagnostic::Diagnostic;
use crate::rules;
use crate::suggest;

/// The name of the config file looked for at the corpus root.
pub const FILE_NAME: &str = "gotchas.toml";

/// The corpus root for a command run in folder `dir` without `--root`: the nearest of `dir`
/// and its ancestors that holds a [`FILE_NAME`], as cargo finds its manifest and ruff its
/// settings, so that a check run from `records/gotchas/` checks the whole corpus. `None`
/// when none does: a corpus without a config is found only from its own folder, since a
/// `schema/` or `records/` folder alone says too little to claim a parent folder.
pub fn find_root(dir: &Path) -> Option<&Path> {
    dir.ancestors()
        .find(|folder| folder.join(FILE_NAME).is_file())
}

/// The default limit on a record file's size: far above any hand-written record, low enough
/// that a stray data dump is reported instead of read into memory.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10 * 1024 * 1024;

/// The default id pattern: kebab-case.
pub const DEFAULT_ID_PATTERN: &str = "^[a-z0-9]+(-[a-z0-9]+)*$";

/// How loud a rule is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Reported and fails the run.
    Error,
    /// Reported; the run still passes.
    Warn,
    /// Not reported.
    Allow,
}

impl Level {
    fn parse(text: &str) -> Option<Level> {
        match text {
            "error" => Some(Level::Error),
            "warn" => Some(Level::Warn),
            "allow" => Some(Level::Allow),
            _ => None,
        }
    }
}

/// Per-collection settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CollectionConfig {
    /// The folder under the records root.
    pub folder: Option<String>,
    /// The schema file, relative to the schema root.
    pub schema: Option<String>,
    /// The regular expression every id must match.
    pub id_pattern: Option<String>,
    /// Where its name is written in the config, for a diagnostic about the collection.
    pub span: Range<usize>,
}

/// The whole configuration, with defaults filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The file it was read from, if any.
    pub file: Option<PathBuf>,
    /// The records root, relative to the corpus root.
    pub records: PathBuf,
    /// The schema root, relative to the corpus root.
    pub schemas: PathBuf,
    /// Per-collection settings, by collection (type) name.
    pub collections: BTreeMap<String, CollectionConfig>,
    /// Rule levels that differ from the defaults, by rule code.
    pub rules: BTreeMap<String, Level>,
    /// Largest record file read, in bytes.
    pub max_file_size: u64,
    /// Glob patterns, relative to the corpus root, of prose files whose links are checked.
    pub docs: Vec<String>,
    /// Reference fields declared in the config: collection (or `*`) and field path, to the
    /// collections the field may point at.
    pub references: Vec<ReferenceConfig>,
    /// The baseline file of accepted known problems, relative to the corpus root.
    pub baseline: Option<PathBuf>,
    /// Settings of the graph rules.
    pub graph: GraphConfig,
    /// Settings of the published site (also used for links in graph exports).
    pub site: SiteConfig,
}

/// `[graph]`: what the graph rules expect of the corpus.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphConfig {
    /// Collections, by type or folder name, whose records are expected to be leaves:
    /// exempt from `orphan`. Each with where it is written, as the schemas that say which
    /// names are collections are read after the config.
    pub leaf_collections: Vec<(String, Range<usize>)>,
    /// Reference fields that must not form a cycle (`supersedes`), each with where it is
    /// written.
    pub acyclic_fields: Vec<(String, Range<usize>)>,
    /// Collections, by type or folder name, whose every record must be cited at least once
    /// (`unreferenced`), each with where it is written.
    pub must_be_cited: Vec<(String, Range<usize>)>,
}

/// `[site]`: where the site is published.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteConfig {
    /// The URL prefix of every page, ending in `/` (`/` or `/my-repo/` under GitHub Pages).
    pub base_url: String,
    /// The site's title.
    pub title: String,
    /// The repository's web address, for links to each record's file: the file's path is
    /// put in place of `{path}`, or appended after `/blob/HEAD/` when there is no `{path}`.
    pub repo_url: Option<String>,
    /// Enum fields that get a page per value (`/severity/major/`), each with where it is
    /// written in the config so that an unknown field can be pointed at. `None`: the
    /// default, `severity` and `status` where the schemas have them.
    pub enum_pages: Option<Vec<(String, Range<usize>)>>,
    /// The most records a list page (a collection's table, an enum value's records) shows:
    /// a longer list is split into pages of this many, the first at the list's path and the
    /// others at `page/2/`, `page/3/` below it. 0 never splits a list.
    pub paginate_by: usize,
}

/// How many records a list page shows by default: a corpus of a few hundred records keeps
/// its lists whole, and a list of a hundred thousand (40 MB of HTML, which no browser
/// shows in good time) becomes pages of a few hundred kilobytes.
pub const DEFAULT_PAGINATE_BY: usize = 1000;

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            base_url: "/".into(),
            title: "gotchas".into(),
            repo_url: None,
            enum_pages: None,
            paginate_by: DEFAULT_PAGINATE_BY,
        }
    }
}

/// One reference field declared in `[references]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceConfig {
    /// The collection, by type or folder name, or `*` for every collection.
    pub collection: String,
    /// Where the collection is written.
    pub collection_span: Range<usize>,
    /// The field path below the record: object keys; arrays on the way are looked through.
    pub path: Vec<String>,
    /// The collections the field may point at, by type or folder name, each with where it
    /// is written.
    pub targets: Vec<(String, Range<usize>)>,
    /// Where the declaration is in the config file, for errors found later.
    pub span: Range<usize>,
    /// Where each part of `path` is written: a quoted dotted key's parts share its span.
    pub path_spans: Vec<Range<usize>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            file: None,
            records: PathBuf::from("records"),
            schemas: PathBuf::from("schema"),
            collections: BTreeMap::new(),
            rules: BTreeMap::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            docs: Vec::new(),
            references: Vec::new(),
            baseline: None,
            graph: GraphConfig::default(),
            site: SiteConfig::default(),
        }
    }
}

impl Config {
    /// Reads the config at `path`. Errors are `invalid-config` diagnostics with positions.
    pub fn read(path: &Path, display: &str) -> Result<Config, Vec<Diagnostic>> {
        let text = crate::load::read_regular_to_string(path).map_err(|err| {
            vec![Diagnostic::new(
                rules::INVALID_CONFIG,
                display,
                format!("cannot read the config file: {err}"),
            )]
        })?;
        let mut config = Config::parse(&text, display)?;
        config.file = Some(path.to_path_buf());
        Ok(config)
    }

    /// Parses config text; `display` names the file in diagnostics.
    pub fn parse(text: &str, display: &str) -> Result<Config, Vec<Diagnostic>> {
        let table = DeTable::parse(text).map_err(|err| {
            let message = err.message().trim();
            let key = err
                .span()
                .and_then(|span| text.get(span))
                .filter(|_| message == "duplicate key");
            let diagnostic = match key {
                // toml names no key, and a header's span is its last part: `gotchas` of
                // `[collections.gotchas]`, which the message then names in full.
                Some(key) => {
                    Diagnostic::new(
                        rules::INVALID_CONFIG,
                        display,
                        format!("invalid TOML: duplicate key `{}`", duplicated(text, err.span(), key)),
                    )
                    .with_help("a key is set once in its table, and a table is opened once: remove or merge one of the two")
                }
                None => Diagnostic::new(
                    rules::INVALID_CONFIG,
                    display,
                    format!("invalid TOML: {message}"),
                ),
            };
            vec![match err.span() {
                Some(span) => diagnostic.at_span(span),
                None => diagnostic,
            }]
        })?;
        let mut reader = Reader {
            display,
            errors: Vec::new(),
        };
        let config = reader.config(table.get_ref());
        if reader.errors.is_empty() {
            Ok(config)
        } else {
            // Read setting by setting, reported in the order they are written.
            reader
                .errors
                .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            Err(reader.errors)
        }
    }

    /// The settings that loading a record reads, as text for the check cache's fingerprint
    /// (see [`crate::cache::fingerprint`]): where records, schemas and prose are, the
    /// collections' settings, the declared references and the largest file read. Rule
    /// levels, the baseline, the graph rules and the site are left out: they act on the
    /// diagnostics and edges that loading's results lead to, never on what a record loads
    /// as, so tuning them keeps the cache. The config file's own path is left out too.
    pub fn loading_settings(&self) -> String {
        let Config {
            file: _,
            records,
            schemas,
            collections,
            rules: _,
            max_file_size,
            docs,
            references,
            baseline: _,
            graph: _,
            site: _,
        } = self;
        format!("{records:?} {schemas:?} {collections:?} {max_file_size} {docs:?} {references:?}")
    }

    /// The `docs` patterns as one matcher of paths relative to the root, `None` when there
    /// are none (reading the config refuses a pattern that is no glob).
    pub fn docs_matcher(&self) -> Option<globset::GlobSet> {
        let mut builder = globset::GlobSetBuilder::new();
        for pattern in &self.docs {
            builder.add(docs_glob(pattern).ok()?);
        }
        builder.build().ok()
    }

    /// Whether a path relative to the root is one the `docs` patterns match: a prose page,
    /// when it is a file.
    pub fn is_docs_path(&self, relative: impl AsRef<Path>) -> bool {
        self.docs_matcher()
            .is_some_and(|docs| docs.is_match(relative.as_ref()))
    }

    /// How many bytes at the start of `display`, a prose page's path from the root, are the
    /// folder a `docs` pattern that may match it names before its first wildcard (`docs/`
    /// of `docs/**/*.md`; the longest, when several do): a wiki-link may name the page by
    /// the path after it (`[[windows/setup]]` for `docs/windows/setup.md`).
    pub fn docs_folder_len(&self, display: &str) -> usize {
        self.docs
            .iter()
            .map(|pattern| docs_folder(pattern))
            .filter(|folder| display.starts_with(folder))
            .map(str::len)
            .max()
            .unwrap_or(0)
    }

    /// The config file the corpus at `root` is read by, or where it would be.
    pub fn path(&self, root: &Path) -> PathBuf {
        self.file.clone().unwrap_or_else(|| root.join(FILE_NAME))
    }

    /// How diagnostics about the config name its file ([`display`]), `gotchas.toml` when
    /// there is none.
    pub fn shown(&self, root: &Path) -> String {
        self.file
            .as_deref()
            .map_or_else(|| FILE_NAME.to_string(), |file| display(root, file))
    }

    /// The largest schema or template file read: `max_file_size` may raise it, not lower it
    /// below the default, as it is set low to keep records small, which the corpus's own
    /// setup files need not be.
    pub fn max_setup_file_size(&self) -> u64 {
        self.max_file_size.max(DEFAULT_MAX_FILE_SIZE)
    }

    /// The level for a rule: the config's, else the rule's default.
    pub fn level(&self, code: &str) -> Level {
        self.rules
            .get(code)
            .copied()
            .or_else(|| rules::find(code).map(|rule| rule.default_level))
            .unwrap_or(Level::Error)
    }
}

/// The folder a `docs` pattern names before its first wildcard, with its `/`: `docs/` of
/// `docs/**/*.md`, `` of `*.md`.
fn docs_folder(pattern: &str) -> &str {
    let wildcard = pattern
        .find(['*', '?', '[', '{', '\\'])
        .unwrap_or(pattern.len());
    let fixed = pattern.get(..wildcard).unwrap_or_default();
    fixed
        .rfind('/')
        .and_then(|slash| fixed.get(..=slash))
        .unwrap_or_default()
}

/// A `docs` pattern as a glob, with `*` and `?` stopping at a `/`, as in a shell or a
/// `.gitignore`: `docs/*.md` is the pages of `docs/`, `docs/**/*.md` those below it too.
fn docs_glob(pattern: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
}

/// How diagnostics name a config file at `path`: from the corpus root when it is inside it,
/// else in full, since a report's excerpts are read from the root and a name relative to
/// the current folder would be read from the wrong place (`--config ../kb.toml`).
pub fn display(root: &Path, path: &Path) -> String {
    let resolved = crate::write::resolved(path);
    match resolved.strip_prefix(crate::write::resolved(root)) {
        Ok(inside) if !inside.as_os_str().is_empty() => {
            crate::source::display_path(Path::new(""), inside)
        }
        _ => resolved.display().to_string(),
    }
}

/// The key a duplicate-key error's `span` points at, named as a user finds it: a table
/// header's span covers its last part only, so a header is named from its start.
fn duplicated<'t>(text: &'t str, span: Option<std::ops::Range<usize>>, key: &'t str) -> &'t str {
    let Some(span) = span else { return key };
    let line_start = text
        .get(..span.start)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let before = text.get(line_start..span.end).unwrap_or(key).trim_start();
    match before.strip_prefix('[') {
        Some(header) => header.trim_start_matches('[').trim(),
        None => key,
    }
}

/// A site's base URL as the site uses it, ending with `/`; refused when relative, since
/// the pages that need an absolute address (the 404 page, which a server shows at any
/// depth, the feed, the sitemap) would lead nowhere. `/` and `/kb/` (a path on the same
/// server) and `https://org.github.io/kb/` are base URLs; `kb/` is not.
pub fn base_url(url: &str) -> Result<String, String> {
    let scheme = url.split_once("://").is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if !(url.starts_with('/') || scheme) {
        return Err(format!(
            "`{url}` is relative: a base URL starts with `/` (`/{url}`) or a scheme \
             (`https://example.org/{url}`)"
        ));
    }
    // A page's path is added after the base: after a query or a fragment it would be part
    // of that, and every URL would name the base's page.
    if let Some(tail) = url.find(['?', '#']).and_then(|at| url.get(at..)) {
        return Err(format!(
            "`{url}` has a {} (`{tail}`): a base URL is the folder the site is published \
             in, and each page's path goes after it",
            if tail.starts_with('?') {
                "query"
            } else {
                "fragment"
            },
        ));
    }
    // Written into the feed, the sitemap and every page's canonical link.
    let url = crate::markup::url_encoded(url);
    Ok(if url.ends_with('/') {
        url.into_owned()
    } else {
        format!("{url}/")
    })
}

/// Walks the spanned TOML tree, collecting every error instead of stopping at the first.
struct Reader<'a> {
    display: &'a str,
    errors: Vec<Diagnostic>,
}

type Entry<'t, 'i> = (
    &'t Spanned<std::borrow::Cow<'i, str>>,
    &'t Spanned<DeValue<'i>>,
);

impl Reader<'_> {
    fn config(&mut self, table: &DeTable<'_>) -> Config {
        let mut config = Config::default();
        const KEYS: &[&str] = &[
            "records",
            "schemas",
            "max_file_size",
            "docs",
            "baseline",
            "collections",
            "rules",
            "references",
            "graph",
            "site",
        ];
        for (key, value) in table.iter() {
            match key.get_ref().as_ref() {
                "records" => {
                    if let Some(path) = self.string(value) {
                        config.records = PathBuf::from(path);
                    }
                }
                "schemas" => {
                    if let Some(path) = self.string(value) {
                        config.schemas = PathBuf::from(path);
                    }
                }
                "max_file_size" => {
                    if let Some(size) = self.integer(value) {
                        config.max_file_size = size;
                    }
                }
                "docs" => config.docs = self.globs(value),
                "baseline" => {
                    if let Some(path) = self.string(value) {
                        config.baseline = Some(PathBuf::from(path));
                    }
                }
                "references" => {
                    if let Some(table) = self.table(value) {
                        self.references(table, &mut Vec::new(), &mut config.references);
                    }
                }
                "graph" => {
                    if let Some(table) = self.table(value) {
                        config.graph = self.graph(table);
                    }
                }
                "site" => {
                    if let Some(table) = self.table(value) {
                        config.site = self.site(table);
                    }
                }
                "collections" => {
                    if let Some(collections) = self.table(value) {
                        for (name, value) in collections.iter() {
                            let mut collection = self.collection(name.get_ref(), value);
                            collection.span = name.span();
                            config
                                .collections
                                .insert(name.get_ref().to_string(), collection);
                        }
                    }
                }
                "rules" => {
                    if let Some(levels) = self.table(value) {
                        for entry in levels.iter() {
                            self.rule_level(entry, &mut config.rules);
                        }
                    }
                }
                _ => self.unknown_key(key, KEYS, "at the top level"),
            }
        }
        config
    }

    fn collection(&mut self, name: &str, value: &Spanned<DeValue<'_>>) -> CollectionConfig {
        let mut collection = CollectionConfig::default();
        const KEYS: &[&str] = &["folder", "schema", "id_pattern"];
        let Some(table) = self.table(value) else {
            return collection;
        };
        for (key, value) in table.iter() {
            let slot = match key.get_ref().as_ref() {
                "folder" => &mut collection.folder,
                "schema" => &mut collection.schema,
                "id_pattern" => &mut collection.id_pattern,
                _ => {
                    self.unknown_key(key, KEYS, &format!("in [collections.{name}]"));
                    continue;
                }
            };
            *slot = self.string(value);
        }
        // Compiled here as well as with the schemas, so that a pattern that is no regular
        // expression is reported where it is written.
        if let Some(pattern) = &collection.id_pattern
            && let Some((_, value)) = table.iter().find(|(key, _)| key.get_ref() == "id_pattern")
            && let Err(err) = regex::Regex::new(pattern)
        {
            // The regex crate draws the pattern with a caret over several lines; the span
            // shows where, so its last line, the reason, is what is said.
            let text = err.to_string();
            let reason = text.lines().last().unwrap_or_default();
            let reason = reason.trim().trim_start_matches("error: ");
            let diagnostic = self
                .error(
                    value.span(),
                    format!("`id_pattern` is not a valid regular expression: {reason}"),
                )
                .with_label("not a regular expression");
            self.errors.push(diagnostic);
        }
        collection
    }

    /// Flattens `[references]`: `gotcha.affects = [...]` is a nested table in TOML, and
    /// `"*.sources" = "source"` a quoted dotted key; both mean collection then field path.
    fn references(
        &mut self,
        table: &DeTable<'_>,
        prefix: &mut Vec<(String, Range<usize>)>,
        out: &mut Vec<ReferenceConfig>,
    ) {
        for (key, value) in table.iter() {
            let depth = prefix.len();
            // A quoted dotted key (`"*.sources"`) is one key of several parts: each is placed
            // inside its quotes, unless escapes make the key as written longer than its name.
            let name = key.get_ref().as_ref();
            let span = key.span();
            let inside = match span.len().checked_sub(name.len()) {
                Some(2) => Some(span.start + 1),
                Some(0) => Some(span.start),
                _ => None,
            };
            let mut at = inside.unwrap_or(span.start);
            for part in name.split('.') {
                let part_span = match inside {
                    Some(_) => at..at + part.len(),
                    None => span.clone(),
                };
                at += part.len() + 1;
                prefix.push((part.to_string(), part_span));
            }
            let names = || {
                prefix
                    .iter()
                    .map(|(part, _)| part.as_str())
                    .collect::<Vec<_>>()
                    .join(".")
            };
            if let Some(inner) = value.get_ref().as_table() {
                self.references(inner, prefix, out);
            } else if prefix.len() < 2 {
                let diagnostic = self
                    .error(key.span(), format!("`{}` names no field", names()))
                    .with_label("expected `collection.field`")
                    .with_help(
                        "write `gotcha.affects = [\"engine\"]` or `\"*.sources\" = \"source\"`",
                    );
                self.errors.push(diagnostic);
            } else if let Some(((collection, collection_span), path)) = prefix.split_first() {
                let targets = self.spanned_strings(value);
                out.push(ReferenceConfig {
                    collection: collection.clone(),
                    collection_span: collection_span.clone(),
                    path: path.iter().map(|(part, _)| part.clone()).collect(),
                    targets,
                    span: key.span().start..value.span().end,
                    path_spans: path.iter().map(|(_, span)| span.clone()).collect(),
                });
            }
            prefix.truncate(depth);
        }
    }

    fn graph(&mut self, table: &DeTable<'_>) -> GraphConfig {
        const KEYS: &[&str] = &["leaf_collections", "acyclic_fields", "must_be_cited"];
        let mut graph = GraphConfig::default();
        for (key, value) in table.iter() {
            let slot = match key.get_ref().as_ref() {
                "leaf_collections" => &mut graph.leaf_collections,
                "acyclic_fields" => &mut graph.acyclic_fields,
                "must_be_cited" => &mut graph.must_be_cited,
                _ => {
                    self.unknown_key(key, KEYS, "in [graph]");
                    continue;
                }
            };
            *slot = self.spanned_strings(value);
        }
        graph
    }

    fn site(&mut self, table: &DeTable<'_>) -> SiteConfig {
        const KEYS: &[&str] = &["base_url", "title", "repo_url", "enum_pages", "paginate_by"];
        let mut site = SiteConfig::default();
        for (key, value) in table.iter() {
            match key.get_ref().as_ref() {
                "base_url" => {
                    if let Some(url) = self.string(value) {
                        match base_url(&url) {
                            Ok(url) => site.base_url = url,
                            Err(why) => {
                                let error = self.error(value.span(), why);
                                self.errors.push(error);
                            }
                        }
                    }
                }
                "title" => {
                    if let Some(title) = self.string(value) {
                        site.title = title;
                    }
                }
                "repo_url" => {
                    if let Some(url) = self.string(value) {
                        // Put in the `href` of every record page: a `javascript:` address
                        // would run on a reader's click.
                        if url.starts_with("https://") || url.starts_with("http://") {
                            site.repo_url = Some(url);
                        } else {
                            let error = self
                                .error(
                                    value.span(),
                                    format!("`repo_url` `{url}` is not an http(s) address"),
                                )
                                .with_label("expected `https://...`");
                            self.errors.push(error);
                        }
                    }
                }
                "enum_pages" => site.enum_pages = Some(self.spanned_strings(value)),
                "paginate_by" => {
                    if let Some(count) = self.integer(value) {
                        site.paginate_by = usize::try_from(count).unwrap_or(usize::MAX);
                    }
                }
                _ => self.unknown_key(key, KEYS, "in [site]"),
            }
        }
        site
    }

    /// The `docs` patterns, a string or an array of strings; one that is no glob is
    /// reported where it is written.
    fn globs(&mut self, value: &Spanned<DeValue<'_>>) -> Vec<String> {
        let patterns = self.spanned_strings(value);
        let mut globs = Vec::with_capacity(patterns.len());
        for (pattern, span) in patterns {
            // Paths are matched relative to the root, where `./docs/*.md` would match
            // nothing, and no page would be checked.
            let mut pattern = pattern.as_str();
            while let Some(rest) = pattern.strip_prefix("./") {
                pattern = rest;
            }
            match docs_glob(pattern) {
                Ok(_) => globs.push(pattern.to_string()),
                Err(err) => {
                    let reason = err.kind().to_string();
                    let diagnostic = self
                        .error(span, format!("invalid docs pattern `{pattern}`: {reason}"))
                        .with_label("not a glob");
                    self.errors.push(diagnostic);
                }
            }
        }
        globs
    }

    /// A string or an array of strings, each with its span.
    fn spanned_strings(&mut self, value: &Spanned<DeValue<'_>>) -> Vec<(String, Range<usize>)> {
        if let Some(text) = value.get_ref().as_str() {
            return vec![(text.to_string(), value.span())];
        }
        let Some(items) = value.get_ref().as_array() else {
            self.expected(value, "a string or an array of strings");
            return Vec::new();
        };
        items
            .iter()
            .filter_map(|item| Some((self.string(item)?, item.span())))
            .collect()
    }

    fn rule_level(&mut self, (key, value): Entry<'_, '_>, levels: &mut BTreeMap<String, Level>) {
        let code = key.get_ref().as_ref();
        if rules::find(code).is_none() {
            let known = rules::ALL.iter().map(|rule| rule.code);
            let suggestions = suggest::suggest(code, known, 3);
            let mut diagnostic = self
                .error(key.span(), format!("unknown rule `{code}`"))
                .with_label("no rule has this code")
                .with_note("`gotchas explain` lists every rule");
            if let Some(help) = suggest::did_you_mean(&suggestions) {
                diagnostic = diagnostic.with_help(help);
            }
            self.errors.push(diagnostic);
            return;
        }
        let Some(text) = self.string(value) else {
            return;
        };
        if rules::find(code).is_some_and(|rule| rule.fatal) {
            // Such a problem stops the run whatever its level: a level would say otherwise.
            let diagnostic = self
                .error(key.span(), format!("the level of `{code}` cannot be set"))
                .with_label("a problem with the config or a schema always stops the run")
                .with_help(
                    "levels apply to the rules about records; a problem with the config or a \
                     schema stops the run with exit code 2 whatever its level",
                );
            self.errors.push(diagnostic);
            return;
        }
        match Level::parse(&text) {
            Some(level) => {
                levels.insert(code.to_string(), level);
            }
            None => {
                let diagnostic = self
                    .error(value.span(), format!("unknown rule level `{text}`"))
                    .with_label("expected `error`, `warn` or `allow`");
                let suggestions = suggest::suggest(&text, ["error", "warn", "allow"], 1);
                let diagnostic = match suggest::did_you_mean(&suggestions) {
                    Some(help) => diagnostic.with_help(help),
                    None => diagnostic,
                };
                self.errors.push(diagnostic);
            }
        }
    }

    fn unknown_key(&mut self, key: &Spanned<std::borrow::Cow<'_, str>>, known: &[&str], at: &str) {
        let name = key.get_ref().as_ref();
        let diagnostic = self
            .error(key.span(), format!("unknown config key `{name}` {at}"))
            .with_label("unknown key");
        self.errors.push(suggest::unknown_name(
            diagnostic,
            name,
            "known keys here",
            known,
        ));
    }

    fn string(&mut self, value: &Spanned<DeValue<'_>>) -> Option<String> {
        match value.get_ref().as_str() {
            Some(text) => Some(text.to_string()),
            None => {
                self.expected(value, "a string");
                None
            }
        }
    }

    fn integer(&mut self, value: &Spanned<DeValue<'_>>) -> Option<u64> {
        let parsed = value
            .get_ref()
            .as_integer()
            .and_then(|i| u64::from_str_radix(&i.as_str().replace('_', ""), i.radix()).ok());
        match value.get_ref().as_integer() {
            // An integer, but below zero or too large: its type is not what is wrong.
            Some(written) if parsed.is_none() => {
                let label = if written.as_str().starts_with('-') {
                    "below zero"
                } else {
                    "too large"
                };
                let diagnostic = self
                    .error(
                        value.span(),
                        format!(
                            "expected a non-negative integer, found `{}`",
                            written.as_str()
                        ),
                    )
                    .with_label(label);
                self.errors.push(diagnostic);
            }
            None => self.expected(value, "a non-negative integer"),
            Some(_) => {}
        }
        parsed
    }

    fn table<'t, 'i>(&mut self, value: &'t Spanned<DeValue<'i>>) -> Option<&'t DeTable<'i>> {
        let table = value.get_ref().as_table();
        if table.is_none() {
            self.expected(value, "a table");
        }
        table
    }

    fn expected(&mut self, value: &Spanned<DeValue<'_>>, what: &str) {
        let kind = value.get_ref().type_str();
        let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        let found = format!("{article} {kind}");
        let diagnostic = self
            .error(value.span(), format!("expected {what}, found {found}"))
            .with_label(format!("this is {found}"));
        self.errors.push(diagnostic);
    }

    fn error(&self, span: Range<usize>, message: String) -> Diagnostic {
        Diagnostic::new(rules::INVALID_CONFIG, self.display, message).at_span(span)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_root_is_the_nearest_folder_up_holding_a_config() {
        let top = tempfile::tempdir().unwrap();
        let corpus = top.path().join("kb");
        let deep = corpus.join("records/gotchas");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(find_root(&deep), None);
        std::fs::write(corpus.join(FILE_NAME), "").unwrap();
        assert_eq!(find_root(&deep), Some(corpus.as_path()));
        assert_eq!(find_root(&corpus), Some(corpus.as_path()));
        // A folder named like the config is not one.
        std::fs::create_dir(deep.join(FILE_NAME)).unwrap();
        assert_eq!(find_root(&deep), Some(corpus.as_path()));
        std::fs::write(deep.join("../gotchas.toml"), "").unwrap();
        assert_eq!(find_root(&deep), Some(corpus.join("records").as_path()));
    }
    use super::*;

    #[test]
    fn a_duplicate_key_or_table_is_named() {
        let said = |toml: &str| {
            let errors = Config::parse(toml, "gotchas.toml").unwrap_err();
            let [error] = errors.as_slice() else {
                panic!("{errors:?}")
            };
            let crate::diagnostic::Anchor::Span(span) = &error.anchor else {
                panic!("{error:?}")
            };
            (
                error.message.clone(),
                crate::source::line_col(toml, span.start).line,
            )
        };
        assert_eq!(
            said("records = 'a'\nrecords = 'b'\n"),
            ("invalid TOML: duplicate key `records`".to_string(), 2)
        );
        assert_eq!(
            said("[collections.gotchas]\n[rules]\n[ collections.gotchas ]\n"),
            (
                "invalid TOML: duplicate key `collections.gotchas`".to_string(),
                3
            )
        );
        assert_eq!(
            said("records = 'a'\nrecords 'b'\n").0,
            "invalid TOML: key with no value, expected `=`"
        );
    }

    #[test]
    fn a_base_url_is_written_as_a_url() {
        assert_eq!(base_url("/my kb").unwrap(), "/my%20kb/");
        assert_eq!(
            base_url("https://x.org/a%20b/é").unwrap(),
            "https://x.org/a%20b/%C3%A9/"
        );
        assert!(base_url("kb/").is_err());
    }

    #[test]
    fn a_repo_url_is_an_http_address() {
        let errors = Config::parse(
            "[site]\nrepo_url = \"javascript:alert(1)//\"\n",
            "gotchas.toml",
        )
        .unwrap_err();
        assert_eq!(
            errors[0].message,
            "`repo_url` `javascript:alert(1)//` is not an http(s) address"
        );
        let config = Config::parse(
            "[site]\nrepo_url = \"https://example.org/kb\"\n",
            "gotchas.toml",
        )
        .unwrap();
        assert_eq!(
            config.site.repo_url.as_deref(),
            Some("https://example.org/kb")
        );
    }

    #[test]
    fn empty_config_is_the_default() {
        assert_eq!(Config::parse("", "gotchas.toml"), Ok(Config::default()));
    }

    #[test]
    fn reads_every_key() {
        let config = Config::parse(
            "records = 'data'\nschemas = 'schemas'\nmax_file_size = 1_000\n\
             [collections.gotcha]\nfolder = 'gotchas'\n[rules]\nmissing-field = 'warn'\n",
            "gotchas.toml",
        )
        .unwrap();
        assert_eq!(config.records, PathBuf::from("data"));
        assert_eq!(config.max_file_size, 1000);
        assert_eq!(
            config.collections["gotcha"].folder.as_deref(),
            Some("gotchas")
        );
        assert_eq!(config.level("missing-field"), Level::Warn);
    }

    #[test]
    fn references_flatten_dotted_and_nested_keys() {
        let config = Config::parse(
            "docs = ['docs/*.md']\n[references]\ngotcha.affects = ['engine', 'accelerator']\n\
             \"*.sources\" = 'source'\naccelerator.flops.source_id = 'source'\n",
            "gotchas.toml",
        )
        .unwrap();
        assert_eq!(config.docs, vec!["docs/*.md"]);
        let found: Vec<(String, Vec<String>, Vec<String>)> = config
            .references
            .into_iter()
            .map(|r| {
                let targets = r.targets.into_iter().map(|(target, _)| target).collect();
                (r.collection, r.path, targets)
            })
            .collect();
        assert!(found.contains(&(
            "gotcha".into(),
            vec!["affects".into()],
            vec!["engine".into(), "accelerator".into()]
        )));
        assert!(found.contains(&("*".into(), vec!["sources".into()], vec!["source".into()])));
        assert!(found.contains(&(
            "accelerator".into(),
            vec!["flops".into(), "source_id".into()],
            vec!["source".into()]
        )));
    }

    #[test]
    fn unknown_key_gets_did_you_mean_at_its_position() {
        let errors = Config::parse("recrods = 'x'\n", "gotchas.toml").unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].anchor, crate::diagnostic::Anchor::Span(0..7));
        assert_eq!(errors[0].help.as_deref(), Some("did you mean `records`?"));
    }

    #[test]
    fn an_id_pattern_that_is_no_regular_expression_is_placed() {
        let toml = "[collections.engine]\nid_pattern = \"^[a-z(\"\n";
        let errors = Config::parse(toml, "gotchas.toml").unwrap_err();
        assert_eq!(
            errors[0].message,
            "`id_pattern` is not a valid regular expression: unclosed character class"
        );
        assert_eq!(errors[0].anchor, crate::diagnostic::Anchor::Span(34..42));
    }

    #[test]
    fn a_number_out_of_range_is_told_from_a_value_of_another_type() {
        let said = |toml: &str| {
            let errors = Config::parse(toml, "gotchas.toml").unwrap_err();
            (errors[0].message.clone(), errors[0].label.clone().unwrap())
        };
        assert_eq!(
            said("max_file_size = -1\n"),
            (
                "expected a non-negative integer, found `-1`".into(),
                "below zero".into()
            )
        );
        assert_eq!(
            said("max_file_size = \"big\"\n"),
            (
                "expected a non-negative integer, found a string".into(),
                "this is a string".into()
            )
        );
        assert_eq!(
            said("max_file_size = [1]\n").0,
            "expected a non-negative integer, found an array"
        );
    }
}
