//! Checks made on an analysis's request before its backend starts: option values that cannot
//! take effect (`nsd::analysis::bad_option`) and requests whose estimated memory or output
//! would abort the process or never finish (refused with the estimate and the option to
//! change; limits `MAX_REQUEST_BYTES`, `MAX_OUTPUT_ROWS`).
//!
//! The analyses read and report their own options; this pass reads the same options with the
//! same reader, ignores values it cannot read (the analysis reports those, in its order) and
//! reports only what it finds. `simulate` checks its output request in its own reader.

use super::diagnostics::AnalysisError;
use super::options::OptionReader;
use nsd_lang::ast::{Analysis, AnalysisKind};
use nsd_lang::units::Dim;
use nsd_model::system::Attach;
use nsd_model::{Model, System};
use nsd_solve::hb::full_hill_bytes;
use nsd_solve::reduce::kept_dofs;
use nsd_solve::{bytes_text, MAX_OUTPUT_ROWS, MAX_REQUEST_BYTES};

/// Bytes of one `f64`.
const F64: f64 = std::mem::size_of::<f64>() as f64;

/// Dense `dim × dim` matrices an uncondensed branch holds at once (the balance Jacobian, the
/// augmented corrector matrix and its LU).
const BRANCH_MATRICES: f64 = 3.0;

/// Dense `n × n` matrices the condensed Hill problem's set-up holds at once (the balance's
/// K, M, C, the modes' shapes and the eigensolver's factor and work copy; `hb::condense`).
const MODAL_MATRICES: f64 = 6.0;

/// Dense complex `d × d` matrices, `d = n_c (2H + 1)`, the condensed Hill problem holds at a
/// point (`hb::hill::reduced`: B, its change of basis both ways, R, R', T and its LU, A).
const REDUCED_MATRICES: f64 = 8.0;

/// Dense matrices of a backbone's Newton system alive at once (the Jacobian, its scaled
/// copy, the LU factors, the Hessian product's block).
const BACKBONE_MATRICES: f64 = 4.0;

/// Most DOFs `continue periodic` shoots (`continue_periodic`).
const MAX_SHOOTING_DOFS: usize = 50;

/// An entry of `C − αM − βK` below this fraction of the largest of C, M and K (each scaled
/// by its coefficient) counts as zero: the damping is proportional (dimensionless).
const PROPORTIONAL_TOL: f64 = 1e-12;

/// Checks the request of `a` on the assembled system.
pub(crate) fn check(a: &Analysis, model: &Model, sys: &System) -> Result<(), AnalysisError> {
    let opts = OptionReader::unchecked(a, model);
    match a.kind {
        AnalysisKind::ContinueFrf => continue_frf(&opts, model, sys),
        AnalysisKind::ContinueBackbone => continue_backbone(&opts, model, sys),
        AnalysisKind::SweepRegimes => sweep_regimes(&opts, model),
        AnalysisKind::ContinuePeriodic => continue_periodic(&opts, model, sys),
        _ => Ok(()),
    }
}

/// `continue frf`: the sampled harmonic basis (`samples × (2H + 1)`, twice) and, with
/// stability on, Hill's matrices (`hill_bytes`) must fit in `MAX_REQUEST_BYTES`; `samples`
/// must resolve the harmonics (`samples ≥ 2H + 1`); the steps must be ordered
/// (`steps_ordered`).
fn continue_frf(opts: &OptionReader, model: &Model, sys: &System) -> Result<(), AnalysisError> {
    let Ok(h) = opts
        .count("harmonics", 1)
        .map(|h| h.unwrap_or(crate::options::balance::DEFAULT_HARMONICS))
    else {
        return Ok(());
    };
    let samples_given = opts.count("samples", 4).ok().flatten();
    let samples = samples_given.unwrap_or(crate::options::balance::default_samples(h));
    let width = (2 * h + 1) as f64;
    if let (Some(s), Some(at)) = (samples_given, opts.span_of("samples")) {
        if (s as f64) < width {
            return Err(opts.bad_value(
                "samples",
                at,
                &format!("{s} samples per period cannot resolve {h} harmonics"),
                &format!(
                    "use at least 2H + 1 = {width} samples (the default is {})",
                    crate::options::balance::default_samples(h)
                ),
            ));
        }
    }
    memory(opts, model, sys, (h, samples), samples_given.is_some())?;
    steps_ordered(opts)
}

