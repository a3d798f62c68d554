//! Discover: which files under the records root are records, and of which collection.
//!
//! A record is `<records>/<folder>/<stem>.<json|yaml|yml|md>` where `<folder>` belongs to a
//! collection. Anything else under the records root is a stray and is reported, never
//! skipped silently: a record saved as `.jsn` or in a misspelt folder would otherwise never
//! be checked. Hidden files and files the corpus's `.gitignore` and `.ignore` files ignore
//! are left alone, as git and ripgrep do; not those a user's global git excludes or a
//! clone's `.git/info/exclude` ignore, which differ from machine to machine: a check must
//! find the same records on a laptop and in CI.
//! The result is sorted by path so that every later stage is deterministic.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::{ParallelVisitor, ParallelVisitorBuilder, WalkState};

use rayon::prelude::*;

use crate::diagnostic::Diagnostic;
use crate::rules;
use crate::schema::Schemas;
use crate::source::{Format, display_path, relative_display};
use crate::suggest;

/// A file that is a record of a collection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Where it is.
    pub path: PathBuf,
    /// The path as displayed.
    pub display: String,
    /// Its collection's index.
    pub collection: usize,
    /// Its format.
    pub format: Format,
}

/// The records found, and the problems finding them.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Record files, sorted by path.
    pub candidates: Vec<Candidate>,
    /// Strays and unreadable folders.
    pub diagnostics: Vec<Diagnostic>,
}

/// Walks `root/records` and sorts every file into a collection or a stray.
pub fn discover(root: &Path, records: &Path, schemas: &Schemas) -> Discovered {
    let records_dir = root.join(records);
    let mut found = Discovered::default();
    if !records_dir.is_dir() {
        let what = if records_dir.exists() {
            "the records folder is a file, not a folder"
        } else {
            "the records folder does not exist"
        };
        found.diagnostics.push(
            Diagnostic::new(rules::IO_ERROR, display_path(root, &records_dir), what)
                .with_help("create it, point `records` in gotchas.toml at it, or use --root"),
        );
        return found;
    }
    if let Some(file) = special_ignore_file(&records_dir) {
        found.diagnostics.push(unwalked(root, &file));
        return found;
    }
    let canonical_root = std::fs::canonicalize(root).ok();
    let unwalked_folders = Arc::new(Mutex::new(Vec::new()));
    // The walk reads folders on as many threads as the rest of the run uses: read on one,
    // 100,000 entries took 50 ms, a tenth of loading them. What each file then needs
    // (classifying it, its displayed path, a symlink's target) is done in parallel too.
    // The threads find files in no set order; they are sorted below.
    let gathered = Mutex::new(Vec::new());
    ignore::WalkBuilder::new(&records_dir)
        .hidden(true)
        .parents(false)
        .require_git(false)
        .git_global(false)
        .git_exclude(false)
        .follow_links(false)
        .threads(rayon::current_num_threads())
        .filter_entry(skipping_special_ignore_files(Arc::clone(&unwalked_folders)))
        .build_parallel()
        .visit(&mut Gather {
            root,
            records_dir: &records_dir,
            into: &gathered,
        });
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    for walked in gathered
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        files.extend(walked.files);
        found.diagnostics.extend(walked.errors);
    }
    for file in take_all(&unwalked_folders) {
        found.diagnostics.push(unwalked(root, &file));
    }
    let sorted: Vec<Sorted> = files
        .into_par_iter()
        .map(|(path, is_symlink)| {
            sort_file(
                root,
                &records_dir,
                canonical_root.as_deref(),
                path,
                is_symlink,
                schemas,
            )
        })
        .collect();
    // Sized once: grown a push at a time, the list of a hundred thousand candidates is
    // copied a dozen times, each time into memory the kernel must first zero.
    found.candidates.reserve(sorted.len());
    for file in sorted {
        match file {
            Sorted::Record(candidate) => found.candidates.push(candidate),
            Sorted::Problem(diagnostic) => found.diagnostics.push(*diagnostic),
        }
    }
    found.candidates.par_sort_by_cached_key(order_key);
    found
        .diagnostics
        .sort_by(|a, b| a.file.cmp(&b.file).then(a.message.cmp(&b.message)));
    found
}

