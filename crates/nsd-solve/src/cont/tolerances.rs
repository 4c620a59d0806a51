//! The tolerances, iteration caps and step factors of the continuation, each with what it
//! protects and its unit. The unknowns, the parameter and the residual are the scaled ones
//! (`Scale`), so every tolerance here is dimensionless.

/// Newton iterations at most at a fixed parameter (`newton`: the start of a branch, and the
/// harmonic balance's solve and ramp at one frequency) (count).
pub(crate) const NEWTON_MAX_ITERATIONS: usize = 50;

/// Newton's backtracking multiplies the step by this until the residual decreases
/// (dimensionless).
pub(super) const BACKTRACK_FACTOR: f64 = 0.5;

/// Newton's backtracking stops halving the step below this fraction of it (about 20
/// halvings) and takes it even if the residual grew (dimensionless).
pub(super) const BACKTRACK_MIN_FRACTION: f64 = 1e-6;

/// Iterations at most of the augmented corrector before the step is shortened (count).
pub(super) const CORRECTOR_MAX_ITERATIONS: usize = 8;

/// From this iteration on, a corrector whose correction grew gives up (the step is then
/// shortened) instead of running to `CORRECTOR_MAX_ITERATIONS`: one still diverging after
/// three steps did not converge in the ones left. Earlier iterations may grow: a predictor
/// across a friction contact's stick–slip kink often overshoots once, then converges. On
/// the blade–damper–blade ridge (H = 5) it saves 20 % of the iterations (1226 → 978) with
/// the same points; from the second iteration on it would add 17 points and a restart
/// (count).
pub(super) const CONTRACTION_FROM: usize = 4;

/// A corrector converges only with a correction below this fraction of `1 + |x| + |p|`
/// (dimensionless).
pub(super) const CORRECTION_TOL: f64 = 1e-6;

/// A Newton correction below this fraction of the unknowns' size is at round-off level
/// (dimensionless).
pub(super) const ROUND_OFF_STEP: f64 = 1e-9;

/// The scaled residual a round-off-level correction accepts where cancelling terms keep it
/// above the requested tolerance (dimensionless).
pub(super) const ROUND_OFF_RESIDUAL: f64 = 1e-6;

/// Bisections of the secant by `locate`, to 6e-8 of the step (count).
pub(super) const LOCATE_HALVINGS: usize = 24;

/// Most regula-falsi iterations of `locate_zero` (count): Illinois converges superlinearly,
/// ~10 iterations from a secant-long bracket to round-off on a smooth test function.
pub(super) const ZERO_MAX_ITERATIONS: usize = 40;

/// Bracket of `locate_zero`, as a fraction of the secant, below which it stops
/// (dimensionless): the correction's own accuracy.
pub(super) const ZERO_MIN_BRACKET: f64 = 1e-14;

/// A step whose tangent turned by more than this cosine (about 37°) is retried shorter
/// (dimensionless).
pub(super) const MIN_TURN_COSINE: f64 = 0.8;

/// The step is multiplied by this after an easy correction (dimensionless).
pub(super) const STEP_GROWTH: f64 = 1.5;

/// The step is multiplied by this after a hard, failed or rejected correction
/// (dimensionless).
pub(super) const STEP_SHRINK: f64 = 0.5;

/// Corrections in at most this many iterations are easy: the step grows (count).
pub(super) const EASY_ITERATIONS: usize = 3;

/// Corrections in at least this many iterations are hard: the step shrinks (count).
pub(super) const HARD_ITERATIONS: usize = 6;

/// `cross_corner` probes the linearisation past the corner this multiple of the last step
/// that failed ahead of the last point: the corner lies within that step (dimensionless).
pub(super) const CORNER_PROBE: f64 = 4.0;

/// `cross_corner` halves its step down to this fraction of the last accepted step
/// (dimensionless).
pub(super) const CORNER_MIN_FRACTION: f64 = 1e-3;

/// A point past a corner must leave the old line by this sine of the angle between its
/// offset and the old tangent: below it the correction fell back onto the branch already
/// traced (dimensionless).
pub(super) const CORNER_MIN_SINE: f64 = 0.1;