/// The continuation's steps as given must be ordered (`min_step ≤ step ≤ max_step`), else
/// one of them cannot take effect (a `step` above `max_step` was taken once and landed
/// past the range).
fn steps_ordered(opts: &OptionReader) -> Result<(), AnalysisError> {
    let step = |key| {
        opts.number(key, Dim::NONE)
            .ok()
            .flatten()
            .filter(|v| *v > 0.0)
    };
    let (min, first, max) = (step("min_step"), step("step"), step("max_step"));
    for ((lo_key, lo), (hi_key, hi)) in [
        (("min_step", min), ("step", first)),
        (("step", first), ("max_step", max)),
        (("min_step", min), ("max_step", max)),
    ] {
        if let (Some(lo), Some(hi), Some(at)) = (lo, hi, opts.span_of(lo_key)) {
            if lo > hi {
                return Err(opts.bad_value(
                    lo_key,
                    at,
                    &format!("{lo_key} = {lo} is larger than {hi_key} = {hi}"),
                    "the steps must satisfy min_step ≤ step ≤ max_step",
                ));
            }
        }
    }
    Ok(())
}

/// `continue backbone`'s dense Newton matrices, `BACKBONE_MATRICES` of the solved size
/// squared (`2 u + 1` unknowns for the ridge, `u + 2` otherwise), must fit in
/// `MAX_REQUEST_BYTES`. `u = n_c (2H + 1)` where the backbone is condensed onto the nonlinear
/// and monitored DOFs (`backbone::Reduced`: at most `MAX_KEPT_FRACTION` of the DOFs, the
/// damping proportional, no rigid mode; phase resonance also needs the excited DOF kept,
/// certain only when `dof` is not given), plus the modes' `MODAL_MATRICES` of `n × n`;
/// `u = n (2H + 1)` on the full balance — a 1,000-DOF chain at H = 5 would ask for 15 GB.
fn continue_backbone(
    opts: &OptionReader,
    model: &Model,
    sys: &System,
) -> Result<(), AnalysisError> {
    let Ok(h) = opts
        .count("harmonics", 1)
        .map(|h| h.unwrap_or(crate::options::balance::DEFAULT_HARMONICS))
    else {
        return Ok(());
    };
    let width = (2 * h + 1) as f64;
    let method = opts.choice("method", &["ridge", "dnnm", "phase_resonance"]);
    let ridge = !matches!(method, Ok(Some("dnnm" | "phase_resonance")));
    let phase = matches!(method, Ok(Some("phase_resonance")));
    let kept = nonlinear_dofs(sys).len() + 1;
    let n = sys.n() as f64;
    let condenses = kept > 1
        && kept as f64 <= nsd_solve::backbone::MAX_KEPT_FRACTION * n
        && condensable(model, sys)
        && !(phase && opts.span_of("dof").is_some());
    let unknowns = if condenses {
        kept as f64 * width
    } else {
        n * width
    };
    let size = if ridge {
        2.0 * unknowns + 1.0
    } else {
        unknowns + 2.0
    };
    let modal = if condenses {
        MODAL_MATRICES * n * n * F64
    } else {
        0.0
    };
    let need = BACKBONE_MATRICES * size * size * F64 + modal;
    if need <= MAX_REQUEST_BYTES {
        return Ok(());
    }
    let at = opts.span_of("harmonics").unwrap_or(opts.statement_span());
    let form = if condenses {
        "condensed onto the contact DOFs"
    } else {
        "on the full balance"
    };
    Err(opts.bad_value(
        "harmonics",
        at,
        &format!(
            "needs an estimated {} of memory ({size} unknowns {form}; the limit is {})",
            bytes_text(need),
            bytes_text(MAX_REQUEST_BYTES)
        ),
        "lower `harmonics` or solve a smaller model; a backbone is condensed onto the contact DOFs where they are at most half the DOFs and the damping is proportional (`damping rayleigh`)",
    ))
}

