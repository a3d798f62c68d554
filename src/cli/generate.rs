//! `gotchas completions` and `gotchas man`: shell completions and manual pages, generated
//! from the same command definition that parses the arguments, so they cannot drift from it.
//!
//! Both are rendered into memory first: the generators panic or fail half-way when the
//! reader goes away (`gotchas man | head`), and a closed pipe is no reason to panic.

use std::io::Write;
use std::process::ExitCode;

use clap::CommandFactory;

use super::Cli;

pub(crate) fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "gotchas", &mut script);
    super::emit(out, &script)
}

/// The page of `gotchas`, or of one of its commands (`gotchas-check(1)`, which the main
/// page's list of commands refers to, or `gotchas-query-list(1)`, which `gotchas-query(1)`'s
/// does), each with the tool's version.
pub(crate) fn man(command: &[String], out: &mut impl Write) -> ExitCode {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let mut page = &cli;
    for name in command {
        page = match page.find_subcommand(name) {
            Some(subcommand) => subcommand,
            None => {
                let names: Vec<&str> = page.get_subcommands().map(|c| c.get_name()).collect();
                let help = crate::suggest::did_you_mean(&crate::suggest::suggest(
                    name,
                    names.iter().copied(),
                    3,
                ))
                .map(|help| format!("\nhelp: {help}"))
                .unwrap_or_default();
                say!(
                    "error: no command `{name}`{help}\nnote: the commands are {}",
                    names.join(", ")
                );
                return ExitCode::from(2);
            }
        };
    }
    let version = env!("CARGO_PKG_VERSION");
    let page = page.clone().version(version);
    let mut roff = Vec::new();
    match clap_mangen::Man::new(page)
        .source(format!("gotchas {version}"))
        .render(&mut roff)
    {
        Ok(()) => super::emit(out, &roff),
        Err(_) => ExitCode::from(2),
    }
}
