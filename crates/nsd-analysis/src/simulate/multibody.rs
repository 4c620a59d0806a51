//! `simulate` of a model with rigid bodies and joints (paper 002): options, the run by one of
//! the two backends of `solve::multibody`, and its report.
//!
//! Options: `t = t0..t1`, `method = events | timestepping`, `output = steps | every(dt) |
//! at(t1, t2, …)`; for `events` (the default: DOP853 on the index-1 equations, compliant
//! contact switched at events) `rtol`, `atol`, `max_step`; for `timestepping` (the paper's
//! half-implicit scheme with rigid contact, `timestepping.rs`) `h_min`, `h_max`, `drift`.
//! Writes `trajectory.csv` (per body: position, Euler parameters, rotation vector, velocity,
//! global angular velocity), `energy.csv` (kinetic, potential, total energy and the
//! constraint violations `|Φ|`, `|Φ_q q̇|`), `reactions.csv` (per joint: force and moment on
//! its second body), `positions.svg` and `energy.svg`, and with clearance joints
//! `contacts.csv` (per contact point: gap, normal force, friction force) and `events.csv`
//! (compliant entries and exits, rigid impacts with their impulses, holds, Zeno
//! accumulations, lift-offs, as the DOF integrator's, with the contact point); the summary's
//! contact maxima are over the motion (`solve::multibody::Extremes`), not the samples;
//! `timestepping` adds `steps.csv`, `steps.svg` and a warning when steps forced at `h_min`
//! broke the `drift` bound. `timestepping` models friction (`mu`) exactly in a
//! polyhedral cone, `events` regularised at compliant contacts. Refused: friction at a
//! rigid contact in `events`; spherical and fixed joints have no clearance model yet.

use super::super::diagnostics::{AnalysisError, Partial};
use super::super::options::OptionReader;
use super::super::results::{Cell, Plot, Results, Series, Table};
use super::super::tolerances::integrator_tolerances;
use super::timestepping;
use nsd_lang::ast::Analysis;
use nsd_lang::units::Dim;
use nsd_model::flat::{ContactLaw, JointKind};
use nsd_model::system::Multibody;
use nsd_model::Model;
use nsd_solve::multibody::tolerances::FRICTION_JOINTS_MAX;
use nsd_solve::multibody::{integrate, timestep, Load, Mechanism, Run, Settings, Stepping};
use nsd_solve::ode::dop853::Tolerances;
use serde_json::{json, Map, Value};

/// The options of `simulate` on a multibody model.
const OPTIONS: [&str; 9] = [
    "t", "rtol", "atol", "max_step", "method", "output", "h_min", "h_max", "drift",
];

/// The options only the `events` backend reads (the others are `timestepping::OPTIONS`).
const EVENTS_OPTIONS: [&str; 3] = ["rtol", "atol", "max_step"];

/// The backend of a run, with its settings.
enum Backend {
    Events(Settings),
    Timestepping(Stepping),
}

/// How many bodies `positions.svg` draws (the CSV has them all).
const PLOTTED_BODIES: usize = 3;

/// Columns of `trajectory.csv` per body.
const BODY_COLUMNS: [&str; 16] = [
    "x [m]",
    "y [m]",
    "z [m]",
    "e0",
    "e1",
    "e2",
    "e3",
    "rx [rad]",
    "ry [rad]",
    "rz [rad]",
    "vx [m/s]",
    "vy [m/s]",
    "vz [m/s]",
    "wx [rad/s]",
    "wy [rad/s]",
    "wz [rad/s]",
];

