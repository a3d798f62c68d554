//! `gotchas new`: a record skeleton built from the schema, as valid as placeholders can make
//! it.
//!
//! Every required field, with the plainest value its schema accepts: the id and name given,
//! the collection's `type`, `draft` for a status-like enum (else its first member), today's
//! date for date fields, a placeholder of a string's `format`, the least number the bounds
//! allow, as many items as `minItems` asks, nested objects with their own required fields.
//! `$ref`s are followed through the schema folder's files and `allOf` parts merged, as the
//! checker reads them; a schema's `const`, `default` or first `examples` value is taken when
//! it validates, and of `oneOf`/`anyOf` the first branch whose value does. Each value is
//! tried in the record with the collection's validator, so a choice is kept only when the
//! validator finds nothing wrong at or under its place. What no placeholder can meet (a
//! `pattern`, a reference with no record to point at) is left for the caller to report.
//! The author then fills in what the record says.

use serde_json::{Map, Value};

use crate::diagnostic::push_pointer_segment;
use crate::schema::{CONJUNCTS, Collection, Node};

/// A required reference field that had to be pointed at some record to validate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placeholder {
    /// The field's JSON pointer (`/engine`, `/related/0`).
    pub field: String,
    /// The id it was given.
    pub id: String,
}

/// The deepest a skeleton nests: a required field whose schema refers back to itself
/// would otherwise never end.
const MAX_DEPTH: usize = 16;

/// The most items an array is given to meet its `minItems`: a schema asking for millions
/// would otherwise fill the file (the validator then reports the rest as missing).
const MAX_ITEMS: u64 = 64;

/// The most values a skeleton is made of: a schema whose every level requires several
/// copies of itself, or arrays of arrays each with a large `minItems`, would otherwise grow
/// exponentially within [`MAX_DEPTH`]. Past it, values are null, which the validator reports.
const MAX_VALUES: usize = 2000;

/// Builds the skeleton value. `sources` fills the `sources` field when given. A reference
/// field that may be null is null; a required one that may not is given the id
/// `first_record` returns for its target collections, and reported back as a
/// [`Placeholder`] so the author is told to point it at the right record. When its targets
/// have no record, it is left empty, for the caller's validation to report.
pub fn skeleton(
    collection: &Collection,
    id: &str,
    name: &str,
    sources: &[String],
    today: &str,
    first_record: &dyn Fn(&[usize]) -> Option<String>,
) -> (Value, Vec<Placeholder>) {
    let mut builder = Builder {
        collection,
        today,
        first_record,
        placeholders: Vec::new(),
        made: 0,
        record: Map::new(),
    };
    let Some(root) = collection.schema_node() else {
        return (Value::Object(Map::new()), Vec::new());
    };
    let all = collection.documents().gather(root, CONJUNCTS);
    let required = required(&all);
    let declared = declared(&all);
    let mut fields: Vec<&str> = declared
        .iter()
        .map(|(field, _)| *field)
        // The name is given, so it is written wherever the schema has a place for it.
        .filter(|field| {
            required.contains(field)
                || *field == "name"
                || (*field == "sources" && !sources.is_empty())
        })
        .chain(
            required
                .iter()
                .copied()
                .filter(|field| declared.iter().all(|(d, _)| d != field)),
        )
        .collect();
    // A base schema merged through `allOf` comes after the schema's own fields; the
    // fields every record starts with come first wherever they are declared.
    fields.sort_by_key(|field| match *field {
        "id" => 0,
        "type" => 1,
        "name" => 2,
        _ => 3,
    });
    for field in fields {
        let value = match field {
            "id" => Value::String(id.to_string()),
            "name" => Value::String(name.to_string()),
            "type" => Value::String(collection.name.clone()),
            "sources" if !sources.is_empty() => {
                Value::Array(sources.iter().cloned().map(Value::String).collect())
            }
            _ => {
                let nodes = schemas_of(&declared, field);
                builder.value(&nodes, &[Step::Key(field.to_string())], 0, true)
            }
        };
        builder.record.insert(field.to_string(), value);
    }
    (Value::Object(builder.record), builder.placeholders)
}

/// One step down a record: an object's member or an array's item.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Item(usize),
}

/// A JSON pointer of `path`.
fn pointer(path: &[Step]) -> String {
    let mut pointer = String::new();
    for step in path {
        match step {
            Step::Key(key) => push_pointer_segment(&mut pointer, key),
            Step::Item(index) => push_pointer_segment(&mut pointer, &index.to_string()),
        }
    }
    pointer
}

