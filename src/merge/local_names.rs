//! Local functions that share a name.
//!
//! The merge keys output sections by name, which is right for everything nvlink merges by
//! name (debug sections, data, a global function's code however many objects define it). A
//! local (STB_LOCAL) function is different: nvlink gives each copy its own output sections,
//! even when another object, or the same object (a partial link's output), has a local or a
//! global function of that name. ptxas makes such copies in every file that divides floats
//! (`__cuda_sm3x_div_rn_noftz_f32_slowpath`, local in each object that is not built with
//! -G), and nvlink then writes one `.text.<fn>`, `.nv.info.<fn>`, `.rela.text.<fn>` (and on
//! sm_100+ their Mercury twins) per copy, all under the same name, where a copy would have
//! gone had it had a name of its own: in the default link, -preserve-relocs and -r alike.
//!
//! So the merge runs on a view of the inputs in which each such copy's sections carry a name
//! of their own: the real name, a NUL (which no ELF name contains) and a number. Every rule
//! that finds sections by name then treats the copy as a function of its own, which is what
//! nvlink does; the names lose the addition before anything is written.

use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::{type_is_rela, SHF_INFO_LINK, SHT_CUDA_CAPMERC_TEXT, SHT_REL, STB_LOCAL};
use crate::ids::ObjectId;
use crate::object::{InputObject, SectionKind};
use hashbrown::HashMap;

/// What separates an alias from the real name.
const MARK: u8 = 0;

/// The prefixes that, put before `.text.<fn>`, `.nv.info.<fn>` or `.nv.constant2.<fn>`, name a
/// section that belongs to function `<fn>` alone (its code, records, literal bank and
/// relocations, and their Mercury twins).
const PREFIXES: [&[u8]; 7] = [
    b"",
    b".rel",
    b".rela",
    b".nv.merc",
    b".nv.capmerc",
    b".nv.merc.rel",
    b".nv.merc.rela",
];

/// Per object, the sections to rename and their names in the merge.
pub(crate) type Aliases = crate::ids::IdVec<ObjectId, Vec<(usize, Vec<u8>)>>;

/// The function `name` (`.text.<fn>`, `.rela.text.<fn>`, `.nv.merc.nv.info.<fn>`, …) belongs
/// to, if it is one of a function's own sections.
fn function_of(name: &[u8]) -> Option<&[u8]> {
    PREFIXES.iter().find_map(|p| {
        let rest = name.strip_prefix(*p)?;
        rest.strip_prefix(b".text.")
            .or_else(|| rest.strip_prefix(b".nv.info."))
            // (sm_75–sm_89: its literal bank, which -r keeps as it is; black-box: two
            // objects' `__internal_accurate_pow`, testdata local_literal_banks.)
            .or_else(|| rest.strip_prefix(b".nv.constant2."))
            .filter(|f| !f.is_empty())
    })
}

/// `name` with `MARK` and `n` appended.
fn alias(name: &[u8], n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(name.len() + 8);
    v.extend_from_slice(name);
    v.push(MARK);
    v.extend_from_slice(n.to_string().as_bytes());
    v
}

/// The real name of a (possibly aliased) section name.
pub(crate) fn real_name(name: &[u8]) -> &[u8] {
    match name.iter().position(|&c| c == MARK) {
        Some(i) => &name[..i],
        None => name,
    }
}

