//! `-ghls` (`--gen-host-linker-script`, what `nvcc -hls=gen-lcs` asks for): instead of linking,
//! write a linker script for the host link that keeps the sections holding device code
//! (`.nvFatBinSegment`, `__nv_relfatbin`, `.nv_fatbin`) together. `lcs-aug` is just those
//! rules, to augment the default script; `lcs-abs` (the default) is the host linker's whole
//! default script (`ld --verbose`, with the position-independence and emulation flags the
//! host compiler would pass it) followed by them. Written to `-o`, else to standard output.

use crate::cli::Args;
use crate::diag::{Error, Result};
use std::process::Command;

/// The rules nvlink's scripts end with, byte for byte (the blank after the second rule too).
const DEVICE_CODE_RULES: &str = "SECTIONS\n{\n\t.nvFatBinSegment : { *(.nvFatBinSegment) }\n\t__nv_relfatbin : { *(__nv_relfatbin) } \n\t.nv_fatbin : { *(.nv_fatbin) }\n}\n";

/// Writes the script where `-o` says and returns what goes to standard output (all of it
/// without `-o`).
pub fn generate(kind: &str, args: &Args) -> Result<String> {
    if !args.inputs.is_empty() {
        return Err(Error::new(
            "Input files are not allowed with -ghls option; use --help for more information",
        ));
    }
    let script = match kind {
        "lcs-aug" => DEVICE_CODE_RULES.to_string(),
        _ => host_default_script()? + DEVICE_CODE_RULES,
    };
    match &args.output {
        Some(out) => {
            std::fs::write(out, &script).map_err(|_| {
                Error::new(format!("Could not open output file '{}'", out.display()))
            })?;
            Ok(String::new())
        }
        None => Ok(script),
    }
}

/// The host linker's default script for the flags the host compiler passes it.
fn host_default_script() -> Result<String> {
    let failed = || Error::new("Host linker script creation failed.");
    let gcc = Command::new("gcc")
        .args(["-###", "/dev/null", "-m64"])
        .output()
        .map_err(|_| failed())?;
    let driver = String::from_utf8_lossy(&gcc.stderr).into_owned();
    let collect2 = driver
        .lines()
        .find(|l| l.contains("collect2"))
        .unwrap_or_default();
    // The flags that choose the script: -pie, -r, -shared, -z X and -m X.
    let words: Vec<String> = collect2
        .split_whitespace()
        .map(|w| w.trim_matches('"').to_string())
        .collect();
    let mut flags: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match words[i].as_str() {
            "-pie" | "-r" | "-shared" => flags.push(words[i].clone()),
            "-z" | "-m" if i + 1 < words.len() => {
                flags.push(words[i].clone());
                flags.push(words[i + 1].clone());
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let ld = Command::new("ld")
        .arg("--verbose")
        .args(&flags)
        .output()
        .map_err(|_| failed())?;
    if !ld.status.success() {
        return Err(failed());
    }
    // The script is what `ld --verbose` prints between its two rules of '='.
    let text = String::from_utf8_lossy(&ld.stdout).into_owned();
    let rule = |l: &str| l.len() >= 40 && l.chars().all(|c| c == '=');
    let mut lines = text.lines();
    lines.by_ref().find(|l| rule(l)).ok_or_else(failed)?;
    let mut body = String::new();
    for l in lines {
        if rule(l) {
            return Ok(body);
        }
        body.push_str(l);
        body.push('\n');
    }
    Err(failed())
}
