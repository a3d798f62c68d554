//! Escaping for HTML and XML 1.0: one function for the site's pages and feed, the JUnit
//! report and the graph's SVG, so that a record's name reaches each of them the same way.

use std::borrow::Cow;

/// Text escaped for HTML and XML content and for attributes in either quotes. Control
/// characters that XML 1.0 cannot hold at all, even as references, become U+FFFD, so that a
/// stray one in a record's name cannot make a feed, a report or a picture unreadable; so do
/// DEL and the C1 controls (U+0080 to U+009F), which XML holds but HTML counts as errors.
pub fn escape(text: &str) -> String {
    escaped(text).into_owned()
}

/// Whether [`escaped`] looks at `byte` twice: markup, a control character other than a line
/// break or tab, the first byte of the C1 controls (0xC2, which also starts `°`, `µ`, `©`),
/// and that of U+FFFE and U+FFFF. Comparisons, not a table, so that
/// [`crate::scan::unmarked_run`] tests sixteen bytes at a time.
fn may_change(byte: u8) -> bool {
    may_be_unholdable(byte)
        | (byte == b'&')
        | (byte == b'<')
        | (byte == b'>')
        | (byte == b'"')
        | (byte == b'\'')
}

/// Whether `byte` may start a character [`is_unholdable`]: a control character other than
/// a line break or tab, DEL, 0xC2 (the C1 controls) or 0xEF (U+FFFE, U+FFFF). Both tests
/// are written with `|` and `&`: written with `||` and `matches!`, the compiler kept a
/// branch per byte rather than a vector of comparisons.
fn may_be_unholdable(byte: u8) -> bool {
    let control = (byte < 0x20) & (byte != b'\n') & (byte != b'\r') & (byte != b'\t');
    control | (byte == 0x7F) | (byte == 0xC2) | (byte == 0xEF)
}

/// [`escape`], borrowing `text` when nothing in it changes: most of what a page shows (ids,
/// names, links) has nothing to escape, and a site writes it millions of times.
pub fn escaped(text: &str) -> Cow<'_, str> {
    let mut out = String::new();
    // Runs of text that need no change are copied whole: every byte that may need one is
    // ASCII or starts U+FFFE/U+FFFF (0xEF), so a run always ends on a character boundary.
    let bytes = text.as_bytes();
    let mut run_start = 0;
    let mut at = 0;
    loop {
        at += crate::scan::unmarked_run(bytes.get(at..).unwrap_or_default(), may_change);
        let Some(&byte) = bytes.get(at) else { break };
        // Only the bytes `may_change` marks get here: line breaks and tabs were skipped.
        let (replacement, width): (&str, usize) = match byte {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' => ("&quot;", 1),
            b'\'' => ("&#39;", 1),
            _ => match unholdable_width(bytes, at) {
                Some(width) => ("\u{FFFD}", width),
                None => {
                    at += 1;
                    continue;
                }
            },
        };
        if out.is_empty() {
            out.reserve(text.len() + replacement.len());
        }
        out.push_str(text.get(run_start..at).unwrap_or_default());
        out.push_str(replacement);
        at += width;
        run_start = at;
    }
    if run_start == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(text.get(run_start..).unwrap_or_default());
    Cow::Owned(out)
}

/// A URL as a page or feed may hold it: what a URL may not hold as it is (a space, a quote,
/// `<`, a control character, a non-ASCII letter) is percent-encoded, and what is encoded
/// already (`%20`) is kept, so that `https://example.com/?a=1&b=<2>` is a valid link rather
/// than one browsers repair. Markup is still to be escaped ([`escaped`]): `&` stays.
pub fn url_encoded(url: &str) -> Cow<'_, str> {
    const NOT_IN_A_URL: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'<')
        .add(b'>')
        .add(b'`')
        .add(b'{')
        .add(b'}')
        .add(b'|')
        .add(b'\\')
        .add(b'^');
    percent_encoding::utf8_percent_encode(url, NOT_IN_A_URL).into()
}

/// Whether `text` holds a character [`escaped`] replaces by U+FFFD: a control character
/// other than a line break or tab, U+FFFE or U+FFFF.
pub fn has_unholdable(text: &str) -> bool {
    // All of a site's prose passes here: it is skipped a chunk at a time to the bytes that
    // may start such a character, which are ASCII, or 0xC2 or 0xEF.
    let bytes = text.as_bytes();
    let mut at = 0;
    loop {
        at += crate::scan::unmarked_run(bytes.get(at..).unwrap_or_default(), may_be_unholdable);
        if at >= bytes.len() {
            return false;
        }
        if unholdable_width(bytes, at).is_some() {
            return true;
        }
        at += 1;
    }
}

