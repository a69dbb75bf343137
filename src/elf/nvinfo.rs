//! `.nv.info`, `.nv.info.<fn>`, `.nv.merc.nv.info*` and `.nv.compat` records:
//! `u8 format, u8 attribute, u16 value-or-size[, payload]`.

use crate::diag::{Error, Result};

pub const EIFMT_NVAL: u8 = 1;
pub const EIFMT_BVAL: u8 = 2;
pub const EIFMT_HVAL: u8 = 3;
pub const EIFMT_SVAL: u8 = 4;

pub const EIATTR_PARAM_CBANK: u8 = 0x0a;
/// `.nv.compat`: the code targets an 'a' architecture.
pub const EICOMPAT_ACCELERATOR_TARGET: u8 = 0x09;
/// `.nv.compat`: on which targets the driver may use the SASS as it is.
pub const EICOMPAT_CAN_FASTPATH_FINALIZE: u8 = 0x0b;
/// `.nv.compat`: tcgen05 MMA instructions ('a' objects for sm_100/sm_103 have it).
pub const EICOMPAT_INST_TCGEN05_MMA: u8 = 0x05;
/// `.nv.compat`: the finalizer version, the last record.
pub const EICOMPAT_FINALIZER_VERSION: u8 = 0x0e;
/// Which internal target the code is for (nvlink keeps the largest).
pub const EICOMPAT_INTERNAL_TARGET: u8 = 0x0c;
/// NVSHMEM's prebuilt objects carry it; nvlink never writes it.
pub const EICOMPAT_OPPORTUNISTIC_FINALIZATION: u8 = 0x06;
/// The instruction-set class the code needs (1 plain, 2 with texture instructions): the
/// output takes the largest any input has, dead code included.
pub const EICOMPAT_ISA_CLASS: u8 = 0x02;
pub const EIATTR_EXTERNS: u8 = 0x0f;
pub const EIATTR_FRAME_SIZE: u8 = 0x11;
pub const EIATTR_MIN_STACK_SIZE: u8 = 0x12;
pub const EIATTR_KPARAM_INFO: u8 = 0x17;
pub const EIATTR_KPARAM_INFO_V2: u8 = 0x45;
pub const EIATTR_MAX_STACK_SIZE: u8 = 0x23;
pub const EIATTR_REGCOUNT: u8 = 0x2f;
pub const EIATTR_CTAIDZ_USED: u8 = 0x04;
pub const EIATTR_BINDLESS_TEXTURE_BANK: u8 = 0x15;
pub const EIATTR_BINDLESS_SURFACE_BANK: u8 = 0x16;
pub const EIATTR_CBANK_PARAM_SIZE: u8 = 0x19;
pub const EIATTR_MAXREG_COUNT: u8 = 0x1b;
pub const EIATTR_CRS_STACK_SIZE: u8 = 0x1e;
pub const EIATTR_SW_WAR: u8 = 0x36;
pub const EIATTR_NUM_BARRIERS: u8 = 0x4c;
/// The mbarriers a function uses (HVAL); 0xffff: not known statically.
pub const EIATTR_NUM_MBARRIERS: u8 = 0x38;
pub const EIATTR_NVSAL_SW_WAR: u8 = 0x6b;
pub const EIATTR_PREEXIT_USED: u8 = 0x6d;
pub const EIATTR_LANGUAGE: u8 = 0x66;
pub const EIATTR_RESERVED_SMEM_USED: u8 = 0x41;
pub const EIATTR_VRC_CTA_INIT_COUNT: u8 = 0x4a;
pub const EIATTR_SPARSE_MMA_MASK: u8 = 0x50;
pub const EIATTR_TCGEN05_1CTA_USED: u8 = 0x51;
pub const EIATTR_TCGEN05_2CTA_USED: u8 = 0x52;
pub const EIATTR_REG_RECONFIG: u8 = 0x54;
pub const EIATTR_CLUSTER_LAUNCH_CONTROL_USED: u8 = 0x62;
pub const EIATTR_GRID_ATTRIBUTES: u8 = 0x68;
/// Offsets of `cp.async.bulk` copies with `.ignore_oob` in the function's code (cub's
/// DeviceScanKernel on sm_100+): nvlink copies the record as it is, in every mode.
pub const EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS: u8 = 0x65;

/// How a kernel takes on an attribute of the functions it reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inherit {
    /// An NVAL flag: set where any reached function has it.
    Flag,
    /// The largest value.
    Max,
    /// The values or'ed together.
    Or,
}

