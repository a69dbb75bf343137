//! The merged metadata: global `.nv.info` (REGCOUNT raised over callees, MIN_STACK_SIZE over
//! call paths), `.nv.info.<fn>`, `.nv.compat`, `.nv.callgraph`, `.nv.prototype`,
//! `.nv.rel.action`. Read once (`facts`, `callgraph`), computed (`propagate`, `externs`),
//! then written in nvlink's section order.

mod callgraph;
mod compat;
mod externs;
mod facts;
mod function;
mod global;
mod lists;
pub(crate) mod propagate;
mod records;
mod report;

use super::{Builder, Options};
use crate::diag::Result;
use crate::elf::*;
use crate::output::*;

/// Per kernel: (symbol, registers, barriers, stack, frame), for `-v`.
pub type KernelFacts = (OutSym, u32, u32, u64, u32);

/// What the `.nv.info` pass hands on besides the sections it adds.
pub(crate) struct InfoOutput {
    /// sm_100+: the Mercury copy of each `.nv.info.<fn>` (by the main section's name).
    pub merc_function_info: Vec<(Vec<u8>, Content)>,
    /// Per kernel, after propagation, for `-v`.
    pub kernel_facts: Vec<KernelFacts>,
    /// `--dump-callgraph` lines.
    pub callgraph_report: Vec<String>,
    /// `--resource-usage`: per kernel, what determined its resources.
    pub usage: Vec<propagate::KernelUsage>,
    pub usage_format: Option<crate::merge::UsageFormat>,
    /// `-Map` asks for the inputs' places (the merge keeps them until `finish`).
    pub map: bool,
    /// `-v` asks for the resource report.
    pub verbose: bool,
}

pub(crate) fn build_info(b: &mut Builder<'_, '_>, opts: &Options) -> Result<InfoOutput> {
    let global = tracing::info_span!("global_facts").in_scope(|| facts::global_facts(b))?;
    let graph = tracing::info_span!("call_graph").in_scope(|| callgraph::read(b));
    let kernels = facts::kernels_in_symbol_order(b);
    // (The link's only kernel: EXTERNS rules of their own.)
    let sole_kernel = match kernels.as_slice() {
        [k] => Some(*k),
        _ => None,
    };
    let roots = facts::root_kernels(b);
    // What each kept function's own `.nv.info.<fn>` says, read once.
    let facts = tracing::info_span!("function_facts").in_scope(|| facts::function_facts(b))?;
    let here = tracing::Span::current();
    // Propagation and the EXTERNS lists only read the builder: they run side by side (each
    // is one thread's work over the whole call graph), the call graph's section made beside
    // propagation, the shorter.
    let shared: &Builder<'_, '_> = b;
    let n = shared.m.symbols.len();
    let (((prop, kernel_facts, usage, said), graph_section), (externs, closure)) = rayon::join(
        || {
            let propagated = tracing::info_span!(parent: &here, "propagate").in_scope(|| {
                propagate::propagate(shared, opts, &global, &graph, &facts, &kernels, &roots)
            });
            let made = tracing::info_span!(parent: &here, "call_graph_contents")
                .in_scope(|| callgraph::contents(&graph, n));
            (propagated, made)
        },
        || {
            tracing::info_span!(parent: &here, "externs")
                .in_scope(|| externs::externs(shared, &graph, &facts, sole_kernel.is_some()))
        },
    );
    b.warnings.extend(said.warnings);
    b.errors.extend(said.errors);
    global::emit_global_info(b, opts, &prop, &kernels, &roots);
    compat::emit_compat(b, opts);
    if let (Some(ci), Some(cp)) = (
        b.section_id(b".note.nv.cuinfo"),
        b.section_id(b".nv.compat"),
    ) {
        b.m.sections[ci].info = Info::Section(cp);
    }
    let merc_function_info = tracing::info_span!("function_info").in_scope(|| {
        function::emit_function_infos(
            b,
            &function::Context {
                opts,
                graph: &graph,
                facts: &facts,
                prop: &prop,
                externs: &externs,
                closure: &closure,
                kernel_set: kernels.iter().copied().collect(),
                sole_kernel,
            },
        )
    })?;
    let _emit = tracing::info_span!("call_graph_out").entered();
    let cg_id = callgraph::emit_callgraph(b, graph_section);
    let callgraph_report = if opts.dump_callgraph {
        report::callgraph_report(b, opts, &graph, &global.regs, &kernels)
    } else {
        Vec::new()
    };
    let pr_id = callgraph::emit_prototypes(b, opts, &graph);
    // .nv.rel.action: the same 16 bytes in every sm_75–sm_90 executable nvlink writes.
    let ra = if opts.policy.sm() < 100 && !opts.policy.relocatable() {
        let bytes = vec![
            0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0, 0x05, 0x36,
        ];
        Some(b.add_graph_section(
            b".nv.rel.action",
            SHT_CUDA_RELOCINFO,
            8,
            8,
            Content::Bytes(bytes),
        ))
    } else {
        None
    };
    b.make_section_symbol(cg_id);
    if let Some(p) = pr_id {
        b.make_section_symbol(p);
    }
    // (the kernels' literal banks the link made: `literal_banks`)
    b.literal_bank_symbols();
    if let Some(r) = ra {
        b.make_section_symbol(r);
    }
    Ok(InfoOutput {
        merc_function_info,
        kernel_facts,
        callgraph_report,
        usage,
        usage_format: opts.resource_usage,
        map: opts.map,
        verbose: opts.verbose,
    })
}
