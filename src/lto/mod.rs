//! LTO (`-dlto`, `-lto`): the LTO-IR modules become one cubin, made as nvlink's LTO makes it
//! but through documented interfaces only: the toolkit's nvJitLink optimizes the modules
//! together into PTX, the toolkit's ptxas compiles it. (docs/lto.md has the experiments.)
//!
//! - Every input LTO-IR, not `-r`, and nothing left for another object to define: the
//!   program is complete, and ptxas's whole-program cubin is the output as it is.
//! - Otherwise ptxas compiles it relocatable and the link takes it first, ahead of the
//!   objects not built for LTO (nvlink's "partial LTO") and the libraries.
//! - What host code references is all the optimizer may not remove or internalize, and only
//!   when every input is LTO-IR from host objects; in a partial LTO nothing is internalized.

pub mod nvjitlink;
pub mod recorded;

use crate::arch::Arch;
use crate::diag::Result;
use crate::input::{ptx, Loaded};
use std::path::Path;

/// What the command line asks of LTO, read once.
pub struct Request<'a> {
    pub arch: &'a Arch,
    /// `-nvvmpath`: the toolkit's `nvvm/`, whose parent holds ptxas and nvJitLink.
    pub nvvmpath: Option<&'a Path>,
    pub maxrregcount: Option<i64>,
    /// `-Xptxas`: for the ptxas that compiles the optimized program.
    pub xptxas: &'a [String],
    pub relocatable: bool,
    pub emit_ptx: bool,
    pub ignore_host_info: bool,
}

/// What LTO made.
pub enum Outcome {
    /// `-emit-ptx`: the optimized program's PTX, which is the output.
    Ptx(Vec<u8>),
    /// The complete program, compiled whole: the output as it is.
    Program(Vec<u8>),
    /// Relocatable code the link takes as its first input.
    Cubin(Vec<u8>),
}

pub struct Product {
    pub outcome: Outcome,
    /// Objects not built for LTO join the link: host information no longer tells what is
    /// unused (nvlink keeps every kernel).
    pub partial: bool,
    pub infos: Vec<String>,
    /// What ptxas said.
    pub tool_messages: Vec<String>,
    /// nvlink then wants libcudadevrt among the inputs ("expected libcudadevrt object"):
    /// an executable link of LTO-IR from host objects, every input LTO-IR.
    pub needs_device_runtime: bool,
}

/// Which code the optimizer may take as the whole program.
#[derive(Debug, PartialEq, Eq)]
enum Scope<'a> {
    /// Other code joins the link (objects not built for LTO, `-r`): all visible code stays.
    Partial,
    /// Bare LTO-IR files only: nvlink tells the optimizer nothing more.
    BareFiles,
    /// Every input LTO-IR from host objects: what host code references stays (the lists
    /// empty when there is no host information to go by).
    Program {
        kernels: Vec<&'a [u8]>,
        variables: Vec<&'a [u8]>,
    },
}

/// Stand-ins for an empty list when the other is not (nvJitLink takes no empty value).
const NO_KERNEL: &str = "-kernels-used=__cubin_ld_no_kernel__";
const NO_VARIABLE: &str = "-variables-used=__cubin_ld_no_variable__";

/// nvJitLink's options: the target, PTX out, the recorded options, the scope.
fn nvjitlink_options(arch: &Arch, rec: &recorded::Recorded, scope: &Scope<'_>) -> Vec<String> {
    let mut o = vec![format!("-arch={arch}"), "-lto".into(), "-ptx".into()];
    o.extend(
        rec.maxrregcount
            .iter()
            .map(|n| format!("-maxrregcount={n}")),
    );
    if rec.lineinfo {
        o.push("-lineinfo".into());
    }
    match scope {
        Scope::Partial => o.push("-Xnvvm=--force-device-c".into()),
        Scope::BareFiles => {}
        Scope::Program { kernels, variables } => {
            o.push("-Xnvvm=--device-c".into());
            let name = |n: &&[u8]| String::from_utf8_lossy(n).into_owned();
            if !kernels.is_empty() || !variables.is_empty() {
                o.extend(kernels.iter().map(|k| format!("-kernels-used={}", name(k))));
                o.extend(
                    variables
                        .iter()
                        .map(|v| format!("-variables-used={}", name(v))),
                );
                if kernels.is_empty() {
                    o.push(NO_KERNEL.into());
                }
                if variables.is_empty() {
                    o.push(NO_VARIABLE.into());
                }
            }
        }
    }
    o
}

/// Functions ptxas provides to a whole program itself.
const SYSCALLS: &[&str] = &["vprintf", "malloc", "free", "__assertfail"];

/// Whether the optimized PTX needs nothing from another object: its only external
/// declarations are dynamic shared memory and the functions ptxas provides.
fn is_complete(ptx: &[u8]) -> bool {
    let text = String::from_utf8_lossy(ptx);
    text.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with(".extern"))
        .all(|l| {
            l.split_whitespace().any(|w| w == ".shared")
                || l.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .any(|w| SYSCALLS.contains(&w))
        })
}

/// The ptxas options: nvlink's own first, `-c` unless the program is complete.
fn ptxas_args(req: &Request<'_>, rec: &recorded::Recorded, whole: bool) -> Vec<String> {
    let mut a: Vec<String> = ["-arch", &req.arch.to_string(), "-m", "64"]
        .map(String::from)
        .to_vec();
    if !whole {
        a.push("-c".into());
    }
    a.extend(req.xptxas.iter().cloned());
    if let Some(n) = &rec.maxrregcount {
        a.extend(["-maxrregcount".to_string(), n.clone()]);
    }
    a
}

