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
    /// The collection of each file in `files`, by index.
    pub file_collections: Vec<usize>,
    /// Every record that could be parsed, in path order.
    pub records: Vec<Record>,
    /// Problems found while discovering and loading.
    pub diagnostics: Vec<Diagnostic>,
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
            corpus.file_collections.push(candidate.collection);
        }
        corpus
    }

    /// The file a record was read from.
    pub fn file_of(&self, record: &Record) -> &SourceFile {
        &self.files[record.file]
    }
}