/// The attributes a kernel takes on from every function it reaches, in executable and
/// `-preserve-relocs` links (`-r` propagates nothing), with the format of the record the
/// link writes where the kernel has none. Black-box, nvlink 13.5, sm_90: a callee's record
/// turned into each attribute code in turn, linked beside a kernel calling it; the kernel
/// gained exactly these (and NUM_MBARRIERS, added up: `merge::info`). A kernel's own record
/// of one is raised in place (SPARSE_MMA_MASK 3 and 5 give 7, VRC_CTA_INIT_COUNT 3 and 5
/// give 5, GRID_ATTRIBUTES 0x3, 0x5 and 0xc give 0xf). ptxas writes CLUSTER_LAUNCH_CONTROL_USED
/// for `clusterlaunchcontrol.try_cancel` (sm_100+) and GRID_ATTRIBUTES for `multimem` loads
/// (0x4) and stores or reductions (0xc).
pub const INHERITED: &[(u8, Inherit, u8)] = &[
    (EIATTR_CTAIDZ_USED, Inherit::Flag, EIFMT_NVAL),
    (EIATTR_RESERVED_SMEM_USED, Inherit::Flag, EIFMT_NVAL),
    (EIATTR_VRC_CTA_INIT_COUNT, Inherit::Max, EIFMT_BVAL),
    (EIATTR_NUM_BARRIERS, Inherit::Max, EIFMT_BVAL),
    (EIATTR_SPARSE_MMA_MASK, Inherit::Or, EIFMT_HVAL),
    (EIATTR_TCGEN05_1CTA_USED, Inherit::Flag, EIFMT_NVAL),
    (EIATTR_TCGEN05_2CTA_USED, Inherit::Flag, EIFMT_NVAL),
    (EIATTR_REG_RECONFIG, Inherit::Flag, EIFMT_NVAL),
    (
        EIATTR_CLUSTER_LAUNCH_CONTROL_USED,
        Inherit::Flag,
        EIFMT_NVAL,
    ),
    (EIATTR_GRID_ATTRIBUTES, Inherit::Or, EIFMT_HVAL),
];

/// The place of `attr` in `INHERITED`, if it is there.
pub fn inherited_place(attr: u8) -> Option<usize> {
    INHERITED.iter().position(|e| e.0 == attr)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'data> {
    /// EIFMT_NVAL: no value.
    None,
    /// EIFMT_BVAL: one byte.
    Byte(u8),
    /// EIFMT_HVAL: two bytes.
    Half(u16),
    /// EIFMT_SVAL: a sized payload.
    Bytes(&'data [u8]),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'data> {
    /// Byte offset of the record inside its section.
    pub offset: usize,
    pub format: u8,
    pub attr: u8,
    pub value: Value<'data>,
}

pub fn parse_records(bytes: &[u8]) -> Result<Vec<Record<'_>>> {
    Ok(records(bytes).collect::<std::result::Result<_, _>>()?)
}

/// The records in reading order; the first that does not parse ends them with its error.
pub fn records(bytes: &[u8]) -> Records<'_> {
    Records { bytes, at: 0 }
}

pub struct Records<'a> {
    bytes: &'a [u8],
    /// The next record's offset; past the end after an error.
    at: usize,
}

impl<'a> Iterator for Records<'a> {
    type Item = std::result::Result<Record<'a>, Damage>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (bytes, i) = (self.bytes, self.at);
        if i >= bytes.len() {
            return None;
        }
        let r = record_at(bytes, i);
        self.at = match &r {
            Ok((_, next)) => *next,
            Err(_) => usize::MAX,
        };
        Some(r.map(|(rec, _)| rec))
    }
}

/// A record that does not parse: where it is and what is wrong. (Small, and made into an
/// `Error` only when it is one: every record of a link is read several times, and a
/// result the size of an `Error` was a tenth of reading one.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damage {
    offset: usize,
    what: Damaged,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Damaged {
    /// The header is cut short, with this many bytes left.
    Header(usize),
    /// An SVAL payload of this size runs past the end.
    Payload(u16),
    Format(u8),
}

impl From<Damage> for Error {
    #[cold]
    #[inline(never)]
    fn from(d: Damage) -> Error {
        let i = d.offset;
        Error::new(match d.what {
            Damaged::Header(left) => {
                format!("record at {i:#x}: truncated header ({left} bytes left)")
            }
            Damaged::Payload(half) => format!(
                "record at {i:#x}: payload of {half:#x} bytes runs past the end of the section"
            ),
            Damaged::Format(f) => format!("record at {i:#x}: unknown format {f:#x}"),
        })
    }
}

