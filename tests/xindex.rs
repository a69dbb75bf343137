//! Outputs with more sections than 16-bit indices can name use the ELF escape hatches:
//! e_shnum = 0 with the count in section 0, and SHN_XINDEX symbols with `.symtab_shndx`.

use cubin_ld::elf::read::SymSection;
use cubin_ld::elf::Cubin;
use cubin_ld::output::*;

mod common;

/// A module of three tables, a `.debug_frame`, `texts` code sections and a global `f_last`
/// in the last one and `f_first` in the first.
fn module(texts: u32) -> Module {
    let mut m = common::module_with_tables();
    m.add_section(OutSection {
        name: b".debug_frame".to_vec(),
        sh_type: 1,
        flags: 0,
        align: 1,
        entsize: 0,
        link: Link::None,
        info: Info::None,
        content: Content::Bytes(vec![0; 4]),
        group: Group::Debug,
        section_symbol: None,
    });
    let (mut first, mut last) = (None, None);
    for i in 0..texts {
        last = Some(m.add_section(OutSection {
            name: format!(".text.f{i}").into_bytes(),
            sh_type: 1,
            flags: 6,
            align: 128, // (as every toolkit aligns code; the reader refuses less)
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content: Content::Bytes(vec![0; 128]),
            group: Group::Text,
            section_symbol: None,
        }));
        first = first.or(last);
    }
    m.add_symbol(OutSymbol {
        name: b"f_first".to_vec(),
        value: 0,
        size: 128,
        bind: 1,
        st_type: 2,
        other: 0,
        section: first,
    });
    m.add_symbol(OutSymbol {
        name: b"f_last".to_vec(),
        value: 0,
        size: 128,
        bind: 1,
        st_type: 2,
        other: 0,
        section: last,
    });
    m.add_symtab_shndx_if_needed();
    m
}

fn written(m: &Module) -> Vec<u8> {
    cubin_ld::write::to_bytes(m, &cubin_ld::layout::layout(m), &[])
}

#[test]
fn a_module_past_65279_sections_is_written_with_extended_indices() {
    let bytes = written(&module(66_000));
    let c = Cubin::parse(&bytes).unwrap();
    assert_eq!(c.sections.len(), 66_000 + 6);
    let f = c.symtabs[0]
        .symbols
        .iter()
        .find(|s| s.name == b"f_last")
        .unwrap();
    let SymSection::Index(i) = f.section else {
        panic!("{:?}", f.section)
    };
    assert_eq!(c.sections[i as usize].name, b".text.f65999");
}

#[test]
fn the_extended_index_table_follows_the_debug_sections_as_in_nvlink() {
    let bytes = written(&module(66_000));
    let c = Cubin::parse(&bytes).unwrap();
    let names: Vec<&[u8]> = c.sections[1..6].iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            &b".shstrtab"[..],
            b".strtab",
            b".symtab",
            b".debug_frame",
            b".symtab_shndx"
        ]
    );
}

#[test]
fn the_extended_index_table_holds_every_symbols_section_as_nvlink_writes_it() {
    let bytes = written(&module(66_000));
    let c = Cubin::parse(&bytes).unwrap();
    let shndx = c
        .sections
        .iter()
        .find(|s| s.name == b".symtab_shndx")
        .unwrap();
    let entries: Vec<u32> = shndx
        .bytes()
        .chunks(4)
        .map(|e| u32::from_le_bytes(e.try_into().unwrap()))
        .collect();
    let symbols = &c.symtabs[0].symbols;
    // (Symbol i of the table is entry i; entry 0 is the null symbol's.)
    let at = |name: &[u8]| symbols.iter().position(|s| s.name == name).unwrap();
    let first_text = c
        .sections
        .iter()
        .position(|s| s.name == b".text.f0")
        .unwrap() as u32;
    assert_eq!(entries[at(b"f_first")], first_text);
    assert_eq!(entries[at(b"f_last")], 66_000 + 5);
}
