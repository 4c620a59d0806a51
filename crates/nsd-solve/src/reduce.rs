//! Model reduction by Craig–Bampton: the DOFs where something nonlinear or external acts (the
//! contacts, the loads, the base couplings, and any the analysis asks to keep) stay physical;
//! the interior is replaced by its static response to them and by its lowest fixed-interface
//! modes.
//!
//! With the DOFs split into kept `b` and interior `i`, `x = T q`,
//!
//! `x_b = q_b`,  `x_i = Ψ q_b + Φ η`,  `Ψ = −K_ii⁻¹ K_ib`,  `K_ii Φ = M_ii Φ Λ`,
//!
//! and the reduced matrices are `Tᵀ M T`, `Tᵀ C T`, `Tᵀ K T` (Craig and Bampton 1968). The
//! static constraint modes Ψ make the reduced model exact for loads on the kept DOFs at zero
//! frequency (the residual flexibility of the dropped modes is kept through them, not added
//! separately); the error grows as the frequencies of interest approach the first dropped
//! fixed-interface mode, which is reported with the highest kept one. The nonlinear elements,
//! loads and base inputs act on kept DOFs only, so they carry over unchanged (re-indexed).
//!
//! Cost: one sparse LDLᵀ of `K_ii` (reverse Cuthill–McKee), one solve per kept DOF, the lowest
//! `m + 1` modes of `(M_ii, K_ii)` (Lanczos above `modes::DENSE_LIMIT` DOFs) and
//! `O(nnz · r + n r²)` for the projections, `r` = kept DOFs + m.
//!
//! # References
//! R. R. Craig and M. C. C. Bampton, "Coupling of substructures for dynamic analyses", AIAA
//! Journal 6(7), 1968, 1313–1319.

use crate::modes::{self, Contacts, ModesError};
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};
use nsd_model::flat::{Dir, GROUND};
use nsd_model::system::{Attach, Dof, System};
use sprs::{CsMat, FillInReduction, SymmetryCheck, TriMat};

/// Off-diagonal entries of a projected matrix below this fraction of the geometric mean of
/// their diagonal entries are round-off of the projection (sums over n terms) and dropped
/// (dimensionless).
const ROUND_OFF_TOL: f64 = 1e-12;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReduceError {
    #[error(
        "reduction applies to the lumped and finite-element part; this model has rigid bodies"
    )]
    Multibody,
    #[error("every DOF is kept (contacts, loads, base couplings): there is no interior to reduce")]
    NothingToReduce,
    #[error("{asked} fixed-interface modes asked for, but the interior has {interior} DOFs")]
    TooManyModes { asked: usize, interior: usize },
    #[error("the interior is not held by the kept DOFs (its stiffness K_ii is singular or not positive definite): some part floats once the kept DOFs are fixed")]
    FloatingInterior,
    #[error("the fixed-interface modes: {0}")]
    Modes(#[from] ModesError),
    #[error("the fixed-interface modes {0:?} did not converge")]
    Unconverged(Vec<usize>),
}

/// A Craig–Bampton reduction of a `System` and the way back to the physical DOFs.
pub struct Reduced {
    /// The reduced system: the kept DOFs (same names, same elements), then one coordinate
    /// per fixed-interface mode, `cb1`, `cb2`, ….
    pub system: System,
    /// `T` (n × r): `x = T q`.
    pub basis: DMatrix<f64>,
    /// The physical index of each kept DOF, in the order of the reduced coordinates.
    pub kept: Vec<usize>,
    /// ω of the fixed-interface modes kept, rad/s, ascending.
    pub kept_omega: Vec<f64>,
    /// ω of the first fixed-interface mode left out, rad/s (`None`: every one is kept).
    pub first_dropped: Option<f64>,
    /// `M T`, for the mass-weighted projection of physical states.
    mass_basis: DMatrix<f64>,
    /// The factor of `Tᵀ M T`.
    reduced_mass: Cholesky<f64, Dyn>,
}

