//! `gotchas check`: load, check, optionally narrow to changed files, fix or baseline, and
//! report.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Instant, SystemTime};

use clap::ValueEnum;
use rayon::prelude::*;

use super::Cli;
use crate::baseline::{self, Baseline};
use crate::cache::{self, Memo};
use crate::check::memo::{self, Recalled, Recaller};
use crate::check::{Checkable, Drawn};
use crate::corpus::{Corpus, LeaveOut, Recall};
use crate::diagnostic::Diagnostic;
use crate::fix;
use crate::git::Staged;
use crate::project::{Found, Project};
use crate::report::human::plural;
use crate::report::{self, Sources, Summary};
use crate::rules;
use crate::scope::{Changes, Scope};
use crate::stamp::Kept;

#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// Report only on these files and on the records that cite what they define; the whole
    /// corpus is still loaded, so references resolve. Names outside the corpus are ignored.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Also report on what the git index changes, and on the records that cite a file it
    /// deletes or renames (for pre-commit hooks).
    #[arg(long)]
    staged: bool,
    /// The report format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    format: OutputFormat,
    /// Write the report to FILE (replaced atomically) and only the summary line to the
    /// terminal.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Apply every fix that is certain (one close candidate), then check again.
    #[arg(long)]
    fix: bool,
    /// Print the certain fixes as a unified diff instead of writing them.
    #[arg(long)]
    diff: bool,
    /// Accept every current problem: write them to the baseline file and exit 0. Not with
    /// `--fix` or `--diff`: fix first, then accept what is left.
    #[arg(long, conflicts_with_all = ["files", "staged", "fix", "diff"])]
    write_baseline: bool,
    /// The baseline file, which must exist (default: the config's `baseline`, else
    /// `gotchas-baseline.json` at the corpus root, used when it exists).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Print only the problems: no summary line, no notes.
    #[arg(long, short, conflicts_with = "verbose")]
    quiet: bool,
    /// Print how long each stage took, on standard error.
    #[arg(long, short)]
    verbose: bool,
    /// Neither read nor write the cache (`.gotchas-cache/` under the corpus root) of what
    /// earlier runs drew from unchanged files: parse and validate every file.
    #[arg(long)]
    no_cache: bool,
    /// Keep the cache in DIR instead of `.gotchas-cache/` under the corpus root: for a
    /// read-only checkout, or a CI cache restored elsewhere. Made if missing.
    #[arg(long, value_name = "DIR", env = "GOTCHAS_CACHE_DIR")]
    cache_dir: Option<PathBuf>,
    /// Exit 1 when there are more than N warnings, as for an error.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    max_warnings: Option<usize>,
    /// Exit 0 even when problems are found (2 still means the tool could not run).
    #[arg(long)]
    exit_zero: bool,
    /// Show at most N diagnostics per file in the human report, then count the rest (0: all).
    #[arg(long, value_name = "N", default_value_t = 50)]
    max_per_file: usize,
    /// Print how many problems each rule found, and how many `--fix` would fix, instead of
    /// the problems (human and json formats).
    #[arg(long)]
    statistics: bool,
}

