//! Every codec restores its input exactly — on random, zero, repetitive, sparse and real data, in
//! every DPC configuration — never stores more than the input, honours the failure threshold, and
//! turns corrupted data into an error rather than a panic. The study command works end to end on
//! the committed real-data excerpts (tests/data/codec, see PROVENANCE.md).

use std::path::PathBuf;

use crate::common;

use common::ssdlab;
use proptest::prelude::*;
use ssdlab::codec::layout::{PagePacker, Refusal};
use ssdlab::codec::{
    by_name, CodecConfig, Compressed, DpcConfig, FpcConfig, CODEC_NAMES, UNIT_BYTES,
};

fn excerpt_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/codec"))
}

/// The committed real-data excerpts, sorted by name.
fn excerpts() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(excerpt_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "head16k"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 7, "excerpts missing");
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Round-trip `input` through `config`; check the stored-size and threshold invariants.
fn check(config: &CodecConfig, input: &[u8]) -> Result<Compressed, TestCaseError> {
    let mut codec = config.build().unwrap();
    let c = codec.compress(input).unwrap();
    let back = codec.decompress(&c).unwrap();
    prop_assert!(back == input, "{config:?}: round trip changed the data");
    prop_assert_eq!(c.original_bytes as usize, input.len());
    // What must be stored, and what the threshold allows when compression succeeds.
    let (base, threshold) = match config {
        CodecConfig::Dpc(d) => {
            let z = d.zero_filter_bytes as usize;
            let nonzero = input
                .chunks(z)
                .filter(|u| u.iter().any(|&b| b != 0))
                .count();
            (nonzero * z, d.failure_threshold_saving)
        }
        CodecConfig::Fpc(f) => (input.len(), f.failure_threshold_saving),
        CodecConfig::Bdi(b) => (input.len(), b.failure_threshold_saving),
        CodecConfig::Lz4(l) => (input.len(), l.failure_threshold_saving),
        CodecConfig::Zstd(z) => (input.len(), z.failure_threshold_saving),
    };
    let stored = c.stored_bytes() as usize;
    if c.failed {
        prop_assert_eq!(stored, base, "failed: stored raw");
        prop_assert_eq!(c.decompress_ns, 0);
    } else {
        let saving = base as f64 - stored as f64;
        prop_assert!(
            saving >= threshold * base as f64 - 1e-9,
            "{config:?}: saving {saving} of {base} is below the threshold"
        );
    }
    Ok(c)
}

fn named(name: &str) -> CodecConfig {
    CodecConfig::from_name(name).unwrap()
}

/// Inputs of 1–4 units of several kinds.
fn content() -> impl Strategy<Value = Vec<u8>> {
    let units = 1usize..=4;
    prop_oneof![
        // random
        units
            .clone()
            .prop_flat_map(|n| prop::collection::vec(any::<u8>(), n * UNIT_BYTES)),
        // zero
        units.clone().prop_map(|n| vec![0u8; n * UNIT_BYTES]),
        // repetitive: a short random period repeated
        (units.clone(), prop::collection::vec(any::<u8>(), 1..24)).prop_map(|(n, period)| {
            period
                .iter()
                .copied()
                .cycle()
                .take(n * UNIT_BYTES)
                .collect()
        }),
        // runs over a small alphabet
        (
            units.clone(),
            prop::collection::vec((0u8..4, 1usize..300), 1..200)
        )
            .prop_map(|(n, runs)| {
                let mut v: Vec<u8> = runs
                    .iter()
                    .flat_map(|&(b, len)| std::iter::repeat_n(b * 17, len))
                    .collect();
                v.resize(n * UNIT_BYTES, 0);
                v
            }),
        // sparse: mostly zero, a few random bytes, sometimes whole zero units
        (
            units.clone(),
            prop::collection::vec((any::<u16>(), any::<u8>()), 0..64)
        )
            .prop_map(|(n, pokes)| {
                let mut v = vec![0u8; n * UNIT_BYTES];
                for (at, b) in pokes {
                    let len = v.len();
                    v[at as usize % len] = b;
                }
                v
            }),
        // numeric: narrow integers, some offset from a common base, as in memory images
        (
            units.clone(),
            prop::sample::select(vec![2usize, 4, 8]),
            prop::collection::vec((-300i64..300, any::<bool>()), 1..64),
            any::<i64>(),
        )
            .prop_map(|(n, width, values, base)| {
                values
                    .iter()
                    .cycle()
                    .flat_map(|&(v, offset)| {
                        let x = if offset { base.wrapping_add(v) } else { v };
                        x.to_le_bytes().into_iter().take(width)
                    })
                    .take(n * UNIT_BYTES)
                    .collect()
            }),
        // real: a window of a committed excerpt
        (0usize..7, 0usize..16384, units).prop_map(|(file, offset, n)| {
            let data = &excerpts()[file].1;
            let mut v: Vec<u8> = data
                .iter()
                .cycle()
                .skip(offset)
                .take(n * UNIT_BYTES)
                .copied()
                .collect();
            v.truncate(n * UNIT_BYTES);
            v
        }),
    ]
}

