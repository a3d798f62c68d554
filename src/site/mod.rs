//! The static site: every record, collection, enum value and prose page as linked HTML, with
//! search, a graph explorer, a feed, a sitemap and the data as JSON.
//!
//! Building is a function of the loaded corpus, in three steps that never reach back:
//!
//! ```text
//! Corpus ─> Content ─────────> plan ──────────> render each file ─> check its links ─> Sink
//!          (resolved once:     (every file's    (in parallel; a file depends on the
//!           pages, refs,        path, known      content alone)
//!           backlinks, graph)   up front)
//! ```
//!
//! Because every output path is known before anything is rendered, each page's links are
//! checked against the whole site as soon as the page is rendered, and the page can be
//! written and dropped: memory stays flat however large the corpus. Output is deterministic:
//! no clock, no hash order, dates only from the records.

mod content;
mod data;
mod feed;
mod fields;
mod json;
mod kept;
mod linked;
mod markdown;
mod output;
mod pages;
mod removal;
mod search;
pub mod serve;
mod statics;
mod templates;
pub(crate) mod urls;

use rayon::prelude::*;

pub use kept::{FieldValue, Kept};
pub use output::{Committed, MARKER, Memory, OutputError, Sink, Staging, Streamer, Swept};
pub use removal::Left;
pub use statics::FOLDER as STATIC_FOLDER;
pub use templates::FOLDER as TEMPLATES_FOLDER;

use crate::corpus::Corpus;
use crate::diagnostic::Diagnostic;
use crate::index::Source;
use crate::project::Project;
use crate::rules;
use content::Content;
use pages::Frame;
use templates::Templates;

/// Why a build failed after it started writing.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A template failed while rendering a page.
    #[error("cannot render `{file}`: {message}")]
    Render {
        /// The page.
        file: String,
        /// The template error, with its position.
        message: String,
    },
    /// Generated pages link to files the site does not have: a bug in a template.
    #[error("the site links to files it does not have:\n{}", list(.0))]
    BrokenLinks(Vec<(String, String)>),
    /// A file could not be written.
    #[error("cannot write `{file}`: {source}")]
    Write {
        /// The file.
        file: String,
        /// The error.
        source: std::io::Error,
    },
}

