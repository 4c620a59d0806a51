//! `x0 = { dof = value }` and `v0 = { … }`: the initial state an integrating analysis starts
//! from (rest where not given), read by DOF name.

use super::diagnostics::AnalysisError;
use super::options::{dof_by_path, OptionReader};
use nsd_lang::diagnostics::suggest;
use nsd_model::Model;

/// The initial state `[x, ẋ]` from `x0 = { dof = value }` and `v0 = { … }` (zero elsewhere).
pub(crate) fn initial_state(
    opts: &OptionReader,
    model: &Model,
    sys: &nsd_model::System,
) -> Result<Vec<f64>, AnalysisError> {
    let n = sys.n();
    let mut y0 = vec![0.0; 2 * n];
    for (key, offset) in [("x0", 0), ("v0", n)] {
        for (path, value, at) in opts.assignments(key)? {
            let dof = dof_by_path(sys, &path).ok_or_else(|| {
                let names = sys.dofs.iter().map(|d| d.name.as_str());
                opts.bad_value(
                    key,
                    at,
                    &format!("`{path}` is not a DOF of `{}`", model.name),
                    &suggest(&path, names, "the DOFs are"),
                )
            })?;
            y0[offset + dof] = value;
        }
    }
    Ok(y0)
}
