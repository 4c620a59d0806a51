//! The shells over the analysis stages: the command line (`cli`), the REPL, `nsd fmt` and
//! `nsd test`. Each imports the library crates and the shells below it, never one above.

pub mod cli;
pub mod fmt_cmd;
pub mod repl;
pub mod testrun;
