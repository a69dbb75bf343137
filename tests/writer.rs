//! The writer puts a large output on disk in runs of sections, each by one vectored write,
//! small sections gathered first in a per-thread buffer; what lands in the file must be the
//! bytes the same module makes in memory.

use cubin_ld::output::*;

mod common;

/// A module of the three tables and `n` sections of every size class the writer treats
/// apart: a few bytes, a few hundred, more than the 16 KiB it gathers below, some aligned
/// far enough to leave a gap a run does not cross; each section's bytes its own pattern.
fn module(n: u32) -> Module {
    let mut m = common::module_with_tables();
    for i in 0..n {
        let len = match i % 7 {
            0 => 3,
            1 => 24,
            2 => 300,
            3 => 20_000,
            4 => 1_000,
            5 => 70_000,
            _ => 8,
        };
        let align = match i % 5 {
            0 => 1,
            1 => 4,
            2 => 128,
            3 => 8192,
            _ => 8,
        };
        let bytes: Vec<u8> = (0..len)
            .map(|k| (k as u32 ^ i).wrapping_mul(31) as u8 | 1)
            .collect();
        m.add_section(OutSection {
            name: format!(".nv.global.init.s{i}").into_bytes(),
            sh_type: 1,
            flags: 3,
            align,
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content: Content::Bytes(bytes),
            group: Group::Data,
            section_symbol: None,
        });
    }
    m
}

#[test]
fn the_file_written_in_runs_holds_the_bytes_made_in_memory() {
    let m = module(400);
    let l = cubin_ld::layout::layout(&m);
    let in_memory = cubin_ld::write::to_bytes(&m, &l, &[]);
    assert!(in_memory.len() > 4 << 20, "several runs' worth of sections");
    let out = std::env::temp_dir().join(format!("cubin-ld-writer-{}.cubin", std::process::id()));
    cubin_ld::write::write_with(&out, &cubin_ld::write::Image::new(&m, &l, &[])).unwrap();
    let on_disk = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert!(
        on_disk == in_memory,
        "the file differs from the bytes made in memory"
    );
}