impl CheckArgs {
    /// Whether the run shows counts alone (`--statistics`), so that no diagnostic needs a
    /// place in its file: not when it fixes files, whose edits are placed, nor when it writes
    /// the baseline.
    fn counts_only(&self) -> bool {
        self.statistics && !self.fix && !self.diff && !self.write_baseline
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    /// rustc-style snippets with a caret under each problem.
    Human,
    /// One JSON document: every diagnostic and a summary.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other dashboards.
    Sarif,
    /// GitHub Actions workflow commands: an annotation per diagnostic.
    Github,
    /// JUnit XML: a test case per record.
    Junit,
}

pub(crate) fn run(cli: &Cli, args: &CheckArgs, styled: bool, out: &mut impl Write) -> ExitCode {
    if args.statistics && !matches!(args.format, OutputFormat::Human | OutputFormat::Json) {
        say!("error: --statistics prints a table in the human or json format only");
        return ExitCode::from(2);
    }
    if args.diff && args.format != OutputFormat::Human {
        // A machine format's document has no room for a diff; its diagnostics carry the
        // edits of their fixes.
        say!("error: --diff prints a unified diff in the human format only");
        return ExitCode::from(2);
    }
    let mut stages = Stages::new(args.verbose);
    let root = cli.root();
    let project = match Project::open(&root, cli.config.as_deref()) {
        Ok(project) => project,
        Err(errors) => {
            super::fatal(&root, &errors, cli.stderr_styled());
            return setup_report(args, &root, &errors, out);
        }
    };
    let written = (args.output.clone().into_iter())
        .chain(args.write_baseline.then(|| baseline_path(&project, args)));
    for path in written {
        if let Err(code) = super::refuse_corpus_file(&project, &path) {
            return code;
        }
    }
    if let Some(folder) = &args.cache_dir
        && !args.no_cache
        && let Err(code) = super::refuse_cache_folder(&project, folder)
    {
        return code;
    }
    stages.done("config and schemas");
    let staged = if args.staged {
        match crate::git::staged() {
            // Git reads the index of the repository around the current folder, which may
            // not be the corpus's: its changes would be none of the corpus's files.
            Ok(staged)
                if !crate::write::resolved(&project.root)
                    .starts_with(crate::write::resolved(&staged.top)) =>
            {
                say!(
                    "error: --staged reads the git index of the repository at {}, which does not hold the corpus at {}\nhelp: run it from inside the corpus's repository",
                    staged.top.display(),
                    project.root.display()
                );
                return ExitCode::from(2);
            }
            Ok(staged) => Some(staged),
            Err(message) => {
                say!("error: --staged needs the git index: {message}");
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };
    if staged.is_some() {
        stages.done("git index");
    }
    // The commit holds what git tracks: a record whose `git add` was forgotten would
    // otherwise answer the references to it here, and fail in a fresh clone.
    let untracked = staged
        .as_ref()
        .map(|staged| staged.untracked_in(&project.root));
    let leave_out = untracked.as_ref().map(|f| f as LeaveOut<'_>);
    let scoped = Scoping {
        project: &project,
        args,
        staged: staged.as_ref(),
    };
    if !(args.fix || args.diff) {
        // Nothing will be edited, so what an earlier run drew from unchanged files is
        // recalled (see `crate::cache`).
        let cache = (!args.no_cache).then(|| {
            let fingerprint = project.cache_fingerprint();
            let folder = cache::folder(&project.root, args.cache_dir.as_deref());
            (fingerprint, Memo::open(&folder, fingerprint), folder)
        });
        let recaller = cache
            .as_ref()
            .map(|(_, memo, _)| Recaller::new(memo, &project.schemas));
        let started = SystemTime::now();
        let corpus = project.load_for_check_recalling(
            recaller.as_ref().map(|r| r as &dyn Recall<Drawn>),
            leave_out,
        );
        let recalled = recaller.map_or_else(Recalled::default, |recaller| recaller.recalled());
        // Past loading the cache is only counted: its bytes are freed for the check to reuse.
        let cache = cache.map(|(fingerprint, memo, folder)| (fingerprint, memo.len(), folder));
        stages.done("load");
        if args.verbose && cache.is_some() {
            say!(
                "cache: recalled {} of {} records, {} of them without reading their file",
                recalled.records,
                corpus.records.len(),
                recalled.unread
            );
        }
        let found = scoped.check(&corpus, &mut stages);
        if let Some((fingerprint, held, folder)) = cache {
            let keeping = memo::to_keep(&corpus, &project.schemas, held, recalled, started);
            if let Some(keeping) = keeping
                && let Err(err) =
                    cache::save(&folder, fingerprint, keeping.len(), keeping.batches())
                // A folder asked for is expected to be written; the default one is a
                // convenience, which a read-only checkout simply goes without. `--quiet`
                // promises no notes.
                && (args.verbose || args.cache_dir.is_some())
                && !args.quiet
            {
                say!(
                    "note: the cache was not written to {}: {err}",
                    folder.display()
                );
            }
            stages.done("cache");
        }
        let checked = Checked {
            corpus,
            found,
            preamble: String::new(),
        };
        return report(&project, args, checked, stages, styled, out);
    }
    // The corpus is loaded as for a plain check: the few files a fix edits are read and
    // parsed again (`fix::settle`). Not through the cache, which does not read the files it
    // recalls unread, so whether one starts with a byte-order mark would not be known.
    let mut corpus = project.load_for_check_recalling(None, leave_out);
    stages.done("load");
    let mut found = scoped.check(&corpus, &mut stages);
    let mut text = String::new();
    let diagnostics = std::mem::take(&mut found.diagnostics);
    // What the report quotes is what the last check found: its scope and texts go with
    // the diagnostics that settling returns.
    let settled = project.settle_fixes(&mut corpus, diagnostics, |corpus| {
        found = scoped.check(corpus, &mut stages);
        std::mem::take(&mut found.diagnostics)
    });
    found.diagnostics = settled.diagnostics;
    for display in &settled.refused {
        say!(
            "warning: the fixes to {display} were not applied: the file would not have loaded \
             with them. This is a bug in gotchas; please report it with the file and the \
             command that was run"
        );
    }
    let outcome = write_fixes(&settled.files, args.diff);
    text.push_str(&outcome.diffs);
    // The fixes were made in memory; the report is of the files as they are on disk. The
    // corpus fixed in memory goes first, so that two are never held at once.
    if !settled.files.is_empty() && (args.diff || !outcome.failures.is_empty()) {
        drop(std::mem::take(&mut corpus));
        corpus = project.load_for_check_recalling(None, leave_out);
        found = scoped.check(&corpus, &mut stages);
    }
    found.diagnostics.extend(outcome.failures);
    stages.done("fix");
    if !args.diff && !args.quiet {
        text.push_str(&format!(
            "fixed {} in {}\n",
            plural(outcome.fixed, "problem"),
            plural(outcome.written, "file")
        ));
    }
    let checked = Checked {
        corpus,
        found,
        preamble: text,
    };
    report(&project, args, checked, stages, styled, out)
}

/// What narrows a check to changed files: the files named and the git index's changes.
struct Scoping<'a> {
    project: &'a Project,
    args: &'a CheckArgs,
    staged: Option<&'a Staged>,
}

impl Scoping<'_> {
    /// Checks the corpus and, when files or `--staged` were given, keeps the diagnostics in
    /// their scope.
    fn check<F: Checkable>(&self, corpus: &Corpus<F>, stages: &mut Stages) -> Found {
        let mut stage_done = |stage| stages.done_within("check", stage);
        let baseline = baseline_path(self.project, self.args);
        let changes = (!self.args.files.is_empty() || self.staged.is_some()).then_some(Changes {
            named: &self.args.files,
            staged: self.staged,
            baseline: &baseline,
        });
        if self.args.counts_only() {
            self.project
                .check_unplaced(corpus, changes, &mut stage_done)
        } else {
            self.project
                .check_observed(corpus, changes, &mut stage_done)
        }
    }
}

/// A checked corpus, ready for the baseline and the report.
struct Checked<F> {
    corpus: Corpus<F>,
    found: Found,
    /// What comes before the report: the diffs of `--diff`, the count of `--fix`.
    preamble: String,
}

/// The baseline file: `--baseline`, else the config's, else the default at the root.
fn baseline_path(project: &Project, args: &CheckArgs) -> PathBuf {
    args.baseline
        .clone()
        .or_else(|| {
            project
                .config
                .baseline
                .as_ref()
                .map(|b| project.root.join(b))
        })
        .unwrap_or_else(|| project.root.join(baseline::DEFAULT_FILE))
}

/// Applies the baseline to the diagnostics of a checked corpus and writes the report (or
/// the baseline, with `--write-baseline`).
fn report<F>(
    project: &Project,
    args: &CheckArgs,
    checked: Checked<F>,
    mut stages: Stages,
    styled: bool,
    out: &mut impl Write,
) -> ExitCode {
    let Checked {
        corpus,
        found: Found {
            diagnostics,
            scope,
            read_again,
        },
        preamble: mut text,
    } = checked;
    let baseline_path = baseline_path(project, args);
    if args.write_baseline {
        let baseline = Baseline::from_diagnostics(&diagnostics);
        // A baseline configured in a folder of its own (`ci/known.json`) is written there
        // the first time, as the file itself is.
        let written = match baseline_path.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => std::fs::create_dir_all(folder),
            _ => Ok(()),
        }
        .and_then(|()| crate::write::write_atomic(&baseline_path, baseline.to_json().as_bytes()));
        return match written {
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
                say!(
                    "error: cannot write the baseline {}: {err}",
                    baseline_path.display()
                );
                ExitCode::from(2)
            }
        };
    }
    let mut filtered = baseline::Filtered {
        reported: diagnostics,
        ..baseline::Filtered::default()
    };
    // A baseline named on the command line must be there; the config's, like the default
    // one, is a place: until `--write-baseline` writes it, no problem is known, as a
    // config copied from `init` or the README names the default there.
    let missing = !baseline_path.exists();
    if missing && args.baseline.is_none() {
        let default = Path::new(baseline::DEFAULT_FILE);
        if project
            .config
            .baseline
            .as_deref()
            .is_some_and(|b| b != default)
            && !args.quiet
        {
            say!(
                "note: the baseline {} does not exist yet, so every problem is reported (`--write-baseline` writes it)",
                baseline_path.display()
            );
        }
    } else {
        match Baseline::read(&baseline_path) {
            Ok(baseline) => filtered = baseline.filter(filtered.reported),
            Err(message) => {
                say!("error: {}: {message}", baseline_path.display());
                return ExitCode::from(2);
            }
        }
    }
    let diagnostics = filtered.reported;
    stages.done("baseline");
    let sources = if args.counts_only() {
        Sources::default()
    } else {
        Sources::collect_with(&project.root, Some(&corpus), &diagnostics, read_again)
    };
    let mut summary = Summary::new(&corpus, &diagnostics);
    summary.known = filtered.known;
    // In changed-files mode the baseline's entries for files out of scope are not stale.
    let stale: Vec<&(baseline::Fingerprint, usize)> = filtered
        .stale
        .iter()
        .filter(|(known, _)| scope.as_ref().is_none_or(|s| s.contains(&known.file)))
        .collect();
    summary.stale = stale.iter().map(|(_, count)| count).sum();
    if let Some(scope) = &scope {
        summary = scope.narrow(summary, &corpus);
        if !args.quiet {
            for note in &scope.notes {
                say!("note: {note}");
            }
        }
    }
    let rendering = Rendering {
        project,
        corpus: &corpus,
        scope: scope.as_ref(),
        diagnostics: &diagnostics,
        sources: &sources,
        summary,
        stale: &stale,
        styled: styled && args.output.is_none(),
        quiet: args.quiet,
        max_per_file: args.max_per_file,
        statistics: args.statistics,
    };
    // The report is written as it is rendered: held whole, a report of a hundred thousand
    // problems took more memory than the corpus it was about.
    let written = match &args.output {
        Some(path) => {
            if let Err(err) =
                crate::write::write_atomic_with(path, |file| render(args.format, &rendering, file))
            {
                say!("error: cannot write the report {}: {err}", path.display());
                return ExitCode::from(2);
            }
            if !args.quiet {
                text.push_str(&report::human::summary_line(&summary));
                text.push('\n');
            }
            super::emit(out, text.as_bytes())
        }
        None => super::stream(out, |out| {
            // Machine formats own standard output, so nothing may come before them.
            if args.format == OutputFormat::Human {
                out.write_all(text.as_bytes())?;
            }
            render(args.format, &rendering, out)
        }),
    };
    if written != ExitCode::SUCCESS {
        return written;
    }
    stages.done("render");
    let code = exit_code(args, &summary);
    // The process ends here: freeing 100,000 records one allocation at a time took a
    // twentieth of a run, for memory the exit returns at once.
    std::mem::forget(corpus);
    code
}

