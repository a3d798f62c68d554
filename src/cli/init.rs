//! `gotchas init`: scaffold a new corpus, or refuse and write nothing.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::init::{self, InitError};

pub(crate) fn run(dir: &Path, out: &mut impl Write) -> ExitCode {
    match init::init(dir) {
        Ok(written) => {
            let mut text = String::new();
            for path in written {
                text.push_str(&format!("created {}\n", path.display()));
            }
            text.push_str(&format!(
                "next: edit the example, then run `gotchas check --root {}`\n",
                dir.display()
            ));
            super::emit(out, text.as_bytes())
        }
        Err(err @ InitError::Exists(_)) => {
            say!(
                "error: {err}\nnote: gotchas init writes nothing when any of its files or folders exists"
            );
            ExitCode::from(2)
        }
        Err(err) => {
            say!("error: {err}");
            ExitCode::from(2)
        }
    }
}
