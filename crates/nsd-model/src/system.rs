//! The assembled `System`: what every backend consumes. Sparse M, C, K (CSR), the DOF
//! table with human names, excitation, and the nonsmooth/nonlinear elements with their
//! DOF localisation. Multibody models also carry their rigid bodies and joints.

use super::flat::{Body, Dir, Friction, Gap, Joint, NodeId};
use super::time_fn::TimeFn;
use sprs::CsMat;

/// One unknown of the lumped/FE part.
#[derive(Debug, Clone, PartialEq)]
pub struct Dof {
    /// `node.dir`, e.g. `m1.x`, `b[20].y`.
    pub name: String,
    pub node: NodeId,
    pub dir: Dir,
}

/// Where one side of a nonlinear element attaches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Attach {
    Dof(usize),
    Ground,
    /// The base, moving along this direction (or fixed if it has no prescribed motion).
    Base(Dir),
}

/// The nonlinear part of an element, acting on `u = x_a − x_b`.
#[derive(Debug, Clone, PartialEq)]
pub enum Nonlinearity {
    /// The `k2 u² + k3 u³` part of a polynomial spring (its `k u` is in K).
    Polynomial {
        k2: f64,
        k3: f64,
    },
    Gap(Gap),
    Friction(Friction),
}

/// A nonsmooth or nonlinear element, localised on the DOFs.
#[derive(Debug, Clone, PartialEq)]
pub struct NonlinearElement {
    pub name: String,
    pub law: Nonlinearity,
    /// One attachment per side for scalar elements; `[tangent, normal]` for the 2-D contact.
    pub a: Vec<Attach>,
    pub b: Vec<Attach>,
}

/// An external force `f(t)` on a DOF.
#[derive(Debug, Clone, PartialEq)]
pub struct DofForce {
    pub dof: usize,
    pub f: TimeFn,
}

/// Base motion `y(t)` along `dir` and how it enters the equations: the force on DOF i is
/// `Σ k_i y(t) + c_i y'(t)` over the springs and dampers that tie i to the base.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseInput {
    pub dir: Dir,
    pub y: TimeFn,
    pub stiffness: Vec<(usize, f64)>,
    pub damping: Vec<(usize, f64)>,
}

/// Rigid bodies and joints for the nonsmooth multibody backend (paper 002).
#[derive(Debug, Clone, PartialEq)]
pub struct Multibody {
    pub bodies: Vec<(String, Body)>,
    /// Joint name, joint, and the bodies it connects (`None` = ground).
    pub joints: Vec<(String, Joint, Option<usize>, Option<usize>)>,
    pub gravity: [f64; 3],
}

impl Multibody {
    /// Generalised coordinates, 7 per body (paper 002): position of the centre of mass and the
    /// Euler parameters, named `body.x`, `body.y`, `body.z`, `body.e0` … `body.e3`.
    fn coordinate_names(&self) -> Vec<String> {
        let parts = ["x", "y", "z", "e0", "e1", "e2", "e3"];
        self.bodies
            .iter()
            .flat_map(|(b, _)| parts.iter().map(move |p| format!("{b}.{p}")))
            .collect()
    }
}

/// A model warning (floating subsystems, rigid-body modes, …).
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub code: &'static str,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct System {
    pub model: String,
    pub params: Vec<(String, f64)>,
    pub dofs: Vec<Dof>,
    pub m: CsMat<f64>,
    pub c: CsMat<f64>,
    pub k: CsMat<f64>,
    pub forces: Vec<DofForce>,
    pub base: Vec<BaseInput>,
    /// Constant loads (gravity), one entry per DOF.
    pub static_load: Vec<f64>,
    pub nonlinear: Vec<NonlinearElement>,
    pub multibody: Option<Multibody>,
    pub warnings: Vec<Warning>,
}

impl System {
    pub fn n(&self) -> usize {
        self.dofs.len()
    }

    /// The DOF with the largest harmonic load (the sum of its terms' amplitudes), if any: the
    /// default DOF that the analyses of forced responses watch.
    pub fn excited_dof(&self) -> Option<usize> {
        let amplitude = |f: &crate::time_fn::TimeFn| {
            f.harmonics()
                .map_or(0.0, |(_, h)| h.iter().map(|h| h.amplitude.abs()).sum())
        };
        self.forces
            .iter()
            .map(|f| (f.dof, amplitude(&f.f)))
            .filter(|f| f.1 > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|f| f.0)
    }

    /// Every unknown by name: the lumped/FE DOFs, then the rigid-body coordinates.
    pub fn coordinate_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.dofs.iter().map(|d| d.name.clone()).collect();
        if let Some(mb) = &self.multibody {
            names.extend(mb.coordinate_names());
        }
        names
    }

    pub fn dof_index(&self, name: &str) -> Option<usize> {
        self.dofs.iter().position(|d| d.name == name)
    }
}
