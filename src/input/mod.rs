//! Inputs: from the command line's files and libraries to the device cubins the link reads.
//!
//! nvlink decides what a file is by its extension first and its content second (see
//! `classify`); host objects and archive members carry their device code in a fatbin, from
//! which the one entry for the target is chosen and decompressed. Everything else here only
//! borrows the mapped bytes.

pub mod archive;
pub mod fatbin;
pub mod files;
pub mod host;
pub mod ptx;

use crate::arch::Arch;
use crate::diag::{Error, Result};
pub use files::MappedFile;
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// One device cubin to link.
pub struct Unit<'a> {
    /// The name nvlink prints: the path as given, `lib.a:member` for archive members.
    pub name: String,
    pub bytes: Cow<'a, [u8]>,
    /// From a system library (libcudadevrt), linked only when something uses it.
    pub system: bool,
    /// A system library's entry, decompressed only if the link turns out to need it
    /// (`bytes` is empty until then): nvcc names libcudadevrt on every device link.
    pub pending: Option<fatbin::Entry<'a>>,
    /// The archive it is a member of, as named on the command line (`--why-extract`).
    pub archive: Option<String>,
}

impl<'a> Unit<'a> {
    /// The cubin, decompressing a pending entry.
    pub fn materialize(&self) -> Result<Cow<'a, [u8]>> {
        match &self.pending {
            Some(e) => fatbin::payload(e, &fatbin::Budget::of_this_machine())
                .map_err(|err| err.context(format!("'{}'", self.name))),
            None => Ok(self.bytes.clone()),
        }
    }
}

/// One module of LTO-IR (`-dlto`): an object's fatbin with an nvvm entry for the target, or
/// a bare `.ltoir` file. The LTO pass optimizes them together into one cubin.
pub struct LtoModule<'a> {
    /// As `Unit::name`.
    pub name: String,
    /// The LTO-IR, or (`in_fatbin`) the fatbin container that holds it: nvvm entries are
    /// stored in a form only the toolkit reads, and nvJitLink takes the container.
    pub ir: Cow<'a, [u8]>,
    pub in_fatbin: bool,
    /// The compile options the entry recorded (`-maxreg 32 -ftz=0 …`); none for a bare file.
    pub options: Option<String>,
    /// It came in a host object (so host code's references to it are known).
    pub from_host_object: bool,
}

/// One line of the `--register-link-binaries` file.
#[derive(Debug, Clone)]
pub struct Registration {
    pub id: String,
    pub system: bool,
}

/// What loading found, in link order.
#[derive(Default)]
pub struct Loaded<'a> {
    pub units: Vec<Unit<'a>>,
    pub registrations: Vec<Registration>,
    pub warnings: Vec<String>,
    /// Warnings -Werror turns into errors (missing architectures).
    pub arch_warnings: Vec<String>,
    pub infos: Vec<String>,
    /// Inputs skipped as nvlink skips them, silently there: a warning each, naming it and
    /// saying why (cubin-ld's own, which `-w` silences).
    pub skipped: Vec<String>,
    /// What tools cubin-ld ran said (ptxas's warnings), printed as they are.
    pub tool_messages: Vec<String>,
    /// Kernel name patterns host code launches (`.nvHRK*` of every host object), each
    /// marked when it comes from a system library (which counts only when linked).
    pub kernel_refs: Vec<(Vec<u8>, bool)>,
    /// Variables host code names (`.nvHRD*`, `.nvHRC*`), as `kernel_refs`: only LTO uses them.
    pub variable_refs: Vec<(Vec<u8>, bool)>,
    /// Under `-dlto`: the LTO-IR modules, in command-line order (their objects are not in
    /// `units`).
    pub lto: Vec<LtoModule<'a>>,
    /// A bare cubin, `.fatbin` or `.ptx` input, or a host object without host-reference
    /// sections (even a plain one, like libcudart_static's): host information is
    /// incomplete, so no kernel may be dropped for want of a host reference.
    pub has_bare_input: bool,
}

