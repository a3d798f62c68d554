//! Names that look alike but differ in their bytes: the same letters composed (NFC) or
//! decomposed (NFD, as macOS stores file names), full-width forms (`ｖｌｌｍ`), or a
//! zero-width character no one sees (`ni\u{200d}xl`). Ids are compared byte for byte, so
//! such a name is a different name; these helpers let a report say which of the three it is,
//! and let a did-you-mean find the name meant ([`fold`]) however many edits apart the bytes
//! are.

use std::borrow::Cow;

use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::{is_nfc, is_nfd};

/// Whether `c` is invisible: a format character (general category Cf), such as a zero-width
/// space or joiner, a bidirectional control, a soft hyphen or a byte-order mark. It takes no
/// room on screen, so it is no word break and no letter of a name as a reader sees it.
pub fn is_invisible(c: char) -> bool {
    !c.is_ascii() && get_general_category(c) == GeneralCategory::Format
}

/// `text` as a reader sees it: without its invisible characters ([`is_invisible`]).
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_invisible) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|&c| !is_invisible(c)).collect())
}

/// Whether a message shows `c` escaped (`\u{200b}`) where it quotes a name or a value:
/// control characters, which would break the line or drive the terminal; invisible ones,
/// which would make two different names read the same; line and paragraph separators; and
/// code points not assigned a character, which a terminal shows as it pleases.
pub fn is_unprintable(c: char) -> bool {
    c.is_control()
        || (!c.is_ascii()
            && matches!(
                get_general_category(c),
                GeneralCategory::Format
                    | GeneralCategory::LineSeparator
                    | GeneralCategory::ParagraphSeparator
                    | GeneralCategory::Unassigned
            ))
}

/// Whether the invisible `c`, between `before` and `after`, is part of an emoji: a zero-width
/// joiner between two pictographs (`👨‍👩‍👧`), or a tag character of a flag (🏴 and its tags).
/// Those are drawn as one picture, and escaping them would break a legitimate emoji.
pub fn joins_emoji(before: Option<char>, c: char, after: Option<char>) -> bool {
    match c {
        '\u{200d}' => before.is_some_and(is_pictograph) && after.is_some_and(is_pictograph),
        '\u{e0020}'..='\u{e007f}' => {
            before.is_some_and(|b| b == '\u{1f3f4}' || ('\u{e0020}'..='\u{e007f}').contains(&b))
        }
        _ => false,
    }
}

/// Whether `c` is a pictograph, or what an emoji sequence puts after one (the emoji
/// presentation selector, a keycap): near enough to Unicode's `Extended_Pictographic` for
/// telling an emoji's joiner from a stray one.
fn is_pictograph(c: char) -> bool {
    matches!(c,
        '\u{00a9}' | '\u{00ae}' | '\u{203c}' | '\u{2049}' | '\u{2122}' | '\u{2139}'
        | '\u{2194}'..='\u{21ff}'
        | '\u{2300}'..='\u{23ff}'
        | '\u{2600}'..='\u{27bf}'
        | '\u{2b00}'..='\u{2bff}'
        | '\u{fe0f}' | '\u{20e3}'
        | '\u{1f000}'..='\u{1faff}')
}

/// Whether `text` is its own [`fold`]: ASCII without an upper-case letter, as nearly every id
/// is, told by a look at its bytes.
pub fn is_plain(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
}

/// `text` as two names are compared to find the one meant: invisible characters dropped,
/// compatibility forms and compositions made one (NFKC: `ｖ` is `v`, `e` and a combining
/// acute are `é`), and lower case. Two names with the same fold read the same, or but for
/// case.
pub fn fold(text: &str) -> Cow<'_, str> {
    if is_plain(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter(|&c| !is_invisible(c))
            .nfkc()
            .flat_map(char::to_lowercase)
            .collect(),
    )
}

/// "`ni\u{200d}xl` holds an invisible character, U+200D ZERO WIDTH JOINER", for a name
/// quoted in a message that holds any; `None` when it holds none.
pub fn invisible_note(text: &str) -> Option<String> {
    let mut count = 0;
    let mut distinct: Vec<char> = Vec::new();
    for c in text.chars().filter(|&c| is_invisible(c)) {
        count += 1;
        if !distinct.contains(&c) {
            distinct.push(c);
        }
    }
    let named: Vec<String> = distinct.iter().map(|&c| describe(c)).collect();
    match count {
        0 => None,
        1 => Some(format!(
            "`{text}` holds an invisible character, {}",
            named.join("")
        )),
        _ => Some(format!(
            "`{text}` holds {count} invisible characters: {}",
            named.join(", ")
        )),
    }
}

/// How two names with the same [`fold`] differ, beyond invisible characters (which
/// [`invisible_note`] names): "they differ only in Unicode normalisation: the id is composed
/// (NFC), the file name decomposed (NFD)", or in compatibility forms, or in case. Each name
/// comes with what the note calls it; `None` when their folds differ, or when invisible
/// characters are all that tells them apart.
pub fn only_difference((what_a, a): (&str, &str), (what_b, b): (&str, &str)) -> Option<String> {
    if fold(a) != fold(b) {
        return None;
    }
    let (a, b) = (visible(a), visible(b));
    if a == b {
        return None;
    }
    if a.nfc().eq(b.nfc()) {
        return Some(format!(
            "they differ only in Unicode normalisation: {what_a} is {}, {what_b} {}",
            form(&a),
            form(&b)
        ));
    }
    if a.nfkc().eq(b.nfkc()) {
        return Some(format!(
            "they differ only in Unicode compatibility forms (full-width letters, ligatures and the like), which NFKC makes `{}`",
            a.nfkc().collect::<String>()
        ));
    }
    Some("they differ only in case".to_string())
}

