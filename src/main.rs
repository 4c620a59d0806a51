//! The `nsd` binary: hands over to the CLI shell and exits with its code.

fn main() {
    std::process::exit(nsd::cli::main());
}
