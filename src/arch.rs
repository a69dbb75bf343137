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
        is_mercury_sm(self.sm)
    }
}

/// Whether SM `sm` (sm_100 and later) carries the Mercury copy of the module.
pub fn is_mercury_sm(sm: u32) -> bool {
    sm >= 100
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
/// bits 24..31 hold the section index of `.note.nv.cuinfo` (0xff when it is 255 or more). That
/// is why the top byte is 0x06 in an ordinary object, 0x09 with `-lineinfo`, 0x0e with `-G`,
/// one more per extra debug section a link gathers, one more past 65,280 sections
/// (`.symtab_shndx`), and 0x05 in an empty module: found by moving the note in nvlink's
/// outputs (more `.nv_debug_ptx_txt.*` sections, more objects) and by patching the byte in
/// inputs, which nvlink then refuses as needing a newer toolkit unless it is 0xff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EFlags {
    pub raw: u32,
}

impl EFlags {
    pub const CUINFO: &'static [u8] = b".note.nv.cuinfo";
    /// The top byte when the note's index does not fit it (or is not recorded).
    pub const CUINFO_UNKNOWN: u32 = 0xff;

    pub fn sm(&self) -> u32 {
        (self.raw >> 8) & 0xff
    }
    pub fn low(&self) -> u32 {
        self.raw & 0xff
    }
    /// The recorded index of `.note.nv.cuinfo`.
    pub fn cuinfo_index(&self) -> u32 {
        self.raw >> 24
    }
    /// Whether the top byte agrees with where `.note.nv.cuinfo` really is.
    pub fn cuinfo_index_matches(&self, actual: Option<u32>) -> bool {
        let recorded = self.cuinfo_index();
        recorded == Self::CUINFO_UNKNOWN || Some(recorded) == actual
    }
    /// `raw` with the top byte set for a module whose `.note.nv.cuinfo` is at `index`.
    pub fn with_cuinfo_index(raw: u32, index: Option<u32>) -> u32 {
        match index {
            Some(i) => (raw & 0x00ff_ffff) | (i.min(Self::CUINFO_UNKNOWN) << 24),
            None => raw,
        }
    }
    pub fn describe(&self) -> String {
        format!("sm_{} cuinfo-index {}", self.sm(), self.cuinfo_index())
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
    }

    #[test]
    fn eflags_top_byte_is_the_cuinfo_note_index() {
        assert_eq!(
            EFlags::with_cuinfo_index(0x0600_5a04, Some(15)),
            0x0f00_5a04
        );
        assert_eq!(EFlags::with_cuinfo_index(0x0600_5a04, Some(5)), 0x0500_5a04);
    }

    #[test]
    fn eflags_top_byte_saturates_at_0xff() {
        assert_eq!(
            EFlags::with_cuinfo_index(0x0600_5a04, Some(255)),
            0xff00_5a04
        );
        assert_eq!(
            EFlags::with_cuinfo_index(0x0600_5a04, Some(338)),
            0xff00_5a04
        );
    }

    #[test]
    fn eflags_without_a_cuinfo_note_are_kept() {
        assert_eq!(EFlags::with_cuinfo_index(0x0600_5a04, None), 0x0600_5a04);
    }

    #[test]
    fn an_input_top_byte_must_name_its_cuinfo_note_or_be_0xff() {
        assert!(EFlags { raw: 0x0600_5a04 }.cuinfo_index_matches(Some(6)));
        assert!(!EFlags { raw: 0x0700_5a04 }.cuinfo_index_matches(Some(6)));
        assert!(EFlags { raw: 0xff00_5a04 }.cuinfo_index_matches(Some(6)));
        assert!(!EFlags { raw: 0x0600_5a04 }.cuinfo_index_matches(None));
    }
}