/// Runs `simulate` on the bodies and joints `mb` of `model`, whose lumped part has `dofs`
/// DOFs (none is supported yet).
pub(crate) fn run(
    a: &Analysis,
    model: &Model,
    mb: &Multibody,
    dofs: usize,
) -> Result<Results, Partial> {
    if dofs > 0 {
        return Err(AnalysisError::Unsupported {
            message: format!("simulate of `{}`: a model with both rigid bodies and masses ({dofs} DOFs) is not integrated yet", model.name),
            at: a.span,
            help: "simulate the bodies and joints in a model of their own; coupling them to masses, springs and beams follows".into(),
        }.into());
    }
    let backend = read_options(a, model, mb)?;
    refuse_clearances(a, model, mb, &backend)?;
    let unsolvable = |e: &dyn std::fmt::Display| {
        AnalysisError::Numerical {
        message: format!("simulate of `{}`: {e}", model.name),
        at: a.span,
        help: "check that the joints do not constrain the same motion twice (a closed loop of ideal joints is often redundant)".into(),
    }
    };
    let (mech, y0) = Mechanism::new(mb).map_err(|e| unsolvable(&e))?;
    let start = std::time::Instant::now();
    let mut meta = Map::new();
    let mut warnings = Vec::new();
    let outcome = match &backend {
        Backend::Events(settings) => {
            meta.insert("t".into(), json!([settings.t0, settings.t1]));
            meta.insert("rtol".into(), json!(settings.tol.rtol));
            meta.insert("atol".into(), json!(settings.tol.atol));
            meta.insert("max_step".into(), json!(settings.tol.max_step));
            meta.insert("method".into(), json!("events: DOP853 on the index-1 Newton–Euler equations, coordinate projection onto the joints after every step, clearance contacts switched at events"));
            integrate(&mech, y0, settings, &mut |_| {})
        }
        Backend::Timestepping(s) => {
            timestepping::meta(s, &mut meta);
            warnings = timestepping::warnings(mb);
            timestep(&mech, y0, s, &mut |_| {})
        }
    };
    let stepping = match &backend {
        Backend::Timestepping(s) => Some(s),
        Backend::Events(_) => None,
    };
    let report = |run: &Run| {
        let (mut tables, mut plots) = (tables(&mech, mb, run), plots(&mech, mb, run, &model.name));
        let mut summary = summary(&mech, mb, run);
        let mut warnings = warnings.clone();
        if let Some(s) = stepping {
            tables.push(timestepping::steps_table(run));
            plots.push(timestepping::steps_plot(run, &model.name));
            timestepping::summary(run, s, &mut summary);
            warnings.extend(timestepping::over_drift_warning(run, s));
        }
        Results {
            name: String::new(),
            kind: "simulate".into(),
            model: model.name.clone(),
            tables,
            plots,
            summary,
            settings: meta.clone(),
            params: model.params.clone(),
            warnings,
            wall_s: start.elapsed().as_secs_f64(),
        }
    };
    let help = if stepping.is_some() {
        "lower `h_min`; a degenerate pose (joint axes aligned, a redundant loop) cannot be stepped; the partial results are written"
    } else {
        "loosen rtol/atol or lower max_step; a degenerate pose (joint axes aligned, a redundant loop) cannot be integrated; the partial results are written"
    };
    match outcome {
        Ok(run) => Ok(report(&run)),
        Err(failed) => Err(super::failed_run(
            report(&failed.partial),
            format!("simulate of `{}`: {}", model.name, failed.error),
            a.span,
            help,
        )),
    }
}

/// Clearance joints a backend cannot integrate: friction at a rigid `impact` law in the
/// `events` backend, friction at more than `FRICTION_JOINTS_MAX` joints in `timestepping`, a spherical or fixed joint (no gap model), a prismatic joint of zero length (its two
/// vertex rings coincide and leave the tilt free).
fn refuse_clearances(
    a: &Analysis,
    model: &Model,
    mb: &Multibody,
    backend: &Backend,
) -> Result<(), AnalysisError> {
    let stepping = matches!(backend, Backend::Timestepping(_));
    for (name, j, ..) in &mb.joints {
        if j.radial_clearance.is_none() && j.axial_clearance.is_none() {
            continue;
        }
        let (why, help) = match (&j.kind, j.law) {
            (JointKind::Spherical | JointKind::Fixed, _) => ("is a spherical or fixed joint with a clearance, which has no gap model yet", "drop its clearance to simulate it as an ideal joint".to_string()),
            (JointKind::Prismatic { .. }, _) if j.length == 0.0 => ("is a prismatic joint with a clearance but no `length` (its slider needs two vertex rings)", format!("give `{name}` a `length`")),
            (_, ContactLaw::Impact { .. }) if !stepping && j.mu > 0.0 => ("has friction (`mu`) at a rigid `impact` law, which the `events` backend does not model (its rigid contacts are frictionless)", format!("use `method = timestepping` (Coulomb friction in a polyhedral cone), drop `mu` from `{name}`, or give it a compliant law (`law = hunt_crossley(k = 1e9, e = 0.5)`, …: regularised Coulomb friction)")),
            _ => continue,
        };
        return Err(AnalysisError::Unsupported {
            message: format!("simulate of `{}`: joint `{name}` {why}", model.name),
            at: a.span,
            help,
        });
    }
    let frictional = mb
        .joints
        .iter()
        .filter(|(_, j, ..)| {
            j.mu > 0.0 && (j.radial_clearance.is_some() || j.axial_clearance.is_some())
        })
        .count();
    if stepping && frictional > FRICTION_JOINTS_MAX {
        return Err(AnalysisError::Unsupported {
            message: format!(
                "simulate of `{}`: {frictional} clearance joints have friction (`mu`); the `timestepping` backend's friction solve (Lemke's method on a dense tableau) is practical for at most {FRICTION_JOINTS_MAX}",
                model.name
            ),
            at: a.span,
            help: "drop `mu` from some joints, or use `method = events` with a compliant law (regularised Coulomb friction)".to_string(),
        });
    }
    Ok(())
}

