//! The tolerances, iteration caps and search densities of the regime backend, each with what
//! it protects and its unit.

// The excitation (`contact.rs`).

/// Excitation terms whose frequencies differ by less than this fraction are at one frequency
/// (dimensionless).
pub(super) const SAME_FREQUENCY_TOL: f64 = 1e-12;

/// Excitation terms whose phases have `|cos Δφ|` within this of 1 are in phase or in
/// opposition (dimensionless).
pub(super) const IN_PHASE_TOL: f64 = 1e-12;

// The holding force (`no_motion.rs`).

/// At a singular bordered system the holding force is taken on both sides, at `ω(1 ± this)`
/// (dimensionless).
pub(super) const RESONANCE_SIDE_OFFSET: f64 = 1e-7;

/// The two sides' holding forces agreeing to this fraction make λ continuous there, an
/// isolated resonance rather than a peak (dimensionless).
pub(super) const SIDES_AGREE_TOL: f64 = 1e-4;

/// Sub-points per grid interval of the sweep scanned for sign changes of λ, so that a peak
/// and a zero one grid step apart are both seen (count).
pub(super) const SIGN_SCAN_POINTS: usize = 8;

/// Bisections of a sign change of λ at most, to round-off of the swept parameter (count).
pub(super) const SIGN_BISECTIONS: usize = 100;

// The continuous / stick–slip boundary (`stick_slip.rs`).

/// Points of the scan of `D(τ)` over `(0, π)` before its largest sample is refined (count).
pub(super) const STOP_RATIO_SCAN_POINTS: usize = 2048;

/// Golden-section iterations refining the maximum of `D(τ)`, to round-off (count).
pub(super) const GOLDEN_SECTION_ITERATIONS: usize = 60;

// The numerical regime (`classify.rs`).

/// The observation window is the last `1/WINDOW_DIVISOR` of the run (a tenth), at least one
/// cycle (count).
pub(super) const WINDOW_DIVISOR: usize = 10;

/// Stops per cycle of two windows differing by more than this make the cell transient
/// (stops per cycle).
pub(super) const STOPS_PER_CYCLE_TOL: f64 = 0.5;

// The closed-form stick–slip segments (`exact.rs`).

/// The rounding noise of the events, as a fraction of the scale of `w'` or of the contact
/// force: the bounds of the event functions move by this (dimensionless).
pub(super) const EVENT_NOISE: f64 = 1e-12;

/// A positive floor on the curvature bound and the search length, so that a constant event
/// function still gives finite steps (units of `f''` and s).
pub(super) const POSITIVE_FLOOR: f64 = 1e-300;

/// Below this fraction of the shortest period from a bound, the Taylor-safe steps give way
/// to a check for sign changes and touches (dimensionless).
pub(super) const SAFE_STEP_FLOOR: f64 = 1e-6;

/// A Taylor-safe step is shortened by this fraction, so that round-off cannot carry it onto
/// the bound (dimensionless).
pub(super) const SAFE_STEP_MARGIN: f64 = 1e-9;

/// Evaluations at most of the search for a touch between two clear ends (count).
pub(super) const TOUCH_BUDGET: usize = 400;

/// A slip's event function within this fraction of its scale of the bound at rounding level
/// touches it: the slip comes to rest for an instant (dimensionless).
pub(super) const TOUCH_TOL: f64 = 1e-13;

/// Safeguarded Newton iterations at most when refining a crossing (count).
pub(super) const CROSSING_REFINE_MAX_ITERATIONS: usize = 100;

/// Singular values of the projector `I − v vᵀ` (0 or 1) above this span `null(cᵀ)`
/// (dimensionless).
pub(super) const NULL_SPACE_THRESHOLD: f64 = 0.5;

/// More mode switches than this per excitation period are an accumulation (chatter) and end
/// the run (switches per period).
pub(super) const MAX_SWITCHES_PER_PERIOD: f64 = 1e4;

/// Mode changes at one instant at most before the run ends like an accumulation (count).
pub(super) const MAX_STALLED_SWITCHES: usize = 100;

/// The run ends when the time left is below this fraction of the excitation period
/// (dimensionless).
pub(super) const END_TOL: f64 = 1e-12;

/// Where a segment starts on a bound, the first point inside its band is searched from
/// `10^-this` shortest periods on (decades).
pub(super) const ENTRY_FIRST_DECADE: f64 = 12.0;

/// A mode whose band is left within `10^-this` shortest periods cannot be entered; a resumed
/// stick holds at least that long (decades).
pub(super) const ENTRY_DECADE: f64 = 4.0;

/// A resumed stick's hold is searched up to `10^-this` shortest periods (decades).
pub(super) const HOLD_LAST_DECADE: f64 = 1.0;

/// The entry and hold searches try this many points per decade (count).
pub(super) const SEARCH_STEPS_PER_DECADE: f64 = 4.0;

/// A stick whose hold is not found holds this fraction of the shortest period (or of the
/// time left) (dimensionless).
pub(super) const HOLD_FALLBACK: f64 = 0.1;
