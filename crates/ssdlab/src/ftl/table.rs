//! Large flat tables (the mapping, the reverse map, the oracle). They are allocated zeroed, so the
//! OS backs only the pages that are touched, and on Linux they ask for transparent huge pages:
//! the mapping is accessed at random, and 2 MiB pages cut the TLB misses that dominate that.

pub fn zeroed_u8(len: usize) -> Vec<u8> {
    let v = vec![0u8; len];
    advise_huge_pages(&v);
    v
}

pub fn zeroed_u32(len: usize) -> Vec<u32> {
    let v = vec![0u32; len];
    advise_huge_pages(&v);
    v
}

pub fn zeroed_u64(len: usize) -> Vec<u64> {
    let v = vec![0u64; len];
    advise_huge_pages(&v);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(v: &[T]) {
    const HUGE: usize = 2 << 20;
    let bytes = std::mem::size_of_val(v);
    if bytes < 4 * HUGE {
        return;
    }
    let start = v.as_ptr() as usize;
    let aligned = start.div_ceil(HUGE) * HUGE;
    let end = (start + bytes) / HUGE * HUGE;
    if end > aligned {
        // SAFETY: the range lies inside the vector's allocation; MADV_HUGEPAGE only changes how
        // the kernel backs the pages, never their contents. A failure is harmless (no THP).
        unsafe {
            libc::madvise(
                aligned as *mut libc::c_void,
                end - aligned,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_v: &[T]) {}

/// Ask the CPU to start loading `v[i]` into cache (a hint; never faults). Batching random
/// lookups behind prefetches overlaps their memory latency.
#[inline(always)]
pub fn prefetch<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < v.len() {
        // SAFETY: the pointer is inside the slice; prefetching has no architectural effect.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                v.as_ptr().add(i) as *const i8,
                std::arch::x86_64::_MM_HINT_T0,
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

/// A large table in a device snapshot (`sim/snapshot.rs`), as its bytes in one piece: a table of
/// a 512 GiB device holds over a hundred million entries, and encoded entry by entry it took
/// most of a snapshot's load time. The bytes are the machine's own (little-endian on every
/// target ssdlab builds for; the snapshot's key names the byte order).
pub mod bulk {
    use bytemuck::Pod;
    use serde::{Deserialize, Deserializer, Serializer};

    // (`&Vec`, not a slice: serde's `with` passes the field as it is.)
    #[allow(clippy::ptr_arg)]
    pub fn serialize<T: Pod, S: Serializer>(table: &Vec<T>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytemuck::cast_slice(table))
    }

    pub fn deserialize<'de, T: Pod, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        let bytes = <&'de [u8]>::deserialize(d)?;
        if bytes.len() % std::mem::size_of::<T>() != 0 {
            return Err(serde::de::Error::invalid_length(
                bytes.len(),
                &"a whole number of table entries",
            ));
        }
        // Zeroed and advised first, so the copy faults in huge pages rather than 4 KiB ones.
        let mut table: Vec<T> = bytemuck::zeroed_vec(bytes.len() / std::mem::size_of::<T>());
        super::advise_huge_pages(&table);
        bytemuck::cast_slice_mut(&mut table).copy_from_slice(bytes);
        Ok(table)
    }
}