/// What one thread of the walk found: files (each with whether it is a symlink) and the
/// folders or files it could not read.
#[derive(Default)]
struct Walked {
    files: Vec<(PathBuf, bool)>,
    errors: Vec<Diagnostic>,
}

/// Makes each thread of the walk a [`Visit`] that hands what it found to `into` as it ends.
struct Gather<'g> {
    root: &'g Path,
    records_dir: &'g Path,
    into: &'g Mutex<Vec<Walked>>,
}

impl<'g> ParallelVisitorBuilder<'g> for Gather<'g> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 'g> {
        Box::new(Visit {
            root: self.root,
            records_dir: self.records_dir,
            walked: Walked::default(),
            into: self.into,
        })
    }
}

/// One thread's part of the walk, kept apart from the others' until the thread ends, so
/// that the threads share one lock per thread, not one per file.
struct Visit<'g> {
    root: &'g Path,
    records_dir: &'g Path,
    walked: Walked,
    into: &'g Mutex<Vec<Walked>>,
}

impl ParallelVisitor for Visit<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> WalkState {
        match entry {
            Ok(entry) if entry.path_is_symlink() => {
                self.walked.files.push((entry.into_path(), true));
            }
            Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                self.walked.files.push((entry.into_path(), false));
            }
            // A named pipe, socket or device: reading one could wait forever, and it is
            // no record; said, since nothing under the records folder is passed over.
            Ok(entry) if entry.file_type().is_some_and(|t| !t.is_dir()) => {
                self.walked
                    .errors
                    .push(not_a_regular_file(self.root, entry.path()));
            }
            Ok(_) => {}
            Err(err) => self
                .walked
                .errors
                .push(walk_error(self.root, &err, self.records_dir)),
        }
        WalkState::Continue
    }
}

impl Drop for Visit<'_> {
    fn drop(&mut self) {
        let walked = std::mem::take(&mut self.walked);
        // The list is only ever added to: a thread that panicked holding it left it whole.
        self.into
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(walked);
    }
}

/// What a file found by the walk is.
enum Sorted {
    /// A record file of a collection.
    Record(Candidate),
    /// A stray or unreadable file: boxed, as a list of every file's sorting holds few.
    Problem(Box<Diagnostic>),
}

/// Where a file found by a walk leads, a link followed: to a file of the corpus, which is
/// read like the file itself, or to something that is not read.
pub(crate) enum LinkTarget {
    /// A regular file inside the corpus.
    File,
    /// A folder, not followed (a walk would go through it a second time, or out).
    Folder(PathBuf),
    /// A named pipe, socket or device, which reading may never end.
    Special,
    /// A regular file out of the corpus: a checked-out repository must not make the linter
    /// read arbitrary files of the machine.
    Outside(PathBuf),
    /// Nothing: a dangling link, or one that cannot be followed.
    Nothing(std::io::Error),
}

/// Where `path` leads, in the corpus whose root is `canonical_root` (resolved).
pub(crate) fn link_target(path: &Path, canonical_root: Option<&Path>) -> LinkTarget {
    let target = match std::fs::canonicalize(path) {
        Ok(target) => target,
        Err(err) => return LinkTarget::Nothing(err),
    };
    if target.is_dir() {
        LinkTarget::Folder(target)
    } else if !target.is_file() {
        LinkTarget::Special
    } else if canonical_root.is_some_and(|root| target.starts_with(root)) {
        LinkTarget::File
    } else {
        LinkTarget::Outside(target)
    }
}

fn problem(diagnostic: Diagnostic) -> Sorted {
    Sorted::Problem(Box::new(diagnostic))
}

