//! Link-time optimization as a user meets it where it cannot run, and what the corpus's host
//! links (testdata/out/lto, tests/host_links.rs) do not compare: `-emit-ptx`'s text. The
//! LTO links themselves are corpus links, compared with nvlink's there.

mod common;
use common::{report_skipped, toolkit};
use std::path::Path;
use std::process::{Command, Output};

fn lto_object(sm: &str, name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out/lto")
        .join(sm)
        .join("host")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("lto", name)
}

/// An LTO link of the corpus's sm_90 program, with `env` set for cubin-ld.
fn link(env: &[(&str, &str)], extra: &[&str], out: &Path) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cubin-ld"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.args(["-arch=sm_90", "-dlto", "-nvvmpath=/nowhere/nvvm"])
        .args(extra)
        .args(["lto_a.o", "lto_b.o", "lto_c.o"].map(|o| lto_object("sm_90", o)))
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn without_nvjitlink_the_link_fails_saying_where_it_looked() {
    let out = scratch("no-jitlink").join("out.cubin");
    let o = link(
        &[
            ("CUBIN_LD_PTXAS", "/bin/sh"),
            ("CUBIN_LD_NVJITLINK", "/nowhere/libnvJitLink.so"),
        ],
        &[],
        &out,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("nvJitLink library, which was not found")
            && err.contains("/nowhere/libnvJitLink.so"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn without_ptxas_the_link_fails_saying_so() {
    let out = scratch("no-ptxas").join("out.cubin");
    let o = link(&[("CUBIN_LD_PTXAS", "/nowhere/ptxas")], &[], &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("link-time optimization, which needs ptxas"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn emit_ptx_writes_the_optimized_program_nvlink_writes() {
    let Some(tk) = toolkit() else {
        return report_skipped(
            "emit_ptx_writes_the_optimized_program_nvlink_writes",
            1,
            "no CUDA toolkit (scripts/cuda-toolkit.sh)",
        );
    };
    let d = scratch("emit-ptx");
    let nvvm = tk.nvvm();
    let objects = ["lto_a.o", "lto_b.o", "lto_c.o"].map(|o| lto_object("sm_90", o));
    let run = |tool: &Path, out: &str| {
        let o = Command::new(tool)
            .env("CUBIN_LD_PTXAS", tk.bin.join("ptxas"))
            .args(["-arch=sm_90", "-dlto", "-emit-ptx"])
            .arg(format!("-nvvmpath={}", nvvm.display()))
            .args(&objects)
            .arg("-o")
            .arg(d.join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(d.join(out)).unwrap()
    };
    let theirs = run(&tk.bin.join("nvlink"), "nvlink.ptx");
    let ours = run(Path::new(env!("CARGO_BIN_EXE_cubin-ld")), "cubin-ld.ptx");
    assert!(theirs.starts_with(b"//"), "not PTX text");
    assert!(ours == theirs, "the PTX differs from nvlink's");
}
