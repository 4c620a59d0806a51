//! The hybrid (mode-switching) form of an assembled system for time integration:
//! `M ẍ + C ẋ + K x + f_nl(x, ẋ, t; modes) = f(t)`, state `y = [x, ẋ]`.
//!
//! Each exact piecewise-linear gap has a mode (open, in contact on the positive side, on the
//! negative side); the right-hand side is evaluated from the **mode**, never from the sign of
//! the state, and each mode lists the event functions (linear in the state) whose crossings
//! end it. Smoothed gaps (paper 000, eq. 8) and polynomial springs are plain smooth forces.

mod constraints;
mod stops;

use super::roots::Direction;
use crate::model::flat::{ContactLaw, Sides, Smoothing};
use crate::model::system::{Attach, Nonlinearity, System};
use crate::model::time_fn::Prepared;
use constraints::Bilateral;
use nalgebra::{DMatrix, DVector};

/// The contact state of one exact gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapMode {
    Open,
    /// `u ≥ g`: the contact spring acts on `u − g`.
    Plus,
    /// `u ≤ −g`: the contact spring acts on `u + g`.
    Minus,
}

impl GapMode {
    pub fn name(self) -> &'static str {
        match self {
            GapMode::Open => "open",
            GapMode::Plus => "contact+",
            GapMode::Minus => "contact-",
        }
    }
}

/// Why a system cannot be integrated (yet).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Unsupported {
    #[error("`{element}`: {what} is not integrated yet (the event-driven {what} engine is still to land)")]
    Element { element: String, what: &'static str },
    #[error("`{element}` has no smoothing, but `events = smooth` was asked for; add `smooth = sigmoid(δ)` to the gap")]
    Unsmoothed { element: String },
    #[error("the mass matrix is singular: some DOF carries no mass")]
    SingularMass,
    #[error("rigid bodies and joints are integrated by the multibody time stepping of paper 002, which has not landed yet")]
    Multibody,
    #[error("the model has no DOFs to integrate")]
    Empty,
}

/// A gap with a penetration law (piecewise-linear or compliant, paper 002 eqs. 1–3) acting
/// on `u = x_a − x_b` beyond the clearance `g`.
#[derive(Debug, Clone)]
pub struct ContactGap {
    pub name: String,
    a: Attach,
    b: Attach,
    law: ContactLaw,
    g: f64,
    sides: Sides,
    smooth: Option<Smoothing>,
    /// Penetration rate δ̇⁻ at the latest entry (Hunt–Crossley, Lankarani–Nikravesh).
    entry_speed: f64,
}

impl ContactGap {
    /// Normal force `F(δ, δ̇)` of the law for penetration `δ` and its rate. The elastic laws
    /// continue smoothly past the exit (`k δ`, `k sign(δ)|δ|ⁿ`): the mode, not the sign of
    /// δ, decides when they act, and a step that crosses the exit is cut at the exit event,
    /// so a kink there would only make the error estimate reject steps (the free-play
    /// benchmark took 7 500 such rejections). A dissipative law that would pull is clamped
    /// at zero (no adhesion) until the exit event at δ = 0.
    fn normal_force(&self, delta: f64, rate: f64) -> f64 {
        let power = |n: f64| delta.abs().powf(n).copysign(delta);
        let damping = |factor: f64| {
            if self.entry_speed > 1e-12 {
                1.0 + factor * rate / self.entry_speed
            } else {
                1.0
            }
        };
        match self.law {
            ContactLaw::Linear { k } => k * delta,
            ContactLaw::Hertz { k, n } => k * power(n),
            ContactLaw::KelvinVoigt { k, c } => (k * delta + c * rate).max(0.0),
            ContactLaw::HuntCrossley { k, n, e } => {
                (k * power(n) * damping(1.5 * (1.0 - e))).max(0.0)
            }
            ContactLaw::LankaraniNikravesh { k, n, e } => {
                (k * power(n) * damping(0.75 * (1.0 - e * e))).max(0.0)
            }
            ContactLaw::Impact { .. } => 0.0,
        }
    }

    /// Elastic energy stored at penetration δ, or `None` for a dissipative law.
    fn potential(&self, delta: f64) -> Option<f64> {
        let d = delta.max(0.0);
        match self.law {
            ContactLaw::Linear { k } => Some(0.5 * k * d * d),
            ContactLaw::Hertz { k, n } => Some(k * d.powf(n + 1.0) / (n + 1.0)),
            _ => None,
        }
    }
}