/// Sorts a file found by the walk into a record file or a problem.
fn sort_file(
    root: &Path,
    records_dir: &Path,
    canonical_root: Option<&Path>,
    path: PathBuf,
    is_symlink: bool,
    schemas: &Schemas,
) -> Sorted {
    if is_symlink {
        // Symlinks are not followed into folders, but a link to a file inside the corpus is
        // read like the file. A dangling link is an unreadable record, and a link out of
        // the corpus is not followed: a checked-out repository must not make the linter
        // read arbitrary files of the machine.
        match link_target(&path, canonical_root) {
            LinkTarget::File => {}
            LinkTarget::Nothing(err) => {
                return problem(Diagnostic::new(
                    rules::IO_ERROR,
                    display_path(root, &path),
                    format!("cannot read the file: {err}"),
                ));
            }
            LinkTarget::Folder(target) => {
                // Said, as the records under it would otherwise go unchecked in silence.
                let shown = match canonical_root.and_then(|r| target.strip_prefix(r).ok()) {
                    Some(inside) => display_path(Path::new(""), inside),
                    None => target.display().to_string(),
                };
                return problem(Diagnostic::new(
                    rules::STRAY_FILE,
                    display_path(root, &path),
                    "this symlink points at a folder, which is not followed: its records are not checked",
                )
                .with_note(format!("it points at {shown}"))
                .with_help("move the folder here, or point `records` (or the collection's `folder`) at it"));
            }
            LinkTarget::Special => return problem(not_a_regular_file(root, &path)),
            LinkTarget::Outside(target) => {
                return problem(
                    Diagnostic::new(
                        rules::STRAY_FILE,
                        display_path(root, &path),
                        "this symlink points outside the corpus, so it is not followed",
                    )
                    .with_note(format!("it points at {}", target.display())),
                );
            }
        }
    }
    if path.to_str().is_none() {
        return problem(
            Diagnostic::new(
                rules::IO_ERROR,
                display_path(root, &path),
                "the file name is not valid UTF-8, so it cannot be a record id",
            )
            .with_help("rename the file"),
        );
    }
    match classify(records_dir, &path, schemas) {
        Ok((collection, format)) => Sorted::Record(Candidate {
            display: display_path(root, &path),
            path,
            collection,
            format,
        }),
        Err(why) => problem(stray(display_path(root, &path), why, schemas)),
    }
}

/// A key that sorts candidates as their paths sort, component by component: the bytes of
/// the displayed path (relative, `/`-separated) with each `/` turned into the lowest byte,
/// so that a shorter component sorts first (`a/x` before `a-b/x`). Made once per candidate:
/// comparing paths component by component, 100,000 of them, was a thirtieth of a whole
/// run, and a comparison that finds the file names each time cost five times this.
fn order_key(candidate: &Candidate) -> Vec<u8> {
    candidate
        .display
        .bytes()
        .map(|b| if b == b'/' { 0 } else { b })
        .collect()
}

/// The record file `path` would be, or `None` when it is not one (outside the records root,
/// a stray): how a file created after loading joins the corpus.
pub fn candidate(root: &Path, records: &Path, path: &Path, schemas: &Schemas) -> Option<Candidate> {
    let records_dir = root.join(records);
    let below = path.strip_prefix(&records_dir).ok()?;
    // Hidden files are no records, as the walk leaves them out (an editor's swap file).
    let hidden = below.components().any(|part| {
        part.as_os_str()
            .to_str()
            .is_some_and(|name| name.starts_with('.'))
    });
    if hidden {
        return None;
    }
    let (collection, format) = classify(&records_dir, path, schemas).ok()?;
    Some(Candidate {
        path: path.to_path_buf(),
        display: display_path(root, path),
        collection,
        format,
    })
}

/// Why a file under the records root is not a record.
enum Stray {
    NotInFolder,
    UnknownFolder(String),
    UnknownExtension,
    Nested(String),
}

fn classify(records_dir: &Path, path: &Path, schemas: &Schemas) -> Result<(usize, Format), Stray> {
    let relative = relative_display(records_dir, path);
    let mut parts = relative.split('/');
    let (Some(folder), Some(file)) = (parts.next(), parts.next()) else {
        return Err(Stray::NotInFolder);
    };
    let nested = parts.next().is_some();
    let Some(collection) = schemas.by_folder(folder) else {
        return Err(Stray::UnknownFolder(folder.to_string()));
    };
    if nested {
        return Err(Stray::Nested(folder.to_string()));
    }
    let (_, extension) = stem_and_extension(file);
    let format = extension
        .and_then(Format::from_extension)
        .ok_or(Stray::UnknownExtension)?;
    Ok((collection, format))
}

/// The file name without its extension of a file shown as `display` (`records/engines/nixl.yaml`
/// gives `nixl`), as discovery names a record file's stem: the id of a record that writes
/// none, and what the id it writes must be.
pub fn file_stem(display: &str) -> &str {
    stem_and_extension(file_name(display)).0
}

/// The extension of a file shown as `display`, split off as [`file_stem`] splits it, the
/// two together being its file name.
pub fn file_extension(display: &str) -> Option<&str> {
    stem_and_extension(file_name(display)).1
}

