//! Fatbin containers: the device code nvcc wraps into host objects (`__nv_relfatbin`) and
//! `.fatbin` files. A container is a 16-byte header and a run of entries, each with its own
//! header (kind, SM, flags, sizes) and a payload that may be zstd- or LZ4-compressed.
//! `fatbinary --concat` groups pack several cubins into one compressed payload.

use crate::diag::{Error, Result};
use std::borrow::Cow;

pub const MAGIC: u32 = 0xBA55_ED50;
const CONTAINER_HEADER: usize = 16;
const ENTRY_HEADER: usize = 0x40;

pub const KIND_PTX: u16 = 1;
pub const KIND_ELF: u16 = 2;
pub const KIND_NVVM: u16 = 8;
pub const KIND_CONCAT: u16 = 0x100;

const FLAG_LZ4: u64 = 0x2000;
/// Larger claimed payloads are refused rather than allocated (a damaged or hostile header).
const MAX_PAYLOAD: usize = 1 << 30;
const FLAG_ZSTD: u64 = 0x8000;
const FLAG_ACCELERATED: u64 = 0x10_0000;
const FLAG_FAMILY: u64 = 0x20_0000;

/// One entry of a container, its payload still as stored.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub kind: u16,
    pub sm: u32,
    pub flags: u64,
    /// The stored payload (compressed when `uncompressed_size` is non-zero).
    stored: &'a [u8],
    compressed_size: u32,
    uncompressed_size: u64,
    /// The flags that say how `stored` is compressed (a concat group's, for its members).
    stored_flags: u64,
    /// For PTX entries: the ptxas options fatbinary recorded.
    pub options: Option<&'a [u8]>,
    /// For members of a concat group: (offset, size) inside the group's payload.
    member: Option<(usize, usize)>,
}

impl Entry<'_> {
    pub fn is_accelerated(&self) -> bool {
        self.flags & FLAG_ACCELERATED != 0
    }
    pub fn is_family(&self) -> bool {
        self.flags & FLAG_FAMILY != 0
    }

    /// What the entry holds, the way nvlink's messages name it.
    pub fn describe(&self) -> String {
        let v = if self.is_accelerated() {
            "a"
        } else if self.is_family() {
            "f"
        } else {
            ""
        };
        match self.kind {
            KIND_PTX => format!("compute_{}{v}", self.sm),
            KIND_NVVM => format!("lto_{}{v}", self.sm),
            _ => format!("sm_{}{v}", self.sm),
        }
    }
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
}

pub fn has_magic(bytes: &[u8]) -> bool {
    u32_at(bytes, 0) == Some(MAGIC)
}

/// The entries of the first container in `bytes` (nvlink reads only the first one: the
/// containers `ld -r` concatenates after it are ignored). Concat groups are expanded into
/// their members, which all share the group's payload.
/// The first container's bytes, header and entries (all of `bytes` where it is damaged:
/// `first_container` has said so by then).
pub fn first_container_bytes(bytes: &[u8]) -> &[u8] {
    let start = u16_at(bytes, 6).map_or(CONTAINER_HEADER, |h| (h as usize).max(CONTAINER_HEADER));
    u64_at(bytes, 8)
        .and_then(|b| usize::try_from(b).ok())
        .and_then(|b| bytes.get(..start.checked_add(b)?))
        .unwrap_or(bytes)
}

