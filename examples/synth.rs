//! A deterministic synthetic-corpus generator, for benchmarks and scale tests.
//!
//! ```text
//! cargo run --release --example synth -- --records N --format json|yaml|md --seed S \
//!     --out DIR [--error-rate F]
//! ```
//!
//! It writes `DIR/schema/` (the crate's own schemas, byte for byte), `N` records under
//! `DIR/records/<folder>/<id>.<ext>` and a few prose pages under `DIR/docs/`. The mix of
//! collections, the field shapes, the text lengths and the reference fan-out are modelled on a
//! real knowledge base, but every word comes from the fixed lists at the end of this file, so
//! the output is neutral filler that can be shared freely.
//!
//! Every record, doc page and fault draws from its own PRNG, seeded from `--seed`, a stream
//! name and its index. So the output does not depend on the order things are written in, and
//! raising `--error-rate` changes only the faulted records (and the id strings that cite
//! them): a benchmark at 0 and at 0.05 measures the same corpus. The content streams never
//! depend on `--format` either, so the three formats carry the same data.

use std::collections::HashSet;
use std::fmt;
use std::fs;
use std::io;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::thread;
use std::time::Instant;

use serde_json::{Map, Value};
use words::{
    BACKENDS, CODE_TOKENS, ENGINE_DESCRIPTORS, ENGINE_SUFFIXES, FILLERS, FORMATS, HOSTS, LANGUAGES,
    LICENSES, LINK_TEMPLATES, NOUNS, PUBLISHER_SUFFIXES, SOURCE_PREFIXES, SYLLABLES, UNITS, VERBS,
};

const USAGE: &str =
    "usage: synth --records N --format json|yaml|md --seed S --out DIR [--error-rate F]

