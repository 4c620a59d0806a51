//! Linear natural frequencies and mass-normalised mode shapes of an assembled system, with
//! its contacts `open` (nonsmooth elements removed) or `stuck` (friction replaced by its
//! stiffness or by a rigid tie, gaps with a stiffness closed).
//!
//! Small systems (≤ `DENSE_LIMIT` DOFs) get every mode from a dense solve; larger ones the
//! lowest few by shift-invert Lanczos on the sparse matrices.

pub(crate) mod dense;
mod lanczos;
mod tolerances;

use nalgebra::DMatrix;
use nsd_model::flat::{ContactLaw, Friction};
use nsd_model::system::{Attach, Nonlinearity, System};
use sprs::{CsMat, TriMat};
use tolerances::{DEFAULT_SPARSE_COUNT, RIGID_BODY_TOL};

/// The most DOFs solved densely, giving every mode (DOFs). The dense solve costs `O(n³)`
/// time and `O(n²)` memory whatever the sparsity, which is negligible for the lumped models
/// of this size; above it the lowest modes come from shift-invert Lanczos on the sparse
/// matrices (one sparse factorisation), and only those are computed.
pub const DENSE_LIMIT: usize = 200;

/// Relative residual above which a mode is reported as not converged (the sparse solver's
/// acceptance tolerance).
const RESIDUAL_LIMIT: f64 = tolerances::RITZ_TOL;

/// How nonsmooth elements enter the linear problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contacts {
    Open,
    Stuck,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Modes {
    /// Natural frequencies ω, rad/s, ascending (negative eigenvalues from round-off are clamped to 0).
    pub omega: Vec<f64>,
    /// Mass-normalised shapes, one column per mode, in the system's DOF order.
    pub shapes: DMatrix<f64>,
    /// Relative residual estimate of each pair: 0 from the dense solver (exact to
    /// round-off); from the sparse one, above `RESIDUAL_LIMIT` when its budget ran out first.
    pub residual: Vec<f64>,
    /// Solved by the dense eigensolver (the problem, after ties, had at most `DENSE_LIMIT`
    /// coordinates), else by shift-invert Lanczos.
    pub dense: bool,
}

impl Modes {
    /// Modes at ω ≈ 0 (below `RIGID_BODY_TOL` of the highest computed frequency): rigid-body
    /// motions.
    pub fn rigid_body_modes(&self) -> usize {
        let top = self.omega.iter().copied().fold(0.0, f64::max);
        self.omega
            .iter()
            .filter(|w| **w <= RIGID_BODY_TOL * top)
            .count()
    }

    /// The modes whose residual is above `RESIDUAL_LIMIT` (1-based, ascending).
    pub fn unconverged(&self) -> Vec<usize> {
        (1..=self.residual.len())
            .filter(|&i| self.residual[i - 1] > RESIDUAL_LIMIT)
            .collect()
    }

