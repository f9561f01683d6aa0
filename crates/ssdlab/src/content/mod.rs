//! Content of written units: the bytes a codec (DPC, FPC, BDI, LZ4) compresses.
//!
//! A block trace says where and how much a host writes, rarely what. A [`ContentSource`] supplies
//! the bytes of each written mapping unit as a pure function of (unit, write version, seed), so a
//! replay is byte-identical, the order of calls does not matter, and the engine can regenerate a
//! unit's bytes when it reads or verifies it instead of storing them. Traces that do carry content
//! identities (FIU's per-block MD5, a native trace's content id) use [`ContentSource::fill_by_ref`]:
//! equal fingerprints give equal bytes.
//!
//! Sources, one file each: [`corpus`] cuts real files (the committed default corpus or any
//! directory), [`file_mix`] cuts them from groups of real files with chosen shares,
//! [`synthetic`] draws units from a target compressibility mix, [`zero`] makes a share of units
//! all-zero or partly zero (PR-SSD §4.2.1), [`reference`] fixes the fingerprint contract.
//! [`builtin`] holds the compiled-in files, [`layers`] how a preset's, a named workload's and the
//! user's `[content]` combine. `docs/content.md` describes the model and its measured speed.

pub mod builtin;
pub mod corpus;
pub mod file_mix;
pub mod layers;
pub mod reference;
pub mod synthetic;
pub mod zero;

use serde::{Deserialize, Serialize};

use crate::error::Error;
pub use corpus::{Corpus, CorpusConfig};
pub use file_mix::{FileGroup, FileMix};
pub use reference::{Fingerprint, ZERO_FINGERPRINT};
pub use synthetic::{MixClass, Synthetic, SyntheticConfig};
pub use zero::{ZeroConfig, ZeroUnits};

/// Where the bytes of written units come from.
pub trait ContentSource: Send + Sync {
    /// Fill `buf` (one mapping unit: a multiple of 512 bytes, though any length is filled) with
    /// the content of the `version`-th write of logical unit `lpn`. A pure function of (lpn,
    /// version, the source's seed and configuration, `buf.len()`): equal arguments give equal
    /// bytes whatever was asked before.
    fn fill(&self, lpn: u32, version: u32, buf: &mut [u8]);

    /// Fill `buf` with the content a trace names by `fingerprint` (see [`reference`] for the
    /// contract): equal fingerprints give equal bytes; different ones give different bytes.
    fn fill_by_ref(&self, fingerprint: Fingerprint, buf: &mut [u8]);

    /// A name for the bytes `fill(lpn, version, buf)` writes into a `len`-byte `buf`: two calls
    /// with equal names write equal bytes, so whatever is computed from the bytes (a codec's
    /// output) can be reused. None when the source cannot tell cheaply (random bytes).
    fn identity(&self, _lpn: u32, _version: u32, _len: usize) -> Option<UnitIdentity> {
        None
    }
}

/// See [`ContentSource::identity`]: the unit a source cut, and what was zeroed in it.
pub type UnitIdentity = (u64, u64);

/// A source whose unit is a function of one 64-bit key, derived from (lpn, version) or from a
/// trace's fingerprint; the corpus and synthetic sources are built this way, and the blanket
/// impl below makes each a [`ContentSource`].
pub(crate) trait KeyedSource: Send + Sync {
    fn seed(&self) -> u64;
    /// Fill `buf` with the unit `key` names.
    fn fill_key(&self, key: u64, buf: &mut [u8]);
    /// Equal for keys that fill a `len`-byte buffer with equal bytes (see
    /// [`ContentSource::identity`]).
    fn key_identity(&self, _key: u64, _len: usize) -> Option<u64> {
        None
    }
}

impl<T: KeyedSource> ContentSource for T {
    fn fill(&self, lpn: u32, version: u32, buf: &mut [u8]) {
        self.fill_key(
            key(Domain::Unit, self.seed(), lpn as u64, version as u64),
            buf,
        );
    }

    fn fill_by_ref(&self, fingerprint: Fingerprint, buf: &mut [u8]) {
        reference::fill(self.seed(), fingerprint, buf, |k, b| self.fill_key(k, b));
    }

    fn identity(&self, lpn: u32, version: u32, len: usize) -> Option<UnitIdentity> {
        let k = key(Domain::Unit, self.seed(), lpn as u64, version as u64);
        self.key_identity(k, len).map(|id| (id, 0))
    }
}

/// `[content]`: which source supplies the bytes of written units.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum ContentConfig {
    /// Cut real files into units.
    Corpus(CorpusConfig),
    /// Draw units from a target compressibility mix.
    Synthetic(SyntheticConfig),
}

impl Default for ContentConfig {
    /// The committed default corpus, unit-aligned, no extra zero units.
    fn default() -> Self {
        ContentConfig::Corpus(CorpusConfig::default())
    }
}

