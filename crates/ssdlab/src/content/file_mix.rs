//! Units cut from groups of real files, each group giving a chosen share of the units: the way a
//! workload's content is made of the kinds of files it writes (a movie copy mostly compressed
//! media, a database import mostly records) while every byte stays a real file's.
//!
//! `[content] mix = [{ files = [...], dir = "...", fraction = f }, ...]` (source `corpus`). A
//! group names its files by
//! - `dir` alone: every file under a directory of the user's (read as `content.dir` is);
//! - `files` alone: glob patterns over the built-in files (`builtin.rs`: the default corpus,
//!   `canterbury/*.txt`, and the archives, `archives/*`);
//! - both: the files under `dir` whose path below it matches a pattern.
//!
//! Patterns are `glob` patterns on `/`-separated paths: `*` and `?` stay within one path
//! component, `**` spans components, `[...]` is a class; every pattern must match a file, so a
//! typo is an error rather than an empty group.
//!
//! Cutting rule: the unit key's top 53 bits, as a number in [0, 1), pick group `i` with
//! probability `fraction_i`; the key's first SplitMix64 draw then cuts a unit from that group's
//! files by the corpus rule (`corpus.rs`: a uniform byte position, rounded down to the alignment).
//! So within a group a file is drawn in proportion to its bytes, and the group's share of units is
//! its fraction whatever its size.

use std::path::PathBuf;

use glob::{MatchOptions, Pattern};
use serde::{Deserialize, Serialize};

use super::corpus::{no_files, read_dir, Corpus, CorpusConfig};
use super::{builtin, cumulative, draw, pick, unit_interval, validate_fractions, KeyedSource};
use crate::error::Error;

/// One group of a mix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileGroup {
    /// A directory (or one file) of the user's; absent: the built-in files. A relative path is
    /// taken from the working directory, as `content.dir` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Glob patterns on the paths below `dir` (or on the built-in files' names); empty: every
    /// file under `dir`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Share of units cut from this group.
    pub fraction: f64,
}

/// `*` and `?` do not cross a `/`; leading dots are matched like any other character (hidden
/// names are skipped while walking anyway).
const MATCH: MatchOptions = MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

/// Check a mix without reading a directory: fractions in [0, 1] summing to 1, every group naming
/// its files, every pattern valid, and every pattern of a built-in group matching a built-in file.
/// Errors name `content.mix[i]…`. An empty mix (no groups) is no mix.
pub fn validate(mix: &[FileGroup]) -> Result<(), Error> {
    if mix.is_empty() {
        return Ok(());
    }
    validate_fractions(mix.iter().map(|g| g.fraction))?;
    for (i, group) in mix.iter().enumerate() {
        let patterns = patterns(i, group)?;
        if group.dir.is_none() {
            if patterns.is_empty() {
                return Err(Error::config(
                    &format!("content.mix[{i}]"),
                    "name the group's files: `dir`, `files` (patterns over the built-in files), \
                     or both",
                ));
            }
            let names: Vec<&str> = builtin::library().map(|(n, _)| n).collect();
            check_every_pattern_matches(i, &patterns, &names, "the built-in files")?;
        }
    }
    Ok(())
}

/// Group `i`'s patterns, compiled; a bad one is an error on `content.mix[i].files[j]`.
fn patterns(i: usize, group: &FileGroup) -> Result<Vec<Pattern>, Error> {
    group
        .files
        .iter()
        .enumerate()
        .map(|(j, p)| {
            Pattern::new(p).map_err(|e| {
                Error::config(
                    &format!("content.mix[{i}].files[{j}]"),
                    format!("`{p}` is not a glob pattern: {e}"),
                )
            })
        })
        .collect()
}

fn matches_any(patterns: &[Pattern], name: &str) -> bool {
    patterns.iter().any(|p| p.matches_with(name, MATCH))
}

