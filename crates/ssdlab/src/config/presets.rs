//! The named presets shipped with ssdlab, compiled into the binary from `presets/*.toml`.

const PRESETS: &[(&str, &str)] = &[
    ("default", include_str!("../../presets/default.toml")),
    ("pr-ssd", include_str!("../../presets/pr-ssd.toml")),
    ("spread", include_str!("../../presets/spread.toml")),
    ("ipu", include_str!("../../presets/ipu.toml")),
    ("rosa", include_str!("../../presets/rosa.toml")),
    ("melded", include_str!("../../presets/melded.toml")),
    ("composed", include_str!("../../presets/composed.toml")),
    ("mqsim", include_str!("../../presets/mqsim.toml")),
];

pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}

/// The TOML text of a preset.
pub fn preset_source(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}
