//! The command-line shell (`nsd check | run | repl`): parses arguments with clap, calls the
//! pipeline, prints diagnostics to stderr and results to stdout, returns the exit code
//! (0 success, 1 the model or command is wrong, 2 a numerical failure).

use crate::analysis::{self, check_names, RunFailure};
use crate::lang::{parse_override, resolve, Failure, Override, Program};
use crate::model::system::System;
use crate::model::{assemble, Model};
use crate::solve::modes::{modes, Contacts, DENSE_LIMIT};
use clap::{Parser, Subcommand};
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
    Check {
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
    },
    /// Run the analyses of a file; results go to DIR/<name>/.
    Run {
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
    },
    /// Interactive session: load files, set parameters, run analyses.
    Repl { file: Option<PathBuf> },
}

/// Prints every diagnostic of a failure to stderr.
pub fn print_failure(f: &Failure) {
    for r in &f.reports {
        eprintln!("{r:?}");
    }
}

/// Runs the CLI; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Check {
            file,
            set,
            json,
            model,
        } => check(&file, &set, json, model.as_deref()),
        Command::Run {
            file,
            set,
            out,
            json,
            only,
        } => run(&file, &set, &out, json, only.as_deref()),
        Command::Repl { file } => crate::repl::main(file.as_deref()),
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

