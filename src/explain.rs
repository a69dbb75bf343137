//! What the link can say about its own decisions, which nvlink keeps to itself: the functions
//! dead-code removal dropped (`--print-gc-sections`) and why a function stayed
//! (`--why-live=GLOB`: the reference chain from a root). It reads liveness's product and the
//! inputs and changes nothing; the reports go to standard output.

use crate::liveness::{Liveness, Node, Unwanted};
use crate::object::{InputObject, SectionKind};
use crate::resolve::Resolution;
use hashbrown::HashMap;
use std::collections::VecDeque;
use std::fmt::Write;

/// A function's name (mangled) and code section, for messages.
fn function<'a>(objects: &'a [InputObject<'_>], (oi, si): Node) -> (&'a [u8], &'a [u8]) {
    let o = &objects[oi];
    let s = &o.cubin.sections[si];
    let name = o
        .text_function(s)
        .and_then(|f| o.symbols().get(f as usize))
        .map_or(s.name, |sym| sym.name);
    (name, s.name)
}

/// `name`, demangled where it is a C++ name, with the mangled form after it.
fn shown(name: &[u8]) -> String {
    let mangled = String::from_utf8_lossy(name);
    let plain = crate::demangle::readable(&mangled);
    if plain == mangled {
        format!("'{mangled}'")
    } else {
        format!("'{plain}' ({mangled})")
    }
}

/// One function's code the output leaves out (`--print-gc-sections`, the map).
#[derive(Debug, Clone)]
pub struct Removed {
    /// The function's name as its object has it.
    pub symbol: String,
    pub section: String,
    pub file: String,
    pub why: Removal,
}

/// Why a function's code is left out.
#[derive(Debug, Clone)]
pub enum Removal {
    /// A weak copy; the copy of the file named (if any) is kept, and where it won by using
    /// fewer registers, its count and this copy's.
    WeakCopy {
        kept_in: Option<String>,
        registers: Option<(u32, u32)>,
    },
    /// A kernel the link is not for.
    Kernel(Unwanted),
    /// Code only a removed kernel (the first in input order) reaches.
    ReachedOnlyFrom { kernel: String, why: Unwanted },
    /// No kernel reaches it.
    Unreached,
}

impl Removal {
    /// A stable name for the reason, for JSON.
    pub fn code(&self) -> &'static str {
        match self {
            Removal::WeakCopy { .. } => "weak-copy",
            Removal::Kernel(u) => unwanted_code(*u),
            Removal::ReachedOnlyFrom { .. } => "reached-only-from-removed-kernel",
            Removal::Unreached => "unreached",
        }
    }

    /// The reason in words.
    pub fn sentence(&self) -> String {
        match self {
            Removal::WeakCopy {
                kept_in: Some(f),
                registers: Some((kept, this)),
            } => format!(
                "a weak copy; the one in '{f}' is kept: it uses {kept} registers, this one {this}"
            ),
            Removal::WeakCopy {
                kept_in: Some(f), ..
            } => format!("a weak copy; the one in '{f}' is kept"),
            Removal::WeakCopy { kept_in: None, .. } => {
                "a weak copy; another one is kept".to_string()
            }
            Removal::Kernel(u) => unwanted(*u).to_string(),
            Removal::ReachedOnlyFrom { kernel, why } => {
                format!(
                    "reached only from {}: {}",
                    shown(kernel.as_bytes()),
                    unwanted(*why)
                )
            }
            Removal::Unreached => "no kernel reaches it".to_string(),
        }
    }
}

impl Removed {
    /// `--print-gc-sections`' line.
    pub fn line(&self) -> String {
        format!(
            "removed {} ({} in '{}'): {}",
            shown(self.symbol.as_bytes()),
            self.section,
            self.file,
            self.why.sentence()
        )
    }
}

/// `--print-gc-sections`: a line per removed function.
pub fn gc_sections_text(removed: &[Removed]) -> String {
    removed.iter().map(|r| r.line() + "\n").collect()
}

