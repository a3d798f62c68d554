//! Diagnostics are values: what went wrong, where, and how to fix it.
//!
//! Rules create diagnostics anchored wherever is most natural for them: a byte span when the
//! parser already knows it, or a JSON pointer into the record's value when the problem was
//! found on the data (schema validation, id rules). The [`crate::sourcemap`] stage turns
//! pointers into spans afterwards, only for the files that have problems. Rendering happens at
//! the edge, in [`crate::report`].

use std::fmt;

use serde::Serialize;

use crate::source::Span;

/// How serious a diagnostic is. Rule levels in the config map onto these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the run (exit code 1).
    Error,
    /// Reported, but the run still succeeds.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// Where in a file a diagnostic points.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Anchor {
    /// The whole file, no particular position (an unreadable file, a stray).
    File,
    /// A byte range in the file's text.
    Span(Span),
    /// A value in the record, by JSON pointer (RFC 6901) into the record's data.
    Value(String),
    /// The key naming the member at this JSON pointer (`/root_casue` points at the key itself).
    Key(String),
    /// A piece of text inside the string value at a JSON pointer: a link's target in a text
    /// field, or the fragment of its destination. Located as the value, then narrowed to
    /// the needle's place among the places it is written as a link target
    /// ([`crate::links::target_places`]), and within it to what follows `from`.
    Within {
        /// The string value's pointer.
        pointer: String,
        /// The text to find in it: a link's target, or its destination up to the end of its
        /// fragment (`vllm#setup`), as either is found only where a link's target starts.
        needle: String,
        /// Which of the places the needle is written as a link target.
        place: usize,
        /// Where in the needle the text named starts: 0 for all of it, past the `#` for a
        /// fragment.
        from: usize,
    },
}

/// A secondary position with a message: "first defined here".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The file the label points into (may differ from the diagnostic's file).
    pub file: String,
    /// Where in that file.
    pub anchor: Anchor,
    /// What is there.
    pub message: String,
}

/// How sure a suggested fix is, after rustc's `Applicability`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Certain: `--fix` applies it without asking.
    MachineApplicable,
    /// Plausible: shown, never applied automatically.
    MaybeIncorrect,
}

/// A replacement of the text at an anchor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// What to replace: a span, or a key or scalar value by pointer (quotes are kept).
    pub anchor: Anchor,
    /// The new text.
    pub replacement: String,
}

/// A suggested change that would make the diagnostic go away.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// How sure the suggestion is.
    pub applicability: Applicability,
    /// The edits, all in the diagnostic's file.
    pub edits: Vec<Edit>,
}

/// One problem found in the corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule's stable kebab-case code (`unknown-field`).
    pub code: &'static str,
    /// Error or warning, after the config's rule levels are applied.
    pub severity: Severity,
    /// One sentence saying what is wrong.
    pub message: String,
    /// The file, as displayed (relative to the corpus root, `/`-separated).
    pub file: String,
    /// Where in the file.
    pub anchor: Anchor,
    /// The JSON pointer of the value the diagnostic is about, kept after the anchor is
    /// resolved to a span: baselines match on it, since line numbers move.
    pub pointer: Option<String>,
    /// What to say under the caret.
    pub label: Option<String>,
    /// Other positions worth showing.
    pub labels: Vec<Label>,
    /// Context that explains the problem.
    pub notes: Vec<String>,
    /// What to do about it.
    pub help: Option<String>,
    /// A mechanical fix, when one exists.
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// A new error-level diagnostic for `code` in `file`; the rule level is applied later.
    pub fn new(code: &'static str, file: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            file: file.into(),
            anchor: Anchor::File,
            pointer: None,
            label: None,
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            fix: None,
        }
    }

    /// Points the diagnostic at `anchor`.
    pub fn at(mut self, anchor: Anchor) -> Self {
        self.anchor = anchor;
        self
    }

    /// Points the diagnostic at a byte span.
    pub fn at_span(self, span: Span) -> Self {
        self.at(Anchor::Span(span))
    }

    /// Sets the text shown under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, label: Label) -> Self {
        self.labels.push(label);
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Attaches a fix.
    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }

    /// The order reports list diagnostics in: by file, then position, then code. Pointers
    /// must be resolved to spans first for the order to follow the text.
    pub fn sort_key(&self) -> (&str, usize, &str, &str) {
        let start = match &self.anchor {
            Anchor::Span(span) => span.start,
            _ => 0,
        };
        (&self.file, start, self.code, &self.message)
    }
}

/// Escapes one JSON pointer segment (RFC 6901).
pub fn escape_pointer_segment(segment: &str) -> String {
    let mut escaped = String::with_capacity(segment.len());
    push_escaped(&mut escaped, segment);
    escaped
}

/// Appends a segment to a JSON pointer.
pub fn join_pointer(pointer: &str, segment: &str) -> String {
    let mut joined = String::with_capacity(pointer.len() + 1 + segment.len());
    joined.push_str(pointer);
    push_pointer_segment(&mut joined, segment);
    joined
}

/// Appends an array index to a JSON pointer in place (see [`push_pointer_segment`]). With
/// `itoa`, not `write!`: the formatting machinery was a third of finding a corpus's
/// references (200 -> 149 million instructions at 100,000 records).
pub fn push_pointer_index(pointer: &mut String, index: usize) {
    pointer.push('/');
    pointer.push_str(itoa::Buffer::new().format(index));
}

/// Appends a segment to a JSON pointer in place: a walk down a value keeps one pointer and
/// cuts it back after each child, instead of a new string per step.
pub fn push_pointer_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    push_escaped(pointer, segment);
}

fn push_escaped(pointer: &mut String, segment: &str) {
    // Field names almost never hold either character: copied whole then.
    if !segment.contains(['~', '/']) {
        pointer.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Splits a JSON pointer into its unescaped segments.
pub fn pointer_segments(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_round_trip_escapes() {
        let pointer = join_pointer(&join_pointer("", "a/b"), "c~d");
        assert_eq!(pointer, "/a~1b/c~0d");
        assert_eq!(pointer_segments(&pointer), vec!["a/b", "c~d"]);
        assert!(pointer_segments("").is_empty());
    }

    #[test]
    fn indices_and_segments_are_pushed_in_place() {
        let mut pointer = String::new();
        push_pointer_segment(&mut pointer, "affects");
        push_pointer_index(&mut pointer, 0);
        push_pointer_index(&mut pointer, 1207);
        push_pointer_segment(&mut pointer, "a/b");
        assert_eq!(pointer, "/affects/0/1207/a~1b");
        assert_eq!(
            pointer_segments(&pointer),
            vec!["affects", "0", "1207", "a/b"]
        );
    }
}
