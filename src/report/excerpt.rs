//! Long source lines, cut to a window for the human report.
//!
//! annotate-snippets trims a long line to the terminal width around its labels, but not
//! always: when two labels on one line are far apart, when the underlined value is wider than
//! the terminal in wide characters, or when the line is made of zero-width characters, it
//! prints everything between the labels, and a minified JSON record is one line of
//! megabytes. So when a line that a diagnostic underlines is longer than
//! [`MAX_LINE_CHARS`], the snippet shows only a window of the primary line: at most that
//! many characters around the start of the underlined value, with `...` where the line was
//! cut. Labels outside the window become notes that give their position. The location line
//! (`--> file:line:col`) keeps the column in the whole line.
//!
//! Messages quote what the record says (an unknown id, a wiki-link target), so a title, note
//! or help line can be as long as the value: [`clip`] cuts long quoted values in the middle.

use std::borrow::Cow;

use crate::source::{LineCol, Span, char_span};
use crate::unicode;

/// The longest source line shown in a snippet, in characters.
pub const MAX_LINE_CHARS: usize = 200;

/// Characters shown before an underlined value too wide to show whole: enough to see which
/// key it belongs to.
const LEAD_CHARS: usize = 40;

/// What marks a cut at either end of the window.
const CUT: &str = "...";

/// A window of one long line, with what is needed to put annotations into it.
#[derive(Debug, PartialEq, Eq)]
pub struct Excerpt {
    /// The text annotate-snippets is given: the window, with `...` where it was cut.
    pub source: String,
    /// The 1-based number of the line.
    pub line: usize,
    /// Byte range of the window in the file.
    window: Span,
    /// Bytes before the window's text in `source`: the length of a leading cut mark, or 0.
    lead: usize,
    /// The primary span's 1-based column in `source`, which is what annotate-snippets puts
    /// in its location line.
    shown_column: usize,
    /// The primary span's 1-based column in the whole line.
    column: usize,
}

impl Excerpt {
    /// The excerpt of `text` for a diagnostic underlining `primary` with labels at `others`;
    /// `None` when every line the spans touch is short enough to show whole.
    ///
    /// `at` is where `primary` starts, as the report placed it. The line is searched for its
    /// ends no further than a window can reach: a file of one long line (minified JSON)
    /// with a problem on every value would otherwise be read whole for each.
    pub fn new(text: &str, primary: &Span, others: &[Span], at: LineCol) -> Option<Excerpt> {
        let primary = char_span(text, primary);
        if !std::iter::once(&primary)
            .chain(others)
            .any(|span| touches_long_line(text, span))
        {
            return None;
        }
        let line_start = line_start(text, primary.start);
        let line_end = line_end(text, primary.start);
        let start = primary.start;
        let end = primary.end.min(line_end);
        let value_chars = text.get(start..end).map_or(0, |v| v.chars().count());
        let before = if value_chars + 2 * LEAD_CHARS <= MAX_LINE_CHARS {
            (MAX_LINE_CHARS - value_chars) / 2
        } else {
            LEAD_CHARS
        };
        let mut window_start = back(text, start, before, line_start);
        let shown_before = chars_between(text, window_start, start);
        let window_end = forward(text, start, MAX_LINE_CHARS - shown_before, line_end);
        // Near the end of the line, what the right side cannot use goes to the left.
        let shown_after = chars_between(text, start, window_end);
        window_start = back(
            text,
            start,
            MAX_LINE_CHARS.saturating_sub(shown_after),
            line_start,
        );
        let lead = if window_start > line_start { CUT } else { "" };
        let tail = if window_end < line_end { CUT } else { "" };
        let shown = text.get(window_start..window_end).unwrap_or_default();
        Some(Excerpt {
            source: format!("{lead}{shown}{tail}"),
            line: at.line,
            window: window_start..window_end,
            lead: lead.len(),
            shown_column: lead.chars().count() + chars_between(text, window_start, start) + 1,
            column: at.column,
        })
    }

