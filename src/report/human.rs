//! rustc-style rendering: a title with the rule code, the source line with a caret under the
//! offending value, secondary labels, notes and a help line. A line too long to show whole
//! (minified JSON) is shown as a window around the value ([`super::excerpt`]).

use std::io::{self, Write};

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet, Title};

use super::excerpt::{Excerpt, clip, one_line};
use super::{Sources, Summary};
use crate::diagnostic::{Anchor, Diagnostic, Severity};
use crate::source::{LineCol, Span, char_span, line_col, lone_crs_as_lfs};

/// Renders diagnostics one after another, each followed by a blank line.
///
/// At most `max_per_file` diagnostics are shown for one file (0: no limit), then a line
/// counts the rest: a generated or badly broken file should not bury every other problem.
/// The machine formats always carry everything.
pub fn render(
    diagnostics: &[Diagnostic],
    sources: &Sources,
    styled: bool,
    max_per_file: usize,
) -> String {
    let mut text = String::new();
    let pieces = each_piece(diagnostics, sources, styled, max_per_file, &mut |piece| {
        text.push_str(piece);
        Ok(())
    });
    debug_assert!(pieces.is_ok(), "pushing onto a string cannot fail");
    text
}

/// [`render`] to `out`, a diagnostic at a time, for a report that may be too large to
/// hold whole.
pub fn write(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    sources: &Sources,
    styled: bool,
    max_per_file: usize,
) -> io::Result<()> {
    each_piece(diagnostics, sources, styled, max_per_file, &mut |piece| {
        out.write_all(piece.as_bytes())
    })
}

/// Hands the rendered report to `take`, a piece at a time, in order.
fn each_piece(
    diagnostics: &[Diagnostic],
    sources: &Sources,
    styled: bool,
    max_per_file: usize,
    take: &mut dyn FnMut(&str) -> io::Result<()>,
) -> io::Result<()> {
    let renderer = if styled {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    for same_file in diagnostics.chunk_by(|a, b| a.file == b.file) {
        let count = same_file.len();
        let shown = if max_per_file == 0 {
            count
        } else {
            count.min(max_per_file)
        };
        for diagnostic in same_file.iter().take(shown) {
            let (group, excerpt) = group(diagnostic, sources);
            let rendered = renderer.render(&[group]);
            match excerpt {
                Some(excerpt) => {
                    // The location line comes right after the title, however many lines a
                    // long message takes.
                    let title_lines = renderer
                        .render(&[Group::with_title(title(diagnostic))])
                        .lines()
                        .count();
                    take(&excerpt.fix_location(&rendered, title_lines))?;
                }
                None => take(&rendered)?,
            }
            take("\n\n")?;
        }
        if shown < count
            && let Some(first) = same_file.first()
        {
            take(&format!(
                "note: {}: {} not shown (--max-per-file 0 shows all)\n\n",
                one_line(&first.file),
                plural(count - shown, "more diagnostic")
            ))?;
        }
    }
    Ok(())
}

fn title(diagnostic: &Diagnostic) -> Title<'_> {
    let level = match diagnostic.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    level
        .primary_title(clip(&diagnostic.message))
        .id(diagnostic.code)
}

