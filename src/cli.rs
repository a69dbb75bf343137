//! Command line, parsed as nvlink parses its own: every option has a long name (`--arch`) and
//! usually a short one (`-arch`, `-o`), either spelled with one or two dashes; values follow
//! as `-o out`, `-o=out` (and joined only for `-lfoo`, `-Ldir`, `-m64`); lists accumulate over
//! repeats and split at commas; a single value given again with another value warns that the
//! last one is used; values are checked as nvlink checks them (enumerations, numbers,
//! booleans). Messages are nvlink's. The table is data: [`OPTIONS`].

use crate::diag::{Error, Result};
use std::path::{Path, PathBuf};

/// What an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Flag,
    /// One value; given again with another, the last wins (with a warning).
    Value(Check),
    /// One value that may be left out (`-ghls`, `-Ofc`): the default, and a following word
    /// that starts with `-` is not taken.
    Optional(Check, &'static str),
    /// Values that accumulate, split at commas.
    List,
    /// Values that accumulate, one per option, never split (`--why-live`: a demangled name
    /// may hold commas).
    Repeated,
    /// A value only when joined (`--resource-usage=json`), else the default: as GNU tools
    /// read an optional argument, so a following input is never taken for it.
    JoinedOptional(Check, &'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Any,
    Number,
    Bool,
    OneOf(&'static [&'static str]),
    Arch,
}

/// One option: long name, short name (`""`: only the long one, and only with two dashes),
/// what it takes, and how `--help` shows it.
struct Opt {
    long: &'static str,
    short: &'static str,
    takes: Takes,
    /// The value's name in `--help` (`""`: from what it takes).
    meta: &'static str,
    /// `--help`'s one line.
    help: &'static str,
}

const fn opt(
    long: &'static str,
    short: &'static str,
    takes: Takes,
    meta: &'static str,
    help: &'static str,
) -> Opt {
    Opt {
        long,
        short,
        takes,
        meta,
        help,
    }
}

use Takes::{Flag, JoinedOptional, List, Optional, Repeated, Value};

const CPU_ARCHS: &[&str] = &[
    "AARCH64", "ARMv7", "PPC64LE", "RISCV64", "X86", "X86_64", "unknown",
];

