//! Gauss's programme of `gauss.rs` solved from a guess of its active contacts: the
//! primal–dual active-set method, each iteration one equality-constrained programme.
//!
//! With the contacts of a set `S` held as equalities (`D_S x = l_S`), the programme has only
//! equality constraints, and its solution is the Schur-complement solve of `gram.rs` on the
//! stacked rows `G = [J; D_S]`: `x = x_f + M⁻¹Gᵀμ`, `W_G μ = [b; l_S] − G x_f`, with `μ`
//! the joint multipliers `λ` and the contact multipliers `z_S`. That is the solution of the
//! inequality-constrained programme exactly when it satisfies the remaining KKT conditions
//! (the complementarity of eqs. 16a–16b): `z_S > 0` and `w = D x − l ≥ 0` off `S`. Where it
//! does not, the set is updated by both signs at once (a contact of `S` whose multiplier is
//! not positive leaves it, a contact off `S` whose bound is violated joins it: Hintermüller,
//! Ito and Kunisch's semismooth Newton step on `min(z, w) = 0`), and the solve repeated.
//!
//! Why: between two steps, or two iterations of the position projection, the set of closed
//! contacts rarely changes, so the previous set settles in one solve. Each solve stacks the
//! active contacts joint by joint after the joint's own rows, so `W_G` keeps the envelope of
//! the joints' Gram matrix: a chain of `n` clearance joints costs `O(n)`, where Lemke's
//! method (`lcp.rs`) pivots a dense tableau of every contact at least once per closed one,
//! `O(k³)`. When the set does not settle within `ACTIVE_SET_MAX_ITERATIONS`, or `W_G` is
//! singular (redundant contacts: four vertices of a slider bound three freedoms), the caller
//! falls back to Lemke's method; the programme's `x` is unique, so both give the same step.
//!
//! # References
//! M. Hintermüller, K. Ito and K. Kunisch, The primal–dual active set strategy as a
//! semismooth Newton method, *SIAM J. Optim.* 13 (2003) 865–888.

use super::dynamics::Mechanism;
use super::gauss::{Programme, Solution};
use super::gram::{times, transpose_times, Gram};
use super::tolerances::ACTIVE_SET_MAX_ITERATIONS;
use nalgebra::{DMatrix, DVector};

/// A row of the stacked system `G`: a joint row or a contact of the active set.
#[derive(Clone, Copy)]
enum Stacked {
    Joint(usize),
    Contact(usize),
}

impl Mechanism {
    /// The programme of `gauss.rs` (`x_free`, joint targets `b`, contact bounds `lower`) on
    /// the pose `lin`, by active sets from the contacts `guess` (module doc); `None` when
    /// they do not settle or a stacked Gram matrix is singular.
    pub(super) fn active_set(&self, p: &Programme, guess: &[bool]) -> Option<Solution> {
        let Programme { lin, lower, .. } = *p;
        let mut active = guess.to_vec();
        for _ in 0..ACTIVE_SET_MAX_ITERATIONS {
            let sol = self.equality_solve(p, &active)?;
            let w = &lin.d * &sol.x - lower;
            let next: Vec<bool> = (0..active.len())
                .map(|i| {
                    if active[i] {
                        sol.z[i] > 0.0
                    } else {
                        w[i] < 0.0
                    }
                })
                .collect();
            if next == active {
                return Some(sol);
            }
            active = next;
        }
        None
    }