pub struct Options<'o> {
    pub arch: &'o Arch,
    pub library_paths: &'o [PathBuf],
    pub libraries: &'o [String],
    pub register: bool,
    /// What nvlink passes on to the ptxas it compiles PTX with (`-Xptxas`, `-maxrregcount`).
    pub ptxas_options: &'o [String],
    /// What the inputs' compressed entries may decompress to, together.
    pub decompressed: fatbin::Budget,
    /// `-dlto`/`-lto`: LTO-IR is taken (before any code for the target) for the LTO pass.
    pub lto: bool,
}

/// How nvlink treats an input, from its name and its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Cubin,
    HostObject,
    Archive,
    Fatbin,
    Ptx,
    /// A bare LTO-IR module (`.ltoir`, `.nvvm`), linked only under `-dlto`.
    LtoIr,
    /// Skipped as nvlink skips it: a shared library (no device code for this link).
    Ignored,
    /// Skipped as nvlink skips it, but with a word, as the user meant it to be linked:
    /// why.
    Skipped(&'static str),
}

const SYSTEM_LIBRARIES: &[&str] = &["libcudadevrt.a"];

/// What a file is, as the link reads it (`lto`: under `-dlto`).
pub fn kind_of(f: &MappedFile, lto: bool) -> Result<Kind> {
    classify(&f.path, &f.display_name(), f.bytes(), lto)
}

fn extension(path: &Path) -> Option<&str> {
    let name = path.file_name()?.to_str()?;
    name.rfind('.').map(|i| &name[i + 1..])
}

/// Files shorter than this (but not empty) are refused before their content is looked at,
/// whatever their name (nvlink: 1 to 55 bytes fail, an empty file is skipped).
const MIN_INPUT_BYTES: usize = 56;

fn classify(path: &Path, display: &str, bytes: &[u8], lto: bool) -> Result<Kind> {
    if !bytes.is_empty() && bytes.len() < MIN_INPUT_BYTES {
        return Err(
            Error::new(format!("Could not open input file '{display}'")).hint(format!(
                "'{display}' is {} bytes: too short to be an object, archive or fatbin (nvlink \
                 cannot open a file under {MIN_INPUT_BYTES} bytes)",
                bytes.len()
            )),
        );
    }
    let elf = host::elf_machine(bytes);
    let device = matches!(elf, Some((_, host::EM_CUDA)));
    let is_host = elf.is_some() && !device;
    let is_archive = archive::has_magic(bytes);
    match extension(path) {
        Some("cubin") => match elf {
            None => Err(Error::new(format!("cubin not an elf? ('{display}')"))),
            Some(_) if !device => Err(Error::new(format!("cubin not a device elf? ('{display}')"))),
            _ => Ok(Kind::Cubin),
        },
        Some("ptx") => {
            if elf.is_some() || is_archive || fatbin::has_magic(bytes) {
                Err(Error::new(format!(
                    "Can't load this binary kind, as it's not recognized ('{display}')"
                )))
            } else {
                Ok(Kind::Ptx)
            }
        }
        Some("fatbin") if fatbin::has_magic(bytes) => Ok(Kind::Fatbin),
        Some("fatbin") => Err(Error::new(format!("fatbin wrong format? ('{display}')"))),
        Some("nvvm") | Some("ltoir") if lto => Ok(Kind::LtoIr),
        // (nvlink's words, which the corpus compares: -lto is the option's short name.)
        Some("nvvm") | Some("ltoir") => Err(Error::new("should only see nvvm files when -lto")),
        Some("bc") => Err(Error::new(format!(
            "'{display}' is LLVM bitcode, which no device linker reads"
        ))),
        Some("o") if device => Ok(Kind::Cubin),
        Some("so") if is_host => Ok(Kind::Ignored),
        Some(_) if is_host => Ok(Kind::HostObject),
        Some(_) if is_archive => Ok(Kind::Archive),
        // Empty files, no extension at all, device ELFs under other names, other content:
        // nvlink skips, without a word.
        _ if bytes.is_empty() => Ok(Kind::Skipped("it is empty")),
        None => Ok(Kind::Skipped(
            "it has no file extension, and nvlink reads an input by its extension",
        )),
        Some(_) if elf.is_some() || is_archive => Ok(Kind::Skipped(
            "nvlink does not link this kind of file under this extension",
        )),
        Some(_) => Ok(Kind::Skipped(
            "it is not an object, archive, fatbin or PTX file",
        )),
    }
}

