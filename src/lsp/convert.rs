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
use crate::source::{Span, floor_char_boundary};

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

/// The byte offset of a protocol position in `text`, clamped to the text: a position past
/// the end of a line is the line's end, as the protocol says.
pub fn offset(text: &str, position: Position) -> usize {
    let mut start = 0;
    for _ in 0..position.line {
        match text.get(start..).and_then(|rest| rest.find('\n')) {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line = text.get(start..).unwrap_or_default();
    let line = line
        .get(..line.find('\n').unwrap_or(line.len()))
        .unwrap_or_default();
    let line_end = start + line.len();
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= position.character as usize {
            return start + i;
        }
        units += c.len_utf16();
    }
    line_end
}

/// The protocol position of a byte offset in `text`.
pub fn position(text: &str, offset: usize) -> Position {
    let offset = floor_char_boundary(text, offset);
    let before = text.get(..offset).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line: to_u32(before.bytes().filter(|&b| b == b'\n').count()),
        character: to_u32(
            before
                .get(line_start..)
                .unwrap_or_default()
                .encode_utf16()
                .count(),
        ),
    }
}

/// The protocol range of a byte span in `text`.
pub fn range(text: &str, span: &Span) -> Range {
    Range {
        start: position(text, span.start),
        end: position(text, span.end),
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
    text: &str,
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
        range: anchor_range(text, &diagnostic.anchor),
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
pub fn anchor_range(text: &str, anchor: &Anchor) -> Range {
    match anchor {
        Anchor::Span(span) => range(text, span),
        _ => Range::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_round_trip() {
        let text = "a: é😀x\nb: y\n";
        let x = text.find('x').unwrap_or_default();
        let at = position(text, x);
        assert_eq!(at, Position::new(0, 6));
        assert_eq!(offset(text, at), x);
        let y = text.find('y').unwrap_or_default();
        assert_eq!(position(text, y), Position::new(1, 3));
        assert_eq!(
            offset(text, Position::new(0, 99)),
            text.find('\n').unwrap_or_default()
        );
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
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
