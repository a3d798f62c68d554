//! YAML to JSON values, with positions and limits, on saphyr's event parser.
//!
//! saphyr is used instead of serde_yaml because serde_yaml is deprecated by its author and has
//! no per-node positions. Rather than saphyr's own tree loader, this module builds values from
//! the parser's events itself, which buys three things a linter needs: duplicate keys are
//! reported (with both positions) instead of silently merged; nesting depth and alias
//! expansion are bounded, so an alias bomb or 10,000 nested brackets end in a diagnostic
//! rather than a hang or a stack overflow; and the same pass can record every node's span for
//! the [`SourceMap`] when, and only when, a file has problems.
//!
//! Scalars are resolved with the YAML 1.2 core schema: `2026-10-03` stays a string (YAML 1.1
//! would make it a timestamp), `yes` stays a string, `~`/`null` are null.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span as YamlSpan, Tag};
use serde_json::{Map, Number, Value};

use super::DuplicateKey;
use crate::diagnostic::{escape_pointer_segment, join_pointer};
use crate::source::{CharIndex, Span};
use crate::sourcemap::{Node, SourceMap};

/// Bounds that keep hostile input from exhausting the machine.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest nesting of sequences and mappings.
    pub max_depth: usize,
    /// Most nodes the aliases of a document may stand for, each counted in full: what a
    /// few lines of aliases of aliases make (a "billion laughs"). The nodes written out
    /// are bounded by the file's size, as a JSON record's are.
    pub max_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 128,
            max_nodes: 1_000_000,
        }
    }
}

/// Why a YAML text could not become a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not valid YAML, or YAML that has no JSON equivalent (a mapping as a key).
    Syntax,
    /// Past one of the [`Limits`].
    Limit,
}

/// A fatal problem, with the byte span in the file where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// Syntax or limit.
    pub kind: ErrorKind,
    /// What went wrong.
    pub message: String,
    /// Where.
    pub span: Span,
}

/// The result of reading a YAML text.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The document's value; `None` for a stream with no document (empty or only comments).
    pub value: Option<Value>,
    /// Keys repeated within a mapping; the first value is kept.
    pub duplicates: Vec<DuplicateKey>,
    /// Every node's position, when asked for.
    pub source_map: Option<SourceMap>,
    /// Where the document's value lies, asked for or not: a record's text that is let go
    /// keeps the line it starts on ([`crate::source::Head`]).
    pub root: Option<Span>,
}

/// Parses `text`, which starts at byte `base` of its file (non-zero for front matter), so
/// that every span is a position in the file.
pub fn parse(
    text: &str,
    base: usize,
    limits: Limits,
    with_positions: bool,
) -> Result<Parsed, Error> {
    if let Some((at, c)) = first_unprintable(text) {
        return Err(Error {
            kind: ErrorKind::Syntax,
            message: format!("found unprintable character U+{:04X}", u32::from(c)),
            span: base + at..base + at,
        });
    }
    Builder::new(text, base, limits, with_positions).run()
}

/// The bytes looked at together by [`first_unprintable`].
const PRINTABLE_RUN: usize = 16;

/// The first character of `text` that YAML 1.2 does not allow in a stream as it is, and its
/// byte offset: a C0 control other than tab, line feed and carriage return, DEL, a C1
/// control other than U+0085, U+FFFE or U+FFFF (`c-printable`; a `str` holds no
/// surrogate). The parser refuses a NUL only where a plain scalar or a key holds it and
/// takes the others as text, so a record it read was refused by other YAML readers
/// ("unacceptable character #x0001", PyYAML says).
///
/// Every YAML text a check loads is scanned, so the scan looks at a run of bytes at a time
/// with a test the compiler makes into vector compares, and at characters only in a run
/// holding a byte that may start one of them (C0, DEL, `0xC2` of U+0080-U+00BF, `0xEF` of
/// U+F000-U+FFFF). Measured alone (release build, 8 MiB of YAML records): 5.5 GB/s on
/// ASCII, 3.3 GB/s with a `µ` and an `é` on every line, where a whole check of 100,000
/// YAML records reads about 100 MB/s on two cores; runs of 64 bytes were faster on ASCII
/// (7-10 GB/s) and slower with the `µ` (1.2 GB/s), as more of their runs were read a
/// character at a time.
fn first_unprintable(text: &str) -> Option<(usize, char)> {
    let suspect = |b: u8| {
        (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) | (b == 0x7f) | (b == 0xc2) | (b == 0xef)
    };
    let mut start = 0;
    for run in text.as_bytes().chunks(PRINTABLE_RUN) {
        if run.iter().fold(false, |any, &b| any | suspect(b)) {
            // A character started in the run before is whole there: the run is read from
            // its first character boundary.
            let from = (start..).find(|&at| text.is_char_boundary(at))?;
            let found = text
                .get(from..)?
                .char_indices()
                .take_while(|&(at, _)| from + at < start + run.len())
                .find(|&(_, c)| !printable(c));
            if let Some((at, c)) = found {
                return Some((from + at, c));
            }
        }
        start += run.len();
    }
    None
}