/// Where a physical DOF went.
#[derive(Clone, Copy)]
enum Slot {
    Kept(usize),
    Interior(usize),
}

/// The Craig–Bampton reduction of `sys` to `count` fixed-interface modes, keeping physical
/// the DOFs of the nonlinear elements, loads and base couplings and those in `keep`.
pub fn craig_bampton(sys: &System, count: usize, keep: &[usize]) -> Result<Reduced, ReduceError> {
    if sys.multibody.is_some() {
        return Err(ReduceError::Multibody);
    }
    let n = sys.n();
    let kept = kept_dofs(sys, keep);
    let interior = n - kept.len();
    if interior == 0 {
        return Err(ReduceError::NothingToReduce);
    }
    if count > interior {
        return Err(ReduceError::TooManyModes {
            asked: count,
            interior,
        });
    }
    let slots = slots(n, &kept);
    let (m_ii, _) = split(&sys.m, &slots, interior, kept.len());
    let (k_ii, k_ib) = split(&sys.k, &slots, interior, kept.len());
    let psi = static_modes(&k_ii, &k_ib)?;
    let fixed = modes::of_pencil(&m_ii, &k_ii, Some((count + 1).min(interior)))?;
    let unconverged: Vec<usize> = fixed
        .unconverged()
        .into_iter()
        .filter(|&j| j <= count)
        .collect();
    if !unconverged.is_empty() {
        return Err(ReduceError::Unconverged(unconverged));
    }
    let (nb, r) = (kept.len(), kept.len() + count);
    let mut basis = DMatrix::zeros(n, r);
    for (dof, slot) in slots.iter().enumerate() {
        match *slot {
            Slot::Kept(c) => basis[(dof, c)] = 1.0,
            Slot::Interior(j) => {
                for c in 0..nb {
                    basis[(dof, c)] = psi[(j, c)];
                }
                for l in 0..count {
                    basis[(dof, nb + l)] = fixed.shapes[(j, l)];
                }
            }
        }
    }
    // The fixed-interface blocks are I and Λ by Φ's mass normalisation, and K couples them to
    // nothing (K_ii Ψ + K_ib = 0): set exactly, so that the reduced matrices keep their arrow
    // pattern (kept rows and columns full, the modal block diagonal) instead of round-off fill.
    let mass_basis = times(&sys.m, &basis);
    let mut m_r = symmetric(basis.tr_mul(&mass_basis));
    m_r.view_mut((nb, nb), (count, count)).fill_with_identity();
    let reduced_mass =
        Cholesky::new(m_r.clone()).ok_or(ReduceError::Modes(ModesError::SingularMass))?;
    let static_part = basis.columns(0, nb).into_owned();
    let mut k_r = DMatrix::zeros(r, r);
    k_r.view_mut((0, 0), (nb, nb))
        .copy_from(&symmetric(static_part.tr_mul(&times(&sys.k, &static_part))));
    for (l, w) in fixed.omega[..count].iter().enumerate() {
        k_r[(nb + l, nb + l)] = w * w;
    }
    let c_r = without_round_off(symmetric(basis.tr_mul(&times(&sys.c, &basis))));
    let system = reduced_system(sys, &kept, count, [&m_r, &c_r, &k_r], &basis);
    Ok(Reduced {
        system,
        kept_omega: fixed.omega[..count].to_vec(),
        first_dropped: fixed.omega.get(count).copied(),
        basis,
        kept,
        mass_basis,
        reduced_mass,
    })
}

impl Reduced {
    /// The physical displacements (or velocities) of reduced ones: `T q`.
    fn expand(&self, q: &[f64]) -> Vec<f64> {
        (&self.basis * DVector::from_column_slice(q))
            .as_slice()
            .to_vec()
    }

