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