    /// The programme with the contacts `active` held at their bounds and the others
    /// ignored: one Schur-complement solve on the stacked rows (module doc).
    fn equality_solve(&self, p: &Programme, active: &[bool]) -> Option<Solution> {
        let Programme {
            lin,
            x_free,
            b,
            lower,
            ..
        } = *p;
        // Joint by joint: its rows, then its active contacts (contacts are listed by joint).
        let mut stacked = Vec::with_capacity(self.rows + active.len());
        let (mut row, mut contact) = (0, 0);
        for (j, joint) in self.joints.iter().enumerate() {
            stacked.extend((row..row + joint.geometry.rows()).map(|i| (Stacked::Joint(i), j)));
            row += joint.geometry.rows();
            while contact < active.len() && self.contacts[contact].joint == j {
                if active[contact] {
                    stacked.push((Stacked::Contact(contact), j));
                }
                contact += 1;
            }
        }
        let cols = x_free.len();
        let mut g = DMatrix::zeros(stacked.len(), cols);
        let mut target = DVector::zeros(stacked.len());
        let mut rows_at_body = vec![Vec::new(); self.nb()];
        for (r, &(s, joint)) in stacked.iter().enumerate() {
            let (source, i, bound) = match s {
                Stacked::Joint(i) => (&lin.jac, i, b[i]),
                Stacked::Contact(k) => (&lin.d, k, lower[k]),
            };
            g.row_mut(r).copy_from(&source.row(i));
            target[r] = bound;
            for body in self.joints[joint].sides.iter().flatten() {
                rows_at_body[*body].push(r);
            }
        }
        let minv = self.mass_inverse();
        let mu = match stacked.len() {
            0 => DVector::zeros(0),
            _ => Gram::factor(&g, &minv, &rows_at_body)?
                .solve(target - times(&g, &rows_at_body, x_free)),
        };
        let x = x_free + transpose_times(&g, &rows_at_body, &mu).component_mul(&minv);
        let mut lambda = DVector::zeros(self.rows);
        let mut z = DVector::zeros(active.len());
        for ((s, _), m) in stacked.iter().zip(mu.iter()) {
            match *s {
                Stacked::Joint(i) => lambda[i] = *m,
                Stacked::Contact(k) => z[k] = *m,
            }
        }
        Some(Solution {
            x,
            lambda,
            z,
            friction: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multibody::state::{LINEAR, TWIST};
    use nsd_model::flat::{Body, ContactLaw, Joint, JointKind};
    use nsd_model::system::Multibody;

    /// Three links on revolute clearance joints, the last without axial clearance (so it
    /// keeps its axial row: joint rows and contacts stacked together).
    fn chain() -> (Mechanism, Vec<f64>) {
        let body = |x: f64| Body {
            mass: 0.1,
            inertia: [1e-5, 8.3e-5, 8.3e-5],
            position: [x, 0.0, 0.0],
            orientation: [1.0, 0.0, 0.0, 0.0],
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            force: [0.0; 3],
            force_at: [0.0; 3],
        };
        let joint = |x: f64, axial: Option<f64>| Joint {
            kind: JointKind::Revolute,
            at: [x, 0.0, 0.0],
            axis: [0.0, 0.0, 1.0],
            radius: 5e-3,
            length: 2e-2,
            radial_clearance: Some(1e-4),
            axial_clearance: axial,
            law: ContactLaw::Impact { e: 0.0 },
            mu: 0.0,
        };
        let mb = Multibody {
            bodies: (0..3)
                .map(|i| (format!("b{i}"), body(0.05 + 0.1 * i as f64)))
                .collect(),
            joints: vec![
                ("j0".into(), joint(0.0, Some(2e-4)), None, Some(0)),
                ("j1".into(), joint(0.1, Some(2e-4)), Some(0), Some(1)),
                ("j2".into(), joint(0.2, None), Some(1), Some(2)),
            ],
            gravity: [0.0, -9.81, 0.0],
        };
        Mechanism::new(&mb).expect("consistent")
    }

    /// The programme of a step of 1 ms from the centred pose, the free velocities pseudo-random
    /// of 1 m/s and 20 rad/s (most gaps close): from no guess, from the answer and from the
    /// answer with one contact swapped each way, the active sets settle on Lemke's solution
    /// to round-off (the programme's `x` is unique; so are `λ`, the stacked rows being
    /// independent). Every contact held at once stacks the two opposite ends of an axial
    /// clearance, one row the negative of the other: singular, so `None` (Lemke's turn).
    #[test]
    fn settles_on_lemkes_solution() {
        let (mech, y0) = chain();
        let lin = mech.linearise(&y0);
        let h = 1e-3;
        let x_free = DVector::from_fn(mech.layout().dofs(), |i, _| {
            let scale = if LINEAR.contains(&(i % TWIST)) {
                1.0
            } else {
                20.0
            };
            scale * ((i as f64 + 1.0) * 2.7).sin()
        });
        let (b, lower) = (-&lin.phi / h, -&lin.gaps / h);
        let programme = Programme {
            t: 0.0,
            lin: &lin,
            x_free: &x_free,
            b: &b,
            lower: &lower,
        };
        let lemke = mech.by_lemke(&programme).expect("solvable");
        let k = lin.gaps.len();
        let answer: Vec<bool> = lemke.z.iter().map(|z| *z > 0.0).collect();
        assert!(answer.iter().filter(|a| **a).count() >= 3, "{answer:?}");
        let mut swapped = answer.clone();
        let on = answer.iter().position(|a| *a).expect("a closed contact");
        let off = answer.iter().position(|a| !*a).expect("an open contact");
        (swapped[on], swapped[off]) = (false, true);
        for guess in [vec![false; k], answer.clone(), swapped] {
            let sol = mech.active_set(&programme, &guess).expect("settles");
            let err = (&sol.x - &lemke.x).amax() / lemke.x.amax();
            assert!(err < 1e-12, "guess {guess:?}: {err:e}");
            let err = (&sol.lambda - &lemke.lambda).amax() / lemke.lambda.amax().max(1.0);
            assert!(err < 1e-9, "guess {guess:?}: λ {err:e}");
        }
        assert!(mech.active_set(&programme, &vec![true; k]).is_none());
    }
}