pub fn first_container(bytes: &[u8]) -> Result<Vec<Entry<'_>>> {
    let bad = |what: &str| Error::new(format!("damaged fatbin: {what}"));
    if !has_magic(bytes) {
        return Err(bad("no fatbin magic"));
    }
    let header_size = u16_at(bytes, 6).ok_or_else(|| bad("truncated header"))? as usize;
    let body = u64_at(bytes, 8).ok_or_else(|| bad("truncated header"))?;
    let start = header_size.max(CONTAINER_HEADER);
    let end = usize::try_from(body)
        .ok()
        .and_then(|b| start.checked_add(b))
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| bad("container runs past the end of its data"))?;
    let mut entries = Vec::new();
    let mut at = start;
    while at + ENTRY_HEADER <= end {
        let h = &bytes[at..end];
        let kind = u16_at(h, 0).unwrap_or(0);
        let hsize = u32_at(h, 4).unwrap_or(0) as usize;
        let psize = u64_at(h, 8).unwrap_or(u64::MAX);
        if hsize < ENTRY_HEADER {
            return Err(bad(&format!(
                "entry at 0x{at:x} has a header size of {hsize}"
            )));
        }
        let stored = usize::try_from(psize)
            .ok()
            .and_then(|p| hsize.checked_add(p))
            .and_then(|e| h.get(hsize..e))
            .ok_or_else(|| bad(&format!("entry at 0x{at:x} runs past the container")))?;
        let options_at = u32_at(h, 0x14).unwrap_or(0) as usize;
        let options = if options_at != 0 {
            let off = u32_at(h, options_at).unwrap_or(0) as usize;
            let len = u32_at(h, options_at + 4).unwrap_or(0) as usize;
            off.checked_add(len).and_then(|e| h.get(off..e))
        } else {
            None
        };
        let entry = Entry {
            kind,
            sm: u32_at(h, 0x1c).unwrap_or(0),
            flags: u64_at(h, 0x28).unwrap_or(0),
            stored,
            compressed_size: u32_at(h, 0x10).unwrap_or(0),
            uncompressed_size: u64_at(h, 0x38).unwrap_or(0),
            stored_flags: u64_at(h, 0x28).unwrap_or(0),
            options,
            member: None,
        };
        if kind == KIND_CONCAT {
            // The options record holds `count, table size`, then one 64-byte entry header per
            // member whose "header size" field is the member's offset in the payload.
            let count = u32_at(h, options_at).unwrap_or(0) as usize;
            for i in 0..count {
                let m = options_at + 8 + i * ENTRY_HEADER;
                let mh = h
                    .get(m..m + ENTRY_HEADER)
                    .ok_or_else(|| bad("concat group table runs past its entry"))?;
                entries.push(Entry {
                    kind: u16_at(mh, 0).unwrap_or(0),
                    sm: u32_at(mh, 0x1c).unwrap_or(0),
                    flags: u64_at(mh, 0x28).unwrap_or(0),
                    options: None,
                    member: Some((
                        u32_at(mh, 4).unwrap_or(0) as usize,
                        u64_at(mh, 8).unwrap_or(0) as usize,
                    )),
                    ..entry.clone()
                });
            }
        } else {
            entries.push(entry);
        }
        at += hsize + stored.len();
    }
    Ok(entries)
}

/// How many bytes the link's compressed entries may decompress to, together: a few small
/// inputs whose headers claim gigabytes (a decompression bomb) end the link with an error
/// naming one of them, not with the machine out of memory. The limit is half the machine's
/// memory: a real link needing more could not run anyway (it holds its inputs, the merged
/// module and the output at once).
#[derive(Debug)]
pub struct Budget {
    left: std::sync::atomic::AtomicU64,
}

impl Budget {
    pub fn new(bytes: u64) -> Budget {
        Budget {
            left: std::sync::atomic::AtomicU64::new(bytes),
        }
    }

    /// Half the machine's physical memory, or of the process's address space where a limit
    /// (`ulimit -v`) makes that smaller.
    pub fn of_this_machine() -> Budget {
        // SAFETY: plain queries.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        let bytes = u64::try_from(pages)
            .ok()
            .zip(u64::try_from(page).ok())
            .map_or(u64::MAX, |(n, p)| n.saturating_mul(p));
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given.
        let address_space = if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0
            && limit.rlim_cur != libc::RLIM_INFINITY
        {
            limit.rlim_cur
        } else {
            u64::MAX
        };
        Budget::new(bytes.min(address_space) / 2)
    }

    /// Takes `n` bytes from the budget; false (taking nothing) where too few are left.
    fn take(&self, n: u64) -> bool {
        use std::sync::atomic::Ordering;
        self.left
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                left.checked_sub(n)
            })
            .is_ok()
    }
}

/// The entry's payload, decompressed when it is stored compressed.
pub fn payload<'a>(e: &Entry<'a>, budget: &Budget) -> Result<Cow<'a, [u8]>> {
    let whole: Cow<'a, [u8]> = if e.uncompressed_size == 0 {
        Cow::Borrowed(e.stored)
    } else {
        let size = usize::try_from(e.uncompressed_size)
            .ok()
            .filter(|&s| s <= MAX_PAYLOAD)
            .ok_or_else(|| Error::new("fatbin entry claims an absurd uncompressed size"))?;
        let input = e
            .stored
            .get(..e.compressed_size as usize)
            .unwrap_or(e.stored);
        // (A cubin, alone or first of a concat group, starts with the ELF magic.)
        let magic: &[u8] = if e.kind == KIND_ELF || e.kind == KIND_CONCAT {
            b"\x7fELF"
        } else {
            b""
        };
        Cow::Owned(decompress(input, size, e.stored_flags, magic, budget)?)
    };
    match e.member {
        None => Ok(whole),
        Some((off, len)) => {
            let range = off..off.saturating_add(len);
            match whole {
                Cow::Borrowed(b) => b.get(range).map(Cow::Borrowed),
                Cow::Owned(v) => v.get(range).map(|s| Cow::Owned(s.to_vec())),
            }
            .ok_or_else(|| Error::new("concat group member lies outside the group's payload"))
        }
    }
}