fn check(file: &Path, set: &[String], as_json: bool, only: Option<&str>) -> i32 {
    let (prog, ov) = match load(file, set) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let names: Vec<String> = match only {
        Some(m) => vec![m.to_string()],
        None => prog.model_order.clone(),
    };
    if names.is_empty() {
        eprintln!("warning: `{}` defines no model", file.display());
    }
    let mut code = 0;
    for name in names {
        let model = match resolve(&prog, &name, &ov) {
            Ok(m) => m,
            Err(f) => {
                print_failure(&f);
                code = 1;
                continue;
            }
        };
        let sys = assemble(&model);
        let mut sys = sys;
        let freqs = match modes(&sys, Contacts::Open, None) {
            Ok(m) => {
                let rigid = m.rigid_body_modes();
                if rigid > 0
                    && !sys
                        .warnings
                        .iter()
                        .any(|w| w.code == "nsd::model::floating")
                {
                    sys.warnings.push(crate::model::system::Warning {
                        code: "nsd::model::rigid_body_modes",
                        message: format!("{rigid} rigid-body mode(s) at ω = 0 with contacts open: some DOF has no stiffness to a support"),
                    });
                }
                m.omega
            }
            Err(e) => {
                eprintln!("warning: natural frequencies of `{name}`: {e}");
                vec![]
            }
        };
        if as_json {
            emit(&check_json(&model, &sys, &freqs).to_string());
        } else {
            emit_raw(&check_text(&model, &sys, &freqs));
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

fn element_kind(e: &crate::model::flat::ElementKind) -> &'static str {
    use crate::model::flat::{ElementKind as K, Friction};
    match e {
        K::Spring { .. } => "spring",
        K::Damper { .. } => "damper",
        K::Gap(_) => "gap",
        K::Friction(Friction::Coulomb { .. }) => "friction (coulomb)",
        K::Friction(Friction::Jenkins { .. }) => "friction (jenkins)",
        K::Friction(Friction::Contact2d { .. }) => "friction (contact2d)",
        K::Beam(_) => "beam",
        K::Matrices(_) => "matrices",
        K::Joint(_) => "joint",
    }
}

/// Every smoothed gap with its radius of influence (paper 000, eq. 10).
fn smoothed_gaps(model: &Model) -> Vec<(String, f64)> {
    use crate::model::flat::ElementKind;
    model
        .elements
        .iter()
        .filter_map(|e| match &e.kind {
            ElementKind::Gap(g) => g.smooth.map(|s| {
                (
                    e.name.clone(),
                    crate::model::smoothing::radius_of_influence(s),
                )
            }),
            _ => None,
        })
        .collect()
}

/// The `check --json` object: `{"model", "dofs", "elements", "natural_frequencies", ...}`.
pub fn check_json(model: &Model, sys: &System, freqs: &[f64]) -> Value {
    let elements: Vec<Value> = model
        .elements
        .iter()
        .map(|e| json!({"name": e.name, "kind": element_kind(&e.kind), "a": model.node(e.a.node).name, "b": model.node(e.b.node).name}))
        .collect();
    let params: serde_json::Map<String, Value> = model
        .params
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    json!({
        "model": model.name,
        "dofs": sys.coordinate_names(),
        "elements": elements,
        "natural_frequencies": freqs,
        "parameters": params,
        "bodies": sys.multibody.as_ref().map_or(0, |m| m.bodies.len()),
        "smoothing": smoothed_gaps(model).iter().map(|(n, r)| json!({"element": n, "radius_of_influence": r})).collect::<Vec<_>>(),
        "warnings": sys.warnings.iter().map(|w| w.message.clone()).collect::<Vec<_>>(),
    })
}

/// The human summary `check` prints for one model (also the REPL's `:show`).
pub(crate) fn check_text(model: &Model, sys: &System, freqs: &[f64]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "model {}: {} DOFs, {} elements",
        model.name,
        sys.coordinate_names().len(),
        model.elements.len()
    );
    if !model.params.is_empty() {
        let p: Vec<String> = model
            .params
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let _ = writeln!(s, "  parameters: {}", p.join(", "));
    }
    let names = sys.coordinate_names();
    let shown = names
        .iter()
        .take(12)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    let more = if names.len() > 12 {
        format!(", … ({} more)", names.len() - 12)
    } else {
        String::new()
    };
    let _ = writeln!(s, "  DOFs: {shown}{more}");
    if !sys.nonlinear.is_empty() {
        let _ = writeln!(
            s,
            "  nonsmooth/nonlinear elements: {}",
            sys.nonlinear
                .iter()
                .map(|e| e.name.as_str())
                .take(8)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for (name, r) in smoothed_gaps(model) {
        let _ = writeln!(
            s,
            "  smoothed gap {name}: radius of influence R_i = {r:.6} (paper 000, eq. 10)"
        );
    }
    if let Some(mb) = &sys.multibody {
        let _ = writeln!(
            s,
            "  multibody: {} bodies, {} joints",
            mb.bodies.len(),
            mb.joints.len()
        );
    }
    if !freqs.is_empty() {
        let which = if sys.n() > DENSE_LIMIT {
            format!("lowest {}", freqs.len())
        } else {
            "all".into()
        };
        let _ = writeln!(
            s,
            "  natural frequencies, contacts open ({which}), rad/s [Hz]:"
        );
        for (i, w) in freqs.iter().enumerate() {
            let _ = writeln!(
                s,
                "    {:>3}  {:<14.8} [{:.6}]",
                i + 1,
                w,
                w / (2.0 * std::f64::consts::PI)
            );
        }
    }
    for w in &sys.warnings {
        let _ = writeln!(s, "  warning[{}]: {}", w.code, w.message);
    }
    s
}

fn run(file: &Path, set: &[String], out: &Path, as_json: bool, only: Option<&str>) -> i32 {
    let (prog, ov) = match load(file, set) {
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
    let hash = crate::io::report::source_hash(
        (0..prog.files.len())
            .map(|i| &*prog.sources.get(crate::lang::source::FileId(i as u32)).text),
    );
    let mut code = 0;
    for a in selected {
        match analysis::run(&prog, a, &ov) {
            Ok(r) => match crate::io::report::write(out, &r, &hash) {
                Ok(dir) => {
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
                        for w in &r.warnings {
                            emit(&format!("  warning: {w}"));
                        }
                    }
                }
                Err(e) => {
                    eprintln!(
                        "error[nsd::io::write]: cannot write results of `{}` to {}: {e}",
                        r.name,
                        out.display()
                    );
                    code = code.max(1);
                }
            },
            Err(RunFailure {
                failure,
                exit_code,
                partial,
            }) => {
                print_failure(&failure);
                code = code.max(exit_code);
                if let Some(r) = partial {
                    match crate::io::report::write(out, &r, &hash) {
                        Ok(dir) => eprintln!(
                            "partial results of `{}` written to {}",
                            r.name,
                            dir.display()
                        ),
                        Err(e) => eprintln!(
                            "error[nsd::io::write]: cannot write the partial results of `{}`: {e}",
                            r.name
                        ),
                    }
                }
            }
        }
    }
    code
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
