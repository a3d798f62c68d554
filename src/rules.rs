//! The catalogue of rules: every diagnostic code, its default level, and its documentation.
//!
//! Each rule's doc comment below *is* the text `gotchas explain CODE` prints, so the
//! documentation cannot drift from the code that uses the constant. A doc comment follows one
//! shape: what the rule finds, why it matters, an example, and how to fix it.

use crate::config::Level;

/// A rule's metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The stable kebab-case code.
    pub code: &'static str,
    /// The level used when the config does not set one.
    pub default_level: Level,
    /// One line for listings.
    pub summary: &'static str,
    /// The full documentation, in Markdown, as the doc comments give it: each line keeps
    /// the space after `///` ([`Rule::documentation`] takes it off).
    pub explanation: &'static str,
    /// Whether the rule reports a problem with the tool's own inputs (config, schemas) that
    /// stops the run with exit code 2, rather than a problem in a record.
    pub fatal: bool,
}

impl Rule {
    /// The documentation with each line's leading space taken off, so Markdown headings
    /// start their lines: what `gotchas explain` prints and SARIF carries.
    pub fn documentation(&self) -> String {
        self.explanation
            .lines()
            .map(|line| format!("{}\n", line.strip_prefix(' ').unwrap_or(line)))
            .collect()
    }
}

/// Finds a rule by code.
pub fn find(code: &str) -> Option<&'static Rule> {
    ALL.iter().find(|rule| rule.code == code)
}

macro_rules! rules {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $code:literal, $level:ident, fatal = $fatal:literal, $summary:literal;
    )*) => {
        $(
            $(#[doc = $doc])*
            pub const $name: &str = $code;
        )*
        /// Every rule, in the order `gotchas explain` lists them.
        pub const ALL: &[Rule] = &[$(
            Rule {
                code: $code,
                default_level: Level::$level,
                summary: $summary,
                explanation: concat!($($doc, "\n"),*),
                fatal: $fatal,
            },
        )*];
    };
}

