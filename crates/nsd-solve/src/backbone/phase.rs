//! Phase resonance (paper 003, Sect. 2.3): the forced response whose fundamental at the
//! excited DOF is in quadrature with the force (eqs. 13–15), continued in the level. For the
//! force `F_c cos θ + F_s sin θ` at that DOF the condition is `F_c Q_c + F_s Q_s = 0` (eq. 15
//! when `F_s = 0`). Unknowns `[Q/α; ω]` as the ridge's; the start is the quadrature crossing
//! of the response at the first level nearest its peak.

use super::form::Form;
use super::reduced::Reduced;
use super::ridge::Route;
use super::start::{frequency_response as response, peak, Peak};
use super::{along, within, BackboneError, Curve, Forced, Point, Settings};
use crate::cont::{follow, newton, Problem, Weighted};
use crate::hb::Operator;
use nalgebra::{DMatrix, DVector};

/// The quadrature condition `F_c Q_c + F_s Q_s = 0` at the excited DOF, in some layout of
/// the coefficients.
#[derive(Debug, Clone, Copy)]
struct Condition {
    /// The force's fundamental at the excited DOF, `(F_c, F_s)` over its magnitude.
    phase: (f64, f64),
    /// Where that DOF's `c₁`, `s₁` sit.
    slots: (usize, usize),
}

impl Condition {
    /// `F_c Q_c + F_s Q_s` (normalised) of `q`.
    fn of(&self, q: &DVector<f64>) -> f64 {
        self.phase.0 * q[self.slots.0] + self.phase.1 * q[self.slots.1]
    }

    /// Its gradient as row `row` of a Jacobian.
    fn write(&self, out: &mut DMatrix<f64>, row: usize) {
        out[(row, self.slots.0)] = self.phase.0;
        out[(row, self.slots.1)] = self.phase.1;
    }
}

/// The phase-resonance system in `[Q/α (N); ω]`, equations `[R/α; quadrature]`.
struct Quadrature<'a> {
    f: &'a Forced<'a>,
    condition: Condition,
}

impl<'a> Quadrature<'a> {
    fn new(f: &'a Forced<'a>) -> Quadrature<'a> {
        let n = f.hb.dofs();
        let slots = (n + f.excited, 2 * n + f.excited);
        let (c, s) = (f.load()[slots.0], f.load()[slots.1]);
        let size = c.hypot(s);
        Quadrature {
            f,
            condition: Condition {
                phase: (c / size, s / size),
                slots,
            },
        }
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
        r[n] = self.condition.of(&z.rows(0, n).into_owned());
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
        self.condition.write(&mut out, n);
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

/// A form of the phase-resonance system: on the full balance (`Quadrature`) or condensed
/// onto the kept DOFs in receptance form (`KeptQuadrature`); unknowns `[Q/α (n); ω]` in its
/// own coordinates.
trait QuadratureForm: Problem {
    /// The size of the response block.
    fn n(&self) -> usize;
    /// The quadrature condition in the form's coordinates.
    fn condition(&self) -> Condition;
    /// The response at `level` over `window` in the form's coordinates, and its peak.
    fn response(&self, level: f64, window: (f64, f64), s: &Settings)
        -> Result<Peak, BackboneError>;
    /// Every DOF's coefficients of a response `q` in the form's coordinates.
    fn full(&self, q: &DVector<f64>, omega: f64, level: f64) -> DVector<f64>;
}

impl QuadratureForm for Quadrature<'_> {
    fn n(&self) -> usize {
        self.f.dim()
    }
    fn condition(&self) -> Condition {
        self.condition
    }
    fn response(
        &self,
        level: f64,
        window: (f64, f64),
        s: &Settings,
    ) -> Result<Peak, BackboneError> {
        let frc = response(self.f, level, window, s)?;
        let top = peak(self.f, &frc, level)?;
        Ok((frc, top))
    }
    fn full(&self, q: &DVector<f64>, _omega: f64, _level: f64) -> DVector<f64> {
        q.clone()
    }
}

