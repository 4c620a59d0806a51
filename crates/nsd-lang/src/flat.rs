//! The flat, evaluated model that `lang::resolve` produces: every parameter is a number,
//! every template and loop is expanded, every name is unique. Units are SI.
//!
//! Nodes carry DOFs (masses, beam nodes, imported substructures, rigid bodies, and the two
//! fixed carriers `ground` and `base`); elements connect two nodes.

use super::time_fn::TimeFn;
use crate::span::Span;

/// Index into `Model::nodes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub usize);

/// `ground` is always node 0 and `base` node 1.
pub const GROUND: NodeId = NodeId(0);
pub const BASE: NodeId = NodeId(1);

/// A DOF direction: translations, rotations, or the n-th DOF of an imported substructure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    X,
    Y,
    Z,
    Rx,
    Ry,
    Rz,
    Index(u32),
}

impl Dir {
    pub(crate) fn parse(s: &str) -> Option<Dir> {
        Some(match s {
            "x" => Dir::X,
            "y" => Dir::Y,
            "z" => Dir::Z,
            "rx" => Dir::Rx,
            "ry" => Dir::Ry,
            "rz" => Dir::Rz,
            n => Dir::Index(n.parse::<u32>().ok().filter(|i| *i >= 1)?),
        })
    }

    /// Component index 0..3 of a translation, used for gravity.
    pub fn axis(self) -> Option<usize> {
        match self {
            Dir::X => Some(0),
            Dir::Y => Some(1),
            Dir::Z => Some(2),
            _ => None,
        }
    }
}

impl std::fmt::Display for Dir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dir::X => f.write_str("x"),
            Dir::Y => f.write_str("y"),
            Dir::Z => f.write_str("z"),
            Dir::Rx => f.write_str("rx"),
            Dir::Ry => f.write_str("ry"),
            Dir::Rz => f.write_str("rz"),
            Dir::Index(i) => write!(f, "{i}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Ground,
    /// The moving support; its motion is `Model::base`.
    Base,
    Mass,
    BeamNode,
    Substructure,
    Body(Body),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Directions the node can move in (fixed ones included).
    pub dirs: Vec<Dir>,
    /// Directions held by a boundary condition (clamped or pinned beam ends).
    pub fixed: Vec<Dir>,
    /// Lumped mass on each translational direction, kg.
    pub mass: f64,
    pub span: Span,
}

impl Node {
    /// Ground and base carry no unknowns.
    pub fn is_support(&self) -> bool {
        matches!(self.kind, NodeKind::Ground | NodeKind::Base)
    }
}

/// One end of an element: a node, and the direction when the element acts along one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Endpoint {
    pub node: NodeId,
    pub dir: Option<Dir>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    pub name: String,
    pub kind: ElementKind,
    pub a: Endpoint,
    pub b: Endpoint,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ElementKind {
    /// Force `k u + k2 u² + k3 u³` on the relative displacement `u = x_a − x_b`.
    Spring {
        k: f64,
        k2: f64,
        k3: f64,
    },
    Damper {
        c: f64,
    },
    Gap(Gap),
    Friction(Friction),
    Beam(BeamSegment),
    /// A linear substructure from MatrixMarket files (`a` = `b` = its node).
    Matrices(Substructure),
    Joint(Joint),
}

/// Which relative displacements close a gap of clearance `g`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sides {
    /// Contact when `u = x_a − x_b ≥ g`.
    Positive,
    /// Contact when `u ≤ −g`.
    Negative,
    /// Symmetric free-play: contact when `|u| ≥ g`.
    Both,
}

/// Normal contact laws, with `δ` the penetration and `δ̇` its rate (paper 002, eqs. 1–3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ContactLaw {
    /// `k δ` (piecewise-linear spring, paper 000 eq. 2).
    Linear { k: f64 },
    /// `K δⁿ` (eq. 1).
    Hertz { k: f64, n: f64 },
    /// `k δ + c δ̇` (eq. 2), held at zero where it would pull (no adhesion) unless
    /// `tension` (the law of eq. 2 as written, pulling until the contact opens at δ = 0).
    KelvinVoigt { k: f64, c: f64, tension: bool },
    /// `K δⁿ (1 + 3(1 − e)/2 · δ̇/δ̇⁻)` (eq. 3, Hunt–Crossley hysteresis damping).
    HuntCrossley { k: f64, n: f64, e: f64 },
    /// `K δⁿ (1 + 3(1 − e²)/4 · δ̇/δ̇⁻)` (eq. 3, Lankarani–Nikravesh).
    LankaraniNikravesh { k: f64, n: f64, e: f64 },
    /// Rigid stop with Newton restitution `e` (paper 004, Prop. 2.1).
    Impact { e: f64 },
}

