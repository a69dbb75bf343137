//! What the link says about its own decisions (`--print-gc-sections`, `--why-live`,
//! `--resource-usage`), on corpus links: each removed function with its input and why, the
//! chain from a root to a kept function, each kernel's resources as nvlink's `-v` gives them
//! with the functions that determine them, and outputs that do not change for asking.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn corpus(case: &str, sm: &str, files: &[&str]) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out")
        .join(case)
        .join(sm);
    files.iter().map(|f| dir.join(f)).collect()
}

/// Links `inputs` for `arch` with `flags` into a scratch file; (stdout, output bytes).
fn link(arch: &str, inputs: &[PathBuf], flags: &[&str]) -> (String, Vec<u8>) {
    // (Tests run in parallel: each link has a file of its own.)
    static LINKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = LINKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out =
        std::env::temp_dir().join(format!("cubin-ld-explain-{}-{n}.cubin", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .arg(format!("-arch={arch}"))
        .arg("-o")
        .arg(&out)
        .args(flags)
        .args(inputs)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    (String::from_utf8(o.stdout).unwrap(), bytes)
}

#[test]
fn print_gc_sections_lists_each_unreachable_function_with_its_input() {
    let inputs = corpus("dead_code", "sm_90", &["a.o", "b.o"]);
    let (report, _) = link("sm_90", &inputs, &["--print-gc-sections"]);
    let b = inputs[1].display();
    assert!(
        report.contains(&format!(
            "removed 'dead_b(int)' (_Z6dead_bi) (.text._Z6dead_bi in '{b}'): no kernel reaches it"
        )),
        "{report}"
    );
    assert!(
        report.contains("'unreachable_b(int)' (_Z13unreachable_bi)"),
        "{report}"
    );
    // (Reached functions are not listed.)
    assert!(!report.contains("used_b"), "{report}");
}

#[test]
fn print_gc_sections_names_the_kept_copy_of_a_discarded_weak_function() {
    let inputs = corpus("weak_inline", "sm_90", &["a.o", "b.o"]);
    let (report, _) = link("sm_90", &inputs, &["--print-gc-sections"]);
    let (a, b) = (inputs[0].display(), inputs[1].display());
    assert!(
        report.contains(&format!(
            "removed 'inl_fn(int)' (_Z6inl_fni) (.text._Z6inl_fni in '{b}'): a weak copy; the \
             one in '{a}' is kept"
        )),
        "{report}"
    );
}

#[test]
fn why_live_gives_the_chain_through_three_objects() {
    let inputs = corpus("callchain_stack", "sm_90", &["a.o", "b.o", "c.o"]);
    let (report, _) = link("sm_90", &inputs, &["--why-live=leaf2*"]);
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 4, "{report}");
    assert!(
        lines[0].starts_with("'leaf2(int)' (_Z5leaf2i) in '")
            && lines[0].ends_with("c.o' is kept:")
    );
    assert!(
        lines[1].contains("(_Z10k_leafonlyPi)") && lines[1].ends_with("a kernel the link keeps")
    );
    assert!(lines[2].contains("(.text._Z4leafPii in '") && lines[2].contains("b.o'"));
    assert!(lines[2].ends_with("referenced from the code of 'k_leafonly(int*)' (_Z10k_leafonlyPi)"));
    assert!(lines[3].ends_with("referenced from the code of 'leaf(int*, int)' (_Z4leafPii)"));
}

#[test]
fn why_live_gives_the_kernel_that_may_call_an_address_taken_function_through_a_pointer() {
    // heavy is in b.cu's table; k_indirect in a.cu calls through a pointer of its prototype.
    let inputs = corpus("indirect_prototype", "sm_90", &["a.o", "b.o"]);
    let (report, _) = link("sm_90", &inputs, &["--why-live=heavy*"]);
    assert!(
        report.contains("may be called through a pointer by 'k_indirect(int*)' (_Z10k_indirectPi)"),
        "{report}"
    );
}

#[test]
fn why_live_says_why_a_function_is_not_kept() {
    let inputs = corpus("dead_code", "sm_90", &["a.o", "b.o"]);
    let (report, _) = link("sm_90", &inputs, &["--why-live=dead_b*"]);
    assert!(
        report.ends_with("is not kept: no kernel reaches it\n"),
        "{report}"
    );
}

#[test]
fn why_live_matches_mangled_and_demangled_names_and_names_a_pattern_matching_nothing() {
    let inputs = corpus("dead_code", "sm_90", &["a.o", "b.o"]);
    let (report, _) = link(
        "sm_90",
        &inputs,
        &[
            "--why-live=_Z6used_bi",
            "--why-live=k_live(int*)",
            "--why-live=nothing*",
        ],
    );
    assert!(
        report.contains("'used_b(int)' (_Z6used_bi) in '"),
        "{report}"
    );
    assert!(
        report.contains("'k_live(int*)' (_Z6k_livePi) in '"),
        "{report}"
    );
    assert!(
        report.contains("--why-live: no function or variable matches 'nothing*'"),
        "{report}"
    );
}

#[test]
fn why_live_under_r_says_every_function_is_kept() {
    let inputs = corpus("dead_code", "sm_90", &["a.o", "b.o"]);
    let (report, _) = link("sm_90", &inputs, &["-r", "--why-live=dead_b*"]);
    assert!(
        report.contains("every function is kept (-r, -preserve-relocs or -g)"),
        "{report}"
    );
}

#[test]
fn the_reports_do_not_change_the_output() {
    for (case, sm, files) in [
        ("dead_code", "sm_90", &["a.o", "b.o"][..]),
        ("weak_inline", "sm_120", &["a.o", "b.o"][..]),
    ] {
        let inputs = corpus(case, sm, files);
        let (_, plain) = link(sm, &inputs, &[]);
        let flags = [
            "--print-gc-sections",
            "--why-live=*",
            "--resource-usage=json",
        ];
        let (_, asked) = link(sm, &inputs, &flags);
        assert!(plain == asked, "{case}: the output changed");
    }
}

/// nvlink's recorded `-v` figures of a corpus link: (kernel, registers, stack).
fn nvlink_verbose(case: &str) -> Vec<(String, u32, u64)> {
    let log = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/out")
            .join(case)
            .join("sm_90/verbose.log"),
    )
    .unwrap();
    let mut out = Vec::new();
    let mut kernel = None;
    for l in log.lines() {
        if let Some(k) = l.strip_prefix("nvlink info    : Function properties for '") {
            kernel = Some(k.trim_end_matches("':").to_string());
        } else if let (Some(k), Some(rest)) = (&kernel, l.strip_prefix("nvlink info    : used ")) {
            let words: Vec<&str> = rest.split(' ').collect();
            out.push((
                k.clone(),
                words[0].parse().unwrap(),
                words[5].parse().unwrap(),
            ));
        }
    }
    out
}