/// Every pattern of group `i` must match one of `names` (the files of `place`).
fn check_every_pattern_matches(
    i: usize,
    patterns: &[Pattern],
    names: &[&str],
    place: &str,
) -> Result<(), Error> {
    for (j, p) in patterns.iter().enumerate() {
        if !names.iter().any(|n| p.matches_with(n, MATCH)) {
            return Err(Error::config(
                &format!("content.mix[{i}].files[{j}]"),
                format!(
                    "`{}` matches none of {place} ({})",
                    p.as_str(),
                    names.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The mix source: each group a corpus of its own, picked by cumulative fraction.
pub struct FileMix {
    /// Cumulative fractions, one per group.
    cumulative: Vec<f64>,
    groups: Vec<Corpus>,
    seed: u64,
}

impl FileMix {
    /// Load every group of `config.mix` (which should be valid; it is checked again here):
    /// read the groups' directories, select their files. A directory without a matching
    /// non-empty file is an error naming the group's key.
    pub fn load(config: &CorpusConfig, seed: u64) -> Result<FileMix, Error> {
        validate(&config.mix)?;
        let groups = config
            .mix
            .iter()
            .enumerate()
            .map(|(i, group)| load_group(i, group, config.alignment_bytes, seed))
            .collect::<Result<_, _>>()?;
        Ok(FileMix {
            cumulative: cumulative(config.mix.iter().map(|g| g.fraction)),
            groups,
            seed,
        })
    }

    /// The groups' files, in the order of the mix.
    pub fn groups(&self) -> impl Iterator<Item = &Corpus> {
        self.groups.iter()
    }
}

fn load_group(
    i: usize,
    group: &FileGroup,
    alignment_bytes: u32,
    seed: u64,
) -> Result<Corpus, Error> {
    let patterns = patterns(i, group)?;
    let keep = |name: &str| patterns.is_empty() || matches_any(&patterns, name);
    let files: Vec<_> = match &group.dir {
        None => builtin::library()
            .filter(|(name, _)| keep(name))
            .map(|(name, bytes)| (name.to_string(), bytes.into()))
            .collect(),
        Some(dir) => {
            let files = read_dir(dir, keep)?;
            let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
            let place = format!("the files under {}", dir.display());
            check_every_pattern_matches(i, &patterns, &names, &place)?;
            if files.is_empty() {
                return Err(no_files(&format!("content.mix[{i}].dir"), dir));
            }
            files
        }
    };
    // `validate` made every built-in pattern match a file, and none of those is empty.
    Ok(Corpus::from_files(files, alignment_bytes, seed))
}

impl KeyedSource for FileMix {
    fn seed(&self) -> u64 {
        self.seed
    }

    fn fill_key(&self, key: u64, buf: &mut [u8]) {
        let group = pick(&self.cumulative, unit_interval(key));
        self.groups[group].cut(draw(key, 0), buf);
    }

    fn key_identity(&self, key: u64, len: usize) -> Option<u64> {
        let group = pick(&self.cumulative, unit_interval(key));
        let at = self.groups[group].unit_identity(draw(key, 0), len);
        // A group's files are far smaller than 2^48 bytes; the top bits tell groups apart.
        Some(if at == u64::MAX {
            at
        } else {
            (group as u64) << 48 | at
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::ContentSource;

    fn group(files: &[&str], fraction: f64) -> FileGroup {
        FileGroup {
            dir: None,
            files: files.iter().map(|s| s.to_string()).collect(),
            fraction,
        }
    }

    fn mix(groups: Vec<FileGroup>) -> CorpusConfig {
        CorpusConfig {
            mix: groups,
            ..CorpusConfig::default()
        }
    }

    fn key_of(e: Error) -> String {
        match e {
            Error::Config { key, .. } => key,
            other => panic!("not a config error: {other}"),
        }
    }

    #[test]
    fn patterns_select_built_in_files_and_stay_within_a_component() {
        let m = FileMix::load(
            &mix(vec![
                group(&["canterbury/*.txt"], 0.5),
                group(&["archives/*", "**/*.jpeg"], 0.5),
            ]),
            1,
        )
        .expect("loads");
        let names: Vec<Vec<&str>> = m
            .groups()
            .map(|g| g.files().map(|(n, _)| n).collect())
            .collect();
        assert_eq!(
            names[0],
            [
                "canterbury/alice29.txt",
                "canterbury/asyoulik.txt",
                "canterbury/lcet10.txt",
                "canterbury/plrabn12.txt"
            ]
        );
        assert_eq!(
            names[1],
            ["snappy_testdata/fireworks.jpeg", "archives/bible.txt.xz"]
        );
        // `*` does not cross a `/`.
        let e = validate(&[group(&["*.txt"], 1.0)]).unwrap_err();
        assert_eq!(key_of(e), "content.mix[0].files[0]");
    }

    #[test]
    fn each_group_gets_its_share_of_units() {
        // A group of one JPEG and one of the archive: every unit is a block of exactly one.
        let m = FileMix::load(
            &mix(vec![
                group(&["snappy_testdata/fireworks.jpeg"], 0.3),
                group(&["archives/bible.txt.xz"], 0.7),
            ]),
            7,
        )
        .expect("loads");
        let jpeg = builtin::CORPUS
            .iter()
            .find(|(n, _)| n.ends_with(".jpeg"))
            .map(|(_, b)| *b)
            .expect("the JPEG is built in");
        let n = 20_000;
        let mut buf = vec![0u8; 4096];
        let from_jpeg = (0..n)
            .filter(|&lpn| {
                m.fill(lpn, 0, &mut buf);
                jpeg.chunks(4096).any(|c| buf.starts_with(c))
            })
            .count();
        // Binomial(20,000, 0.3): mean 6,000, sd 65; 5 sd either side.
        assert!((5675..=6325).contains(&from_jpeg), "{from_jpeg}");
    }

    #[test]
    fn bad_mixes_name_their_key() {
        let cases: Vec<(Vec<FileGroup>, &str)> = vec![
            (
                vec![group(&["archives/*"], 0.5), group(&["**/*.pdf"], 0.4)],
                "content.mix",
            ),
            (
                vec![group(&["archives/*"], 1.5), group(&["**/*.pdf"], -0.5)],
                "content.mix[0].fraction",
            ),
            (
                vec![group(&["archives/*"], 0.5), group(&[], 0.5)],
                "content.mix[1]",
            ),
            (
                vec![group(&["archives/*"], 0.5), group(&["x"], 0.5)],
                "content.mix[1].files[0]",
            ),
            (
                vec![group(&["archives/*"], 0.5), group(&["**/*.pdf", "[z"], 0.5)],
                "content.mix[1].files[1]",
            ),
        ];
        for (groups, key) in cases {
            let e = FileMix::load(&mix(groups.clone()), 1)
                .err()
                .unwrap_or_else(|| panic!("{groups:?} loads"));
            assert_eq!(key_of(e), key, "{groups:?}");
        }
    }

    #[test]
    fn a_directory_group_selects_by_pattern_and_names_its_key() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        std::fs::write(dir.path().join("sub/a.bin"), [1u8; 100]).expect("write");
        std::fs::write(dir.path().join("b.txt"), b"text").expect("write");
        let dir_group = |files: &[&str]| FileGroup {
            dir: Some(dir.path().to_path_buf()),
            ..group(files, 0.5)
        };
        let m = FileMix::load(
            &mix(vec![group(&["archives/*"], 0.5), dir_group(&["**/*.bin"])]),
            1,
        )
        .expect("loads");
        let names: Vec<&str> = m.groups[1].files().map(|(n, _)| n).collect();
        assert_eq!(names, ["sub/a.bin"]);
        let e = FileMix::load(
            &mix(vec![group(&["archives/*"], 0.5), dir_group(&["*.bin"])]),
            1,
        );
        assert_eq!(
            key_of(e.err().expect("no match")),
            "content.mix[1].files[0]"
        );
        let empty = tempfile::tempdir().expect("temp dir");
        let e = FileMix::load(
            &mix(vec![
                group(&["archives/*"], 0.5),
                FileGroup {
                    dir: Some(empty.path().to_path_buf()),
                    ..group(&[], 0.5)
                },
            ]),
            1,
        );
        assert_eq!(key_of(e.err().expect("no file")), "content.mix[1].dir");
        let e = FileMix::load(
            &mix(vec![
                group(&["archives/*"], 0.5),
                dir_group(&["b.txt", "*.jpeg"]),
            ]),
            1,
        );
        assert_eq!(
            key_of(e.err().expect("a pattern matches nothing")),
            "content.mix[1].files[1]"
        );
    }
}
