//! Device snapshots: the state preconditioning leaves — the FTL (mapping, reverse map, blocks,
//! pools, erase counts, the oracle's versions) and the state of each policy it asked
//! (`ftl/saved_state.rs`), with its report — saved once to a file and loaded instead of
//! preconditioning again. A sweep over what only acts in the timed run (timing, scheduling, the
//! read policy, caches) or over traces then preconditions its device once: the trace's
//! footprint is written after the snapshot is loaded or saved, in every run.
//!
//! A snapshot is named by a key: a hash of everything that shapes the preconditioned device
//! ([`shaping`]), the snapshot format, the simulator's version and the byte order. A run finds
//! its snapshot in a folder by that name, or preconditions and saves it there. A file given
//! directly must carry the run's key; one that does not is refused, saying which version or
//! which config keys differ. The file is a postcard-encoded header (read and checked first),
//! then the state, its large tables as their bytes in one piece (`ftl/table.rs` `bulk`), then
//! an XXH3-64 checksum of everything before it. A file whose checksum does not match, or whose
//! state does not fit the device it is loaded for (`ftl/loaded.rs`), is refused as damaged; one
//! found in a folder is moved aside (`.damaged`), so that the next run rebuilds it.

use std::collections::BTreeSet;
use std::hash::Hasher;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use twox_hash::XxHash3_64;

use crate::config::Config;
use crate::error::Error;
use crate::ftl::precondition::{PreconditionReport, Preconditioner};
use crate::ftl::Ftl;

/// Bumped whenever what a snapshot holds, or how, changes.
const FORMAT: u32 = 5;
const MAGIC: &str = "ssdlab device snapshot";
/// The file name's extension.
const EXTENSION: &str = "snapshot";
/// The checksum's bytes, at the end of the file.
const CHECKSUM_BYTES: usize = 8;

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

/// The part of `config` that shapes the preconditioned device: everything but [`RUN_ONLY`], the
/// read policy, the flows and host, and whether the flows' footprint is preconditioned (it is
/// written after the snapshot is loaded or saved). `verify` adds the oracle's state.
pub fn shaping(config: &Config, verify: bool) -> Value {
    let mut c = config.to_json();
    // (`shift_remove`: the keys keep their order, so equal configs give equal keys.)
    let Some(m) = c.as_object_mut() else {
        return c;
    };
    for (section, _) in RUN_ONLY {
        m.shift_remove(section);
    }
    if let Some(ftl) = m.get_mut("ftl").and_then(Value::as_object_mut) {
        // (Reads only: preconditioning reads nothing.)
        ftl.shift_remove("read_policy");
    }
    // (The flows and the host's address handling shape only the trace's footprint.)
    m.shift_remove("flows");
    m.shift_remove("host");
    if let Some(p) = m.get_mut("precondition").and_then(Value::as_object_mut) {
        p.shift_remove("trace_footprint");
    }
    m.insert("verify".into(), verify.into());
    c
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
    /// Each policy's state (`Policies::states`).
    policies: Vec<PolicyState>,
    report: PreconditionReport,
}

/// A policy's state, and the policy it is of (its key).
#[derive(Serialize, Deserialize)]
struct PolicyState {
    policy: String,
    #[serde(with = "crate::ftl::table::bulk")]
    state: Vec<u8>,
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
    /// The snapshot is named by its key in a folder (not a file given directly).
    in_folder: bool,
}