/// LZ4 blocks grow at most this many times (a match length costs a byte per 255).
const LZ4_MAX_RATIO: usize = 255;

thread_local! {
    /// Each thread's zstd context, made once: making one per entry (it sets up its tables)
    /// was 7% of a 300-object host link's time. Holds no data between entries.
    static ZSTD: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's zstd context.
fn with_zstd<T>(
    f: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> std::io::Result<T>,
) -> std::io::Result<T> {
    ZSTD.with(|cell| {
        let mut cell = cell.borrow_mut();
        let d = match &mut *cell {
            Some(d) => d,
            empty => empty.insert(zstd::bulk::Decompressor::new()?),
        };
        f(d)
    })
}

/// Decompresses `input` to exactly `size` bytes that begin with `magic`. (zstd by libzstd:
/// ruzstd, which this used before, took a quarter of a 100-object `nvcc -dlink`-style
/// link's time.)
fn decompress(
    input: &[u8],
    size: usize,
    flags: u64,
    magic: &[u8],
    budget: &Budget,
) -> Result<Vec<u8>> {
    let zstd = flags & FLAG_ZSTD != 0;
    if !zstd && flags & FLAG_LZ4 == 0 {
        return Err(Error::new(format!(
            "fatbin entry compressed with an unknown method (flags 0x{flags:x})"
        )));
    }
    let method = if zstd { "zstd" } else { "LZ4" };
    let bad = |what: &dyn std::fmt::Display| {
        Error::new(format!("bad {method} payload in fatbin: {what}"))
    };
    if !zstd && size > input.len().saturating_mul(LZ4_MAX_RATIO).saturating_add(64) {
        return Err(bad(&format!(
            "{} bytes cannot decompress to the {size} its header says",
            input.len()
        )));
    }
    if !budget.take(size as u64) {
        return Err(Error::new(format!(
            "fatbin entry would decompress to {size} bytes, more than this machine's memory \
             has left for the link's inputs (a damaged or hostile header)"
        )));
    }
    // (Room asked for, not assumed: where the memory at hand cannot hold what the header
    // claims, the link ends with an error naming the input rather than aborting.)
    let mut out: Vec<u8> = Vec::new();
    if out.try_reserve_exact(size).is_err() {
        return Err(Error::new(format!(
            "fatbin entry would decompress to {size} bytes, more memory than the link can \
             have (a damaged or hostile header)"
        )));
    }
    let out = if zstd {
        // One frame, as the entry's reader always took: what follows it (padding where the
        // entry's compressed size is not given) is not read. Into room for exactly what the
        // header promised: a longer frame is an error.
        let frame = zstd::zstd_safe::find_frame_compressed_size(input)
            .map_err(|c| bad(&zstd::zstd_safe::get_error_name(c)))?;
        let input = &input[..frame.min(input.len())];
        with_zstd(|d| d.decompress_to_buffer(input, &mut out)).map_err(|e| bad(&e))?;
        if !out.starts_with(magic) {
            return Err(bad(&"it does not hold what its header says"));
        }
        out
    } else {
        out.resize(size, 0);
        let n = lz4_flex::block::decompress_into(input, &mut out).map_err(|e| bad(&e))?;
        out.truncate(n);
        if !out.starts_with(magic) {
            return Err(bad(&"it does not hold what its header says"));
        }
        out
    };
    if out.len() != size {
        return Err(Error::new(format!(
            "{method} payload in fatbin is {} bytes, its header says {size}",
            out.len()
        )));
    }
    Ok(out)
}

/// Whether nvlink would take this entry for `target`: SASS of the same major version and a
/// minor no later than the target's ('a' code only for its own 'a' target, 'f' code for
/// later members of its family); PTX of any earlier plain version ('a' PTX only for its own
/// target). LTO-IR never (cubin-ld does not link it).
pub fn usable(e: &Entry<'_>, target: &crate::arch::Arch) -> bool {
    use crate::arch::Variant;
    let accelerated_target = target.variant == Variant::Accelerated;
    match e.kind {
        KIND_ELF => {
            if e.is_accelerated() {
                e.sm == target.sm && accelerated_target
            } else {
                crate::arch::object_links_into(e.sm, target.sm)
            }
        }
        KIND_PTX => {
            if e.is_accelerated() {
                e.sm == target.sm && accelerated_target
            } else if e.is_family() {
                e.sm <= target.sm && e.sm / 10 == target.sm / 10
            } else {
                e.sm <= target.sm
            }
        }
        _ => false,
    }
}

/// The entry nvlink links for `target`: the highest compatible SM, SASS before PTX on a tie,
/// the first of equals.
pub fn select<'e, 'a>(
    entries: &'e [Entry<'a>],
    target: &crate::arch::Arch,
) -> Option<&'e Entry<'a>> {
    let mut best: Option<&Entry<'a>> = None;
    for e in entries.iter().filter(|e| usable(e, target)) {
        let better = match best {
            None => true,
            Some(b) => e.sm > b.sm || (e.sm == b.sm && b.kind == KIND_PTX && e.kind == KIND_ELF),
        };
        if better {
            best = Some(e);
        }
    }
    best
}

