//! The Atom feed of recently updated records and the sitemap: the two files read by other
//! programs, so their URLs are absolute (under the base URL) and their dates come from the
//! records' `updated` fields, never from the clock, so that two builds of the same corpus
//! are identical.

use std::borrow::Cow;
use std::io;

use super::content::Content;
use super::urls::{absolute, push_absolute};
use crate::markup::{escape, escaped};

/// Entries in the feed.
const FEED_ENTRIES: usize = 50;

/// URLs in one sitemap file, the protocol's limit.
pub const SITEMAP_URLS: usize = 50_000;

/// `feed.xml`: the most recently updated records.
// Published record and page indices come from this content, the others from its corpus.
#[allow(clippy::indexing_slicing)]
pub fn atom(content: &Content<'_>) -> String {
    let base = &content.site.base_url;
    let entries: Vec<(usize, String)> = content
        .recently_updated()
        .into_iter()
        .filter_map(|p| Some((p, timestamp(content.text(p, "updated")?)?)))
        .take(FEED_ENTRIES)
        .collect();
    let updated = entries
        .first()
        .map_or_else(|| "1970-01-01T00:00:00Z".to_string(), |(_, t)| t.clone());
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n  <title>{}</title>\n  <subtitle>Recently updated records</subtitle>\n  <id>{}</id>\n  <link rel=\"self\" href=\"{}\"/>\n  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n  <updated>{updated}</updated>\n  <author><name>{}</name></author>\n  <generator>gotchas</generator>\n",
        escape(&content.site.title),
        escape(&absolute(base, "")),
        escape(&absolute(base, "feed.xml")),
        escape(&absolute(base, "")),
        escape(&content.site.title),
    );
    for (published, stamp) in entries {
        let record = &content.records[published];
        let url = escape(&absolute(base, &record.page));
        let folder = &content.schemas.collections[content.collection_of(published)].folder;
        out.push_str(&format!(
            "  <entry>\n    <title>{}</title>\n    <id>{url}</id>\n    <link rel=\"alternate\" type=\"text/html\" href=\"{url}\"/>\n    <updated>{stamp}</updated>\n    <category term=\"{}\"/>\n    <summary>{}</summary>\n  </entry>\n",
            escape(content.name(published)),
            escape(folder),
            escape(content.qid(published)),
        ));
    }
    out.push_str("</feed>\n");
    out
}

/// An `updated` value as an Atom timestamp: a date becomes midnight UTC; a full RFC 3339
/// timestamp is kept; anything else cannot be dated.
fn timestamp(updated: &str) -> Option<String> {
    let date = date_of(updated)?;
    Some(if date.len() == updated.len() {
        format!("{updated}T00:00:00Z")
    } else {
        // RFC 3339 allows `t` and `z`; Atom wants them upper case, and they are the only
        // letters of a timestamp.
        updated.to_ascii_uppercase()
    })
}

/// An `updated` value as HTML's `<time datetime>` takes it: a date, or a timestamp with
/// `T` and `Z` in upper case; `None` for what HTML has no such string for (a text that is
/// no date, the year 0, a leap second), which the page then shows as plain text.
pub fn html_datetime(updated: &str) -> Option<Cow<'_, str>> {
    let date = date_of(updated)?;
    let leap_second = updated.get(17..19) == Some("60");
    if date.starts_with("0000") || leap_second {
        return None;
    }
    Some(if date.len() == updated.len() {
        Cow::Borrowed(updated)
    } else {
        Cow::Owned(updated.to_ascii_uppercase())
    })
}

/// A moment: seconds since 1970 in UTC and the nanoseconds after them.
pub type Moment = (i64, u32);

