//! The branch read point by point: the reported DOFs' harmonic amplitudes, their peak over
//! the reconstructed period and the phase of the first harmonic; stability by Hill's method;
//! folds and bifurcations, each located on the branch between the two points that bracket it.

use crate::element_states;
use crate::results::Cell;
use nalgebra::{DMatrix, DVector};
use nsd_model::System;
use nsd_solve::cont::{locate, Point, Scale};
use nsd_solve::hb::{Balance, ElementState, Hill, Unresolved, Unstable};
use serde_json::{json, Value};

/// The relative tolerance on the real parts of the Floquet exponents (`hb::grows`).
const STABILITY_TOL: f64 = 1e-7;

/// How the branch's points are read.
pub(super) struct Reading<'a> {
    pub(crate) hb: &'a Balance,
    /// The system the balance is built on (its elements' names).
    pub(crate) sys: &'a System,
    /// `x = T q` when the balance is on a reduced model (`reduce`), else `None`.
    pub(crate) basis: Option<&'a DMatrix<f64>>,
    /// The DOFs with columns in the table (the requested one, else all).
    pub(crate) reported: &'a [usize],
    /// The DOF whose peak, folds and plot are followed (the requested one, else the excited
    /// one).
    pub(crate) watched: usize,
    /// Harmonics of the balance, H.
    pub(crate) harmonics: usize,
    /// Hill's method at every point (`stability = true`), else `None`.
    pub(crate) hill: Option<Hill<'a>>,
    /// The continued frequency range.
    pub(crate) range: (f64, f64),
    /// The corrector's Newton tolerance, for locating bifurcations.
    pub(crate) tol: f64,
}

/// What the points give.
pub(super) struct Tabulated {
    /// One row per point, in the columns of `columns`.
    pub(crate) rows: Vec<Vec<Cell>>,
    /// Stability per point.
    pub(crate) stable: Vec<bool>,
    /// The watched DOF's peak per point, `(Ω, max|x|)`.
    pub(crate) watched_curve: Vec<(f64, f64)>,
    /// Folds as `{"Omega", "amplitude"}`.
    pub(crate) folds: Vec<Value>,
    /// Every bifurcation (folds included) as `{"kind", "Omega", "amplitude"}`.
    pub(crate) bifurcations: Vec<Value>,
    /// How many element regime changes there are between neighbouring points.
    pub(crate) transitions: usize,
    /// The points whose stability Hill's method could not resolve (`Hill::exponents`).
    pub(crate) unresolved: Vec<Unresolved>,
}