    /// Where `span` of the file falls in [`Excerpt::source`], cut to the window's end; `None`
    /// when it does not start inside the window.
    pub fn map(&self, text: &str, span: &Span) -> Option<Span> {
        let span = char_span(text, span);
        if span.start < self.window.start || span.start > self.window.end {
            return None;
        }
        let end = span.end.min(self.window.end);
        Some(span.start - self.window.start + self.lead..end - self.window.start + self.lead)
    }

    /// Puts the column in the whole line into annotate-snippets' location line, which counts
    /// from the start of the excerpt. The location line follows the title, which takes
    /// `title_lines` lines.
    pub fn fix_location(&self, rendered: &str, title_lines: usize) -> String {
        let shown = format!(":{}:{}", self.line, self.shown_column);
        let real = format!(":{}:{}", self.line, self.column);
        let mut out = String::with_capacity(rendered.len() + real.len());
        for (index, line) in rendered.split_inclusive('\n').enumerate() {
            let (body, newline) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            };
            match body.strip_suffix(&shown) {
                Some(location) if index == title_lines => {
                    out.push_str(location);
                    out.push_str(&real);
                    out.push_str(newline);
                }
                _ => out.push_str(line),
            }
        }
        out
    }
}

/// The longest value a message quotes in full, in characters; messages quote what the record
/// says between backticks.
const MAX_QUOTED_CHARS: usize = 80;

/// The longest message line, in characters, whatever it quotes: room for a note listing the
/// hundred fields of a large schema.
const MAX_MESSAGE_CHARS: usize = 2_000;

/// `text` on one line, with every quoted value (between backticks) longer than
/// `MAX_QUOTED_CHARS` cut in the middle, and the whole cut in the middle if still longer than
/// `MAX_MESSAGE_CHARS`: a long list of short names stays whole, a quoted page of text does
/// not. A message quotes values as the record has them, and a value may hold a line break
/// (a `|` block scalar ends with one) or another control character: each is written as an
/// escape (`\n`, `\t`, `\u{1b}`), as Rust's `{:?}` would, so the message stays one line and
/// nothing in it drives the terminal.
pub fn clip(text: &str) -> Cow<'_, str> {
    if let Cow::Owned(escaped) = one_line(text) {
        return Cow::Owned(clip(&escaped).into_owned());
    }
    if text.len() <= MAX_QUOTED_CHARS {
        return Cow::Borrowed(text);
    }
    let quoted = text
        .split('`')
        .enumerate()
        .map(|(index, part)| {
            if index % 2 == 1 {
                middle_cut(part, MAX_QUOTED_CHARS)
            } else {
                Cow::Borrowed(part)
            }
        })
        .collect::<Vec<_>>()
        .join("`");
    let clipped = middle_cut(&quoted, MAX_MESSAGE_CHARS).into_owned();
    if clipped == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(clipped)
    }
}

/// `text` with each control character written as an escape (`\n`, `\u{1b}`), as Rust's
/// `{:?}` would: a file's name may hold one as well as a value, and printed as it is, it
/// would break the line or drive the terminal. So is every other character a reader cannot
/// see ([`unicode::is_unprintable`]: `ni\u{200d}xl` printed raw reads `nixl`, a
/// right-to-left override turns the rest of the line around), but for the joiners of an
/// emoji, which are part of the picture.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if text.is_ascii() && !text.bytes().any(|b| b.is_ascii_control()) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len());
    let mut any = false;
    let mut before = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if unicode::is_unprintable(c) && !unicode::joins_emoji(before, c, chars.peek().copied()) {
            any = true;
            if c.is_control() {
                escaped.extend(c.escape_debug());
            } else {
                escaped.extend(c.escape_unicode());
            }
        } else {
            escaped.push(c);
        }
        before = Some(c);
    }
    if any {
        Cow::Owned(escaped)
    } else {
        Cow::Borrowed(text)
    }
}

