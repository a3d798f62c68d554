//! The check cache: what `gotchas check` drew from each record file (see
//! [`crate::check::draw`]), kept between runs in a folder (`.gotchas-cache/` under the corpus
//! root unless `--cache-dir` or `GOTCHAS_CACHE_DIR` names another, see [`folder`]), so
//! that a file whose text has not changed is not parsed or validated again, nor read when
//! its [`Stamp`] has not changed either.
//!
//! Parsing is most of a YAML or Markdown check (saphyr's scanner: at 100,000 records about
//! three quarters of the floor's time), and a second run on an unchanged corpus is what a
//! pre-commit hook and an editor's save hook make all day. Once parsing is skipped, reading
//! is most of what is left: opening, reading and hashing every file. A file whose stamp
//! (size, inode, modification and status-change times) is the one kept is known unchanged
//! without being read; any other is read, and recalled if its text hashes the same.
//! Resolution, suggestions and the graph rules run on the whole corpus every time, as one
//! file's edit can change any other file's verdicts.
//!
//! The cache is never trusted beyond what it was made from. Its fingerprint covers the tool
//! (version and executable), the configuration's settings that loading reads (not rule
//! levels, the baseline, the graph rules or the site, which act only after loading) and
//! every schema document; a cache with another fingerprint is ignored and replaced. An entry
//! is used only for a file at the same path whose stamp, or else whose text hash, is the
//! same; a stamp is kept only once it has settled (see [`Stamp::settled_before`]). Only
//! files that loaded with no problem at all are kept, so a file's own diagnostics always
//! come from reading it in this run. The file ends with a hash of everything before it, so
//! a torn or edited cache reads as no cache. Any problem reading it means loading every
//! file, never an error; deleting the folder is always safe. It holds a `.gitignore` that
//! ignores it whole. A save interrupted by a signal removes its temporary file (see
//! [`crate::interrupt`]); one a killed run left is removed by the next save (`sweep`).

use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use foldhash::{HashMap, HashMapExt};

use crate::stamp::Stamp;

/// The cache's folder under the corpus root, unless another is named.
pub const FOLDER: &str = ".gotchas-cache";

/// The folder the cache of the corpus at `root` is kept in: `chosen` (from `--cache-dir` or
/// `GOTCHAS_CACHE_DIR`, as ruff's `--cache-dir`: a read-only checkout, a CI cache restored
/// elsewhere) or [`FOLDER`] under the root.
pub fn folder(root: &Path, chosen: Option<&Path>) -> PathBuf {
    chosen.map_or_else(|| root.join(FOLDER), Path::to_path_buf)
}

/// The cache file in its folder.
const FILE: &str = "check-v1.bin";

/// The start of every cache file, so that another file of that name, or one of another
/// layout, reads as no cache. Layout 2 added each file's stamp and hashes the file a block
/// at a time.
const MAGIC: &[u8] = b"gotchas check cache 2\n";

/// The blocks a cache file's [`checksum`] hashes one at a time.
const BLOCK: usize = 64 * 1024;

/// A hash with a fixed seed, the same in every run: of texts, entries and the fingerprint.
pub fn stable_hash(bytes: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(0).hash_one(bytes)
}

/// What a cache is valid for: the tool, the configuration and the schemas, all hashed.
/// `config` describes the settings loading reads ([`crate::config::Config::loading_settings`]),
/// `schemas` is a hash of the schema documents.
pub fn fingerprint(config: &str, schemas: u64) -> u64 {
    let mut hasher = foldhash::fast::FixedState::with_seed(0).build_hasher();
    hasher.write(MAGIC);
    hasher.write(env!("CARGO_PKG_VERSION").as_bytes());
    // The version alone would trust a cache across rebuilds of one version, as in
    // development; the executable's size and time tell those apart.
    let exe = std::env::current_exe().and_then(std::fs::metadata).ok();
    hasher.write_u64(exe.as_ref().map_or(0, std::fs::Metadata::len));
    let modified = exe
        .and_then(|meta| meta.modified().ok())
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_nanos());
    hasher.write_u128(modified);
    hasher.write_usize(config.len());
    hasher.write(config.as_bytes());
    hasher.write_u64(schemas);
    hasher.finish()
}