/// The diagnostic as annotate-snippets draws it, and the excerpt its snippet shows instead of
/// the file when a line it underlines is too long to show whole.
fn group<'a>(diagnostic: &'a Diagnostic, sources: &'a Sources) -> (Group<'a>, Option<Excerpt>) {
    let title = title(diagnostic);
    let mut excerpt = None;
    let mut group = match (&diagnostic.anchor, sources.get(&diagnostic.file)) {
        (Anchor::Span(span), Some(text)) => {
            let labels: Vec<(&Span, &str)> = diagnostic
                .labels
                .iter()
                .filter_map(|label| match &label.anchor {
                    Anchor::Span(span) if label.file == diagnostic.file => {
                        Some((span, label.message.as_str()))
                    }
                    _ => None,
                })
                .collect();
            let spans: Vec<Span> = labels.iter().map(|(span, _)| (*span).clone()).collect();
            let at = start_of(sources, &diagnostic.file, text, span);
            excerpt = Excerpt::new(text, span, &spans, at);
            match &excerpt {
                Some(excerpt) => {
                    excerpt_snippet(title, diagnostic, sources, text, span, &labels, excerpt)
                }
                None => {
                    // Only the lines the spans touch are given, numbered from the first: given
                    // the whole file, annotate-snippets reads it whole for each diagnostic,
                    // the square of a file with a problem on every line.
                    let first = std::iter::once(span)
                        .chain(labels.iter().map(|(span, _)| *span))
                        .min_by_key(|span| span.start)
                        .unwrap_or(span);
                    let last = std::iter::once(span)
                        .chain(labels.iter().map(|(span, _)| *span))
                        .map(|span| char_span(text, span).end)
                        .max()
                        .unwrap_or(span.end);
                    let (from, to) = lines_around(text, first.start, last);
                    let line = start_of(sources, &diagnostic.file, text, first).line;
                    let shift = |span: &Span| {
                        let span = char_span(text, span);
                        span.start.saturating_sub(from)..span.end.saturating_sub(from)
                    };
                    let mut primary = AnnotationKind::Primary.span(shift(span));
                    if let Some(label) = &diagnostic.label {
                        primary = primary.label(one_line(label));
                    }
                    let lines = text.get(from..to).unwrap_or_default();
                    let mut snippet = Snippet::source(lone_crs_as_lfs(lines))
                        .line_start(line)
                        .path(one_line(&diagnostic.file))
                        .annotation(primary);
                    for (span, message) in labels {
                        snippet = snippet.annotation(
                            AnnotationKind::Context
                                .span(shift(span))
                                .label(one_line(message)),
                        );
                    }
                    title.element(snippet)
                }
            }
        }
        _ => title.element(Origin::path(one_line(&diagnostic.file))),
    };
    for label in diagnostic
        .labels
        .iter()
        .filter(|l| l.file != diagnostic.file)
    {
        group = match (&label.anchor, sources.get(&label.file)) {
            (Anchor::Span(span), Some(text)) => group.element(
                Snippet::source(lone_crs_as_lfs(text))
                    .path(one_line(&label.file))
                    .annotation(
                        AnnotationKind::Context
                            .span(span.clone())
                            .label(one_line(&label.message)),
                    ),
            ),
            _ => group.element(
                Level::NOTE
                    .message(clip(&format!("{}: {}", label.file, label.message)).into_owned()),
            ),
        };
    }
    for note in &diagnostic.notes {
        group = group.element(Level::NOTE.message(clip(note)));
    }
    if let Some(help) = &diagnostic.help {
        group = group.element(Level::HELP.message(clip(help)));
    }
    (group, excerpt)
}

/// Where `span` of `file`, whose text is `text`, starts: as the report placed it when the
/// file was read, else counted now.
fn start_of(sources: &Sources, file: &str, text: &str, span: &Span) -> LineCol {
    sources
        .range(file, &Anchor::Span(span.clone()))
        .map_or_else(|| line_col(text, span.start), |(at, _)| at)
}

/// The bytes of the whole lines of `text` from the one holding `start` to the one holding
/// `end`, line breaks and all.
fn lines_around(text: &str, start: usize, end: usize) -> (usize, usize) {
    let start = crate::source::floor_char_boundary(text, start);
    let end = crate::source::floor_char_boundary(text, end.max(start));
    (
        crate::source::line_start(text, start),
        crate::source::next_line_start(text, end).unwrap_or(text.len()),
    )
}

/// The snippet of a diagnostic on a long line: its window of the line, with the labels that
/// fall inside it; the others become notes that say where they are.
fn excerpt_snippet<'a>(
    title: Title<'a>,
    diagnostic: &'a Diagnostic,
    sources: &Sources,
    text: &str,
    span: &Span,
    labels: &[(&Span, &'a str)],
    excerpt: &Excerpt,
) -> Group<'a> {
    let mut primary = AnnotationKind::Primary.span(excerpt.map(text, span).unwrap_or_default());
    if let Some(label) = &diagnostic.label {
        primary = primary.label(one_line(label));
    }
    let mut snippet = Snippet::source(excerpt.source.clone())
        .path(one_line(&diagnostic.file))
        .line_start(excerpt.line)
        .annotation(primary);
    let mut elsewhere = Vec::new();
    for (span, message) in labels {
        match excerpt.map(text, span) {
            Some(shown) => {
                snippet = snippet
                    .annotation(AnnotationKind::Context.span(shown).label(one_line(message)));
            }
            None => {
                let at = start_of(sources, &diagnostic.file, text, span);
                elsewhere.push(Level::NOTE.message(format!(
                    "{}:{}:{}: {message}",
                    one_line(&diagnostic.file),
                    at.line,
                    at.column
                )));
            }
        }
    }
    title.element(snippet).elements(elsewhere)
}

/// The closing line: `checked 12 records in 12 files: 2 errors, 1 warning`.
pub fn summary_line(summary: &Summary) -> String {
    let known = if summary.known > 0 {
        format!(
            " ({} in the baseline)",
            plural(summary.known, "known problem")
        )
    } else {
        String::new()
    };
    format!(
        "checked {} in {}: {}, {}{known}",
        plural(summary.records, "record"),
        plural(summary.files, "file"),
        plural(summary.errors, "error"),
        plural(summary.warnings, "warning"),
    )
}

/// `1 record`, `2 records`.
pub fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