/// The moment an `updated` value names, for putting records in order. Timestamps in other offsets are compared
/// as the moments they are (`01:00+14:00` is the day before's `11:00Z`), which their text
/// does not sort by; a date is its midnight in UTC. `None` for what cannot be dated.
pub fn instant(updated: &str) -> Option<Moment> {
    date_of(updated)?;
    let number = |range: std::ops::Range<usize>| -> i64 {
        updated
            .get(range)
            .and_then(|digits| digits.parse().ok())
            .unwrap_or(0)
    };
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let mut seconds = crate::calendar::days_from_civil(year, month, day) * 86_400;
    let mut nanos = 0;
    if updated.len() > 10 {
        seconds += number(11..13) * 3600 + number(14..16) * 60 + number(17..19);
        let rest = updated.get(19..).unwrap_or_default();
        let (fraction, offset) = match rest.strip_prefix('.') {
            Some(after) => after.split_at(after.bytes().take_while(u8::is_ascii_digit).count()),
            None => ("", rest),
        };
        nanos = format!("{:0<9}", fraction.get(..9).unwrap_or(fraction))
            .parse()
            .unwrap_or(0);
        if let Some(sign) = offset.bytes().next().filter(|b| matches!(b, b'+' | b'-')) {
            let hours: i64 = offset.get(1..3).and_then(|h| h.parse().ok()).unwrap_or(0);
            let minutes: i64 = offset.get(4..6).and_then(|m| m.parse().ok()).unwrap_or(0);
            let east = hours * 3600 + minutes * 60;
            seconds -= if sign == b'+' { east } else { -east };
        }
    }
    Some((seconds, nanos))
}

/// The date of an `updated` value that is a date (`2026-10-03`) or an RFC 3339 timestamp
/// (`2026-10-03T12:00:00Z`, `2026-10-03T12:00:00.5+02:00`). A schema's pattern may let
/// `2026-13-45` or `T25:00` through, and a feed or sitemap holding one is refused by
/// those who read it, so both are checked against the calendar and the clock.
fn date_of(updated: &str) -> Option<&str> {
    let date = updated.get(..10)?;
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        let digits = date.get(range)?;
        digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| digits.parse().ok())?
    };
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    let dashes = date.as_bytes().get(4) == Some(&b'-') && date.as_bytes().get(7) == Some(&b'-');
    let time = match updated.get(10..)? {
        "" => true,
        rest => rest.strip_prefix(['T', 't']).is_some_and(is_time),
    };
    (dashes && (1..=days).contains(&day) && time).then_some(date)
}

/// Whether `text` is RFC 3339's time with its offset: `HH:MM:SS`, an optional fraction,
/// then `Z` or `+HH:MM` / `-HH:MM`.
fn is_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    let at = |i: usize| bytes.get(i).copied();
    let two = |i: usize, most: u8| match (at(i), at(i + 1)) {
        (Some(tens @ b'0'..=b'9'), Some(ones @ b'0'..=b'9')) => {
            (tens - b'0') * 10 + (ones - b'0') <= most
        }
        _ => false,
    };
    let clock =
        two(0, 23) && at(2) == Some(b':') && two(3, 59) && at(5) == Some(b':') && two(6, 60);
    let mut i = 8;
    if at(i) == Some(b'.') {
        let digits = bytes
            .get(i + 1..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return false;
        }
        i += 1 + digits;
    }
    let offset = match at(i) {
        Some(b'Z' | b'z') => bytes.len() == i + 1,
        Some(b'+' | b'-') => {
            bytes.len() == i + 6 && two(i + 1, 23) && at(i + 3) == Some(b':') && two(i + 4, 59)
        }
        _ => false,
    };
    clock && offset
}

/// The sitemap files of a site of `count` pages: `sitemap.xml` alone, or, past the
/// protocol's limit, `sitemap.xml` as an index of `sitemap-1.xml` ... Each file's place in
/// the list is its part for [`write_sitemap`].
pub fn sitemap_names(count: usize) -> Vec<String> {
    let mut names = vec!["sitemap.xml".to_string()];
    if count > SITEMAP_URLS {
        names.extend((1..=count.div_ceil(SITEMAP_URLS)).map(|n| format!("sitemap-{n}.xml")));
    }
    names
}

