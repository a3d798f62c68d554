//! `gotchas new`: a record skeleton that already validates, built from the schema.
//!
//! Every required field, in schema order, with the plainest valid value: the id and name
//! given, the collection's `type`, `draft` for a status-like enum (else its first member),
//! today's date for date fields, the minimum (or 0) for numbers, empty strings, arrays and
//! objects. The author then fills in what the record says.

use serde_json::{Map, Value};

use crate::schema::Collection;

/// A required reference field that had to be pointed at some record to validate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placeholder {
    /// The field.
    pub field: String,
    /// The id it was given.
    pub id: String,
}

/// Builds the skeleton value. `sources` fills the `sources` field when given. A reference
/// field that may be null is null; a required one that may not is given the id
/// `first_record` returns for its target collections, and reported back as a
/// [`Placeholder`] so the author is told to point it at the right record.
pub fn skeleton(
    collection: &Collection,
    id: &str,
    name: &str,
    sources: &[String],
    today: &str,
    first_record: &dyn Fn(&[usize]) -> Option<String>,
) -> (Value, Vec<Placeholder>) {
    let mut placeholders = Vec::new();
    let schema = &collection.schema;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut record = Map::new();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return (Value::Object(record), placeholders);
    };
    for (field, property) in properties {
        // The name is given, so it is written wherever the schema has a place for it.
        let wanted = required.contains(&field.as_str())
            || field == "name"
            || (field == "sources" && !sources.is_empty());
        if !wanted {
            continue;
        }
        let value = match field.as_str() {
            "id" => Value::String(id.to_string()),
            "name" => Value::String(name.to_string()),
            "type" => Value::String(collection.name.clone()),
            "sources" => Value::Array(sources.iter().cloned().map(Value::String).collect()),
            _ => match collection
                .references
                .iter()
                .find(|r| r.path == [field.as_str()])
            {
                Some(reference) if !accepts_null(property) && is_string(property) => {
                    match first_record(reference.targets) {
                        Some(target) => {
                            placeholders.push(Placeholder {
                                field: field.clone(),
                                id: target.clone(),
                            });
                            Value::String(target)
                        }
                        None => plain_value(property, today),
                    }
                }
                Some(_) if accepts_null(property) => Value::Null,
                _ => plain_value(property, today),
            },
        };
        record.insert(field.clone(), value);
    }
    (Value::Object(record), placeholders)
}

fn types(property: &Value) -> Vec<&str> {
    match property.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn accepts_null(property: &Value) -> bool {
    types(property).contains(&"null")
}

fn is_string(property: &Value) -> bool {
    types(property).first() == Some(&"string")
}

/// The plainest value a property schema accepts.
fn plain_value(property: &Value, today: &str) -> Value {
    if let Some(constant) = property.get("const") {
        return constant.clone();
    }
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        let draft = Value::String("draft".into());
        if options.contains(&draft) {
            return draft;
        }
        return options
            .iter()
            .find(|v| !v.is_null())
            .or_else(|| options.first())
            .cloned()
            .unwrap_or(Value::Null);
    }
    let types = types(property);
    let is_date = property.get("format").and_then(Value::as_str) == Some("date")
        || property
            .get("pattern")
            .and_then(Value::as_str)
            .is_some_and(|p| p.contains(r"\d{4}-\d{2}-\d{2}"));
    match types.first().copied() {
        Some("string") if is_date => Value::String(today.to_string()),
        Some("string") => Value::String(String::new()),
        Some("number" | "integer") => property.get("minimum").cloned().unwrap_or(Value::from(0)),
        Some("boolean") => Value::Bool(false),
        Some("array") => Value::Array(Vec::new()),
        Some("object") => Value::Object(Map::new()),
        _ => Value::Null,
    }
}

/// The longest id made from a name, in characters: a record's name may be a sentence, and
/// its id is a file name (most file systems take 255 bytes) and part of every URL to it.
const MAX_MADE_ID: usize = 64;

/// An id made from a name: lower-case ASCII words joined by dashes (`NVIDIA Dynamo` ->
/// `nvidia-dynamo`), as many whole words as fit in `MAX_MADE_ID` (64) characters. Letters
/// outside ASCII are spelt in ASCII first, as Zola's slugs are (`Café` -> `cafe`, `Ärger
/// über Öl` -> `arger-uber-ol`), rather than dropped.
pub fn id_from_name(name: &str) -> String {
    let mut id = String::new();
    for word in ascii_words(name) {
        let dash = usize::from(!id.is_empty());
        if id.len() + dash + word.len() > MAX_MADE_ID {
            if id.is_empty() {
                id.extend(word.chars().take(MAX_MADE_ID));
                id.make_ascii_lowercase();
            }
            break;
        }
        if dash == 1 {
            id.push('-');
        }
        id.push_str(&word.to_ascii_lowercase());
    }
    id
}

/// The words of `text` spelt in ASCII (`Ärger über` -> `Arger`, `uber`), as ids are made of.
pub fn ascii_words(text: &str) -> Vec<String> {
    deunicode::deunicode(text)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Today's date as `YYYY-MM-DD`, from `SOURCE_DATE_EPOCH` when set (reproducible builds and
/// tests), else the system clock, in UTC. A `SOURCE_DATE_EPOCH` that is no whole number of
/// seconds, or names a date with no four-digit year, is refused, as the reproducible-builds
/// convention asks: a date it made up would be written into the record.
pub fn today() -> Result<String, String> {
    // 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    const FIRST: i64 = -62_167_219_200;
    const LAST: i64 = 253_402_300_799;
    let seconds = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(set) => match set.trim().parse::<i64>() {
            Ok(seconds) if (FIRST..=LAST).contains(&seconds) => seconds,
            _ => {
                return Err(format!(
                    "SOURCE_DATE_EPOCH `{set}` is not a number of seconds since 1970 within years 0 to 9999"
                ));
            }
        },
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
            .unwrap_or(0),
    };
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    Ok(format!("{year:04}-{month:02}-{day:02}"))
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_789), (2026, 12, 2));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn ids_from_names() {
        assert_eq!(id_from_name("NVIDIA Dynamo (v2)"), "nvidia-dynamo-v2");
        assert_eq!(id_from_name("  KV cache: dtype!  "), "kv-cache-dtype");
        assert_eq!(id_from_name("Ärger über Öl"), "arger-uber-ol");
        assert_eq!(id_from_name("Café « Mooncake »"), "cafe-mooncake");
        let sentence = "Batch-invariant mode is not part of any KV-offload namespace or \
                        connector compatibility check";
        assert_eq!(
            id_from_name(sentence),
            "batch-invariant-mode-is-not-part-of-any-kv-offload-namespace-or"
        );
        assert_eq!(id_from_name(&"x".repeat(300)), "x".repeat(64));
    }
}
