//! nsd: a modelling language and interpreter for nonsmooth mechanical dynamics.
//!
//! The crate is a pipeline: `lang` (text → `Model`), `model` (→ `System`), `solve`
//! (numerical backends), `analysis` (one module per analysis statement), `io` (reports),
//! and the thin shells `cli` and `repl`.

pub mod analysis;
pub mod cli;
pub mod fmt_cmd;
pub mod io;
pub mod lang;
pub mod lsp;
pub mod model;
pub mod repl;
pub mod solve;
pub mod span;
pub mod testrun;

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