    fn from_eigenvalues(
        lambdas: Vec<f64>,
        shapes: DMatrix<f64>,
        residual: Vec<f64>,
        dense: bool,
    ) -> Modes {
        Modes {
            omega: lambdas.iter().map(|l| l.max(0.0).sqrt()).collect(),
            shapes,
            residual,
            dense,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModesError {
    #[error("the mass matrix is singular: some DOF carries no mass")]
    SingularMass,
    #[error("the eigensolver did not converge in {steps} Lanczos steps")]
    NotConverged { steps: usize },
}

/// The lowest `count` modes (all of them for small systems when `count` is `None`).
pub fn modes(sys: &System, contacts: Contacts, count: Option<usize>) -> Result<Modes, ModesError> {
    let (m, k, tie) = linear_problem(sys, contacts);
    let n = m.rows();
    if n == 0 {
        return Ok(Modes {
            omega: vec![],
            shapes: DMatrix::zeros(sys.n(), 0),
            residual: vec![],
            dense: true,
        });
    }
    let reduced = of_pencil(&m, &k, count)?;
    // Expand tied coordinates back to every DOF.
    let mut shapes = DMatrix::zeros(sys.n(), reduced.omega.len());
    for (dof, slot) in tie.iter().enumerate() {
        if let Some(r) = slot {
            shapes.set_row(dof, &reduced.shapes.row(*r));
        }
    }
    Ok(Modes {
        omega: reduced.omega,
        shapes,
        residual: reduced.residual,
        dense: reduced.dense,
    })
}

/// The lowest `count` modes of the pencil `(M, K)` given as matrices (every mode of a small
/// one when `count` is `None`): dense up to `DENSE_LIMIT` rows, else shift-invert Lanczos.
pub(crate) fn of_pencil(
    m: &CsMat<f64>,
    k: &CsMat<f64>,
    count: Option<usize>,
) -> Result<Modes, ModesError> {
    let n = m.rows();
    if n > DENSE_LIMIT {
        return lanczos::solve(m, k, count.unwrap_or(DEFAULT_SPARSE_COUNT));
    }
    let mut r = dense::solve(&dense_of(m), &dense_of(k))?;
    if let Some(c) = count.filter(|c| *c < n) {
        r.omega.truncate(c);
        r.shapes = r.shapes.columns(0, c).into_owned();
        r.residual.truncate(c);
    }
    Ok(r)
}

/// Adds the stiffness `block` acting on the relative displacement `x_a − x_b` of two
/// attachment lists (supports contribute nothing).
fn couple(extra: &mut TriMat<f64>, a: &[Attach], b: &[Attach], block: &[Vec<f64>]) {
    for (p, q) in [(a, b), (b, a)] {
        for (r, row) in block.iter().enumerate() {
            let Some(Attach::Dof(i)) = p.get(r) else {
                continue;
            };
            for (col, v) in row.iter().enumerate() {
                if let Some(Attach::Dof(j)) = p.get(col) {
                    extra.add_triplet(*i, *j, *v);
                }
                if let Some(Attach::Dof(j)) = q.get(col) {
                    extra.add_triplet(*i, *j, -*v);
                }
            }
        }
    }
}

/// A dense copy of a sparse matrix (duplicate entries summed).
pub fn dense_of(a: &CsMat<f64>) -> DMatrix<f64> {
    let mut d = DMatrix::zeros(a.rows(), a.cols());
    for (v, (i, j)) in a.iter() {
        d[(i, j)] += *v;
    }
    d
}

/// M and K of the linear problem, reduced by rigid ties; `tie[dof]` is the reduced
/// coordinate of each DOF (`None` when tied to a support).
fn linear_problem(
    sys: &System,
    contacts: Contacts,
) -> (CsMat<f64>, CsMat<f64>, Vec<Option<usize>>) {
    let n = sys.n();
    let mut extra = TriMat::new((n, n));
    // Union–find over DOFs plus one "support" slot n.
    let mut parent: Vec<usize> = (0..=n).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let slot = |a: Attach| match a {
        Attach::Dof(i) => i,
        Attach::Ground | Attach::Base(_) => n,
    };
    if contacts == Contacts::Stuck {
        for el in &sys.nonlinear {
            match &el.law {
                Nonlinearity::Gap(g) => match g.law {
                    ContactLaw::Linear { k } | ContactLaw::KelvinVoigt { k, .. } => {
                        couple(&mut extra, &el.a, &el.b, &[vec![k]])
                    }
                    _ => {}
                },
                Nonlinearity::Friction(Friction::Jenkins { kt, .. }) => {
                    couple(&mut extra, &el.a, &el.b, &[vec![*kt]])
                }
                Nonlinearity::Friction(Friction::Contact2d { kt, kn, angle, .. }) => {
                    // Stuck: kt along the contact tangent t = (cos α, sin α) and kn along the
                    // normal n = (−sin α, cos α), in the plane of the element's two directions.
                    let (c, s) = (angle.cos(), angle.sin());
                    let block = [
                        vec![kt * c * c + kn * s * s, (kt - kn) * c * s],
                        vec![(kt - kn) * c * s, kt * s * s + kn * c * c],
                    ];
                    couple(&mut extra, &el.a, &el.b, &block);
                }
                Nonlinearity::Friction(Friction::Coulomb { .. }) => {
                    let (ra, rb) = (
                        find(&mut parent, slot(el.a[0])),
                        find(&mut parent, slot(el.b[0])),
                    );
                    // Keep the support slot as the root so that "tied to ground" is easy to read.
                    if ra != rb {
                        if ra == n {
                            parent[rb] = ra;
                        } else {
                            parent[ra] = rb;
                        }
                    }
                }
                Nonlinearity::Polynomial { .. } => {}
            }
        }
    }
    let mut tie = vec![None; n];
    let mut next = 0;
    let mut root_slot = vec![None; n + 1];
    for (dof, t) in tie.iter_mut().enumerate() {
        let r = find(&mut parent, dof);
        if r == n {
            continue;
        }
        *t = Some(*root_slot[r].get_or_insert_with(|| {
            next += 1;
            next - 1
        }));
    }
    let k_full: CsMat<f64> = &sys.k + &extra.to_csr();
    let reduce = |a: &CsMat<f64>| -> CsMat<f64> {
        let mut t = TriMat::new((next, next));
        for (v, (i, j)) in a.iter() {
            if let (Some(r), Some(c)) = (tie[i], tie[j]) {
                t.add_triplet(r, c, *v);
            }
        }
        t.to_csr()
    };
    (reduce(&sys.m), reduce(&k_full), tie)
}
