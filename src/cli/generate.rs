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
/// page's list of commands refers to).
pub(crate) fn man(command: Option<&str>, out: &mut impl Write) -> ExitCode {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let page = match command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(subcommand) => subcommand.clone(),
            None => {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                say!(
                    "error: no command `{name}`\nnote: the commands are {}",
                    names.join(", ")
                );
                return ExitCode::from(2);
            }
        },
    };
    let mut roff = Vec::new();
    match clap_mangen::Man::new(page).render(&mut roff) {
        Ok(()) => super::emit(out, &roff),
        Err(_) => ExitCode::from(2),
    }
}