/// nvlink 13.5's options (its `--help`), plus what nvcc puts on the device-link line.
const OPTIONS: &[Opt] = &[
    opt(
        "Ofast-compile",
        "Ofc",
        Optional(Check::OneOf(&["0", "min", "mid", "max"]), "0"),
        "",
        "LTO: ptxas fast-compile level (refused with -dlto)",
    ),
    opt(
        "Xnvvm",
        "Xnvvm",
        List,
        "<opt>,...",
        "LTO: options for the optimizer (refused with -dlto)",
    ),
    opt(
        "Xptxas",
        "Xptxas",
        List,
        "<opt>,...",
        "LTO: options for ptxas, which compiles the optimized code",
    ),
    opt(
        "arch",
        "arch",
        Value(Check::Arch),
        "",
        "target GPU (sm_75 ... sm_121f); required",
    ),
    opt(
        "cpu-arch",
        "cpu-arch",
        Value(Check::OneOf(CPU_ARCHS)),
        "",
        "host CPU of the program (accepted; no effect on device code)",
    ),
    opt(
        "debug",
        "g",
        Flag,
        "",
        "debug link (what nvcc -G passes): keep every function and the debug sections",
    ),
    opt(
        "device-stack-protector",
        "device-stack-protector",
        Value(Check::Bool),
        "",
        "LTO: stack protectors (refused with -dlto)",
    ),
    opt(
        "disable-infos",
        "disable-infos",
        Flag,
        "",
        "print no info messages",
    ),
    opt("disable-warnings", "w", Flag, "", "print no warnings"),
    opt(
        "dlto",
        "dlto",
        Flag,
        "",
        "link-time optimization of LTO-IR inputs (nvcc -dlto), through nvJitLink",
    ),
    opt(
        "dump-callgraph",
        "dump-callgraph",
        Flag,
        "",
        "print the call graph as nvlink prints it, names demangled",
    ),
    opt(
        "dump-callgraph-no-demangle",
        "dump-callgraph-no-demangle",
        Flag,
        "",
        "the same, names as they are in the objects",
    ),
    opt(
        "emit-ptx",
        "emit-ptx",
        Flag,
        "",
        "LTO: write the optimized PTX instead of a cubin",
    ),
    opt(
        "extra-warnings",
        "extrawarn",
        Flag,
        "",
        "warn about more possible problems",
    ),
    opt(
        "gen-host-linker-script",
        "ghls",
        Optional(Check::OneOf(&["lcs-abs", "lcs-aug"]), "lcs-abs"),
        "",
        "write a host linker script that keeps the device code section, not a cubin",
    ),
    opt("help", "h", Flag, "", "print this help"),
    opt(
        "ignore-host-info",
        "ignore-host-info",
        Flag,
        "",
        "keep kernels host code never launches (no removal from host information)",
    ),
    opt(
        "keep-system-libraries",
        "keep-system-libraries",
        Flag,
        "",
        "keep all of libcudadevrt, used or not",
    ),
    opt(
        "kernels-used",
        "kernels-used",
        List,
        "<name>,...",
        "keep only kernels whose names contain one of these; remove the rest",
    ),
    opt(
        "library",
        "l",
        List,
        "<lib>,...",
        "link lib<lib>.a, searched for in the -L folders",
    ),
    opt(
        "library-path",
        "L",
        List,
        "<dir>,...",
        "folders to search for -l libraries",
    ),
    opt(
        "link-as-tools-patch",
        "astoolspatch",
        Flag,
        "",
        "tools-patch link (not supported: refused)",
    ),
    opt("link-time-opt", "lto", Flag, "", "the same as -dlto"),
    opt(
        "machine",
        "m",
        Value(Check::OneOf(&["64"])),
        "",
        "64-bit device code (the only value)",
    ),
    opt(
        "maxrregcount",
        "maxrregcount",
        Value(Check::Number),
        "",
        "LTO: the most registers a function may use",
    ),
    opt(
        "nvvm-latest",
        "nvvm-latest",
        Flag,
        "",
        "LTO: newest optimizer (refused with -dlto)",
    ),
    opt(
        "nvvmpath",
        "nvvmpath",
        Value(Check::Any),
        "<dir>",
        "LTO: the toolkit's nvvm folder; nvJitLink and ptxas are found beside it",
    ),
    opt(
        "options-file",
        "optf",
        List,
        "<file>,...",
        "read more options from these files",
    ),
    opt(
        "output-file",
        "o",
        Value(Check::Any),
        "<file>",
        "write the output here (required)",
    ),
    opt(
        "preserve-relocs",
        "preserve-relocs",
        Flag,
        "",
        "keep the resolved relocations in the linked executable",
    ),
    opt(
        "register-link-binaries",
        "",
        Value(Check::Any),
        "<file>",
        "write the registration header nvcc's host stub includes",
    ),
    opt(
        "relocatable-link",
        "r",
        Flag,
        "",
        "partial link: one relocatable object instead of an executable cubin",
    ),
    opt(
        "report-arch",
        "report-arch",
        Flag,
        "",
        "name the target in error messages",
    ),
    opt(
        "split-compile",
        "split-compile",
        Value(Check::Number),
        "",
        "LTO: optimizer threads (refused with -dlto)",
    ),
    opt(
        "split-compile-extended",
        "split-compile-extended",
        Value(Check::Number),
        "",
        "LTO: extended split compilation (refused with -dlto)",
    ),
    opt(
        "suppress-arch-warning",
        "suppress-arch-warning",
        Flag,
        "",
        "no warning for inputs without code for the target",
    ),
    opt(
        "suppress-debug-info",
        "suppress-debug-info",
        Flag,
        "",
        "with -g: leave the debug sections out",
    ),
    opt(
        "suppress-stack-size-warning",
        "suppress-stack-size-warning",
        Flag,
        "",
        "no warning when a stack size cannot be determined",
    ),
    opt(
        "time",
        "time",
        Value(Check::Any),
        "<file>",
        "append CSV timings to this file (- for standard output)",
    ),
    opt(
        "uidx-file",
        "uidx",
        Value(Check::Any),
        "<file>",
        "unified-index file (not supported: refused)",
    ),
    opt(
        "use-host-info",
        "use-host-info",
        Flag,
        "",
        "remove kernels host code never launches (the default)",
    ),
    opt(
        "variables-used",
        "variables-used",
        List,
        "<name>,...",
        "keep only device variables whose names contain one of these",
    ),
    opt(
        "verbose",
        "v",
        Flag,
        "",
        "print each kernel's resources as nvlink does",
    ),
    opt("verbose2", "v2", Flag, "", "the same as -v"),
    opt("version", "V", Flag, "", "print the version"),
    opt(
        "warning-as-error",
        "Werror",
        Flag,
        "",
        "treat warnings as errors",
    ),
    // What nvcc and CMake pass on the device-link line besides nvlink's own.
    opt(
        "host-ccbin",
        "host-ccbin",
        Value(Check::Any),
        "<path>",
        "host compiler nvcc names (accepted, unused)",
    ),
    opt(
        "shared",
        "shared",
        Flag,
        "",
        "what nvcc passes for shared libraries (accepted, no effect)",
    ),
    // cubin-ld's own (`OWN_OPTIONS`).
    opt(
        "threads",
        "",
        Value(Check::Number),
        "",
        "threads to link with (default: one per core; the output is the same)",
    ),
    opt(
        "print-gc-sections",
        "",
        Flag,
        "",
        "list the code removed, and why",
    ),
    opt(
        "why-live",
        "",
        Repeated,
        "<glob>",
        "show why each matching function is kept (repeatable)",
    ),
    opt(
        "why-extract",
        "",
        Value(Check::Any),
        "<file>",
        "write why each archive member is linked (- for standard output)",
    ),
    opt(
        "demangle",
        "",
        Flag,
        "",
        "show C++ names demangled in messages",
    ),
    opt(
        "time-trace",
        "",
        Value(Check::Any),
        "<file>",
        "write the passes' times as a Chrome trace (- for standard output)",
    ),
    opt(
        "reproduce",
        "",
        Value(Check::Any),
        "<file.tar>",
        "write the inputs and command line to relink elsewhere",
    ),
    opt(
        "Map",
        "Map",
        Value(Check::Any),
        "<file>",
        "write a link map (- for standard output)",
    ),
    opt(
        "print-map",
        "",
        Flag,
        "",
        "print the link map on standard output",
    ),
    opt(
        "map-format",
        "",
        Value(Check::OneOf(&["text", "json"])),
        "",
        "the map as text (default) or JSON",
    ),
    opt(
        "color",
        "",
        Value(Check::OneOf(&["auto", "always", "never"])),
        "",
        "colour messages (default: auto, only on a terminal)",
    ),
    opt(
        "diagnostics-format",
        "",
        Value(Check::OneOf(&["text", "json"])),
        "",
        "messages as text (default) or one JSON object per line",
    ),
    opt(
        "resource-usage",
        "",
        JoinedOptional(Check::OneOf(&["table", "json"]), "table"),
        "",
        "each kernel's registers, stack and shared memory, and what set them",
    ),
];

/// Options nvlink does not have (spelled as GNU ld, lld and mold spell them); `--help` lists
/// them apart.
pub const OWN_OPTIONS: &[&str] = &[
    "threads",
    "print-gc-sections",
    "why-live",
    "why-extract",
    "demangle",
    "time-trace",
    "reproduce",
    "resource-usage",
    "Map",
    "print-map",
    "map-format",
    "color",
    "diagnostics-format",
];

/// Short options that also take their value joined (`-lcudadevrt`, `-L/dir`, `-m64`).
const JOINED: &[&str] = &["l", "L", "m"];

/// One word of the command line as parsed: an option by its long name, with its value as
/// given, or an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    Option(&'static str, Option<String>),
    Input(PathBuf),
}

