//! The constrained Newton–Euler equations of a mechanism (paper 002, eqs. 5–8) in index-1
//! form, and the coordinate projection that keeps the state on the constraint manifold.
//!
//! State `y = [q₁ … q_N, v₁ … v_N]` with `qᵢ = [rᵢ, pᵢ]` (centre of mass and Euler
//! parameters, 7 each) and `vᵢ = [ṙᵢ, ω'ᵢ]` (global velocity and body-frame angular
//! velocity, 6 each: the paper's `v` of eq. 8; `state.rs` names where each sits). Each
//! right-hand side solves `M v̇ + S = Q_A + Φ_qᵀ λ`, `Φ_q v̇ = γ` (eq. 8 with the joints'
//! reactions) by the Schur complement: `M` is block diagonal (`m I`, principal `J`), so
//! `W = Φ_q M⁻¹ Φ_qᵀ` is small and SPD for independent joints and
//! `W λ = γ − Φ_q M⁻¹(Q_A − S)`. Here `S = [0, ω'×Jω']` is the gyroscopic term and
//! `Q_A = [m g + F, s'_F × Aᵀ F]` gravity and the body's constant force at its body-frame
//! point.

use super::clearance::{bilateral, specs};
use super::contact::{Contact, Modes};
use super::gram::{self, Gram};
use super::joints::{Bilateral, Geometry, Row, Side};
use super::kinematics::{rates, rotation, turned};
use super::state::{angular, linear, Layout, ANGULAR, LINEAR, ORIENTATION, POSITION};
use super::tolerances::{PROJECTION_MAX_ITERATIONS, PROJECTION_TOL};
use nalgebra::{DMatrix, DVector, Vector3};
use nsd_model::system::Multibody;

type V3 = Vector3<f64>;

/// Why the constrained equations could not be solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Degenerate {
    #[error(
        "the joints' constraints are redundant or degenerate at t = {t} (Φ_q M⁻¹ Φ_qᵀ is singular)"
    )]
    Singular { t: f64 },
    #[error("the projection onto the joints' constraints did not converge at t = {t} (|Φ| = {residual:e})")]
    Projection { t: f64, residual: f64 },
    #[error("the contact problem of the step at t = {t} has no solution (the linearised gaps cannot all be kept open)")]
    Contact { t: f64 },
}

/// One rigid body's constant data.
#[derive(Debug, Clone)]
struct Body {
    mass: f64,
    inertia: V3,
    force: V3,
    force_at: V3,
}

/// One joint: its two sides (`None` = ground) and its geometry.
#[derive(Debug, Clone)]
pub(super) struct Joint {
    pub(super) sides: [Option<usize>; 2],
    pub(super) geometry: Geometry,
}

/// The bodies and ideal joints of a `Multibody`, ready to integrate.
#[derive(Debug, Clone)]
pub struct Mechanism {
    bodies: Vec<Body>,
    pub(super) joints: Vec<Joint>,
    /// The clearance joints' contact points (`contact.rs`), and whether any is rigid
    /// (`impacts.rs`; none spares a compliant model's every evaluation the look for held ones).
    pub(super) contacts: Vec<Contact>,
    pub(super) any_rigid: bool,
    gravity: V3,
    /// Constraint rows over all joints.
    pub(super) rows: usize,
    /// The constraint rows at each body (its joints' rows, ascending): the sparsity of
    /// `Φ_q` that `Gram` assembles and factors by.
    pub(super) rows_at_body: Vec<Vec<usize>>,
}

/// The accelerations and multipliers at one state.
pub(crate) struct Solved {
    /// `v̇` per body: `[r̈, ω̇']`.
    vdot: DVector<f64>,
    /// `λ`, joint by joint in the order of the `Multibody`.
    pub(crate) lambda: DVector<f64>,
}