/// Which normalisation form `text` is in, for a note.
fn form(text: &str) -> &'static str {
    match (is_nfc(text), is_nfd(text)) {
        (true, _) => "composed (NFC)",
        (false, true) => "decomposed (NFD)",
        (false, false) => "partly composed (neither NFC nor NFD)",
    }
}

/// "U+200D ZERO WIDTH JOINER": an invisible character's code point and, for the ones met in
/// practice, its Unicode name.
pub fn describe(c: char) -> String {
    let name = match c {
        '\u{00ad}' => " SOFT HYPHEN",
        '\u{061c}' => " ARABIC LETTER MARK",
        '\u{180e}' => " MONGOLIAN VOWEL SEPARATOR",
        '\u{200b}' => " ZERO WIDTH SPACE",
        '\u{200c}' => " ZERO WIDTH NON-JOINER",
        '\u{200d}' => " ZERO WIDTH JOINER",
        '\u{200e}' => " LEFT-TO-RIGHT MARK",
        '\u{200f}' => " RIGHT-TO-LEFT MARK",
        '\u{202a}' => " LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => " RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => " POP DIRECTIONAL FORMATTING",
        '\u{202d}' => " LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => " RIGHT-TO-LEFT OVERRIDE",
        '\u{2060}' => " WORD JOINER",
        '\u{2061}' => " FUNCTION APPLICATION",
        '\u{2062}' => " INVISIBLE TIMES",
        '\u{2063}' => " INVISIBLE SEPARATOR",
        '\u{2064}' => " INVISIBLE PLUS",
        '\u{2066}' => " LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => " RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => " FIRST STRONG ISOLATE",
        '\u{2069}' => " POP DIRECTIONAL ISOLATE",
        '\u{feff}' => " ZERO WIDTH NO-BREAK SPACE (byte-order mark)",
        _ => "",
    };
    format!("U+{:04X}{name}", u32::from(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_characters_are_invisible_and_letters_are_not() {
        for c in [
            '\u{200b}', '\u{200d}', '\u{202e}', '\u{2066}', '\u{feff}', '\u{ad}',
        ] {
            assert!(is_invisible(c), "{c:?}");
            assert!(is_unprintable(c), "{c:?}");
        }
        for c in ['a', 'é', '\u{301}', '😀', ' ', '\u{a0}'] {
            assert!(!is_invisible(c), "{c:?}");
            assert!(!is_unprintable(c), "{c:?}");
        }
        assert!(is_unprintable('\u{1b}') && is_unprintable('\u{2028}'));
    }

    #[test]
    fn a_joiner_inside_an_emoji_is_part_of_it() {
        assert!(joins_emoji(Some('👨'), '\u{200d}', Some('👩')));
        assert!(joins_emoji(Some('\u{fe0f}'), '\u{200d}', Some('🔥')));
        assert!(!joins_emoji(Some('i'), '\u{200d}', Some('x')));
        assert!(!joins_emoji(None, '\u{200d}', Some('👩')));
        assert!(joins_emoji(Some('\u{1f3f4}'), '\u{e0067}', None));
        assert!(!joins_emoji(Some('a'), '\u{e0067}', None));
    }

    #[test]
    fn folds_make_look_alikes_one() {
        assert_eq!(fold("vllm"), Cow::Borrowed("vllm"));
        assert_eq!(fold("ｖｌｌｍ"), "vllm");
        assert_eq!(fold("ni\u{200d}xl"), "nixl");
        assert_eq!(fold("cafe\u{301}"), fold("caf\u{e9}"));
        assert_eq!(fold("VLLM"), "vllm");
        assert_eq!(fold("\u{200b}"), "");
    }

    #[test]
    fn notes_say_how_look_alikes_differ() {
        assert_eq!(
            invisible_note("ni\u{200d}xl").as_deref(),
            Some("`ni\u{200d}xl` holds an invisible character, U+200D ZERO WIDTH JOINER")
        );
        assert_eq!(
            invisible_note("\u{200b}a\u{200b}\u{2066}").as_deref(),
            Some(
                "`\u{200b}a\u{200b}\u{2066}` holds 3 invisible characters: U+200B ZERO WIDTH SPACE, U+2066 LEFT-TO-RIGHT ISOLATE"
            )
        );
        assert_eq!(invisible_note("vllm"), None);
        assert_eq!(
            only_difference(("the id", "caf\u{e9}"), ("the file name", "cafe\u{301}")).as_deref(),
            Some(
                "they differ only in Unicode normalisation: the id is composed (NFC), the file name decomposed (NFD)"
            )
        );
        assert!(
            only_difference(("a", "ｖｌｌｍ"), ("b", "vllm"))
                .is_some_and(|note| note.contains("compatibility forms"))
        );
        assert_eq!(
            only_difference(("a", "VLLM"), ("b", "vllm")).as_deref(),
            Some("they differ only in case")
        );
        assert_eq!(only_difference(("a", "ni\u{200d}xl"), ("b", "nixl")), None);
        assert_eq!(only_difference(("a", "vllm"), ("b", "nixl")), None);
    }
}
