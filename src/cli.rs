//! The command line: flags in, text and an exit code out. The only module that prints.
//!
//! Exit codes follow the linters people already script around: 0 when no error-level
//! diagnostic was found, 1 when one was, 2 when the tool could not run (bad arguments, an
//! unusable config or schema).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::config::Level;
use crate::diagnostic::Diagnostic;
use crate::project::Project;
use crate::report::{self, Sources, Summary};
use crate::rules;
use crate::suggest;

/// Lint, graph and publish a knowledge base of records kept as files.
#[derive(Debug, Parser)]
#[command(name = "gotchas", version, about, max_term_width = 100)]
pub struct Cli {
    /// The corpus root (holds `records/`, `schema/` and `gotchas.toml`).
    #[arg(long, global = true, default_value = ".", value_name = "DIR")]
    root: PathBuf,

    /// A config file to use instead of `<root>/gotchas.toml`.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,

    /// When to colour the output. `auto` colours only a terminal, and never with NO_COLOR set.
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check every record: syntax, schema, ids. Exit 1 if any error is found.
    Check {
        /// The report format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
        format: OutputFormat,
    },
    /// Explain a rule, or list every rule.
    Explain {
        /// A rule code such as `unknown-field`.
        code: Option<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    /// rustc-style snippets with a caret under each problem.
    Human,
    /// One JSON document: every diagnostic and a summary.
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let styled = match cli.color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    };
    let mut stdout = std::io::stdout().lock();
    let code = match &cli.command {
        Command::Check { format } => check(&cli, *format, styled, &mut stdout),
        Command::Explain { code } => explain(code.as_deref(), &mut stdout),
    };
    let _ = stdout.flush();
    code
}

fn check(cli: &Cli, format: OutputFormat, styled: bool, out: &mut impl Write) -> ExitCode {
    let project = match Project::open(&cli.root, cli.config.as_deref()) {
        Ok(project) => project,
        Err(errors) => return fatal(&cli.root, &errors, styled),
    };
    let corpus = project.load();
    let diagnostics = project.check(&corpus);
    let sources = Sources::collect(&project.root, Some(&corpus), &diagnostics);
    let summary = Summary::new(&corpus, &diagnostics);
    let text = match format {
        OutputFormat::Human => {
            let mut text = report::human::render(&diagnostics, &sources, styled);
            text.push_str(&report::human::summary_line(&summary));
            text.push('\n');
            text
        }
        OutputFormat::Json => report::json::render(&diagnostics, &sources, summary),
    };
    if out.write_all(text.as_bytes()).is_err() {
        return ExitCode::from(2);
    }
    if summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reports problems that stop the run (config, schemas) on stderr, with exit code 2.
fn fatal(root: &Path, errors: &[Diagnostic], styled: bool) -> ExitCode {
    let sources = Sources::collect(root, None, errors);
    let text = report::human::render(errors, &sources, styled);
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(
        stderr,
        "{text}gotchas could not run: {} in the setup",
        if errors.len() == 1 {
            "1 problem".to_string()
        } else {
            format!("{} problems", errors.len())
        }
    );
    ExitCode::from(2)
}

fn explain(code: Option<&str>, out: &mut impl Write) -> ExitCode {
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
        Some(code) => match rules::find(code) {
            Some(rule) => format!(
                "# {}\n\nDefault level: {}{}\n\n{}",
                rule.code,
                level_name(rule.default_level),
                if rule.fatal {
                    " (stops the run, exit code 2)"
                } else {
                    ""
                },
                rule.explanation
            ),
            None => {
                let suggestions = suggest::suggest(code, rules::ALL.iter().map(|r| r.code), 3);
                let help = suggest::did_you_mean(&suggestions)
                    .map(|h| format!("\nhelp: {h}"))
                    .unwrap_or_default();
                eprintln!(
                    "error: unknown rule `{code}`{help}\nnote: `gotchas explain` lists every rule"
                );
                return ExitCode::from(2);
            }
        },
    };
    match out.write_all(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(2),
    }
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warn => "warn",
        Level::Allow => "allow",
    }
}