/// A cache read from disk: each file's entry by its displayed path.
#[derive(Default)]
pub struct Memo {
    bytes: Vec<u8>,
    entries: HashMap<String, Entry>,
}

/// One file's entry: the hash of the text it was made from, the file's stamp when it was
/// read if that had settled, and where its payload is.
struct Entry {
    text_hash: u64,
    stamp: Option<Stamp>,
    payload: Range<usize>,
}

impl Memo {
    /// Reads the cache in `folder` made with `fingerprint`; an empty one when there is none,
    /// or it was made with another fingerprint, or it does not read whole.
    pub fn open(folder: &Path, fingerprint: u64) -> Memo {
        crate::load::read_regular(&folder.join(FILE))
            .ok()
            .and_then(|bytes| Memo::parse(bytes, fingerprint))
            .unwrap_or_default()
    }

    fn parse(bytes: Vec<u8>, fingerprint: u64) -> Option<Memo> {
        let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        if checksum(body) != u64::from_le_bytes(sum.try_into().ok()?) {
            return None;
        }
        let mut reader = Reader::new(body);
        if reader.take(MAGIC.len())? != MAGIC || reader.u64()? != fingerprint {
            return None;
        }
        let count = reader.size()?;
        // A count is trusted only as far as the bytes left could hold that many entries
        // (three numbers and a byte each), so no cache makes a run reserve more than it read.
        let mut entries = HashMap::with_capacity(count.min(reader.rest().len() / 25));
        for _ in 0..count {
            let display = reader.str()?.to_string();
            let text_hash = reader.u64()?;
            let stamp = reader.option(read_stamp)?;
            let length = reader.size()?;
            let start = reader.at;
            reader.take(length)?;
            entries.insert(
                display,
                Entry {
                    text_hash,
                    stamp,
                    payload: start..start + length,
                },
            );
        }
        reader.rest().is_empty().then_some(Memo { bytes, entries })
    }

    /// The payload kept for the file shown as `display` when its text hashed `text_hash`.
    pub fn recall(&self, display: &str, text_hash: u64) -> Option<&[u8]> {
        let entry = self.entries.get(display)?;
        if entry.text_hash != text_hash {
            return None;
        }
        self.bytes.get(entry.payload.clone())
    }

