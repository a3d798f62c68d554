//! Where a built site goes: a folder on disk, or memory (for `serve`).
//!
//! A folder is never written in place. The site is written into a fresh temporary folder
//! beside it and swapped in when every file is written, exchanged with the old one in one
//! step ([`place`]), so a failed build leaves the old site whole, a reader never sees half
//! of a new one, and there is no moment without a site. The swap deletes the old folder, so
//! the tool refuses to replace a folder it did not make: every site it writes holds a
//! [`MARKER`] file, and a folder with files but no marker is left alone with an error. An
//! empty folder may be replaced, since that loses nothing.
//!
//! The temporary folder is in flight ([`crate::interrupt`]): Ctrl-C or SIGTERM removes it
//! before the run ends. A build killed outright cannot, so each build sweeps the folders
//! such builds left beside its output ([`Staging::swept`]), and tells a running build's,
//! which it leaves alone, by its marker: made first thing in the temporary folder and locked
//! for as long as the build runs, the lock going with the process.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::removal::{self, Left};
use crate::interrupt::InFlight;
use crate::write::resolved;
use std::sync::Mutex;

/// The file that marks a folder as a site written by `gotchas build`.
pub const MARKER: &str = ".gotchas-site";

const MARKER_TEXT: &str = "This folder was written by `gotchas build` and is replaced whole by the next build.\nDo not keep other files here.\n";

/// Receives the site's files. Called from many threads at once.
pub trait Sink: Sync {
    /// Stores one file; `path` is relative to the site root, with `/` separators.
    fn put(&self, path: &str, bytes: &[u8]) -> io::Result<()>;

    /// Stores one file that `write` writes a piece at a time. The largest files of a big
    /// site (every record in `records.json`, the search index) are streamed rather than
    /// held whole: at 100,000 records they were hundreds of megabytes each, most of a
    /// build's peak memory.
    fn put_streamed(&self, path: &str, write: &Streamer<'_>) -> io::Result<()>;
}

/// Writes a file's bytes a piece at a time (see [`Sink::put_streamed`]).
pub type Streamer<'a> = dyn Fn(&mut dyn io::Write) -> io::Result<()> + Sync + 'a;

/// Why the site could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output path is a file.
    #[error("`{0}` exists and is not a folder")]
    NotAFolder(PathBuf),
    /// The output folder holds files and no marker.
    #[error(
        "`{0}` holds files and was not made by `gotchas build` (it has no `{MARKER}` file), so it is not replaced; delete it yourself or choose another folder with --out"
    )]
    NotOurs(PathBuf),
    /// The output folder overlaps a folder of the corpus.
    #[error("the site cannot be written to `{out}`: {why}")]
    Overlaps {
        /// The output folder.
        out: PathBuf,
        /// What it overlaps, in words.
        why: String,
    },
    /// The output folder became something no build writes while the site was built.
    #[error(
        "`{0}` changed while the site was built and is now neither a site `gotchas build` wrote nor an empty folder, so it is not replaced; the site built was discarded"
    )]
    Changed(PathBuf),
    /// The output folder kept changing as the site was put in place.
    #[error(
        "`{0}` kept changing as the site was put in place (other builds into it at once?); the site built was discarded"
    )]
    Contended(PathBuf),
    /// A file system operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path it failed on.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// How a site being written is named, beside its destination.
const STAGED_PREFIX: &str = ".gotchas-site-";

/// How an old site being removed is named, beside the new one.
const OLD_PREFIX: &str = ".gotchas-old-";

/// How long a folder of a build with no marker in it is left for, in case its build is
/// running and has not made its marker yet (which it does as soon as it has made the
/// folder).
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// A site being written into a temporary folder beside its destination.
pub struct Staging {
    temporary: InFlight<tempfile::TempDir>,
    /// The temporary folder, beside the output as the output is named.
    staged: PathBuf,
    /// The site's [`MARKER`], locked while the build runs.
    marker: File,
    out: PathBuf,
    /// The marker of the site in `out` when the build started, if any ([`marker_id`]).
    found: Option<(u64, u64)>,
    swept: Swept,
}