/// The record at `i` and the next one's offset. (Every record of a link passes here, several
/// times.)
#[inline]
fn record_at(bytes: &[u8], i: usize) -> std::result::Result<(Record<'_>, usize), Damage> {
    let Some(head) = bytes.get(i..i + 4) else {
        return Err(Damage {
            offset: i,
            what: Damaged::Header(bytes.len() - i),
        });
    };
    let (format, attr) = (head[0], head[1]);
    let half = u16::from_le_bytes([head[2], head[3]]);
    let (value, next) = match format {
        EIFMT_NVAL => (Value::None, i + 4),
        EIFMT_BVAL => (Value::Byte(head[2]), i + 4),
        EIFMT_HVAL => (Value::Half(half), i + 4),
        EIFMT_SVAL => {
            let end = i + 4 + half as usize;
            let Some(payload) = bytes.get(i + 4..end) else {
                return Err(Damage {
                    offset: i,
                    what: Damaged::Payload(half),
                });
            };
            (Value::Bytes(payload), end)
        }
        _ => {
            return Err(Damage {
                offset: i,
                what: Damaged::Format(format),
            })
        }
    };
    Ok((
        Record {
            offset: i,
            format,
            attr,
            value,
        },
        next,
    ))
}

/// Attributes a function's own `.nv.info.<fn>` never holds, with why: no toolkit writes
/// them there, nvlink drops them, and their payloads (a symbol index, for some) are nothing
/// this linker could copy faithfully. A record of one is damage.
pub const NOT_IN_FUNCTION_INFO: &[(u8, &str)] = &[
    (0x00, "EIATTR_ERROR"),
    (
        0x02,
        "a texture-reference attribute (CUDA 12 removed texture references)",
    ),
    (
        0x06,
        "a texture-reference attribute (CUDA 12 removed texture references)",
    ),
    (
        0x07,
        "a texture-reference attribute (CUDA 12 removed texture references)",
    ),
    (
        0x08,
        "a texture-reference attribute (CUDA 12 removed texture references)",
    ),
    (
        0x09,
        "a texture-reference attribute (CUDA 12 removed texture references)",
    ),
    (
        0x13,
        "a texture-reference attribute (CUDA 12 removed texture references)",
    ),
    (
        0x14,
        "a texture-reference attribute (CUDA 12 removed texture references)",
    ),
    (EIATTR_FRAME_SIZE, "only the global .nv.info holds it"),
    (EIATTR_MIN_STACK_SIZE, "only the global .nv.info holds it"),
    (EIATTR_MAX_STACK_SIZE, "only the global .nv.info holds it"),
    (EIATTR_REGCOUNT, "only the global .nv.info holds it"),
];

/// Attributes nvlink does not link as it reads them (found by giving nvlink 13.5 each
/// attribute code in place of a function's record): it drops these, where cubin-ld, not
/// knowing what they stand for, would copy them. No 13.x toolkit object holds one.
/// (EIATTR_KPARAM_INFO_V2, 0x45, which ptxas writes for kernels with more than 4 KiB of
/// parameters on every target, nvlink copies in every mode at the size ptxas writes; it
/// drops one of another size, which `SHAPES` refuses.)
pub const NOT_REPRODUCED: &[(u8, &str)] = &[(0x26, "nvlink drops it"), (0x3b, "nvlink drops it")];

/// The shape of a record: its format, and for EIFMT_SVAL its payload's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Format(u8),
    /// EIFMT_SVAL of exactly this many bytes.
    Sized(usize),
    /// EIFMT_SVAL of whole u32 words.
    Words,
}

