//! The CUDA ELF vocabulary: section types, symbol types and flags, and the validated,
//! zero-copy reader every pass (and `cubin-dump`) uses.

pub mod frames;
pub mod names;
pub mod notes;
pub mod nvinfo;
pub mod read;
pub mod reg_sass;

pub use read::{Cubin, Reloc, Relocs, Section, Symbol, SymbolTable};

pub const EM_CUDA: u16 = 190;
/// e_ident[EI_OSABI] of every cubin nvcc 13.5 writes.
pub const ELFOSABI_CUDA: u8 = 0x41;
/// e_ident[EI_ABIVERSION] of every cubin nvcc 13.5 writes.
pub const CUDA_ABI_VERSION: u8 = 8;

pub const SHT_CUDA_INFO: u32 = 0x7000_0000;
pub const SHT_CUDA_CALLGRAPH: u32 = 0x7000_0001;
pub const SHT_CUDA_PROTOTYPE: u32 = 0x7000_0002;
pub const SHT_CUDA_RESOLVED_RELA: u32 = 0x7000_0003;
pub const SHT_CUDA_GLOBAL: u32 = 0x7000_0007;
pub const SHT_CUDA_GLOBAL_INIT: u32 = 0x7000_0008;
pub const SHT_CUDA_SHARED: u32 = 0x7000_000a;
pub const SHT_CUDA_RELOCINFO: u32 = 0x7000_000b;
pub const SHT_CUDA_UFT: u32 = 0x7000_000e;
pub const SHT_CUDA_UFT_ENTRY: u32 = 0x7000_0011;
pub const SHT_CUDA_UDT: u32 = 0x7000_0012;
pub const SHT_CUDA_UDT_ENTRY: u32 = 0x7000_0014;
pub const SHT_CUDA_RESERVED_SHARED: u32 = 0x7000_0015;
pub const SHT_CUDA_CAPMERC_TEXT: u32 = 0x7000_0016;
pub const SHT_CUDA_CONSTANT_B0: u32 = 0x7000_0064;
pub const SHT_CUDA_CONSTANT_B17: u32 = 0x7000_0075;
pub const SHT_CUDA_MERC_CONSTANT_USER: u32 = 0x7000_007c;
/// `.nv.merc.nv.constant.pic` (ptxas's whole programs: seen in -dlto output with NCCL's device
/// library, sm_100).
pub const SHT_CUDA_MERC_CONSTANT_PIC: u32 = 0x7000_007d;
pub const SHT_CUDA_MERC_IMAGE_HEADER_INDICES: u32 = 0x7000_0079;
pub const SHT_CUDA_MERC_RELA: u32 = 0x7000_0082;
/// A function's Mercury literal bank (`.nv.merc.nv.constant.optimizer.<fn>`, the twin of
/// `.nv.constant2.<fn>`).
pub const SHT_CUDA_MERC_CONSTANT_OPTIMIZER: u32 = 0x7000_0084;
pub const SHT_CUDA_MERC_INFO: u32 = 0x7000_0083;
pub const SHT_CUDA_MERC_SYMTAB: u32 = 0x7000_0085;
pub const SHT_CUDA_COMPAT_INFO: u32 = 0x7000_0086;
pub const SHT_CUDA_MERC_RESOLVED_RELA: u32 = 0x7000_0088;
pub const SHT_CUDA_MERC_CALLGRAPH: u32 = 0x7000_008a;
pub const SHT_CUDA_MERC_PROTOTYPE: u32 = 0x7000_008b;

pub const SHT_NULL: u32 = 0;
pub const SHT_PROGBITS: u32 = 1;
pub const SHT_SYMTAB: u32 = 2;
pub const SHT_STRTAB: u32 = 3;
pub const SHT_RELA: u32 = 4;
pub const SHT_NOTE: u32 = 7;
pub const SHT_NOBITS: u32 = 8;
pub const SHT_REL: u32 = 9;
pub const SHT_SYMTAB_SHNDX: u32 = 18;

pub const SHF_WRITE: u64 = 0x1;
pub const SHF_ALLOC: u64 = 0x2;
pub const SHF_EXECINSTR: u64 = 0x4;
pub const SHF_INFO_LINK: u64 = 0x40;
/// sm_100+: a section of the Mercury half.
pub const SHF_CUDA_MERCURY: u64 = 0x1000_0000;

pub const STT_NOTYPE: u8 = 0;
pub const STT_OBJECT: u8 = 1;
pub const STT_FUNC: u8 = 2;
pub const STT_SECTION: u8 = 3;
pub const STT_CUDA_TEXTURE: u8 = 10;
pub const STT_CUDA_SAMPLER: u8 = 11;
pub const STT_CUDA_SURFACE: u8 = 12;
/// Data objects in relocatable cubins (`__device__`, `__constant__`, `__shared__` variables).
pub const STT_CUDA_OBJECT: u8 = 13;

pub const STB_LOCAL: u8 = 0;
pub const STB_GLOBAL: u8 = 1;
pub const STB_WEAK: u8 = 2;

/// st_other bits beyond the ELF visibility (low 2 bits).
pub const STV_INTERNAL: u8 = 0x01;
pub const STO_CUDA_MANAGED: u8 = 0x04;
pub const STO_CUDA_ENTRY: u8 = 0x10;
pub const STO_CUDA_GLOBAL: u8 = 0x20;
pub const STO_CUDA_SHARED: u8 = 0x40;
pub const STO_CUDA_CONSTANT: u8 = 0x80;

/// Section types whose bytes are not in the file even though they are not SHT_NOBITS.
pub fn type_has_no_file_data(sh_type: u32) -> bool {
    matches!(
        sh_type,
        SHT_NOBITS | SHT_CUDA_GLOBAL | SHT_CUDA_SHARED | SHT_CUDA_RESERVED_SHARED
    )
}

/// Section types laid out as Elf64_Rela entries.
pub fn type_is_rela(sh_type: u32) -> bool {
    matches!(
        sh_type,
        SHT_RELA | SHT_CUDA_MERC_RELA | SHT_CUDA_RESOLVED_RELA | SHT_CUDA_MERC_RESOLVED_RELA
    )
}

/// Section types laid out as `.nv.info` attribute records.
pub fn type_is_nvinfo(sh_type: u32) -> bool {
    matches!(
        sh_type,
        SHT_CUDA_INFO | SHT_CUDA_MERC_INFO | SHT_CUDA_COMPAT_INFO
    )
}

/// The entries of a `.nv.callgraph` section: pairs of u32, where a pair (0, 0xffffffff - k)
/// opens block k (0: calls, 1: address-taken functions with their prototype, 2: indirect call
/// sites with their prototype, 3: possible targets of indirect calls). Yields (block, first,
/// second) for every other pair; a trailing partial pair is ignored.
pub fn callgraph_entries(bytes: &[u8]) -> impl Iterator<Item = (usize, u32, u32)> + '_ {
    let mut block = 0usize;
    bytes.chunks_exact(8).filter_map(move |p| {
        let a = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
        let b = u32::from_le_bytes([p[4], p[5], p[6], p[7]]);
        if a == 0 && b >= 0xffff_fffc {
            block = (0xffff_ffff - b) as usize;
            return None;
        }
        Some((block, a, b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callgraph_entries_carry_the_block_their_marker_opened() {
        let words: [u32; 9] = [1, 2, 0, 0xffff_fffe, 3, 7, 0, 0xffff_fffc, 4];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let got: Vec<_> = callgraph_entries(&bytes).collect();
        assert_eq!(got, [(0, 1, 2), (1, 3, 7)]);
    }
}
