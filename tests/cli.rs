//! The binaries as a build system sees them: exit codes, messages, and no output file on error.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::gnu_archive;

fn cubin_ld(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .args(args)
        .output()
        .unwrap()
}

fn cubin_dump(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cubin-dump"))
        .args(args)
        .output()
        .unwrap()
}

fn corpus(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("cli", name)
}

/// Redoes a corpus link (`case/sm_XX`) as nvlink ran it: in the case's folder, with the
/// objects' relative names, so messages naming files compare with nvlink's recorded ones.
fn link_as_recorded(case_arch: &str, flags: &[&str], out: &Path) -> Output {
    let dir = corpus(case_arch);
    let arch = case_arch.rsplit('/').next().unwrap();
    let inputs = std::fs::read_to_string(Path::new(&dir).join("inputs")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(&dir)
        .arg(format!("-arch={arch}"))
        .args(flags)
        .args(inputs.lines())
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

/// nvlink's recorded messages for a corpus link (`case/sm_XX`, mode).
fn recorded_log(case_arch: &str, mode: &str) -> String {
    std::fs::read_to_string(Path::new(&corpus(case_arch)).join(format!("{mode}.log"))).unwrap()
}

/// Messages without cubin-ld's hint lines (its advice where nvlink says nothing).
fn without_hints(text: &str) -> String {
    let kept = text
        .split_inclusive('\n')
        .filter(|l| !common::cubin_lds_own_line(l));
    kept.collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The link was refused with exit status `code`, its messages say each of `needles`, and it
/// left no output file.
fn assert_refused(o: &Output, out: &Path, code: i32, needles: &[&str]) {
    assert_eq!(o.status.code(), Some(code), "{}", stderr(o));
    for n in needles {
        assert!(stderr(o).contains(n), "{}", stderr(o));
    }
    assert!(!out.exists(), "a refused link left {}", out.display());
}

#[test]
fn version_and_help_succeed() {
    let v = cubin_ld(&["--version"]);
    assert!(v.status.success());
    assert!(String::from_utf8_lossy(&v.stdout).starts_with("cubin-ld "));
    let h = cubin_ld(&["--help"]);
    assert!(h.status.success());
    let text = String::from_utf8_lossy(&h.stdout);
    for flag in [
        "--arch",
        "--relocatable-link",
        "--preserve-relocs",
        "--library-path",
        "--kernels-used",
    ] {
        assert!(text.contains(flag), "help lacks {flag}");
    }
}

/// The options `--help` lists, by long name.
fn help_options() -> Vec<String> {
    let h = cubin_ld(&["--help"]);
    let text = String::from_utf8_lossy(&h.stdout).into_owned();
    let names = text.lines().filter_map(|l| {
        let l = l.trim_start();
        let at = l.find("--")?;
        (l.starts_with('-') && at < 40)
            .then(|| l[at..].split([' ', '[', ',']).next().unwrap().to_string())
    });
    names.collect()
}

#[test]
fn help_describes_every_option_in_one_line() {
    let h = cubin_ld(&["--help"]);
    let text = String::from_utf8_lossy(&h.stdout);
    let opts = help_options();
    assert!(opts.len() > 50, "{opts:?}");
    for o in &opts {
        let at = text
            .find(&format!("{o} "))
            .or_else(|| text.find(&format!("{o}\n")))
            .or_else(|| text.find(&format!("{o}[")));
        let rest = &text[at.unwrap_or_else(|| panic!("{o}"))..];
        let line: String = rest.lines().take(2).collect();
        let words = line.split_whitespace().count();
        assert!(words >= 4, "--help gives {o} no description: {line}");
    }
}

#[test]
fn the_man_page_describes_every_option_help_lists() {
    let man =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/man/cubin-ld.1")).unwrap();
    for o in help_options() {
        let roff = o.replace('-', "\\-");
        assert!(man.contains(&roff), "man/cubin-ld.1 does not describe {o}");
    }
}

#[test]
fn every_option_in_the_man_page_starts_its_own_paragraph() {
    let man =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/man/cubin-ld.1")).unwrap();
    let options = &man[man.find(".SH OPTIONS").unwrap()..man.find(".SH COMMAND LINE").unwrap()];
    let lines: Vec<&str> = options.lines().collect();
    for pair in lines.windows(2) {
        let heading = [".BR \\-", ".BI \\-", ".B \\-"]
            .iter()
            .any(|h| pair[1].starts_with(h));
        assert!(!heading || pair[0] == ".TP", "no .TP before: {}", pair[1]);
    }
}

#[test]
fn unknown_options_are_fatal_with_nvlinks_wording() {
    let o = cubin_ld(&["-arch=sm_90", "-bogus", "a.o"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "cubin-ld fatal   : Unknown option 'bogus'"
    );
}

#[test]
fn unsupported_options_are_named_as_such() {
    let d = scratch("lto");
    let out = d.join("out.cubin");
    let o = cubin_ld(&[
        "-arch=sm_90",
        "-lto",
        "-nvvmpath",
        "/nowhere",
        "-Xnvvm",
        "-O3",
        &corpus("xtu_call/sm_90/a.o"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_refused(&o, &out, 1, &["'-Xnvvm' is not supported with -dlto"]);
}

#[test]
fn a_missing_input_is_named_and_no_output_is_written() {
    let d = scratch("missing");
    let out = d.join("out.cubin");
    let o = cubin_ld(&[
        "-arch",
        "sm_90",
        "nonexistent.o",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("Could not open input file 'nonexistent.o'"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

#[test]
fn a_non_cuda_input_is_named_with_the_reason() {
    let d = scratch("garbage");
    let bad = d.join("bad.o");
    let mut garbage = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0garbage".to_vec();
    garbage.resize(128, b'x');
    std::fs::write(&bad, garbage).unwrap();
    let out = d.join("out.cubin");
    let o = cubin_ld(&[
        "--arch=sm_90",
        bad.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0));
    let e = stderr(&o);
    assert!(e.contains("bad.o") && e.contains("damaged host ELF"), "{e}");
    assert!(!out.exists());
}

#[test]
fn an_unknown_arch_is_fatal() {
    let o = cubin_ld(&["-arch=sm_70", &corpus("xtu_call/sm_90/a.o")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("Value 'sm_70' is not defined for option 'arch'"));
}

#[test]
fn a_dlto_link_without_lto_ir_is_a_plain_link_with_nvlinks_warning() {
    let d = scratch("dlto-plain");
    let out = d.join("out.cubin");
    let a = corpus("constant/sm_100/a.o");
    let o = cubin_ld(&[
        "-arch=sm_100",
        "-dlto",
        "-nvvmpath=/nowhere",
        &a,
        &corpus("constant/sm_100/b.o"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "info    : requested LTO but '{a}' not built for LTO so doing partial LTO"
        )) && err.contains("warning : Ignoring -dlto option because no LTO objects found"),
        "{err}"
    );
    assert!(out.exists());
}

#[test]
fn preserve_relocs_records_applied_relocations_on_sm_80_and_sm_90() {
    for sm in ["sm_80", "sm_90"] {
        let d = scratch(&format!("pr-{sm}"));
        let out = d.join("out.cubin");
        let o = cubin_ld(&[
            &format!("-arch={sm}"),
            "-preserve-relocs",
            &corpus(&format!("xtu_call/{sm}/a.o")),
            &corpus(&format!("xtu_call/{sm}/b.o")),
            &corpus(&format!("xtu_call/{sm}/c.o")),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let bytes = std::fs::read(&out).unwrap();
        assert!(
            bytes.windows(16).any(|w| w == b".nv.resolvedrela"),
            "{sm}: no .nv.resolvedrela section in the output"
        );
    }
}

#[test]
fn an_executable_link_writes_its_output_and_nothing_else() {
    let d = scratch("link");
    let out = d.join("xtu.cubin");
    let o = cubin_ld(&[
        "-arch=sm_90",
        &corpus("xtu_call/sm_90/a.o"),
        &corpus("xtu_call/sm_90/b.o"),
        &corpus("xtu_call/sm_90/c.o"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.is_file());
    let left: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "temporary files left behind: {left:?}");
}

#[test]
fn link_errors_are_reported_as_nvlink_reports_them_without_output() {
    let d = scratch("dup");
    let out = d.join("out.cubin");
    let o = cubin_ld(&[
        "-arch=sm_90",
        &corpus("dup_function/sm_90/a.o"),
        &corpus("dup_function/sm_90/b.o"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_refused(
        &o,
        &out,
        1,
        &[
            "cubin-ld error   : Multiple definition of '_Z6dup_fni' in '",
            "cubin-ld fatal   : merge_elf failed",
        ],
    );
    let o = cubin_ld(&[
        "-arch=sm_90",
        &corpus("undefined/sm_90/a.o"),
        &corpus("undefined/sm_90/b.o"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_refused(&o, &out, 255, &["Undefined reference to '_Z10missing_fni'"]);
}

#[test]
fn cubin_dump_compare_exits_zero_when_equal_and_one_when_not() {
    let a = corpus("xtu_call/sm_90/default.cubin");
    let b = corpus("xtu_call/sm_90/pr.cubin");
    assert_eq!(cubin_dump(&["--compare", &a, &a]).status.code(), Some(0));
    let o = cubin_dump(&["--compare", &a, &b]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("difference(s)"));
}

#[test]
fn cubin_dump_compares_a_saved_dump_with_a_cubin() {
    let a = corpus("globals/sm_100/default.cubin");
    let d = scratch("saved");
    let saved = d.join("a.txt");
    let o = cubin_dump(&[&a]);
    assert!(o.status.success());
    std::fs::write(&saved, &o.stdout).unwrap();
    assert_eq!(
        cubin_dump(&["--compare", saved.to_str().unwrap(), &a])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn cubin_dump_reads_the_cubin_inside_a_host_object() {
    let host = corpus("address_taken_externs/sm_90/host/a.o");
    let o = cubin_dump(&[&host]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with(&format!("== {host} [sm_90]\n")), "{text}");
    let cubin = corpus("address_taken_externs/sm_90/a.o");
    assert_eq!(
        cubin_dump(&["--compare", &host, &cubin]).status.code(),
        Some(0)
    );
}

#[test]
fn cubin_dump_names_an_unreadable_file() {
    let o = cubin_dump(&["/nonexistent/x.cubin"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/x.cubin"));
}

#[test]
fn output_is_identical_at_any_thread_count() {
    let d = scratch("threads");
    let inputs: Vec<String> = ["a.o", "b.o", "c.o"]
        .iter()
        .map(|f| corpus(&format!("xtu_call/sm_75/{f}")))
        .collect();
    let mut outs = Vec::new();
    for threads in ["1", "2", "8"] {
        let out = d.join(format!("out{threads}.cubin"));
        let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
            .env("RAYON_NUM_THREADS", threads)
            .arg("-arch=sm_75")
            .args(&inputs)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        outs.push(std::fs::read(&out).unwrap());
    }
    assert!(outs.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn verbose_output_with_warnings_reads_as_nvlinks_recorded_messages() {
    // Warnings once, before the report (nvlink does not repeat them).
    let d = scratch("verbose-warn");
    let out = d.join("out.cubin");
    let o = link_as_recorded("recursion/sm_90", &["-v"], &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).replace("cubin-ld ", "nvlink "),
        recorded_log("recursion/sm_90", "verbose")
    );
}

#[test]
fn an_arch_mismatch_hints_at_the_inputs_own_target() {
    let d = scratch("arch-hint");
    let out = d.join("out.cubin");
    let o = link_as_recorded("arch_mismatch/sm_90", &[], &out);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).ends_with(
            "cubin-ld hint    : 'b.o' holds code for sm_80: build it for sm_90 (nvcc \
             -arch=sm_90), or link for its target\n"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_duplicate_definition_hints_at_what_to_do() {
    let d = scratch("dup-hint");
    let o = link_as_recorded("dup_function/sm_90", &[], &d.join("out.cubin"));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("cubin-ld fatal   : merge_elf failed\ncubin-ld hint    : each name above is defined in two inputs: keep one definition"), "{err}");
}

#[test]
fn dynamic_parallelism_without_the_device_runtime_hints_at_lcudadevrt() {
    let d = scratch("cdp-hint");
    let o = link_as_recorded("dynpar/sm_90", &[], &d.join("out.cubin"));
    assert_eq!(o.status.code(), Some(255));
    assert!(
        stderr(&o).contains(
            "cubin-ld hint    : '__cudaCDP2GetParameterBufferV2' is in the CUDA device runtime \
             (dynamic parallelism): link with -lcudadevrt"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_file_too_short_to_be_an_object_hints_at_its_size() {
    let d = scratch("tiny-hint");
    std::fs::write(d.join("tiny.o"), b"not an object").unwrap();
    let o = cubin_ld(&[
        "-arch=sm_90",
        d.join("tiny.o").to_str().unwrap(),
        "-o",
        d.join("out.cubin").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).ends_with(
            "tiny.o' is 13 bytes: too short to be an object, archive or fatbin (nvlink cannot \
             open a file under 56 bytes)\n"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_library_no_l_folder_holds_is_named_in_a_warning_and_skipped() {
    let d = scratch("lnosuch");
    let out = d.join("out.cubin");
    let mut args: Vec<String> = ["a.o", "b.o", "c.o"]
        .iter()
        .map(|f| corpus(&format!("xtu_call/sm_90/{f}")))
        .collect();
    args.extend(["-arch=sm_90", "-lnosuch", "-o"].map(String::from));
    args.push(out.display().to_string());
    args.push(format!("-L{}", d.display()));
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = cubin_ld(&words);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "cubin-ld warning : library -lnosuch skipped: no libnosuch.a found (searched {})\n",
            d.display()
        )
    );
    // (-w silences it; -Werror does not fail the link nvlink makes.)
    let o = cubin_ld(&[&words[..], &["-w"]].concat());
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
    let o = cubin_ld(&[&words[..], &["-Werror"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn architecture_refusals_read_as_nvlinks_recorded_messages() {
    // arch_family: sm_100a code into sm_100, sm_100 code into sm_110 (another major
    // version), sm_90 code into sm_120 (warning, then the error). Run where nvlink ran, with
    // the same relative names, so the messages compare whole.
    let d = scratch("arch-family");
    let out = d.join("out.cubin");
    for arch in ["sm_100", "sm_110", "sm_120"] {
        let case = format!("arch_family/{arch}");
        let o = link_as_recorded(&case, &[], &out);
        assert_eq!(o.status.code(), Some(1), "{arch}: {}", stderr(&o));
        assert_eq!(
            without_hints(&stderr(&o)).replace("cubin-ld ", "nvlink "),
            recorded_log(&case, "default"),
            "{arch}"
        );
        assert!(!out.exists());
    }
}

#[test]
fn options_nvlink_refuses_together_are_refused_together() {
    for pair in [
        ["-dump-callgraph", "-dump-callgraph-no-demangle"],
        ["-use-host-info", "-ignore-host-info"],
        ["-suppress-debug-info", "-w"],
    ] {
        let o = cubin_ld(&[
            "-arch=sm_90",
            pair[0],
            pair[1],
            &corpus("xtu_call/sm_90/a.o"),
        ]);
        assert_eq!(o.status.code(), Some(1), "{pair:?}");
        assert!(stderr(&o).contains("Conflicting options"), "{}", stderr(&o));
    }
}

#[test]
fn time_trace_writes_the_passes_as_a_chrome_trace_and_the_same_output() {
    let d = scratch("time-trace");
    let (plain, traced, trace) = (
        d.join("plain.cubin"),
        d.join("traced.cubin"),
        d.join("t.json"),
    );
    let inputs = [
        corpus("xtu_call/sm_90/a.o"),
        corpus("xtu_call/sm_90/b.o"),
        corpus("xtu_call/sm_90/c.o"),
    ];
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let link = |out: &Path, extra: &[&str]| {
        let mut a = vec!["-arch=sm_90", "-o", out.to_str().unwrap()];
        a.extend(extra);
        a.extend(&inputs);
        assert!(cubin_ld(&a).status.success());
    };
    link(&plain, &[]);
    let flag = format!("--time-trace={}", trace.display());
    link(&traced, &[&flag]);
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&traced).unwrap()
    );
    let json = std::fs::read_to_string(&trace).unwrap();
    assert!(
        json.starts_with("{\"displayTimeUnit\":\"ms\",\"traceEvents\":["),
        "{json}"
    );
    for pass in [
        "load", "resolve", "liveness", "merge", "relocate", "layout", "write",
    ] {
        assert!(
            json.contains(&format!(
                "{{\"name\":\"{pass}\",\"cat\":\"cubin-ld\",\"ph\":\"X\",\"ts\":"
            )),
            "{pass} missing: {json}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_response_file_holds_the_command_line() {
    let d = scratch("rsp");
    let out = d.join("out.cubin");
    std::fs::write(
        d.join("link.rsp"),
        format!(
            "-arch=sm_90 -o {} {} {}",
            out.display(),
            corpus("xtu_call/sm_90/a.o"),
            corpus("xtu_call/sm_90/b.o")
        ),
    )
    .unwrap();
    let rsp = format!("@{}", d.join("link.rsp").display());
    let o = cubin_ld(&[&rsp, &corpus("xtu_call/sm_90/c.o")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// The files of a tar archive (ustar, as `--reproduce` writes it): (path, bytes).
fn untar(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let field = |h: &[u8], at: usize, n: usize| {
        let f = &h[at..at + n];
        String::from_utf8_lossy(&f[..f.iter().position(|&b| b == 0).unwrap_or(n)]).into_owned()
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at + 512 <= bytes.len() && bytes[at] != 0 {
        let h = &bytes[at..at + 512];
        let (prefix, name) = (field(h, 345, 155), field(h, 0, 100));
        let path = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let size = usize::from_str_radix(field(h, 124, 12).trim(), 8).unwrap();
        out.push((path, bytes[at + 512..at + 512 + size].to_vec()));
        at += 512 + size.next_multiple_of(512);
    }
    out
}

#[test]
fn a_reproduce_archive_relinks_to_the_same_bytes() {
    let d = scratch("reproduce");
    let host = |f: &str| std::fs::read(corpus(&format!("xtu_call/sm_90/host/{f}"))).unwrap();
    std::fs::write(
        d.join("libbc.a"),
        gnu_archive(&[("b.o", host("b.o")), ("c.o", host("c.o"))]),
    )
    .unwrap();
    let a = corpus("xtu_call/sm_90/host/a.o");
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(&d)
        .args(["-arch=sm_90", "-o", "out.cubin", "-L", ".", "-lbc", &a])
        .args(["--register-link-binaries=reg.c", "--reproduce=repro.tar"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = untar(&std::fs::read(d.join("repro.tar")).unwrap());
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "repro/response.txt",
            "repro/version.txt",
            "repro/files/0/a.o",
            "repro/libbc.a"
        ]
    );
    let again = d.join("again");
    for (name, bytes) in &files {
        let p = again.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(again.join("repro"))
        .arg("@response.txt")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for made in ["out.cubin", "reg.c"] {
        assert_eq!(
            std::fs::read(d.join(made)).unwrap(),
            std::fs::read(again.join("repro").join(made)).unwrap(),
            "{made}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A link that fails on an undefined reference, with `flags`: its stderr.
fn undefined_reference(flags: &[&str]) -> String {
    let d = scratch(&format!("diag-{}", flags.join("").replace(['-', '='], "")));
    let mut a = vec!["-arch=sm_90", "-o"];
    let out = d.join("out.cubin");
    a.push(out.to_str().unwrap());
    a.extend(flags);
    let input = corpus("dead_code/sm_90/a.o");
    a.push(&input);
    let o = cubin_ld(&a);
    assert_eq!(o.status.code(), Some(255));
    String::from_utf8(o.stderr).unwrap()
}

#[test]
fn diagnostics_are_plain_where_stderr_is_not_a_terminal() {
    let e = undefined_reference(&[]);
    assert!(
        e.starts_with("cubin-ld error   : Undefined reference to '_Z6used_bi'"),
        "{e}"
    );
}

#[test]
fn color_always_colours_the_message_kind() {
    let e = undefined_reference(&["--color=always"]);
    assert!(
        e.starts_with("\x1b[1;31mcubin-ld error   \x1b[0m: Undefined reference"),
        "{e}"
    );
}

#[test]
fn json_diagnostics_are_one_object_per_line() {
    let e = undefined_reference(&["--diagnostics-format=json"]);
    let a = corpus("dead_code/sm_90/a.o");
    assert_eq!(
        e,
        format!(
            "{{\"severity\":\"error\",\"code\":\"undefined-reference\",\"symbol\":\"_Z6used_bi\",\
             \"file\":\"{a}\",\"function\":\"_Z6k_livePi\",\"message\":\"Undefined reference to \
             '_Z6used_bi' in '{a}' (from '_Z6k_livePi'); kept by '_Z6k_livePi' [a kernel]\"}}\n"
        )
    );
}

#[test]
fn json_diagnostics_answer_a_command_line_that_does_not_parse() {
    let o = cubin_ld(&[
        "-arch=sm_90",
        "--no-such-option",
        "--diagnostics-format=json",
        "a.o",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "{\"severity\":\"fatal\",\"code\":\"unknown-option\",\"option\":\"-no-such-option\",\
         \"message\":\"Unknown option '-no-such-option'\"}\n"
    );
}

#[test]
fn json_diagnostics_name_the_file_and_section_of_a_damaged_input() {
    let d = scratch("json-damaged");
    let mut bytes = std::fs::read(corpus("xtu_call/sm_90/a.o")).unwrap();
    // (The first code section's size past the end of the file.)
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let shoff = u64_at(&bytes, 0x28) as usize;
    let shnum = u16::from_le_bytes([bytes[0x3c], bytes[0x3d]]) as usize;
    let code = (0..shnum)
        .map(|i| shoff + i * 64)
        .find(|&h| bytes[h + 4] == 1 && u64_at(&bytes, h + 8) & 4 != 0)
        .unwrap();
    bytes[code + 32..code + 40].copy_from_slice(&0x7fff_ffffu64.to_le_bytes());
    let bad = d.join("bad.o");
    std::fs::write(&bad, &bytes).unwrap();
    let o = cubin_ld(&[
        "-arch=sm_90",
        "--diagnostics-format=json",
        bad.to_str().unwrap(),
        "-o",
        d.join("out.cubin").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with(&format!(
            "{{\"severity\":\"fatal\",\"code\":\"invalid-input\",\"file\":\"{}\",\"section\":\
             \".text._Z7a_locali\",",
            bad.display()
        )),
        "{}",
        stderr(&o)
    );
}

#[test]
fn no_progress_line_when_stderr_is_not_a_terminal() {
    let d = scratch("progress");
    let out = d.join("out.cubin");
    let o = cubin_ld(&[
        "-arch=sm_90",
        &corpus("xtu_call/sm_90/a.o"),
        &corpus("xtu_call/sm_90/b.o"),
        &corpus("xtu_call/sm_90/c.o"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn demangle_shows_cpp_names_in_messages_demangled_with_the_mangled_form() {
    let e = undefined_reference(&["--demangle"]);
    assert!(
        e.starts_with("cubin-ld error   : Undefined reference to 'used_b(int)' (_Z6used_bi) in '"),
        "{e}"
    );
    assert!(e.contains("(from 'k_live(int*)' (_Z6k_livePi))"), "{e}");
    assert!(
        e.contains("kept by 'k_live(int*)' (_Z6k_livePi) [a kernel]"),
        "{e}"
    );
}

#[test]
fn a_link_without_a_target_says_that_arch_is_missing() {
    let o = cubin_ld(&["a.o", "-o", "out.cubin"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("Unknown arch name '(null)': no target was given; name one with -arch"),
        "{err}"
    );
}

#[test]
fn a_map_to_dash_goes_to_standard_output() {
    let d = scratch("map-dash");
    let out = d.join("out.cubin");
    let objs: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|o| corpus(&format!("xtu_call/sm_90/{o}.o")))
        .collect();
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(&d)
        .args(["-arch=sm_90", "-Map=-"])
        .args(&objs)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Sections (header order)"));
    assert!(!d.join("-").exists(), "a file named '-' was written");
}

#[test]
fn an_output_in_a_missing_folder_is_refused_in_plain_words() {
    let objs: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|o| corpus(&format!("xtu_call/sm_90/{o}.o")))
        .collect();
    let mut args = vec!["-arch=sm_90".to_string()];
    args.extend(objs);
    args.extend(["-o".into(), "/nonexistent/x.cubin".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = cubin_ld(&args);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(
            "Could not open output file '/nonexistent/x.cubin': No such file or directory"
        ) && !err.contains("os error"),
        "{err}"
    );
}