/// The shapes of the attributes whose values the link reads, and of those nvlink drops at
/// another size (KPARAM_INFO, LANGUAGE): a record of another shape would be read as
/// something else (as every toolkit object writes them; `testdata/`).
pub const SHAPES: &[(u8, Shape)] = &[
    (EIATTR_CTAIDZ_USED, Shape::Format(EIFMT_NVAL)),
    (EIATTR_PARAM_CBANK, Shape::Sized(8)),
    (EIATTR_EXTERNS, Shape::Words),
    (EIATTR_FRAME_SIZE, Shape::Sized(8)),
    (EIATTR_MIN_STACK_SIZE, Shape::Sized(8)),
    (EIATTR_MAX_STACK_SIZE, Shape::Sized(8)),
    (EIATTR_REGCOUNT, Shape::Sized(8)),
    (EIATTR_BINDLESS_TEXTURE_BANK, Shape::Format(EIFMT_BVAL)),
    (EIATTR_BINDLESS_SURFACE_BANK, Shape::Format(EIFMT_BVAL)),
    (EIATTR_KPARAM_INFO, Shape::Sized(12)),
    (EIATTR_KPARAM_INFO_V2, Shape::Sized(12)),
    (EIATTR_CBANK_PARAM_SIZE, Shape::Format(EIFMT_HVAL)),
    (EIATTR_MAXREG_COUNT, Shape::Format(EIFMT_HVAL)),
    (EIATTR_CRS_STACK_SIZE, Shape::Sized(4)),
    (EIATTR_SW_WAR, Shape::Sized(4)),
    (EIATTR_NUM_BARRIERS, Shape::Format(EIFMT_BVAL)),
    (EIATTR_LANGUAGE, Shape::Sized(4)),
    (EIATTR_NVSAL_SW_WAR, Shape::Format(EIFMT_HVAL)),
    (EIATTR_PREEXIT_USED, Shape::Format(EIFMT_BVAL)),
    (EIATTR_RESERVED_SMEM_USED, Shape::Format(EIFMT_NVAL)),
    (EIATTR_VRC_CTA_INIT_COUNT, Shape::Format(EIFMT_BVAL)),
    (EIATTR_SPARSE_MMA_MASK, Shape::Format(EIFMT_HVAL)),
    (EIATTR_TCGEN05_1CTA_USED, Shape::Format(EIFMT_NVAL)),
    (EIATTR_TCGEN05_2CTA_USED, Shape::Format(EIFMT_NVAL)),
    (EIATTR_REG_RECONFIG, Shape::Format(EIFMT_NVAL)),
    (
        EIATTR_CLUSTER_LAUNCH_CONTROL_USED,
        Shape::Format(EIFMT_NVAL),
    ),
    (EIATTR_GRID_ATTRIBUTES, Shape::Format(EIFMT_HVAL)),
];

impl Record<'_> {
    /// What is wrong with this record's shape, if anything (for the attributes in `SHAPES`).
    /// (Every record of a link is checked as it is loaded: the words are made only for one
    /// that is wrong.)
    #[inline]
    pub fn misshapen(&self) -> Option<String> {
        let want = by_attr(SHAPES, &SHAPE_OF, self.attr)?;
        (!self.has_its_shape()).then(|| self.why_misshapen(want))
    }

    /// Whether the record has its attribute's shape (`SHAPES`; any, for one not there).
    #[inline]
    fn has_its_shape(&self) -> bool {
        let Some(want) = by_attr(SHAPES, &SHAPE_OF, self.attr) else {
            return true;
        };
        match (want, self.value) {
            (Shape::Format(f), _) => self.format == f,
            (Shape::Sized(n), Value::Bytes(p)) => p.len() == n,
            (Shape::Words, Value::Bytes(p)) => p.len() % 4 == 0,
            (Shape::Sized(_) | Shape::Words, _) => false,
        }
    }

    #[cold]
    #[inline(never)]
    fn why_misshapen(&self, want: Shape) -> String {
        let got = format_name(self.format);
        match (want, self.value) {
            (Shape::Format(f), _) => format!("{got}, where it is {}", format_name(f)),
            (Shape::Sized(n), Value::Bytes(p)) => format!("{} bytes, where it has {n}", p.len()),
            (Shape::Words, Value::Bytes(p)) => {
                format!("{} bytes, where it has whole 4-byte words", p.len())
            }
            (Shape::Sized(_) | Shape::Words, _) => format!("{got}, where it is SVAL"),
        }
    }
}

/// Why cubin-ld refuses a record of `attr`, if it does (`NOT_REPRODUCED`).
pub fn not_reproduced(attr: u8) -> Option<&'static str> {
    by_attr(NOT_REPRODUCED, &NOT_REPRODUCED_AT, attr)
}

/// Why a function's `.nv.info.<fn>` may not hold a record of `attr`, if it may not.
pub fn not_in_function_info(attr: u8) -> Option<&'static str> {
    by_attr(NOT_IN_FUNCTION_INFO, &NOT_IN_FUNCTION_INFO_AT, attr)
}

