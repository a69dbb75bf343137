//! Command line: nvlink's spellings (`-arch=sm_90`, `-arch sm_90`, `--arch=sm_90`, `-lfoo`,
//! `-optf file`, …) are rewritten into one canonical `--long[=value]` form, which clap then
//! parses into [`Args`].

use crate::diag::{Error, Result};
use clap::{ArgAction, Parser};
use std::path::{Path, PathBuf};

/// nvlink's options: (long name, single-dash alias). The alias column is what nvlink's
/// `--help` prints in parentheses.
const OPTIONS: &[(&str, &str)] = &[
    ("Ofast-compile", "Ofc"),
    ("Xnvvm", "Xnvvm"),
    ("Xptxas", "Xptxas"),
    ("arch", "arch"),
    ("cpu-arch", "cpu-arch"),
    ("debug", "g"),
    ("device-stack-protector", "device-stack-protector"),
    ("disable-infos", "disable-infos"),
    ("disable-warnings", "w"),
    ("dlto", "dlto"),
    ("dump-callgraph", "dump-callgraph"),
    ("dump-callgraph-no-demangle", "dump-callgraph-no-demangle"),
    ("emit-ptx", "emit-ptx"),
    ("extra-warnings", "extrawarn"),
    ("gen-host-linker-script", "ghls"),
    ("help", "h"),
    ("ignore-host-info", "ignore-host-info"),
    ("keep-system-libraries", "keep-system-libraries"),
    ("kernels-used", "kernels-used"),
    ("library", "l"),
    ("library-path", "L"),
    ("link-as-tools-patch", "astoolspatch"),
    ("link-time-opt", "lto"),
    ("machine", "m"),
    ("maxrregcount", "maxrregcount"),
    ("nvvm-latest", "nvvm-latest"),
    ("nvvmpath", "nvvmpath"),
    ("options-file", "optf"),
    ("output-file", "o"),
    ("preserve-relocs", "preserve-relocs"),
    ("register-link-binaries", "register-link-binaries"),
    ("relocatable-link", "r"),
    ("report-arch", "report-arch"),
    ("split-compile", "split-compile"),
    ("split-compile-extended", "split-compile-extended"),
    ("suppress-arch-warning", "suppress-arch-warning"),
    ("suppress-debug-info", "suppress-debug-info"),
    ("suppress-stack-size-warning", "suppress-stack-size-warning"),
    ("time", "time"),
    ("uidx-file", "uidx"),
    ("use-host-info", "use-host-info"),
    ("variables-used", "variables-used"),
    ("verbose", "v"),
    ("verbose2", "v2"),
    ("version", "V"),
    ("warning-as-error", "Werror"),
    // Options nvcc and CMake pass on the device-link line (nvlink accepts them too).
    ("host-ccbin", "host-ccbin"),
    ("shared", "shared"),
];

/// Options the parser accepts but cubin-ld does not implement; naming one is an error that
/// says so (rather than a silent difference from nvlink).
const UNSUPPORTED: &[(&str, &str)] = &[
    ("Ofast-compile", "it only applies to link-time optimization"),
    ("Xnvvm", "it only applies to link-time optimization"),
    ("Xptxas", "it only applies to link-time optimization"),
    ("dlto", "cubin-ld does not link LTO-IR"),
    ("link-time-opt", "cubin-ld does not link LTO-IR"),
    ("emit-ptx", "it only applies to link-time optimization"),
    ("nvvm-latest", "it only applies to link-time optimization"),
    ("nvvmpath", "it only applies to link-time optimization"),
    ("split-compile", "it only applies to link-time optimization"),
    (
        "split-compile-extended",
        "it only applies to link-time optimization",
    ),
    (
        "link-as-tools-patch",
        "tools-patch links are not implemented",
    ),
    (
        "gen-host-linker-script",
        "host linker scripts are not implemented",
    ),
    ("uidx-file", "the UFT/UDT index file format is unknown"),
    (
        "time",
        "use RUST_LOG=cubin_ld=info for per-pass timing instead",
    ),
];

