//! Writing files without ever leaving a half-written one.
//!
//! Every file the tool writes in place (fixes now; converted records later) goes through
//! [`write_atomic`], which writes the new content to a temporary file in the same folder,
//! flushes it to disk, gives it the original's permissions, and renames it over the target.
//! (A built site is written whole into a fresh folder and swapped in: see `site::output`.)
//! A rename within a folder is atomic, so a reader sees the old file or the new one, never a
//! mix, and a failure at any step leaves the original untouched. The temporary file is in
//! flight ([`crate::interrupt`]) until it is renamed: an interrupted run removes it. A run
//! killed outright (SIGKILL, a machine going down) cannot: the first write of a later run
//! into the same folder removes what such runs left there ([`sweep`]), telling another
//! running write's file by its lock, held while it is written.
//!
//! What is replaced is a file. A symbolic link stays a link and the file it leads to is
//! replaced, as an editor saving through a link does; a device, pipe or socket (`--output
//! /dev/null`, a named pipe) is written to as it is, since renaming a file over it would
//! put a file where it was (and run as root over `/dev/null`, break the machine's).
//!
//! Large output (a report of every problem, an export of the whole graph, a list of every
//! record) is written as it is made, never held whole: through [`STREAM_BUFFER`], and, for
//! a JSON array, an item at a time ([`Each`]).

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, PoisonError};

use serde::{Serialize, Serializer};

/// The buffer between a writer that streams its output (a report, an export, a large file
/// of the site) and where it goes: few system calls, little memory.
pub const STREAM_BUFFER: usize = 256 * 1024;

/// A sequence serialized an item at a time, each made from one of `items` by `each` as it is
/// written: the made items are never all held at once, nor copies of what they borrow.
pub struct Each<'a, T, F> {
    /// What the items are made from, in order.
    pub items: &'a [T],
    /// Makes an item.
    pub each: F,
}

impl<'a, T, S: Serialize, F: Fn(&'a T) -> S> Serialize for Each<'a, T, F> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.items.iter().map(&self.each))
    }
}

/// Writes `value` to `out` as pretty-printed JSON ending in a newline, as it is serialized:
/// the form of every JSON document the tool writes.
pub fn json_document(out: &mut dyn Write, value: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    out.write_all(b"\n")
}

/// Replaces `path` with `bytes` atomically, keeping its permissions when it exists.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(path, path, |file| file.write_all(bytes), ANYWAY)
}

/// [`write_atomic`] of what `write` writes, as it writes it, through [`STREAM_BUFFER`]: a
/// report of a hundred thousand problems is streamed to the temporary file, never held
/// whole in memory. When `write` fails, the temporary file is removed and `path` is left as
/// it was.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    replace(
        path,
        path,
        |file| {
            let mut buffered = std::io::BufWriter::with_capacity(STREAM_BUFFER, file);
            write(&mut buffered)?;
            buffered.flush()
        },
        ANYWAY,
    )
}

/// [`write_atomic`] of a file read earlier, replaced only as long as `still` says so:
/// asked just before the rename, when the new content is on disk beside the file, so that
/// nothing but the rename itself lies between the last look and the replacement (an edit
/// saved while `--fix` ran was written over). Its error leaves the file as it is.
pub fn write_atomic_over(
    path: &Path,
    bytes: &[u8],
    still: &dyn Fn() -> std::io::Result<()>,
) -> std::io::Result<()> {
    replace(path, path, |file| file.write_all(bytes), Place::Over(still))
}

/// [`write_atomic`] of a file where none is, and none may appear meanwhile (an
/// `AlreadyExists` error then): a new record made twice at once is made once, never over
/// the other.
pub fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(
        path,
        path,
        |file| file.write_all(bytes),
        Place::Fresh { flushed: true },
    )
}

/// Writes a file that takes the place of `original` (a record converted to another format,
/// under another name), with `original`'s permissions, at a path where none is and none may
/// appear meanwhile (an `AlreadyExists` error then), not flushed to disk: for writing many files
/// at once, each flush waiting on the device (`convert --in-place` of 20,000 records took
/// 51 s, nearly all of it flushes), after which [`sync_file_system`] flushes them all.
/// Nothing the file replaces may be removed before that.
pub fn write_new_unsynced(path: &Path, original: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(
        path,
        original,
        |file| file.write_all(bytes),
        Place::Fresh { flushed: false },
    )
}

