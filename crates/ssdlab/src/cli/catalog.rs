//! `ssdlab presets` and `ssdlab workloads`: what ships with the engine.

use crate::config::{preset_names, preset_source, workloads};
use crate::error::Error;

use super::out;

/// List the shipped items, or print one's TOML.
#[derive(clap::Args, Debug)]
pub(super) struct ShowArgs {
    /// Print this one's TOML.
    #[arg(long, value_name = "NAME")]
    show: Option<String>,
}

pub(super) fn presets(a: ShowArgs) -> Result<i32, Error> {
    match a.show {
        Some(name) => {
            let src = preset_source(&name).ok_or_else(|| Error::UnknownPreset {
                name: name.clone(),
                known: preset_names().join(", "),
            })?;
            out(src);
        }
        None => {
            for name in preset_names() {
                let desc = preset_source(name)
                    .and_then(|s| s.parse::<toml::Table>().ok())
                    .and_then(|t| {
                        t.get("description")
                            .and_then(|d| d.as_str())
                            .map(String::from)
                    })
                    .unwrap_or_default();
                out(&format!("{name:<10} {desc}\n"));
            }
        }
    }
    Ok(0)
}

pub(super) fn workloads(a: ShowArgs) -> Result<i32, Error> {
    match a.show {
        Some(name) => {
            let src = workloads::source(&name).ok_or_else(|| Error::UnknownWorkload {
                name: name.clone(),
                known: workloads::names().join(", "),
            })?;
            out(src);
        }
        None => {
            for name in workloads::names() {
                out(&format!("{name:<16} {}\n", workloads::description(name)?));
            }
        }
    }
    Ok(0)
}