impl Mechanism {
    /// The mechanism of `mb` and its initial state (poses, velocities with the angular
    /// velocity given in the global frame, then made consistent with the joints).
    pub fn new(mb: &Multibody) -> Result<(Mechanism, Vec<f64>), Degenerate> {
        let nb = mb.bodies.len();
        let layout = Layout { nb };
        let mut y = vec![0.0; layout.state_len()];
        let mut bodies = Vec::with_capacity(nb);
        for (i, (_, b)) in mb.bodies.iter().enumerate() {
            y[layout.position(i)].copy_from_slice(&b.position);
            y[layout.orientation(i)].copy_from_slice(&b.orientation);
            let w_body = rotation(&b.orientation).transpose() * V3::from(b.angular_velocity);
            let v = &mut y[layout.velocity(i)];
            v[LINEAR].copy_from_slice(&b.velocity);
            v[ANGULAR].copy_from_slice(w_body.as_slice());
            bodies.push(Body {
                mass: b.mass,
                inertia: V3::from(b.inertia),
                force: V3::from(b.force),
                force_at: V3::from(b.force_at),
            });
        }
        let mut mech = Mechanism {
            bodies,
            joints: Vec::new(),
            contacts: Vec::new(),
            any_rigid: false,
            gravity: V3::from(mb.gravity),
            rows: 0,
            rows_at_body: vec![Vec::new(); nb],
        };
        for (name, j, a, b) in &mb.joints {
            let sides = [*a, *b];
            let at = sides.map(|s| mech.side(&y, s));
            // A clearance of a kind without gaps (spherical, fixed) is refused by the caller;
            // here it would stay ideal.
            let clearance = j.radial_clearance.is_some() || j.axial_clearance.is_some();
            let set = match bilateral(j) {
                Some(set) if clearance => set,
                _ => Bilateral::ideal(&j.kind),
            };
            if clearance {
                for (label, spec) in specs(j, [&at[0], &at[1]]) {
                    mech.contacts.push(Contact {
                        joint: mech.joints.len(),
                        name: format!("{name}.{label}"),
                        spec,
                        law: j.law,
                        mu: j.mu,
                    });
                }
            }
            let geometry = Geometry::new(set, V3::from(j.at), V3::from(j.axis), [&at[0], &at[1]]);
            let rows = mech.rows..mech.rows + geometry.rows();
            for body in sides.iter().flatten() {
                mech.rows_at_body[*body].extend(rows.clone());
            }
            mech.rows = rows.end;
            mech.joints.push(Joint { sides, geometry });
        }
        mech.any_rigid = mech.contacts.iter().any(Contact::rigid);
        mech.project(0.0, &mut y, &[])?;
        Ok((mech, y))
    }

    /// Length of the state vector (13 per body).
    pub(crate) fn state_len(&self) -> usize {
        self.layout().state_len()
    }

    pub(super) fn nb(&self) -> usize {
        self.bodies.len()
    }

    /// Where each body's coordinates sit in `y` (`state.rs`).
    pub(super) fn layout(&self) -> Layout {
        Layout { nb: self.nb() }
    }

