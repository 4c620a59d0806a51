//! Tolerances and caps of the multibody backend, each with what it protects and its unit.

/// Largest constraint residual `|Φ|∞` left by the coordinate projection after an accepted
/// step (m for point and plane rows, dimensionless for the perpendicular-axes rows): the
/// Newton projection stops below it, well under the 1e-10 the acceptance tests demand and
/// a few hundred ulps of a metre-sized mechanism.
pub const PROJECTION_TOL: f64 = 1e-13;

/// Newton iterations of the position projection before it gives up (a drift of one step is
/// removed in one or two; more means the constraints are degenerate at this pose).
pub const PROJECTION_MAX_ITERATIONS: usize = 12;

/// Smallest step, relative to `max(|t|, t1 − t0)`, before the run stops with a step-size
/// underflow (dimensionless): below it `t + h` no longer differs meaningfully from `t`.
pub const STEP_UNDERFLOW: f64 = 1e-14;

/// Largest ratio between the smallest and largest pivots of the constraint Gram matrix
/// `Φ_q M⁻¹ Φ_qᵀ` before it counts as singular (redundant or degenerate joints),
/// dimensionless.
pub const GRAM_CONDITION_MAX: f64 = 1e14;

/// Slack on the last point of an `every(dt)` grid, relative to `dt` (dimensionless): the
/// point `t0 + k dt` that rounds past `t1` by less than this is still sampled (at `t1`).
pub const GRID_END_SLACK: f64 = 1e-9;
