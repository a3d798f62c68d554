//! Applying fixes: any edits on any text give a text, never a panic, and applying no edit
//! changes nothing.
#![no_main]

use gotchas::fix;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let len = text.len().max(1);
    let edits: Vec<(std::ops::Range<usize>, String)> = rest
        .chunks(3)
        .take(usize::from(count % 8))
        .map(|chunk| {
            let a = usize::from(*chunk.first().unwrap_or(&0)) * 7 % len;
            let b = a + usize::from(*chunk.get(1).unwrap_or(&0)) % 5;
            (
                a..b,
                "x".repeat(usize::from(*chunk.get(2).unwrap_or(&0)) % 4),
            )
        })
        .collect();
    let (fixed, applied) = fix::apply(text, &edits);
    assert!(applied <= edits.len());
    if edits.is_empty() {
        assert_eq!(fixed, text);
    }
});
