//! The one rigid Coulomb contact of a regime problem, in the form every analytic boundary of
//! paper 001 needs: the relative coordinate `w = cᵀx − g(t)` the friction acts on, and the
//! harmonic load `P cos(ωt)` that drives the system.
//!
//! The three wall configurations of the paper are one case each of this form:
//! a ground-fixed wall (`c = e_j`, `g = 0`, Sect. 2), a wall moving with the base
//! (`c = e_j`, `g = Y cos ωt`, Sect. 3, where the paper's `z = x − y` substitution is the same
//! coordinate) and a contact between two masses (`c = e_i − e_j`, `g = 0`, Sect. 4, the
//! paper's `x_d`). Working on `w` directly keeps the boundaries free of per-configuration
//! algebra.

use super::tolerances::{IN_PHASE_TOL, SAME_FREQUENCY_TOL};
use crate::modes::dense_of;
use nalgebra::{DMatrix, DVector};
use nsd_model::flat::Friction;
use nsd_model::system::{Attach, Nonlinearity, System};

/// Which wall the contact rubs against (for reports; the numerics use only `c` and `wall`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wall {
    Ground,
    Base,
    Mass,
}

impl Wall {
    pub fn name(self) -> &'static str {
        match self {
            Wall::Ground => "ground-fixed",
            Wall::Base => "base-fixed",
            Wall::Mass => "mass-fixed",
        }
    }
}

/// A single-harmonic regime problem.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The friction element's name (events of a simulation carry it).
    pub(crate) element: String,
    pub wall: Wall,
    /// The relative coordinate is `w = cᵀx − wall_amplitude · cos(ωt)`.
    pub c: DVector<f64>,
    pub wall_amplitude: f64,
    /// Load amplitudes `P` (base springs × Y plus applied forces), all in phase with `cos ωt`.
    pub load: DVector<f64>,
    pub omega: f64,
    /// The contact's slip force `F = μN`.
    pub slip_force: f64,
    /// The system has viscous damping, which the analytic boundaries ignore.
    pub damped: bool,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetupError {
    #[error("the regime boundaries need exactly one rigid Coulomb contact (found {0})")]
    Contacts(usize),
    #[error("the rigid Coulomb contact `{0}` must touch at least one mass")]
    NoMass(String),
    #[error("the model needs one harmonic excitation: base motion `base = Y * cos(Omega * t)` and/or forces `F * cos(Omega * t)` at one frequency, in phase")]
    Excitation,
}

/// One `A cos(ωt + φ)` term, or `None` for any other time function (a zero function is
/// `Some(None)`).
fn single_harmonic(f: &nsd_model::time_fn::TimeFn) -> Option<Option<(f64, f64, f64)>> {
    let (constant, terms) = f.harmonics()?;
    match terms[..] {
        [] if constant == 0.0 => Some(None),
        [h] if constant == 0.0 => Some(Some((h.amplitude, h.omega, h.phase))),
        _ => None,
    }
}

/// Finds the Coulomb contact and the harmonic excitation of `sys`.
pub fn setup(sys: &System) -> Result<Setup, SetupError> {
    let contacts: Vec<_> = sys
        .nonlinear
        .iter()
        .filter_map(|e| match &e.law {
            Nonlinearity::Friction(Friction::Coulomb { slip_force }) => Some((e, *slip_force)),
            _ => None,
        })
        .collect();
    let [(element, slip_force)] = contacts[..] else {
        return Err(SetupError::Contacts(contacts.len()));
    };
    let n = sys.n();

    // Every excitation term `A cos(ωt + φ)`, with where it enters: a base direction or a DOF.
    let mut terms: Vec<(Attach, f64, f64, f64)> = Vec::new();
    for b in &sys.base {
        if let Some(h) = single_harmonic(&b.y).ok_or(SetupError::Excitation)? {
            terms.push((Attach::Base(b.dir), h.0, h.1, h.2));
        }
    }
    for f in &sys.forces {
        if let Some(h) = single_harmonic(&f.f).ok_or(SetupError::Excitation)? {
            terms.push((Attach::Dof(f.dof), h.0, h.1, h.2));
        }
    }
    let &(_, _, omega, phase) = terms.first().ok_or(SetupError::Excitation)?;
    // Terms in phase (or in opposition, a sign) with the first, at its frequency.
    let mut signed = Vec::new();
    for &(at, amp, w, p) in &terms {
        let alignment = (p - phase).cos();
        if (w.abs() - omega.abs()).abs() > SAME_FREQUENCY_TOL * omega.abs()
            || alignment.abs() < 1.0 - IN_PHASE_TOL
        {
            return Err(SetupError::Excitation);
        }
        signed.push((at, alignment.signum() * amp));
    }
    let amplitude_of = |d| {
        signed
            .iter()
            .filter(|(at, _)| *at == Attach::Base(d))
            .map(|(_, a)| a)
            .sum::<f64>()
    };

    let mut load = DVector::zeros(n);
    for b in &sys.base {
        let y = amplitude_of(b.dir);
        for &(i, k) in &b.stiffness {
            load[i] += k * y;
        }
    }
    for &(at, a) in &signed {
        if let Attach::Dof(i) = at {
            load[i] += a;
        }
    }

    let mut c = DVector::zeros(n);
    // `w = x_a − x_b` with a moving wall's `x = y`: `g` collects the wall terms.
    let (mut wall_amplitude, mut wall, mut masses) = (0.0, Wall::Ground, 0);
    for (side, sign) in [(element.a[0], 1.0), (element.b[0], -1.0)] {
        match side {
            Attach::Dof(i) => {
                c[i] += sign;
                masses += 1;
            }
            Attach::Ground => {}
            Attach::Base(d) => {
                wall = Wall::Base;
                wall_amplitude -= sign * amplitude_of(d);
            }
        }
    }
    match masses {
        0 => return Err(SetupError::NoMass(element.name.clone())),
        2 => wall = Wall::Mass,
        _ => {}
    }
    let damped = sys.c.iter().any(|(v, _)| *v != 0.0)
        || sys
            .base
            .iter()
            .any(|b| b.damping.iter().any(|(_, c)| *c != 0.0));
    Ok(Setup {
        element: element.name.clone(),
        wall,
        c,
        wall_amplitude,
        load,
        omega: omega.abs(),
        slip_force,
        damped,
    })
}

/// Dense copies of the system's K and M.
pub(crate) fn dense_km(sys: &System) -> (DMatrix<f64>, DMatrix<f64>) {
    (dense_of(&sys.k), dense_of(&sys.m))
}

/// Solves the constrained steady state `[A, c; cᵀ, 0][X; λ] = [top; last]` (the contact
/// held at `cᵀX = last` under the load `top`): `X` and the contact force λ, or `None` when
/// the constrained system is singular.
pub(crate) fn constrained(
    a: &DMatrix<f64>,
    c: &DVector<f64>,
    top: &DVector<f64>,
    last: f64,
) -> Option<(DVector<f64>, f64)> {
    let n = a.nrows();
    let bordered = DMatrix::from_fn(n + 1, n + 1, |r, col| match (r < n, col < n) {
        (true, true) => a[(r, col)],
        (true, false) => c[r],
        (false, true) => c[col],
        (false, false) => 0.0,
    });
    let rhs = DVector::from_fn(n + 1, |r, _| if r < n { top[r] } else { last });
    let x = bordered.lu().solve(&rhs)?;
    Some((x.rows(0, n).into_owned(), x[n]))
}
