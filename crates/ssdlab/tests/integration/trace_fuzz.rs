//! Fuzzing the trace parsers: arbitrary and near-valid lines through every
//! format's parser (fresh, and past a header for the formats that have one)
//! never panic, and every error names a field; whole files through format
//! detection never panic either. The corpus under `tests/data/trace_corpus/`
//! keeps the interesting lines found along the way, each with the outcome it
//! must keep (`ok`, `skip` or `err:FIELD`), and is replayed here.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use ssdlab::trace::{read_trace, LineParser, LoadOptions, TraceFormat};

/// A parser for `format`, past its header when it has one, so that fuzzed
/// lines reach the record parser and not only the header check.
fn primed(format: TraceFormat) -> Box<dyn LineParser> {
    let mut p = format.parser(&LoadOptions::default());
    let header = match format {
        TraceFormat::Fio => Some("fio version 2 iolog"),
        TraceFormat::Native => Some("arrival_ns,offset_bytes,size_bytes,op,stream,content"),
        _ => None,
    };
    if let Some(h) = header {
        assert_eq!(p.parse_line(h).unwrap(), None);
    }
    p
}

fn check_line(p: &mut dyn LineParser, line: &str) -> Result<(), TestCaseError> {
    match p.parse_line(line) {
        Ok(Some(r)) => {
            prop_assert!(r.size_bytes > 0);
            prop_assert!(p.fingerprints().len() as u64 <= r.size_bytes.div_ceil(4096));
        }
        Ok(None) => {}
        Err(e) => {
            prop_assert!(!e.field.is_empty());
            prop_assert!(e.to_string().contains(e.field));
        }
    }
    Ok(())
}

/// Lines shaped like the formats' own, to get past the first field checks.
fn near_valid() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[0-9 ,.+\\-xXa-fA-FrRwWDQ#\t;\\[\\]]{0,80}",
        "[0-9]{1,21}(,[0-9A-Za-z+\\-.;]{0,34}){0,7}",
        "[0-9\\-.]{1,22}( [0-9a-fA-Fx\\-.]{0,22}){0,6}",
        "[0-9]{1,3},[0-9]{1,3} +[0-9]{1,3} +[0-9]{1,9} +[0-9.]{1,14} +[0-9]{1,6} +[A-Za-z]{1,2} +[A-Z]{0,4}( [0-9]{0,21})?( \\+)?( [0-9]{0,21})?( \\[[a-z]{0,5}\\])?",
        "[0-9]{1,20} [0-9]{1,6} [a-z. ]{1,12} [0-9]{1,21} [0-9]{1,3} [RWrwX] [0-9]{1,3} [0-9]{1,3} [0-9a-fA-F]{0,34}",
        "(/dev/sd[a-z]|[0-9]{1,20} /f) (read|write|trim|wait|sync|add|open|close|erase)( [0-9]{0,21}){0,3}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_parser_survives_any_line(line in near_valid()) {
        for format in TraceFormat::ALL {
            check_line(format.parser(&LoadOptions::default()).as_mut(), &line)?;
            check_line(primed(format).as_mut(), &line)?;
        }
    }

    #[test]
    fn every_parser_survives_any_line_sequence(lines in prop::collection::vec(near_valid(), 0..12)) {
        for format in TraceFormat::ALL {
            let mut p = primed(format);
            for line in &lines {
                check_line(p.as_mut(), line)?;
            }
        }
    }

    #[test]
    fn detection_and_loading_survive_any_file(
        lines in prop::collection::vec(near_valid(), 0..20),
        cap in prop::option::of(1u64..=u64::MAX),
    ) {
        let text = lines.join("\n");
        let opts = LoadOptions { capacity_bytes: cap, ..LoadOptions::default() };
        match read_trace(text.as_bytes(), Path::new("fuzz.txt"), &opts) {
            Ok(t) => {
                for r in &t.requests {
                    prop_assert!(r.size_bytes > 0);
                    prop_assert!(r.offset_bytes.checked_add(r.size_bytes).is_some());
                }
            }
            Err(e) => prop_assert!(e.to_string().starts_with("fuzz.txt")),
        }
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/trace_corpus")
}

#[test]
fn corpus_lines_keep_their_outcome() {
    let mut replayed = 0;
    for format in TraceFormat::ALL {
        let path = corpus_dir().join(format!("{format}.tsv"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut p = format.parser(&LoadOptions::default());
        for (i, entry) in text.lines().enumerate() {
            let (want, line) = entry
                .split_once('\t')
                .unwrap_or_else(|| panic!("{}:{}: no tab", path.display(), i + 1));
            let got = match p.parse_line(line) {
                Ok(Some(_)) => "ok".to_string(),
                Ok(None) => "skip".to_string(),
                Err(e) => format!("err:{}", e.field),
            };
            assert_eq!(got, want, "{}:{}: {line:?}", path.display(), i + 1);
            replayed += 1;
        }
    }
    assert!(replayed >= 60, "only {replayed} corpus lines");
}