    /// The stamp kept for the file shown as `display`, with the hash of its text and the
    /// payload kept for it: when the file still has that stamp, they are its own without
    /// reading it. `None` when no stamp is kept for it.
    pub fn recall_stamped(&self, display: &str) -> Option<(Stamp, u64, &[u8])> {
        let entry = self.entries.get(display)?;
        Some((
            entry.stamp?,
            entry.text_hash,
            self.bytes.get(entry.payload.clone())?,
        ))
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds no file.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One file's entry to write: its displayed path, the hash of its text, its stamp, its
/// payload.
pub struct Kept {
    /// The file's displayed path.
    pub display: String,
    /// The hash of the text the payload was made from.
    pub text_hash: u64,
    /// The file's stamp when that text was read, if it had settled by then (see
    /// [`Stamp::settled_before`]): a stamp that had not may be shared with a write yet to
    /// come, and is not kept.
    pub stamp: Option<Stamp>,
    /// What to recall the file by.
    pub payload: Vec<u8>,
}

/// Writes the cache in `folder`, made if missing: `count` entries, made with `fingerprint`, which
/// `batches` yields a batch at a time, replace whatever it held. A batch is written before
/// the next is asked for, so a caller that makes each on demand holds one at a time.
/// Written to a temporary file beside it and renamed over it, so a reader finds the old
/// cache or the new one; not flushed to disk, since a cache torn by a crash reads as none
/// (its closing hash does not match). Fails, leaving the old cache, when the batches do not
/// hold `count` entries.
pub fn save(
    folder: &Path,
    fingerprint: u64,
    count: usize,
    batches: impl IntoIterator<Item = Vec<Kept>>,
) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(folder)?;
    let ignore = folder.join(".gitignore");
    // Written only where nothing is: a pipe there would be written into, and wait.
    if std::fs::symlink_metadata(&ignore).is_err() {
        crate::write::write_atomic(
            &ignore,
            b"# Written by gotchas: a cache, safe to delete.\n*\n",
        )?;
    }
    // The temporary cache files of runs that ended without removing their own (killed, or a
    // machine that went down) are each as large as the cache.
    crate::write::sweep(folder, TEMPORARY_PREFIX, TEMPORARY_SUFFIX);
    let mut temporary = crate::interrupt::InFlight::make(
        || {
            let temporary = tempfile::Builder::new()
                .prefix(TEMPORARY_PREFIX)
                .suffix(TEMPORARY_SUFFIX)
                .tempfile_in(folder)?;
            // Held while it is written, so that another run's sweep leaves it alone.
            temporary
                .as_file()
                .try_lock()
                .map_err(std::io::Error::from)?;
            Ok(temporary)
        },
        |t| t.path(),
    )
    .map_err(crate::write::without_temporary_name)?;
    // Streamed to the file, where a buffer of the whole file, grown as it filled, took
    // three times its size in fresh memory, which the kernel zeroes: at 100,000 records a
    // first check's peak memory rose by half, and its time by a quarter.
    let mut out = Checksummed::new(temporary.as_file_mut());
    let mut head = Writer::default();
    head.bytes.extend_from_slice(MAGIC);
    head.u64(fingerprint);
    head.size(count);
    out.write_all(&head.bytes)?;
    let mut written = 0;
    for entry in batches.into_iter().flatten() {
        written += 1;
        head.bytes.clear();
        head.str(&entry.display);
        head.u64(entry.text_hash);
        head.option(entry.stamp.as_ref(), write_stamp);
        head.size(entry.payload.len());
        out.write_all(&head.bytes)?;
        out.write_all(&entry.payload)?;
    }
    if written != count {
        return Err(std::io::Error::other(format!(
            "{written} cache entries made where {count} were announced"
        )));
    }
    let (file, sum) = out.finish()?;
    file.write_all(&sum.to_le_bytes())?;
    let path = folder.join(FILE);
    temporary.land(|temporary| temporary.persist(&path).map_err(|err| err.error))?;
    Ok(path)
}

/// How a cache file being written is named: `.check-XXXXXX.tmp`.
const TEMPORARY_PREFIX: &str = ".check-";
const TEMPORARY_SUFFIX: &str = ".tmp";

/// The checksum that ends a cache file: a hash of everything before it, its [`BLOCK`]s
/// hashed in order, so that a writer works it out as it streams the file.
fn checksum(body: &[u8]) -> u64 {
    let mut hasher = foldhash::fast::FixedState::with_seed(0).build_hasher();
    for block in body.chunks(BLOCK) {
        hasher.write(block);
    }
    hasher.finish()
}

/// Writes to `inner` a [`BLOCK`] at a time, hashing each block as [`checksum`] does.
struct Checksummed<W: Write> {
    inner: W,
    block: Vec<u8>,
    hasher: foldhash::fast::FoldHasher<'static>,
}

impl<W: Write> Checksummed<W> {
    fn new(inner: W) -> Self {
        Checksummed {
            inner,
            block: Vec::with_capacity(BLOCK),
            hasher: foldhash::fast::FixedState::with_seed(0).build_hasher(),
        }
    }

    /// Writes the last, partial block; returns the writer and the checksum of all written.
    fn finish(mut self) -> std::io::Result<(W, u64)> {
        self.emit()?;
        Ok((self.inner, self.hasher.finish()))
    }

    fn emit(&mut self) -> std::io::Result<()> {
        if !self.block.is_empty() {
            self.hasher.write(&self.block);
            self.inner.write_all(&self.block)?;
            self.block.clear();
        }
        Ok(())
    }
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let taken = bytes.len().min(BLOCK - self.block.len());
        self.block
            .extend_from_slice(bytes.get(..taken).unwrap_or_default());
        if self.block.len() == BLOCK {
            self.emit()?;
        }
        Ok(taken)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A stamp's numbers, in a fixed order.
fn write_stamp(writer: &mut Writer, stamp: &Stamp) {
    for number in [
        stamp.len,
        stamp.device,
        stamp.inode,
        stamp.modified,
        stamp.changed,
    ] {
        writer.u64(number);
    }
}

/// A stamp as [`write_stamp`] writes it.
fn read_stamp(reader: &mut Reader<'_>) -> Option<Stamp> {
    Some(Stamp {
        len: reader.u64()?,
        device: reader.u64()?,
        inode: reader.u64()?,
        modified: reader.u64()?,
        changed: reader.u64()?,
    })
}

/// Writes numbers and strings as bytes: numbers little-endian, lengths and strings with
/// their length first.
#[derive(Default)]
pub struct Writer {
    /// What is written so far.
    pub bytes: Vec<u8>,
}

impl Writer {
    /// A byte.
    pub fn u8(&mut self, value: u8) {
        self.bytes.push(value);
    }

