//! The nonlinear elements of the harmonic balance and their forces `F_nl(Q)` with the exact
//! Jacobian: polynomial springs and smoothed gaps by AFT (`aft.rs`), piecewise-linear
//! free-play gaps through their exact contact intervals (`gap.rs`; by AFT on request,
//! `GapMethod`), Jenkins elements and 2-D friction contacts through the exact friction
//! element (`friction.rs`, paper 003 eqs. 24–43), which acts on the harmonics only (no
//! static component, as in the paper). The gathering of an element's coefficients and the
//! scattering of its local matrices through its DOF weights are shared with the Hessian
//! products (`hessian.rs`).

use super::friction::FrictionContact;
use super::{gap, Balance, GapMethod, HbError};
use nalgebra::{DMatrix, DVector};
use nsd_model::flat::{ContactLaw, Friction, Gap, Sides, Smoothing};
use nsd_model::system::{Attach, NonlinearElement, Nonlinearity, System};

/// A nonlinear force on `u = x_a − x_b` (`None` = ground).
#[derive(Debug, Clone, Copy)]
pub(super) enum Law {
    Polynomial {
        k2: f64,
        k3: f64,
    },
    Gap {
        k: f64,
        g: f64,
        sides: Sides,
    },
    /// A free-play gap with smoothed switches (paper 000, eq. 8).
    Smoothed {
        k: f64,
        g: f64,
        sides: Sides,
        s: Smoothing,
    },
}

impl Law {
    /// Force and its derivative with respect to `u`.
    fn eval(self, u: f64) -> (f64, f64) {
        let [f, df, _] = self.derivatives(u);
        (f, df)
    }

    /// Force and its first and second derivatives with respect to `u` (the second is 0
    /// for the piecewise-linear gap, whose kinks the exact gap method accounts for).
    pub(super) fn derivatives(self, u: f64) -> [f64; 3] {
        match self {
            Law::Polynomial { k2, k3 } => [
                k2 * u * u + k3 * u.powi(3),
                2.0 * k2 * u + 3.0 * k3 * u * u,
                2.0 * k2 + 6.0 * k3 * u,
            ],
            Law::Gap { k, g, sides } => {
                if u > g && sides != Sides::Negative {
                    [k * (u - g), k, 0.0]
                } else if u < -g && sides != Sides::Positive {
                    [k * (u + g), k, 0.0]
                } else {
                    [0.0; 3]
                }
            }
            Law::Smoothed { k, g, sides, s } => {
                nsd_model::smoothing::gap_force_derivatives(k, g, sides, s, u)
            }
        }
    }
}

/// DOF weights `(dof, w)` of a relative displacement `u = Σ w q`.
pub(super) type Weights = [(usize, f64)];

/// A nonlinear element of the balance.
#[derive(Debug, Clone)]
pub(super) enum Element {
    /// A scalar law on `u = x_a − x_b` (`None` = ground), by AFT.
    Sampled {
        a: Option<usize>,
        b: Option<usize>,
        law: Law,
    },
    /// A friction contact: the DOF weights of its tangential and normal relative
    /// displacements (`u = Σ w q`; the forces act back through the same weights).
    Friction {
        tangent: Vec<(usize, f64)>,
        normal: Vec<(usize, f64)>,
        contact: FrictionContact,
    },
}

/// The balance's elements for the system's nonlinear elements, in order.
pub(super) fn of_system(sys: &System) -> Result<Vec<Element>, HbError> {
    sys.nonlinear.iter().map(element).collect()
}

/// The DOF an element's side is attached to (`None` = ground); an element on the moving
/// base is not supported.
fn side(a: Attach, name: &str) -> Result<Option<usize>, HbError> {
    match a {
        Attach::Dof(i) => Ok(Some(i)),
        Attach::Ground => Ok(None),
        Attach::Base(_) => Err(HbError::Unsupported {
            element: name.into(),
            what: "a nonlinear element on the moving base",
        }),
    }
}

