//! `-Map=FILE` / `--print-map`: what the output holds and where it came from. The target, the
//! output and the command line (a build with several `-gencode` targets runs one link per
//! target, and their maps must be told apart); every output section in header order with its file offset, size and alignment, and under it the input
//! sections it holds (offset in the section, size, input, input section); every symbol in
//! symbol-table order with its value, size and section; per kernel its code, parameter bank,
//! shared memory and stack; and the functions dead-code removal dropped, with why. Text
//! (documented in docs/usage.md) or, with `--map-format=json`, one JSON object.

use crate::diag::json_string;
use crate::layout::Layout;
use crate::merge::{info::KernelFacts, Origin};
use crate::output::{Content, Module};
use std::fmt::Write;

/// What the map is made from.
pub struct MapInput<'a> {
    pub target: &'a str,
    pub output: &'a std::path::Path,
    /// The command line, a word each.
    pub command: Vec<String>,
    pub module: &'a Module,
    pub layout: &'a Layout,
    pub origins: &'a [Origin],
    pub kernels: &'a [KernelFacts],
    /// The functions left out, and why.
    pub removed: &'a [crate::explain::Removed],
}

fn section_type(t: u32) -> String {
    crate::elf::names::section_type(t).map_or_else(|| format!("{t:#x}"), str::to_string)
}

fn str_of(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// (kernel name, code bytes, parameter-bank bytes, shared bytes, stack bytes).
fn kernel_totals(m: &Module, kernels: &[KernelFacts]) -> Vec<(String, u64, u64, u64, u64)> {
    kernels
        .iter()
        .map(|&(k, _, _, stack, _)| {
            let n = &m.symbols[k].name;
            (
                str_of(n),
                m.section_size(&[b".text.", &n[..]].concat()),
                m.section_size(&[b".nv.constant0.", &n[..]].concat()),
                m.section_size(&[b".nv.shared.", &n[..]].concat()),
                stack,
            )
        })
        .collect()
}

/// A symbol's name; a section symbol's is its section's (as readelf shows it).
fn symbol_name(m: &Module, y: crate::output::OutSym) -> String {
    let sym = &m.symbols[y];
    match sym.section {
        Some(s) if sym.name.is_empty() && sym.st_type == crate::elf::STT_SECTION => {
            str_of(&m.sections[s].name)
        }
        _ => str_of(&sym.name),
    }
}

/// The origins of each output section, in input order (one pass, not one per section).
fn by_section<'o>(m: &Module, origins: &'o [Origin]) -> Vec<Vec<&'o Origin>> {
    let mut v = vec![Vec::new(); m.sections.len()];
    for o in origins {
        v[o.out.index()].push(o);
    }
    v
}

pub fn text(i: &MapInput<'_>) -> String {
    let (m, lay) = (i.module, i.layout);
    let from = by_section(m, i.origins);
    let mut out = String::new();
    let _ = writeln!(out, "Target: {}", i.target);
    let _ = writeln!(out, "Output: {}", i.output.display());
    let _ = writeln!(out, "Command line: {}", shell_words(&i.command));
    let _ = writeln!(
        out,
        "\nSections (header order): [index] name, type, offset, size, align"
    );
    for &s in &lay.order {
        let sec = &m.sections[s];
        let _ = writeln!(
            out,
            "[{:>3}] {} {} {:#x} {:#x} {}",
            lay.sec_index[s],
            str_of(&sec.name),
            section_type(sec.sh_type),
            lay.offset[s],
            lay.size[s],
            sec.align
        );
        for o in &from[s.index()] {
            let _ = writeln!(
                out,
                "        +{:#x} {:#x} {}:({})",
                o.offset, o.size, o.input, o.section
            );
        }
    }
    let _ = writeln!(
        out,
        "\nSymbols (table order): [index] value size section name"
    );
    for &y in &lay.sym_order {
        let sym = &m.symbols[y];
        let section = sym
            .section
            .map_or_else(|| "UND".to_string(), |s| str_of(&m.sections[s].name));
        let _ = writeln!(
            out,
            "[{:>3}] {:#x} {:#x} {} {}",
            lay.sym_index[y],
            sym.value,
            sym.size,
            section,
            symbol_name(m, y)
        );
    }
    let _ = writeln!(out, "\nKernels: name, code, cmem[0], shared, stack (bytes)");
    for (k, code, cmem0, smem, stack) in kernel_totals(m, i.kernels) {
        let _ = writeln!(out, "{k} {code} {cmem0} {smem} {stack}");
    }
    let _ = writeln!(out, "\nRemoved functions:");
    out.push_str(&crate::explain::gc_sections_text(i.removed));
    out
}