impl ContentConfig {
    /// The zero-unit options every source carries.
    pub fn zeros(&self) -> ZeroConfig {
        match self {
            ContentConfig::Corpus(c) => c.zeros(),
            ContentConfig::Synthetic(s) => s.zeros(),
        }
    }

    /// Check every value, naming the key (`content.…`) of the first bad one. With `unit_bytes`
    /// (the mapping unit) also check the options that depend on it.
    pub fn validate(&self, unit_bytes: Option<u64>) -> Result<(), Error> {
        self.zeros().validate(unit_bytes)?;
        match self {
            ContentConfig::Corpus(c) => c.validate(),
            ContentConfig::Synthetic(s) => s.validate(),
        }
    }
}

/// Read a `[content]` table whose `source` may be absent (then `"corpus"`), so that
/// `--set content.zero_unit_fraction=0.06` or a table of zero options alone applies to the default
/// corpus.
pub fn deserialize_defaulting_source<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<ContentConfig, D::Error> {
    let mut table = toml::Table::deserialize(deserializer)?;
    table
        .entry("source")
        .or_insert_with(|| toml::Value::String("corpus".into()));
    toml::Value::Table(table)
        .try_into()
        .map_err(serde::de::Error::custom)
}

/// Build the configured source. `seed` is the run's seed: different seeds give different (but
/// equally distributed) content. Loads the corpus directory, so errors name an unreadable or
/// empty path as well as bad values.
pub fn build(config: &ContentConfig, seed: u64) -> Result<Box<dyn ContentSource>, Error> {
    config.validate(None)?;
    let zeros = config.zeros();
    Ok(match config {
        ContentConfig::Corpus(c) if !c.mix.is_empty() => {
            Box::new(ZeroUnits::new(FileMix::load(c, seed)?, &zeros, seed))
        }
        ContentConfig::Corpus(c) => Box::new(ZeroUnits::new(Corpus::load(c, seed)?, &zeros, seed)),
        ContentConfig::Synthetic(s) => {
            Box::new(ZeroUnits::new(Synthetic::new(s, seed), &zeros, seed))
        }
    })
}

/// Check the shares of a mix (`content.mix`, of either source): each in [0, 1], summing to 1
/// within 1e-9. Errors name `content.mix[i].fraction` or `content.mix`.
pub(crate) fn validate_fractions(fractions: impl Iterator<Item = f64>) -> Result<(), Error> {
    let mut sum = 0.0;
    let mut classes = 0;
    for (i, f) in fractions.enumerate() {
        if !(f.is_finite() && (0.0..=1.0).contains(&f)) {
            return Err(Error::config(
                &format!("content.mix[{i}].fraction"),
                format!("must be in [0, 1] (got {f})"),
            ));
        }
        sum += f;
        classes += 1;
    }
    if classes == 0 {
        return Err(Error::config("content.mix", "needs at least one class"));
    }
    if (sum - 1.0).abs() > 1e-9 {
        return Err(Error::config(
            "content.mix",
            format!("the fractions sum to {sum}, not 1"),
        ));
    }
    Ok(())
}

/// The running sums of a mix's fractions, for [`pick`].
pub(crate) fn cumulative(fractions: impl Iterator<Item = f64>) -> Vec<f64> {
    fractions
        .scan(0.0, |acc, f| {
            *acc += f;
            Some(*acc)
        })
        .collect()
}

/// The class a uniform `u` in [0, 1) picks: the first whose cumulative fraction exceeds `u`, so
/// class i with probability fraction_i. A `u` past every sum (fractions summing to slightly less
/// than 1) takes the last class; an empty mix gives 0.
pub(crate) fn pick(cumulative: &[f64], u: f64) -> usize {
    cumulative
        .iter()
        .position(|&c| u < c)
        .unwrap_or(cumulative.len().saturating_sub(1))
}

/// Independent streams of draws: the same (seed, a, b) in different domains gives unrelated keys.
#[derive(Clone, Copy)]
#[repr(u64)]
pub(crate) enum Domain {
    /// Which content a (lpn, version) gets.
    Unit = 0x636f_6e74_656e_7431,
    /// Whether a (lpn, version) is zeroed, and which sub-blocks.
    Zero = 0x7a65_726f_7a65_726f,
    /// Which content a fingerprint gets.
    Ref = 0x7265_6672_6566_7265,
}

/// SplitMix64's output function (Steele, Lea & Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014; the constants of Vigna's `splitmix64.c`). A bijection on u64 whose
/// output passes BigCrush; being a fixed formula, not a library's hasher, the content of a unit
/// cannot change with a dependency's version.
pub(crate) fn mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The 64-bit key of (domain, seed, a, b). Each step is a bijection of the previous state xor one
/// input, so for a fixed (domain, seed, a) distinct `b` give distinct keys (and vice versa for
/// `a`): two versions of one unit never share a key.
pub(crate) fn key(domain: Domain, seed: u64, a: u64, b: u64) -> u64 {
    let h = mix64(seed ^ domain as u64);
    let h = mix64(h ^ a);
    mix64(h ^ b)
}