/// Every function's code the output leaves out, in input order, saying why: a kernel the link
/// is not for (and what decided that), code only such kernels reach, no kernel reaches it, or
/// a weak copy another object's copy won over.
pub fn removed(objects: &[InputObject<'_>], res: &Resolution<'_>, live: &Liveness) -> Vec<Removed> {
    let reasons = Reasons::of(live);
    let mut out = Vec::new();
    for (oi, o) in crate::object::enumerated(objects) {
        for (si, s) in o.cubin.sections.iter().enumerate() {
            if o.kind(s) != SectionKind::Text || live.live[oi][si] {
                continue;
            }
            let (name, section) = function(objects, (oi, si));
            out.push(Removed {
                symbol: String::from_utf8_lossy(name).into_owned(),
                section: String::from_utf8_lossy(section).into_owned(),
                file: o.name.clone(),
                why: reasons.removed_because(objects, res, (oi, si)),
            });
        }
    }
    out
}

/// What removed code owes its removal to: the kernels the link is not for, and for each
/// function only they reach, the first of them (in input order) that reaches it.
struct Reasons {
    kernel: HashMap<Node, Unwanted>,
    via: HashMap<Node, Node>,
}

impl Reasons {
    fn of(live: &Liveness) -> Reasons {
        let kernel: HashMap<Node, Unwanted> = live.unwanted.iter().copied().collect();
        let mut via = HashMap::new();
        for &(k, _) in &live.unwanted {
            let mut queue = VecDeque::from([k]);
            while let Some(n) = queue.pop_front() {
                let direct = live.edges.get(&n).into_iter().flatten();
                let indirect = live.indirect.get(&n).into_iter().flatten();
                for &t in direct.chain(indirect) {
                    let removed = !live.live[t.0][t.1] && !kernel.contains_key(&t);
                    if removed && !via.contains_key(&t) {
                        via.insert(t, k);
                        queue.push_back(t);
                    }
                }
            }
        }
        Reasons { kernel, via }
    }

    /// Why the output leaves a function's code out.
    fn removed_because(
        &self,
        objects: &[InputObject<'_>],
        res: &Resolution<'_>,
        (oi, si): Node,
    ) -> Removal {
        let o = &objects[oi];
        if let Some(f) = o.text_function(&o.cubin.sections[si]) {
            if !res.is_winner(oi, f) {
                let winner = res.definition(oi, f);
                let kept_in = winner.map(|(d, _)| objects[d].name.clone());
                // (Named only where that decided it, as nvlink decides: fewer registers.)
                let registers = winner.and_then(|(d, ds)| {
                    let kept = crate::resolve::register_count(&objects[d], ds)?;
                    let this = crate::resolve::register_count(o, f)?;
                    (kept < this).then_some((kept, this))
                });
                return Removal::WeakCopy { kept_in, registers };
            }
        }
        if let Some(&u) = self.kernel.get(&(oi, si)) {
            return Removal::Kernel(u);
        }
        match self.via.get(&(oi, si)) {
            Some(&k) => Removal::ReachedOnlyFrom {
                kernel: String::from_utf8_lossy(function(objects, k).0).into_owned(),
                why: self.kernel[&k],
            },
            None => Removal::Unreached,
        }
    }
}

/// Why a kernel is not the link's, and what to do to keep it.
fn unwanted(u: Unwanted) -> &'static str {
    match u {
        Unwanted::NotLaunched => {
            "a kernel host code never launches (host information; -ignore-host-info keeps it)"
        }
        Unwanted::NotNamed => "a kernel -kernels-used does not name",
        Unwanted::NoneNamed => "a kernel, and -variables-used without -kernels-used keeps none",
    }
}

fn unwanted_code(u: Unwanted) -> &'static str {
    match u {
        Unwanted::NotLaunched => "kernel-not-launched-by-host",
        Unwanted::NotNamed => "kernel-not-in-kernels-used",
        Unwanted::NoneNamed => "kernel-not-in-empty-kernels-used",
    }
}

/// How each function whose name (mangled or demangled) matches one of `patterns` is kept:
/// the shortest chain from a root, each step with the code that makes it.
pub fn why_live(
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    live: &Liveness,
    patterns: &[String],
) -> String {
    let parents = chains(live);
    let reasons = Reasons::of(live);
    let mut out = String::new();
    for pattern in patterns {
        let mut found = false;
        for (oi, o) in crate::object::enumerated(objects) {
            for (si, s) in o.cubin.sections.iter().enumerate() {
                if o.kind(s) != SectionKind::Text {
                    continue;
                }
                let (name, _) = function(objects, (oi, si));
                if !name_matches(pattern, name) {
                    continue;
                }
                found = true;
                chain(&mut out, objects, res, live, (&parents, &reasons), (oi, si));
            }
        }
        found |= variables(&mut out, objects, res, pattern);
        if !found {
            let _ = writeln!(
                out,
                "--why-live: no function or variable matches '{pattern}'"
            );
        }
    }
    out
}

