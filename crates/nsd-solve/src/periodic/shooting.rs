//! The shooting residual as a continuation problem over a model parameter `p`:
//! `R(y₀, p) = φ_T(y₀; p) − y₀` with `T` the orbit's period (`periods` forcing periods of
//! the system at `p`), `∂R/∂y₀ = Φ − I` from the monodromy, `∂R/∂p` by central differences
//! in `p` (the parameter enters through the resolved model, which is rebuilt at each
//! value). The last evaluation is cached: the continuation asks for the residual and the
//! Jacobian at the same point in turn.

use super::error::ShootingError;
use super::tolerances::{MONODROMY_MEMO_BYTES, PARAM_STEP};
use super::{shoot_sampled, Shot};
use crate::cont::Problem;
use crate::ode::Tolerances;
use crate::poincare::forcing_period;
use nalgebra::{DMatrix, DVector};
use nsd_model::System;
use std::cell::RefCell;
use std::collections::HashMap;

/// The model's system at a parameter value (the error is the resolver's message).
pub(crate) type SystemAt<'a> = dyn Fn(f64) -> Result<System, String> + 'a;

/// The periodic orbits of a forced system over a parameter.
pub struct Shooting<'a> {
    pub(super) system_at: &'a SystemAt<'a>,
    /// The length of the state `[x, ẋ]`.
    dim: usize,
    /// The orbit's period in forcing periods.
    pub periods: usize,
    pub(crate) smooth_only: bool,
    pub(crate) tol: Tolerances,
    cache: RefCell<Option<Evaluated>>,
    /// Every monodromy computed, by its exact point (up to `MONODROMY_MEMO_BYTES`): the
    /// branch's points are read again after the continuation, which computed each one's.
    memo: RefCell<HashMap<Key, DMatrix<f64>>>,
    /// The first failure met (an integration error, an unsupported element, a grazing
    /// switch): the continuation sees a non-finite residual and stops there.
    pub failure: RefCell<Option<ShootingError>>,
}

/// One evaluated point: the system there, the shot and its monodromy once computed.
pub struct Evaluated {
    x: DVector<f64>,
    p: f64,
    sys: System,
    pub shot: Shot,
    monodromy: Option<DMatrix<f64>>,
}

