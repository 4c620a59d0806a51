//! The tolerances of the nonsmooth-mode computations, each with what it protects.

/// A gap within this fraction of `|g₀|` of zero inside a flight, or an impact speed that
/// closes less than this fraction of `|g₀|` over the flight, counts as grazing: the edge of
/// an admissible family, where round-off decides the sign (dimensionless).
pub(super) const NC3_TOUCH: f64 = 1e-10;

/// Halvings of a flight at most while proving its gap positive: 2⁻⁴⁰ of the flight is far
/// below any grazing the tolerance above can see (count).
pub(super) const NC3_MAX_HALVINGS: usize = 40;

/// Samples per shortest linear period when scanning for roots (`φ_T(T)` for one impact, the
/// first impact time for two) before they are refined by bisection (count).
pub(super) const SCAN_PER_PERIOD: f64 = 32.0;

/// Bisections refining a bracketed root, to round-off of the bracket (count).
pub(super) const ROOT_BISECTIONS: usize = 200;

/// An edge of admissibility set by NC3 is located to this fraction of the period: each
/// bisection proves NC3 on a whole orbit (dimensionless).
pub(super) const EDGE_TOL: f64 = 1e-13;

/// Gauss–Newton iterations at most for `k ≥ 3` impact times (count).
pub(super) const SEARCH_MAX_ITERATIONS: usize = 40;

/// Converged when `|Π̃μ|∞` is below this fraction of `|μ|∞`: `Πλ = 0` to round-off
/// (dimensionless).
pub(super) const SEARCH_RESIDUAL: f64 = 1e-12;

/// Central-difference step of the Gauss–Newton Jacobian, as a fraction of the period
/// (dimensionless).
pub(super) const SEARCH_STEP: f64 = 1e-7;

/// A flight shorter than this fraction of the period merges two impacts: the solution is one
/// with fewer impacts and is not kept (dimensionless).
pub(super) const SEARCH_MIN_FLIGHT: f64 = 1e-6;

/// Two solutions at one period are the same when their impact times agree to this fraction of
/// the period (dimensionless).
pub(super) const SEARCH_DISTINCT: f64 = 1e-7;

/// Impact times mirror each other about an axis when they agree to this fraction of the
/// period (dimensionless).
pub(super) const SYMMETRY_TOL: f64 = 1e-9;