/// Makes skeleton values, trying each in the record built so far.
struct Builder<'a> {
    collection: &'a Collection,
    today: &'a str,
    first_record: &'a dyn Fn(&[usize]) -> Option<String>,
    placeholders: Vec<Placeholder>,
    /// How many values were made, towards [`MAX_VALUES`].
    made: usize,
    /// The top-level fields made so far.
    record: Map<String, Value>,
}

impl<'a> Builder<'a> {
    /// A value for the place `path` that matches every schema of `nodes`. With `branches`,
    /// the branches of a `oneOf`/`anyOf` among them are tried when the value made without
    /// them does not fit.
    fn value(&mut self, nodes: &[Node<'a>], path: &[Step], depth: usize, branches: bool) -> Value {
        if depth > MAX_DEPTH || self.made >= MAX_VALUES {
            return Value::Null;
        }
        self.made += 1;
        let all: Vec<Node<'a>> = nodes
            .iter()
            .flat_map(|node| self.collection.documents().gather(node.clone(), CONJUNCTS))
            .collect();
        if let Some(constant) = all.iter().find_map(|node| node.value.get("const")) {
            return constant.clone();
        }
        let types = types(&all);
        if let Some(reference) = self.reference_at(path, &types) {
            return reference;
        }
        if let Some(chosen) = self.given(&all, path) {
            return chosen;
        }
        let mark = self.placeholders.len();
        let made = match types.first().copied() {
            Some("string") => self.string(&all, path),
            Some("integer") => number(&all, true),
            Some("number") => number(&all, false),
            Some("boolean") => Value::Bool(false),
            Some("array") => self.array(&all, path, depth),
            Some("object") => self.object(&all, path, depth),
            _ => Value::Null,
        };
        let options: Vec<Node<'a>> = all
            .iter()
            .find_map(|node| {
                let found: Vec<Node<'a>> = ["oneOf", "anyOf"]
                    .iter()
                    .flat_map(|keyword| node.children(keyword))
                    .collect();
                (!found.is_empty()).then_some(found)
            })
            .unwrap_or_default();
        if !branches || options.is_empty() || (!made.is_null() && self.fits(path, &made)) {
            return made;
        }
        // The references pointed while making a value that is not kept are not reported.
        let made_placeholders = self.placeholders.split_off(mark);
        let mut first = None;
        for branch in options {
            let mut with = nodes.to_vec();
            with.push(branch);
            let value = self.value(&with, path, depth + 1, false);
            if self.fits(path, &value) {
                return value;
            }
            let pointed = self.placeholders.split_off(mark);
            first.get_or_insert((value, pointed));
        }
        match first {
            Some((value, pointed)) if made.is_null() => {
                self.placeholders.extend(pointed);
                value
            }
            _ => {
                self.placeholders.extend(made_placeholders);
                made
            }
        }
    }

    /// The value of a reference field at `path`, when it is one: null when it may be, else
    /// the first record of its targets (a [`Placeholder`]), else empty.
    fn reference_at(&mut self, path: &[Step], types: &[&str]) -> Option<Value> {
        let keys: Vec<&str> = path
            .iter()
            .filter_map(|step| match step {
                Step::Key(key) => Some(key.as_str()),
                Step::Item(_) => None,
            })
            .collect();
        let reference = self
            .collection
            .references
            .iter()
            .find(|reference| reference.path == keys)?;
        if types.contains(&"null") {
            return Some(Value::Null);
        }
        if types.first().is_some_and(|t| *t != "string") {
            return None;
        }
        let Some(target) = (self.first_record)(reference.targets) else {
            return Some(Value::String(String::new()));
        };
        self.placeholders.push(Placeholder {
            field: pointer(path),
            id: target.clone(),
        });
        Some(Value::String(target))
    }

    /// The value the schema gives that fits: an `enum` member (`draft` first, null last),
    /// its `default`, its first `examples` value. The first member of an enum that none
    /// fits, as nothing else could.
    fn given(&self, all: &[Node<'a>], path: &[Step]) -> Option<Value> {
        let options = all
            .iter()
            .find_map(|node| node.value.get("enum").and_then(Value::as_array));
        let mut candidates: Vec<&Value> = Vec::new();
        if let Some(options) = options {
            let draft = Value::String("draft".into());
            candidates.extend(options.iter().filter(|v| **v == draft));
            candidates.extend(options.iter().filter(|v| **v != draft && !v.is_null()));
            candidates.extend(options.iter().filter(|v| v.is_null()));
        }
        candidates.extend(all.iter().filter_map(|node| node.value.get("default")));
        candidates.extend(all.iter().filter_map(|node| {
            node.value
                .get("examples")
                .and_then(Value::as_array)
                .and_then(|examples| examples.first())
        }));
        candidates
            .into_iter()
            .find(|candidate| self.fits(path, candidate))
            .or_else(|| options.and_then(|options| options.first()))
            .cloned()
    }

    /// A string: a placeholder of its `format`, today for a date, else empty, or `TODO`s
    /// as many as `minLength` needs; whichever of these fits first.
    fn string(&self, all: &[Node<'a>], path: &[Step]) -> Value {
        let format = all
            .iter()
            .find_map(|node| node.value.get("format").and_then(Value::as_str));
        let date_pattern = all.iter().any(|node| {
            node.value
                .get("pattern")
                .and_then(Value::as_str)
                .is_some_and(|p| p.contains(r"\d{4}-\d{2}-\d{2}"))
        });
        let min_length = all
            .iter()
            .filter_map(|node| node.value.get("minLength").and_then(Value::as_u64))
            .max()
            .unwrap_or(0);
        let mut candidates: Vec<String> = Vec::new();
        if let Some(placeholder) = format.and_then(|f| format_placeholder(f, self.today)) {
            candidates.push(placeholder);
        }
        if date_pattern {
            candidates.push(self.today.to_string());
        }
        candidates.push(String::new());
        if min_length > 0 {
            // `TODO` words joined by spaces: n of them are 5n - 1 characters long.
            let words = usize::try_from((min_length + 1).div_ceil(5))
                .unwrap_or(1)
                .min(64);
            candidates.push(vec!["TODO"; words].join(" "));
        }
        let first = candidates.first().cloned().unwrap_or_default();
        candidates
            .into_iter()
            .map(Value::String)
            .find(|candidate| self.fits(path, candidate))
            .unwrap_or(Value::String(first))
    }

    /// An array of as many item skeletons as `minItems` asks.
    fn array(&mut self, all: &[Node<'a>], path: &[Step], depth: usize) -> Value {
        let count = all
            .iter()
            .filter_map(|node| node.value.get("minItems").and_then(Value::as_u64))
            .max()
            .unwrap_or(0)
            .min(MAX_ITEMS);
        let mut items = Vec::new();
        for index in 0..usize::try_from(count).unwrap_or(0) {
            let schemas: Vec<Node<'a>> = all
                .iter()
                .filter_map(|node| item_schema(node, index))
                .collect();
            let mut at = path.to_vec();
            at.push(Step::Item(index));
            items.push(self.value(&schemas, &at, depth + 1, true));
        }
        Value::Array(items)
    }

    /// An object of its required properties, each made from every schema declaring it.
    fn object(&mut self, all: &[Node<'a>], path: &[Step], depth: usize) -> Value {
        let required = required(all);
        let declared = declared(all);
        let mut object = Map::new();
        for field in required {
            let mut nodes = schemas_of(&declared, field);
            if nodes.is_empty() {
                nodes.extend(all.iter().filter_map(|node| {
                    node.child("additionalProperties")
                        .filter(|schema| schema.value.is_object())
                }));
            }
            let mut at = path.to_vec();
            at.push(Step::Key(field.to_string()));
            let value = self.value(&nodes, &at, depth + 1, true);
            object.insert(field.to_string(), value);
        }
        Value::Object(object)
    }

    /// Whether `value`, placed at `path` in the record built so far, leaves the validator
    /// nothing to report at or under that place. What it reports elsewhere (the fields not
    /// made yet) is not this value's doing.
    fn fits(&self, path: &[Step], value: &Value) -> bool {
        let mut record = Value::Object(self.record.clone());
        place(&mut record, path, value.clone());
        let at = pointer(path);
        let within = format!("{at}/");
        !self.collection.validator.iter_errors(&record).any(|error| {
            let found = error.instance_path().as_str();
            found == at || found.starts_with(&within)
        })
    }
}

/// Sets the value at `path` in `record`, making the objects and arrays on the way (an
/// array's missing items are null).
fn place(record: &mut Value, path: &[Step], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        *record = value;
        return;
    };
    let mut at = record;
    for (index, step) in parents.iter().enumerate() {
        let next = path.get(index + 1);
        let fresh = || match next {
            Some(Step::Item(_)) => Value::Array(Vec::new()),
            _ => Value::Object(Map::new()),
        };
        at = match step {
            Step::Key(key) => {
                if !at.is_object() {
                    *at = Value::Object(Map::new());
                }
                let Value::Object(map) = at else { return };
                map.entry(key.clone()).or_insert_with(fresh)
            }
            Step::Item(item) => {
                if !at.is_array() {
                    *at = Value::Array(Vec::new());
                }
                let Value::Array(items) = at else { return };
                if items.len() <= *item {
                    items.resize(*item, Value::Null);
                    items.push(fresh());
                }
                let Some(slot) = items.get_mut(*item) else {
                    return;
                };
                slot
            }
        };
    }
    match last {
        Step::Key(key) => {
            if !at.is_object() {
                *at = Value::Object(Map::new());
            }
            if let Value::Object(map) = at {
                map.insert(key.clone(), value);
            }
        }
        Step::Item(item) => {
            if !at.is_array() {
                *at = Value::Array(Vec::new());
            }
            if let Value::Array(items) = at {
                if items.len() <= *item {
                    items.resize(*item + 1, Value::Null);
                }
                if let Some(slot) = items.get_mut(*item) {
                    *slot = value;
                }
            }
        }
    }
}

/// The schema of item `index` of an array whose schema is `node`: its `prefixItems` (or
/// draft 4's list of `items`) there, else `items` (or `additionalItems` after a list).
fn item_schema<'d>(node: &Node<'d>, index: usize) -> Option<Node<'d>> {
    let key = index.to_string();
    if let Some(prefix) = node.child("prefixItems").and_then(|p| p.child(&key)) {
        return Some(prefix);
    }
    let items = node.child("items")?;
    if items.value.is_array() {
        return items
            .child(&key)
            .or_else(|| node.child("additionalItems"))
            .filter(|schema| schema.value.is_object());
    }
    items.value.is_object().then_some(items)
}

/// The required property names of `nodes`, each once, in order.
fn required<'d>(nodes: &[Node<'d>]) -> Vec<&'d str> {
    let mut found: Vec<&'d str> = Vec::new();
    for node in nodes {
        let names = node
            .value
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str);
        for name in names {
            if !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}

