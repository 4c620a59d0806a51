//! Stability of a harmonic-balance solution by Hill's method: the Floquet exponents from the
//! quadratic eigenproblem of a perturbation, solved through its balanced companion matrix,
//! with the edge copies of negative multipliers removed; `Unstable` counts the unstable
//! exponents by kind and names the bifurcation between two neighbouring points. `Hill` picks
//! the method for a balance: the problem condensed onto the nonlinear DOFs (`reduced.rs`)
//! where the damping is proportional, else the full companion matrix.

use super::tolerances::{
    BALANCING_MAX_SWEEPS, BALANCING_RATIO, FLIP_ANGLE, MULTIPLIER_COPY_TOL, REAL_EXPONENT_TOL,
};
use super::Balance;
use nalgebra::{Complex, DMatrix, DVector};

mod centre;
mod receptance;
mod reduced;
mod roots;

/// Hill's method for one balance, set up once per branch (the modes of the condensed problem
/// are computed here, not per point).
pub struct Hill<'a> {
    hb: &'a Balance,
    reduced: Option<reduced::Reduced<'a>>,
    /// The most memory the full companion matrix may take, bytes.
    full_limit: f64,
}

impl<'a> Hill<'a> {
    /// Condensed onto the nonlinear DOFs when `reduced::Reduced` applies, else full.
    pub fn new(hb: &'a Balance) -> Hill<'a> {
        Hill {
            hb,
            reduced: reduced::Reduced::new(hb),
            full_limit: crate::MAX_REQUEST_BYTES,
        }
    }

    /// The same with the full companion matrix limited to `bytes` (`MAX_REQUEST_BYTES`
    /// unless set): past it a point the condensed problem does not resolve is `Unresolved`.
    pub fn with_full_limit(self, bytes: f64) -> Hill<'a> {
        Hill {
            full_limit: bytes,
            ..self
        }
    }

    /// Whether the exponents come from the condensed problem.
    pub fn is_condensed(&self) -> bool {
        self.reduced.is_some()
    }

    /// The `2n` Floquet exponents at a point, selected as `Balance::floquet` does: from the
    /// condensed problem (equal to the full matrix's, `reduced.rs`), or from the full matrix
    /// where it does not apply or does not pay at this point, unless that matrix is over
    /// the limit (`with_full_limit`; a 2,000-DOF beam at H = 5 would take 23 GB).
    pub fn exponents(&self, q: &DVector<f64>, omega: f64) -> Result<Vec<Complex<f64>>, Unresolved> {
        if let Some(found) = self.reduced.as_ref().and_then(|r| r.exponents(q, omega)) {
            return Ok(found);
        }
        let bytes = full_hill_bytes(self.hb.dim());
        if bytes > self.full_limit {
            return Err(Unresolved {
                omega,
                unknowns: self.hb.dim(),
                bytes,
                limit: self.full_limit,
            });
        }
        Ok(self.hb.floquet(q, omega))
    }
}

/// A point whose exponents are not known: the condensed problem did not resolve them (a
/// root not reached, or it does not apply or pay) and the full companion matrix is over the memory limit.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("at Ω = {omega} Hill's condensed problem does not resolve the exponents, and the full companion matrix of {unknowns} unknowns would need an estimated {} (the limit is {})", crate::bytes_text(*.bytes), crate::bytes_text(*.limit))]
pub struct Unresolved {
    pub omega: f64,
    pub unknowns: usize,
    pub bytes: f64,
    pub limit: f64,
}

/// Dense `dim × dim` matrices `Balance::floquet` holds at once on `dim` balance unknowns
/// (the damping-and-gyroscopic block `A₁`, the Jacobian and the `2·dim × 2·dim` companion
/// matrix: 1 + 1 + 4).
const FULL_HILL_MATRICES: f64 = 6.0;

/// The memory of Hill's full method on `dim` balance unknowns, bytes (the preflight's
/// estimate too).
pub fn full_hill_bytes(dim: usize) -> f64 {
    let dim = dim as f64;
    FULL_HILL_MATRICES * dim * dim * std::mem::size_of::<f64>() as f64
}

