//! Source files as text, and the arithmetic between byte offsets and `line:col`.
//!
//! Every position the tool reports is a byte range into a [`SourceFile`]'s text. Lines and
//! columns are derived only when a diagnostic is rendered, so clean files never pay for a line
//! index. Columns count characters, not bytes, and start at 1, as rustc and editors do.

use std::borrow::Cow;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::stamp::Stamp;

/// A byte range into a file's text.
pub type Span = Range<usize>;

/// The on-disk format of a record, chosen by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// `.json`
    Json,
    /// `.yaml` or `.yml`
    Yaml,
    /// `.md`: YAML front matter and a Markdown body.
    Markdown,
}

impl Format {
    /// The format for a file extension, or `None` for anything the tool does not read.
    pub fn from_extension(ext: &str) -> Option<Format> {
        match ext {
            "json" => Some(Format::Json),
            "yaml" | "yml" => Some(Format::Yaml),
            "md" => Some(Format::Markdown),
            _ => None,
        }
    }

    /// The format of the file at `path`, by its extension.
    pub fn of_path(path: &Path) -> Option<Format> {
        path.extension()
            .and_then(|e| e.to_str())
            .and_then(Format::from_extension)
    }

    /// The lower-case name used in messages and JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Yaml => "yaml",
            Format::Markdown => "markdown",
        }
    }
}

/// A file that was read, with its text decoded.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Where the file is on disk.
    pub path: PathBuf,
    /// The path shown to people and written to reports: relative to the corpus root when the
    /// file is inside it, with `/` separators on every platform.
    pub display: String,
    /// The decoded text, without a byte-order mark. `None` when the file could not be read or
    /// decoded (the load stage reported why), or when the text was let go after loading
    /// (see [`SourceFile::let_go`]).
    pub text: Option<String>,
    /// Whether the file started with a UTF-8 byte-order mark, so a writer can put it back.
    pub had_bom: bool,
    /// A hash of the text that was let go, if it was: what [`SourceFile::text_again`] checks
    /// a fresh read against.
    let_go: Option<u64>,
    /// What is kept of a record's text that was let go (see [`Head`]).
    head: Option<Head>,
    /// What the file system said of the file as it was opened to be read, where it tells.
    pub stamp: Option<Stamp>,
    /// [`display_hash`] of `display`, taken as the file is made, while its path is at hand.
    display_hash: u64,
}

/// A hash of a displayed path, the same in every run: [`NamedFiles`] finds a few named
/// files among all the corpus's by the hash each keeps before its path, which lies wherever
/// it was allocated. Hashing every path instead was a third of locating a report's
/// positions at 100,000 records, and half at a million.
fn display_hash(display: &str) -> u64 {
    crate::cache::stable_hash(display.as_bytes())
}

/// Files named by their displayed paths, each with what is wanted of it (`T`), to be found
/// among all the corpus's files by a hash of the path, which each [`SourceFile`] keeps: a
/// walk over every file reads a path only where its hash is named.
pub struct NamedFiles<'d, T> {
    table: hashbrown::HashTable<(&'d str, T)>,
}

impl<T> Default for NamedFiles<'_, T> {
    fn default() -> Self {
        NamedFiles {
            table: hashbrown::HashTable::new(),
        }
    }
}

impl<'d, T> NamedFiles<'d, T> {
    /// What is wanted of the file shown as `display`: `T::default()` when it is first named.
    pub fn entry(&mut self, display: &'d str) -> &mut T
    where
        T: Default,
    {
        let (_, wanted) = self
            .table
            .entry(
                display_hash(display),
                |(named, _)| *named == display,
                |(named, _)| display_hash(named),
            )
            .or_insert((display, T::default()))
            .into_mut();
        wanted
    }

    /// What is wanted of `file`, if it is named.
    pub fn get(&self, file: &SourceFile) -> Option<&T> {
        self.table
            .find(file.display_hash, |(named, _)| *named == file.display)
            .map(|(_, wanted)| wanted)
    }

    /// Takes `file` out, with what was wanted of it, if it is named.
    pub fn take(&mut self, file: &SourceFile) -> Option<T> {
        let found = self
            .table
            .find_entry(file.display_hash, |(named, _)| *named == file.display)
            .ok()?;
        let ((_, wanted), _) = found.remove();
        Some(wanted)
    }

    /// Whether no file is named.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// The displayed paths named, in no order.
    pub fn names(self) -> impl Iterator<Item = &'d str> {
        self.table.into_iter().map(|(named, _)| named)
    }
}