/// 1 when an error was found or the warnings exceed `--max-warnings`; 0 with `--exit-zero`.
fn exit_code(args: &CheckArgs, summary: &Summary) -> ExitCode {
    let too_many_warnings = args.max_warnings.filter(|&max| summary.warnings > max);
    if let Some(max) = too_many_warnings {
        say!(
            "error: {} found, more than --max-warnings {max}",
            plural(summary.warnings, "warning")
        );
    }
    if args.exit_zero || (summary.errors == 0 && too_many_warnings.is_none()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `--verbose`: the time each stage took, on standard error so that the report is the same
/// with and without it.
struct Stages {
    verbose: bool,
    last: Instant,
}

impl Stages {
    fn new(verbose: bool) -> Stages {
        Stages {
            verbose,
            last: Instant::now(),
        }
    }

    fn done(&mut self, stage: &str) {
        let now = Instant::now();
        if self.verbose {
            say!("timing: {stage}: {:.1?}", now - self.last);
        }
        self.last = now;
    }

    /// A step of a stage: `timing: check/references: 12ms`.
    fn done_within(&mut self, stage: &str, step: &str) {
        self.done(&format!("{stage}/{step}"));
    }
}

/// Everything a report is rendered from.
struct Rendering<'a, F> {
    project: &'a Project,
    corpus: &'a Corpus<F>,
    scope: Option<&'a Scope>,
    diagnostics: &'a [Diagnostic],
    sources: &'a Sources,
    summary: Summary,
    /// The baseline's entries that no longer occur, with how many times each.
    stale: &'a [&'a (baseline::Fingerprint, usize)],
    styled: bool,
    quiet: bool,
    max_per_file: usize,
    /// `--statistics`: a count per rule instead of the diagnostics.
    statistics: bool,
}

