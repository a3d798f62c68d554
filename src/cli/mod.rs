//! The command line: flags in, text and an exit code out. The only module that prints.
//!
//! Exit codes follow the linters people already script around: 0 when no error-level
//! diagnostic was found, 1 when one was, 2 when the tool could not run (bad arguments, an
//! unusable config or schema).

/// A line to stderr that, unlike `eprintln!`, never panics: with stderr closed or full
/// (`2>&-`, `2>/dev/full`, a reader that quit) the line is lost, and the run still ends
/// with its own exit code rather than a crash's.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod author;
mod check;
mod explain;
mod generate;
mod graph;
mod init;
mod lsp;
mod query;
mod site;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::config;
use crate::diagnostic::Diagnostic;
use crate::project::Project;
use crate::report::{self, Sources};

/// Lint, graph and publish a knowledge base of records kept as files.
#[derive(Debug, Parser)]
#[command(name = "gotchas", version, about, max_term_width = 100)]
pub struct Cli {
    /// The corpus root (holds `records/`, `schema/` and `gotchas.toml`) [default: the
    /// nearest folder holding a gotchas.toml, from the current one up; else the current one].
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,

    /// A config file to use instead of `<root>/gotchas.toml`.
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,

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
    Check(check::CheckArgs),
    /// Export the graph of records and references: DOT, JSON, Mermaid or SVG.
    Graph(graph::GraphArgs),
    /// Show what a record references and what references it.
    Refs(graph::RefsArgs),
    /// Count records, enum values and references.
    Stats(graph::StatsArgs),
    /// Build the static site: a page per record, collection, enum value and prose page.
    Build(site::BuildArgs),
    /// Build the site, serve it on 127.0.0.1, and rebuild and reload on every change.
    Serve(site::ServeArgs),
    /// Create a record skeleton; fields it cannot fill validly are listed.
    ///
    /// Each required field gets the plainest value its schema accepts, and a required
    /// reference the first record it may name. What no placeholder can meet (a `pattern`,
    /// a reference with no record to point at) is written empty and listed on stderr as a
    /// warning, each field with why; `check` reports them until they are filled in. Exit 0
    /// when the record is written, with warnings or not; 2 when nothing is written.
    New(author::NewArgs),
    /// Rewrite records in another format, losslessly.
    Convert(author::ConvertArgs),
    /// List, get and search records.
    Query(query::QueryArgs),
    /// Write (or `--check`) a Markdown index of the corpus.
    Index(query::IndexArgs),
    /// Serve editors over the Language Server Protocol (stdio): live diagnostics, quick
    /// fixes, completion, hover, go-to-definition, references and rename.
    Lsp,
    /// Explain a rule, or list every rule.
    Explain {
        /// A rule code such as `unknown-field`.
        code: Option<String>,
    },
    /// Create a corpus to start from: a commented gotchas.toml, an example collection, an
    /// example record and a prose page (docs/). Writes nothing if any of them exists.
    Init {
        /// The folder to create it in (default: the --root folder, else the current one).
        dir: Option<PathBuf>,
    },
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page, in roff (`gotchas man | man -l -`).
    Man {
        /// A command whose page to print instead (`check` prints gotchas-check(1), `query
        /// list` gotchas-query-list(1)).
        command: Vec<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl Cli {
    /// The command line of this process, or the exit code when it asks for nothing to run:
    /// 2 after printing a usage error, 0 after printing `--help` or `--version`.
    pub fn from_env() -> Result<Cli, ExitCode> {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        // A usage error is printed before `--color` is known to the parse: looked for
        // first, so that `--color never` holds for clap's own messages too.
        let colour = match colour_asked(&args) {
            Some(ColorWhen::Always) => clap::ColorChoice::Always,
            Some(ColorWhen::Never) => clap::ColorChoice::Never,
            _ => clap::ColorChoice::Auto,
        };
        Cli::command()
            .color(colour)
            .try_get_matches_from(args)
            .and_then(|matches| Cli::from_arg_matches(&matches))
            .map_err(|err| {
                let _ = err.print();
                if err.use_stderr() {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                }
            })
    }

    /// Whether the command keeps running until it is stopped (`serve`, `lsp`) rather than
    /// doing one job and exiting. The binary returns freed memory to the system only for
    /// these: a one-shot run exits soon after its peak anyway.
    pub fn runs_until_stopped(&self) -> bool {
        matches!(self.command, Command::Serve(_) | Command::Lsp)
    }

    /// Whether the command builds the static site: the one that holds every record's fields
    /// while it writes a file per record, and the one the binary lets use huge pages.
    pub fn builds_a_site(&self) -> bool {
        matches!(self.command, Command::Build(_))
    }

    /// The corpus root: `--root`, else the one [`config::find_root`] finds from the current
    /// folder, else the current folder. A root found above is given relative to the current
    /// folder (`..`, `../..`), so the run is the one `--root ../..` would make, paths shown
    /// alike.
    pub(crate) fn root(&self) -> PathBuf {
        if let Some(root) = &self.root {
            return root.clone();
        }
        let Ok(here) = std::env::current_dir() else {
            return PathBuf::from(".");
        };
        let up = config::find_root(&here)
            .and_then(|root| here.strip_prefix(root).ok())
            .map_or(0, |below| below.components().count());
        if up == 0 {
            PathBuf::from(".")
        } else {
            std::iter::repeat_n("..", up).collect()
        }
    }

    /// Reads the config and compiles the schemas of [`Cli::root`], or reports why they
    /// cannot be and gives the exit code.
    pub(crate) fn open_project(&self) -> Result<Project, ExitCode> {
        let root = self.root();
        Project::open(&root, self.config.as_deref())
            .map_err(|errors| fatal(&root, &errors, self.stderr_styled()))
    }

    /// Whether to colour what goes to a stream that is a terminal or not (`terminal`).
    fn colour_on(&self, terminal: bool) -> bool {
        match self.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && terminal
            }
        }
    }

