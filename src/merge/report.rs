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
        let size_of = |name: &[u8]| {
            m.by_name
                .get(name)
                .map(|&s| m.sections[s].content.size())
                .unwrap_or(0)
        };
        let gmem = size_of(b".nv.global.init") + size_of(b".nv.global");
        let cmem3 = size_of(b".nv.constant3");
        let mut out = vec![if cmem3 > 0 {
            format!("{gmem} bytes gmem, {cmem3} bytes cmem[3]")
        } else {
            format!("{gmem} bytes gmem")
        }];
        for &(k, regs, bars, stack, _frame) in kernel_facts.iter().rev() {
            let name = &m.symbols[k].name;
            let tail = name.to_vec();
            let smem = size_of(&[b".nv.shared.", &tail[..]].concat());
            let cmem0 = size_of(&[b".nv.constant0.", &tail[..]].concat());
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
