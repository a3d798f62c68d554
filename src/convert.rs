//! `gotchas convert`: rewrite records in another format without losing anything.
//!
//! The converted text is produced from the loaded value by [`crate::serialize`], so reading
//! it back gives equal values. A Markdown record whose body holds prose outside its field
//! sections cannot become JSON or YAML without dropping that prose, so it is refused rather
//! than converted, as is a record read from a file that sets a field twice (a key repeated,
//! or a Markdown section beside the same field in the front matter): the record holds the
//! first value only, and the converted file would not hold the other. A record whose YAML
//! (its file, or a Markdown record's front matter) has a comment is refused too, as the
//! record holds no comment to write.

use std::path::PathBuf;

use crate::corpus::{Corpus, Renumber};
use crate::diagnostic::Diagnostic;
use crate::load::{Record, markdown, yaml};
use crate::rules;
use crate::schema::Schemas;
use crate::serialize;
use crate::source::{Format, SourceFile};
use crate::stamp::AsRead;

/// One converted record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    /// Its file now.
    pub from: PathBuf,
    /// Its file in the new format (same folder and id, new extension).
    pub to: PathBuf,
    /// The new text.
    pub text: String,
    /// What its file held when it was read: it is replaced or removed only while it holds
    /// that still.
    pub as_read: AsRead,
}

/// Why a record was not converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The record's file, as displayed.
    pub file: String,
    /// Why.
    pub reason: String,
}

/// The file extension written for a format.
pub fn extension(format: Format) -> &'static str {
    match format {
        Format::Json => "json",
        Format::Yaml => "yaml",
        Format::Markdown => "md",
    }
}

/// Converts the given records of `corpus` to `to`.
// Record and file indices come from the corpus they index.
#[allow(clippy::indexing_slicing)]
pub fn convert(
    corpus: &Corpus,
    schemas: &Schemas,
    records: &[usize],
    to: Format,
) -> Vec<Result<Converted, Refused>> {
    records
        .iter()
        .map(|&index| {
            let record = &corpus.records[index];
            let file = &corpus.files[record.file];
            let converted = convert_record(record, file, schemas, to);
            unless_set_twice(converted, file, &corpus.diagnostics)
        })
        .collect()
}

/// `converted`, unless loading `file` found a field set twice (`diagnostics` are the
/// corpus's load diagnostics): then the record holds the first value only, and writing it
/// in another format would lose the other.
pub fn unless_set_twice(
    converted: Result<Converted, Refused>,
    file: &SourceFile,
    diagnostics: &[Diagnostic],
) -> Result<Converted, Refused> {
    let set_twice = diagnostics
        .iter()
        .any(|d| d.code == rules::DUPLICATE_KEY && d.file == file.display);
    if set_twice && converted.is_ok() {
        return Err(Refused {
            file: file.display.clone(),
            reason: "it sets a field twice (`gotchas check` shows where), and only the first \
                     value would be kept"
                .into(),
        });
    }
    converted
}

/// Converts one record, read from `file` (whose text is needed only for a Markdown body), to
/// `to`. Called as the corpus is loaded, it lets a whole corpus be converted keeping only
/// the converted texts, not every record's fields.
// Collection indices come from the schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn convert_record(
    record: &Record,
    file: &SourceFile,
    schemas: &Schemas,
    to: Format,
) -> Result<Converted, Refused> {
    let collection = &schemas.collections[record.collection];
    // A record is written from its fields, in any format: Markdown too, so a Markdown
    // record converted to Markdown would lose its free prose as surely.
    if let (Some(prose), Some(text)) = (&record.prose, file.text.as_deref())
        && has_free_prose(text, &prose.body, &collection.text_fields)
    {
        return Err(Refused {
            file: file.display.clone(),
            reason: "its Markdown body has prose outside the field sections, or markup in a \
                     section's heading, which a record written from its fields cannot hold"
                .into(),
        });
    }
    let text = file.text_again();
    if let Some(line) = text
        .as_deref()
        .and_then(|text| comment_line(text, record.format))
    {
        return Err(Refused {
            file: file.display.clone(),
            reason: format!(
                "its YAML has a comment on line {line}, which a record written from its \
                 fields cannot hold\nhelp: move what the comment says into a field, or delete \
                 it, and convert again"
            ),
        });
    }
    if let Some(number) = text
        .as_deref()
        .and_then(|text| inexact_integer(text, record.format))
    {
        return Err(Refused {
            file: file.display.clone(),
            reason: format!(
                "the integer {number} is beyond the 64 bits gotchas holds one in, and would be \
                 written rounded"
            ),
        });
    }
    let text = match to {
        Format::Json => serialize::to_json(&record.value),
        Format::Yaml => serialize::to_yaml(&record.value),
        Format::Markdown => serialize::to_markdown(&record.value, &collection.text_fields),
    };
    Ok(Converted {
        from: file.path.clone(),
        to: file.path.with_extension(extension(to)),
        text,
        as_read: AsRead::new(file.stamp, file.text.as_deref().unwrap_or_default()),
    })
}