/// A rigid stop with Newton restitution `e` (paper 004, Prop. 2.1).
#[derive(Debug, Clone)]
pub struct RigidStop {
    pub name: String,
    a: Attach,
    b: Attach,
    g: f64,
    sides: Sides,
    pub e: f64,
    /// Persistent contact after a Zeno accumulation or a plastic impact: the constraint
    /// `wᵀẍ = ÿ_wall` holds while the contact pushes.
    held: Option<Held>,
}

/// The data of a stop held in persistent contact.
#[derive(Debug, Clone)]
struct Held {
    w: Vec<(usize, f64)>,
    minv_w: Vec<f64>,
    /// +1 for the positive side (the stop pushes towards −w), −1 for the negative side.
    side: f64,
}

/// The state of a rigid Coulomb contact (paper 001, eqs. 3, 11–12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrictionMode {
    /// Sliding with relative velocity `s > 0`: friction `−F` on side a.
    SlipPos,
    SlipNeg,
    /// `s = 0` held by a friction force of magnitude ≤ F.
    Stick,
    /// No friction force at all (used internally to compute the force sticking requires).
    Free,
}

impl FrictionMode {
    pub fn name(self) -> &'static str {
        match self {
            FrictionMode::SlipPos => "slip+",
            FrictionMode::SlipNeg => "slip-",
            FrictionMode::Stick => "stick",
            FrictionMode::Free => "free",
        }
    }
}

/// A rigid Coulomb contact with slip force `F = μN` on the relative velocity
/// `s = v_a − v_b` (the wall's velocity when a side is the moving base).
#[derive(Debug, Clone)]
pub struct Coulomb {
    pub name: String,
    a: Attach,
    b: Attach,
    pub slip: f64,
    pub mode: FrictionMode,
    w: Vec<(usize, f64)>,
    minv_w: Vec<f64>,
}

/// An elastic Coulomb (Jenkins) element on `u = x_a − x_b`: a spring `kt` in series with a
/// slider of limit `F`, whose position `z` is the element's internal state. Stuck, the force
/// is `kt (u − z)`; sliding, `±F` with the slider following `z = u ∓ F/kt`.
#[derive(Debug, Clone)]
pub struct Jenkins {
    pub name: String,
    a: Attach,
    b: Attach,
    kt: f64,
    slip: f64,
    pub mode: FrictionMode,
    /// The slider position (meaningful while stuck).
    pub z: f64,
}

impl Jenkins {
    fn force(&self, u: f64) -> f64 {
        match self.mode {
            FrictionMode::SlipPos => self.slip,
            FrictionMode::SlipNeg => -self.slip,
            _ => self.kt * (u - self.z),
        }
    }
}

/// What the crossing of an event function does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// A piecewise-linear gap changes mode.
    Switch { gap: usize, to: GapMode },
    /// A rigid stop is hit: the velocities jump by the impact law.
    Impact { stop: usize },
    /// A sliding Coulomb contact's relative velocity reaches zero.
    SlipEnds { contact: usize },
    /// A Jenkins element's spring force reaches `±F` (slip starts) or its sliding stops.
    Jenkins { element: usize, to: FrictionMode },
}

/// An event function `Σ w_i y_i + c`, the crossing direction that triggers it, and its action.
#[derive(Debug, Clone)]
pub struct EventFn {
    pub w: Vec<(usize, f64)>,
    pub c: f64,
    /// A moving-wall term `coef · y_dir(t)` (`order` 0) or `coef · ẏ_dir(t)` (`order` 1)
    /// added to the function (fitted by a polynomial over each step), for elements against
    /// the base: `(dir, coef, order)`.
    pub wall: Option<(crate::model::flat::Dir, f64, usize)>,
    pub dir: Direction,
    pub action: Action,
}

enum MassSolver {
    /// Lumped masses: the inverse of the diagonal.
    Diagonal(Vec<f64>),
    Dense(nalgebra::Cholesky<f64, nalgebra::Dyn>),
    Sparse(Box<sprs_ldl::LdlNumeric<f64, usize>>),
}