    /// Whether to colour diagnostics written to stderr: decided for stderr itself, since
    /// `gotchas check 2>errors.txt` on a terminal must not write colour codes to the file.
    pub(crate) fn stderr_styled(&self) -> bool {
        self.colour_on(std::io::stderr().is_terminal())
    }

    /// Runs the command and returns the process exit code.
    pub fn run(&self) -> ExitCode {
        let styled = self.colour_on(std::io::stdout().is_terminal());
        // Not locked for the whole run: the language server writes from a thread of its own.
        let mut stdout = std::io::stdout();
        let code = match &self.command {
            Command::Check(args) => check::run(self, args, styled, &mut stdout),
            Command::Graph(args) => graph::graph(self, args, &mut stdout),
            Command::Refs(args) => graph::refs(self, args, &mut stdout),
            Command::Stats(args) => graph::stats(self, args, &mut stdout),
            Command::Build(args) => site::build(self, args, styled, &mut stdout),
            Command::Serve(args) => site::serve(self, args, styled, &mut stdout),
            Command::New(args) => author::new(self, args, &mut stdout),
            Command::Convert(args) => author::convert(self, args, &mut stdout),
            Command::Query(args) => query::query(self, args, &mut stdout),
            Command::Index(args) => query::index(self, args, &mut stdout),
            Command::Lsp => lsp::run(self),
            Command::Explain { code } => explain::run(code.as_deref(), &mut stdout),
            // A new corpus is made where it is asked for, never in a corpus above.
            Command::Init { dir } => init::run(
                dir.as_deref()
                    .or(self.root.as_deref())
                    .unwrap_or(Path::new(".")),
                &mut stdout,
            ),
            Command::Completions { shell } => generate::completions(*shell, &mut stdout),
            Command::Man { command } => generate::man(command, &mut stdout),
        };
        let _ = stdout.flush();
        code
    }
}

/// The last `--color WHEN` or `--color=WHEN` among `args`, before any `--`.
fn colour_asked(args: &[std::ffi::OsString]) -> Option<ColorWhen> {
    let mut asked = None;
    let mut words = args.iter().filter_map(|arg| arg.to_str());
    while let Some(word) = words.next() {
        let value = match word {
            "--" => break,
            "--color" => words.next(),
            _ => word.strip_prefix("--color="),
        };
        if let Some(value) = value {
            asked = ColorWhen::from_str(value, true).ok().or(asked);
        }
    }
    asked
}

/// Says on stderr that `problems` files did not load, when some did not: a command other
/// than `check` shows what loaded, and a record missing from its answer is otherwise a
/// mystery.
pub(crate) fn note_load_problems(problems: usize) {
    if problems > 0 {
        say!(
            "note: {} while loading; this shows what loaded (run `gotchas check`)",
            report::human::plural(problems, "problem")
        );
    }
}

