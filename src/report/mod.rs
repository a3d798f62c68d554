//! Report: diagnostics rendered for people ([`human`]), for scripts ([`json`]) and for the
//! tools CI runs them through: code scanning ([`sarif`]), pull-request annotations
//! ([`github`]) and test dashboards ([`junit`]); or counted per rule ([`statistics`]).
//!
//! Rendering is the last stage and the only one that turns diagnostics into text; the CLI
//! decides where the text goes. Renderers need the text of the files they quote, which
//! [`Sources`] gathers once.

pub mod excerpt;
pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod sarif;
pub mod statistics;

use std::path::Path;

use foldhash::HashMap;
use rayon::prelude::*;
use serde::Serialize;

use crate::corpus::Corpus;
use crate::diagnostic::{Anchor, Diagnostic, Severity};
use crate::source::{LineCol, NamedFiles, ReadAgain, SourceFile, TextAgain};

/// The bytes of the relative paths of the files that `diagnostics` name and whose names are
/// not UTF-8, by displayed path. A displayed path holds U+FFFD where a name was not UTF-8,
/// so only such paths are looked for (nearly always none is), on disk, as a file whose name
/// is not UTF-8 is reported where it was found and may be in no list of the corpus's.
fn raw_paths(root: &Path, diagnostics: &[Diagnostic]) -> HashMap<String, Vec<u8>> {
    let mut named: Vec<&String> = diagnostics
        .iter()
        .flat_map(|d| std::iter::once(&d.file).chain(d.labels.iter().map(|l| &l.file)))
        .filter(|file| file.contains('\u{fffd}'))
        .collect();
    named.sort_unstable();
    named.dedup();
    named
        .into_iter()
        .filter_map(|file| {
            let found = found_on_disk(root, file)?;
            let relative = found.strip_prefix(root).ok()?;
            Some((
                file.clone(),
                relative.as_os_str().as_encoded_bytes().to_vec(),
            ))
        })
        .collect()
}

/// The file under `root` shown as `display`: each part of it that holds U+FFFD is the one
/// entry of its folder shown so; `None` when there is none, or several.
fn found_on_disk(root: &Path, display: &str) -> Option<std::path::PathBuf> {
    let mut path = root.to_path_buf();
    for part in display.split('/') {
        if !part.contains('\u{fffd}') {
            path.push(part);
            continue;
        }
        let mut shown_so = std::fs::read_dir(&path)
            .ok()?
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy() == part);
        let entry = shown_so.next()?;
        if shown_so.next().is_some() {
            return None;
        }
        path.push(entry.file_name());
    }
    Some(path)
}

/// The text of every file a report quotes, by displayed path, with the places of the spans
/// found in it as it was located ([`TextAgain`]).
#[derive(Debug, Default)]
pub struct Sources {
    texts: HashMap<String, TextAgain>,
    /// The bytes of the path, relative to the corpus root, of each file named whose name is
    /// not UTF-8, by displayed path (which shows each byte that is not as U+FFFD):
    /// a format that can carry bytes (SARIF's URIs, percent-encoded) names the real file.
    raw_paths: HashMap<String, Vec<u8>>,
}

impl Sources {
    /// Gathers the files the diagnostics point into: from the corpus when loaded there
    /// (read again, in parallel, where the corpus let their text go), otherwise (config
    /// and schema files) read from disk relative to `root`.
    pub fn collect<F>(
        root: &Path,
        corpus: Option<&Corpus<F>>,
        diagnostics: &[Diagnostic],
    ) -> Sources {
        Sources::collect_with(root, corpus, diagnostics, ReadAgain::default())
    }

    /// [`Sources::collect`], taking first the corpus files' texts that an earlier stage
    /// read again (see [`crate::project::locate`]).
    pub fn collect_with<F>(
        root: &Path,
        corpus: Option<&Corpus<F>>,
        diagnostics: &[Diagnostic],
        read_again: ReadAgain,
    ) -> Sources {
        // A text read again already is kept, not read a third time; and when every text is
        // at hand, the corpus's files are not searched for the rest.
        let mut texts = read_again;
        let mut wanted: NamedFiles<'_, ()> = NamedFiles::default();
        let named = diagnostics
            .iter()
            .flat_map(|d| std::iter::once(&d.file).chain(d.labels.iter().map(|l| &l.file)));
        for file in named.filter(|file| !texts.contains_key(file.as_str())) {
            wanted.entry(file);
        }
        let loaded: Vec<&SourceFile> = match corpus {
            Some(corpus) if !wanted.is_empty() => corpus
                .files
                .iter()
                .filter(|f| wanted.take(f).is_some())
                .collect(),
            _ => Vec::new(),
        };
        // The spans each file read here is shown at, placed as it is read: placed one at a
        // time later, each counted from the file's start, a page with a broken link on each
        // of its 20,000 lines took the square of its length to report.
        let mut spans: foldhash::HashMap<&str, Vec<crate::source::Span>> =
            foldhash::HashMap::default();
        for diagnostic in diagnostics {
            let anchors = std::iter::once((&diagnostic.file, &diagnostic.anchor))
                .chain(diagnostic.labels.iter().map(|l| (&l.file, &l.anchor)));
            for (file, anchor) in anchors {
                if let Anchor::Span(span) = anchor
                    && !texts.contains_key(file.as_str())
                {
                    spans.entry(file.as_str()).or_default().push(span.clone());
                }
            }
        }
        let placed = |file: &str| spans.get(file).cloned().unwrap_or_default();
        let read: Vec<(String, TextAgain)> = loaded
            .par_iter()
            .filter_map(|file| {
                let text = match file.text_again() {
                    Some(text) => text.into_owned(),
                    // Not UTF-8: its diagnostics point at bytes, shown as best they can be.
                    None if !file.is_let_go() => {
                        crate::source::decode_lossy(&crate::load::read_regular(&file.path).ok()?)
                    }
                    // Changed since it was checked: better no excerpt than a wrong one.
                    None => return None,
                };
                let spans = placed(&file.display);
                Some((file.display.clone(), TextAgain::new(text, spans)))
            })
            .collect();
        texts.extend(read);
        for file in wanted.names() {
            if let Some(bytes) = read_to_quote(&root.join(file)) {
                let text = crate::source::decode_lossy(&bytes);
                texts.insert(file.to_string(), TextAgain::new(text, placed(file)));
            }
        }
        Sources {
            texts,
            raw_paths: raw_paths(root, diagnostics),
        }
    }

