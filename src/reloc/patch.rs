//! Bit-field patching: reading and writing a relocation's field inside an instruction or data
//! word. Knows nothing about symbols; the caller decides the value.

use crate::diag::{Error, Result};

/// One contiguous run of bits: `width` bits of the value (starting at value bit `from`) go to
/// bit `at` of the little-endian slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub at: u32,
    pub width: u32,
    pub from: u32,
}

/// Where a relocation type's value lives. `None` from [`fields`] means cubin-ld does not
/// know the layout (it then never applies such a relocation itself).
pub fn fields(r_type: u32) -> Option<&'static [Field]> {
    const fn f(at: u32, width: u32) -> [Field; 1] {
        [Field { at, width, from: 0 }]
    }
    const R32: [Field; 1] = f(0, 32);
    const R64: [Field; 1] = f(0, 64);
    const ABS32_32: [Field; 1] = f(32, 32);
    const ABS16_32: [Field; 1] = f(32, 16);
    const ABS24_32: [Field; 1] = f(32, 24);
    const CONST_FIELD19_40: [Field; 1] = f(40, 19);
    const CONST_FIELD21_38: [Field; 1] = f(38, 21);
    const BINDLESSOFF14_40: [Field; 1] = f(40, 14);
    const ABS24_40: [Field; 1] = f(40, 24);
    const ABS20_44: [Field; 1] = f(44, 20);
    const CONST_FIELD22_37: [Field; 1] = f(37, 22);
    Some(match r_type {
        1 => &R32,
        2 => &R64,
        55 => &ABS32_32,
        59 => &ABS16_32,
        60 => &ABS24_32,
        64 => &CONST_FIELD19_40,
        65 => &BINDLESSOFF14_40,
        66 => &CONST_FIELD21_38,
        74 => &ABS24_40,
        100 => &ABS20_44,
        115 => &CONST_FIELD22_37,
        _ => return None,
    })
}

fn slot_len(fields: &[Field]) -> usize {
    fields
        .iter()
        .map(|f| (f.at + f.width).div_ceil(8) as usize)
        .max()
        .unwrap_or(0)
}

/// Bytes a relocation's field is read from and written to: a section's bytes, or the words
/// patched over code written from its input ([`Overlay`]). A field is at most 8 bytes.
pub trait Slots {
    /// The `len` bytes (at most 8) at `at`, little-endian; `None` where they run past the end.
    fn load(&self, at: usize, len: usize) -> Option<u64>;
    /// Stores the low `len` bytes of `v` at `at`, where `load` found `len` bytes.
    fn store(&mut self, at: usize, len: usize, v: u64);
}

impl Slots for [u8] {
    fn load(&self, at: usize, len: usize) -> Option<u64> {
        let bytes = self.get(at..at.checked_add(len)?)?;
        let mut b = [0u8; 8];
        b[..len].copy_from_slice(bytes);
        Some(u64::from_le_bytes(b))
    }

    fn store(&mut self, at: usize, len: usize, v: u64) {
        self[at..at + len].copy_from_slice(&v.to_le_bytes()[..len]);
    }
}

impl Slots for Vec<u8> {
    fn load(&self, at: usize, len: usize) -> Option<u64> {
        self[..].load(at, len)
    }

    fn store(&mut self, at: usize, len: usize, v: u64) {
        self[..].store(at, len, v)
    }
}

/// Code patched without a copy of it: the 8-byte words written, over the input's bytes (a
/// multiple of 8 long). A function's code is kilobytes and its relocations touch a few
/// words: copying it whole to patch it, then comparing the copy to find what changed, was
/// most of the relocation of code written from its input.
pub struct Overlay<'i> {
    input: &'i [u8],
    /// (offset, word), by offset: every word written, changed or not.
    words: Vec<(u32, [u8; 8])>,
}

impl<'i> Overlay<'i> {
    pub fn new(input: &'i [u8]) -> Self {
        debug_assert!(input.len() % 8 == 0 && u32::try_from(input.len()).is_ok());
        Overlay {
            input,
            words: Vec::new(),
        }
    }

    /// The word at `at` (a multiple of 8, inside the input), as patched so far.
    fn word(&self, at: usize) -> [u8; 8] {
        match self.words.binary_search_by_key(&(at as u32), |w| w.0) {
            Ok(i) => self.words[i].1,
            Err(_) => self.input[at..at + 8].try_into().expect("8 bytes"),
        }
    }

