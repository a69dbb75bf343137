//! PTX inputs (`.ptx` files and PTX entries of fatbins): nvlink compiles them with its
//! built-in ptxas; cubin-ld runs the toolkit's `ptxas` (`$CUBIN_LD_PTXAS`, else the first
//! `ptxas` on PATH) with the options nvlink uses, so the code is the same. The LTO pass
//! compiles what it optimizes with the same ptxas.

use crate::arch::Arch;
use crate::diag::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The toolkit's ptxas: `$CUBIN_LD_PTXAS`, else `bin/ptxas` of the toolkit `near` names
/// (`-nvvmpath`'s parent), else the first on PATH. `why` says what needs it, for the error.
pub fn find_ptxas(why: &str, near: Option<&Path>) -> Result<PathBuf> {
    let needs = |what: String| Error::new(format!("{why}, which needs ptxas: {what}"));
    if let Some(p) = std::env::var_os("CUBIN_LD_PTXAS") {
        let p = PathBuf::from(p);
        return match p.is_file() {
            true => Ok(p),
            false => Err(needs(format!(
                "CUBIN_LD_PTXAS names '{}', which is not a file",
                p.display()
            ))),
        };
    }
    let toolkit = near.map(|d| d.join("bin"));
    toolkit
        .into_iter()
        .chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ))
        .map(|d| d.join("ptxas"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            needs("none found (put the CUDA toolkit's bin on PATH, or set CUBIN_LD_PTXAS)".into())
        })
}

/// A compiled PTX input: the cubin, and what ptxas said (nvlink passes its warnings on).
pub struct Compiled {
    pub cubin: Vec<u8>,
    pub messages: Vec<String>,
}

/// Compiles PTX text for `arch` as a relocatable cubin. `options` are the ptxas options a
/// fatbin entry recorded (placed first, as nvlink records them) and the command line's.
pub fn compile(name: &str, text: &[u8], options: &[String], arch: &Arch) -> Result<Compiled> {
    let ptxas = find_ptxas(&format!("'{name}' is PTX"), None)?;
    let args: Vec<String> = options
        .iter()
        .filter(|o| *o != "--compile-only")
        .cloned()
        .chain(["-arch", &arch.to_string(), "-m64", "-c"].map(String::from))
        .collect();
    run(&ptxas, name, text, &args)
}

/// Runs `ptxas ARGS -o OUT IN` on `text` (up to its first NUL) in a private folder.
pub fn run(ptxas: &Path, name: &str, text: &[u8], args: &[String]) -> Result<Compiled> {
    let text = match text.iter().position(|&c| c == 0) {
        Some(n) => &text[..n],
        None => text,
    };
    if let Some(a) = args.iter().find(|a| a.contains('\0')) {
        return Err(Error::new(format!(
            "cannot compile '{name}': the ptxas option {a:?} holds a NUL byte, which no \
             command line can carry"
        )));
    }
    let dir = std::env::temp_dir().join(format!(
        "cubin-ld-ptx-{}-{:x}",
        std::process::id(),
        text.len() ^ (text.as_ptr() as usize)
    ));
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::new(format!("cannot create '{}': {e}", dir.display())))?;
    let input = dir.join("in.ptx");
    let output = dir.join("out.cubin");
    let result = (|| {
        std::fs::write(&input, text)
            .map_err(|e| Error::new(format!("cannot write '{}': {e}", input.display())))?;
        let out = Command::new(ptxas)
            .args(args)
            .arg("-o")
            .arg(&output)
            .arg(&input)
            .output()
            .map_err(|e| {
                Error::new(format!("cannot run '{}' on '{name}': {e}", ptxas.display()))
            })?;
        if !out.status.success() {
            return Err(Error::new(format!(
                "ptxas failed on '{name}':\n{}",
                String::from_utf8_lossy(&out.stderr).trim_end()
            )));
        }
        let cubin = std::fs::read(&output)
            .map_err(|e| Error::new(format!("cannot read '{}': {e}", output.display())))?;
        let messages = String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(str::to_string)
            .collect();
        Ok(Compiled { cubin, messages })
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The SM of a PTX text's `.target sm_XX` directive.
pub fn target_sm(text: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(text.get(..text.len().min(64 * 1024))?).ok()?;
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(".target"))?;
    let sm = line.split_whitespace().nth(1)?.trim_end_matches(',');
    let digits: String = sm
        .strip_prefix("sm_")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ptxas_option_holding_a_nul_byte_is_an_error_naming_the_input() {
        let args = vec!["-O3\0x".to_string()];
        let e = run(Path::new("ptxas"), "k.ptx", b".version 8.0", &args)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("cannot compile 'k.ptx'") && e.contains("NUL"),
            "{e}"
        );
    }

    #[test]
    fn a_ptxas_that_cannot_be_run_is_an_error_naming_the_input() {
        let e = run(Path::new("/nonexistent/ptxas"), "k.ptx", b"", &[])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("on 'k.ptx'"), "{e}");
    }

    #[test]
    fn the_target_is_read_from_the_target_directive() {
        assert_eq!(target_sm(b".version 8.0\n.target sm_90a\n"), Some(90));
    }
}
