//! The tolerances, iteration caps and search densities of the harmonic-balance backend, each
//! with what it protects and its unit. (Newton at one frequency uses `cont`'s own, through
//! `cont::newton`.)

// The balance (`balance.rs`, `start.rs`).

/// Relative mismatch `|Ω − kΩ₀| / |Ω|` below which an excitation term at Ω counts as the
/// k-th harmonic of the fundamental Ω₀ (dimensionless).
pub(super) const HARMONIC_MULTIPLE_TOL: f64 = 1e-9;

/// Residual tolerance of each stage of the harmonic ramp, relative to `max(|F_ex|, 1)`
/// (dimensionless; the residual itself is in N).
pub(super) const RAMP_RESIDUAL_TOL: f64 = 1e-12;

// Hill stability (`hill.rs`).

/// Relative distance (of `|Im s|` sums to ω and of multipliers to each other) within which
/// a Hill root is the shifted copy of a kept negative multiplier; the truncation leaves
/// ~1e-5 between true copies (dimensionless).
pub(super) const MULTIPLIER_COPY_TOL: f64 = 1e-3;

/// `|Im s|` below this fraction of `|s| + ω` makes an unstable exponent real (fold or
/// branch point) (dimensionless).
pub(super) const REAL_EXPONENT_TOL: f64 = 1e-6;

/// An unstable multiplier `e^{sT}` within this angle of the negative real axis is a period
/// doubling (rad). Hill's method splits a real multiplier near −1 into a conjugate pair by its
/// truncation error: 5e-3 rad for the unilateral spring of NLvib's example 03 at H = 21
/// (a kinked force converges slowly in H); 0.02 rad keeps a fourfold margin, and a
/// Neimark–Sacker pair that close to the 1:2 resonance is beyond what such a truncation
/// tells apart.
pub(super) const FLIP_ANGLE: f64 = 0.02;

/// Sweeps of Osborne's balancing of the companion matrix at most (count).
pub(super) const BALANCING_MAX_SWEEPS: usize = 100;

/// A row and column are rescaled only when that brings the sum of their norms below this
/// fraction of its value, LAPACK `gebal`'s factor (dimensionless).
pub(super) const BALANCING_RATIO: f64 = 0.95;

// Modal condensation (`condense.rs`).

/// `ω_r²` below this fraction of the largest counts as a rigid-body mode, which rules the
/// modal sums out (dimensionless). About 5 ε: a fine beam mesh has real modes at 1e-13 of
/// its largest (500 elements: 2.7e-13, rotations of tiny inertia), which 1e-12 took for
/// rigid. Singular K (`linalg::stiffness_modes`, by Cholesky) is the first test.
pub(super) const RIGID_MODE_TOL: f64 = 1e-15;

/// The smallest `μ = 1/ω²` of a mode the modal sums take, relative to the first mode's
/// (`condense.rs`): the flexibility eigensolver resolves `μ` to ~1e-13 of `μ₁` (the
/// 1000-element cantilever's highest came out −2.4e-20 beside 5.8e-7), so modes above
/// `1e6 ω₁` enter quasi-statically (dimensionless).
pub(super) const UNRESOLVED_MODE_FLOOR: f64 = 1e-12;

/// Off-diagonal modal damping below this fraction of the largest diagonal term counts as
/// zero: the modes diagonalise C and the modal sums apply (dimensionless).
pub(super) const MODAL_COUPLING_TOL: f64 = 1e-10;

// The refined peak of a signal (`aft.rs`).

/// Newton iterations on `x'(θ) = 0` at most when refining the largest sample (count).
pub(super) const PEAK_MAX_ITERATIONS: usize = 20;

/// A Newton step on `x'(θ) = 0` below this ends the refinement of the peak (rad).
pub(super) const PEAK_STEP_TOL: f64 = 1e-15;

// Exact free-play contact intervals (`gap.rs`).

