//! `--fix`: apply the fixes that are certain, editing only the bytes of each value.
//!
//! Only [`Applicability::MachineApplicable`] fixes are applied (a unique close candidate, an
//! enum typo, a field-name typo); a suggestion with two equally close candidates is never a
//! fix. Edits replace exactly the located bytes (inside the quotes of a quoted scalar), so the
//! file's formatting, comments and quoting survive, and files are written with
//! [`crate::write::write_atomic`]. Fixes are applied until none is left ([`settle`]): a fix
//! can reveal another, and one `--fix` should leave nothing for the next.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use crate::config::Config;
use crate::corpus::{Corpus, Renumber};
use crate::diagnostic::{Anchor, Applicability, Diagnostic};
use crate::load::Record;
use crate::schema::Schemas;
use crate::serialize;
use crate::source::{SourceFile, Span};
use crate::stamp::{AsRead, Stamp};

/// The certain edits of a set of diagnostics, by file (as displayed), in file order.
pub fn plan(diagnostics: &[Diagnostic]) -> BTreeMap<String, Vec<(Span, String)>> {
    let mut plan: BTreeMap<String, Vec<(Span, String)>> = BTreeMap::new();
    for diagnostic in diagnostics {
        let Some(fix) = &diagnostic.fix else { continue };
        if fix.applicability != Applicability::MachineApplicable {
            continue;
        }
        let spans: Option<Vec<(Span, String)>> = fix
            .edits
            .iter()
            .map(|edit| match &edit.anchor {
                Anchor::Span(span) => Some((span.clone(), edit.replacement.clone())),
                _ => None,
            })
            .collect();
        if let Some(spans) = spans {
            plan.entry(diagnostic.file.clone())
                .or_default()
                .extend(spans);
        }
    }
    plan
}

/// How a scalar is written, as far as writing a new value in its place goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    /// `"..."`: a JSON string, or a double-quoted YAML scalar.
    DoubleQuoted,
    /// `'...'`: a single-quoted YAML scalar.
    SingleQuoted,
    /// A plain YAML scalar, or a block scalar (`|`, `>`) replaced whole.
    Plain,
    /// A value that is not a string in a JSON file (a number, `true`, `null`).
    Bare,
}

/// Where an edit goes and what it writes, for an edit that replaces the scalar written at
/// `node` in `text`, or `part` of it (a link's target inside a string): `replacement` is
/// the new value, and what is written is that value in the scalar's own syntax, so that the
/// file reads back as the fix means it to and keeps its quoting wherever it can.
///
/// Inside quotes the value is escaped as the quotes need (`\"` and `\\` in double quotes,
/// `''` in single ones). A plain scalar is kept plain when the value reads back as the same
/// string (not `true`, `1.0` or `null`, nothing YAML reads as syntax); otherwise the whole
/// scalar is replaced by the value in double quotes, as it is when a single-quoted one
/// would have to hold a control character. A `part` of a scalar cannot be requoted alone:
/// when the value cannot be written inside it as it stands, `None`, and the fix is dropped.
pub fn written_in(
    text: &str,
    node: Span,
    part: Option<Span>,
    replacement: &str,
    json: bool,
) -> Option<(Span, String)> {
    let written = text.get(node.clone()).unwrap_or_default();
    let quoted =
        |quote: char| written.len() >= 2 && written.starts_with(quote) && written.ends_with(quote);
    let style = if quoted('"') {
        Written::DoubleQuoted
    } else if json {
        Written::Bare
    } else if quoted('\'') {
        Written::SingleQuoted
    } else {
        Written::Plain
    };
    let inner = || node.start + 1..node.end - 1;
    let controls = replacement.chars().any(char::is_control);
    match (style, part) {
        (Written::DoubleQuoted, part) => Some((
            part.unwrap_or_else(inner),
            serialize::double_quoted_content(replacement),
        )),
        (Written::SingleQuoted, part) if !controls => {
            Some((part.unwrap_or_else(inner), replacement.replace('\'', "''")))
        }
        (Written::Plain, Some(part)) => {
            let safe = !controls
                && !replacement.contains([':', '#', ',', '[', ']', '{', '}'])
                && replacement.trim() == replacement;
            safe.then(|| (part, replacement.to_string()))
        }
        (Written::Plain, None) if serialize::plain_is_safe(replacement) => {
            Some((node, replacement.to_string()))
        }
        (_, Some(_)) => None,
        (_, None) => Some((node, serialize::double_quoted(replacement))),
    }
}