/// The most stale baseline entries the human report lists; the rest are counted.
const MAX_STALE_LISTED: usize = 20;

/// Writes the report in the chosen format to `out`.
fn render<F>(format: OutputFormat, r: &Rendering<'_, F>, out: &mut dyn Write) -> io::Result<()> {
    let prefix = || crate::git::worktree_prefix(&r.project.root);
    match format {
        OutputFormat::Human => {
            if r.statistics {
                out.write_all(report::statistics::human(r.diagnostics).as_bytes())?;
            } else {
                report::human::write(out, r.diagnostics, r.sources, r.styled, r.max_per_file)?;
            }
            if r.quiet {
                return Ok(());
            }
            writeln!(out, "{}", report::human::summary_line(&r.summary))?;
            if r.summary.stale > 0 {
                let (occur, them) = if r.summary.stale == 1 {
                    ("occurs", "it")
                } else {
                    ("occur", "them")
                };
                writeln!(
                    out,
                    "note: {} in the baseline no longer {occur}; run `gotchas check --write-baseline` to remove {them}:",
                    plural(r.summary.stale, "known problem")
                )?;
                for (known, count) in r.stale.iter().take(MAX_STALE_LISTED) {
                    let times = if *count > 1 {
                        format!(" ({count} times)")
                    } else {
                        String::new()
                    };
                    writeln!(
                        out,
                        "  {}: {} [{}]{times}",
                        known.file,
                        report::excerpt::clip(&known.message),
                        known.code
                    )?;
                }
                if r.stale.len() > MAX_STALE_LISTED {
                    writeln!(out, "  and {} more", r.stale.len() - MAX_STALE_LISTED)?;
                }
            }
            Ok(())
        }
        OutputFormat::Json if r.statistics => {
            report::statistics::write_json(out, r.diagnostics, r.summary)
        }
        _ => {
            let records: Vec<&str> = r
                .corpus
                .records
                .iter()
                .map(|record| r.corpus.file_of(record).display.as_str())
                .filter(|file| r.scope.is_none_or(|scope| scope.contains(file)))
                .collect();
            let machine = Machine {
                diagnostics: r.diagnostics,
                sources: r.sources,
                summary: r.summary,
                records: &records,
                prefix: &prefix(),
            };
            machine.write(format, out)
        }
    }
}