/// The start of a record's text, kept when the rest is let go: the text up to the end of the
/// line its root value starts on, and the root's span cut to that line.
///
/// A diagnostic about a record as a whole (an orphan, a missing field) points at its root,
/// and the report quotes the root's first line. At 100,000 generated records three in four
/// of the files a report names are named only so; with their heads kept (a line each:
/// `{` of JSON, the first field of YAML, the line after a Markdown record's `---`), they
/// are not read again, and a YAML or Markdown one is not parsed again to find its root
/// (YAML's locating at 100,000 records went from 48.6 to 21.7 ms).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The text up to the end of the line the root starts on.
    pub text: Box<str>,
    /// The root value's span, cut to its first line.
    pub root: Span,
}

impl SourceFile {
    /// A file as read: `text` is `None` when it could not be read or decoded.
    pub fn new(path: PathBuf, display: String, text: Option<String>, had_bom: bool) -> Self {
        SourceFile {
            path,
            display_hash: display_hash(&display),
            display,
            text,
            had_bom,
            let_go: None,
            head: None,
            stamp: None,
        }
    }

    /// A file known unchanged by its `stamp` and not read: its text is let go from the
    /// start, with the hash it had when it was last read (see [`SourceFile::text_again`])
    /// and the head kept of it then, if one was. Whether it starts with a byte-order mark
    /// is not known, so the commands that write files read them.
    pub fn unread(
        path: PathBuf,
        display: String,
        text_hash: u64,
        stamp: Stamp,
        head: Option<Head>,
    ) -> Self {
        SourceFile {
            path,
            display_hash: display_hash(&display),
            display,
            text: None,
            had_bom: false,
            let_go: Some(text_hash),
            head,
            stamp: Some(stamp),
        }
    }

    /// Drops the text, keeping a hash of it.
    ///
    /// A check of the whole corpus needs a file's text only to point at the few files that
    /// have problems, and the texts of a large corpus are as big as the corpus on disk; the
    /// check lets them go and reads those few files again.
    pub fn let_go(&mut self) {
        if let Some(text) = &self.text {
            self.let_go_hashed(text_hash(text));
        }
    }

    /// [`SourceFile::let_go`] for a text whose [`text_hash`] is already known.
    pub fn let_go_hashed(&mut self, hash: u64) {
        if self.text.take().is_some() {
            self.let_go = Some(hash);
        }
    }

    /// Keeps the head of the text (see [`Head`]), given the span of its root value: before
    /// the text is let go.
    pub fn keep_head(&mut self, root: &Span) {
        self.head = self.text.as_deref().map(|text| {
            let root = first_line(text, root);
            let end = line_end(text, root.start);
            Head {
                text: text.get(..end).unwrap_or_default().into(),
                root,
            }
        });
    }

    /// The head kept of a text that was let go (see [`Head`]), if it was.
    pub fn head(&self) -> Option<&Head> {
        self.head.as_ref()
    }

    /// The hash of the text that was let go, if it was.
    pub fn let_go_hash(&self) -> Option<u64> {
        self.let_go
    }

    /// Whether the text was let go (see [`SourceFile::let_go`]).
    pub fn is_let_go(&self) -> bool {
        self.let_go.is_some()
    }

    /// The text: the one kept, or for a file whose text was let go, the file read again,
    /// provided it still holds what was loaded. `None` when there is no such text: the file
    /// could not be read, or has changed since, so positions found in it then would be wrong.
    pub fn text_again(&self) -> Option<Cow<'_, str>> {
        if let Some(text) = &self.text {
            return Some(Cow::Borrowed(text));
        }
        let hash = self.let_go?;
        let (text, _) = decode(crate::load::read_regular(&self.path).ok()?).ok()?;
        (text_hash(&text) == hash).then_some(Cow::Owned(text))
    }
}

/// Texts of corpus files that a stage had again ([`SourceFile::text_again`]: read again from
/// disk, or copied from the corpus), by displayed path: handed on to a later stage that
/// wants them too, so that a file is not read twice in one run, nor looked for twice among
/// all the corpus's.
pub type ReadAgain = foldhash::HashMap<String, TextAgain>;

