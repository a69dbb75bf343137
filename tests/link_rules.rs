//! The link rules, one behaviour per test, each checked on cubin-ld's own output with the
//! expected value read from (or cross-checked against) nvlink's output for the same inputs.

use std::path::{Path, PathBuf};

fn dir(case_arch: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out")
        .join(case_arch)
}

/// Links a corpus case with cubin-ld (extra flags allowed) into a fresh temporary file;
/// returns the file (absent when the link failed) and the outcome.
fn link_to_temp(
    case_arch: &str,
    flags: &[&str],
) -> (PathBuf, Result<cubin_ld::LinkOutcome, cubin_ld::Failure>) {
    let d = dir(case_arch);
    let arch = case_arch.rsplit('/').next().unwrap();
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("cubin-ld-rules-{}-{n}.cubin", std::process::id()));
    let mut args: Vec<String> = vec![
        format!("-arch={arch}"),
        "-o".into(),
        out.display().to_string(),
    ];
    args.extend(flags.iter().map(|s| s.to_string()));
    for l in std::fs::read_to_string(d.join("inputs")).unwrap().lines() {
        args.push(d.join(l).display().to_string());
    }
    let r = cubin_ld::link(&cubin_ld::cli::parse(&args).unwrap());
    (out, r)
}

/// Links a corpus case with cubin-ld (extra flags allowed) and returns its dump.
fn link(case_arch: &str, flags: &[&str]) -> Result<String, cubin_ld::Failure> {
    let (out, r) = link_to_temp(case_arch, flags);
    r?;
    let text = cubin_ld::dump::dump_bytes(&std::fs::read(&out).unwrap())
        .unwrap()
        .text;
    std::fs::remove_file(&out).unwrap();
    Ok(text)
}

/// Links a corpus case with cubin-ld (extra flags allowed) and returns what it reported.
fn run(case_arch: &str, flags: &[&str]) -> Result<cubin_ld::LinkOutcome, cubin_ld::Failure> {
    let (out, r) = link_to_temp(case_arch, flags);
    let _ = std::fs::remove_file(&out);
    r
}

/// nvlink's recorded messages for one link, without the `nvlink <kind> : ` lines' prefix.
fn nvlink_lines(case_arch: &str, mode: &str) -> Vec<String> {
    std::fs::read_to_string(dir(case_arch).join(format!("{mode}.log")))
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn nvlink(case_arch: &str, mode: &str) -> String {
    cubin_ld::dump::dump_bytes(
        &std::fs::read(dir(case_arch).join(format!("{mode}.cubin"))).unwrap(),
    )
    .unwrap()
    .text
}

/// The body lines of one dump item (`section X`, `symbol .symtab X`).
fn item<'a>(dump: &'a str, key: &str) -> Vec<&'a str> {
    let mut lines = dump.lines().skip_while(|l| *l != key);
    if lines.next().is_none() {
        return Vec::new();
    }
    lines.take_while(|l| l.starts_with(' ')).collect()
}

fn record<'a>(dump: &'a str, attr: &str, sym: &str) -> Option<&'a str> {
    item(dump, "section .nv.info")
        .into_iter()
        .find(|l| l.contains(attr) && l.contains(&format!(" {sym} ")))
}

#[test]
fn a_strong_definition_replaces_an_earlier_weak_one() {
    let ours = link("weak_strong/sm_90", &[]).unwrap();
    let theirs = nvlink("weak_strong/sm_90", "default");
    let key = "symbol .symtab _Z5ws_fni";
    assert!(
        item(&ours, key)[0].contains("bind GLOBAL"),
        "{:?}",
        item(&ours, key)
    );
    assert_eq!(
        item(&ours, "section .text._Z5ws_fni"),
        item(&theirs, "section .text._Z5ws_fni")
    );
    assert_eq!(
        item(&ours, "symbol .symtab ws_var"),
        item(&theirs, "symbol .symtab ws_var")
    );
}