    /// A `u64`.
    pub fn u64(&mut self, value: u64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    /// A length or an offset.
    pub fn size(&mut self, value: usize) {
        self.u64(value as u64);
    }

    /// A string.
    pub fn str(&mut self, text: &str) {
        self.size(text.len());
        self.bytes.extend_from_slice(text.as_bytes());
    }

    /// A flag, as a byte `0` or `1`.
    pub fn flag(&mut self, value: bool) {
        self.u8(u8::from(value));
    }

    /// An optional value: a flag, then the value as `write` writes it.
    pub fn option<T>(&mut self, value: Option<T>, write: impl FnOnce(&mut Writer, T)) {
        self.flag(value.is_some());
        if let Some(value) = value {
            write(self, value);
        }
    }
}

/// Reads what a [`Writer`] wrote; every read is `None` past the end or on a value out of
/// range, never a panic.
pub struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    /// Reads `bytes` from the start.
    pub fn new(bytes: &'b [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    fn take(&mut self, count: usize) -> Option<&'b [u8]> {
        let taken = self.bytes.get(self.at..self.at.checked_add(count)?)?;
        self.at += count;
        Some(taken)
    }

    /// What is left.
    pub fn rest(&self) -> &'b [u8] {
        self.bytes.get(self.at..).unwrap_or_default()
    }

    /// A byte.
    pub fn u8(&mut self) -> Option<u8> {
        self.take(1)?.first().copied()
    }

    /// A `u64`.
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A length or an offset.
    pub fn size(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    /// A string.
    pub fn str(&mut self) -> Option<&'b str> {
        let length = self.size()?;
        std::str::from_utf8(self.take(length)?).ok()
    }

