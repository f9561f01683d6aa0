//! The data-reduction step every written logical page passes through: it decides how the page is
//! stored (its [`UnitShape`], or nothing for an all-zero page), which write-buffer lane packs it,
//! and the controller time it costs. `identity` stores units as written without looking at their
//! bytes; `compress` runs a codec on the real content of each page (PR-SSD §4.1–4.2).

use std::collections::HashMap;

use foldhash::fast::FixedState;

use crate::codec::Codec;
use crate::config::{Config, ReductionConfig};
use crate::content::{ContentSource, UnitIdentity};
use crate::error::Error;
use crate::flash::Geometry;

use super::saved_state::{keeps_nothing, SavedState};
use super::shape::{UnitKind, UnitShape};
use super::write_buffer::Lane;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reduced {
    /// How the unit is stored (offset 0: packing places it); `None` = all zero, not stored.
    pub shape: Option<UnitShape>,
    /// Controller time to produce it.
    pub encode_ns: u64,
}

pub trait DataReduction: SavedState + Send {
    /// Reduce the next write of logical unit `lpn` (its content is that of the unit's next
    /// write version: each overwrite brings new bytes).
    fn reduce(&mut self, lpn: u32) -> Reduced;
    /// Controller time to decompress a unit stored compressed, once its read is decoded.
    fn decompress_ns(&self) -> u64;
    /// How the write buffer packs pages, one lane per kind of page this policy fills.
    fn lanes(&self) -> &[Lane];
    /// The lane a stored unit of `shape` is packed in (GC repacks copies in the same lane; a
    /// split unit's lane is the split buffer's first row, and its moved parts are packed there).
    fn lane_of(&self, shape: UnitShape) -> usize;
    /// The lanes that are the rows of the split buffer (none unless pages are split).
    fn split_rows(&self) -> std::ops::Range<usize> {
        0..0
    }
    /// Whether units need their shape kept in the mapping table (offsets other than slot order,
    /// zero bitmaps, compression); `identity` units need none.
    fn keeps_shapes(&self) -> bool;
    /// The partial unit zero bitmaps count in.
    fn partial_unit_bytes(&self) -> u32;
}

/// Units are stored as written, in slot order, as many to a page as fit.
pub struct Identity {
    unit_bytes: u32,
    lanes: [Lane; 1],
}

impl Reduced {
    /// A unit stored as written: raw, whole, at no cost (what `identity` gives every unit).
    pub fn as_written(unit_bytes: u32) -> Reduced {
        Reduced {
            shape: Some(UnitShape::raw(unit_bytes)),
            encode_ns: 0,
        }
    }
}

keeps_nothing!(Identity);

impl DataReduction for Identity {
    fn reduce(&mut self, _lpn: u32) -> Reduced {
        Reduced::as_written(self.unit_bytes)
    }
    fn decompress_ns(&self) -> u64 {
        0
    }
    fn lanes(&self) -> &[Lane] {
        &self.lanes
    }
    fn lane_of(&self, _shape: UnitShape) -> usize {
        0
    }
    fn keeps_shapes(&self) -> bool {
        false
    }
    fn partial_unit_bytes(&self) -> u32 {
        self.unit_bytes
    }
}

/// Lanes of [`Compress`]: compressed units merge into shared pages; a unit whose compression
/// failed is "directly written" as a normal page request (PR-SSD §2.2, §4.1), or, when it is
/// split, goes to the first row of the split buffer that has room (§4.3, Fig. 11).
const MERGE_LANE: usize = 0;
const DIRECT_LANE: usize = 1;
const SPLIT_ROWS: usize = 2;

/// Distinct pages whose reduction is remembered (about 40 MiB); past it, new pages are reduced
/// every time they are written.
const MAX_SEEN: usize = 1 << 20;

/// Each written page is cut from `[content]` and compressed by the codec, over its non-zero
/// partial units when the partial-zero filter is on (DPC, §4.2.2) or whole otherwise.
pub struct Compress {
    content: Box<dyn ContentSource>,
    codec: Box<dyn Codec>,
    partial_zero_filter: bool,
    partial_bytes: u32,
    decompress_ns: u64,
    /// Merge, direct, then one per split-buffer row.
    lanes: Vec<Lane>,
    /// Writes so far of each logical unit: the content version of the next.
    versions: Vec<u32>,
    /// What earlier pages of the same bytes reduced to, by their content identity
    /// (`ContentSource::identity`): a corpus has a few thousand distinct pages, written again
    /// and again, and the codec's result depends on the bytes alone.
    seen: HashMap<UnitIdentity, Reduced, FixedState>,
    /// The page's bytes, and its non-zero partial units (reused).
    page: Vec<u8>,
    nonzero: Vec<u8>,
}