/// Flushes to disk everything written to the file system that holds `path`: the files
/// [`write_new_unsynced`] wrote, their names and their folders. One `syncfs` on Linux;
/// elsewhere each of `written` and its folder are flushed.
pub fn sync_file_system(path: &Path, written: &[&Path]) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let _ = written;
        Ok(rustix::fs::syncfs(std::fs::File::open(path)?)?)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        for file in written {
            std::fs::File::open(file)?.sync_all()?;
        }
        Ok(())
    }
}

/// How the new content takes the place of what is at the path.
enum Place<'a> {
    /// Over it, once the function says it may: its error leaves what is there as it is.
    Over(&'a dyn Fn() -> std::io::Result<()>),
    /// Only where nothing is: a file that appeared meanwhile is an `AlreadyExists` error.
    /// Not flushed first when `flushed` is false (see [`write_new_unsynced`]).
    Fresh { flushed: bool },
}

/// [`Place::Over`] whatever is there.
const ANYWAY: Place<'static> = Place::Over(&|| Ok(()));

/// Replaces `path` with what `write` writes to a temporary file beside it (see the module's
/// documentation), with the permissions of `permissions_of` if it exists, else those of a
/// new file (`0666` less the umask, as any tool's `open` gives; a temporary file's own are
/// `0600`, for a private scratch file, which no report or record is). Bytes already in hand
/// are written to the file as they are: `--fix` writes thousands of files of a few
/// kilobytes, side by side, each of which a buffer would only copy.
fn replace(
    path: &Path,
    permissions_of: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    place: Place<'_>,
) -> std::io::Result<()> {
    let given = path;
    let path = &landing(given);
    let existing = std::fs::metadata(path).ok();
    if let Some(metadata) = &existing
        && !metadata.is_file()
        && !metadata.is_dir()
    {
        let Place::Over(may) = place else {
            return Err(std::io::ErrorKind::AlreadyExists.into());
        };
        may()?;
        let mut special = std::fs::OpenOptions::new().write(true).open(path)?;
        return write(&mut special);
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // A file replacing itself has its permissions in hand already (its link followed, as
    // `metadata` follows one): `--fix` writes thousands, each stat costing a system call.
    let kept = if permissions_of == given {
        existing
    } else {
        std::fs::metadata(permissions_of).ok()
    };
    let permissions = kept.as_ref().map(std::fs::Metadata::permissions);
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMPORARY_PREFIX).suffix(TEMPORARY_SUFFIX);
    // Made with the permissions it will have (narrowed by the umask, set exactly below),
    // so that a private file's new text is never readable by more people, even briefly.
    #[cfg(unix)]
    builder.permissions(
        permissions
            .clone()
            .unwrap_or_else(|| std::os::unix::fs::PermissionsExt::from_mode(0o666)),
    );
    sweep_once(dir);
    let in_flight = crate::interrupt::InFlight::make(
        || {
            let temporary = builder.tempfile_in(dir)?;
            // Held while it is written, so that another run's sweep leaves it alone. Where
            // files cannot be locked (some network file systems), the write goes on, and
            // no sweep there removes anything, as none can tell the file is abandoned.
            let _ = temporary.as_file().try_lock();
            Ok(temporary)
        },
        |t| t.path(),
    );
    let mut temporary = in_flight.map_err(|err| {
        let err = without_temporary_name(err);
        std::io::Error::new(
            err.kind(),
            format!("cannot create a file in {}: {err}", dir.display()),
        )
    })?;
    write(temporary.as_file_mut())?;
    if !matches!(place, Place::Fresh { flushed: false }) {
        temporary.as_file().sync_all()?;
    }
    if let Some(permissions) = permissions {
        temporary.as_file().set_permissions(permissions)?;
    }
    // The file keeps its owner and group, as an edit in place would: a run as root (a
    // container, a hook under sudo) would otherwise hand every file it fixed to root.
    // Only root may give a file away, and a file made by its owner is theirs already.
    #[cfg(unix)]
    if let Some(kept) = &kept {
        use std::os::unix::fs::MetadataExt;
        let made = temporary.as_file().metadata()?;
        if (made.uid(), made.gid()) != (kept.uid(), kept.gid()) {
            // Not said when refused: a group the writer is not in cannot be kept by anyone
            // but root, and the file's text is what the write is for.
            let _ =
                std::os::unix::fs::fchown(temporary.as_file(), Some(kept.uid()), Some(kept.gid()));
        }
    }
    match place {
        Place::Over(may) => {
            may()?;
            temporary.land(|temporary| temporary.persist(path).map_err(|err| err.error))?;
        }
        Place::Fresh { .. } => {
            temporary
                .land(|temporary| temporary.persist_noclobber(path).map_err(|err| err.error))?;
        }
    }
    Ok(())
}

