//! Bit-granular writing and reading for the codecs whose fields are not byte-sized (DPC's length
//! table and encoding bitmaps, FPC's 3-bit prefixes). Bits are packed least-significant first:
//! field bit 0 goes to the lowest free bit of the current byte. Hardware would lay them out however
//! its datapath likes; what matters for the simulator is that the bit count is exact.

use super::CodecError;

/// Appends bit fields to a byte vector.
pub(crate) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    pending: u32,
}

impl<'a> BitWriter<'a> {
    pub(crate) fn new(out: &'a mut Vec<u8>) -> BitWriter<'a> {
        BitWriter {
            out,
            acc: 0,
            pending: 0,
        }
    }

    /// Append the low `bits` bits of `value` (`bits` ≤ 32).
    pub(crate) fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 32);
        let masked = value & ((1u64 << bits) - 1);
        self.acc |= masked << self.pending;
        self.pending += bits;
        while self.pending >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.pending -= 8;
        }
    }

    /// Pad the last byte with zero bits.
    pub(crate) fn finish(self) {
        if self.pending > 0 {
            self.out.push(self.acc as u8);
        }
    }
}

/// Reads bit fields from a byte slice; running past the end is a corrupt-input error.
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    /// Next bit to read, counted from the start of `data`.
    bit: usize,
    codec: &'static str,
}

impl<'a> BitReader<'a> {
    pub(crate) fn new(data: &'a [u8], codec: &'static str) -> BitReader<'a> {
        BitReader {
            data,
            bit: 0,
            codec,
        }
    }

    /// Read a `bits`-bit field (`bits` ≤ 32).
    pub(crate) fn get(&mut self, bits: u32) -> Result<u64, CodecError> {
        let end = self.bit + bits as usize;
        if end > self.data.len() * 8 {
            return Err(CodecError::corrupt(self.codec, "bit stream ends early"));
        }
        let mut value = 0u64;
        let mut got = 0u32;
        while got < bits {
            let byte = self.data[self.bit / 8] as u64;
            let offset = (self.bit % 8) as u32;
            let take = (8 - offset).min(bits - got);
            value |= ((byte >> offset) & ((1 << take) - 1)) << got;
            got += take;
            self.bit += take as usize;
        }
        Ok(value)
    }

    /// Bytes touched so far (a partly read byte counts).
    pub(crate) fn bytes_used(&self) -> usize {
        self.bit.div_ceil(8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_lsb_first() {
        let mut out = Vec::new();
        let mut w = BitWriter::new(&mut out);
        w.put(0b101, 3);
        w.put(0x3ff, 10);
        w.put(1, 1);
        w.put(0xdead_beef, 32);
        w.finish();
        // 46 bits → 6 bytes; the first byte holds 101 then the low 5 bits of 0x3ff.
        assert_eq!(out.len(), 6);
        assert_eq!(out[0], 0b1111_1101);
        let mut r = BitReader::new(&out, "test");
        assert_eq!(r.get(3).unwrap(), 0b101);
        assert_eq!(r.get(10).unwrap(), 0x3ff);
        assert_eq!(r.get(1).unwrap(), 1);
        assert_eq!(r.get(32).unwrap(), 0xdead_beef);
        assert_eq!(r.bytes_used(), 6);
        assert_eq!(r.get(2).unwrap(), 0, "padding bits are zero");
        assert!(r.get(1).is_err(), "past the end is an error");
    }
}