/// Words joined as a shell reads them back: quoted where they hold what the shell splits at.
fn shell_words(words: &[String]) -> String {
    let plain = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_=./,:+@%".contains(&b))
    };
    let quoted = words.iter().map(|w| match plain(w) {
        true => w.clone(),
        false => format!("'{}'", w.replace('\'', "'\\''")),
    });
    quoted.collect::<Vec<_>>().join(" ")
}

pub fn json_map(i: &MapInput<'_>) -> String {
    let (m, lay) = (i.module, i.layout);
    let origins = by_section(m, i.origins);
    let sections: Vec<String> = lay
        .order
        .iter()
        .map(|&s| {
            let sec = &m.sections[s];
            let from: Vec<String> = origins[s.index()]
                .iter()
                .map(|o| {
                    format!(
                        "{{\"offset\":{},\"size\":{},\"input\":{},\"section\":{}}}",
                        o.offset,
                        o.size,
                        json_string(&o.input),
                        json_string(&o.section)
                    )
                })
                .collect();
            format!(
                "{{\"index\":{},\"name\":{},\"type\":{},\"offset\":{},\"size\":{},\"align\":{},\"nobits\":{},\"from\":[{}]}}",
                lay.sec_index[s],
                json_string(&str_of(&sec.name)),
                json_string(&section_type(sec.sh_type)),
                lay.offset[s],
                lay.size[s],
                sec.align,
                matches!(sec.content, Content::NoBits(_)),
                from.join(",")
            )
        })
        .collect();
    let symbols: Vec<String> = lay
        .sym_order
        .iter()
        .map(|&y| {
            let sym = &m.symbols[y];
            format!(
                "{{\"index\":{},\"name\":{},\"value\":{},\"size\":{},\"section\":{}}}",
                lay.sym_index[y],
                json_string(&symbol_name(m, y)),
                sym.value,
                sym.size,
                sym.section
                    .map_or("null".to_string(), |s| json_string(&str_of(
                        &m.sections[s].name
                    )))
            )
        })
        .collect();
    let kernels: Vec<String> = kernel_totals(m, i.kernels)
        .into_iter()
        .map(|(k, code, cmem0, smem, stack)| {
            format!(
                "{{\"name\":{},\"code\":{code},\"cmem0\":{cmem0},\"shared\":{smem},\"stack\":{stack}}}",
                json_string(&k)
            )
        })
        .collect();
    let removed: Vec<String> = i.removed.iter().map(removed_json).collect();
    let command: Vec<String> = i.command.iter().map(|w| json_string(w)).collect();
    format!(
        "{{\"target\":{},\"output\":{},\"command\":[{}],\"sections\":[{}],\"symbols\":[{}],\"kernels\":[{}],\"removed\":[{}]}}\n",
        json_string(i.target),
        json_string(&i.output.display().to_string()),
        command.join(","),
        sections.join(","),
        symbols.join(","),
        kernels.join(","),
        removed.join(",")
    )
}

/// One removed function as fields: the symbol (mangled and as c++filt shows it), its code
/// section and file, the reason's code and sentence, and the removed kernel or the kept copy
/// it names.
fn removed_json(r: &crate::explain::Removed) -> String {
    use crate::explain::Removal;
    let opt = |s: Option<&str>| s.map_or("null".to_string(), json_string);
    let (kernel, kept_in) = match &r.why {
        Removal::ReachedOnlyFrom { kernel, .. } => (Some(kernel.as_str()), None),
        Removal::WeakCopy { kept_in, .. } => (None, kept_in.as_deref()),
        _ => (None, None),
    };
    format!(
        "{{\"symbol\":{},\"demangled\":{},\"section\":{},\"file\":{},\"reason\":{},\"message\":{},\"kernel\":{},\"kept_in\":{}}}",
        json_string(&r.symbol),
        json_string(&crate::demangle::readable(&r.symbol)),
        json_string(&r.section),
        json_string(&r.file),
        json_string(r.why.code()),
        json_string(&r.why.sentence()),
        opt(kernel),
        opt(kept_in)
    )
}
