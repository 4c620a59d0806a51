//! The interactive shell (placeholder until the REPL lands in this session).

use std::path::Path;

pub fn main(_file: Option<&Path>) -> i32 {
    eprintln!("repl: not built yet");
    1
}
