//! The backbone's linear-algebra tolerances, each with what it protects and its unit.

/// The block elimination of a ridge form's bordered system (`blocks.rs`) is kept where its
/// refined solution's backward error `|rhs − K d| / (|K| |d| + |rhs|)` is below this; above
/// it (`J` near singular, where bordering loses digits) the dense LU solves the system
/// (dimensionless; a dense LU's is ~1e-15, and Newton tolerates far less accurate steps).
pub(super) const BORDERED_BACKWARD_ERROR: f64 = 1e-10;
