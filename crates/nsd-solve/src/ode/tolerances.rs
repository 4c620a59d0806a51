//! The named tolerances of the event-driven integration: how small a step may get, how far
//! past a switch the next search starts, when impacts accumulate, when a contact counts as
//! closed, at rest or stuck. Each says what it protects and in which unit.
//!
//! Constants that belong to one published algorithm (Hairer's starting step and controllers
//! in `dop853.rs` and `rodas.rs`, the root isolation budget in `roots/`, the polishing and
//! bracketing of the crossing searches in `driver/crossings.rs`, Hairer's stiffness test in
//! `driver/mod.rs`, the impulse solver in `hybrid/stops.rs`) sit at the top of that file.

// Step control (driver).

/// Most accepted steps one integration may take: past it the run stops with its partial
/// trajectory (`SimError::StepBudget`) rather than run without end (`t = 0..1e308`). A
/// billion steps take 20 minutes on one DOF at the fastest; no published run needs more
/// (steps).
pub const MAX_STEPS: usize = 1_000_000_000;
/// Steps after which a run's pace is judged (a second or less of work) (steps).
pub(crate) const PACE_STEPS: usize = 100_000;
/// A run whose pace so far projects more than this many times `MAX_STEPS` stops at once
/// instead of after the budget: no later stretch of the motion is that much smoother than
/// its first hundred thousand steps (dimensionless).
pub(crate) const PACE_FACTOR: f64 = 1000.0;

/// Smallest step, relative to the time scale `max(|t|, 1 s)`, below which the integration
/// stops with a step-size underflow; a remaining interval to the end time this short is
/// crossed by one Euler step instead, so a run whose last event falls within round-off of
/// its end still ends there (dimensionless).
pub(crate) const MIN_STEP: f64 = 1e-14;
/// Smallest step, relative to the time scale `max(|t|, 1 s)`, that is still shortened when an
/// event search cannot decide or a stuck contact's force fit is poor; a shorter step is taken
/// as it is (dimensionless).
pub(crate) const MIN_SHORTENED_STEP: f64 = 1e-10;
/// Factor on a step whose trial gave no usable error norm (a singular stage matrix, a
/// non-finite norm) (dimensionless).
pub(crate) const UNUSABLE_STEP_CUT: f64 = 0.5;
/// Factor on a step on which an event crossing could not be decided, or against a moving
/// wall whose fit misses the wall by more than the tolerances (dimensionless).
pub(crate) const UNDECIDED_STEP_CUT: f64 = 0.5;
/// Factor on a step over which a stuck contact's needed force is fitted poorly
/// (dimensionless).
pub(crate) const POOR_FIT_STEP_CUT: f64 = 0.25;
/// Smallest first step after an event, relative to the time scale `max(|t|, 1 s)`, however
/// small the step remembered for the new modes (dimensionless).
pub(crate) const MIN_STEP_AFTER_EVENT: f64 = 1e-8;
/// Normalised step time past a restart point where the next event search starts, so that the
/// switch just made is not found again (fraction of the step).
pub(crate) const RESTART_SKIP: f64 = 1e-12;
/// Rounding of a located instant, relative to the time scale `max(|t|, 1 s)`: a switch's time
/// `t + x h` is represented to about an ulp of `t`, so an event function within its rate times
/// this of zero there (and heading through zero) crosses at the same instant, and is switched
/// there too (dimensionless, four rounding units).
pub(crate) const INSTANT_ROUNDING: f64 = 4.0 * f64::EPSILON;

// Event location and actions (driver).

/// Largest deviation of the polynomial fit of a stuck contact's needed force from the true
/// force, relative to its slip force, for the stick-break search to trust it
/// (dimensionless).
pub(crate) const FORCE_FIT_MISFIT: f64 = 1e-6;
/// Floor of a scale that may be zero (a slip force, an approach velocity), so that a test
/// relative to it stays meaningful (the scale's unit).
pub(crate) const TINY: f64 = 1e-300;
/// Largest rebound velocity, relative to the approach velocity, that counts as no rebound:
/// the stop is then held in persistent contact if the loads push into it (dimensionless).
pub(crate) const NO_REBOUND: f64 = 1e-12;
/// Interval between two impacts on one stop, relative to the time scale `max(|t|, 1 s)`,
/// below which the impacts count as a Zeno accumulation (dimensionless).
pub(crate) const ZENO_INTERVAL: f64 = 1e-9;
/// How far past the end time, as a fraction of the sampling interval, a grid time of
/// `Output::Every` is still sampled (round-off in `t0 + k dt`) (dimensionless).
pub(crate) const GRID_END_SLACK: f64 = 1e-12;

// Contacts and friction (hybrid).

/// Entry speed below which a contact law does not scale its damping by it: the contact was
/// entered at rest (m/s).
pub(crate) const ENTRY_SPEED_FLOOR: f64 = 1e-12;
/// Distance from a rigid stop's surface, relative to the clearance scale `max(|g|, 1 m)`,
/// within which a stop counts as closed at a located impact and beyond which an open stop
/// counts as penetrated (dimensionless, the rounding of a located event).
pub(crate) const ON_STOP: f64 = 1e-9;
/// Relative velocity, as a fraction of the largest velocity of the state (at least 1 m/s),
/// below which another sliding contact counts as at rest at a located event and settles
/// with it (dimensionless).
pub(crate) const AT_REST: f64 = 1e-9;
/// Relative excess of a stuck contact's force over its slip force still accepted as sticking
/// (the round-off of the coupled constraint solve) (dimensionless).
pub(crate) const STICK_FORCE_SLACK: f64 = 1e-12;
/// Singular values of the constraints' coupling matrix `[w_iᵀM⁻¹w_j]` at or below which a
/// direction counts as redundant and takes the least-squares force (1/kg).
pub(crate) const REDUNDANT_CONSTRAINT: f64 = 1e-12;

// Taylor steps (taylor.rs).

/// Highest power of the Taylor steps (dimensionless): the step grows as `ε^(1/p)`, so at
/// `p = 16` a thousandfold tighter tolerance costs half as many steps again, and the work per
/// step (`O(p²)` per polynomial spring) stays below DOP853's twelve right-hand sides on small
/// models. On the free-play basin map (~7 contact switches per forcing period cut the steps)
/// order 16 took 10 % less time than 20 and 14 about as much; 24 more.
pub(crate) const TAYLOR_ORDER: usize = 16;
/// Safety factor on the Taylor step size of Jorba and Zou (`e^(−0.7/(p−1))` ≈ 0.95 at
/// p = 16, rounded down) (dimensionless).
pub(crate) const TAYLOR_SAFETY: f64 = 0.9;
/// Factor on a Taylor step on which an event crossing could not be decided
/// (dimensionless).
pub(crate) const TAYLOR_UNDECIDED_CUT: f64 = 0.5;