/// The parsed command line.
#[derive(Debug, Clone, Default)]
pub struct Args {
    pub arch: Option<String>,
    pub output: Option<PathBuf>,
    pub relocatable: bool,
    pub preserve_relocs: bool,
    pub library_paths: Vec<PathBuf>,
    pub libraries: Vec<String>,
    pub kernels_used: Vec<String>,
    pub variables_used: Vec<String>,
    pub register_link_binaries: Option<PathBuf>,
    pub verbose: bool,
    pub verbose2: bool,
    pub disable_warnings: bool,
    pub warning_as_error: bool,
    pub extra_warnings: bool,
    pub disable_infos: bool,
    pub suppress_stack_size_warning: bool,
    pub suppress_arch_warning: bool,
    pub suppress_debug_info: bool,
    pub dump_callgraph: bool,
    pub dump_callgraph_no_demangle: bool,
    pub ignore_host_info: bool,
    pub use_host_info: bool,
    pub keep_system_libraries: bool,
    /// `-g`: keep every function, for the debugger (what `nvcc -G` passes).
    pub debug: bool,
    pub device_stack_protector: Option<bool>,
    pub machine: Option<u32>,
    pub cpu_arch: Option<String>,
    pub maxrregcount: Option<i64>,
    pub report_arch: bool,
    pub host_ccbin: Option<String>,
    pub shared: bool,
    /// `--threads N`: the threads the link runs on (default: one per core). The output does
    /// not depend on it.
    pub threads: Option<i64>,
    /// `--print-gc-sections`: list the functions dead-code removal dropped, and why.
    pub print_gc_sections: bool,
    /// `--why-live=GLOB` (repeatable): how each matching function is kept.
    pub why_live: Vec<String>,
    /// `--time-trace=FILE`: the passes' times as a Chrome trace.
    pub time_trace: Option<PathBuf>,
    /// `--why-extract=FILE` (`-`: standard output): why each archive member is linked.
    pub why_extract: Option<PathBuf>,
    /// `--demangle`: messages show C++ names demangled, the mangled form after each.
    pub demangle: bool,
    /// `--reproduce=FILE.tar`: the inputs and the command line, to relink elsewhere.
    pub reproduce: Option<PathBuf>,
    /// `--resource-usage[=json]`: each kernel's resources after propagation, and what
    /// determined them.
    pub resource_usage: Option<String>,
    /// `-Map=FILE`, `--print-map` (standard output), `--map-format=text|json`.
    pub map: Option<PathBuf>,
    pub print_map: bool,
    pub map_format: Option<String>,
    /// `--color=auto|always|never`, `--diagnostics-format=text|json`.
    pub color: Option<String>,
    pub diagnostics_format: Option<String>,
    pub help: bool,
    pub version: bool,
    /// Link-time optimization options (`crate::lto`); those whose effect is not established
    /// are refused with `-dlto` (`unsupported`).
    pub ofast_compile: Option<String>,
    pub xnvvm: Vec<String>,
    pub xptxas: Vec<String>,
    pub dlto: bool,
    pub lto: bool,
    pub emit_ptx: bool,
    pub nvvm_latest: bool,
    pub nvvmpath: Option<String>,
    pub split_compile: Option<i64>,
    pub split_compile_extended: Option<i64>,
    pub tools_patch: bool,
    /// `-ghls`: write a host linker script instead of linking.
    pub ghls: Option<String>,
    pub uidx_file: Option<String>,
    /// `-time FILE`: phase timings as CSV (`-` for standard output).
    pub time: Option<String>,
    pub inputs: Vec<PathBuf>,
    /// Warnings of the parser itself (a value given twice), printed first and never turned
    /// into errors or silenced, as nvlink's.
    pub parse_warnings: Vec<String>,
    /// Options that were given but are not implemented.
    pub unsupported: Vec<String>,
    /// The command line as parsed, options files expanded (for `--reproduce`).
    pub words: Vec<Word>,
}

/// Where option files may nest, and how large one may be.
const MAX_OPTION_FILE_DEPTH: u32 = 16;
const MAX_OPTION_FILE_BYTES: u64 = 16 << 20;

/// Parses the arguments after the program name.
pub fn parse(raw: &[String]) -> Result<Args> {
    let mut p = Parser::default();
    p.words(raw, 0)?;
    let mut a = p.args;
    if a.dlto || a.lto {
        let untried = [
            (a.ofast_compile.is_some(), "-Ofast-compile"),
            (!a.xnvvm.is_empty(), "-Xnvvm"),
            (a.nvvm_latest, "-nvvm-latest"),
            (
                a.device_stack_protector.is_some(),
                "-device-stack-protector",
            ),
            (a.split_compile.is_some(), "-split-compile"),
            (
                a.split_compile_extended.is_some(),
                "-split-compile-extended",
            ),
            (
                !a.kernels_used.is_empty() || !a.variables_used.is_empty(),
                "-kernels-used/-variables-used",
            ),
        ];
        a.unsupported.extend(untried.iter().filter(|u| u.0).map(|(_, name)| {
            format!("option '{name}' is not supported with -dlto: how nvlink applies it to link-time optimization is not established")
        }));
    }
    if a.tools_patch {
        a.unsupported.push(
            "option '-astoolspatch' is not supported: tools-patch links are not implemented".into(),
        );
    }
    Ok(a)
}

