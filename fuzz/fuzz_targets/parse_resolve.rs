//! Fuzz target: any text through parse → resolve → assemble → modes must not panic.
//! Run with `cargo +nightly fuzz run parse_resolve` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        nsd::check_text(text);
    }
});
