//! How a set of wanted codewords on one physical page is read: what is sensed, for how long, and
//! what crosses the bus. Partial (PR-SSD), subpage (SPREAD) and melded reads are further policies.

use crate::config::ReadPolicyConfig;

/// What the read path knows about one page read.
#[derive(Clone, Copy, Debug)]
pub struct PageRead {
    /// Sensing time of the whole page (tR of its cell mode and page type).
    pub tr_full_ns: u64,
    pub page_bytes: u32,
    pub codeword_bytes: u32,
    /// Bit i set = codeword i of the page is wanted (by host requests or GC copies).
    pub wanted: u64,
}

/// The timed shape of one read command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPlan {
    pub sense_ns: u64,
    pub sensed_bytes: u32,
    pub transfer_bytes: u32,
}

pub trait ReadPolicy: Send {
    fn plan(&self, read: &PageRead) -> ReadPlan;
}

/// pageFTL: sense the whole page and move the whole page.
pub struct FullRead;

impl ReadPolicy for FullRead {
    fn plan(&self, r: &PageRead) -> ReadPlan {
        ReadPlan {
            sense_ns: r.tr_full_ns,
            sensed_bytes: r.page_bytes,
            transfer_bytes: r.page_bytes,
        }
    }
}

/// dmaFTL: sense the whole page, move only the wanted codewords (dynamic DMA).
pub struct DmaRead;

impl ReadPolicy for DmaRead {
    fn plan(&self, r: &PageRead) -> ReadPlan {
        ReadPlan {
            sense_ns: r.tr_full_ns,
            sensed_bytes: r.page_bytes,
            transfer_bytes: r.wanted.count_ones() * r.codeword_bytes,
        }
    }
}

pub fn build(config: &ReadPolicyConfig) -> Box<dyn ReadPolicy> {
    match config {
        ReadPolicyConfig::Full => Box::new(FullRead),
        ReadPolicyConfig::Dma => Box::new(DmaRead),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const READ: PageRead = PageRead {
        tr_full_ns: 50_000,
        page_bytes: 16384,
        codeword_bytes: 2048,
        wanted: 0b0000_1100,
    };

    #[test]
    fn full_read_moves_the_whole_page() {
        let p = FullRead.plan(&READ);
        assert_eq!(
            p,
            ReadPlan {
                sense_ns: 50_000,
                sensed_bytes: 16384,
                transfer_bytes: 16384
            }
        );
    }

    #[test]
    fn dma_read_moves_only_wanted_codewords() {
        let p = DmaRead.plan(&READ);
        assert_eq!(
            p,
            ReadPlan {
                sense_ns: 50_000,
                sensed_bytes: 16384,
                transfer_bytes: 4096
            }
        );
    }
}
