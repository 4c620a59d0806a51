//! Analysis statements: one module per statement validates its options against the model,
//! calls its backend and returns `Results`.

mod basins;
mod branch_plot;
pub mod check;
mod continue_backbone;
mod continue_frf;
mod continue_periodic;
pub(crate) mod diagnostics;
mod element_states;
pub mod expect;
mod family;
pub mod finite;
mod initial_state;
mod modes;
mod nsmodes;
pub(crate) mod options;
mod preflight;
mod progress;
mod reduce;
pub(crate) mod results;
mod simulate;
mod sweep_bifurcation;
mod sweep_regimes;
mod tolerances;

pub use diagnostics::{AnalysisError, MergeError, Partial};
pub use results::{Cell, CellMap, Plot, Results, Series, Table};

use nsd_lang::ast::{Analysis, AnalysisKind};
use nsd_lang::{resolve, Failure, Override, Program};

/// A failed analysis: the rendered diagnostics and the exit code (1 user error, 2 numerical).
#[derive(Debug)]
pub struct RunFailure {
    pub failure: Failure,
    pub exit_code: i32,
    /// Results computed before a numerical failure (written too: exit code 2 keeps them).
    pub partial: Option<Box<Results>>,
}

/// A failure located in the analysis's file (exit code by kind, nothing computed).
fn located(prog: &Program, e: AnalysisError) -> RunFailure {
    let code = e.exit_code();
    let file = e.span().file;
    RunFailure {
        failure: Failure::one(Failure::located(&prog.sources, file, e)),
        exit_code: code,
        partial: None,
    }
}

/// The analysis's model resolved with its arguments and the overrides it declares, assembled, and the request
/// checked before it runs (`preflight`).
fn setup(
    prog: &Program,
    a: &Analysis,
    overrides: &[Override],
) -> Result<(Vec<Override>, nsd_model::Model, nsd_model::System), RunFailure> {
    if prog.template(&a.model.name).is_none() {
        let e = nsd_lang::diagnostics::ResolveError::UnknownModel {
            name: a.model.name.clone(),
            at: a.model.span,
            help: nsd_lang::diagnostics::suggest(
                &a.model.name,
                prog.model_order.iter().map(String::as_str),
                "the file defines no such model",
            ),
        };
        return Err(RunFailure {
            failure: Failure::one(Failure::located(&prog.sources, a.model.span.file, e)),
            exit_code: 1,
            partial: None,
        });
    }
    // The analysis's own arguments first, then `--set`: the command line has the last word.
    let mut all = nsd_lang::analysis_overrides(prog, a).map_err(|e| RunFailure {
        failure: Failure::one(Failure::located(&prog.sources, a.span.file, e)),
        exit_code: 1,
        partial: None,
    })?;
    all.extend(overrides_for(prog, &a.model.name, overrides));
    let overrides = all;
    let model = resolve(prog, &a.model.name, &overrides).map_err(|failure| RunFailure {
        failure,
        exit_code: 1,
        partial: None,
    })?;
    let sys = finite::assembled(prog, &model).map_err(|failure| RunFailure {
        failure,
        exit_code: 1,
        partial: None,
    })?;
    preflight::check(a, &model, &sys).map_err(|e| located(prog, e))?;
    Ok((overrides, model, sys))
}

/// Resolves the analysis's model with the overrides, assembles it and runs the analysis.
pub fn run(prog: &Program, a: &Analysis, overrides: &[Override]) -> Result<Results, RunFailure> {
    let located = |e: AnalysisError| located(prog, e);
    // A numerical failure keeps what was computed before it (exit code 2).
    let keep = |p: Partial| {
        let mut f = located(p.error);
        f.partial = p.results.map(|mut r| {
            r.name = name_of(a);
            r
        });
        f
    };
    let (overrides, model, sys) = setup(prog, a, overrides)?;
    let overrides = &overrides;
    let mut results = match a.kind {
        AnalysisKind::Modes => modes::run(a, &model, &sys).map_err(located)?,
        AnalysisKind::Simulate => simulate::run(a, &model, &sys).map_err(keep)?,
        AnalysisKind::ContinueFrf => continue_frf::run(a, &model, &sys).map_err(keep)?,
        AnalysisKind::ContinueBackbone => continue_backbone::run(a, &model, &sys).map_err(keep)?,
        AnalysisKind::NsModes => nsmodes::run(a, &model, &sys).map_err(located)?,
        AnalysisKind::Basins => basins::run(a, &model, &sys).map_err(located)?,
        AnalysisKind::SweepBifurcation => {
            sweep_bifurcation::run(prog, a, overrides, &model, &sys).map_err(located)?
        }
        AnalysisKind::ContinuePeriodic => {
            continue_periodic::run(prog, a, overrides, &model, &sys).map_err(keep)?
        }
        AnalysisKind::SweepRegimes => {
            sweep_regimes::run(prog, a, overrides, &model, &sys).map_err(located)?
        }
    };
    results.name = name_of(a);
    Ok(results)
}

