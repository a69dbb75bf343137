#![no_main]
#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = targets::host_object(data) {
        panic!("{e}");
    }
});
