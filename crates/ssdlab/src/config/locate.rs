//! Where in a config file a key is set: an error about a key the user's file gave names the
//! file and the line.

use std::path::Path;

use super::given::Given;
use crate::error::Error;

/// `e` with the file and line of its key, when `text` (the file at `path`) sets that key and
/// no override (`sets`) replaced it.
pub(super) fn in_file(e: Error, path: &Path, text: &str, sets: &[String]) -> Error {
    let key = match &e {
        Error::Config { key, .. } => key.clone(),
        Error::Toml { message, .. } => match message_key(message) {
            Some(key) => key.to_string(),
            None => return e,
        },
        _ => return e,
    };
    if Given::new(None, sets).gives(&key) {
        return e;
    }
    let Some(line) = line_of(text, &key) else {
        return e;
    };
    match e {
        Error::Toml { origin, message } => Error::Toml {
            origin: origin.replacen(
                &path.display().to_string(),
                &format!("{}:{line}", path.display()),
                1,
            ),
            message,
        },
        e => Error::InFile {
            path: path.to_path_buf(),
            line,
            source: Box::new(e),
        },
    }
}

/// The key a TOML error is about: its last line, `in `ftl.split.width``.
fn message_key(message: &str) -> Option<&str> {
    message
        .lines()
        .last()?
        .strip_prefix("in `")?
        .strip_suffix('`')
}

/// The line (from 1) where TOML `text` sets `key` (`ftl.split.width`,
/// `geometry.regions[1].nop`), if it does.
fn line_of(text: &str, key: &str) -> Option<usize> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let mut item = doc.as_item();
    for part in key.split('.') {
        let (name, indices) = part.split_once('[').unwrap_or((part, ""));
        item = item.get(name)?;
        for index in indices.split('[') {
            if let Some(i) = index.strip_suffix(']') {
                item = item.get(i.parse::<usize>().ok()?)?;
            }
        }
    }
    let start = item.span()?.start;
    Some(text[..start].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_line_of_a_key_in_tables_inline_tables_and_arrays() {
        let text = "seed = 1\n[ftl]\ngc_threshold = 0.1\n\
                    split = { policy = \"all\", width = 3 }\n\
                    [[geometry.regions]]\nname = \"a\"\n\
                    [[geometry.regions]]\nname = \"b\"\nnop = 4\n";
        assert_eq!(line_of(text, "seed"), Some(1));
        assert_eq!(line_of(text, "ftl.gc_threshold"), Some(3));
        assert_eq!(line_of(text, "ftl.split.width"), Some(4));
        assert_eq!(line_of(text, "geometry.regions[1].nop"), Some(9));
        assert_eq!(line_of(text, "geometry.regions[1]"), Some(7));
        assert_eq!(line_of(text, "ftl.gc_reserved_blocks"), None);
        assert_eq!(
            message_key("invalid value\nin `ftl.split.width`"),
            Some("ftl.split.width")
        );
    }
}
