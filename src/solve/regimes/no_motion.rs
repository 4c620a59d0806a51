//! The motion / no-motion boundary of a system with one rigid Coulomb contact against a
//! ground-fixed wall under harmonic base motion (paper 001, Sect. 2.5 and 2.6).
//!
//! No motion is possible when the contact can hold its DOF still: with DOF `j` held, the rest
//! responds linearly, `(K_rr − ω² M_rr) X_r = P_r`, and the wall must supply
//! `F_j = P_j − K_jr X_r`; the mass stays put for a slip force `β ≥ |F_j|`. The boundary's
//! infinite peaks are the resonances of the held ("lower") subsystem that the base drives and
//! that load the contact; its zeros are the antiresonances. Everything comes from the
//! assembled M, K and base coupling, so the same code serves any chain.

use crate::model::system::{Attach, Nonlinearity, System};
use nalgebra::{DMatrix, DVector};

/// The held contact DOF and the harmonic base excitation of a system.
#[derive(Debug, Clone)]
pub struct Setup {
    pub contact: usize,
    /// Base amplitude Y and frequency ω (from `base = Y cos(ω t)`).
    pub amplitude: f64,
    pub omega: f64,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetupError {
    #[error("the model needs exactly one rigid Coulomb contact against `ground` (found {0})")]
    Contacts(usize),
    #[error("the model needs harmonic base motion `base = Y * cos(Omega * t)`")]
    Excitation,
}

/// Finds the ground-fixed Coulomb contact and the harmonic base motion.
pub fn setup(sys: &System) -> Result<Setup, SetupError> {
    let contacts: Vec<usize> = sys
        .nonlinear
        .iter()
        .filter_map(|e| match (&e.law, e.a[0], e.b[0]) {
            (
                Nonlinearity::Friction(crate::model::flat::Friction::Coulomb { .. }),
                Attach::Dof(i),
                Attach::Ground,
            ) => Some(i),
            (
                Nonlinearity::Friction(crate::model::flat::Friction::Coulomb { .. }),
                Attach::Ground,
                Attach::Dof(i),
            ) => Some(i),
            _ => None,
        })
        .collect();
    let [contact] = contacts[..] else {
        return Err(SetupError::Contacts(contacts.len()));
    };
    let base = sys.base.first().ok_or(SetupError::Excitation)?;
    let (_, harmonics) = base.y.harmonics().ok_or(SetupError::Excitation)?;
    let [h] = harmonics[..] else {
        return Err(SetupError::Excitation);
    };
    Ok(Setup {
        contact,
        amplitude: h.amplitude.abs(),
        omega: h.omega.abs(),
    })
}

fn dense(a: &sprs::CsMat<f64>) -> DMatrix<f64> {
    let mut d = DMatrix::zeros(a.rows(), a.cols());
    for (v, (i, j)) in a.iter() {
        d[(i, j)] += *v;
    }
    d
}

/// The base force vector `P` (stiffness coupling times the base amplitude).
pub(crate) fn base_force(sys: &System, s: &Setup) -> DVector<f64> {
    let mut p = DVector::zeros(sys.n());
    if let Some(b) = sys.base.first() {
        for &(i, k) in &b.stiffness {
            p[i] += k * s.amplitude;
        }
    }
    p
}

/// `|F_j|`, the friction force amplitude needed for no motion (the no-motion threshold of β).
/// Infinite at a resonance of the held subsystem.
pub fn holding_force(sys: &System, s: &Setup) -> f64 {
    let (k, m) = (dense(&sys.k), dense(&sys.m));
    let p = base_force(sys, s);
    let rest: Vec<usize> = (0..sys.n()).filter(|&i| i != s.contact).collect();
    let w2 = s.omega * s.omega;
    let a = DMatrix::from_fn(rest.len(), rest.len(), |r, c| {
        k[(rest[r], rest[c])] - w2 * m[(rest[r], rest[c])]
    });
    let pr = DVector::from_iterator(rest.len(), rest.iter().map(|&i| p[i]));
    let x = if rest.is_empty() {
        DVector::zeros(0)
    } else {
        match a.lu().solve(&pr) {
            Some(x) => x,
            None => return f64::INFINITY,
        }
    };
    let coupling: f64 = rest
        .iter()
        .zip(x.iter())
        .map(|(&i, xi)| k[(s.contact, i)] * xi)
        .sum();
    (p[s.contact] - coupling).abs()
}

/// Frequencies at which the threshold is infinite: resonances of the held subsystem whose
/// mode is both driven by the base and loads the contact (`φᵀP ≠ 0`, `φᵀK_rj ≠ 0`).
pub fn peaks(sys: &System, s: &Setup) -> Vec<f64> {
    let (k, m) = (dense(&sys.k), dense(&sys.m));
    let p = base_force(sys, s);
    let rest: Vec<usize> = (0..sys.n()).filter(|&i| i != s.contact).collect();
    if rest.is_empty() {
        return vec![];
    }
    let kr = DMatrix::from_fn(rest.len(), rest.len(), |r, c| k[(rest[r], rest[c])]);
    let mr = DMatrix::from_fn(rest.len(), rest.len(), |r, c| m[(rest[r], rest[c])]);
    let Some(chol) = mr.cholesky() else {
        return vec![];
    };
    let l = chol.l();
    let (Some(x), Some(linv_t)) = (l.solve_lower_triangular(&kr), l.transpose().try_inverse())
    else {
        return vec![];
    };
    let Some(a) = l.solve_lower_triangular(&x.transpose()) else {
        return vec![];
    };
    let eig = ((&a + a.transpose()) * 0.5).symmetric_eigen();
    let scale = p.amax().max(1e-300) * k.amax().max(1e-300);
    let mut out: Vec<f64> = eig
        .eigenvalues
        .iter()
        .zip(eig.eigenvectors.column_iter())
        .filter_map(|(lam, y)| {
            let phi = &linv_t * y;
            let drive: f64 = rest.iter().zip(phi.iter()).map(|(&i, f)| p[i] * f).sum();
            let load: f64 = rest
                .iter()
                .zip(phi.iter())
                .map(|(&i, f)| k[(s.contact, i)] * f)
                .sum();
            (drive.abs() * load.abs() > 1e-12 * scale && *lam > 0.0).then(|| lam.sqrt())
        })
        .collect();
    out.sort_by(f64::total_cmp);
    out
}
