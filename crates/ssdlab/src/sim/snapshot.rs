//! Device snapshots: the state preconditioning leaves — the FTL (mapping, reverse map, blocks,
//! pools, erase counts, the oracle's versions) and the state of each policy it asked
//! (`ftl/saved_state.rs`), with its report — saved once to a file and loaded instead of
//! preconditioning again. A sweep over what only acts in the timed run (timing, scheduling, the
//! read policy, caches) then preconditions its device once.
//!
//! A snapshot is named by a key: a hash of everything that shapes the preconditioned device
//! ([`shaping`]), the snapshot format, the simulator's version and the byte order. A run finds
//! its snapshot in a folder by that name, or preconditions and saves it there. A file given
//! directly must carry the run's key; one that does not is refused, saying which version or
//! which config keys differ. The file is a postcard-encoded header (read and checked first),
//! then the state, its large tables as their bytes in one piece (`ftl/table.rs` `bulk`).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::error::Error;
use crate::ftl::precondition::{PreconditionReport, Preconditioner};
use crate::ftl::Ftl;

/// Bumped whenever what a snapshot holds, or how, changes.
const FORMAT: u32 = 1;
const MAGIC: &str = "ssdlab device snapshot";
/// The file name's extension.
const EXTENSION: &str = "snapshot";

/// Config sections that cannot shape the preconditioned device, with why. Preconditioning
/// programs and cleans instantly: no time passes, no command is queued, nothing is read.
const RUN_ONLY: [(&str, &str); 9] = [
    ("name", "a label"),
    ("description", "a label"),
    ("timing", "no time passes while preconditioning"),
    ("scheduler", "no command is queued while preconditioning"),
    ("host_interface", "no command crosses the host interface"),
    ("data_cache", "the DRAM cache fills in the timed run"),
    ("energy", "energy is counted in the timed run"),
    (
        "reliability",
        "bit errors are drawn for reads, and preconditioning reads nothing",
    ),
    ("statistics", "the statistics window is of the timed run"),
];

/// The part of `config` that shapes the preconditioned device, with trace files by content:
/// everything but [`RUN_ONLY`], the read policy, and the flows and host (unless the trace's
/// footprint is preconditioned). `verify` adds the oracle's state.
pub fn shaping(config: &Config, verify: bool) -> Result<Value, Error> {
    let mut c = config.identity_json()?;
    // (`shift_remove`: the keys keep their order, so equal configs give equal keys.)
    let Some(m) = c.as_object_mut() else {
        return Ok(c);
    };
    for (section, _) in RUN_ONLY {
        m.shift_remove(section);
    }
    if let Some(ftl) = m.get_mut("ftl").and_then(Value::as_object_mut) {
        // (Reads only: preconditioning reads nothing.)
        ftl.shift_remove("read_policy");
    }
    if !config.precondition.trace_footprint {
        m.shift_remove("flows");
        m.shift_remove("host");
    }
    m.insert("verify".into(), verify.into());
    Ok(c)
}

#[derive(Serialize, Deserialize)]
struct Header {
    magic: String,
    format: u32,
    version: String,
    key: String,
    /// [`shaping`]'s JSON, to say what differs when a file's key is not the run's.
    shaping: String,
}

/// The state. `F` is `&Ftl` when saving (no copy of the device's tables) and `Ftl` when loading.
#[derive(Serialize, Deserialize)]
struct Body<F> {
    ftl: F,
    allocators: Vec<Vec<u8>>,
    #[serde(with = "crate::ftl::table::bulk")]
    reduction: Vec<u8>,
    victim: Vec<u8>,
    placement: Vec<u8>,
    migration: Vec<u8>,
    split: Option<Vec<u8>>,
    report: PreconditionReport,
    split_cursor: u32,
}

/// What a run did with its device snapshot (`RunOptions::snapshot`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotUse {
    /// Loaded instead of preconditioning.
    Loaded,
    /// Preconditioned and saved.
    Saved,
    /// None made: preconditioning wrote nothing.
    Unneeded,
}

/// Where a run's snapshot is, and what it must hold.
pub struct Snapshot {
    path: PathBuf,
    key: String,
    shaping: Value,
}

impl Snapshot {
    /// The snapshot of `config`'s device at `location`: a folder (created if need be) holding
    /// snapshots by key, or a snapshot file.
    pub fn at(location: &Path, config: &Config, verify: bool) -> Result<Snapshot, Error> {
        let shaping = shaping(config, verify)?;
        let identity = serde_json::json!({
            "shaping": shaping, "format": FORMAT, "version": crate::VERSION,
            "little_endian": cfg!(target_endian = "little"),
        });
        let key = format!("{:x}", Sha256::digest(identity.to_string().as_bytes()));
        let path = match location.is_file() {
            true => location.to_path_buf(),
            false => {
                std::fs::create_dir_all(location).map_err(|e| Error::io(location, e))?;
                location.join(format!("{key}.{EXTENSION}"))
            }
        };
        Ok(Snapshot { path, key, shaping })
    }

