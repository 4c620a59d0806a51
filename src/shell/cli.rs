//! The command-line shell (`nsd check | run | fmt | test | merge | lsp | repl`): parses arguments with clap, calls the
//! pipeline, prints diagnostics to stderr and results to stdout (with `--json`, one record per
//! outcome: `record`), returns the exit code (0 success, 1 the model or command is wrong, 2 a
//! numerical failure).
//!
//! `nsd repl` is the other shell's business: `parse` hands it back to the binary's `main`,
//! which starts `repl::main`, so neither shell imports the other.

mod record;
mod shard;

use clap::{Args, Parser, Subcommand};
use nsd_analysis::check::summarise;
use nsd_analysis::{self as analysis, check_names, RunFailure};
use nsd_io::report::Written;
use nsd_lang::{parse_override, resolve, Failure, Override, Program};
use record::{emit, emit_raw, failed, file_failed, ShellError};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "nsd",
    version,
    about = "Modelling language and interpreter for nonsmooth mechanical dynamics"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, resolve and assemble; print DOFs, elements, natural frequencies (contacts open) and warnings.
    Check(CheckArgs),
    /// Run the analyses of a file; results go to DIR/<name>/.
    Run(RunArgs),
    /// Join the shards of `run --shard` (folders DIR/NAME.shards) into the single run's results.
    Merge(MergeArgs),
    /// Interactive session: load files, set parameters, run analyses.
    Repl { file: Option<PathBuf> },
    /// Format .nsd files in place (folders are walked); `--check` prints a diff and exits 1 instead.
    Fmt(FmtArgs),
    /// Run every analysis of each file (no results written) and check its `expect` statements (folders are walked).
    Test(TestArgs),
    /// Language Server over stdio (diagnostics, hover, definition, completion, symbols, formatting).
    Lsp,
}

// The arguments of `nsd test`.
#[derive(Args)]
struct TestArgs {
    /// Files or folders (default: the current folder).
    #[arg(default_value = ".")]
    files: Vec<PathBuf>,
    /// Run only the analyses that `expect` statements name, and count only the expectations.
    #[arg(long)]
    expects_only: bool,
}

// The arguments of `nsd fmt`.
#[derive(Args)]
struct FmtArgs {
    /// Files or folders.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Change nothing; print a unified diff of each file not formatted and exit 1.
    #[arg(long)]
    check: bool,
}

// The arguments of `nsd merge`.
#[derive(Args)]
struct MergeArgs {
    /// Folders holding shard files (`NAME.shards/`, or folders containing them).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Print one JSON object per analysis to stdout.
    #[arg(long)]
    json: bool,
}

// The arguments of `nsd check` (no doc comment: clap would take it for the command's help).
#[derive(Args)]
struct CheckArgs {
    file: PathBuf,
    /// Override a model parameter, e.g. `--set Omega=1.3` (units allowed: `--set a=0.1mm`).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Print one JSON object per model to stdout.
    #[arg(long)]
    json: bool,
    /// Check only this model of the file.
    #[arg(long)]
    model: Option<String>,
}

// The arguments of `nsd run`.
#[derive(Args)]
struct RunArgs {
    file: PathBuf,
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Output folder.
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Print one JSON object per analysis to stdout.
    #[arg(long)]
    json: bool,
    /// Run only the analysis of this name.
    #[arg(long)]
    only: Option<String>,
    /// Compute one deterministic slice `i/n` (0 ≤ i < n) of a `basins` map into
    /// DIR/NAME.shards/; `nsd merge` joins the slices.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// With `--shard`: skip a shard whose file is already written.
    #[arg(long, requires = "shard")]
    resume: bool,
}

/// `i/n` with `0 ≤ i < n`.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}`: expected I/N with 0 ≤ I < N, e.g. `--shard 0/4`");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i < n {
        Ok((i, n))
    } else {
        Err(bad())
    }
}

/// What the command line asks for.
pub enum Invocation {
    /// `check` or `run`: a batch command that `execute` runs.
    Batch(Batch),
    /// `repl [FILE]`: the interactive shell, which the binary starts.
    Repl(Option<PathBuf>),
    /// clap answered the arguments itself (`--help`, `--version`) or rejected them: the exit
    /// code, the message already printed.
    Exit(i32),
}

/// A parsed `check` or `run` command.
pub struct Batch(BatchCommand);

