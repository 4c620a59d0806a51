//! Tolerances and caps of the multibody backend, each with what it protects and its unit.

/// Largest constraint residual `|Φ|∞` left by the coordinate projection after an accepted
/// step (m for point and plane rows, dimensionless for the perpendicular-axes rows): the
/// Newton projection stops below it, well under the 1e-10 the acceptance tests demand and
/// a few hundred ulps of a metre-sized mechanism.
pub(crate) const PROJECTION_TOL: f64 = 1e-13;

/// Newton iterations of the position projection before it gives up. A drift within the
/// `timestepping` tolerance is removed in one or two; a step forced at `h_min` with a drift
/// beyond the clearance (on `bench/chain20_clearance.nsd` at h ∈ [1e-3, 2e-3], up to 1.2 mm
/// against 0.1 mm) converges only linearly until its residual is about 1e-6 m, in up to 19
/// iterations there; more than this means the constraints are degenerate at this pose.
pub(crate) const PROJECTION_MAX_ITERATIONS: usize = 30;

/// Smallest step, relative to `max(|t|, t1 − t0)`, before the run stops with a step-size
/// underflow (dimensionless): below it `t + h` no longer differs meaningfully from `t`.
pub(crate) const STEP_UNDERFLOW: f64 = 1e-14;

/// Largest ratio between the smallest and largest pivots of the constraint Gram matrix
/// `Φ_q M⁻¹ Φ_qᵀ` before it counts as singular (redundant or degenerate joints),
/// dimensionless.
pub(crate) const GRAM_CONDITION_MAX: f64 = 1e14;

/// Slack on the last point of an `every(dt)` grid, relative to `dt` (dimensionless): the
/// point `t0 + k dt` that rounds past `t1` by less than this is still sampled (at `t1`).
pub(crate) const GRID_END_SLACK: f64 = 1e-9;

/// Eccentricity below which a radial gap's normal is undefined (m): a journal centred to
/// within it takes its first perpendicular as the normal. Its gap is then `c` to this much,
/// so no force acts and the choice only keeps the Jacobian finite.
pub(crate) const NORMAL_UNDEFINED: f64 = 1e-15;

/// Slip speed of the regularised Coulomb friction at clearance contacts (m/s): the friction
/// force is `μ F_n v_t / √(|v_t|² + v_s²)`, so below this relative tangential speed it falls
/// off linearly instead of jumping (no exact stick in the `events` backend).
pub(crate) const FRICTION_SLIP_SPEED: f64 = 1e-4;

/// Points per accepted step (besides its end) at which the gaps are checked for an
/// incursion that enters and leaves inside the step (dimensionless).
pub(crate) const GAP_CHECKS_PER_STEP: usize = 4;

/// Golden-section iterations narrowing the bracket of a penetration's or normal force's
/// peak on a step's dense output (`extremes.rs`; dimensionless): 40 shrink it by
/// `0.618⁴⁰ ≈ 5e-9`, so the value, quadratic about its peak, is found to round-off.
pub(crate) const GOLDEN_ITERATIONS: usize = 40;

/// Offset, relative to a check-point sub-interval, of the probe that tells whether a
/// penetration or normal force rises from the sub-interval's end into it (`extremes.rs`;
/// dimensionless): small enough that the quantity has no extremum in between, large
/// enough that the rise exceeds the gaps' round-off wherever it matters (a rise too small
/// to see ends within `q'²/2q''` of the end value, below round-off).
pub(crate) const SLOPE_PROBE: f64 = 1e-6;

/// Factor on the second difference `|Δ²q|` of three check points bounding how far a
/// penetration or normal force rises above its highest sample between them (`extremes.rs`;
/// dimensionless): a parabola rises at most `|Δ²q|/8`; twice that, for a quantity not
/// quite quadratic over two fifths of a step.
pub(crate) const PEAK_BOUND: f64 = 0.25;