    /// Put the snapshot's device into `pre` (built fresh from the same config); if there is none
    /// yet, `precondition` it (which says whether it wrote anything) and save what it wrote.
    /// Runs of this process that share the snapshot wait while one of them builds it, then load
    /// it. Returns the snapshot's file and what was done with it.
    pub fn load_or_precondition(
        self,
        pre: &mut Preconditioner,
        precondition: &mut dyn FnMut(&mut Preconditioner) -> Result<bool, Error>,
    ) -> Result<(PathBuf, SnapshotUse), Error> {
        let _claim = self.claim();
        let used = match self.load(pre)? {
            true => SnapshotUse::Loaded,
            false if precondition(pre)? => {
                self.save(pre)?;
                SnapshotUse::Saved
            }
            false => SnapshotUse::Unneeded,
        };
        Ok((self.path, used))
    }

    /// Put the snapshot's device into `pre`, if there is one: false when there is none yet.
    fn load(&self, pre: &mut Preconditioner) -> Result<bool, Error> {
        if !self.path.is_file() {
            return Ok(false);
        }
        let file = std::fs::File::open(&self.path).map_err(|e| Error::io(&self.path, e))?;
        // Mapped rather than read: the tables are copied once, from the page cache into their
        // own memory, and the file's pages are never the process's own. SAFETY: snapshots are
        // written to a temporary file and renamed, never changed in place, so the mapped file
        // does not change under the mapping.
        let bytes = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(&self.path, e))?;
        let (header, rest) = postcard::take_from_bytes::<Header>(&bytes)
            .map_err(|e| self.refused(format!("not a device snapshot ({e})")))?;
        self.check(&header)?;
        let body: Body<Ftl> = postcard::from_bytes(rest)
            .map_err(|e| self.refused(format!("its state cannot be read ({e})")))?;
        let unreadable = |e: postcard::Error| self.refused(format!("a policy's state: {e}"));
        let geometry = std::mem::take(&mut pre.ftl.geometry);
        *pre.ftl = body.ftl;
        pre.ftl.geometry = geometry;
        if body.allocators.len() != pre.allocators.len() {
            return Err(self.refused("it has another number of plane allocators"));
        }
        for (a, state) in pre.allocators.iter_mut().zip(&body.allocators) {
            a.load_state(state).map_err(unreadable)?;
        }
        pre.reduction
            .load_state(&body.reduction)
            .map_err(unreadable)?;
        pre.victim.load_state(&body.victim).map_err(unreadable)?;
        pre.placement
            .load_state(&body.placement)
            .map_err(unreadable)?;
        pre.migration
            .load_state(&body.migration)
            .map_err(unreadable)?;
        match (pre.split.as_deref_mut(), &body.split) {
            (Some(s), Some(state)) => s.load_state(state).map_err(unreadable)?,
            (None, None) => {}
            _ => return Err(self.refused("its split FTL is not the run's")),
        }
        pre.report = body.report;
        pre.split_cursor = body.split_cursor;
        Ok(true)
    }

    /// Save the device `pre` preconditioned. Written to a temporary file and renamed, so that
    /// a run of another process never reads half a snapshot.
    fn save(&self, pre: &Preconditioner) -> Result<(), Error> {
        let encode = |e: postcard::Error| Error::Simulation(format!("saving a snapshot: {e}"));
        let header = Header {
            magic: MAGIC.into(),
            format: FORMAT,
            version: crate::VERSION.into(),
            key: self.key.clone(),
            shaping: self.shaping.to_string(),
        };
        let body = Body {
            ftl: &*pre.ftl,
            allocators: (pre.allocators.iter())
                .map(|a| a.save_state())
                .collect::<Result<_, _>>()
                .map_err(encode)?,
            reduction: pre.reduction.save_state().map_err(encode)?,
            victim: pre.victim.save_state().map_err(encode)?,
            placement: pre.placement.save_state().map_err(encode)?,
            migration: pre.migration.save_state().map_err(encode)?,
            split: pre
                .split
                .as_deref()
                .map(|s| s.save_state())
                .transpose()
                .map_err(encode)?,
            report: pre.report,
            split_cursor: pre.split_cursor,
        };
        let temporary = self.path.with_extension(format!(
            "{EXTENSION}.{}.{:?}.part",
            std::process::id(),
            std::thread::current().id()
        ));
        let io = |e: std::io::Error| Error::io(&temporary, e);
        let file = std::fs::File::create(&temporary).map_err(io)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        w.write_all(&postcard::to_allocvec(&header).map_err(encode)?)
            .map_err(io)?;
        postcard::to_io(&body, &mut w).map_err(encode)?;
        w.into_inner()
            .map_err(|e| io(e.into_error()))?
            .sync_all()
            .map_err(io)?;
        std::fs::rename(&temporary, &self.path).map_err(|e| Error::io(&self.path, e))
    }

    /// Hold this snapshot for the caller's preconditioning: a run of the same process that
    /// asks for it meanwhile waits, then loads what this one saved.
    fn claim(&self) -> Claim {
        let mut building = BUILDING.0.lock().unwrap_or_else(|p| p.into_inner());
        while building.contains(&self.path) {
            building = BUILDING.1.wait(building).unwrap_or_else(|p| p.into_inner());
        }
        building.push(self.path.clone());
        Claim(self.path.clone())
    }

    /// Refuse a header that is not of a snapshot of this run's device, saying why.
    fn check(&self, header: &Header) -> Result<(), Error> {
        if header.magic != MAGIC {
            return Err(self.refused("not a device snapshot"));
        }
        if header.format != FORMAT || header.version != crate::VERSION {
            return Err(self.refused(format!(
                "saved by ssdlab {} (snapshot format {}); this is ssdlab {} (format {FORMAT}): \
                 precondition afresh (give a folder instead of the file) to save a new one",
                header.version,
                header.format,
                crate::VERSION
            )));
        }
        if header.key == self.key {
            return Ok(());
        }
        let saved: Value = serde_json::from_str(&header.shaping).unwrap_or(Value::Null);
        let mut differences = Vec::new();
        differ("", &saved, &self.shaping, &mut differences);
        Err(self.refused(format!(
            "it is of another device or preconditioning: {}",
            match differences.is_empty() {
                true => "its key differs (another byte order)".to_string(),
                false => differences.join("; "),
            }
        )))
    }

    fn refused(&self, reason: impl Into<String>) -> Error {
        Error::Snapshot {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }
}