/// The content versions written: the next write of a unit brings the next version's bytes.
/// (`seen` is left out: it only spares recomputing what the codec gives the same bytes.)
impl SavedState for Compress {
    fn save_state(&self) -> Result<Vec<u8>, postcard::Error> {
        Ok(bytemuck::cast_slice(&self.versions).to_vec())
    }
    fn load_state(&mut self, state: &[u8]) -> Result<(), postcard::Error> {
        if state.len() != std::mem::size_of_val(self.versions.as_slice()) {
            return Err(postcard::Error::DeserializeUnexpectedEnd);
        }
        self.versions = bytemuck::pod_collect_to_vec(state);
        Ok(())
    }
}

impl DataReduction for Compress {
    fn reduce(&mut self, lpn: u32) -> Reduced {
        let version = &mut self.versions[lpn as usize];
        *version = version.wrapping_add(1);
        let version = *version;
        let identity = self.content.identity(lpn, version, self.page.len());
        if let Some(r) = identity.and_then(|id| self.seen.get(&id)) {
            return *r;
        }
        let reduced = self.reduce_bytes(lpn, version);
        if let Some(id) = identity {
            if self.seen.len() < MAX_SEEN {
                self.seen.insert(id, reduced);
            }
        }
        reduced
    }
    fn decompress_ns(&self) -> u64 {
        self.decompress_ns
    }
    fn lanes(&self) -> &[Lane] {
        &self.lanes
    }
    fn lane_of(&self, shape: UnitShape) -> usize {
        match shape.kind {
            UnitKind::Compressed => MERGE_LANE,
            UnitKind::Raw => DIRECT_LANE,
            UnitKind::Split => SPLIT_ROWS,
        }
    }
    fn split_rows(&self) -> std::ops::Range<usize> {
        SPLIT_ROWS..self.lanes.len()
    }
    fn keeps_shapes(&self) -> bool {
        true
    }
    fn partial_unit_bytes(&self) -> u32 {
        self.partial_bytes
    }
}

impl Compress {
    /// Cut the page's bytes and run the codec on them.
    fn reduce_bytes(&mut self, lpn: u32, version: u32) -> Reduced {
        self.content.fill(lpn, version, &mut self.page);
        let p = self.partial_bytes as usize;
        let mut zero_bitmap = 0u16;
        for (i, unit) in self.page.chunks(p).enumerate() {
            if unit.iter().all(|&b| b == 0) {
                zero_bitmap |= 1 << i;
            }
        }
        let units = self.page.len() / p;
        if zero_bitmap.count_ones() as usize == units {
            // An all-zero page is a mark in the mapping table (§4.2.1, [31]).
            return Reduced {
                shape: None,
                encode_ns: 0,
            };
        }
        let input = if self.partial_zero_filter && zero_bitmap != 0 {
            self.nonzero.clear();
            for (i, unit) in self.page.chunks(p).enumerate() {
                if zero_bitmap >> i & 1 == 0 {
                    self.nonzero.extend_from_slice(unit);
                }
            }
            &self.nonzero
        } else {
            if !self.partial_zero_filter {
                zero_bitmap = 0;
            }
            &self.page
        };
        // Content is whole partial units (validated), so the codec always accepts it; should it
        // refuse, the unit is stored raw: never lost.
        let (kind, len, encode_ns) = match self.codec.compress(input) {
            Ok(c) if !c.failed && c.stored_bytes() > 0 => {
                (UnitKind::Compressed, c.stored_bytes(), c.compress_ns)
            }
            Ok(c) => (UnitKind::Raw, input.len() as u32, c.compress_ns),
            Err(_) => (UnitKind::Raw, input.len() as u32, 0),
        };
        Reduced {
            shape: Some(UnitShape {
                kind,
                offset: 0,
                len,
                zero_bitmap,
                row: 0,
            }),
            encode_ns,
        }
    }
}

