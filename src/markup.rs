//! Escaping for HTML and XML 1.0: one function for the site's pages and feed, the JUnit
//! report and the graph's SVG, so that a record's name reaches each of them the same way.

/// Text escaped for HTML and XML content and for attributes in either quotes. Control
/// characters that XML 1.0 cannot hold at all, even as references, become U+FFFD, so that a
/// stray one in a record's name cannot make a feed, a report or a picture unreadable.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\r' | '\t' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
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
    }
}