    /// The physical state `(x, v)` of a reduced one `(q, q̇)`.
    pub fn expand_state(&self, y: &[f64]) -> Vec<f64> {
        let r = self.basis.ncols();
        let mut out = self.expand(&y[..r]);
        out.extend(self.expand(&y[r..]));
        out
    }

    /// The reduced state of a physical one, by the mass-weighted projection
    /// `q = (TᵀMT)⁻¹ TᵀM x` (exact when `x` lies in the reduced space).
    pub fn project_state(&self, y: &[f64]) -> Vec<f64> {
        let n = self.basis.nrows();
        let project = |x: &[f64]| {
            let rhs = self.mass_basis.tr_mul(&DVector::from_column_slice(x));
            self.reduced_mass.solve(&rhs).as_slice().to_vec()
        };
        let mut out = project(&y[..n]);
        out.extend(project(&y[n..]));
        out
    }

    /// A weighted sum of physical state entries `Σ wᵢ yᵢ` (`y = (x, v)`) as the same sum of
    /// reduced ones.
    pub fn weights(&self, w: &[(usize, f64)]) -> Vec<(usize, f64)> {
        let (n, r) = self.basis.shape();
        let mut out = vec![0.0; 2 * r];
        for &(i, wi) in w {
            let (row, offset) = if i < n { (i, 0) } else { (i - n, r) };
            for c in 0..r {
                out[offset + c] += wi * self.basis[(row, c)];
            }
        }
        out.into_iter()
            .enumerate()
            .filter(|(_, v)| *v != 0.0)
            .collect()
    }

    /// The lowest `count` natural frequencies (contacts open) of the full and of the reduced
    /// system, rad/s: the reduction's error where the response lives.
    pub fn frequency_check(
        &self,
        full: &System,
        count: usize,
    ) -> Result<Vec<(f64, f64)>, ModesError> {
        let count = count.min(self.system.n());
        let exact = modes::modes(full, Contacts::Open, Some(count))?;
        let reduced = modes::modes(&self.system, Contacts::Open, Some(count))?;
        Ok(exact.omega.into_iter().zip(reduced.omega).collect())
    }
}

/// The DOFs kept physical, ascending: the nonlinear elements' attachments, the loaded DOFs,
/// the base couplings and `extra`.
pub fn kept_dofs(sys: &System, extra: &[usize]) -> Vec<usize> {
    let mut kept: Vec<usize> = extra.to_vec();
    for el in &sys.nonlinear {
        for a in el.a.iter().chain(&el.b) {
            if let Attach::Dof(i) = a {
                kept.push(*i);
            }
        }
    }
    kept.extend(sys.forces.iter().map(|f| f.dof));
    for b in &sys.base {
        kept.extend(b.stiffness.iter().chain(&b.damping).map(|p| p.0));
    }
    kept.sort_unstable();
    kept.dedup();
    kept
}

fn slots(n: usize, kept: &[usize]) -> Vec<Slot> {
    let mut slots = Vec::with_capacity(n);
    let (mut b, mut i) = (0, 0);
    for dof in 0..n {
        if kept.get(b) == Some(&dof) {
            slots.push(Slot::Kept(b));
            b += 1;
        } else {
            slots.push(Slot::Interior(i));
            i += 1;
        }
    }
    slots
}

/// The interior block `A_ii` (sparse) and the interior–kept block `A_ib` (dense) of `a`.
fn split(
    a: &CsMat<f64>,
    slots: &[Slot],
    interior: usize,
    kept: usize,
) -> (CsMat<f64>, DMatrix<f64>) {
    let mut ii = TriMat::new((interior, interior));
    let mut ib = DMatrix::zeros(interior, kept);
    for (v, (r, c)) in a.iter() {
        match (slots[r], slots[c]) {
            (Slot::Interior(i), Slot::Interior(j)) => ii.add_triplet(i, j, *v),
            (Slot::Interior(i), Slot::Kept(b)) => ib[(i, b)] += *v,
            _ => {}
        }
    }
    (ii.to_csr(), ib)
}