/// `text` with every alias mark and its number taken out (messages that quote names).
pub(crate) fn real_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == MARK as char {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The `.text.<fn>` section of object `o` that section `si` belongs to, found through the
/// section links: relocation and record sections name their target in sh_info, Mercury code
/// starts with its main code's section index, and Mercury records and relocations name the
/// Mercury code.
fn owner(o: &InputObject<'_>, si: usize) -> Option<usize> {
    let secs = &o.cubin.sections;
    let capsule_text = |ci: usize| -> Option<usize> {
        let c = secs.get(ci)?;
        if c.sh_type != SHT_CUDA_CAPMERC_TEXT {
            return None;
        }
        let b = c.bytes().get(..4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let s = secs.get(si)?;
    let t = if s.sh_type == SHT_CUDA_CAPMERC_TEXT {
        capsule_text(si)?
    } else if s.flags & SHF_INFO_LINK != 0 || s.sh_type == SHT_REL || type_is_rela(s.sh_type) {
        let t = s.info as usize;
        capsule_text(t).unwrap_or(t)
    } else {
        return None;
    };
    let ts = secs.get(t)?;
    (o.kind(ts) == SectionKind::Text && function_of(ts.name) == function_of(s.name)).then_some(t)
}

/// Whether code section `si` is a local function's.
fn is_local_code(o: &InputObject<'_>, si: usize, s: &crate::elf::read::Section<'_>) -> bool {
    o.text_function(s)
        .and_then(|f| o.symbols().get(f as usize))
        .is_some_and(|f| f.bind == STB_LOCAL && f.section == SymSection::Index(si as u32))
}

/// The sections to rename: those of each local function whose `.text.<fn>` name occurs more
/// than once among the inputs. Refuses a copy's section that cannot be told apart from
/// another copy's in the same object.
pub(crate) fn aliases(objects: &[InputObject<'_>]) -> Result<Aliases> {
    use rayon::prelude::*;
    let mut out: Aliases = crate::ids::IdVec::filled(Vec::new(), objects.len());
    // Only local functions' code is renamed, and most links have none: the names are counted
    // only where some object has local code (each object looked at in parallel), and only
    // the names local code has.
    let local_names: Vec<Vec<&[u8]>> = objects
        .par_iter()
        .map(|o| {
            o.sections_of(SectionKind::Text)
                .filter(|&(si, s)| is_local_code(o, si, s))
                .map(|(_, s)| s.name)
                .collect()
        })
        .collect();
    if local_names.iter().all(Vec::is_empty) {
        return Ok(out);
    }
    let mut count: HashMap<&[u8], u32> = local_names.iter().flatten().map(|&n| (n, 0)).collect();
    for o in objects {
        for (_, s) in o.sections_of(SectionKind::Text) {
            if let Some(n) = count.get_mut(s.name) {
                *n += u32::from(s.name.starts_with(b".text."));
            }
        }
    }
    if count.values().all(|&n| n < 2) {
        return Ok(out);
    }
    let mut next = 0usize;
    for (oi, o) in crate::object::enumerated(objects) {
        // This object's renamed code sections: index → number.
        let mut texts: HashMap<usize, usize> = HashMap::new();
        for (si, s) in o.sections_of(SectionKind::Text) {
            if count.get(s.name).is_none_or(|&n| n < 2) {
                continue;
            }
            if is_local_code(o, si, s) {
                next += 1;
                texts.insert(si, next);
                out[oi].push((si, alias(s.name, next)));
            }
        }
        if texts.is_empty() {
            continue;
        }
        // Every function here by name, local or not, and the names that have a renamed copy.
        let mut by_name: HashMap<&[u8], Vec<usize>> = HashMap::new();
        for (si, s) in o.cubin.sections.iter().enumerate() {
            if o.kind(s) == SectionKind::Text {
                if let Some(f) = function_of(s.name) {
                    by_name.entry(f).or_default().push(si);
                }
            }
        }
        let renamed: hashbrown::HashSet<&[u8]> = texts
            .keys()
            .filter_map(|&t| function_of(o.cubin.sections[t].name))
            .collect();
        for (si, s) in o.cubin.sections.iter().enumerate() {
            // (Code keeps its name unless it is a renamed copy's, decided above.)
            if o.kind(s) == SectionKind::Text {
                continue;
            }
            let Some(f) = function_of(s.name).filter(|f| renamed.contains(f)) else {
                continue;
            };
            let same = by_name.get(f).map_or(&[][..], Vec::as_slice);
            let t = match owner(o, si) {
                Some(t) => t,
                // One function here of this name: the name says which.
                None if same.len() == 1 => same[0],
                None => {
                    return Err(Error::not_implemented(format!(
                        "'{}': section '{}' (of one of {} functions named '{}' there, local \
                         ones among them, not saying which through its section links)",
                        o.name,
                        s.name_str(),
                        same.len(),
                        String::from_utf8_lossy(f)
                    )))
                }
            };
            // (A section of a global function of the same name keeps its name.)
            if let Some(&n) = texts.get(&t) {
                out[oi].push((si, alias(s.name, n)));
            }
        }
    }
    Ok(out)
}

/// `objects` as the merge sees them: with the aliases' names.
pub(crate) fn renamed<'x>(
    objects: &[InputObject<'x>],
    aliases: &'x Aliases,
) -> Vec<InputObject<'x>> {
    objects
        .iter()
        .zip(aliases)
        .map(|(o, a)| o.with_section_names(a.iter().map(|(si, n)| (*si, n.as_slice()))))
        .collect()
}

/// Takes the aliases out of what the link built with them: the module's names, the
/// diagnostics, the error.
pub(crate) fn restore(built: Result<super::Built>) -> Result<super::Built> {
    let real = |v: Vec<String>| -> Vec<String> { v.iter().map(|t| real_text(t)).collect() };
    match built {
        Ok(mut b) => {
            restore_names(&mut b.module);
            b.warnings = real(b.warnings);
            b.errors = real(b.errors);
            Ok(b)
        }
        Err(e) => Err(crate::diag::Error::new(real_text(&e.to_string()))),
    }
}

/// Takes the aliases out of a finished module's section and symbol names (Mercury section
/// symbols are named after their sections).
pub(crate) fn restore_names(m: &mut crate::output::Module) {
    let fix = |n: &mut Vec<u8>| {
        let len = real_name(n).len();
        n.truncate(len);
    };
    // (Only the link's own passes look sections up by an alias.)
    let sections = &m.sections;
    m.by_name
        .forget(|id| real_name(&sections[id].name).len() != sections[id].name.len());
    m.sections.iter_mut().for_each(|s| fix(&mut s.name));
    m.symbols.iter_mut().for_each(|s| fix(&mut s.name));
    m.merc_symbols
        .iter_mut()
        .flatten()
        .for_each(|s| fix(&mut s.name));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_sections_are_recognised() {
        let f: &[u8] = b"__cuda_sm3x_div_rn_noftz_f32_slowpath";
        for n in [
            &b".text.__cuda_sm3x_div_rn_noftz_f32_slowpath"[..],
            b".nv.info.__cuda_sm3x_div_rn_noftz_f32_slowpath",
            b".rela.text.__cuda_sm3x_div_rn_noftz_f32_slowpath",
            b".rel.text.__cuda_sm3x_div_rn_noftz_f32_slowpath",
            b".nv.capmerc.text.__cuda_sm3x_div_rn_noftz_f32_slowpath",
            b".nv.merc.nv.info.__cuda_sm3x_div_rn_noftz_f32_slowpath",
            b".nv.merc.rela.text.__cuda_sm3x_div_rn_noftz_f32_slowpath",
        ] {
            assert_eq!(function_of(n), Some(f), "{}", String::from_utf8_lossy(n));
        }
        for n in [
            &b".nv.info"[..],
            b".text.",
            b".rela.debug_frame",
            b".nv.constant0.k",
            b".nv.merc.nv.info",
            b".nv.shared.k",
        ] {
            assert_eq!(function_of(n), None, "{}", String::from_utf8_lossy(n));
        }
    }

    fn corpus(rel: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/out")
            .join(rel);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    /// (object, section index, section name, alias number) of every renamed section.
    fn renamed_sections(objects: &[InputObject<'_>]) -> Vec<(usize, usize, String, String)> {
        let mut v: Vec<(usize, usize, String, String)> = aliases(objects)
            .unwrap()
            .iter()
            .enumerate()
            .flat_map(|(oi, a)| {
                a.iter().map(move |(si, n)| {
                    let name = String::from_utf8_lossy(real_name(n)).into_owned();
                    let k = String::from_utf8_lossy(&n[name.len() + 1..]).into_owned();
                    (oi, *si, name, k)
                })
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn each_objects_copy_of_a_helper_is_renamed_and_kernels_are_not() {
        let bytes: Vec<Vec<u8>> = ["a.o", "b.o", "c.o"]
            .iter()
            .map(|f| corpus(&format!("local_same_name/sm_90/{f}")))
            .collect();
        let objects: Vec<InputObject<'_>> = bytes
            .iter()
            .enumerate()
            .map(|(i, b)| InputObject::new(ObjectId::from_index(i), format!("o{i}"), b).unwrap())
            .collect();
        let got = renamed_sections(&objects);
        // Per object: the float helper (a, b, c) and the double one (b, c), each a number of
        // its own shared by its code and records.
        let mut per_copy: HashMap<(usize, String), Vec<String>> = HashMap::new();
        for (oi, _, name, k) in &got {
            assert!(name.contains("__cuda_sm"), "{name}");
            per_copy
                .entry((*oi, k.clone()))
                .or_default()
                .push(name.clone());
        }
        assert_eq!(per_copy.len(), 5, "{got:?}");
        for names in per_copy.values() {
            let f = function_of(names[0].as_bytes()).unwrap();
            assert!(names.iter().all(|n| function_of(n.as_bytes()) == Some(f)));
            assert!(names.iter().any(|n| n.starts_with(".text.")));
            assert!(names.iter().any(|n| n.starts_with(".nv.info.")));
        }
        // A link of one object renames nothing.
        assert!(aliases(&objects[..1]).unwrap().iter().all(|a| a.is_empty()));
    }

    #[test]
    fn copies_in_one_partial_link_are_told_apart_by_their_links() {
        // nvlink's -r output: local foo (sections 23, 27) twice, a global foo (25); on
        // sm_100 with their Mercury twins.
        let bytes = corpus("local_same_name_ptx/sm_100/r.cubin");
        let objects = [InputObject::new(ObjectId::new(0), "r.cubin".into(), &bytes).unwrap()];
        let got = renamed_sections(&objects);
        let copy_of = |si: usize| got.iter().find(|g| g.1 == si).map(|g| g.3.clone());
        let (first, second) = (copy_of(23).unwrap(), copy_of(27).unwrap());
        assert_ne!(first, second);
        // .nv.info.foo, .rela.text.foo, .nv.merc.nv.info.foo, .nv.merc.rela.text.foo and
        // .nv.capmerc.text.foo of each copy.
        for (si, want) in [
            (10, &first),
            (17, &first),
            (37, &first),
            (44, &first),
            (50, &first),
        ]
        .into_iter()
        .chain([
            (14, &second),
            (21, &second),
            (41, &second),
            (48, &second),
            (54, &second),
        ]) {
            assert_eq!(copy_of(si).as_ref(), Some(want), "section {si}: {got:?}");
        }
        // The global foo's keep their names.
        for si in [12, 25, 39, 52] {
            assert_eq!(copy_of(si), None, "section {si}");
        }
        assert_eq!(got.len(), 12);
    }

    #[test]
    fn a_copys_section_without_links_is_refused_where_the_name_cannot_tell() {
        let mut bytes = corpus("local_same_name_ptx/sm_90/r.cubin");
        let objects = [InputObject::new(ObjectId::new(0), "r.cubin".into(), &bytes).unwrap()];
        // The second local copy's `.nv.info.foo` (its code is the third `.text.foo`) loses
        // its sh_info.
        let at = {
            let o = &objects[0];
            let owner_text = |s: &crate::elf::Section<'_>| {
                o.cubin.sections.get(s.info as usize).map(|t| t.index)
            };
            let texts: Vec<u32> = o
                .cubin
                .sections
                .iter()
                .filter(|s| s.name == b".text.foo")
                .map(|s| s.index)
                .collect();
            let s = o
                .cubin
                .sections
                .iter()
                .find(|s| s.name == b".nv.info.foo" && owner_text(s) == Some(texts[2]))
                .unwrap();
            // (sh_info is at byte 44 of a 64-byte section header.)
            o.cubin.header.e_shoff as usize + 64 * s.index as usize + 44
        };
        drop(objects);
        bytes[at..at + 4].copy_from_slice(&0u32.to_le_bytes());
        let objects = [InputObject::new(ObjectId::new(0), "r.cubin".into(), &bytes).unwrap()];
        let e = aliases(&objects).unwrap_err().to_string();
        assert!(
            e.contains("'r.cubin': section '.nv.info.foo'") && e.contains("not implemented"),
            "{e}"
        );
    }

    #[test]
    fn aliases_come_off_names_and_messages() {
        let a = alias(b".text.f", 12);
        assert_eq!(&a[..], b".text.f\x0012");
        assert_eq!(real_name(&a), b".text.f");
        assert_eq!(real_name(b".text.f"), b".text.f");
        assert_eq!(
            real_text("'a.o': section '.text.f\u{0}3' and '.nv.info.g\u{0}14'"),
            "'a.o': section '.text.f' and '.nv.info.g'"
        );
    }
}