    fn put(&mut self, at: usize, word: [u8; 8]) {
        // (Relocations come mostly in offset order: the word is usually the last or new.)
        match self.words.last() {
            Some(&(last, _)) if (last as usize) < at => self.words.push((at as u32, word)),
            None => self.words.push((at as u32, word)),
            _ => match self.words.binary_search_by_key(&(at as u32), |w| w.0) {
                Ok(i) => self.words[i].1 = word,
                Err(i) => self.words.insert(i, (at as u32, word)),
            },
        }
    }

    /// The words that differ from the input, by offset (as `InputBytes::changed` lists them).
    pub fn into_changed(self) -> Vec<(u32, [u8; 8])> {
        let Overlay { input, mut words } = self;
        words.retain(|(at, w)| w[..] != input[*at as usize..*at as usize + 8]);
        words
    }

    /// The two words from the one holding `at`, and `at`'s place in them; `None` where `len`
    /// bytes from `at` run past the end.
    fn span(&self, at: usize, len: usize) -> Option<(usize, [u8; 16])> {
        if at.checked_add(len)? > self.input.len() {
            return None;
        }
        let base = at & !7;
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.word(base));
        if at + len > base + 8 {
            b[8..].copy_from_slice(&self.word(base + 8));
        }
        Some((base, b))
    }
}

impl Slots for Overlay<'_> {
    fn load(&self, at: usize, len: usize) -> Option<u64> {
        let (base, b) = self.span(at, len)?;
        let mut v = [0u8; 8];
        v[..len].copy_from_slice(&b[at - base..at - base + len]);
        Some(u64::from_le_bytes(v))
    }

    fn store(&mut self, at: usize, len: usize, v: u64) {
        let Some((base, mut b)) = self.span(at, len) else {
            return;
        };
        b[at - base..at - base + len].copy_from_slice(&v.to_le_bytes()[..len]);
        self.put(base, b[..8].try_into().expect("8 bytes"));
        if at + len > base + 8 {
            self.put(base + 8, b[8..].try_into().expect("8 bytes"));
        }
    }
}

/// The value currently stored in the fields (the implicit addend of a REL entry).
pub fn read<S: Slots + ?Sized>(data: &S, offset: u64, fields: &[Field]) -> Result<u64> {
    let len = slot_len(fields);
    let slot = data
        .load(offset as usize, len)
        .ok_or_else(|| past_the_end(offset))?;
    let slot = slot as u128;
    let mut v = 0u64;
    for f in fields {
        let mask = if f.width >= 64 {
            u64::MAX
        } else {
            (1u64 << f.width) - 1
        };
        v |= (((slot >> f.at) as u64) & mask) << f.from;
    }
    Ok(v)
}

/// Writes `value` into the fields, leaving every other bit as it was. A negative value (an
/// offset below its symbol: ptxas's `s[i - 1]` on a shared array is `sym - 4`) goes in as its
/// low bits, two's complement, as nvlink writes it. A value that fits its fields neither as
/// an unsigned nor as a negative number is an error: nvlink writes its low bits all the
/// same (0 for 0x100000000 in a 32-bit field), which points the code somewhere else.
pub fn write<S: Slots + ?Sized>(
    data: &mut S,
    offset: u64,
    fields: &[Field],
    value: u64,
) -> Result<()> {
    let len = slot_len(fields);
    let start = offset as usize;
    let total: u32 = fields.iter().map(|f| f.width + f.from).max().unwrap_or(0);
    if !fits(value, total) {
        let shown = match value as i64 {
            v if v < 0 => format!("-{:#x}", v.unsigned_abs()),
            _ => format!("{value:#x}"),
        };
        return Err(Error::new(format!(
            "value {shown} does not fit a {total}-bit relocation field at {offset:#x}"
        )));
    }
    let mut slot = data.load(start, len).ok_or_else(|| past_the_end(offset))? as u128;
    for f in fields {
        let mask: u128 = if f.width >= 64 {
            u64::MAX as u128
        } else {
            (1u128 << f.width) - 1
        };
        let part = ((value >> f.from) as u128) & mask;
        slot = (slot & !(mask << f.at)) | (part << f.at);
    }
    data.store(start, len, slot as u64);
    Ok(())
}

