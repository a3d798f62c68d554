//! The public `inference-research` sample in `../shared/corpus`: the tool reads its layout
//! through the committed example config and reports every schema violation with a position.

mod common;

use common::{gotchas, json_diagnostics, sample};

#[test]
fn every_schema_violation_is_reported_with_a_position() {
    let root = sample();
    let run = gotchas(&[
        "check",
        "--root",
        root.to_str().unwrap(),
        "--config",
        "examples/inference-research.toml",
        "--format",
        "json",
        // The sample is shared: the test leaves no cache in it.
        "--no-cache",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["summary"]["records"], 321);
    let diagnostics = json_diagnostics(&run);
    // The upstream validator counts 142 "missing required field" errors on this sample.
    let missing = diagnostics
        .iter()
        .filter(|d| d.0 == "missing-field")
        .count();
    assert_eq!(missing, 142);
    for (code, path, line, column) in &diagnostics {
        assert!(
            line.is_some() && column.is_some(),
            "{code} in {path} has no position"
        );
        assert!(
            path.starts_with("data/") || path.starts_with("docs/"),
            "{path}"
        );
    }
}