/// `text`, or its start and end around a cut mark when it is longer than `max` characters.
fn middle_cut(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max || text.chars().count() <= max {
        return Cow::Borrowed(text);
    }
    let kept = max - CUT.len();
    let head = forward(text, 0, kept - kept / 2, text.len());
    let tail = back(text, text.len(), kept / 2, head);
    match (text.get(..head), text.get(tail..)) {
        (Some(head), Some(tail)) => Cow::Owned(format!("{head}{CUT}{tail}")),
        _ => Cow::Borrowed(text),
    }
}

/// How far, in bytes, the ends of a line are looked for from a place in it: more than a
/// window of [`MAX_LINE_CHARS`] characters can span. A line end further than this is past
/// any window, and the line is long.
const REACH: usize = 4 * MAX_LINE_CHARS + 4;

/// Whether a line that `span` touches is longer than [`MAX_LINE_CHARS`].
fn touches_long_line(text: &str, span: &Span) -> bool {
    let start = line_start(text, span.start.min(text.len()));
    let end = line_end(text, span.end.min(text.len()));
    text.get(start..end).is_some_and(|lines| {
        lines
            .split(['\n', '\r'])
            .any(|line| line.len() > MAX_LINE_CHARS && line.chars().nth(MAX_LINE_CHARS).is_some())
    })
}

/// The start of the line holding `offset` (past a `\n` or a `\r`), or a place [`REACH`] bytes before `offset` when
/// the line starts before that.
fn line_start(text: &str, offset: usize) -> usize {
    let floor = crate::source::floor_char_boundary(text, offset.saturating_sub(REACH));
    text.get(floor..offset)
        .and_then(|before| before.rfind(['\n', '\r']))
        .map_or(floor, |i| floor + i + 1)
}

/// The end of the line holding `offset`, before its line break (`\n`, `\r\n` or a lone
/// `\r`), or a place [`REACH`] bytes after `offset` when the line ends after that.
fn line_end(text: &str, offset: usize) -> usize {
    let ceiling = crate::source::floor_char_boundary(text, offset.saturating_add(REACH));
    let rest = text.get(offset..ceiling).unwrap_or_default();
    offset + rest.find(['\n', '\r']).unwrap_or(rest.len())
}

/// The offset `count` characters before `offset`, but not before `floor`.
fn back(text: &str, offset: usize, count: usize, floor: usize) -> usize {
    text.get(floor..offset)
        .and_then(|before| before.char_indices().rev().take(count).last())
        .map_or(offset, |(at, _)| floor + at)
}

/// The offset `count` characters after `offset`, but not after `ceiling`.
fn forward(text: &str, offset: usize, count: usize, ceiling: usize) -> usize {
    text.get(offset..ceiling).map_or(offset, |after| {
        after
            .char_indices()
            .nth(count)
            .map_or(ceiling, |(at, _)| offset + at)
    })
}