/// DOF weights of `Σ_d coef_d (x_a,d − x_b,d)` over the element's directions.
fn weights(e: &NonlinearElement, coefs: &[f64]) -> Result<Vec<(usize, f64)>, HbError> {
    let mut w = Vec::new();
    for (d, &coef) in coefs.iter().enumerate() {
        for (at, sign) in [(e.a[d], 1.0), (e.b[d], -1.0)] {
            if let Some(i) = side(at, &e.name)? {
                w.push((i, sign * coef));
            }
        }
    }
    Ok(w)
}

/// The balance's form of one nonlinear element.
fn element(e: &NonlinearElement) -> Result<Element, HbError> {
    let sampled = |law| -> Result<Element, HbError> {
        Ok(Element::Sampled {
            a: side(e.a[0], &e.name)?,
            b: side(e.b[0], &e.name)?,
            law,
        })
    };
    Ok(match &e.law {
        Nonlinearity::Polynomial { k2, k3 } => sampled(Law::Polynomial { k2: *k2, k3: *k3 })?,
        Nonlinearity::Gap(Gap {
            law: ContactLaw::Linear { k },
            smooth: None,
            clearance,
            sides,
        }) => sampled(Law::Gap {
            k: *k,
            g: *clearance,
            sides: *sides,
        })?,
        Nonlinearity::Gap(Gap {
            law: ContactLaw::Linear { k },
            smooth: Some(s),
            clearance,
            sides,
        }) => sampled(Law::Smoothed {
            k: *k,
            g: *clearance,
            sides: *sides,
            s: *s,
        })?,
        // A Jenkins element is the contact with a constant load: μ N₀ = F, k_y = 0.
        Nonlinearity::Friction(Friction::Jenkins { kt, slip_force }) => Element::Friction {
            tangent: weights(e, &[1.0])?,
            normal: Vec::new(),
            contact: FrictionContact {
                kx: *kt,
                ky: 0.0,
                mu: 1.0,
                n0: *slip_force,
            },
        },
        // Tangent t = (cos α, sin α), normal n = (−sin α, cos α) in the plane of the
        // element's two directions; u_n > 0 compresses the contact.
        Nonlinearity::Friction(Friction::Contact2d {
            kt,
            kn,
            mu,
            n0,
            angle,
            ..
        }) => {
            let (s, c) = angle.sin_cos();
            Element::Friction {
                tangent: weights(e, &[c, s])?,
                normal: weights(e, &[-s, c])?,
                contact: FrictionContact {
                    kx: *kt,
                    ky: *kn,
                    mu: *mu,
                    n0: *n0,
                },
            }
        }
        _ => {
            return Err(HbError::Unsupported {
                element: e.name.clone(),
                what: "this contact law (rigid Coulomb contacts, rigid stops and compliant gaps other than `linear(k)`)",
            })
        }
    })
}

impl Balance {
    /// The DOFs the nonlinear elements act on (ascending).
    pub(crate) fn nonlinear_dofs(&self) -> Vec<usize> {
        let mut dofs: Vec<usize> = self
            .elements
            .iter()
            .flat_map(|e| match e {
                Element::Sampled { a, b, .. } => [*a, *b].into_iter().flatten().collect::<Vec<_>>(),
                Element::Friction {
                    tangent, normal, ..
                } => tangent.iter().chain(normal).map(|(i, _)| *i).collect(),
            })
            .collect();
        dofs.sort_unstable();
        dofs.dedup();
        dofs
    }

    /// The stiffness of the system linearised at rest on the fundamental's cosines (`K` plus
    /// the stuck contacts' and closed gaps' stiffness, `n × n`): the nonlinear Jacobian at
    /// zero on the kept DOFs only, so nothing of the balance's full size `n(2H + 1)` is built.
    pub(crate) fn stiffness_at_rest(&self) -> DMatrix<f64> {
        let keep = self.nonlinear_dofs();
        let nc = keep.len();
        let layout = Layout::kept(self.n, &keep);
        let zero = DVector::zeros(nc * self.aft.width());
        let mut k = self.block(super::Operator::Dynamic, 0, 0.0);
        if let (_, Some(j)) = self.nonlinear_in(&layout, &zero, 0.0, true) {
            for (a, &i) in keep.iter().enumerate() {
                for (b, &l) in keep.iter().enumerate() {
                    k[(i, l)] += j[(nc + a, nc + b)];
                }
            }
        }
        k
    }