    /// A flag: `None` for a byte other than `0` or `1`.
    pub fn flag(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    /// What [`Writer::option`] wrote: `None` when it does not read whole.
    pub fn option<T>(
        &mut self,
        read: impl FnOnce(&mut Reader<'b>) -> Option<T>,
    ) -> Option<Option<T>> {
        if self.flag()? {
            read(self).map(Some)
        } else {
            Some(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(display: &str, text_hash: u64, payload: &[u8]) -> Kept {
        Kept {
            display: display.to_string(),
            text_hash,
            stamp: None,
            payload: payload.to_vec(),
        }
    }

    fn stamp(changed: u64) -> Stamp {
        Stamp {
            len: 10,
            device: 1,
            inode: 2,
            modified: 3,
            changed,
        }
    }

    #[test]
    fn a_stamp_is_read_back_with_its_entry() {
        let folder = tempfile::tempdir().unwrap();
        let entries = [
            Kept {
                stamp: Some(stamp(4)),
                ..kept("records/a.json", 1, b"first")
            },
            kept("records/b.json", 2, b"second"),
        ];
        save(folder.path(), 7, 2, [Vec::from(entries)]).unwrap();
        let memo = Memo::open(folder.path(), 7);
        assert_eq!(
            memo.recall_stamped("records/a.json"),
            Some((stamp(4), 1, &b"first"[..]))
        );
        assert_eq!(memo.recall_stamped("records/b.json"), None, "no stamp kept");
        assert_eq!(memo.recall("records/b.json", 2), Some(&b"second"[..]));
        assert_eq!(memo.recall_stamped("records/c.json"), None);
    }

    #[test]
    fn entries_are_recalled_only_for_the_same_text_and_fingerprint() {
        let folder = tempfile::tempdir().unwrap();
        let entries = [
            kept("records/a.json", 1, b"first"),
            kept("records/b.json", 2, b""),
        ];
        // In batches, as a check saves it; an empty batch is no entry.
        save(
            folder.path(),
            7,
            2,
            entries.map(|entry| vec![entry]).into_iter().chain([vec![]]),
        )
        .unwrap();
        let memo = Memo::open(folder.path(), 7);
        assert_eq!(memo.len(), 2);
        assert_eq!(memo.recall("records/a.json", 1), Some(&b"first"[..]));
        assert_eq!(memo.recall("records/b.json", 2), Some(&b""[..]));
        assert_eq!(memo.recall("records/a.json", 2), None, "the text changed");
        assert_eq!(memo.recall("records/c.json", 1), None);
        assert!(
            Memo::open(folder.path(), 8).is_empty(),
            "another fingerprint"
        );
        let ignore = std::fs::read_to_string(folder.path().join(".gitignore"));
        assert!(ignore.unwrap().lines().any(|line| line == "*"));
    }

    #[test]
    fn fewer_entries_than_announced_leave_the_old_cache() {
        let folder = tempfile::tempdir().unwrap();
        save(
            folder.path(),
            7,
            1,
            [vec![kept("records/a.json", 1, b"old")]],
        )
        .unwrap();
        let short = save(
            folder.path(),
            7,
            2,
            [vec![kept("records/a.json", 1, b"new")]],
        );
        assert!(short.is_err());
        let memo = Memo::open(folder.path(), 7);
        assert_eq!(memo.recall("records/a.json", 1), Some(&b"old"[..]));
        let files = std::fs::read_dir(folder.path()).unwrap().count();
        assert_eq!(
            files, 2,
            "the cache and its .gitignore, no temporary file left"
        );
    }

    #[test]
    fn a_damaged_cache_reads_as_none() {
        let folder = tempfile::tempdir().unwrap();
        let path = save(
            folder.path(),
            7,
            1,
            [vec![kept("records/a.json", 1, b"payload")]],
        )
        .unwrap();
        let whole = std::fs::read(&path).unwrap();
        for damaged in [
            whole[..whole.len() - 1].to_vec(),
            whole[..10].to_vec(),
            Vec::new(),
            {
                let mut flipped = whole.clone();
                flipped[MAGIC.len() + 20] ^= 1;
                flipped
            },
        ] {
            std::fs::write(&path, &damaged).unwrap();
            assert!(Memo::open(folder.path(), 7).is_empty(), "{damaged:?}");
        }
    }

    #[test]
    fn a_count_beyond_the_bytes_reserves_nothing_and_reads_as_none() {
        let folder = tempfile::tempdir().unwrap();
        let mut writer = Writer::default();
        writer.bytes.extend_from_slice(MAGIC);
        writer.u64(7);
        writer.u64(u64::MAX);
        let sum = checksum(&writer.bytes);
        writer.u64(sum);
        std::fs::write(folder.path().join(FILE), &writer.bytes).unwrap();
        assert!(Memo::open(folder.path(), 7).is_empty());
    }

    proptest::proptest! {
        /// Whatever bytes a cache holds, even with a closing hash that matches them, reading
        /// them never panics.
        #[test]
        fn any_bytes_read_without_a_panic(
            body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            with_magic in proptest::prelude::any::<bool>(),
        ) {
            let mut bytes = if with_magic { MAGIC.to_vec() } else { Vec::new() };
            bytes.extend_from_slice(&body);
            let sum = checksum(&bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
            let _ = Memo::parse(bytes, 7);
        }
    }

    #[test]
    fn a_streamed_checksum_is_the_checksum_of_the_whole() {
        let body: Vec<u8> = (0..3 * BLOCK + 17).map(|n| (n * 7 % 251) as u8).collect();
        for piece in [1, 1000, BLOCK - 1, BLOCK, BLOCK + 3, body.len()] {
            let mut out = Checksummed::new(Vec::new());
            for part in body.chunks(piece) {
                out.write_all(part).unwrap();
            }
            let (written, sum) = out.finish().unwrap();
            assert_eq!(written, body, "{piece}");
            assert_eq!(sum, checksum(&body), "{piece}");
        }
        assert_ne!(checksum(&body), checksum(&body[1..]));
    }

    #[test]
    fn a_reader_stops_at_the_end() {
        let mut writer = Writer::default();
        writer.str("id");
        writer.u8(3);
        let mut reader = Reader::new(&writer.bytes);
        assert_eq!(reader.str(), Some("id"));
        assert_eq!(reader.u8(), Some(3));
        assert_eq!(reader.u8(), None);
        assert_eq!(Reader::new(&[255; 8]).str(), None, "a length past the end");
    }
}