#[test]
fn the_first_of_several_weak_definitions_wins() {
    let ours = link("weak_inline/sm_90", &[]).unwrap();
    let a =
        cubin_ld::dump::dump_bytes(&std::fs::read(dir("weak_inline/sm_90").join("a.o")).unwrap())
            .unwrap()
            .text;
    let body = |d: &str| {
        item(d, "section .text._Z4tsumIiET_S0_S0_")
            .into_iter()
            .filter(|l| l.starts_with("    "))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(body(&ours), body(&a));
    assert!(item(&ours, "symbol .symtab _Z4tsumIiET_S0_S0_")[0].contains("bind WEAK"));
}

#[test]
fn names_the_driver_provides_stay_undefined() {
    let ours = link("printf_malloc/sm_90", &[]).unwrap();
    for name in [
        "vprintf",
        "malloc",
        "free",
        "__assertfail",
        ".nv.reservedSmem.offset0",
    ] {
        let l = item(&ours, &format!("symbol .symtab {name}"));
        assert!(l[0].contains("section UND"), "{name}: {l:?}");
    }
}

#[test]
fn unified_table_placeholders_do_not_reach_the_executable() {
    let ours = link("xtu_call/sm_90", &[]).unwrap();
    for name in ["__UFT_OFFSET", "__UDT_OFFSET", "__UFT", "__UDT_END"] {
        assert!(
            item(&ours, &format!("symbol .symtab {name}")).is_empty(),
            "{name}"
        );
    }
}

#[test]
fn a_kernels_register_count_is_raised_to_its_callees_maximum() {
    let ours = link("regpressure/sm_90", &[]).unwrap();
    let theirs = nvlink("regpressure/sm_90", "default");
    let k = record(&ours, "EIATTR_REGCOUNT", "_Z7k_lightPfPKf").unwrap();
    assert_eq!(
        Some(k),
        record(&theirs, "EIATTR_REGCOUNT", "_Z7k_lightPfPKf")
    );
    assert_eq!(
        k,
        record(&ours, "EIATTR_REGCOUNT", "_Z5heavyPKfi")
            .unwrap()
            .replace("_Z5heavyPKfi", "_Z7k_lightPfPKf")
    );
}

#[test]
fn a_kernels_minimum_stack_is_its_frame_plus_the_deepest_call_path() {
    for arch in ["sm_75", "sm_90"] {
        let ca = format!("callchain_stack/{arch}");
        let ours = link(&ca, &[]).unwrap();
        let theirs = nvlink(&ca, "default");
        for k in ["_Z7k_chainPi", "_Z10k_leafonlyPi", "_Z9k_nostackPi"] {
            assert_eq!(
                record(&ours, "MIN_STACK_SIZE", k),
                record(&theirs, "MIN_STACK_SIZE", k),
                "{ca} {k}"
            );
        }
    }
    // sm_90: k_chain (frame 0) -> mid (0xb8) -> leaf (0x118) -> leaf2 (0x48) = 0x218.
    let ours = link("callchain_stack/sm_90", &[]).unwrap();
    assert!(record(&ours, "MIN_STACK_SIZE", "_Z7k_chainPi")
        .unwrap()
        .ends_with(" 0x218"));
}

#[test]
fn recursion_makes_the_stack_size_unknown_and_warns() {
    let outcome = run("recursion/sm_90", &[]).unwrap();
    let expected: Vec<String> = nvlink_lines("recursion/sm_90", "default")
        .iter()
        .filter_map(|l| l.strip_prefix("nvlink warning : ").map(String::from))
        .collect();
    assert_eq!(outcome.warnings, expected);
    let ours = link("recursion/sm_90", &["-suppress-stack-size-warning"]).unwrap();
    assert!(record(&ours, "MIN_STACK_SIZE", "_Z5k_recPi")
        .unwrap()
        .ends_with(" 0xffffffff"));
    assert!(record(&ours, "MIN_STACK_SIZE", "_Z7k_norecPi")
        .unwrap()
        .ends_with(" 0x0"));
}

#[test]
fn warnings_become_errors_under_werror() {
    let f = link("recursion/sm_90", &["-Werror"]).unwrap_err();
    assert_eq!(f.code, 255);
    assert_eq!(f.errors.len(), 2);
}

#[test]
fn device_functions_no_kernel_reaches_are_removed_but_variables_stay() {
    let ours = link("dead_code/sm_90", &[]).unwrap();
    for gone in ["_Z6dead_bi", "_Z13unreachable_bi"] {
        assert!(
            item(&ours, &format!("symbol .symtab {gone}")).is_empty(),
            "{gone} survived"
        );
    }
    for kept in [
        "_Z6dead_ai",
        "_Z10k_unused_aPi",
        "dead_var_a",
        "dead_var_b",
        "dead_const_a",
    ] {
        assert!(
            !item(&ours, &format!("symbol .symtab {kept}")).is_empty(),
            "{kept} was removed"
        );
    }
}

#[test]
fn kernels_used_keeps_only_matching_kernels_and_what_they_reach() {
    let ours = link("dead_code/sm_90", &["-kernels-used=k_live"]).unwrap();
    assert!(!item(&ours, "symbol .symtab _Z6used_bi").is_empty());
    assert!(item(&ours, "symbol .symtab _Z10k_unused_aPi").is_empty());
    assert!(
        !item(&ours, "symbol .symtab dead_var_b").is_empty(),
        "variables are never removed"
    );
}

#[test]
fn a_callee_above_the_launch_bounds_register_limit_is_an_error_naming_both() {
    let f = link("launch_bounds_error/sm_90", &[]).unwrap_err();
    assert_eq!(f.code, 255);
    let expected =
        std::fs::read_to_string(dir("launch_bounds_error/sm_90").join("default.log")).unwrap();
    // nvlink's words, then (cubin-ld's own) the call chain to the callee.
    let (theirs, chain) = f.errors[0].split_once("; call chain: ").unwrap();
    assert_eq!(format!("nvlink error   : {theirs}\n"), expected);
    assert_eq!(chain, "'_Z10k_light_lbPfPKf' -> '_Z5heavyPKfi'");
}

#[test]
fn static_shared_objects_get_disjoint_offsets_and_kernels_their_reach() {
    let ours = link("static_shared/sm_90", &[]).unwrap();
    let theirs = nvlink("static_shared/sm_90", "default");
    for k in ["_Z5k_sh1PKfPf", "_Z5k_sh2PKfPf", "_Z5k_sh3PKfPf"] {
        let key = format!("section .nv.shared.{k}");
        assert_eq!(item(&ours, &key), item(&theirs, &key), "{k}");
    }
    // sm_90 reserves 0x400 bytes per kernel on top of its objects.
    assert!(item(&ours, "section .nv.shared._Z5k_sh3PKfPf")[0].contains("size 0xc00"));
}

#[test]
fn extern_shared_arrays_start_after_the_kernels_static_objects() {
    for arch in ["sm_75", "sm_90"] {
        let ca = format!("extern_shared/{arch}");
        let ours = link(&ca, &[]).unwrap();
        let theirs = nvlink(&ca, "default");
        for k in ["_Z14k_dyn_static_aPf", "_Z7k_dyn_aPfi", "_Z7k_dyn_bPfi"] {
            let key = format!("section .text.{k}");
            assert_eq!(item(&ours, &key), item(&theirs, &key), "{ca} {k}");
        }
    }
}

#[test]
fn verbose_reports_each_kernels_resources_as_nvlink_does() {
    for case in ["static_shared", "callchain_stack"] {
        for arch in ["sm_75", "sm_89", "sm_90"] {
            let ca = format!("{case}/{arch}");
            let outcome = run(&ca, &["-v"]).unwrap();
            let expected: Vec<String> = nvlink_lines(&ca, "verbose")
                .iter()
                .filter_map(|l| l.strip_prefix("nvlink info    : ").map(String::from))
                .collect();
            assert_eq!(outcome.infos, expected, "{ca}");
        }
    }
}

#[test]
fn an_undefined_reference_names_the_file_the_function_that_makes_it_and_its_chain_from_a_kernel() {
    let f = link("undefined/sm_90", &[]).unwrap_err();
    assert_eq!(f.code, 255);
    assert_eq!(
        f.errors,
        vec![
            "Undefined reference to '_Z10missing_fni' in '{d}/a.o' (from '_Z7k_undefPi'); kept \
             by '_Z7k_undefPi' [a kernel]"
                .replace("{d}", &dir("undefined/sm_90").display().to_string()),
            "Undefined reference to 'missing_var' in '{d}/b.o' (from '_Z10present_fni'); kept by \
             '_Z7k_undefPi' [a kernel] -> '_Z10present_fni'"
                .replace("{d}", &dir("undefined/sm_90").display().to_string()),
        ]
    );
}

#[test]
fn dump_callgraph_prints_what_nvlink_prints() {
    let mut checked = 0;
    for case in [
        "virtual",
        "weak_inline",
        "printf_malloc",
        "funcptr",
        "callchain_stack",
        "extern_shared",
        "regpressure",
    ] {
        for arch in ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"] {
            let ca = format!("{case}/{arch}");
            let outcome = run(&ca, &["--dump-callgraph"]).unwrap();
            let expected: Vec<String> = nvlink_lines(&ca, "callgraph")
                .into_iter()
                .filter(|l| !l.starts_with("nvlink "))
                .collect();
            assert_eq!(outcome.callgraph, expected, "{ca}");
            checked += 1;
        }
    }
    assert_eq!(checked, 35);
}

