#![no_main]
#[path = "../targets.rs"]
mod targets;

use std::path::PathBuf;
use std::sync::OnceLock;

fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("cubin-ld-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/out");
    if let Err(e) = targets::link_one(data, &corpus, scratch()) {
        panic!("{e}");
    }
});