impl Balance {
    /// Floquet exponents by Hill's method: a perturbation `e^{st} Σ φ_p(θ) δ_p` of the
    /// periodic solution gives the quadratic eigenproblem
    /// `(s² M̄ + s (C̄ + 2ω M̄∇) + J(Q)) δ = 0` with `M̄ = I ⊗ M`, `C̄ = I ⊗ C`, `∇` the θ
    /// derivative on the coefficients (`(c_k, s_k) → (k s_k, −k c_k)`) and `J` the balance
    /// Jacobian; it is solved through its companion form. Of its `2n(2H + 1)` roots the `2n`
    /// with the smallest `|Im s|` are the physically meaningful exponents (the others repeat
    /// them shifted by multiples of iω and are spoiled by the truncation), less the growing
    /// ones whose eigenvectors are not centred (edge copies, `centre.rs`).
    pub fn floquet(&self, q: &DVector<f64>, omega: f64) -> Vec<Complex<f64>> {
        let (n, dim) = (self.n, self.dim());
        let mut a1 = DMatrix::zeros(dim, dim);
        for p in 0..self.aft.width() {
            a1.view_mut((p * n, p * n), (n, n)).copy_from(&self.c);
        }
        for k in 1..=self.aft.harmonics {
            let (c, s) = ((2 * k - 1) * n, 2 * k * n);
            let km = 2.0 * omega * k as f64 * &self.m;
            // Row c of M̄∇δ is M (k δ_s); row s is M (−k δ_c).
            a1.view_mut((c, s), (n, n)).copy_from(&km);
            a1.view_mut((s, c), (n, n)).copy_from(&(-km));
        }
        // `M̄⁻¹ = I ⊗ M⁻¹`: applied block row by block row, `(2H + 1)` times cheaper than
        // inverting and multiplying the whole `M̄`.
        let Some(m_inv) = self.m.clone().try_inverse() else {
            return vec![];
        };
        let jacobian = self.jacobian(q, omega);
        let mut companion = DMatrix::zeros(2 * dim, 2 * dim);
        companion
            .view_mut((0, dim), (dim, dim))
            .copy_from(&DMatrix::identity(dim, dim));
        for p in 0..self.aft.width() {
            let rows = p * n;
            companion
                .view_mut((dim + rows, 0), (n, dim))
                .copy_from(&(-&m_inv * jacobian.rows(rows, n)));
            companion
                .view_mut((dim + rows, dim), (n, dim))
                .copy_from(&(-&m_inv * a1.rows(rows, n)));
        }
        let mut roots: Vec<Complex<f64>> = balanced(companion)
            .complex_eigenvalues()
            .iter()
            .copied()
            .collect();
        roots.sort_by(|a, b| a.im.abs().total_cmp(&b.im.abs()));
        // The eigenvector of a (growing) root: the null vector of `s² M̄ + s A₁ + J`, formed
        // only for the roots examined.
        let centre = |s: Complex<f64>| {
            let mut pencil = a1.zip_map(&jacobian, |a, j| s * a + j);
            let ms = self.m.map(|m| Complex::new(m, 0.0) * s * s);
            for p in 0..self.aft.width() {
                let mut block = pencil.view_mut((p * n, p * n), (n, n));
                block += &ms;
            }
            let v = centre::null_vector(&pencil)?;
            centre::mean_harmonic(&centre::real_layout_weights(&v, n, self.aft.harmonics))
        };
        centre::without_edge_copies(physical(roots, 2 * n, omega), centre)
    }

    /// Stable when every meaningful Floquet exponent has `Re s < tol · (|s| + ω)`: relative,
    /// because the companion eigenproblem of a stiff structure (beam modes up to 1e6 rad/s
    /// next to a first one of 1e3) carries round-off of `ε ‖A‖` in the real parts.
    pub fn is_stable(&self, q: &DVector<f64>, omega: f64, tol: f64) -> bool {
        !self.floquet(q, omega).iter().any(|s| grows(s, omega, tol))
    }
}

/// Whether a Floquet exponent makes perturbations grow: `Re s ≥ tol · (|s| + ω)` (the rule
/// of `Balance::is_stable`).
pub fn grows(s: &Complex<f64>, omega: f64, tol: f64) -> bool {
    s.re >= tol * (s.norm() + omega)
}