/// The `i`-th 64-bit draw derived from `key` (SplitMix64's stream: key + i·golden gamma).
pub(crate) fn draw(key: u64, i: u64) -> u64 {
    mix64(key.wrapping_add(i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

/// A key's top 53 bits as a uniform number in [0, 1): `unit_interval(k) < p` has probability
/// exactly p (up to 2^-53).
pub(crate) fn unit_interval(key: u64) -> f64 {
    (key >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `key` mapped onto [0, n) by multiply-shift (Lemire): bias below n / 2^64.
pub(crate) fn below(key: u64, n: u64) -> u64 {
    ((key as u128 * n as u128) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix64_matches_splitmix64_reference_outputs() {
        // splitmix64.c seeded with 0 yields mix64(γ), mix64(2γ), …: these are its first outputs.
        assert_eq!(draw(0, 0), 0xe220_a839_7b1d_cdaf);
        assert_eq!(draw(0, 1), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(draw(0, 2), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn keys_of_distinct_versions_never_collide() {
        let mut seen = std::collections::HashSet::new();
        for v in 0..10_000u64 {
            assert!(seen.insert(key(Domain::Unit, 1, 42, v)));
        }
        assert_ne!(key(Domain::Unit, 1, 42, 0), key(Domain::Zero, 1, 42, 0));
        assert_ne!(key(Domain::Unit, 1, 42, 0), key(Domain::Unit, 2, 42, 0));
    }

    #[test]
    fn unit_interval_and_below_stay_in_range() {
        assert_eq!(unit_interval(0), 0.0);
        assert!(unit_interval(u64::MAX) < 1.0);
        assert_eq!(below(u64::MAX, 10), 9);
        assert_eq!(below(0, 10), 0);
        assert_eq!(below(u64::MAX / 2, 10), 4);
    }

    #[test]
    fn pick_takes_each_class_by_its_share() {
        let c = cumulative([0.2, 0.0, 0.8].into_iter());
        assert_eq!(c, [0.2, 0.2, 1.0]);
        assert_eq!(pick(&c, 0.0), 0);
        assert_eq!(pick(&c, 0.1999), 0);
        // An empty class is never picked.
        assert_eq!(pick(&c, 0.2), 2);
        assert_eq!(pick(&c, 0.999), 2);
        assert_eq!(pick(&[0.5, 0.9999], 0.99995), 1);
        assert_eq!(pick(&[], 0.5), 0);
    }

    #[test]
    fn the_default_is_the_builtin_corpus_without_zero_units() {
        let c = ContentConfig::default();
        assert!(matches!(&c, ContentConfig::Corpus(cc) if cc.dir.is_none()));
        assert_eq!(c.zeros().zero_unit_fraction, 0.0);
        assert_eq!(c.zeros().partial_zero_fraction, 0.0);
    }
}

#[cfg(test)]
mod identity_tests {
    use super::*;

    /// Equal identities mean equal bytes, and the built-in corpus repeats pages often enough
    /// for identities to repeat; random bytes have none.
    #[test]
    fn units_of_equal_identity_have_equal_bytes() {
        let sources = [
            "zero_unit_fraction = 0.1\npartial_zero_fraction = 0.3\npartial_zero_block_bytes = 4096",
            "alignment_bytes = 512\npartial_zero_fraction = 0.5",
            "mix = [{files = [\"canterbury/*\"], fraction = 0.5}, {files = [\"snappy_testdata/*\"], fraction = 0.5}]",
        ];
        for text in sources {
            let config: ContentConfig =
                toml::from_str(&format!("source = \"corpus\"\n{text}")).unwrap();
            let source = build(&config, 3).unwrap();
            let mut seen = std::collections::HashMap::new();
            let mut repeats = 0;
            let mut buf = vec![0u8; 16384];
            for lpn in 0..3000 {
                let id = source
                    .identity(lpn, 1, buf.len())
                    .expect("a corpus names its units");
                source.fill(lpn, 1, &mut buf);
                if let Some(earlier) = seen.insert(id, buf.clone()) {
                    assert_eq!(earlier, buf, "{text}: unit {lpn}");
                    repeats += 1;
                }
            }
            assert!(repeats > 100, "{text}: {repeats}");
        }
        let synthetic: ContentConfig = toml::from_str(
            "source = \"synthetic\"\nmix = [{fraction = 1.0, compressibility = 0.5}]",
        )
        .unwrap();
        assert_eq!(build(&synthetic, 3).unwrap().identity(1, 1, 4096), None);
    }
}