/// `-lfoo`: the first `libfoo.a` in the `-L` directories; nvlink skips a library it cannot
/// find without a word.
fn find_library(name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    dirs.iter()
        .map(|d| d.join(format!("lib{name}.a")))
        .find(|p| p.is_file())
}

/// A warning for each `-l` library no `-L` folder holds (nvlink skips it without a word; GNU
/// ld and lld stop at it, which would fail builds nvlink links, so cubin-ld warns).
pub fn missing_libraries(libraries: &[String], dirs: &[PathBuf]) -> Vec<String> {
    let missing = libraries.iter().filter(|l| find_library(l, dirs).is_none());
    missing
        .map(|l| {
            let searched: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            let searched = match searched.is_empty() {
                true => "no -L folder was given".to_string(),
                false => format!("searched {}", searched.join(", ")),
            };
            format!("library -l{l} skipped: no lib{l}.a found ({searched})")
        })
        .collect()
}

/// The files to read, in nvlink's order: inputs as given, then `-l` libraries.
pub fn input_paths(inputs: &[PathBuf], opts: &Options<'_>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = inputs.to_vec();
    out.extend(
        opts.libraries
            .iter()
            .filter_map(|l| find_library(l, opts.library_paths)),
    );
    out
}

/// Maps every path (in parallel); the same archive named twice is read once.
pub fn map_files(paths: &[PathBuf]) -> Result<Vec<MappedFile>> {
    // (Whether each is an archive is read here, in parallel: the read faults in the file's
    // first pages, a few microseconds a file, which the filter below made serial.)
    let maps: Vec<Result<(MappedFile, bool)>> = paths
        .par_iter()
        .map(|p| {
            let m = MappedFile::open(p)?;
            let archive = archive::has_magic(m.bytes());
            Ok((m, archive))
        })
        .collect();
    let maps: Vec<(MappedFile, bool)> = maps.into_iter().collect::<Result<_>>()?;
    let mut seen = hashbrown::HashSet::new();
    Ok(maps
        .into_iter()
        .filter(|(m, archive)| !archive || m.identity().is_none_or(|id| seen.insert(id)))
        .map(|(m, _)| m)
        .collect())
}

/// What one file contributes, before the pieces are put in order.
#[derive(Default)]
struct Piece<'a> {
    units: Vec<Unit<'a>>,
    registrations: Vec<Registration>,
    arch_warnings: Vec<String>,
    infos: Vec<String>,
    tool_messages: Vec<String>,
    kernel_refs: Vec<(Vec<u8>, bool)>,
    variable_refs: Vec<(Vec<u8>, bool)>,
    lto: Vec<LtoModule<'a>>,
    bare: bool,
    skipped: Option<String>,
}

/// Turns the mapped files into device cubins for `opts.arch`.
pub fn load<'a>(files: &'a [MappedFile], opts: &Options<'_>) -> Result<Loaded<'a>> {
    let pieces: Vec<Result<Piece<'a>>> = files.par_iter().map(|f| load_file(f, opts)).collect();
    let mut loaded = Loaded::default();
    let mut system = Vec::new();
    let mut system_regs = Vec::new();
    for p in pieces {
        let p = p?;
        for u in p.units {
            if u.system {
                system.push(u);
            } else {
                loaded.units.push(u);
            }
        }
        for r in p.registrations {
            if r.system {
                system_regs.push(r);
            } else {
                loaded.registrations.push(r);
            }
        }
        loaded.arch_warnings.extend(p.arch_warnings);
        loaded.skipped.extend(p.skipped);
        loaded.infos.extend(p.infos);
        loaded.tool_messages.extend(p.tool_messages);
        loaded.kernel_refs.extend(p.kernel_refs);
        loaded.variable_refs.extend(p.variable_refs);
        loaded.lto.extend(p.lto);
        loaded.has_bare_input |= p.bare;
    }
    if opts.lto {
        loaded.infos.extend(loaded.units.iter().map(|u| {
            format!(
                "requested LTO but '{}' not built for LTO so doing partial LTO",
                u.name
            )
        }));
    }
    // System libraries come last, whatever their position on the command line.
    loaded.units.extend(system);
    loaded.registrations.extend(system_regs);
    Ok(loaded)
}

