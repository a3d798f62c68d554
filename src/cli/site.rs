//! `gotchas build` and `gotchas serve`: the static site, written to a folder or served.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Cli, fatal};
use crate::project::Project;
use crate::report::human::plural;
use crate::report::{self, Sources};
use crate::site::serve::{self, Server};
use crate::site::{BuildError, Kept, Memory, Site, Staging, protected_folders};

/// The default output folder, under the corpus root.
const DEFAULT_OUT: &str = "site";

/// Builds with at least this many files show a progress bar (on a terminal).
const PROGRESS_FROM: usize = 2000;

#[derive(Debug, clap::Args)]
pub(crate) struct BuildArgs {
    /// The output folder [default: `site/` under the corpus root]. It is replaced whole, so
    /// it must be missing, empty, or a site an earlier build wrote.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The URL the site is published under, for the feed, the sitemap and canonical links
    /// (`https://org.github.io/kb/`, or a path such as `/kb/`); default: the config's
    /// `[site] base_url`.
    #[arg(long, value_name = "URL", value_parser = crate::config::base_url)]
    base_url: Option<String>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// The port on 127.0.0.1; 0 takes a free one.
    #[arg(long, default_value_t = 8000, value_name = "N")]
    port: u16,
}

pub(crate) fn build(cli: &Cli, args: &BuildArgs, styled: bool, out: &mut impl Write) -> ExitCode {
    let started = Instant::now();
    let project = match cli.open_project() {
        Ok(project) => project,
        Err(code) => return code,
    };
    let corpus = project.load_for_site();
    let site = match Site::new(&project, &corpus, args.base_url.as_deref()) {
        Ok(site) => site,
        Err(errors) => return fatal(&project.root, &errors, cli.stderr_styled()),
    };
    let folder = args
        .out
        .clone()
        .unwrap_or_else(|| project.root.join(DEFAULT_OUT));
    let protected = protected_folders(&project);
    let folders: Vec<(&std::path::Path, &str)> = protected
        .iter()
        .map(|(p, what)| (p.as_path(), *what))
        .collect();
    let staging = match Staging::new(&folder, &project.root, &folders) {
        Ok(staging) => staging,
        Err(err) => {
            say!("error: {err}");
            return ExitCode::from(2);
        }
    };
    let swept = swept_note(&staging.swept().removed, &folder);
    for left in &staging.swept().left {
        say!("warning: a folder a killed build left could not be removed whole: {left}");
    }
    let bar = progress_bar(site.files());
    let written = site.write(&staging, &|| bar.inc(1));
    bar.finish_and_clear();
    let committed = match written.map_err(|e| describe(&e)).and_then(|()| {
        staging
            .commit()
            .map_err(|e| (e.to_string(), ExitCode::from(2)))
    }) {
        Ok(committed) => committed,
        Err(err) => {
            say!("error: {}", err.0);
            return err.1;
        }
    };
    let mut text = content_report(&project, &corpus, &site, styled);
    text.push_str(&swept);
    if let Some(left) = &committed.left {
        say!("warning: the old site could not be removed whole: {left}");
    }
    if committed.replaced_meanwhile {
        text.push_str(&format!(
            "note: another build replaced {} while this one ran; this build's site replaced it\n",
            folder.display()
        ));
    }
    let base = (args.base_url.as_deref()).unwrap_or(&project.config.site.base_url);
    if !crate::site::urls::is_full(base) {
        // The site itself links relatively and works anywhere; the feed's ids and the
        // sitemap's URLs must be absolute for those who read them, which only a full URL
        // can make them, and the 404 page, shown at any depth, links from the base.
        text.push_str(&format!(
            "note: the base URL `{base}` is no full URL, so feed.xml and sitemap.xml hold \
             relative URLs, which feed readers and search engines refuse, pages have no \
             canonical link, and 404.html links from `{base}` (set `[site] base_url` or \
             `--base-url` to the site's address, such as https://kb.example.org/)\n"
        ));
    }
    text.push_str(&format!(
        "built {} ({}) into {} in {:.2}s\n",
        plural(site.pages(), "page"),
        plural(site.files(), "file"),
        folder.display(),
        started.elapsed().as_secs_f64()
    ));
    let code = super::emit(out, text.as_bytes());
    // The process ends when this returns, and the system takes its memory back whole;
    // freeing every record's fields one at a time first took a quarter of a second on one
    // core at 100,000 records, after the site was written.
    std::mem::forget(site);
    std::mem::forget(corpus);
    code
}