#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "cubin-ld",
    version,
    about = "An offline device linker for NVIDIA GPU cubins (a drop-in for nvlink)",
    long_about = None,
    disable_version_flag = true,
    disable_help_flag = true
)]
pub struct Args {
    /// Target architecture (sm_75 … sm_121, with 'a'/'f' variants)
    #[arg(long = "arch", value_name = "SM")]
    pub arch: Option<String>,
    /// Output file
    #[arg(short = 'o', long = "output-file", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Relocatable link: produce one ET_REL object
    #[arg(short = 'r', long = "relocatable-link")]
    pub relocatable: bool,
    /// Record applied relocations in .nv.resolvedrela sections
    #[arg(long = "preserve-relocs")]
    pub preserve_relocs: bool,
    /// Library search path
    #[arg(short = 'L', long = "library-path", value_name = "DIR", value_delimiter = ',', action = ArgAction::Append)]
    pub library_paths: Vec<PathBuf>,
    /// Library to link (-lfoo finds libfoo.a)
    #[arg(short = 'l', long = "library", value_name = "LIB", value_delimiter = ',', action = ArgAction::Append)]
    pub libraries: Vec<String>,
    /// Keep only these kernels (and what they reach); substring match as nvlink
    #[arg(long = "kernels-used", value_delimiter = ',', action = ArgAction::Append)]
    pub kernels_used: Vec<String>,
    /// Variables known to be used (accepted; variables are never removed)
    #[arg(long = "variables-used", value_delimiter = ',', action = ArgAction::Append)]
    pub variables_used: Vec<String>,
    /// Write the host registration file (.reg.c) nvcc's device-link step includes
    #[arg(long = "register-link-binaries", value_name = "FILE")]
    pub register_link_binaries: Option<PathBuf>,
    /// Print per-function resource usage
    #[arg(short = 'v', long = "verbose")]
    pub verbose: bool,
    /// More verbose output
    #[arg(long = "verbose2")]
    pub verbose2: bool,
    /// Inhibit all warnings
    #[arg(short = 'w', long = "disable-warnings")]
    pub disable_warnings: bool,
    /// Treat warnings as errors
    #[arg(long = "warning-as-error")]
    pub warning_as_error: bool,
    /// Extra warnings
    #[arg(long = "extra-warnings")]
    pub extra_warnings: bool,
    /// Disable informational messages
    #[arg(long = "disable-infos")]
    pub disable_infos: bool,
    /// Do not warn when a kernel's stack size cannot be determined (recursion)
    #[arg(long = "suppress-stack-size-warning")]
    pub suppress_stack_size_warning: bool,
    /// Do not warn about missing architectures in fatbins
    #[arg(long = "suppress-arch-warning")]
    pub suppress_arch_warning: bool,
    /// Drop debug information
    #[arg(long = "suppress-debug-info")]
    pub suppress_debug_info: bool,
    /// Print the call graph
    #[arg(long = "dump-callgraph")]
    pub dump_callgraph: bool,
    /// Print the call graph without demangling
    #[arg(long = "dump-callgraph-no-demangle")]
    pub dump_callgraph_no_demangle: bool,
    /// Keep kernels that host code does not reference
    #[arg(long = "ignore-host-info")]
    pub ignore_host_info: bool,
    /// Drop kernels that host code does not reference
    #[arg(long = "use-host-info")]
    pub use_host_info: bool,
    /// Keep system libraries (libcudadevrt) even when unused
    #[arg(long = "keep-system-libraries")]
    pub keep_system_libraries: bool,
    /// Inputs come from a debug (-G) compile
    #[arg(short = 'g', long = "debug")]
    pub debug: bool,
    /// Enable stack protectors (accepted, no effect on a link of cubins)
    #[arg(long = "device-stack-protector")]
    pub device_stack_protector: bool,
    /// Host pointer size in bits (only 64 is supported)
    #[arg(short = 'm', long = "machine", value_name = "BITS")]
    pub machine: Option<u32>,
    /// Host CPU architecture (recorded, not used)
    #[arg(long = "cpu-arch")]
    pub cpu_arch: Option<String>,
    /// Maximum register count (accepted; only used by LTO in nvlink)
    #[arg(long = "maxrregcount")]
    pub maxrregcount: Option<u32>,
    /// Print the architecture of each input
    #[arg(long = "report-arch")]
    pub report_arch: bool,
    /// Host compiler (accepted for nvcc compatibility, not used)
    #[arg(long = "host-ccbin")]
    pub host_ccbin: Option<String>,
    /// Shared-library link (accepted for nvcc compatibility)
    #[arg(long = "shared")]
    pub shared: bool,
    /// Print help
    #[arg(short = 'h', long = "help")]
    pub help: bool,
    /// Print version
    #[arg(short = 'V', long = "version")]
    pub version: bool,

