//! `--fix`: apply the fixes that are certain, editing only the bytes of each value.
//!
//! Only [`Applicability::MachineApplicable`] fixes are applied (a unique close candidate, an
//! enum typo, a field-name typo); a suggestion with two equally close candidates is never a
//! fix. Edits replace exactly the located bytes (inside the quotes of a quoted scalar), so the
//! file's formatting, comments and quoting survive, and files are written with
//! [`crate::write::write_atomic`]. Fixes are applied until none is left ([`settle`]): a fix
//! can reveal another, and one `--fix` should leave nothing for the next.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use crate::config::Config;
use crate::corpus::{Corpus, Renumber};
use crate::diagnostic::{Anchor, Applicability, Diagnostic};
use crate::load::Record;
use crate::schema::Schemas;
use crate::source::{SourceFile, Span};

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
}

impl FixedFile {
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
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for (display, edits) in plan(&diagnostics) {
            let Some(&index) = by_display.get(&display) else {
                continue;
            };
            let Some(file) = corpus.files.get(index) else {
                continue;
            };
            let Some(old) = file.text_again() else {
                continue;
            };
            let (new, applied) = apply(&old, &edits);
            if applied == 0 || new == old {
                continue;
            }
            let entry = fixed.entry(index).or_insert_with(|| FixedFile {
                path: file.path.clone(),
                display: display.clone(),
                old: old.into_owned(),
                new: String::new(),
                applied: 0,
                had_bom: file.had_bom,
            });
            entry.applied += applied;
            entry.new.clone_from(&new);
            corpus.set_text_with(index, new, schemas, config, &draw);
            changed = true;
        }
        if !changed {
            break;
        }
        diagnostics = check(corpus);
    }
    Settled {
        files: fixed.into_values().collect(),
        diagnostics,
    }
}

/// A unified diff of one file's change, as `git diff` would show it.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn diff_names_the_file() {
        let diff = unified_diff("records/x.yaml", "a: 1\n", "a: 2\n");
        assert!(diff.contains("--- a/records/x.yaml"));
        assert!(diff.contains("-a: 1\n+a: 2\n"));
    }
}
