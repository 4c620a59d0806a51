//! Why an orbit could not be shot: the typed failures of the shooting routes (single and
//! multiple), each carrying the time or parameter where it happened; their messages are the
//! ones the analyses print.

use super::tolerances::MAX_SEGMENT_STEPS;
use crate::cont::ContError;
use crate::ode::driver::FlowError;
use crate::poincare::NoPeriod;
use std::cell::RefCell;

/// A failure of a shot, a sensitivity or a shooting residual.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShootingError {
    /// The model does not resolve or assemble at the parameter value `p` (the front end's
    /// reason, as text).
    #[error("{reason}")]
    System { p: f64, reason: String },
    /// The model at `p` has no forcing period to shoot over.
    #[error("the model {why}")]
    NoPeriod { p: f64, why: NoPeriod },
    /// The model's elements cannot be integrated, or the integration of the orbit failed
    /// (the integrator's error, with its time).
    #[error("{0}")]
    Flow(FlowError),
    /// A Jenkins element: its slider position is not part of the shooting state.
    #[error("`{element}`: a Jenkins element's slider position is not in the shooting state yet")]
    JenkinsSlider { element: String },
    /// A 2-D friction contact: its slider state is not part of the shooting state.
    #[error("`{element}`: a 2-D friction contact's slider state is not in the shooting state yet")]
    ContactSlider { element: String },
    /// Impacts accumulate near `t` (s).
    #[error("impacts accumulate (Zeno) near t = {t}: an orbit resting on a stop is not shot yet")]
    Zeno { t: f64 },
    /// A switch at `t` (s) crossed with zero rate: no saltation matrix exists there.
    #[error("a grazing switch at t = {t} (the event function crosses with zero rate)")]
    Grazing { t: f64 },
    /// A step of the variational equations at `t` (s) could not be computed.
    #[error("a singular step at t = {t}")]
    SingularStep { t: f64 },
    /// The sensitivity became non-finite in the step from `t` (s).
    #[error("a non-finite sensitivity at t = {t}")]
    NonFiniteSensitivity { t: f64 },
    /// One segment of the variational equations took more than `MAX_SEGMENT_STEPS`, at `t`.
    #[error("more than {MAX_SEGMENT_STEPS} steps in one segment")]
    SegmentSteps { t: f64 },
    /// Multiple shooting: segment `segment` of the signature collapsed near `t` (s).
    #[error("segment {segment} of the signature collapsed (a grazing at t ≈ {t})")]
    SegmentCollapsed { segment: usize, t: f64 },
    /// Multiple shooting: the switch times do not increase.
    #[error("the switch times are out of order")]
    SwitchOrder,
    /// The continuation stopped (its reason), after the first shooting failure it met, if
    /// one did.
    #[error("{error} {}", cause.as_deref().map_or_else(String::new, ToString::to_string))]
    Continuation {
        error: ContError,
        cause: Option<Box<ShootingError>>,
    },
}

impl ShootingError {
    /// The continuation's stop `error`, with the first shooting failure the problem kept
    /// (`failure`, as `Shooting` and `MultipleShooting` keep it).
    pub fn continuation(error: ContError, failure: &RefCell<Option<ShootingError>>) -> Self {
        ShootingError::Continuation {
            error,
            cause: failure.borrow().clone().map(Box::new),
        }
    }
}
