//! Links between the site's files, and the check that every one of them arrives.
//!
//! Every internal link is relative and names a file (`../../engines/vllm/index.html`), never a
//! folder: that is the one form that works both under any base URL (`/`, a GitHub Pages
//! sub-path such as `/inference-research/`) and when the folder is opened from disk, where a
//! link to a folder shows a directory listing. Absolute URLs, built from the base URL, appear
//! only where a relative one cannot work: the feed, the sitemap, canonical links and the
//! 404 page, which a server shows at any depth.

use std::borrow::Cow;

use percent_encoding::{
    AsciiSet, CONTROLS, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode,
};

/// Characters escaped in a path segment: what would end it, start a query or fragment, or
/// be read as an escape, and what HTML attributes and XML would have to escape.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'&')
    .add(b'\'')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'\\')
    .add(b'`')
    .add(b'{')
    .add(b'}');

/// The site path of page `number` (from 0) of the list at `list` (a path ending in `/`):
/// the list's own path for the first, `page/2/`, `page/3/` below it for the others (as Zola
/// numbers its pages).
pub fn list_page(list: &str, number: usize) -> String {
    match number {
        0 => list.to_string(),
        _ => format!("{list}page/{}/", number + 1),
    }
}

/// How many pages a list of `len` records takes at `per_page` a page (0: one page, however
/// long), an empty list included.
pub fn page_count(len: usize, per_page: usize) -> usize {
    match per_page {
        0 => 1,
        _ => len.div_ceil(per_page).max(1),
    }
}

/// The way from a file back to the site root: `""` for `index.html`, `"../../"` for
/// `engines/vllm/index.html`.
pub fn root_of(file: &str) -> String {
    "../".repeat(file.matches('/').count())
}

/// A path with each segment percent-encoded. [`SEGMENT`] leaves `/` alone, so the path is
/// encoded whole, and borrowed when nothing in it needs encoding, as in most site paths.
pub(super) fn encode_segments(path: &str) -> Cow<'_, str> {
    // Nearly every path is made of ids, with nothing to encode, and every page writes
    // dozens: it is checked sixteen bytes at a time first, where percent-encoding looks each
    // byte up in its set (2.2% of the instructions of a build of 10,000 records).
    if crate::scan::unmarked_run(path.as_bytes(), encoded_in_segment) == path.len() {
        return Cow::Borrowed(path);
    }
    utf8_percent_encode(path, SEGMENT).into()
}

/// Whether a path segment holds `byte` percent-encoded: [`SEGMENT`]'s bytes and every byte
/// that is not ASCII, written as comparisons (see [`crate::scan::unmarked_run`]).
fn encoded_in_segment(byte: u8) -> bool {
    !(0x20..0x7F).contains(&byte)
        | (byte == b' ')
        | (byte == b'"')
        | (byte == b'#')
        | (byte == b'%')
        | (byte == b'&')
        | (byte == b'\'')
        | (byte == b'<')
        | (byte == b'>')
        | (byte == b'?')
        | (byte == b'\\')
        | (byte == b'`')
        | (byte == b'{')
        | (byte == b'}')
}

/// A site path as it is written in a URL: each segment percent-encoded, and a folder path
/// (`engines/vllm/`, or `""` for the root) completed with its `index.html`.
pub fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + "index.html".len());
    push_encoded(&mut out, path);
    out
}

/// Appends [`encode`]`(path)` to `out`: every page has dozens of links.
pub fn push_encoded(out: &mut String, path: &str) {
    out.push_str(&encode_segments(path));
    if path.is_empty() || path.ends_with('/') {
        out.push_str("index.html");
    }
}

/// The link from a page to a site path, given the page's way back to the root.
pub fn href(root: &str, path: &str) -> String {
    let mut out = String::with_capacity(root.len() + path.len() + "index.html".len());
    push_href(&mut out, root, path);
    out
}

/// Appends [`href`]`(root, path)` to `out`.
pub fn push_href(out: &mut String, root: &str, path: &str) {
    out.push_str(root);
    push_encoded(out, path);
}

/// Characters escaped in a query value: all but the unreserved ones and `/`.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~')
    .remove(b'/');

/// Text as a URL query value: `engines/vllm` stays, `a&b` -> `a%26b`.
pub fn query_value(text: &str) -> String {
    utf8_percent_encode(text, QUERY_VALUE).to_string()
}

/// Whether `base_url` is a full URL, with a scheme and a host, rather than a path on the
/// server (`/`, `/kb/`): only a full one makes the feed's, the sitemap's and canonical
/// links' URLs mean one place wherever they are read.
pub fn is_full(base_url: &str) -> bool {
    base_url.contains("://")
}

