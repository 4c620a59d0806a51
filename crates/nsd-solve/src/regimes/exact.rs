//! Closed-form stick–slip motion of an undamped linear system with one rigid Coulomb contact
//! under harmonic excitation: between events the motion is a particular harmonic + static
//! solution plus free modal vibration, so each segment is exact and the only numerics are
//! the event roots (paper 001, Sect. 5: the same sticking conditions, eqs. 11–12, 80–81, 104,
//! without an integration error).
//!
//! With `M x'' + K x + c λ = P cos ωt` and `w = cᵀx − g cos ωt`:
//! - slip with sign `s` of `w'`: `λ = sF`; the segment ends when `w'` reaches zero;
//! - stick: `w ≡ w₀`, the constrained system moves in `null(cᵀ)` and `λ(t)` is the force the
//!   contact must supply; the segment ends when `|λ|` reaches F, slipping in the direction of λ.
//!
//! Event functions are finite sums of sinusoids (`sinusoids.rs`), whose first exit from a
//! band is isolated with a Taylor bound on the second derivative.

use super::contact::{constrained, dense_km, Setup};
use super::sinusoids::{first_exit, Bound, Sinusoids};
use super::tolerances::{
    END_TOL, ENTRY_DECADE, ENTRY_FIRST_DECADE, HOLD_FALLBACK, HOLD_LAST_DECADE,
    MAX_STALLED_SWITCHES, MAX_SWITCHES_PER_PERIOD, NULL_SPACE_THRESHOLD, SEARCH_STEPS_PER_DECADE,
};
use nalgebra::{DMatrix, DVector};
use nsd_model::system::System;

/// Free vibration of one contact mode: mass-normalised shapes `φ_i` (columns), frequencies
/// and, per mode, `cᵀφ_i` and the contact force the mode needs (zero when sliding).
struct Modes {
    freq: Vec<f64>,
    shapes: DMatrix<f64>,
    c_hat: Vec<f64>,
    reaction: Vec<f64>,
}

/// A mode of the contact: its particular motion `X cos ωt + x_s` (per unit slip sign or per
/// unit stuck offset `w₀`) and its free modes.
struct Regime {
    harmonic: DVector<f64>,
    /// Harmonic part of the contact force (the holding force in stick).
    harmonic_force: f64,
    unit_static: DVector<f64>,
    unit_force: f64,
    modes: Modes,
}

/// The stick–slip problem, prepared once per parameter point.
pub struct Problem {
    m: DMatrix<f64>,
    k: DMatrix<f64>,
    c: DVector<f64>,
    minv_c: DVector<f64>,
    cmc: f64,
    g: f64,
    p: DVector<f64>,
    omega: f64,
    slip_force: f64,
    slip: Regime,
    stick: Regime,
    /// Scales of `w'` and of the contact force, for the rounding noise of the events.
    velocity_scale: f64,
    force_scale: f64,
}

/// Why the closed form does not apply (the general event-driven integrator does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotApplicable {
    #[error("the system has viscous damping or other nonlinear elements")]
    NotLinearUndamped,
    #[error("the mass matrix is not positive definite or the stiffness is singular")]
    Singular,
    #[error("the excitation is at a natural frequency")]
    Resonant,
}

/// Modes of `(TᵀKT, TᵀMT)` mapped back by `T`, with their contact reactions.
fn modes(k: &DMatrix<f64>, m: &DMatrix<f64>, t: &DMatrix<f64>, c: &DVector<f64>) -> Option<Modes> {
    if t.ncols() == 0 {
        return Some(Modes {
            freq: vec![],
            shapes: DMatrix::zeros(t.nrows(), 0),
            c_hat: vec![],
            reaction: vec![],
        });
    }
    let (kr, mr) = (t.transpose() * k * t, t.transpose() * m * t);
    let reduced = crate::modes::dense::solve(&mr, &kr).ok()?;
    let shapes = t * reduced.shapes;
    let cc = c.dot(c);
    let mut freq = Vec::new();
    let (mut c_hat, mut reaction) = (Vec::new(), Vec::new());
    for (i, &om) in reduced.omega.iter().enumerate() {
        if om <= 0.0 {
            return None;
        }
        let lam = om * om;
        let phi = shapes.column(i);
        freq.push(om);
        c_hat.push(c.dot(&phi));
        // K φ − Ω² M φ = −c μ (zero when T spans everything).
        reaction.push(-c.dot(&(k * phi - lam * (m * phi))) / cc);
    }
    Some(Modes {
        freq,
        shapes,
        c_hat,
        reaction,
    })
}