#[derive(Default)]
struct Parser {
    args: Args,
    /// The value each single-valued option got, by long name.
    given: Vec<(&'static str, String)>,
}

impl Parser {
    fn words(&mut self, raw: &[String], depth: u32) -> Result<()> {
        let mut i = 0;
        while i < raw.len() {
            let t = &raw[i];
            i += 1;
            // `@FILE`: options read from FILE, as GNU tools read a response file (nvlink has
            // no such thing and fails on it as a missing input). Where FILE does not exist,
            // the word stays an input, as GNU tools leave it.
            if let Some(f) = t.strip_prefix('@').filter(|f| Path::new(f).is_file()) {
                self.options_file(f, depth)?;
                continue;
            }
            let Some(body) = t.strip_prefix('-').filter(|b| !b.is_empty()) else {
                self.args.inputs.push(PathBuf::from(t));
                self.args.words.push(Word::Input(PathBuf::from(t)));
                continue;
            };
            let (name, eq) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            let (o, joined) = match lookup(name) {
                Some(o) => (o, None),
                None => match JOINED
                    .iter()
                    .find(|j| name.starts_with(**j) && !body.starts_with('-'))
                {
                    Some(j) => (lookup(j).unwrap(), Some(&body[j.len()..])),
                    None => return Err(Error::new(format!("Unknown option '{name}'"))),
                },
            };
            // The option as typed, without its value (for messages).
            let typed = match eq {
                Some(v) if joined.is_none() => &t[..t.len() - v.len() - 1],
                _ => t.as_str(),
            };
            let value = match (o.takes, joined.or(eq)) {
                (Flag, Some(_)) => {
                    return Err(Error::new(format!("no argument expected after '{typed}'")))
                }
                (Flag, None) => None,
                (_, Some(v)) => Some(v.to_string()),
                (JoinedOptional(_, default), None) => Some(default.to_string()),
                (Optional(_, default), None) => match raw.get(i) {
                    Some(next) if !next.starts_with('-') => {
                        i += 1;
                        Some(next.clone())
                    }
                    _ => Some(default.to_string()),
                },
                (_, None) => match raw.get(i) {
                    Some(next) => {
                        i += 1;
                        Some(next.clone())
                    }
                    None => return Err(Error::new(format!("argument expected after '{typed}'"))),
                },
            };
            match (o.takes, value) {
                (Flag, _) => self.flag(o.long),
                (List, Some(v)) if o.long == "options-file" => {
                    for f in v.split(',') {
                        self.options_file(f, depth)?;
                    }
                }
                (List, Some(v)) => self.list(o.long, &v),
                (Repeated, Some(v)) => self.repeated(o.long, v),
                (Value(c) | Optional(c, _) | JoinedOptional(c, _), Some(v)) => {
                    check_value(o.long, c, &v)?;
                    self.value(o.long, v);
                }
                (_, None) => unreachable!("a value was taken above"),
            }
        }
        Ok(())
    }

    fn options_file(&mut self, f: &str, depth: u32) -> Result<()> {
        if depth >= MAX_OPTION_FILE_DEPTH {
            return Err(Error::new(format!(
                "options file '{f}' is nested more than {MAX_OPTION_FILE_DEPTH} deep"
            )));
        }
        let cannot = || Error::new(format!("Could not open options file '{f}'"));
        let meta = std::fs::metadata(Path::new(f)).map_err(|_| cannot())?;
        if meta.len() > MAX_OPTION_FILE_BYTES {
            return Err(Error::new(format!(
                "options file '{f}' is larger than {} MiB",
                MAX_OPTION_FILE_BYTES >> 20
            )));
        }
        let text = std::fs::read_to_string(Path::new(f)).map_err(|_| cannot())?;
        self.words(&split_options_file(&text), depth + 1)
    }

    fn flag(&mut self, long: &'static str) {
        self.args.words.push(Word::Option(long, None));
        let a = &mut self.args;
        let f = match long {
            "debug" => &mut a.debug,
            "disable-infos" => &mut a.disable_infos,
            "disable-warnings" => &mut a.disable_warnings,
            "dlto" => &mut a.dlto,
            "dump-callgraph" => &mut a.dump_callgraph,
            "dump-callgraph-no-demangle" => &mut a.dump_callgraph_no_demangle,
            "emit-ptx" => &mut a.emit_ptx,
            "extra-warnings" => &mut a.extra_warnings,
            "help" => &mut a.help,
            "ignore-host-info" => &mut a.ignore_host_info,
            "keep-system-libraries" => &mut a.keep_system_libraries,
            "link-as-tools-patch" => &mut a.tools_patch,
            "link-time-opt" => &mut a.lto,
            "nvvm-latest" => &mut a.nvvm_latest,
            "preserve-relocs" => &mut a.preserve_relocs,
            "relocatable-link" => &mut a.relocatable,
            "report-arch" => &mut a.report_arch,
            "suppress-arch-warning" => &mut a.suppress_arch_warning,
            "suppress-debug-info" => &mut a.suppress_debug_info,
            "suppress-stack-size-warning" => &mut a.suppress_stack_size_warning,
            "use-host-info" => &mut a.use_host_info,
            "verbose" => &mut a.verbose,
            "verbose2" => &mut a.verbose2,
            "version" => &mut a.version,
            "warning-as-error" => &mut a.warning_as_error,
            "shared" => &mut a.shared,
            "print-gc-sections" => &mut a.print_gc_sections,
            "demangle" => &mut a.demangle,
            "print-map" => &mut a.print_map,
            other => unreachable!("flag '{other}' missing from Parser::flag"),
        };
        *f = true;
    }

    fn list(&mut self, long: &'static str, v: &str) {
        self.args
            .words
            .push(Word::Option(long, Some(v.to_string())));
        let a = &mut self.args;
        let items = v.split(',').map(String::from);
        match long {
            "Xnvvm" => a.xnvvm.extend(items),
            "Xptxas" => a.xptxas.extend(items),
            "kernels-used" => a.kernels_used.extend(items),
            "variables-used" => a.variables_used.extend(items),
            "library" => a.libraries.extend(items),
            "library-path" => a.library_paths.extend(items.map(PathBuf::from)),
            other => unreachable!("list '{other}' missing from Parser::list"),
        }
    }

    fn repeated(&mut self, long: &'static str, v: String) {
        self.args.words.push(Word::Option(long, Some(v.clone())));
        match long {
            "why-live" => self.args.why_live.push(v),
            other => unreachable!("repeated '{other}' missing from Parser::repeated"),
        }
    }