fn list(broken: &[(String, String)]) -> String {
    broken
        .iter()
        .map(|(file, link)| format!("  {file}: {link}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One file of the site.
#[derive(Clone, Debug)]
enum Item {
    Home,
    /// A collection's table: the collection, and the page of it (from 0).
    Collection(usize, usize),
    Record(usize),
    Field(usize),
    /// An enum value's records: the field, the value, and the page of them (from 0).
    Value(usize, usize, usize),
    Doc(usize),
    Graph,
    Search,
    NotFound,
    RecordJson(usize),
    Records,
    GraphJson,
    GraphScript,
    SearchScript,
    Feed,
    /// A sitemap file: its part (see [`feed::sitemap_names`]).
    Sitemap(usize),
    Asset(String),
    /// A file prose links to, copied: its place in [`linked::Linked::files`].
    Linked(usize),
    /// A file of the static folder, copied: its place in [`statics::Statics::files`].
    Static(usize),
}

impl Item {
    /// What the file is, for messages.
    fn what(&self) -> &'static str {
        match self {
            Item::Home => "the home page",
            Item::Collection(..) => "a collection page",
            Item::Record(_) => "a record page",
            Item::Field(_) => "an enum field page",
            Item::Value(..) => "an enum value page",
            Item::Doc(_) => "a prose page",
            Item::Graph | Item::GraphScript => "the graph explorer",
            Item::Search | Item::SearchScript => "the search page",
            Item::NotFound => "the 404 page",
            Item::RecordJson(_) => "a record's JSON",
            Item::Records => "records.json",
            Item::GraphJson => "graph.json",
            Item::Feed => "the feed",
            Item::Sitemap(_) => "the sitemap",
            Item::Asset(_) => "an asset",
            Item::Linked(_) => "a file prose links to",
            Item::Static(_) => "a file of the `static` folder",
        }
    }

    fn is_html(&self) -> bool {
        matches!(
            self,
            Item::Home
                | Item::Collection(..)
                | Item::Record(_)
                | Item::Field(_)
                | Item::Value(..)
                | Item::Doc(_)
                | Item::Graph
                | Item::Search
                | Item::NotFound
        )
    }
}

/// A site ready to be written: the content, the templates and the list of files.
pub struct Site<'c> {
    content: Content<'c>,
    templates: Templates,
    files: Vec<(String, Item)>,
    /// The pages the sitemap lists, by their place in `files`, with their `lastmod` dates.
    sitemap_pages: Vec<(usize, Option<&'c str>)>,
}

impl<'c> Site<'c> {
    /// Plans the site of a loaded corpus. `base_url` overrides the config's; it is one
    /// [`crate::config::base_url`] accepts. Fails on setup problems: a template that does
    /// not compile, an unknown `enum_pages` field, or two pages that would have the same
    /// path.
    pub fn new(
        project: &'c Project,
        corpus: &'c Corpus<Kept>,
        base_url: Option<&str>,
    ) -> Result<Site<'c>, Vec<Diagnostic>> {
        let mut site = project.config.site.clone();
        if let Some(base) = base_url {
            site.base_url = base.to_string();
        }
        let templates = Templates::load(&project.root, project.config.max_setup_file_size())?;
        let content = Content::new(
            &project.root,
            &project.config,
            &project.schemas,
            corpus,
            site,
        )?;
        let mut files = plan(&content, &templates);
        let sitemap_pages: Vec<(usize, Option<&'c str>)> = files
            .iter()
            .enumerate()
            .filter(|(_, (_, item))| item.is_html() && !matches!(item, Item::NotFound))
            .map(|(file, (_, item))| {
                let updated = match item {
                    Item::Record(p) => feed::lastmod(content.text(*p, "updated")),
                    _ => None,
                };
                (file, updated)
            })
            .collect();
        files.extend(
            feed::sitemap_names(sitemap_pages.len())
                .into_iter()
                .enumerate()
                .map(|(part, name)| (name, Item::Sitemap(part))),
        );
        collisions(project, &files)?;
        Ok(Site {
            content,
            templates,
            files,
            sitemap_pages,
        })
    }

    /// How many files the site has.
    pub fn files(&self) -> usize {
        self.files.len()
    }

    /// How many of them are HTML pages.
    pub fn pages(&self) -> usize {
        self.files.iter().filter(|(_, item)| item.is_html()).count()
    }

    /// The broken links in prose and in string fields, which the pages mark, and the
    /// fragments of links that name no place in their page (the page is linked all the
    /// same): the diagnostics `check` gives them, at the levels the config sets.
    pub fn diagnostics(&self, project: &Project) -> Vec<Diagnostic> {
        let links: Vec<_> = self
            .content
            .resolved
            .unresolved
            .iter()
            .filter(|u| matches!(u.source, Source::Link { .. } | Source::FieldLink { .. }))
            .cloned()
            .collect();
        let mut found = crate::check::refs::check(
            self.content.corpus,
            self.content.schemas,
            &self.content.index,
            &links,
            None,
        );
        found.extend(crate::check::fragments(
            self.content.corpus,
            self.content.schemas,
            &project.config,
            &self.content.index,
            None,
        ));
        let mut diagnostics: Vec<Diagnostic> = found
            .into_iter()
            .filter_map(|mut d| {
                d.severity = match project.config.level(d.code) {
                    crate::config::Level::Allow => return None,
                    crate::config::Level::Warn => crate::Severity::Warning,
                    crate::config::Level::Error => crate::Severity::Error,
                };
                Some(d)
            })
            .collect();
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        diagnostics
    }

    /// References in fields that do not resolve (they name no record, one of a collection
    /// the field may not cite, or several): shown unlinked and marked on their pages.
    pub fn unresolved_fields(&self) -> usize {
        self.content
            .resolved
            .unresolved
            .iter()
            .filter(|u| matches!(u.source, Source::Field { .. }))
            .count()
    }

    /// The files of records that have no page, in corpus order: a record whose id another
    /// record of its collection has already (the first keeps the page, as it keeps the id
    /// in the graph).
    pub fn unpublished_records(&self) -> Vec<&str> {
        let corpus = self.content.corpus;
        self.content
            .published
            .iter()
            .zip(&corpus.records)
            .filter(|(published, _)| published.is_none())
            .map(|(_, record)| corpus.file_of(record).display.as_str())
            .collect()
    }

    /// Renders every file, checks the links of every page, and hands each file to `sink`.
    /// `progress` is called once per file written.
    pub fn write(&self, sink: &dyn Sink, progress: &(dyn Fn() + Sync)) -> Result<(), BuildError> {
        let mut known: foldhash::HashSet<&str> =
            foldhash::HashSet::with_capacity_and_hasher(self.files.len(), Default::default());
        known.extend(self.files.iter().map(|(f, _)| f.as_str()));
        let frame = Frame::new(&self.content, &self.templates);
        let broken: Vec<Vec<(String, String)>> = self
            .files
            .par_iter()
            .map(|(file, item)| {
                let (written, broken) = match self.render(&frame, file, item)? {
                    Rendered::Page(html) => {
                        let broken: Vec<(String, String)> =
                            urls::broken_links(file, &html, &known, &self.content.site.base_url)
                                .into_iter()
                                .map(|link| (file.clone(), link))
                                .collect();
                        (sink.put(file, html.as_bytes()), broken)
                    }
                    Rendered::Data(bytes) => (sink.put(file, &bytes), Vec::new()),
                    Rendered::Streamed(write) => (sink.put_streamed(file, &*write), Vec::new()),
                };
                written.map_err(|source| BuildError::Write {
                    file: file.clone(),
                    source,
                })?;
                progress();
                Ok(broken)
            })
            .collect::<Result<_, BuildError>>()?;
        let mut broken: Vec<(String, String)> = broken.into_iter().flatten().collect();
        if broken.is_empty() {
            return Ok(());
        }
        broken.sort();
        Err(BuildError::BrokenLinks(broken))
    }

    fn render<'s>(
        &'s self,
        frame: &Frame<'_, '_>,
        file: &str,
        item: &Item,
    ) -> Result<Rendered<'s>, BuildError> {
        let content = &self.content;
        let html = match item {
            Item::Home => frame.home(file),
            Item::Collection(c, number) => frame.collection(file, *c, *number),
            Item::Record(p) => frame.record(file, *p),
            Item::Field(f) => frame.field(file, *f),
            Item::Value(f, v, number) => frame.value(file, *f, *v, *number),
            Item::Doc(d) => frame.doc(file, *d),
            Item::Graph => frame.plain("graph.html", file, "graph/", "Graph"),
            Item::Search => frame.plain("search.html", file, "search/", "Search"),
            Item::NotFound => frame.plain("404.html", file, "404.html", "Not found"),
            Item::RecordJson(p) => return Ok(Rendered::text(data::record_file(content, *p))),
            Item::Records => {
                return Ok(Rendered::streamed(|out| data::write_records(content, out)));
            }
            Item::GraphJson => {
                return Ok(Rendered::streamed(|out| {
                    crate::graph::export::write_json(&content.graph, &content.site, out)
                }));
            }
            Item::GraphScript => {
                return Ok(Rendered::streamed(|out| {
                    data::write_graph_script(content, out)
                }));
            }
            Item::SearchScript => {
                return Ok(Rendered::streamed(|out| search::write_script(content, out)));
            }
            Item::Feed => return Ok(Rendered::text(feed::atom(content))),
            &Item::Sitemap(part) => {
                return Ok(Rendered::streamed(move |out| {
                    let pages = self.sitemap_pages.iter().filter_map(|&(file, updated)| {
                        let (path, _) = self.files.get(file)?;
                        Some((path.strip_suffix("index.html").unwrap_or(path), updated))
                    });
                    let count = self.sitemap_pages.len();
                    feed::write_sitemap(out, part, &content.site.base_url, count, pages)
                }));
            }
            Item::Asset(name) => {
                let bytes = self.templates.assets.get(name).cloned().unwrap_or_default();
                return Ok(Rendered::Data(bytes));
            }
            &Item::Linked(at) => {
                let source = content.linked.files().get(at).map(|(_, path)| path);
                return Ok(copied(source));
            }
            &Item::Static(at) => {
                let source = content.statics.files().get(at).map(|(_, path)| path);
                return Ok(copied(source));
            }
        };
        html.map(Rendered::Page).map_err(|err| BuildError::Render {
            file: file.to_string(),
            message: format!("{err:#}"),
        })
    }
}