/// What a table of attributes says of `attr`, found through the table's index (`at`). Every
/// record of a link is checked against these tables as it is loaded.
fn by_attr<T: Copy>(table: &[(u8, T)], at: &[u8; 256], attr: u8) -> Option<T> {
    table.get(at[attr as usize] as usize).map(|&(_, t)| t)
}

/// A table of attributes' index: by attribute code, the position of its first entry
/// (`u8::MAX`: none).
const fn index_by_attr<T>(table: &[(u8, T)]) -> [u8; 256] {
    assert!(table.len() < u8::MAX as usize);
    let mut at = [u8::MAX; 256];
    let mut i = table.len();
    // (Backwards, so that the first entry of an attribute is the one kept.)
    while i > 0 {
        i -= 1;
        at[table[i].0 as usize] = i as u8;
    }
    at
}

static SHAPE_OF: [u8; 256] = index_by_attr(SHAPES);
static NOT_REPRODUCED_AT: [u8; 256] = index_by_attr(NOT_REPRODUCED);
static NOT_IN_FUNCTION_INFO_AT: [u8; 256] = index_by_attr(NOT_IN_FUNCTION_INFO);

/// What loading refuses a record for, by attribute (`LOAD_*` bits), made from the tables
/// above: checking a record that passes (nearly every one) is then one look-up, and the
/// tables are read for the words only when one does not.
static LOAD_CHECKS: [u8; 256] = load_checks();

/// Not an attribute cubin-ld links.
const LOAD_UNKNOWN: u8 = 1;
/// In `NOT_REPRODUCED`.
const LOAD_REFUSED: u8 = 2;
/// In `NOT_IN_FUNCTION_INFO`.
const LOAD_NOT_IN_FUNCTION: u8 = 4;

const fn load_checks() -> [u8; 256] {
    let mut checks = [0u8; 256];
    let mut a = 0;
    while a < 256 {
        let attr = a as u8;
        let mut c = 0;
        if !is_linked(attr) {
            c |= LOAD_UNKNOWN;
        }
        if NOT_REPRODUCED_AT[a] != u8::MAX {
            c |= LOAD_REFUSED;
        }
        if NOT_IN_FUNCTION_INFO_AT[a] != u8::MAX {
            c |= LOAD_NOT_IN_FUNCTION;
        }
        checks[a] = c;
        a += 1;
    }
    checks
}

impl Record<'_> {
    /// Whether loading takes this record as it is, but for the symbols it names: a known
    /// attribute, not refused, one a function's own `.nv.info.<fn>` may hold where
    /// `in_function_info`, and of its shape. (`false`: `attr_name`, `not_reproduced`,
    /// `not_in_function_info` and `misshapen` say why.)
    #[inline]
    pub fn loads_plainly(&self, in_function_info: bool) -> bool {
        let refused = if in_function_info {
            LOAD_UNKNOWN | LOAD_REFUSED | LOAD_NOT_IN_FUNCTION
        } else {
            LOAD_UNKNOWN | LOAD_REFUSED
        };
        LOAD_CHECKS[self.attr as usize] & refused == 0 && self.has_its_shape()
    }
}

pub fn format_name(f: u8) -> &'static str {
    match f {
        EIFMT_NVAL => "NVAL",
        EIFMT_BVAL => "BVAL",
        EIFMT_HVAL => "HVAL",
        EIFMT_SVAL => "SVAL",
        _ => "?",
    }
}

/// How an attribute's payload is laid out, so that symbol indices can be printed as names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// `{u32 symbol, u32 value}` (global `.nv.info` per-function records).
    SymbolValue,
    /// A list of u32 symbol indices.
    Symbols,
    /// `{u32 section symbol, u16 offset, u16 size}`.
    ParamCbank,
    /// Anything else: u32 words (or bytes when not a multiple of 4).
    Words,
}

pub fn payload_kind(attr: u8, len: usize) -> Payload {
    match attr {
        EIATTR_FRAME_SIZE | EIATTR_MIN_STACK_SIZE | EIATTR_MAX_STACK_SIZE | EIATTR_REGCOUNT
            if len == 8 =>
        {
            Payload::SymbolValue
        }
        EIATTR_EXTERNS if len % 4 == 0 => Payload::Symbols,
        EIATTR_PARAM_CBANK if len == 8 => Payload::ParamCbank,
        _ => Payload::Words,
    }
}

