//! The `cubin-ld` binary: parse the command line, run the link, print diagnostics in nvlink's
//! shape (`cubin-ld error   : …`), exit 0 or non-zero.

use std::process::ExitCode;

// A link allocates millions of small tables and names, from several threads.
#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// mimalloc, asked for a plain block wherever a plain block is aligned enough. (The
/// `mimalloc` crate asks for an aligned one every time, and mimalloc 3 serves a block of
/// over 1 KiB whose size is not a power of two by over-allocating and offsetting: a tenth
/// of all allocation calls in a large link, at several times a plain one's cost.)
struct Allocator;

extern "C" {
    fn mi_malloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_zalloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_realloc(p: *mut std::ffi::c_void, size: usize) -> *mut std::ffi::c_void;
}

/// Whether mimalloc's plain blocks of `size` bytes are aligned to `align`: every block is
/// aligned to 8 bytes (its smallest size), and every block of 16 bytes or more to 16
/// (`MI_MAX_ALIGN_SIZE`).
fn plain_block_fits(size: usize, align: usize) -> bool {
    align <= 8 || (align <= 16 && size >= 16)
}

// SAFETY: every call goes to mimalloc, plain where `plain_block_fits` says a plain block
// meets the layout's alignment, else through the `mimalloc` crate's aligned calls; mimalloc
// frees either kind with `mi_free`.
unsafe impl std::alloc::GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if plain_block_fits(layout.size(), layout.align()) {
            mi_malloc(layout.size()).cast()
        } else {
            mimalloc::MiMalloc.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if plain_block_fits(layout.size(), layout.align()) {
            mi_zalloc(layout.size()).cast()
        } else {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        mimalloc::MiMalloc.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        if plain_block_fits(size, layout.align()) {
            mi_realloc(ptr.cast(), size).cast()
        } else {
            mimalloc::MiMalloc.realloc(ptr, layout, size)
        }
    }
}