rules! {
    /// ## What it finds
    /// A `gotchas.toml` that cannot be used: invalid TOML, an unknown key, a value of the wrong
    /// type, an unknown rule code or level.
    ///
    /// ## Why it matters
    /// A misspelt key (`recrods = "data"`) would otherwise be ignored and the tool would check
    /// the wrong folder, or nothing, and report success.
    ///
    /// ## Example
    /// ```toml
    /// recrods = "data"   # unknown config key; did you mean `records`?
    /// ```
    ///
    /// ## How to fix
    /// Use the key the help line suggests. This stops the run with exit code 2.
    INVALID_CONFIG = "invalid-config", Error, fatal = true, "the config file cannot be used";

    /// ## What it finds
    /// A collection schema that is not valid JSON, is not a valid JSON Schema, or uses a `$ref`
    /// that names no local schema file.
    ///
    /// ## Why it matters
    /// Every record of the collection is checked against it; a broken schema would make every
    /// verdict meaningless. The tool never fetches schemas over the network.
    ///
    /// ## Example
    /// ```json
    /// { "type": "objet" }
    /// ```
    ///
    /// ## How to fix
    /// Fix the schema at the position shown. This stops the run with exit code 2.
    INVALID_SCHEMA = "invalid-schema", Error, fatal = true, "a collection schema cannot be used";

    /// ## What it finds
    /// A record file that exists but cannot be read (permissions, a file that vanished during
    /// the run, a folder that cannot be listed).
    ///
    /// ## Why it matters
    /// An unread record is an unchecked record; the run reports it and goes on with the rest.
    ///
    /// ## How to fix
    /// Make the file readable, or remove it.
    IO_ERROR = "io-error", Error, fatal = false, "a file cannot be read";

    /// ## What it finds
    /// A record file whose bytes are not UTF-8. A UTF-8 byte-order mark is accepted; a
    /// UTF-16 or UTF-32 one names the encoding the file was saved in.
    ///
    /// ## Why it matters
    /// Records are text that people read and diff; a file in another encoding shows mangled
    /// characters on the site and in reviews.
    ///
    /// ## How to fix
    /// Re-save the file as UTF-8 (`iconv -f latin1 -t utf-8`, or `-f utf-16` for a file
    /// the report says is UTF-16).
    INVALID_UTF8 = "invalid-utf8", Error, fatal = false, "a file is not UTF-8";

    /// ## What it finds
    /// A record file with no content (or only white space).
    ///
    /// ## Why it matters
    /// An empty file is usually a failed write or an unfinished record; it has no id and no
    /// fields, so nothing can cite it.
    ///
    /// ## How to fix
    /// Fill it in (`gotchas new`) or delete it.
    EMPTY_FILE = "empty-file", Error, fatal = false, "a record file is empty";

    /// ## What it finds
    /// A JSON or YAML syntax error, including in Markdown front matter.
    ///
    /// ## Why it matters
    /// The record cannot be read at all, so none of its other problems can be found.
    ///
    /// ## Example
    /// ```json
    /// { "id": "vllm", }
    /// ```
    ///
    /// ## How to fix
    /// Correct the syntax at the position shown.
    SYNTAX_ERROR = "syntax-error", Error, fatal = false, "a record cannot be parsed";

    /// ## What it finds
    /// A mapping that has the same key twice, in YAML or in JSON.
    ///
    /// ## Why it matters
    /// Most JSON parsers silently keep the last value, so one of the two values is lost
    /// without anyone noticing. A Markdown section that repeats a front-matter field is the
    /// same mistake.
    ///
    /// ## Example
    /// ```yaml
    /// severity: minor
    /// severity: major   # duplicate key
    /// ```
    ///
    /// ## How to fix
    /// Keep one of the two.
    DUPLICATE_KEY = "duplicate-key", Error, fatal = false, "a key appears twice in one mapping";

    /// ## What it finds
    /// A record whose top level is not a mapping (a list, a string, a number).
    ///
    /// ## Why it matters
    /// A record is a set of named fields; anything else cannot have an id.
    ///
    /// ## How to fix
    /// Make the top level an object (`{...}` in JSON, `key: value` lines in YAML).
    NOT_A_MAPPING = "not-a-mapping", Error, fatal = false, "a record's top level is not a mapping";

    /// ## What it finds
    /// A Markdown record without front matter, or whose front matter is never closed.
    ///
    /// ## Why it matters
    /// A Markdown record keeps its structured fields (id, type, status ...) in YAML front
    /// matter between two `---` lines at the top of the file.
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// id: kv-cache-foo
    /// ## Symptom          <- the closing `---` is missing
    /// ```
    ///
    /// ## How to fix
    /// Start the file with a `---` line and close the front matter with another. A page
    /// moved over from Zola or Hugo may have TOML front matter between `+++` lines: write its
    /// fields as YAML.
    FRONT_MATTER = "front-matter", Error, fatal = false, "Markdown front matter is missing or unterminated";

    /// ## What it finds
    /// A record over a safety limit: a file larger than `max_file_size`, nesting deeper than
    /// 128 levels, or YAML aliases that would expand to too many nodes (an "alias bomb").
    ///
    /// ## Why it matters
    /// A linter runs unattended on every commit; hostile or accidental input must not make it
    /// hang or run out of memory. The rest of the corpus is still checked.
    ///
    /// ## How to fix
    /// Records are small documents: split the file, flatten the data, or remove the aliases.
    LIMIT_EXCEEDED = "limit-exceeded", Error, fatal = false, "a record exceeds a safety limit";

    /// ## What it finds
    /// A file under the records root that belongs to no collection (its folder has no schema)
    /// or whose extension the tool does not read (`.jsn`, `.txt`).
    ///
    /// ## Why it matters
    /// A record saved with the wrong extension or in the wrong folder is silently never
    /// checked, never cited and never published.
    ///
    /// ## How to fix
    /// Move or rename the file (`.json`, `.yaml`, `.yml` or `.md` in a collection folder), or
    /// delete it. A whole folder of records kept under another name than the collection's
    /// (its schema's `x-collection`, else its type + `s`) is named in the config:
    /// `[collections.interconnect] folder = "interconnect"`.
    STRAY_FILE = "stray-file", Error, fatal = false, "a file under the records root is not a record";

    /// ## What it finds
    /// A value that breaks its collection's JSON Schema: a wrong type, a string that does not
    /// match its pattern, a number out of range, too few items ...
    ///
    /// ## Why it matters
    /// The schema is the contract every reader of the corpus relies on: the site, queries,
    /// downstream scripts.
    ///
    /// ## Example
    /// ```yaml
    /// confidence: "high"   # expected number
    /// ```
    ///
    /// ## How to fix
    /// Change the value to what the schema expects, shown in the message.
    SCHEMA_VIOLATION = "schema-violation", Error, fatal = false, "a value breaks the collection's schema";

    /// ## What it finds
    /// A field the schema requires that the record does not have.
    ///
    /// ## Why it matters
    /// Required fields are what every page, query and index line can count on.
    ///
    /// ## How to fix
    /// Add the field. In a Markdown record a long text field can be a `## Heading` section.
    MISSING_FIELD = "missing-field", Error, fatal = false, "a required field is missing";

    /// ## What it finds
    /// A field the schema does not declare, when the schema forbids extra fields
    /// (`additionalProperties: false`). The diagnostic points at the key and suggests the
    /// closest declared field.
    ///
    /// ## Why it matters
    /// A misspelt field (`root_casue`) is data that no page shows and no query finds, while
    /// the real field stays empty.
    ///
    /// ## Example
    /// ```yaml
    /// root_casue: the cache key omits the dtype   # did you mean `root_cause`?
    /// ```
    ///
    /// ## How to fix
    /// Rename the key as suggested; `--fix` does it when one candidate is certain.
    UNKNOWN_FIELD = "unknown-field", Error, fatal = false, "a field the schema does not declare";

    /// ## What it finds
    /// A `## Heading` in a Markdown record's body that names no text field of its
    /// collection but is a typo of one's. Headings that are no near miss of a field are
    /// prose on purpose and are not reported.
    ///
    /// ## Why it matters
    /// A section is a field only when its heading names one, so a misspelt heading leaves
    /// its text in the prose and the field empty: no table, query or index shows it, as
    /// with a misspelt key in the front matter.
    ///
    /// ## Example
    /// ```markdown
    /// ## Workarond
    ///
    /// Pin the block size.   # did you mean `## Workaround`?
    /// ```
    ///
    /// ## How to fix
    /// Spell the heading as the field's name (`root_cause` is `## Root cause`).
    UNKNOWN_SECTION = "unknown-section", Warn, fatal = false, "a Markdown heading is a typo of a field's";

    /// ## What it finds
    /// A value outside the schema's `enum` or different from its `const`, with the closest
    /// allowed value as a suggestion.
    ///
    /// ## Why it matters
    /// Enum fields (severity, status, class) drive filters, badges and counts; `majr` is
    /// counted nowhere.
    ///
    /// ## Example
    /// ```yaml
    /// severity: majr   # did you mean `major`?
    /// ```
    ///
    /// ## How to fix
    /// Use one of the allowed values listed in the note.
    INVALID_VALUE = "invalid-value", Error, fatal = false, "a value is not one of the allowed values";

    /// ## What it finds
    /// A record whose `id` differs from its file name (without extension).
    ///
    /// ## Why it matters
    /// Ids are how records cite each other and how pages are addressed; a file name that
    /// disagrees makes links and tooling point at different records.
    ///
    /// ## Example
    /// `records/engines/vllm.yaml` containing `id: v-llm`.
    ///
    /// ## How to fix
    /// Rename the file or change the id so that they agree.
    ID_MISMATCH = "id-mismatch", Error, fatal = false, "a record's id differs from its file name";

    /// ## What it finds
    /// An id that does not match the collection's id pattern (kebab-case by default:
    /// `^[a-z0-9]+(-[a-z0-9]+)*$`).
    ///
    /// ## Why it matters
    /// Ids become URLs and file names; upper case, spaces and underscores make both fragile.
    ///
    /// ## How to fix
    /// Rename to lower-case words joined by dashes (`Kv_Cache` -> `kv-cache`).
    ID_FORMAT = "id-format", Error, fatal = false, "an id does not match the id pattern";

    /// ## What it finds
    /// Two records of one collection with the same id, such as `vllm.json` beside
    /// `vllm.yaml`.
    ///
    /// ## Why it matters
    /// A reference to that id could mean either record; which one wins would depend on the
    /// order files are read.
    ///
    /// ## How to fix
    /// Merge the two records or rename one.
    DUPLICATE_ID = "duplicate-id", Error, fatal = false, "two records in one collection share an id";

    /// ## What it finds
    /// A record whose `type` field names another collection than the folder it is in.
    ///
    /// ## Why it matters
    /// The folder decides which schema checks the record; a record whose type disagrees was
    /// probably saved in the wrong folder.
    ///
    /// ## Example
    /// `records/engines/vllm.yaml` containing `type: gotcha`.
    ///
    /// ## How to fix
    /// Move the file to the folder of its type, or correct the type.
    TYPE_MISMATCH = "type-mismatch", Error, fatal = false, "a record's type differs from its collection";

    /// ## What it finds
    /// A value of a reference field that names no record: `affects: [mooncache]` when no
    /// record has the id `mooncache`. Reference fields are declared with `"x-ref"` in the
    /// schema or in `[references]` in the config. A did-you-mean suggests close ids, by typo
    /// distance (`mooncache` -> `mooncake`) and by shared words (`radeon-w7900` ->
    /// `amd-radeon-pro-w7900`), among the collections the field may point at; when none
    /// there is close, the close ids of other collections are named as records the field
    /// cannot point at, since the reference may be in the wrong field.
    ///
    /// ## Why it matters
    /// A dangling reference is a silent corruption of the knowledge base: the page shows no
    /// link, the graph has no edge, and nobody notices until a reader looks for it.
    ///
    /// ## Example
    /// ```yaml
    /// affects: [vllm, mooncache]   # did you mean mooncake (engines/mooncake)?
    /// ```
    ///
    /// ## How to fix
    /// Use the suggested id; `gotchas check --fix` applies it when exactly one close id exists
    /// in the collections the field allows. Or create the missing record.
    UNRESOLVED_REF = "unresolved-ref", Error, fatal = false, "a reference names no record";

    /// ## What it finds
    /// A reference to a record of a collection the field does not allow: an `affects` value
    /// naming a `source` when `affects` may only point at engines.
    ///
    /// ## Why it matters
    /// The record exists, so a loose check passes, but the link means something else than the
    /// field says.
    ///
    /// ## Example
    /// ```yaml
    /// affects: [lmcache]        # sources/lmcache; did you mean lm-cache (engines/lm-cache)?
    /// affects: [sources/vllm]   # did you mean engines/vllm?
    /// ```
    ///
    /// ## How to fix
    /// Point at a record of an allowed collection: the help names one whose id is close, or
    /// the same id qualified with an allowed folder, and editors offer it as a fix, which
    /// `gotchas check --fix` never applies (the record named exists, so the schema may be
    /// what is wrong). Or widen the field's `x-ref` (or its `[references]` in the config).
    WRONG_TARGET = "wrong-target", Error, fatal = false, "a reference names a record of the wrong collection";

    /// ## What it finds
    /// A bare id that names records in several of the collections a field allows (or, for a
    /// wiki-link, in several collections at all), or a wiki-link naming prose pages in
    /// several folders by the stem they share (`[[setup]]` with `docs/linux/setup.md` and
    /// `docs/windows/setup.md`). Ambiguity across collections the field cannot point at is
    /// not reported: it resolves to the one that fits.
    ///
    /// ## Why it matters
    /// Which record is meant would depend on lookup order, and adding a record elsewhere
    /// could silently re-point the reference.
    ///
    /// ## Example
    /// ```yaml
    /// affects: [gaudi]   # could name engines/gaudi or accelerators/gaudi
    /// ```
    ///
    /// ## How to fix
    /// Qualify the id with its folder: `accelerators/gaudi`; name a page by its path:
    /// `[[windows/setup]]`.
    AMBIGUOUS_REF = "ambiguous-ref", Error, fatal = false, "a bare id names records in several collections";

    /// ## What it finds
    /// A link in prose that points at nothing: a wiki-link (`[[engines/vllm]]`,
    /// `[[engines/vllm|label]]`, `[[vllm]]`, `[[05-known-traps]]` or `[[windows/setup]]` for
    /// a prose page) naming no
    /// record or page, or a relative link or image to a file that does not exist
    /// (`[traps](05-known-traps.md)`, `![plot](plot.png)`, `[paper](paper.pdf)`; a `%20`
    /// in the path is a space, as a browser reads it). Links inside code spans and code
    /// blocks are text, not links.
    ///
    /// ## Why it matters
    /// A broken link is a dead end on the site and a citation that proves nothing.
    ///
    /// ## How to fix
    /// Use the suggested id, or fix the path (relative to the linking file).
    BROKEN_LINK = "broken-link", Error, fatal = false, "a link in prose points at nothing";

    /// ## What it finds
    /// A link in prose whose fragment names no element of the page it leads to: no heading
    /// of a prose page or of a record's Markdown body has that id (`[[vllm#instal]]`,
    /// `[setup](guide.md#no-such-heading)`, `[above](#nowhere)` for the page the link is
    /// on). A heading's id is made from its text as GitHub makes it (`## Tier 0: Setup` is
    /// `tier-0-setup`, a second `## Setup` on the page `setup-1`); a footnote's from its
    /// label; a record's page also has `field-NAME` for each of its fields and the ids its
    /// template gives (`main`, `backlinks-h`, `graph-h` ...). `#` alone and `#top` are the
    /// top of any page.
    ///
    /// ## Why it matters
    /// The link still leads to the page, but not to the place it cites: a reader lands at
    /// the top and has to look for it, usually because the heading was renamed.
    ///
    /// ## Example
    /// ```markdown
    /// See [[engines/vllm#instal]].   # did you mean `install`?
    /// ```
    ///
    /// ## How to fix
    /// Use the suggested id (`--fix` applies it when one is near enough to be sure of), or
    /// the id of the heading as it is now written.
    BROKEN_ANCHOR = "broken-anchor", Warn, fatal = false, "a link's fragment names no place in its page";

    /// ## What it finds
    /// A record that references nothing and that nothing references: no reference field, no
    /// link in prose, in either direction. Collections whose records are expected to be
    /// leaves can be exempted: `[graph] leaf_collections = ["source"]`.
    ///
    /// ## Why it matters
    /// An orphan is invisible from every other page and adds nothing to any: it is usually a
    /// record whose references were lost in an edit, or one nobody finished.
    ///
    /// ## How to fix
    /// Link it from where it belongs, or give it the references it should have.
    ORPHAN = "orphan", Warn, fatal = false, "a record is cut off from the graph";

    /// ## What it finds
    /// A loop through fields the config marks acyclic (`[graph] acyclic_fields =
    /// ["supersedes"]`): `a` supersedes `b`, which supersedes `a`. Reported once per strongly
    /// connected component, with the whole loop in the message.
    ///
    /// ## Why it matters
    /// A supersession (or dependency) chain that loops has no current record: readers and
    /// tools following it never arrive.
    ///
    /// ## How to fix
    /// One reference of the loop points the wrong way; remove or reverse it.
    CYCLE = "cycle", Error, fatal = false, "references form a loop through an acyclic field";

    /// ## What it finds
    /// A record that no other record or page cites, in a collection the config says must be
    /// cited: `[graph] must_be_cited = ["source"]`.
    ///
    /// ## Why it matters
    /// A source that backs no claim is dead weight, or a sign that the claim citing it lost
    /// its reference. Off (`allow`) unless enabled in `[rules]`.
    ///
    /// ## How to fix
    /// Cite it where it is used, or delete it.
    UNREFERENCED = "unreferenced", Allow, fatal = false, "a record that must be cited is not";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case_and_documented() {
        for (i, rule) in ALL.iter().enumerate() {
            assert!(
                rule.code
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                rule.code
            );
            assert!(
                rule.explanation.contains("## What it finds"),
                "{}",
                rule.code
            );
            assert!(ALL[..i].iter().all(|other| other.code != rule.code));
        }
    }
}