/// EIATTR names by code, 0x01–0x5a (from public tables).
const ATTR_NAMES: [&str; 0x5b] = [
    "EIATTR_ERROR",
    "EIATTR_PAD",
    "EIATTR_IMAGE_SLOT",
    "EIATTR_JUMPTABLE_RELOCS",
    "EIATTR_CTAIDZ_USED",
    "EIATTR_MAX_THREADS",
    "EIATTR_IMAGE_OFFSET",
    "EIATTR_IMAGE_SIZE",
    "EIATTR_TEXTURE_NORMALIZED",
    "EIATTR_SAMPLER_INIT",
    "EIATTR_PARAM_CBANK",
    "EIATTR_SMEM_PARAM_OFFSETS",
    "EIATTR_CBANK_PARAM_OFFSETS",
    "EIATTR_SYNC_STACK",
    "EIATTR_TEXID_SAMPID_MAP",
    "EIATTR_EXTERNS",
    "EIATTR_REQNTID",
    "EIATTR_FRAME_SIZE",
    "EIATTR_MIN_STACK_SIZE",
    "EIATTR_SAMPLER_FORCE_UNNORMALIZED",
    "EIATTR_BINDLESS_IMAGE_OFFSETS",
    "EIATTR_BINDLESS_TEXTURE_BANK",
    "EIATTR_BINDLESS_SURFACE_BANK",
    "EIATTR_KPARAM_INFO",
    "EIATTR_SMEM_PARAM_SIZE",
    "EIATTR_CBANK_PARAM_SIZE",
    "EIATTR_QUERY_NUMATTRIB",
    "EIATTR_MAXREG_COUNT",
    "EIATTR_EXIT_INSTR_OFFSETS",
    "EIATTR_S2RCTAID_INSTR_OFFSETS",
    "EIATTR_CRS_STACK_SIZE",
    "EIATTR_NEED_CNP_WRAPPER",
    "EIATTR_NEED_CNP_PATCH",
    "EIATTR_EXPLICIT_CACHING",
    "EIATTR_ISTYPEP_USED",
    "EIATTR_MAX_STACK_SIZE",
    "EIATTR_SUQ_USED",
    "EIATTR_LD_CACHEMOD_INSTR_OFFSETS",
    "EIATTR_LOAD_CACHE_REQUEST",
    "EIATTR_ATOM_SYS_INSTR_OFFSETS",
    "EIATTR_COOP_GROUP_INSTR_OFFSETS",
    "EIATTR_COOP_GROUP_MASK_REGIDS",
    "EIATTR_SW1850030_WAR",
    "EIATTR_WMMA_USED",
    "EIATTR_HAS_PRE_V10_OBJECT",
    "EIATTR_ATOMF16_EMUL_INSTR_OFFSETS",
    "EIATTR_ATOM16_EMUL_INSTR_REG_MAP",
    "EIATTR_REGCOUNT",
    "EIATTR_SW2393858_WAR",
    "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS",
    "EIATTR_SHARED_SCRATCH",
    "EIATTR_STATISTICS",
    "EIATTR_INDIRECT_BRANCH_TARGETS",
    "EIATTR_SW2861232_WAR",
    "EIATTR_SW_WAR",
    "EIATTR_CUDA_API_VERSION",
    "EIATTR_NUM_MBARRIERS",
    "EIATTR_MBARRIER_INSTR_OFFSETS",
    "EIATTR_COROUTINE_RESUME_ID_OFFSETS",
    "EIATTR_SAM_REGION_STACK_SIZE",
    "EIATTR_PER_REG_TARGET_PERF_STATS",
    "EIATTR_CTA_PER_CLUSTER",
    "EIATTR_EXPLICIT_CLUSTER",
    "EIATTR_MAX_CLUSTER_RANK",
    "EIATTR_INSTR_REG_MAP",
    "EIATTR_RESERVED_SMEM_USED",
    "EIATTR_RESERVED_SMEM_0_SIZE",
    "EIATTR_UCODE_SECTION_DATA",
    "EIATTR_UNUSED_LOAD_BYTE_OFFSET",
    "EIATTR_KPARAM_INFO_V2",
    "EIATTR_SYSCALL_OFFSETS",
    "EIATTR_SW_WAR_MEMBAR_SYS_INSTR_OFFSETS",
    "EIATTR_GRAPHICS_GLOBAL_CBANK",
    "EIATTR_SHADER_TYPE",
    "EIATTR_VRC_CTA_INIT_COUNT",
    "EIATTR_TOOLS_PATCH_FUNC",
    "EIATTR_NUM_BARRIERS",
    "EIATTR_TEXMODE_INDEPENDENT",
    "EIATTR_PERF_STATISTICS",
    "EIATTR_AT_ENTRY_FRAGMENTS",
    "EIATTR_SPARSE_MMA_MASK",
    "EIATTR_TCGEN05_1CTA_USED",
    "EIATTR_TCGEN05_2CTA_USED",
    "EIATTR_GEN_ERRBAR_AT_EXIT",
    "EIATTR_REG_RECONFIG",
    "EIATTR_ANNOTATIONS",
    "EIATTR_SANITIZE",
    "EIATTR_STACK_CANARY_TRAP_OFFSETS",
    "EIATTR_STUB_FUNCTION_KIND",
    "EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS",
    "EIATTR_MERCURY_FINALIZER_OPTIONS",
];