/// A file's text with the places of the spans a stage resolved in it, worked out while the
/// text was at hand: a report placing them later read each text from memory again, and at
/// 100,000 records, where the texts a report names outgrow a core's cache, that was two
/// fifths of rendering a JSON report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextAgain {
    /// The text.
    pub text: String,
    /// Each span placed, with the positions of its ends ([`line_cols`]), in span order.
    places: Vec<(Span, (LineCol, LineCol))>,
}

impl TextAgain {
    /// The text with `spans` placed in it.
    pub fn new(text: String, spans: impl IntoIterator<Item = Span>) -> TextAgain {
        let mut spans: Vec<Span> = spans.into_iter().collect();
        spans.sort_unstable_by_key(|span| (span.start, span.end));
        spans.dedup();
        // The starts are placed walking the text once, each from the one before: counted
        // from the text's start each time, 100,000 problems in one file (a page citing a
        // renamed record on every line) took the square of its length.
        let mut walked = LineCol { line: 1, column: 1 };
        let mut offset = 0;
        let places = spans
            .into_iter()
            .map(|span| {
                let start = floor_char_boundary(&text, span.start);
                walked = walk(&text, walked, offset, start);
                offset = offset.max(start);
                let ends = (walked, end_from(&text, walked, start, span.end));
                (span, ends)
            })
            .collect();
        TextAgain { text, places }
    }

    /// [`line_cols`] of `span` in the text: as placed already, or worked out now.
    pub fn line_cols(&self, span: &Span) -> (LineCol, LineCol) {
        self.places
            .binary_search_by_key(&(span.start, span.end), |(placed, _)| {
                (placed.start, placed.end)
            })
            .ok()
            .and_then(|at| self.places.get(at))
            .map_or_else(|| line_cols(&self.text, span), |(_, ends)| *ends)
    }
}

/// A hash that is the same in every run, so a text let go can be told from a changed one,
/// and a file from the text the check cache was made from ([`crate::cache`]).
pub fn text_hash(text: &str) -> u64 {
    crate::cache::stable_hash(text.as_bytes())
}

/// What went wrong turning bytes into text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The bytes are not UTF-8; `offset` is the first bad byte.
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence, after any byte-order mark.
        offset: usize,
    },
    /// The bytes start with the byte-order mark of another Unicode encoding: the file was
    /// saved as UTF-16 or UTF-32, as some editors do when asked for "Unicode". Named, where
    /// "not valid UTF-8" at the first byte would leave the reader to guess why.
    OtherEncoding {
        /// The encoding the mark names: `UTF-16LE`, `UTF-16BE`, `UTF-32LE` or `UTF-32BE`.
        name: &'static str,
        /// The mark's bytes.
        mark: &'static [u8],
    },
    /// The bytes start as UTF-16 text of ASCII characters does, with no byte-order mark: a
    /// NUL in every other byte. Those are valid UTF-8, so without this a parser would
    /// refuse the first NUL as a character it does not print.
    UnmarkedUtf16 {
        /// `UTF-16LE` or `UTF-16BE`.
        name: &'static str,
        /// How many of the first bytes look so: what a report underlines.
        len: usize,
    },
}

/// The byte-order marks of the Unicode encodings other than UTF-8, each with its encoding's
/// name; UTF-32LE's first, as it starts with UTF-16LE's.
const OTHER_BOMS: [(&[u8], &str); 4] = [
    (b"\xFF\xFE\0\0", "UTF-32LE"),
    (b"\0\0\xFE\xFF", "UTF-32BE"),
    (b"\xFF\xFE", "UTF-16LE"),
    (b"\xFE\xFF", "UTF-16BE"),
];

/// Decodes file bytes as UTF-8, accepting and removing a byte-order mark.
///
/// CRLF line endings are kept as they are: every parser used here accepts them, and keeping
/// the bytes unchanged is what lets a fix edit exactly the bytes of one value.
pub fn decode(bytes: Vec<u8>) -> Result<(String, bool), DecodeError> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    if let Some(&(mark, name)) = OTHER_BOMS.iter().find(|(bom, _)| bytes.starts_with(bom)) {
        return Err(DecodeError::OtherEncoding { name, mark });
    }
    if let Some(name) = unmarked_utf16(&bytes) {
        return Err(DecodeError::UnmarkedUtf16 {
            name,
            len: UTF16_SAMPLE.min(bytes.len()),
        });
    }
    let had_bom = bytes.starts_with(BOM);
    let bytes = if had_bom {
        bytes.get(BOM.len()..).unwrap_or_default().to_vec()
    } else {
        bytes
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok((text, had_bom)),
        Err(err) => Err(DecodeError::InvalidUtf8 {
            offset: err.utf8_error().valid_up_to(),
        }),
    }
}