/// The top byte of e_flags and the index of `.note.nv.cuinfo` in a dump.
fn eflags_top_and_cuinfo_index(dump: &str) -> (u32, Option<u32>) {
    let flags = dump
        .lines()
        .find_map(|l| l.trim().strip_prefix("flags 0x"))
        .and_then(|l| u32::from_str_radix(l.split_whitespace().next()?, 16).ok())
        .unwrap();
    let index = dump
        .lines()
        .filter(|l| l.starts_with("section "))
        .position(|l| l == "section .note.nv.cuinfo")
        .map(|i| i as u32 + 1);
    (flags >> 24, index)
}

#[test]
fn eflags_top_byte_is_the_index_of_the_cuinfo_note() {
    // -lineinfo: two objects' extra debug sections put the note at 10 (nvlink: 0x0a...).
    for case in [
        "lineinfo/sm_90",
        "lineinfo/sm_100",
        "debug_g/sm_90",
        "xtu_call/sm_75",
    ] {
        let ours = eflags_top_and_cuinfo_index(&link(case, &[]).unwrap());
        assert_eq!(
            ours,
            eflags_top_and_cuinfo_index(&nvlink(case, "default")),
            "{case}"
        );
        assert_eq!(Some(ours.0), ours.1, "{case}");
    }
}

