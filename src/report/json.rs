//! Machine-readable output: one JSON object per diagnostic and a summary.
//!
//! Positions are 1-based lines and character columns, like the human output; `end_column`
//! is exclusive. The shape is stable: fields are added, never renamed.

use std::io::{self, Write};

use serde::Serialize;

use super::{Sources, Summary};
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::write::{Each, json_document};

/// The report, its diagnostics converted as they are written: the converted list and the
/// document were, after the diagnostics themselves, the largest things a check with a
/// hundred thousand problems held.
#[derive(Serialize)]
struct Report<D> {
    diagnostics: D,
    summary: Summary,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    severity: Severity,
    message: &'a str,
    path: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
    label: Option<&'a str>,
    notes: &'a [String],
    help: Option<&'a str>,
    fix: Option<JsonFix>,
    /// Other places the diagnostic points at (where a duplicated id was first used).
    related: Vec<JsonRelated<'a>>,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    path: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonFix {
    applicability: Applicability,
    edits: Vec<JsonEdit>,
}

#[derive(Serialize)]
struct JsonEdit {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    replacement: String,
}

/// Writes the whole report to `out` as one pretty-printed JSON document ending in a
/// newline.
pub fn write(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    sources: &Sources,
    summary: Summary,
) -> io::Result<()> {
    let report = Report {
        diagnostics: Each {
            items: diagnostics,
            each: |d| convert(d, sources),
        },
        summary,
    };
    json_document(out, &report)
}

fn convert<'a>(diagnostic: &'a Diagnostic, sources: &Sources) -> JsonDiagnostic<'a> {
    let range = sources.range(&diagnostic.file, &diagnostic.anchor);
    let fix = diagnostic.fix.as_ref().and_then(|fix| {
        let edits = sources
            .fix_edits(diagnostic)?
            .into_iter()
            .map(|edit| JsonEdit {
                line: edit.start.line,
                column: edit.start.column,
                end_line: edit.end.line,
                end_column: edit.end.column,
                replacement: edit.replacement.to_string(),
            })
            .collect();
        Some(JsonFix {
            applicability: fix.applicability,
            edits,
        })
    });
    JsonDiagnostic {
        code: diagnostic.code,
        severity: diagnostic.severity,
        message: &diagnostic.message,
        path: &diagnostic.file,
        line: range.map(|(start, _)| start.line),
        column: range.map(|(start, _)| start.column),
        end_line: range.map(|(_, end)| end.line),
        end_column: range.map(|(_, end)| end.column),
        label: diagnostic.label.as_deref(),
        notes: &diagnostic.notes,
        help: diagnostic.help.as_deref(),
        fix,
        related: diagnostic
            .labels
            .iter()
            .map(|label| {
                let range = sources.range(&label.file, &label.anchor);
                JsonRelated {
                    path: &label.file,
                    line: range.map(|(start, _)| start.line),
                    column: range.map(|(start, _)| start.column),
                    end_line: range.map(|(_, end)| end.line),
                    end_column: range.map(|(_, end)| end.column),
                    message: &label.message,
                }
            })
            .collect(),
    }
}