/// The bytes [`unmarked_utf16`] looks at: four UTF-16 code units.
const UTF16_SAMPLE: usize = 8;

/// The UTF-16 encoding `bytes` look written in without a byte-order mark: their first code
/// units (two at least, up to four) each a NUL and a byte that is not, the NUL second in
/// little-endian and first in big-endian. No record or page holds a NUL, so a text of UTF-8
/// never starts so; a file saved as "Unicode" without a mark by some editors does.
fn unmarked_utf16(bytes: &[u8]) -> Option<&'static str> {
    let sample = bytes.get(..UTF16_SAMPLE.min(bytes.len()))?;
    let units: Vec<&[u8]> = sample.chunks_exact(2).collect();
    if units.len() < 2 {
        return None;
    }
    if units
        .iter()
        .all(|unit| matches!(unit, [low, 0] if *low != 0))
    {
        Some("UTF-16LE")
    } else if units
        .iter()
        .all(|unit| matches!(unit, [0, low] if *low != 0))
    {
        Some("UTF-16BE")
    } else {
        None
    }
}

/// Decodes bytes for display only: a byte-order mark is dropped and invalid sequences become
/// U+FFFD. Offsets before the first invalid byte are the same as in [`decode`]'s text, which
/// is what lets an encoding error be shown at its position.
pub fn decode_lossy(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// A 1-based line and column (the column counts characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// Converts a byte offset into a 1-based line and character column.
///
/// An offset past the end is clamped to the end, and one inside a multi-byte character is
/// moved back to its start, so any offset a parser reports can be rendered.
pub fn line_col(text: &str, offset: usize) -> LineCol {
    walk(
        text,
        LineCol { line: 1, column: 1 },
        0,
        floor_char_boundary(text, offset),
    )
}

/// The position of byte `to`, walked on from `at`, the position of byte `from` (both char
/// boundaries, `from` at most `to`).
fn walk(text: &str, at: LineCol, from: usize, to: usize) -> LineCol {
    let (ends, line_start) = line_ends(text, from, to);
    let chars = |from: usize| text.get(from..to).map_or(0, |line| line.chars().count());
    match line_start {
        Some(line_start) => LineCol {
            line: at.line + ends,
            column: chars(line_start) + 1,
        },
        None => LineCol {
            line: at.line,
            column: at.column + chars(from),
        },
    }
}

/// The line ends among the bytes `from..to` of `text`: how many there are, and where the
/// line after the last one starts.
///
/// A line ends at `\n`, at `\r\n` (one end) and at a `\r` alone, as YAML, CommonMark, the
/// LSP and SARIF count lines: a file saved with classic Mac line endings is as many lines
/// as it shows. A `\r` is told from the first half of `\r\n` by the byte after it in
/// `text`, so a range that ends between the two counts neither. Scanned with `memchr2`,
/// which on lines of 20 bytes or more is faster than counting the `\n` bytes one by one was.
pub fn line_ends(text: &str, from: usize, to: usize) -> (usize, Option<usize>) {
    let bytes = text.as_bytes();
    let mut ends = 0;
    let mut line_start = None;
    for at in memchr::memchr2_iter(b'\n', b'\r', bytes.get(from..to).unwrap_or_default()) {
        let at = from + at;
        if bytes.get(at) == Some(&b'\r') && bytes.get(at + 1) == Some(&b'\n') {
            continue;
        }
        ends += 1;
        line_start = Some(at + 1);
    }
    (ends, line_start)
}

/// Where the line holding byte `from` ends: the offset of its line break (the `\r` of
/// `\r\n`), or the text's length.
pub fn line_end(text: &str, from: usize) -> usize {
    text.as_bytes()
        .get(from..)
        .and_then(|rest| memchr::memchr2(b'\n', b'\r', rest))
        .map_or(text.len(), |at| from + at)
}

/// Where the line after the one holding byte `from` starts, past its line break; `None` on
/// the last line.
pub fn next_line_start(text: &str, from: usize) -> Option<usize> {
    let end = line_end(text, from);
    match text.as_bytes().get(end..)? {
        [b'\r', b'\n', ..] => Some(end + 2),
        [_, ..] => Some(end + 1),
        [] => None,
    }
}

/// `text` with every `\r` that ends a line alone written as `\n`, for a renderer that
/// knows no other line end (annotate-snippets draws a lone `\r` as a character of a line
/// that runs on). The text keeps its length, so every span into it stays where it was.
pub fn lone_crs_as_lfs(text: &str) -> Cow<'_, str> {
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    for at in memchr::memchr_iter(b'\r', text.as_bytes()) {
        if text.as_bytes().get(at + 1) != Some(&b'\n')
            && let Some(byte) = bytes.get_mut(at)
        {
            *byte = b'\n';
        }
    }
    // One ASCII byte for another leaves the text UTF-8.
    Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| text.to_string()))
}