#[test]
fn eflags_top_byte_follows_the_note_in_partial_and_debug_links() {
    for (case, mode, flags) in [
        ("lineinfo/sm_90", "r", &["-r"][..]),
        ("debug_constant/sm_90", "g", &["-g"][..]),
        (
            "debug_constant/sm_100",
            "g_pr",
            &["-g", "-preserve-relocs"][..],
        ),
    ] {
        let ours = eflags_top_and_cuinfo_index(&link(case, flags).unwrap());
        assert_eq!(
            ours,
            eflags_top_and_cuinfo_index(&nvlink(case, mode)),
            "{case} {mode}"
        );
    }
}

/// Links one object of a case after `patch` changed its bytes.
fn link_patched(
    case_arch: &str,
    object: &str,
    patch: impl Fn(&mut Vec<u8>),
) -> std::process::Output {
    let d = dir(case_arch);
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp =
        std::env::temp_dir().join(format!("cubin-ld-rules-patched-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut bytes = std::fs::read(d.join(object)).unwrap();
    patch(&mut bytes);
    let input = tmp.join(object);
    std::fs::write(&input, bytes).unwrap();
    let out = tmp.join(format!("{object}.cubin"));
    let arch = case_arch.rsplit('/').next().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .arg(format!("-arch={arch}"))
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_dir_all(&tmp);
    o
}

#[test]
fn an_input_whose_eflags_name_another_section_than_its_cuinfo_note_is_refused() {
    // (nvlink's words: it takes such an object for one made before CUDA 12.0.)
    let o = link_patched("debug_leaf/sm_90", "a.o", |b| b[51] += 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("Input file '")
            && err.contains("must be recompiled with toolkit >= Cuda 12.0"),
        "{err}"
    );
}

/// The toolkit version in an object's `.note.nv.cuinfo` (its place in the file).
fn cuinfo_toolkit_at(bytes: &[u8]) -> usize {
    // (namesz 12, descsz 8, type 1000, "NVIDIA Corp", then version and virtual SM)
    let pattern = b"\x0c\0\0\0\x08\0\0\0\xe8\x03\0\0NVIDIA Corp\0";
    let at = bytes
        .windows(pattern.len())
        .position(|w| w == pattern)
        .expect("a CUDA information note");
    at + pattern.len() + 4
}

#[test]
fn an_input_of_a_toolkit_before_12_0_is_refused() {
    // (nvlink 13.5 refuses 0x77 and below, links 0x78 and up.)
    let o = link_patched("xtu_call/sm_90", "a.o", |b| {
        let at = cuinfo_toolkit_at(b);
        b[at..at + 2].copy_from_slice(&0x77u16.to_le_bytes());
    });
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("a.o' must be recompiled with toolkit >= Cuda 12.0"),
        "{err}"
    );
}

#[test]
fn an_input_of_a_newer_toolkit_is_refused_as_nvlink_words_it() {
    let o = link_patched("xtu_call/sm_90", "a.o", |b| {
        let at = cuinfo_toolkit_at(b);
        b[at..at + 2].copy_from_slice(&0x88u16.to_le_bytes());
    });
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("a.o' newer than toolkit (136 vs 135)"),
        "{err}"
    );
}