impl<'a> Shooting<'a> {
    pub fn new(
        system_at: &'a SystemAt<'a>,
        dim: usize,
        periods: usize,
        smooth_only: bool,
        tol: Tolerances,
    ) -> Shooting<'a> {
        Shooting {
            system_at,
            dim,
            periods,
            smooth_only,
            tol,
            cache: RefCell::new(None),
            memo: RefCell::new(HashMap::new()),
            failure: RefCell::new(None),
        }
    }

    /// The same problem for orbits of `periods` forcing periods.
    pub fn with_periods(&self, periods: usize) -> Shooting<'a> {
        Shooting::new(
            self.system_at,
            self.dim,
            periods,
            self.smooth_only,
            self.tol,
        )
    }

    /// The state reached from `x` at `p` after half the orbit's period (an orbit of half the
    /// period returns there), `None` if it cannot be integrated.
    pub(crate) fn half_period_map(&self, x: &DVector<f64>, p: f64) -> Option<DVector<f64>> {
        let (sys, span) = self.system_and_span(p).ok()?;
        let shot = shoot_sampled(
            &sys,
            self.smooth_only,
            (0.0, span / 2.0),
            x.as_slice(),
            &self.tol,
            false,
        )
        .ok()?;
        Some(DVector::from_column_slice(shot.end()))
    }

    /// The system at `p` and the span of one orbit there.
    fn system_and_span(&self, p: f64) -> Result<(System, f64), ShootingError> {
        system_and_span(self.system_at, self.periods, p)
    }

    /// The orbit through `x` at `p` integrated over one span, sampled.
    pub fn evaluate(&self, x: &DVector<f64>, p: f64) -> Result<Evaluated, ShootingError> {
        self.evaluate_sampled(x, p, true)
    }

    /// The orbit through `x` at `p`, sampled or not (Newton needs its end and switches).
    fn evaluate_sampled(
        &self,
        x: &DVector<f64>,
        p: f64,
        sampled: bool,
    ) -> Result<Evaluated, ShootingError> {
        let (sys, span) = self.system_and_span(p)?;
        let shot = shoot_sampled(
            &sys,
            self.smooth_only,
            (0.0, span),
            x.as_slice(),
            &self.tol,
            sampled,
        )?;
        Ok(Evaluated {
            x: x.clone(),
            p,
            sys,
            shot,
            monodromy: None,
        })
    }

    /// Runs `f` on the evaluation at `(x, p)`, computed (and cached) if it is not the last
    /// one; `None` after a failure, which is kept in `failure`.
    fn with_point<T>(
        &self,
        x: &DVector<f64>,
        p: f64,
        f: impl FnOnce(&Shooting, &mut Evaluated) -> Result<T, ShootingError>,
    ) -> Option<T> {
        let mut cache = self.cache.borrow_mut();
        let hit = cache.as_ref().is_some_and(|e| e.p == p && &e.x == x);
        if !hit {
            *cache = self
                .evaluate_sampled(x, p, false)
                .map_err(|e| self.fail(e))
                .ok();
        }
        let point = cache.as_mut()?;
        f(self, point).map_err(|e| self.fail(e)).ok()
    }

    fn fail(&self, error: ShootingError) {
        self.failure.borrow_mut().get_or_insert(error);
    }

    /// The monodromy at an evaluated point (computed once).
    pub fn monodromy_of(&self, point: &mut Evaluated) -> Result<DMatrix<f64>, ShootingError> {
        if let Some(m) = &point.monodromy {
            return Ok(m.clone());
        }
        let key = key(&point.x, point.p);
        let known = self.memo.borrow().get(&key).cloned();
        let m = match known {
            Some(m) => m,
            None => {
                let m = point
                    .shot
                    .monodromy(&point.sys, self.smooth_only, &self.tol)?;
                let mut memo = self.memo.borrow_mut();
                if (memo.len() + 1) * m.len() * 8 <= MONODROMY_MEMO_BYTES {
                    memo.insert(key, m.clone());
                }
                m
            }
        };
        point.monodromy = Some(m.clone());
        Ok(m)
    }

    /// The residual at `x` through a fresh shot (not cached).
    fn residual_uncached(&self, x: &DVector<f64>, p: f64) -> Option<DVector<f64>> {
        let e = self
            .evaluate_sampled(x, p, false)
            .map_err(|e| self.fail(e))
            .ok()?;
        Some(DVector::from_column_slice(e.shot.end()) - x)
    }
}

/// A point `(x, p)` bit for bit.
type Key = (u64, Vec<u64>);

fn key(x: &DVector<f64>, p: f64) -> Key {
    (p.to_bits(), x.iter().map(|v| v.to_bits()).collect())
}

/// The system at `p` and the span of `periods` forcing periods there.
pub(super) fn system_and_span(
    system_at: &SystemAt,
    periods: usize,
    p: f64,
) -> Result<(System, f64), ShootingError> {
    let sys = system_at(p).map_err(|reason| ShootingError::System { p, reason })?;
    let period = forcing_period(&sys).map_err(|why| ShootingError::NoPeriod { p, why })?;
    Ok((sys, periods as f64 * period))
}

/// A vector of NaN: the residual of a point that could not be integrated.
pub(super) fn failed(n: usize) -> DVector<f64> {
    DVector::from_element(n, f64::NAN)
}

/// `∂R/∂p` of a shooting residual by central differences in `p` (`PARAM_STEP`), the
/// unknowns held (`residual_at` is `None` where the orbit cannot be integrated); NaN of
/// length `n` where either side fails.
pub(super) fn param_difference(
    p: f64,
    n: usize,
    residual_at: impl Fn(f64) -> Option<DVector<f64>>,
) -> DVector<f64> {
    let dp = PARAM_STEP * p.abs().max(1.0);
    match (residual_at(p + dp), residual_at(p - dp)) {
        (Some(up), Some(down)) => (up - down) / (2.0 * dp),
        _ => failed(n),
    }
}

impl Problem for Shooting<'_> {
    fn dim(&self) -> usize {
        self.dim
    }

    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        self.with_point(
            x,
            p,
            |_, e| Ok(DVector::from_column_slice(e.shot.end()) - x),
        )
        .unwrap_or_else(|| failed(x.len()))
    }

    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let n = x.len();
        self.with_point(x, p, |s, e| s.monodromy_of(e)).map_or_else(
            || DMatrix::from_element(n, n, f64::NAN),
            |m| m - DMatrix::identity(n, n),
        )
    }

    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        param_difference(p, x.len(), |p| self.residual_uncached(x, p))
    }
}