/// Applies edits to a text. Edits are applied in order of position; an edit overlapping an
/// earlier one is skipped (the re-check after fixing reports what is left).
pub fn apply(text: &str, edits: &[(Span, String)]) -> (String, usize) {
    let mut sorted: Vec<&(Span, String)> = edits.iter().collect();
    sorted.sort_by_key(|(span, _)| (span.start, span.end));
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    let mut applied = 0;
    for (span, replacement) in sorted {
        // `get` refuses a span that overlaps the last edit, reaches past the end or cuts a
        // character.
        let (Some(before), Some(_)) = (text.get(cursor..span.start), text.get(span.clone())) else {
            continue;
        };
        out.push_str(before);
        out.push_str(replacement);
        cursor = span.end;
        applied += 1;
    }
    out.push_str(text.get(cursor..).unwrap_or_default());
    (out, applied)
}

/// The most rounds of fixes [`settle`] applies. A fix can reveal another (a field name
/// fixed is then validated, and its value may hold a typo of its own), one nesting level
/// per round; the bound only guards against fixes that would undo each other.
const MAX_ROUNDS: usize = 8;

/// One file as its certain fixes leave it.
#[derive(Debug)]
pub struct FixedFile {
    /// Where the file is on disk.
    pub path: PathBuf,
    /// The path as displayed.
    pub display: String,
    /// Its text as loaded.
    pub old: String,
    /// Its text with every fix applied.
    pub new: String,
    /// How many edits were applied, over every round.
    pub applied: usize,
    had_bom: bool,
    /// The file's stamp as it was read.
    stamp: Option<Stamp>,
}

impl FixedFile {
    /// The unified diff of the fixes, as the file's bytes are: with the byte-order mark it
    /// had, on the first line of both sides, so that `patch` and `git apply` find the line.
    pub fn diff(&self) -> String {
        if !self.had_bom {
            return unified_diff(&self.display, &self.old, &self.new);
        }
        let (old, new) = (
            format!("\u{feff}{}", self.old),
            format!("\u{feff}{}", self.new),
        );
        unified_diff(&self.display, &old, &new)
    }

    /// What the file held when it was read: it is replaced only while it holds that still.
    pub fn as_read(&self) -> AsRead {
        AsRead::new(self.stamp, &self.old)
    }

    /// The bytes to write: the byte-order mark the file had is put back, so a fix changes
    /// only the edited values.
    pub fn bytes(&self) -> Vec<u8> {
        const BOM: &[u8] = b"\xEF\xBB\xBF";
        let mut bytes = Vec::with_capacity(self.new.len() + BOM.len());
        if self.had_bom {
            bytes.extend_from_slice(BOM);
        }
        bytes.extend_from_slice(self.new.as_bytes());
        bytes
    }
}

/// What [`settle`] did.
#[derive(Debug)]
pub struct Settled {
    /// The files the fixes changed, in path order.
    pub files: Vec<FixedFile>,
    /// The diagnostics of the fixed corpus, from the last call of `check`.
    pub diagnostics: Vec<Diagnostic>,
    /// The files (as displayed) whose fixes were not applied, as the file would have had a
    /// problem loading with them: a fix is meant to change a value, never to break a
    /// file, so this is a bug in the fix, and the file is left as it was.
    pub refused: Vec<String>,
}

