//! `simulate … { method = timestepping }` on a multibody model (paper 002, Sect. 2.1.4): the
//! step-size options, and what the report adds to the `events` backend's (`multibody.rs`):
//! `steps.csv` (per step: its end, size, drift before and violation after the projection,
//! equations-of-motion residual, closed contacts, trials), `steps.svg` and summary keys.
//!
//! `h_min` and `h_max` bound the step (s; defaults 1e-3 and 2e-3, the paper's range for its
//! revolute case study, Sect. 5); `drift` is the largest constraint violation a step may
//! leave to the projection (m), the test of the step-size rule of
//! `solve::multibody::timestepping`.

use super::super::diagnostics::AnalysisError;
use super::super::options::OptionReader;
use super::super::results::{Cell, Plot, Series, Table};
use nsd_lang::units::Dim;
use nsd_model::flat::ContactLaw;
use nsd_model::system::Multibody;
use nsd_solve::multibody::{Run, Stepping};
use nsd_solve::ode::driver::Output;
use nsd_solve::MAX_OUTPUT_ROWS;
use serde_json::{json, Map, Value};

/// The options only the `timestepping` backend reads.
pub(crate) const OPTIONS: [&str; 3] = ["h_min", "h_max", "drift"];

/// Default smallest and largest step (s): the paper's range for the revolute joint with
/// clearance (Sect. 5, "h_min = 10⁻³ and h_max = 2×10⁻³").
const H_MIN: f64 = 1e-3;
const H_MAX: f64 = 2e-3;

/// Default largest drift a step may leave to the projection (m): a micrometre, a hundredth
/// of the paper's 0.1 mm clearances, so a step never moves a contact point by a sizeable
/// part of its clearance off the constraint surface before the projection. On the paper's
/// pendulum (drift about ½ h² ω² L) it keeps h = 2e-3 while the pendulum turns slowly and
/// halves it where it swings fast, as in the paper's Fig. 29.
const DRIFT: f64 = 1e-6;

/// The step-size options as `Stepping` (its output still `steps`, set by the caller).
pub(crate) fn read(opts: &OptionReader, (t0, t1): (f64, f64)) -> Result<Stepping, AnalysisError> {
    let h_min = opts.positive("h_min", Dim::TIME, H_MIN, "1e-3")?;
    let h_max = opts.positive("h_max", Dim::TIME, H_MAX, "2e-3")?;
    let drift = opts.positive("drift", Dim::LENGTH, DRIFT, "1e-6")?;
    let at = |key| opts.span_of(key).unwrap_or(opts.statement_span());
    if h_min > h_max {
        let key = if opts.span_of("h_min").is_some() {
            "h_min"
        } else {
            "h_max"
        };
        return Err(opts.bad_value(
            key,
            at(key),
            &format!("h_min = {h_min} is larger than h_max = {h_max}"),
            "the step size lies in [h_min, h_max]: give h_min ≤ h_max (equal for a fixed step)",
        ));
    }
    let steps = (t1 - t0) / h_max;
    if steps > MAX_OUTPUT_ROWS {
        return Err(opts.bad_value(
            "h_max",
            at("h_max"),
            &format!("asks for at least {steps:.1e} steps, each a row of steps.csv (the limit is {MAX_OUTPUT_ROWS:.0e})"),
            "use a larger `h_max` or a shorter `t`",
        ));
    }
    Ok(Stepping {
        t0,
        t1,
        h_min,
        h_max,
        drift,
        output: Output::Steps,
    })
}

/// The settings for `meta.json`.
pub(crate) fn meta(s: &Stepping, meta: &mut Map<String, Value>) {
    meta.insert("t".into(), json!([s.t0, s.t1]));
    meta.insert("h_min".into(), json!(s.h_min));
    meta.insert("h_max".into(), json!(s.h_max));
    meta.insert("drift".into(), json!(s.drift));
    meta.insert("method".into(), json!("timestepping: the half-implicit scheme of paper 002 (eqs. 21–24), Gauss's principle per step as a QP solved exactly (active sets from the previous step's contacts on the stacked joint and contact rows, Lemke's method as fallback), rigid contacts with Coulomb friction in a polyhedral cone (Lemke's method where a frictional contact closes), the largest h in [h_min, h_max] whose drift passes (predicted from its h² law), positions and joint velocities projected after every step"));
}

