//! GitHub Actions workflow commands: one `::error` or `::warning` line per diagnostic, which
//! the runner turns into an annotation on the pull request's diff.
//!
//! ```text
//! ::error file=records/gotchas/a.md,line=6,col=23,endLine=6,endColumn=32,title=unresolved-ref::`mooncache` in `affects` names no record%0Ahelp: did you mean mooncake (engines/mooncake)?
//! ```
//!
//! The runner parses the line itself, so the message escapes `%`, CR and LF, and property
//! values also escape `:` and `,`, exactly as GitHub's own toolkit does; anything else would
//! cut the annotation short or break it into several.
//!
//! GitHub shows at most [`SHOWN_PER_STEP`] error and as many warning annotations of a step,
//! and drops the rest in silence; past that, a last `::notice` says how many there are.

use std::io::{self, Write};

use super::{Sources, full_message, repository_path};
use crate::diagnostic::{Diagnostic, Severity};

/// Writes one workflow command per diagnostic to `out`. `prefix` is the corpus root's folder
/// in the repository (see [`repository_path`]).
pub fn write(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    sources: &Sources,
    prefix: &str,
) -> io::Result<()> {
    let (mut errors, mut warnings) = (0, 0);
    for diagnostic in diagnostics {
        match diagnostic.severity {
            Severity::Error => errors += 1,
            Severity::Warning => warnings += 1,
        }
        let command = match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let file = escape_path(&repository_path(prefix, &diagnostic.file));
        let mut properties = Vec::new();
        if let Some((start, end)) = sources.range(&diagnostic.file, &diagnostic.anchor) {
            properties.extend([
                ("line", start.line.to_string()),
                ("col", start.column.to_string()),
                ("endLine", end.line.to_string()),
                ("endColumn", end.column.to_string()),
            ]);
        }
        properties.push(("title", diagnostic.code.to_string()));
        let properties: Vec<String> = std::iter::once(format!("file={file}"))
            .chain(
                (properties.iter())
                    .map(|(name, value)| format!("{name}={}", escape_property(value))),
            )
            .collect();
        writeln!(
            out,
            "::{command} {}::{}",
            properties.join(","),
            escape_data(&full_message(diagnostic))
        )?;
    }
    if errors > SHOWN_PER_STEP || warnings > SHOWN_PER_STEP {
        writeln!(
            out,
            "::notice title=gotchas::{}",
            escape_data(&format!(
                "{} and {}: GitHub shows the first {SHOWN_PER_STEP} of each on the pull request; this step's log lists them all",
                super::human::plural(errors, "error"),
                super::human::plural(warnings, "warning"),
            ))
        )?;
    }
    Ok(())
}

/// How many error annotations, and how many warning ones, GitHub shows of one step.
pub const SHOWN_PER_STEP: usize = 10;

/// Escapes a command's message as the Actions toolkit does (`%`, CR and LF), and writes
/// any other control character as an escape (`\u{1b}`), which the log would otherwise show
/// raw, or act on.
fn escape_data(text: &str) -> String {
    let encoded = text
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    super::excerpt::one_line(&encoded).into_owned()
}

/// Escapes a property value: like a message, and `:` and `,`, which end a property.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Escapes a file's path as the Actions toolkit escapes a property, and no more: the runner
/// matches the path, unescaped, with the repository's files, so a control character in the
/// name (which the message shows escaped) stays as it is.
fn escape_path(path: &str) -> String {
    path.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
        .replace(':', "%3A")
        .replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_the_actions_toolkit() {
        assert_eq!(escape_data("50% a:b,c\r\nd"), "50%25 a:b,c%0D%0Ad");
        assert_eq!(escape_data("a\u{0}b\u{1b}[31m"), "a\\0b\\u{1b}[31m");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        assert_eq!(escape_path("c\u{1b}[31m:d%,\n"), "c\u{1b}[31m%3Ad%25%2C%0A");
    }
}