/// The phase-resonance system condensed onto the nonlinear, monitored and excited DOFs in
/// receptance form (as the ridge's, `reduced.rs`): `[Q̃ + H F_nl(αQ̃)/α − U_c/α − U_h;
/// F_c Q̃_c + F_s Q̃_s]`, `∂/∂Q̃ = I + H J_nl`, `∂/∂ω = H' F_nl/α − U_c'/α − U_h'`.
struct KeptQuadrature<'r, 'a> {
    r: &'r Reduced<'a>,
    /// The condition with the excited DOF's `c₁`, `s₁` in the kept layout.
    condition: Condition,
}

impl<'r, 'a> KeptQuadrature<'r, 'a> {
    /// `None` unless the excited DOF is kept.
    fn new(r: &'r Reduced<'a>) -> Option<KeptQuadrature<'r, 'a>> {
        let kept = r.rec.kept();
        let at = kept.binary_search(&r.f.excited).ok()?;
        let nc = kept.len();
        Some(KeptQuadrature {
            condition: Condition {
                slots: (nc + at, 2 * nc + at),
                ..Quadrature::new(r.f).condition
            },
            r,
        })
    }
}

impl Problem for KeptQuadrature<'_, '_> {
    fn dim(&self) -> usize {
        self.r.rec.dim() + 1
    }

    fn residual(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a) = (self.r.rec.dim(), self.r.f.level(p));
        let qt = z.rows(0, n).into_owned();
        let (fnl, _) = self.r.nonlinear(&(&qt * a), z[n]);
        let mut r = DVector::zeros(n + 1);
        r.rows_mut(0, n)
            .copy_from(&(&qt + self.r.linear(&fnl, z[n], 0, a)));
        r[n] = self.condition.of(&qt);
        r
    }

    fn jacobian(&self, z: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let (n, a) = (self.r.rec.dim(), self.r.f.level(p));
        let qt = z.rows(0, n).into_owned();
        let (fnl, jnl) = self.r.nonlinear(&(&qt * a), z[n]);
        let mut out = DMatrix::zeros(n + 1, n + 1);
        out.view_mut((0, 0), (n, n))
            .copy_from(&(DMatrix::identity(n, n) + &*self.r.rec.matrix(z[n], 0) * jnl));
        out.view_mut((0, n), (n, 1))
            .copy_from(&self.r.linear(&fnl, z[n], 1, a));
        self.condition.write(&mut out, n);
        out
    }

    /// `g (H (J_nl Q̃ − F_nl/α) + U_c/α)`, `g = (dα/dp)/α` (as `Reduced`'s).
    fn param_derivative(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a, g) = (self.r.rec.dim(), self.r.f.level(p), self.r.f.rate(p));
        let qt = z.rows(0, n).into_owned();
        let (fnl, jnl) = self.r.nonlinear(&(&qt * a), z[n]);
        let rec = &self.r.rec;
        let h = &*rec.matrix(z[n], 0);
        let moved = h * (jnl * &qt) - (h * &fnl - rec.response(&self.r.fixed, z[n], 0)) / a;
        let mut d = DVector::zeros(n + 1);
        d.rows_mut(0, n).copy_from(&(moved * g));
        d
    }
}

impl QuadratureForm for KeptQuadrature<'_, '_> {
    fn n(&self) -> usize {
        self.r.rec.dim()
    }
    fn condition(&self) -> Condition {
        self.condition
    }
    fn response(
        &self,
        level: f64,
        window: (f64, f64),
        s: &Settings,
    ) -> Result<Peak, BackboneError> {
        self.r.peak(level, window, s)
    }
    fn full(&self, q: &DVector<f64>, omega: f64, level: f64) -> DVector<f64> {
        self.r.full(q, omega, level)
    }
}

/// The phase-resonance backbone over `s.levels`, condensed where it applies
/// (`Route::Condensed`, with the excited DOF among the kept ones).
pub fn phase_resonance(f: &Forced, s: &Settings) -> Result<Curve, BackboneError> {
    phase_resonance_by(f, s, Route::Condensed)
}

/// `phase_resonance` by `route`.
pub(crate) fn phase_resonance_by(
    f: &Forced,
    s: &Settings,
    route: Route,
) -> Result<Curve, BackboneError> {
    let reduced = (route == Route::Condensed)
        .then(|| Reduced::new(f))
        .flatten();
    match reduced.as_ref().and_then(KeptQuadrature::new) {
        Some(kept) => traced(f, s, &kept),
        None => traced(f, s, &Quadrature::new(f)),
    }
}