fn load_file<'a>(f: &'a MappedFile, opts: &Options<'_>) -> Result<Piece<'a>> {
    let display = f.display_name();
    let bytes = f.bytes();
    let mut piece = Piece::default();
    match classify(&f.path, &display, bytes, opts.lto)? {
        Kind::Ignored => {}
        Kind::Skipped(why) => {
            piece.skipped = Some(format!("input file '{display}' skipped: {why}"))
        }
        Kind::Cubin => piece.add_bare(&f.path, &display, Cow::Borrowed(bytes), opts),
        Kind::Ptx => {
            // nvlink skips (silently) a PTX file written for an older member of the
            // target's family (sm_80 PTX for sm_86/sm_89); other PTX it compiles.
            if let Some(sm) = ptx::target_sm(bytes) {
                if sm != opts.arch.sm && crate::arch::object_links_into(sm, opts.arch.sm) {
                    return Ok(piece);
                }
            }
            let compiled = ptx::compile(&display, bytes, opts.ptxas_options, opts.arch)?;
            piece.tool_messages.extend(compiled.messages);
            piece.add_bare(&f.path, &display, Cow::Owned(compiled.cubin), opts);
        }
        Kind::LtoIr => piece.lto.push(LtoModule {
            name: display.clone(),
            ir: Cow::Borrowed(bytes),
            in_fatbin: false,
            options: None,
            from_host_object: false,
        }),
        Kind::Fatbin => {
            piece.bare = true;
            let before = piece.units.len();
            piece.add_fatbin(&display, bytes, false, false, opts)?;
            // Unlike a host object, a fatbin without code for the target is not registered
            // (its info line still comes).
            piece.register_bare(&f.path, &display, opts);
            if piece.units.len() == before {
                piece.registrations.pop();
            }
        }
        Kind::HostObject => piece.add_host_object(&display, bytes, false, opts)?,
        Kind::Archive => {
            let system = f
                .path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| SYSTEM_LIBRARIES.contains(&n));
            let first_member_unit = piece.units.len();
            let members = archive::members(&f.path, &display, bytes)?;
            piece.skipped = members.unread;
            for m in members.read {
                let name = format!("{display}:{}", m.name);
                if host::elf_machine(&m.bytes).is_none_or(|(_, mach)| mach == host::EM_CUDA) {
                    continue; // cubins (and ELF files too short for a header) are skipped
                }
                // A member without code for the target is skipped without a warning.
                let warnings = piece.arch_warnings.len();
                match m.bytes {
                    Cow::Borrowed(b) => piece.add_host_object(&name, b, system, opts)?,
                    Cow::Owned(v) => {
                        // A thin archive's member: its own file, read into memory.
                        let mut p = Piece::default();
                        p.add_host_object(&name, &v, system, opts)?;
                        piece.registrations.extend(p.registrations);
                        piece.arch_warnings.extend(p.arch_warnings);
                        piece.kernel_refs.extend(p.kernel_refs);
                        piece.variable_refs.extend(p.variable_refs);
                        piece.bare |= p.bare;
                        piece.lto.extend(p.lto.into_iter().map(|m| LtoModule {
                            name: m.name,
                            ir: Cow::Owned(m.ir.into_owned()),
                            in_fatbin: m.in_fatbin,
                            options: m.options,
                            from_host_object: m.from_host_object,
                        }));
                        for u in p.units {
                            let bytes = Cow::Owned(u.materialize()?.into_owned());
                            piece.units.push(Unit {
                                bytes,
                                pending: None,
                                ..u
                            });
                        }
                    }
                }
                piece.arch_warnings.truncate(warnings);
            }
            for u in &mut piece.units[first_member_unit..] {
                u.archive = Some(display.clone());
            }
        }
    }
    Ok(piece)
}

impl<'a> Piece<'a> {
    /// A cubin that came without host code (a bare cubin, or compiled from a PTX file).
    fn add_bare(&mut self, path: &Path, display: &str, bytes: Cow<'a, [u8]>, opts: &Options<'_>) {
        self.bare = true;
        self.units.push(Unit {
            name: display.to_string(),
            bytes,
            system: false,
            pending: None,
            archive: None,
        });
        self.register_bare(path, display, opts);
    }

