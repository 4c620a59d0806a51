//! The time integrator's tolerance options, shared by `simulate` and `sweep regimes`: their
//! defaults and how they are read.

use super::diagnostics::AnalysisError;
use super::options::OptionReader;
use crate::lang::units::Dim;

/// Default relative error per step of the integrator (`rtol`, dimensionless): tight enough
/// that impact times and stick–slip transitions are located to many digits.
pub const DEFAULT_RTOL: f64 = 1e-9;

/// Default absolute error per step of the integrator (`atol`, in the state's units: m, m/s).
pub const DEFAULT_ATOL: f64 = 1e-9;

/// `rtol` and `atol` as given, else their defaults; each must be positive.
pub fn integrator_tolerances(opts: &OptionReader) -> Result<(f64, f64), AnalysisError> {
    Ok((
        opts.positive("rtol", Dim::NONE, DEFAULT_RTOL, "1e-9")?,
        opts.positive("atol", Dim::NONE, DEFAULT_ATOL, "1e-9")?,
    ))
}
