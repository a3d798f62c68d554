//! Splitting front matter and finding sections: spans inside the text, in order, never a
//! panic.
#![no_main]

use std::collections::HashSet;

use gotchas::load::markdown;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(front) = markdown::split_front_matter(text) else {
        return;
    };
    assert!(front.yaml.end <= front.body.start && front.body.end == text.len());
    let fields: HashSet<String> = ["symptom", "root_cause", "notes", "a"]
        .map(String::from)
        .into();
    let mut last = front.body.start;
    for section in markdown::sections(text, &front.body, &fields) {
        assert!(
            section.heading.start >= last
                && section.heading.end <= section.content.start.max(section.heading.end)
        );
        assert!(text.get(section.content.clone()).is_some());
        last = section.content.end;
    }
});