/// Refuses an id several records have (`vllm`, an engine and a source), naming each by its
/// qualified id: exit code 2.
pub(crate) fn ambiguous<'q>(id: &str, qualified: impl IntoIterator<Item = &'q str>) -> ExitCode {
    let names: Vec<String> = qualified.into_iter().map(|q| format!("`{q}`")).collect();
    say!(
        "error: `{id}` could be any of {}\nhelp: qualify it with its folder",
        names.join(", ")
    );
    ExitCode::from(2)
}

/// Reports problems that stop the run (config, schemas) on stderr, with exit code 2.
pub(crate) fn fatal(root: &Path, errors: &[Diagnostic], styled: bool) -> ExitCode {
    let sources = Sources::collect::<serde_json::Value>(root, None, errors);
    let text = report::human::render(errors, &sources, styled, 0);
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(
        stderr,
        "{text}gotchas could not run: {} in the setup",
        report::human::plural(errors.len(), "problem")
    );
    ExitCode::from(2)
}

/// Refuses a file a command was asked to write its output to (`check --output`, `check
/// --write-baseline`, `index --out`) when it is one of the corpus's own: in its records,
/// schema, templates or static folder, its config, or a prose page. A slip of `-o` would otherwise
/// replace a record with the report about it. Exit code 2, as `build` refuses to replace
/// the corpus.
pub(crate) fn refuse_corpus_file(project: &Project, path: &Path) -> Result<(), ExitCode> {
    match corpus_own(project, path) {
        Some(why) => {
            say!(
                "error: the output is not written to {}: {why}\nhelp: choose a file outside the corpus's own",
                path.display()
            );
            Err(ExitCode::from(2))
        }
        None => Ok(()),
    }
}

/// Refuses a cache folder (`--cache-dir`, `GOTCHAS_CACHE_DIR`) among the corpus's own
/// files, or holding the corpus: the cache marks its folder git-ignored, which in the
/// records folder would hide every record from the next run, and at the root, every file of
/// the repository from git.
pub(crate) fn refuse_cache_folder(project: &Project, folder: &Path) -> Result<(), ExitCode> {
    let target = crate::write::resolved(folder);
    let holds_root = crate::write::resolved(&project.root).starts_with(&target);
    let why = corpus_own(project, folder)
        .or_else(|| holds_root.then(|| "it holds the corpus".to_string()));
    match why {
        Some(why) => {
            say!(
                "error: the cache is not kept in {}: {why}\nhelp: choose a folder of its own, such as {}",
                folder.display(),
                crate::cache::FOLDER
            );
            Err(ExitCode::from(2))
        }
        None => Ok(()),
    }
}

/// Why `path` is one of the corpus's own files, if it is: in its records, schema,
/// templates or static folder, its config, or a prose page.
fn corpus_own(project: &Project, path: &Path) -> Option<String> {
    let target = crate::write::resolved(path);
    let root = crate::write::resolved(&project.root);
    let folder = crate::site::protected_folders(project)
        .into_iter()
        .find(|(folder, _)| target.starts_with(crate::write::resolved(folder)))
        .map(|(_, what)| format!("it is in {what}"));
    let config = [
        Some(project.root.join(crate::config::FILE_NAME)),
        project.config.file.clone(),
    ]
    .into_iter()
    .flatten()
    .any(|config| crate::write::resolved(&config) == target)
    .then(|| "it is the corpus's config file".to_string());
    let page = target
        .strip_prefix(&root)
        .ok()
        .filter(|relative| project.config.is_docs_path(relative))
        .map(|_| "it is a prose page of the corpus".to_string());
    folder.or(config).or(page)
}

/// Writes a command's output; exit code 2 when it cannot be written (a closed pipe, a full
/// disk), as for any other failure of the tool itself.
fn emit(out: &mut impl Write, bytes: &[u8]) -> ExitCode {
    match out.write_all(bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => unwritten(&err),
    }
}

/// Writes a command's output through a buffer as `write` produces it, for output too large
/// to hold whole (a report of every problem, the graph of every record); exit code 2 when it
/// cannot be written, as [`emit`].
fn stream(
    out: &mut impl Write,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> ExitCode {
    let mut buffered = std::io::BufWriter::with_capacity(crate::write::STREAM_BUFFER, out);
    match write(&mut buffered).and_then(|()| buffered.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => unwritten(&err),
    }
}

/// Exit code 2 for output that could not be written, saying why: a reader that stopped
/// reading (`| head`) knows, but a full disk is news.
fn unwritten(err: &std::io::Error) -> ExitCode {
    if err.kind() != std::io::ErrorKind::BrokenPipe {
        say!("error: cannot write the output: {err}");
    }
    ExitCode::from(2)
}
