//! `check --statistics`: how many diagnostics each rule gave, in place of the diagnostics,
//! as `ruff check --statistics` prints them. A corpus with thousands of problems (a
//! collection renamed without its references, a schema made stricter) is read at a glance
//! this way, where the full report scrolls past.
//!
//! The counts come from the diagnostics the report would show (after the config's levels
//! and the baseline), so they add up to the summary line's.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::Summary;
use super::human::plural;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::rules;
use crate::write::json_document;

/// The diagnostics of one rule at one level.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    /// The rule's code.
    pub code: &'static str,
    /// Its level (the config's, for every diagnostic of the rule).
    pub severity: Severity,
    /// How many diagnostics it gave.
    pub count: usize,
    /// How many of them `--fix` would fix: those with a machine-applicable fix.
    pub fixable: usize,
    /// The rule's one-line summary (`gotchas explain` lists the same).
    pub summary: &'static str,
}

/// The count of every rule that gave a diagnostic: most diagnostics first, then by code, so
/// the same diagnostics always give the same table.
pub fn count(diagnostics: &[Diagnostic]) -> Vec<RuleCount> {
    let mut counts: BTreeMap<(&'static str, Severity), (usize, usize)> = BTreeMap::new();
    for diagnostic in diagnostics {
        let (count, fixable) = counts
            .entry((diagnostic.code, diagnostic.severity))
            .or_default();
        *count += 1;
        if diagnostic
            .fix
            .as_ref()
            .is_some_and(|fix| fix.applicability == Applicability::MachineApplicable)
        {
            *fixable += 1;
        }
    }
    let mut table: Vec<RuleCount> = counts
        .into_iter()
        .map(|((code, severity), (count, fixable))| RuleCount {
            code,
            severity,
            count,
            fixable,
            summary: rules::find(code).map_or("", |rule| rule.summary),
        })
        .collect();
    // Stable: rules of equal count stay in code order, as the map gave them.
    table.sort_by_key(|rule| std::cmp::Reverse(rule.count));
    table
}

/// The table for a terminal: a line per rule (count, level, code, `[*]` when `--fix` would
/// fix some of its diagnostics, summary), then how many `--fix` would fix.
pub fn human(diagnostics: &[Diagnostic]) -> String {
    let table = count(diagnostics);
    let count_width = table.iter().map(|r| r.count.to_string().len()).max();
    let code_width = table.iter().map(|r| r.code.len()).max().unwrap_or(0);
    let mut out = String::new();
    for rule in &table {
        let marker = if rule.fixable > 0 { "[*] " } else { "    " };
        out.push_str(&format!(
            "{:>count_width$}  {:<7}  {:<code_width$}  {marker}{}\n",
            rule.count,
            rule.severity.to_string(),
            rule.code,
            rule.summary,
            count_width = count_width.unwrap_or(1),
        ));
    }
    let fixable: usize = table.iter().map(|rule| rule.fixable).sum();
    if fixable > 0 {
        out.push_str(&format!(
            "[*] {} fixable with `gotchas check --fix`\n",
            plural(fixable, "problem")
        ));
    }
    out
}

#[derive(Serialize)]
struct Report {
    statistics: Vec<RuleCount>,
    summary: Summary,
}

/// Writes the table for scripts to `out`: `{"statistics": [...], "summary": {...}}`, each
/// entry's fields as [`RuleCount`] names them, the summary as the JSON report's.
pub fn write_json(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    summary: Summary,
) -> io::Result<()> {
    let report = Report {
        statistics: count(diagnostics),
        summary,
    };
    json_document(out, &report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Anchor, Edit, Fix};

    fn diagnostic(
        code: &'static str,
        severity: Severity,
        fix: Option<Applicability>,
    ) -> Diagnostic {
        let mut diagnostic = Diagnostic::new(code, "records/a.yaml", "message");
        diagnostic.severity = severity;
        diagnostic.fix = fix.map(|applicability| Fix {
            applicability,
            edits: vec![Edit {
                anchor: Anchor::File,
                replacement: String::new(),
            }],
        });
        diagnostic
    }

    #[test]
    fn counts_each_rule_and_level_most_first_then_by_code() {
        let diagnostics = [
            diagnostic(rules::ORPHAN, Severity::Warning, None),
            diagnostic(
                rules::UNRESOLVED_REF,
                Severity::Error,
                Some(Applicability::MachineApplicable),
            ),
            diagnostic(
                rules::WRONG_TARGET,
                Severity::Error,
                Some(Applicability::MaybeIncorrect),
            ),
            diagnostic(rules::UNRESOLVED_REF, Severity::Error, None),
            diagnostic(rules::AMBIGUOUS_REF, Severity::Error, None),
        ];
        let table: Vec<(&str, Severity, usize, usize)> = count(&diagnostics)
            .into_iter()
            .map(|r| (r.code, r.severity, r.count, r.fixable))
            .collect();
        assert_eq!(
            table,
            [
                ("unresolved-ref", Severity::Error, 2, 1),
                ("ambiguous-ref", Severity::Error, 1, 0),
                ("orphan", Severity::Warning, 1, 0),
                ("wrong-target", Severity::Error, 1, 0),
            ]
        );
    }

    #[test]
    fn the_table_aligns_its_columns_and_counts_what_fix_would_fix() {
        let mut diagnostics = vec![diagnostic(rules::ORPHAN, Severity::Warning, None)];
        diagnostics.extend((0..12).map(|_| {
            diagnostic(
                rules::UNRESOLVED_REF,
                Severity::Error,
                Some(Applicability::MachineApplicable),
            )
        }));
        assert_eq!(
            human(&diagnostics),
            "12  error    unresolved-ref  [*] a reference names no record\n \
             1  warning  orphan              a record is cut off from the graph\n\
             [*] 12 problems fixable with `gotchas check --fix`\n"
        );
        assert_eq!(human(&[]), "");
    }
}