/// Each kernel of `report` (`--resource-usage`) has the registers nvlink's `-v` gave it in
/// `case`, and its stack too unless `stack` is false; how many kernels nvlink listed.
fn assert_resources_equal_nvlinks(report: &str, case: &str, stack: bool) -> usize {
    let verbose = nvlink_verbose(case);
    for (k, regs, bytes) in &verbose {
        let at = report
            .find(&format!("[{k}]\n"))
            .unwrap_or_else(|| panic!("{k}: {report}"));
        let block = &report[at..];
        assert!(
            block.contains(&format!("  registers  {regs} ")),
            "{k}: {block}"
        );
        assert!(
            !stack || block.contains(&format!("  stack      {bytes} bytes")),
            "{k}: {block}"
        );
    }
    verbose.len()
}

#[test]
fn resource_usage_gives_nvlinks_registers_and_stack_with_the_deepest_chain() {
    let inputs = corpus("callchain_stack", "sm_90", &["a.o", "b.o", "c.o"]);
    let (report, _) = link("sm_90", &inputs, &["--resource-usage"]);
    assert_resources_equal_nvlinks(&report, "callchain_stack", true);
    // k_chain's 536 bytes: its frame, mid's, leaf's and leaf2's.
    assert!(report.contains(
        "  stack      536 bytes: k_chain(int*) [_Z7k_chainPi] (0) -> mid(int) [_Z3midi] (184) -> \
         leaf(int*, int) [_Z4leafPii] (280) -> leaf2(int) [_Z5leaf2i] (72)\n"
    ));
}

