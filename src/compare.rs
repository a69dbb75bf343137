//! Semantic comparison of two cubins through their canonical dumps (see [`crate::dump`]):
//! items are matched by key (section name, symbol name, program header number), never by
//! index or file offset.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Default)]
pub struct CompareOptions {
    /// Compare entries (relocations, records, edges, symbols, sections) as multisets.
    pub ignore_order: bool,
    /// Sections to leave out (exact names, or a prefix followed by `*`).
    pub ignore_sections: Vec<String>,
    /// Mask the per-build hash nvcc puts in internal-linkage names (`_INTERNAL_4f0c7f44_`),
    /// and the process id some carry (with it segment sizes, which the names' lengths move).
    pub normalize_internal: bool,
    /// Leave out the linker's own `.note.nv.tkinfo` record (nvlink's or cubin-ld's), the
    /// note section's size, and segment sizes (the note's size moves every later section).
    pub ignore_linker_note: bool,
    /// Leave out the scheduling control bits (stall counts, yield, scoreboards, wait masks,
    /// reuse flags: bits 105–127 of every 16-byte instruction) of `.text.*` sections, so that
    /// two codes that differ only in how their instructions are scheduled compare equal.
    pub ignore_scoreboards: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    key: String,
    lines: Vec<String>,
}

fn is_entry(line: &str) -> bool {
    line.starts_with("  * ")
}

fn parse_items(text: &str) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    for line in text.lines() {
        if line.is_empty() || line == crate::dump::DUMP_VERSION_LINE {
            continue;
        }
        if line.starts_with(' ') {
            if let Some(it) = items.last_mut() {
                it.lines.push(line.to_string());
            }
        } else {
            items.push(Item {
                key: line.to_string(),
                lines: Vec::new(),
            });
        }
    }
    items
}

fn matches_pattern(name: &str, pat: &str) -> bool {
    match pat.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pat,
    }
}

/// Replaces `_<8 hex digits>_` runs (the hash in internal-linkage and static names) by
/// `_########_`.
pub fn mask_internal_hashes(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'_'
            && i + 9 < b.len()
            && b[i + 9] == b'_'
            && b[i + 1..i + 9].iter().all(|c| c.is_ascii_hexdigit())
        {
            out.push_str("_########");
            i += 9;
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or('?');
        out.push(ch);
        i += ch.len_utf8().max(1);
    }
    out
}

/// Masks the process id nvcc appends to some internal names (libcu++'s customization-point
/// objects: `_ZN40_INTERNAL_<hash>_4_b_cu_<hash>_15499` and
/// `__nv_static_31__<hash>_4_b_cu_<hash>_15499_…`), and the identifier length it changes, in
/// text whose hashes [`mask_internal_hashes`] masked: the same source compiled twice differs
/// there. The length prefix says where the id ends (`…_154994cuda` is id 15499, then `4cuda`).
pub fn mask_internal_pids(text: &str) -> String {
    let b = text.as_bytes();
    let mut edits: Vec<(usize, usize, &str)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let ident = if b[i..].starts_with(b"_INTERNAL_") {
            let s = b[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .count();
            Some((i - s, i, i))
        } else if b[i..].starts_with(b"__nv_static_") {
            let d = i + "__nv_static_".len();
            let e = d + b[d..].iter().take_while(|c| c.is_ascii_digit()).count();
            Some((d, e, e + 1))
        } else {
            None
        };
        if let Some((len_start, len_end, start)) = ident {
            if let Some(pid) = trailing_pid(b, len_start, len_end, start) {
                edits.push((len_start, len_end, "##"));
                edits.push((pid.0, pid.1, "<pid>"));
                i = pid.1;
                continue;
            }
        }
        i += 1;
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, e, with) in edits {
        out.push_str(&text[at..s]);
        out.push_str(with);
        at = e;
    }
    out.push_str(&text[at..]);
    out
}

/// The byte range of the digits ending the identifier `b[start..start + len]` (`len` written
/// at `b[len_start..len_end]`) when it ends in a masked hash, `_`, digits.
fn trailing_pid(
    b: &[u8],
    len_start: usize,
    len_end: usize,
    start: usize,
) -> Option<(usize, usize)> {
    let len: usize = std::str::from_utf8(&b[len_start..len_end])
        .ok()?
        .parse()
        .ok()?;
    let ident = b.get(start..start.checked_add(len)?)?;
    let digits = ident
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let head = &ident[..len - digits];
    (digits > 0 && head.ends_with(b"########_")).then_some((start + len - digits, start + len))
}