/// Initial cells per harmonic (plus one) of the root isolation on `[0, 2π]`, later halved
/// where the curvature bound cannot exclude a root (count).
pub(super) const GAP_CELLS_PER_HARMONIC: usize = 8;

/// Roots of `u(θ) = ±g` closer than this are one root, found from both neighbouring cells
/// (rad).
pub(super) const GAP_ROOT_MERGE: f64 = 1e-14;

/// Cells narrower than this are not halved further: a tangency there is a contact of zero
/// length and no force (rad).
pub(super) const GAP_TANGENCY_WIDTH: f64 = 1e-12;
/// Size of `u ∓ g`, relative to its coefficients' and the clearance's, within which a cell
/// counts as on the level: no root is looked for in it (a relative displacement that stays
/// on the clearance, e.g. at rest with `clearance = 0`, whose every point is a root and whose
/// force `k(u ∓ g)` vanishes there; halving such a cell down to `GAP_TANGENCY_WIDTH` would
/// never end) (dimensionless, a few rounding errors).
pub(super) const GAP_ON_LEVEL: f64 = 1e-14;

/// Safeguarded Newton iterations at most when refining a bracketed root (count).
pub(super) const GAP_REFINE_MAX_ITERATIONS: usize = 100;

/// A Newton step on a root below this fraction of `max(|θ|, 1)` ends its refinement: the
/// root is at round-off (dimensionless).
pub(super) const GAP_REFINE_STEP_TOL: f64 = 2.0 * f64::EPSILON;

// The exact friction contact (`friction.rs`).

/// Newton iterations refining a sampled extremum of a trig polynomial (count): quadratic
/// convergence from within a cell reaches round-off in 3–4.
pub(super) const EXTREMUM_NEWTON_ITERATIONS: usize = 6;

/// Search points per harmonic and period for the transition functions; two roots closer
/// than one cell can be missed (count).
pub(super) const FRICTION_CELLS_PER_HARMONIC: usize = 32;

/// Friction cycles kept per thread for the Hessian product and the Jacobian at the point
/// whose forces marched them (`cycles.rs`): every contact of a model at one point (count).
pub(super) const CYCLES_KEPT: usize = 16;

/// Iterations at most of the Illinois regula falsi that refines a transition time (count).
pub(super) const TRANSITION_REFINE_MAX_ITERATIONS: usize = 200;

/// A transition's bracket narrower than this fraction of `max(|τ|, 1)` is at round-off and
/// ends its refinement (dimensionless).
pub(super) const TRANSITION_BRACKET_TOL: f64 = 4.0 * f64::EPSILON;

/// Transitions per harmonic (plus one) at most in the two periods marched, a bound on the
/// roots of the transition functions (count).
pub(super) const TRANSITIONS_PER_HARMONIC: usize = 64;

/// The next transition is searched from this fraction of the period past the last one, to
/// keep off the root just found (dimensionless).
pub(super) const TRANSITION_SEARCH_OFFSET: f64 = 1e-13;

/// A maximum of a transition function closer than this to the start of the search is the
/// transition just made, not a new excursion (rad of the period's angle).
pub(super) const HUMP_START_GAP: f64 = 1e-9;

/// A maximum of a transition function counts as an excursion past the friction limit only
/// above this fraction of the function's size at the ends of its cell: below, it is the
/// limit touched to round-off (dimensionless).
pub(super) const HUMP_MIN_EXCESS: f64 = 1e-9;

/// Hill's condensed problem (`hill::reduced`) keeps a receptance pole as a state when it lies
/// within this many ω of the segment `|Im s| ≤ (H + ½)ω` of the imaginary axis (the others
/// are summed into `R_rest`, analytic there). Wider costs states; narrower makes `R_rest`
/// vary more near the roots and the Newton starts from the frozen `R_rest(0)` poorer.
/// Dimensionless.
pub(super) const KEEP_BAND: f64 = 1.0;

/// Newton on `det(I + R(s) B)` (`hill::reduced`) stops when its step is below
/// `ROOT_STEP_TOL · (|s| + ω)` (quadratic convergence: the next step would be at round-off).
/// Relative.
pub(super) const ROOT_STEP_TOL: f64 = 1e-12;

