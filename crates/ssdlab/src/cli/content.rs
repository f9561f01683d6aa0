//! `ssdlab content-sample`: the bytes the `[content]` section gives written units.

use std::io::Write;
use std::path::PathBuf;

use crate::error::Error;

use super::{out, DeviceArgs};

#[derive(clap::Args, Debug)]
pub(super) struct ContentSampleArgs {
    #[command(flatten)]
    device: DeviceArgs,
    /// Named workload whose content to sample (its `[content]`, under the config's own;
    /// repeatable, as for `ssdlab run`).
    #[arg(long, value_name = "NAME")]
    workload: Vec<String>,
    /// Units to write: lpn FIRST_LPN, FIRST_LPN + 1, …
    #[arg(long)]
    units: u32,
    #[arg(long, default_value_t = 0)]
    first_lpn: u32,
    /// Write version of every unit.
    #[arg(long, default_value_t = 0)]
    version: u32,
    /// Output file: the units back to back.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

pub(super) fn content_sample(a: ContentSampleArgs) -> Result<i32, Error> {
    let config = a.device.resolve_with_workloads(&a.workload)?;
    let source = crate::content::build(&config.content, config.seed)?;
    let mut buf = vec![0u8; config.ftl.mapping_unit_kib as usize * 1024];
    let file = std::fs::File::create(&a.out).map_err(|e| Error::io(&a.out, e))?;
    let mut w = std::io::BufWriter::new(file);
    let mut zero = 0u32;
    for i in 0..a.units {
        source.fill(a.first_lpn.wrapping_add(i), a.version, &mut buf);
        zero += buf.iter().all(|&b| b == 0) as u32;
        w.write_all(&buf).map_err(|e| Error::io(&a.out, e))?;
    }
    w.flush().map_err(|e| Error::io(&a.out, e))?;
    out(&format!(
        "wrote {} units of {} bytes (lpn {}.., version {}; {zero} all zero) to {}\n",
        a.units,
        buf.len(),
        a.first_lpn,
        a.version,
        a.out.display()
    ));
    Ok(0)
}