/// Snapshots being built by runs of this process.
static BUILDING: (Mutex<Vec<PathBuf>>, Condvar) = (Mutex::new(Vec::new()), Condvar::new());

/// A snapshot held for building ([`Snapshot::claim`]); dropped, it is free for the others.
struct Claim(PathBuf);

impl Drop for Claim {
    fn drop(&mut self) {
        let mut building = BUILDING.0.lock().unwrap_or_else(|p| p.into_inner());
        building.retain(|p| *p != self.0);
        BUILDING.1.notify_all();
    }
}

/// The dotted keys whose values differ between the snapshot's config (`saved`) and the run's,
/// as `key: snapshot's value, run's value`; at most the first few.
fn differ(key: &str, saved: &Value, run: &Value, out: &mut Vec<String>) {
    const SHOWN: usize = 5;
    if out.len() >= SHOWN || saved == run {
        return;
    }
    if let (Value::Object(a), Value::Object(b)) = (saved, run) {
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for k in keys {
            let path = match key.is_empty() {
                true => k.clone(),
                false => format!("{key}.{k}"),
            };
            let none = Value::Null;
            differ(
                &path,
                a.get(k).unwrap_or(&none),
                b.get(k).unwrap_or(&none),
                out,
            );
        }
        return;
    }
    out.push(format!(
        "`{key}` is {saved} in the snapshot, {run} in this run"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(s: &Snapshot, version: &str, format: u32) -> Header {
        Header {
            magic: MAGIC.into(),
            format,
            version: version.into(),
            key: s.key.clone(),
            shaping: s.shaping.to_string(),
        }
    }

    #[test]
    fn a_snapshot_of_another_version_or_format_is_refused_saying_which() {
        let dir = tempfile::tempdir().unwrap();
        let s = Snapshot::at(dir.path(), &crate::test_support::small(&[]), false).unwrap();
        assert!(s.check(&header(&s, crate::VERSION, FORMAT)).is_ok());
        for h in [
            header(&s, "0.0.1", FORMAT),
            header(&s, crate::VERSION, FORMAT + 1),
        ] {
            let e = s.check(&h).unwrap_err().to_string();
            assert!(e.contains(&format!("saved by ssdlab {}", h.version)), "{e}");
            assert!(e.contains(&format!("format {}", h.format)), "{e}");
        }
    }

    #[test]
    fn what_acts_only_after_preconditioning_leaves_the_key_alone() {
        let key = |sets: &[&str], verify: bool| {
            let dir = tempfile::tempdir().unwrap();
            let c = crate::test_support::small(sets);
            Snapshot::at(dir.path(), &c, verify).unwrap().key
        };
        let plain = key(&[], false);
        assert_eq!(plain, key(&["timing.ecc_decode_ns=1", "name=\"x\""], false));
        assert_eq!(plain, key(&["ftl.read_policy.policy=\"full\""], false));
        assert_ne!(plain, key(&[], true));
        assert_ne!(plain, key(&["precondition.fill_fraction=0.5"], false));
        assert_ne!(plain, key(&["seed=8"], false));
    }
}