/// Regularisation of a piecewise-linear gap for comparison (paper 000, eqs. 7–8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Smoothing {
    /// `2/(1 + e^{−δx}) − 1` (ERRATA: the printed denominator is a misprint).
    Sigmoid {
        delta: f64,
    },
    Tanh {
        delta: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    pub clearance: f64,
    pub sides: Sides,
    pub law: ContactLaw,
    pub smooth: Option<Smoothing>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Friction {
    /// Rigid Coulomb: stick, or slip with force `slip_force = μ N` opposing the relative velocity.
    Coulomb { slip_force: f64 },
    /// Elastic Coulomb (Jenkins): spring `kt` in series with a slider of limit `slip_force`.
    Jenkins { kt: f64, slip_force: f64 },
    /// 2-D contact with normal load variation (paper 003, Sect. 4.1): tangential stiffness `kt`,
    /// normal stiffness `kn`, friction coefficient `mu`, preload `n0`, contact angle (rad).
    Contact2d {
        kt: f64,
        kn: f64,
        mu: f64,
        n0: f64,
        angle: f64,
        tangent: Dir,
        normal: Dir,
    },
}

/// One Euler–Bernoulli beam element (cubic Hermite shape functions) between two beam nodes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BeamSegment {
    /// Bending stiffness E·I, N·m².
    pub ei: f64,
    /// Mass per length ρ·A, kg/m.
    pub rho_a: f64,
    /// Axial stiffness E·A, N, when the beam has an axial DOF.
    pub ea: Option<f64>,
    pub length: f64,
    /// Transverse displacement and rotation directions.
    pub transverse: Dir,
    pub rotation: Dir,
    pub axial: Option<Dir>,
}

/// Linear substructure matrices as `(row, col, value)` triplets, 0-based, full (both triangles).
#[derive(Debug, Clone, PartialEq)]
pub struct Substructure {
    pub size: usize,
    pub m: Vec<(usize, usize, f64)>,
    pub k: Vec<(usize, usize, f64)>,
    pub c: Vec<(usize, usize, f64)>,
}

/// A rigid body (paper 002): mass, principal inertia, initial pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    pub mass: f64,
    /// Principal moments of inertia in the body frame, kg·m².
    pub inertia: [f64; 3],
    pub position: [f64; 3],
    /// Euler parameters (unit quaternion) of the initial orientation.
    pub orientation: [f64; 4],
    pub velocity: [f64; 3],
    pub angular_velocity: [f64; 3],
    /// A constant external force (global frame, N) applied at `force_at` (body frame, m).
    pub force: [f64; 3],
    pub force_at: [f64; 3],
}

#[derive(Debug, Clone, PartialEq)]
pub enum JointKind {
    Revolute,
    Cylindrical,
    /// Prismatic joint whose guide has this polygonal cross-section (vertices in the plane ⟂ axis).
    Prismatic {
        section: Vec<[f64; 2]>,
    },
    Spherical,
    Fixed,
}

/// A kinematic joint; ideal when both clearances are `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    pub kind: JointKind,
    /// Joint location in the global frame at the initial pose, m.
    pub at: [f64; 3],
    /// Unit joint axis, global frame.
    pub axis: [f64; 3],
    /// Journal (pin or rod) radius and bearing length along the axis, m; they place the
    /// contact points of a joint with clearance.
    pub radius: f64,
    pub length: f64,
    pub radial_clearance: Option<f64>,
    pub axial_clearance: Option<f64>,
    /// Contact law inside the clearance: compliant for the `events` backend, `impact(e)`
    /// (rigid, Newton's restitution) for the `timestepping` one.
    pub law: ContactLaw,
    /// Friction coefficient at the clearance contact.
    pub mu: f64,
}

/// An external force on one DOF.
#[derive(Debug, Clone, PartialEq)]
pub struct Force {
    pub target: Endpoint,
    pub f: TimeFn,
    pub(crate) span: Span,
}

/// Prescribed displacement of the base along one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseMotion {
    pub dir: Dir,
    pub y: TimeFn,
    pub(crate) span: Span,
}

/// Proportional damping `C += α M + β K`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rayleigh {
    pub alpha: f64,
    pub beta: f64,
}

/// A resolved model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub name: String,
    /// Parameter values after overrides, in declaration order.
    pub params: Vec<(String, f64)>,
    pub nodes: Vec<Node>,
    pub elements: Vec<Element>,
    pub forces: Vec<Force>,
    pub base: Vec<BaseMotion>,
    pub damping: Option<Rayleigh>,
    /// Gravitational acceleration vector, m/s².
    pub gravity: Option<[f64; 3]>,
    pub(crate) span: Span,
}

impl Model {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0]
    }

    pub fn param(&self, name: &str) -> Option<f64> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// True when the model has rigid bodies (the multibody form).
    pub fn is_multibody(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::Body(_)))
    }
}
