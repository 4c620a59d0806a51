//! The fixed part of the hybrid form: what the model sets once and no event changes — the
//! system, `M⁻¹`, the linear part, the loads, the base motion, the polynomial springs, the
//! tangent's pattern and every nonsmooth element's parameters, sorted by law — and the
//! positions and rates of the elements' attachments, walls included.
//!
//! The elements' modes and internal states live apart, in `ModeState` (`state.rs`), so
//! that a switch writes, and shooting saves, small `Copy` data only.

use super::contact2d::Contact2d;
use super::laws::{ContactGap, Coulomb, Jenkins, RigidStop};
use super::linear::LinearPart;
use super::mass::MassSolver;
use super::tangent::TangentForm;
use super::{weights, Unsupported};
use nsd_model::flat::{Dir, Friction};
use nsd_model::system::{Attach, Nonlinearity, System};
use nsd_model::time_fn::Prepared;

/// What the model fixes for the whole integration (see the module docs).
pub struct Form<'s> {
    pub(super) sys: &'s System,
    /// The number of DOFs (the state `y = [x, ẋ]` has `2n` components).
    pub(super) n: usize,
    pub(super) mass: MassSolver,
    /// Polynomial springs: sides, `k2`, `k3`.
    pub(super) poly: Vec<(Attach, Attach, f64, f64)>,
    /// Base motion per direction: `y`, `ẏ`, `ÿ`.
    pub(super) base: Vec<(Dir, Prepared, Prepared, Prepared)>,
    /// The DOF forces, prepared for fast evaluation.
    pub(super) loads: Vec<(usize, Prepared)>,
    /// `K` and `C` in the layout of their product (`linear.rs`).
    pub(super) linear: LinearPart,
    /// The exact linearisation's pattern, and the storage its values are written into at
    /// each evaluation (`None` for asymmetric `M`, `K`, `C`).
    pub(super) tangent: Option<TangentForm>,
    /// Gaps with a penetration law (exact or smoothed).
    pub(crate) gaps: Vec<ContactGap>,
    pub stops: Vec<RigidStop>,
    /// Rigid Coulomb contacts.
    pub(crate) friction: Vec<Coulomb>,
    pub(crate) jenkins: Vec<Jenkins>,
    pub(crate) contacts: Vec<Contact2d>,
}

/// The nonlinear elements of a system, sorted by how the integration treats them. The
/// rigid stops' and Coulomb contacts' `w` and `M⁻¹w` are left empty: the mass is factorised
/// once the elements are known to be integrable (`Form::new` fills them).
#[derive(Default)]
struct Elements {
    gaps: Vec<ContactGap>,
    stops: Vec<RigidStop>,
    poly: Vec<(Attach, Attach, f64, f64)>,
    jenkins: Vec<Jenkins>,
    contacts: Vec<Contact2d>,
    coulomb: Vec<Coulomb>,
}

impl Elements {
    /// Sorts the elements of `sys`; with `smooth_only`, every gap must be smoothed.
    fn sort(sys: &System, smooth_only: bool) -> Result<Elements, Unsupported> {
        let mut out = Elements::default();
        for el in &sys.nonlinear {
            let (a, b) = (el.a[0], el.b[0]);
            let name = el.name.clone();
            match &el.law {
                Nonlinearity::Polynomial { k2, k3 } => out.poly.push((a, b, *k2, *k3)),
                Nonlinearity::Gap(g) => {
                    if let nsd_model::flat::ContactLaw::Impact { e } = g.law {
                        out.stops.push(RigidStop {
                            name,
                            a,
                            b,
                            g: g.clearance,
                            sides: g.sides,
                            e,
                            w: Vec::new(),
                            minv_w: Vec::new(),
                        });
                        continue;
                    }
                    if smooth_only && g.smooth.is_none() {
                        return Err(Unsupported::Unsmoothed { element: name });
                    }
                    out.gaps.push(ContactGap {
                        name,
                        a,
                        b,
                        law: g.law,
                        g: g.clearance,
                        sides: g.sides,
                        smooth: g.smooth,
                    });
                }
                Nonlinearity::Friction(Friction::Coulomb { slip_force }) => {
                    out.coulomb.push(Coulomb {
                        name,
                        a,
                        b,
                        slip: *slip_force,
                        w: Vec::new(),
                        minv_w: Vec::new(),
                    });
                }
                Nonlinearity::Friction(Friction::Jenkins { kt, slip_force }) => {
                    out.jenkins.push(Jenkins {
                        name,
                        a,
                        b,
                        kt: *kt,
                        slip: *slip_force,
                    });
                }
                Nonlinearity::Friction(Friction::Contact2d {
                    kt,
                    kn,
                    mu,
                    n0,
                    angle,
                    ..
                }) => {
                    let contact =
                        Contact2d::new(name.clone(), &el.a, &el.b, (*kt, *kn, *mu, *n0), *angle)
                            .ok_or(Unsupported::Element {
                                element: name,
                                what: "a 2-D friction contact against the moving base",
                            })?;
                    out.contacts.push(contact);
                }
            }
        }
        Ok(out)
    }
}

