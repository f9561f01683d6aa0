//! Who named the options a trace is read with, so that an error about an option names it the
//! way that caller writes it: `--format` on the command line, `format=` from Python,
//! `format = ...` in a TOML flow (a config's `[[flows]]` or an experiment's `[[workloads]]`).

/// Where a trace's reading options (format, column description, blkparse event) came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Caller {
    /// The `ssdlab` command line (the default of [`super::LoadOptions`]).
    #[default]
    Cli,
    /// `ssdlab.simulate(...)` or `ssdlab.trace_info(...)` in Python.
    Python,
    /// A flow in a TOML config or experiment file.
    Toml,
}

impl Caller {
    /// How this caller names the trace format option.
    pub fn format_option(self) -> &'static str {
        match self {
            Caller::Cli => "--format",
            Caller::Python => "format=",
            Caller::Toml => "`format = ...` in the flow",
        }
    }

    /// How this caller gives the description of a `columns` trace.
    pub fn columns_option(self) -> &'static str {
        match self {
            Caller::Cli => "--columns 'key=value ...'",
            Caller::Python => "format={...} (a dict of the columns' keys)",
            Caller::Toml => "a `columns` table in the flow",
        }
    }

    /// How this caller names the blkparse event option, followed by a value.
    pub fn blkparse_event_option(self, event: &str) -> String {
        match self {
            Caller::Cli => format!("--blkparse-event {event}"),
            Caller::Python => format!("blkparse_event=\"{event}\""),
            Caller::Toml => format!("`blkparse_event = \"{event}\"` in the flow"),
        }
    }
}