impl Problem {
    pub fn new(sys: &System, s: &Setup) -> Result<Problem, NotApplicable> {
        if s.damped || sys.nonlinear.len() != 1 || sys.multibody.is_some() {
            return Err(NotApplicable::NotLinearUndamped);
        }
        let (k, m) = dense_km(sys);
        let n = sys.n();
        let c = s.c.clone();
        let w2 = s.omega * s.omega;
        let minv_c = m
            .clone()
            .cholesky()
            .ok_or(NotApplicable::Singular)?
            .solve(&c);
        let cmc = c.dot(&minv_c);
        // Sliding: unconstrained.
        let a = &k - w2 * &m;
        let harmonic = a
            .clone()
            .lu()
            .solve(&s.load)
            .ok_or(NotApplicable::Resonant)?;
        let unit_static = -k.clone().lu().solve(&c).ok_or(NotApplicable::Singular)?;
        let slip = Regime {
            harmonic,
            harmonic_force: 0.0,
            unit_static,
            unit_force: 0.0,
            modes: modes(&k, &m, &DMatrix::identity(n, n), &c).ok_or(NotApplicable::Singular)?,
        };
        // Stuck: bordered solves for the harmonic and per-unit-offset particular motions.
        let (harmonic, harmonic_force) =
            constrained(&a, &c, &s.load, s.wall_amplitude).ok_or(NotApplicable::Resonant)?;
        let (unit_static, unit_force) =
            constrained(&k, &c, &DVector::zeros(n), 1.0).ok_or(NotApplicable::Singular)?;
        // An orthonormal basis of null(cᵀ): the unit singular vectors of the projector I − v vᵀ.
        let v = c.normalize();
        let svd = (DMatrix::identity(n, n) - &v * v.transpose()).svd(true, false);
        let u_basis = svd.u.ok_or(NotApplicable::Singular)?;
        let kept: Vec<usize> = (0..n)
            .filter(|&j| svd.singular_values[j] > NULL_SPACE_THRESHOLD)
            .collect();
        // Empty for a single DOF: a stuck contact then holds the whole system still.
        let null = DMatrix::from_fn(n, kept.len(), |i, j| u_basis[(i, kept[j])]);
        let stick = Regime {
            harmonic,
            harmonic_force,
            unit_static,
            unit_force,
            modes: modes(&k, &m, &null, &c).ok_or(NotApplicable::Singular)?,
        };
        let velocity_scale = s.omega
            * ((c.dot(&slip.harmonic) - s.wall_amplitude).abs()
                + (c.dot(&slip.unit_static) * s.slip_force).abs()
                + s.wall_amplitude.abs());
        let force_scale = s
            .slip_force
            .max(stick.harmonic_force.abs())
            .max(s.load.amax());
        Ok(Problem {
            velocity_scale,
            force_scale,
            m,
            k,
            c,
            minv_c,
            cmc,
            g: s.wall_amplitude,
            p: s.load.clone(),
            omega: s.omega,
            slip_force: s.slip_force,
            slip,
            stick,
        })
    }
}

/// The contact's state between events.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Slip(f64),
    Stick(f64),
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Slip(s) if s > 0.0 => "slip+",
            Mode::Slip(_) => "slip-",
            Mode::Stick(_) => "stick",
        }
    }
}

/// One closed-form segment from `(t0, x0, v0)`: particular part and modal amplitudes.
struct Segment<'a> {
    regime: &'a Regime,
    t0: f64,
    /// Static scale: `sF` in slip, the stuck offset `w₀` in stick.
    scale: f64,
    a: Vec<f64>,
    b: Vec<f64>,
}

/// A located change of the contact's mode: time, from, to.
pub(crate) type Switch = (f64, &'static str, &'static str);

impl Problem {
    fn regime(&self, mode: Mode) -> (&Regime, f64) {
        match mode {
            Mode::Slip(s) => (&self.slip, s * self.slip_force),
            Mode::Stick(w0) => (&self.stick, w0),
        }
    }

