//! The toolkit's nvJitLink library, through its documented C API (`nvJitLink.h`), loaded at
//! run time and only by links that need it: those that hold LTO-IR (LTO-IR modules in, the
//! optimized program out as PTX: `-lto -ptx`), and final links of code nvlink's finalizer
//! compiles again (the inputs as they are in, the linked cubin out: `jitlink`).

use crate::diag::{Error, Result};
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};

type Handle = *mut c_void;
type Create = unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> c_int;
type Destroy = unsafe extern "C" fn(*mut Handle) -> c_int;
type AddData = unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> c_int;
type Complete = unsafe extern "C" fn(Handle) -> c_int;
type GetSize = unsafe extern "C" fn(Handle, *mut usize) -> c_int;
type GetText = unsafe extern "C" fn(Handle, *mut c_char) -> c_int;

/// `nvJitLinkInputType` (nvJitLink.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Cubin = 1,
    Ptx = 2,
    LtoIr = 3,
    Fatbin = 4,
    /// A host object holding a fatbin.
    Object = 5,
    /// An archive of host objects.
    Library = 6,
}

/// What a link makes.
enum Output {
    Ptx,
    Cubin,
}

/// `NVJITLINK_SUCCESS` (nvJitLink.h).
const SUCCESS: c_int = 0;

/// The file names the library goes by (the toolkit's link, the PyPI wheel's soname).
const NAMES: &[&str] = &["libnvJitLink.so", "libnvJitLink.so.13"];

/// One module for the optimizer: LTO-IR, or a fatbin holding it.
pub struct Input<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
    pub fatbin: bool,
}

/// The library, loaded.
pub struct NvJitLink {
    lib: libloading::Library,
    path: String,
}

/// Where to look, in order: `$CUBIN_LD_NVJITLINK` (the file), then `lib64/` and `lib/` of the
/// toolkit that holds `-nvvmpath` (a toolkit's layout, PyPI's), then of the toolkit ptxas
/// came from, then the system's library path.
pub fn candidates(nvvmpath: Option<&Path>, ptxas: Option<&Path>) -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("CUBIN_LD_NVJITLINK") {
        return vec![PathBuf::from(p)];
    }
    let roots = [
        nvvmpath.and_then(Path::parent),
        ptxas.and_then(Path::parent).and_then(Path::parent),
    ];
    let mut out: Vec<PathBuf> = roots
        .into_iter()
        .flatten()
        .flat_map(|r| ["lib64", "lib"].map(|d| r.join(d)))
        .flat_map(|d| NAMES.iter().map(move |n| d.join(n)))
        .filter(|p| p.is_file())
        .collect();
    out.extend(NAMES.iter().rev().map(PathBuf::from));
    out
}

impl NvJitLink {
    /// The first of `candidates` that loads with nvJitLink's entry points; `why` says what
    /// needs it, for the error.
    pub fn load(candidates: &[PathBuf], why: &str) -> Result<NvJitLink> {
        let mut tried = Vec::new();
        for c in candidates {
            // SAFETY: loading runs the library's initializers; nvJitLink's are the toolkit's
            // own and set up nothing the link depends on.
            match unsafe { libloading::Library::new(c) } {
                Ok(lib) => {
                    let n = NvJitLink {
                        lib,
                        path: c.display().to_string(),
                    };
                    if n.symbol::<Create>(b"nvJitLinkCreate\0").is_ok() {
                        return Ok(n);
                    }
                    tried.push(format!("{} (not nvJitLink)", c.display()));
                }
                Err(e) => tried.push(format!("{} ({e})", c.display())),
            }
        }
        Err(Error::new(format!(
            "{why} needs the CUDA toolkit's nvJitLink library, which was not found; looked \
             for: {} (set CUBIN_LD_NVJITLINK to the file)",
            tried.join(", ")
        )))
    }

    fn symbol<T: Copy>(&self, name: &[u8]) -> Result<T> {
        // SAFETY: each type above is the prototype nvJitLink.h declares for the name.
        unsafe { self.lib.get::<T>(name).map(|s| *s) }.map_err(|e| {
            Error::new(format!(
                "'{}' lacks {}: {e}",
                self.path,
                String::from_utf8_lossy(&name[..name.len() - 1])
            ))
        })
    }