/// Where the line holding byte `offset` starts: just past the line break before it, or 0.
pub fn line_start(text: &str, offset: usize) -> usize {
    let bytes = text.as_bytes();
    let mut before = bytes.get(..offset).unwrap_or_default();
    // The `\r` of a `\r\n` that `offset` splits does not end the line `offset` is on.
    if before.last() == Some(&b'\r') && bytes.get(offset) == Some(&b'\n') {
        before = before.get(..before.len() - 1).unwrap_or_default();
    }
    memchr::memrchr2(b'\n', b'\r', before).map_or(0, |at| at + 1)
}

/// [`line_col`] of both ends of `span`, the end counted on from the start rather than from
/// the text's start again: a span is nearly always on one line, and a report places every
/// span it shows (counting each end from the start of its file was two fifths of the JSON
/// report's samples at a million records).
pub fn line_cols(text: &str, span: &Span) -> (LineCol, LineCol) {
    let start = line_col(text, span.start);
    (
        start,
        end_from(text, start, floor_char_boundary(text, span.start), span.end),
    )
}

/// The position of byte `end`, counted on from `start`, the position of byte `from`.
fn end_from(text: &str, start: LineCol, from: usize, end: usize) -> LineCol {
    let to = floor_char_boundary(text, end);
    if to < from {
        return line_col(text, end);
    }
    walk(text, start, from, to)
}