/// `Ψ = −K_ii⁻¹ K_ib` by a sparse LDLᵀ of `K_ii`, which must be positive definite.
fn static_modes(k_ii: &CsMat<f64>, k_ib: &DMatrix<f64>) -> Result<DMatrix<f64>, ReduceError> {
    let rhs = |c: usize| -> Vec<f64> { k_ib.column(c).iter().map(|v| -v).collect() };
    let columns = 0..k_ib.ncols();
    let solved: Vec<Vec<f64>> = if k_ii.rows() == 1 {
        // sprs-ldl's workspaces need two rows.
        let d = k_ii.get(0, 0).copied().unwrap_or(0.0);
        if !(d > 0.0 && d.is_finite()) {
            return Err(ReduceError::FloatingInterior);
        }
        columns.map(|c| vec![rhs(c)[0] / d]).collect()
    } else {
        let ldl = sprs_ldl::Ldl::new()
            .check_symmetry(SymmetryCheck::DontCheckSymmetry)
            .fill_in_reduction(FillInReduction::ReverseCuthillMcKee)
            .numeric(k_ii.view())
            .map_err(|_| ReduceError::FloatingInterior)?;
        if !ldl.d().iter().all(|d| *d > 0.0 && d.is_finite()) {
            return Err(ReduceError::FloatingInterior);
        }
        columns.map(|c| ldl.solve(&rhs(c))).collect()
    };
    let mut psi = DMatrix::zeros(k_ib.nrows(), k_ib.ncols());
    for (c, x) in solved.into_iter().enumerate() {
        psi.set_column(c, &DVector::from_vec(x));
    }
    Ok(psi)
}

/// `A T` for a sparse `A` and a dense `T`.
fn times(a: &CsMat<f64>, t: &DMatrix<f64>) -> DMatrix<f64> {
    let mut out = DMatrix::zeros(a.rows(), t.ncols());
    for c in 0..t.ncols() {
        let col = t.column(c);
        let mut target = out.column_mut(c);
        for (v, (i, j)) in a.iter() {
            target[i] += v * col[j];
        }
    }
    out
}

/// `(A + Aᵀ)/2`: the projections are symmetric up to round-off.
fn symmetric(a: DMatrix<f64>) -> DMatrix<f64> {
    (&a + a.transpose()) * 0.5
}

/// `a` with the entries that are round-off of its diagonal (`|aᵢⱼ| ≤ ROUND_OFF_TOL
/// √|aᵢᵢ aⱼⱼ|`) set to zero: a damping matrix proportional to M and K keeps their pattern.
fn without_round_off(mut a: DMatrix<f64>) -> DMatrix<f64> {
    let d: Vec<f64> = a.diagonal().iter().map(|v| v.abs()).collect();
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            if i != j && a[(i, j)].abs() <= ROUND_OFF_TOL * (d[i] * d[j]).sqrt() {
                a[(i, j)] = 0.0;
            }
        }
    }
    a
}

/// A dense matrix as CSR (exact zeros dropped).
fn csr(a: &DMatrix<f64>) -> CsMat<f64> {
    let mut t = TriMat::new(a.shape());
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            if a[(i, j)] != 0.0 {
                t.add_triplet(i, j, a[(i, j)]);
            }
        }
    }
    t.to_csr()
}