impl Reading<'_> {
    /// The header of `data.csv`: the frequency, convergence, per reported DOF its peak, phase
    /// and harmonic amplitudes, then stability, fold and bifurcation, each nonlinear element's
    /// state (`element_states`) and the regime changes since the point before (where an element
    /// has states).
    pub(crate) fn columns(&self, param: &str, names: &[String], reported: &[usize]) -> Vec<String> {
        let harmonics = self.harmonics;
        let at_rest = self.hb.element_states(&DVector::zeros(self.hb.dim()));
        let elements = element_states::columns(self.sys, &at_rest);
        let mut columns = vec![format!("{param} [rad/s]"), "converged".into()];
        for &i in reported {
            let d = &names[i];
            columns.push(format!("max|{d}|"));
            columns.push(format!("phase({d}) [rad]"));
            columns.extend((0..=harmonics).map(|k| format!("A{k}({d})")));
        }
        columns.extend(["stable".into(), "fold".into(), "bifurcation".into()]);
        // Without an element that changes regime (smooth springs only) there is nothing to mark.
        if !elements.is_empty() {
            columns.extend(elements);
            columns.push("transitions".into());
        }
        columns
    }

    /// Reads every point of the branch.
    pub(crate) fn tabulate(&self, branch: &[Point]) -> Tabulated {
        let mut out = Tabulated {
            rows: Vec::with_capacity(branch.len()),
            stable: Vec::with_capacity(branch.len()),
            watched_curve: Vec::with_capacity(branch.len()),
            folds: Vec::new(),
            bifurcations: Vec::new(),
            transitions: 0,
            unresolved: Vec::new(),
        };
        // The residual at rest scales the corrections that locate bifurcations.
        let rest = self
            .hb
            .residual(&DVector::zeros(self.hb.dim()), self.range.0)
            .norm();
        let mut last_count: Option<Unstable> = None;
        let mut last_states: Option<Vec<_>> = None;
        for (index, pt) in branch.iter().enumerate() {
            let mut row = vec![Cell::Num(pt.p), true.into()];
            // An unresolved point is drawn as stable, its `stable` cell left empty, and no
            // bifurcation is read across it.
            let count = self
                .unstable(&pt.x, pt.p)
                .map_err(|e| out.unresolved.push(e))
                .ok();
            let stable = count.is_none_or(|c| c == Unstable::default());
            for &i in self.reported {
                let coef = self.coefficients(&pt.x, i);
                row.push(Cell::Num(self.hb.aft.peak(&coef)));
                row.push(Cell::Num((-coef[2]).atan2(coef[1])));
                row.push(Cell::Num(coef[0].abs()));
                row.extend(
                    (1..=self.harmonics).map(|k| Cell::Num(coef[2 * k - 1].hypot(coef[2 * k]))),
                );
            }
            let max = self.peak(&pt.x);
            out.stable.push(stable);
            out.watched_curve.push((pt.p, max));
            row.push(count.map_or(Cell::Text(String::new()), |_| stable.into()));
            row.push(pt.fold.into());
            let kind = if pt.corner {
                Some("corner")
            } else {
                last_count
                    .zip(count)
                    .and_then(|(before, now)| before.change_to(now, pt.fold))
            };
            if let (Some(kind), Some(before)) = (kind, index.checked_sub(1).map(|j| &branch[j])) {
                let (omega, amplitude) = self.located(kind, before, pt, rest);
                if kind == "fold" || pt.corner && pt.fold {
                    out.folds
                        .push(json!({"Omega": omega, "amplitude": amplitude}));
                }
                out.bifurcations
                    .push(json!({"kind": kind, "Omega": omega, "amplitude": amplitude}));
            }
            row.push(Cell::Text(kind.unwrap_or("").into()));
            row.extend(self.element_cells(&pt.x, &mut last_states, &mut out.transitions));
            last_count = count;
            out.rows.push(row);
        }
        out
    }

    /// The elements' state cells at `x` and the regime changes since the states `last`
    /// (then replaced), counted in `transitions`; none where every element is smooth.
    fn element_cells(
        &self,
        x: &DVector<f64>,
        last: &mut Option<Vec<ElementState>>,
        transitions: &mut usize,
    ) -> Vec<Cell> {
        let states = self.hb.element_states(x);
        if states.iter().all(|s| *s == ElementState::Smooth) {
            return Vec::new();
        }
        let mut cells = element_states::cells(&states);
        let changed = last.as_ref().map_or_else(Vec::new, |before| {
            element_states::transitions(self.sys, before, &states)
        });
        *transitions += changed.len();
        cells.push(Cell::Text(changed.join("; ")));
        *last = Some(states);
        cells
    }

    /// Physical DOF `i`'s Fourier coefficients `[a0, a1, b1, …]` in the balance's unknowns
    /// `x` (on a reduced model, the row of `T` times each coefficient's block).
    fn coefficients(&self, x: &DVector<f64>, i: usize) -> Vec<f64> {
        let n = self.hb.dofs();
        let width = self.hb.aft.width();
        match self.basis {
            None => self.hb.dof_coefficients(x, i),
            Some(t) => (0..width)
                .map(|p| (0..n).map(|c| t[(i, c)] * x[p * n + c]).sum())
                .collect(),
        }
    }

    /// The watched DOF's largest displacement over the reconstructed period.
    fn peak(&self, x: &DVector<f64>) -> f64 {
        self.hb.aft.peak(&self.coefficients(x, self.watched))
    }

    /// The unstable Floquet exponents by kind (none when stability is off).
    fn unstable(&self, x: &DVector<f64>, p: f64) -> Result<Unstable, Unresolved> {
        let exponents = match &self.hill {
            Some(h) => h.exponents(x, p)?,
            None => Vec::new(),
        };
        Ok(Unstable::of(&exponents, p, STABILITY_TOL))
    }

    /// A bifurcation between two neighbouring points, located on the branch (bisection on
    /// the secant, `cont::locate`): the fold where the tangent's Ω component changes sign,
    /// the others where the unstable exponents' counts change; a corner at the point before
    /// it. Falls back on the point after. Returns `(Ω, watched peak)`.
    fn located(&self, kind: &str, a: &Point, b: &Point, rest: f64) -> (f64, f64) {
        if kind == "corner" {
            // `cont::cross_corner` stepped across it from `a`, within a few minimum steps.
            return (a.p, self.peak(&a.x));
        }
        let scale = Scale {
            x: a.x.amax().max(b.x.amax()).max(f64::MIN_POSITIVE),
            p: (self.range.1 - self.range.0).abs(),
            r: rest.max(f64::MIN_POSITIVE),
        };
        let state = |x: &DVector<f64>, p: f64, tangent_p: f64| {
            if kind == "fold" {
                (tangent_p > 0.0, Some(Unstable::default()))
            } else {
                (false, self.unstable(x, p).ok())
            }
        };
        locate(self.hb, (&a.x, a.p), (&b.x, b.p), scale, self.tol, state)
            .map_or_else(|| (b.p, self.peak(&b.x)), |(x, p)| (p, self.peak(&x)))
    }
}
