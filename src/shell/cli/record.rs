//! What the shells print: diagnostics on stderr, and with `--json` one JSON record per line
//! on stdout for every outcome of `check`, `run` and `merge` — a model checked, an analysis
//! run, a shard written or skipped, and every failure, from a file that cannot be read to a
//! result that cannot be written — so a script reading stdout never meets a silent failure or
//! a line of prose. The shapes are listed in docs/language.md ("The command line"); each
//! diagnostic in a record is miette's JSON report of it.

use miette::{Diagnostic, JSONReportHandler};
use nsd_lang::Failure;
use serde_json::{json, Map, Value};
use std::path::Path;

/// The shells' own errors (the layers below bring theirs with their codes).
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum ShellError {
    #[error("no analysis named `{name}` (the file has: {have})")]
    #[diagnostic(
        code(nsd::analysis::unknown_name),
        help("`--only` takes the name of one of the file's analyses")
    )]
    UnknownAnalysis { name: String, have: String },
    #[error("cannot read `{path}`: {reason}")]
    #[diagnostic(
        code(nsd::io::read),
        help("`nsd merge` reads the folders `nsd run --shard` wrote (`DIR/NAME.shards/`)")
    )]
    Read { path: String, reason: String },
}

/// The members a failure adds to a record: `"failed": true`, the first diagnostic's message
/// (`error`) and code, the exit code, and every diagnostic as miette's JSON report.
pub fn failure_members(f: &Failure, exit_code: i32) -> Map<String, Value> {
    let first = f.reports.first();
    let handler = JSONReportHandler::new();
    let diagnostics: Vec<Value> = f
        .reports
        .iter()
        .map(|r| {
            let mut text = String::new();
            // Writing into a String cannot fail, and miette writes valid JSON.
            let _ = handler.render_report(&mut text, r.as_ref());
            serde_json::from_str(&text).unwrap_or_else(|_| json!({ "message": r.to_string() }))
        })
        .collect();
    let members = json!({
        "failed": true,
        // The message with its causes: `cannot merge `x`: `a` and `b` are shards of …`.
        "error": first.map(|r| r.chain().map(|e| e.to_string()).collect::<Vec<_>>().join(": ")),
        "code": first.and_then(|r| r.code()).map(|c| c.to_string()),
        "exit_code": exit_code,
        "diagnostics": diagnostics,
    });
    match members {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// `record` with the members of `failure` added.
pub fn failed(mut record: Value, failure: &Failure, exit_code: i32) -> Value {
    if let Value::Object(m) = &mut record {
        m.extend(failure_members(failure, exit_code));
    }
    record
}

/// A failure before any analysis or model could be taken on (the file or a folder cannot be
/// read, a syntax error, `--set`, `--only`, the names): its diagnostics on stderr and, with
/// `as_json`, the record `{"file", "failed", …}`. The exit code, 1.
pub fn file_failed(file: &Path, f: &Failure, as_json: bool) -> i32 {
    f.eprint();
    if as_json {
        let record = json!({ "file": file.display().to_string() });
        emit(&failed(record, f, 1).to_string());
    }
    1
}

/// Writes a line to stdout; a closed pipe (`nsd check --json | head`) is not an error.
pub fn emit(line: &str) {
    emit_raw(&format!("{line}\n"));
}

pub fn emit_raw(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().write_all(text.as_bytes());
}