/// Applies the certain fixes of `diagnostics` to the corpus in memory, checks again with
/// `check`, and repeats until no certain fix is left, so that one `--fix` leaves nothing for
/// the next. Nothing is written: the caller writes [`Settled::files`], or shows them as
/// diffs.
///
/// A fixed file is parsed again and its record kept as `draw` makes of it, as the corpus was
/// loaded (see [`Corpus::set_text_with`]). A file whose text the corpus let go is read again
/// to be fixed, and left alone if it changed since it was loaded: its fixes were found in
/// what it held then, and writing them over what it holds now would lose the change.
///
/// A fixed file that loads with more problems than it had (it no longer parses, or has a
/// key twice) is put back as it was and left out of the rest: see [`Settled::refused`].
pub fn settle<F, D>(
    corpus: &mut Corpus<F>,
    mut diagnostics: Vec<Diagnostic>,
    schemas: &Schemas,
    config: &Config,
    draw: D,
    mut check: impl FnMut(&Corpus<F>) -> Vec<Diagnostic>,
) -> Settled
where
    F: Renumber,
    D: Fn(Record, usize, &SourceFile) -> Record<F>,
{
    let by_display: HashMap<String, usize> = corpus
        .files
        .iter()
        .enumerate()
        .map(|(index, file)| (file.display.clone(), index))
        .collect();
    let mut fixed: BTreeMap<usize, FixedFile> = BTreeMap::new();
    let mut refused: Vec<String> = Vec::new();
    let load_problems = |corpus: &Corpus<F>, display: &str| {
        corpus
            .diagnostics
            .iter()
            .filter(|d| d.file == display)
            .count()
    };
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for (display, edits) in plan(&diagnostics) {
            let Some(&index) = by_display.get(&display) else {
                continue;
            };
            let Some(file) = corpus.files.get(index) else {
                continue;
            };
            if refused.contains(&display) {
                continue;
            }
            let Some(old) = file.text_again().map(Cow::into_owned) else {
                continue;
            };
            let (new, applied) = apply(&old, &edits);
            if applied == 0 || new == old {
                continue;
            }
            let (path, had_bom, stamp) = (file.path.clone(), file.had_bom, file.stamp);
            let problems = load_problems(corpus, &display);
            corpus.set_text_with(index, new.clone(), schemas, config, &draw);
            if load_problems(corpus, &display) > problems {
                let first = fixed.remove(&index).map_or(old, |file| file.old);
                corpus.set_text_with(index, first, schemas, config, &draw);
                refused.push(display);
                changed = true;
                continue;
            }
            let entry = fixed.entry(index).or_insert_with(|| FixedFile {
                path,
                display,
                old,
                new: String::new(),
                applied: 0,
                had_bom,
                stamp,
            });
            entry.applied += applied;
            entry.new = new;
            changed = true;
        }
        if !changed {
            break;
        }
        diagnostics = check(corpus);
    }
    refused.sort();
    Settled {
        files: fixed.into_values().collect(),
        diagnostics,
        refused,
    }
}