impl Staging {
    /// Checks that `out` may be replaced and opens the temporary folder. `root` is the corpus
    /// root, which may hold the site but must not be it or be inside it; `folders` are the
    /// corpus's own folders (records, schemas, templates), named for messages, which the site
    /// must neither be in nor contain.
    pub fn new(out: &Path, root: &Path, folders: &[(&Path, &str)]) -> Result<Staging, OutputError> {
        let target = resolved(out);
        let overlaps = |why: String| OutputError::Overlaps {
            out: out.to_path_buf(),
            why,
        };
        let root = resolved(root);
        if root.starts_with(&target) {
            return Err(overlaps("it would replace the corpus itself".into()));
        }
        for (folder, what) in folders {
            let folder = resolved(folder);
            if target.starts_with(&folder) {
                return Err(overlaps(format!("it is inside {what}")));
            }
            if folder.starts_with(&target) {
                return Err(overlaps(format!("it holds {what}")));
            }
        }
        // A link to a folder stays a link: the site replaces the folder it leads to, staged
        // beside that folder, since a folder cannot be renamed over a link.
        let given = out;
        let out = if out.is_symlink() && target.is_dir() {
            target.as_path()
        } else {
            out
        };
        match std::fs::metadata(out) {
            Ok(meta) if !meta.is_dir() => return Err(OutputError::NotAFolder(given.to_path_buf())),
            Ok(_) => {
                let empty = std::fs::read_dir(out)
                    .map_err(io_error(out))?
                    .next()
                    .is_none();
                if !empty && !out.join(MARKER).is_file() {
                    return Err(OutputError::NotOurs(given.to_path_buf()));
                }
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(io_error(out)(err)),
        }
        let parent = match out.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(io_error(&parent))?;
        let swept = sweep(&parent);
        let temporary = InFlight::make(
            || {
                tempfile::Builder::new()
                    .prefix(STAGED_PREFIX)
                    .tempdir_in(&parent)
            },
            |t| t.path(),
        )
        .map_err(|err| OutputError::Io {
            path: given.to_path_buf(),
            source: beside(crate::write::without_temporary_name(err)),
        })?;
        // tempfile names the folder from the current folder; it is shown as the output is.
        let staged = parent.join(temporary.path().file_name().unwrap_or_default());
        let marker = locked_marker(&staged).map_err(|err| OutputError::Io {
            path: given.to_path_buf(),
            source: beside(err),
        })?;
        Ok(Staging {
            temporary,
            staged,
            marker,
            out: out.to_path_buf(),
            found: marker_id(out),
            swept,
        })
    }

    /// The folders left beside the output by builds that did not finish, which this one
    /// removed or tried to.
    pub fn swept(&self) -> &Swept {
        &self.swept
    }

    /// Creates a file of the staged site, and its folder if need be, holding off an
    /// interruption's clean-up, which would otherwise find the folder filling as it removes it.
    fn create(&self, path: &str) -> io::Result<File> {
        crate::interrupt::meanwhile(|| self.create_now(path))
    }

    fn create_now(&self, path: &str) -> io::Result<File> {
        let file = self.staged.join(checked(path)?);
        // A page in a folder of its own (`engines/vllm/index.html`, one per record) is the
        // only file there, so its folder is made before the file is opened (one `mkdir`,
        // which is all `create_dir_all` does when the parent exists). Other files' folders
        // mostly exist by the time they are written: those are tried first, and the folder
        // is made only when it is missing. Either way no open fails in the common case (at
        // 100,000 records, 100,000 failed opens were about 1% of a build).
        if path.ends_with("/index.html")
            && let Some(folder) = file.parent()
        {
            std::fs::create_dir_all(folder)?;
        }
        match File::create(&file) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                if let Some(folder) = file.parent() {
                    std::fs::create_dir_all(folder)?;
                }
                File::create(&file)
            }
            created => created,
        }
    }

    /// Marks the written site and swaps it in for the old one, which is then deleted.
    pub fn commit(self) -> Result<Committed, OutputError> {
        let staged = &self.staged;
        (&self.marker)
            .write_all(MARKER_TEXT.as_bytes())
            .map_err(io_error(staged))?;
        #[cfg(unix)]
        {
            // A temporary folder is private; a site is meant to be served.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(staged, std::fs::Permissions::from_mode(0o755))
                .map_err(io_error(staged))?;
        }
        let placed = self.temporary.hold(|_| place(staged, &self.out))?;
        let mut committed = Committed::default();
        if placed == Placed::Exchanged {
            let replaced = marker_id(staged);
            committed.replaced_meanwhile = replaced.is_some() && replaced != self.found;
            committed.left = removal::remove(staged).err();
        }
        Ok(committed)
    }
}

/// What a build that put its site in place has to say about it.
#[derive(Debug, Default)]
pub struct Committed {
    /// Whether the site replaced was not the one there when the build started: another
    /// build's, finished while this one ran.
    pub replaced_meanwhile: bool,
    /// What could not be removed of the old site.
    pub left: Option<Left>,
}

/// How a staged site was put in place.
#[derive(Debug, PartialEq)]
enum Placed {
    /// Where there was nothing.
    Fresh,
    /// In one step with the old site, which is now where the staged one was.
    Exchanged,
}