/// How many bytes of `bytes` from `at` the character there takes, if it is one
/// [`is_unholdable`] names, read from its UTF-8 without decoding it: one for a control
/// character or DEL, two for a C1 control, three for U+FFFE or U+FFFF.
fn unholdable_width(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        0xC2 => matches!(bytes.get(at + 1), Some(0x80..=0x9F)).then_some(2),
        0xEF => matches!(bytes.get(at + 1..at + 3), Some([0xBF, 0xBE | 0xBF])).then_some(3),
        byte => may_be_unholdable(byte).then_some(1),
    }
}

/// `markup` (HTML a renderer wrote, whose `<`, `&` and quotes are its own) with the
/// characters [`escaped`] replaces by U+FFFD replaced the same way: a Markdown renderer
/// escapes only markup, and passes a stray control character in prose on to the page.
pub fn unholdable_replaced(markup: &str) -> String {
    markup
        .chars()
        .map(|c| if is_unholdable(c) { '\u{FFFD}' } else { c })
        .collect()
}

/// A character XML 1.0 cannot hold, or HTML counts a parse error.
fn is_unholdable(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{FFFE}' | '\u{FFFF}')
        && !matches!(c, '\n' | '\r' | '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_what_xml_cannot_hold() {
        assert_eq!(
            escape("a<b & \"c\" 'd'\u{1}\n"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;\u{FFFD}\n"
        );
        assert_eq!(
            escape("a\u{7F}b\u{85}c\u{9F}° µ"),
            "a\u{FFFD}b\u{FFFD}c\u{FFFD}° µ"
        );
    }

    #[test]
    fn borrows_text_with_nothing_to_escape() {
        assert!(matches!(escaped("engines/vllm é\n"), Cow::Borrowed(_)));
        assert!(matches!(escaped("a&b"), Cow::Owned(_)));
        assert_eq!(escaped("&"), "&amp;");
    }

    #[test]
    fn keeps_every_other_character_as_it_is() {
        assert_eq!(
            escape("é\u{FFFE}ü\u{FFFF}\u{FFFD}\u{EFBF}日\t"),
            "é\u{FFFD}ü\u{FFFD}\u{FFFD}\u{EFBF}日\t"
        );
        assert_eq!(escape(""), "");
        assert_eq!(escape("plain"), "plain");
    }

    #[test]
    fn replaces_what_xml_cannot_hold_in_markup_and_keeps_the_markup() {
        let markup = "<p>a\u{1b}[31m &amp; \u{FFFF}\tb</p>\n";
        assert!(has_unholdable(markup));
        assert_eq!(
            unholdable_replaced(markup),
            "<p>a\u{FFFD}[31m &amp; \u{FFFD}\tb</p>\n"
        );
        assert!(!has_unholdable("<p>é\r\n</p>"));
    }

    /// [`escaped`] one character at a time, the way the rules above read.
    fn escaped_char_by_char(text: &str) -> String {
        text.chars()
            .map(|c| match c {
                '&' => "&amp;".to_string(),
                '<' => "&lt;".to_string(),
                '>' => "&gt;".to_string(),
                '"' => "&quot;".to_string(),
                '\'' => "&#39;".to_string(),
                c if is_unholdable(c) => "\u{FFFD}".to_string(),
                c => c.to_string(),
            })
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn escapes_as_one_character_at_a_time_would(text in "(?s).{0,40}|[&<>\"'\\x00-\\x1F\\x7F-\\u{A0}°\u{FFFE}\u{FFFF}\u{EFBF}a\t\n]{0,20}") {
            proptest::prop_assert_eq!(escaped(&text), escaped_char_by_char(&text));
        }
        #[test]
        fn finds_what_it_replaces(text in "(?s).{0,40}|[&<\\x00-\\x1F\\x7F-\\u{A0}°\u{FFFE}\u{FFFF}\u{EFBF}a\t\n]{0,20}") {
            proptest::prop_assert_eq!(has_unholdable(&text), text.chars().any(is_unholdable));
            proptest::prop_assert_eq!(has_unholdable(&text), unholdable_replaced(&text) != text);
        }
    }
}