impl<'s> Form<'s> {
    /// The form of `sys` (`n > 0` DOFs, no multibody part); with `smooth_only`, every gap
    /// must be smoothed.
    pub(super) fn new(sys: &'s System, smooth_only: bool) -> Result<Form<'s>, Unsupported> {
        let n = sys.n();
        let mut elements = Elements::sort(sys, smooth_only)?;
        let mass = MassSolver::new(sys)?;
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
        // `w` and `M⁻¹w` of each element a bilateral constraint can hold.
        let direction = |a, b| {
            let w = weights(a, b);
            let minv_w = mass.solve_sparse(n, &w);
            (w, minv_w)
        };
        for c in &mut elements.coulomb {
            (c.w, c.minv_w) = direction(c.a, c.b);
        }
        for st in &mut elements.stops {
            (st.w, st.minv_w) = direction(st.a, st.b);
        }
        let poly: Vec<_> = elements.poly.iter().map(|p| weights(p.0, p.1)).collect();
        let gaps: Vec<_> = elements.gaps.iter().map(|g| weights(g.a, g.b)).collect();
        let jenkins: Vec<_> = elements.jenkins.iter().map(|j| weights(j.a, j.b)).collect();
        let tangent = TangentForm::new(sys, [&poly, &gaps, &jenkins], &elements.contacts);
        Ok(Form {
            tangent,
            loads,
            linear: LinearPart::new(sys),
            sys,
            n,
            mass,
            gaps: elements.gaps,
            stops: elements.stops,
            poly: elements.poly,
            base,
            friction: elements.coulomb,
            jenkins: elements.jenkins,
            contacts: elements.contacts,
        })
    }

    /// Displacement (`order = 0`), velocity (1) or acceleration (2) of an attachment's wall.
    pub(super) fn wall_rate(&self, a: Attach, t: f64, order: usize) -> f64 {
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

    /// The moving wall's displacement (`order` 0), velocity (1) or acceleration (2).
    pub(crate) fn wall_motion(&self, d: Dir, t: f64, order: usize) -> f64 {
        self.wall_rate(Attach::Base(d), t, order)
    }

    /// The velocity of an attachment (`v` the DOF velocities; the base's `ẏ`). Inlined, like
    /// `pos`: the right-hand side calls both for every element on every evaluation.
    #[inline(always)]
    pub(super) fn rate(&self, a: Attach, t: f64, v: &[f64]) -> f64 {
        match a {
            Attach::Base(_) => self.wall_rate(a, t, 1),
            _ => self.pos(a, t, v),
        }
    }

    /// The position of an attachment (`y` the DOF displacements; the base's `y`).
    #[inline(always)]
    pub(super) fn pos(&self, a: Attach, t: f64, y: &[f64]) -> f64 {
        match a {
            Attach::Dof(i) => y[i],
            Attach::Ground => 0.0,
            Attach::Base(_) => self.wall_rate(a, t, 0),
        }
    }

    /// An element's relative displacement `u = x_a − x_b` (walls included). Inlined: the
    /// right-hand side calls it for every element on every evaluation.
    #[inline(always)]
    pub(super) fn relative(&self, a: Attach, b: Attach, t: f64, x: &[f64]) -> f64 {
        self.pos(a, t, x) - self.pos(b, t, x)
    }
}
