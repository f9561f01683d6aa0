//! Units cut from real files, so a codec sees the redundancy of real data (text, spreadsheets,
//! images, compressed media) rather than a model of it.
//!
//! Cutting rule (for a unit of `L` bytes and alignment `A`, `A = L` by default):
//! 1. a 64-bit key of (lpn, version, seed) picks a byte position `p` uniformly in the corpus
//!    (the files laid end to end, in path order), hence a file and a position in it;
//! 2. the unit starts at `p` rounded down to a multiple of `A` within that file;
//! 3. it is the next `L` bytes of that file; bytes past the file's end are zero.
//!
//! With `A = L` a unit is one whole block of a file as a file system stores it: files start on a
//! block boundary and the tail of the last block is zero. A unit's chance of being drawn is its
//! share of the corpus's file bytes, so a zero-padded tail block is drawn less often than a full
//! one. A unit never spans two files.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::file_mix::FileGroup;
use super::{below, builtin, KeyedSource, ZeroConfig};
use crate::error::Error;

/// `source = "corpus"`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusConfig {
    /// Directory of files to cut, read recursively (or one file). Absent: the built-in corpus
    /// (`data/corpus/files`, compiled in). A relative path is taken from the working directory,
    /// as trace paths are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Groups of real files, each giving its share of the units (`file_mix.rs`); instead of
    /// `dir`. Empty: one group, `dir` or the built-in corpus.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mix: Vec<FileGroup>,
    /// Units start at multiples of this many bytes within a file; 0 = the unit size (a unit is a
    /// file-system block of a file).
    #[serde(default)]
    pub alignment_bytes: u32,
    /// Share of (lpn, version) writes that are all zero (see `zero.rs`).
    #[serde(default)]
    pub zero_unit_fraction: f64,
    /// Share of writes with some zero sub-blocks (see `zero.rs`).
    #[serde(default)]
    pub partial_zero_fraction: f64,
    /// Size of the sub-blocks a partly zero unit zeroes.
    #[serde(default = "super::zero::default_partial_zero_block_bytes")]
    pub partial_zero_block_bytes: u32,
}

impl Default for CorpusConfig {
    fn default() -> Self {
        let z = ZeroConfig::default();
        CorpusConfig {
            dir: None,
            mix: Vec::new(),
            alignment_bytes: 0,
            zero_unit_fraction: z.zero_unit_fraction,
            partial_zero_fraction: z.partial_zero_fraction,
            partial_zero_block_bytes: z.partial_zero_block_bytes,
        }
    }
}

impl CorpusConfig {
    pub fn zeros(&self) -> ZeroConfig {
        ZeroConfig {
            zero_unit_fraction: self.zero_unit_fraction,
            partial_zero_fraction: self.partial_zero_fraction,
            partial_zero_block_bytes: self.partial_zero_block_bytes,
        }
    }

    /// `dir` and `mix` are two ways to name the files; a mix's groups are checked by
    /// [`super::file_mix::validate`].
    pub fn validate(&self) -> Result<(), Error> {
        if self.dir.is_some() && !self.mix.is_empty() {
            return Err(Error::config(
                "content.dir",
                "give `dir` or `mix`, not both (each group of a mix may have its own `dir`)",
            ));
        }
        super::file_mix::validate(&self.mix)
    }
}

