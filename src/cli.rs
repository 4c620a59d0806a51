//! The command-line shell (`nsd check | run | merge | repl`): parses arguments with clap, calls the
//! pipeline, prints diagnostics to stderr and results to stdout, returns the exit code
//! (0 success, 1 the model or command is wrong, 2 a numerical failure).
//!
//! `nsd repl` is the other shell's business: `parse` hands it back to the binary's `main`,
//! which starts `repl::main`, so neither shell imports the other.

use crate::analysis::check::summarise;
use crate::analysis::{self, check_names, RunFailure};
use crate::io::report::Written;
use crate::lang::{parse_override, resolve, Failure, Override, Program};
use clap::{Args, Parser, Subcommand};
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

/// Prints every diagnostic of a failure to stderr.
pub fn print_failure(f: &Failure) {
    for r in &f.reports {
        eprintln!("{r:?}");
    }
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
        BatchCommand::Run(args) => run(&args),
        BatchCommand::Fmt(args) => crate::fmt_cmd::run(&args.files, args.check),
        BatchCommand::Test(args) => {
            let scope = if args.expects_only {
                crate::testrun::Scope::ExpectsOnly
            } else {
                crate::testrun::Scope::Every
            };
            crate::testrun::run(&args.files, scope)
        }
        BatchCommand::Merge(args) => merge(&args),
        BatchCommand::Lsp => crate::lsp::run(),
    }
}

fn overrides(set: &[String]) -> Result<Vec<Override>, Failure> {
    set.iter().map(|s| parse_override(s)).collect()
}

fn load(file: &Path, set: &[String]) -> Result<(Program, Vec<Override>), i32> {
    let prog = Program::load(file).map_err(|f| {
        print_failure(&f);
        1
    })?;
    let ov = overrides(set).map_err(|f| {
        print_failure(&f);
        1
    })?;
    Ok((prog, ov))
}

fn check(args: &CheckArgs) -> i32 {
    let file = args.file.as_path();
    let (prog, ov) = match load(file, &args.set) {
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
        print_failure(&f);
        return 1;
    }
    let mut code = 0;
    for name in names {
        let model = match resolve(&prog, &name, &analysis::overrides_for(&prog, &name, &ov)) {
            Ok(m) => m,
            Err(f) => {
                print_failure(&f);
                code = 1;
                continue;
            }
        };
        let sys = match analysis::finite::assembled(&prog, &model) {
            Ok(sys) => sys,
            Err(f) => {
                print_failure(&f);
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
            print_failure(&f);
            code = 1;
        }
    }
    code
}

fn run(args: &RunArgs) -> i32 {
    let (out, as_json, only) = (args.out.as_path(), args.json, args.only.as_deref());
    let (prog, ov) = match load(&args.file, &args.set) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Err(f) = check_names(&prog) {
        print_failure(&f);
        return 1;
    }
    let selected: Vec<_> = prog
        .analyses
        .iter()
        .filter(|a| only.is_none_or(|n| analysis::name_of(a) == n))
        .collect();
    if let (Some(name), true) = (only, selected.is_empty()) {
        let names: Vec<String> = prog.analyses.iter().map(analysis::name_of).collect();
        eprintln!(
            "error[nsd::analysis::unknown_name]: no analysis named `{name}` (the file has: {})",
            names.join(", ")
        );
        return 1;
    }
    let models: Vec<String> = selected.iter().map(|a| a.model.name.clone()).collect();
    if let Err(f) = analysis::check_overrides(&prog, &models, &ov) {
        print_failure(&f);
        return 1;
    }
    let hash = crate::io::report::source_hash(
        (0..prog.files.len())
            .map(|i| &*prog.sources.get(crate::lang::source::FileId(i as u32)).text),
    );
    let mut code = 0;
    for a in selected {
        if let Some(shard) = args.shard {
            code = code.max(run_shard(&prog, a, &ov, shard, args, &hash));
            continue;
        }
        match analysis::run(&prog, a, &ov) {
            Ok(r) => code = code.max(written(&r, out, &hash, as_json)),
            Err(failure) => {
                code = code.max(failure.exit_code);
                failed(a, failure, out, &hash, as_json);
            }
        }
    }
    code
}

/// Writes the results folder and reports it on stdout; the exit code.
fn written(r: &analysis::Results, out: &Path, hash: &str, as_json: bool) -> i32 {
    match crate::io::report::write(out, r, hash) {
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
            eprintln!(
                "error[nsd::io::write]: cannot write results of `{}` to {}: {e}",
                r.name,
                out.display()
            );
            1
        }
    }
}