/// How many times the output is looked at again when it changed between a look and the
/// rename that followed: another build put its site there, or removed an empty folder.
const ATTEMPTS: usize = 8;

/// Puts the site staged at `staged` at `out`, so that `out` is at every moment a whole
/// site, the old or the new: a site there is exchanged with the staged one in one step, a
/// folder left empty is removed first. Another build doing the same meanwhile makes a look
/// and the rename after it disagree (`out` made, removed or filled in between), and the
/// output is looked at again.
fn place(staged: &Path, out: &Path) -> Result<Placed, OutputError> {
    for _ in 0..ATTEMPTS {
        let tried = match std::fs::symlink_metadata(out) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                rename_new(staged, out).map(|()| Some(Placed::Fresh))
            }
            Ok(meta) if meta.is_dir() && out.join(MARKER).is_file() => {
                exchange(staged, out).map(|()| Some(Placed::Exchanged))
            }
            Ok(meta) if meta.is_dir() && is_empty(out) => std::fs::remove_dir(out).map(|()| None),
            Ok(_) => return Err(OutputError::Changed(out.to_path_buf())),
            Err(err) => Err(err),
        };
        match tried {
            Ok(Some(placed)) => return Ok(placed),
            Ok(None) => {}
            Err(err) if raced(&err) => {}
            Err(source) => {
                return Err(OutputError::Io {
                    path: out.to_path_buf(),
                    source,
                });
            }
        }
    }
    Err(OutputError::Contended(out.to_path_buf()))
}

/// Whether a failed rename or removal met an output another build changed since it was
/// looked at.
fn raced(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::AlreadyExists | io::ErrorKind::DirectoryNotEmpty
    )
}

fn is_empty(folder: &Path) -> bool {
    std::fs::read_dir(folder).is_ok_and(|mut entries| entries.next().is_none())
}

/// Renames `staged` to `out`, which must not exist (`AlreadyExists` if it does).
fn rename_new(staged: &Path, out: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, staged, CWD, out, RenameFlags::NOREPLACE) {
            Err(errno) if unsupported(errno) => {}
            renamed => return renamed.map_err(io::Error::from),
        }
    }
    if out.exists() {
        return Err(io::ErrorKind::AlreadyExists.into());
    }
    std::fs::rename(staged, out)
}

/// Exchanges the folders `staged` and `out` in one step (`renameat2`'s `RENAME_EXCHANGE`);
/// where the system or the file system cannot, in three renames, the old site set aside
/// between the first two.
fn exchange(staged: &Path, out: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, staged, CWD, out, RenameFlags::EXCHANGE) {
            Err(errno) if unsupported(errno) => {}
            exchanged => return exchanged.map_err(io::Error::from),
        }
    }
    exchange_by_renames(staged, out)
}

/// Whether `renameat2` failed for want of support for its flag, by the kernel or the file
/// system (NFS has no `RENAME_EXCHANGE`), rather than over the paths.
#[cfg(target_os = "linux")]
fn unsupported(errno: rustix::io::Errno) -> bool {
    use rustix::io::Errno;
    matches!(errno, Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP)
}

fn exchange_by_renames(staged: &Path, out: &Path) -> io::Result<()> {
    let suffix = staged
        .file_name()
        .map(|name| name.to_string_lossy().replacen(STAGED_PREFIX, "", 1))
        .unwrap_or_default();
    let aside = staged.with_file_name(format!("{OLD_PREFIX}{suffix}"));
    std::fs::rename(out, &aside)?;
    if let Err(err) = std::fs::rename(staged, out) {
        let _ = std::fs::rename(&aside, out);
        return Err(err);
    }
    // Where the staged site was, the old one is removed as an exchanged one is; should this
    // fail, the next build sweeps it.
    let _ = std::fs::rename(&aside, staged);
    Ok(())
}

