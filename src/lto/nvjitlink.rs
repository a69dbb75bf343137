//! The toolkit's nvJitLink library, through its documented C API (`nvJitLink.h`), loaded at
//! run time and only by links that hold LTO-IR: LTO-IR modules in, the optimized program out
//! as PTX (`-lto -ptx`).

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

/// `NVJITLINK_INPUT_LTOIR`, `NVJITLINK_INPUT_FATBIN`, `NVJITLINK_SUCCESS` (nvJitLink.h).
const INPUT_LTOIR: c_int = 3;
const INPUT_FATBIN: c_int = 4;
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
    /// The first of `candidates` that loads with nvJitLink's entry points.
    pub fn load(candidates: &[PathBuf]) -> Result<NvJitLink> {
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
            "link-time optimization needs the CUDA toolkit's nvJitLink library, which was not \
             found; looked for: {} (set CUBIN_LD_NVJITLINK to the file)",
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
        let create: Create = self.symbol(b"nvJitLinkCreate\0")?;
        let destroy: Destroy = self.symbol(b"nvJitLinkDestroy\0")?;
        let add: AddData = self.symbol(b"nvJitLinkAddData\0")?;
        let complete: Complete = self.symbol(b"nvJitLinkComplete\0")?;
        let ptx_size: GetSize = self.symbol(b"nvJitLinkGetLinkedPtxSize\0")?;
        let ptx: GetText = self.symbol(b"nvJitLinkGetLinkedPtx\0")?;
        let log_size: GetSize = self.symbol(b"nvJitLinkGetErrorLogSize\0")?;
        let log: GetText = self.symbol(b"nvJitLinkGetErrorLog\0")?;
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
            let failed = |what: String, r: c_int| {
                let mut n = 0usize;
                let mut text = vec![0u8; 0];
                if log_size(h, &mut n) == SUCCESS && n > 1 {
                    text.resize(n, 0);
                    log(h, text.as_mut_ptr().cast());
                }
                let text = String::from_utf8_lossy(&text);
                Error::new(format!(
                    "link-time optimization failed {what} (nvJitLink error {r}):\n{}",
                    text.trim_end_matches('\0').trim_end()
                ))
            };
            let result = (|| {
                for m in modules {
                    let n = c(m.name)?;
                    let kind = if m.fatbin { INPUT_FATBIN } else { INPUT_LTOIR };
                    let r = add(h, kind, m.bytes.as_ptr().cast(), m.bytes.len(), n.as_ptr());
                    if r != SUCCESS {
                        return Err(failed(format!("on '{}'", m.name), r));
                    }
                }
                let r = complete(h);
                if r != SUCCESS {
                    return Err(failed("linking the LTO-IR".into(), r));
                }
                let mut n = 0usize;
                let r = ptx_size(h, &mut n);
                if r != SUCCESS {
                    return Err(failed("producing PTX".into(), r));
                }
                let mut text = vec![0u8; n];
                let r = ptx(h, text.as_mut_ptr().cast());
                if r != SUCCESS {
                    return Err(failed("producing PTX".into(), r));
                }
                while text.last() == Some(&0) {
                    text.pop();
                }
                Ok(text)
            })();
            destroy(&mut h);
            result
        }
    }
}
