//! `-time FILE`: nvlink's phase-timing CSV. The header goes in when the file is created (an
//! existing file, even an empty one, is appended to); `-` means standard output. A link of
//! cubins has no phases to time (nvlink writes rows for the PTX it compiles and for LTO).

use crate::diag::{Error, Result};
use std::io::Write;

const HEADER: &str =
    "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n";

/// Opens (or creates) the timing file; returns what goes to standard output for `-`.
pub fn start(path: &str) -> Result<String> {
    if path == "-" {
        return Ok(HEADER.to_string());
    }
    let cannot = || Error::new(format!("Cannot open file '{path}'"));
    let created = match std::fs::OpenOptions::new()
        .append(true)
        .create_new(true)
        .open(path)
    {
        Ok(f) => Some(f),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => None,
        Err(_) => return Err(cannot()),
    };
    match created {
        Some(mut f) => f.write_all(HEADER.as_bytes()).map_err(|_| cannot())?,
        None => {
            std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(|_| cannot())?;
        }
    }
    Ok(String::new())
}
