//! The options of a `sweep regimes` statement, read and checked against the model: the two
//! swept parameters and their grids, the method, and the numeric cells' settings.

use crate::diagnostics::AnalysisError;
use crate::options::OptionReader;
use crate::tolerances::integrator_tolerances;
use nsd_lang::ast::Analysis;
use nsd_model::Model;
use nsd_solve::ode::dop853::Tolerances;
use nsd_solve::regimes::classify::Engine;
use nsd_solve::regimes::stick_slip::StopFactor;

/// Excitation cycles a numeric cell integrates before its regime is read from the last ones
/// (the default of `cycles`).
const DEFAULT_CYCLES: usize = 100;

/// What to sweep and how.
pub(super) struct Sweep {
    pub(crate) x_name: String,
    pub(crate) xs: Vec<f64>,
    pub(crate) y_name: String,
    pub(crate) ys: Vec<f64>,
    /// `both`, `analytic` or `numeric`.
    pub(crate) method: &'static str,
    pub(crate) cycles: usize,
    pub(crate) factor: StopFactor,
    pub(crate) tol: Tolerances,
    pub(crate) engine: Engine,
}

/// The options of `sweep regimes`.
pub(crate) const OPTIONS: [&str; 8] = ["x", "y", "method", "cycles", "S", "engine", "rtol", "atol"];

impl Sweep {
    pub(crate) fn read(a: &Analysis, model: &Model) -> Result<Sweep, AnalysisError> {
        let opts = OptionReader::new(a, model, &OPTIONS)?;
        let missing = |key: &str| {
            opts.bad_value(
                key,
                a.span,
                "missing",
                &format!(
                    "give the swept parameter, e.g. `{key} = {} in 0..1 by 0.01`",
                    if key == "x" { "r1" } else { "beta" }
                ),
            )
        };
        let (x_name, xs, _) = opts
            .sweep("x", &model.params)?
            .ok_or_else(|| missing("x"))?;
        let (y_name, ys, y_span) = opts
            .sweep("y", &model.params)?
            .ok_or_else(|| missing("y"))?;
        if x_name == y_name {
            return Err(opts.bad_value(
                "y",
                y_span,
                "sweeps the same parameter as `x`",
                "sweep two different parameters",
            ));
        }
        let method = opts
            .choice("method", &["both", "analytic", "numeric"])?
            .unwrap_or("both");
        let cycles = opts.count("cycles", 2)?.unwrap_or(DEFAULT_CYCLES);
        let factor = match opts.choice("S", &["unit", "exact"])? {
            Some("exact") => StopFactor::Exact,
            _ => StopFactor::Unit,
        };
        let (rtol, atol) = integrator_tolerances(&opts)?;
        let tol = Tolerances {
            rtol,
            atol,
            max_step: f64::INFINITY,
        };
        let engine = match opts.choice("engine", &["auto", "integrator"])? {
            Some("integrator") => Engine::Integrator(tol),
            _ => Engine::Auto(tol),
        };
        Ok(Sweep {
            x_name,
            xs,
            y_name,
            ys,
            method,
            cycles,
            factor,
            tol,
            engine,
        })
    }

    /// The analytic boundaries are computed (`method` is not `numeric`).
    pub(crate) fn analytic_on(&self) -> bool {
        self.method != "numeric"
    }

    /// The cells are integrated (`method` is not `analytic`).
    pub(crate) fn numeric_on(&self) -> bool {
        self.method != "analytic"
    }

    /// The grid's size, `(nx, ny)`.
    pub(crate) fn shape(&self) -> (usize, usize) {
        (self.xs.len(), self.ys.len())
    }
}