/// What a machine format's document is written from.
struct Machine<'a> {
    diagnostics: &'a [Diagnostic],
    sources: &'a Sources,
    summary: Summary,
    /// The record files checked, a JUnit test case each.
    records: &'a [&'a str],
    /// The corpus root's folder in the repository ([`report::repository_path`]).
    prefix: &'a str,
}

impl Machine<'_> {
    fn write(&self, format: OutputFormat, out: &mut dyn Write) -> io::Result<()> {
        let (diagnostics, sources, prefix) = (self.diagnostics, self.sources, self.prefix);
        match format {
            OutputFormat::Human => Ok(()),
            OutputFormat::Json => report::json::write(out, diagnostics, sources, self.summary),
            OutputFormat::Sarif => report::sarif::write(out, diagnostics, sources, prefix),
            OutputFormat::Github => report::github::write(out, diagnostics, sources, prefix),
            OutputFormat::Junit => {
                report::junit::write(out, self.records, diagnostics, sources, prefix)
            }
        }
    }
}

/// A check that cannot run for its config or schemas (said on standard error already) still
/// gives a machine format its document, holding those diagnostics, so that what reads it (a
/// code-scanning upload, `jq`) sees why rather than nothing, or the last run's report. An
/// `--output` file is replaced only when it is missing or holds a report of that format:
/// with the config unread, which files are the corpus's own is not known. Exit code 2.
fn setup_report(
    args: &CheckArgs,
    root: &Path,
    errors: &[Diagnostic],
    out: &mut impl Write,
) -> ExitCode {
    let failed = ExitCode::from(2);
    if args.format == OutputFormat::Human {
        return failed;
    }
    let sources = Sources::collect::<serde_json::Value>(root, None, errors);
    let machine = Machine {
        diagnostics: errors,
        sources: &sources,
        summary: Summary::new(&Corpus::<serde_json::Value>::default(), errors),
        records: &[],
        prefix: &crate::git::worktree_prefix(root),
    };
    match &args.output {
        Some(path) if !holds_a_report(path, args.format) => {
            let format = args.format.to_possible_value();
            say!(
                "note: {} is left as it is: it holds no {} report to replace",
                path.display(),
                format.as_ref().map_or("", |f| f.get_name())
            );
        }
        Some(path) => {
            if let Err(err) =
                crate::write::write_atomic_with(path, |file| machine.write(args.format, file))
            {
                say!("error: cannot write the report {}: {err}", path.display());
            }
        }
        None => {
            super::stream(out, |out| machine.write(args.format, out));
        }
    }
    failed
}