    fn value(&mut self, long: &'static str, v: String) {
        self.args.words.push(Word::Option(long, Some(v.clone())));
        match self.given.iter_mut().find(|(l, _)| *l == long) {
            Some((_, old)) if *old != v => {
                self.args.parse_warnings.push(format!(
                    "incompatible redefinition for option '{long}', the last value of this \
                     option was used"
                ));
                *old = v.clone();
            }
            Some(_) => {}
            None => self.given.push((long, v.clone())),
        }
        let a = &mut self.args;
        let number = || v.parse::<i64>().ok();
        match long {
            "Ofast-compile" => a.ofast_compile = Some(v),
            "arch" => a.arch = Some(v),
            "cpu-arch" => a.cpu_arch = Some(v),
            "device-stack-protector" => a.device_stack_protector = Some(v == "true"),
            "machine" => a.machine = v.parse().ok(),
            "maxrregcount" => a.maxrregcount = number(),
            "nvvmpath" => a.nvvmpath = Some(v),
            "output-file" => a.output = Some(PathBuf::from(v)),
            "register-link-binaries" => a.register_link_binaries = Some(PathBuf::from(v)),
            "split-compile" => a.split_compile = number(),
            "split-compile-extended" => a.split_compile_extended = number(),
            "gen-host-linker-script" => a.ghls = Some(v),
            "time" => a.time = Some(v),
            "uidx-file" => a.uidx_file = Some(v),
            "host-ccbin" => a.host_ccbin = Some(v),
            "threads" => a.threads = number(),
            "time-trace" => a.time_trace = Some(PathBuf::from(v)),
            "why-extract" => a.why_extract = Some(PathBuf::from(v)),
            "reproduce" => a.reproduce = Some(PathBuf::from(v)),
            "resource-usage" => a.resource_usage = Some(v),
            "Map" => a.map = Some(PathBuf::from(v)),
            "map-format" => a.map_format = Some(v),
            "color" => a.color = Some(v),
            "diagnostics-format" => a.diagnostics_format = Some(v),
            other => unreachable!("value '{other}' missing from Parser::value"),
        }
    }
}

impl Args {
    /// The command line as parsed (options files expanded), each word as the shell would
    /// need it: for the map's header.
    pub fn command_line(&self) -> Vec<String> {
        let words = self.words.iter().map(|w| match w {
            Word::Option(long, None) => format!("--{long}"),
            Word::Option(long, Some(v)) => format!("--{long}={v}"),
            Word::Input(p) => p.display().to_string(),
        });
        std::iter::once("cubin-ld".to_string())
            .chain(words)
            .collect()
    }

    /// A link map is asked for (`-Map=FILE` or `--print-map`).
    pub fn wants_map(&self) -> bool {
        self.map.is_some() || self.print_map
    }

    /// `--threads`: `None` without it, else the count or what is wrong with it.
    pub fn thread_count(&self) -> Option<Result<usize>> {
        self.threads.map(|n| {
            usize::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
                Error::new(format!("--threads: expected a positive number, got {n}"))
            })
        })
    }

    /// The options nvlink hands the ptxas that compiles PTX inputs: `-Xptxas`'s, then
    /// `-maxrregcount`.
    pub fn ptxas_options(&self) -> Vec<String> {
        let mut v = self.xptxas.clone();
        if let Some(n) = self.maxrregcount {
            v.extend(["-maxrregcount".to_string(), n.to_string()]);
        }
        v
    }

    /// Which kernels the link keeps by name: `None` every one (and always under `-r`);
    /// `-kernels-used` those it names; `-variables-used` alone none.
    pub fn kernel_filter(&self) -> Option<Vec<String>> {
        if self.relocatable {
            None
        } else if !self.kernels_used.is_empty() {
            Some(self.kernels_used.clone())
        } else if !self.variables_used.is_empty() {
            Some(Vec::new())
        } else {
            None
        }
    }
}

/// What nvlink checks of the options before it reads any input, in its order and words;
/// returns the target.
pub fn check(a: &Args) -> Result<crate::arch::Arch> {
    let name = a.arch.as_deref().ok_or_else(|| {
        // (nvlink's words first; then what they mean.)
        Error::new(
            "Unknown arch name '(null)': no target was given; name one with -arch \
                 (cubin-ld -arch=sm_90 a.o b.o -o out.cubin; cubin-ld --help lists the options)",
        )
    })?;
    let arch = crate::arch::Arch::parse(name)?;
    if arch.kind == crate::arch::ArchKind::Lto {
        return Err(Error::new(format!(
            "Link target of '{name}' is virtual target that is not JIT-able; use 'sm_' target \
             instead"
        )));
    }
    let lto = a.dlto || a.lto;
    for (on, name, other) in [
        (
            a.dump_callgraph && a.dump_callgraph_no_demangle,
            "-dump-callgraph",
            "-dump-callgraph-no-demangle",
        ),
        (
            a.use_host_info && a.ignore_host_info,
            "-use-host-info",
            "-ignore-host-info",
        ),
        (
            a.suppress_debug_info && !a.debug,
            "-suppress-debug-info",
            "no -g",
        ),
        (
            a.ofast_compile.is_some() && !lto,
            "--Ofast-compile",
            "no -dlto",
        ),
        (a.emit_ptx && !lto, "-emit-ptx", "no -dlto"),
        (a.nvvm_latest && !lto, "-nvvm-latest", "no -dlto"),
    ] {
        if on {
            return Err(Error::new(format!(
                "Conflicting options '{name}' and '{other}'"
            )));
        }
    }
    if lto && a.nvvmpath.is_none() {
        return Err(Error::new("-nvvmpath should be specified with -lto"));
    }
    if a.output.is_none() {
        return Err(Error::new("Must specify output file with -o option"));
    }
    if a.inputs.is_empty() {
        return Err(Error::new(
            "No input files specified; use option --help for more information",
        ));
    }
    if let Some(f) = &a.uidx_file {
        match std::fs::metadata(f) {
            Ok(m) if m.is_file() && m.len() == 0 => {
                return Err(Error::new(format!("Could not read file '{f}'")))
            }
            Ok(m) if m.is_file() => {}
            _ => return Err(Error::new(format!("Could not open input file '{f}'"))),
        }
        return Err(Error::new(
            "option '-uidx' is not supported: the UFT/UDT index file format is unknown",
        ));
    }
    Ok(arch)
}