/// `nsd run --shard index/count`: one deterministic slice of a sharded analysis (`basins`)
/// as JSON, with the analysis's name; `merge` joins the slices.
pub fn run_shard(
    prog: &Program,
    a: &Analysis,
    overrides: &[Override],
    shard: (usize, usize),
) -> Result<serde_json::Value, RunFailure> {
    let (_, model, sys) = setup(prog, a, overrides)?;
    let AnalysisKind::Basins = a.kind else {
        return Err(located(
            prog,
            AnalysisError::Unsupported {
                message: format!("`{}` cannot be sharded", a.kind.keyword()),
                at: a.span,
                help:
                    "`--shard` splits `basins` maps; run the other analyses whole (`--only NAME`)"
                        .into(),
            },
        ));
    };
    let mut v = basins::run_shard(a, &model, &sys, shard).map_err(|e| located(prog, e))?;
    v["name"] = serde_json::Value::String(name_of(a));
    Ok(v)
}

/// `nsd merge`: the shards of one analysis (as `run_shard` wrote them), each with the file
/// it was read from, joined into the results of a single run.
pub fn merge_shards(shards: &[(String, serde_json::Value)]) -> Result<Results, MergeError> {
    let mut r = basins::merge(shards)?;
    let (file, first) = shards.first().ok_or(MergeError::Empty)?;
    r.name = first["name"]
        .as_str()
        .ok_or_else(|| MergeError::Malformed {
            file: file.clone(),
            reason: "it does not name its analysis".into(),
        })?
        .into();
    Ok(r)
}

/// The overrides that `model` declares a parameter for: a `--set` on a file with several
/// models applies to the models that have the parameter and leaves the others alone.
pub fn overrides_for(prog: &Program, model: &str, overrides: &[Override]) -> Vec<Override> {
    let declared = prog
        .template(model)
        .map_or_else(Vec::new, |(_, _, t)| nsd_lang::declared_params(t));
    overrides
        .iter()
        .filter(|o| declared.contains(&o.name.as_str()))
        .cloned()
        .collect()
}

/// Checks that every override names a parameter of at least one of `models`
/// (`nsd::resolve::unknown_override` for each that none declares).
pub fn check_overrides(
    prog: &Program,
    models: &[String],
    overrides: &[Override],
) -> Result<(), Failure> {
    let known: Vec<_> = models.iter().filter_map(|m| prog.template(m)).collect();
    if known.is_empty() {
        // The unknown model is reported where it is resolved.
        return Ok(());
    }
    let declared: Vec<&str> = known
        .into_iter()
        .flat_map(|(_, _, t)| nsd_lang::declared_params(t))
        .collect();
    let reports: Vec<miette::Report> = overrides
        .iter()
        .filter(|o| !declared.contains(&o.name.as_str()))
        .map(|o| {
            miette::Report::new(nsd_lang::diagnostics::ResolveError::UnknownOverride {
                name: o.name.clone(),
                help: nsd_lang::diagnostics::suggest(
                    &o.name,
                    declared.iter().copied(),
                    "no model run here declares it; the models' parameters are listed by `nsd check`",
                ),
            })
        })
        .collect();
    if reports.is_empty() {
        Ok(())
    } else {
        Err(Failure { reports })
    }
}

/// The option names an analysis kind accepts (each analysis's own list, as it checks them):
/// what editors complete. The kinds without a backend accept none yet.
pub fn option_names(kind: AnalysisKind) -> &'static [&'static str] {
    match kind {
        AnalysisKind::Modes => &modes::OPTIONS,
        AnalysisKind::Simulate => &simulate::OPTIONS,
        AnalysisKind::SweepRegimes => &sweep_regimes::OPTIONS,
        AnalysisKind::SweepBifurcation => &sweep_bifurcation::options::OPTIONS,
        AnalysisKind::Basins => &basins::OPTIONS,
        AnalysisKind::ContinueFrf => &continue_frf::OPTIONS,
        AnalysisKind::NsModes => &nsmodes::OPTIONS,
        AnalysisKind::ContinueBackbone => &continue_backbone::OPTIONS,
        AnalysisKind::ContinuePeriodic => &continue_periodic::OPTIONS,
    }
}

/// The result-folder name: `as NAME`, else the statement's slug.
pub fn name_of(a: &Analysis) -> String {
    a.name
        .as_ref()
        .map_or_else(|| a.kind.slug(), |n| n.name.clone())
}

/// Checks that analysis names are unique (they name result folders) and that every `expect`
/// names one of them.
pub fn check_names(prog: &Program) -> Result<(), Failure> {
    let mut seen = std::collections::HashSet::new();
    for a in &prog.analyses {
        if !seen.insert(name_of(a)) {
            let e = AnalysisError::DuplicateName {
                name: name_of(a),
                at: a.span,
            };
            return Err(Failure::one(Failure::located(
                &prog.sources,
                a.span.file,
                e,
            )));
        }
        if let Err(e) = nsd_lang::analysis_overrides(prog, a) {
            return Err(Failure::one(Failure::located(
                &prog.sources,
                a.span.file,
                e,
            )));
        }
    }
    expect::check_targets(prog)
}