fn dpc_config() -> impl Strategy<Value = DpcConfig> {
    (
        prop::sample::select(vec![32u32, 64, 128, 256, 512, 1024]),
        prop::sample::select(vec![1u32, 2, 4, 8]),
        1u32..=2,
        prop::sample::select(vec![32u32, 64, 128, 256, 512, 1024, 2048, 4096]),
        prop::sample::select(vec![0.0, 0.10, 0.5]),
    )
        .prop_map(|(g, p, n, z, t)| DpcConfig {
            granularity_bytes: g,
            pattern_bytes: p,
            patterns: n,
            zero_filter_bytes: z.max(g),
            failure_threshold_saving: t,
            ..DpcConfig::default()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_named_codec_round_trips(input in content()) {
        for name in CODEC_NAMES {
            let mut config = named(name);
            check(&config, &input)?;
            // Without a threshold most inputs are decoded rather than stored raw.
            config.set_failure_threshold(0.0);
            check(&config, &input)?;
        }
        let segments = FpcConfig { segment_bytes: 8, ..FpcConfig::default() };
        check(&CodecConfig::Fpc(segments), &input)?;
    }

    #[test]
    fn every_dpc_configuration_round_trips(config in dpc_config(), input in content()) {
        check(&CodecConfig::Dpc(config), &input)?;
    }

    #[test]
    fn corruption_is_an_error_or_wrong_bytes_never_a_panic(
        name in prop::sample::select(CODEC_NAMES.to_vec()),
        input in content(),
        flips in prop::collection::vec((any::<u32>(), 1u8..=255), 1..8),
        cut in any::<u32>(),
    ) {
        let mut codec = by_name(name).unwrap();
        let c = codec.compress(&input).unwrap();
        let mut bad = c.clone();
        for (at, x) in &flips {
            if !bad.data.is_empty() {
                let len = bad.data.len();
                bad.data[*at as usize % len] ^= x;
            }
            if !bad.side.is_empty() {
                let len = bad.side.len();
                bad.side[*at as usize % len] ^= x;
            }
        }
        let _ = codec.decompress(&bad);
        if !c.data.is_empty() {
            let mut short = c.clone();
            short.data.truncate(cut as usize % c.data.len());
            prop_assert!(codec.decompress(&short).is_err(), "{name}: truncated data decoded");
        }
        let mut wrong_len = c;
        wrong_len.original_bytes += 1;
        prop_assert!(codec.decompress(&wrong_len).is_err(), "{name}: bad length accepted");
    }

    #[test]
    fn packed_slots_never_overlap_and_partial_bitmaps_cover_them(
        lens in prop::collection::vec(0u32..9000, 1..40),
        align in prop::sample::select(vec![1u32, 16, 128]),
    ) {
        let mut p = PagePacker::new(16384, 12, align).unwrap();
        let (mut pages, mut page) = (Vec::new(), Vec::new());
        for len in lens {
            match p.push(len) {
                Ok(slot) => page.push(slot),
                Err(Refusal::PageFull) => {
                    prop_assert_eq!(p.len(), page.len());
                    pages.push(std::mem::take(&mut page));
                    p.clear();
                    page.push(p.push(len).unwrap());
                }
                Err(Refusal::Empty) => prop_assert_eq!(len, 0),
                Err(Refusal::TooLarge) => prop_assert!(len > 16384),
            }
        }
        pages.push(page);
        for slots in pages {
            prop_assert!(slots.len() <= 12);
            let mut end = 0;
            for s in slots {
                prop_assert!(s.offset >= end && s.offset % align == 0);
                prop_assert!(s.offset + s.len <= 16384);
                end = s.offset + s.len;
                let bits = s.partial_units(4096);
                for i in 0..4 {
                    let touches = s.offset < (i + 1) * 4096 && s.offset + s.len > i * 4096;
                    prop_assert_eq!(bits & (1 << i) != 0, touches);
                }
            }
        }
    }
}

#[test]
fn real_excerpts_behave_as_their_content_says() {
    let ex = excerpts();
    let get = |name: &str| &ex.iter().find(|(n, _)| n.starts_with(name)).unwrap().1;
    // The fax bitmap: DPC's zero filter finds its three all-zero 4 KiB units (0, 2 and 3).
    let mut dpc = by_name("dpc").unwrap();
    let c = dpc.compress(get("ptt5")).unwrap();
    assert_eq!(c.side, vec![0b1101]);
    // An already compressed JPEG: LZ4 and DPC fail on every unit.
    let jpeg = get("fireworks");
    for name in ["lz4", "dpc"] {
        let mut codec = by_name(name).unwrap();
        for unit in jpeg.chunks(UNIT_BYTES) {
            assert!(codec.compress(unit).unwrap().failed, "{name}");
        }
    }
    // English text: LZ4 compresses every unit; DPC and the memory codecs fail on every one
    // (no byte dominates a 128-byte unit by more than DPC's header costs, and text has no
    // narrow or zero words).
    let text = get("alice29");
    for name in ["lz4", "dpc", "fpc", "bdi"] {
        let mut codec = by_name(name).unwrap();
        for unit in text.chunks(UNIT_BYTES) {
            assert_eq!(
                codec.compress(unit).unwrap().failed,
                name != "lz4",
                "{name}"
            );
        }
    }
    // Binary game-tree data: DPC's dominant byte beats FPC's and BDI's word patterns.
    let tree = get("kppkn");
    let saving = |name: &str| by_name(name).unwrap().compress(tree).unwrap().saving();
    let (dpc, fpc, bdi) = (saving("dpc"), saving("fpc"), saving("bdi"));
    assert!(dpc > fpc && dpc > bdi, "dpc {dpc} fpc {fpc} bdi {bdi}");
}

#[test]
fn codec_study_json_on_the_excerpts() {
    // The excerpts by path, in reverse: the study sorts them.
    let mut args = vec!["codec-study".to_string(), "--json".to_string()];
    for (name, _) in excerpts().iter().rev() {
        args.push(excerpt_dir().join(name).display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("stdout is only JSON");
    assert_eq!(v["files_studied"], 7);
    for name in CODEC_NAMES {
        let c = &v["codecs"][name];
        assert_eq!(c["roundtrip_ok"], true, "{name}");
        assert_eq!(c["units"], 28, "{name}");
        // ptt5's three zero units of 28.
        assert!((c["zero_fraction"].as_f64().unwrap() - 3.0 / 28.0).abs() < 1e-6);
        let ratio = c["ratio"].as_f64().unwrap();
        assert!((0.0..1.0).contains(&ratio), "{name} {ratio}");
        assert!(
            c["failed_fraction"].as_f64().unwrap() > 0.0,
            "{name}: the JPEG fails"
        );
    }
    let files = v["files"].as_array().unwrap();
    let names: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "files sorted by path");
}

#[test]
fn codec_study_options_and_text() {
    let file = excerpt_dir().join("alice29.txt.head16k");
    let f = file.to_str().unwrap();
    let (code, out, err) = ssdlab(&[
        "codec-study",
        f,
        "--codec",
        "dpc",
        "--codec",
        "dpc-g64-p2-n2",
        "--dpc-granularity-bytes",
        "256",
        "--unit-kib",
        "8",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["unit_bytes"], 8192);
    assert_eq!(v["codecs"]["dpc"]["config"]["granularity_bytes"], 256);
    assert_eq!(
        v["codecs"]["dpc-g64-p2-n2"]["config"]["granularity_bytes"],
        64
    );
    assert_eq!(v["codecs"]["dpc"]["units"], 2);
    let (code, out, _) = ssdlab(&["codec-study", f, "--codec", "fpc128"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("fpc128") && out.contains("ratio per file"),
        "{out}"
    );
}

#[test]
fn codec_study_bad_input_exits_2_naming_the_problem() {
    let missing = excerpt_dir().join("no-such-file");
    let (code, out, err) = ssdlab(&["codec-study", missing.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("no-such-file"), "{err}");
    let dir = excerpt_dir();
    let d = dir.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--codec", "lzma"], "lzma"),
        (&["--unit-kib", "3"], "--unit-kib"),
        (&["--unit-kib", "2048"], "--unit-kib"),
        (&["--dpc-granularity-bytes", "100"], "granularity_bytes"),
        (
            &["--failure-threshold-saving", "1.5"],
            "failure_threshold_saving",
        ),
    ];
    for (args, needle) in cases {
        let mut all = vec!["codec-study", d];
        all.extend_from_slice(args);
        let (code, out, err) = ssdlab(&all);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty());
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let (code, _, _) = ssdlab(&["codec-study"]);
    assert_eq!(code, 2, "a path is required");
}