/// What a build removed of the builds killed before they finished beside `out`: each
/// folder by name, as `git status` or `ls -a` showed it.
fn swept_note(swept: &[std::path::PathBuf], out: &std::path::Path) -> String {
    if swept.is_empty() {
        return String::new();
    }
    let names: Vec<String> = swept
        .iter()
        .filter_map(|path| path.file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    format!(
        "note: removed {} that builds killed before they finished left beside {}: {}\n",
        plural(swept.len(), "folder"),
        out.display(),
        names.join(", ")
    )
}

/// A failed build's message and exit code: 1 when the site itself is wrong (a template links
/// to nothing), 2 when the tool could not do its job.
fn describe(err: &BuildError) -> (String, ExitCode) {
    let code = match err {
        BuildError::BrokenLinks(_) => 1,
        BuildError::Render { .. } | BuildError::Write { .. } => 2,
    };
    (
        format!("{err}\nthe previous site, if any, was left as it was"),
        ExitCode::from(code),
    )
}

fn progress_bar(files: usize) -> ProgressBar {
    if files < PROGRESS_FROM || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} building the site {bar:40} {pos}/{len} files")
    {
        bar.set_style(style);
    }
    bar
}

/// What the content does wrong that the pages show: the problems met loading it (a record
/// that did not parse has no page, and its error is the one thing that says why), broken
/// prose links and fragments naming no place in their page in full, each where `check`
/// places it; unresolved reference fields counted.
/// None fails the build: `check` is where they fail.
fn content_report(
    project: &Project,
    corpus: &crate::corpus::Corpus<Kept>,
    site: &Site<'_>,
    styled: bool,
) -> String {
    let loading = project.apply_levels(corpus.diagnostics.clone());
    let links = site.diagnostics(project);
    // A fragment naming no place still leads to its page, which is linked, not marked.
    let marked = links
        .iter()
        .filter(|d| d.code != crate::rules::BROKEN_ANCHOR)
        .count();
    let (loaded, broken) = (loading.len(), marked);
    let mut diagnostics = loading;
    diagnostics.extend(links);
    // The site let the records' texts go: placing a link found in a field reads its file
    // again, as check's report does, or it would be shown with no line and column.
    let read_again = crate::project::locate(&mut diagnostics, corpus, &project.schemas);
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let sources = Sources::collect_with(&project.root, Some(corpus), &diagnostics, read_again);
    let mut text = report::human::render(&diagnostics, &sources, styled, 0);
    if broken > 0 {
        text.push_str(&format!(
            "note: {} marked on the pages\n",
            plural(broken, "broken link")
        ));
    }
    let unresolved = site.unresolved_fields();
    if unresolved > 0 {
        let (resolve, they_are) = match unresolved {
            1 => ("does not resolve", "it is"),
            _ => ("do not resolve", "they are"),
        };
        text.push_str(&format!(
            "note: {} in fields {resolve} (no record, one of the wrong collection, or \
             several); {they_are} shown unlinked (run `gotchas check`)\n",
            plural(unresolved, "reference")
        ));
    }
    let unpublished = site.unpublished_records();
    if !unpublished.is_empty() {
        const LISTED: usize = 10;
        let mut files = unpublished
            .iter()
            .take(LISTED)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if unpublished.len() > LISTED {
            files.push_str(&format!(" and {} more", unpublished.len() - LISTED));
        }
        text.push_str(&format!(
            "note: {}: {files} (run `gotchas check`)\n",
            match unpublished.len() {
                1 => "1 record has no page, as another record has its id".to_string(),
                n => format!("{n} records have no page, as other records have their ids"),
            }
        ));
    }
    if loaded > 0 {
        text.push_str(&format!(
            "note: {} while loading; the site shows what loaded (run `gotchas check`)\n",
            plural(loaded, "problem")
        ));
    }
    text
}