    /// The path's bytes, relative to the corpus root, of the corpus file shown as `file`,
    /// when its name is not UTF-8; `None` when `file` is its name.
    pub fn raw_path(&self, file: &str) -> Option<&[u8]> {
        self.raw_paths.get(file).map(Vec::as_slice)
    }

    /// The text of a file, if it could be read.
    pub fn get(&self, file: &str) -> Option<&str> {
        self.texts.get(file).map(|text| text.text.as_str())
    }

    /// The start and end positions of a span in a file.
    pub fn range(&self, file: &str, anchor: &Anchor) -> Option<(LineCol, LineCol)> {
        let (Anchor::Span(span), Some(text)) = (anchor, self.texts.get(file)) else {
            return None;
        };
        Some(text.line_cols(span))
    }

    /// The edits of a diagnostic's fix with their positions; `None` when there is no fix or
    /// an edit could not be located, since half a fix must not be offered.
    pub fn fix_edits<'d>(&self, diagnostic: &'d Diagnostic) -> Option<Vec<LocatedEdit<'d>>> {
        let fix = diagnostic.fix.as_ref()?;
        fix.edits
            .iter()
            .map(|edit| {
                let (start, end) = self.range(&diagnostic.file, &edit.anchor)?;
                Some(LocatedEdit {
                    start,
                    end,
                    replacement: &edit.replacement,
                })
            })
            .collect()
    }
}

/// An edit of a fix, with the positions it replaces (the end is exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocatedEdit<'d> {
    /// Where the replaced text starts.
    pub start: LineCol,
    /// Where it ends.
    pub end: LineCol,
    /// The new text.
    pub replacement: &'d str,
}

/// Counts for the closing line of a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Record files read.
    pub files: usize,
    /// Records parsed.
    pub records: usize,
    /// Error-level diagnostics.
    pub errors: usize,
    /// Warning-level diagnostics.
    pub warnings: usize,
    /// Diagnostics the baseline accounted for (not reported).
    pub known: usize,
    /// Baseline entries that no longer occur.
    pub stale: usize,
}

impl Summary {
    /// Counts the diagnostics of a checked corpus.
    pub fn new<F>(corpus: &Corpus<F>, diagnostics: &[Diagnostic]) -> Summary {
        Summary {
            files: corpus.files.len(),
            records: corpus.records.len(),
            errors: diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count(),
            warnings: diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Warning)
                .count(),
            known: 0,
            stale: 0,
        }
    }
}

/// The path other tools should show for a displayed path. GitHub and CI dashboards resolve
/// paths against the repository root, while the tool displays them relative to the corpus
/// root; `prefix` is the corpus root's folder inside the repository (`kb/`), or empty (see
/// [`crate::git::worktree_prefix`]).
pub fn repository_path(prefix: &str, file: &str) -> String {
    format!("{prefix}{file}")
}

/// The message with its notes and help, one per line, for formats that carry no snippet:
/// the did-you-mean is often the most useful line.
pub fn full_message(diagnostic: &Diagnostic) -> String {
    let mut text = diagnostic.message.clone();
    for note in &diagnostic.notes {
        text.push_str("\nnote: ");
        text.push_str(note);
    }
    if let Some(help) = &diagnostic.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    text
}

/// The bytes of a file outside the corpus that a diagnostic names (a stray file), to quote:
/// only of a regular file no larger than the default limit on a record's, since reading a
/// named pipe would wait forever and a stray data dump would be read whole for a line or
/// two.
fn read_to_quote(path: &Path) -> Option<Vec<u8>> {
    let metadata = std::fs::metadata(path).ok()?;
    (metadata.is_file() && metadata.len() <= crate::config::DEFAULT_MAX_FILE_SIZE)
        .then(|| std::fs::read(path).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A corpus of one file whose text was let go, as a check leaves it.
    fn let_go(dir: &Path, text: &str) -> Corpus {
        let path = dir.join("vllm.json");
        std::fs::write(&path, text).unwrap();
        let mut file = SourceFile::new(path, "vllm.json".into(), Some(text.into()), false);
        file.let_go();
        Corpus {
            files: vec![file],
            file_collections: vec![None],
            ..Corpus::default()
        }
    }

    #[test]
    fn texts_read_again_already_are_not_read_a_third_time() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = let_go(dir.path(), "{\"id\": \"vllm\"}\n");
        let diagnostics = [Diagnostic::new(crate::rules::ORPHAN, "vllm.json", "orphan")];
        let read = Sources::collect(dir.path(), Some(&corpus), &diagnostics);
        assert_eq!(read.get("vllm.json"), Some("{\"id\": \"vllm\"}\n"));
        // Handed a text, the sources take it as it is and leave the file alone: a text
        // the file does not hold shows which was taken.
        let handed = ReadAgain::from_iter([(
            "vllm.json".to_string(),
            TextAgain::new("handed".to_string(), []),
        )]);
        let taken = Sources::collect_with(dir.path(), Some(&corpus), &diagnostics, handed);
        assert_eq!(taken.get("vllm.json"), Some("handed"));
    }
}