/// The last part of a displayed path, whose parts `/` separates on every platform.
fn file_name(display: &str) -> &str {
    display.rsplit('/').next().unwrap_or(display)
}

/// A file name's stem and extension, as [`Path::file_stem`] and [`Path::extension`] split
/// it (`.json` is a stem, `a.b.json` has the stem `a.b`), from the name already in hand:
/// those two parse the whole path again from its end, each costing as much as the rest of
/// sorting a file into a collection.
fn stem_and_extension(name: &str) -> (&str, Option<&str>) {
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() && name != ".." => (stem, Some(extension)),
        _ => (name, None),
    }
}

fn stray(display: String, why: Stray, schemas: &Schemas) -> Diagnostic {
    match why {
        Stray::NotInFolder => Diagnostic::new(
            rules::STRAY_FILE,
            display,
            "this file is not in a collection folder, so it is not checked",
        )
        .with_help("records live in `<records>/<collection folder>/`"),
        Stray::UnknownFolder(folder) => {
            let folders = schemas.collections.iter().map(|c| c.folder.as_str());
            let suggestions = suggest::suggest(&folder, folders, 3);
            let diagnostic = Diagnostic::new(
                rules::STRAY_FILE,
                display,
                format!(
                    "the folder `{folder}` belongs to no collection, so this file is not checked"
                ),
            )
            .with_note(format!(
                "collection folders: {}",
                schemas
                    .collections
                    .iter()
                    .map(|c| format!("`{}`", c.folder))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            // A folder named after a collection's type (`interconnect/`, the records of
            // `interconnect`, looked for in `interconnects/`) is most often where a corpus
            // keeps them: the config can say so, where renaming the folder would not be
            // wanted.
            let named = schemas.collections.iter().find(|c| c.name == folder);
            match (named, suggest::did_you_mean(&suggestions)) {
                (Some(collection), _) => diagnostic.with_help(format!(
                    "the `{}` records are looked for in `{}/`; to keep them in `{folder}/`, set `folder = \"{folder}\"` under `[collections.{}]` in the config",
                    collection.name, collection.folder, collection.name
                )),
                (None, Some(help)) => diagnostic.with_help(help),
                (None, None) => diagnostic,
            }
        }
        Stray::UnknownExtension => Diagnostic::new(
            rules::STRAY_FILE,
            display,
            "this file's extension is not a record format, so it is not checked",
        )
        .with_help("records are `.json`, `.yaml`, `.yml` or `.md` files"),
        Stray::Nested(folder) => Diagnostic::new(
            rules::STRAY_FILE,
            display,
            format!("this file is in a subfolder of `{folder}`, so it is not checked"),
        )
        .with_help(format!("records live directly in `{folder}/`")),
    }
}

/// `stray-file` for something under the records folder that is neither a file nor a
/// folder, or a symlink to one.
fn not_a_regular_file(root: &Path, path: &Path) -> Diagnostic {
    Diagnostic::new(
        rules::STRAY_FILE,
        display_path(root, path),
        "this is not a regular file (a named pipe, socket or device), so it is not read",
    )
    .with_help("keep only record files under the records folder")
}

/// The files a walk reads in each folder it enters, to know what to leave alone.
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

/// The ignore file of `folder` that is there but is no regular file (a named pipe, socket
/// or device), if one is: a walk opens each folder's ignore files as it enters it, and
/// opening a pipe waits for a writer, for ever when none comes.
pub(crate) fn special_ignore_file(folder: &Path) -> Option<PathBuf> {
    IGNORE_FILES
        .iter()
        .map(|name| folder.join(name))
        .find(|path| std::fs::metadata(path).is_ok_and(|meta| !meta.is_file()))
}

/// A walk's filter that does not enter a folder with a [`special_ignore_file`], keeping
/// that file in `unwalked` to be reported.
pub(crate) fn skipping_special_ignore_files(
    unwalked: Arc<Mutex<Vec<PathBuf>>>,
) -> impl Fn(&ignore::DirEntry) -> bool + Send + Sync + 'static {
    move |entry| {
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let Some(file) = is_dir.then(|| special_ignore_file(entry.path())).flatten() else {
            return true;
        };
        unwalked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(file);
        false
    }
}

/// What a filter of [`skipping_special_ignore_files`] kept, once the walk is over.
pub(crate) fn take_all(unwalked: &Mutex<Vec<PathBuf>>) -> Vec<PathBuf> {
    std::mem::take(&mut *unwalked.lock().unwrap_or_else(PoisonError::into_inner))
}

/// The problem of a folder not walked for its ignore file `file` (see
/// [`special_ignore_file`]): what it ignores cannot be known, so nothing in it is read.
pub(crate) fn unwalked(root: &Path, file: &Path) -> Diagnostic {
    Diagnostic::new(
        rules::IO_ERROR,
        display_path(root, file),
        "this ignore file is not a regular file (a named pipe, socket or device), so its \
         folder is not read",
    )
    .with_help("make it a regular file, or remove it")
}

/// An error of a walk over the corpus (most often a folder that cannot be listed), reported
/// on the path it names, or on `walked` when it names none.
pub fn walk_error(root: &Path, err: &ignore::Error, walked: &Path) -> Diagnostic {
    let path = io_error_path(err).unwrap_or(walked);
    let message = if path.is_dir() {
        format!("cannot read the folder: {}", reason(err))
    } else {
        format!("cannot read: {}", reason(err))
    };
    Diagnostic::new(rules::IO_ERROR, display_path(root, path), message)
}

fn io_error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            io_error_path(err)
        }
        _ => None,
    }
}