/// A unified diff of one file's change, as `git diff` would show it.
///
/// A line that ends with a carriage return alone (as classic Mac OS wrote text) is shown
/// ending with a line feed: written as it is, each such line went back to the start of the
/// terminal's line and wrote over the one before, so a diff of such a file showed only its
/// last line. `patch` and `git apply` split a diff at line feeds alone, so they could not
/// apply either form to such a file; the hunks' line numbers count its lines as they are.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(lone_returns_as_feeds(old), lone_returns_as_feeds(new))
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// `text` with each carriage return that no line feed follows made a line feed.
fn lone_returns_as_feeds(text: &str) -> Cow<'_, str> {
    let lone = |at: usize| text.as_bytes().get(at + 1) != Some(&b'\n');
    if !memchr::memchr_iter(b'\r', text.as_bytes()).any(lone) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for at in memchr::memchr_iter(b'\r', text.as_bytes()).filter(|&at| lone(at)) {
        out.push_str(text.get(from..at).unwrap_or_default());
        out.push('\n');
        from = at + 1;
    }
    out.push_str(text.get(from..).unwrap_or_default());
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an edit of the scalar `node` (or of `part` of it) writes in `text`, as the text
    /// reads after it.
    fn fixed(
        text: &str,
        node: &str,
        part: Option<&str>,
        replacement: &str,
        json: bool,
    ) -> Option<String> {
        let at = text.find(node).unwrap();
        let node = at..at + node.len();
        let part = part.map(|part| {
            let start = at + text[node.clone()].find(part).unwrap();
            start..start + part.len()
        });
        let (span, written) = written_in(text, node, part, replacement, json)?;
        Some(apply(text, &[(span, written)]).0)
    }

    #[test]
    fn a_replacement_is_written_in_the_syntax_of_the_scalar_it_replaces() {
        let yaml = |node: &str, replacement: &str| {
            fixed(&format!("a: {node} # c\n"), node, None, replacement, false).unwrap()
        };
        assert_eq!(yaml("majr", "major"), "a: major # c\n");
        assert_eq!(yaml("treu", "true"), "a: \"true\" # c\n");
        assert_eq!(yaml("1.o", "1.0"), "a: \"1.0\" # c\n");
        assert_eq!(yaml("x", "a: b"), "a: \"a: b\" # c\n");
        assert_eq!(yaml("x", "-x"), "a: \"-x\" # c\n");
        assert_eq!(yaml("|-\n  majr", "major"), "a: major # c\n");
        assert_eq!(yaml("'its'", "it's"), "a: 'it''s' # c\n");
        assert_eq!(yaml("'x'", "a\nb"), "a: \"a\\nb\" # c\n");
        assert_eq!(
            yaml("\"x\"", "say \"hi\" \\ bye"),
            "a: \"say \\\"hi\\\" \\\\ bye\" # c\n"
        );
        let json = "{\"a\": \"x\", \"b\": 1}";
        assert_eq!(
            fixed(json, "\"x\"", None, "\"y\"", true).unwrap(),
            "{\"a\": \"\\\"y\\\"\", \"b\": 1}"
        );
        assert_eq!(
            fixed(json, "1", None, "one", true).unwrap(),
            "{\"a\": \"x\", \"b\": \"one\"}"
        );
    }

    #[test]
    fn a_link_target_is_replaced_inside_its_string_only_where_it_can_be_written() {
        let text = "a: see [[x]] # c\nb: 'see [[x]]'\n";
        assert_eq!(
            fixed(text, "see [[x]]", Some("x"), "engines/y", false).unwrap(),
            "a: see [[engines/y]] # c\nb: 'see [[x]]'\n"
        );
        assert_eq!(fixed(text, "see [[x]]", Some("x"), "y: z", false), None);
        assert_eq!(
            fixed(text, "'see [[x]]'", Some("x"), "y'z", false).unwrap(),
            "a: see [[x]] # c\nb: 'see [[y''z]]'\n"
        );
        assert_eq!(fixed(text, "'see [[x]]'", Some("x"), "y\nz", false), None);
    }

    #[test]
    fn a_fix_that_would_break_its_file_is_refused_and_the_others_applied() {
        let dir = crate::testing::folder_with(&[
            (
                "schema/thing.schema.json",
                r#"{"type": "object", "properties": {"state": {"enum": ["major", "minor"]}}}"#,
            ),
            ("records/things/a.yaml", "id: a\ntype: thing\nstate: majr\n"),
            ("records/things/b.yaml", "id: b\ntype: thing\nstate: minr\n"),
        ]);
        let project = crate::Project::open(dir.path(), None).unwrap();
        let mut corpus = project.load_for_check();
        let mut diagnostics = project.check(&corpus);
        // A fix that writes what YAML cannot read, as a fix placed wrongly once did.
        let edit = diagnostics
            .iter_mut()
            .filter(|d| d.file.ends_with("a.yaml"))
            .find_map(|d| d.fix.as_mut())
            .map(|fix| &mut fix.edits[0])
            .unwrap();
        edit.replacement = "major\nstate: [".into();
        let settled =
            project.settle_fixes(&mut corpus, diagnostics, |corpus| project.check(corpus));
        assert_eq!(settled.refused, ["records/things/a.yaml"]);
        let fixed: Vec<(&str, &str)> = settled
            .files
            .iter()
            .map(|f| (f.display.as_str(), f.new.as_str()))
            .collect();
        assert_eq!(
            fixed,
            [(
                "records/things/b.yaml",
                "id: b\ntype: thing\nstate: minor\n"
            )]
        );
        let a = corpus
            .files
            .iter()
            .find(|f| f.display.ends_with("a.yaml"))
            .unwrap();
        assert_eq!(a.text_again().unwrap(), "id: a\ntype: thing\nstate: majr\n");
    }

    #[test]
    fn edits_only_the_given_bytes_and_skips_overlaps() {
        let text = "affects: [vllm, mooncache] # keep\n";
        let start = text.find("mooncache").unwrap();
        let edits = vec![
            (start..start + 9, "mooncake".to_string()),
            (start + 2..start + 4, "zz".to_string()),
        ];
        let (fixed, applied) = apply(text, &edits);
        assert_eq!(fixed, "affects: [vllm, mooncake] # keep\n");
        assert_eq!(applied, 1);
    }

    #[test]
    fn only_carriage_returns_alone_become_line_feeds() {
        assert_eq!(lone_returns_as_feeds("a\rb\r\nc\n\r"), "a\nb\r\nc\n\n");
        assert!(matches!(
            lone_returns_as_feeds("a\r\nb\n"),
            Cow::Borrowed(_)
        ));
        assert_eq!(lone_returns_as_feeds("\r\r"), "\n\n");
    }

    #[test]
    fn diff_names_the_file() {
        let diff = unified_diff("records/x.yaml", "a: 1\n", "a: 2\n");
        assert!(diff.contains("--- a/records/x.yaml"));
        assert!(diff.contains("-a: 1\n+a: 2\n"));
    }
}