enum BatchCommand {
    Check(CheckArgs),
    Run(RunArgs),
    Fmt(FmtArgs),
    Test(TestArgs),
    Merge(MergeArgs),
    Lsp,
}

/// Parses the process arguments.
pub fn parse() -> Invocation {
    match Cli::try_parse() {
        Ok(cli) => match cli.command {
            Command::Check(args) => Invocation::Batch(Batch(BatchCommand::Check(args))),
            Command::Run(args) => Invocation::Batch(Batch(BatchCommand::Run(args))),
            Command::Merge(args) => Invocation::Batch(Batch(BatchCommand::Merge(args))),
            Command::Repl { file } => Invocation::Repl(file),
            Command::Fmt(args) => Invocation::Batch(Batch(BatchCommand::Fmt(args))),
            Command::Test(args) => Invocation::Batch(Batch(BatchCommand::Test(args))),
            Command::Lsp => Invocation::Batch(Batch(BatchCommand::Lsp)),
        },
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            // Nothing more can be said if the terminal itself is gone.
            let _ = e.print();
            Invocation::Exit(code)
        }
    }
}

/// Runs a batch command; returns the process exit code.
pub fn execute(batch: Batch) -> i32 {
    match batch.0 {
        BatchCommand::Check(args) => check(&args),
        BatchCommand::Run(args) => {
            remove_temporaries_on_signals();
            run(&args)
        }
        BatchCommand::Fmt(args) => crate::shell::fmt_cmd::run(&args.files, args.check),
        BatchCommand::Test(args) => {
            let scope = if args.expects_only {
                crate::shell::testrun::Scope::ExpectsOnly
            } else {
                crate::shell::testrun::Scope::Every
            };
            crate::shell::testrun::run(&args.files, scope)
        }
        BatchCommand::Merge(args) => {
            remove_temporaries_on_signals();
            shard::merge(&args)
        }
        BatchCommand::Lsp => nsd_lsp::run(),
    }
}

/// `run` and `merge` write results through temporary folders: an interrupt must not leave
/// them behind.
fn remove_temporaries_on_signals() {
    #[cfg(unix)]
    nsd_io::report::remove_staged_on_signals();
}

fn overrides(set: &[String]) -> Result<Vec<Override>, Failure> {
    set.iter().map(|s| parse_override(s)).collect()
}

/// The program and the `--set` overrides; a failure reported (with `--json`, as the file's
/// record) and its exit code otherwise.
fn load(file: &Path, set: &[String], as_json: bool) -> Result<(Program, Vec<Override>), i32> {
    let loaded = Program::load(file).and_then(|prog| Ok((prog, overrides(set)?)));
    loaded.map_err(|f| file_failed(file, &f, as_json))
}

/// `check`: each model's summary; with `--json` one record per model, a model that does not
/// resolve or assemble as `{"model", "failed": true, …}`.
fn check(args: &CheckArgs) -> i32 {
    let file = args.file.as_path();
    let (prog, ov) = match load(file, &args.set, args.json) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let names: Vec<String> = match &args.model {
        Some(m) => vec![m.clone()],
        None => prog.model_order.clone(),
    };
    if names.is_empty() {
        eprintln!("warning: `{}` defines no model", file.display());
    } else if let Err(f) = analysis::check_overrides(&prog, &names, &ov) {
        return file_failed(file, &f, args.json);
    }
    let mut code = 0;
    for name in names {
        let assembled = resolve(&prog, &name, &analysis::overrides_for(&prog, &name, &ov))
            .and_then(|model| Ok((analysis::finite::assembled(&prog, &model)?, model)));
        let (sys, model) = match assembled {
            Ok(x) => x,
            Err(f) => {
                f.eprint();
                if args.json {
                    emit(&failed(json!({ "model": name }), &f, 1).to_string());
                }
                code = 1;
                continue;
            }
        };
        let summary = summarise(&model, &sys);
        if let Some(w) = summary.frequency_warning() {
            eprintln!("{w}");
        }
        if args.json {
            emit(&summary.json().to_string());
        } else {
            emit_raw(&summary.text());
        }
    }
    if code == 0 {
        if let Err(f) = check_names(&prog) {
            return file_failed(file, &f, args.json);
        }
    }
    code
}