/// How a file being written is named beside the file it replaces: `.gotchas-XXXXXX.tmp`.
const TEMPORARY_PREFIX: &str = ".gotchas-";
const TEMPORARY_SUFFIX: &str = ".tmp";

/// How long a temporary file nobody writes to is left for, in case its writer is alive but
/// has not locked it yet.
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// [`sweep`] of the temporary files of [`replace`] in `folder`, the first time this run
/// writes there: a `--fix` writes thousands of files into a few folders, and each folder's
/// listing is read once.
fn sweep_once(folder: &Path) {
    static SWEPT: LazyLock<Mutex<HashSet<PathBuf>>> = LazyLock::new(Mutex::default);
    let mut swept = SWEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if swept.insert(folder.to_path_buf()) {
        sweep(folder, TEMPORARY_PREFIX, TEMPORARY_SUFFIX);
    }
}

/// Removes from `folder` the temporary files (`PREFIX` and six letters or digits, as
/// tempfile names them, then `SUFFIX`) of runs that ended without removing their own:
/// killed, or on a machine that went down. One is another run's while it is locked (the
/// lock goes with its writer) or was written to in the last minute. A file of any other
/// name is never touched.
pub fn sweep(folder: &Path, prefix: &str, suffix: &str) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let temporary = name
            .to_str()
            .and_then(|name| name.strip_prefix(prefix)?.strip_suffix(suffix))
            .is_some_and(|random| {
                random.len() == 6 && random.bytes().all(|b| b.is_ascii_alphanumeric())
            });
        if temporary && abandoned(&entry.path()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether a temporary file was left by a run that ended: unchanged for
/// [`ABANDONED_AFTER`] and locked by no one.
fn abandoned(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let idle = file
        .metadata()
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|modified| modified.elapsed().ok())
        .is_some_and(|idle| idle >= ABANDONED_AFTER);
    idle && file.try_lock().is_ok()
}

/// `err`, from tempfile making a temporary file or folder, without the name it could not
/// make, which tempfile's message ends with (` at path "/home/me/kb/./.gotchas-XXXXXX.tmp"`):
/// a name nobody has seen, made absolute. Whoever shows the error names the folder, or the
/// file the user asked for, instead.
pub fn without_temporary_name(err: std::io::Error) -> std::io::Error {
    let shown = err.to_string();
    match shown.split_once(" at path ") {
        Some((cause, _)) => std::io::Error::new(err.kind(), cause),
        None => err,
    }
}

/// The path a write to `path` replaces: where a symbolic link leads, so that the link
/// stays a link, and `path` itself otherwise. A link to a file not made yet leads to where
/// it will be; a link to another link that leads nowhere (`/dev/stdout` to a pipe's
/// `/proc/self/fd/1`) is left to be opened as it is.
fn landing(path: &Path) -> PathBuf {
    let Ok(target) = std::fs::read_link(path) else {
        return path.to_path_buf();
    };
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let beside = match path.parent() {
        Some(dir) => dir.join(&target),
        None => target,
    };
    if beside.is_symlink() {
        path.to_path_buf()
    } else {
        beside
    }
}