/// Whether `--why-live`'s pattern matches a name, mangled or as c++filt shows it.
fn name_matches(pattern: &str, name: &[u8]) -> bool {
    let plain = crate::demangle::readable(&String::from_utf8_lossy(name));
    crate::input::host::glob_match(pattern.as_bytes(), name)
        || crate::input::host::glob_match(pattern.as_bytes(), plain.as_bytes())
}

/// `--why-live` for the variables whose name matches `pattern`: a link of cubins keeps every
/// variable, used or not (as nvlink keeps them), but the weak copies another object's copy
/// won over. Whether one matched.
fn variables(
    out: &mut String,
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    pattern: &str,
) -> bool {
    use crate::elf::read::SymSection;
    let mut found = false;
    for (oi, o) in crate::object::enumerated(objects) {
        for (i, sym) in o.symbols().iter().enumerate() {
            // (An uninitialized `__device__` variable is common until the link places it.)
            let section = match sym.section {
                SymSection::Index(si) => o
                    .cubin
                    .sections
                    .get(si as usize)
                    .map_or(&b""[..], |s| s.name),
                SymSection::Common => b"common",
                _ => continue,
            };
            // (Only variables' names are demangled to be matched.)
            let variable = matches!(
                sym.st_type,
                crate::elf::STT_OBJECT | crate::elf::STT_CUDA_OBJECT
            );
            if !variable || !name_matches(pattern, sym.name) {
                continue;
            }
            found = true;
            let place = format!(
                "{} ({} in '{}')",
                shown(sym.name),
                String::from_utf8_lossy(section),
                o.name
            );
            let _ = match res.definition(oi, i as u32) {
                Some((d, _)) if !res.is_winner(oi, i as u32) => writeln!(
                    out,
                    "{place} is not kept: a weak copy; the one in '{}' is kept",
                    objects[d].name
                ),
                _ => writeln!(
                    out,
                    "{place} is kept: a variable (a link keeps every variable, used or not, as \
                     nvlink does)"
                ),
            };
        }
    }
    found
}

/// How each live function was first reached (made once, read for every message).
pub struct Chains(HashMap<Node, Step>);

impl Chains {
    pub fn of(live: &Liveness) -> Chains {
        Chains(chains(live))
    }
}

