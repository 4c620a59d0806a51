//! The time integrator's tolerance options, shared by `simulate` and `sweep regimes`: their
//! defaults and how they are read.

use super::diagnostics::AnalysisError;
use super::options::OptionReader;
use nsd_lang::units::Dim;

/// Default relative error per step of the integrator (`rtol`, dimensionless): tight enough
/// that impact times and stick–slip transitions are located to many digits.
const DEFAULT_RTOL: f64 = 1e-9;

/// Default absolute error per step of the integrator (`atol`, in the state's units: m, m/s).
const DEFAULT_ATOL: f64 = 1e-9;

/// Smallest `rtol` an integration can meet (dimensionless): about 4.5 machine epsilons. Below
/// it no step's error estimate, itself rounded to ε, can pass, and the run would end in a
/// step-size underflow at its start.
const MIN_RTOL: f64 = 1e-15;

/// `rtol` and `atol` as given, else their defaults; each must be positive and `rtol` at
/// least `MIN_RTOL`.
pub(crate) fn integrator_tolerances(opts: &OptionReader) -> Result<(f64, f64), AnalysisError> {
    Ok((
        relative_tolerance(opts, DEFAULT_RTOL, "1e-9")?,
        opts.positive("atol", Dim::NONE, DEFAULT_ATOL, "1e-9")?,
    ))
}

/// `rtol` as given (else `default`), positive and at least `MIN_RTOL`.
pub(crate) fn relative_tolerance(
    opts: &OptionReader,
    default: f64,
    example: &str,
) -> Result<f64, AnalysisError> {
    let rtol = opts.positive("rtol", Dim::NONE, default, example)?;
    match opts.span_of("rtol") {
        Some(at) if rtol < MIN_RTOL => Err(opts.bad_value(
            "rtol",
            at,
            &format!("rtol = {rtol:e} is below what double precision can meet ({MIN_RTOL:e})"),
            &format!("use rtol ≥ {MIN_RTOL:e} (the default is {default:e})"),
        )),
        _ => Ok(rtol),
    }
}