impl Renumber for Result<Converted, Refused> {}

/// The first integer written in `text`, a record file in `format`, that a 64-bit integer
/// cannot hold: it was read as the nearest floating-point number, so writing the record
/// again would change it (`123456789012345678901234` -> `1.2345678901234568e23`).
fn inexact_integer(text: &str, format: Format) -> Option<String> {
    // Such an integer has 19 digits or more (`i64::MAX` has 19), which nearly no record
    // has: a pass over the bytes spares the others a second parse (converting 100,000
    // YAML records took 3.1 s, and 5.2 s when each was parsed again for this).
    let mut run = 0;
    let long_run = text.bytes().any(|b| {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        run >= 19
    });
    if !long_run {
        return None;
    }
    let fits = |digits: &str| {
        let digits = digits.strip_prefix('+').unwrap_or(digits);
        digits.parse::<i64>().is_ok() || digits.parse::<u64>().is_ok()
    };
    let integer = |token: &str| {
        let digits = token.trim_start_matches(['-', '+']);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    match format {
        Format::Json => json_numbers(text).find(|token| integer(token) && !fits(token)),
        Format::Yaml => yaml_integer_scalars(text).find(|token| integer(token) && !fits(token)),
        Format::Markdown => {
            let front = markdown::split_front_matter(text).ok()?;
            let yaml = text.get(front.yaml)?;
            yaml_integer_scalars(yaml).find(|token| integer(token) && !fits(token))
        }
    }
}

/// The line (from 1) of the first YAML comment in `text`, a record file in `format`: in the
/// file, or in a Markdown record's front matter. The record holds no comment, so the file
/// written from it would hold none.
fn comment_line(text: &str, format: Format) -> Option<usize> {
    let at = match format {
        Format::Json => return None,
        Format::Yaml => yaml::first_comment(text)?,
        Format::Markdown => {
            let yaml = markdown::split_front_matter(text).ok()?.yaml;
            yaml.start + yaml::first_comment(text.get(yaml)?)?
        }
    };
    Some(crate::source::line_col(text, at).line)
}

/// The number tokens of a JSON text, as written: what is outside strings and starts with a
/// digit or a minus sign.
fn json_numbers(text: &str) -> impl Iterator<Item = String> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(&byte) = bytes.get(at) {
            match byte {
                b'"' => {
                    at += 1;
                    while let Some(&byte) = bytes.get(at) {
                        at += if byte == b'\\' { 2 } else { 1 };
                        if byte == b'"' {
                            break;
                        }
                    }
                }
                b'-' | b'0'..=b'9' => {
                    let start = at;
                    while bytes.get(at).is_some_and(|b| {
                        b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')
                    }) {
                        at += 1;
                    }
                    return text.get(start..at).map(str::to_string);
                }
                _ => at += 1,
            }
        }
        None
    })
}

/// The scalars of a YAML text that may be read as integers, as written: plain untagged
/// ones, and any tagged `!!int` (`!!int "99999999999999999999"` is a number too).
fn yaml_integer_scalars(text: &str) -> impl Iterator<Item = String> + '_ {
    saphyr_parser::Parser::new_from_str(text)
        .map_while(Result::ok)
        .filter_map(|(event, _)| match event {
            saphyr_parser::Event::Scalar(value, style, _, tag) => {
                let integer_tag = tag.as_deref().is_some_and(|tag| {
                    matches!(tag.handle.as_str(), "!!" | "tag:yaml.org,2002:")
                        && tag.suffix == "int"
                });
                (integer_tag || (tag.is_none() && style == saphyr_parser::ScalarStyle::Plain))
                    .then(|| value.into_owned())
            }
            _ => None,
        })
}

/// Whether a Markdown body has text that is not inside a field section, or a section's
/// heading holds more than its field's name (a link, code, a comment: `## [Workaround](url)`
/// is the `workaround` section, and a record written from its fields would lose the URL).
fn has_free_prose(
    text: &str,
    body: &crate::source::Span,
    fields: &std::collections::HashSet<String>,
) -> bool {
    let sections = markdown::sections(text, body, fields);
    let marked_up = |heading: &crate::source::Span| {
        let line = text
            .get(heading.clone())
            .and_then(|h| h.split(['\n', '\r']).next())
            .unwrap_or_default();
        let title = line.trim().trim_matches('#').trim();
        title.contains(['[', ']', '<', '>', '`', '*', '\\', '&'])
            || title.starts_with('_')
            || title.ends_with('_')
    };
    if sections.iter().any(|s| marked_up(&s.heading)) {
        return true;
    }
    let mut covered: Vec<(usize, usize)> = sections
        .into_iter()
        .map(|s| (s.heading.start, s.content.end))
        .collect();
    covered.sort_unstable();
    let mut cursor = body.start;
    for (start, end) in covered {
        if text
            .get(cursor..start)
            .is_some_and(|gap| !gap.trim().is_empty())
        {
            return true;
        }
        cursor = cursor.max(end);
    }
    text.get(cursor..body.end)
        .is_some_and(|rest| !rest.trim().is_empty())
}