/// EIATTR names. 0x01–0x5a from public tables; later ones as `cuobjdump -elf` (13.5) prints
/// them (given records of each code), or, for 0x5f, as older public tables name it.
pub fn attr_name(a: u8) -> Option<&'static str> {
    Some(match a {
        0x5b => "EIATTR_BLOCKS_ARE_CLUSTERS",
        0x5c => "EIATTR_SANITIZE",
        0x5d => "EIATTR_SYSCALLS_FALLBACK",
        0x5e => "EIATTR_CUDA_REQ",
        0x5f => "EIATTR_MERCURY_ISA_VERSION",
        0x61 => "EIATTR_RTCORE_ENTRY",
        EIATTR_CLUSTER_LAUNCH_CONTROL_USED => "EIATTR_CLUSTER_LAUNCH_CONTROL_USED",
        0x64 => "EIATTR_MIN_PER_CTA_MEMORY_SIZE",
        EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS => {
            "EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS"
        }
        EIATTR_LANGUAGE => "EIATTR_LANGUAGE",
        EIATTR_GRID_ATTRIBUTES => "EIATTR_GRID_ATTRIBUTES",
        0x69 => "EIATTR_STACK_OFFSET",
        0x6a => "EIATTR_RT_LIVESTATE_SASS_MAP",
        EIATTR_NVSAL_SW_WAR => "EIATTR_NVSAL_SW_WAR",
        0x6c => "EIATTR_INSTR_OFFSETS",
        EIATTR_PREEXIT_USED => "EIATTR_PREEXIT_USED",
        a => return ATTR_NAMES.get(a as usize).copied(),
    })
}

/// Whether the link knows what nvlink does with records of `a` (every one it names up to
/// 0x5a, and those later ones toolkit objects were seen to hold and nvlink was probed
/// with); the rest it refuses.
pub const fn is_linked(a: u8) -> bool {
    matches!(
        a,
        0x5f | EIATTR_CLUSTER_LAUNCH_CONTROL_USED
            | EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS
            | EIATTR_LANGUAGE
            | EIATTR_GRID_ATTRIBUTES
            | EIATTR_NVSAL_SW_WAR
            | EIATTR_PREEXIT_USED
    ) || (a as usize) < ATTR_NAMES.len()
}

