//! Periodic orbits of forced nonsmooth systems by shooting on the exact hybrid flow (paper
//! 000, Sect. 5.1 and Appendix A, there by COCO's multi-segment `hspo` toolbox): the
//! unknown is the state at the forcing phase 0, the period is fixed by the forcing
//! (`periods` forcing periods), and the residual `φ_T(y₀) − y₀` is solved by Newton with
//! the monodromy matrix `∂φ_T/∂y₀` as its Jacobian.
//!
//! The orbit is integrated once by the event-driven engine (`ode::driver`), which records
//! every switch of modes with the state after it. The monodromy is then the product, in
//! time order, of each smooth segment's sensitivity (its variational equations integrated
//! in its modes, `variational.rs`) and the saltation matrix of every switch
//! (`saltation.rs`): contact entries and exits, impacts with restitution, the end of
//! sliding, the start of slipping, lift-off. The segment signature is read from the run
//! itself, so a grazing bifurcation that adds or removes segments needs no input: the next
//! orbit is simply segmented anew. `shooting.rs` makes the residual a continuation problem
//! over any model parameter.
//!
//! Elements with internal states (Jenkins sliders, 2-D friction contacts) and stops held
//! after a Zeno accumulation are refused: their states are not part of `y₀` yet.

pub mod doubling;
mod error;
pub mod multiple;
mod saltation;
pub mod shooting;
mod tolerances;
mod variational;

use crate::ode::driver::{integrate, Config, FlowError, Method, Output, Trajectory};
use crate::ode::{Hybrid, Tolerances};
use nalgebra::Complex;
use nalgebra::DMatrix;
use nsd_model::System;

pub use error::ShootingError;

/// Output samples per orbit, for each DOF's largest excursion (the events are sampled too).
const ORBIT_SAMPLES: usize = 400;

/// One integration of a system over `(t0, t0 + span)`: the motion, its events and the
/// switches of modes (the segments of the orbit).
pub struct Shot {
    pub traj: Trajectory,
    t0: f64,
    pub span: f64,
}

/// The hybrid flow shooting integrates, or why the model's elements cannot be shot (the
/// elements whose internal states are not part of the state vector refused).
pub fn hybrid(sys: &System, smooth_only: bool) -> Result<Hybrid<'_>, ShootingError> {
    let h = Hybrid::new(sys, smooth_only)
        .map_err(|e| ShootingError::Flow(FlowError::Unsupported(e)))?;
    if let Some(j) = h.form.jenkins.first() {
        return Err(ShootingError::JenkinsSlider {
            element: j.name.clone(),
        });
    }
    if let Some(c) = h.form.contacts.first() {
        return Err(ShootingError::ContactSlider {
            element: c.name.clone(),
        });
    }
    Ok(h)
}

/// Integrates `sys` from `y0` at `t0` over `span`, recording the switches, the state sampled
/// `ORBIT_SAMPLES` times.
pub fn shoot(
    sys: &System,
    smooth_only: bool,
    span: (f64, f64),
    y0: &[f64],
    tol: &Tolerances,
) -> Result<Shot, ShootingError> {
    shoot_sampled(sys, smooth_only, span, y0, tol, true)
}

/// `shoot`, the samples left out unless `sampled` (Newton's shots need the end and the
/// switches only).
fn shoot_sampled(
    sys: &System,
    smooth_only: bool,
    (t0, span): (f64, f64),
    y0: &[f64],
    tol: &Tolerances,
    sampled: bool,
) -> Result<Shot, ShootingError> {
    let mut h = hybrid(sys, smooth_only)?;
    h.record.switches = true;
    let cfg = Config {
        t0,
        t1: t0 + span,
        y0: y0.to_vec(),
        tol: *tol,
        output: if sampled {
            Output::Every(span / ORBIT_SAMPLES as f64)
        } else {
            Output::At(Vec::new())
        },
        method: Method::Auto,
    };
    let traj = integrate(&mut h, &cfg, &mut |_| {})
        .map_err(|f| ShootingError::Flow(FlowError::Integration(f.error)))?;
    if let Some(&t) = traj.zeno.first() {
        return Err(ShootingError::Zeno { t });
    }
    Ok(Shot { traj, t0, span })
}

impl Shot {
    /// The state at the end of the span.
    pub fn end(&self) -> &[f64] {
        &self.traj.final_state
    }

    /// The monodromy `∂y(t0 + span)/∂y(t0)`: each segment's sensitivity and each switch's
    /// saltation matrix, multiplied in time order.
    pub fn monodromy(
        &self,
        sys: &System,
        smooth_only: bool,
        tol: &Tolerances,
    ) -> Result<DMatrix<f64>, ShootingError> {
        let mut h = hybrid(sys, smooth_only)?;
        let switches = &self.traj.switches;
        let n2 = h.dim();
        let loose = variational::loosened(tol);
        let mut phi = DMatrix::identity(n2, n2);
        for (k, sw) in switches.iter().enumerate() {
            h.state.clone_from(&sw.modes);
            let next = switches.get(k + 1);
            let t_end = next.map_or(self.t0 + self.span, |s| s.t);
            let (y_end, seg) = variational::segment(&mut h, (sw.t, t_end), &sw.y, &loose)?;
            phi = seg * phi;
            if let Some(next) = next {
                phi = saltation::saltation(&mut h, &sw.modes, next, &y_end)? * phi;
            }
        }
        Ok(phi)
    }

    /// The segment signature: each switch's element and its modes, in time order (`hspo`'s
    /// list of segment modes).
    pub fn signature(&self) -> String {
        self.switch_names().join(" ")
    }

    /// Each switch as `element:from>to`, in time order.
    fn switch_names(&self) -> Vec<String> {
        self.traj
            .events
            .iter()
            .map(|e| format!("{}:{}>{}", e.element, e.from, e.to))
            .collect()
    }
}

/// The Floquet multipliers (eigenvalues of the monodromy), largest modulus first.
pub fn multipliers(monodromy: &DMatrix<f64>) -> Vec<Complex<f64>> {
    let mut mu: Vec<Complex<f64>> = monodromy.complex_eigenvalues().iter().copied().collect();
    mu.sort_by(|a, b| b.norm().total_cmp(&a.norm()));
    mu
}