/// A site path's absolute URL under `base_url`, folders without `index.html` (the form a
/// server answers and a reader shares).
pub fn absolute(base_url: &str, path: &str) -> String {
    let mut out = String::with_capacity(base_url.len() + path.len());
    push_absolute(&mut out, base_url, path);
    out
}

/// Appends [`absolute`]`(base_url, path)` to `out`.
pub fn push_absolute(out: &mut String, base_url: &str, path: &str) {
    out.push_str(base_url);
    out.push_str(&encode_segments(path));
}

/// The web address of a file of the repository: `repo_url` with the path in place of
/// `{path}`, or after `/blob/HEAD/`, the form GitHub and Gitea give the default branch.
pub fn repo_file(repo_url: &str, path: &str) -> String {
    let encoded = encode_segments(path);
    if repo_url.contains("{path}") {
        repo_url.replace("{path}", &encoded)
    } else {
        format!("{}/blob/HEAD/{encoded}", repo_url.trim_end_matches('/'))
    }
}

/// The links of one generated HTML page that arrive nowhere, in page order: every `href`
/// and `src` value that is relative (resolved against the page's folder) or starts with the
/// base URL must name a file in `files`. External links and fragments are not followed.
pub fn broken_links(
    file: &str,
    html: &str,
    files: &foldhash::HashSet<&str>,
    base_url: &str,
) -> Vec<String> {
    let folder = file
        .rfind('/')
        .and_then(|i| file.get(..=i))
        .unwrap_or_default();
    // Every page of a site is checked, each with dozens of links: one buffer for the paths
    // they lead to, rather than a few strings per link, and the page's depth counted once
    // rather than for each link (66 -> 59 ms over the pages measured at attribute_values).
    let mut target = String::new();
    let depth = depth(folder);
    attribute_values(html)
        .filter(|url| !arrives(folder, depth, url, files, base_url, &mut target))
        .map(Cow::into_owned)
        .collect()
}

/// Whether `url`, on a page in `folder` (`depth` folders below the root), names a file of
/// the site; `target` is scratch space.
fn arrives(
    folder: &str,
    depth: usize,
    url: &str,
    files: &foldhash::HashSet<&str>,
    base_url: &str,
    target: &mut String,
) -> bool {
    let path = url
        .get(..memchr::memchr2(b'#', b'?', url.as_bytes()).unwrap_or(url.len()))
        .unwrap_or_default();
    if path.is_empty() {
        return true;
    }
    if let Some(below) = path.strip_prefix(base_url) {
        target.clear();
        target.push_str(&decode(below));
        if target.is_empty() || target.ends_with('/') {
            target.push_str("index.html");
        }
    } else if is_external(path) {
        return true;
    } else if let Some(from_root) = from_root(depth, path) {
        return files.contains(from_root);
    } else if !resolve(folder, &decode(path), target) {
        return false;
    }
    files.contains(target.as_str())
}

/// The site path of a link that climbs from a folder `depth` below the root straight back
/// to the root and then names its target plainly (`../../engines/vllm/index.html` from
/// `gotchas/x/`): the path after the climb, as [`resolve`] would write it. Most links of a
/// page have this form, and are checked without being copied.
fn from_root(depth: usize, url: &str) -> Option<&str> {
    let mut rest = url;
    for _ in 0..depth {
        rest = rest.strip_prefix("../")?;
    }
    let plain = memchr::memchr(b'%', rest.as_bytes()).is_none() && !has_dot_segment(rest);
    plain.then_some(rest)
}

/// How many folders below the site's root `folder` is: `engines/vllm/` is two.
fn depth(folder: &str) -> usize {
    folder.split('/').filter(|part| !part.is_empty()).count()
}

/// Whether a path has a `.` or `..` segment. Looks only at its dots: a link's path has one
/// or two (`index.html`), and splitting every link into segments was a tenth of the check.
fn has_dot_segment(path: &str) -> bool {
    let bytes = path.as_bytes();
    memchr::memchr_iter(b'.', bytes).any(|at| {
        let starts = at == 0 || bytes.get(at - 1) == Some(&b'/');
        let after = bytes.get(at + 1..).unwrap_or_default();
        starts && matches!(after, [] | [b'/', ..] | [b'.'] | [b'.', b'/', ..])
    })
}

/// A URL with a scheme (`https:`, `mailto:`), or protocol-relative, or rooted at a host.
fn is_external(url: &str) -> bool {
    let scheme = memchr::memchr(b':', url.as_bytes())
        .and_then(|colon| url.get(..colon))
        .is_some_and(|scheme| !scheme.is_empty() && !scheme.contains('/'));
    scheme || url.starts_with('/')
}