/// The byte offset of a 1-based line and a 0-based byte column, clamped to the text, the
/// lines counted as `serde_json` counts them in its errors: by `\n` alone.
pub fn offset_of_line(text: &str, line: usize, byte_column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text.get(start..).and_then(|rest| rest.find('\n')) {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    floor_char_boundary(text, start + byte_column)
}

/// The largest char boundary at or before `offset`, clamped to the text length.
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Widens a span to whole characters and clamps it to the text, so that any span, even one
/// computed on other bytes, can be sliced and rendered without panicking.
pub fn char_span(text: &str, span: &Span) -> Span {
    let start = floor_char_boundary(text, span.start);
    let mut end = span.end.clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// Converts character indices (what the YAML parser counts) into byte offsets.
///
/// The parser asks in nearly increasing order, so a cursor walks forward from the last
/// answer: a whole file costs one pass over its text, and no table. (A table of every
/// character's offset, as a first version built, was eight bytes per character of every
/// non-ASCII file, allocated and filled on each load.) An earlier index is walked back to
/// from the last answer, so no order of questions costs more than the distances asked
/// across. ASCII text needs no walk at all, and neither does a run of ASCII after the cursor
/// in other text: a record with one `µ` in it walks only across the `µ`, where walking every
/// character up to each answer was 3% of checking Markdown records.
pub struct CharIndex<'a> {
    text: &'a str,
    ascii: bool,
    /// The last answer: a character index and its byte offset.
    cursor: (usize, usize),
    /// The byte offset of the first non-ASCII character at or after the cursor's, or the
    /// text's length: up to it, a character is a byte.
    wide: usize,
}

impl<'a> CharIndex<'a> {
    /// Prepares the conversion for `text`.
    pub fn new(text: &'a str) -> Self {
        CharIndex {
            text,
            ascii: text.is_ascii(),
            cursor: (0, 0),
            wide: first_wide(text, 0),
        }
    }

    /// The byte offset of the character at `index`, or the text length past the end.
    pub fn byte_offset(&mut self, index: usize) -> usize {
        if self.ascii {
            return index.min(self.text.len());
        }
        let (at, offset) = self.cursor;
        let offset = if index >= at {
            let ahead = index - at;
            if offset + ahead < self.wide {
                self.cursor = (index, offset + ahead);
                return offset + ahead;
            }
            // Every byte up to `wide` is a character; the rest is walked.
            let run = self.wide - offset;
            let rest = self.text.get(self.wide..).unwrap_or_default();
            match rest.char_indices().nth(ahead - run) {
                Some((within, _)) => self.wide + within,
                None => {
                    self.cursor = (at + run + rest.chars().count(), self.text.len());
                    self.wide = self.text.len();
                    return self.text.len();
                }
            }
        } else {
            let before = self.text.get(..offset).unwrap_or_default();
            before
                .char_indices()
                .rev()
                .nth(at - index - 1)
                .map_or(0, |(start, _)| start)
        };
        self.cursor = (index, offset);
        self.wide = first_wide(self.text, offset);
        offset
    }
}

/// The byte offset of the first non-ASCII character of `text` at or after `from` (a
/// character boundary), or the text's length.
fn first_wide(text: &str, from: usize) -> usize {
    text.as_bytes()
        .get(from..)
        .and_then(|rest| rest.iter().position(|byte| !byte.is_ascii()))
        .map_or(text.len(), |at| from + at)
}

/// The path to show for `path`: relative to `root` when inside it, always with `/`.
pub fn display_path(root: &Path, path: &Path) -> String {
    relative_display(root, path).into_owned()
}

/// [`display_path`], borrowed from `path` when it is already in that form, as the paths a
/// walk joins are: splitting a path into components costs more than the rest of sorting
/// a file into a collection, for each of 100,000 files.
pub fn relative_display<'p>(root: &Path, path: &'p Path) -> Cow<'p, str> {
    if std::path::MAIN_SEPARATOR == '/'
        && let (Some(text), Some(prefix)) = (path.to_str(), root.to_str())
        && let Some(rest) = text
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('/'))
        && is_plain_relative(rest)
    {
        return Cow::Borrowed(rest);
    }
    let relative = path.strip_prefix(root).unwrap_or(path);
    let mut display = String::with_capacity(relative.as_os_str().len());
    for component in relative.components() {
        if !display.is_empty() && !display.ends_with('/') {
            display.push('/');
        }
        display.push_str(&component.as_os_str().to_string_lossy());
    }
    Cow::Owned(display)
}

/// Whether `path` is a relative path its components would spell out again: parts joined
/// by single `/`s, none empty or `.`. Checked on bytes, a part at a time: splitting on `'/'`
/// as a string searches for each separator with a call of its own, which cost more than the
/// rest of working out a file's displayed path.
fn is_plain_relative(path: &str) -> bool {
    path.as_bytes()
        .split(|&byte| byte == b'/')
        .all(|part| !part.is_empty() && part != b".")
}

/// Percent-encodes one path segment for a URI: everything but unreserved characters.
pub fn uri_segment(segment: &str) -> String {
    const UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(segment, UNRESERVED).to_string()
}