#[test]
fn the_output_names_nvlinks_toolkit_whatever_its_inputs_name() {
    // (An object of 13.2 linked alone: nvlink's output says 13.5, 0x87, in every mode.)
    let d = dir("xtu_call/sm_90");
    let tmp = std::env::temp_dir().join(format!("cubin-ld-rules-tk-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut bytes = std::fs::read(d.join("a.o")).unwrap();
    let at = cuinfo_toolkit_at(&bytes);
    bytes[at..at + 2].copy_from_slice(&0x82u16.to_le_bytes());
    std::fs::write(tmp.join("a.o"), &bytes).unwrap();
    for other in ["b.o", "c.o"] {
        std::fs::copy(d.join(other), tmp.join(other)).unwrap();
    }
    for mode in [&[][..], &["-r"][..]] {
        let out = tmp.join("out.cubin");
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
            .arg("-arch=sm_90")
            .args(mode)
            .arg(tmp.join("a.o"))
            .arg(tmp.join("b.o"))
            .arg(tmp.join("c.o"))
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let linked = std::fs::read(&out).unwrap();
        let at = cuinfo_toolkit_at(&linked);
        assert_eq!(&linked[at..at + 2], &0x87u16.to_le_bytes(), "{mode:?}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn an_input_without_an_internal_target_counts_as_internal_target_2() {
    // (NVSHMEM's prebuilt objects have no EICOMPAT_ATTR_CUDA_INTERNAL_TARGET: linked with a
    // user's objects, which say 0, nvlink 13.5 writes 2; with 3, 3.) b.o's record becomes an
    // ISA_CLASS of 1, as nvlink was given it.
    let d = dir("xtu_call/sm_90");
    let tmp = std::env::temp_dir().join(format!("cubin-ld-rules-it-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let internal_target = [2u8, 0x0c, 0, 0];
    for f in ["a.o", "b.o", "c.o"] {
        let mut bytes = std::fs::read(d.join(f)).unwrap();
        if f == "b.o" {
            let at = bytes
                .windows(4)
                .position(|w| w == internal_target)
                .expect("an internal target record");
            bytes[at..at + 4].copy_from_slice(&[2, 0x02, 1, 0]);
        }
        std::fs::write(tmp.join(f), bytes).unwrap();
    }
    let out = tmp.join("out.cubin");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .arg("-arch=sm_90")
        .args(["a.o", "b.o", "c.o"].map(|f| tmp.join(f)))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dump = cubin_ld::dump::dump_bytes(&std::fs::read(&out).unwrap())
        .unwrap()
        .text;
    assert!(
        dump.contains("EICOMPAT_ATTR_CUDA_INTERNAL_TARGET BVAL 0x2"),
        "{dump}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn an_input_eflags_top_byte_of_0xff_is_accepted() {
    let o = link_patched("debug_leaf/sm_90", "a.o", |b| b[51] = 0xff);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn debug_information_keeps_constant_references_for_the_driver() {
    let dump = link("debug_constant/sm_90", &[]).unwrap();
    let kept = item(&dump, "section .rela.debug_info");
    assert!(
        kept.iter().any(|l| l.contains("R_CUDA_G64 table+0x0")),
        "{kept:?}"
    );
    assert_eq!(
        kept,
        item(
            &nvlink("debug_constant/sm_90", "default"),
            "section .rela.debug_info"
        )
    );
}

#[test]
fn debug_link_keeps_functions_nothing_calls_and_kernels_never_launched() {
    let plain = link("debug_constant/sm_90", &[]).unwrap();
    let debug = link("debug_constant/sm_90", &["-g"]).unwrap();
    assert!(!plain.contains("section .text._Z12never_calledf"));
    assert!(debug.contains("section .text._Z12never_calledf"));
}

#[test]
fn debug_link_defines_extern_shared_arrays_for_the_debugger() {
    let debug = link("debug_constant/sm_90", &["-g"]).unwrap();
    let spill = item(&debug, "symbol .symtab spill");
    assert_eq!(
        spill,
        item(&nvlink("debug_constant/sm_90", "g"), "symbol .symtab spill")
    );
    assert!(
        spill.iter().any(|l| l.contains("section .nv_debug.shared")),
        "{spill:?}"
    );
}

#[test]
fn sm100_debug_links_put_the_debuggers_barriers_before_every_exit_of_code_compiled_without_g() {
    // MEMBAR.SC.VC, ERRBAR, CGAERRBAR (unguarded, as nvlink writes them), then EXIT.
    const BARRIERS: [[u8; 2]; 3] = [[0x92, 0x79], [0xab, 0x79], [0xab, 0x75]];
    let count = |code: &[u8]| {
        let ins: Vec<&[u8]> = code.chunks_exact(16).collect();
        let exits = ins.iter().filter(|i| i[..2] == [0x4d, 0x79]).count();
        let guarded = (3..ins.len())
            .filter(|&k| ins[k][..2] == [0x4d, 0x79])
            .filter(|&k| (0..3).all(|j| ins[k - 3 + j][..2] == BARRIERS[j]))
            .count();
        (exits, guarded)
    };
    let input = std::fs::read(dir("xtu_call/sm_100").join("a.o")).unwrap();
    let (exits, guarded) = count(&input);
    assert!(
        exits > 0 && guarded == 0,
        "{exits} exits, {guarded} with barriers"
    );
    let (out, r) = link_to_temp("xtu_call/sm_100", &["-g"]);
    r.unwrap();
    let linked = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let (exits, guarded) = count(&linked);
    assert!(
        exits > 0 && guarded == exits,
        "{exits} exits, {guarded} with barriers"
    );
}

#[test]
fn a_function_global_in_one_file_and_device_in_another_is_an_error() {
    let f = run("global_mismatch/sm_90", &[]).unwrap_err();
    assert_eq!(f.code, 1);
    assert_eq!(
        f.errors,
        ["Function 'g_mixed' not declared __global__ in all source files"]
    );
    assert_eq!(f.fatal.as_deref(), Some("merge_elf failed"));
    assert_eq!(
        nvlink_lines("global_mismatch/sm_90", "default"),
        [
            "nvlink error   : Function 'g_mixed' not declared __global__ in all source files",
            "nvlink fatal   : merge_elf failed"
        ]
    );
}

#[test]
fn sm100_partial_links_write_no_program_header_entry_size() {
    let header = |dump: &str| {
        dump.lines()
            .find(|l| l.contains(" phentsize "))
            .map(String::from)
    };
    for case in ["xtu_call/sm_100", "xtu_call/sm_90"] {
        let ours = link(case, &["-r"]).unwrap();
        assert_eq!(header(&ours), header(&nvlink(case, "r")), "{case}");
    }
    assert!(header(&link("xtu_call/sm_100", &["-r"]).unwrap())
        .unwrap()
        .ends_with("phentsize 0"));
}
