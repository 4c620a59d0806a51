//! The element laws of the hybrid form: the modes of a gap and of a friction element, a gap's
//! penetration law (piecewise-linear or compliant, paper 002 eqs. 1–3), a rigid stop with
//! Newton restitution (paper 004, Prop. 2.1), a rigid Coulomb contact (paper 001, eqs. 3,
//! 11–12) and an elastic Coulomb (Jenkins) element.
//!
//! Each element is split by lifetime: its fixed parameters here (`ContactGap`, `RigidStop`,
//! `Coulomb`, `Jenkins`), its mode and internal state in small `Copy` values (`GapMode`,
//! `Held`, `FrictionMode`, `JenkinsState`, `Contact2dState`) that `ModeState` collects, so
//! an event switches, and shooting saves, the state alone.

use super::super::tolerances::ENTRY_SPEED_FLOOR;
use nsd_model::flat::{ContactLaw, Sides, Smoothing};
use nsd_model::system::Attach;

/// The contact state of one exact gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GapMode {
    Open,
    /// `u ≥ g`: the contact spring acts on `u − g`.
    Plus,
    /// `u ≤ −g`: the contact spring acts on `u + g`.
    Minus,
}

impl GapMode {
    pub(crate) fn name(self) -> &'static str {
        match self {
            GapMode::Open => "open",
            GapMode::Plus => "contact+",
            GapMode::Minus => "contact-",
        }
    }
}

/// A gap with a penetration law (piecewise-linear or compliant, paper 002 eqs. 1–3) acting
/// on `u = x_a − x_b` beyond the clearance `g`.
#[derive(Debug, Clone)]
pub(crate) struct ContactGap {
    pub(crate) name: String,
    pub(super) a: Attach,
    pub(super) b: Attach,
    pub(super) law: ContactLaw,
    pub(super) g: f64,
    pub(super) sides: Sides,
    pub(super) smooth: Option<Smoothing>,
}

impl ContactGap {
    /// Normal force `F(δ, δ̇)` of the law for penetration `δ` and its rate (`law_force`),
    /// `entry_speed` the penetration rate δ̇⁻ at the latest entry (the gap's state).
    pub(super) fn normal_force(&self, entry_speed: f64, delta: f64, rate: f64) -> f64 {
        law_force(self.law, delta, rate, entry_speed)
    }

    /// The law's tangent `(∂F/∂δ, ∂F/∂δ̇)` at `(δ, δ̇)`, differentiated from `normal_force`
    /// (zero where a dissipative law is clamped at zero force).
    pub(super) fn normal_tangent(&self, entry_speed: f64, delta: f64, rate: f64) -> (f64, f64) {
        let slope = |n: f64| n * delta.abs().powf(n - 1.0);
        let power = |n: f64| delta.abs().powf(n).copysign(delta);
        let scaled = |k: f64, n: f64, factor: f64| {
            if self.normal_force(entry_speed, delta, rate) <= 0.0 {
                return (0.0, 0.0);
            }
            if entry_speed > ENTRY_SPEED_FLOOR {
                let d = 1.0 + factor * rate / entry_speed;
                (k * slope(n) * d, k * power(n) * factor / entry_speed)
            } else {
                (k * slope(n), 0.0)
            }
        };
        match self.law {
            ContactLaw::Linear { k } => (k, 0.0),
            ContactLaw::Hertz { k, n } => (k * slope(n), 0.0),
            ContactLaw::KelvinVoigt { k, c, tension } => {
                if tension || k * delta + c * rate > 0.0 {
                    (k, c)
                } else {
                    (0.0, 0.0)
                }
            }
            ContactLaw::HuntCrossley { k, n, e } => scaled(k, n, 1.5 * (1.0 - e)),
            ContactLaw::LankaraniNikravesh { k, n, e } => scaled(k, n, 0.75 * (1.0 - e * e)),
            ContactLaw::Impact { .. } => (0.0, 0.0),
        }
    }

    /// Elastic energy stored at penetration δ, or `None` for a dissipative law.
    pub(super) fn potential(&self, delta: f64) -> Option<f64> {
        law_potential(self.law, delta)
    }
}

/// Normal force `F(δ, δ̇)` of a penetration law (paper 002, eqs. 1–3) for penetration `δ`,
/// its rate `δ̇` and the rate `δ̇⁻` at the latest entry (the hysteresis damping of eq. 3;
/// below `ENTRY_SPEED_FLOOR` the damping is left out). Shared by the DOF gaps here and the
/// multibody clearance joints (`solve::multibody::contact`). The elastic laws continue
/// smoothly past the exit (`k δ`, `k sign(δ)|δ|ⁿ`): the caller's contact mode, not the sign
/// of δ, decides when they act, and a step that crosses the exit is cut at the exit event,
/// so a kink there would only make the error estimate reject steps (the free-play
/// benchmark took 7 500 such rejections). A dissipative law that would pull is clamped at
/// zero (no adhesion) until the exit event at δ = 0. A rigid `impact` law has no force.
pub(crate) fn law_force(law: ContactLaw, delta: f64, rate: f64, entry_speed: f64) -> f64 {
    let power = |n: f64| delta.abs().powf(n).copysign(delta);
    let damping = |factor: f64| {
        if entry_speed > ENTRY_SPEED_FLOOR {
            1.0 + factor * rate / entry_speed
        } else {
            1.0
        }
    };
    match law {
        ContactLaw::Linear { k } => k * delta,
        ContactLaw::Hertz { k, n } => k * power(n),
        ContactLaw::KelvinVoigt { k, c, tension } => {
            let force = k * delta + c * rate;
            if tension {
                force
            } else {
                force.max(0.0)
            }
        }
        ContactLaw::HuntCrossley { k, n, e } => (k * power(n) * damping(1.5 * (1.0 - e))).max(0.0),
        ContactLaw::LankaraniNikravesh { k, n, e } => {
            (k * power(n) * damping(0.75 * (1.0 - e * e))).max(0.0)
        }
        ContactLaw::Impact { .. } => 0.0,
    }
}