    // Accepted so that the parser can name them in a clear error.
    #[arg(long = "Ofast-compile", hide = true)]
    pub ofast_compile: Option<String>,
    #[arg(long = "Xnvvm", hide = true, action = ArgAction::Append)]
    pub xnvvm: Vec<String>,
    #[arg(long = "Xptxas", hide = true, action = ArgAction::Append)]
    pub xptxas: Vec<String>,
    #[arg(long = "dlto", hide = true)]
    pub dlto: bool,
    #[arg(long = "link-time-opt", hide = true)]
    pub lto: bool,
    #[arg(long = "emit-ptx", hide = true)]
    pub emit_ptx: bool,
    #[arg(long = "nvvm-latest", hide = true)]
    pub nvvm_latest: bool,
    #[arg(long = "nvvmpath", hide = true)]
    pub nvvmpath: Option<String>,
    #[arg(long = "split-compile", hide = true)]
    pub split_compile: Option<String>,
    #[arg(long = "split-compile-extended", hide = true)]
    pub split_compile_extended: Option<String>,
    #[arg(long = "link-as-tools-patch", hide = true)]
    pub tools_patch: bool,
    #[arg(long = "gen-host-linker-script", hide = true)]
    pub ghls: Option<String>,
    #[arg(long = "uidx-file", hide = true)]
    pub uidx_file: Option<String>,
    #[arg(long = "time", hide = true)]
    pub time: Option<String>,

    /// Input files: cubins, host objects (nvcc -dc), static libraries, .fatbin and .ptx files
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Options that were given but are not implemented (filled after parsing).
    #[arg(skip)]
    pub unsupported: Vec<String>,
}

/// The options as nvlink records them in its `.note.nv.tkinfo` entry (cubin-ld writes its
/// own entry the same way, so outputs of the same command line compare byte for byte): a
/// fixed order, switches followed by two blanks, values by one, lists joined with commas;
/// `-g` puts the inputs and the output first. Returns (object field, options).
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
    if a.debug {
        let out = a
            .output
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let inputs: Vec<String> = a.inputs.iter().map(|p| p.display().to_string()).collect();
        s.push_str(&format!("{} -o {out} -g  ", inputs.join(",")));
        file = out;
    }
    flag(
        &mut s,
        a.suppress_stack_size_warning,
        "suppress-stack-size-warning",
    );
    flag(&mut s, a.suppress_arch_warning, "suppress-arch-warning");
    value(&mut s, a.arch.clone(), "arch");
    value(&mut s, a.machine.map(|m| m.to_string()), "m");
    value(&mut s, list(&a.libraries), "l");
    let paths: Vec<String> = a
        .library_paths
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    value(&mut s, list(&paths), "L");
    flag(&mut s, a.verbose, "v");
    flag(&mut s, a.preserve_relocs, "preserve-relocs");
    flag(&mut s, a.disable_warnings, "w");
    flag(&mut s, a.warning_as_error, "Werror");
    flag(&mut s, a.disable_infos, "disable-infos");
    flag(&mut s, a.keep_system_libraries, "keep-system-libraries");
    value(&mut s, list(&a.kernels_used), "kernels-used");
    value(&mut s, list(&a.variables_used), "variables-used");
    value(&mut s, a.cpu_arch.clone(), "cpu-arch");
    flag(&mut s, a.report_arch, "report-arch");
    flag(&mut s, a.extra_warnings, "extrawarn");
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
    (file, s)
}

fn long_for_alias(alias: &str) -> Option<&'static str> {
    OPTIONS.iter().find(|(_, a)| *a == alias).map(|(l, _)| *l)
}

fn is_long(name: &str) -> bool {
    OPTIONS.iter().any(|(l, _)| *l == name)
}

/// Single-letter aliases that clap parses itself (`-lfoo`, `-o out`, `-m64`, `-Ldir`).
const SHORTS: &[char] = &['o', 'r', 'l', 'L', 'v', 'w', 'g', 'h', 'V', 'm'];

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

/// Rewrites nvlink spellings into canonical `--long[=value]` tokens, expanding options files.
pub fn normalize(raw: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    normalize_into(raw, &mut out, 0)?;
    Ok(out)
}