    fn register_bare(&mut self, path: &Path, display: &str, opts: &Options<'_>) {
        if !opts.register {
            return;
        }
        self.infos.push(format!(
            "Input '{display}' has no host code, which could cause later host link error if \
             there is a reference to it"
        ));
        let cwd = std::env::current_dir().unwrap_or_default();
        let full = format!("{}/{}", cwd.display(), path.display());
        let id: String = full
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() {
                    b as char
                } else {
                    '_'
                }
            })
            .collect();
        self.registrations.push(Registration { id, system: false });
    }

    fn add_host_object(
        &mut self,
        name: &str,
        bytes: &'a [u8],
        system: bool,
        opts: &Options<'_>,
    ) -> Result<()> {
        let h = host::parse(name, bytes)?;
        self.bare |= !h.has_host_info;
        self.kernel_refs
            .extend(h.kernel_refs.iter().map(|p| (p.to_vec(), system)));
        self.variable_refs
            .extend(h.variable_refs.iter().map(|p| (p.to_vec(), system)));
        let Some(fatbin) = h.relfatbin else {
            return Ok(()); // plain host code, or whole-program device code (`.nv_fatbin`)
        };
        self.registrations
            .extend(h.module_ids.iter().map(|id| Registration {
                id: id.clone(),
                system,
            }));
        self.add_fatbin(name, fatbin, system, true, opts)
    }

    fn add_fatbin(
        &mut self,
        name: &str,
        bytes: &'a [u8],
        system: bool,
        from_host_object: bool,
        opts: &Options<'_>,
    ) -> Result<()> {
        let entries = fatbin::first_container(bytes).map_err(|e| e.context(format!("'{name}'")))?;
        // (Under -dlto a user object's LTO-IR is taken even where it also holds SASS.)
        if let Some(e) = fatbin::select_lto(&entries, opts.arch).filter(|_| opts.lto && !system) {
            self.lto.push(LtoModule {
                name: name.to_string(),
                ir: Cow::Borrowed(fatbin::first_container_bytes(bytes)),
                in_fatbin: true,
                options: e.options.map(|o| String::from_utf8_lossy(o).into_owned()),
                from_host_object,
            });
            return Ok(());
        }
        let Some(e) = fatbin::select(&entries, opts.arch) else {
            if fatbin::only_lto(&entries) {
                return Err(Error::new(format!(
                    "'{name}' holds LTO-IR only: link with -dlto"
                )));
            }
            self.arch_warnings
                .push(format!("SM Arch ('{}') not found in '{name}'", opts.arch));
            return Ok(());
        };
        if system && e.kind == fatbin::KIND_ELF {
            self.units.push(Unit {
                name: name.to_string(),
                bytes: Cow::Borrowed(&[]),
                system,
                pending: Some(e.clone()),
                archive: None,
            });
            return Ok(());
        }
        let payload = fatbin::payload(e, &opts.decompressed)
            .map_err(|err| err.context(format!("'{name}'")))?;
        let bytes = if e.kind == fatbin::KIND_PTX {
            let options: Vec<String> = e
                .options
                .map(|o| {
                    String::from_utf8_lossy(o)
                        .split_whitespace()
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            let options = [options, opts.ptxas_options.to_vec()].concat();
            let compiled = ptx::compile(name, &payload, &options, opts.arch)?;
            self.tool_messages.extend(compiled.messages);
            Cow::Owned(compiled.cubin)
        } else {
            payload
        };
        self.units.push(Unit {
            name: name.to_string(),
            bytes,
            system,
            pending: None,
            archive: None,
        });
        Ok(())
    }
}

/// The `--register-link-binaries` file: nvcc's link stub includes it to register every
/// module of the device link.
pub fn registration_file(regs: &[Registration]) -> String {
    let mut s = format!("#define NUM_PRELINKED_OBJECTS {}\n", regs.len());
    for r in regs {
        s.push_str(&format!("DEFINE_REGISTER_FUNC({})\n", r.id));
    }
    s
}
