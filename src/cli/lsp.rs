//! `gotchas lsp`: the language server, over standard input and output.

use std::process::ExitCode;

use super::{Cli, fatal};
use crate::lsp;

pub(crate) fn run(cli: &Cli) -> ExitCode {
    match lsp::serve(cli.root.as_deref(), cli.config.as_deref()) {
        Ok(true) => ExitCode::SUCCESS,
        // The protocol's exit code for an `exit` (or an end) without `shutdown` first.
        Ok(false) => ExitCode::FAILURE,
        Err(lsp::Error::Setup(errors)) => fatal(&cli.root(), &errors, false),
        Err(err) => {
            say!("error: gotchas lsp: {err}");
            ExitCode::from(2)
        }
    }
}