/// A file of a corpus: its path below the corpus root (or its built-in name), and its bytes.
pub(super) type NamedFile = (String, Cow<'static, [u8]>);

/// A set of non-empty files, held in memory, cut into units on demand.
pub struct Corpus {
    /// (path relative to the corpus root, bytes), in walk order; none is empty.
    files: Vec<NamedFile>,
    /// `ends[i]`: bytes in files 0..=i (strictly increasing; the last is the corpus size).
    ends: Vec<u64>,
    /// 0 = the unit size.
    alignment: u64,
    seed: u64,
}

impl Corpus {
    /// The corpus `config` names (its `dir`, or the built-in one); `config.mix` is
    /// [`super::FileMix`]'s.
    pub fn load(config: &CorpusConfig, seed: u64) -> Result<Corpus, Error> {
        match &config.dir {
            None => Ok(Corpus::builtin(config.alignment_bytes, seed)),
            Some(dir) => Corpus::from_dir(dir, config.alignment_bytes, seed),
        }
    }

    /// The built-in corpus (no copy: the files are compiled in).
    pub fn builtin(alignment_bytes: u32, seed: u64) -> Corpus {
        let files = builtin::CORPUS
            .iter()
            .map(|&(name, bytes)| (name.to_string(), Cow::Borrowed(bytes)))
            .collect();
        Corpus::from_files(files, alignment_bytes, seed)
    }

    /// Every regular file under `dir` (see [`read_dir`]); no non-empty file is an error on
    /// `content.dir`.
    pub fn from_dir(dir: &Path, alignment_bytes: u32, seed: u64) -> Result<Corpus, Error> {
        let files = read_dir(dir, |_| true)?;
        if files.is_empty() {
            return Err(no_files("content.dir", dir));
        }
        Ok(Corpus::from_files(files, alignment_bytes, seed))
    }

    /// `files` must be non-empty, each file non-empty (every caller ensures it).
    pub(super) fn from_files(files: Vec<NamedFile>, alignment_bytes: u32, seed: u64) -> Corpus {
        let ends = files
            .iter()
            .scan(0u64, |acc, (_, b)| {
                *acc += b.len() as u64;
                Some(*acc)
            })
            .collect();
        Corpus {
            files,
            ends,
            alignment: alignment_bytes as u64,
            seed,
        }
    }

    /// The files, in the order the cutting rule lays them out.
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(n, b)| (n.as_str(), b.as_ref()))
    }

    /// Total bytes.
    pub fn len_bytes(&self) -> u64 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Where the unit of `len` bytes `key` picks starts: its file, and its offset in the file
    /// (the cutting rule in the module doc); None for an empty unit or corpus.
    fn unit_start(&self, key: u64, len: u64) -> Option<(usize, u64)> {
        let total = self.len_bytes();
        if len == 0 || total == 0 {
            return None;
        }
        let pos = below(key, total);
        // The first file whose end lies past `pos`; exists because pos < total = the last end.
        let f = self.ends.partition_point(|&end| end <= pos);
        let start = self.ends[f] - self.files[f].1.len() as u64;
        let align = if self.alignment == 0 {
            len
        } else {
            self.alignment
        };
        Some((f, (pos - start) / align * align))
    }

    /// Copy the unit `key` picks into `buf`.
    pub(super) fn cut(&self, key: u64, buf: &mut [u8]) {
        let Some((f, off)) = self.unit_start(key, buf.len() as u64) else {
            buf.fill(0);
            return;
        };
        let bytes = &self.files[f].1;
        let n = (bytes.len() as u64 - off).min(buf.len() as u64) as usize;
        let off = off as usize;
        buf[..n].copy_from_slice(&bytes[off..off + n]);
        buf[n..].fill(0);
    }

    /// Where in the corpus (its files end to end) the unit of `len` bytes `key` picks starts:
    /// keys that give the same number cut the same bytes. `u64::MAX` for an all-zero unit.
    pub(super) fn unit_identity(&self, key: u64, len: usize) -> u64 {
        match self.unit_start(key, len as u64) {
            Some((f, off)) => self.ends[f] - self.files[f].1.len() as u64 + off,
            None => u64::MAX,
        }
    }
}

/// The error of a directory without a file to cut, on config key `key`.
pub(super) fn no_files(key: &str, dir: &Path) -> Error {
    Error::config(
        key,
        format!("{}: no non-empty files to cut units from", dir.display()),
    )
}

/// Every regular file under `dir` whose path below `dir` `keep` accepts, recursively, in a
/// deterministic order: depth first, the entries of a directory sorted by name (byte order),
/// symbolic links followed. Names starting with `.` (`.git`, `.DS_Store`) and empty files are
/// skipped. The files are read into memory whole. `dir` may also be a single file (named by its
/// file name). Returns (path below `dir`, bytes) in walk order.
pub(super) fn read_dir(dir: &Path, keep: impl Fn(&str) -> bool) -> Result<Vec<NamedFile>, Error> {
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().as_encoded_bytes().starts_with(b"."));
    let mut files = Vec::new();
    for entry in walk {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(dir).to_path_buf();
            let message = e.to_string();
            // An I/O error as is (its message does not repeat the path); else a link loop.
            let source = e
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other(message));
            Error::io(&path, source)
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        // The path below `dir`; a `dir` that is itself a file is named by its file name.
        let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let rel = match rel.as_os_str().is_empty() {
            true => Path::new(entry.file_name()),
            false => rel,
        };
        let name = rel.to_string_lossy().into_owned();
        if !keep(&name) {
            continue;
        }
        let bytes = std::fs::read(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
        if !bytes.is_empty() {
            files.push((name, Cow::Owned(bytes)));
        }
    }
    Ok(files)
}