/// Whether `value` fits `bits` bits, as an unsigned number or as a negative one.
fn fits(value: u64, bits: u32) -> bool {
    match bits {
        0 => value == 0,
        64.. => true,
        _ => value >> bits == 0 || (value as i64) >> (bits - 1) == -1,
    }
}

fn past_the_end(offset: u64) -> Error {
    Error::new(format!(
        "relocation at {offset:#x} runs past the end of its section"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_layout_fits_eight_bytes() {
        for t in 0..=u8::MAX as u32 {
            if let Some(f) = fields(t) {
                assert!(slot_len(f) <= 8, "type {t}");
            }
        }
    }

    fn code(n: usize) -> Vec<u8> {
        (0..n as u8).collect()
    }

    #[test]
    fn an_overlay_keeps_only_the_words_that_end_up_changed() {
        let input = code(64);
        let mut o = Overlay::new(&input);
        write(&mut o, 16, fields(1).unwrap(), 0x1312_1110).unwrap(); // what word 16 holds
        write(&mut o, 40, fields(1).unwrap(), 7).unwrap();
        assert_eq!(o.into_changed(), [(40, [7, 0, 0, 0, 44, 45, 46, 47])]);
    }

    #[test]
    fn an_overlay_lists_whole_words_by_offset_whatever_order_they_are_written_in() {
        let input = code(64);
        let mut o = Overlay::new(&input);
        write(&mut o, 48, fields(1).unwrap(), 1).unwrap();
        write(&mut o, 8, fields(1).unwrap(), 2).unwrap();
        write(&mut o, 24, fields(1).unwrap(), 3).unwrap();
        let at: Vec<u32> = o.into_changed().iter().map(|w| w.0).collect();
        assert_eq!(at, [8, 24, 48]);
    }

    #[test]
    fn an_overlay_reads_what_was_written_and_patches_like_the_bytes_themselves() {
        let input = code(64);
        let (mut o, mut copy) = (Overlay::new(&input), input.clone());
        // A field across two words, written twice: the second adds to the first.
        for bytes in [&mut o as &mut dyn Slots, &mut copy] {
            write(bytes, 20, fields(2).unwrap(), 0x0102_0304_0506_0708).unwrap();
            let old = read(bytes, 20, fields(2).unwrap()).unwrap();
            write(bytes, 20, fields(2).unwrap(), old + 1).unwrap();
        }
        let mut patched = input.clone();
        for (at, w) in o.into_changed() {
            patched[at as usize..at as usize + 8].copy_from_slice(&w);
        }
        assert_eq!(patched, copy);
        assert_eq!(copy[20..28], 0x0102_0304_0506_0709u64.to_le_bytes());
    }

    #[test]
    fn a_field_past_the_end_of_an_overlay_is_an_error_as_in_the_bytes() {
        let input = code(32);
        let mut o = Overlay::new(&input);
        let e = write(&mut o, 28, fields(2).unwrap(), 1).unwrap_err();
        assert!(e.to_string().contains("runs past the end"), "{e}");
        assert!(read(&o, 30, fields(1).unwrap()).is_err());
        assert!(o.into_changed().is_empty());
    }

    #[test]
    fn const_field21_38_places_the_bank_offset_as_nvlink_does() {
        // constant/sm_90: c_double_b at 0x88 patched into b_use_const's slot at 0x80.
        let before: u128 = 0xfe40000000a0000c0000000047ab9;
        let after: u128 = 0xfe40000000a0000c0220000047ab9;
        let mut d = before.to_le_bytes().to_vec();
        // The field already holds the bank (3 << 16); the symbol's offset is added to it.
        let old = read(&d, 0, fields(66).unwrap()).unwrap();
        assert_eq!(old, 0x30000);
        write(&mut d, 0, fields(66).unwrap(), old + 0x88).unwrap();
        assert_eq!(u128::from_le_bytes(d.try_into().unwrap()), after);
    }

    #[test]
    fn abs16_32_places_the_constant_address_as_nvlink_does() {
        let before: u128 = 0xfc800000000000000000000047882;
        let after: u128 = 0xfc800000000000000009000047882;
        let mut d = before.to_le_bytes().to_vec();
        write(&mut d, 0, fields(59).unwrap(), 0x90).unwrap();
        assert_eq!(read(&d, 0, fields(59).unwrap()).unwrap(), 0x90);
        assert_eq!(u128::from_le_bytes(d.try_into().unwrap()), after);
    }

    /// One vector per field layout cubin-ld writes, from nvlink 13.5's outputs (testdata):
    /// (r_type, input slot, field value written, nvlink's slot).
    const VECTORS: &[(u32, &str, u64, &str)] = &[
        // extern_shared/sm_75: dyn_int at shared offset 0x100.
        (
            74,
            "88730008080000000048000000e80f00",
            0x100,
            "88730008080001000048000000e80f00",
        ),
        // static_shared/sm_90: buf_a at shared offset 0x800.
        (
            55,
            "82780400000000000000000000e20f00",
            0x800,
            "82780400000800000000000000e20f00",
        ),
        // constant/sm_75: c_scalar_a, bank 3 offset 0 encoded as 3 << 14 | 0 / 4.
        (
            64,
            "067b0500000000000014200000e20f00",
            0xc000,
            "067b05000000c0000014200000e20f00",
        ),
        // texref_ptx/sm_75: sref_a's slot 0x170 in 4-byte words.
        (
            65,
            "9d7b0000000000100009110000e20f00",
            0x5c,
            "9d7b0000005c00100009110000e20f00",
        ),
        // constant/sm_100: c_double_b (0x88) added to the field that holds bank 3 << 17.
        (
            115,
            "ac7704ff0000c000000a0008002e0e00",
            0x6_0088,
            "ac7704ff0011c000000a0008002e0e00",
        ),
    ];

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn every_field_layout_writes_the_bits_nvlink_writes() {
        for &(t, input, value, expected) in VECTORS {
            let mut d = unhex(input);
            write(&mut d, 0, fields(t).unwrap(), value).unwrap();
            assert_eq!(
                d,
                unhex(expected),
                "{}",
                crate::reloc::table::name(t).unwrap()
            );
            assert_eq!(read(&d, 0, fields(t).unwrap()).unwrap(), value);
        }
    }

    #[test]
    fn a_value_too_wide_for_its_field_is_an_error() {
        let mut d = vec![0u8; 16];
        assert!(write(&mut d, 0, fields(59).unwrap(), 0x1_0000).is_err());
    }

    #[test]
    fn a_negative_value_goes_in_as_nvlink_writes_it() {
        // `s[t - 1]` on a kernel's `__shared__ int s[64]` at shared offset 0, sm_75: ptxas's
        // `R_CUDA_ABS24_40 s - 4` on `LDS.U R5, [R5.X4]`; nvlink 13.5 writes -0x4.
        let mut d = unhex("84790505000000000058000000280e00");
        write(&mut d, 0, fields(74).unwrap(), -4i64 as u64).unwrap();
        assert_eq!(d, unhex("8479050500fcffff0058000000280e00"));
        // The lowest a 24-bit field holds.
        write(&mut d, 0, fields(74).unwrap(), -0x80_0000i64 as u64).unwrap();
        assert_eq!(read(&d, 0, fields(74).unwrap()).unwrap(), 0x80_0000);
    }

    #[test]
    fn a_value_that_fits_its_field_neither_way_is_an_error() {
        // nvlink 13.5 writes the low bits of these (0x7ffffc, 0x0): code pointing elsewhere.
        let mut d = vec![0u8; 16];
        for v in [-0x80_0004i64 as u64, 0x100_0000] {
            let e = write(&mut d, 0, fields(74).unwrap(), v).unwrap_err();
            assert!(e.to_string().contains("does not fit a 24-bit"), "{e}");
        }
        let e = write(&mut d, 0, fields(74).unwrap(), -0x80_0004i64 as u64).unwrap_err();
        assert!(e.to_string().contains("value -0x800004 "), "{e}");
    }

    #[test]
    fn a_slot_past_the_end_is_an_error() {
        let mut d = vec![0u8; 7];
        assert!(write(&mut d, 0, fields(66).unwrap(), 1).is_err());
        assert!(write(&mut d, 4, fields(2).unwrap(), 1).is_err());
    }
}