fn chars_between(text: &str, start: usize, end: usize) -> usize {
    text.get(start..end).map_or(0, |s| s.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The excerpt for `span`, placed as a report places it.
    fn placed(text: &str, span: &Span, others: &[Span]) -> Option<Excerpt> {
        Excerpt::new(
            text,
            span,
            others,
            crate::source::line_col(text, span.start),
        )
    }

    fn long_line(before: usize, value: &str, after: usize) -> (String, Span) {
        let text = format!(
            "{{\"a\":\"{}\",\"k\":\"{value}\",\"b\":\"{}\"}}\n",
            "x".repeat(before),
            "y".repeat(after)
        );
        let start = text.find(value).unwrap();
        (text.clone(), start..start + value.len())
    }

    #[test]
    fn short_lines_are_shown_whole() {
        let text = "a: 1\nseverity: majr\n";
        assert_eq!(placed(text, &(15..19), &[]), None);
    }

    #[test]
    fn a_long_line_is_cut_around_the_value() {
        let (text, span) = long_line(100_000, "bsic", 100_000);
        let excerpt = placed(&text, &span, &[]).unwrap();
        assert_eq!(
            excerpt.source.chars().count(),
            MAX_LINE_CHARS + 2 * CUT.len()
        );
        assert!(excerpt.source.starts_with("...xxx") && excerpt.source.ends_with("yyy..."));
        let shown = excerpt.map(&text, &span).unwrap();
        assert_eq!(&excerpt.source[shown], "bsic");
        assert_eq!(excerpt.column, 100_014);
    }

    #[test]
    fn the_window_keeps_to_the_line() {
        let (text, span) = long_line(10, "bsic", 100_000);
        let excerpt = placed(&text, &span, &[]).unwrap();
        assert!(
            excerpt
                .source
                .starts_with("{\"a\":\"xxxxxxxxxx\",\"k\":\"bsic\"")
        );
        assert_eq!(excerpt.source.chars().count(), MAX_LINE_CHARS + CUT.len());
        let (text, span) = long_line(100_000, "bsic", 10);
        let excerpt = placed(&text, &span, &[]).unwrap();
        assert!(excerpt.source.ends_with("\"bsic\",\"b\":\"yyyyyyyyyy\"}"));
    }

    #[test]
    fn a_wide_value_is_shown_from_its_start() {
        let value = "漢".repeat(10_000);
        let (text, span) = long_line(1_000, &value, 1_000);
        let excerpt = placed(&text, &span, &[]).unwrap();
        let shown = excerpt.map(&text, &span).unwrap();
        assert_eq!(
            excerpt.source[..shown.start].chars().count(),
            CUT.len() + LEAD_CHARS
        );
        assert_eq!(
            excerpt.source[shown].chars().count(),
            MAX_LINE_CHARS - LEAD_CHARS
        );
    }

    #[test]
    fn labels_outside_the_window_are_not_mapped() {
        let (text, span) = long_line(100_000, "bsic", 10);
        let far = 2..3;
        let excerpt = placed(&text, &span, std::slice::from_ref(&far)).unwrap();
        assert_eq!(excerpt.map(&text, &far), None);
    }

    #[test]
    fn control_characters_in_a_message_are_escaped() {
        assert_eq!(
            clip("`majr\n` is not an allowed\tvalue \u{1b}[31m"),
            "`majr\\n` is not an allowed\\tvalue \\u{1b}[31m"
        );
    }

    #[test]
    fn invisible_characters_in_a_message_are_escaped_but_an_emoji_s_joiners_are_not() {
        assert_eq!(
            one_line("`ni\u{200d}xl` `\u{202e}ab\u{2066}` caf\u{e9} \u{200b}"),
            "`ni\\u{200d}xl` `\\u{202e}ab\\u{2066}` caf\u{e9} \\u{200b}"
        );
        let family = "`👨\u{200d}👩\u{200d}👧` 🏴\u{e0067}\u{e0062}\u{e007f}";
        assert_eq!(one_line(family), Cow::Borrowed(family));
    }

    #[test]
    fn long_quoted_values_are_cut_in_the_middle() {
        let short = "`mooncache` in `affects` names no record";
        assert_eq!(clip(short), short);
        let names = vec!["`supported_backends`"; 80].join(", ");
        assert_eq!(clip(&names), names, "many short names are kept");
        let message = format!("`{}` in `affects` names no record", "漢".repeat(1_000));
        let clipped = clip(&message);
        assert!(
            clipped.starts_with("`漢漢") && clipped.ends_with("漢漢` in `affects` names no record")
        );
        assert_eq!(
            clipped.split('`').nth(1).unwrap().chars().count(),
            MAX_QUOTED_CHARS
        );
        let unquoted = "x".repeat(10_000);
        assert_eq!(clip(&unquoted).chars().count(), MAX_MESSAGE_CHARS);
    }

    #[test]
    fn the_location_gets_the_column_in_the_whole_line() {
        let (text, span) = long_line(100_000, "bsic", 100_000);
        let excerpt = placed(&text, &span, &[]).unwrap();
        let rendered = format!(
            "error: x ends with :1:{0}\n --> f.json:1:{0}\n  |\n",
            excerpt.shown_column
        );
        assert_eq!(
            excerpt.fix_location(&rendered, 1),
            format!(
                "error: x ends with :1:{}\n --> f.json:1:100014\n  |\n",
                excerpt.shown_column
            )
        );
    }
}