/// `continue periodic` integrates the monodromy's `(2n)²` sensitivities with every orbit, at
/// a cost per orbit near `(2n)²` times the model's own: beyond `MAX_SHOOTING_DOFS` DOFs a
/// branch takes hours (a 10-mass chain with a stop: 0.5 s per point; 50 masses: over a
/// minute), so it is refused at once with the way that scales.
fn continue_periodic(
    opts: &OptionReader,
    model: &Model,
    sys: &System,
) -> Result<(), AnalysisError> {
    let n = sys.n();
    if n <= MAX_SHOOTING_DOFS {
        steps_ordered(opts)?;
        return periodic_harmonic_balance(opts, sys);
    }
    Err(AnalysisError::Unsupported {
        message: format!(
            "continue periodic of `{}`: shooting integrates (2n)² = {} sensitivities with every orbit of this {n}-DOF model; the limit is {MAX_SHOOTING_DOFS} DOFs",
            model.name,
            4 * n * n
        ),
        at: opts.statement_span(),
        help: "for large models use `continue frf` (harmonic balance condensed onto the contact DOFs, Hill stability, `reduce = modes(m)`)".into(),
    })
}

/// `continue periodic`'s harmonic balance (`start = harmonic_balance`, or `harmonic_balance`
/// in `compare`) is a `continue frf` branch at `harmonics` with its default samples: its
/// sampled bases and, where it is not condensed, its dense Jacobians must fit in
/// `MAX_REQUEST_BYTES` (`harmonics = 1000000` asked for 134 TB).
fn periodic_harmonic_balance(opts: &OptionReader, sys: &System) -> Result<(), AnalysisError> {
    let Some(at) = opts.span_of("harmonics") else {
        return Ok(());
    };
    let Ok(Some(h)) = opts.count("harmonics", 1) else {
        return Ok(());
    };
    let start = opts
        .choice("start", &["rest", "harmonic_balance"])
        .ok()
        .flatten();
    if start != Some("harmonic_balance") && !compares_harmonic_balance(opts) {
        return Ok(());
    }
    let samples = crate::options::balance::default_samples(h);
    let width = (2 * h + 1) as f64;
    let need = nsd_solve::hb::aft::Aft::bytes(h, samples) + branch_bytes(sys, sys.n(), width, true);
    if need <= MAX_REQUEST_BYTES {
        return Ok(());
    }
    Err(opts.bad_value(
        "harmonics",
        at,
        &format!(
            "the harmonic balance needs an estimated {} of memory (H = {h}, {samples} samples; the limit is {})",
            bytes_text(need),
            bytes_text(MAX_REQUEST_BYTES)
        ),
        "lower `harmonics` (the harmonic-balance start and comparison rarely need more than 50)",
    ))
}

/// Whether `compare` names `harmonic_balance` (alone or in its tuple).
fn compares_harmonic_balance(opts: &OptionReader) -> bool {
    use nsd_lang::ast::{ExprKind, Value};
    let Some(Value::Expr(e)) = opts.get("compare") else {
        return false;
    };
    let named = |e: &nsd_lang::ast::Expr| {
        nsd_lang::options::bare_name(e).is_some_and(|n| n.name == "harmonic_balance")
    };
    match &e.kind {
        ExprKind::Tuple(items) => items.iter().any(named),
        _ => named(e),
    }
}

/// Dense matrices of an uncondensed branch (`BRANCH_MATRICES` of `n (2H + 1)` squared): the
/// branch is solved in full where `condense = false` or nothing can be condensed (no
/// nonlinear DOF, or every DOF nonlinear), else on the contacts' DOFs (counted as nothing).
fn branch_bytes(sys: &System, n: usize, width: f64, condense: bool) -> f64 {
    let nonlinear = nonlinear_dofs(sys).len();
    let dim = n as f64 * width;
    if !condense || nonlinear == 0 || nonlinear >= n {
        BRANCH_MATRICES * dim * dim * F64
    } else {
        0.0
    }
}