Writes a deterministic synthetic corpus into DIR (which must be missing or empty):
  DIR/schema/*.schema.json, DIR/records/<folder>/<id>.<ext>, DIR/docs/NN-topic.md
--error-rate is the fraction of records that receive one controlled fault (default 0.01).";

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)).and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Help) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("synth: error: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

/// Why the generator stopped.
#[derive(Debug)]
pub(crate) enum Error {
    /// `--help` was asked for: not a failure.
    Help,
    /// Bad arguments.
    Usage(String),
    /// An output folder that is not safe to write into.
    Refused(String),
    /// A file could not be written.
    Io(PathBuf, io::Error),
    /// A built-in schema could not be read, or a record not serialized: a bug, not a user
    /// error.
    Internal(String),
}

impl Error {
    fn exit_code(&self) -> u8 {
        match self {
            Error::Help => 0,
            Error::Usage(_) | Error::Refused(_) => 2,
            Error::Io(..) | Error::Internal(_) => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Help => f.write_str("help requested"),
            Error::Usage(message) => write!(f, "{message} (see `--help`)"),
            Error::Refused(message) => f.write_str(message),
            Error::Io(path, error) => write!(f, "{}: {error}", path.display()),
            Error::Internal(message) => write!(f, "internal: {message}"),
        }
    }
}

fn usage(message: impl Into<String>) -> Error {
    Error::Usage(message.into())
}

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Json,
    Yaml,
    Md,
}

impl Format {
    fn extension(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Yaml => "yaml",
            Format::Md => "md",
        }
    }
}

#[derive(Debug)]
pub(crate) struct Args {
    records: usize,
    format: Format,
    seed: u64,
    out: PathBuf,
    error_rate: f64,
}

/// Parses `--flag value` and `--flag=value`; every flag but `--error-rate` is required, so
/// that a benchmark script states its corpus completely.
pub(crate) fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, Error> {
    let (mut records, mut format, mut seed, mut out) = (None, None, None, None);
    let mut error_rate = 0.01;
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            return Err(Error::Help);
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.into())),
            _ => (arg, None),
        };
        let value = match inline.or_else(|| args.next()) {
            Some(value) => value,
            None => return Err(usage(format!("`{flag}` needs a value"))),
        };
        match flag.as_str() {
            "--records" => records = Some(parse_number::<usize>(&flag, &value)?),
            "--seed" => seed = Some(parse_number::<u64>(&flag, &value)?),
            "--out" => out = Some(PathBuf::from(value)),
            "--error-rate" => error_rate = parse_number::<f64>(&flag, &value)?,
            "--format" => {
                format = Some(match value.as_str() {
                    "json" => Format::Json,
                    "yaml" => Format::Yaml,
                    "md" => Format::Md,
                    _ => return Err(usage(format!("unknown format `{value}`"))),
                });
            }
            _ => return Err(usage(format!("unknown argument `{flag}`"))),
        }
    }
    let missing = |name: &str| usage(format!("`{name}` is required"));
    let args = Args {
        records: records.ok_or_else(|| missing("--records"))?,
        format: format.ok_or_else(|| missing("--format"))?,
        seed: seed.ok_or_else(|| missing("--seed"))?,
        out: out.ok_or_else(|| missing("--out"))?,
        error_rate,
    };
    if args.records < 3 {
        return Err(usage(
            "`--records` must be at least 3: one record of each kind",
        ));
    }
    if !(0.0..=1.0).contains(&args.error_rate) {
        return Err(usage("`--error-rate` must be between 0 and 1"));
    }
    Ok(args)
}

fn parse_number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, Error> {
    value
        .parse()
        .map_err(|_| usage(format!("`{flag}`: `{value}` is not a valid number")))
}

// ---------------------------------------------------------------------------------------------
// PRNG
// ---------------------------------------------------------------------------------------------

/// SplitMix64: tiny, fast, and the same on every platform, which is all a generator whose
/// output must be byte-identical across runs needs.
struct Rng(u64);

/// The independent streams; see the module documentation for why they are separate.
#[derive(Clone, Copy)]
enum Stream {
    Id = 1,
    Record = 2,
    FaultPlan = 3,
    Fault = 4,
    Doc = 5,
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    /// The generator for item `index` of `stream`.
    fn fork(seed: u64, stream: Stream, index: usize) -> Rng {
        let base = mix64(seed ^ (stream as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        Rng(mix64(base.wrapping_add(index as u64)))
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift: no division, negligible bias.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A word of a word list.
    fn word(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len())]
    }

    /// Up to `k` distinct items of `pool`, in the order drawn.
    fn pick_distinct<T: Copy + PartialEq>(&mut self, pool: &[T], k: usize) -> Vec<T> {
        let k = k.min(pool.len());
        let mut chosen = Vec::with_capacity(k);
        while chosen.len() < k {
            let item = *self.pick(pool);
            if !chosen.contains(&item) {
                chosen.push(item);
            }
        }
        chosen
    }
}

// ---------------------------------------------------------------------------------------------
// Collections and their schemas
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Source = 0,
    Engine = 1,
    Gotcha = 2,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Source, Kind::Engine, Kind::Gotcha];

    /// The record type, as in the schema's `title` and the records' `type`.
    fn name(self) -> &'static str {
        match self {
            Kind::Source => "source",
            Kind::Engine => "engine",
            Kind::Gotcha => "gotcha",
        }
    }

    /// The crate's schema file for this kind: its name and text, copied into every generated
    /// corpus so that the corpus is self-contained.
    fn schema(self) -> (&'static str, &'static str) {
        match self {
            Kind::Source => (
                "source.schema.json",
                include_str!("../schema/source.schema.json"),
            ),
            Kind::Engine => (
                "engine.schema.json",
                include_str!("../schema/engine.schema.json"),
            ),
            Kind::Gotcha => (
                "gotcha.schema.json",
                include_str!("../schema/gotcha.schema.json"),
            ),
        }
    }

    fn folder(self) -> &'static str {
        match self {
            Kind::Source => "sources",
            Kind::Engine => "engines",
            Kind::Gotcha => "gotchas",
        }
    }

    fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The long prose fields: sections of the body in Markdown, not front matter.
    fn long_fields(self) -> &'static [&'static str] {
        match self {
            Kind::Gotcha => &["symptom", "root_cause", "workaround", "notes"],
            Kind::Engine | Kind::Source => &["notes"],
        }
    }
}

/// What the generator needs from a schema, read once at start-up so that records always
/// follow the schema's key order and enums, and faults know what is required.
struct SchemaInfo {
    /// Property names in declaration order.
    order: Vec<String>,
    required: Vec<String>,
    /// Fields with an `enum`, and its values.
    enums: Vec<(String, Vec<Value>)>,
    /// Reference fields (`x-ref` on the array items) and the collection they point to.
    refs: Vec<(String, Kind)>,
}

impl SchemaInfo {
    fn parse(text: &str) -> Result<SchemaInfo, Error> {
        let schema: Value =
            serde_json::from_str(text).map_err(|e| Error::Internal(e.to_string()))?;
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return Err(Error::Internal("no `properties`".into()));
        };
        let strings = |value: Option<&Value>| -> Vec<String> {
            value
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut info = SchemaInfo {
            order: properties.keys().cloned().collect(),
            required: strings(schema.get("required")),
            enums: Vec::new(),
            refs: Vec::new(),
        };
        for (name, property) in properties {
            if let Some(values) = property.get("enum").and_then(Value::as_array) {
                info.enums.push((name.clone(), values.clone()));
            }
            let target = match property.pointer("/items/x-ref") {
                Some(Value::String(target)) => Some(target.as_str()),
                Some(Value::Array(targets)) => targets.first().and_then(Value::as_str),
                _ => None,
            };
            if let Some(kind) = target.and_then(Kind::from_name) {
                info.refs.push((name.clone(), kind));
            }
        }
        Ok(info)
    }

    fn enum_values(&self, field: &str) -> &[Value] {
        self.enums
            .iter()
            .find(|(name, _)| name == field)
            .map_or(&[], |(_, values)| values.as_slice())
    }

    /// A value of the `field` enum. For `status`, mostly the first (`verified`), as in a
    /// curated corpus.
    fn choose(&self, field: &str, rng: &mut Rng) -> Value {
        let values = self.enum_values(field);
        match values.first() {
            None => Value::Null,
            Some(first) if field == "status" && rng.chance(0.7) => first.clone(),
            Some(_) => rng.pick(values).clone(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus plan: kinds, ids, faults
// ---------------------------------------------------------------------------------------------

/// The whole corpus as far as one record needs to know it: every record's kind and id.
struct Corpus {
    kinds: Vec<Kind>,
    ids: Vec<String>,
    /// Record indices per kind, indexed by `Kind as usize`.
    by_kind: [Vec<usize>; 3],
}

/// How many sources, engines and gotchas: about 50 / 15 / 35 %, as in the real corpus, with
/// at least one of each.
fn mix(records: usize) -> [usize; 3] {
    let sources = (records / 2).max(1);
    let engines = (records * 15 / 100).max(1);
    [sources, engines, records - sources - engines]
}

fn plan_corpus(records: usize, seed: u64) -> Corpus {
    let counts = mix(records);
    let kinds: Vec<Kind> = Kind::ALL
        .iter()
        .zip(counts)
        .flat_map(|(&kind, count)| std::iter::repeat_n(kind, count))
        .collect();
    let mut taken = HashSet::with_capacity(records);
    let ids = kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| unique_id(kind, &mut Rng::fork(seed, Stream::Id, i), &mut taken))
        .collect();
    let mut by_kind: [Vec<usize>; 3] = Default::default();
    for (i, &kind) in kinds.iter().enumerate() {
        by_kind[kind as usize].push(i);
    }
    Corpus {
        kinds,
        ids,
        by_kind,
    }
}

/// A fresh id for a `kind` record, unique across the corpus (file names per folder must be
/// unique, and bare `[[id]]` links must not be ambiguous unless a fault says so).
fn unique_id(kind: Kind, rng: &mut Rng, taken: &mut HashSet<String>) -> String {
    let mut attempt = 0;
    loop {
        let mut id = make_id(kind, rng);
        if attempt >= 4 {
            id = format!("{id}-{}", rng.range(2, 99_999));
        }
        if taken.insert(id.clone()) {
            return id;
        }
        attempt += 1;
    }
}

/// An id in the style of its collection: engines are short invented names (`velmor-serve`),
/// gotchas a phrase (`shard-flush-stalls-under-lease`), sources a kind prefix and a phrase.
fn make_id(kind: Kind, rng: &mut Rng) -> String {
    match kind {
        Kind::Engine => {
            let stem = engine_stem(rng);
            if rng.chance(0.6) {
                format!("{stem}-{}", rng.word(ENGINE_SUFFIXES))
            } else {
                stem
            }
        }
        Kind::Gotcha => {
            let count = rng.range(4, 6);
            let verb_at = rng.below(count);
            let words: Vec<&str> = (0..count)
                .map(|i| rng.word(if i == verb_at { VERBS } else { NOUNS }))
                .collect();
            words.join("-")
        }
        Kind::Source => {
            let mut words = vec![rng.word(SOURCE_PREFIXES)];
            let count = rng.range(3, 5);
            words.extend((0..count).map(|_| rng.word(NOUNS)));
            let id = words.join("-");
            if rng.chance(0.4) {
                format!("{id}-{}", rng.range(100, 49_999))
            } else {
                id
            }
        }
    }
}

/// An invented product name of two to four syllables.
fn engine_stem(rng: &mut Rng) -> String {
    (0..rng.range(2, 4)).map(|_| rng.word(SYLLABLES)).collect()
}

/// One controlled fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FaultKind {
    /// A reference id with one letter changed (`velmor` -> `velmar`).
    RefTypo,
    /// A reference to an id that no record has.
    DanglingRef,
    /// An enum value with a slip (`major` -> `majr`).
    EnumTypo,
    /// A field name with two letters swapped (`root_cause` -> `root_casue`).
    FieldTypo,
    /// A required field left out.
    MissingField,
    /// `confidence` written as a string.
    WrongType,
    /// The record's id is also the id of a record of another collection, so a bare
    /// `[[id]]` wiki-link to it is ambiguous.
    AmbiguousId,
}

impl FaultKind {
    const ALL: [FaultKind; 7] = [
        FaultKind::RefTypo,
        FaultKind::DanglingRef,
        FaultKind::EnumTypo,
        FaultKind::FieldTypo,
        FaultKind::MissingField,
        FaultKind::WrongType,
        FaultKind::AmbiguousId,
    ];

    fn name(self) -> &'static str {
        match self {
            FaultKind::RefTypo => "ref-typo",
            FaultKind::DanglingRef => "dangling-ref",
            FaultKind::EnumTypo => "enum-typo",
            FaultKind::FieldTypo => "field-typo",
            FaultKind::MissingField => "missing-field",
            FaultKind::WrongType => "wrong-type",
            FaultKind::AmbiguousId => "ambiguous-id",
        }
    }

    /// Sources cite nothing, so they cannot receive reference faults.
    fn applies_to(self, kind: Kind) -> bool {
        kind != Kind::Source || !matches!(self, FaultKind::RefTypo | FaultKind::DanglingRef)
    }
}

/// Chooses exactly `round(records * rate)` distinct records and a fault kind for each.
fn plan_faults(corpus: &Corpus, rate: f64, seed: u64) -> Vec<Option<FaultKind>> {
    let n = corpus.kinds.len();
    let count = ((n as f64 * rate).round() as usize).min(n);
    let mut rng = Rng::fork(seed, Stream::FaultPlan, 0);
    let mut order: Vec<usize> = (0..n).collect();
    let mut faults = vec![None; n];
    for slot in 0..count {
        let chosen = slot + rng.below(n - slot);
        order.swap(slot, chosen);
        let record = order[slot];
        let kind = corpus.kinds[record];
        let options: Vec<FaultKind> = FaultKind::ALL
            .into_iter()
            .filter(|f| f.applies_to(kind))
            .collect();
        faults[record] = Some(*rng.pick(&options));
    }
    faults
}

/// Gives each `AmbiguousId` record the id of an unfaulted record of another collection
/// (each such record lent at most once, so no folder gets two files of one name), and
/// returns the faulted records. One that finds no partner gets a missing field instead.
fn plant_ambiguities(
    corpus: &mut Corpus,
    faults: &mut [Option<FaultKind>],
    seed: u64,
) -> Vec<usize> {
    let mut rng = Rng::fork(seed, Stream::FaultPlan, 1);
    let mut lent = HashSet::new();
    let mut planted = Vec::new();
    for record in 0..faults.len() {
        if faults[record] != Some(FaultKind::AmbiguousId) {
            continue;
        }
        let kind = corpus.kinds[record];
        let partner = (0..32).find_map(|_| {
            let other = *rng.pick(&Kind::ALL);
            let pool = &corpus.by_kind[other as usize];
            let candidate = *rng.pick(pool);
            (other != kind && faults[candidate].is_none() && lent.insert(candidate))
                .then_some(candidate)
        });
        match partner {
            Some(partner) => {
                corpus.ids[record] = corpus.ids[partner].clone();
                planted.push(record);
            }
            None => faults[record] = Some(FaultKind::MissingField),
        }
    }
    planted
}

// ---------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------

/// One generated record before rendering.
struct Generated {
    kind: Kind,
    fields: Map<String, Value>,
    /// Sentences holding a wiki-link, appended to a long field's section in Markdown only
    /// (in JSON and YAML a `[[link]]` inside a string is just text, and the real corpus has
    /// none there). Drawn in every format so that the formats stay in step.
    links: Vec<(&'static str, String)>,
}

fn generate(record: usize, corpus: &Corpus, schema: &SchemaInfo, seed: u64) -> Generated {
    let mut rng = Rng::fork(seed, Stream::Record, record);
    let kind = corpus.kinds[record];
    let id = &corpus.ids[record];
    let mut fields = Map::new();
    fields.insert("id".into(), id.as_str().into());
    fields.insert("type".into(), kind.name().into());
    match kind {
        Kind::Source => source_fields(&mut fields, id, schema, &mut rng),
        Kind::Engine => engine_fields(&mut fields, id, corpus, schema, &mut rng),
        Kind::Gotcha => gotcha_fields(&mut fields, corpus, schema, &mut rng),
    }
    let links = link_sentences(kind, &fields, corpus, &mut rng);
    Generated {
        kind,
        fields: in_schema_order(fields, &schema.order),
        links,
    }
}

/// Reorders `fields` as the schema declares them, so that JSON keys follow the schema even
/// if a generator function lists them differently.
fn in_schema_order(mut fields: Map<String, Value>, order: &[String]) -> Map<String, Value> {
    let mut ordered = Map::new();
    for key in order {
        if let Some(value) = fields.remove(key) {
            ordered.insert(key.clone(), value);
        }
    }
    ordered.extend(fields);
    ordered
}

/// Shared tail of every record: status, confidence, updated.
fn curation_fields(fields: &mut Map<String, Value>, schema: &SchemaInfo, rng: &mut Rng) {
    fields.insert("status".into(), schema.choose("status", rng));
    fields.insert("confidence".into(), confidence(rng));
    fields.insert("updated".into(), date(rng, 2026).into());
}

/// Sources: about 0.9 KB in JSON.
fn source_fields(fields: &mut Map<String, Value>, id: &str, schema: &SchemaInfo, rng: &mut Rng) {
    fields.insert("name".into(), title(rng, 98).into());
    curation_fields(fields, schema, rng);
    fields.insert("url".into(), url(rng, id).into());
    fields.insert("publisher".into(), publisher(rng).into());
    fields.insert("kind".into(), schema.choose("kind", rng));
    let published = if rng.chance(0.4) {
        let year = rng.range(2015, 2026);
        Value::from(date(rng, year))
    } else {
        Value::Null
    };
    fields.insert("published".into(), published);
    fields.insert("accessed".into(), date(rng, 2026).into());
    if rng.chance(0.7) {
        fields.insert("archived_url".into(), Value::Null);
    }
    fields.insert("notes".into(), prose(rng, 395).into());
}

/// Engines: about 5.7 KB in JSON, mostly lists of one-sentence strings.
fn engine_fields(
    fields: &mut Map<String, Value>,
    id: &str,
    corpus: &Corpus,
    schema: &SchemaInfo,
    rng: &mut Rng,
) {
    fields.insert("name".into(), engine_name(id, rng).into());
    let repo = optional(rng, 0.99, |rng| format!("{}/{id}", engine_stem(rng)).into());
    fields.insert("repo".into(), repo);
    let languages = rng.range(1, 5);
    fields.insert("languages".into(), picks(rng, LANGUAGES, languages));
    let license = optional(rng, 0.98, |rng| rng.word(LICENSES).into());
    fields.insert("license".into(), license);
    let year = optional(rng, 0.97, |rng| rng.range(2012, 2026).into());
    fields.insert("first_release_year".into(), year);
    for (field, max) in [("design_goal", 6), ("scheduling", 4)] {
        let count = rng.range(1, max);
        fields.insert(field.into(), tags(rng, count));
    }
    let backends = rng.range(1, 6);
    fields.insert("supported_backends".into(), picks(rng, BACKENDS, backends));
    let formats = rng.range(0, 5);
    fields.insert("supported_formats".into(), picks(rng, FORMATS, formats));
    for (field, min, max, mean) in [
        ("notable_features", 3, 11, 175),
        ("hardware_caveats", 1, 11, 196),
        ("best_for", 1, 6, 111),
        ("avoid_for", 1, 6, 89),
    ] {
        let count = rng.range(min, max);
        let items = (0..count).map(|_| prose(rng, mean).into()).collect();
        fields.insert(field.into(), Value::Array(items));
    }
    let tracing = schema.enum_values("tracing_support");
    if rng.chance(0.03) && !tracing.is_empty() {
        fields.insert("tracing_support".into(), rng.pick(tracing).clone());
    }
    if rng.chance(0.03) {
        let value = *rng.pick(&[Some(true), Some(false), None]);
        fields.insert(
            "verified_negatively".into(),
            value.map_or(Value::Null, Value::Bool),
        );
    }
    fields.insert(
        "docs_url".into(),
        format!("https://{id}.example.org/docs/latest").into(),
    );
    fields.insert("notes".into(), paragraphs(rng, 1450).into());
    curation_fields(fields, schema, rng);
    let sources = rng.range(1, 6);
    fields.insert(
        "sources".into(),
        references(rng, corpus, Kind::Source, sources),
    );
}

/// Gotchas: about 3.2 KB in JSON, four long prose fields and two reference lists.
fn gotcha_fields(
    fields: &mut Map<String, Value>,
    corpus: &Corpus,
    schema: &SchemaInfo,
    rng: &mut Rng,
) {
    fields.insert("name".into(), title(rng, 136).into());
    fields.insert("class".into(), schema.choose("class", rng));
    let affects = rng.range(1, 5);
    fields.insert(
        "affects".into(),
        references(rng, corpus, Kind::Engine, affects),
    );
    if rng.chance(0.63) {
        let count = rng.range(1, 11);
        fields.insert("concepts".into(), tags(rng, count));
    }
    for (field, mean) in [("symptom", 577), ("root_cause", 707), ("workaround", 573)] {
        fields.insert(field.into(), prose(rng, mean).into());
    }
    fields.insert("severity".into(), schema.choose("severity", rng));
    if rng.chance(0.99) {
        fields.insert("notes".into(), prose(rng, 702).into());
    }
    curation_fields(fields, schema, rng);
    let sources = rng.range(1, 4);
    fields.insert(
        "sources".into(),
        references(rng, corpus, Kind::Source, sources),
    );
}

fn optional(rng: &mut Rng, p: f64, value: impl FnOnce(&mut Rng) -> Value) -> Value {
    if rng.chance(p) {
        value(rng)
    } else {
        Value::Null
    }
}

/// `count` distinct ids of `kind` records.
fn references(rng: &mut Rng, corpus: &Corpus, kind: Kind, count: usize) -> Value {
    let chosen = rng.pick_distinct(&corpus.by_kind[kind as usize], count);
    chosen
        .into_iter()
        .map(|record| Value::from(corpus.ids[record].as_str()))
        .collect()
}

fn picks(rng: &mut Rng, vocabulary: &[&str], count: usize) -> Value {
    rng.pick_distinct(vocabulary, count)
        .into_iter()
        .map(Value::from)
        .collect()
}

/// Kebab-case tags of one or two words, distinct within the list.
fn tags(rng: &mut Rng, count: usize) -> Value {
    let mut tags: Vec<String> = Vec::with_capacity(count);
    while tags.len() < count {
        let tag = if rng.chance(0.5) {
            rng.word(NOUNS).to_owned()
        } else {
            format!("{}-{}", rng.word(NOUNS), rng.word(NOUNS))
        };
        if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    tags.into_iter().map(Value::from).collect()
}

/// Two decimals between 0.50 and 0.99, printed by serde_json as written (`0.85`).
fn confidence(rng: &mut Rng) -> Value {
    Value::from(rng.range(50, 99) as f64 / 100.0)
}

fn date(rng: &mut Rng, year: usize) -> String {
    format!("{year:04}-{:02}-{:02}", rng.range(1, 12), rng.range(1, 28))
}

fn url(rng: &mut Rng, id: &str) -> String {
    format!("https://{}/{}/{id}", rng.word(HOSTS), rng.word(NOUNS))
}

fn publisher(rng: &mut Rng) -> String {
    format!(
        "{} {}",
        capitalized(rng.word(NOUNS)),
        rng.word(PUBLISHER_SUFFIXES)
    )
}

fn engine_name(id: &str, rng: &mut Rng) -> String {
    let words: Vec<String> = id.split('-').map(capitalized).collect();
    format!("{} {}", words.join(" "), rng.word(ENGINE_DESCRIPTORS))
}

/// For each long field, maybe a sentence citing another record by wiki-link, in one of the
/// three forms: `[[folder/id]]`, `[[folder/id|Label]]`, `[[id]]`.
fn link_sentences(
    kind: Kind,
    fields: &Map<String, Value>,
    corpus: &Corpus,
    rng: &mut Rng,
) -> Vec<(&'static str, String)> {
    let mut links = Vec::new();
    for &field in kind.long_fields() {
        let wanted = rng.chance(0.35);
        let link = wiki_link(rng, corpus);
        let template = rng.word(LINK_TEMPLATES);
        if wanted && fields.contains_key(field) {
            links.push((field, template.replace("{}", &link)));
        }
    }
    links
}

fn wiki_link(rng: &mut Rng, corpus: &Corpus) -> String {
    let target = rng.below(corpus.ids.len());
    let id = &corpus.ids[target];
    let folder = corpus.kinds[target].folder();
    match rng.below(3) {
        0 => format!("[[{folder}/{id}]]"),
        1 => format!("[[{folder}/{id}|{}]]", label(id)),
        _ => format!("[[{id}]]"),
    }
}

/// A human label for an id: its first words, capitalized.
fn label(id: &str) -> String {
    id.split('-')
        .take(3)
        .map(capitalized)
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

/// Half the length of an average sentence: stopping that much short of a target makes the
/// lengths average out at the target instead of overshooting it.
const HALF_SENTENCE: usize = 40;

/// Prose of about `mean` bytes (between half and one and a half times it), in sentences.
fn prose(rng: &mut Rng, mean: usize) -> String {
    let target = mean * rng.range(50, 150) / 100;
    let mut text = String::with_capacity(target + 120);
    while text.is_empty() || text.len() + HALF_SENTENCE < target {
        if !text.is_empty() {
            text.push(' ');
        }
        sentence(rng, &mut text);
    }
    text
}

/// Prose of about `mean` bytes in paragraphs of three to five sentences.
fn paragraphs(rng: &mut Rng, mean: usize) -> String {
    let target = mean * rng.range(50, 150) / 100;
    let mut text = String::with_capacity(target + 120);
    let mut left_in_paragraph = rng.range(3, 5);
    while text.is_empty() || text.len() + HALF_SENTENCE < target {
        if left_in_paragraph == 0 {
            text.push_str("\n\n");
            left_in_paragraph = rng.range(3, 5);
        } else if !text.is_empty() {
            text.push(' ');
        }
        sentence(rng, &mut text);
        left_in_paragraph -= 1;
    }
    text
}

/// One sentence of 7 to 18 words, with the odd inline code, number with a unit, quoted word
/// and comma, so that renderers meet backticks, quotes and non-ASCII text.
fn sentence(rng: &mut Rng, out: &mut String) {
    let words = rng.range(7, 18);
    for position in 0..words {
        if position == 0 {
            out.push_str(&capitalized(filler_or_noun(rng)));
            continue;
        }
        out.push_str(if rng.chance(0.06) { ", " } else { " " });
        match rng.below(100) {
            0..=3 => {
                out.push('`');
                out.push_str(rng.word(CODE_TOKENS));
                out.push('`');
            }
            4..=7 => {
                out.push_str(&rng.range(2, 4096).to_string());
                out.push_str(rng.word(UNITS));
            }
            8 => {
                out.push('"');
                out.push_str(rng.word(NOUNS));
                out.push('"');
            }
            _ => out.push_str(filler_or_noun(rng)),
        }
    }
    out.push('.');
}

fn filler_or_noun(rng: &mut Rng) -> &'static str {
    if rng.chance(0.45) {
        rng.word(FILLERS)
    } else {
        rng.word(NOUNS)
    }
}

/// A title of about `mean` bytes: capitalized, no final period.
fn title(rng: &mut Rng, mean: usize) -> String {
    let target = mean * rng.range(60, 140) / 100;
    let mut text = capitalized(rng.word(NOUNS));
    while text.len() < target {
        text.push(' ');
        text.push_str(filler_or_noun(rng));
    }
    text
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------------

/// What fault injection needs besides the record.
struct FaultContext<'a> {
    schema: &'a SchemaInfo,
    format: Format,
    /// Every id in the corpus.
    taken: &'a HashSet<&'a str>,
}

/// Applies `fault` and returns the kind actually applied: a fault that does not fit the
/// record (no enum field present, say) falls back to a wrong type, which fits every record
/// that still has its `confidence`.
fn apply_fault(
    fault: FaultKind,
    record: &mut Generated,
    context: &FaultContext<'_>,
    rng: &mut Rng,
) -> Option<FaultKind> {
    let fields = &mut record.fields;
    let applied = match fault {
        FaultKind::RefTypo => ref_typo(fields, context, rng),
        FaultKind::DanglingRef => dangling_ref(fields, context, rng),
        FaultKind::EnumTypo => enum_typo(fields, context.schema, rng),
        FaultKind::FieldTypo => field_typo(fields, record.kind, context, rng),
        FaultKind::MissingField => missing_field(fields, context.schema, rng),
        FaultKind::WrongType => wrong_type(fields),
        FaultKind::AmbiguousId => true,
    };
    if applied {
        Some(fault)
    } else {
        wrong_type(fields).then_some(FaultKind::WrongType)
    }
}

/// A reference field of the record with at least one id, and its target collection.
fn pick_reference(
    fields: &Map<String, Value>,
    schema: &SchemaInfo,
    rng: &mut Rng,
) -> Option<(String, Kind)> {
    let present: Vec<&(String, Kind)> = schema
        .refs
        .iter()
        .filter(|(field, _)| {
            fields
                .get(field)
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
        })
        .collect();
    (!present.is_empty()).then(|| (*rng.pick(&present)).clone())
}

/// Replaces one item of reference field `field` by `make(old)`, if it gives an unused id.
fn replace_reference(
    fields: &mut Map<String, Value>,
    field: &str,
    context: &FaultContext<'_>,
    rng: &mut Rng,
    mut make: impl FnMut(&str, &mut Rng) -> Option<String>,
) -> bool {
    let Some(Value::Array(items)) = fields.get_mut(field) else {
        return false;
    };
    let slot = rng.below(items.len());
    let Some(old) = items[slot].as_str().map(str::to_owned) else {
        return false;
    };
    for _ in 0..16 {
        if let Some(new) = make(&old, rng).filter(|new| !context.taken.contains(new.as_str())) {
            items[slot] = Value::String(new);
            return true;
        }
    }
    false
}

fn ref_typo(fields: &mut Map<String, Value>, context: &FaultContext<'_>, rng: &mut Rng) -> bool {
    match pick_reference(fields, context.schema, rng) {
        Some((field, _)) => replace_reference(fields, &field, context, rng, replace_letter),
        None => false,
    }
}

fn dangling_ref(
    fields: &mut Map<String, Value>,
    context: &FaultContext<'_>,
    rng: &mut Rng,
) -> bool {
    match pick_reference(fields, context.schema, rng) {
        Some((field, target)) => replace_reference(fields, &field, context, rng, |_, rng| {
            Some(make_id(target, rng))
        }),
        None => false,
    }
}

fn enum_typo(fields: &mut Map<String, Value>, schema: &SchemaInfo, rng: &mut Rng) -> bool {
    let present: Vec<&(String, Vec<Value>)> = schema
        .enums
        .iter()
        .filter(|(field, _)| fields.get(field).is_some_and(Value::is_string))
        .collect();
    if present.is_empty() {
        return false;
    }
    let (field, allowed) = *rng.pick(&present);
    let Some(old) = fields.get(field).and_then(Value::as_str) else {
        return false;
    };
    let typo = drop_vowel(old, rng)
        .or_else(|| swap_letters(old, rng))
        .filter(|typo| !allowed.iter().any(|v| v.as_str() == Some(typo)));
    match typo {
        Some(typo) => {
            fields.insert(field.clone(), typo.into());
            true
        }
        None => false,
    }
}

/// Misspells a field name in place. In Markdown only front-matter keys: a misspelt section
/// heading is not a field at all but part of the body, which is a different mistake.
fn field_typo(
    fields: &mut Map<String, Value>,
    kind: Kind,
    context: &FaultContext<'_>,
    rng: &mut Rng,
) -> bool {
    let candidates: Vec<String> = fields
        .iter()
        .filter(|(key, value)| {
            let in_body = context.format == Format::Md
                && value.is_string()
                && kind.long_fields().contains(&key.as_str());
            key.as_str() != "id" && key.as_str() != "type" && !in_body
        })
        .map(|(key, _)| key.clone())
        .collect();
    if candidates.is_empty() {
        return false;
    }
    let old = rng.pick(&candidates).clone();
    let Some(new) = swap_letters(&old, rng).filter(|new| !context.schema.order.contains(new))
    else {
        return false;
    };
    *fields = std::mem::take(fields)
        .into_iter()
        .map(|(key, value)| {
            if key == old {
                (new.clone(), value)
            } else {
                (key, value)
            }
        })
        .collect();
    true
}

/// Drops a required field other than `id` (without an id the file name is the only name).
fn missing_field(fields: &mut Map<String, Value>, schema: &SchemaInfo, rng: &mut Rng) -> bool {
    let present: Vec<&String> = schema
        .required
        .iter()
        .filter(|field| field.as_str() != "id" && fields.contains_key(field.as_str()))
        .collect();
    if present.is_empty() {
        return false;
    }
    let victim = (*rng.pick(&present)).clone();
    fields.retain(|key, _| *key != victim);
    true
}

fn wrong_type(fields: &mut Map<String, Value>) -> bool {
    match fields.get_mut("confidence") {
        Some(value @ Value::Number(_)) => {
            *value = Value::String(value.to_string());
            true
        }
        _ => false,
    }
}

/// `major` -> `majr`: drops one interior vowel.
fn drop_vowel(word: &str, rng: &mut Rng) -> Option<String> {
    let chars: Vec<char> = word.chars().collect();
    let vowels: Vec<usize> = (1..chars.len().saturating_sub(1))
        .filter(|&i| "aeiou".contains(chars[i]))
        .collect();
    let at = *rng.pick_distinct(&vowels, 1).first()?;
    Some(
        chars
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != at)
            .map(|(_, c)| c)
            .collect(),
    )
}

/// `root_cause` -> `root_casue`: swaps two different adjacent letters after the first.
fn swap_letters(word: &str, rng: &mut Rng) -> Option<String> {
    let mut chars: Vec<char> = word.chars().collect();
    let spots: Vec<usize> = (1..chars.len().saturating_sub(1))
        .filter(|&i| {
            chars[i].is_ascii_alphabetic()
                && chars[i + 1].is_ascii_alphabetic()
                && chars[i] != chars[i + 1]
        })
        .collect();
    let at = *rng.pick_distinct(&spots, 1).first()?;
    chars.swap(at, at + 1);
    Some(chars.into_iter().collect())
}

/// `velmor` -> `velmar`: replaces one lowercase letter by another, keeping the id kebab-case.
fn replace_letter(word: &str, rng: &mut Rng) -> Option<String> {
    let mut chars: Vec<char> = word.chars().collect();
    let spots: Vec<usize> = (0..chars.len())
        .filter(|&i| chars[i].is_ascii_lowercase())
        .collect();
    let at = *rng.pick_distinct(&spots, 1).first()?;
    let letters: Vec<char> = ('a'..='z').filter(|&c| c != chars[at]).collect();
    chars[at] = *rng.pick(&letters);
    Some(chars.into_iter().collect())
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

fn render(record: &Generated, format: Format, out: &mut String) -> Result<(), Error> {
    match format {
        Format::Json => {
            let json = serde_json::to_string_pretty(&record.fields)
                .map_err(|e| Error::Internal(e.to_string()))?;
            out.push_str(&json);
            out.push('\n');
        }
        Format::Yaml => yaml_mapping(record.fields.iter(), out),
        Format::Md => markdown(record, out),
    }
    Ok(())
}

/// Block YAML for a flat mapping whose values are scalars or lists of scalars.
fn yaml_mapping<'a>(entries: impl Iterator<Item = (&'a String, &'a Value)>, out: &mut String) {
    for (key, value) in entries {
        out.push_str(key);
        out.push(':');
        match value {
            Value::Array(items) if items.is_empty() => out.push_str(" []\n"),
            Value::Array(items) => {
                out.push('\n');
                for item in items {
                    out.push_str("  - ");
                    yaml_scalar(item, out);
                    out.push('\n');
                }
            }
            _ => {
                out.push(' ');
                yaml_scalar(value, out);
                out.push('\n');
            }
        }
    }
}

/// A scalar: plain when that cannot change its meaning, else a JSON literal, which is valid
/// YAML (a JSON string is a YAML double-quoted scalar; nested values become flow style).
fn yaml_scalar(value: &Value, out: &mut String) {
    match value {
        Value::String(text) if yaml_plain_safe(text) => out.push_str(text),
        other => out.push_str(&other.to_string()),
    }
}

/// Whether `text` reads back as the same string when written plain, under YAML 1.2 and 1.1
/// alike: a date (a string in 1.2; 1.1 readers must be told not to resolve timestamps), or
/// a word-like string starting with a letter that is not a boolean or null keyword.
fn yaml_plain_safe(text: &str) -> bool {
    const KEYWORDS: [&str; 10] = [
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~",
    ];
    if is_date(text) {
        return true;
    }
    text.starts_with(|c: char| c.is_ascii_alphabetic())
        && !text.ends_with(' ')
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b" _-./()+".contains(&b))
        && !KEYWORDS.contains(&text.to_ascii_lowercase().as_str())
}

fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
}

/// Front matter with every field but the long prose ones, then one `## Heading` section per
/// prose field, in schema order.
fn markdown(record: &Generated, out: &mut String) {
    let in_body =
        |key: &str, value: &Value| value.is_string() && record.kind.long_fields().contains(&key);
    out.push_str("---\n");
    yaml_mapping(record.fields.iter().filter(|(k, v)| !in_body(k, v)), out);
    out.push_str("---\n");
    for (key, value) in &record.fields {
        let Some(text) = value.as_str().filter(|_| in_body(key, value)) else {
            continue;
        };
        out.push_str("\n## ");
        out.push_str(&capitalized(&key.replace('_', " ")));
        out.push_str("\n\n");
        out.push_str(text);
        for (_, sentence) in record.links.iter().filter(|(field, _)| field == key) {
            out.push(' ');
            out.push_str(sentence);
        }
        out.push('\n');
    }
}

// ---------------------------------------------------------------------------------------------
// Docs
// ---------------------------------------------------------------------------------------------

/// About one prose page per 200 records: (file name, content).
fn generate_docs(corpus: &Corpus, ambiguous: &[usize], seed: u64) -> Vec<(String, String)> {
    let count = (corpus.ids.len() / 200).max(1);
    let titles: Vec<(String, String)> = (0..count)
        .map(|page| {
            let mut rng = Rng::fork(seed, Stream::Doc, page);
            let words: Vec<&str> = (0..rng.range(2, 3)).map(|_| rng.word(NOUNS)).collect();
            let title = capitalized(&words.join(" "));
            (title, format!("{:02}-{}.md", page + 1, words.join("-")))
        })
        .collect();
    (0..count)
        .map(|page| {
            let mut rng = Rng::fork(seed, Stream::Doc, count + page);
            let mut text = doc_page(page, &titles, corpus, &mut rng);
            for record in ambiguous.iter().skip(page).step_by(count) {
                text.push_str(&format!(
                    "\nCompare [[{}]] with the entries above.\n",
                    corpus.ids[*record]
                ));
            }
            (titles[page].1.clone(), text)
        })
        .collect()
}

/// A page: a title, then paragraphs of prose with wiki-links to records, one of them also
/// linking another page (or itself, in a corpus with a single page).
fn doc_page(page: usize, titles: &[(String, String)], corpus: &Corpus, rng: &mut Rng) -> String {
    let mut text = format!("# {}\n", titles[page].0);
    let paragraphs = rng.range(4, 7);
    let see_also = rng.below(paragraphs);
    for paragraph in 0..paragraphs {
        text.push('\n');
        for _ in 0..rng.range(2, 4) {
            sentence(rng, &mut text);
            text.push(' ');
        }
        for _ in 0..rng.range(1, 3) {
            let link = wiki_link(rng, corpus);
            text.push_str(&rng.word(LINK_TEMPLATES).replace("{}", &link));
            text.push(' ');
        }
        if paragraph == see_also {
            let others = titles.len().saturating_sub(1).max(1);
            let other = (page + 1 + rng.below(others)) % titles.len();
            let (title, file) = &titles[other];
            text.push_str(&format!("For the wider picture, read [{title}]({file}). "));
        }
        text.pop();
        text.push('\n');
    }
    text
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// Refuses an existing non-empty folder: the generator must never mix its output with other
/// files, or delete them.
fn prepare_out(dir: &Path) -> Result<(), Error> {
    if dir.exists() {
        if !dir.is_dir() {
            return Err(Error::Refused(format!(
                "`{}` exists and is not a folder",
                dir.display()
            )));
        }
        let mut entries = fs::read_dir(dir).map_err(|e| Error::Io(dir.into(), e))?;
        if entries.next().is_some() {
            return Err(Error::Refused(format!(
                "refusing to write into `{}`: it exists and is not empty",
                dir.display()
            )));
        }
    }
    Ok(())
}

fn write_file(path: &Path, content: &[u8]) -> Result<(), Error> {
    fs::write(path, content).map_err(|e| Error::Io(path.into(), e))
}

fn create_dir(path: &Path) -> Result<(), Error> {
    fs::create_dir_all(path).map_err(|e| Error::Io(path.into(), e))
}

/// Totals for the closing summary.
#[derive(Default)]
struct Tally {
    bytes: usize,
    faults: [usize; FaultKind::ALL.len()],
}

/// Generates the corpus `args` describes. The benchmarks include this file as a module and
/// call [`parse_args`] and this, so they state their corpus the way a shell would.
pub(crate) fn run(args: Args) -> Result<(), Error> {
    let started = Instant::now();
    prepare_out(&args.out)?;
    // Indexed by `Kind as usize`, like everything per kind.
    let mut schemas = Vec::with_capacity(Kind::ALL.len());
    for kind in Kind::ALL {
        schemas.push(SchemaInfo::parse(kind.schema().1)?);
    }
    let mut corpus = plan_corpus(args.records, args.seed);
    let mut faults = plan_faults(&corpus, args.error_rate, args.seed);
    let ambiguous = plant_ambiguities(&mut corpus, &mut faults, args.seed);

    let schema_dir = args.out.join("schema");
    create_dir(&schema_dir)?;
    for kind in Kind::ALL {
        let (file, text) = kind.schema();
        write_file(&schema_dir.join(file), text.as_bytes())?;
    }
    let mut tally = write_records(&args, &corpus, &schemas, &faults)?;
    let docs = generate_docs(&corpus, &ambiguous, args.seed);
    let docs_dir = args.out.join("docs");
    create_dir(&docs_dir)?;
    for (file, text) in &docs {
        write_file(&docs_dir.join(file), text.as_bytes())?;
        tally.bytes += text.len();
    }
    write_file(
        &args.out.join("gotchas.toml"),
        b"# Written by the synth example: the generated prose pages are checked too.\ndocs = [\"docs/*.md\"]\n",
    )?;
    print_summary(&args, &corpus, docs.len(), &tally, started);
    Ok(())
}

/// Everything the record writers share, read-only.
struct Job<'a> {
    args: &'a Args,
    corpus: &'a Corpus,
    schemas: &'a [SchemaInfo],
    faults: &'a [Option<FaultKind>],
    /// Every id in the corpus, so that a typo never lands on a real id by chance.
    taken: HashSet<&'a str>,
    /// The records folder of each kind, indexed by `Kind as usize`.
    folders: Vec<PathBuf>,
}

/// More threads than this gain nothing: the file system becomes the bottleneck.
const MAX_WORKERS: usize = 8;

/// Writes the records on a few threads. Each record has its own PRNG, so the output is the
/// same whatever the number of threads.
fn write_records(
    args: &Args,
    corpus: &Corpus,
    schemas: &[SchemaInfo],
    faults: &[Option<FaultKind>],
) -> Result<Tally, Error> {
    let records_dir = args.out.join("records");
    let folders: Vec<PathBuf> = Kind::ALL
        .iter()
        .map(|kind| records_dir.join(kind.folder()))
        .collect();
    for folder in &folders {
        create_dir(folder)?;
    }
    let job = Job {
        args,
        corpus,
        schemas,
        faults,
        taken: corpus.ids.iter().map(String::as_str).collect(),
        folders,
    };
    let workers = thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(MAX_WORKERS);
    let results: Vec<thread::Result<Result<Tally, Error>>> = thread::scope(|scope| {
        let job = &job;
        let handles: Vec<_> = (0..workers)
            .map(|worker| scope.spawn(move || write_share(job, worker, workers)))
            .collect();
        handles.into_iter().map(|handle| handle.join()).collect()
    });
    let mut tally = Tally::default();
    for result in results {
        let part = result.map_err(|_| Error::Internal("a writer thread panicked".into()))??;
        tally.bytes += part.bytes;
        for (total, count) in tally.faults.iter_mut().zip(part.faults) {
            *total += count;
        }
    }
    Ok(tally)
}

/// Writes records `worker`, `worker + workers`, ...: interleaved, so that every thread gets
/// the same mix of kinds and so the same amount of work.
fn write_share(job: &Job<'_>, worker: usize, workers: usize) -> Result<Tally, Error> {
    let (args, corpus) = (job.args, job.corpus);
    let mut tally = Tally::default();
    let mut text = String::with_capacity(16 * 1024);
    let mut path = PathBuf::new();
    for record in (worker..corpus.ids.len()).step_by(workers) {
        let kind = corpus.kinds[record];
        let schema = &job.schemas[kind as usize];
        let mut generated = generate(record, corpus, schema, args.seed);
        if let Some(fault) = job.faults[record] {
            let context = FaultContext {
                schema,
                format: args.format,
                taken: &job.taken,
            };
            let mut rng = Rng::fork(args.seed, Stream::Fault, record);
            if let Some(applied) = apply_fault(fault, &mut generated, &context, &mut rng) {
                tally.faults[applied as usize] += 1;
            }
        }
        text.clear();
        render(&generated, args.format, &mut text)?;
        path.clone_from(&job.folders[kind as usize]);
        path.push(format!(
            "{}.{}",
            corpus.ids[record],
            args.format.extension()
        ));
        write_file(&path, text.as_bytes())?;
        tally.bytes += text.len();
    }
    Ok(tally)
}

fn print_summary(args: &Args, corpus: &Corpus, docs: usize, tally: &Tally, started: Instant) {
    let [sources, engines, gotchas] = corpus.by_kind.each_ref().map(Vec::len);
    let faults: Vec<String> = FaultKind::ALL
        .iter()
        .map(|kind| format!("{}={}", kind.name(), tally.faults[*kind as usize]))
        .collect();
    eprintln!(
        "synth: {} records ({sources} sources, {engines} engines, {gotchas} gotchas) and {docs} docs, \
         {:.1} MB of {}, in {:.2}s to {}; faults {}: {}",
        corpus.ids.len(),
        tally.bytes as f64 / 1e6,
        args.format.extension(),
        started.elapsed().as_secs_f64(),
        args.out.display(),
        tally.faults.iter().sum::<usize>(),
        faults.join(" "),
    );
}

// ---------------------------------------------------------------------------------------------
// Word lists
// ---------------------------------------------------------------------------------------------

/// The word lists: invented or generic vocabulary, so that no real text leaks into the output.
/// Kept out of rustfmt, which would put each word on a line of its own.
#[rustfmt::skip]
mod words {
    pub const NOUNS: &[&str] = &[
        "adapter", "allocator", "arena", "backlog", "bandwidth", "barrier", "batch", "bitmap",
        "block", "buffer", "bucket", "budget", "cache", "callback", "canary", "channel",
        "checkpoint", "chunk", "cluster", "codec", "cohort", "column", "commit", "compactor",
        "context", "counter", "cursor", "daemon", "decoder", "delta", "descriptor", "device",
        "digest", "dispatcher", "drain", "encoder", "endpoint", "envelope", "epoch", "event",
        "executor", "fallback", "fence", "fetch", "filter", "flag", "flush", "fragment", "frame",
        "gateway", "gradient", "graph", "handle", "hash", "header", "heap", "hint", "host",
        "index", "journal", "kernel", "lane", "latency", "layer", "lease", "ledger", "limit",
        "linker", "loader", "lock", "manifest", "mapper", "marker", "matrix", "merge", "mesh",
        "metric", "mirror", "module", "monitor", "mutex", "node", "offset", "operator", "packet",
        "page", "parser", "partition", "patch", "payload", "peer", "pipeline", "planner",
        "pointer", "pool", "prefetch", "probe", "profile", "queue", "quota", "range", "reader",
        "region", "register", "relay", "replica", "request", "resolver", "retry", "ring", "router",
        "runtime", "sampler", "scheduler", "segment", "selector", "sequence", "session", "shard",
        "signal", "slab", "slot", "snapshot", "socket", "span", "stage", "stream", "stride",
        "switch", "table", "tensor", "thread", "throttle", "ticket", "timer", "token", "topology",
        "trace", "tracker", "transport", "tree", "tuner", "vector", "version", "window", "worker",
        "writer",
    ];

    pub const VERBS: &[&str] = &[
        "stalls", "drops", "leaks", "overflows", "reorders", "skips", "duplicates", "hangs",
        "corrupts", "truncates", "ignores", "blocks", "spins", "rejects", "evicts", "desyncs",
    ];

    pub const FILLERS: &[&str] = &[
        "the", "a", "when", "after", "before", "under", "with", "without", "because", "while",
        "only", "every", "each", "some", "is", "was", "becomes", "stays", "returns", "drops",
        "stalls", "grows", "shrinks", "rejects", "accepts", "skips", "reuses", "ignores",
        "overflows", "reorders", "silently", "briefly", "eventually", "always", "never", "often",
        "rarely", "then", "also", "still", "not", "per", "across", "between", "into", "from",
        "over", "once", "twice", "its", "their", "this", "that", "which", "and", "or", "but",
    ];

    pub const CODE_TOKENS: &[&str] = &[
        "--max-batch", "--queue-depth", "ring_size", "flush()", "drain_all", "--no-prefetch",
        "LANE_COUNT=4", "sync=false", "--pin-host", "epoch_ms", "retry_limit", "--shard-count",
    ];

    pub const UNITS: &[&str] = &[
        " ms", " µs", " GB", " MiB", "x", "%", " tokens", " requests", " s",
    ];

    pub const SYLLABLES: &[&str] = &[
        "ar", "bel", "cor", "dax", "el", "fen", "gor", "hal", "ix", "jun", "kel", "lum", "mor",
        "nav", "oro", "pex", "qua", "ril", "sol", "tav", "ul", "vex", "wen", "xan", "yor", "zel",
        "bri", "cal", "dro", "fyn",
    ];

    pub const ENGINE_SUFFIXES: &[&str] = &[
        "rt", "serve", "cpp", "lite", "core", "infer", "server", "x",
    ];

    pub const ENGINE_DESCRIPTORS: &[&str] = &[
        "inference server", "runtime", "serving engine", "compiler stack", "engine",
        "batch scheduler", "edge runtime",
    ];

    pub const SOURCE_PREFIXES: &[&str] = &[
        "paper", "blog", "repo", "forum", "docs", "rel", "bench", "talk", "review", "db",
    ];

    pub const HOSTS: &[&str] = &[
        "example.com", "example.org", "example.net", "docs.example.com", "papers.example.org",
        "git.example.net", "forum.example.com", "blog.example.org",
    ];

    pub const PUBLISHER_SUFFIXES: &[&str] = &[
        "Labs", "Group", "Press", "Project", "Foundation", "Team",
    ];

    pub const LANGUAGES: &[&str] = &[
        "c++", "python", "rust", "go", "c", "cuda", "zig", "java", "swift", "julia", "typescript",
        "kotlin",
    ];

    pub const LICENSES: &[&str] = &[
        "Apache-2.0", "MIT", "BSD-3-Clause", "MPL-2.0", "GPL-3.0-only", "LGPL-2.1", "proprietary",
    ];

    pub const BACKENDS: &[&str] = &[
        "cuda", "rocm", "metal", "vulkan", "cpu", "sycl", "opencl", "webgpu", "tpu", "npu", "fpga",
        "dsp",
    ];

    pub const FORMATS: &[&str] = &[
        "fp32", "fp16", "bf16", "fp8", "int8", "int4", "nf4", "mxfp4", "q4-block", "q8-block",
        "sparse-24", "ternary",
    ];

    pub const LINK_TEMPLATES: &[&str] = &[
        "See {} for the same pattern.", "Compare {}.", "This mirrors {} under load.",
        "The fix in {} does not apply here.", "Background is in {}.",
    ];
}