/// The options as the backend and its settings; each backend's options refused with the
/// other (they would have no effect).
fn read_options(a: &Analysis, model: &Model, mb: &Multibody) -> Result<Backend, AnalysisError> {
    let opts = OptionReader::new(a, model, &OPTIONS)?;
    let (t0, t1) = opts.interval("t")?.ok_or_else(|| {
        opts.bad_value(
            "t",
            a.span,
            "missing",
            "give the time span, e.g. `t = 0..10`",
        )
    })?;
    let method = opts
        .choice("method", &["events", "timestepping"])?
        .unwrap_or("events");
    let (theirs, other) = match method {
        "timestepping" => (&EVENTS_OPTIONS[..], "events"),
        _ => (&timestepping::OPTIONS[..], "timestepping"),
    };
    if let Some((key, at)) = theirs
        .iter()
        .find_map(|k| opts.span_of(k).map(|at| (*k, at)))
    {
        return Err(opts.bad_value(
            key,
            at,
            &format!("has no effect with `method = {method}`"),
            &format!("drop `{key}`, or use `method = {other}`, which reads it"),
        ));
    }
    // About as many columns as `trajectory.csv`, for the output-size estimate.
    let states = BODY_COLUMNS.len() * mb.bodies.len() / 2 + 1;
    if method == "timestepping" {
        let sizes = timestepping::read(&opts, (t0, t1))?;
        let tol = Tolerances {
            rtol: 0.0,
            atol: 0.0,
            max_step: sizes.h_max,
        };
        let output = super::read_output(&opts, (t0, t1), &tol, states, f64::INFINITY)?;
        return Ok(Backend::Timestepping(Stepping { output, ..sizes }));
    }
    let (rtol, atol) = integrator_tolerances(&opts)?;
    let tol = Tolerances {
        rtol,
        atol,
        max_step: opts.positive("max_step", Dim::TIME, t1 - t0, "1e-3")?,
    };
    let output = super::read_output(&opts, (t0, t1), &tol, states, f64::INFINITY)?;
    Ok(Backend::Events(Settings {
        t0,
        t1,
        tol,
        output,
    }))
}

/// `trajectory.csv`, `energy.csv`, (with joints) `reactions.csv` and (with clearance
/// joints) `contacts.csv`.
fn tables(mech: &Mechanism, mb: &Multibody, run: &Run) -> Vec<Table> {
    let mut columns = vec!["t [s]".to_string()];
    for (b, _) in &mb.bodies {
        columns.extend(BODY_COLUMNS.iter().map(|c| format!("{b}.{c}")));
    }
    let rows = samples(run)
        .map(|(t, y)| {
            let mut row = vec![Cell::Num(t)];
            for i in 0..mb.bodies.len() {
                let s = mech.body_state(y, i);
                row.extend(
                    s.r.iter()
                        .chain(&s.p)
                        .chain(&s.rotation)
                        .chain(&s.v)
                        .chain(&s.w)
                        .map(|v| Cell::Num(*v)),
                );
            }
            row
        })
        .collect();
    let mut out = vec![Table {
        file: "trajectory.csv".into(),
        columns,
        rows,
    }];
    out.push(Table {
        file: "energy.csv".into(),
        columns: [
            "t [s]",
            "kinetic [J]",
            "potential [J]",
            "total [J]",
            "|Phi|",
            "|Phi_q qdot|",
        ]
        .map(String::from)
        .to_vec(),
        rows: samples(run)
            .map(|(t, y)| {
                let (k, v) = mech.energy(y);
                let (phi, dphi) = mech.violation(y);
                [t, k, v, k + v, phi, dphi].map(Cell::Num).to_vec()
            })
            .collect(),
    });
    if !mb.joints.is_empty() {
        out.push(reactions_table(mech, mb, run));
    }
    if !mech.contacts().is_empty() {
        out.push(contacts_table(mech, run));
    }
    if !mech.contacts().is_empty() {
        out.push(events_table(run));
    }
    out
}