/// Shrinks a span to the end of its first line, so a diagnostic about a whole mapping
/// underlines its first line rather than the whole block.
pub fn first_line(text: &str, span: &Span) -> Span {
    let start = floor_char_boundary(text, span.start);
    let end = floor_char_boundary(text, span.end.max(start));
    let cut = text
        .get(start..end)
        .and_then(|span| span.find(['\n', '\r']))
        .map_or(end, |i| start + i);
    start..cut.max(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_let_go_is_read_again_only_while_the_file_is_unchanged() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("vllm.json");
        std::fs::write(&path, "\u{feff}{\"id\": \"vllm\"}").expect("written");
        let (text, had_bom) = decode(std::fs::read(&path).expect("read")).expect("UTF-8");
        let mut file = SourceFile::new(path.clone(), "vllm.json".into(), Some(text), had_bom);
        file.let_go();
        assert!(file.is_let_go());
        assert_eq!(file.text, None);
        assert_eq!(file.text_again().as_deref(), Some("{\"id\": \"vllm\"}"));
        std::fs::write(&path, "{\"id\": \"sglang\"}").expect("rewritten");
        assert_eq!(file.text_again(), None);
    }

    #[test]
    fn paths_display_relative_with_slashes_in_normal_form() {
        let shown = |root: &str, path: &str| display_path(Path::new(root), Path::new(path));
        assert!(matches!(
            relative_display(Path::new("/c"), Path::new("/c/records/a/x.json")),
            Cow::Borrowed("records/a/x.json")
        ));
        assert_eq!(shown("/c", "/c/records//a/./x.json"), "records/a/x.json");
        assert_eq!(shown("/c", "/c/records/a/"), "records/a");
        assert_eq!(shown(".", "./records/x.md"), "records/x.md");
        assert_eq!(shown("/c/", "/c/records/x.md"), "records/x.md");
        assert_eq!(shown("/c", "/elsewhere/x.md"), "/elsewhere/x.md");
        assert_eq!(shown("/c", "/cc/x.md"), "/cc/x.md");
        assert_eq!(shown("", "records/x.md"), "records/x.md");
    }

    proptest::proptest! {
        /// Whatever the order of the questions, the answers are the characters' offsets (or
        /// the text's length past its end): runs of ASCII skipped, wide characters walked.
        #[test]
        fn char_index_answers_as_counting_characters_does(
            text in "[a-cé日\u{1F600}\n]{0,40}",
            asked in proptest::collection::vec(0usize..45, 0..30),
        ) {
            let offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            let mut index = CharIndex::new(&text);
            for at in asked {
                let expected = offsets.get(at).copied().unwrap_or(text.len());
                proptest::prop_assert_eq!(index.byte_offset(at), expected);
            }
        }
    }

    #[test]
    fn char_index_gives_byte_offsets_asked_in_any_order() {
        let text = "aé日\u{1F600}b";
        let expected: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let mut index = CharIndex::new(text);
        for order in [[0, 1, 2, 3, 4], [4, 2, 3, 0, 1]] {
            for at in order {
                assert_eq!(index.byte_offset(at), expected[at]);
            }
        }
        assert_eq!(index.byte_offset(99), text.len());
        assert_eq!(index.byte_offset(4), expected[4]);
        assert_eq!(index.byte_offset(1), 1);
        assert_eq!(index.byte_offset(100), text.len());
        assert_eq!(index.byte_offset(0), 0);
        assert_eq!(CharIndex::new("abc").byte_offset(2), 2);
    }

    #[test]
    fn a_file_never_read_is_not_read_again() {
        let file = SourceFile::new("missing.json".into(), "missing.json".into(), None, false);
        assert_eq!(file.text_again(), None);
    }

    proptest::proptest! {
        /// Both ends of a span placed in one pass are where each is alone: spans within a
        /// line or over several, ends inside a character or past the text, an end before
        /// the start.
        #[test]
        fn a_span_s_ends_are_placed_as_each_alone(
            text in "[aé\n\r-]{0,40}",
            start in 0usize..60,
            end in 0usize..60,
        ) {
            proptest::prop_assert_eq!(
                line_cols(&text, &(start..end)),
                (line_col(&text, start), line_col(&text, end))
            );
        }

        /// A text had again gives each span the places its text gives it, whether the span
        /// was placed with the text or not, among spans that share a start or an end.
        #[test]
        fn a_text_had_again_places_spans_as_its_text_does(
            text in "[aé\n\r-]{0,40}",
            placed in proptest::collection::vec((0usize..45, 0usize..45), 0..8),
            asked in proptest::collection::vec((0usize..45, 0usize..45), 1..8),
        ) {
            let again = TextAgain::new(text.clone(), placed.iter().map(|&(s, e)| s..e));
            for (start, end) in placed.into_iter().chain(asked) {
                proptest::prop_assert_eq!(
                    again.line_cols(&(start..end)),
                    line_cols(&text, &(start..end))
                );
            }
        }
    }

    #[test]
    fn named_files_are_found_by_their_displayed_paths() {
        let file = |display: &str| SourceFile::new(display.into(), display.into(), None, false);
        let (a, b, c) = (
            file("records/a.json"),
            file("records/b.json"),
            file("c.json"),
        );
        let mut named: NamedFiles<'_, usize> = NamedFiles::default();
        *named.entry("records/a.json") += 1;
        *named.entry("records/a.json") += 1;
        *named.entry("records/b.json") += 5;
        named.entry("schema/x.json");
        assert_eq!(named.get(&a), Some(&2));
        assert_eq!(named.get(&c), None);
        assert_eq!(named.take(&b), Some(5));
        assert_eq!(named.get(&b), None);
        assert!(!named.is_empty());
        assert_eq!(named.take(&a), Some(2));
        assert_eq!(named.names().collect::<Vec<_>>(), ["schema/x.json"]);
    }

    #[test]
    fn line_col_counts_characters_and_tolerates_crlf() {
        let text = "a: 1\r\nbé: x\n";
        assert_eq!(line_col(text, 0), LineCol { line: 1, column: 1 });
        let x = text.find('x').unwrap_or_default();
        assert_eq!(line_col(text, x), LineCol { line: 2, column: 5 });
        assert_eq!(line_col(text, 999).line, 3);
    }

    #[test]
    fn line_col_ends_a_line_at_a_lone_carriage_return() {
        let text = "a\rb\r\nc\nd";
        assert_eq!(line_col(text, 2), LineCol { line: 2, column: 1 });
        assert_eq!(line_col(text, 5), LineCol { line: 3, column: 1 });
        assert_eq!(line_col(text, 7), LineCol { line: 4, column: 1 });
        // Between the two bytes of `\r\n` is still the end of line 2.
        assert_eq!(line_col(text, 4), LineCol { line: 2, column: 3 });
        assert_eq!(line_start(text, 4), 2);
        assert_eq!(next_line_start(text, 2), Some(5));
        assert_eq!(lone_crs_as_lfs(text), "a\nb\r\nc\nd");
    }

    #[test]
    fn decode_strips_bom_and_reports_bad_bytes() {
        assert_eq!(
            decode(b"\xEF\xBB\xBFa".to_vec()),
            Ok(("a".to_string(), true))
        );
        assert_eq!(
            decode(b"ab\xFF".to_vec()),
            Err(DecodeError::InvalidUtf8 { offset: 2 })
        );
    }

    #[test]
    fn decode_names_the_encoding_another_byte_order_mark_declares() {
        for (bytes, name, mark) in [
            (&b"\xFF\xFEa\0"[..], "UTF-16LE", &b"\xFF\xFE"[..]),
            (b"\xFE\xFF\0a", "UTF-16BE", b"\xFE\xFF"),
            (b"\xFF\xFE\0\0a\0\0\0", "UTF-32LE", b"\xFF\xFE\0\0"),
            (b"\0\0\xFE\xFF\0\0\0a", "UTF-32BE", b"\0\0\xFE\xFF"),
        ] {
            assert_eq!(
                decode(bytes.to_vec()),
                Err(DecodeError::OtherEncoding { name, mark }),
                "{name}"
            );
        }
        // A UTF-8 text may start with the characters those bytes are not.
        assert_eq!(
            decode("ÿþ".as_bytes().to_vec()),
            Ok(("ÿþ".to_string(), false))
        );
    }

    #[test]
    fn decode_names_utf16_without_a_byte_order_mark() {
        for (bytes, name, len) in [
            (&b"i\0d\0:\0 \0x\0"[..], "UTF-16LE", 8),
            (b"\0{\0\"", "UTF-16BE", 4),
        ] {
            assert_eq!(
                decode(bytes.to_vec()),
                Err(DecodeError::UnmarkedUtf16 { name, len })
            );
        }
        // One NUL, or NULs out of step, are no UTF-16.
        for bytes in [&b"a\0"[..], b"a\0\0b", b"ab\0\0", b"\0\0\0\0"] {
            assert!(
                !matches!(
                    decode(bytes.to_vec()),
                    Err(DecodeError::UnmarkedUtf16 { .. })
                ),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn char_span_widens_to_whole_characters() {
        let text = "aé b";
        assert_eq!(char_span(text, &(2..2)), 1..3);
        assert_eq!(char_span(text, &(1..2)), 1..3);
        assert_eq!(char_span(text, &(3..99)), 3..text.len());
    }

    #[test]
    fn char_index_maps_non_ascii() {
        let text = "é: ü";
        let mut index = CharIndex::new(text);
        assert_eq!(index.byte_offset(1), 2);
        assert_eq!(index.byte_offset(3), 4);
        assert_eq!(index.byte_offset(10), text.len());
    }
}