/// Whether YAML 1.2 allows `c` in a stream as it is (`c-printable`).
fn printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}'
        | '\u{10000}'..)
}

/// The byte offset in `text` of its first comment, if it has one: a `#` at the start of a
/// line or after a blank that lies in no scalar. Each scalar's span is found as the loader
/// finds it, so a `#` written in a quoted string, a block scalar's lines or a plain value
/// (`a#b`, `https://x/#part`) is text, not a comment. `None` too for a text that does not
/// parse, which is never a record's.
pub fn first_comment(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut marks = memchr::memchr_iter(b'#', bytes)
        .filter(|&at| {
            at == 0
                || bytes
                    .get(at - 1)
                    .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        })
        .peekable();
    // Nearly no record has a `#`: the text is parsed again only for one that has.
    marks.peek()?;
    let mut chars = CharIndex::new(text);
    let mut scalars = Vec::new();
    let mut after = 0;
    for event in Parser::new_from_str(text) {
        let (event, span) = event.ok()?;
        if let Event::Scalar(_, style, _, _) = event {
            let raw = chars.byte_offset(span.start.index())..chars.byte_offset(span.end.index());
            let from = match style {
                ScalarStyle::Literal | ScalarStyle::Folded => chars.byte_offset(after),
                _ => raw.start,
            };
            let mut scalar = scalar_span(text, raw.clone(), style, from);
            // A block scalar's header may end in a comment (`notes: | # why`): only its
            // lines, from the content on, are text.
            if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                scalar.start = scalar.start.max(raw.start.min(scalar.end));
            }
            scalars.push(scalar);
        }
        after = span.end.index();
    }
    // Scalars come in the order of the text, as the marks do.
    let mut scalars = scalars.into_iter().peekable();
    marks.find(|&at| {
        while scalars.peek().is_some_and(|s| s.end <= at) {
            scalars.next();
        }
        scalars.peek().is_none_or(|s| s.start > at)
    })
}

enum Container {
    Sequence(Vec<Value>),
    Mapping {
        map: Map<String, Value>,
        /// The key waiting for its value, with its span.
        pending: Option<(String, Span)>,
        /// Spans of the keys in `map`, in its (insertion) order, only kept to report
        /// duplicates: looking keys up in `map` itself spares a second map of every key.
        key_spans: Vec<Span>,
    },
}

struct Frame {
    container: Container,
    anchor: usize,
    start: Span,
    /// The pointer of this container; empty unless positions are recorded.
    pointer: String,
    /// Nodes inside, for sizing anchored values.
    nodes: usize,
    /// Where the last node placed in it ends: where a block container ends, as the parser
    /// ends one past the comments and blank lines that follow it.
    last_end: usize,
}