impl KeyedSource for Corpus {
    fn seed(&self) -> u64 {
        self.seed
    }

    fn fill_key(&self, key: u64, buf: &mut [u8]) {
        self.cut(key, buf);
    }

    fn key_identity(&self, key: u64, len: usize) -> Option<u64> {
        Some(self.unit_identity(key, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A corpus of two small files with recognisable bytes.
    fn two_files(alignment: u32) -> Corpus {
        let a: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8 + 1).collect();
        let b: Vec<u8> = vec![0xAB; 300];
        Corpus::from_files(
            vec![("a".into(), Cow::Owned(a)), ("b".into(), Cow::Owned(b))],
            alignment,
            3,
        )
    }

    #[test]
    fn the_key_picks_a_byte_and_the_unit_is_its_aligned_block() {
        let c = two_files(0);
        let mut buf = [0u8; 256];
        // Key 0 → position 0: the first block of `a`.
        c.cut(0, &mut buf);
        assert_eq!(&buf[..], &c.files[0].1[..256]);
        // The position just below the end of `a` (999) → its last block, 768..1000, zero-padded.
        let k = ((999u128 << 64) / 1300 + 1) as u64;
        assert_eq!(below(k, 1300), 999);
        c.cut(k, &mut buf);
        assert_eq!(&buf[..232], &c.files[0].1[768..]);
        assert!(buf[232..].iter().all(|&x| x == 0));
        // The last position → `b`'s second block (256..300), never a mix of the two files.
        c.cut(u64::MAX, &mut buf);
        assert!(buf[..44].iter().all(|&x| x == 0xAB));
        assert!(buf[44..].iter().all(|&x| x == 0));
    }

    #[test]
    fn an_explicit_alignment_moves_the_start() {
        let c = two_files(100);
        let mut buf = [0u8; 256];
        let k = ((150u128 << 64) / 1300 + 1) as u64;
        assert_eq!(below(k, 1300), 150);
        c.cut(k, &mut buf);
        assert_eq!(&buf[..], &c.files[0].1[100..356]);
    }

    proptest::proptest! {
        /// Any key, alignment and length: the unit is one file's bytes from an aligned offset,
        /// zero-padded past the file's end.
        #[test]
        fn a_unit_is_an_aligned_slice_of_one_file(key: u64, alignment in 0u32..1500, len in 1usize..1500) {
            let c = two_files(alignment);
            let mut buf = vec![0x55u8; len];
            c.cut(key, &mut buf);
            let align = if alignment == 0 { len } else { alignment as usize };
            let is_slice = c.files().any(|(_, f)| {
                (0..f.len()).step_by(align).any(|off| {
                    let n = (f.len() - off).min(len);
                    buf[..n] == f[off..off + n] && buf[n..].iter().all(|&x| x == 0)
                })
            });
            proptest::prop_assert!(is_slice);
        }
    }

    #[test]
    fn an_empty_buffer_is_left_alone() {
        let c = two_files(0);
        c.cut(12345, &mut []);
    }

    #[test]
    fn the_builtin_corpus_is_the_committed_directory() {
        let builtin = Corpus::builtin(0, 1);
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/corpus/files");
        let loaded = Corpus::from_dir(&dir, 0, 1).expect("data/corpus/files loads");
        let names = |c: &Corpus| c.files().map(|(n, _)| n.to_string()).collect::<Vec<_>>();
        assert_eq!(names(&builtin), names(&loaded));
        assert!(builtin.files().zip(loaded.files()).all(|(a, b)| a.1 == b.1));
        assert!(builtin.len_bytes() <= 8 << 20);
    }
}
