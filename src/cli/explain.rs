//! `gotchas explain`: a rule's documentation, or the list of rules.

use std::io::Write;
use std::process::ExitCode;

use crate::config::Level;
use crate::rules;
use crate::suggest;

pub(crate) fn run(code: Option<&str>, out: &mut impl Write) -> ExitCode {
    let text = match code {
        None => {
            let width = rules::ALL.iter().map(|r| r.code.len()).max().unwrap_or(0);
            let mut text = String::new();
            for rule in rules::ALL {
                text.push_str(&format!(
                    "{:width$}  {:5}  {}\n",
                    rule.code,
                    level_name(rule.default_level),
                    rule.summary
                ));
            }
            text
        }
        Some(code) => match rules::find(&code.to_ascii_lowercase()) {
            Some(rule) => format!(
                "# {}\n\nDefault level: {}{}\n\n{}",
                rule.code,
                level_name(rule.default_level),
                if rule.fatal {
                    " (stops the run, exit code 2)"
                } else {
                    ""
                },
                rule.documentation()
            ),
            None => {
                let suggestions = suggest::suggest(code, rules::ALL.iter().map(|r| r.code), 3);
                let help = suggest::did_you_mean(&suggestions)
                    .map(|h| format!("\nhelp: {h}"))
                    .unwrap_or_default();
                say!(
                    "error: unknown rule `{code}`{help}\nnote: `gotchas explain` lists every rule"
                );
                return ExitCode::from(2);
            }
        },
    };
    super::emit(out, text.as_bytes())
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warn => "warn",
        Level::Allow => "allow",
    }
}
