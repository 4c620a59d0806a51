//! The forms of the systems the backbones run on, full or condensed onto the kept DOFs: the
//! ridge's (`Form`: `ridge::Ridge`, `reduced::Reduced`; the stage-2 multipliers both solve
//! the same way) and the damped mode's (`ModeForm`: `dnnm::Mode`, `kept_mode::KeptMode`).

use super::start::Peak;
use super::{BackboneError, Settings};
use crate::cont::Problem;
use nalgebra::{DMatrix, DVector};

/// Singular values of the adjoint system below this fraction of the largest are treated as
/// zero in the least-squares multipliers (dimensionless).
const ADJOINT_RCOND: f64 = 1e-12;

/// A form of the ridge system the stages run on: on the full balance (`Ridge`) or
/// condensed onto the kept DOFs in receptance form (`reduced::Reduced`). Its unknowns are
/// `[Q/α (n); ω; λ (n)]` in its own coordinates.
pub(super) trait Form: Problem {
    /// The size of the response block (and of the multipliers').
    fn n(&self) -> usize;
    /// Stage 1: the response at `level` near its peak in `window`, in the form's
    /// coordinates, and the peak's index (`start::peak_of`).
    fn peak(&self, level: f64, window: (f64, f64), s: &Settings) -> Result<Peak, BackboneError>;
    /// Stage 2: the multipliers at a peak `(q, ω)` at `level` (`multipliers`).
    fn multipliers(&self, q: &DVector<f64>, omega: f64, level: f64) -> Option<DVector<f64>>;
    /// Every DOF's coefficients of a response in the form's coordinates.
    fn full(&self, q: &DVector<f64>, omega: f64, level: f64) -> DVector<f64>;
}

/// The multipliers at a peak of the response (stage 2): `λ` with `Jᵀλ = −∂Am/∂Q` and
/// `(∂R/∂ω)ᵀλ = 0`, consistent exactly at an extremum, in least squares near one; from
/// `Jᵀ`, `∂R/∂ω` and `∂Am/∂Q` of either form.
pub(super) fn multipliers(
    jt: &DMatrix<f64>,
    rate: &DVector<f64>,
    grad: &DVector<f64>,
) -> Option<DVector<f64>> {
    let n = jt.nrows();
    let mut a = DMatrix::zeros(n + 1, n);
    a.view_mut((0, 0), (n, n)).copy_from(jt);
    a.view_mut((n, 0), (1, n)).copy_from(&rate.transpose());
    let mut b = DVector::zeros(n + 1);
    b.rows_mut(0, n).copy_from(&-grad);
    let svd = a.svd(true, true);
    let eps = ADJOINT_RCOND * svd.singular_values.max();
    svd.solve(&b, eps).ok()
}

/// A form of the mode system: on the full balance (`Mode`) or condensed onto the kept DOFs
/// in receptance form (`KeptMode`). Its unknowns are `[ψ (n); ω; ξ]` in its own
/// coordinates.
pub(super) trait ModeForm: Problem {
    /// The size of ψ.
    fn n(&self) -> usize;
    /// The form's ψ of every DOF's `psi`.
    fn restrict(&self, psi: &DVector<f64>) -> DVector<f64>;
    /// Every DOF's coefficients `Q = aψ` of the mode `z` at modal amplitude `a`.
    fn full(&self, z: &DVector<f64>, a: f64) -> DVector<f64>;
    /// The frequency of the forced response's peak at `level` in `window`.
    fn peak_frequency(
        &self,
        level: f64,
        window: (f64, f64),
        s: &Settings,
    ) -> Result<f64, BackboneError>;
}