/// `run --shard i/n`: the slice written to `OUT/NAME.shards/shard-i-of-n.json` (atomically;
/// with `--resume`, a slice already written is kept). The exit code.
fn run_shard(
    prog: &Program,
    a: &crate::lang::ast::Analysis,
    ov: &[Override],
    (i, n): (usize, usize),
    args: &RunArgs,
    hash: &str,
) -> i32 {
    let dir = args.out.join(format!("{}.shards", analysis::name_of(a)));
    let file = dir.join(format!("shard-{i}-of-{n}.json"));
    if args.resume && crate::io::report::read_json(&file).is_ok() {
        eprintln!("{} exists: skipped (--resume)", file.display());
        return 0;
    }
    match analysis::run_shard(prog, a, ov, (i, n)) {
        Ok(mut v) => {
            v["source_hash"] = Value::String(hash.into());
            match crate::io::report::write_json(&file, &v) {
                Ok(()) => {
                    emit(&format!(
                        "shard {i}/{n} of `{}` → {}",
                        analysis::name_of(a),
                        file.display()
                    ));
                    0
                }
                Err(e) => {
                    eprintln!(
                        "error[nsd::io::write]: cannot write {}: {e}",
                        file.display()
                    );
                    1
                }
            }
        }
        Err(failure) => {
            print_failure(&failure.failure);
            failure.exit_code
        }
    }
}

/// `merge DIR…`: every `shard-*.json` in the folders (or in their `*.shards` subfolders),
/// grouped by analysis, joined and written as a single run's results. The exit code.
fn merge(args: &MergeArgs) -> i32 {
    let mut groups: std::collections::BTreeMap<String, Vec<(String, Value)>> = Default::default();
    for dir in &args.dirs {
        let files = match crate::io::report::shard_files(dir) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("error[nsd::io::read]: cannot read {}: {e}", dir.display());
                return 1;
            }
        };
        for f in files {
            match crate::io::report::read_json(&f) {
                Ok(v) => {
                    let name = v["name"].as_str().unwrap_or_default().to_string();
                    groups
                        .entry(name)
                        .or_default()
                        .push((f.display().to_string(), v));
                }
                Err(e) => {
                    eprintln!("error[nsd::io::read]: {}: {e}", f.display());
                    return 1;
                }
            }
        }
    }
    if groups.is_empty() {
        eprintln!("{:?}", miette::Report::new(analysis::MergeError::Empty));
        return 1;
    }
    let mut code = 0;
    for (name, shards) in groups {
        // `merge_shards` checks that every shard has the first one's hash.
        let hash = shards[0].1["source_hash"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match analysis::merge_shards(&shards) {
            Ok(r) => code = code.max(written(&r, &args.out, &hash, args.json)),
            Err(e) => {
                eprintln!(
                    "{:?}",
                    miette::Report::new(e).wrap_err(format!("cannot merge `{name}`"))
                );
                code = 1;
            }
        }
    }
    code
}

/// Reports a failed analysis: its diagnostics on stderr, its partial results (if any)
/// written, and with `--json` its object on stdout: `{"name", "kind", "out", "summary",
/// "failed": true, "error", "code", "exit_code"}` (`out` null and `summary` empty when nothing
/// was written).
fn failed(a: &crate::lang::ast::Analysis, f: RunFailure, out: &Path, hash: &str, as_json: bool) {
    print_failure(&f.failure);
    let mut written = None;
    if let Some(r) = &f.partial {
        match crate::io::report::write(out, r, hash) {
            Ok(w) => {
                eprintln!(
                    "partial results of `{}` written to {}",
                    r.name,
                    w.dir.display()
                );
                written = Some(w.dir.display().to_string());
            }
            Err(e) => eprintln!(
                "error[nsd::io::write]: cannot write the partial results of `{}`: {e}",
                r.name
            ),
        }
    }
    if as_json {
        let first = f.failure.reports.first();
        let summary = f
            .partial
            .as_ref()
            .map(|r| r.summary.clone())
            .unwrap_or_default();
        emit(&format!(
            "{}",
            json!({
                "name": analysis::name_of(a),
                "kind": a.kind.keyword(),
                "out": written,
                "summary": summary,
                "failed": true,
                "error": first.map(|r| r.to_string()),
                "code": first.and_then(|r| r.code()).map(|c| c.to_string()),
                "exit_code": f.exit_code,
            })
        ));
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

/// Writes a line to stdout; a closed pipe (`nsd check --json | head`) is not an error.
fn emit(line: &str) {
    emit_raw(&format!("{line}\n"));
}

fn emit_raw(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().write_all(text.as_bytes());
}
