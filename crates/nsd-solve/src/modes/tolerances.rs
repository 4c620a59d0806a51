//! The tolerances and sizes of the linear modal backend, each with what it protects and its
//! unit.

/// Modes with ω below this fraction of the highest computed one are rigid-body motions
/// (dimensionless).
pub(super) const RIGID_BODY_TOL: f64 = 1e-6;

/// The modes the sparse solver computes when no count is asked (count).
pub(super) const DEFAULT_SPARSE_COUNT: usize = 10;

/// The Lanczos shift σ is this fraction of the spectrum's scale below zero: `K − σM` stays
/// definite with rigid-body modes while the wanted `θ = 1/(λ − σ)` stay well separated
/// (dimensionless).
pub(super) const LANCZOS_SHIFT: f64 = 1e-10;

/// The first Krylov space holds at least this many vectors (count) …
pub(super) const LANCZOS_MIN_STEPS: usize = 40;

/// … and at least twice the wanted count plus this many (count).
pub(super) const LANCZOS_EXTRA_STEPS: usize = 20;

/// Gram–Schmidt passes against every previous Lanczos vector: twice is enough (count).
pub(super) const REORTHOGONALISATION_PASSES: usize = 2;

/// A Lanczos `β` below this fraction of `|α|` (or, at the end, below this absolutely) means
/// the Krylov space is invariant: every Ritz pair in it is exact (dimensionless).
pub(super) const INVARIANT_TOL: f64 = 1e-14;

/// A Ritz pair is accepted when its residual estimate `|β_m s_m|` is below this fraction of
/// `|θ|` (dimensionless).
pub(super) const RITZ_TOL: f64 = 1e-10;

/// The smallest magnitude of `α` or `θ` taken as nonzero, so that the tests above never
/// divide by zero (units of `1/λ`, s²).
pub(super) const TINY: f64 = 1e-300;

/// A new Lanczos shift lies this many error bounds below the eigenvalue estimate it aims at
/// (the estimate may be that far above the eigenvalue) (count).
pub(super) const SHIFT_MARGIN: f64 = 4.0;

/// Halvings of a new shift back towards the previous one, until the inertia shows no
/// unlocked eigenvalue below it, before giving up on it (count).
pub(super) const MAX_BACKOFF: usize = 20;

/// Relative distance above the last returned eigenvalue at which the inertia check counts
/// the eigenvalues below: above its error, below the next eigenvalue of a tight cluster
/// (dimensionless).
pub(super) const INERTIA_MARGIN: f64 = 1e-12;

/// Lanczos runs (each with a new shift or a longer space) before the sparse solver returns
/// what it has (count).
pub(super) const MAX_RUNS: usize = 12;

/// Largest Krylov space of one run: full reorthogonalisation costs O(steps² n) (count).
pub(super) const MAX_STEPS: usize = 800;