pub(crate) fn serve(cli: &Cli, args: &ServeArgs, styled: bool, out: &mut impl Write) -> ExitCode {
    // Found once: were it looked for again at each rebuild, removing the corpus's
    // `gotchas.toml` would switch to a corpus above it, while this one is watched.
    let root = cli.root();
    let project = match open_at(cli, &root) {
        Ok(project) => project,
        Err(code) => return code,
    };
    let server = match Server::bind(args.port) {
        Ok(server) => server,
        Err(err) => {
            say!("error: cannot listen on 127.0.0.1:{}: {err}", args.port);
            return ExitCode::from(2);
        }
    };
    let url = server.url();
    let watching = serve::Watching::start(&project);
    let files = match build_in_memory(cli, &project, &url, styled, out) {
        Ok(files) => files,
        Err(code) => return code,
    };
    server.publish(files);
    if let Err(err) = server.spawn() {
        say!("error: cannot serve: {err}");
        return ExitCode::from(2);
    }
    let _ = writeln!(
        out,
        "serving the site at {url} (rebuilt on every change; Ctrl-C stops)"
    );
    let _ = out.flush();
    let mut watching = match watching {
        Ok(watching) => watching,
        Err(err) => {
            say!("warning: cannot watch for changes ({err}); serving the site as built");
            loop {
                std::thread::park();
            }
        }
    };
    while let Some(changed) = watching.next_change() {
        let first = changed
            .first()
            .map(|p| crate::source::display_path(&project.root, p))
            .unwrap_or_default();
        let _ = writeln!(out, "{first} changed, rebuilding");
        let _ = out.flush();
        let rebuilt = open_at(cli, &root).and_then(|project| {
            // Before the build reads the corpus, so that a change made while it does is seen.
            if let Err(err) = watching.follow(&project) {
                say!(
                    "warning: cannot watch for changes ({err}); changes there go unnoticed \
                     until a change elsewhere rebuilds the site"
                );
            }
            build_in_memory(cli, &project, &url, styled, out)
        });
        match rebuilt {
            Ok(files) => server.publish(files),
            Err(_) => {
                let _ = writeln!(
                    out,
                    "the site was not rebuilt; the previous build is still served"
                );
            }
        }
        let _ = out.flush();
    }
    // The watcher stopped: what is served stays as it was last built.
    say!("warning: stopped watching for changes; serving the site as last built");
    loop {
        std::thread::park();
    }
}

/// Opens the corpus at `root`, as [`Cli::open_project`] opens the one it finds.
fn open_at(cli: &Cli, root: &std::path::Path) -> Result<Project, ExitCode> {
    Project::open(root, cli.config.as_deref())
        .map_err(|errors| fatal(root, &errors, cli.stderr_styled()))
}

/// One build for `serve`: the whole site in memory, built for the server's address. Problems
/// are printed; a rebuild that fails keeps the previous site served.
fn build_in_memory(
    cli: &Cli,
    project: &Project,
    url: &str,
    styled: bool,
    out: &mut impl Write,
) -> Result<BTreeMap<String, Vec<u8>>, ExitCode> {
    let started = Instant::now();
    let corpus = project.load_for_site();
    let site = Site::new(project, &corpus, Some(url))
        .map_err(|errors| fatal(&project.root, &errors, cli.stderr_styled()))?;
    let memory = Memory::default();
    if let Err(err) = site.write(&memory, &|| {}) {
        let (message, code) = describe(&err);
        say!("error: {message}");
        return Err(code);
    }
    let mut text = content_report(project, &corpus, &site, styled);
    text.push_str(&format!(
        "built {} in {:.2}s\n",
        plural(site.pages(), "page"),
        started.elapsed().as_secs_f64()
    ));
    let _ = out.write_all(text.as_bytes());
    Ok(memory.into_files())
}