fn prepare(text: &str, opts: &CompareOptions) -> Vec<Item> {
    let text = if opts.normalize_internal {
        mask_internal_pids(&mask_internal_hashes(text))
    } else {
        text.to_string()
    };
    let mut items = parse_items(&text);
    if opts.ignore_scoreboards {
        for it in items
            .iter_mut()
            .filter(|it| it.key.starts_with("section .text."))
        {
            for l in it.lines.iter_mut() {
                *l = mask_control_bits(l);
            }
        }
    }
    items.retain(|it| match it.key.strip_prefix("section ") {
        Some(name) => !opts
            .ignore_sections
            .iter()
            .any(|p| matches_pattern(name, p)),
        None => true,
    });
    // The note's size moves every later section, and so does the string table's where
    // masked names differ in length (nvcc's process ids): segment sizes (which include the
    // alignment padding between the sections they cover) are left out then; but for the
    // writable segment's, which count only its own sections and the padding before its
    // zero-filled ones (taken out).
    if opts.ignore_linker_note || opts.normalize_internal {
        for it in items.iter_mut().filter(|it| it.key.starts_with("phdr ")) {
            let pad = it
                .lines
                .iter()
                .find_map(|l| l.trim().strip_prefix("padding "))
                .and_then(|l| l.split(' ').next())
                .and_then(parse_hex)
                .unwrap_or(0);
            it.lines.retain(|l| !l.trim().starts_with("padding "));
            for l in it.lines.iter_mut() {
                if l.contains(" flags RW- ") {
                    *l = without_padding(l, pad);
                } else if let (Some(a), Some(b)) = (l.find(" filesz "), l.find(" align ")) {
                    l.replace_range(a..b, "");
                }
            }
        }
    }
    if opts.ignore_linker_note {
        for it in items
            .iter_mut()
            .filter(|it| it.key == "section .note.nv.tkinfo")
        {
            // (nvJitLink's record is the linker's in the links cubin-ld hands to it: jitlink.)
            it.lines.retain(|l| {
                !(l.contains(" tkinfo ")
                    && ["nvlink", "cubin-ld", "nvJIT API"]
                        .iter()
                        .any(|t| l.contains(&format!("tool \"{t}\""))))
            });
            for l in it.lines.iter_mut().filter(|l| !is_entry(l)) {
                if let Some(p) = l.find(" size ") {
                    l.truncate(p);
                }
            }
        }
    }
    items
}

fn parse_hex(v: &str) -> Option<u64> {
    u64::from_str_radix(v.strip_prefix("0x")?, 16).ok()
}

/// A segment line with `pad` taken out of its file and memory sizes.
fn without_padding(line: &str, pad: u64) -> String {
    let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
    for i in 1..words.len() {
        if matches!(words[i - 1].as_str(), "filesz" | "memsz") {
            if let Some(v) = parse_hex(&words[i]) {
                words[i] = format!("{:#x}", v.saturating_sub(pad));
            }
        }
    }
    words.join(" ")
}

/// A dump's hex row (`  0010: 16 bytes`) with the control bits of its instruction cleared,
/// unless they are not an encoding the hardware knows (`control_bits::is_defined`): those
/// are kept, so that they still differ.
fn mask_control_bits(line: &str) -> String {
    let Some((at, bytes)) = line.split_once(": ") else {
        return line.to_string();
    };
    let mut b: Vec<String> = bytes.split(' ').map(str::to_string).collect();
    let is_row = b.len() == 16 && b.iter().all(|x| x.len() == 2);
    if !is_row || !at.trim().chars().all(|c| c.is_ascii_hexdigit()) {
        return line.to_string();
    }
    let hi = b[8..].iter().rev().fold(0u64, |w, x| {
        w << 8 | u64::from_str_radix(x, 16).unwrap_or(0)
    });
    if !crate::control_bits::is_defined(hi) {
        return line.to_string();
    }
    let byte13 = u8::from_str_radix(&b[13], 16).unwrap_or(0);
    b[13] = format!("{:02x}", byte13 & 1);
    b[14] = "00".into();
    b[15] = "00".into();
    format!("{at}: {}", b.join(" "))
}

/// Every semantic difference between two dumps, as human-readable lines; empty when equal.
pub fn compare_dumps(a: &str, b: &str, opts: &CompareOptions) -> Vec<String> {
    let ia = prepare(a, opts);
    let ib = prepare(b, opts);
    let ma: BTreeMap<&str, &Item> = ia.iter().map(|i| (i.key.as_str(), i)).collect();
    let mb: BTreeMap<&str, &Item> = ib.iter().map(|i| (i.key.as_str(), i)).collect();
    let mut diffs = Vec::new();

    for it in &ia {
        if !mb.contains_key(it.key.as_str()) {
            diffs.push(format!("only in first: {}", it.key));
        }
    }
    for it in &ib {
        if !ma.contains_key(it.key.as_str()) {
            diffs.push(format!("only in second: {}", it.key));
        }
    }
    for it in &ia {
        let Some(other) = mb.get(it.key.as_str()) else {
            continue;
        };
        diff_item(it, other, opts, &mut diffs);
    }
    if !opts.ignore_order {
        for kind in ["section ", "symbol "] {
            order_diff(&ia, &ib, kind, &mb, &ma, &mut diffs);
        }
    }
    diffs
}

