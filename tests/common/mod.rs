//! Helpers the integration tests share.

/// Cases with kernels nvlink re-schedules on sm_100+ (kernels that call nothing get the
/// scoreboards whole-program ptxas would give them; cubin-ld keeps ptxas's -rdc scheduling,
/// see docs/differences.md), as `case/sm_XX` patterns, with the kernels: their links are compared with the
/// scheduling control bits left out, and must then be equal.
#[allow(dead_code)]
pub const RESCHEDULED_BY_NVLINK: &[(&str, &str)] = &[
    (
        "shared_pool_arrays_named/sm_1*",
        "fz_k7 calls nothing and uses no local memory",
    ),
    (
        "debug_shared_pool_named_early/sm_1*",
        "k_extern calls nothing and uses no local memory",
    ),
    (
        "dynpar/sm_1*",
        "the child kernel and libcudadevrt's memset/memcpy kernels exit early",
    ),
    (
        "dynpar_externs/sm_1*",
        "libcudadevrt's memset/memcpy kernels exit early",
    ),
    (
        "dynpar_callee_externs/sm_1*",
        "libcudadevrt's memset/memcpy kernels exit early",
    ),
    (
        "extern_shared_instance_order/sm_1*",
        "libcudadevrt's memset/memcpy kernels exit early (its live -lcudadevrt link)",
    ),
    ("early_exit/sm_1*", "kernels with bounds checks"),
    (
        "fence_refinalized/sm_1*",
        "kernels with fences that call nothing (their fence instructions removed as well)",
    ),
    (
        "shared_launch/sm_1*",
        "libcudadevrt's memset/memcpy kernels exit early",
    ),
    ("shared_own_order/sm_1*", "MatrixMulCUDA calls nothing"),
    (
        "debug_exits/sm_1*",
        "kernels that call nothing; under -g, instructions near the exits' new barriers",
    ),
    (
        "debug_exits_lineinfo/sm_1*",
        "kernels that call nothing; near the barriers and fences",
    ),
    (
        "jump_tables/sm_1*",
        "kernels with fences that call nothing; under -g, instructions near the barriers",
    ),
    (
        "debug_exits_devrt/sm_1*",
        "under -g, instructions near the barriers before libcudadevrt's exits",
    ),
    (
        "fence_lineinfo/sm_1*",
        "a -lineinfo kernel with a fence that calls nothing (its line tables move too)",
    ),
    (
        "fence_lineinfo_kernels/sm_1*",
        "-lineinfo kernels with fences that call nothing (their line tables move too)",
    ),
    (
        "fence_nanosleep/sm_1*",
        "a kernel with a fence that calls nothing (its fence instructions removed as well)",
    ),
    (
        "cp_async_fences/sm_1*",
        "kernels with asynchronous copies and fences that call nothing",
    ),
    ("cp_async_shared/sm_1*", "k calls nothing"),
    (
        "fence_contexts/sm_1*",
        "kernels with fences that call nothing",
    ),
    (
        "fence_mbarrier/sm_1*",
        "kernels with fences and mbarriers that call nothing",
    ),
    (
        "fence_fused_atomics/sm_1*",
        "kernels with atomics whose fences went, calling nothing",
    ),
    (
        "debug_exits_expanded/sm_1*",
        "kernels that call nothing; under -g, instructions near the exits' new barriers",
    ),
    ("capsule_tokens/sm_1*", "blur_rows calls nothing"),
    ("debug_symbol_order/sm_1*", "tsum<256> calls nothing"),
    ("partial_unnamed_area/sm_1*", "k_add calls nothing"),
    (
        "device_launched_kernel/sm_1*",
        "libcudadevrt's memset/memcpy kernels exit early",
    ),
    (
        "devrt_when_undefined/sm_1*",
        "libcudadevrt's memset/memcpy kernels exit early",
    ),
    (
        "lto/sm_1*",
        "libcudadevrt's memset/memcpy kernels exit early (lto_incomplete)",
    ),
];

/// Whether links of `case/sm_XX` are compared without scheduling bits.
#[allow(dead_code)]
pub fn rescheduled_by_nvlink(case_arch: &str) -> bool {
    RESCHEDULED_BY_NVLINK
        .iter()
        .any(|(p, _)| matches(p, case_arch))
}

/// Whether `key` (`case/sm_XX/name`) matches `pattern`: per part, a trailing `*` matches any
/// rest (`sm_1*`: sm_100 and later).
#[allow(dead_code)]
pub fn matches(pattern: &str, key: &str) -> bool {
    let (p, k): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), key.split('/').collect());
    p.len() == k.len()
        && p.iter().zip(&k).all(|(p, k)| match p.strip_suffix('*') {
            Some(prefix) => k.starts_with(prefix),
            None => p == k,
        })
}

