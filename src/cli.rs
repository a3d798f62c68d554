//! The command line: flags in, text and an exit code out. The only module that prints.
//!
//! Exit codes follow the linters people already script around: 0 when no error-level
//! diagnostic was found, 1 when one was, 2 when the tool could not run (bad arguments, an
//! unusable config or schema).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::baseline::{self, Baseline};
use crate::config::Level;
use crate::diagnostic::Diagnostic;
use crate::fix;
use crate::project::Project;
use crate::report::human::plural;
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
    /// Check every record: syntax, schema, ids, references, links. Exit 1 if any error is
    /// found.
    Check(CheckArgs),
    /// Explain a rule, or list every rule.
    Explain {
        /// A rule code such as `unknown-field`.
        code: Option<String>,
    },
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// The report format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    format: OutputFormat,
    /// Apply every fix that is certain (one close candidate), then check again.
    #[arg(long)]
    fix: bool,
    /// Print the certain fixes as a unified diff instead of writing them.
    #[arg(long)]
    diff: bool,
    /// Accept every current problem: write them to the baseline file and exit 0.
    #[arg(long)]
    write_baseline: bool,
    /// The baseline file (default: the config's `baseline`, else `gotchas-baseline.json` at
    /// the corpus root, used when it exists).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
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
        Command::Check(args) => check(&cli, args, styled, &mut stdout),
        Command::Explain { code } => explain(code.as_deref(), &mut stdout),
    };
    let _ = stdout.flush();
    code
}

fn check(cli: &Cli, args: &CheckArgs, styled: bool, out: &mut impl Write) -> ExitCode {
    let project = match Project::open(&cli.root, cli.config.as_deref()) {
        Ok(project) => project,
        Err(errors) => return fatal(&cli.root, &errors, styled),
    };
    let mut corpus = project.load();
    let mut diagnostics = project.check(&corpus);
    let mut text = String::new();
    if args.fix || args.diff {
        let outcome = apply_fixes(&corpus, &diagnostics, args.diff);
        text.push_str(&outcome.diffs);
        if outcome.written > 0 {
            corpus = project.load();
            diagnostics = project.check(&corpus);
        }
        diagnostics.extend(outcome.failures);
        if !args.diff {
            text.push_str(&format!(
                "fixed {} in {}\n",
                plural(outcome.fixed, "problem"),
                plural(outcome.written, "file")
            ));
        }
    }
    let baseline_path = args
        .baseline
        .clone()
        .or_else(|| {
            project
                .config
                .baseline
                .as_ref()
                .map(|b| project.root.join(b))
        })
        .unwrap_or_else(|| project.root.join(baseline::DEFAULT_FILE));
    if args.write_baseline {
        let baseline = Baseline::from_diagnostics(&diagnostics);
        return match crate::write::write_atomic(&baseline_path, baseline.to_json().as_bytes()) {
            Ok(()) => {
                let _ = writeln!(
                    out,
                    "wrote {} to {}",
                    plural(baseline.len(), "known problem"),
                    baseline_path.display()
                );
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!(
                    "error: cannot write the baseline {}: {err}",
                    baseline_path.display()
                );
                ExitCode::from(2)
            }
        };
    }
    let explicit = args.baseline.is_some() || project.config.baseline.is_some();
    let mut filtered = baseline::Filtered {
        reported: diagnostics,
        ..baseline::Filtered::default()
    };
    if explicit || baseline_path.is_file() {
        match Baseline::read(&baseline_path) {
            Ok(baseline) => filtered = baseline.filter(filtered.reported),
            Err(message) => {
                eprintln!("error: {}: {message}", baseline_path.display());
                return ExitCode::from(2);
            }
        }
    }
    let diagnostics = filtered.reported;
    let sources = Sources::collect(&project.root, Some(&corpus), &diagnostics);
    let mut summary = Summary::new(&corpus, &diagnostics);
    summary.known = filtered.known;
    summary.stale = filtered.stale.iter().map(|(_, count)| count).sum();
    match args.format {
        OutputFormat::Human => {
            text.push_str(&report::human::render(&diagnostics, &sources, styled));
            text.push_str(&report::human::summary_line(&summary));
            text.push('\n');
            if summary.stale > 0 {
                text.push_str(&format!(
                    "note: {} in the baseline no longer occur; run `gotchas check --write-baseline` to remove them\n",
                    plural(summary.stale, "known problem")
                ));
            }
        }
        OutputFormat::Json => text = report::json::render(&diagnostics, &sources, summary),
    }
    if out.write_all(text.as_bytes()).is_err() {
        return ExitCode::from(2);
    }
    if summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// What `--fix` or `--diff` did.
struct FixOutcome {
    /// Unified diffs, for `--diff`.
    diffs: String,
    /// Edits applied.
    fixed: usize,
    /// Files written.
    written: usize,
    /// Files that could not be written, as diagnostics naming them.
    failures: Vec<Diagnostic>,
}

fn apply_fixes(
    corpus: &crate::corpus::Corpus,
    diagnostics: &[Diagnostic],
    diff_only: bool,
) -> FixOutcome {
    let mut outcome = FixOutcome {
        diffs: String::new(),
        fixed: 0,
        written: 0,
        failures: Vec::new(),
    };
    for (display, edits) in fix::plan(diagnostics) {
        let Some(file) = corpus.files.iter().find(|f| f.display == display) else {
            continue;
        };
        let Some(old) = file.text.as_deref() else {
            continue;
        };
        let (new, applied) = fix::apply(old, &edits);
        if applied == 0 || new == old {
            continue;
        }
        if diff_only {
            outcome
                .diffs
                .push_str(&fix::unified_diff(&display, old, &new));
            continue;
        }
        let mut bytes = Vec::with_capacity(new.len() + 3);
        if file.had_bom {
            bytes.extend_from_slice(b"\xEF\xBB\xBF");
        }
        bytes.extend_from_slice(new.as_bytes());
        match crate::write::write_atomic(&file.path, &bytes) {
            Ok(()) => {
                outcome.fixed += applied;
                outcome.written += 1;
            }
            Err(err) => outcome.failures.push(
                Diagnostic::new(
                    rules::IO_ERROR,
                    &display,
                    format!("cannot write the fixed file: {err}"),
                )
                .with_note("the file was left as it was"),
            ),
        }
    }
    outcome
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