fn normalize_into(raw: &[String], out: &mut Vec<String>, depth: u32) -> Result<()> {
    if depth > 16 {
        return Err(Error::new("options files nest more than 16 deep"));
    }
    let mut i = 0;
    while i < raw.len() {
        let t = &raw[i];
        i += 1;
        if t == "--" {
            out.extend(raw[i..].iter().cloned());
            return Ok(());
        }
        let (long, value) = if let Some(body) = t.strip_prefix("--") {
            let (name, value) = split_eq(body);
            if !is_long(name) {
                return Err(Error::new(format!("Unknown option '{t}'")));
            }
            (name, value)
        } else if let Some(body) = t.strip_prefix('-').filter(|b| !b.is_empty()) {
            let (name, value) = split_eq(body);
            match long_for_alias(name) {
                Some(l)
                    if name.chars().count() > 1
                        || value.is_some()
                        || !SHORTS.contains(&name.chars().next().unwrap()) =>
                {
                    (l, value)
                }
                _ if SHORTS.contains(&body.chars().next().unwrap()) => {
                    out.push(t.clone());
                    continue;
                }
                _ => return Err(Error::new(format!("Unknown option '{t}'"))),
            }
        } else {
            out.push(t.clone());
            continue;
        };
        if long == "options-file" {
            let files = match value {
                Some(v) => v.to_string(),
                None => {
                    let v = raw
                        .get(i)
                        .ok_or_else(|| Error::new(format!("Option '{t}' needs a file name")))?;
                    i += 1;
                    v.clone()
                }
            };
            for f in files.split(',') {
                let text = std::fs::read_to_string(Path::new(f))
                    .map_err(|e| Error::new(format!("Could not open options file '{f}': {e}")))?;
                normalize_into(&split_options_file(&text), out, depth + 1)?;
            }
            continue;
        }
        match value {
            Some(v) => out.push(format!("--{long}={v}")),
            None => out.push(format!("--{long}")),
        }
    }
    Ok(())
}

fn split_eq(s: &str) -> (&str, Option<&str>) {
    match s.split_once('=') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    }
}

/// Parses the arguments after the program name.
pub fn parse(raw: &[String]) -> Result<Args> {
    let norm = normalize(raw)?;
    let mut argv = vec!["cubin-ld".to_string()];
    argv.extend(norm);
    let mut args = Args::try_parse_from(&argv).map_err(|e| {
        let msg = e.to_string();
        let first = msg
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("error: ")
            .to_string();
        Error::new(first)
    })?;
    let given = |name: &str| -> bool {
        match name {
            "Ofast-compile" => args.ofast_compile.is_some(),
            "Xnvvm" => !args.xnvvm.is_empty(),
            "Xptxas" => !args.xptxas.is_empty(),
            "dlto" => args.dlto,
            "link-time-opt" => args.lto,
            "emit-ptx" => args.emit_ptx,
            "nvvm-latest" => args.nvvm_latest,
            "nvvmpath" => args.nvvmpath.is_some(),
            "split-compile" => args.split_compile.is_some(),
            "split-compile-extended" => args.split_compile_extended.is_some(),
            "link-as-tools-patch" => args.tools_patch,
            "gen-host-linker-script" => args.ghls.is_some(),
            "uidx-file" => args.uidx_file.is_some(),
            "time" => args.time.is_some(),
            _ => false,
        }
    };
    let unsupported: Vec<String> = UNSUPPORTED
        .iter()
        .filter(|(n, _)| given(n))
        .map(|(n, why)| format!("option '--{n}' is not supported: {why}"))
        .collect();
    args.unsupported = unsupported;
    if let Some(m) = args.machine {
        if m != 64 {
            args.unsupported.push(format!(
                "option '-m {m}' is not supported: only 64-bit hosts exist for these targets"
            ));
        }
    }
    Ok(args)
}

pub fn help_text() -> String {
    use clap::CommandFactory;
    let mut cmd = Args::command();
    let mut s = cmd.render_help().to_string();
    s.push_str(
        "\nnvlink spellings are accepted: -arch=sm_90, -arch sm_90, --arch=sm_90, -lfoo, -Ldir,\n\
         -optf FILE, -Werror, -v2, -r, -o FILE. See man cubin-ld(1).\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Args {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
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
    fn lto_is_an_option_not_a_library() {
        let a = p(&["-lto"]);
        assert!(a.lto && a.libraries.is_empty());
        assert!(a.unsupported[0].contains("LTO-IR"), "{:?}", a.unsupported);
    }

    #[test]
    fn unknown_options_are_named_as_nvlink_names_them() {
        let e = parse(&["-bogus".to_string()]).unwrap_err();
        assert_eq!(e.to_string(), "Unknown option '-bogus'");
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
    fn options_files_split_as_nvlink_splits_them() {
        assert_eq!(
            split_options_file("-m64 \"-L/a b\" 'x.o' a\\ b.o #c\n\"q.o\""),
            ["-m64", "-L/a b", "'x.o'", "a b.o", "#c", "q.o"]
        );
    }
}