/// What tells one site's marker from another's: its device and inode.
#[cfg(unix)]
fn marker_id(site: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(site.join(MARKER)).ok()?;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn marker_id(_site: &Path) -> Option<(u64, u64)> {
    None
}

/// An error making the folder the site is built in, said of the output folder the user
/// named: the temporary folder's name means nothing to them.
fn beside(err: io::Error) -> io::Error {
    io::Error::new(
        err.kind(),
        format!("cannot make the folder the site is built in, beside it: {err}"),
    )
}

/// Makes the marker of the site staged in `folder`, empty until the site is complete, and
/// locks it for as long as the build runs: another build's [`sweep`] leaves the folder
/// alone while it is locked. It is locked before it has its name (the lock goes with the
/// file, not the name), so a sweep never finds the marker of a running build unlocked:
/// made under its name and then locked, a sweep that probed it in between removed the
/// folder as the build wrote into it, and that build put a site with no marker in place,
/// which the next build refused to replace (`builds_into_one_folder_at_once_all_succeed`
/// failed so once in CI).
fn locked_marker(folder: &Path) -> io::Result<File> {
    let unnamed = folder.join(UNNAMED_MARKER);
    let marker = File::options()
        .write(true)
        .create_new(true)
        .open(&unnamed)?;
    marker.lock()?;
    std::fs::rename(&unnamed, folder.join(MARKER))?;
    Ok(marker)
}

/// What the marker is called in its folder until it is locked: no site file is.
const UNNAMED_MARKER: &str = ".gotchas-site-unlocked";

/// The folders builds killed before they finished left beside the output, as a build
/// found them.
#[derive(Debug, Default)]
pub struct Swept {
    /// Those removed.
    pub removed: Vec<PathBuf>,
    /// Those that could not be removed whole.
    pub left: Vec<Left>,
}

/// Removes the folders in `parent` that builds killed before they finished left there: a
/// staged site (`.gotchas-site-XXXXXX`) or an old one on its way out
/// (`.gotchas-old-XXXXXX`), each as large as a site.
fn sweep(parent: &Path) -> Swept {
    let mut swept = Swept::default();
    let Ok(entries) = std::fs::read_dir(parent) else {
        return swept;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name.starts_with(STAGED_PREFIX) || name.starts_with(OLD_PREFIX);
        let folder = entry.path();
        if ours && entry.file_type().is_ok_and(|t| t.is_dir()) && abandoned(&folder) {
            match removal::remove(&folder) {
                Ok(()) => swept.removed.push(folder),
                Err(left) => swept.left.push(left),
            }
        }
    }
    swept.removed.sort();
    swept
}

/// Whether no one holds the lock of `marker`; the probe takes it for a moment.
fn unlocked(marker: &File) -> bool {
    marker.try_lock().is_ok_and(|()| marker.unlock().is_ok())
}

/// Whether a build's folder was left by a build that is no longer running: its marker is
/// locked by no one, or it has none (a build killed before its marker was named, or one of
/// an older version of the tool, which made none until the end) and has not changed for
/// [`ABANDONED_AFTER`].
fn abandoned(folder: &Path) -> bool {
    match File::open(folder.join(MARKER)) {
        Ok(marker) => unlocked(&marker),
        Err(err) if err.kind() == io::ErrorKind::NotFound => std::fs::metadata(folder)
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|idle| idle >= ABANDONED_AFTER),
        Err(_) => false,
    }
}

impl Sink for Staging {
    fn put(&self, path: &str, bytes: &[u8]) -> io::Result<()> {
        self.create(path)?.write_all(bytes)
    }

    fn put_streamed(&self, path: &str, write: &Streamer<'_>) -> io::Result<()> {
        let mut out = BufWriter::with_capacity(crate::write::STREAM_BUFFER, self.create(path)?);
        write(&mut out)?;
        out.flush()
    }
}

/// A site kept in memory, by path.
#[derive(Debug, Default)]
pub struct Memory {
    files: Mutex<BTreeMap<String, Vec<u8>>>,
}

impl Memory {
    /// The files stored.
    pub fn into_files(self) -> BTreeMap<String, Vec<u8>> {
        self.files.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    fn store(&self, path: &str, bytes: Vec<u8>) -> io::Result<()> {
        checked(path)?;
        self.files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.to_string(), bytes);
        Ok(())
    }
}

impl Sink for Memory {
    fn put(&self, path: &str, bytes: &[u8]) -> io::Result<()> {
        self.store(path, bytes.to_vec())
    }

    fn put_streamed(&self, path: &str, write: &Streamer<'_>) -> io::Result<()> {
        let mut bytes = Vec::new();
        write(&mut bytes)?;
        self.store(path, bytes)
    }
}

/// A site path that stays inside the site: relative, no `.` or `..`, no empty segment.
fn checked(path: &str) -> io::Result<&Path> {
    let fine = !path.is_empty()
        && !path.contains('\\')
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..");
    if fine {
        Ok(Path::new(path))
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{path}` is not a path inside the site"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_stay_inside_the_site() {
        assert!(checked("engines/vllm/index.html").is_ok());
        for bad in ["", "/etc/passwd", "a/../b", "./a", "a//b", "..", "a\\b"] {
            assert!(checked(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn a_marker_is_locked_once_it_has_its_name_and_until_its_build_ends() {
        let dir = tempfile::tempdir().unwrap();
        let marker = locked_marker(dir.path()).unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, [MARKER]);
        assert!(!abandoned(dir.path()));
        drop(marker);
        assert!(abandoned(dir.path()));
    }
}