impl Snapshot {
    /// The snapshot of `config`'s device at `location`: a folder (created if need be) holding
    /// snapshots by key, or a snapshot file.
    pub fn at(location: &Path, config: &Config, verify: bool) -> Result<Snapshot, Error> {
        let shaping = shaping(config, verify);
        let identity = serde_json::json!({
            "shaping": shaping, "format": FORMAT, "version": crate::VERSION,
            "little_endian": cfg!(target_endian = "little"),
        });
        let key = format!("{:x}", Sha256::digest(identity.to_string().as_bytes()));
        let in_folder = !location.is_file();
        let path = match in_folder {
            false => location.to_path_buf(),
            true => {
                std::fs::create_dir_all(location).map_err(|e| Error::io(location, e))?;
                location.join(format!("{key}.{EXTENSION}"))
            }
        };
        Ok(Snapshot {
            path,
            key,
            shaping,
            in_folder,
        })
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
        if self.load(pre)? {
            return Ok((self.path, SnapshotUse::Loaded));
        }
        // Opened before preconditioning, so that a folder that cannot be written is refused
        // before the work whose result it would not keep.
        let (part, file) = Part::create(&self.path)?;
        let used = match precondition(pre)? {
            true => {
                self.save(pre, part, file)?;
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
        let (header, rest) = postcard::take_from_bytes::<Header>(&bytes).map_err(|e| {
            // (A postcard string: its length in one byte, then its bytes.)
            match bytes.get(1..1 + MAGIC.len()) == Some(MAGIC.as_bytes()) {
                true => self.damaged(format!("its header cannot be read ({e})")),
                false => self.refused(format!("not a device snapshot ({e})")),
            }
        })?;
        if header.magic != MAGIC {
            return Err(self.refused("not a device snapshot"));
        }
        // (A file of another format may have no checksum: refused for its format below.)
        if header.format == FORMAT && !checksum_matches(&bytes) {
            return Err(self.damaged(
                "its checksum does not match its contents (the file changed after it was written)",
            ));
        }
        self.check_version(&header)?;
        self.check_key(&header)?;
        // (The checksum after the state is left unread.)
        let body: Body<Ftl> = postcard::from_bytes(rest)
            .map_err(|e| self.damaged(format!("its state cannot be read ({e})")))?;
        let unfit = |what: &str, e: &dyn std::fmt::Display| {
            self.damaged(format!("{what} does not fit this device ({e})"))
        };
        body.ftl
            .check_loaded(pre.ftl)
            .map_err(|e| unfit("its FTL", &e))?;
        let mut states = pre.policies.states();
        let names = |s: &mut dyn Iterator<Item = &str>| s.collect::<Vec<_>>().join(", ");
        let theirs = names(&mut body.policies.iter().map(|p| p.policy.as_str()));
        let ours = names(&mut states.iter().map(|(name, _)| name.as_str()));
        if theirs != ours {
            return Err(self.refused(format!(
                "it holds the states of other policies ({theirs}; this device's: {ours})"
            )));
        }
        for ((name, policy), saved) in states.iter_mut().zip(&body.policies) {
            (policy.load_state(&saved.state))
                .map_err(|e| unfit(&format!("the state of {name}"), &e))?;
        }
        let geometry = std::mem::take(&mut pre.ftl.geometry);
        *pre.ftl = body.ftl;
        pre.ftl.geometry = geometry;
        pre.report = body.report;
        Ok(true)
    }

    /// Save the device `pre` preconditioned into `part`, then rename it to the snapshot's name,
    /// so that a run of another process never reads half a snapshot. A failure removes the
    /// temporary file and names the snapshot with the system's error.
    fn save(&self, pre: &mut Preconditioner, part: Part, file: std::fs::File) -> Result<(), Error> {
        let encode = |e: postcard::Error| Error::Simulation(format!("saving a snapshot: {e}"));
        let header = Header {
            magic: MAGIC.into(),
            format: FORMAT,
            version: crate::VERSION.into(),
            key: self.key.clone(),
            shaping: self.shaping.to_string(),
        };
        let policies = (pre.policies.states().into_iter())
            .map(|(policy, p)| {
                Ok(PolicyState {
                    policy,
                    state: p.save_state().map_err(encode)?,
                })
            })
            .collect::<Result<_, Error>>()?;
        let body = Body {
            ftl: &*pre.ftl,
            policies,
            report: pre.report,
        };
        let io = |e: std::io::Error| Error::io(&self.path, e);
        let mut w = Checksummed {
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            hash: XxHash3_64::default(),
            failed: None,
        };
        // (postcard reports a writer's failure as a full buffer: the writer keeps the error.)
        let written = postcard::to_io(&header, &mut w)
            .and_then(|w| postcard::to_io(&body, w))
            .map(|_| ());
        if let Some(e) = w.failed.take() {
            return Err(io(e));
        }
        written.map_err(encode)?;
        let checksum = w.hash.finish().to_le_bytes();
        w.out.write_all(&checksum).map_err(io)?;
        let file = w.out.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)?;
        drop(file);
        part.keep(&self.path)
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

    /// Refuse a header that is not of a snapshot of this simulator's format and version.
    fn check_version(&self, header: &Header) -> Result<(), Error> {
        if header.format != FORMAT || header.version != crate::VERSION {
            return Err(self.refused(format!(
                "saved by ssdlab {} (snapshot format {}); this is ssdlab {} (format {FORMAT}): \
                 precondition afresh (give a folder instead of the file) to save a new one",
                header.version,
                header.format,
                crate::VERSION
            )));
        }
        Ok(())
    }

    /// Refuse a header that is not of a snapshot of this run's device, saying what differs.
    fn check_key(&self, header: &Header) -> Result<(), Error> {
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

    /// A damaged snapshot, and why. One of a folder is moved aside (`NAME.damaged`, replacing
    /// an older one), so that the next run that asks for it preconditions afresh and saves it
    /// again, and the file can still be looked at.
    fn damaged(&self, reason: impl Into<String>) -> Error {
        let mut reason = reason.into();
        if self.in_folder {
            let aside = self.path.with_extension(format!("{EXTENSION}.damaged"));
            reason = match std::fs::rename(&self.path, &aside) {
                Ok(()) => format!("{reason}; moved to {}", aside.display()),
                Err(e) => format!("{reason}; it could not be moved aside ({e})"),
            };
        }
        Error::DamagedSnapshot {
            path: self.path.clone(),
            reason,
        }
    }

    /// A snapshot that is not the run's device's, and why. One found in a folder by the run's
    /// key was saved for this very device, format and version: it is damaged.
    fn refused(&self, reason: impl Into<String>) -> Error {
        if self.in_folder {
            return self.damaged(reason);
        }
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

/// Whether a snapshot file's last bytes are the checksum of the rest.
fn checksum_matches(bytes: &[u8]) -> bool {
    let Some(split) = bytes.len().checked_sub(CHECKSUM_BYTES) else {
        return false;
    };
    let (contents, checksum) = bytes.split_at(split);
    checksum.try_into().ok().map(u64::from_le_bytes) == Some(XxHash3_64::oneshot(contents))
}

/// A writer that hashes what it writes, and keeps the system's error of a failed write (the
/// serializer reports only that it failed).
struct Checksummed<W> {
    out: W,
    hash: XxHash3_64,
    failed: Option<std::io::Error>,
}

impl<W> Checksummed<W> {
    /// `result`, its error kept (the serializer drops it).
    fn kept<T>(&mut self, result: std::io::Result<T>) -> std::io::Result<T> {
        result.map_err(|e| {
            let kind = e.kind();
            self.failed = Some(e);
            kind.into()
        })
    }
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf);
        let n = self.kept(n)?;
        self.hash.write(&buf[..n]);
        Ok(n)
    }
    // (The serializer flushes at the end of each value: with a buffer below, a full disk is
    // often found here.)
    fn flush(&mut self) -> std::io::Result<()> {
        let flushed = self.out.flush();
        self.kept(flushed)
    }
}

/// A snapshot's temporary file, beside it, removed when dropped unless [`Part::keep`] renamed
/// it to the snapshot's name: a save that fails (a full disk, a panic) leaves nothing behind.
struct Part {
    path: PathBuf,
    kept: bool,
}

impl Part {
    /// The temporary file of the snapshot at `snapshot`, created and opened for writing: an
    /// error names the folder that cannot be written.
    fn create(snapshot: &Path) -> Result<(Part, std::fs::File), Error> {
        let path = snapshot.with_extension(format!(
            "{EXTENSION}.{}.{:?}.part",
            std::process::id(),
            std::thread::current().id()
        ));
        let folder = snapshot.parent().unwrap_or(Path::new("."));
        let file = std::fs::File::create(&path).map_err(|e| Error::Io {
            path: folder.to_path_buf(),
            source: std::io::Error::new(e.kind(), format!("cannot save a snapshot here: {e}")),
        })?;
        Ok((Part { path, kept: false }, file))
    }

    /// Rename the file (closed) to `snapshot`.
    fn keep(mut self, snapshot: &Path) -> Result<(), Error> {
        std::fs::rename(&self.path, snapshot).map_err(|e| Error::io(snapshot, e))?;
        self.kept = true;
        Ok(())
    }
}

impl Drop for Part {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
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
        assert!(s.check_version(&header(&s, crate::VERSION, FORMAT)).is_ok());
        for h in [
            header(&s, "0.0.1", FORMAT),
            header(&s, crate::VERSION, FORMAT + 1),
        ] {
            let e = s.check_version(&h).unwrap_err().to_string();
            assert!(e.contains(&format!("saved by ssdlab {}", h.version)), "{e}");
            assert!(e.contains(&format!("format {}", h.format)), "{e}");
        }
    }

    /// A writer that fails as a full disk does once `room` bytes are written.
    struct Full {
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            match self.room.min(buf.len()) {
                0 => Err(std::io::Error::from_raw_os_error(libc::ENOSPC)),
                n => {
                    self.room -= n;
                    Ok(n)
                }
            }
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// postcard reports a failed write as a full serialize buffer; the writer keeps the
    /// system's error for the message, and hashes what was written, as a checksum of the same
    /// bytes in one piece.
    #[test]
    fn the_system_error_of_a_failed_write_is_kept_and_what_is_written_is_hashed() {
        let mut w = Checksummed {
            out: Full { room: 10 },
            hash: XxHash3_64::default(),
            failed: None,
        };
        assert!(postcard::to_io(&vec![7u8; 64], &mut w).is_err());
        let e = w.failed.expect("the system's error is kept");
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        // Buffered, as saving is: the disk is found full when the serializer flushes.
        let mut w = Checksummed {
            out: std::io::BufWriter::new(Full { room: 10 }),
            hash: XxHash3_64::default(),
            failed: None,
        };
        assert!(postcard::to_io(&vec![7u8; 64], &mut w).is_err());
        let e = w.failed.expect("the system's error is kept when flushing");
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        let mut w = Checksummed {
            out: Vec::new(),
            hash: XxHash3_64::default(),
            failed: None,
        };
        postcard::to_io(&(1u32, "snapshot", [3u64; 9]), &mut w).unwrap();
        let mut file = w.out.clone();
        file.extend_from_slice(&w.hash.finish().to_le_bytes());
        assert!(checksum_matches(&file));
        file[3] ^= 1;
        assert!(!checksum_matches(&file));
        assert!(!checksum_matches(&file[..5]));
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