/// `events.csv`: the DOF integrator's columns (`report::EVENT_COLUMNS`) and the contact
/// point (global, m), one row per contact event of the run.
fn events_table(run: &Run) -> Table {
    let mut columns: Vec<String> = super::report::EVENT_COLUMNS.map(String::from).to_vec();
    columns.extend(["x [m]", "y [m]", "z [m]"].map(String::from));
    let rows = run
        .events
        .iter()
        .map(|e| {
            let mut row = super::report::event_cells(&e.event);
            row.extend(e.point.map(Cell::Num));
            row
        })
        .collect();
    Table {
        file: "events.csv".into(),
        columns,
        rows,
    }
}

/// `contacts.csv`: per contact point of a clearance joint, the gap (negative: penetration),
/// the normal force and the magnitude of the friction force.
fn contacts_table(mech: &Mechanism, run: &Run) -> Table {
    let mut columns = vec!["t [s]".to_string()];
    for c in mech.contacts() {
        for q in ["gap [m]", "normal [N]", "friction [N]"] {
            columns.push(format!("{}.{q}", c.name));
        }
    }
    let rows = (0..run.t.len())
        .map(|s| {
            let mut row = vec![Cell::Num(run.t[s])];
            for l in sample_loads(mech, run, s) {
                row.extend([l.gap, l.normal, l.friction.norm()].map(Cell::Num));
            }
            row
        })
        .collect();
    Table {
        file: "contacts.csv".into(),
        columns,
        rows,
    }
}

/// The contacts' loads at sample `s`: the compliant forces of the `events` backend (a held
/// rigid contact's normal force its multiplier), or the gaps with the mean normal and
/// friction forces of the step that ended there (`timestepping`).
fn sample_loads(mech: &Mechanism, run: &Run, s: usize) -> Vec<Load> {
    match run.forces.get(s) {
        Some(f) => mech
            .loads(&run.y[s], None)
            .into_iter()
            .zip(f.contact.iter().zip(&f.friction))
            .map(|(l, (normal, friction))| Load {
                normal: *normal,
                friction: *friction,
                ..l
            })
            .collect(),
        None => mech.loads_held(run.t[s], &run.y[s], &run.modes[s]),
    }
}

/// The samples of a run, `(t, y)`.
fn samples(run: &Run) -> impl Iterator<Item = (f64, &[f64])> {
    run.t.iter().zip(&run.y).map(|(t, y)| (*t, y.as_slice()))
}

/// `reactions.csv`: per joint, the force (global) and the moment about the joint point on
/// its second body (its first when the second is the ground).
fn reactions_table(mech: &Mechanism, mb: &Multibody, run: &Run) -> Table {
    let mut columns = vec!["t [s]".to_string()];
    for (j, ..) in &mb.joints {
        for c in [
            "Fx [N]", "Fy [N]", "Fz [N]", "Mx [N m]", "My [N m]", "Mz [N m]",
        ] {
            columns.push(format!("{j}.{c}"));
        }
    }
    let rows = samples(run)
        .zip(&run.modes)
        .enumerate()
        .map(|(s, ((t, y), modes))| {
            let mut row = vec![Cell::Num(t)];
            let reactions = match run.forces.get(s) {
                Some(f) => Ok(mech.reactions_of(y, &f.lambda)),
                None => mech.reactions(t, y, modes),
            };
            match reactions {
                Ok(r) => row.extend(r.iter().flatten().map(|v| Cell::Num(*v))),
                Err(_) => row.extend((1..columns.len()).map(|_| Cell::Text(String::new()))),
            }
            row
        })
        .collect();
    Table {
        file: "reactions.csv".into(),
        columns,
        rows,
    }
}

