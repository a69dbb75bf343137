//! GPU architectures: the `-arch` names nvlink accepts and the SM encoded in a cubin's e_flags.

use crate::diag::{Error, Result};
use std::fmt;

/// Which family-specific variant of an SM an object or target is (`sm_90a`, `sm_100f`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    Plain,
    /// 'a': architecture-specific features, runs only on exactly this SM.
    Accelerated,
    /// 'f': family-specific features, runs on later SMs of the same family.
    Family,
}

/// What an `-arch` value names: real code (`sm_`), PTX (`compute_`) or LTO-IR (`lto_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArchKind {
    Sm,
    Compute,
    Lto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Arch {
    pub kind: ArchKind,
    /// The SM number: 75, 80, …, 121.
    pub sm: u32,
    pub variant: Variant,
}

/// SM numbers nvlink 13.5 accepts for `-arch` (its `--help` lists them).
pub const KNOWN_SMS: &[u32] = &[75, 80, 86, 87, 88, 89, 90, 100, 103, 107, 110, 120, 121];

impl Arch {
    /// Parses `sm_90`, `sm_90a`, `sm_100f`, `compute_80`, `lto_89`.
    pub fn parse(s: &str) -> Result<Arch> {
        let bad = || Error::new(format!("Unknown arch name '{s}'"));
        let (kind, rest) = if let Some(r) = s.strip_prefix("sm_") {
            (ArchKind::Sm, r)
        } else if let Some(r) = s.strip_prefix("compute_") {
            (ArchKind::Compute, r)
        } else if let Some(r) = s.strip_prefix("lto_") {
            (ArchKind::Lto, r)
        } else {
            return Err(bad());
        };
        let (digits, variant) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], Variant::Accelerated),
            Some(b'f') => (&rest[..rest.len() - 1], Variant::Family),
            _ => (rest, Variant::Plain),
        };
        let sm: u32 = digits.parse().map_err(|_| bad())?;
        if !KNOWN_SMS.contains(&sm) {
            return Err(bad());
        }
        // 'a' exists from sm_90 on, 'f' from sm_100 on.
        match variant {
            Variant::Accelerated if sm < 90 => return Err(bad()),
            Variant::Family if sm < 100 => return Err(bad()),
            _ => {}
        }
        Ok(Arch { kind, sm, variant })
    }

    /// sm_100 and later carry the Mercury copy of the module and use the newer e_flags layout.
    pub fn is_mercury(&self) -> bool {
        self.sm >= 100
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.kind {
            ArchKind::Sm => "sm",
            ArchKind::Compute => "compute",
            ArchKind::Lto => "lto",
        };
        let suffix = match self.variant {
            Variant::Plain => "",
            Variant::Accelerated => "a",
            Variant::Family => "f",
        };
        write!(f, "{prefix}_{}{suffix}", self.sm)
    }
}

/// Whether code compiled for `obj_sm` may be linked into a `target_sm` executable: the same
/// SM, an older SM of the Ampere/Ada family (sm_80 code links into sm_86 and sm_89), or from
/// sm_100 on an older SM of the same major version (sm_100 into sm_103, sm_120 into sm_121;
/// not sm_100 into sm_110), as nvlink 13.5 allows.
pub fn object_links_into(obj_sm: u32, target_sm: u32) -> bool {
    obj_sm == target_sm
        || ((80..=89).contains(&obj_sm) && (80..=89).contains(&target_sm) && obj_sm <= target_sm)
        || (obj_sm >= 100 && obj_sm / 10 == target_sm / 10 && obj_sm <= target_sm)
}

/// The fields of a cubin's e_flags (ELF ABI version 8, as nvcc 13.5 writes them).
///
/// Bits 8..15 hold the SM number; bits 0..7 are 0x04 up to sm_90 and 0x02 from sm_100 on;
/// bits 24..31 are 0x06, or 0x0e (sm_75–90) / 0x0d (sm_100+) in `-G` debug objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EFlags {
    pub raw: u32,
}

impl EFlags {
    pub fn sm(&self) -> u32 {
        (self.raw >> 8) & 0xff
    }
    pub fn low(&self) -> u32 {
        self.raw & 0xff
    }
    pub fn high(&self) -> u32 {
        self.raw >> 24
    }
    /// Objects compiled with `-G` set an extra bit in the top byte.
    pub fn is_debug(&self) -> bool {
        match self.low() {
            0x02 => self.high() & 0x08 != 0 || self.high() == 0x0d,
            _ => self.high() & 0x08 != 0,
        }
    }
    pub fn describe(&self) -> String {
        let mut s = format!("sm_{}", self.sm());
        if self.is_debug() {
            s.push_str(" debug");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_spelling_nvlink_lists() {
        for s in [
            "sm_75",
            "sm_90a",
            "sm_100f",
            "compute_89",
            "lto_120a",
            "sm_121f",
        ] {
            assert_eq!(Arch::parse(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn rejects_unknown_arches_with_nvlinks_message() {
        for s in ["sm_70", "sm_80a", "sm_90f", "gfx90a", "sm_", "sm_9x"] {
            assert_eq!(
                Arch::parse(s).unwrap_err().to_string(),
                format!("Unknown arch name '{s}'")
            );
        }
    }

    #[test]
    fn code_links_into_later_sms_of_its_family_only() {
        for (obj, target, ok) in [
            (80, 86, true),
            (86, 80, false),
            (80, 90, false),
            (100, 103, true),
            (103, 100, false),
            (100, 110, false),
            (120, 121, true),
            (90, 100, false),
        ] {
            assert_eq!(
                object_links_into(obj, target),
                ok,
                "sm_{obj} into sm_{target}"
            );
        }
    }

    #[test]
    fn eflags_sm_field_matches_observed_values() {
        assert_eq!(EFlags { raw: 0x0600_5a04 }.sm(), 90);
        assert_eq!(EFlags { raw: 0x0600_7802 }.sm(), 120);
        assert!(!EFlags { raw: 0x0600_5a04 }.is_debug());
        assert!(EFlags { raw: 0x0e00_5a04 }.is_debug());
        assert!(EFlags { raw: 0x0d00_6402 }.is_debug());
    }
}