struct Builder<'t> {
    text: &'t str,
    base: usize,
    limits: Limits,
    chars: Option<CharIndex<'t>>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, (Value, usize)>,
    aliased_nodes: usize,
    root: Option<Value>,
    root_span: Option<Span>,
    documents: usize,
    duplicates: Vec<DuplicateKey>,
    source_map: Option<SourceMap>,
    /// Where the span of the last event ended, as the parser counts (in characters): a
    /// block scalar with no properties is looked for from there, as the parser's span
    /// leaves its header out. Kept as the parser gives it and turned into a byte offset
    /// only for a block scalar: [`CharIndex`] answers fastest when asked in the order of
    /// the text, and this lies before the next event's start.
    after: usize,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str, base: usize, limits: Limits, with_positions: bool) -> Self {
        Builder {
            text,
            base,
            limits,
            chars: None,
            stack: Vec::new(),
            anchors: HashMap::new(),
            aliased_nodes: 0,
            root: None,
            root_span: None,
            documents: 0,
            duplicates: Vec::new(),
            source_map: with_positions.then(SourceMap::default),
            after: 0,
        }
    }

    fn run(mut self) -> Result<Parsed, Error> {
        for event in Parser::new_from_str(self.text) {
            let (event, span) = event.map_err(|err| {
                let at = self.byte(err.marker().index());
                // The scanner bounds flow nesting itself, before events reach `max_depth`.
                let kind = if err.info().contains("recursion limit") {
                    ErrorKind::Limit
                } else {
                    ErrorKind::Syntax
                };
                Error {
                    kind,
                    message: err.info().to_string(),
                    span: at..at,
                }
            })?;
            let end = span.end.index();
            self.event(event, span)?;
            self.after = end;
        }
        Ok(Parsed {
            value: self.root,
            duplicates: self.duplicates,
            source_map: self.source_map,
            root: self.root_span,
        })
    }

    /// The file byte offset of a character index of the YAML text.
    fn byte(&mut self, char_index: usize) -> usize {
        self.base + self.local(char_index)
    }

    /// The byte offset in the YAML text of a character index of it.
    fn local(&mut self, char_index: usize) -> usize {
        let text = self.text;
        let chars = self.chars.get_or_insert_with(|| CharIndex::new(text));
        chars.byte_offset(char_index)
    }

    fn span(&mut self, span: YamlSpan) -> Span {
        let start = self.byte(span.start.index());
        let end = self.byte(span.end.index());
        start..end.max(start)
    }

    fn event(&mut self, event: Event<'_>, span: YamlSpan) -> Result<(), Error> {
        match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    let span = self.span(span);
                    return Err(Error {
                        kind: ErrorKind::Syntax,
                        message: "a record holds one YAML document; found a second".into(),
                        span,
                    });
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                let raw = self.local(span.start.index())..self.local(span.end.index());
                let after = match style {
                    ScalarStyle::Literal | ScalarStyle::Folded => self.local(self.after),
                    _ => raw.start,
                };
                let span = scalar_span(self.text, raw, style, after);
                let span = self.base + span.start..self.base + span.end;
                let value = resolve_scalar(&text, style, tag.as_deref());
                self.complete(value, anchor, span, 1)?;
            }
            Event::Alias(id) => {
                let span = self.span(span);
                let Some((value, size)) = self.anchors.get(&id).cloned() else {
                    return Err(Error {
                        kind: ErrorKind::Syntax,
                        message: "alias to an unknown anchor".into(),
                        span,
                    });
                };
                self.count_aliased(size, &span)?;
                self.complete(value, 0, span, size)?;
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let start = skip_properties(self.text, self.local(span.start.index()));
                let span = self.base + start..self.base + start;
                if self.stack.len() >= self.limits.max_depth {
                    return Err(Error {
                        kind: ErrorKind::Limit,
                        message: format!("nesting deeper than {} levels", self.limits.max_depth),
                        span,
                    });
                }
                let container = if matches!(event, Event::SequenceStart(..)) {
                    Container::Sequence(Vec::new())
                } else {
                    Container::Mapping {
                        map: Map::new(),
                        pending: None,
                        key_spans: Vec::new(),
                    }
                };
                let pointer = if self.source_map.is_some() {
                    self.child_pointer()
                } else {
                    String::new()
                };
                self.stack.push(Frame {
                    container,
                    anchor,
                    last_end: span.end,
                    start: span,
                    pointer,
                    nodes: 1,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let end = self.local(span.start.index());
                // A flow collection's end event starts at its bracket; a block one's is empty,
                // and may lie past comments and blank lines, so it ends with its last node.
                let end = match self.text.as_bytes().get(end) {
                    Some(b']' | b'}') if span.end.index() > span.start.index() => {
                        self.base + end + 1
                    }
                    _ => self
                        .stack
                        .last()
                        .map_or(self.base + end, |frame| frame.last_end),
                };
                if let Some(frame) = self.stack.pop() {
                    let value = match frame.container {
                        Container::Sequence(items) => Value::Array(items),
                        Container::Mapping { map, .. } => Value::Object(map),
                    };
                    let whole = frame.start.start..end.max(frame.start.start);
                    self.complete(value, frame.anchor, whole, frame.nodes)?;
                }
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
        Ok(())
    }

    fn count_aliased(&mut self, nodes: usize, span: &Span) -> Result<(), Error> {
        self.aliased_nodes = self.aliased_nodes.saturating_add(nodes);
        if self.aliased_nodes > self.limits.max_nodes {
            return Err(Error {
                kind: ErrorKind::Limit,
                message: format!(
                    "the document's aliases stand for more than {} nodes, each expanded in full",
                    self.limits.max_nodes
                ),
                span: span.clone(),
            });
        }
        Ok(())
    }

    /// The pointer of the node about to be completed in the current container.
    fn child_pointer(&self) -> String {
        match self.stack.last() {
            None => String::new(),
            Some(frame) => match &frame.container {
                Container::Sequence(items) => format!("{}/{}", frame.pointer, items.len()),
                Container::Mapping {
                    pending: Some((key, _)),
                    ..
                } => join_pointer(&frame.pointer, key),
                // A node in key position has no pointer of its own.
                Container::Mapping { pending: None, .. } => {
                    format!("{}/{}", frame.pointer, escape_pointer_segment("~key"))
                }
            },
        }
    }

    /// Places a finished node into its parent (or makes it the root).
    fn complete(
        &mut self,
        value: Value,
        anchor: usize,
        span: Span,
        size: usize,
    ) -> Result<(), Error> {
        if anchor != 0 {
            self.anchors.insert(anchor, (value.clone(), size));
        }
        let pointer = self.source_map.is_some().then(|| self.child_pointer());
        let Some(frame) = self.stack.last_mut() else {
            place(&mut self.source_map, pointer, None, span.clone());
            self.root = Some(value);
            self.root_span = Some(span);
            return Ok(());
        };
        frame.nodes = frame.nodes.saturating_add(size);
        frame.last_end = frame.last_end.max(span.end);
        match &mut frame.container {
            Container::Sequence(items) => {
                items.push(value);
                place(&mut self.source_map, pointer, None, span);
            }
            Container::Mapping {
                map,
                pending,
                key_spans,
            } => match pending.take() {
                None => {
                    let key = match value {
                        Value::String(key) => key,
                        Value::Null => "null".to_string(),
                        Value::Bool(b) => b.to_string(),
                        Value::Number(n) => n.to_string(),
                        Value::Array(_) | Value::Object(_) => {
                            return Err(Error {
                                kind: ErrorKind::Syntax,
                                message: "a mapping key must be a scalar; records have no \
                                          equivalent for sequence or mapping keys"
                                    .into(),
                                span,
                            });
                        }
                    };
                    *pending = Some((key, span));
                }
                Some((key, key_span)) => {
                    let slot = match map.entry(key) {
                        serde_json::map::Entry::Vacant(slot) => slot,
                        serde_json::map::Entry::Occupied(taken) => {
                            let key = taken.key().clone();
                            let first = map
                                .keys()
                                .position(|existing| *existing == key)
                                .and_then(|at| key_spans.get(at))
                                .cloned()
                                .unwrap_or_else(|| key_span.clone());
                            self.duplicates.push(DuplicateKey {
                                key,
                                span: key_span,
                                first,
                            });
                            return Ok(());
                        }
                    };
                    slot.insert(value);
                    key_spans.push(key_span.clone());
                    place(&mut self.source_map, pointer, Some(key_span), span);
                }
            },
        }
        Ok(())
    }
}

/// Records where the node at `pointer` is (its key's span, in a mapping, and its value's),
/// when positions are kept: `pointer` is worked out only then.
fn place(
    source_map: &mut Option<SourceMap>,
    pointer: Option<String>,
    key: Option<Span>,
    value: Span,
) {
    if let (Some(map), Some(pointer)) = (source_map.as_mut(), pointer) {
        map.insert(&pointer, Node { key, value });
    }
}

/// Where a scalar is written in `text`, a byte range of it, cut from `raw`, the span saphyr's
/// parser gives: every edit a fix makes replaces a node's span, and the parser's is wider
/// than the node, or elsewhere, in three cases, where a fix would write over what is around
/// it.
///
/// - Properties: a node's span starts at its anchor or tag (`&a !!str x`), which a fix
///   would drop, breaking every alias to it. The scalar starts after them.
/// - Quoted scalars: the span runs on over the spaces and comment after the closing quote
///   (`'x'   # reviewed`). The scalar ends at its closing quote.
/// - Block scalars (`|`, `>-`): the span starts at the content, leaving the header out,
///   and ends past the line break and blank lines after it, so a fix replacing it with a
///   plain value joined the next line onto it (`verifiedconfidence: 0.9`). The scalar
///   runs from its indicator to the end of its last line: replaced whole, it becomes the
///   plain value the fix writes. With no properties, the header is found from `after`,
///   where the last event's span ended (the key, or the sequence's dash, precedes it).
fn scalar_span(text: &str, raw: Span, style: ScalarStyle, after: usize) -> Span {
    let start = skip_properties(text, raw.start);
    match style {
        ScalarStyle::Plain => start..raw.end.max(start),
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
            let end = closing_quote(text, start, style).map_or(raw.end, |quote| quote + 1);
            start..end.max(start)
        }
        ScalarStyle::Literal | ScalarStyle::Folded => {
            let header = if start > raw.start {
                Some(start)
            } else {
                block_header(text, after, raw.start)
            };
            let Some(header) =
                header.filter(|&at| matches!(text.as_bytes().get(at), Some(b'|' | b'>')))
            else {
                return start..trim_end(text, start, raw.end);
            };
            let modifiers = text
                .get(header + 1..)
                .unwrap_or_default()
                .bytes()
                .take_while(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-'))
                .count();
            let header_end = header + 1 + modifiers;
            header..trim_end(text, header_end, raw.end.max(header_end))
        }
    }
}

/// The first byte at or after `at` past a node's properties (`&anchor`, `!tag`) and the
/// spaces, line breaks and comments after them; `at` if it has none.
fn skip_properties(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = at;
    while matches!(bytes.get(at), Some(b'&' | b'!')) {
        while bytes.get(at).is_some_and(|b| !b.is_ascii_whitespace()) {
            at += 1;
        }
        at = skip_blank(bytes, at);
    }
    at
}

/// The first byte at or after `at` that is not a space, a tab, a line break or in a comment.
fn skip_blank(bytes: &[u8], mut at: usize) -> usize {
    loop {
        match bytes.get(at) {
            Some(b' ' | b'\t' | b'\r' | b'\n') => at += 1,
            Some(b'#') => {
                at = memchr::memchr2(b'\n', b'\r', bytes.get(at..).unwrap_or_default())
                    .map_or(bytes.len(), |end| at + end);
            }
            _ => return at,
        }
    }
}

/// Where the closing quote of the quoted scalar starting at `open` is: a single-quoted one
/// escapes a quote by doubling it, a double-quoted one with a backslash.
fn closing_quote(text: &str, open: usize, style: ScalarStyle) -> Option<usize> {
    let bytes = text.as_bytes();
    let quote = if style == ScalarStyle::SingleQuoted {
        b'\''
    } else {
        b'"'
    };
    if bytes.get(open) != Some(&quote) {
        return None;
    }
    let mut at = open + 1;
    loop {
        at += memchr::memchr2(quote, b'\\', bytes.get(at..)?)?;
        match (bytes.get(at)?, bytes.get(at + 1)) {
            (b'\\', _) if quote == b'"' => at += 2,
            (b'\\', _) => at += 1,
            (b'\'', Some(b'\'')) if quote == b'\'' => at += 2,
            _ => return Some(at),
        }
    }
}

/// The indicator (`|` or `>`) of the block scalar whose content starts at `content`, looked
/// for from `after`: only the key's colon, a sequence's dash, blanks and comments may come
/// between.
fn block_header(text: &str, after: usize, content: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = after;
    while at < content {
        match bytes.get(at)? {
            b':' | b'-' | b'?' => at += 1,
            b'|' | b'>' => return Some(at),
            _ => {
                let next = skip_blank(bytes, at);
                if next == at {
                    return None;
                }
                at = next;
            }
        }
    }
    None
}

/// The end of `text[start..end]` without the blanks (spaces, tabs, line breaks) it ends with.
fn trim_end(text: &str, start: usize, end: usize) -> usize {
    let kept = text
        .get(start..end)
        .unwrap_or_default()
        .trim_end_matches([' ', '\t', '\r', '\n'])
        .len();
    start + kept
}

/// Resolves a scalar with the YAML 1.2 core schema. Quoted and block scalars are strings.
fn resolve_scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Value {
    let string = || Value::String(text.to_string());
    if let Some(tag) = tag
        && (tag.handle == "tag:yaml.org,2002:" || tag.handle == "!!")
    {
        return match tag.suffix.as_str() {
            "str" => string(),
            "null" => Value::Null,
            "bool" => parse_bool(text).map_or_else(string, Value::Bool),
            "int" | "float" => parse_number(text).unwrap_or_else(string),
            _ => string(),
        };
    }
    if style != ScalarStyle::Plain {
        return string();
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        _ => parse_bool(text)
            .map(Value::Bool)
            .or_else(|| parse_number(text))
            .unwrap_or_else(string),
    }
}

fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Core-schema integers (decimal, `0o`, `0x`) and floats. Infinities and NaN have no JSON
/// form and stay strings, as does anything else.
fn parse_number(text: &str) -> Option<Value> {
    let first = text.as_bytes().first()?;
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return None;
    }
    if let Some(octal) = text.strip_prefix("0o") {
        return u64::from_str_radix(octal, 8).ok().map(Value::from);
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok().map(Value::from);
    }
    let digits = text.trim_start_matches(['-', '+']);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        let unsigned = text.trim_start_matches('+');
        if let Ok(i) = unsigned.parse::<i64>() {
            return Some(Value::from(i));
        }
        if let Ok(u) = unsigned.parse::<u64>() {
            return Some(Value::from(u));
        }
    }
    let looks_like_float = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        && text.bytes().any(|b| b.is_ascii_digit());
    if looks_like_float {
        return text
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The scan a run at a time finds the first unprintable character that reading
        /// every character finds, wherever the runs cut the text (in a wide character too).
        #[test]
        fn the_first_unprintable_character_is_found_as_reading_each_finds_it(
            before in "[a\u{85}\u{a0}é\u{ff01}\u{fffd}\u{1F600}\t\r\n]{0,200}",
            odd in proptest::sample::select(vec!["", "\u{0}", "\u{1b}", "\u{7f}", "\u{80}", "\u{9f}", "\u{ffff}"]),
            after in "[a\u{1}\u{9b}é\u{fffe}]{0,10}",
        ) {
            let text = format!("{before}{odd}{after}");
            proptest::prop_assert_eq!(
                first_unprintable(&text),
                text.char_indices().find(|&(_, c)| !printable(c))
            );
        }
    }
    use serde_json::json;

    fn value(text: &str) -> Value {
        parse(text, 0, Limits::default(), false)
            .unwrap()
            .value
            .unwrap()
    }

    #[test]
    fn first_comment_tells_comments_from_hashes_in_text() {
        fn comment(text: &str) -> Option<&str> {
            first_comment(text).map(|at| &text[at..])
        }
        for text in [
            "id: a\nname: \"x # y\"\n",
            "id: a\nname: 'x # y'\n",
            "id: a#b\nurl: https://x.org/#part\n",
            "notes: |\n  first\n  # not a comment\n\n  last\nname: x\n",
            "notes: >-\n  # folded, not a comment\nname: x\n",
            "list: [\"# a\", b#c]\n",
            "\"# key\": v\n",
        ] {
            assert_eq!(comment(text), None, "{text:?}");
        }
        for (text, at) in [
            ("# provenance\nid: a\n", "# provenance\nid: a\n"),
            ("id: a\ntype: thing   # must stay\n", "# must stay\n"),
            ("name: \"x # y\" # after\n", "# after\n"),
            ("notes: | # header\n  x\n", "# header\n  x\n"),
            ("notes: |\n  x\n\n# after\nname: y\n", "# after\nname: y\n"),
            ("notes: |\n  x\n# last\n", "# last\n"),
            ("list:\n  - a # one\n", "# one\n"),
            ("n: é # é\n", "# é\n"),
            ("notes: |\nname: x # c\n", "# c\n"),
            ("notes: |-\n\n# c\n", "# c\n"),
            ("key: &a x # c\nother: *a # d\n", "# c\nother: *a # d\n"),
        ] {
            assert_eq!(comment(text), Some(at), "{text:?}");
        }
    }

    #[test]
    fn core_schema_keeps_dates_and_yes_as_strings() {
        assert_eq!(
            value("d: 2026-10-03\ny: yes\nn: ~\nb: true\ni: 12\nf: 0.8\ns: '12'\n"),
            json!({"d": "2026-10-03", "y": "yes", "n": null, "b": true, "i": 12, "f": 0.8, "s": "12"})
        );
    }

    #[test]
    fn duplicate_keys_are_reported_with_both_positions() {
        let parsed = parse("a: 1\na: 2\n", 0, Limits::default(), false).unwrap();
        assert_eq!(parsed.value, Some(json!({"a": 1})));
        assert_eq!(
            parsed.duplicates,
            vec![DuplicateKey {
                key: "a".into(),
                span: 5..6,
                first: 0..1
            }]
        );
    }

    #[test]
    fn positions_are_recorded_by_pointer_with_a_base_offset() {
        let parsed = parse("a: [x, yé]\nb: z\n", 4, Limits::default(), true).unwrap();
        let map = parsed.source_map.unwrap();
        assert_eq!(map.get("/a/1").unwrap().value, 11..14);
        assert_eq!(map.get("/b").unwrap().key, Some(16..17));
    }

    /// The text of the node at each pointer, as its span in the source map cuts it.
    fn written(text: &str, pointers: &[&str]) -> Vec<String> {
        let map = parse(text, 0, Limits::default(), true)
            .unwrap()
            .source_map
            .unwrap();
        pointers
            .iter()
            .map(|pointer| text[map.get(pointer).unwrap().value.clone()].to_string())
            .collect()
    }

    #[test]
    fn a_scalar_span_leaves_out_its_properties_and_what_follows_it() {
        assert_eq!(
            written(
                "a: &s !!str x # c\nb: 'y'   # it's\nc: \"z\\\" \" # c\nd: 'it''s' #\ne: *s\n",
                &["/a", "/b", "/c", "/d", "/e"]
            ),
            ["x", "'y'", "\"z\\\" \"", "'it''s'", "*s"]
        );
        assert_eq!(
            written("a: &s\n  x\nb: 'y\n  z'  # c\n", &["/a", "/b"]),
            ["x", "'y\n  z'"]
        );
        assert_eq!(
            written("'k'  : [ 'x' , \"y\" ] # c\n", &["/k", "/k/0", "/k/1"]),
            ["[ 'x' , \"y\" ]", "'x'", "\"y\""]
        );
    }

    #[test]
    fn a_block_scalar_span_runs_from_its_indicator_to_its_last_line() {
        assert_eq!(
            written(
                "a: >-\n  x\n  y\n\n# c\nb: |2 # c |\n   z\nc: &k !!str |\n  w\n",
                &["/a", "/b", "/c"]
            ),
            [">-\n  x\n  y", "|2 # c |\n   z", "|\n  w"]
        );
        assert_eq!(
            written(
                "a: # c\n  |\n   x\nb:\n- >\n  y\n- |\nc: 1\n",
                &["/a", "/b/0", "/b/1"]
            ),
            ["|\n   x", ">\n  y", "|"]
        );
    }

    #[test]
    fn a_block_collection_ends_with_its_last_node() {
        assert_eq!(
            written("a: &m\n  b: 1\n  # c\n\nc: {d: 2} # c\n", &["/a", "/c"]),
            ["b: 1", "{d: 2}"]
        );
    }

    #[test]
    fn alias_bomb_hits_the_node_limit() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x]\n");
        for i in 0..9 {
            let prev = if i == 0 {
                "a".to_string()
            } else {
                format!("l{}", i - 1)
            };
            text.push_str(&format!("l{i}: &l{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
        }
        let err = parse(&text, 0, Limits::default(), false).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Limit);
    }

    #[test]
    fn nodes_written_out_are_not_counted_against_the_alias_limit() {
        let limits = Limits {
            max_nodes: 10,
            ..Limits::default()
        };
        let list = format!("[{}]", vec!["x"; 100].join(", "));
        assert!(parse(&list, 0, limits, false).is_ok());
        let aliased = format!("a: &a {list}\nb: *a\n");
        let err = parse(&aliased, 0, limits, false).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Limit);
        assert_eq!(
            err.message,
            "the document's aliases stand for more than 10 nodes, each expanded in full"
        );
    }

    #[test]
    fn deep_nesting_hits_the_depth_limit() {
        let text = "[".repeat(10_000) + &"]".repeat(10_000);
        let err = parse(&text, 0, Limits::default(), false).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Limit);
    }
}