/// The LTO-IR entry `-dlto` optimizes for `target`: the highest usable version, the one of
/// the target's own variant on a tie (nvcc -arch=sm_90a embeds compute_90 and compute_90a).
/// An 'a' entry serves only its own target, an 'f' entry later members of its family.
pub fn select_lto<'e, 'a>(
    entries: &'e [Entry<'a>],
    target: &crate::arch::Arch,
) -> Option<&'e Entry<'a>> {
    use crate::arch::Variant;
    let usable = |e: &&Entry<'a>| {
        e.kind == KIND_NVVM
            && if e.is_accelerated() {
                e.sm == target.sm && target.variant == Variant::Accelerated
            } else if e.is_family() {
                e.sm <= target.sm && e.sm / 10 == target.sm / 10
            } else {
                e.sm <= target.sm
            }
    };
    let variant = |e: &Entry<'a>| match target.variant {
        Variant::Accelerated => e.is_accelerated(),
        Variant::Family => e.is_family(),
        Variant::Plain => !e.is_accelerated() && !e.is_family(),
    };
    entries
        .iter()
        .filter(usable)
        .rev()
        .max_by_key(|e| (e.sm, variant(e)))
}

/// Whether the container holds LTO-IR only for `target`'s family (nvlink's "use -dlto").
pub fn only_lto(entries: &[Entry<'_>]) -> bool {
    !entries.is_empty() && entries.iter().all(|e| e.kind == KIND_NVVM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::Arch;

    fn zstd(bytes: &[u8]) -> Vec<u8> {
        zstd::bulk::compress(bytes, 1).unwrap()
    }

    fn cubin_like(len: usize) -> Vec<u8> {
        let mut b = b"\x7fELF".to_vec();
        b.resize(len, 0);
        b
    }

    #[test]
    fn a_compressed_cubin_decompresses_to_its_header_size() {
        let b = cubin_like(5000);
        let out = decompress(
            &zstd(&b),
            5000,
            FLAG_ZSTD,
            b"\x7fELF",
            &Budget::new(u64::MAX),
        );
        assert_eq!(out.unwrap(), b);
    }

    #[test]
    fn a_zstd_payload_that_is_not_a_cubin_is_refused() {
        let zeros = vec![0u8; 1 << 20];
        let e = decompress(
            &zstd(&zeros),
            1 << 20,
            FLAG_ZSTD,
            b"\x7fELF",
            &Budget::new(u64::MAX),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("does not hold what its header says"),
            "{e}"
        );
    }

    #[test]
    fn a_zstd_payload_is_one_frame_and_what_follows_it_is_not_read() {
        let b = cubin_like(3000);
        let all = Budget::new(u64::MAX);
        let mut padded = zstd(&b);
        padded.extend_from_slice(&[0u8; 8]);
        assert_eq!(
            decompress(&padded, 3000, FLAG_ZSTD, b"\x7fELF", &all).unwrap(),
            b
        );
        // (Two frames that together make the size: the second is not the entry's.)
        let (first, second) = b.split_at(1000);
        let mut two = zstd(first);
        two.extend(zstd(second));
        let e = decompress(&two, 3000, FLAG_ZSTD, b"\x7fELF", &all).unwrap_err();
        assert!(e.to_string().contains("its header says 3000"), "{e}");
    }

    #[test]
    fn an_lz4_payload_cannot_claim_more_than_255_times_its_size() {
        let e =
            decompress(&[0u8; 100], 1 << 20, FLAG_LZ4, b"", &Budget::new(u64::MAX)).unwrap_err();
        assert!(e.to_string().contains("100 bytes cannot decompress"), "{e}");
    }

    #[test]
    fn decompressed_payloads_share_one_budget() {
        let b = cubin_like(2000);
        let z = zstd(&b);
        let budget = Budget::new(5000);
        assert!(decompress(&z, 2000, FLAG_ZSTD, b"\x7fELF", &budget).is_ok());
        assert!(decompress(&z, 2000, FLAG_ZSTD, b"\x7fELF", &budget).is_ok());
        let e = decompress(&z, 2000, FLAG_ZSTD, b"\x7fELF", &budget).unwrap_err();
        assert!(
            e.to_string().contains("would decompress to 2000 bytes"),
            "{e}"
        );
    }

    /// A container of uncompressed entries: (kind, sm, flags, payload).
    fn container(entries: &[(u16, u32, u64, &[u8])]) -> Vec<u8> {
        let mut body = Vec::new();
        for &(kind, sm, flags, payload) in entries {
            let padded = payload.len().div_ceil(8) * 8;
            let mut h = vec![0u8; ENTRY_HEADER];
            h[0..2].copy_from_slice(&kind.to_le_bytes());
            h[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
            h[4..8].copy_from_slice(&(ENTRY_HEADER as u32).to_le_bytes());
            h[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
            h[0x1c..0x20].copy_from_slice(&sm.to_le_bytes());
            h[0x28..0x30].copy_from_slice(&flags.to_le_bytes());
            body.extend_from_slice(&h);
            body.extend_from_slice(payload);
            body.resize(body.len() + padded - payload.len(), 0);
        }
        let mut c = MAGIC.to_le_bytes().to_vec();
        c.extend_from_slice(&1u16.to_le_bytes());
        c.extend_from_slice(&16u16.to_le_bytes());
        c.extend_from_slice(&(body.len() as u64).to_le_bytes());
        c.extend_from_slice(&body);
        c
    }

    fn pick(c: &[u8], target: &str) -> Option<(u16, u32)> {
        let entries = first_container(c).unwrap();
        select(&entries, &Arch::parse(target).unwrap()).map(|e| (e.kind, e.sm))
    }

    #[test]
    fn the_highest_compatible_sass_wins_and_beats_ptx_of_the_same_sm() {
        let c = container(&[
            (KIND_ELF, 75, 0x11, b"a"),
            (KIND_ELF, 80, 0x11, b"b"),
            (KIND_ELF, 86, 0x11, b"c"),
            (KIND_PTX, 86, 0x11, b"d"),
            (KIND_ELF, 90, 0x11, b"e"),
            (KIND_PTX, 90, 0x11, b"f"),
        ]);
        assert_eq!(pick(&c, "sm_89"), Some((KIND_ELF, 86)));
        assert_eq!(pick(&c, "sm_90"), Some((KIND_ELF, 90)));
        assert_eq!(pick(&c, "sm_75"), Some((KIND_ELF, 75)));
        // No sm_100 SASS: the newest PTX is compiled for it.
        assert_eq!(pick(&c, "sm_100"), Some((KIND_PTX, 90)));
    }

    #[test]
    fn arch_specific_code_is_taken_only_by_its_own_target() {
        let c = container(&[(KIND_ELF, 90, 0x10_0011, b"a")]);
        assert_eq!(pick(&c, "sm_90"), None);
        assert_eq!(pick(&c, "sm_90a"), Some((KIND_ELF, 90)));
    }

    #[test]
    fn only_the_first_container_is_read() {
        let mut c = container(&[(KIND_ELF, 90, 0x11, b"first")]);
        c.extend(container(&[(KIND_ELF, 90, 0x11, b"second")]));
        let entries = first_container(&c).unwrap();
        assert_eq!(entries.len(), 1);
        assert!(payload(&entries[0], &Budget::new(u64::MAX))
            .unwrap()
            .starts_with(b"first"));
    }

    #[test]
    fn a_truncated_container_is_an_error_not_a_panic() {
        let c = container(&[(KIND_ELF, 90, 0x11, b"payload")]);
        for n in 0..c.len() {
            let _ = first_container(&c[..n]);
        }
        assert!(first_container(&c[..c.len() - 1]).is_err());
    }

    #[test]
    fn damaged_compressed_payloads_are_errors() {
        let mut c = container(&[(KIND_ELF, 90, 0x8011, b"not zstd at all")]);
        // uncompressed size at 0x38 of the entry (container header is 16 bytes)
        c[16 + 0x38..16 + 0x40].copy_from_slice(&100u64.to_le_bytes());
        let entries = first_container(&c).unwrap();
        assert!(payload(&entries[0], &Budget::new(u64::MAX)).is_err());
    }
}
