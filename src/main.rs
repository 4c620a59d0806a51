//! The `nsd` binary: parses the command line, hands a batch command to the CLI shell or
//! starts the REPL, and exits with their code.

use nsd::cli::{self, Invocation};

fn main() {
    let code = match cli::parse() {
        Invocation::Batch(batch) => cli::execute(batch),
        Invocation::Repl(file) => nsd::repl::main(file.as_deref()),
        Invocation::Exit(code) => code,
    };
    std::process::exit(code);
}