#[test]
fn resource_usage_names_the_callee_that_determines_the_registers() {
    // nvlink: "regcount 118 for heavy(float const*, int) propagated to entry k_light(...)".
    let inputs = corpus("regpressure", "sm_90", &["a.o", "b.o"]);
    let (report, _) = link("sm_90", &inputs, &["--resource-usage"]);
    assert!(
        report.contains(
            "  registers  118 from heavy(float const*, int) [_Z5heavyPKfi] via \
             k_light(float*, float const*) [_Z7k_lightPfPKf] -> heavy(float const*, int) \
             [_Z5heavyPKfi]\n"
        ),
        "{report}"
    );
}

#[test]
fn resource_usage_under_launch_bounds_equals_nvlinks_and_names_the_callee_two_calls_away() {
    let inputs = corpus("launch_bounds_ok", "sm_90", &["a.o", "b.o", "c.o"]);
    let (report, _) = link("sm_90", &inputs, &["--resource-usage"]);
    assert_eq!(
        assert_resources_equal_nvlinks(&report, "launch_bounds_ok", true),
        2
    );
    assert!(
        report.contains(
            "  registers  118 from heavy_lb(float const*, int) [_Z8heavy_lbPKfi] via \
             k_roomy(float*, float const*) [_Z7k_roomyPfPKf] -> mid_lb(float const*, int) \
             [_Z6mid_lbPKfi] -> heavy_lb(float const*, int) [_Z8heavy_lbPKfi]\n"
        ),
        "{report}"
    );
}

fn launch_bounds_error(flags: &[&str]) -> String {
    let inputs = corpus("launch_bounds_chain", "sm_90", &["a.o", "b.o", "c.o"]);
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .args(["-arch=sm_90", "-o"])
        .arg(std::env::temp_dir().join(format!("cubin-ld-lb-{}.cubin", std::process::id())))
        .args(flags)
        .args(&inputs)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(255));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_launch_bounds_error_names_the_call_chain_to_the_heavy_callee() {
    assert_eq!(
        launch_bounds_error(&[]),
        "cubin-ld error   : entry function '_Z7k_boundPfPKf' with max regcount of 32 calls \
         function '_Z8heavy_lbPKfi' with regcount of 118; call chain: '_Z7k_boundPfPKf' -> \
         '_Z6mid_lbPKfi' -> '_Z8heavy_lbPKfi'\n"
    );
}

#[test]
fn demangle_shows_every_name_of_a_message_demangled_as_cxxfilt_prints_it() {
    assert_eq!(
        launch_bounds_error(&["--demangle"]),
        "cubin-ld error   : entry function 'k_bound(float*, float const*)' (_Z7k_boundPfPKf) \
         with max regcount of 32 calls function 'heavy_lb(float const*, int)' (_Z8heavy_lbPKfi) \
         with regcount of 118; call chain: 'k_bound(float*, float const*)' (_Z7k_boundPfPKf) \
         -> 'mid_lb(float const*, int)' (_Z6mid_lbPKfi) -> 'heavy_lb(float const*, int)' \
         (_Z8heavy_lbPKfi)\n"
    );
}

fn host_info(files: &[&str]) -> Vec<PathBuf> {
    corpus("host_info", "sm_90/host", files)
}

#[test]
fn print_gc_sections_says_a_kernel_is_removed_because_host_code_never_launches_it() {
    let (report, _) = link(
        "sm_90",
        &host_info(&["a.o", "b.o"]),
        &["--print-gc-sections"],
    );
    let line = report
        .lines()
        .find(|l| l.contains("_Z14k_not_launchedPi"))
        .unwrap();
    assert!(
        line.ends_with(
            "a kernel host code never launches (host information; -ignore-host-info keeps it)"
        ),
        "{report}"
    );
}

#[test]
fn print_gc_sections_names_the_removed_kernel_a_removed_callee_is_reached_from() {
    let (report, _) = link(
        "sm_90",
        &host_info(&["a.o", "b.o"]),
        &["--print-gc-sections"],
    );
    let line = report
        .lines()
        .find(|l| l.contains("(_Z8b_helperi)"))
        .unwrap();
    assert!(
        line.ends_with(
            "reached only from 'k_calls_b(int*)' (_Z9k_calls_bPi): a kernel host code never \
             launches (host information; -ignore-host-info keeps it)"
        ),
        "{report}"
    );
}

