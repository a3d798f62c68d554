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
                shell_word(&dir.display().to_string())
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

/// `word` as a POSIX shell reads it back as one argument: as it is when it holds only
/// characters no shell treats apart, else in single quotes; one that starts with `-`
/// after `./`, so that it is not taken for an option.
fn shell_word(word: &str) -> String {
    let word = if word.starts_with('-') {
        format!("./{word}")
    } else {
        word.to_string()
    };
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,".contains(c));
    if plain {
        word
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn a_path_is_quoted_only_where_a_shell_needs_it() {
        assert_eq!(shell_word("kb/new"), "kb/new");
        assert_eq!(shell_word("sp ace"), "'sp ace'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("-dash"), "./-dash");
        assert_eq!(shell_word(""), "''");
    }
}