/// Elastic energy a penetration law stores at penetration δ (J), or `None` for a dissipative
/// law.
pub(crate) fn law_potential(law: ContactLaw, delta: f64) -> Option<f64> {
    let d = delta.max(0.0);
    match law {
        ContactLaw::Linear { k } => Some(0.5 * k * d * d),
        ContactLaw::Hertz { k, n } => Some(k * d.powf(n + 1.0) / (n + 1.0)),
        _ => None,
    }
}

/// A rigid stop with Newton restitution `e` (paper 004, Prop. 2.1).
#[derive(Debug, Clone)]
pub struct RigidStop {
    pub name: String,
    pub(super) a: Attach,
    pub(super) b: Attach,
    pub(super) g: f64,
    pub(super) sides: Sides,
    pub(crate) e: f64,
    /// The weights `w` of `u = x_a − x_b` and `M⁻¹w`: the direction of the constraint
    /// `wᵀẍ = ÿ_wall` while the stop is held (`Held`), solved once rather than at each hold.
    pub(super) w: Vec<(usize, f64)>,
    pub(super) minv_w: Vec<f64>,
}

/// A stop in persistent contact after a Zeno accumulation or a plastic impact: the
/// constraint `wᵀẍ = ÿ_wall` holds while the contact pushes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Held {
    /// +1 for the positive side (the stop pushes towards −w), −1 for the negative side.
    pub(super) side: f64,
}

/// The state of a rigid Coulomb contact (paper 001, eqs. 3, 11–12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FrictionMode {
    /// Sliding with relative velocity `s > 0`: friction `−F` on side a.
    SlipPos,
    SlipNeg,
    /// `s = 0` held by a friction force of magnitude ≤ F.
    Stick,
    /// No friction force at all (used internally to compute the force sticking requires).
    Free,
}

impl FrictionMode {
    pub(crate) fn name(self) -> &'static str {
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
pub(crate) struct Coulomb {
    pub(crate) name: String,
    pub(super) a: Attach,
    pub(super) b: Attach,
    pub(crate) slip: f64,
    pub(super) w: Vec<(usize, f64)>,
    pub(super) minv_w: Vec<f64>,
}

/// An elastic Coulomb (Jenkins) element on `u = x_a − x_b`: a spring `kt` in series with a
/// slider of limit `F`, whose position `z` is the element's internal state
/// (`JenkinsState`). Stuck, the force is `kt (u − z)`; sliding, `±F` with the slider
/// following `z = u ∓ F/kt`.
#[derive(Debug, Clone)]
pub(crate) struct Jenkins {
    pub(crate) name: String,
    pub(super) a: Attach,
    pub(super) b: Attach,
    pub(super) kt: f64,
    pub(super) slip: f64,
}

/// A Jenkins element's mode and slider position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct JenkinsState {
    pub(crate) mode: FrictionMode,
    /// The slider position `z` (meaningful while stuck).
    pub(crate) z: f64,
}

impl Jenkins {
    /// The force `kt (u − z)` stuck, `±F` sliding, in the state `s`.
    pub(super) fn force(&self, s: JenkinsState, u: f64) -> f64 {
        match s.mode {
            FrictionMode::SlipPos => self.slip,
            FrictionMode::SlipNeg => -self.slip,
            _ => self.kt * (u - s.z),
        }
    }

    /// `∂force/∂u` in the mode `mode`: `kt` while stuck, zero while sliding.
    pub(super) fn stiffness(&self, mode: FrictionMode) -> f64 {
        match mode {
            FrictionMode::SlipPos | FrictionMode::SlipNeg => 0.0,
            _ => self.kt,
        }
    }
}

/// The state of a 2-D friction contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContactMode {
    Stick,
    SlipPos,
    SlipNeg,
    /// `N = 0`: no force at all; the slider follows the tangential motion.
    Separated,
}

impl ContactMode {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ContactMode::Stick => FrictionMode::Stick.name(),
            ContactMode::SlipPos => FrictionMode::SlipPos.name(),
            ContactMode::SlipNeg => FrictionMode::SlipNeg.name(),
            ContactMode::Separated => "separated",
        }
    }

    /// `ξ = ±1` while slipping, 0 otherwise.
    pub(super) fn xi(self) -> f64 {
        match self {
            ContactMode::SlipPos => 1.0,
            ContactMode::SlipNeg => -1.0,
            _ => 0.0,
        }
    }
}

/// A 2-D friction contact's mode and slider position (`contact2d.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Contact2dState {
    pub(crate) mode: ContactMode,
    /// The slider position `w` (meaningful while stuck).
    pub(crate) w: f64,
}