#[test]
fn print_gc_sections_says_a_kernel_is_removed_because_kernels_used_does_not_name_it() {
    let inputs = host_info(&["a.o", "b.o"]);
    let (report, _) = link(
        "sm_90",
        &inputs,
        &["--print-gc-sections", "-kernels-used=k_launched"],
    );
    let line = report
        .lines()
        .find(|l| l.contains("_Z14k_not_launchedPi"))
        .unwrap();
    assert!(
        line.ends_with("a kernel -kernels-used does not name"),
        "{report}"
    );
}

#[test]
fn why_live_says_a_kernel_is_not_kept_because_host_code_never_launches_it() {
    let inputs = host_info(&["a.o", "b.o"]);
    let (report, _) = link("sm_90", &inputs, &["--why-live=k_b_unlaunched*"]);
    assert!(
        report.contains("'k_b_unlaunched(int*)' (_Z14k_b_unlaunchedPi) in '")
            && report.ends_with(
                "is not kept: a kernel host code never launches (host information; \
             -ignore-host-info keeps it)\n"
            ),
        "{report}"
    );
}

#[test]
fn ignore_host_info_keeps_what_host_information_removed() {
    let inputs = host_info(&["a.o", "b.o"]);
    let (report, _) = link(
        "sm_90",
        &inputs,
        &["--print-gc-sections", "-ignore-host-info"],
    );
    assert!(!report.contains("k_not_launched"), "{report}");
}

#[test]
fn resource_usage_lists_each_kernels_shared_objects_with_the_function_using_them() {
    let inputs = corpus("static_shared", "sm_90", &["a.o", "b.o"]);
    let (report, _) = link("sm_90", &inputs, &["--resource-usage"]);
    let at = report.find("[_Z5k_sh2PKfPf]\n").unwrap();
    let block = &report[at..report[at..].find("  barriers").unwrap() + at];
    for line in [
        "  shared     3968 bytes\n",
        "         0x0   1024 bytes reserved\n",
        "       0xc00    512 bytes _ZZ7a_stagePKfE5buf_a, used by a_stage(float const*) \
         [_Z7a_stagePKf$3]\n",
        "       0xf00    128 bytes file_sh, used by k_sh2(float const*, float*) \
         [_Z5k_sh2PKfPf]\n",
    ] {
        assert!(block.contains(line), "{line}: {block}");
    }
    // JSON: the same objects, offsets within the count.
    let (json, _) = link("sm_90", &inputs, &["--resource-usage=json"]);
    assert!(
        json.contains(
            "\"shared_bytes\":3968,\"shared_objects\":[{\"symbol\":\"_ZZ7a_stagePKfE5buf_a\",\
         \"offset\":3072,\"bytes\":512,\"used_by\":\"_Z7a_stagePKf$3\"}"
        ),
        "{json}"
    );
}

#[test]
fn resource_usage_marks_an_unbounded_stack_and_where_it_recurses() {
    let inputs = corpus("recursion", "sm_90", &["a.o", "b.o"]);
    let (report, _) = link("sm_90", &inputs, &["--resource-usage"]);
    assert_resources_equal_nvlinks(&report, "recursion", false);
    assert!(
        report.contains("  stack      unbounded: recursion at "),
        "{report}"
    );
}

#[test]
fn resource_usage_json_follows_its_schema() {
    let inputs = corpus("regpressure", "sm_90", &["a.o", "b.o"]);
    let (json, _) = link("sm_90", &inputs, &["--resource-usage=json"]);
    assert!(json.starts_with("{\"kernels\":[{\"kernel\":\""), "{json}");
    assert!(
        json.contains(
            "\"registers\":{\"count\":118,\"from\":\"_Z5heavyPKfi\",\"chain\":[\"_Z7k_lightPfPKf\",\"_Z5heavyPKfi\"]}"
        ),
        "{json}"
    );
    assert!(json.contains("\"stack\":{\"bytes\":"), "{json}");
    assert!(json.trim_end().ends_with("}]}"), "{json}");
}