/// The phase-resonance backbone on the system `pr` (`phase_resonance`).
fn traced<Q: QuadratureForm>(f: &Forced, s: &Settings, pr: &Q) -> Result<Curve, BackboneError> {
    let n = pr.n();
    let (p0, p_end) = (f.param(s.levels.0), f.param(s.levels.1));
    let level = s.levels.0;
    let (frc, top) = pr.response(level, s.window, s)?;
    // The quadrature crossing nearest the peak, else the peak itself.
    let sign = |i: usize| pr.condition().of(&frc[i].0).signum();
    let start = (0..frc.len() - 1)
        .filter(|&i| sign(i) != sign(i + 1))
        .min_by_key(|&i| i.abs_diff(top))
        .unwrap_or(top);
    let mut z = DVector::zeros(n + 1);
    z.rows_mut(0, n).copy_from(&(&frc[start].0 / level));
    z[n] = frc[start].1;
    let blocks = [0..n, n..n + 1];
    let weighted = Weighted::equilibrated(pr, &z, p0, &blocks);
    let (zs, _) = newton(&weighted, weighted.scaled(&z), p0, s.tol).ok_or_else(|| {
        BackboneError::Newton(format!(
            "no quadrature point near the peak at level {level:e}"
        ))
    })?;
    // The first point is reported: polished to round-off (Newton stopped at `tol` on the
    // residual, which left 7.6e-7 in the cantilever's coefficients), where that converges.
    let zs = newton(&weighted, zs.clone(), p0, 0.0).map_or(zs, |(z, _)| z);
    let settings = along(s, (p0, p_end));
    let branch =
        follow(&weighted, zs, p0, &settings).map_err(|e| BackboneError::Newton(e.to_string()))?;
    let points = within(&weighted, &branch, (p0, p_end), s.tol)
        .into_iter()
        .map(|(z, at)| {
            let level = f.level(at);
            Point {
                q: pr.full(&(z.rows(0, n) * level), z[n], level),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backbone::fixtures::{cantilever, forced, settings};

    /// Points of the condensed phase-resonance backbone solved again by Newton on the full
    /// system at their level stay where they are: ω and the kept coefficients to 1e-9 (measured
    /// 2e-11), every DOF's to 1e-5 of the largest (measured 7.6e-7 at level 1e-4: the full
    /// balance's own forward error, its conditioning ω_max²/ω₁² ≈ 1e9 times round-off; the
    /// expansion's modal coordinates are each exact to round-off).
    #[test]
    fn condensed_quadrature_points_solve_the_full_system() {
        let hb = cantilever();
        let f = forced(&hb);
        let s = settings(1e4);
        let reduced = Reduced::new(&f).expect("condenses");
        assert!(KeptQuadrature::new(&reduced).is_some(), "the tip is kept");
        let curve = phase_resonance_by(&f, &s, Route::Condensed).expect("phase resonance");
        assert_eq!(curve.stopped, None);
        let full = Quadrature::new(&f);
        let n = f.dim();
        let mut checked = 0;
        for pt in curve.points.iter().step_by(4) {
            let mut z = DVector::zeros(n + 1);
            z.rows_mut(0, n).copy_from(&(&pt.q / pt.level));
            z[n] = pt.omega;
            let p = f.param(pt.level);
            let weighted = Weighted::equilibrated(&full, &z, p, &[0..n, n..n + 1]);
            let (zs, _) = newton(&weighted, weighted.scaled(&z), p, 1e-10)
                .expect("the full system converges");
            let zf = weighted.unscaled(&zs);
            assert!(
                (zf[n] - pt.omega).abs() <= 1e-9 * pt.omega,
                "ω {} vs {}",
                pt.omega,
                zf[n]
            );
            let polished = zf.rows(0, n) * pt.level;
            let (kept, kept_full) = (reduced.rec.restrict(&pt.q), reduced.rec.restrict(&polished));
            let moved = (&kept_full - &kept).amax() / kept.amax();
            assert!(moved <= 1e-9, "level {}: kept moved by {moved:e}", pt.level);
            let moved = (&polished - &pt.q).amax() / pt.q.amax();
            assert!(moved <= 1e-5, "level {}: moved by {moved:e}", pt.level);
            checked += 1;
        }
        assert!(checked >= 10, "{checked} points");
    }
}