/// The option a name means: `-name` is a long name when it starts with a dash (`--arch`), else
/// a short name or a long one (`-arch`, `-preserve-relocs`).
fn lookup(name: &str) -> Option<&'static Opt> {
    match name.strip_prefix('-') {
        Some(long) => OPTIONS.iter().find(|o| o.long == long),
        None => OPTIONS
            .iter()
            .find(|o| o.short == name || (o.long == name && !o.short.is_empty())),
    }
}

fn check_value(long: &str, c: Check, v: &str) -> Result<()> {
    let ok = match c {
        Check::Any => true,
        Check::Number => {
            return v
                .parse::<i64>()
                .map(|_| ())
                .map_err(|_| Error::new(format!("'{v}': expected a number")))
        }
        Check::Bool => {
            return match v {
                "true" | "false" => Ok(()),
                _ => Err(Error::new(format!("'{v}': expected true or false"))),
            }
        }
        Check::OneOf(set) => set.contains(&v),
        Check::Arch => crate::arch::Arch::parse(v).is_ok(),
    };
    match ok {
        true => Ok(()),
        false => Err(Error::new(format!(
            "Value '{v}' is not defined for option '{long}'"
        ))),
    }
}

/// The options as nvlink records them in its `.note.nv.tkinfo` entry (cubin-ld writes its
/// own entry the same way, so outputs of the same command line compare byte for byte): a
/// fixed order, short names, switches followed by two blanks, values by one, lists joined
/// with commas, a value given twice once; `-g` puts the inputs' and the output's file names
/// first. Returns (object field, options).
pub fn recorded_options(a: &Args) -> (String, String) {
    let mut s = String::new();
    let mut file = String::new();
    let flag = |s: &mut String, on: bool, name: &str| {
        if on {
            s.push_str(&format!("-{name}  "));
        }
    };
    let value = |s: &mut String, v: Option<String>, name: &str| {
        if let Some(v) = v {
            s.push_str(&format!("-{name} {v} "));
        }
    };
    let list = |v: &[String]| (!v.is_empty()).then(|| v.join(","));
    let base = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if a.debug {
        let inputs: Vec<String> = a.inputs.iter().map(|p| base(p)).collect();
        s.push_str(&format!("{} ", inputs.join(",")));
    }
    flag(
        &mut s,
        a.suppress_stack_size_warning,
        "suppress-stack-size-warning",
    );
    flag(&mut s, a.suppress_arch_warning, "suppress-arch-warning");
    if a.debug {
        let out = a.output.as_deref().map(base).unwrap_or_default();
        s.push_str(&format!("-o {out} -g  "));
        file = out;
    }
    value(&mut s, a.arch.clone(), "arch");
    value(&mut s, a.machine.map(|m| m.to_string()), "m");
    value(&mut s, list(&a.libraries), "l");
    let paths: Vec<String> = a
        .library_paths
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    value(&mut s, list(&paths), "L");
    // (Under -g nvlink also records the registration file, under its empty short name.)
    if a.debug {
        value(
            &mut s,
            a.register_link_binaries
                .as_ref()
                .map(|p| p.display().to_string()),
            "",
        );
    }
    flag(&mut s, a.verbose, "v");
    flag(&mut s, a.verbose2, "v2");
    flag(&mut s, a.preserve_relocs, "preserve-relocs");
    flag(&mut s, a.disable_warnings, "w");
    flag(&mut s, a.warning_as_error, "Werror");
    flag(&mut s, a.disable_infos, "disable-infos");
    flag(&mut s, a.keep_system_libraries, "keep-system-libraries");
    value(&mut s, list(&a.kernels_used), "kernels-used");
    value(&mut s, list(&a.variables_used), "variables-used");
    value(&mut s, a.cpu_arch.clone(), "cpu-arch");
    flag(&mut s, a.report_arch, "report-arch");
    flag(&mut s, a.emit_ptx, "emit-ptx");
    flag(&mut s, a.extra_warnings, "extrawarn");
    flag(&mut s, a.lto, "lto");
    flag(&mut s, a.dlto, "dlto");
    flag(&mut s, a.nvvm_latest, "nvvm-latest");
    value(&mut s, a.nvvmpath.clone(), "nvvmpath");
    value(
        &mut s,
        a.split_compile.map(|n| n.to_string()),
        "split-compile",
    );
    value(
        &mut s,
        a.split_compile_extended.map(|n| n.to_string()),
        "split-compile-extended",
    );
    value(&mut s, a.ofast_compile.clone(), "Ofc");
    flag(&mut s, a.suppress_debug_info, "suppress-debug-info");
    flag(&mut s, a.tools_patch, "astoolspatch");
    value(&mut s, list(&a.xptxas), "Xptxas");
    value(&mut s, list(&a.xnvvm), "Xnvvm");
    value(
        &mut s,
        a.maxrregcount.map(|m| m.to_string()),
        "maxrregcount",
    );
    flag(&mut s, a.dump_callgraph, "dump-callgraph");
    flag(
        &mut s,
        a.dump_callgraph_no_demangle,
        "dump-callgraph-no-demangle",
    );
    flag(&mut s, a.ignore_host_info, "ignore-host-info");
    flag(&mut s, a.use_host_info, "use-host-info");
    flag(&mut s, a.relocatable, "r");
    value(
        &mut s,
        a.device_stack_protector.map(|b| b.to_string()),
        "device-stack-protector",
    );
    (file, s)
}

/// Splits an options file into arguments as nvlink does: whitespace separates, double quotes
/// group (nvcc writes every path quoted), a backslash takes the next character literally
/// (`\ ` is a blank inside a word); single quotes and `#` are ordinary characters.
fn split_options_file(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut has = false;
    let mut chars = text.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => {
                if let Some(next) = chars.next() {
                    cur.push(next);
                }
                has = true;
            }
            '"' => {
                quoted = !quoted;
                has = true;
            }
            c if c.is_whitespace() && !quoted => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            c => {
                cur.push(c);
                has = true;
            }
        }
    }
    if has {
        out.push(cur);
    }
    out
}

