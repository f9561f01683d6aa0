//! Which `[content]` a run gets: the preset's, a named workload's, the user's, laid in that
//! order by the rule of `content/layers.rs` (a later layer that names the bytes replaces the byte
//! choice below it; other keys merge one by one). Docs: `docs/content.md` § Precedence.

use super::overrides::{apply_override, override_key};
use crate::content::layers::{lay, names_the_bytes};
use crate::error::Error;

/// The two layers a config's sources give; the workload layer comes from its flows.
#[derive(Clone, Debug, Default)]
pub(super) struct ContentLayers {
    /// The preset's `[content]`.
    pub preset: Option<toml::Value>,
    /// The user's: the config file's `[content]` with the `--set content…` overrides applied.
    pub user: Option<toml::Value>,
}

impl ContentLayers {
    /// The layers of a preset's `[content]`, a user's file and overrides. `sets` were already applied to the
    /// whole config (so they are well formed); here only those on `content` are applied again, to
    /// the file's `[content]` alone.
    pub fn new(
        preset: Option<toml::Value>,
        file: Option<&toml::Table>,
        sets: &[String],
    ) -> Result<ContentLayers, Error> {
        let mut user = toml::Table::new();
        if let Some(content) = file.and_then(|f| f.get("content")) {
            user.insert("content".into(), content.clone());
        }
        for set in sets {
            if override_key(set).is_some_and(|k| k == "content" || k.starts_with("content.")) {
                apply_override(&mut user, set)?;
            }
        }
        Ok(ContentLayers {
            preset,
            user: user.remove("content"),
        })
    }

    /// A complete config document: its `[content]` is the user's.
    pub fn of_document(document: &toml::Table) -> ContentLayers {
        ContentLayers {
            preset: None,
            user: document.get("content").cloned(),
        }
    }

    /// The `[content]` of a run whose flows name `workloads` (in flow order; repeats and
    /// workloads without content are fine). Workloads with different `[content]` are an error
    /// unless the user's layer names the bytes, which then replaces theirs anyway.
    pub fn resolve(&self, workloads: &[String]) -> Result<Option<toml::Value>, Error> {
        let mut chosen: Option<(&str, toml::Table)> = None;
        for name in workloads {
            let Some(content) = super::workloads::content_table(name)? else {
                continue;
            };
            match &chosen {
                None => chosen = Some((name, content)),
                Some((first, c)) if *c != content => {
                    if self.user.as_ref().is_some_and(names_the_bytes) {
                        chosen = None;
                        break;
                    }
                    return Err(Error::config(
                        "content",
                        format!(
                            "the flows run workloads with different content (`{first}`, \
                             `{name}`) on one device; choose the bytes with [content] or \
                             --set content.source / content.dir / content.mix"
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        let workload = chosen.map(|(_, c)| toml::Value::Table(c));
        Ok(lay(lay(self.preset.clone(), workload), self.user.clone()))
    }
}