/// Writes into `out` the path of `relative` from `folder`, `..` and `.` applied; false when
/// it leads above the root.
fn resolve(folder: &str, relative: &str, out: &mut String) -> bool {
    fn push(out: &mut String, parts: &mut usize, part: &str) {
        if *parts > 0 {
            out.push('/');
        }
        out.push_str(part);
        *parts += 1;
    }
    out.clear();
    let mut parts = 0_usize;
    for part in folder.split('/').filter(|p| !p.is_empty()) {
        push(out, &mut parts, part);
    }
    for part in relative.split('/') {
        match part {
            "." => {}
            ".." => {
                if parts == 0 {
                    return false;
                }
                parts -= 1;
                let cut = if parts == 0 {
                    0
                } else {
                    out.rfind('/').unwrap_or(0)
                };
                out.truncate(cut);
            }
            part => push(out, &mut parts, part),
        }
    }
    true
}

fn decode(text: &str) -> Cow<'_, str> {
    percent_decode_str(text).decode_utf8_lossy()
}

/// Every `href="..."` and `src="..."` value of a tag, unescaped, in page order. The pages
/// are generated, so their attributes are always double-quoted; text between tags may say
/// `href="style.css"` too (prose about HTML escapes `<` but not quotes), and is no link.
///
/// One pass of memchr's vectorised search for `=`, checking each for an opening quote after
/// it and a link attribute's name before it. Searching for `href="`, then for `src="`, took
/// 30% of this check's time, as both searches stopped at most of a page's quotes: over the
/// 10,090 pages of a site of 10,000 generated records, checking every link took 86 ms on
/// one core that way, 66 ms this way. Whether one is in a tag is read from the last `<` or
/// `>` before it, looked for only back to the previous one found, so the page is read once.
fn attribute_values(html: &str) -> impl Iterator<Item = Cow<'_, str>> + '_ {
    let bytes = html.as_bytes();
    let mut in_tag = false;
    let mut read_to = 0;
    memchr::memchr_iter(b'=', bytes).filter_map(move |equals| {
        if bytes.get(equals + 1) != Some(&b'"') {
            return None;
        }
        let name = LINK_ATTRIBUTES.iter().find_map(|name| {
            let start = equals.checked_sub(name.len())?;
            (bytes.get(start..equals)? == name.as_bytes()).then_some(start)
        })?;
        let preceded = html
            .get(..name)?
            .chars()
            .next_back()
            .is_some_and(char::is_whitespace);
        if let Some(last) = memchr::memrchr2(b'<', b'>', bytes.get(read_to..name)?) {
            in_tag = bytes.get(read_to + last) == Some(&b'<');
        }
        read_to = name;
        let value = html.get(equals + 2..)?;
        let value = value.get(..memchr::memchr(b'"', value.as_bytes())?)?;
        (preceded && in_tag).then(|| unescape(value))
    })
}

/// The attributes whose values [`broken_links`] follows.
const LINK_ATTRIBUTES: [&str; 2] = ["href", "src"];