/// `--help`: what cubin-ld accepts, in nvlink's terms.
pub fn help_text() -> String {
    let mut s = String::from(
        "Usage: cubin-ld [options] <inputs>\n\n\
         An offline device linker for NVIDIA GPU cubins, a drop-in for nvlink 13.5: it accepts \
         nvlink's options\nin nvlink's spellings (-arch=sm_90, -arch sm_90, --arch=sm_90, -o out, \
         -lfoo, -Ldir, -optf FILE).\n\nnvlink's options:\n",
    );
    let nvlinks = OPTIONS.iter().filter(|o| !OWN_OPTIONS.contains(&o.long));
    s.extend(nvlinks.map(help_line));
    s.push_str("\ncubin-ld's own options:\n");
    let own = OPTIONS.iter().filter(|o| OWN_OPTIONS.contains(&o.long));
    s.extend(own.map(help_line));
    s.push_str(
        "\nThe manual page (man cubin-ld, installed as the README says) tells more of each, \
         and where cubin-ld differs from nvlink.\n",
    );
    s
}

/// One option's line in `--help`: names and value, then what it does (in a column where the
/// names leave room, else on the next line).
fn help_line(o: &Opt) -> String {
    let value = match (o.meta, o.takes) {
        ("", Flag) => String::new(),
        (meta, JoinedOptional(..)) if !meta.is_empty() => format!("[={meta}]"),
        ("", JoinedOptional(Check::OneOf(set), _)) => format!("[={}]", set.join("|")),
        (meta, _) if !meta.is_empty() => format!(" {meta}"),
        (_, Value(Check::Arch)) => " <sm_XX>".into(),
        (_, Value(Check::OneOf(set)) | Optional(Check::OneOf(set), _)) => {
            format!(" <{}>", set.join("|"))
        }
        (_, Value(Check::Bool)) => " <true|false>".into(),
        (_, Value(Check::Number)) => " <N>".into(),
        (_, List) => " <value,...>".into(),
        _ => " <value>".into(),
    };
    let names = match o.short {
        "" => format!("  --{}{value}", o.long),
        short => format!("  -{short}, --{}{value}", o.long),
    };
    const COLUMN: usize = 34;
    if names.len() < COLUMN {
        format!("{names:COLUMN$}{}\n", o.help)
    } else {
        format!("{names}\n{:COLUMN$}{}\n", "", o.help)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Args {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    fn err(args: &[&str]) -> String {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn every_nvlink_arch_spelling_means_the_same() {
        for v in [
            &["-arch=sm_90"][..],
            &["-arch", "sm_90"],
            &["--arch=sm_90"],
            &["--arch", "sm_90"],
        ] {
            assert_eq!(p(v).arch.as_deref(), Some("sm_90"), "{v:?}");
        }
    }

    #[test]
    fn short_options_take_joined_and_separate_values() {
        let a = p(&[
            "-lcudadevrt",
            "-l",
            "foo",
            "-L/opt/lib",
            "-L",
            "x",
            "-o",
            "out.cubin",
            "-r",
            "a.o",
            "b.o",
        ]);
        assert_eq!(a.libraries, ["cudadevrt", "foo"]);
        assert_eq!(
            a.library_paths,
            [PathBuf::from("/opt/lib"), PathBuf::from("x")]
        );
        assert_eq!(a.output, Some(PathBuf::from("out.cubin")));
        assert!(a.relocatable);
        assert_eq!(a.inputs, [PathBuf::from("a.o"), PathBuf::from("b.o")]);
    }

    #[test]
    fn only_l_capital_l_and_m_take_joined_values() {
        assert_eq!(err(&["-oout.cubin"]), "Unknown option 'oout.cubin'");
        assert_eq!(p(&["-m64"]).machine, Some(64));
    }

    #[test]
    fn single_dash_long_options_are_accepted() {
        let a = p(&[
            "-preserve-relocs",
            "-Werror",
            "-v2",
            "-kernels-used=k1,k2",
            "-suppress-stack-size-warning",
            "-m64",
        ]);
        assert!(
            a.preserve_relocs && a.warning_as_error && a.verbose2 && a.suppress_stack_size_warning
        );
        assert_eq!(a.kernels_used, ["k1", "k2"]);
        assert_eq!(a.machine, Some(64));
    }

    #[test]
    fn register_link_binaries_has_only_its_long_spelling() {
        assert_eq!(
            err(&["-register-link-binaries", "r.c"]),
            "Unknown option 'register-link-binaries'"
        );
        assert!(p(&["--register-link-binaries=r.c"])
            .register_link_binaries
            .is_some());
    }

    #[test]
    fn lto_is_an_option_not_a_library() {
        let a = p(&["-lto"]);
        assert!(a.lto && a.libraries.is_empty() && a.unsupported.is_empty());
    }

    #[test]
    fn lto_options_whose_effect_is_unknown_are_refused_with_dlto() {
        let a = p(&["-dlto", "-Xnvvm", "-O3"]);
        assert!(a.unsupported[0].contains("'-Xnvvm'"), "{:?}", a.unsupported);
    }

    #[test]
    fn unknown_options_are_named_as_nvlink_names_them() {
        assert_eq!(err(&["-bogus"]), "Unknown option 'bogus'");
        assert_eq!(err(&["--bogus"]), "Unknown option '-bogus'");
        assert_eq!(err(&["-bogus=1"]), "Unknown option 'bogus'");
        assert_eq!(err(&["--"]), "Unknown option '-'");
    }

    #[test]
    fn a_lone_dash_is_an_input() {
        assert_eq!(p(&["-"]).inputs, [PathBuf::from("-")]);
    }

    #[test]
    fn a_missing_value_names_the_option_as_typed() {
        assert_eq!(err(&["-o"]), "argument expected after '-o'");
        assert_eq!(
            err(&["--output-file"]),
            "argument expected after '--output-file'"
        );
        assert_eq!(err(&["-arch"]), "argument expected after '-arch'");
    }

    #[test]
    fn a_value_given_to_a_switch_is_an_error() {
        assert_eq!(err(&["--help=1"]), "no argument expected after '--help'");
    }

    #[test]
    fn a_value_takes_the_next_word_even_when_it_starts_with_a_dash() {
        assert_eq!(p(&["-time", "-v"]).time.as_deref(), Some("-v"));
    }

    #[test]
    fn optional_values_default_and_leave_options_alone() {
        let a = p(&["-ghls", "-o", "x.ld"]);
        assert_eq!(a.ghls.as_deref(), Some("lcs-abs"));
        assert_eq!(a.output, Some(PathBuf::from("x.ld")));
        assert_eq!(p(&["-Ofc"]).ofast_compile.as_deref(), Some("0"));
        assert_eq!(
            err(&["-ghls", "a.o"]),
            "Value 'a.o' is not defined for option 'gen-host-linker-script'"
        );
    }

    #[test]
    fn values_are_checked_as_nvlink_checks_them() {
        assert_eq!(
            err(&["-arch=sm_91"]),
            "Value 'sm_91' is not defined for option 'arch'"
        );
        assert_eq!(
            err(&["-arch="]),
            "Value '' is not defined for option 'arch'"
        );
        assert_eq!(
            err(&["-cpu-arch=x86_64"]),
            "Value 'x86_64' is not defined for option 'cpu-arch'"
        );
        assert_eq!(
            err(&["-m32"]),
            "Value '32' is not defined for option 'machine'"
        );
        assert_eq!(err(&["-maxrregcount", "abc"]), "'abc': expected a number");
        assert_eq!(err(&["-split-compile", "x"]), "'x': expected a number");
        assert_eq!(
            err(&["-device-stack-protector", "maybe"]),
            "'maybe': expected true or false"
        );
        assert_eq!(
            p(&["-device-stack-protector=false"]).device_stack_protector,
            Some(false)
        );
    }

    #[test]
    fn repeating_a_value_with_another_warns_and_the_last_wins() {
        let a = p(&["-o", "x.cubin", "-o", "y.cubin"]);
        assert_eq!(a.output, Some(PathBuf::from("y.cubin")));
        assert_eq!(
            a.parse_warnings,
            ["incompatible redefinition for option 'output-file', the last value of this option \
              was used"]
        );
    }

    #[test]
    fn repeating_a_value_or_a_switch_as_it_was_is_silent() {
        let a = p(&[
            "-m64",
            "-m64",
            "-arch=sm_90",
            "-arch",
            "sm_90",
            "-g",
            "-g",
            "-r",
            "-r",
        ]);
        assert!(a.parse_warnings.is_empty() && a.debug && a.relocatable);
    }

    #[test]
    fn lists_accumulate_over_repeats() {
        let a = p(&[
            "-kernels-used=k",
            "-kernels-used=j",
            "-Xptxas",
            "-O1",
            "-Xptxas",
            "-v",
        ]);
        assert_eq!(a.kernels_used, ["k", "j"]);
        assert_eq!(a.xptxas, ["-O1", "-v"]);
    }

    #[test]
    fn options_are_recorded_in_nvlinks_order_with_short_names() {
        let a = p(&[
            "--verbose",
            "-Xptxas",
            "-O1",
            "-Xptxas",
            "-O2",
            "-L",
            "/a",
            "-L",
            "/a",
            "-arch=sm_90",
            "--device-stack-protector=true",
        ]);
        assert_eq!(
            recorded_options(&a).1,
            "-arch sm_90 -L /a,/a -v  -Xptxas -O1,-O2 -device-stack-protector true "
        );
    }

    #[test]
    fn debug_links_record_file_names_first() {
        let a = p(&[
            "-g",
            "-suppress-arch-warning",
            "-arch=sm_90",
            "/x/a.cubin",
            "./b.cubin",
            "-o",
            "sub/out.cubin",
        ]);
        assert_eq!(
            recorded_options(&a),
            (
                "out.cubin".to_string(),
                "a.cubin,b.cubin -suppress-arch-warning  -o out.cubin -g  -arch sm_90 ".to_string()
            )
        );
    }

    #[test]
    fn options_files_are_expanded_in_place() {
        let dir = std::env::temp_dir().join(format!("cubin-ld-optf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("opts");
        std::fs::write(&f, "-arch=sm_80 \"with space.o\"\n-r").unwrap();
        let a = p(&["-optf", f.to_str().unwrap(), "z.o"]);
        assert_eq!(a.arch.as_deref(), Some("sm_80"));
        assert!(a.relocatable);
        assert_eq!(
            a.inputs,
            [PathBuf::from("with space.o"), PathBuf::from("z.o")]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_response_file_is_read_as_options_in_place() {
        let dir = std::env::temp_dir().join(format!("cubin-ld-rsp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("link.rsp");
        std::fs::write(&f, "-arch=sm_90 -o out.cubin a.o").unwrap();
        let a = p(&[&format!("@{}", f.display()), "b.o"]);
        assert_eq!(a.arch.as_deref(), Some("sm_90"));
        assert_eq!(a.output, Some(PathBuf::from("out.cubin")));
        assert_eq!(a.inputs, [PathBuf::from("a.o"), PathBuf::from("b.o")]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_response_file_naming_itself_stops_at_the_nesting_limit() {
        let dir = std::env::temp_dir().join(format!("cubin-ld-rsp-loop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("loop.rsp");
        std::fs::write(&f, format!("@{}", f.display())).unwrap();
        assert!(err(&[&format!("@{}", f.display())]).contains("nested more than 16 deep"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_at_word_naming_no_file_stays_an_input_as_nvlink_reads_it() {
        assert_eq!(
            p(&["@/nonexistent/x"]).inputs,
            [PathBuf::from("@/nonexistent/x")]
        );
    }

    #[test]
    fn a_missing_options_file_is_named() {
        assert_eq!(
            err(&["-optf", "/nonexistent/opts"]),
            "Could not open options file '/nonexistent/opts'"
        );
    }

    #[test]
    fn options_files_split_as_nvlink_splits_them() {
        assert_eq!(
            split_options_file("-m64 \"-L/a b\" 'x.o' a\\ b.o #c\n\"q.o\""),
            ["-m64", "-L/a b", "'x.o'", "a b.o", "#c", "q.o"]
        );
    }
}
