//! A problem seen in variables and residuals scaled entry by entry, block by block: the
//! backbone systems mix displacements (1e-6 m), a frequency (1e3 rad/s), Lagrange
//! multipliers (1e-8 m/N) and a damping term, which one scalar scale (`Scale`) cannot
//! balance. Each block of unknowns is scaled by its largest entry at the start, each block of
//! equations by its largest Jacobian entry there (row equilibration), so that the
//! continuation's arclength and Newton's tolerance see every block.

use super::Problem;
use nalgebra::{DMatrix, DVector};
use std::ops::Range;

/// `pr` in the variables `x̃ = x ⊘ s_x` with the residual `R ⊘ s_r`.
pub(crate) struct Weighted<'a, P> {
    pr: &'a P,
    sx: DVector<f64>,
    sr: DVector<f64>,
}

impl<'a, P: Problem> Weighted<'a, P> {
    /// Scales for the `blocks` of unknowns and equations (the same ranges serve both: the
    /// systems here are square block by block) from the point `(x, p)`: a block's unknowns
    /// by their largest magnitude (1 if all vanish), its equations by their largest scaled
    /// Jacobian entry.
    pub(crate) fn equilibrated(
        pr: &'a P,
        x: &DVector<f64>,
        p: f64,
        blocks: &[Range<usize>],
    ) -> Self {
        let n = pr.dim();
        let mut sx = DVector::from_element(n, 1.0);
        for b in blocks {
            let size = x.rows(b.start, b.len()).amax();
            if size > 0.0 {
                sx.rows_mut(b.start, b.len()).fill(size);
            }
        }
        let j = pr.jacobian(x, p);
        let mut sr = DVector::from_element(n, 1.0);
        for b in blocks {
            let mut size: f64 = 0.0;
            for r in b.clone() {
                for c in 0..n {
                    size = size.max((j[(r, c)] * sx[c]).abs());
                }
            }
            if size > 0.0 {
                sr.rows_mut(b.start, b.len()).fill(size);
            }
        }
        Weighted { pr, sx, sr }
    }

    /// The scaled form of unknowns `x`.
    pub(crate) fn scaled(&self, x: &DVector<f64>) -> DVector<f64> {
        x.component_div(&self.sx)
    }

    /// The unknowns of scaled `x̃`.
    pub(crate) fn unscaled(&self, x: &DVector<f64>) -> DVector<f64> {
        x.component_mul(&self.sx)
    }
}

impl<P: Problem> Problem for Weighted<'_, P> {
    fn dim(&self) -> usize {
        self.pr.dim()
    }

    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        self.pr
            .residual(&self.unscaled(x), p)
            .component_div(&self.sr)
    }

    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let mut j = self.pr.jacobian(&self.unscaled(x), p);
        for c in 0..j.ncols() {
            for r in 0..j.nrows() {
                j[(r, c)] *= self.sx[c] / self.sr[r];
            }
        }
        j
    }

    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        self.pr
            .param_derivative(&self.unscaled(x), p)
            .component_div(&self.sr)
    }

    /// The inner problem's system in `y = d_x ⊙ s_x`: `J y + R_p d_p = s_r ⊙ r`,
    /// `(b ⊘ s_x)ᵀ y + β d_p = a` (`p` is not scaled).
    fn solve_bordered(
        &self,
        x: &DVector<f64>,
        p: f64,
        (b, beta): (&DVector<f64>, f64),
        rhs: &DVector<f64>,
    ) -> Option<DVector<f64>> {
        let n = self.dim();
        let mut inner = rhs.clone();
        inner.rows_mut(0, n).component_mul_assign(&self.sr);
        let row = b.component_div(&self.sx);
        let mut d = self
            .pr
            .solve_bordered(&self.unscaled(x), p, (&row, beta), &inner)?;
        d.rows_mut(0, n).component_div_assign(&self.sx);
        Some(d)
    }
}
