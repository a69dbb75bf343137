//! `-Map=FILE`, `--print-map`, `--map-format=json`: the map lists every output section and
//! symbol as the output holds them, each input section under the output section it went to,
//! and it changes nothing in the output.

use std::path::{Path, PathBuf};
use std::process::Command;

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/out")
        .join(name)
        .join("sm_90")
}

/// Links `a.o b.o` of `dir` there (relative names, as a build runs it): (stdout, output).
fn link(dir: &Path, flags: &[&str]) -> (String, Vec<u8>) {
    static LINKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = LINKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("cubin-ld-map-{}-{n}.cubin", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_cubin-ld"))
        .current_dir(dir)
        .args(["-arch=sm_90", "-o"])
        .arg(&out)
        .args(flags)
        .args(["a.o", "b.o"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    (String::from_utf8(o.stdout).unwrap(), bytes)
}

#[test]
fn the_map_lists_every_output_section_and_symbol_as_the_output_holds_them() {
    let (map, bytes) = link(&case("dead_code"), &["--print-map"]);
    let c = cubin_ld::elf::Cubin::parse(&bytes).unwrap();
    for s in c.sections.iter().skip(1) {
        let line = format!(
            "[{:>3}] {} {} {:#x} {:#x} {}\n",
            s.index,
            String::from_utf8_lossy(s.name),
            cubin_ld::elf::names::section_type(s.sh_type).unwrap(),
            s.offset,
            s.size,
            s.align
        );
        assert!(map.contains(&line), "missing {line}{map}");
    }
    let symtab = c
        .symtabs
        .iter()
        .find(|t| c.sections[t.section as usize].name == b".symtab");
    for (i, y) in symtab.unwrap().symbols.iter().enumerate().skip(1) {
        let line = format!("[{i:>3}] {:#x} {:#x} ", y.value, y.size);
        let found = map
            .lines()
            .any(|l| l.starts_with(&line) && l.ends_with(&*y.name_str()));
        assert!(found, "symbol {i} missing: {line}");
    }
}

#[test]
fn each_input_section_is_listed_under_the_output_section_it_went_to() {
    let (map, _) = link(&case("dead_code"), &["--print-map"]);
    let at = map.find("] .text._Z6used_bi PROGBITS ").unwrap();
    let next = map[at..].lines().nth(1).unwrap();
    assert_eq!(next, "        +0x0 0x100 b.o:(.text._Z6used_bi)");
    let at = map.find("] .debug_frame PROGBITS ").unwrap();
    let from: Vec<&str> = map[at..].lines().skip(1).take(2).collect();
    assert_eq!(
        from,
        [
            "        +0x0 0x1d8 a.o:(.debug_frame)",
            "        +0x1d8 0x1d8 b.o:(.debug_frame)"
        ]
    );
}

#[test]
fn the_map_ends_with_the_kernels_and_the_removed_functions() {
    let (map, _) = link(&case("dead_code"), &["--print-map"]);
    assert!(
        map.contains(
            "\nKernels: name, code, cmem[0], shared, stack (bytes)\n_Z10k_unused_aPi 384 536 0 8\n"
        ),
        "{map}"
    );
    assert!(map.ends_with(
        "\nRemoved functions:\nremoved 'dead_b(int)' (_Z6dead_bi) (.text._Z6dead_bi in 'b.o'): no \
         kernel reaches it\nremoved 'unreachable_b(int)' (_Z13unreachable_bi) \
         (.text._Z13unreachable_bi in 'b.o'): no kernel reaches it\n"
    ));
}

#[test]
fn the_map_starts_with_the_target_the_output_and_the_command_line() {
    let (map, _) = link(&case("dead_code"), &["--print-map"]);
    let head: Vec<&str> = map.lines().take(4).collect();
    assert_eq!(head[0], "Target: sm_90", "{map}");
    assert!(
        head[1].starts_with("Output: ") && head[1].ends_with(".cubin"),
        "{map}"
    );
    assert!(
        head[2].starts_with("Command line: cubin-ld --arch=sm_90 ")
            && head[2].ends_with(" --print-map a.o b.o"),
        "{map}"
    );
    assert_eq!(head[3], "", "{map}");
}

#[test]
fn the_json_map_names_why_a_kernel_is_removed_and_the_kernel_a_callee_depends_on() {
    let dir = case("host_info").join("host");
    let (json, _) = link(&dir, &["--print-map", "--map-format=json"]);
    assert!(
        json.contains(
            "{\"symbol\":\"_Z14k_not_launchedPi\",\"demangled\":\"k_not_launched(int*)\",\
             \"section\":\".text._Z14k_not_launchedPi\",\"file\":\"a.o\",\"reason\":\
             \"kernel-not-launched-by-host\","
        ),
        "{json}"
    );
    assert!(
        json.contains("\"reason\":\"reached-only-from-removed-kernel\",")
            && json.contains("\"kernel\":\"_Z9k_calls_bPi\""),
        "{json}"
    );
}

#[test]
fn a_json_map_goes_to_the_map_file_and_follows_its_schema() {
    let file = std::env::temp_dir().join(format!("cubin-ld-map-{}.json", std::process::id()));
    let flag = format!("-Map={}", file.display());
    let (stdout, _) = link(&case("dead_code"), &[&flag, "--map-format=json"]);
    assert!(stdout.is_empty());
    let json = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(
        json.starts_with("{\"target\":\"sm_90\",\"output\":\""),
        "{json}"
    );
    assert!(
        json.contains(
            "\"sections\":[{\"index\":1,\"name\":\".shstrtab\",\"type\":\"STRTAB\",\"offset\":64,"
        ),
        "{json}"
    );
    assert!(json.contains("\"from\":[{\"offset\":0,\"size\":256,\"input\":\"b.o\",\"section\":\".text._Z6used_bi\"}]"), "{json}");
    assert!(json.contains("\"kernels\":[{\"name\":\"_Z10k_unused_aPi\",\"code\":384,\"cmem0\":536,\"shared\":0,\"stack\":8}"), "{json}");
    assert!(
        json.contains(
            "],\"removed\":[{\"symbol\":\"_Z6dead_bi\",\"demangled\":\"dead_b(int)\",\"section\":\
             \".text._Z6dead_bi\",\"file\":\"b.o\",\"reason\":\"unreached\",\"message\":\"no kernel \
             reaches it\",\"kernel\":null,\"kept_in\":null}"
        ),
        "{json}"
    );
    assert!(json.ends_with("]}\n"));
}

#[test]
fn asking_for_a_map_changes_nothing_in_the_output() {
    for c in ["dead_code", "weak_inline", "static_shared"] {
        let (_, plain) = link(&case(c), &[]);
        let (_, mapped) = link(&case(c), &["--print-map", "--map-format=json"]);
        assert!(plain == mapped, "{c}");
    }
}