/// Whether `path` is missing, or begins as a report in `format` does.
fn holds_a_report(path: &Path, format: OutputFormat) -> bool {
    use std::io::Read;
    // A pipe or device is written into as it is, as any report is; opened to be read, a
    // pipe would wait for a writer.
    if std::fs::metadata(path).is_ok_and(|meta| !meta.is_file()) {
        return true;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return !path.exists();
    };
    let mut start = String::new();
    // A report's first lines say what it is; a file that is no text is none.
    if file.take(4096).read_to_string(&mut start).is_err() && start.is_empty() {
        return false;
    }
    let start = start.trim_start();
    match format {
        OutputFormat::Human => false,
        OutputFormat::Json => start.starts_with("{\n  \"diagnostics\": ["),
        OutputFormat::Sarif => start.contains(report::sarif::SCHEMA),
        OutputFormat::Github => start.is_empty() || start.starts_with("::"),
        OutputFormat::Junit => start.starts_with("<?xml") && start.contains("<testsuites"),
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

fn write_fixes(files: &[fix::FixedFile], diff_only: bool) -> FixOutcome {
    let mut outcome = FixOutcome {
        diffs: String::new(),
        fixed: 0,
        written: 0,
        failures: Vec::new(),
    };
    if diff_only {
        for fixed in files {
            outcome.diffs.push_str(&fixed.diff());
        }
        return outcome;
    }
    // A file is flushed to disk before it replaces the original, and the flush waits on the
    // device, not on a core: files written side by side overlap their waits (3,567 files
    // fixed after a rename: `--fix` 1.7-1.8 -> 1.4-1.5 s), and are reported in order.
    let written: Vec<std::io::Result<()>> = files
        .par_iter()
        .map(|fixed| {
            let as_read = fixed.as_read();
            crate::write::write_atomic_over(&fixed.path, &fixed.bytes(), &|| {
                as_read.check(&fixed.path)
            })
        })
        .collect();
    for (fixed, result) in files.iter().zip(written) {
        match result {
            Ok(()) => {
                outcome.fixed += fixed.applied;
                outcome.written += 1;
            }
            Err(err) => outcome.failures.push(unwritten(fixed, &err)),
        }
    }
    outcome
}

/// The problem of a fixed file that was not written: one that changed since it was read
/// (an edit saved while the check ran) is left to the edit, and fixed by the next run; one
/// marked read-only is left as its owner means it to be.
fn unwritten(fixed: &fix::FixedFile, err: &io::Error) -> Diagnostic {
    match Kept::of(err) {
        Some(Kept::ReadOnly) => Diagnostic::new(
            rules::IO_ERROR,
            &fixed.display,
            "the file is read-only; its fixes were not applied",
        )
        .with_help("make it writable to have them applied, or leave it as it is"),
        Some(Kept::Changed) => Diagnostic::new(
            rules::IO_ERROR,
            &fixed.display,
            "the file changed since it was read; its fixes were not applied",
        )
        .with_help("run `gotchas check --fix` again"),
        None => Diagnostic::new(
            rules::IO_ERROR,
            &fixed.display,
            format!("cannot write the fixed file: {err}"),
        )
        .with_note("the file was left as it was"),
    }
}
