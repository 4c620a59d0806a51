//! Tolerances and caps of the shooting method for periodic orbits.

/// Relative size of the state perturbation of the Jacobian–vector products `J_m δ` of a
/// mode's vector field by central differences (dimensionless, relative to the state's
/// ∞-norm): exact to round-off for the piecewise-linear laws, whose modes are affine, and
/// `O(ε²)` for smooth nonlinear ones (1e-7 keeps that below 1e-12 for a sigmoid gap
/// whose width is 1e-3 of the state).
pub(crate) const JVP_STEP: f64 = 1e-7;

/// Relative size of the perturbation of an event function or a jump map differenced in the
/// state or time (dimensionless): both are affine in the state, so only round-off limits it.
pub(crate) const SWITCH_STEP: f64 = 1e-6;

/// Smallest state scale the perturbations are taken relative to (state units): a motion at
/// rest.
pub(crate) const STATE_FLOOR: f64 = 1e-12;

/// Most accepted steps of one segment's variational integration: a guard against a
/// segment that cannot be integrated at the tolerances.
pub(crate) const MAX_SEGMENT_STEPS: usize = 1_000_000;

/// Smallest `|ġ|` of an event function at its crossing, relative to `|∇g|·|f|` (dimensionless):
/// below it the crossing is tangential (grazing) and the saltation matrix is unbounded.
pub(crate) const GRAZING_RATE: f64 = 1e-9;

/// Relative step of the parameter in the central difference `∂R/∂p` of the shooting
/// residual (dimensionless, relative to `max(|p|, 1)`).
pub(crate) const PARAM_STEP: f64 = 1e-6;

/// The variational integration's tolerances are this many times the orbit's (dimensionless).
/// `Φ` enters Newton's Jacobian and the multipliers, not the orbit: at the default 1e-10 its
/// error is near 1e-8, far below the stability margin (1e-6), and the augmented system takes
/// half the steps (the smoothed free-play branch: 2.65 → 1.25 ms per monodromy).
pub(crate) const VARIATIONAL_TOL_FACTOR: f64 = 100.0;

/// Most bytes of monodromies a branch keeps to read its points again (64 MiB: every point
/// of a small model's branch, a few hundred of a 100-DOF one).
pub(crate) const MONODROMY_MEMO_BYTES: usize = 64 << 20;