/// Undoes HTML escaping: the named entities [`crate::markup::escape`] and Markdown write,
/// and numeric ones.
fn unescape(text: &str) -> Cow<'_, str> {
    if memchr::memchr(b'&', text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before, from)) = rest.find('&').and_then(|at| rest.split_at_checked(at)) {
        out.push_str(before);
        rest = from;
        let decoded = rest.find(';').and_then(|end| {
            let entity = rest.get(1..end)?;
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => entity
                    .strip_prefix("#x")
                    .or_else(|| entity.strip_prefix("#X"))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .or_else(|| entity.strip_prefix('#').and_then(|dec| dec.parse().ok()))
                    .and_then(char::from_u32),
            }?;
            Some((c, end + 1))
        });
        match decoded {
            Some((c, length)) => {
                out.push(c);
                rest = rest.get(length..).unwrap_or_default();
            }
            None => {
                out.push('&');
                rest = rest.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_test_of_a_segment_agrees_with_its_set() {
        for byte in 0..=0x7F_u8 {
            let text = char::from(byte).to_string();
            let encoded = utf8_percent_encode(&text, SEGMENT).to_string() != text;
            assert_eq!(encoded_in_segment(byte), encoded, "byte {byte:#04x}");
        }
        assert!((0x80..=0xFF).all(encoded_in_segment));
        assert_eq!(encode_segments("engines/vllm é"), "engines/vllm%20%C3%A9");
        assert!(matches!(
            encode_segments("engines/vllm-0.6"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn links_are_relative_and_name_files() {
        assert_eq!(root_of("index.html"), "");
        assert_eq!(root_of("engines/vllm/index.html"), "../../");
        assert_eq!(
            href("../../", "engines/vllm/"),
            "../../engines/vllm/index.html"
        );
        assert_eq!(href("", ""), "index.html");
        assert_eq!(href("../", "assets/style.css"), "../assets/style.css");
        assert_eq!(href("", "a b/c#d/"), "a%20b/c%23d/index.html");
    }

    #[test]
    fn resolves_relative_paths_against_a_folder() {
        let mut out = String::from("left over");
        let mut resolved =
            |folder: &str, relative: &str| resolve(folder, relative, &mut out).then(|| out.clone());
        assert_eq!(
            resolved("engines/vllm/", "../../index.html").unwrap(),
            "index.html"
        );
        assert_eq!(
            resolved("engines/vllm/", "../vllm/").unwrap(),
            "engines/vllm/"
        );
        assert_eq!(
            resolved("engines/", "./a/./b.html").unwrap(),
            "engines/a/b.html"
        );
        assert_eq!(resolved("", "a/../b").unwrap(), "b");
        assert_eq!(resolved("a/", "../../x"), None);
    }

    #[test]
    fn checks_relative_and_base_url_links() {
        let files: foldhash::HashSet<&str> =
            ["index.html", "engines/vllm/index.html", "a b/index.html"]
                .into_iter()
                .collect();
        let html = r#"<a href="../../index.html">x</a><a href="../../a%20b/index.html#top">y</a>
            <a href="../vllm/">folder</a><a href="https://example.org/">ext</a>
            <a href="/kb/engines/vllm/">base</a><img src="../../missing.png">
            <a href="../../../above.html">z</a><a data-href="ignored">w</a>
            <a href="..&#x2f;..&#x2f;index.html?q=a&amp;b">entities</a>"#;
        let broken = broken_links("engines/vllm/index.html", html, &files, "/kb/");
        assert_eq!(
            broken,
            vec!["../vllm/", "../../missing.png", "../../../above.html"]
        );
    }

    /// Paths made of the pieces relative links are written with.
    fn pathish(
        pieces: &'static [&'static str],
    ) -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop::collection::vec(prop::sample::select(pieces), 0..8).prop_map(|chosen| chosen.concat())
    }

    const FOLDER_PIECES: &[&str] = &["a/", "bc/", "/", "index.html"];
    const HTML_PIECES: &[&str] = &[
        " href=\"",
        "src=\"",
        " src=\"",
        "\nhref=\"",
        "data-href=\"",
        "xsrc=\"",
        "=\"",
        "=",
        "\"",
        " ",
        "a",
        "&amp;",
        "é",
        "\u{a0}href=\"",
        "<a",
        ">",
    ];

    /// What [`attribute_values`] finds, the long way: each attribute name searched for
    /// alone, the values sorted into page order.
    fn attribute_values_one_by_one(html: &str) -> Vec<String> {
        let mut found: Vec<(usize, String)> = LINK_ATTRIBUTES
            .iter()
            .flat_map(|name| {
                let opening = format!("{name}=\"");
                html.match_indices(&opening)
                    .filter_map(|(at, _)| {
                        let preceded = html[..at].chars().next_back()?.is_whitespace();
                        let in_tag =
                            html[..at].rfind(['<', '>']).map(|i| &html[i..=i]) == Some("<");
                        let value = &html[at + opening.len()..];
                        let value = &value[..value.find('"')?];
                        (preceded && in_tag).then(|| (at, unescape(value).into_owned()))
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        found.sort();
        found.into_iter().map(|(_, value)| value).collect()
    }
    const LINK_PIECES: &[&str] = &["../", "./", "..", ".", "a", "/", "x.html", "%20", "b/"];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// One search for every attribute finds what a search for each finds, in page order.
        #[test]
        fn attribute_values_finds_each_link_attribute(html in pathish(HTML_PIECES)) {
            let found: Vec<String> = attribute_values(&html).map(Cow::into_owned).collect();
            proptest::prop_assert_eq!(found, attribute_values_one_by_one(&html));
        }

        /// The short way to a link's path gives what resolving it the long way gives.
        #[test]
        fn from_root_agrees_with_resolve(
            folder in pathish(FOLDER_PIECES),
            url in pathish(LINK_PIECES)
        ) {
            let folder = folder.rfind('/').map_or("", |i| &folder[..=i]);
            if let Some(short) = from_root(depth(folder), &url) {
                let mut long = String::new();
                proptest::prop_assert!(resolve(folder, &decode(&url), &mut long));
                proptest::prop_assert_eq!(short, long.as_str());
            }
        }
    }
}
