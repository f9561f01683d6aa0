//! The real files compiled into the library, so the content a config names is the same from any
//! working directory and from the Python package.
//!
//! - The **default corpus**, `data/corpus/files/` (provenance in `data/corpus/PROVENANCE.md`):
//!   what `source = "corpus"` cuts when it names no `dir` and no `mix`. Its files are named by
//!   their path below that folder (`canterbury/kennedy.xls`).
//! - The **archives**, `data/archives/files/` (provenance in `data/archives/PROVENANCE.md`): real
//!   compressed files, incompressible as the media a copy workload moves. A `mix` group draws them
//!   by name (`archives/bible.txt.xz`); they are kept out of the default corpus so that the
//!   default content stays what it was before they were added.
//!
//! Both lists are in the order a directory walk gives (tests check it against the folders).

macro_rules! files {
    ($folder:literal, $prefix:literal: $($name:literal),* $(,)?) => {
        &[$((
            concat!($prefix, $name),
            include_bytes!(concat!("../../../../data/", $folder, "/", $name)),
        )),*]
    };
}

/// The default corpus.
pub(crate) const CORPUS: &[(&str, &[u8])] = files![
    "corpus/files", "":
    "canterbury/alice29.txt",
    "canterbury/asyoulik.txt",
    "canterbury/cp.html",
    "canterbury/kennedy.xls",
    "canterbury/lcet10.txt",
    "canterbury/plrabn12.txt",
    "canterbury/ptt5",
    "canterbury/xargs.1",
    "snappy_testdata/fireworks.jpeg",
    "snappy_testdata/geo.protodata",
    "snappy_testdata/html",
    "snappy_testdata/kppkn.gtb",
    "snappy_testdata/paper-100k.pdf",
    "snappy_testdata/urls.10K",
];

/// The archives, named `archives/<file>`.
pub(crate) const ARCHIVES: &[(&str, &[u8])] = files!["archives/files", "archives/": "bible.txt.xz"];

/// Every built-in file a `mix` group's `files` patterns can name: the default corpus, then the
/// archives.
pub(crate) fn library() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    CORPUS.iter().chain(ARCHIVES).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_archives_are_the_committed_folder() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/archives/files");
        let on_disk = crate::content::corpus::read_dir(&dir, |_| true).expect("the folder reads");
        let names: Vec<String> = on_disk
            .iter()
            .map(|(n, _)| format!("archives/{n}"))
            .collect();
        let built_in: Vec<&str> = ARCHIVES.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, built_in);
        assert!(on_disk.iter().zip(ARCHIVES).all(|(a, b)| *a.1 == *b.1));
        // Every built-in file is named once: a pattern selects what it names, nothing twice.
        let mut all: Vec<&str> = library().map(|(n, _)| n).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), CORPUS.len() + ARCHIVES.len());
    }
}
