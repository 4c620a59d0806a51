//! Phase resonance (paper 003, Sect. 2.3): the forced response whose fundamental at the
//! excited DOF is in quadrature with the force (eqs. 13–15), continued in the level. For the
//! force `F_c cos θ + F_s sin θ` at that DOF the condition is `F_c Q_c + F_s Q_s = 0` (eq. 15
//! when `F_s = 0`). Unknowns `[Q/α; ω]` as the ridge's; the start is the quadrature crossing
//! of the response at the first level nearest its peak.

use super::start::{frequency_response as response, peak};
use super::{along, within, BackboneError, Curve, Forced, Point, Settings};
use crate::cont::{follow, newton, Problem, Weighted};
use crate::hb::Operator;
use nalgebra::{DMatrix, DVector};

/// The phase-resonance system in `[Q/α (N); ω]`, equations `[R/α; quadrature]`.
struct Quadrature<'a> {
    f: &'a Forced<'a>,
    /// The force's fundamental at the excited DOF, `(F_c, F_s)` over its magnitude, and
    /// where that DOF's `c₁`, `s₁` sit.
    phase: (f64, f64),
    slots: (usize, usize),
}

impl<'a> Quadrature<'a> {
    fn new(f: &'a Forced<'a>) -> Quadrature<'a> {
        let n = f.hb.dofs();
        let slots = (n + f.excited, 2 * n + f.excited);
        let (c, s) = (f.load()[slots.0], f.load()[slots.1]);
        let size = c.hypot(s);
        Quadrature {
            f,
            phase: (c / size, s / size),
            slots,
        }
    }

    /// `F_c Q_c + F_s Q_s` (normalised) of `q`.
    fn in_phase(&self, q: &DVector<f64>) -> f64 {
        self.phase.0 * q[self.slots.0] + self.phase.1 * q[self.slots.1]
    }
}

impl Problem for Quadrature<'_> {
    fn dim(&self) -> usize {
        self.f.dim() + 1
    }

    fn residual(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a) = (self.f.dim(), self.f.level(p));
        let q = z.rows(0, n) * a;
        let mut r = DVector::zeros(n + 1);
        r.rows_mut(0, n)
            .copy_from(&(self.f.residual(&q, z[n], a) / a));
        r[n] = self.in_phase(&z.rows(0, n).into_owned());
        r
    }

    fn jacobian(&self, z: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let (n, a) = (self.f.dim(), self.f.level(p));
        let qt = z.rows(0, n).into_owned();
        let mut out = DMatrix::zeros(n + 1, n + 1);
        out.view_mut((0, 0), (n, n))
            .copy_from(&self.f.jacobian(&(&qt * a), z[n]));
        out.view_mut((0, n), (n, 1))
            .copy_from(&self.f.hb.apply(Operator::Rate, &qt, z[n]));
        out[(n, self.slots.0)] = self.phase.0;
        out[(n, self.slots.1)] = self.phase.1;
        out
    }

    /// `∂(R/α)/∂p = g(−R/α + J Q̃ − F_h)`, `g = (dα/dp)/α` (as the ridge's).
    fn param_derivative(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a, g) = (self.f.dim(), self.f.level(p), self.f.rate(p));
        let qt = z.rows(0, n).into_owned();
        let q = &qt * a;
        let r1 = self.f.residual(&q, z[n], a) / a;
        let mut d = DVector::zeros(n + 1);
        d.rows_mut(0, n)
            .copy_from(&((-r1 + self.f.jacobian(&q, z[n]) * &qt - self.f.load()) * g));
        d
    }
}

/// The phase-resonance backbone over `s.levels`.
pub fn phase_resonance(f: &Forced, s: &Settings) -> Result<Curve, BackboneError> {
    let pr = Quadrature::new(f);
    let n = f.dim();
    let (p0, p_end) = (f.param(s.levels.0), f.param(s.levels.1));
    let level = s.levels.0;
    let frc = response(f, level, s.window, s)?;
    let top = peak(f, &frc, level)?;
    // The quadrature crossing nearest the peak, else the peak itself.
    let sign = |i: usize| pr.in_phase(&frc[i].0).signum();
    let start = (0..frc.len() - 1)
        .filter(|&i| sign(i) != sign(i + 1))
        .min_by_key(|&i| i.abs_diff(top))
        .unwrap_or(top);
    let mut z = DVector::zeros(n + 1);
    z.rows_mut(0, n).copy_from(&(&frc[start].0 / level));
    z[n] = frc[start].1;
    let blocks = [0..n, n..n + 1];
    let weighted = Weighted::equilibrated(&pr, &z, p0, &blocks);
    let (zs, _) = newton(&weighted, weighted.scaled(&z), p0, s.tol).ok_or_else(|| {
        BackboneError::Newton(format!(
            "no quadrature point near the peak at level {level:e}"
        ))
    })?;
    let settings = along(s, (p0, p_end));
    let branch =
        follow(&weighted, zs, p0, &settings).map_err(|e| BackboneError::Newton(e.to_string()))?;
    let points = within(&weighted, &branch, (p0, p_end), s.tol)
        .into_iter()
        .map(|(z, at)| {
            let level = f.level(at);
            Point {
                q: z.rows(0, n) * level,
                omega: z[n],
                level,
                stage: 3,
                segment: 0,
                xi: None,
            }
        })
        .collect();
    Ok(Curve {
        points,
        stopped: branch.stopped.as_ref().map(ToString::to_string),
    })
}
