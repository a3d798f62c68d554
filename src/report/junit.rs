//! JUnit XML, the format CI dashboards (GitLab, Jenkins, Azure, test-report actions) show as
//! a list of test cases.
//!
//! A record is the unit people think in, so each record file is one test case, plus one for
//! each other file that has a diagnostic (a file that could not be parsed, a stray file, a
//! prose page). A case fails when its file has an error; the failure's text lists every
//! diagnostic of the file as `path:line:col: error[code]: message`. A file with only warnings
//! passes, as the run does, and lists them in `system-out`. No timestamps or durations, so
//! the same corpus gives the same bytes.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::{Sources, repository_path};
use crate::diagnostic::{Diagnostic, Severity};
use crate::markup::escape;
use crate::report::human::plural;

/// Writes to `out` one test suite with a test case per record file (`records`, displayed
/// paths) and per other file with a diagnostic, a case at a time. `prefix` is the corpus
/// root's folder in the repository (see [`repository_path`]).
pub fn write(
    out: &mut dyn Write,
    records: &[&str],
    diagnostics: &[Diagnostic],
    sources: &Sources,
    prefix: &str,
) -> io::Result<()> {
    let mut cases: BTreeMap<&str, Vec<&Diagnostic>> =
        records.iter().map(|&file| (file, Vec::new())).collect();
    for diagnostic in diagnostics {
        cases
            .entry(diagnostic.file.as_str())
            .or_default()
            .push(diagnostic);
    }
    let failures = cases
        .values()
        .filter(|found| found.iter().any(|d| d.severity == Severity::Error))
        .count();
    let counts = format!(
        "tests=\"{}\" failures=\"{failures}\" errors=\"0\"",
        cases.len()
    );
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(out, "<testsuites name=\"gotchas\" {counts}>")?;
    writeln!(
        out,
        "  <testsuite name=\"gotchas check\" {counts} skipped=\"0\">"
    )?;
    for (file, found) in &cases {
        out.write_all(case(file, found, sources, prefix).as_bytes())?;
    }
    writeln!(out, "  </testsuite>\n</testsuites>")
}

fn case(file: &str, diagnostics: &[&Diagnostic], sources: &Sources, prefix: &str) -> String {
    let path = repository_path(prefix, file);
    let classname = path
        .rsplit_once('/')
        .map_or("", |(folder, _)| folder)
        .replace('/', ".");
    let mut out = format!(
        "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\"",
        attribute(&path),
        attribute(&classname),
        attribute(&path)
    );
    if diagnostics.is_empty() {
        out.push_str("/>\n");
        return out;
    }
    out.push_str(">\n");
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diagnostics.len() - errors;
    let listing: String = diagnostics
        .iter()
        .map(|d| line(d, sources, &path))
        .collect();
    if errors > 0 {
        let mut message = plural(errors, "error");
        if warnings > 0 {
            message.push_str(&format!(", {}", plural(warnings, "warning")));
        }
        out.push_str(&format!(
            "      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
            attribute(&message),
            attribute(
                diagnostics
                    .iter()
                    .find(|d| d.severity == Severity::Error)
                    .map_or("", |d| d.code)
            ),
            escape(&listing)
        ));
    } else {
        out.push_str(&format!(
            "      <system-out>{}</system-out>\n",
            escape(&listing)
        ));
    }
    out.push_str("    </testcase>\n");
    out
}

/// `path:line:col: error[code]: message`, then the notes and help, indented.
fn line(diagnostic: &Diagnostic, sources: &Sources, path: &str) -> String {
    let position = sources
        .range(&diagnostic.file, &diagnostic.anchor)
        .map(|(start, _)| format!(":{}:{}", start.line, start.column))
        .unwrap_or_default();
    let mut text = format!(
        "{path}{position}: {}[{}]: {}\n",
        diagnostic.severity, diagnostic.code, diagnostic.message
    );
    for note in &diagnostic.notes {
        text.push_str(&format!("  note: {note}\n"));
    }
    if let Some(help) = &diagnostic.help {
        text.push_str(&format!("  help: {help}\n"));
    }
    text
}

/// Escapes an attribute value: markup, quotes, and line breaks and tabs as references, since
/// a parser would turn them into spaces in an attribute.
fn attribute(text: &str) -> String {
    escape(text)
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
        .replace('\t', "&#9;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_characters_xml_cannot_hold() {
        assert_eq!(
            attribute("a<b & 'c'>\u{1}"),
            "a&lt;b &amp; &#39;c&#39;&gt;\u{FFFD}"
        );
        assert_eq!(
            attribute("\"a\"\t'b'\n"),
            "&quot;a&quot;&#9;&#39;b&#39;&#10;"
        );
    }
}
