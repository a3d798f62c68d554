//! The loaded corpus: every file that was read and every record that could be parsed.
//!
//! Loading is the expensive stage (reading and parsing), so files are loaded in parallel and
//! then put back in path order, which keeps every later stage deterministic whatever the
//! thread count.

use std::path::Path;

use rayon::prelude::*;

use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::discover;
use crate::load::{self, LoadContext, Record};
use crate::schema::Schemas;
use crate::source::SourceFile;

/// Everything loaded from disk.
#[derive(Debug, Default)]
pub struct Corpus {
    /// Every record file, in path order; records point into this list.
    pub files: Vec<SourceFile>,
    /// The collection of each file in `files`, by index; `None` for prose files.
    pub file_collections: Vec<Option<usize>>,
    /// Prose files (the config's `docs`), whose links are checked too.
    pub docs: Vec<Doc>,
    /// Every record that could be parsed, in path order.
    pub records: Vec<Record>,
    /// Problems found while discovering and loading.
    pub diagnostics: Vec<Diagnostic>,
}

/// A prose file.
#[derive(Clone, Debug)]
pub struct Doc {
    /// Index of its file in [`Corpus::files`].
    pub file: usize,
    /// The file name without extension, by which wiki-links name it.
    pub stem: String,
}

impl Corpus {
    /// Discovers and loads every record under the records root.
    pub fn load(root: &Path, config: &Config, schemas: &Schemas) -> Corpus {
        let discovered = discover::discover(root, &config.records, schemas);
        let loaded: Vec<(discover::Candidate, load::Loaded)> = discovered
            .candidates
            .into_par_iter()
            .map(|candidate| {
                let collection = &schemas.collections[candidate.collection];
                let context = LoadContext {
                    text_fields: &collection.text_fields,
                    max_file_size: config.max_file_size,
                };
                let loaded = load::load(
                    &candidate.path,
                    candidate.display.clone(),
                    candidate.format,
                    &context,
                );
                (candidate, loaded)
            })
            .collect();
        let mut corpus = Corpus {
            diagnostics: discovered.diagnostics,
            ..Corpus::default()
        };
        for (candidate, loaded) in loaded {
            let file = corpus.files.len();
            corpus.diagnostics.extend(loaded.diagnostics);
            if let Some(record) = loaded.record {
                let id = record
                    .value
                    .get("id")
                    .and_then(serde_json::Value::as_str)
                    .map_or_else(|| candidate.stem.clone(), str::to_string);
                corpus.records.push(Record {
                    collection: candidate.collection,
                    id,
                    stem: candidate.stem,
                    file,
                    format: record.format,
                    value: record.value,
                    body: record.body,
                });
            }
            corpus.files.push(loaded.file);
            corpus.file_collections.push(Some(candidate.collection));
        }
        corpus.load_docs(root, config);
        corpus
    }

    /// Loads the prose files matched by the config's `docs` globs.
    fn load_docs(&mut self, root: &Path, config: &Config) {
        if config.docs.is_empty() {
            return;
        }
        let mut builder = globset::GlobSetBuilder::new();
        for pattern in &config.docs {
            match globset::Glob::new(pattern) {
                Ok(glob) => {
                    builder.add(glob);
                }
                Err(err) => self.diagnostics.push(Diagnostic::new(
                    crate::rules::INVALID_CONFIG,
                    crate::config::FILE_NAME,
                    format!("invalid docs pattern `{pattern}`: {err}"),
                )),
            }
        }
        let Ok(globs) = builder.build() else {
            return;
        };
        let records = root.join(&config.records);
        // Neither the records nor a built site (marked by its marker file) hold prose, and
        // walking their many folders would cost every run.
        let skip = records.clone();
        let mut paths: Vec<std::path::PathBuf> = ignore::WalkBuilder::new(root)
            .hidden(true)
            .parents(false)
            .require_git(false)
            .filter_entry(move |entry| {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                !(is_dir
                    && (entry.path() == skip || entry.path().join(crate::site::MARKER).is_file()))
            })
            .build()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
            .map(ignore::DirEntry::into_path)
            .filter(|path| globs.is_match(path.strip_prefix(root).unwrap_or(path)))
            .collect();
        paths.sort();
        let loaded: Vec<load::LoadedText> = paths
            .par_iter()
            .map(|path| {
                load::load_text(
                    path,
                    crate::source::display_path(root, path),
                    config.max_file_size,
                )
            })
            .collect();
        for loaded in loaded {
            self.diagnostics.extend(loaded.diagnostics);
            if loaded.file.text.is_some() {
                let stem = loaded
                    .file
                    .path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                self.docs.push(Doc {
                    file: self.files.len(),
                    stem,
                });
            }
            self.files.push(loaded.file);
            self.file_collections.push(None);
        }
    }

    /// The file a record was read from.
    pub fn file_of(&self, record: &Record) -> &SourceFile {
        &self.files[record.file]
    }
}