/// `.nv.compat` attribute names as `cuobjdump -elf` prints them (0x06: NVSHMEM's prebuilt
/// objects have it; nvlink never writes it). 0x07 and 0x0d are records cuobjdump itself
/// prints as "unknown Attribute"; cubin-ld names them by number.
pub fn compat_name(a: u8) -> Option<&'static str> {
    Some(match a {
        0x02 => "EICOMPAT_ATTR_ISA_CLASS",
        0x03 => "EICOMPAT_ATTR_INST_TENSORMAP_V1",
        0x05 => "EICOMPAT_ATTR_INST_TCGEN05_MMA",
        0x06 => "EICOMPAT_ATTR_ENABLE_OPPORTUNISTIC_FINALIZATION",
        0x07 => "EICOMPAT_ATTR_07",
        0x09 => "EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET",
        0x0b => "EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE",
        0x0c => "EICOMPAT_ATTR_CUDA_INTERNAL_TARGET",
        0x0d => "EICOMPAT_ATTR_0D",
        0x0e => "EICOMPAT_ATTR_FINALIZER_VERSION",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attribute_table_looked_up_by_index_says_what_its_first_entry_says() {
        fn first<T: Copy>(table: &[(u8, T)], a: u8) -> Option<T> {
            table.iter().find(|e| e.0 == a).map(|e| e.1)
        }
        for a in 0..=u8::MAX {
            assert!(!is_linked(a) || attr_name(a).is_some(), "{a:#x}");
            assert_eq!(by_attr(SHAPES, &SHAPE_OF, a), first(SHAPES, a));
            assert_eq!(not_reproduced(a), first(NOT_REPRODUCED, a));
            assert_eq!(not_in_function_info(a), first(NOT_IN_FUNCTION_INFO, a));
        }
    }

    #[test]
    fn a_record_loads_plainly_only_where_no_check_has_words_for_it() {
        for a in 0..=u8::MAX {
            for (format, value) in [
                (EIFMT_NVAL, Value::None),
                (EIFMT_BVAL, Value::Byte(1)),
                (EIFMT_HVAL, Value::Half(1)),
                (EIFMT_SVAL, Value::Bytes(&[0; 4])),
                (EIFMT_SVAL, Value::Bytes(&[0; 8])),
                (EIFMT_SVAL, Value::Bytes(&[0; 12])),
                (EIFMT_SVAL, Value::Bytes(&[0; 6])),
            ] {
                let r = Record {
                    offset: 0,
                    format,
                    attr: a,
                    value,
                };
                for in_function_info in [false, true] {
                    let words = !is_linked(a)
                        || not_reproduced(a).is_some()
                        || (in_function_info && not_in_function_info(a).is_some())
                        || r.misshapen().is_some();
                    assert_eq!(r.loads_plainly(in_function_info), !words, "{a:#x} {r:?}");
                }
            }
        }
    }

    #[test]
    fn the_attributes_the_link_names_have_their_names() {
        for (a, n) in [
            (EIATTR_PARAM_CBANK, "EIATTR_PARAM_CBANK"),
            (EIATTR_EXTERNS, "EIATTR_EXTERNS"),
            (EIATTR_FRAME_SIZE, "EIATTR_FRAME_SIZE"),
            (EIATTR_MIN_STACK_SIZE, "EIATTR_MIN_STACK_SIZE"),
            (EIATTR_KPARAM_INFO, "EIATTR_KPARAM_INFO"),
            (EIATTR_MAX_STACK_SIZE, "EIATTR_MAX_STACK_SIZE"),
            (EIATTR_REGCOUNT, "EIATTR_REGCOUNT"),
            (EIATTR_CTAIDZ_USED, "EIATTR_CTAIDZ_USED"),
            (EIATTR_BINDLESS_TEXTURE_BANK, "EIATTR_BINDLESS_TEXTURE_BANK"),
            (EIATTR_BINDLESS_SURFACE_BANK, "EIATTR_BINDLESS_SURFACE_BANK"),
            (EIATTR_CBANK_PARAM_SIZE, "EIATTR_CBANK_PARAM_SIZE"),
            (EIATTR_MAXREG_COUNT, "EIATTR_MAXREG_COUNT"),
            (EIATTR_CRS_STACK_SIZE, "EIATTR_CRS_STACK_SIZE"),
            (EIATTR_SW_WAR, "EIATTR_SW_WAR"),
            (EIATTR_NUM_BARRIERS, "EIATTR_NUM_BARRIERS"),
            (EIATTR_NVSAL_SW_WAR, "EIATTR_NVSAL_SW_WAR"),
            (EIATTR_PREEXIT_USED, "EIATTR_PREEXIT_USED"),
        ] {
            assert_eq!(attr_name(a), Some(n), "{a:#x}");
        }
    }

    #[test]
    fn records_of_every_format_parse_in_sequence() {
        // HVAL 0x5f = 0x101; SVAL REGCOUNT {sym 0xc, 24}; NVAL; BVAL 1.
        let bytes = [
            0x03, 0x5f, 0x01, 0x01, 0x04, 0x2f, 0x08, 0x00, 0x0c, 0, 0, 0, 24, 0, 0, 0, 0x01, 0x04,
            0, 0, 0x02, 0x15, 1, 0,
        ];
        let r = parse_records(&bytes).unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(r[0].value, Value::Half(0x101));
        assert_eq!(r[1].value, Value::Bytes(&[0x0c, 0, 0, 0, 24, 0, 0, 0]));
        assert_eq!(r[2].value, Value::None);
        assert_eq!(r[3].value, Value::Byte(1));
    }

    #[test]
    fn a_payload_past_the_end_is_an_error_not_a_panic() {
        let e = parse_records(&[0x04, 0x2f, 0x40, 0x00, 1, 2]).unwrap_err();
        assert!(e.to_string().contains("runs past the end"), "{e}");
        assert!(parse_records(&[0x04, 0x2f]).is_err());
        assert!(parse_records(&[0x09, 0x2f, 0, 0]).is_err());
    }
}