/// The `count` physically meaningful exponents among Hill's roots sorted by `|Im s|`. A
/// multiplier on the negative real axis (`e^{sT} < 0`: `Im s = ±ω/2`) appears twice at the
/// same `|Im s|`, as `a + iω/2` and its shifted copy `a − iω/2` (with the truncation's noise
/// on both): a root whose multiplier an already kept root of opposite `Im` sign has, with
/// `|Im|` summing to ω, is such a copy and skipped (`MULTIPLIER_COPY_TOL`).
/// Otherwise a tie in `|Im s|` picks one multiplier twice and drops another, and a
/// period-doubling branch flickers between stable and unstable.
fn physical(sorted: Vec<Complex<f64>>, count: usize, omega: f64) -> Vec<Complex<f64>> {
    let period = std::f64::consts::TAU / omega;
    let mut kept: Vec<Complex<f64>> = Vec::with_capacity(count);
    for s in sorted {
        if kept.len() == count {
            break;
        }
        let mu = (s * period).exp();
        let copy = kept.iter().any(|k| {
            k.im.signum() != s.im.signum()
                && (k.im.abs() + s.im.abs() - omega).abs() <= MULTIPLIER_COPY_TOL * omega
                && ((k * period).exp() - mu).norm() <= MULTIPLIER_COPY_TOL * mu.norm()
        });
        if !copy {
            kept.push(s);
        }
    }
    kept
}

/// The unstable Floquet exponents of a point by kind: real (`Im s ≈ 0`: fold or branch
/// point), with a multiplier `e^{sT}` on the negative real axis (period doubling) and
/// complex otherwise (Neimark–Sacker), with
/// `grows` at `tol` deciding what is unstable; and what crossed between two points.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unstable {
    real: usize,
    flip: usize,
    complex: usize,
}

impl Unstable {
    /// The unstable ones among a point's Floquet `exponents` at ω, by kind.
    pub fn of(exponents: &[Complex<f64>], omega: f64, tol: f64) -> Unstable {
        let mut u = Unstable::default();
        let period = std::f64::consts::TAU / omega;
        for s in exponents.iter().filter(|s| grows(s, omega, tol)) {
            let real_band = REAL_EXPONENT_TOL * (s.norm() + omega);
            // The multiplier decides: one on the negative real axis is a period doubling.
            let multiplier = (s * period).exp();
            if s.im.abs() <= real_band {
                u.real += 1;
            } else if multiplier.im.atan2(multiplier.re).abs() >= std::f64::consts::PI - FLIP_ANGLE
            {
                u.flip += 1;
            } else {
                u.complex += 1;
            }
        }
        u
    }

    /// What crossed the imaginary axis between two neighbouring points. Where the branch
    /// turned (`fold`) it is a fold whatever the exponents show (a complex pair crossing in
    /// the same interval would otherwise hide it); a real crossing without a turn is a
    /// branch point.
    pub fn change_to(self, next: Unstable, fold: bool) -> Option<&'static str> {
        if fold {
            Some("fold")
        } else if self.real != next.real {
            Some("branch point")
        } else if self.flip != next.flip {
            Some("period doubling")
        } else if self.complex != next.complex {
            Some("Neimark-Sacker")
        } else {
            None
        }
    }
}

/// A diagonal similarity `D⁻¹AD` (powers of two, so exact) that equalises the norms of each
/// row and column (Osborne's balancing, as LAPACK's `gebal`): a beam's companion matrix has
/// entries from 1 to 1e16 (translations next to rotations with tiny inertia), and without
/// it the eigenvalues' real parts drown in round-off of `ε ‖A‖`.
fn balanced(mut a: DMatrix<f64>) -> DMatrix<f64> {
    let n = a.nrows();
    for _ in 0..BALANCING_MAX_SWEEPS {
        let mut done = true;
        for i in 0..n {
            let c: f64 = (0..n).filter(|&j| j != i).map(|j| a[(j, i)].abs()).sum();
            let r: f64 = (0..n).filter(|&j| j != i).map(|j| a[(i, j)].abs()).sum();
            if c == 0.0 || r == 0.0 {
                continue;
            }
            let (mut f, mut cf, mut rf) = (1.0, c, r);
            while cf < rf / 2.0 {
                (cf, rf, f) = (cf * 2.0, rf / 2.0, f * 2.0);
            }
            while cf > rf * 2.0 {
                (cf, rf, f) = (cf / 2.0, rf * 2.0, f / 2.0);
            }
            if cf + rf < BALANCING_RATIO * (c + r) {
                done = false;
                a.row_mut(i).scale_mut(1.0 / f);
                a.column_mut(i).scale_mut(f);
            }
        }
        if done {
            break;
        }
    }
    a
}