/// The memory of `continue frf` against `MAX_REQUEST_BYTES`: the sampled bases, then the
/// larger of the branch's dense Jacobians (`BRANCH_MATRICES` of the solved size squared,
/// only where the balance is not condensed: `condense = false` or nothing to condense) and,
/// with `stability`, Hill's matrices (`hill_bytes`). With `reduce = modes(m)` the solved size
/// is the reduced one (the kept DOFs, the monitored one at most, and m modes), Hill's method
/// at most its full companion matrix.
fn memory(
    opts: &OptionReader,
    model: &Model,
    sys: &System,
    (h, samples): (usize, usize),
    samples_given: bool,
) -> Result<(), AnalysisError> {
    let width = (2 * h + 1) as f64;
    let aft = nsd_solve::hb::aft::Aft::bytes(h, samples);
    let stability = opts.flag("stability", true).unwrap_or(true);
    let condense = opts.flag("condense", true).unwrap_or(true);
    let reduced = reduced_size(opts, sys);
    let n = reduced.unwrap_or(sys.n());
    let dim = n as f64 * width;
    let branch = branch_bytes(sys, n, width, condense);
    let hill = match (stability, reduced) {
        (false, _) => 0.0,
        (true, Some(_)) => full_hill_bytes(dim as usize),
        (true, None) => hill_bytes(model, sys, width),
    };
    let need = aft + branch.max(hill);
    if need <= MAX_REQUEST_BYTES {
        return Ok(());
    }
    let (key, help) = if aft >= branch.max(hill) {
        match samples_given {
            true => ("samples", "lower `samples` or `harmonics`"),
            false => (
                "harmonics",
                "lower `harmonics` (the samples per period follow it)",
            ),
        }
    } else if branch >= hill {
        (
            "condense",
            "keep `condense = true` (the default: the branch solved on the contacts' DOFs), lower `harmonics`, or add `reduce = modes(m)`",
        )
    } else {
        (
            "harmonics",
            "lower `harmonics`, skip Hill's method with `stability = false`, or add `reduce = modes(m)`",
        )
    };
    let at = opts
        .span_of(key)
        .or(opts.span_of("harmonics"))
        .unwrap_or(opts.statement_span());
    Err(opts.bad_value(
        key,
        at,
        &format!(
            "needs an estimated {} of memory (H = {h}, {samples} samples, {dim} unknowns; the limit is {})",
            bytes_text(need),
            bytes_text(MAX_REQUEST_BYTES)
        ),
        help,
    ))
}

/// The memory of Hill's method per `hb::Hill`: condensed onto the nonlinear DOFs where it
/// can be (`MODAL_MATRICES` of `n × n` and `REDUCED_MATRICES` of the condensed size), the full
/// companion matrix (`hb::full_hill_bytes` of `n (2H + 1)` unknowns) where it cannot. The condensed
/// problem needs a DOF the nonlinear elements leave free, a proportional damping (C = αM + βK
/// with the model's Rayleigh coefficients, or none) and no rigid mode (a DOF without
/// stiffness is one). A point whose condensed roots fail goes to the full matrix only under
/// the limit (past it the point is `hb::Unresolved`): only a certain fallback is estimated
/// at full size.
fn hill_bytes(model: &Model, sys: &System, width: f64) -> f64 {
    let n = sys.n();
    let kept = nonlinear_dofs(sys);
    let condenses = !kept.is_empty() && kept.len() < n && condensable(model, sys);
    if condenses {
        let (n, reduced) = (n as f64, kept.len() as f64 * width);
        MODAL_MATRICES * n * n * F64 + REDUCED_MATRICES * 2.0 * reduced * reduced * F64
    } else {
        full_hill_bytes(n * width as usize)
    }
}