/// The properties `nodes` declare, each once, in order, with every schema declaring it.
fn declared<'d>(nodes: &[Node<'d>]) -> Vec<(&'d str, Vec<Node<'d>>)> {
    let mut found: Vec<(&'d str, Vec<Node<'d>>)> = Vec::new();
    for node in nodes {
        let Some(properties) = node.child("properties") else {
            continue;
        };
        let Value::Object(map) = properties.value else {
            continue;
        };
        for name in map.keys() {
            let Some(schema) = properties.child(name) else {
                continue;
            };
            match found.iter_mut().find(|(known, _)| known == name) {
                Some((_, schemas)) => schemas.push(schema),
                None => found.push((name.as_str(), vec![schema])),
            }
        }
    }
    found
}

/// The schemas [`declared`] found for `field`.
fn schemas_of<'d>(declared: &[(&str, Vec<Node<'d>>)], field: &str) -> Vec<Node<'d>> {
    declared
        .iter()
        .find(|(name, _)| *name == field)
        .map(|(_, schemas)| schemas.clone())
        .unwrap_or_default()
}

/// The types a value of `nodes` may have: the first `type` among them, else the one their
/// keywords imply (`properties` an object, `items` an array, `pattern` a string ...).
fn types<'d>(nodes: &[Node<'d>]) -> Vec<&'d str> {
    let declared = nodes.iter().find_map(|node| match node.value.get("type") {
        Some(Value::String(t)) => Some(vec![t.as_str()]),
        Some(Value::Array(ts)) => Some(ts.iter().filter_map(Value::as_str).collect()),
        _ => None,
    });
    if let Some(declared) = declared {
        return declared;
    }
    let has = |keywords: &[&str]| {
        nodes
            .iter()
            .any(|node| keywords.iter().any(|k| node.value.get(k).is_some()))
    };
    if has(&["properties", "required", "additionalProperties"]) {
        vec!["object"]
    } else if has(&["items", "prefixItems", "minItems"]) {
        vec!["array"]
    } else if has(&["pattern", "format", "minLength", "maxLength"]) {
        vec!["string"]
    } else if has(&["minimum", "maximum", "exclusiveMinimum", "multipleOf"]) {
        vec!["number"]
    } else {
        Vec::new()
    }
}