/// The pinned NVIDIA toolkit (CUDA 13.5.37) the corpus was recorded with, when this machine
/// has it: scripts/cuda-toolkit.sh's cache (`$CUBIN_LD_CUDA_CACHE`, else
/// `~/.cache/cubin-ld/cuda-13.5.37`), else an `nvlink` on PATH of that version. Another
/// version would compile PTX into other code, so it does not count.
#[allow(dead_code)]
pub struct Toolkit {
    pub bin: std::path::PathBuf,
    pub lib: std::path::PathBuf,
}

impl Toolkit {
    /// Its `nvvm/` folder (`-nvvmpath`), beside `bin/`.
    #[allow(dead_code)]
    pub fn nvvm(&self) -> std::path::PathBuf {
        self.bin.with_file_name("nvvm")
    }
}

#[allow(dead_code)]
pub const TOOLKIT_VERSION: &str = "V13.5.37";

#[allow(dead_code)]
pub fn toolkit() -> Option<Toolkit> {
    use std::path::{Path, PathBuf};
    let pinned = |bin: &Path| {
        std::process::Command::new(bin.join("nvlink"))
            .arg("--version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(TOOLKIT_VERSION))
    };
    let with_lib = |root: &Path| {
        ["lib", "lib64"]
            .iter()
            .map(|l| root.join(l))
            .find(|l| l.join("libcudadevrt.a").is_file())
            .map(|lib| Toolkit {
                bin: root.join("bin"),
                lib,
            })
    };
    let cache = std::env::var_os("CUBIN_LD_CUDA_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cubin-ld/cuda-13.5.37"))
        });
    let cached = cache
        .and_then(|c| std::fs::read_dir(c.join("venv/lib")).ok())
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages/nvidia/cu13"))
        .find_map(|root| with_lib(&root));
    cached.or_else(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .find(|d| d.join("nvlink").is_file())
            .filter(|d| pinned(d))
            .and_then(|d| with_lib(d.parent()?))
    })
}

/// Says on the terminal, past the test harness's capture, that `count` checks of `test` were
/// skipped and why: a run without the toolkit must show what it did not check.
#[allow(dead_code)]
pub fn report_skipped(test: &str, count: usize, why: &str) {
    use std::io::Write;
    if count > 0 {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {count} check(s) of {test}: {why}"
        );
    }
}

/// A GNU archive of `members` (no symbol table: nvlink reads every member anyway).
#[allow(dead_code)]
pub fn gnu_archive(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    archive(members, false)
}

/// A GNU archive of `members` (name, bytes), or a thin one naming them.
#[allow(dead_code)]
pub fn archive(members: &[(&str, Vec<u8>)], thin: bool) -> Vec<u8> {
    let mut out = if thin {
        b"!<thin>\n".to_vec()
    } else {
        b"!<arch>\n".to_vec()
    };
    for (name, data) in members {
        let header = format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            format!("{name}/"),
            0,
            0,
            0,
            644,
            data.len()
        );
        out.extend_from_slice(header.as_bytes());
        if !thin {
            out.extend_from_slice(data);
            if data.len() % 2 == 1 {
                out.push(b'\n');
            }
        }
    }
    out
}

/// An sm_90 executable module holding only its three tables (`.shstrtab`, `.strtab`,
/// `.symtab`), for tests that add sections of their own.
#[allow(dead_code)]
pub fn module_with_tables() -> cubin_ld::output::Module {
    use cubin_ld::output::*;
    let mut m = Module {
        e_type: 2,
        e_flags: 0x0600_5a04,
        ..Default::default()
    };
    for (name, t, c) in [
        (&b".shstrtab"[..], 3, Content::Shstrtab),
        (b".strtab", 3, Content::Strtab),
        (b".symtab", 2, Content::Symtab),
    ] {
        m.add_section(OutSection {
            name: name.to_vec(),
            sh_type: t,
            flags: 0,
            align: 8,
            entsize: if t == 2 { 24 } else { 0 },
            link: if t == 2 { Link::Strtab } else { Link::None },
            info: if t == 2 {
                Info::FirstGlobal
            } else {
                Info::None
            },
            content: c,
            group: Group::Tables,
            section_symbol: None,
        });
    }
    m
}

/// A test's scratch folder (`cubin-ld-<tag>-<pid>-<name>` in the temp folder, empty when
/// made): removed when the test passes, kept for a look when it fails.
#[allow(dead_code)]
pub struct Scratch(std::path::PathBuf);

#[allow(dead_code)]
impl Scratch {
    pub fn new(tag: &str, name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("cubin-ld-{tag}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Lines cubin-ld adds where nvlink says nothing, which a comparison with nvlink's recorded
/// messages leaves out: its hints, and its warning for a library no -L folder holds.
#[allow(dead_code)]
pub fn cubin_lds_own_line(line: &str) -> bool {
    line.starts_with("cubin-ld hint") || line.starts_with("cubin-ld warning : library -l")
}