    /// The coefficients of an element's `u = x_a − x_b`.
    pub(super) fn relative(
        &self,
        q: &DVector<f64>,
        at: &Layout,
        a: Option<usize>,
        b: Option<usize>,
    ) -> Vec<f64> {
        (0..self.aft.width())
            .map(|p| a.map_or(0.0, |i| q[at.at(p, i)]) - b.map_or(0.0, |j| q[at.at(p, j)]))
            .collect()
    }

    /// `F_nl(Q)` and, if asked, its Jacobian, on every coefficient.
    pub(crate) fn nonlinear(
        &self,
        q: &DVector<f64>,
        omega: f64,
        with_jacobian: bool,
    ) -> (DVector<f64>, Option<DMatrix<f64>>) {
        self.nonlinear_in(&Layout::full(self.n), q, omega, with_jacobian)
    }

    /// `F_nl(Q)` and, if asked, its Jacobian in the coefficient layout `at` (`q` in it too):
    /// on the kept DOFs' coefficients only, nothing of the full size is built, so a call
    /// costs the elements' transforms whatever the model's size.
    pub(crate) fn nonlinear_in(
        &self,
        at: &Layout,
        q: &DVector<f64>,
        omega: f64,
        with_jacobian: bool,
    ) -> (DVector<f64>, Option<DMatrix<f64>>) {
        let dim = at.stride * self.aft.width();
        let mut f = DVector::zeros(dim);
        let mut jac = with_jacobian.then(|| DMatrix::zeros(dim, dim));
        for element in &self.elements {
            match element {
                Element::Sampled { a, b, law } => {
                    self.add_sampled(q, at, omega, (*a, *b, *law), &mut f, jac.as_mut())
                }
                Element::Friction {
                    tangent,
                    normal,
                    contact,
                } => self.add_friction(q, at, (tangent, normal), contact, &mut f, jac.as_mut()),
            }
        }
        (f, jac)
    }

    /// A scalar element's forces (and Jacobian) added to `f` (and `jac`).
    fn add_sampled(
        &self,
        q: &DVector<f64>,
        at: &Layout,
        omega: f64,
        (a, b, law): (Option<usize>, Option<usize>, Law),
        f: &mut DVector<f64>,
        jac: Option<&mut DMatrix<f64>>,
    ) {
        let uq = self.relative(q, at, a, b);
        let (coef, je) = match (law, self.gaps) {
            (Law::Gap { k, g, sides }, GapMethod::Exact) => {
                gap::forces(&uq, k, g, sides, jac.is_some())
            }
            _ => {
                let u = self.aft.to_time(&uq, None);
                let (force, slope): (Vec<f64>, Vec<f64>) = u.iter().map(|&x| law.eval(x)).unzip();
                let je = jac
                    .is_some()
                    .then(|| self.aft.jacobian(&slope, &vec![0.0; slope.len()], omega));
                (self.aft.to_coefficients(&force), je)
            }
        };
        for (dof, sign) in [(a, 1.0), (b, -1.0)] {
            let Some(i) = dof else { continue };
            for (p, v) in coef.iter().enumerate() {
                f[at.at(p, i)] += sign * v;
            }
        }
        if let (Some(jac), Some(je)) = (jac, je.as_ref()) {
            scatter_sampled(at, (a, b), je, jac);
        }
    }