/// The integrable form of a system.
pub struct Hybrid<'s> {
    sys: &'s System,
    n: usize,
    mass: MassSolver,
    pub gaps: Vec<ContactGap>,
    pub stops: Vec<RigidStop>,
    /// Exact gaps' modes (smoothed gaps have no mode and stay `Open`).
    pub modes: Vec<GapMode>,
    poly: Vec<(Attach, Attach, f64, f64)>,
    /// Base motion per direction: `y`, `ẏ`, `ÿ`.
    base: Vec<(crate::model::flat::Dir, Prepared, Prepared, Prepared)>,
    /// The DOF forces, prepared for fast evaluation.
    loads: Vec<(usize, Prepared)>,
    /// For small systems, the rows `[K | C]` dense (row-major, `2n` per row).
    dense_kc: Option<Vec<f64>>,
    pub friction: Vec<Coulomb>,
    pub jenkins: Vec<Jenkins>,
    force: Vec<f64>,
    /// Right-hand-side evaluations so far.
    pub evals: usize,
}

impl<'s> Hybrid<'s> {
    pub fn new(sys: &'s System, smooth_only: bool) -> Result<Hybrid<'s>, Unsupported> {
        let n = sys.n();
        if sys.multibody.is_some() {
            return Err(Unsupported::Multibody);
        }
        if n == 0 {
            return Err(Unsupported::Empty);
        }
        let mut gaps = Vec::new();
        let mut stops = Vec::new();
        let mut poly = Vec::new();
        let mut coulomb = Vec::new();
        let mut jenkins = Vec::new();
        for el in &sys.nonlinear {
            let (a, b) = (el.a[0], el.b[0]);
            match &el.law {
                Nonlinearity::Polynomial { k2, k3 } => poly.push((a, b, *k2, *k3)),
                Nonlinearity::Gap(g) if matches!(g.law, ContactLaw::Impact { .. }) => {
                    let ContactLaw::Impact { e } = g.law else {
                        unreachable!("matched above")
                    };
                    stops.push(RigidStop {
                        name: el.name.clone(),
                        a,
                        b,
                        g: g.clearance,
                        sides: g.sides,
                        e,
                        held: None,
                    });
                }
                Nonlinearity::Gap(g) => {
                    if smooth_only && g.smooth.is_none() {
                        return Err(Unsupported::Unsmoothed {
                            element: el.name.clone(),
                        });
                    }
                    gaps.push(ContactGap {
                        name: el.name.clone(),
                        a,
                        b,
                        law: g.law,
                        g: g.clearance,
                        sides: g.sides,
                        smooth: g.smooth,
                        entry_speed: 0.0,
                    });
                }
                Nonlinearity::Friction(crate::model::flat::Friction::Coulomb { slip_force }) => {
                    coulomb.push((el.name.clone(), a, b, *slip_force));
                }
                Nonlinearity::Friction(crate::model::flat::Friction::Jenkins {
                    kt,
                    slip_force,
                }) => {
                    jenkins.push(Jenkins {
                        name: el.name.clone(),
                        a,
                        b,
                        kt: *kt,
                        slip: *slip_force,
                        mode: FrictionMode::Stick,
                        z: 0.0,
                    });
                }
                Nonlinearity::Friction(_) => {
                    return Err(Unsupported::Element {
                        element: el.name.clone(),
                        what: "2-D friction contacts",
                    });
                }
            }
        }
        let diagonal = sys.m.iter().all(|(v, (i, j))| i == j || *v == 0.0);
        let mass = if diagonal {
            let mut inv = vec![0.0; n];
            for (v, (i, _)) in sys.m.iter() {
                inv[i] += *v;
            }
            if inv.iter().any(|m| *m <= 0.0) {
                return Err(Unsupported::SingularMass);
            }
            MassSolver::Diagonal(inv.iter().map(|m| 1.0 / m).collect())
        } else if n <= 500 {
            let mut m = DMatrix::zeros(n, n);
            for (v, (i, j)) in sys.m.iter() {
                m[(i, j)] += *v;
            }
            MassSolver::Dense(m.cholesky().ok_or(Unsupported::SingularMass)?)
        } else {
            let ldl = sprs_ldl::Ldl::new()
                .numeric(sys.m.view())
                .map_err(|_| Unsupported::SingularMass)?;
            MassSolver::Sparse(Box::new(ldl))
        };
        let base = sys
            .base
            .iter()
            .map(|b| {
                let dy = b.y.derivative();
                let ddy = dy.derivative();
                (
                    b.dir,
                    Prepared::new(&b.y),
                    Prepared::new(&dy),
                    Prepared::new(&ddy),
                )
            })
            .collect();
        let loads = sys
            .forces
            .iter()
            .map(|f| (f.dof, Prepared::new(&f.f)))
            .collect();
        let modes = vec![GapMode::Open; gaps.len()];
        // Up to 32 DOFs a dense product beats the sparse one (and most models here are small).
        let dense_kc = (n <= 32).then(|| {
            let mut kc = vec![0.0; 2 * n * n];
            for (v, (i, j)) in sys.k.iter() {
                kc[i * 2 * n + j] += *v;
            }
            for (v, (i, j)) in sys.c.iter() {
                kc[i * 2 * n + n + j] += *v;
            }
            kc
        });
        let mut h = Hybrid {
            loads,
            dense_kc,
            sys,
            n,
            mass,
            gaps,
            stops,
            modes,
            poly,
            base,
            friction: Vec::new(),
            jenkins,
            force: vec![0.0; n],
            evals: 0,
        };
        for (name, a, b, slip) in coulomb {
            let mut w = Vec::with_capacity(2);
            if let Attach::Dof(i) = a {
                w.push((i, 1.0));
            }
            if let Attach::Dof(j) = b {
                w.push((j, -1.0));
            }
            let mut w_full = vec![0.0; n];
            for &(i, wi) in &w {
                w_full[i] += wi;
            }
            let minv_w = h.solve_mass(&w_full);
            h.friction.push(Coulomb {
                name,
                a,
                b,
                slip,
                mode: FrictionMode::Free,
                w,
                minv_w,
            });
        }
        Ok(h)
    }

    /// Displacement (`order = 0`), velocity (1) or acceleration (2) of an attachment's wall.
    fn wall_rate(&self, a: Attach, t: f64, order: usize) -> f64 {
        match a {
            Attach::Base(d) => self
                .base
                .iter()
                .find(|b| b.0 == d)
                .map_or(0.0, |b| match order {
                    0 => b.1.eval(t),
                    1 => b.2.eval(t),
                    _ => b.3.eval(t),
                }),
            _ => 0.0,
        }
    }

    /// Relative velocity `s = v_a − v_b` of a friction contact.
    pub fn slip_velocity(&self, c: usize, t: f64, y: &[f64]) -> f64 {
        let f = &self.friction[c];
        let v = &y[self.n..];
        let side = |a: Attach| match a {
            Attach::Dof(i) => v[i],
            _ => self.wall_rate(a, t, 1),
        };
        side(f.a) - side(f.b)
    }

    /// The friction force (on side a, along w) that sticking needs at `(t, y)`, with the
    /// other stuck contacts and held stops held too (their forces are solved together).
    pub fn stick_force(&mut self, c: usize, t: f64, y: &[f64]) -> f64 {
        let saved = self.friction[c].mode;
        self.friction[c].mode = FrictionMode::Stick;
        let force = self.constraint_force(Bilateral::Stuck(c), t, y);
        self.friction[c].mode = saved;
        force
    }

    /// The modes the contacts `set` take together at `(t, y)`, where each one's relative
    /// velocity is zero (a small complementarity problem, solved by enumeration): every
    /// assignment of stick / slip+ / slip− is tried, those with more stuck contacts first, and
    /// the first consistent one is taken — each stuck contact's force (solved together with
    /// the others, `constraints.rs`) within its slip force, each sliding one accelerating the
    /// way it slides. For one contact this is paper 001's eqs. 11–12: stick if the force it
    /// needs is within `F`, else slide the way that force would push. Round-off relative
    /// velocities of the stuck ones are removed (a joint mass-weighted projection).
    pub fn settle(&mut self, set: &[usize], t: f64, y: &mut [f64]) -> Vec<FrictionMode> {
        const MODES: [FrictionMode; 3] = [
            FrictionMode::Stick,
            FrictionMode::SlipPos,
            FrictionMode::SlipNeg,
        ];
        let m = set.len();
        let mut assignments: Vec<Vec<FrictionMode>> = (0..3usize.pow(m as u32))
            .map(|code| {
                (0..m)
                    .map(|i| MODES[code / 3usize.pow(i as u32) % 3])
                    .collect()
            })
            .collect();
        assignments.sort_by_key(|a| {
            std::cmp::Reverse(a.iter().filter(|&&x| x == FrictionMode::Stick).count())
        });
        let mut dy = vec![0.0; 2 * self.n];
        let mut chosen = None;
        for modes in &assignments {
            for (&c, &mode) in set.iter().zip(modes) {
                self.friction[c].mode = mode;
            }
            self.free_rhs(t, y, &mut dy);
            let forces = self.constrain(t, &mut dy[self.n..]);
            let consistent = set.iter().zip(modes).all(|(&c, &mode)| {
                let f = &self.friction[c];
                match mode {
                    FrictionMode::Stick => forces
                        .iter()
                        .find(|(id, _)| *id == Bilateral::Stuck(c))
                        .is_some_and(|(_, l)| l.abs() <= f.slip * (1.0 + 1e-12)),
                    slip => {
                        let accel = f.w.iter().map(|&(i, wi)| wi * dy[self.n + i]).sum::<f64>()
                            - self.wall_acceleration(f.a, f.b, t);
                        (slip == FrictionMode::SlipPos) == (accel > 0.0)
                    }
                }
            });
            if consistent {
                chosen = Some(modes.clone());
                break;
            }
        }
        // No consistent assignment (a degenerate, exactly balanced case): stick all.
        let modes = chosen.unwrap_or_else(|| vec![FrictionMode::Stick; m]);
        for (&c, &mode) in set.iter().zip(&modes) {
            self.friction[c].mode = mode;
        }
        self.remove_stuck_velocity(t, y);
        modes
    }

    /// Initial friction modes: a rigid contact slides with the initial relative velocity,
    /// else settles (all contacts at rest relative to their walls together); Jenkins
    /// elements start stuck and unstressed.
    pub fn set_friction_from_state(&mut self, t: f64, y: &mut [f64]) {
        self.set_jenkins_from_state(t, y);
        let mut resting = Vec::new();
        for c in 0..self.friction.len() {
            let s = self.slip_velocity(c, t, y);
            self.friction[c].mode = if s > 0.0 {
                FrictionMode::SlipPos
            } else if s < 0.0 {
                FrictionMode::SlipNeg
            } else {
                resting.push(c);
                FrictionMode::Free
            };
        }
        if !resting.is_empty() {
            self.settle(&resting, t, y);
        }
    }

    /// The sliding contacts other than `c` whose relative velocity vanishes at `(t, y)` to
    /// within the rounding of a located event (1e-9 of the velocity scale): they settle
    /// together with `c`.
    pub fn also_at_rest(&self, c: usize, t: f64, y: &[f64]) -> Vec<usize> {
        let scale = y[self.n..].iter().fold(1.0_f64, |a, v| a.max(v.abs()));
        (0..self.friction.len())
            .filter(|&k| k != c)
            .filter(|&k| {
                matches!(
                    self.friction[k].mode,
                    FrictionMode::SlipPos | FrictionMode::SlipNeg
                ) && self.slip_velocity(k, t, y).abs() <= 1e-9 * scale
            })
            .collect()
    }

    pub fn dim(&self) -> usize {
        2 * self.n
    }

    /// The velocity of an attachment (`v` the DOF velocities; the base's `ẏ`).
    fn rate(&self, a: Attach, t: f64, v: &[f64]) -> f64 {
        match a {
            Attach::Base(_) => self.wall_rate(a, t, 1),
            _ => self.pos(a, t, v),
        }
    }

    fn pos(&self, a: Attach, t: f64, y: &[f64]) -> f64 {
        match a {
            Attach::Dof(i) => y[i],
            Attach::Ground => 0.0,
            Attach::Base(_) => self.wall_rate(a, t, 0),
        }
    }

    /// Modes consistent with a state (for the initial condition).
    pub fn set_modes_from_state(&mut self, t: f64, y: &[f64]) {
        let modes: Vec<GapMode> = self
            .gaps
            .iter()
            .map(|gap| {
                let u = self.pos(gap.a, t, y) - self.pos(gap.b, t, y);
                if gap.smooth.is_some() {
                    GapMode::Open
                } else if u > gap.g && gap.sides != Sides::Negative {
                    GapMode::Plus
                } else if u < -gap.g && gap.sides != Sides::Positive {
                    GapMode::Minus
                } else {
                    GapMode::Open
                }
            })
            .collect();
        self.modes = modes;
    }

    /// `ẏ = [ẋ, M⁻¹ (f(t) − C ẋ − K x − f_nl + Σ λ w)]` in the current modes, the `λ` of the
    /// bilateral constraints (stuck contacts, held stops) solved together.
    pub fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self.free_rhs(t, y, dy);
        self.constrain(t, &mut dy[self.n..]);
    }