    /// Links `modules` with `options` and returns the PTX (without its NUL).
    pub fn link_ptx(&self, options: &[String], modules: &[Input<'_>]) -> Result<Vec<u8>> {
        let inputs: Vec<(InputKind, &str, &[u8])> = modules
            .iter()
            .map(|m| {
                let kind = if m.fatbin {
                    InputKind::Fatbin
                } else {
                    InputKind::LtoIr
                };
                (kind, m.name, m.bytes)
            })
            .collect();
        let mut text = self
            .run(options, &inputs, Output::Ptx, "link-time optimization")?
            .0;
        while text.last() == Some(&0) {
            text.pop();
        }
        Ok(text)
    }

    /// Links `inputs` (each its kind, name and bytes) with `options` and returns the linked
    /// cubin and what nvJitLink said beside it (its info log). `what` names the link in errors.
    pub fn link_cubin(
        &self,
        options: &[String],
        inputs: &[(InputKind, &str, &[u8])],
        what: &str,
    ) -> Result<(Vec<u8>, String)> {
        self.run(options, inputs, Output::Cubin, what)
    }

    fn run(
        &self,
        options: &[String],
        inputs: &[(InputKind, &str, &[u8])],
        output: Output,
        what: &str,
    ) -> Result<(Vec<u8>, String)> {
        let create: Create = self.symbol(b"nvJitLinkCreate\0")?;
        let destroy: Destroy = self.symbol(b"nvJitLinkDestroy\0")?;
        let add: AddData = self.symbol(b"nvJitLinkAddData\0")?;
        let complete: Complete = self.symbol(b"nvJitLinkComplete\0")?;
        let (size_name, get_name): (&[u8], &[u8]) = match output {
            Output::Ptx => (b"nvJitLinkGetLinkedPtxSize\0", b"nvJitLinkGetLinkedPtx\0"),
            Output::Cubin => (
                b"nvJitLinkGetLinkedCubinSize\0",
                b"nvJitLinkGetLinkedCubin\0",
            ),
        };
        let out_size: GetSize = self.symbol(size_name)?;
        let out_get: GetText = self.symbol(get_name)?;
        let log_size: GetSize = self.symbol(b"nvJitLinkGetErrorLogSize\0")?;
        let log: GetText = self.symbol(b"nvJitLinkGetErrorLog\0")?;
        let info_size: GetSize = self.symbol(b"nvJitLinkGetInfoLogSize\0")?;
        let info: GetText = self.symbol(b"nvJitLinkGetInfoLog\0")?;
        let c = |s: &str| CString::new(s).map_err(|_| Error::new(format!("'{s}' holds a NUL")));
        let opts: Vec<CString> = options.iter().map(|o| c(o)).collect::<Result<_>>()?;
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut h: Handle = std::ptr::null_mut();
        // SAFETY: the calls follow nvJitLink.h: a handle made by Create, buffers of the sizes
        // the library reported, every pointer alive for the call, the handle destroyed once.
        unsafe {
            let r = create(&mut h, ptrs.len() as u32, ptrs.as_ptr());
            if r != SUCCESS {
                return Err(Error::new(format!(
                    "nvJitLink ('{}') refused the options {options:?} (error {r})",
                    self.path
                )));
            }
            let text_of = |size: GetSize, get: GetText| {
                let mut n = 0usize;
                let mut text = vec![0u8; 0];
                if size(h, &mut n) == SUCCESS && n > 1 {
                    text.resize(n, 0);
                    get(h, text.as_mut_ptr().cast());
                }
                String::from_utf8_lossy(&text)
                    .trim_end_matches('\0')
                    .trim_end()
                    .to_string()
            };
            let failed = |at: String, r: c_int| {
                Error::new(format!(
                    "{what} failed {at} (nvJitLink error {r}):\n{}",
                    text_of(log_size, log)
                ))
            };
            let result = (|| {
                for &(kind, name, bytes) in inputs {
                    let n = c(name)?;
                    let r = add(
                        h,
                        kind as c_int,
                        bytes.as_ptr().cast(),
                        bytes.len(),
                        n.as_ptr(),
                    );
                    if r != SUCCESS {
                        return Err(failed(format!("on '{name}'"), r));
                    }
                }
                let r = complete(h);
                if r != SUCCESS {
                    return Err(failed("linking".into(), r));
                }
                let mut n = 0usize;
                let r = out_size(h, &mut n);
                if r != SUCCESS {
                    return Err(failed("producing its output".into(), r));
                }
                let mut bytes = vec![0u8; n];
                let r = out_get(h, bytes.as_mut_ptr().cast());
                if r != SUCCESS {
                    return Err(failed("producing its output".into(), r));
                }
                Ok((bytes, text_of(info_size, info)))
            })();
            destroy(&mut h);
            result
        }
    }
}
