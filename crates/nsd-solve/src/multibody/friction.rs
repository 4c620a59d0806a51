//! Coulomb friction at the clearance contacts of the `timestepping` backend: the polyhedral
//! friction cone of Stewart and Trinkle in the linear complementarity form of Anitescu and
//! Potra, added to the step's programme of `gauss.rs`.
//!
//! At each contact with `mu > 0` the tangent plane is spanned by `d = FRICTION_DIRECTIONS`
//! unit vectors `d_k` at equal angles, in opposite pairs, the first along the joint's axis
//! projected onto the plane (an axial end contact, whose normal is the axis, starts from the
//! joint's first perpendicular instead): sliding along a cylindrical or prismatic joint's
//! axis meets the exact Coulomb force. Each direction's row `t_k` is the slip of side 1
//! relative to side 0 at the contact point along `d_k` (`contact::tangent_row`, the
//! geometry of the `events` backend's regularised friction). With the friction impulses
//! `β_k ≥ 0` and a slack `σ ≥ 0` (the sliding speed) per contact, the step's velocities are
//! `M(v − v_f) = Jᵀλ + Dᵀp + Tᵀβ` with the joints `J v = b` and
//!
//! ```text
//! 0 ≤ p   ⟂ D v − l        ≥ 0   (the gaps, as without friction)
//! 0 ≤ β_k ⟂ σ + t_k v      ≥ 0   (β acts only along the directions most opposed to the slip)
//! 0 ≤ σ   ⟂ μ p − Σ_k β_k ≥ 0   (sticking inside the cone, sliding on its edge)
//! ```
//!
//! Eliminating `λ` and `v` as `gauss.rs` does (`v = x₀ + P [D; T]ᵀ [p; β]`) leaves the LCP in
//! `[p; β; σ]` with the matrix `[[D P Dᵀ, D P Tᵀ, 0], [T P Dᵀ, T P Tᵀ, E], [μ, −Eᵀ, 0]]` (`E`
//! the contacts' columns of ones). It is not symmetric, but copositive, and Lemke's method
//! (`lcp.rs`, which assumes no symmetry) solves it: Anitescu and Potra (1997), Thm. 3.
//! The stick is exact (a sticking contact's slip is zero to round-off, both directions of
//! each pair holding it); sliding along one of the `d_k` meets `μ p` exactly, other sliding
//! directions the polygon's bound (`FRICTION_DIRECTIONS`).
//!
//! Only the contacts that carry a normal impulse need the friction variables: a contact
//! with `p = 0` has `β = 0` in every solution. So the programme is first solved without
//! friction (active sets, `gauss.rs`): where no contact with `mu > 0` carries an impulse, that
//! solution with `β = 0` and `σ = max(0, −min_k t_k v)` solves the frictional LCP too, and a
//! model with `mu = 0` everywhere steps exactly as without this module. Otherwise the LCP
//! gets the friction variables of the frictional contacts closed there or in the previous
//! step, and is solved again with any frictional contact it closes outside that set added.
//!
//! # References
//! D. E. Stewart and J. C. Trinkle, An implicit time-stepping scheme for rigid body dynamics
//! with inelastic collisions and Coulomb friction, *Int. J. Numer. Meth. Eng.* 39 (1996)
//! 2673–2691. M. Anitescu and F. A. Potra, Formulating dynamic multi-rigid-body contact
//! problems with friction as solvable linear complementarity problems, *Nonlinear Dynamics*
//! 14 (1997) 231–247.

use super::contact::tangent_row;
use super::dynamics::{scatter, Degenerate, Mechanism};
use super::gauss::{Friction, Programme, Solution};
use super::lcp;
use super::tolerances::FRICTION_DIRECTIONS;
use nalgebra::{DMatrix, DVector, Vector3};

type V3 = Vector3<f64>;

/// Below this length of the joint's axis projected onto a contact's tangent plane
/// (dimensionless, the axis being a unit vector) the axis counts as the contact's normal: an
/// axial end contact, whose projection is zero up to the tilt of the sides, against at least
/// `cos 60°` for radial and face contacts, whose normals are perpendicular to the axis.
const AXIS_IN_PLANE: f64 = 0.5;

/// The friction directions of a set of contacts: the rows `T` (`FRICTION_DIRECTIONS` per
/// contact, in the set's order) and each row's direction `d_k` (global).
struct Directions {
    rows: DMatrix<f64>,
    dirs: Vec<V3>,
}

/// The first two tangent vectors at a contact of normal `n`: the axis `u` projected onto the
/// tangent plane, or `f` (perpendicular to `u`) where `u` is along `n` (`AXIS_IN_PLANE`).
fn tangent_basis(n: &V3, u: &V3, f: &V3) -> (V3, V3) {
    let along = u - n * n.dot(u);
    let t1 = if along.norm() >= AXIS_IN_PLANE {
        along
    } else {
        f - n * n.dot(f)
    }
    .normalize();
    (t1, n.cross(&t1))
}