/// Writes part `part` of the sitemap of `pages` (`(site path, lastmod)`, `count` of them),
/// in the order of [`sitemap_names`]. The sitemaps are written as the pages are, a piece at
/// a time: held whole, those of 100,000 pages were 35 MB, written on one core before the
/// pages.
pub fn write_sitemap<'p>(
    out: &mut dyn io::Write,
    part: usize,
    base_url: &str,
    count: usize,
    pages: impl Iterator<Item = (&'p str, Option<&'p str>)>,
) -> io::Result<()> {
    // Paths are percent-encoded with every character XML escapes, so only the base URL
    // needs escaping, once.
    let base = escape(base_url);
    let mut line = String::new();
    if part == 0 && count > SITEMAP_URLS {
        out.write_all(b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")?;
        for name in sitemap_names(count).iter().skip(1) {
            line.clear();
            line.push_str("  <sitemap><loc>");
            push_absolute(&mut line, &base, name);
            line.push_str("</loc></sitemap>\n");
            out.write_all(line.as_bytes())?;
        }
        return out.write_all(b"</sitemapindex>\n");
    }
    let (skip, take) = match part {
        0 => (0, count),
        n => ((n - 1) * SITEMAP_URLS, SITEMAP_URLS),
    };
    out.write_all(b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")?;
    for (path, lastmod) in pages.skip(skip).take(take) {
        line.clear();
        line.push_str("  <url><loc>");
        push_absolute(&mut line, &base, path);
        line.push_str("</loc>");
        if let Some(date) = lastmod {
            line.push_str("<lastmod>");
            line.push_str(&escaped(date));
            line.push_str("</lastmod>");
        }
        line.push_str("</url>\n");
        out.write_all(line.as_bytes())?;
    }
    out.write_all(b"</urlset>\n")
}

/// A record's `updated` as a sitemap date, when it is one.
pub fn lastmod(updated: Option<&str>) -> Option<&str> {
    date_of(updated?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_is_the_moment_in_utc() {
        assert_eq!(instant("1970-01-01"), Some((0, 0)));
        assert_eq!(instant("2000-03-01"), Some((951_868_800, 0)));
        assert_eq!(instant("1969-12-31T23:00:00-01:00"), Some((0, 0)));
        assert_eq!(
            instant("2026-11-02T01:00:00+14:00"),
            instant("2026-11-01T11:00:00Z")
        );
        assert_eq!(
            instant("2024-02-29t23:59:60.25z"),
            Some((1_709_251_200, 250_000_000))
        );
        assert_eq!(instant("last week"), None);
    }

    #[test]
    fn html_takes_dates_and_upper_case_timestamps() {
        assert_eq!(html_datetime("2026-10-03").as_deref(), Some("2026-10-03"));
        assert_eq!(
            html_datetime("2026-10-03t12:00:00.5z").as_deref(),
            Some("2026-10-03T12:00:00.5Z")
        );
        for no_date in ["2026-02-30", "0000-01-01", "2016-12-31T23:59:60Z", "soon"] {
            assert_eq!(html_datetime(no_date), None, "{no_date}");
        }
    }

    #[test]
    fn timestamps_come_only_from_dates() {
        assert_eq!(
            timestamp("2026-10-03").as_deref(),
            Some("2026-10-03T00:00:00Z")
        );
        assert_eq!(
            timestamp("2026-10-03T12:00:00Z").as_deref(),
            Some("2026-10-03T12:00:00Z")
        );
        assert_eq!(timestamp("last week"), None);
        assert_eq!(
            timestamp("2024-02-29T23:59:60.25+05:30").as_deref(),
            Some("2024-02-29T23:59:60.25+05:30")
        );
        for impossible in [
            "2026-13-45",
            "2026-02-29",
            "2026-04-31",
            "2026-00-10",
            "2026-01-01T25:00:00Z",
            "2026-01-01T12:00:00",
            "2026-01-01T12:00:00+5:00",
            "2026-01-01T12:00Z",
            "2026-01-01 12:00:00Z",
            "２０２６-01-01",
        ] {
            assert_eq!(timestamp(impossible), None, "{impossible}");
        }
    }

    #[test]
    fn large_sitemaps_are_split_under_an_index() {
        let paths: Vec<String> = (0..SITEMAP_URLS + 1).map(|i| format!("r/{i}/")).collect();
        let names = sitemap_names(paths.len());
        assert_eq!(names, vec!["sitemap.xml", "sitemap-1.xml", "sitemap-2.xml"]);
        let part = |part: usize| {
            let mut out = Vec::new();
            let pages = paths.iter().map(|p| (p.as_str(), None));
            write_sitemap(&mut out, part, "https://kb.example/", paths.len(), pages).unwrap();
            String::from_utf8(out).unwrap()
        };
        let index = part(0);
        assert!(
            index.contains("<loc>https://kb.example/sitemap-2.xml</loc>"),
            "{index}"
        );
        assert!(!index.contains("<url>"));
        let first = part(1);
        assert_eq!(first.matches("<url>").count(), SITEMAP_URLS);
        assert!(first.contains("<loc>https://kb.example/r/0/</loc>"));
        let last = part(2);
        assert_eq!(last.matches("<url>").count(), 1);
        assert!(last.contains(&format!("<loc>https://kb.example/r/{SITEMAP_URLS}/</loc>")));
        assert_eq!(sitemap_names(SITEMAP_URLS), vec!["sitemap.xml"]);
    }
}