    /// Body `i`'s `[r, p]` and `[ṙ, ω']` in `y`.
    pub(super) fn parts<'y>(&self, y: &'y [f64], i: usize) -> (&'y [f64], &'y [f64]) {
        let layout = self.layout();
        (&y[layout.pose(i)], &y[layout.velocity(i)])
    }

    /// One side of a joint at the state `y`.
    pub(super) fn side(&self, y: &[f64], body: Option<usize>) -> Side {
        let Some(i) = body else {
            return Side::ground();
        };
        let (q, v) = self.parts(y, i);
        let a = rotation(&q[ORIENTATION]);
        Side {
            r: V3::from_column_slice(&q[POSITION]),
            a,
            v: V3::from_column_slice(&v[LINEAR]),
            w: a * V3::from_column_slice(&v[ANGULAR]),
        }
    }

    /// Every constraint row at `y` and the Jacobian `Φ_q` in the coordinates
    /// `(δr, δπ')` of each body (`δπ'` body-frame small rotations: `δθ = A δπ'`).
    pub(super) fn constraints(&self, y: &[f64]) -> (Vec<Row>, DMatrix<f64>) {
        let mut rows = Vec::with_capacity(self.rows);
        let mut jac = DMatrix::zeros(self.rows, self.layout().dofs());
        for j in &self.joints {
            let sides = j.sides.map(|s| self.side(y, s));
            let first = rows.len();
            j.geometry.eval(&sides, &mut rows);
            for (r, row) in rows[first..].iter().enumerate() {
                scatter(&mut jac, first + r, row, j, &sides);
            }
        }
        (rows, jac)
    }

    /// `M⁻¹` as its diagonal (`1/m` three times, `1/J'` per principal axis).
    pub(super) fn mass_inverse(&self) -> DVector<f64> {
        DVector::from_iterator(
            self.layout().dofs(),
            self.bodies.iter().flat_map(|b| {
                let m = 1.0 / b.mass;
                [
                    m,
                    m,
                    m,
                    1.0 / b.inertia.x,
                    1.0 / b.inertia.y,
                    1.0 / b.inertia.z,
                ]
            }),
        )
    }

    /// `W⁻¹ b` with `W = Φ_q M⁻¹ Φ_qᵀ` (`gram.rs`), `Φ_q`'s rows at each body `at_body`.
    fn gram_solve(
        t: f64,
        (jac, at_body): (&DMatrix<f64>, &[Vec<usize>]),
        minv: &DVector<f64>,
        b: DVector<f64>,
    ) -> Result<DVector<f64>, Degenerate> {
        let gram = Gram::factor(jac, minv, at_body).ok_or(Degenerate::Singular { t })?;
        Ok(gram.solve(b))
    }

    /// `Φ_q v` (`gram::times`).
    pub(super) fn times(&self, jac: &DMatrix<f64>, v: &DVector<f64>) -> DVector<f64> {
        gram::times(jac, &self.rows_at_body, v)
    }

    /// `Φ_qᵀ λ` (`gram::transpose_times`).
    pub(super) fn transpose_times(
        &self,
        jac: &DMatrix<f64>,
        lambda: &DVector<f64>,
    ) -> DVector<f64> {
        gram::transpose_times(jac, &self.rows_at_body, lambda)
    }

    /// `Q_A − S` at `y` (eq. 8 without constraints), body by body: gravity and the body
    /// force, and the moment of the force about the centre of mass less the gyroscopic term.
    pub(super) fn applied(&self, y: &[f64]) -> DVector<f64> {
        let mut f = DVector::zeros(self.layout().dofs());
        for (i, b) in self.bodies.iter().enumerate() {
            let (q, v) = self.parts(y, i);
            let a = rotation(&q[ORIENTATION]);
            let w = V3::from_column_slice(&v[ANGULAR]);
            let force = self.gravity * b.mass + b.force;
            let torque = b.force_at.cross(&(a.transpose() * b.force))
                - w.cross(&b.inertia.component_mul(&w));
            f.as_mut_slice()[linear(i)].copy_from_slice(force.as_slice());
            f.as_mut_slice()[angular(i)].copy_from_slice(torque.as_slice());
        }
        f
    }

    /// The accelerations and multipliers at `(t, y)` (eq. 8 with the joints and the contact
    /// forces of the clearance joints in `modes`; a held rigid contact is one more row, its
    /// multiplier the normal force, after the joints' in `lambda`).
    pub(crate) fn solve(&self, t: f64, y: &[f64], modes: &Modes) -> Result<Solved, Degenerate> {
        let minv = self.mass_inverse();
        let mut f = self.applied(y);
        self.add_contact_forces(y, modes, &mut f);
        let free = f.component_mul(&minv);
        let held = self.held(modes);
        if self.rows + held.len() == 0 {
            return Ok(Solved {
                vdot: free,
                lambda: DVector::zeros(0),
            });
        }
        let (rows, jac, at_body) = self.constraints_held(y, &held);
        let gamma = DVector::from_iterator(rows.len(), rows.iter().map(|r| r.gamma));
        let b = gamma - gram::times(&jac, &at_body, &free);
        let lambda = Self::gram_solve(t, (&jac, &at_body), &minv, b)?;
        let push = gram::transpose_times(&jac, &at_body, &lambda);
        let vdot = free + push.component_mul(&minv);
        Ok(Solved { vdot, lambda })
    }

    /// The right-hand side `ẏ = [ṙ, ṗ (eq. 9), v̇]`.
    pub(crate) fn rhs(
        &self,
        t: f64,
        y: &[f64],
        modes: &Modes,
        dy: &mut [f64],
    ) -> Result<(), Degenerate> {
        let layout = self.layout();
        let solved = self.solve(t, y, modes)?;
        for i in 0..layout.nb {
            let (q, v) = self.parts(y, i);
            let pdot = rates(&q[ORIENTATION], &V3::from_column_slice(&v[ANGULAR]));
            dy[layout.position(i)].copy_from_slice(&v[LINEAR]);
            dy[layout.orientation(i)].copy_from_slice(&pdot);
        }
        dy[layout.velocities()].copy_from_slice(solved.vdot.as_slice());
        Ok(())
    }

    /// Coordinate projection after an accepted step: `|p| = 1` for each body, then `q` onto
    /// `Φ(q) = 0` by Newton with the mass-weighted least-change correction
    /// `δ = −M⁻¹Φ_qᵀ W⁻¹ Φ`, then `v` onto `Φ_q v = 0` (`project_velocities`). The rigid
    /// contacts `held` (in persistent contact) count as rows `g = 0`.
    pub(crate) fn project(&self, t: f64, y: &mut [f64], held: &[usize]) -> Result<(), Degenerate> {
        self.normalise(y);
        if self.rows + held.len() == 0 {
            return Ok(());
        }
        let minv = self.mass_inverse();
        self.newton_project(t, y, |y| {
            let (rows, jac, at_body) = self.constraints_held(y, held);
            let residual = rows.iter().map(|r| r.phi.abs()).fold(0.0, f64::max);
            if residual <= PROJECTION_TOL {
                return Ok((residual, None));
            }
            let phi = DVector::from_iterator(rows.len(), rows.iter().map(|r| r.phi));
            let mu = Self::gram_solve(t, (&jac, &at_body), &minv, phi)?;
            let delta = -gram::transpose_times(&jac, &at_body, &mu).component_mul(&minv);
            Ok((residual, Some(delta)))
        })?;
        self.project_velocities(t, y, held)?;
        Ok(())
    }

    /// `v` onto `Φ_q v = 0` (the joints and the rigid contacts `held`) at the positions of
    /// `y`: `v −= M⁻¹Φ_qᵀ μ`, `μ = W⁻¹ Φ_q v`, the least-squares projection in the metric of
    /// `M`, which removes only the kinetic energy of the constraint-violating part. The
    /// derivative of `|p| = 1` needs none: in the velocities `ω'` it holds by construction
    /// (`pᵀṗ = 0`, eq. 9). Returns `μ` (`−μ` are the impulses the rows gave, N s).
    pub(super) fn project_velocities(
        &self,
        t: f64,
        y: &mut [f64],
        held: &[usize],
    ) -> Result<DVector<f64>, Degenerate> {
        if self.rows + held.len() == 0 {
            return Ok(DVector::zeros(0));
        }
        let velocities = self.layout().velocities();
        let minv = self.mass_inverse();
        let (_, jac, at_body) = self.constraints_held(y, held);
        let v = DVector::from_column_slice(&y[velocities.clone()]);
        let b = gram::times(&jac, &at_body, &v);
        let mu = Self::gram_solve(t, (&jac, &at_body), &minv, b)?;
        let v = v - gram::transpose_times(&jac, &at_body, &mu).component_mul(&minv);
        y[velocities].copy_from_slice(v.as_slice());
        Ok(mu)
    }

    /// `|p| = 1` for each body (eq. 14).
    pub(super) fn normalise(&self, y: &mut [f64]) {
        let layout = self.layout();
        for i in 0..layout.nb {
            let p = &mut y[layout.orientation(i)];
            let n = p.iter().map(|x| x * x).sum::<f64>().sqrt();
            p.iter_mut().for_each(|x| *x /= n);
        }
    }

    /// Newton on the positions: `correction(y)` gives the residual at `y` and, while it is
    /// above the projection tolerance, the displacement `δ` that removes it to first order;
    /// `PROJECTION_MAX_ITERATIONS` of them at most.
    pub(super) fn newton_project(
        &self,
        t: f64,
        y: &mut [f64],
        mut correction: impl FnMut(&[f64]) -> Result<(f64, Option<DVector<f64>>), Degenerate>,
    ) -> Result<(), Degenerate> {
        let mut residual = 0.0;
        for _ in 0..PROJECTION_MAX_ITERATIONS {
            let delta;
            (residual, delta) = correction(y)?;
            match delta {
                None => return Ok(()),
                Some(delta) => self.displace(y, &delta),
            }
        }
        match correction(y)? {
            (_, None) => Ok(()),
            _ => Err(Degenerate::Projection { t, residual }),
        }
    }

    /// `q` moved by `δ = (δr, δπ')` per body.
    pub(super) fn displace(&self, y: &mut [f64], delta: &DVector<f64>) {
        let (layout, delta) = (self.layout(), delta.as_slice());
        for i in 0..layout.nb {
            for (r, d) in y[layout.position(i)].iter_mut().zip(&delta[linear(i)]) {
                *r += d;
            }
            let d = V3::from_column_slice(&delta[angular(i)]);
            let p = turned(&y[layout.orientation(i)], &d);
            y[layout.orientation(i)].copy_from_slice(&p);
        }
    }

    /// Kinetic and potential energy (J): `½ m|ṙ|² + ½ ω'ᵀJω'`, and `−(m g + F)·r − F·A s'_F`
    /// (gravity and the constant force are conservative: both are fixed in the global frame)
    /// plus the elastic energy stored in the clearance contacts.
    pub fn energy(&self, y: &[f64]) -> (f64, f64) {
        let (mut kinetic, mut potential) = (0.0, 0.0);
        for (i, b) in self.bodies.iter().enumerate() {
            let (q, v) = self.parts(y, i);
            let (r, vel) = (
                V3::from_column_slice(&q[POSITION]),
                V3::from_column_slice(&v[LINEAR]),
            );
            let w = V3::from_column_slice(&v[ANGULAR]);
            kinetic +=
                0.5 * b.mass * vel.norm_squared() + 0.5 * w.dot(&b.inertia.component_mul(&w));
            let at = r + rotation(&q[ORIENTATION]) * b.force_at;
            potential -= b.mass * self.gravity.dot(&r) + b.force.dot(&at);
        }
        (kinetic, potential + self.contact_energy(y))
    }

    /// `max |Φ|` and `max |Φ_q v|` at `y`: the position and velocity constraint violations.
    pub fn violation(&self, y: &[f64]) -> (f64, f64) {
        if self.rows == 0 {
            return (0.0, 0.0);
        }
        let (rows, jac) = self.constraints(y);
        let v = DVector::from_column_slice(&y[self.layout().velocities()]);
        let phi = rows.iter().map(|r| r.phi.abs()).fold(0.0, f64::max);
        (phi, self.times(&jac, &v).amax())
    }

    /// The global angular momentum about the origin, `Σ r × m ṙ + A J ω'` (N m s).
    pub fn angular_momentum(&self, y: &[f64]) -> V3 {
        let mut h = V3::zeros();
        for (i, b) in self.bodies.iter().enumerate() {
            let (q, v) = self.parts(y, i);
            let (r, vel) = (
                V3::from_column_slice(&q[POSITION]),
                V3::from_column_slice(&v[LINEAR]),
            );
            let w = V3::from_column_slice(&v[ANGULAR]);
            h += r.cross(&(vel * b.mass)) + rotation(&q[ORIENTATION]) * b.inertia.component_mul(&w);
        }
        h
    }

    /// Whether nothing acts from outside: no joint to the ground, no gravity, no force (the
    /// total angular momentum is then conserved).
    pub fn is_free(&self) -> bool {
        self.gravity == V3::zeros()
            && self.bodies.iter().all(|b| b.force == V3::zeros())
            && self
                .joints
                .iter()
                .all(|j| j.sides.iter().all(Option::is_some))
    }

    /// The reaction of each joint on its second body (its first when the second is the
    /// ground): force (global, N) and moment about the joint point (global, N m), from the
    /// multipliers `λ` (the generalised reaction is `Φ_qᵀ λ`).
    pub fn reactions(&self, t: f64, y: &[f64], modes: &Modes) -> Result<Vec<[f64; 6]>, Degenerate> {
        Ok(self.reactions_of(y, &self.solve(t, y, modes)?.lambda))
    }

    /// The joints' reactions at `y` (as `reactions`) of the multipliers `lambda` (N, or N m
    /// for the angular rows), joint by joint in the order of the `Multibody`.
    pub fn reactions_of(&self, y: &[f64], lambda: &DVector<f64>) -> Vec<[f64; 6]> {
        let mut out = Vec::with_capacity(self.joints.len());
        let mut first = 0;
        for j in &self.joints {
            let sides = j.sides.map(|s| self.side(y, s));
            let mut rows = Vec::new();
            j.geometry.eval(&sides, &mut rows);
            let k = usize::from(j.sides[1].is_some());
            let arm = j.geometry.arms(&sides)[k];
            let (mut force, mut torque) = (V3::zeros(), V3::zeros());
            for (row, l) in rows.iter().zip(lambda.rows(first, rows.len()).iter()) {
                force += row.jr[k] * *l;
                torque += row.jt[k] * *l;
            }
            first += rows.len();
            let moment = torque - arm.cross(&force);
            out.push([force.x, force.y, force.z, moment.x, moment.y, moment.z]);
        }
        out
    }
}