/// Newton steps of one exponent of `hill::reduced` before the point goes to the full Hill
/// matrix.
pub(super) const NEWTON_MAX_STEPS: usize = 30;

/// Two exponents of `hill::reduced` closer than `DISTINCT_ROOT_TOL · (|s| + ω)` came from two
/// starts on one root (or a multiple root, where Newton is slow): the point goes to the full
/// Hill matrix. Relative.
pub(super) const DISTINCT_ROOT_TOL: f64 = 1e-8;

/// The shift off an eigenvalue `θ` of `hill::reduced`'s `A` for the inverse iteration that
/// gives its eigenvector, relative to `|θ| + ω`: far below the spacing of two close
/// eigenvalues (0.02 rad/s at 6890 rad/s on the 100-pad beam, 3e-6), far above round-off.
/// Relative.
pub(super) const EIGENVECTOR_SHIFT: f64 = 1e-10;

/// A mode with `|λ⁺ − λ⁻| ≤ DEGENERATE_MODE_TOL · |λ|` is critically damped: its receptance
/// has a double pole the partial fractions of `hill::reduced` cannot split, and the full Hill
/// matrix is used. Relative.
pub(super) const DEGENERATE_MODE_TOL: f64 = 1e-8;

/// QR steps per row allowed to nalgebra's complex Schur form in `hill::reduced` (its
/// double-shift steps converge slowly on complex matrices: the cantilever needs several
/// hundred per row; unbounded, a matrix the shifts cycle on never returns). On failure the
/// point goes to the full Hill matrix.
pub(super) const SCHUR_SWEEPS_PER_ROW: usize = 10_000;

/// An exponent of `hill::reduced` tracked from the last point (Newton from its last value)
/// may move at most this fraction of its distance to the nearest other last exponent: more,
/// and Newton may have jumped to a neighbour's root, so the point is solved from its own
/// starts. Dimensionless.
pub(super) const TRACK_FRACTION: f64 = 0.25;

/// Two Newton starts of `hill::reduced` within `CONJUGATE_START_TOL · (|s| + ω)` of each
/// other's conjugate lead to conjugate roots (`det T(s̄) = conj det T(s)` for a real system),
/// so the second is the first's conjugate, not a second Newton run. Eigenvalues of the
/// conjugate-symmetric `A(0)` pair to round-off, tracked starts exactly. Relative.
pub(super) const CONJUGATE_START_TOL: f64 = 1e-10;

/// Times a Newton start of `hill::reduced` is moved to the eigenvalue of the problem
/// linearised at itself (`R_rest` frozen there) whose eigenvector is the start's. Two: the
/// stuck cantilever's far starts (|Im s| ≈ 10ω) then land on their own roots.
pub(super) const RELINEARISATIONS: usize = 2;

/// A cell's maximum is refined only when the cubic Hermite interpolant of its ends comes
/// within this fraction of the ends' values of zero (20× the interpolant's error on a search
/// cell; dimensionless).
pub(super) const HUMP_SKIP_MARGIN: f64 = 0.05;

/// Points at which the cubic Hermite interpolant of a cell is probed for its maximum (count).
pub(super) const HUMP_PROBES: usize = 8;

/// A growing Hill root whose eigenvector's mean harmonic lies this far from 0 or farther is
/// a truncation-edge copy of another exponent (`hill/centre.rs`): halfway between the ±½ of
/// the two equal copies of a multiplier on the negative real axis and the 1 of a copy shifted
/// by one harmonic (harmonics).
pub(super) const EDGE_COPY_CENTRE: f64 = 0.75;

/// Inverse-iteration sweeps for the eigenvector of a Hill root (from a constant vector; the
/// root is converged, so each sweep multiplies the other components by ~1e-8 or less) (count).
pub(super) const NULL_VECTOR_SWEEPS: usize = 3;
