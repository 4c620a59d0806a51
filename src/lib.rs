//! nsd: a modelling language and interpreter for nonsmooth mechanical dynamics.
//!
//! The workspace is a pipeline, one crate per stage: `nsd_lang` (text → the flat `Model`),
//! `nsd_model` (→ `System`), `nsd_solve` (numerical backends), `nsd_analysis` (one module
//! per analysis statement), `nsd_io` (results to files), `nsd_lsp` (the language server).
//! This crate is the binary's shells (`shell`: cli, repl, fmt, test) and re-exports the
//! stages under their short names for the integration tests, benches and fuzz target.

pub mod shell;

pub use nsd_analysis as analysis;
pub use nsd_io as io;
pub use nsd_lang as lang;
pub use nsd_lang::span;
pub use nsd_lsp as lsp;
pub use nsd_model as model;
pub use nsd_solve as solve;

/// Runs the whole front end (parse, resolve every model, assemble, modes of small systems)
/// on a text and discards the result: the entry point of the fuzz target and the
/// no-panic property test. Returns how many models resolved.
pub fn check_text(text: &str) -> usize {
    let Ok(prog) = lang::Program::from_source("<input>", text, None) else {
        return 0;
    };
    let mut ok = 0;
    for name in &prog.model_order {
        if let Ok(model) = lang::resolve(&prog, name, &[]) {
            let sys = model::assemble(&model);
            if sys.n() <= 50 {
                let _ = solve::modes::modes(&sys, solve::modes::Contacts::Open, None);
                let _ = solve::modes::modes(&sys, solve::modes::Contacts::Stuck, None);
            }
            ok += 1;
        }
    }
    ok
}