/// The system on the reduced coordinates: kept DOFs first, then the modal ones; every
/// element, load and base coupling re-indexed onto its kept DOF.
fn reduced_system(
    sys: &System,
    kept: &[usize],
    count: usize,
    [m, c, k]: [&DMatrix<f64>; 3],
    basis: &DMatrix<f64>,
) -> System {
    let at = |dof: usize| {
        kept.binary_search(&dof)
            .expect("every element, load and base coupling acts on a kept DOF")
    };
    let mut dofs: Vec<Dof> = kept.iter().map(|&i| sys.dofs[i].clone()).collect();
    dofs.extend((1..=count).map(|l| Dof {
        name: format!("cb{l}"),
        node: GROUND,
        dir: Dir::Index(l as u32),
    }));
    let mut out = sys.clone();
    out.dofs = dofs;
    out.m = csr(m);
    out.c = csr(c);
    out.k = csr(k);
    for f in &mut out.forces {
        f.dof = at(f.dof);
    }
    for b in &mut out.base {
        for p in b.stiffness.iter_mut().chain(b.damping.iter_mut()) {
            p.0 = at(p.0);
        }
    }
    out.static_load = basis
        .tr_mul(&DVector::from_column_slice(&sys.static_load))
        .as_slice()
        .to_vec();
    for el in &mut out.nonlinear {
        for a in el.a.iter_mut().chain(el.b.iter_mut()) {
            if let Attach::Dof(i) = a {
                *i = at(*i);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nsd_model::system::{DofForce, NonlinearElement, Nonlinearity};
    use nsd_model::time_fn::TimeFn;

    /// A fixed–free chain of `n` unit masses and unit springs (Rayleigh damping 0.01 M +
    /// 0.001 K) loaded at its tip, with a cubic spring from the tip to ground.
    fn chain(n: usize) -> System {
        let (mut m, mut k) = (TriMat::new((n, n)), TriMat::new((n, n)));
        for i in 0..n {
            m.add_triplet(i, i, 1.0);
            k.add_triplet(i, i, if i + 1 < n { 2.0 } else { 1.0 });
            if i + 1 < n {
                k.add_triplet(i, i + 1, -1.0);
                k.add_triplet(i + 1, i, -1.0);
            }
        }
        let (m, k): (CsMat<f64>, CsMat<f64>) = (m.to_csr(), k.to_csr());
        let c = &m.map(|v| 0.01 * v) + &k.map(|v| 0.001 * v);
        System {
            model: "chain".into(),
            params: vec![],
            dofs: (0..n)
                .map(|i| Dof {
                    name: format!("x{i}"),
                    node: nsd_model::flat::NodeId(i + 2),
                    dir: Dir::X,
                })
                .collect(),
            m,
            c,
            k,
            forces: vec![DofForce {
                dof: n - 1,
                f: TimeFn::Const(1.0),
            }],
            base: vec![],
            static_load: vec![0.0; n],
            nonlinear: vec![NonlinearElement {
                name: "cubic".into(),
                law: Nonlinearity::Polynomial { k2: 0.0, k3: 1.0 },
                a: vec![Attach::Dof(n - 1)],
                b: vec![Attach::Ground],
            }],
            multibody: None,
            warnings: vec![],
        }
    }

    fn frequencies(sys: &System) -> Vec<f64> {
        modes::modes(sys, Contacts::Open, None)
            .expect("modes")
            .omega
    }

    /// With every interior mode kept the reduction is a change of basis: the natural
    /// frequencies are the full model's to round-off (1e-10 relative: two dense eigensolves
    /// of a 12-DOF chain).
    #[test]
    fn every_mode_kept_is_exact() {
        let sys = chain(12);
        let r = craig_bampton(&sys, 11, &[]).expect("reduces");
        assert_eq!(r.kept, vec![11]);
        for (a, b) in frequencies(&sys).iter().zip(frequencies(&r.system)) {
            assert!((a - b).abs() <= 1e-10 * a, "{a} vs {b}");
        }
    }

    /// The static constraint modes make the reduced model exact under static loads on the
    /// kept DOFs whatever the modes kept (1e-12 relative: one LDLᵀ solve each).
    #[test]
    fn static_response_at_the_kept_dofs_is_exact() {
        let sys = chain(30);
        let r = craig_bampton(&sys, 2, &[]).expect("reduces");
        // Fixed–free chain of unit springs: a unit tip load moves the tip by n.
        let k_r = modes::dense_of(&r.system.k);
        let mut f = DVector::zeros(r.system.n());
        f[0] = 1.0;
        let q = k_r.lu().solve(&f).expect("K_r regular");
        let x = r.expand(q.as_slice());
        for (i, xi) in x.iter().enumerate() {
            assert!((xi - (i + 1) as f64).abs() <= 1e-12 * 30.0, "x{i} = {xi}");
        }
    }

    /// The reduced matrices keep the arrow pattern: the modal block of M is I and of K is Λ,
    /// K couples no mode to a kept DOF, and the proportional damping keeps M and K's pattern.
    #[test]
    fn reduced_matrices_keep_the_arrow_pattern() {
        let sys = chain(40);
        let r = craig_bampton(&sys, 6, &[3]).expect("reduces");
        let (nb, rr) = (r.kept.len(), r.system.n());
        assert_eq!(nb, 2);
        let off_diagonal_modal = |a: &CsMat<f64>| {
            a.iter()
                .filter(|(_, (i, j))| i != j && *i >= nb && *j >= nb)
                .count()
        };
        assert_eq!(off_diagonal_modal(&r.system.m), 0);
        assert_eq!(off_diagonal_modal(&r.system.k), 0);
        assert_eq!(off_diagonal_modal(&r.system.c), 0);
        assert!(r.system.k.nnz() <= nb * nb + (rr - nb));
        let kept_omega_sq: Vec<f64> = (nb..rr).map(|i| r.system.k[[i, i]]).collect();
        for (w, l) in r.kept_omega.iter().zip(kept_omega_sq) {
            assert!((w * w - l).abs() <= 1e-12 * l);
        }
    }

    /// A state in the reduced space survives projection and expansion; a section's weights
    /// on a physical DOF give the same sum on the reduced coordinates.
    #[test]
    fn projection_expansion_and_weights_agree() {
        let sys = chain(25);
        let r = craig_bampton(&sys, 5, &[]).expect("reduces");
        let q: Vec<f64> = (0..2 * r.system.n())
            .map(|i| (i as f64 * 0.37).sin())
            .collect();
        let y = r.expand_state(&q);
        let back = r.project_state(&y);
        for (a, b) in q.iter().zip(&back) {
            assert!((a - b).abs() <= 1e-10, "{a} vs {b}");
        }
        let w = [(7, 2.0), (25 + 12, -0.5)];
        let physical: f64 = w.iter().map(|(i, wi)| wi * y[*i]).sum();
        let reduced: f64 = r.weights(&w).iter().map(|(i, wi)| wi * q[*i]).sum();
        assert!((physical - reduced).abs() <= 1e-12 * physical.abs().max(1.0));
    }

    /// Requests that cannot be met are refused with the reason.
    #[test]
    fn impossible_requests_are_refused() {
        let sys = chain(5);
        assert_eq!(
            craig_bampton(&sys, 5, &[]).err(),
            Some(ReduceError::TooManyModes {
                asked: 5,
                interior: 4
            })
        );
        assert_eq!(
            craig_bampton(&sys, 1, &[0, 1, 2, 3]).err(),
            Some(ReduceError::NothingToReduce)
        );
        // Springs x0–x1–x2 and x3–x4 only: nothing holds x0…x2 once the tip x4 is fixed.
        let mut floating = chain(5);
        floating.k = {
            let mut k = TriMat::new((5, 5));
            for (i, d) in [1.0, 2.0, 1.0, 1.0, 1.0].iter().enumerate() {
                k.add_triplet(i, i, *d);
            }
            for (i, j) in [(0, 1), (1, 2)] {
                k.add_triplet(i, j, -1.0);
                k.add_triplet(j, i, -1.0);
            }
            k.add_triplet(3, 4, -1.0);
            k.add_triplet(4, 3, -1.0);
            k.to_csr()
        };
        assert_eq!(
            craig_bampton(&floating, 1, &[]).err(),
            Some(ReduceError::FloatingInterior)
        );
    }
}
