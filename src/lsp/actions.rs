//! Quick fixes: the fixes `check` attaches to its diagnostics, offered as code actions.
//!
//! Both certain fixes (what `--fix` applies) and plausible ones are offered, since a person
//! chooses here; the certain one is marked preferred, so an editor's "fix" key applies it.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Uri, WorkspaceEdit,
};

use super::convert;
use super::workspace::Workspace;
use crate::diagnostic::{Anchor, Applicability};

/// The quick fixes of the diagnostics of `file` that touch `range`.
pub fn quick_fixes(
    workspace: &Workspace,
    file: usize,
    uri: &Uri,
    range: Range,
) -> Vec<CodeActionOrCommand> {
    let buffer = workspace.buffer(file);
    let mut actions = Vec::new();
    for diagnostic in workspace.published(file) {
        let Some(fix) = &diagnostic.fix else { continue };
        let shown = convert::anchor_range(buffer, &diagnostic.anchor);
        if shown.end < range.start || range.end < shown.start {
            continue;
        }
        let edits: Option<Vec<TextEdit>> = fix
            .edits
            .iter()
            .map(|edit| match &edit.anchor {
                Anchor::Span(span) => Some(TextEdit {
                    range: convert::range(buffer, span),
                    new_text: edit.replacement.clone(),
                }),
                _ => None,
            })
            .collect();
        let Some(edits) = edits else { continue };
        let title = match edits.as_slice() {
            [one] => format!("Replace with `{}`", one.new_text),
            _ => format!("Fix {}", diagnostic.code),
        };
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![super::protocol_diagnostic(
                workspace, diagnostic, buffer,
            )]),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), edits)])),
                ..WorkspaceEdit::default()
            }),
            is_preferred: Some(fix.applicability == Applicability::MachineApplicable),
            ..CodeAction::default()
        }));
    }
    actions
}