fn diff_item(a: &Item, b: &Item, opts: &CompareOptions, diffs: &mut Vec<String>) {
    if a.lines == b.lines {
        return;
    }
    let (pa, ea): (Vec<&String>, Vec<&String>) = a.lines.iter().partition(|l| !is_entry(l));
    let (pb, eb): (Vec<&String>, Vec<&String>) = b.lines.iter().partition(|l| !is_entry(l));
    let mut out = Vec::new();
    multiset_diff(&pa, &pb, &mut out);
    multiset_diff(&ea, &eb, &mut out);
    if out.is_empty() {
        if !opts.ignore_order {
            diffs.push(format!("{}: same entries in a different order", a.key));
        }
        return;
    }
    const LIMIT: usize = 40;
    let n = out.len();
    let mut msg = format!("{}: {} line(s) differ", a.key, n);
    for l in out.into_iter().take(LIMIT) {
        msg.push('\n');
        msg.push_str(&l);
    }
    if n > LIMIT {
        msg.push_str(&format!("\n    … {} more", n - LIMIT));
    }
    diffs.push(msg);
}

fn multiset_diff(a: &[&String], b: &[&String], out: &mut Vec<String>) {
    let mut count: BTreeMap<&str, i64> = BTreeMap::new();
    for l in a {
        *count.entry(l.as_str()).or_default() += 1;
    }
    for l in b {
        *count.entry(l.as_str()).or_default() -= 1;
    }
    // Keep the original order of lines in the report.
    let mut left = count.clone();
    for l in a {
        let c = left.get_mut(l.as_str()).unwrap();
        if *c > 0 {
            out.push(format!("  - {}", l.trim_start()));
            *c -= 1;
        }
    }
    let mut right: BTreeMap<&str, i64> = count.into_iter().map(|(k, v)| (k, -v)).collect();
    for l in b {
        let c = right.get_mut(l.as_str()).unwrap();
        if *c > 0 {
            out.push(format!("  + {}", l.trim_start()));
            *c -= 1;
        }
    }
}