    fn segment(&self, mode: Mode, t0: f64, x: &DVector<f64>, v: &DVector<f64>) -> Segment<'_> {
        let (regime, scale) = self.regime(mode);
        let (s, c) = (self.omega * t0).sin_cos();
        let e = x - (&regime.harmonic * c + &regime.unit_static * scale);
        let ed = v + &regime.harmonic * (self.omega * s);
        let (me, med) = (&self.m * e, &self.m * ed);
        let modes = &regime.modes;
        let a = (0..modes.freq.len())
            .map(|i| modes.shapes.column(i).dot(&me))
            .collect();
        let b = (0..modes.freq.len())
            .map(|i| modes.shapes.column(i).dot(&med) / modes.freq[i])
            .collect();
        Segment {
            regime,
            t0,
            scale,
            a,
            b,
        }
    }

    /// Position and velocity at `t0 + τ`.
    fn state(&self, seg: &Segment, tau: f64) -> (DVector<f64>, DVector<f64>) {
        let r = seg.regime;
        let (s, c) = (self.omega * (seg.t0 + tau)).sin_cos();
        let mut x = &r.harmonic * c + &r.unit_static * seg.scale;
        let mut v = &r.harmonic * (-self.omega * s);
        for (i, &nu) in r.modes.freq.iter().enumerate() {
            let (si, ci) = (nu * tau).sin_cos();
            let phi = r.modes.shapes.column(i);
            x += phi * (seg.a[i] * ci + seg.b[i] * si);
            v += phi * (nu * (seg.b[i] * ci - seg.a[i] * si));
        }
        (x, v)
    }

    /// `w'` along a sliding segment.
    fn slip_velocity(&self, seg: &Segment) -> Sinusoids {
        let r = seg.regime;
        let amp = -self.omega * (self.c.dot(&r.harmonic) - self.g);
        let (s, c) = (self.omega * seg.t0).sin_cos();
        let mut f = Sinusoids::default();
        f.push(amp * s, amp * c, self.omega);
        for (i, &nu) in r.modes.freq.iter().enumerate() {
            let ch = r.modes.c_hat[i] * nu;
            f.push(ch * seg.b[i], -ch * seg.a[i], nu);
        }
        f
    }

    /// The contact force `λ` a stuck segment needs.
    fn stick_force(&self, seg: &Segment) -> Sinusoids {
        let r = seg.regime;
        let (s, c) = (self.omega * seg.t0).sin_cos();
        let mut f = Sinusoids {
            constant: seg.scale * r.unit_force,
            ..Sinusoids::default()
        };
        f.push(r.harmonic_force * c, -r.harmonic_force * s, self.omega);
        for (i, &nu) in r.modes.freq.iter().enumerate() {
            let mu = r.modes.reaction[i];
            f.push(mu * seg.a[i], mu * seg.b[i], nu);
        }
        f
    }

    /// The force holding `w'' = 0` at `(t, x)`: stick if it is within the slip force.
    fn needed_force(&self, t: f64, x: &DVector<f64>) -> f64 {
        let c = (self.omega * t).cos();
        let load = &self.p * c - &self.k * x;
        (self.minv_c.dot(&load) + self.g * self.omega * self.omega * c) / self.cmc
    }

    /// `w' = cᵀv + gω sin ωt`.
    fn relative_velocity(&self, t: f64, v: &DVector<f64>) -> f64 {
        self.c.dot(v) + self.g * self.omega * (self.omega * t).sin()
    }

    /// The relative displacement `w = cᵀx − g cos ωt`.
    fn w(&self, t: f64, x: &DVector<f64>) -> f64 {
        self.c.dot(x) - self.g * (self.omega * t).cos()
    }

    /// The mode a contact at rest relative to its wall takes: stick when the force it needs
    /// is within F, else slip in the direction of that force.
    fn settle(&self, t: f64, x: &DVector<f64>) -> Mode {
        let need = self.needed_force(t, x);
        if need.abs() <= self.slip_force {
            Mode::Stick(self.w(t, x))
        } else {
            Mode::Slip(need.signum())
        }
    }

    /// The contact's mode changes on `[0, t1]` from rest, and its mode at `t1`. Fails with
    /// the time where the switches accumulate (more than `MAX_SWITCHES_PER_PERIOD`).
    pub fn simulate(&self, t1: f64) -> Result<(Vec<Switch>, &'static str), f64> {
        let n = self.c.len();
        let (mut x, mut v) = (DVector::zeros(n), DVector::zeros(n));
        let mut t = 0.0;
        let mut mode = self.settle(t, &x);
        let mut switches = Vec::new();
        let period = std::f64::consts::TAU / self.omega;
        let limit = MAX_SWITCHES_PER_PERIOD * (t1 / period).max(1.0);
        // Mode changes without time advancing (a contact that can neither stick nor slip
        // at rounding level) end the run like an accumulation.
        let (mut stalled, mut last_t) = (0, f64::NAN);
        // A stick resumed after a slip that did not develop holds for at least 10^-ENTRY_DECADE
        // of the shortest period (past the rounding-level touch that ended it).
        let mut resumed = false;
        while t1 - t > END_TOL * period {
            stalled = if t == last_t { stalled + 1 } else { 0 };
            last_t = t;
            if switches.len() as f64 > limit || stalled > MAX_STALLED_SWITCHES {
                return Err(t);
            }
            let seg = self.segment(mode, t, &x, &v);
            // The event function and the band it stays in until the event: `w'` keeps its
            // sign while sliding, `|λ| < F` while stuck.
            let (f, bounds) = match mode {
                Mode::Slip(s) => (
                    self.slip_velocity(&seg),
                    vec![Bound::new(0.0, s, self.velocity_scale)],
                ),
                Mode::Stick(_) => (
                    self.stick_force(&seg),
                    vec![
                        Bound::new(self.slip_force, -1.0, -self.force_scale),
                        Bound::new(-self.slip_force, 1.0, -self.force_scale),
                    ],
                ),
            };
            let end = t1 - t;
            // A mode that cannot be entered (its band is left at once, to within
            // 10^-ENTRY_DECADE of the shortest period): a slip that never develops is a stick
            // that goes on, so the switch into it is undone; a stick whose force only touches
            // the slip force at rounding level holds past the touch.
            let hold = |from| {
                leave_start(&f, &bounds, end, from, HOLD_LAST_DECADE, false)
                    .unwrap_or(HOLD_FALLBACK * f.shortest_period().min(end))
            };
            let entry = leave_start(&f, &bounds, end, ENTRY_FIRST_DECADE, ENTRY_DECADE, true);
            let start = match (entry, mode) {
                (_, Mode::Stick(_)) if resumed => hold(ENTRY_DECADE),
                (Some(start), _) => start,
                (None, Mode::Slip(_)) => {
                    if switches
                        .last()
                        .is_some_and(|s: &Switch| s.0 == t && s.2 == mode.name())
                    {
                        switches.pop();
                    }
                    v -= &self.minv_c * (self.relative_velocity(t, &v) / self.cmc);
                    mode = Mode::Stick(self.w(t, &x));
                    resumed = true;
                    continue;
                }
                (None, Mode::Stick(_)) => hold(ENTRY_DECADE),
            };
            resumed = false;
            let touches = matches!(mode, Mode::Slip(_));
            let Some(tau) = first_exit(&f, &bounds, touches, start, end) else {
                return Ok((switches, mode.name()));
            };
            (x, v) = self.state(&seg, tau);
            t += tau;
            let next = match mode {
                Mode::Slip(_) => {
                    // Exactly at rest relative to the wall.
                    v -= &self.minv_c * (self.relative_velocity(t, &v) / self.cmc);
                    self.settle(t, &x)
                }
                Mode::Stick(_) => Mode::Slip(self.needed_force(t, &x).signum()),
            };
            // A slip that touches rest and slides on the same way is no switch.
            if next.name() != mode.name() {
                switches.push((t, mode.name(), next.name()));
            }
            mode = next;
        }
        Ok((switches, mode.name()))
    }
}

/// Where the search may begin when the segment starts on a bound (a slip starting from rest,
/// a stick at the slip force): the first of `10^-from, …, 10^-to` shortest periods
/// (`SEARCH_STEPS_PER_DECADE` per decade) inside the band, or `None` when none is; 0 first
/// if `at_zero`.
fn leave_start(
    f: &Sinusoids,
    bounds: &[Bound],
    end: f64,
    from: f64,
    to: f64,
    at_zero: bool,
) -> Option<f64> {
    let inside = |tau: f64| {
        let v = f.eval(tau).0;
        bounds.iter().all(|b| b.sign * (v - b.level) > 0.0)
    };
    if at_zero && inside(0.0) {
        return Some(0.0);
    }
    let period = f.shortest_period().min(end);
    let steps = (SEARCH_STEPS_PER_DECADE * (from - to)).round() as i32;
    (0..=steps)
        .map(|k| period * 10f64.powf(-from + k as f64 / SEARCH_STEPS_PER_DECADE))
        .find(|&tau| inside(tau))
}