/// An absolute form of a path that may not exist yet: its longest existing ancestor with
/// symbolic links resolved, then the rest with `.` and `..` applied. Two paths to one file
/// (`./records`, `../kb/records`, a link to it) come out the same, which is what deciding
/// whether a write would land in the corpus, or a change a watcher reports is an input,
/// compares.
pub fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest: Vec<std::path::Component<'_>> = Vec::new();
    loop {
        if let Ok(found) = existing.canonicalize() {
            let mut out = found;
            for component in rest.into_iter().rev() {
                match component {
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    std::path::Component::CurDir => {}
                    other => out.push(other),
                }
            }
            return out;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_paths_that_do_not_exist_yet() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        assert_eq!(resolved(&dir.path().join("a/b/../c")), real.join("a/c"));
    }

    #[test]
    fn replaces_content_and_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o640);
        }
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_stays_a_link_and_the_file_it_leads_to_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("report.json");
        let link = dir.path().join("latest.json");
        std::fs::write(&file, "old").unwrap();
        std::os::unix::fs::symlink("report.json", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(link.is_symlink());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");

        // A link to a file not made yet makes it.
        let ahead = dir.path().join("ahead.json");
        std::os::unix::fs::symlink("later.json", &ahead).unwrap();
        write_atomic_with(&ahead, |out| out.write_all(b"made")).unwrap();
        assert!(ahead.is_symlink());
        let later = dir.path().join("later.json");
        assert_eq!(std::fs::read_to_string(later).unwrap(), "made");
        let names = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(names, 4, "no temporary file is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_permissions_any_new_file_gets() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let reference = dir.path().join("made-by-std");
        std::fs::write(&reference, "").unwrap();
        let expected = std::fs::metadata(&reference).unwrap().permissions().mode();
        let new = dir.path().join("new.json");
        write_atomic(&new, b"{}").unwrap();
        assert_eq!(
            std::fs::metadata(&new).unwrap().permissions().mode(),
            expected
        );

        // One that takes another's place takes its permissions.
        let original = dir.path().join("record.yaml");
        std::fs::write(&original, "id: a\n").unwrap();
        std::fs::set_permissions(&original, std::fs::Permissions::from_mode(0o640)).unwrap();
        let converted = dir.path().join("record.json");
        write_new_unsynced(&converted, &original, b"{}").unwrap();
        let mode = std::fs::metadata(&converted).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_is_written_to_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let pipe = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&pipe).status();
        if !made.is_ok_and(|status| status.success()) {
            eprintln!("skipped: no mkfifo here");
            return;
        }
        // Read on a thread of its own, which a write that misses the pipe leaves waiting.
        let (sender, read) = std::sync::mpsc::channel();
        {
            let pipe = pipe.clone();
            std::thread::spawn(move || sender.send(std::fs::read_to_string(pipe).unwrap()));
        }
        write_atomic_with(&pipe, |out| out.write_all(b"through the pipe")).unwrap();
        assert_eq!(
            read.recv_timeout(std::time::Duration::from_secs(60))
                .unwrap(),
            "through the pipe"
        );
        let kind = std::fs::symlink_metadata(&pipe).unwrap().file_type();
        assert!(kind.is_fifo(), "still a pipe: {kind:?}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_new_file_is_never_written_over_one_that_appeared_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r1.yaml");
        write_new(&path, b"id: r1\n").unwrap();
        let again = write_new(&path, b"id: other\n").unwrap_err();
        assert_eq!(again.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "id: r1\n");
        let beside = dir.path().join("r1.json");
        let converted = write_new_unsynced(&path, &beside, b"{}").unwrap_err();
        assert_eq!(converted.kind(), std::io::ErrorKind::AlreadyExists);
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[test]
    fn a_sequence_made_as_it_is_written_is_the_sequence_made_first() {
        let words = ["vllm", "sglang", ""];
        let made = |word: &&str| serde_json::json!({ "id": word, "length": word.len() });
        let each = Each {
            items: &words,
            each: made,
        };
        let collected: Vec<serde_json::Value> = words.iter().map(made).collect();
        assert_eq!(
            serde_json::to_string_pretty(&each).unwrap(),
            serde_json::to_string_pretty(&collected).unwrap()
        );
        let none = Each {
            items: &[] as &[&str],
            each: made,
        };
        assert_eq!(serde_json::to_string(&none).unwrap(), "[]");
    }

    #[test]
    fn a_write_that_fails_halfway_leaves_the_original_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        std::fs::write(&path, "old").unwrap();
        let failed = write_atomic_with(&path, |out| {
            out.write_all(b"half a rep")?;
            Err(std::io::Error::other("the renderer failed"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "the renderer failed");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
        write_atomic_with(&path, |out| {
            out.write_all(b"new ")?;
            out.write_all(b"report")
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new report");
    }
}