/// A rendered file: a page, whose links are checked, or anything else, whole or streamed.
enum Rendered<'s> {
    Page(String),
    Data(Vec<u8>),
    Streamed(Box<Streamer<'s>>),
}

impl<'s> Rendered<'s> {
    fn text(text: String) -> Rendered<'static> {
        Rendered::Data(text.into_bytes())
    }

    fn streamed(
        write: impl Fn(&mut dyn std::io::Write) -> std::io::Result<()> + Sync + 's,
    ) -> Rendered<'s> {
        Rendered::Streamed(Box::new(write))
    }
}

/// A file of the corpus, streamed into the site as it is.
fn copied(source: Option<&std::path::PathBuf>) -> Rendered<'_> {
    Rendered::streamed(move |out| {
        let source = source.ok_or(std::io::ErrorKind::NotFound)?;
        std::io::copy(&mut std::fs::File::open(source)?, out).map(drop)
    })
}

/// Every file of the site but the sitemaps, with its path.
fn plan(content: &Content<'_>, templates: &Templates) -> Vec<(String, Item)> {
    let page = |folder: &str| format!("{folder}index.html");
    let per_page = content.site.paginate_by;
    let mut files = vec![(page(""), Item::Home)];
    for (index, collection) in content.collections.iter().enumerate() {
        files.extend(
            list_files(&collection.page, collection.records.len(), per_page)
                .map(|(file, number)| (file, Item::Collection(index, number))),
        );
    }
    for (index, record) in content.records.iter().enumerate() {
        files.push((page(&record.page), Item::Record(index)));
        files.push((content.json_of(index), Item::RecordJson(index)));
    }
    for (index, field) in content.enums.iter().enumerate() {
        files.push((page(&field.page), Item::Field(index)));
        for (value, entry) in field.values.iter().enumerate() {
            files.extend(
                list_files(&entry.page, entry.records.len(), per_page)
                    .map(|(file, number)| (file, Item::Value(index, value, number))),
            );
        }
    }
    for (index, doc) in content.docs.iter().enumerate() {
        files.push((page(&doc.page), Item::Doc(index)));
    }
    files.extend([
        (page("graph/"), Item::Graph),
        ("graph/data.js".to_string(), Item::GraphScript),
        (page("search/"), Item::Search),
        ("search/data.js".to_string(), Item::SearchScript),
        ("404.html".to_string(), Item::NotFound),
        ("records.json".to_string(), Item::Records),
        ("graph.json".to_string(), Item::GraphJson),
        ("feed.xml".to_string(), Item::Feed),
    ]);
    for name in templates.assets.keys() {
        files.push((format!("assets/{name}"), Item::Asset(name.clone())));
    }
    for (at, (path, _)) in content.linked.files().iter().enumerate() {
        files.push((path.clone(), Item::Linked(at)));
    }
    for (at, (path, _)) in content.statics.files().iter().enumerate() {
        files.push((path.clone(), Item::Static(at)));
    }
    files
}

