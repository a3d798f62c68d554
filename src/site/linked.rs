//! Files of the corpus that prose links to and the site copies, as Zola copies a page's
//! assets: an image (`![plot](plot.png)`) or any other file that is not Markdown (a PDF, a
//! CSV), kept at its path from the corpus root (`docs/plot.png` is the site's
//! `docs/plot.png`), so that a page shows it where a link to the repository would show an
//! HTML page about it, or nothing at all without `repo_url`.
//!
//! Only what a link names is copied, and only from inside the corpus: never a path that
//! leaves the root (`../../etc/passwd`, or a symbolic link leading out), a hidden file
//! (`.env`, `.git/`), the config, or a file of the records, schema or templates folders,
//! which the site shows as pages or does not publish. A link to any of those is left as it
//! was (to the repository, or marked). Nor is a file of the static folder copied again: the
//! site has it already at its own path ([`super::statics`]).

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

use crate::config::Config;
use crate::corpus::Corpus;
use crate::index::{self, IdIndex, KeepsWritten, Resolved, Source, Target, Written};
use crate::links::LinkKind;
use crate::schema::Schemas;

use super::kept::Kept;

/// The linked files a site copies.
#[derive(Debug, Default)]
pub struct Linked {
    /// Each file's path in the site and on disk, by site path.
    files: Vec<(String, PathBuf)>,
    /// A link's path ([`IdIndex::file_link`]) -> its file in `files`.
    by_link: HashMap<PathBuf, usize>,
}

impl Linked {
    /// The files the prose of `corpus` links to that may be copied into its site.
    pub fn find(
        root: &Path,
        config: &Config,
        schemas: &Schemas,
        corpus: &Corpus<Kept>,
        index: &IdIndex<'_, Kept>,
        resolved: &Resolved,
    ) -> Linked {
        let rules = Publishable::new(root, config);
        let mut files: BTreeMap<String, PathBuf> = BTreeMap::new();
        let mut by_link: HashMap<PathBuf, String> = HashMap::new();
        for (file, target) in file_links(schemas, corpus, resolved) {
            let link = index.file_link(file, &target);
            if by_link.contains_key(&link) {
                continue;
            }
            if let Some(site_path) = rules.site_path(&link) {
                files.insert(site_path.clone(), link.clone());
                by_link.insert(link, site_path);
            }
        }
        let files: Vec<(String, PathBuf)> = files.into_iter().collect();
        let by_link = by_link
            .into_iter()
            .filter_map(|(link, site_path)| {
                let at = files
                    .binary_search_by(|(path, _)| path.cmp(&site_path))
                    .ok()?;
                Some((link, at))
            })
            .collect();
        Linked { files, by_link }
    }

    /// Each file, by its path in the site, with its path on disk.
    pub fn files(&self) -> &[(String, PathBuf)] {
        &self.files
    }

    /// Where the site has the file a link's path names, if it copies it.
    pub fn site_path(&self, link: &Path) -> Option<&str> {
        let at = *self.by_link.get(link)?;
        self.files.get(at).map(|(path, _)| path.as_str())
    }
}

/// Every link to a file that is neither a record's nor a page's, as the file it is written
/// in and its target as written. A record keeps its links; a page's are found again, but
/// only a page with such a link is parsed.
fn file_links(
    schemas: &Schemas,
    corpus: &Corpus<Kept>,
    resolved: &Resolved,
) -> Vec<(usize, String)> {
    let is_file_link = |written: &Written| match written.source {
        Source::FieldLink { kind, .. } | Source::Link { kind, .. } => kind == LinkKind::File,
        Source::Field { .. } => false,
    };
    let mut found: Vec<(usize, String)> = corpus
        .records
        .iter()
        .flat_map(|record| {
            let written = KeepsWritten::written(&record.value).iter();
            written
                .filter(|w| is_file_link(w))
                .map(|w| (record.file, w.text.clone()))
        })
        .collect();
    let mut linking: Vec<usize> = resolved
        .edges
        .iter()
        .filter(|edge| edge.target == Target::File)
        .map(|edge| edge.source.file(corpus))
        .collect();
    linking.sort_unstable();
    linking.dedup();
    for (doc, of) in corpus.docs.iter().enumerate() {
        if linking.binary_search(&of.file).is_ok() {
            let written = index::written_in_doc(corpus, schemas, doc);
            found.extend(
                written
                    .iter()
                    .filter(|w| is_file_link(w))
                    .map(|w| (of.file, w.text.clone())),
            );
        }
    }
    found
}

/// What may be copied: files inside the corpus root, outside its own folders.
struct Publishable {
    root: PathBuf,
    /// The root with its links resolved, which a file's resolved path must be under.
    real_root: Option<PathBuf>,
    /// Paths from the root whose files are never copied: the records, schema, templates and
    /// static folders and the config.
    withheld: Vec<PathBuf>,
}

impl Publishable {
    fn new(root: &Path, config: &Config) -> Publishable {
        let root = index::normalize(root);
        // The folders are named from the root, the config's file from where the tool runs.
        let withheld = [
            root.join(&config.records),
            root.join(&config.schemas),
            root.join(super::TEMPLATES_FOLDER),
            root.join(super::STATIC_FOLDER),
            config.path(&root),
        ]
        .iter()
        .filter_map(|path| {
            let path = index::normalize(path);
            path.strip_prefix(&root).map(Path::to_path_buf).ok()
        })
        .collect();
        Publishable {
            real_root: std::fs::canonicalize(&root).ok(),
            root,
            withheld,
        }
    }

    /// The path in the site of the file `link` names, a normalized path, when the site may
    /// copy it.
    fn site_path(&self, link: &Path) -> Option<String> {
        let relative = link.strip_prefix(&self.root).ok()?;
        let mut parts = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(part) => {
                    let part = part.to_str()?;
                    if part.starts_with('.') || part.contains('\\') {
                        return None;
                    }
                    parts.push(part);
                }
                _ => return None,
            }
        }
        let markdown = relative.extension().is_some_and(|e| e == "md");
        let withheld = self.withheld.iter().any(|w| relative.starts_with(w));
        let inside = std::fs::canonicalize(link)
            .ok()
            .zip(self.real_root.as_ref())
            .is_some_and(|(real, root)| real.starts_with(root));
        (!parts.is_empty() && !markdown && !withheld && inside && link.is_file())
            .then(|| parts.join("/"))
    }
}
