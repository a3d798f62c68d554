//! rustc-style rendering: a title with the rule code, the source line with a caret under the
//! offending value, secondary labels, notes and a help line.

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

use super::{Sources, Summary};
use crate::diagnostic::{Anchor, Diagnostic, Severity};
use crate::source::char_span;

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
    let renderer = if styled {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    let mut index = 0;
    while index < diagnostics.len() {
        let file = &diagnostics[index].file;
        let count = diagnostics[index..]
            .iter()
            .take_while(|d| &d.file == file)
            .count();
        let shown = if max_per_file == 0 {
            count
        } else {
            count.min(max_per_file)
        };
        for diagnostic in &diagnostics[index..index + shown] {
            out.push_str(&renderer.render(&[group(diagnostic, sources)]));
            out.push_str("\n\n");
        }
        if shown < count {
            out.push_str(&format!(
                "note: {file}: {} not shown (--max-per-file 0 shows all)\n\n",
                plural(count - shown, "more diagnostic")
            ));
        }
        index += count;
    }
    out
}

fn group<'a>(diagnostic: &'a Diagnostic, sources: &'a Sources) -> Group<'a> {
    let level = match diagnostic.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let title = level.primary_title(&diagnostic.message).id(diagnostic.code);
    let mut group = match (&diagnostic.anchor, sources.get(&diagnostic.file)) {
        (Anchor::Span(span), Some(text)) => {
            let mut primary = AnnotationKind::Primary.span(char_span(text, span));
            if let Some(label) = &diagnostic.label {
                primary = primary.label(label);
            }
            let mut snippet = Snippet::source(text)
                .path(&diagnostic.file)
                .annotation(primary);
            for label in &diagnostic.labels {
                if let (true, Anchor::Span(span)) = (label.file == diagnostic.file, &label.anchor) {
                    snippet = snippet.annotation(
                        AnnotationKind::Context
                            .span(span.clone())
                            .label(&label.message),
                    );
                }
            }
            title.element(snippet)
        }
        _ => title.element(Origin::path(&diagnostic.file)),
    };
    for label in diagnostic
        .labels
        .iter()
        .filter(|l| l.file != diagnostic.file)
    {
        group = match (&label.anchor, sources.get(&label.file)) {
            (Anchor::Span(span), Some(text)) => group.element(
                Snippet::source(text).path(&label.file).annotation(
                    AnnotationKind::Context
                        .span(span.clone())
                        .label(&label.message),
                ),
            ),
            _ => group.element(Level::NOTE.message(format!("{}: {}", label.file, label.message))),
        };
    }
    for note in &diagnostic.notes {
        group = group.element(Level::NOTE.message(note));
    }
    if let Some(help) = &diagnostic.help {
        group = group.element(Level::HELP.message(help));
    }
    group
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