/// Optimizes the LTO-IR `loaded` holds; `None` when it holds none.
pub fn optimize(loaded: &Loaded<'_>, req: &Request<'_>) -> Result<Option<Product>> {
    if loaded.lto.is_empty() {
        return Ok(None);
    }
    let partial = loaded.units.iter().any(|u| !u.system);
    let modules: Vec<(&str, Option<&str>)> = loaded
        .lto
        .iter()
        .map(|m| (m.name.as_str(), m.options.as_deref()))
        .collect();
    let rec = recorded::agree(&modules, req.maxrregcount)?;
    fn user(refs: &[(Vec<u8>, bool)]) -> Vec<&[u8]> {
        refs.iter()
            .filter(|r| !r.1)
            .map(|r| r.0.as_slice())
            .collect()
    }
    let scope = if partial || req.relocatable {
        Scope::Partial
    } else if loaded.lto.iter().all(|m| !m.from_host_object) {
        Scope::BareFiles
    } else if req.ignore_host_info || loaded.has_bare_input {
        // (Host information is incomplete where a host object carries none, like
        // libcudart_static's members, which nvcc -dlink names: black-box, CMake's -dlto
        // device link keeps every kernel.)
        Scope::Program {
            kernels: vec![],
            variables: vec![],
        }
    } else {
        Scope::Program {
            kernels: user(&loaded.kernel_refs),
            variables: user(&loaded.variable_refs),
        }
    };
    let ptxas = ptx::find_ptxas(
        "link-time optimization",
        req.nvvmpath.and_then(Path::parent),
    )?;
    let lib = nvjitlink::NvJitLink::load(
        &nvjitlink::candidates(req.nvvmpath, Some(&ptxas)),
        "link-time optimization",
    )?;
    let irs: Vec<nvjitlink::Input<'_>> = loaded
        .lto
        .iter()
        .map(|m| nvjitlink::Input {
            name: &m.name,
            bytes: &m.ir,
            fatbin: m.in_fatbin,
        })
        .collect();
    let text = lib.link_ptx(&nvjitlink_options(req.arch, &rec, &scope), &irs)?;
    let mut product = Product {
        outcome: Outcome::Ptx(vec![]),
        partial,
        infos: rec.infos.clone(),
        tool_messages: vec![],
        needs_device_runtime: matches!(scope, Scope::Program { .. }) && !req.emit_ptx,
    };
    if req.emit_ptx {
        product.outcome = Outcome::Ptx(text);
        return Ok(Some(product));
    }
    let whole = !partial && !req.relocatable && is_complete(&text);
    let compiled = ptx::run(
        &ptxas,
        "the link-time optimized program",
        &text,
        &ptxas_args(req, &rec, whole),
    )?;
    product.tool_messages = compiled.messages;
    product.outcome = match whole {
        true => Outcome::Program(compiled.cubin),
        false => Outcome::Cubin(compiled.cubin),
    };
    Ok(Some(product))
}

#[cfg(test)]
mod tests {
    use super::*;
    use recorded::Recorded;

    fn sm90() -> Arch {
        Arch::parse("sm_90").unwrap()
    }

    #[test]
    fn a_partial_link_keeps_every_visible_symbol() {
        let o = nvjitlink_options(&sm90(), &Recorded::default(), &Scope::Partial);
        assert_eq!(
            o,
            ["-arch=sm_90", "-lto", "-ptx", "-Xnvvm=--force-device-c"]
        );
    }

    #[test]
    fn a_program_keeps_what_host_code_references() {
        let scope = Scope::Program {
            kernels: vec![b"_Z1kPf", b"_Z1tIL*"],
            variables: vec![],
        };
        let o = nvjitlink_options(&sm90(), &Recorded::default(), &scope);
        assert_eq!(
            o[3..],
            [
                "-Xnvvm=--device-c",
                "-kernels-used=_Z1kPf",
                "-kernels-used=_Z1tIL*",
                NO_VARIABLE
            ]
        );
    }

    #[test]
    fn without_host_references_a_program_keeps_everything_visible() {
        let scope = Scope::Program {
            kernels: vec![],
            variables: vec![],
        };
        let o = nvjitlink_options(&sm90(), &Recorded::default(), &scope);
        assert_eq!(o[3..], ["-Xnvvm=--device-c"]);
    }

    #[test]
    fn recorded_limits_reach_the_optimizer() {
        let rec = Recorded {
            maxrregcount: Some("32".into()),
            lineinfo: true,
            infos: vec![],
        };
        let o = nvjitlink_options(&sm90(), &rec, &Scope::BareFiles);
        assert_eq!(
            o,
            [
                "-arch=sm_90",
                "-lto",
                "-ptx",
                "-maxrregcount=32",
                "-lineinfo"
            ]
        );
    }

    #[test]
    fn a_program_calling_only_what_ptxas_provides_is_complete() {
        let ptx = b".extern .func  (.param .b32 func_retval0) vprintf\n(\n);\n\
                    .extern .shared .align 16 .b8 smem[];\n.visible .entry k()\n{\n}\n";
        assert!(is_complete(ptx));
    }

    #[test]
    fn a_program_calling_the_device_runtime_is_not_complete() {
        let ptx = b".extern .func  (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2\n";
        assert!(!is_complete(ptx));
        assert!(!is_complete(b".extern .global .align 4 .u32 counter;\n"));
    }
}