/// A valid value of a string `format`, where one is plain enough to stand for any:
/// `today` for dates.
fn format_placeholder(format: &str, today: &str) -> Option<String> {
    let placeholder = match format {
        "date" => today.to_string(),
        "date-time" => format!("{today}T00:00:00Z"),
        "time" => "00:00:00Z".into(),
        "email" | "idn-email" => "name@example.com".into(),
        "uri" | "iri" | "uri-reference" | "iri-reference" | "url" => "https://example.com/".into(),
        "hostname" | "idn-hostname" => "example.com".into(),
        "ipv4" => "127.0.0.1".into(),
        "ipv6" => "::1".into(),
        "uuid" => "00000000-0000-0000-0000-000000000000".into(),
        "duration" => "P1D".into(),
        _ => return None,
    };
    Some(placeholder)
}

/// The least number the bounds of `nodes` allow (0 when they allow it), a multiple of their
/// `multipleOf`, whole for an integer.
fn number(nodes: &[Node<'_>], integer: bool) -> Value {
    let bound = |keyword: &str, pick: fn(f64, f64) -> f64| {
        nodes
            .iter()
            .filter_map(|node| node.value.get(keyword).and_then(Value::as_f64))
            .reduce(pick)
    };
    // Draft 4 writes an exclusive bound as a flag beside `minimum`.
    let flagged = |keyword: &str| {
        nodes
            .iter()
            .any(|node| node.value.get(keyword) == Some(&Value::Bool(true)))
    };
    let step = bound("multipleOf", f64::max).filter(|step| *step > 0.0);
    let (mut low, mut low_exclusive) = (bound("minimum", f64::max), flagged("exclusiveMinimum"));
    if let Some(exclusive) = bound("exclusiveMinimum", f64::max)
        && low.is_none_or(|low| exclusive >= low)
    {
        (low, low_exclusive) = (Some(exclusive), true);
    }
    let (mut high, mut high_exclusive) = (bound("maximum", f64::min), flagged("exclusiveMaximum"));
    if let Some(exclusive) = bound("exclusiveMaximum", f64::min)
        && high.is_none_or(|high| exclusive <= high)
    {
        (high, high_exclusive) = (Some(exclusive), true);
    }
    let unit = step.unwrap_or(1.0);
    let mut value =
        match (low, high) {
            (Some(low), _) if low_exclusive => low + unit,
            (Some(low), _) => low,
            (None, Some(high)) if high < 0.0 || (high == 0.0 && high_exclusive) => {
                if high_exclusive { high - unit } else { high }
            }
            (None, _) => 0.0,
        };
    if let (Some(low), Some(high)) = (low, high)
        && value > high
    {
        value = f64::midpoint(low, high);
    }
    if let Some(step) = step {
        value = (value / step).ceil() * step;
    }
    if integer {
        value = value.ceil();
    }
    // A whole number within 2^53 is written as an integer, which `integer` asks for.
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        #[allow(clippy::cast_possible_truncation)]
        return Value::from(value as i64);
    }
    serde_json::Number::from_f64(value).map_or(Value::from(0), Value::Number)
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
/// An invisible character (a zero-width space, a soft hyphen) is dropped first: it breaks no
/// word a reader sees, where deunicode would spell it as a space.
pub fn ascii_words(text: &str) -> Vec<String> {
    deunicode::deunicode(&crate::unicode::visible(text))
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
    let (year, month, day) = crate::calendar::civil_from_days(seconds.div_euclid(86_400));
    Ok(format!("{year:04}-{month:02}-{day:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number `number` makes for a property schema.
    fn least(schema: serde_json::Value, integer: bool) -> Value {
        let documents = crate::schema::Documents::of(vec![("/s.json", schema)]);
        number(&[documents.root(0).unwrap()], integer)
    }

    #[test]
    fn numbers_meet_their_bounds() {
        use serde_json::json;
        assert_eq!(least(json!({}), true), json!(0));
        assert_eq!(least(json!({"minimum": 0.5}), true), json!(1));
        assert_eq!(least(json!({"minimum": 0.5}), false), json!(0.5));
        assert_eq!(least(json!({"exclusiveMinimum": 0}), true), json!(1));
        assert_eq!(
            least(json!({"exclusiveMinimum": 0.5, "multipleOf": 0.25}), false),
            json!(0.75)
        );
        assert_eq!(
            least(json!({"minimum": 2, "exclusiveMinimum": true}), true),
            json!(3)
        );
        assert_eq!(
            least(json!({"minimum": 7, "multipleOf": 5}), true),
            json!(10)
        );
        assert_eq!(least(json!({"maximum": -3}), true), json!(-3));
        assert_eq!(least(json!({"exclusiveMaximum": 0}), true), json!(-1));
        assert_eq!(
            least(json!({"exclusiveMinimum": 0, "maximum": 0.5}), false),
            json!(0.25)
        );
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