/// What the report should say about the model: a compliant law acts as a rigid inelastic
/// contact in this backend.
pub(crate) fn warnings(mb: &Multibody) -> Vec<String> {
    mb.joints
        .iter()
        .filter(|(_, j, ..)| j.radial_clearance.is_some() || j.axial_clearance.is_some())
        .filter(|(_, j, ..)| !matches!(j.law, ContactLaw::Impact { .. }))
        .map(|(name, ..)| format!("joint `{name}`: `method = timestepping` treats its compliant law as a rigid, inelastic contact (the paper's); use `law = impact(e)` for restitution"))
        .collect()
}

/// `steps.csv`: one row per accepted step.
pub(crate) fn steps_table(run: &Run) -> Table {
    let columns = [
        "t [s]",
        "h [s]",
        "drift",
        "violation",
        "eom residual [N]",
        "closed contacts",
        "trials",
    ];
    Table {
        file: "steps.csv".into(),
        columns: columns.map(String::from).to_vec(),
        rows: run
            .log
            .iter()
            .map(|r| {
                let mut row = [r.t, r.h, r.drift, r.violation, r.residual]
                    .map(Cell::Num)
                    .to_vec();
                row.extend([r.closed.into(), r.trials.into()]);
                row
            })
            .collect(),
    }
}

/// `steps.svg`: the step size against time.
pub(crate) fn steps_plot(run: &Run, model: &str) -> Plot {
    Plot {
        file: "steps.svg".into(),
        title: format!("{model}: step size"),
        x_label: "t [s]".into(),
        y_label: "h [s]".into(),
        series: vec![Series {
            label: "h".into(),
            x: run.log.iter().map(|r| r.t).collect(),
            y: run.log.iter().map(|r| r.h).collect(),
            points: false,
            dashed: false,
        }],
        cells: None,
    }
}

/// The step sizes taken (smallest, mean, largest), the largest drift, violation after the
/// projection and equations-of-motion residual over the steps, and how many steps were
/// accepted with a drift above `drift` (`over_drift`).
pub(crate) fn summary(run: &Run, settings: &Stepping, s: &mut Map<String, Value>) {
    let log = &run.log;
    let max =
        |f: fn(&nsd_solve::multibody::StepRecord) -> f64| log.iter().map(f).fold(0.0, f64::max);
    let smallest = log.iter().map(|r| r.h).reduce(f64::min).unwrap_or(0.0);
    let mean = log.iter().map(|r| r.h).sum::<f64>() / log.len().max(1) as f64;
    s.insert("h_smallest".into(), json!(smallest));
    s.insert("h_largest".into(), json!(max(|r| r.h)));
    s.insert("h_mean".into(), json!(mean));
    s.insert("max_drift".into(), json!(max(|r| r.drift)));
    s.insert("max_step_violation".into(), json!(max(|r| r.violation)));
    s.insert("max_eom_residual".into(), json!(max(|r| r.residual)));
    s.insert(
        "steps_over_drift".into(),
        json!(over_drift(run, settings).count()),
    );
}

/// The steps accepted with a drift above the tolerance: the rule (module doc of
/// `solve::multibody::timestepping`) accepts any step at `h_min`, or a last step shorter
/// than it, whatever its drift, so these are the steps `h_min` forced.
fn over_drift<'r>(
    run: &'r Run,
    s: &Stepping,
) -> impl Iterator<Item = &'r nsd_solve::multibody::StepRecord> {
    let tol = s.drift;
    run.log.iter().filter(move |r| r.drift > tol)
}

/// The warning that steps forced by `h_min` broke the `drift` bound: how many, and the
/// worst drift with its time; `None` when every step kept it.
pub(crate) fn over_drift_warning(run: &Run, s: &Stepping) -> Option<String> {
    let count = over_drift(run, s).count();
    let worst = over_drift(run, s).max_by(|a, b| a.drift.total_cmp(&b.drift))?;
    Some(format!(
        "{count} step(s) at h_min = {} s exceeded the drift bound {:e} m (worst {:.3e} m, in the step of h = {} s ending at t = {} s): the step-size rule accepts steps at h_min whatever their drift, and the projection then moves the bodies by that much; lower `h_min` (or raise `drift` if this is expected)",
        s.h_min, s.drift, worst.drift, worst.h, worst.t
    ))
}
