//! The `reduce = modes(m)` option of `simulate` and `continue frf`: the model reduced by
//! Craig–Bampton (`solve::reduce`) to its contact, loaded and base-coupled DOFs (and the
//! monitored one) plus `m` fixed-interface modes, and the reduction's account for the
//! summary — the highest kept and first dropped fixed-interface frequencies, the residual
//! flexibility choice, and the lowest natural frequencies of the full and reduced models
//! side by side.

use super::diagnostics::AnalysisError;
use super::options::OptionReader;
use nsd_model::System;
use nsd_solve::reduce::{craig_bampton, Reduced};
use serde_json::{json, Value};

/// The lowest natural frequencies compared between the full and the reduced model (count).
const CHECKED_FREQUENCIES: usize = 6;

/// The model reduced as `reduce` asks, keeping `keep` physical too; `None` without the
/// option.
pub(crate) fn read(
    opts: &OptionReader,
    sys: &System,
    keep: &[usize],
    model: &str,
) -> Result<Option<Reduced>, AnalysisError> {
    let Some((name, args, at)) = opts.call("reduce")? else {
        return Ok(None);
    };
    let count = match (name.as_str(), args.as_slice()) {
        ("modes", [(m, _)]) if *m >= 1.0 && m.fract() == 0.0 => *m as usize,
        _ => {
            return Err(opts.bad_value(
                "reduce",
                at,
                "expected `modes(m)` with a whole number m ≥ 1",
                "e.g. `reduce = modes(10)`: Craig–Bampton with 10 fixed-interface modes",
            ))
        }
    };
    craig_bampton(sys, count, keep).map(Some).map_err(|e| {
        opts.bad_value(
            "reduce",
            at,
            &format!("`{model}` cannot be reduced: {e}"),
            "ask for fewer modes, or drop `reduce` to solve the full model",
        )
    })
}

/// The reduction's account for the summary.
pub(crate) fn summary(reduced: &Reduced, full: &System) -> Value {
    let kept: Vec<&str> = reduced
        .kept
        .iter()
        .map(|&i| full.dofs[i].name.as_str())
        .collect();
    let check = reduced
        .frequency_check(full, CHECKED_FREQUENCIES)
        .map(|pairs| {
            pairs
                .iter()
                .map(|(w, wr)| json!({"full": w, "reduced": wr, "relative_error": (wr - w) / w.max(f64::MIN_POSITIVE)}))
                .collect::<Vec<_>>()
        })
        .map_or_else(|e| json!(e.to_string()), Value::from);
    json!({
        "method": "Craig–Bampton",
        "modes": reduced.kept_omega.len(),
        "kept_dofs": kept,
        "unknowns": reduced.system.n(),
        "highest_kept_omega": reduced.kept_omega.last(),
        "first_dropped_omega": reduced.first_dropped,
        "residual_flexibility": "static constraint modes of the kept DOFs (exact static response to loads there)",
        "natural_frequencies": check,
    })
}
