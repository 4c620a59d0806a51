//! The options of the analyses built on a harmonic balance — `continue frf`, `continue
//! backbone`, `continue periodic`'s harmonic-balance start and comparison, and their
//! preflight: `harmonics` and `samples` with their defaults, the frequency parameter, and the
//! balance itself with its gap method.

use super::OptionReader;
use crate::diagnostics::AnalysisError;
use nsd_lang::ast::Analysis;
use nsd_lang::Span;
use nsd_model::{Model, System};
use nsd_solve::hb::{Balance, GapMethod};

/// Default number of harmonics H (`harmonics`).
pub(crate) const DEFAULT_HARMONICS: usize = 5;

/// Relative mismatch between the continued parameter's value and the excitation frequency
/// above which the parameter is not the excitation frequency (dimensionless, relative to
/// max(|Ω|, 1 rad/s)).
const FREQUENCY_MATCH_TOL: f64 = 1e-9;

/// `param = Omega in a..b`: the continued frequency parameter, its range and span (`help`
/// when it is missing).
pub(crate) fn frequency_range(
    opts: &OptionReader,
    a: &Analysis,
    model: &Model,
    help: &str,
) -> Result<(String, f64, f64, Span), AnalysisError> {
    opts.parameter_interval("param", &model.params)?
        .ok_or_else(|| opts.bad_value("param", a.span, "missing", help))
}

/// `harmonics` (5) and `samples` (enough per period for the products of the harmonics: the
/// smallest power of two ≥ 8H + 8).
pub(crate) fn harmonics_and_samples(opts: &OptionReader) -> Result<(usize, usize), AnalysisError> {
    let harmonics = opts.count("harmonics", 1)?.unwrap_or(DEFAULT_HARMONICS);
    let samples = opts
        .count("samples", 4)?
        .unwrap_or(default_samples(harmonics));
    Ok((harmonics, samples))
}

/// The harmonic balance of the system at the excitation level, with the gap method asked
/// for; the continued parameter must be the excitation frequency.
pub(crate) fn balance(
    opts: &OptionReader,
    (harmonics, samples): (usize, usize),
    (param, param_span): (&str, Span),
    a: &Analysis,
    model: &Model,
    sys: &System,
) -> Result<Balance, AnalysisError> {
    let mut hb = Balance::new(sys, harmonics, samples).map_err(|e| AnalysisError::Unsupported {
        message: format!("{} of `{}`: {e}", a.kind.keyword(), model.name),
        at: a.span,
        help: "the harmonic balance handles linear parts, polynomial springs, piecewise-linear gaps (`law = linear(k)`, exact or smoothed), Jenkins elements and 2-D friction contacts; other laws follow".into(),
    })?;
    if opts.choice("gaps", &["exact", "aft"])? == Some("aft") {
        hb.gaps = GapMethod::Aft;
    }
    let at_model = model
        .params
        .iter()
        .find(|(n, _)| n == param)
        .map_or(f64::NAN, |p| p.1);
    if (hb.fundamental - at_model).abs() > FREQUENCY_MATCH_TOL * at_model.abs().max(1.0) {
        return Err(opts.bad_value(
            "param",
            param_span,
            &format!(
                "`{param}` = {at_model} is not the excitation frequency ({} rad/s)",
                hb.fundamental
            ),
            "continue the parameter that the excitation is written with, e.g. `F * cos(Omega * t)`",
        ));
    }
    Ok(hb)
}

/// The default samples per period for `h` harmonics: the power of two ≥ 8h + 8.
pub(crate) fn default_samples(h: usize) -> usize {
    (8 * h + 8).next_power_of_two()
}