/// One line for a message: how a live function is kept, root first
/// (`'_Z1kPi' [a kernel] -> '_Z3midi' -> '_Z4leafPii'`); `None` for one not kept. Names are
/// quoted and mangled as the rest of nvlink's message has them, so that `--demangle` shows
/// the whole message demangled and its absence none of it.
pub fn chain_line(
    objects: &[InputObject<'_>],
    live: &Liveness,
    chains: &Chains,
    target: Node,
) -> Option<String> {
    let steps = steps_to(&chains.0, target);
    steps.first()?;
    let names: Vec<String> = steps
        .into_iter()
        .map(|(n, step)| {
            let name = format!("'{}'", String::from_utf8_lossy(function(objects, n).0));
            match step {
                Step::Root if live.is_kernel(n) => format!("{name} [a kernel]"),
                Step::Root => format!("{name} [every function is kept]"),
                Step::DataRoot => format!("{name} [its address is held in data]"),
                Step::From(_) => name,
                Step::Indirect(_) => format!("(through a pointer) {name}"),
            }
        })
        .collect();
    Some(names.join(" -> "))
}

/// The steps from a root to `target`, root first, each node with how it was reached (none
/// where `target` was not reached).
fn steps_to(parents: &HashMap<Node, Step>, target: Node) -> Vec<(Node, Step)> {
    let mut steps = Vec::new();
    let mut n = target;
    // (Each step moves to a node reached earlier, so this ends at a root.)
    while let Some(&step) = parents.get(&n) {
        steps.push((n, step));
        match step {
            Step::From(p) | Step::Indirect(p) => n = p,
            Step::Root | Step::DataRoot => break,
        }
    }
    steps.reverse();
    steps
}

/// How a live node was first reached.
#[derive(Clone, Copy)]
enum Step {
    Root,
    DataRoot,
    /// Called or referenced from this function's code.
    From(Node),
    /// A possible target of this function's calls through a pointer.
    Indirect(Node),
}

/// Breadth first from the kernels (or every function, where all are kept), then from the
/// functions data points at that no kernel reaches: every chain is a shortest one, one from a
/// kernel where there is one, and the same on every run (roots in input order).
fn chains(live: &Liveness) -> HashMap<Node, Step> {
    let mut parent: HashMap<Node, Step> = HashMap::new();
    let mut queue = VecDeque::new();
    for (roots, step) in [
        (&live.roots, Step::Root),
        (&live.data_roots, Step::DataRoot),
    ] {
        for &n in roots {
            if !parent.contains_key(&n) {
                parent.insert(n, step);
                queue.push_back(n);
            }
        }
        while let Some(n) = queue.pop_front() {
            let direct = live
                .edges
                .get(&n)
                .into_iter()
                .flatten()
                .map(|&t| (t, Step::From(n)));
            let indirect = live
                .indirect
                .get(&n)
                .into_iter()
                .flatten()
                .map(|&t| (t, Step::Indirect(n)));
            for (t, step) in direct.chain(indirect) {
                if live.live[t.0][t.1] && !parent.contains_key(&t) {
                    parent.insert(t, step);
                    queue.push_back(t);
                }
            }
        }
    }
    parent
}

fn chain(
    out: &mut String,
    objects: &[InputObject<'_>],
    res: &Resolution<'_>,
    live: &Liveness,
    (parents, reasons): (&HashMap<Node, Step>, &Reasons),
    target: Node,
) {
    let place = |n: Node| {
        let (name, section) = function(objects, n);
        (
            shown(name),
            String::from_utf8_lossy(section).into_owned(),
            &objects[n.0].name,
        )
    };
    let (name, _, file) = place(target);
    if !live.live[target.0][target.1] || !parents.contains_key(&target) {
        let why = reasons.removed_because(objects, res, target).sentence();
        let _ = writeln!(out, "{name} in '{file}' is not kept: {why}");
        return;
    }
    let _ = writeln!(out, "{name} in '{file}' is kept:");
    for (n, step) in steps_to(parents, target) {
        let (name, section, file) = place(n);
        let why = match step {
            Step::Root if live.is_kernel(n) => "a kernel the link keeps".to_string(),
            Step::Root => "every function is kept (-r, -preserve-relocs or -g)".to_string(),
            Step::DataRoot => "its address is held in data".to_string(),
            Step::From(p) => format!("referenced from the code of {}", place(p).0),
            Step::Indirect(p) => format!("may be called through a pointer by {}", place(p).0),
        };
        let _ = writeln!(out, "  {name} ({section} in '{file}'): {why}");
    }
}

/// `--why-extract`: why each archive member is in the link, as lld's `--why-extract` writes
/// it (a header, then `reference<TAB>extracted<TAB>symbol` per member). nvlink links every
/// member of a user's archive whole (reference `-`, symbol `(whole archive)`); a system
/// library (libcudadevrt) comes in whole when an object uses one of its symbols: each member
/// names the first object, in input order, whose undefined reference it defines (else
/// `(with its library)`).
pub fn why_extract(objects: &[InputObject<'_>], units: &[crate::input::Unit<'_>]) -> String {
    use crate::elf::read::SymSection;
    let mut out = String::from("reference\textracted\tsymbol\n");
    let unit = |o: &InputObject<'_>| units.get(o.id.index());
    let user: Vec<&InputObject<'_>> = objects
        .iter()
        .filter(|o| unit(o).is_some_and(|u| !u.system))
        .collect();
    for o in objects {
        let Some(u) = unit(o).filter(|u| u.archive.is_some()) else {
            continue;
        };
        if !u.system {
            let _ = writeln!(out, "-\t{}\t(whole archive)", o.name);
            continue;
        }
        let defines = |name: &[u8]| {
            o.symbols().iter().skip(1).any(|s| {
                InputObject::is_global(s) && s.section != SymSection::Undefined && s.name == name
            })
        };
        let first = user.iter().find_map(|r| {
            r.symbols()
                .iter()
                .skip(1)
                .find(|s| {
                    InputObject::is_global(s)
                        && s.section == SymSection::Undefined
                        && defines(s.name)
                })
                .map(|s| (r.name.as_str(), s.name))
        });
        match first {
            Some((by, sym)) => {
                let sym = crate::demangle::readable(&String::from_utf8_lossy(sym));
                let _ = writeln!(out, "{by}\t{}\t{sym}", o.name);
            }
            None => {
                let _ = writeln!(out, "-\t{}\t(with its library)", o.name);
            }
        }
    }
    out
}