#[test]
fn why_live_answers_also_when_the_link_then_fails() {
    // a.o alone: k_live calls used_b, which b.o defines.
    let inputs = corpus("dead_code", "sm_90", &["a.o"]);
    let out = std::env::temp_dir().join(format!("cubin-ld-explain-{}-fails", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .args(["-arch=sm_90", "-o"])
        .arg(&out)
        .arg("--why-live=k_live*")
        .args(&inputs)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&o.stdout).contains("'k_live(int*)' (_Z6k_livePi) in '"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Undefined reference to '_Z6used_bi'"));
    assert!(!out.exists());
}

/// A GNU archive of `members` (files) in a scratch folder.
fn archive_in(dir: &Path, name: &str, members: &[(&str, PathBuf)]) -> PathBuf {
    let members: Vec<(&str, Vec<u8>)> = members
        .iter()
        .map(|(m, path)| (*m, std::fs::read(path).unwrap()))
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, common::gnu_archive(&members)).unwrap();
    path
}

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("explain", name)
}

#[test]
fn why_extract_says_every_member_of_a_users_archive_is_linked_whole() {
    let d = scratch("why-extract-user");
    let host = corpus("xtu_call", "sm_90", &["host/a.o", "host/b.o", "host/c.o"]);
    let lib = archive_in(
        &d,
        "libbc.a",
        &[("b.o", host[1].clone()), ("c.o", host[2].clone())],
    );
    let (report, _) = link(
        "sm_90",
        &[host[0].clone(), lib.clone()],
        &["--why-extract=-"],
    );
    let lib = lib.display();
    assert_eq!(
        report,
        format!(
            "reference\textracted\tsymbol\n-\t{lib}:b.o\t(whole archive)\n-\t{lib}:c.o\t(whole archive)\n"
        )
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn why_extract_names_the_object_and_symbol_that_pull_in_the_system_library() {
    let d = scratch("why-extract-system");
    let host = corpus("xtu_call", "sm_90", &["host/a.o", "host/b.o", "host/c.o"]);
    // (Named as the device runtime, c.o is linked only when something uses it.)
    let lib = archive_in(&d, "libcudadevrt.a", &[("c.o", host[2].clone())]);
    let tsv = d.join("why.tsv");
    let (_, with) = link(
        "sm_90",
        &[host[0].clone(), host[1].clone(), lib.clone()],
        &[&format!("--why-extract={}", tsv.display())],
    );
    let a = host[0].display();
    assert_eq!(
        std::fs::read_to_string(&tsv).unwrap(),
        format!(
            "reference\textracted\tsymbol\n{a}\t{}:c.o\tc_scale(float)\n",
            lib.display()
        )
    );
    // Asking changes nothing.
    let (_, without) = link("sm_90", &[host[0].clone(), host[1].clone(), lib], &[]);
    assert_eq!(with, without);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn why_live_says_a_variable_is_kept_used_or_not() {
    let (report, _) = link(
        "sm_90",
        &host_info(&["a.o", "b.o"]),
        &["--why-live=dvar_device_only"],
    );
    assert!(
        report.starts_with("'dvar_device_only' (.nv.global in '")
            && report.ends_with(
                "is kept: a variable (a link keeps every variable, used or not, as nvlink does)\n"
            ),
        "{report}"
    );
}

#[test]
fn why_live_names_the_kept_copy_of_a_weak_variable() {
    let inputs = corpus("weak_vtables", "sm_90", &["a.o", "b.o", "c.o"]);
    let (report, _) = link("sm_90", &inputs, &["--why-live=vtable for D1"]);
    let a = inputs[0].display();
    let b = inputs[1].display();
    assert!(
        report.contains(&format!(
            "'vtable for D1' (_ZTV2D1) (.nv.global.init in '{b}') is not kept: a weak copy; the \
             one in '{a}' is kept"
        )),
        "{report}"
    );
}

#[test]
fn print_gc_sections_says_a_later_weak_copy_won_by_its_registers() {
    let inputs = corpus("weak_fewer_registers", "sm_90", &["a.o", "b.o", "c.o"]);
    let (report, _) = link("sm_90", &inputs, &["--print-gc-sections"]);
    let (a, c) = (inputs[0].display(), inputs[2].display());
    assert!(
        report.contains(&format!(
            "(.text._Z3mixIfET_PKS0_i in '{a}'): a weak copy; the one in '{c}' is kept: it uses \
             24 registers, this one 38"
        )),
        "{report}"
    );
}