/// Transparent huge pages off: mimalloc asks for them on its arenas, and each first touch
/// then zeroes a whole 2 MiB page. For a small link that was a third of its time (the first
/// allocation, before `main`); for a large one it saves page faults but not time (the kernel
/// zeroes, and may compact memory for, pages the link half uses) and costs memory (wide-1600:
/// 27 MB more peak RSS, median time 5-20% longer).
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static HUGE_PAGES_OFF: extern "C" fn() = {
    extern "C" fn off() {
        // SAFETY: a process flag; nothing is allocated yet.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
    off
};

/// mimalloc 3 keeps what is freed for a second before giving it back (`purge_delay`): longer
/// than a link, so the tables one pass frees (parsed relocation sites, the merge's scratch)
/// stayed the link's memory to its end. 50 ms gives most of it back between passes
/// (wide-1600: 279 -> 266 MB peak); 10 ms gave back a little more but cost a large link a
/// fifth of its time in pages faulted in again. (`MIMALLOC_PURGE_DELAY` still rules.)
fn purge_freed_memory_soon() {
    extern "C" {
        fn mi_option_set(option: libc::c_int, value: libc::c_long);
    }
    // `mi_option_purge_delay` in mimalloc.h's `mi_option_e` (mimalloc 3, as libmimalloc-sys
    // builds it).
    const MI_OPTION_PURGE_DELAY: libc::c_int = 15;
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets an allocator option, which mimalloc reads when it next purges.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
}

/// Milliseconds mimalloc waits before giving freed memory back.
const PURGE_DELAY_MS: libc::c_long = 50;

/// A closed standard output or error (`cubin-ld … 2>&1 | true`) ends the process by SIGPIPE,
/// as it ends nvlink and other tools, rather than making every report's write panic (Rust
/// ignores the signal, so the write fails instead).
fn die_of_closed_pipes() {
    // SAFETY: restores the default action of one signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Whether the command line asks for JSON diagnostics, read from the words themselves: a
/// command line that does not parse must still be answered in the format asked for.
fn asks_for_json(raw: &[String]) -> bool {
    let option = |w: &str| matches!(w, "--diagnostics-format" | "-diagnostics-format");
    raw.iter().enumerate().any(|(i, w)| {
        matches!(
            w.as_str(),
            "--diagnostics-format=json" | "-diagnostics-format=json"
        ) || (option(w) && raw.get(i + 1).is_some_and(|v| v == "json"))
    })
}

fn main() -> ExitCode {
    die_of_closed_pipes();
    purge_freed_memory_soon();
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let args = match cubin_ld::cli::parse(&raw) {
        Ok(a) => a,
        Err(e) => {
            let msg = e.to_string();
            if asks_for_json(&raw) {
                eprintln!("{}", cubin_ld::messages::json_line("fatal", &msg, &msg));
            } else {
                eprintln!("cubin-ld fatal   : {msg}");
            }
            return ExitCode::from(1);
        }
    };
    // A large link ends for its caller once its output is written; freeing its memory is
    // left to a process nobody waits for (`early_exit`). (Before any thread starts.)
    let small = is_small_link(&args);
    let finished = if args.help || args.version {
        None
    } else {
        cubin_ld::early_exit::fork(!small)
    };
    let trace = args
        .time_trace
        .as_ref()
        .map(|_| cubin_ld::trace::TimeTrace::default());
    // (Not under RUST_LOG, whose lines would cut it; not for JSON diagnostics.)
    // SAFETY: a plain query on a descriptor.
    let terminal = unsafe { libc::isatty(2) == 1 };
    let progress = (terminal
        && std::env::var_os("RUST_LOG").is_none()
        && args.diagnostics_format.as_deref() != Some("json")
        && !args.help
        && !args.version)
        .then(|| cubin_ld::progress::Progress::start(args.inputs.len()));
    start_tracing(
        trace.clone(),
        progress.as_ref().map(|p| p.layer()),
        terminal,
    );
    let time_trace = args.time_trace.clone();
    let code = run(&args, small, progress, move |code| {
        if let (Some(t), Some(path)) = (trace, &time_trace) {
            if path.as_os_str() == "-" {
                println!("{}", t.json());
            } else if let Err(e) = std::fs::write(path, t.json()) {
                eprintln!(
                    "cubin-ld warning : --time-trace: cannot write {}: {e}",
                    path.display()
                );
            }
        }
        if let Some(f) = finished {
            f.done(code);
        }
    });
    ExitCode::from(code)
}

/// Below this many bytes of inputs a link runs on one thread, and in one process: starting
/// threads, or a second process, costs more than they save.
const SMALL_LINK_BYTES: u64 = 1 << 20;

/// Whether the files named on the command line hold under [`SMALL_LINK_BYTES`] (looked at
/// only until they are known not to: a large link's first few files, not its thousands,
/// each one a system call made before the link can start).
fn is_small_link(args: &cubin_ld::cli::Args) -> bool {
    let mut bytes = 0;
    for p in &args.inputs {
        bytes += std::fs::metadata(p).map_or(0, |m| m.len());
        if bytes >= SMALL_LINK_BYTES {
            return false;
        }
    }
    true
}

/// RUST_LOG=cubin_ld=info prints each pass with its time; `--time-trace` records the passes'
/// spans whatever RUST_LOG says.
fn start_tracing(
    trace: Option<cubin_ld::trace::TimeTrace>,
    progress: Option<cubin_ld::progress::ProgressLayer>,
    terminal: bool,
) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let log = tracing_subscriber::fmt::layer()
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_writer(std::io::stderr)
        // (Colour only on a terminal: piped into a file or grep, escape codes are noise.)
        .with_ansi(terminal)
        .with_filter(tracing_subscriber::EnvFilter::from_env("RUST_LOG"));
    let trace = trace.map(|t| t.with_filter(tracing_subscriber::filter::LevelFilter::INFO));
    let _ = tracing_subscriber::registry()
        .with(log)
        .with(trace)
        .with(progress)
        .try_init();
}

/// Runs the link and says how it went; `finish` is told the exit status once everything is
/// printed, before the link's memory is freed.
fn run(
    args: &cubin_ld::cli::Args,
    small: bool,
    progress: Option<cubin_ld::progress::Progress>,
    finish: impl FnOnce(u8) + Send,
) -> u8 {
    // The parser's own warnings (a value given twice) come first and stay warnings.
    for w in &args.parse_warnings {
        eprintln!("cubin-ld warning : {w}");
    }
    if args.help {
        print!("{}", cubin_ld::cli::help_text());
        finish(0);
        return 0;
    }
    if args.version {
        println!(
            "cubin-ld {} (nvlink 13.5 compatible)",
            env!("CARGO_PKG_VERSION")
        );
        finish(0);
        return 0;
    }
    // -report-arch names the target after every message, as nvlink does.
    let suffix = match (&args.arch, args.report_arch) {
        (Some(a), true) => format!(" (target: {a})"),
        _ => String::new(),
    };
    let out = Diagnostics::new(args, suffix);
    cubin_ld::faults::install();
    start_threads(args, small);
    let mut code = 0;
    let linked = cubin_ld::link_and_then(args, |r| {
        // (The line goes before any message is printed.)
        drop(progress);
        code = report(r, &out);
        finish(code);
    });
    // (Freed after the caller was told.)
    drop(linked);
    code
}

/// Prints what the link said, as nvlink would; its exit status.
fn report(linked: &Result<cubin_ld::LinkOutcome, cubin_ld::Failure>, out: &Diagnostics) -> u8 {
    let say = |level: &str, msg: &str| out.say(level, msg);
    match linked {
        Ok(outcome) => {
            print!("{}", outcome.stdout);
            print_load_messages(&outcome.load_messages, &say);
            // nvlink prints the warnings, then the -v report, all on stderr.
            for w in &outcome.warnings {
                say("warning ", w);
            }
            for l in &outcome.callgraph {
                eprintln!("{l}");
            }
            for i in &outcome.infos {
                say("info    ", i);
            }
            0
        }
        Err(f) => {
            print!("{}", f.stdout);
            print_load_messages(&f.load_messages, &say);
            for w in &f.warnings {
                say("warning ", w);
            }
            for e in &f.errors {
                say("error   ", e);
            }
            if let Some(fatal) = &f.fatal {
                out.say("fatal   ", fatal);
            }
            for h in f.hints.iter() {
                out.say("hint    ", h);
            }
            f.code
        }
    }
}

/// Makes the link's threads, this one among them (the passes then start their parallel
/// work without handing it to another thread): `--threads`, else one per core, but one for a
/// small link, where starting threads costs more than they save. The output is the same.
fn start_threads(args: &cubin_ld::cli::Args, small: bool) {
    let n = match args.thread_count() {
        Some(Ok(n)) => n,
        Some(Err(_)) => return, // (the link says what is wrong with it)
        // (0: rayon's default, RAYON_NUM_THREADS or one per core)
        None if small => 1,
        None => 0,
    };
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .use_current_thread()
        .build_global();
}

/// How messages reach stderr: nvlink's lines (`cubin-ld error   : …`), coloured where
/// `--color` asks (`auto`: a terminal, and no NO_COLOR), or one JSON object per line with
/// `--diagnostics-format=json`.
struct Diagnostics {
    suffix: String,
    color: bool,
    json: bool,
    /// `--demangle`: C++ names shown demangled (nvlink prints them mangled).
    demangle: bool,
}

impl Diagnostics {
    fn new(args: &cubin_ld::cli::Args, suffix: String) -> Diagnostics {
        // SAFETY: a plain query on a descriptor.
        let terminal = unsafe { libc::isatty(2) == 1 };
        let color = match args.color.as_deref() {
            Some("always") => true,
            Some("never") => false,
            _ => terminal && std::env::var_os("NO_COLOR").is_none(),
        };
        Diagnostics {
            suffix,
            color,
            json: args.diagnostics_format.as_deref() == Some("json"),
            demangle: args.demangle,
        }
    }

    /// `level` as nvlink pads it (`"error   "`).
    fn say(&self, level: &str, msg: &str) {
        let raw = msg;
        let demangled;
        let msg = if self.demangle {
            demangled = cubin_ld::demangle::demangle_quoted(msg);
            &demangled
        } else {
            msg
        };
        if self.json {
            let shown = format!("{msg}{}", self.suffix);
            eprintln!(
                "{}",
                cubin_ld::messages::json_line(level.trim_end(), raw, &shown)
            );
        } else if self.color {
            let code = match level.trim_end() {
                "error" | "fatal" => "1;31",
                "warning" => "1;35",
                _ => "1;36",
            };
            eprintln!("\x1b[{code}mcubin-ld {level}\x1b[0m: {msg}{}", self.suffix);
        } else {
            eprintln!("cubin-ld {level}: {msg}{}", self.suffix);
        }
    }
}

fn print_load_messages(messages: &[cubin_ld::LoadMessage], say: &dyn Fn(&str, &str)) {
    for m in messages {
        match m {
            cubin_ld::LoadMessage::Warning(w) => say("warning ", w),
            cubin_ld::LoadMessage::Tool(l) => eprintln!("{l}"),
            cubin_ld::LoadMessage::Info(i) => say("info    ", i),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::alloc::{alloc, alloc_zeroed, dealloc, realloc, Layout};

    #[test]
    fn a_plain_block_serves_alignments_up_to_its_own() {
        assert!(super::plain_block_fits(1, 1));
        assert!(super::plain_block_fits(24, 8));
        assert!(super::plain_block_fits(4000, 8));
        assert!(super::plain_block_fits(48, 16));
        // (a block under 16 bytes is only 8-aligned; larger alignments are asked for)
        assert!(!super::plain_block_fits(8, 16));
        assert!(!super::plain_block_fits(64, 32));
        assert!(!super::plain_block_fits(8192, 4096));
    }

    #[test]
    fn blocks_have_their_layouts_alignment_and_keep_their_bytes_when_grown() {
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in (1..3000).step_by(7).chain([4096, 5000, 1 << 20]) {
                let size = size.max(align) / align * align;
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: non-zero sizes; each block freed with the layout it has.
                unsafe {
                    let p = alloc(layout);
                    assert!(!p.is_null() && p as usize % align == 0, "{size} {align}");
                    p.write_bytes(0xa5, size);
                    let grown = realloc(p, layout, size * 3);
                    assert!(grown as usize % align == 0, "{size} {align} grown");
                    assert!((0..size).all(|k| *grown.add(k) == 0xa5));
                    dealloc(grown, Layout::from_size_align(size * 3, align).unwrap());
                    let z = alloc_zeroed(layout);
                    assert!(z as usize % align == 0 && (0..size).all(|k| *z.add(k) == 0));
                    dealloc(z, layout);
                }
            }
        }
    }
}
