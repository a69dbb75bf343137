//! nvlink's `-v` report of the module's and each kernel's resources.

use crate::output::Module;

/// nvlink's `-v` report: global and constant-bank-3 sizes, then per kernel (in reverse
/// symbol order) registers, barriers, stack, shared, parameter-bank and local memory.
/// `reserve`: the shared memory sm_90+ reserves at the start of each kernel's.
pub(crate) fn resource_report(
    m: &Module,
    reserve: u64,
    kernel_facts: &[super::info::KernelFacts],
) -> Vec<String> {
    {
        let gmem = m.section_size(b".nv.global.init") + m.section_size(b".nv.global");
        let cmem3 = m.section_size(b".nv.constant3");
        let mut out = vec![if cmem3 > 0 {
            format!("{gmem} bytes gmem, {cmem3} bytes cmem[3]")
        } else {
            format!("{gmem} bytes gmem")
        }];
        for &(k, regs, bars, stack, _frame) in kernel_facts.iter().rev() {
            let name = &m.symbols[k].name;
            let tail = name.to_vec();
            let smem = m.section_size(&[b".nv.shared.", &tail[..]].concat());
            let cmem0 = m.section_size(&[b".nv.constant0.", &tail[..]].concat());
            out.push(format!(
                "Function properties for '{}':",
                String::from_utf8_lossy(name)
            ));
            // sm_100+ reports shared memory without the reserved bytes and no parameter bank.
            out.push(if m.mercury {
                let smem = smem.saturating_sub(reserve);
                format!(
                    "used {regs} registers, used {bars} barriers, {stack} stack, {smem} bytes smem, 0 bytes lmem"
                )
            } else {
                format!(
                    "used {regs} registers, used {bars} barriers, {stack} stack, {smem} bytes smem, {cmem0} bytes cmem[0], 0 bytes lmem"
                )
            });
            // lmem: nvlink 13.5 reported 0 for every kernel of the corpus, frames included;
            // what would make it non-zero is not known.
        }
        out
    }
}

/// How `--resource-usage` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageFormat {
    Table,
    Json,
}

/// `--resource-usage`: per kernel (in symbol order), the figures of nvlink's `-v` report, each
/// with what determined it.
pub(crate) fn resource_usage(
    m: &Module,
    reserve: u64,
    usage: &[super::info::propagate::KernelUsage],
    kernel_shared: &hashbrown::HashMap<Vec<u8>, (Vec<super::shared::KernelObject>, Vec<String>)>,
    format: UsageFormat,
) -> String {
    use std::fmt::Write;
    let name = |s: crate::output::OutSym| String::from_utf8_lossy(&m.symbols[s].name).into_owned();
    // A name demangled, the mangled form after it (`k(int *) [_Z1kPi]`).
    let plain = |n: &str| {
        let p = crate::demangle::readable(n);
        if p == n {
            n.to_string()
        } else {
            format!("{p} [{n}]")
        }
    };
    let shown = |s: crate::output::OutSym| plain(&name(s));
    let mut out = String::new();
    let mut rows = Vec::new();
    for u in usage {
        let k = name(u.kernel);
        let (objects, arrays) = kernel_shared
            .get(k.as_bytes())
            .map(|(o, a)| (&o[..], &a[..]))
            .unwrap_or((&[], &[]));
        // (Objects sit after the reserved bytes, which the count includes up to sm_90.)
        let base = if m.mercury { 0 } else { reserve };
        let mut smem = m.section_size(&[b".nv.shared.", k.as_bytes()].concat());
        if m.mercury {
            smem = smem.saturating_sub(reserve);
        }
        let cmem0 = m.section_size(&[b".nv.constant0.", k.as_bytes()].concat());
        let from = *u.register_chain.last().unwrap_or(&u.kernel);
        match format {
            UsageFormat::Table => {
                let _ = writeln!(out, "{}", shown(u.kernel));
                let via: Vec<String> = u.register_chain.iter().map(|&s| shown(s)).collect();
                let _ = if from == u.kernel {
                    writeln!(out, "  registers  {} (its own)", u.registers)
                } else {
                    writeln!(
                        out,
                        "  registers  {} from {} via {}",
                        u.registers,
                        shown(from),
                        via.join(" -> ")
                    )
                };
                let frames: Vec<String> = u
                    .stack_chain
                    .iter()
                    .map(|&(s, f)| format!("{} ({f})", shown(s)))
                    .collect();
                let _ = match (u.stack, u.recursion) {
                    (None, Some(r)) => writeln!(
                        out,
                        "  stack      unbounded: recursion at {} via {}",
                        shown(r),
                        frames.join(" -> ")
                    ),
                    (s, _) => writeln!(
                        out,
                        "  stack      {} bytes: {}",
                        s.unwrap_or(0),
                        frames.join(" -> ")
                    ),
                };
                let _ = writeln!(out, "  shared     {smem} bytes");
                if reserve > 0 && smem > 0 && !m.mercury {
                    let _ = writeln!(out, "    {:#8x} {reserve:>6} bytes reserved", 0);
                }
                for x in objects {
                    let _ = writeln!(
                        out,
                        "    {:#8x} {:>6} bytes {}, used by {}",
                        base + x.offset,
                        x.size,
                        x.name,
                        plain(&x.user)
                    );
                }
                for f in arrays {
                    let _ = writeln!(
                        out,
                        "    extern arrays (sized at launch), used by {}",
                        plain(f)
                    );
                }
                let _ = writeln!(out, "  cmem[0]    {cmem0} bytes");
                let _ = writeln!(out, "  barriers   {}", u.barriers);
            }
            UsageFormat::Json => {
                let list = |v: Vec<String>| v.join(",");
                let q = |s: crate::output::OutSym| crate::diag::json_string(&name(s));
                rows.push(format!(
                    "{{\"kernel\":{},\"registers\":{{\"count\":{},\"from\":{},\"chain\":[{}]}},\"stack\":{{\"bytes\":{},\"chain\":[{}],\"recursion\":{}}},\"shared_bytes\":{smem},\"shared_objects\":[{}],\"cmem0_bytes\":{cmem0},\"barriers\":{}}}",
                    q(u.kernel),
                    u.registers,
                    q(from),
                    list(u.register_chain.iter().map(|&s| q(s)).collect()),
                    u.stack.map_or("null".to_string(), |s| s.to_string()),
                    list(
                        u.stack_chain
                            .iter()
                            .map(|&(s, f)| format!("{{\"function\":{},\"frame\":{f}}}", q(s)))
                            .collect()
                    ),
                    u.recursion.map_or("null".to_string(), q),
                    list(
                        objects
                            .iter()
                            .map(|x| format!(
                                "{{\"symbol\":{},\"offset\":{},\"bytes\":{},\"used_by\":{}}}",
                                crate::diag::json_string(&x.name),
                                base + x.offset,
                                x.size,
                                crate::diag::json_string(&x.user)
                            ))
                            .collect()
                    ),
                    u.barriers
                ));
            }
        }
    }
    if format == UsageFormat::Json {
        out = format!("{{\"kernels\":[{}]}}\n", rows.join(","));
    }
    out
}