    /// A friction contact's harmonic forces (and stiffness) added to `f` (and `jac`): its
    /// displacement harmonics are `X = Σ w_t q`, `Y = Σ w_n q` (harmonics 1…H, coefficient
    /// `p ≥ 1`), its forces act back as `w_t F_x + w_n F_y`.
    fn add_friction(
        &self,
        q: &DVector<f64>,
        at: &Layout,
        (tangent, normal): (&Weights, &Weights),
        contact: &FrictionContact,
        f: &mut DVector<f64>,
        jac: Option<&mut DMatrix<f64>>,
    ) {
        let h2 = 2 * self.aft.harmonics;
        let out = contact.forces(&project(q, at, tangent, h2), &project(q, at, normal, h2));
        for p in 0..h2 {
            for &(i, wi) in tangent {
                f[at.at(p + 1, i)] += wi * out.fx[p];
            }
            for &(i, wi) in normal {
                f[at.at(p + 1, i)] += wi * out.fy[p];
            }
        }
        let Some(jac) = jac else { return };
        let blocks = [
            (tangent, tangent, &out.dfx_dx),
            (tangent, normal, &out.dfx_dy),
            (normal, normal, &out.dfy_dy),
        ];
        for (rows, cols, block) in blocks {
            scatter_friction(at, (rows, cols), block, jac);
        }
    }
}

/// `Σ w q` over an element's DOF weights, coefficients `p = 1…h2` (harmonics 1…H): its
/// relative displacement harmonics (or, for `q = λ`, the multipliers its forces meet).
pub(super) fn project(q: &DVector<f64>, at: &Layout, w: &Weights, h2: usize) -> Vec<f64> {
    (1..=h2)
        .map(|p| w.iter().map(|&(i, wi)| wi * q[at.at(p, i)]).sum())
        .collect()
}

/// A scalar element's local matrix (on the coefficients of `u = x_a − x_b`) added to
/// `out` at the rows and columns of `a` (sign +) and `b` (sign −).
pub(super) fn scatter_sampled(
    at: &Layout,
    (a, b): (Option<usize>, Option<usize>),
    local: &DMatrix<f64>,
    out: &mut DMatrix<f64>,
) {
    for (dof, sign) in [(a, 1.0), (b, -1.0)] {
        let Some(i) = dof else { continue };
        for (other, s2) in [(a, 1.0), (b, -1.0)] {
            let Some(j) = other else { continue };
            for p in 0..local.nrows() {
                for r in 0..local.ncols() {
                    out[(at.at(p, i), at.at(r, j))] += sign * s2 * local[(p, r)];
                }
            }
        }
    }
}

/// A friction contact's local block (harmonics 1…H of its tangential or normal motion)
/// added to `out` through the DOF weights of its rows and columns.
pub(super) fn scatter_friction(
    at: &Layout,
    (rows, cols): (&Weights, &Weights),
    block: &DMatrix<f64>,
    out: &mut DMatrix<f64>,
) {
    for &(i, wi) in rows {
        for &(j, wj) in cols {
            for p in 0..block.nrows() {
                for r in 0..block.ncols() {
                    out[(at.at(p + 1, i), at.at(r + 1, j))] += wi * wj * block[(p, r)];
                }
            }
        }
    }
}

/// Where coefficient `p` of DOF `i` sits in a coefficient vector: `p·stride + slot(i)`, the
/// full layout (`stride = n`, `slot(i) = i`) or the condensed one (`stride = n_c`, `slot(i)`
/// the position of `i` among the kept DOFs, `condense.rs`).
pub(crate) struct Layout {
    pub(super) stride: usize,
    /// The position of each DOF, `None` for the identity.
    slot: Option<Vec<usize>>,
}

impl Layout {
    /// The full layout of `n` DOFs.
    pub(crate) fn full(n: usize) -> Layout {
        Layout {
            stride: n,
            slot: None,
        }
    }

    /// The layout of the `keep` DOFs (ascending) of `n`; the others have no place.
    pub(crate) fn kept(n: usize, keep: &[usize]) -> Layout {
        let mut slot = vec![usize::MAX; n];
        for (j, &i) in keep.iter().enumerate() {
            slot[i] = j;
        }
        Layout {
            stride: keep.len(),
            slot: Some(slot),
        }
    }

    pub(super) fn at(&self, p: usize, i: usize) -> usize {
        p * self.stride + self.slot.as_ref().map_or(i, |s| s[i])
    }
}
