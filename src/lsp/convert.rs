//! Between the library's positions and the protocol's.
//!
//! The library speaks byte offsets into a file's text and display paths; LSP speaks
//! `file://` URIs and zero-based line/character positions where the character counts UTF-16
//! code units (the protocol's default encoding, the only one every client supports). Every
//! conversion happens here, so the features never do position arithmetic of their own.

use std::path::{Path, PathBuf};

use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position, Range,
    Uri,
};

use crate::diagnostic::{Anchor, Diagnostic, Severity};
use crate::source::{Span, floor_char_boundary, line_end, line_ends, next_line_start};

/// The `file://` URI of a path.
pub fn uri(path: &Path) -> Option<Uri> {
    crate::schema::file_uri(path).parse().ok()
}

/// The path a `file://` URI names; `None` for any other scheme.
pub fn path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///x` has an empty authority; `file://localhost/x` names this machine too.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let path = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    Some(PathBuf::from(decoded.into_owned()))
}

/// A file's text as the client holds it: the library's text, which leaves out a byte-order
/// mark, and whether the client's buffer starts with one. The protocol counts positions in
/// the buffer, where a mark is a UTF-16 unit before the first line's first character: left
/// uncounted, every column on that line would be one short.
#[derive(Clone, Copy, Debug, Default)]
pub struct Buffer<'a> {
    /// The text, without a byte-order mark.
    pub text: &'a str,
    /// Whether the client's buffer starts with U+FEFF.
    pub bom: bool,
}

impl Buffer<'_> {
    /// The UTF-16 units before the text's first character in the client's buffer, on `line`.
    fn lead(&self, line: u32) -> u32 {
        u32::from(self.bom && line == 0)
    }
}

/// The byte offset of a protocol position in the buffer's text, clamped to the text: a
/// position past the end of a line is the line's end, as the protocol says. Lines end at
/// `\n`, `\r\n` or a `\r` alone, the protocol's three line ends.
pub fn offset(buffer: Buffer<'_>, position: Position) -> usize {
    let text = buffer.text;
    let mut start = 0;
    for _ in 0..position.line {
        match next_line_start(text, start) {
            Some(next) => start = next,
            None => return text.len(),
        }
    }
    let line = text.get(start..line_end(text, start)).unwrap_or_default();
    let character = position
        .character
        .saturating_sub(buffer.lead(position.line)) as usize;
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= character {
            return start + i;
        }
        units += c.len_utf16();
    }
    start + line.len()
}

/// The protocol position of a byte offset in the buffer's text.
pub fn position(buffer: Buffer<'_>, offset: usize) -> Position {
    let text = buffer.text;
    let offset = floor_char_boundary(text, offset);
    let (line, line_start) = line_ends(text, 0, offset);
    let line = to_u32(line);
    Position {
        line,
        character: to_u32(
            text.get(line_start.unwrap_or(0)..offset)
                .unwrap_or_default()
                .encode_utf16()
                .count(),
        )
        .saturating_add(buffer.lead(line)),
    }
}

/// The protocol range of a byte span in the buffer's text.
pub fn range(buffer: Buffer<'_>, span: &Span) -> Range {
    Range {
        start: position(buffer, span.start),
        end: position(buffer, span.end),
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A library diagnostic, located, as the protocol shows it. The notes and the help (where
/// the did-you-mean is) follow the message, as `check` prints them under the snippet;
/// secondary labels become related information when `locate` finds their file.
pub fn diagnostic(
    diagnostic: &Diagnostic,
    buffer: Buffer<'_>,
    locate: &dyn Fn(&str, &Anchor) -> Option<Location>,
) -> lsp_types::Diagnostic {
    let mut message = diagnostic.message.clone();
    if let Some(label) = &diagnostic.label {
        message.push_str(&format!(" ({label})"));
    }
    for note in &diagnostic.notes {
        message.push_str(&format!("\nnote: {note}"));
    }
    if let Some(help) = &diagnostic.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let related: Vec<DiagnosticRelatedInformation> = diagnostic
        .labels
        .iter()
        .filter_map(|label| {
            Some(DiagnosticRelatedInformation {
                location: locate(&label.file, &label.anchor)?,
                message: label.message.clone(),
            })
        })
        .collect();
    lsp_types::Diagnostic {
        range: anchor_range(buffer, &diagnostic.anchor),
        severity: Some(match diagnostic.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(diagnostic.code.to_string())),
        source: Some("gotchas".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..lsp_types::Diagnostic::default()
    }
}

/// The range of a located anchor; a whole-file anchor is the file's first position.
pub fn anchor_range(buffer: Buffer<'_>, anchor: &Anchor) -> Range {
    match anchor {
        Anchor::Span(span) => range(buffer, span),
        _ => Range::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_round_trip() {
        let text = "a: é😀x\nb: y\n";
        let text = Buffer { text, bom: false };
        let x = text.text.find('x').unwrap_or_default();
        let at = position(text, x);
        assert_eq!(at, Position::new(0, 6));
        assert_eq!(offset(text, at), x);
        let y = text.text.find('y').unwrap_or_default();
        assert_eq!(position(text, y), Position::new(1, 3));
        assert_eq!(
            offset(text, Position::new(0, 99)),
            text.text.find('\n').unwrap_or_default()
        );
        assert_eq!(offset(text, Position::new(9, 0)), text.text.len());
    }

    #[test]
    fn lines_end_at_each_of_the_protocol_s_line_ends() {
        // Each text's line 2 ends at byte 5, before its line break.
        for text in ["a\nb\rc\r\nd", "a\rb\rc\rd", "\r\n\ncd\re"] {
            let text = Buffer { text, bom: false };
            let last = text.text.len() - 1;
            assert_eq!(position(text, last), Position::new(3, 0), "{:?}", text.text);
            assert_eq!(offset(text, Position::new(3, 0)), last);
            assert_eq!(offset(text, Position::new(2, 99)), 5);
        }
    }

    #[test]
    fn a_byte_order_mark_in_the_buffer_is_a_unit_of_the_first_line() {
        let text = Buffer {
            text: "id: x\nb: y",
            bom: true,
        };
        assert_eq!(position(text, 4), Position::new(0, 5));
        assert_eq!(offset(text, Position::new(0, 5)), 4);
        assert_eq!(offset(text, Position::new(0, 0)), 0);
        assert_eq!(position(text, 9), Position::new(1, 3));
        assert_eq!(offset(text, Position::new(1, 3)), 9);
    }

    #[test]
    fn uris_and_paths_round_trip_with_escapes() {
        let path = Path::new("/tmp/a kb/records/é.md");
        let uri = uri(path).unwrap();
        assert!(uri.as_str().starts_with("file:///tmp/a%20kb/"));
        assert_eq!(super::path(&uri).as_deref(), Some(path));
        let localhost: Uri = "file://localhost/x/y.md".parse().unwrap();
        assert_eq!(super::path(&localhost), Some(PathBuf::from("/x/y.md")));
    }
}