/// Rise of a penetration or normal force, relative to the largest value so far, below which
/// a peak is not searched for (`extremes.rs`; dimensionless): a few hundred ulps, the
/// round-off of a flat maximum, not a peak.
pub(crate) const NEGLIGIBLE_RISE: f64 = 1e-13;

/// Halvings of the bracket of a contact entry or exit on the dense output: 60 bring a step
/// of up to 1 s down to 1e-18 s, below the step's own rounding.
pub(crate) const EVENT_HALVINGS: usize = 60;

/// Smallest pivot of Lemke's method, relative to the largest entry of the Delassus matrix
/// (or 1 kg⁻¹ when smaller; dimensionless): entries below it are round-off of earlier pivots,
/// and pivoting on them would amplify that round-off into the contact impulses.
pub(crate) const LCP_PIVOT_TOL: f64 = 1e-12;

/// Value of Lemke's artificial variable `z₀`, relative to the largest `|b_i|` of the LCP
/// (dimensionless), below which a secondary ray ends the method with the basis's solution
/// (`lcp.rs`): `z₀ = 0` is a solution, and on the degenerate bases of the frictional LCP
/// (opposite friction directions, redundant contacts) round-off of a few ulps breaks the
/// ratio test's tie against `z₀`, leaving it at about 1e-18 of `|b|` before a ray. A real
/// ray (an infeasible problem) leaves `z₀` of the order of `|b|`.
pub(crate) const LCP_ARTIFICIAL_ZERO: f64 = 1e-12;

/// Pivots of Lemke's method per contact row before it gives up (dimensionless): it ends in
/// at most a few pivots per row on the contact problems of a step (usually one or two);
/// the cap only guards against a run that round-off keeps from ending.
pub(crate) const LCP_MAX_PIVOTS_PER_ROW: usize = 50;

/// Slack on the end of the `timestepping` run, relative to the step (dimensionless): a step
/// that ends within it of `t1` ends on `t1`, so rounding in `t + h` never leaves a last step
/// of a few ulps (whose mean contact force, impulse over `h`, would be meaningless).
pub(crate) const STEP_END_SLACK: f64 = 1e-9;

/// Solves of the active-set method (`active_set.rs`) before a step's programme falls back
/// to Lemke's method (dimensionless): the previous step's contacts settle in one or two
/// solves; a set still changing after this many is cycling (on contacts at zero force and
/// zero gap, which round-off moves in and out of the set) or far from the solution.
pub(crate) const ACTIVE_SET_MAX_ITERATIONS: usize = 8;

/// Contact events in a row, each within `ZENO_INTERVAL` of the time scale of the one before,
/// before the `events` backend stops with a diagnostic (dimensionless): a Zeno accumulation
/// of impacts ends in persistent contact within three of them per contact, so a longer run
/// of events at one instant is a chatter the rules do not resolve (never an endless loop).
pub(crate) const EVENTS_AT_ONE_INSTANT: usize = 100;

/// Directions `d` of the polyhedral friction cone of the `timestepping` backend
/// (`friction.rs`; dimensionless, even): the tangent plane of each contact is spanned by
/// `d` unit vectors at equal angles, in opposite pairs, the first along the joint's axis,
/// so sliding along the axis (and, with 8, across it or at 45°) meets the exact Coulomb
/// force; in other directions the friction bound `μ p_n` is met to within `cos(π/d)`
/// (8: 7.6 %) of the circular cone.
pub(crate) const FRICTION_DIRECTIONS: usize = 8;

/// Clearance joints with friction the `timestepping` backend accepts (count): its friction
/// solve is Lemke's method on a dense tableau of every closed frictional contact's normal,
/// cone and slack variables, whose pivots grow with the cube of their number. One
/// triangular slider (12 contact points) takes 0.2 ms a step; a chain of 20 frictional pins
/// (80 points) did not get past t = 0.05 s in 280 s. Above this the run is refused rather
/// than left to stall.
pub const FRICTION_JOINTS_MAX: usize = 4;