fn order_diff(
    ia: &[Item],
    ib: &[Item],
    kind: &str,
    mb: &BTreeMap<&str, &Item>,
    ma: &BTreeMap<&str, &Item>,
    diffs: &mut Vec<String>,
) {
    let sa: Vec<&str> = ia
        .iter()
        .map(|i| i.key.as_str())
        .filter(|k| k.starts_with(kind) && mb.contains_key(k))
        .collect();
    let sb: Vec<&str> = ib
        .iter()
        .map(|i| i.key.as_str())
        .filter(|k| k.starts_with(kind) && ma.contains_key(k))
        .collect();
    if let Some(pos) = sa.iter().zip(&sb).position(|(x, y)| x != y) {
        diffs.push(format!(
            "{}order differs at position {}: first has '{}', second has '{}'",
            kind,
            pos + 1,
            sa[pos],
            sb[pos]
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "cubin-dump 1\nheader\n  type ET_EXEC\nsection .a\n  type PROGBITS\n  * 0x0 R_CUDA_64 x+0x0\n  * 0x8 R_CUDA_64 y+0x0\nsection .b\n  type NOBITS\n";

    #[test]
    fn scheduling_only_differences_pass_when_scoreboards_are_ignored() {
        let code = |ctl: &str| {
            format!(
                "cubin-dump 1\nsection .text.k\n  type PROGBITS\n  0000: 82 7b 01 ff 00 df 00 00 00 08 00 00 00 {ctl} 00\n"
            )
        };
        let (ptxas, nvlink) = (code("e2 0f"), code("22 0e"));
        assert_eq!(
            compare_dumps(&ptxas, &nvlink, &CompareOptions::default()).len(),
            1
        );
        let opts = CompareOptions {
            ignore_scoreboards: true,
            ..Default::default()
        };
        assert!(compare_dumps(&ptxas, &nvlink, &opts).is_empty());
        // The instruction itself (bits 0-104) still counts.
        let other = code("e2 0f").replace("82 7b 01", "82 7b 02");
        assert_eq!(compare_dumps(&ptxas, &other, &opts).len(), 1);
    }

    #[test]
    fn an_undefined_stall_still_differs_when_scoreboards_are_ignored() {
        let code = |ctl: &str| {
            format!(
                "cubin-dump 1\nsection .text.k\n  type PROGBITS\n  0000: 47 89 f0 00 fc ff ff ff ff ff 83 03 00 {ctl} 00\n"
            )
        };
        let opts = CompareOptions {
            ignore_scoreboards: true,
            ..Default::default()
        };
        let yield_and_15_cycles = code("fe 0f");
        assert_eq!(
            compare_dumps(&code("ea 0f"), &yield_and_15_cycles, &opts).len(),
            1
        );
    }

    #[test]
    fn writable_segment_padding_is_left_out_with_the_linker_note() {
        let seg = |filesz: &str, memsz: &str, pad: &str| {
            format!(
                "cubin-dump 1\nphdr 2\n  type LOAD flags RW- filesz {filesz} memsz {memsz} \
                 align 0x8 vaddr 0x0 paddr 0x0\n{pad}"
            )
        };
        let nvlink = seg(
            "0x80",
            "0x480",
            "  padding 0x80 before its zero-filled sections\n",
        );
        let ours = seg("0x0", "0x400", "");
        assert_eq!(
            compare_dumps(&nvlink, &ours, &CompareOptions::default()).len(),
            1
        );
        let opts = CompareOptions {
            ignore_linker_note: true,
            ..Default::default()
        };
        assert!(compare_dumps(&nvlink, &ours, &opts).is_empty());
        let other_size = seg("0x0", "0x500", "");
        assert_eq!(compare_dumps(&nvlink, &other_size, &opts).len(), 1);
    }

    #[test]
    fn a_dump_equals_itself() {
        assert!(compare_dumps(A, A, &CompareOptions::default()).is_empty());
    }

    #[test]
    fn reordered_entries_differ_only_when_order_matters() {
        let b = A.replace(
            "  * 0x0 R_CUDA_64 x+0x0\n  * 0x8 R_CUDA_64 y+0x0",
            "  * 0x8 R_CUDA_64 y+0x0\n  * 0x0 R_CUDA_64 x+0x0",
        );
        assert_eq!(compare_dumps(A, &b, &CompareOptions::default()).len(), 1);
        let opts = CompareOptions {
            ignore_order: true,
            ..Default::default()
        };
        assert!(compare_dumps(A, &b, &opts).is_empty());
    }

    #[test]
    fn missing_sections_and_changed_lines_are_reported() {
        let b = A
            .replace("section .b\n  type NOBITS\n", "")
            .replace("y+0x0", "y+0x4");
        let d = compare_dumps(A, &b, &CompareOptions::default());
        assert!(d.iter().any(|l| l == "only in first: section .b"), "{d:?}");
        assert!(
            d.iter()
                .any(|l| l.contains("- * 0x8 R_CUDA_64 y+0x0")
                    && l.contains("+ * 0x8 R_CUDA_64 y+0x4")),
            "{d:?}"
        );
    }

    #[test]
    fn ignored_sections_are_left_out() {
        let b = A.replace("section .b\n  type NOBITS\n", "");
        let opts = CompareOptions {
            ignore_sections: vec![".b".into()],
            ..Default::default()
        };
        assert!(compare_dumps(A, &b, &opts).is_empty());
    }

    #[test]
    fn process_ids_in_internal_names_are_masked_with_their_lengths() {
        let a = "__nv_static_31__########_4_b_cu_########_15499__ZN40_INTERNAL_########_4_b_cu_########_154994cuda3std";
        let b = "__nv_static_30__########_4_b_cu_########_5927__ZN39_INTERNAL_########_4_b_cu_########_59274cuda3std";
        assert_eq!(
            mask_internal_pids(a),
            "__nv_static_##__########_4_b_cu_########_<pid>__ZN##_INTERNAL_########_4_b_cu_########_<pid>4cuda3std"
        );
        assert_eq!(mask_internal_pids(a), mask_internal_pids(b));
    }

    #[test]
    fn code_segment_sizes_are_left_out_with_internal_names_masked() {
        let seg = |filesz: &str| {
            format!(
                "cubin-dump 1\nphdr 1\n  type LOAD flags R-X filesz {filesz} memsz {filesz} \
                 align 0x8 vaddr 0x0 paddr 0x0\n"
            )
        };
        let (five_digit_pid, four_digit_pid) = (seg("0x8368"), seg("0x8360"));
        let opts = CompareOptions {
            normalize_internal: true,
            ..Default::default()
        };
        assert!(compare_dumps(&five_digit_pid, &four_digit_pid, &opts).is_empty());
    }

    #[test]
    fn internal_names_without_a_process_id_are_left_alone() {
        let a =
            "_ZN33_INTERNAL_########_4_s_cu_########1xE __nv_static_24__########_4_s_cu_########_x";
        assert_eq!(mask_internal_pids(a), a);
    }

    #[test]
    fn internal_name_hashes_are_masked() {
        assert_eq!(
            mask_internal_hashes("_ZN33_INTERNAL_4f0c7f44_4_s_cu_x __nv_static_24__deadbeef_4_s"),
            "_ZN33_INTERNAL_########_4_s_cu_x __nv_static_24__########_4_s"
        );
    }
}