/// `run`: every selected analysis run and written (or its shard, with `--shard`).
fn run(args: &RunArgs) -> i32 {
    let (out, as_json, only) = (args.out.as_path(), args.json, args.only.as_deref());
    let file = args.file.as_path();
    let (prog, ov) = match load(file, &args.set, as_json) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Err(f) = check_names(&prog) {
        return file_failed(file, &f, as_json);
    }
    let selected: Vec<_> = prog
        .analyses
        .iter()
        .filter(|a| only.is_none_or(|n| analysis::name_of(a) == n))
        .collect();
    if let (Some(name), true) = (only, selected.is_empty()) {
        let names: Vec<String> = prog.analyses.iter().map(analysis::name_of).collect();
        let e = ShellError::UnknownAnalysis {
            name: name.to_string(),
            have: names.join(", "),
        };
        return file_failed(file, &Failure::one(miette::Report::new(e)), as_json);
    }
    let models: Vec<String> = selected.iter().map(|a| a.model.name.clone()).collect();
    if let Err(f) = analysis::check_overrides(&prog, &models, &ov) {
        return file_failed(file, &f, as_json);
    }
    let hash = nsd_io::report::source_hash(
        (0..prog.files.len()).map(|i| &*prog.sources.get(nsd_lang::source::FileId(i as u32)).text),
    );
    let mut code = 0;
    for a in selected {
        if let Some(shard) = args.shard {
            code = code.max(shard::run_shard(&prog, a, &ov, shard, args, &hash));
            continue;
        }
        match analysis::run(&prog, a, &ov) {
            Ok(r) => code = code.max(written(&r, out, &hash, as_json)),
            Err(failure) => {
                code = code.max(failure.exit_code);
                failed_run(a, failure, out, &hash, as_json);
            }
        }
    }
    code
}

/// Writes the results folder and reports it on stdout; the exit code.
fn written(r: &analysis::Results, out: &Path, hash: &str, as_json: bool) -> i32 {
    match nsd_io::report::write(out, r, hash) {
        Ok(Written { dir, warnings }) => {
            if as_json {
                emit(&format!(
                    "{}",
                    json!({"name": r.name, "kind": r.kind, "out": dir.display().to_string(), "summary": r.summary})
                ));
            } else {
                emit(&format!(
                    "{} ({} of {}): {} in {:.3} s → {}",
                    r.name,
                    r.kind,
                    r.model,
                    summary_line(&r.summary),
                    r.wall_s,
                    dir.display()
                ));
                for w in r.warnings.iter().chain(&warnings) {
                    emit(&format!("  warning: {w}"));
                }
            }
            0
        }
        Err(e) => {
            let f = Failure::one(miette::Report::new(e));
            f.eprint();
            if as_json {
                let record =
                    json!({"name": r.name, "kind": r.kind, "out": null, "summary": r.summary});
                emit(&failed(record, &f, 1).to_string());
            }
            1
        }
    }
}

/// Reports a failed analysis: its diagnostics on stderr, its partial results (if any)
/// written, and with `--json` its record: `{"name", "kind", "out", "summary", "failed": true,
/// "error", "code", "exit_code", "diagnostics"}` (`out` null and `summary` empty when nothing
/// was written). A failure to write the partial results joins the diagnostics.
fn failed_run(a: &nsd_lang::ast::Analysis, f: RunFailure, out: &Path, hash: &str, as_json: bool) {
    let mut failure = f.failure;
    let mut written = None;
    if let Some(r) = &f.partial {
        match nsd_io::report::write(out, r, hash) {
            Ok(w) => {
                eprintln!(
                    "partial results of `{}` written to {}",
                    r.name,
                    w.dir.display()
                );
                written = Some(w.dir.display().to_string());
            }
            Err(e) => failure.reports.push(miette::Report::new(e)),
        }
    }
    failure.eprint();
    if as_json {
        let summary = f
            .partial
            .as_ref()
            .map(|r| r.summary.clone())
            .unwrap_or_default();
        let record = json!({
            "name": analysis::name_of(a),
            "kind": a.kind.keyword(),
            "out": written,
            "summary": summary,
        });
        emit(&failed(record, &failure, f.exit_code).to_string());
    }
}

fn summary_line(s: &serde_json::Map<String, Value>) -> String {
    s.iter()
        .map(|(k, v)| {
            let text = v.to_string();
            let short = if text.len() > 70 {
                format!(
                    "{}…",
                    &text[..text.char_indices().nth(69).map_or(text.len(), |(i, _)| i)]
                )
            } else {
                text
            };
            format!("{k} = {short}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}