impl Mechanism {
    /// The friction directions of the contacts `set` at the state `y` (module doc).
    fn directions(&self, y: &[f64], set: &[usize]) -> Directions {
        let pairs = FRICTION_DIRECTIONS / 2;
        let mut rows = DMatrix::zeros(set.len() * FRICTION_DIRECTIONS, self.layout().dofs());
        let mut dirs = Vec::with_capacity(rows.nrows());
        for &c in set {
            let contact = &self.contacts[c];
            let joint = &self.joints[contact.joint];
            let sides = joint.sides.map(|s| self.side(y, s));
            let at = contact.spec.gap(&joint.geometry, &sides);
            let geo = &joint.geometry;
            let (t1, t2) = tangent_basis(
                &at.row.jr[1],
                &(sides[0].a * geo.u[0]),
                &(sides[0].a * geo.f[0]),
            );
            for k in 0..pairs {
                let angle = std::f64::consts::PI * k as f64 / pairs as f64;
                let d = t1 * angle.cos() + t2 * angle.sin();
                for d in [d, -d] {
                    scatter(
                        &mut rows,
                        dirs.len(),
                        &tangent_row(&sides, &at, &d),
                        joint,
                        &sides,
                    );
                    dirs.push(d);
                }
            }
        }
        Directions { rows, dirs }
    }

    /// The step's programme of `least_constraint` at the state `y` (on its linearisation
    /// `lin`) with Coulomb friction where a contact with `mu > 0` closes (module doc).
    pub(super) fn with_friction(
        &self,
        p: &Programme,
        y: &[f64],
        guess: &[bool],
    ) -> Result<Solution, Degenerate> {
        let mut sol = self.least_constraint(p, guess)?;
        let frictional = |c: &usize| self.contacts[*c].mu > 0.0;
        let closed = |sol: &Solution, c: &usize| frictional(c) && sol.z[*c] > 0.0;
        let mut set: Vec<usize> = (0..guess.len()).filter(|c| closed(&sol, c)).collect();
        if set.is_empty() {
            return Ok(sol);
        }
        set.extend((0..guess.len()).filter(|c| guess[*c] && frictional(c)));
        loop {
            set.sort_unstable();
            set.dedup();
            sol = self.frictional_lcp(p, y, &set)?;
            let more: Vec<usize> = (0..guess.len())
                .filter(|c| closed(&sol, c) && set.binary_search(c).is_err())
                .collect();
            if more.is_empty() {
                return Ok(sol);
            }
            set.extend(more);
        }
    }

    /// The programme with friction variables at the contacts `set`, by Lemke's method on the
    /// LCP of the module doc.
    fn frictional_lcp(
        &self,
        p: &Programme,
        y: &[f64],
        set: &[usize],
    ) -> Result<Solution, Degenerate> {
        let Programme { t, lin, lower, .. } = *p;
        let (k, nd) = (lin.gaps.len(), FRICTION_DIRECTIONS);
        let dir = self.directions(y, set);
        let m = dir.rows.nrows();
        let mut rows = DMatrix::zeros(k + m, lin.d.ncols());
        rows.rows_mut(0, k).copy_from(&lin.d);
        rows.rows_mut(k, m).copy_from(&dir.rows);
        let red = self.eliminate(p, &rows)?;
        let n = k + m + set.len();
        let mut matrix = DMatrix::zeros(n, n);
        matrix
            .view_mut((0, 0), (k + m, k + m))
            .copy_from(&(&rows * &red.pd));
        let mut q = DVector::zeros(n);
        q.rows_mut(0, k + m).copy_from(&(&rows * &red.x0));
        q.rows_mut(0, k).axpy(-1.0, lower, 1.0);
        for (s, &c) in set.iter().enumerate() {
            let sigma = k + m + s;
            matrix[(sigma, c)] = self.contacts[c].mu;
            for r in k + s * nd..k + (s + 1) * nd {
                matrix[(r, sigma)] = 1.0;
                matrix[(sigma, r)] = -1.0;
            }
        }
        let z = lcp::solve(&matrix, &q).ok_or(Degenerate::Contact { t })?;
        let impulses = z.rows(0, k + m).into_owned();
        let x = &red.x0 + &red.pd * &impulses;
        let lambda = self.joint_multipliers(p, &red, &rows, &impulses);
        let beta = z.rows(k, m);
        let mut impulse = vec![V3::zeros(); k];
        for (s, &c) in set.iter().enumerate() {
            for r in s * nd..(s + 1) * nd {
                impulse[c] += dir.dirs[r] * beta[r];
            }
        }
        Ok(Solution {
            x,
            lambda,
            z: z.rows(0, k).into_owned(),
            friction: Some(Friction {
                impulse,
                generalised: dir.rows.transpose() * beta,
            }),
        })
    }
}