/// The policy the (validated) config names. `compress` loads `[content]` and builds the codec.
pub fn build(config: &Config, g: &Geometry) -> Result<Box<dyn DataReduction>, Error> {
    Ok(match &config.ftl.reduction {
        ReductionConfig::Identity => Box::new(Identity {
            unit_bytes: g.unit_bytes,
            lanes: [Lane {
                max_units: g.slots_per_page,
                align_bytes: 1,
            }],
        }),
        ReductionConfig::Compress {
            partial_zero_filter,
            partial_unit_kib,
            align_bytes,
            ..
        } => {
            let codec_config = config
                .ftl
                .reduction
                .codec()
                .unwrap_or_else(|| unreachable!("compress names a codec"))?;
            let partial_bytes = partial_unit_kib * 1024;
            Box::new(Compress {
                content: crate::content::build(&config.content, config.seed)?,
                codec: codec_config.build()?,
                partial_zero_filter: *partial_zero_filter,
                partial_bytes,
                decompress_ns: codec_config.decompress_latency_ns(),
                lanes: [
                    Lane {
                        max_units: g.slots_per_page,
                        align_bytes: *align_bytes,
                    },
                    // Units that failed to compress are stored as any FTL stores raw units:
                    // as many to a page as fit uncompressed (one when the unit is the page,
                    // PR-SSD's "normal page request").
                    Lane {
                        max_units: g.units_per_page,
                        align_bytes: partial_bytes,
                    },
                ]
                .into_iter()
                // A split buffer of `width` pages (§4.3: 64 KB, four pages), each row a page of
                // whole partial units holding at most one part per column.
                .chain((0..config.ftl.split.width().unwrap_or(0)).map(|_| Lane {
                    max_units: g.page_bytes / partial_bytes,
                    align_bytes: partial_bytes,
                }))
                .collect(),
                versions: super::table::zeroed_u32(
                    config.ftl.mapped_units(g.physical_units(), g.unit_bytes) as usize,
                ),
                seen: HashMap::default(),
                page: vec![0; g.unit_bytes as usize],
                nonzero: Vec::with_capacity(g.unit_bytes as usize),
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::small;

    /// The small device with 16 KiB logical pages compressed by `codec` over content drawn as
    /// `content` says.
    fn compress(codec: &str, filter: bool, content: &str) -> Box<dyn DataReduction> {
        let config = small(&[
            "ftl.mapping_unit_kib=16",
            "ftl.max_units_per_page=12",
            &format!(
                "ftl.reduction={{policy=\"compress\", codec=\"{codec}\", \
                 partial_zero_filter={filter}}}"
            ),
            &format!("content={content}"),
        ]);
        build(&config, &crate::device::geometry(&config)).unwrap()
    }

    const RANDOM: &str = "{source=\"synthetic\", mix=[{fraction=1.0, compressibility=0.0}]";

    #[test]
    fn identity_keeps_size_and_costs_nothing() {
        let config = small(&[]);
        let mut r = build(&config, &crate::device::geometry(&config)).unwrap();
        assert_eq!(
            r.reduce(7),
            Reduced {
                shape: Some(UnitShape::raw(4096)),
                encode_ns: 0
            }
        );
        assert!(!r.keeps_shapes());
    }

    #[test]
    fn an_all_zero_page_is_not_stored() {
        let mut r = compress("dpc", true, &format!("{RANDOM}, zero_unit_fraction=1.0}}"));
        for lpn in 0..20 {
            assert_eq!(r.reduce(lpn).shape, None);
        }
    }

    #[test]
    fn zero_partial_units_are_filtered_out_only_with_the_filter() {
        let partly =
            format!("{RANDOM}, partial_zero_fraction=1.0, partial_zero_block_bytes=4096}}");
        let mut with = compress("dpc", true, &partly);
        let mut without = compress("dpc", false, &partly);
        for lpn in 0..50 {
            let s = with.reduce(lpn).shape.unwrap();
            let zeros = s.zero_bitmap.count_ones();
            assert!((1..=3).contains(&zeros), "{s:?}");
            // Random bytes do not compress: the non-zero units are stored raw.
            assert_eq!((s.kind, s.len), (UnitKind::Raw, (4 - zeros) * 4096));
            let whole = without.reduce(lpn).shape.unwrap();
            assert_eq!(whole, UnitShape::raw(16384), "same bytes, kept whole");
        }
    }

    #[test]
    fn compressible_pages_are_stored_compressed_with_the_codec_s_latencies() {
        let c = "{source=\"synthetic\", mix=[{fraction=1.0, compressibility=0.9}]}";
        for (codec, encode, decode) in [("dpc", 340, 38), ("lz4", 12_000, 12_000)] {
            let mut r = compress(codec, true, c);
            let out = r.reduce(3);
            let s = out.shape.unwrap();
            assert_eq!(s.kind, UnitKind::Compressed, "{codec}");
            assert!(s.len < 16384 / 4, "{codec}: {}", s.len);
            assert_eq!((out.encode_ns, r.decompress_ns()), (encode, decode));
            assert_eq!(r.lane_of(s), MERGE_LANE);
            assert_eq!(r.lane_of(UnitShape::raw(16384)), DIRECT_LANE);
        }
    }

    #[test]
    fn each_write_of_a_page_brings_new_content() {
        // Half the writes are all zero: over 40 writes of one page both kinds must appear, which
        // they could not if every write of the page had the same bytes.
        let mut r = compress("dpc", true, &format!("{RANDOM}, zero_unit_fraction=0.5}}"));
        let zero = (0..40).filter(|_| r.reduce(5).shape.is_none()).count();
        assert!((5..35).contains(&zero), "{zero}");
    }
}
