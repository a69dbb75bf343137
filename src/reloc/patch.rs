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

fn read_slot(bytes: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    b[..bytes.len()].copy_from_slice(bytes);
    u128::from_le_bytes(b)
}

/// The value currently stored in the fields (the implicit addend of a REL entry).
pub fn read(data: &[u8], offset: u64, fields: &[Field]) -> Result<u64> {
    let len = slot_len(fields);
    let start = offset as usize;
    let bytes = data.get(start..start.saturating_add(len)).ok_or_else(|| {
        Error::new(format!(
            "relocation at {offset:#x} runs past the end of its section"
        ))
    })?;
    let slot = read_slot(bytes);
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

/// Writes `value` into the fields, leaving every other bit as it was. A value that does not
/// fit its fields is an error.
pub fn write(data: &mut [u8], offset: u64, fields: &[Field], value: u64) -> Result<()> {
    let len = slot_len(fields);
    let start = offset as usize;
    let total: u32 = fields.iter().map(|f| f.width + f.from).max().unwrap_or(0);
    if total < 64 && value >> total != 0 {
        return Err(Error::new(format!(
            "value {value:#x} does not fit a {total}-bit relocation field at {offset:#x}"
        )));
    }
    let bytes = data
        .get_mut(start..start.saturating_add(len))
        .ok_or_else(|| {
            Error::new(format!(
                "relocation at {offset:#x} runs past the end of its section"
            ))
        })?;
    let mut slot = read_slot(bytes);
    for f in fields {
        let mask: u128 = if f.width >= 64 {
            u64::MAX as u128
        } else {
            (1u128 << f.width) - 1
        };
        let part = ((value >> f.from) as u128) & mask;
        slot = (slot & !(mask << f.at)) | (part << f.at);
    }
    bytes.copy_from_slice(&slot.to_le_bytes()[..len]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_slot_past_the_end_is_an_error() {
        let mut d = vec![0u8; 7];
        assert!(write(&mut d, 0, fields(66).unwrap(), 1).is_err());
        assert!(write(&mut d, 4, fields(2).unwrap(), 1).is_err());
    }
}