/// Whether the modes can condense the balance: a proportional damping and no rigid mode (a
/// DOF without stiffness is one).
fn condensable(model: &Model, sys: &System) -> bool {
    let rigid = (0..sys.n()).any(|i| sys.k.get(i, i).is_none_or(|k| *k == 0.0));
    !rigid && proportional(model, sys)
}

/// The unknowns per harmonic of the model reduced by `reduce = modes(m)`, at most (the
/// monitored DOF may be kept as well); `None` without a readable `reduce`.
fn reduced_size(opts: &OptionReader, sys: &System) -> Option<usize> {
    match opts.call("reduce").ok()?? {
        (name, args, _) if name == "modes" && args.len() == 1 && args[0].0 >= 1.0 => {
            Some((kept_dofs(sys, &[]).len() + 1 + args[0].0 as usize).min(sys.n()))
        }
        _ => None,
    }
}

/// The DOFs the nonlinear elements attach to, ascending: what the balance condenses onto.
fn nonlinear_dofs(sys: &System) -> Vec<usize> {
    let mut kept: Vec<usize> = sys
        .nonlinear
        .iter()
        .flat_map(|e| e.a.iter().chain(&e.b))
        .filter_map(|at| match at {
            Attach::Dof(i) => Some(*i),
            _ => None,
        })
        .collect();
    kept.sort_unstable();
    kept.dedup();
    kept
}

/// Whether `C = αM + βK` with the model's Rayleigh coefficients (0 without), entry by entry
/// to `PROPORTIONAL_TOL`.
fn proportional(model: &Model, sys: &System) -> bool {
    let (alpha, beta) = model.damping.map_or((0.0, 0.0), |r| (r.alpha, r.beta));
    let largest = |m: &sprs::CsMat<f64>, scale: f64| {
        m.iter().map(|(v, _)| (scale * v).abs()).fold(0.0, f64::max)
    };
    let tol = PROPORTIONAL_TOL
        * largest(&sys.c, 1.0)
            .max(largest(&sys.m, alpha))
            .max(largest(&sys.k, beta));
    let at = |m: &sprs::CsMat<f64>, i: usize, j: usize| m.get(i, j).copied().unwrap_or(0.0);
    [&sys.c, &sys.m, &sys.k].iter().all(|pattern| {
        pattern.iter().all(|(_, (i, j))| {
            (at(&sys.c, i, j) - alpha * at(&sys.m, i, j) - beta * at(&sys.k, i, j)).abs() <= tol
        })
    })
}

/// `sweep regimes`: the grid's `data.csv` has one row per cell, at most `MAX_OUTPUT_ROWS`;
/// with `method = analytic` the integrator's options (`cycles`, `engine`, `rtol`, `atol`)
/// cannot take effect, nor `S` (the analytic limit's factor) with `method = numeric`.
fn sweep_regimes(opts: &OptionReader, model: &Model) -> Result<(), AnalysisError> {
    let axis = |key| opts.sweep(key, &model.params).ok().flatten();
    if let (Some((_, xs, _)), Some((_, ys, y_at))) = (axis("x"), axis("y")) {
        let cells = xs.len() as f64 * ys.len() as f64;
        if cells > MAX_OUTPUT_ROWS {
            return Err(opts.bad_value(
                "y",
                y_at,
                &format!(
                    "the grid has {} × {} = {cells:.1e} cells (the limit is {MAX_OUTPUT_ROWS:.0e})",
                    xs.len(),
                    ys.len()
                ),
                "use a coarser step on `x` or `y`",
            ));
        }
    }
    let method = opts
        .choice("method", &["both", "analytic", "numeric"])
        .ok()
        .flatten();
    let inert: &[&str] = match method {
        Some("analytic") => &["cycles", "engine", "rtol", "atol"],
        Some("numeric") => &["S"],
        _ => &[],
    };
    for key in inert {
        if let Some(at) = opts.span_of(key) {
            return Err(opts.bad_value(
                key,
                at,
                &format!("has no effect with `method = {}`", method.unwrap_or("both")),
                &format!("drop `{key}`, or use `method = both`"),
            ));
        }
    }
    Ok(())
}