/// `positions.svg` (the first bodies' centres of mass) and `energy.svg`.
fn plots(mech: &Mechanism, mb: &Multibody, run: &Run, model: &str) -> Vec<Plot> {
    let series = |label: String, y: Vec<f64>| Series {
        label,
        x: run.t.clone(),
        y,
        points: false,
        dashed: false,
    };
    let mut positions = Vec::new();
    for (i, (b, _)) in mb.bodies.iter().enumerate().take(PLOTTED_BODIES) {
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            let y = run.y.iter().map(|y| mech.body_state(y, i).r[k]).collect();
            positions.push(series(format!("{b}.{axis}"), y));
        }
    }
    let energies: Vec<(f64, f64)> = run.y.iter().map(|y| mech.energy(y)).collect();
    let energy = vec![
        series("kinetic".into(), energies.iter().map(|e| e.0).collect()),
        series("potential".into(), energies.iter().map(|e| e.1).collect()),
        series("total".into(), energies.iter().map(|e| e.0 + e.1).collect()),
    ];
    [
        (
            "positions.svg",
            "centres of mass",
            "position [m]",
            positions,
        ),
        ("energy.svg", "energy", "energy [J]", energy),
    ]
    .into_iter()
    .map(|(file, what, y_label, series)| Plot {
        file: file.into(),
        title: format!("{model}: {what}"),
        x_label: "t [s]".into(),
        y_label: y_label.into(),
        series,
        cells: None,
    })
    .collect()
}

/// Counters, drifts and the final state (the `expect` paths of a multibody `simulate`).
fn summary(mech: &Mechanism, mb: &Multibody, run: &Run) -> Map<String, Value> {
    let mut s = Map::new();
    s.insert("steps".into(), json!(run.steps));
    s.insert("rejected".into(), json!(run.rejected));
    s.insert("rhs_evals".into(), json!(run.rhs_evals));
    let states = || run.y.iter().chain(std::iter::once(&run.last.1));
    let (k0, v0) = mech.energy(&run.initial);
    let e0 = k0 + v0;
    let (mut drift, mut scale) = (0.0_f64, e0.abs().max(k0));
    let (mut phi, mut dphi) = (0.0_f64, 0.0_f64);
    for y in states() {
        let (k, v) = mech.energy(y);
        drift = drift.max((k + v - e0).abs());
        scale = scale.max(k);
        let (p, d) = mech.violation(y);
        phi = phi.max(p);
        dphi = dphi.max(d);
    }
    s.insert(
        "energy_drift".into(),
        json!(drift / scale.max(f64::MIN_POSITIVE)),
    );
    s.insert("max_constraint_violation".into(), json!(phi));
    s.insert("max_velocity_violation".into(), json!(dphi));
    if mech.is_free() {
        let h0 = mech.angular_momentum(&run.initial);
        let change = states()
            .map(|y| (mech.angular_momentum(y) - h0).norm())
            .fold(0.0, f64::max);
        s.insert(
            "angular_momentum_drift".into(),
            json!(change / h0.norm().max(f64::MIN_POSITIVE)),
        );
    }
    if !mech.contacts().is_empty() {
        contact_summary(mech, run, &mut s);
    }
    let mut last = Map::new();
    for (i, (b, _)) in mb.bodies.iter().enumerate() {
        let st = mech.body_state(&run.last.1, i);
        let named = ["x", "y", "z"].iter().zip(&st.r);
        let named = named.chain(["e0", "e1", "e2", "e3"].iter().zip(&st.p));
        for (c, v) in named {
            last.insert(format!("{b}.{c}"), json!(v));
        }
    }
    s.insert("final_time".into(), json!(run.last.0));
    s.insert("final".into(), json!(last));
    s
}

/// The contact quantities of the summary: the largest penetration (m) and normal force (N)
/// over the motion (`solve::multibody::Extremes`, whatever the samples), the contacts
/// closed at the end, the switches, the energy dissipated
/// (J, initial minus final total energy, the contacts' elastic energy included) and the
/// largest rise of the total energy between samples (J; zero up to the integration error
/// when nothing feeds energy in).
fn contact_summary(mech: &Mechanism, run: &Run, s: &mut Map<String, Value>) {
    let total = |y: &[f64]| {
        let (k, v) = mech.energy(y);
        k + v
    };
    let energies: Vec<f64> = run.y.iter().map(|y| total(y)).collect();
    let rise = energies.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    s.insert("max_penetration".into(), json!(run.extremes.penetration));
    s.insert("max_normal_force".into(), json!(run.extremes.normal));
    s.insert(
        "contacts_closed".into(),
        json!(run.last_modes.closed.iter().filter(|c| **c).count()),
    );
    s.insert("contact_switches".into(), json!(run.switches));
    if mech.contacts().iter().any(|c| c.rigid()) && run.forces.is_empty() {
        s.insert("impacts".into(), json!(run.impacts));
        s.insert("zeno".into(), json!(run.zeno));
    }
    s.insert(
        "energy_dissipated".into(),
        json!(total(&run.initial) - total(&run.last.1)),
    );
    s.insert("max_energy_rise".into(), json!(rise));
}