/// The files of the pages of the list of `len` records at `list`, each with its number (from
/// 0), at `per_page` records a page.
fn list_files(list: &str, len: usize, per_page: usize) -> impl Iterator<Item = (String, usize)> {
    (0..urls::page_count(len, per_page)).map(move |number| {
        (
            format!("{}index.html", urls::list_page(list, number)),
            number,
        )
    })
}

/// Two files at one path would overwrite each other, and a file where another's folder
/// goes cannot be written: a collection folder named like an enum field, `graph`,
/// `search`, `assets` or a file of the site's root (`feed.xml`), a prose page in a folder
/// named like a collection, or a file prose links to or of the static folder where a
/// generated one goes (`engines/vllm.json`, `static/index.html`). Neither is let win: either
/// way a file the user meant to publish would be silently lost.
fn collisions(project: &Project, files: &[(String, Item)]) -> Result<(), Vec<Diagnostic>> {
    let mut seen: foldhash::HashMap<&str, &Item> =
        foldhash::HashMap::with_capacity_and_hasher(files.len(), Default::default());
    let mut clashes = Vec::new();
    for (file, item) in files {
        if let Some(first) = seen.insert(file, item) {
            clashes.push(format!(
                "two files of the site would be written to `{file}`: {} and {}",
                first.what(),
                item.what()
            ));
        }
    }
    // Said once for each such folder, which may hold a page for every record of a collection.
    let mut folders_taken: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    for (file, item) in files {
        let folders = file.match_indices('/').filter_map(|(at, _)| file.get(..at));
        for folder in folders {
            if let Some(there) = seen.get(folder)
                && folders_taken.insert(folder)
            {
                clashes.push(format!(
                    "{} of the site would be written in a folder `{folder}`, where {} goes",
                    item.what(),
                    there.what()
                ));
            }
        }
    }
    if clashes.is_empty() {
        return Ok(());
    }
    let display = project.config.shown(&project.root);
    Err(clashes
        .into_iter()
        .map(|clash| {
            Diagnostic::new(rules::INVALID_CONFIG, &display, clash)
                .with_help("rename the collection folder, the prose page, the file prose links to, the file of the `static` folder or the enum field in `[site] enum_pages`")
        })
        .collect())
}

/// The corpus folders a site must not overlap, named for messages.
pub fn protected_folders(project: &Project) -> Vec<(std::path::PathBuf, &'static str)> {
    vec![
        (
            project.root.join(&project.config.records),
            "the records folder",
        ),
        (
            project.root.join(&project.config.schemas),
            "the schema folder",
        ),
        (project.root.join(TEMPLATES_FOLDER), "the templates folder"),
        (project.root.join(STATIC_FOLDER), "the static folder"),
    ]
}
