//! The same record written as JSON, YAML and Markdown gives the same diagnostics, each at its
//! own file's positions.

mod common;

use common::{check, fixture, json_diagnostics};

#[test]
fn same_record_same_diagnostics_in_every_format() {
    let mut seen = Vec::new();
    for format in ["json", "yaml", "md"] {
        let root = fixture(&format!("formats/{format}"));
        let human = check(&root, &[]);
        assert_eq!(human.code, 1);
        insta::assert_snapshot!(format!("format-{format}"), human.stdout);
        let json = check(&root, &["--format", "json"]);
        insta::assert_snapshot!(format!("format-{format}-json"), json.stdout);
        let codes: Vec<String> = json_diagnostics(&json)
            .into_iter()
            .map(|(code, _, line, _)| {
                assert!(line.is_some());
                code
            })
            .collect();
        let messages: Vec<String> = serde_json::from_str::<serde_json::Value>(&json.stdout)
            .unwrap()["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect();
        seen.push((format, codes, messages));
    }
    let (_, codes, messages) = &seen[0];
    assert_eq!(codes.len(), 4);
    for (format, other_codes, other_messages) in &seen[1..] {
        assert_eq!(other_codes, codes, "{format}");
        assert_eq!(other_messages, messages, "{format}");
    }
}