/// Adds `row` of joint `j` (its sides at the state `sides`) as row `r` of `jac`, in the
/// coordinates `(δr, δπ')` of each body (`δπ'` body-frame: the global `jt` turned by `Aᵀ`).
pub(super) fn scatter(jac: &mut DMatrix<f64>, r: usize, row: &Row, j: &Joint, sides: &[Side; 2]) {
    for (k, body) in j.sides.iter().enumerate() {
        if let Some(i) = body {
            let jt = sides[k].a.transpose() * row.jt[k];
            for (c, (lin, ang)) in linear(*i).zip(angular(*i)).enumerate() {
                jac[(r, lin)] += row.jr[k][c];
                jac[(r, ang)] += jt[c];
            }
        }
    }
}

/// One body's pose and velocity in the output's form.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyState {
    pub r: [f64; 3],
    pub p: [f64; 4],
    /// The rotation vector `θ n` of `p` (rad).
    pub rotation: [f64; 3],
    pub v: [f64; 3],
    /// The angular velocity in the global frame, `A ω'` (rad/s).
    pub w: [f64; 3],
}

impl Mechanism {
    /// Body `i`'s pose and velocity at `y`.
    pub fn body_state(&self, y: &[f64], i: usize) -> BodyState {
        let (q, v) = self.parts(y, i);
        let (r, p, vel) = (&q[POSITION], &q[ORIENTATION], &v[LINEAR]);
        let w = rotation(p) * V3::from_column_slice(&v[ANGULAR]);
        BodyState {
            r: [r[0], r[1], r[2]],
            p: [p[0], p[1], p[2], p[3]],
            rotation: super::kinematics::rotation_vector(p),
            v: [vel[0], vel[1], vel[2]],
            w: [w.x, w.y, w.z],
        }
    }
}