/// The reason under an error of the walk: the operating system's message, without the path
/// the walker wraps around it, since the diagnostic names the path already (relative to the
/// corpus root, not to the working folder).
fn reason(err: &ignore::Error) -> String {
    match err {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => reason(err),
        ignore::Error::Io(io) => match io.get_ref().and_then(std::error::Error::source) {
            Some(os) => os.to_string(),
            None => io.to_string(),
        },
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_extensions_split_as_paths_split_them() {
        for name in [
            "x.json", "a.b.json", ".json", "x", "x.", ".", "..", "a..md", "é.yml",
        ] {
            let path = Path::new(name);
            assert_eq!(
                stem_and_extension(name),
                (
                    path.file_stem().and_then(|s| s.to_str()).unwrap_or(name),
                    path.extension().and_then(|s| s.to_str())
                ),
                "{name}"
            );
        }
    }

    #[test]
    fn file_names_split_into_a_stem_and_one_extension() {
        assert_eq!(file_stem("records/engines/nixl.yaml"), "nixl");
        assert_eq!(file_stem("records/engines/v1.2.yaml"), "v1.2");
        assert_eq!(file_stem("../docs/guide.md"), "guide");
        assert_eq!(file_stem("records/engines/.json"), ".json");
        assert_eq!(file_stem("nixl"), "nixl");
        assert_eq!(file_extension("records/engines/v1.2.yaml"), Some("yaml"));
        assert_eq!(file_extension("records/engines/.json"), None);
        assert_eq!(file_extension("nixl"), None);
    }

    #[test]
    fn candidates_sort_as_their_paths_sort() {
        let config = crate::config::Config::default();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("schema")).unwrap();
        for folder in ["a", "a-b"] {
            std::fs::write(
                root.join("schema").join(format!("{folder}.schema.json")),
                format!(r#"{{"x-collection": "{folder}"}}"#),
            )
            .unwrap();
        }
        let schemas = Schemas::load(root, &config).unwrap();
        let candidate =
            |path: &str| candidate(root, Path::new("records"), &root.join(path), &schemas).unwrap();
        let mut by_path: Vec<Candidate> = [
            "records/a-b/y.json",
            "records/a/x-y.json",
            "records/a/x.json",
            "records/a/x.md",
            "records/a-b/a.yaml",
        ]
        .into_iter()
        .map(candidate)
        .collect();
        let mut by_order = by_path.clone();
        by_path.sort_by(|a, b| a.path.cmp(&b.path));
        by_order.sort_by_cached_key(order_key);
        assert_eq!(by_order, by_path);
        assert_eq!(by_path[0].display, "records/a/x-y.json");
        assert_eq!(by_path[3].display, "records/a-b/a.yaml");
        // A hidden file is no record, as the walk leaves it out.
        let hidden =
            |path: &str| super::candidate(root, Path::new("records"), &root.join(path), &schemas);
        assert_eq!(hidden("records/a/.x.json.swp"), None);
        assert_eq!(hidden("records/a/.x.json"), None);
    }
}