    /// The right-hand side without the bilateral constraints' forces.
    fn free_rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self.evals += 1;
        let n = self.n;
        let (x, v) = y.split_at(n);
        let mut force = std::mem::take(&mut self.force);
        let f = force.as_mut_slice();
        f.copy_from_slice(&self.sys.static_load);
        for (dof, load) in &self.loads {
            f[*dof] += load.eval(t);
        }
        for (b, (_, yb, dyb, _)) in self.sys.base.iter().zip(&self.base) {
            let (yv, dv) = (yb.eval(t), dyb.eval(t));
            for &(i, k) in &b.stiffness {
                f[i] += k * yv;
            }
            for &(i, c) in &b.damping {
                f[i] += c * dv;
            }
        }
        match &self.dense_kc {
            // Small systems: dense rows [K | C] against [x; v] (no sparse indexing).
            Some(kc) => {
                for (row, fr) in kc.chunks_exact(2 * n).zip(f.iter_mut()) {
                    let (kr, cr) = row.split_at(n);
                    let kx: f64 = kr.iter().zip(x).map(|(a, b)| a * b).sum();
                    let cv: f64 = cr.iter().zip(v).map(|(a, b)| a * b).sum();
                    *fr -= kx + cv;
                }
            }
            None => {
                for (row, (kr, cr)) in self
                    .sys
                    .k
                    .outer_iterator()
                    .zip(self.sys.c.outer_iterator())
                    .enumerate()
                {
                    let kx: f64 = kr.iter().map(|(j, k)| k * x[j]).sum();
                    let cv: f64 = cr.iter().map(|(j, c)| c * v[j]).sum();
                    f[row] -= kx + cv;
                }
            }
        }
        let apply = |a: Attach, b: Attach, force: f64, f: &mut [f64]| {
            if let Attach::Dof(i) = a {
                f[i] -= force;
            }
            if let Attach::Dof(j) = b {
                f[j] += force;
            }
        };
        for &(a, b, k2, k3) in &self.poly {
            let u = self.pos(a, t, x) - self.pos(b, t, x);
            apply(a, b, k2 * u * u + k3 * u * u * u, f);
        }
        for (gap, mode) in self.gaps.iter().zip(&self.modes) {
            let u = self.pos(gap.a, t, x) - self.pos(gap.b, t, x);
            let rate = self.rate(gap.a, t, v) - self.rate(gap.b, t, v);
            let force = match (gap.smooth, gap.law, mode) {
                (Some(s), ContactLaw::Linear { k }, _) => {
                    crate::model::smoothing::gap_force(k, gap.g, gap.sides, s, u).0
                }
                (_, _, GapMode::Open) => 0.0,
                (_, _, GapMode::Plus) => gap.normal_force(u - gap.g, rate),
                (_, _, GapMode::Minus) => -gap.normal_force(-(u + gap.g), -rate),
            };
            apply(gap.a, gap.b, force, f);
        }
        for fc in &self.friction {
            let force = match fc.mode {
                FrictionMode::SlipPos => fc.slip,
                FrictionMode::SlipNeg => -fc.slip,
                FrictionMode::Stick | FrictionMode::Free => 0.0,
            };
            apply(fc.a, fc.b, force, f);
        }
        for jk in &self.jenkins {
            let u = self.pos(jk.a, t, x) - self.pos(jk.b, t, x);
            apply(jk.a, jk.b, jk.force(u), f);
        }
        dy[..n].copy_from_slice(v);
        match &self.mass {
            MassSolver::Diagonal(inv) => {
                for ((a, fi), mi) in dy[n..].iter_mut().zip(f.iter()).zip(inv) {
                    *a = fi * mi;
                }
            }
            MassSolver::Dense(ch) => {
                let mut acc = DVector::from_column_slice(f);
                ch.solve_mut(&mut acc);
                dy[n..].copy_from_slice(acc.as_slice());
            }
            MassSolver::Sparse(ldl) => {
                let acc: Vec<f64> = ldl.solve(&*f);
                dy[n..].copy_from_slice(&acc);
            }
        }
        self.force = force;
    }

    /// The current modes of every element as a compact key (gaps, Coulomb contacts, Jenkins
    /// sliders, held stops).
    pub fn mode_key(&self) -> Vec<u8> {
        let gaps = self.modes.iter().map(|m| *m as u8);
        let friction = self.friction.iter().map(|c| c.mode as u8);
        let jenkins = self.jenkins.iter().map(|j| j.mode as u8);
        let held = self.stops.iter().map(|s| u8::from(s.held.is_some()));
        gaps.chain(friction).chain(jenkins).chain(held).collect()
    }

    /// The event functions that can end the current modes, and the rigid stops' contacts.
    pub fn events(&self) -> Vec<EventFn> {
        let weights = |a: Attach, b: Attach| {
            let mut w = Vec::with_capacity(2);
            if let Attach::Dof(i) = a {
                w.push((i, 1.0));
            }
            if let Attach::Dof(j) = b {
                w.push((j, -1.0));
            }
            w
        };
        let mut out = Vec::new();
        for (gi, (gap, mode)) in self.gaps.iter().zip(&self.modes).enumerate() {
            if gap.smooth.is_some() {
                continue;
            }
            let w = weights(gap.a, gap.b);
            let mut push = |c: f64, dir, to| {
                out.push(EventFn {
                    wall: wall_term(gap.a, gap.b, 0),
                    w: w.clone(),
                    c,
                    dir,
                    action: Action::Switch { gap: gi, to },
                })
            };
            match mode {
                GapMode::Open => {
                    if gap.sides != Sides::Negative {
                        push(-gap.g, Direction::Rising, GapMode::Plus);
                    }
                    if gap.sides != Sides::Positive {
                        push(gap.g, Direction::Falling, GapMode::Minus);
                    }
                }
                GapMode::Plus => push(-gap.g, Direction::Falling, GapMode::Open),
                GapMode::Minus => push(gap.g, Direction::Rising, GapMode::Open),
            }
        }
        for (ci, fc) in self.friction.iter().enumerate() {
            let dir = match fc.mode {
                FrictionMode::SlipPos => Direction::Falling,
                FrictionMode::SlipNeg => Direction::Rising,
                _ => continue,
            };
            // s = Σ w v − (wall velocity of b) + (wall velocity of a).
            let w = fc.w.iter().map(|&(i, wi)| (self.n + i, wi)).collect();
            let wall = wall_term(fc.a, fc.b, 1);
            out.push(EventFn {
                w,
                c: 0.0,
                wall,
                dir,
                action: Action::SlipEnds { contact: ci },
            });
        }
        for (ji, jk) in self.jenkins.iter().enumerate() {
            let w = weights(jk.a, jk.b);
            let action = |to| Action::Jenkins { element: ji, to };
            match jk.mode {
                // Stuck: kt (u − z) reaches ±F.
                FrictionMode::Stick | FrictionMode::Free => {
                    let reach = jk.slip / jk.kt;
                    out.push(EventFn {
                        wall: wall_term(jk.a, jk.b, 0),
                        w: w.clone(),
                        c: -jk.z - reach,
                        dir: Direction::Rising,
                        action: action(FrictionMode::SlipPos),
                    });
                    out.push(EventFn {
                        wall: wall_term(jk.a, jk.b, 0),
                        w,
                        c: -jk.z + reach,
                        dir: Direction::Falling,
                        action: action(FrictionMode::SlipNeg),
                    });
                }
                // Sliding: u̇ comes back through zero.
                slip => out.push(EventFn {
                    wall: wall_term(jk.a, jk.b, 1),
                    w: w.iter().map(|&(i, wi)| (self.n + i, wi)).collect(),
                    c: 0.0,
                    dir: if slip == FrictionMode::SlipPos {
                        Direction::Falling
                    } else {
                        Direction::Rising
                    },
                    action: action(FrictionMode::Stick),
                }),
            }
        }
        for (si, stop) in self.stops.iter().enumerate() {
            if stop.held.is_some() {
                continue;
            }
            let w = weights(stop.a, stop.b);
            if stop.sides != Sides::Negative {
                out.push(EventFn {
                    wall: wall_term(stop.a, stop.b, 0),
                    w: w.clone(),
                    c: -stop.g,
                    dir: Direction::Rising,
                    action: Action::Impact { stop: si },
                });
            }
            if stop.sides != Sides::Positive {
                out.push(EventFn {
                    wall: wall_term(stop.a, stop.b, 0),
                    w,
                    c: stop.g,
                    dir: Direction::Falling,
                    action: Action::Impact { stop: si },
                });
            }
        }
        out
    }

    /// Switches a Jenkins element at `(t, y)`; a stop re-sticks the slider where the spring
    /// carries exactly the slip force, so the force is continuous.
    pub fn switch_jenkins(&mut self, element: usize, to: FrictionMode, t: f64, y: &[f64]) {
        let (a, b) = (self.jenkins[element].a, self.jenkins[element].b);
        let u = self.pos(a, t, y) - self.pos(b, t, y);
        let jk = &mut self.jenkins[element];
        if to == FrictionMode::Stick {
            jk.z = u - jk.force(u) / jk.kt;
        }
        jk.mode = to;
    }

    /// Initial Jenkins states: stuck, the spring unstressed (`z = u(t0)`).
    fn set_jenkins_from_state(&mut self, t: f64, y: &[f64]) {
        for k in 0..self.jenkins.len() {
            let (a, b) = (self.jenkins[k].a, self.jenkins[k].b);
            let u = self.pos(a, t, y) - self.pos(b, t, y);
            self.jenkins[k].mode = FrictionMode::Stick;
            self.jenkins[k].z = u;
        }
    }

    /// Records the penetration rate at a contact entry (for the laws that scale their
    /// damping by it).
    pub fn enter(&mut self, gap: usize, speed: f64) {
        if let Some(g) = self.gaps.get_mut(gap) {
            g.entry_speed = speed.abs();
        }
    }

    /// The moving wall's displacement (`order` 0), velocity (1) or acceleration (2).
    pub fn wall_motion(&self, d: crate::model::flat::Dir, t: f64, order: usize) -> f64 {
        self.wall_rate(Attach::Base(d), t, order)
    }

    /// `M⁻¹ r`.
    fn solve_mass(&self, r: &[f64]) -> Vec<f64> {
        match &self.mass {
            MassSolver::Diagonal(inv) => r.iter().zip(inv).map(|(a, b)| a * b).collect(),
            MassSolver::Dense(ch) => ch.solve(&DVector::from_column_slice(r)).as_slice().to_vec(),
            MassSolver::Sparse(ldl) => ldl.solve(r),
        }
    }

    /// Total mechanical energy when the system is conservative (no damping, no time-dependent
    /// loads, only elastic nonlinearities and rigid stops with e = 1), else `None`.
    pub fn energy(&self, y: &[f64]) -> Option<f64> {
        let s = self.sys;
        let conservative = s.c.nnz() == 0
            && s.forces.is_empty()
            && s.base.is_empty()
            && self.gaps.iter().all(|g| g.smooth.is_none())
            && self.stops.iter().all(|st| st.e == 1.0 && st.held.is_none())
            && s.nonlinear
                .iter()
                .all(|e| !matches!(e.law, Nonlinearity::Friction(_)));
        if !conservative {
            return None;
        }
        let n = self.n;
        let (x, v) = y.split_at(n);
        let quad = |a: &sprs::CsMat<f64>, z: &[f64]| -> f64 {
            a.iter().map(|(val, (i, j))| z[i] * val * z[j]).sum::<f64>()
        };
        let mut e = 0.5 * quad(&s.m, v) + 0.5 * quad(&s.k, x)
            - s.static_load
                .iter()
                .zip(x)
                .map(|(f, xi)| f * xi)
                .sum::<f64>();
        for &(a, b, k2, k3) in &self.poly {
            let u = self.pos(a, 0.0, x) - self.pos(b, 0.0, x);
            e += k2 * u.powi(3) / 3.0 + k3 * u.powi(4) / 4.0;
        }
        for gap in &self.gaps {
            let u = self.pos(gap.a, 0.0, x) - self.pos(gap.b, 0.0, x);
            if u > gap.g && gap.sides != Sides::Negative {
                e += gap.potential(u - gap.g)?;
            } else if u < -gap.g && gap.sides != Sides::Positive {
                e += gap.potential(-(u + gap.g))?;
            }
        }
        Some(e)
    }
}

/// The moving-wall term of an element's event function `u = x_a − x_b` (or its rate) when a
/// side is the base: `+y` for side a, `−y` for side b.
fn wall_term(a: Attach, b: Attach, order: usize) -> Option<(crate::model::flat::Dir, f64, usize)> {
    match (a, b) {
        (_, Attach::Base(d)) => Some((d, -1.0, order)),
        (Attach::Base(d), _) => Some((d, 1.0, order)),
        _ => None,
    }
}
