//! Unit-fill throughput of each content source, against a plain 4 KiB memcpy from a corpus-sized
//! buffer. The figures in `docs/content.md` come from:
//!
//! ```text
//! cargo run --release -p ssdlab --example content_throughput [-- UNIT_BYTES]
//! ```
//!
//! Each case fills units lpn = 0, 1, 2, … (version 0) into one buffer for about 0.3 s, five
//! times; the best and the median rate are printed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use ssdlab::content::{build, ContentConfig, ContentSource};

const ROUNDS: usize = 5;
const ROUND: Duration = Duration::from_millis(300);

/// Units per second over `ROUNDS` rounds: (best, median).
fn rate(mut fill_one: impl FnMut(u32)) -> (f64, f64) {
    let mut rates = Vec::with_capacity(ROUNDS);
    let mut next = 0u32;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let mut n = 0u64;
        while start.elapsed() < ROUND {
            for _ in 0..256 {
                fill_one(next);
                next = next.wrapping_add(1);
            }
            n += 256;
        }
        rates.push(n as f64 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    (rates[ROUNDS - 1], rates[ROUNDS / 2])
}

fn print(name: &str, unit: usize, (best, median): (f64, f64)) {
    println!(
        "{name:<52} {:>7.2} M units/s (median {:>5.2})  {:>6.2} GB/s",
        best / 1e6,
        median / 1e6,
        best * unit as f64 / 1e9
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let unit: usize = match std::env::args().nth(1) {
        Some(a) => a.parse()?,
        None => 4096,
    };
    println!("unit = {unit} bytes");
    let mut buf = vec![0u8; unit];

    // Baseline: copy a unit from a pseudo-random aligned offset of a 4 MiB buffer.
    let pool: Vec<u8> = (0..4usize << 20).map(|i| (i * 31 % 251) as u8).collect();
    let slots = (pool.len() / unit) as u64;
    print(
        "memcpy from a 4 MiB buffer (baseline)",
        unit,
        rate(|i| {
            // Multiply-shift, as the corpus maps its key onto positions.
            let spread = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let off = ((spread as u128 * slots as u128) >> 64) as usize * unit;
            buf.copy_from_slice(&pool[off..off + unit]);
            black_box(&buf);
        }),
    );

    let cases: &[(&str, &str)] = &[
        ("corpus (built-in, unit-aligned)", "source = \"corpus\""),
        (
            "corpus, alignment_bytes = 1",
            "source = \"corpus\"\nalignment_bytes = 1",
        ),
        (
            "corpus + 6% zero, 6% partial-zero",
            "source = \"corpus\"\nzero_unit_fraction = 0.06\npartial_zero_fraction = 0.06",
        ),
        (
            "synthetic c = 0 (all random)",
            "source = \"synthetic\"\nmix = [{fraction = 1.0, compressibility = 0.0}]",
        ),
        (
            "synthetic c = 0.5",
            "source = \"synthetic\"\nmix = [{fraction = 1.0, compressibility = 0.5}]",
        ),
        (
            "synthetic mix 0.5@0, 0.3@0.5, 0.2@0.9",
            "source = \"synthetic\"\nmix = [{fraction = 0.5, compressibility = 0.0}, \
             {fraction = 0.3, compressibility = 0.5}, {fraction = 0.2, compressibility = 0.9}]",
        ),
    ];
    for (name, text) in cases {
        let config: ContentConfig = toml::from_str(text)?;
        let source: Box<dyn ContentSource> = build(&config, 1)?;
        print(
            name,
            unit,
            rate(|i| {
                source.fill(i, 0, &mut buf);
                black_box(&buf);
            }),
        );
        if name.starts_with("corpus (") || name.starts_with("synthetic mix") {
            let label = format!("{} by fingerprint", name.split(" (").next().unwrap_or(name));
            print(
                &label,
                unit,
                rate(|i| {
                    source.fill_by_ref((i as u128) << 64 | 0x1234, &mut buf);
                    black_box(&buf);
                }),
            );
        }
    }
    Ok(())
}
