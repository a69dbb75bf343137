//! Outputs with more sections than 16-bit indices can name use the ELF escape hatches:
//! e_shnum = 0 with the count in section 0, and SHN_XINDEX symbols with `.symtab_shndx`.

use cubin_ld::elf::read::SymSection;
use cubin_ld::elf::Cubin;
use cubin_ld::output::*;

#[test]
fn a_module_past_65279_sections_is_written_with_extended_indices() {
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
    let mut last = None;
    for i in 0..66_000u32 {
        last = Some(m.add_section(OutSection {
            name: format!(".text.f{i}").into_bytes(),
            sh_type: 1,
            flags: 6,
            align: 4,
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content: Content::Bytes(vec![0; 4]),
            group: Group::Text,
            section_symbol: None,
        }));
    }
    m.add_symbol(OutSymbol {
        name: b"f_last".to_vec(),
        value: 0,
        size: 4,
        bind: 1,
        st_type: 2,
        other: 0,
        section: last,
    });
    m.add_symtab_shndx_if_needed();
    let l = cubin_ld::layout::layout(&m);
    let bytes = cubin_ld::write::to_bytes(&m, &l);
    let c = Cubin::parse(&bytes).unwrap();
    assert_eq!(c.sections.len(), 66_000 + 5);
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
