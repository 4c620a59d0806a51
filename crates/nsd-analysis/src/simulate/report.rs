//! What a `simulate` run reports: `data.csv` on the recorded DOFs, `forces.csv`,
//! `events.csv`, `section.csv`, the time history and phase portrait, and the summary (the
//! run's counters, final state, energy drift and largest contact forces).

use crate::options::section;
use crate::results::{Cell, Plot, Results, Series, Table};
use nsd_model::{Model, System};
use nsd_solve::ode::driver::{Event, Trajectory};
use nsd_solve::ode::hybrid::Hybrid;
use nsd_solve::reduce::Reduced;
use serde_json::{json, Map, Value};

/// How many DOFs the time-history plot draws (the CSV has them all).
const PLOTTED_DOFS: usize = 4;

/// Tables, plots and summary of a (possibly partial) trajectory.
pub(super) fn report(
    traj: &Trajectory,
    hybrid: &Hybrid,
    reduced: Option<&Reduced>,
    model: &Model,
    sys: &System,
    settings: Map<String, Value>,
    recorded: &Recorded,
) -> Results {
    // Tables, plots and final state on the physical DOFs; the energy on the solved ones.
    let expanded = reduced.map(|r| physical(traj, r));
    let shown = expanded.as_ref().unwrap_or(traj);
    let mut warnings: Vec<String> = sys.warnings.iter().map(|w| w.message.clone()).collect();
    for t_star in &traj.zeno {
        warnings.push(format!(
            "impacts accumulated (Zeno) at t* ≈ {t_star}; continued in persistent contact"
        ));
    }
    let names: Vec<String> = sys.dofs.iter().map(|d| d.name.clone()).collect();
    let force_names = hybrid.contact_force_names();
    let mut tables = vec![states_table(shown, &names, recorded)];
    if !force_names.is_empty() {
        tables.push(forces_table(traj, &force_names));
    }
    tables.push(events_table(&traj.events));
    if !traj.section.is_empty() {
        tables.push(section::table(&shown.section, &names));
    }
    let mut summary = summary(shown, &names);
    if let Some(drift) = energy_drift(traj, hybrid) {
        summary.insert("energy_drift".into(), json!(drift));
    }
    summary.extend(largest_forces(traj, &force_names));
    Results {
        name: String::new(),
        kind: "simulate".into(),
        model: model.name.clone(),
        tables,
        plots: plots(shown, &model.name, &names, recorded),
        summary,
        settings,
        params: model.params.clone(),
        warnings,
        wall_s: 0.0,
    }
}

/// The DOFs that `data.csv` and the plots show (`record`, else every DOF) and where each
/// one's displacement and velocity sit in a sample.
pub(super) struct Recorded {
    dofs: Vec<usize>,
    x: Vec<usize>,
    v: Vec<usize>,
}

impl Recorded {
    /// The DOFs of `record`: a model that is not reduced and has no energy check (it is
    /// damped, forced or dissipative) keeps only their states in each sample
    /// (`Recording::sampled_components`: a 1000-DOF run's every-step samples are otherwise
    /// hundreds of MB); the others keep the whole state, which the expansion of the
    /// reduced model and the energy check read.
    pub(super) fn new(
        record: Option<Vec<usize>>,
        n: usize,
        hybrid: &mut Hybrid,
        unreduced: bool,
    ) -> Self {
        let Some(dofs) = record else {
            return Recorded {
                dofs: (0..n).collect(),
                x: (0..n).collect(),
                v: (n..2 * n).collect(),
            };
        };
        let (x, v): (Vec<usize>, Vec<usize>) = dofs.iter().map(|&i| (i, n + i)).unzip();
        if unreduced && !hybrid.is_conservative() {
            hybrid.record.sampled_components = Some(x.iter().chain(&v).copied().collect());
            let r = dofs.len();
            return Recorded {
                dofs,
                x: (0..r).collect(),
                v: (r..2 * r).collect(),
            };
        }
        Recorded { dofs, x, v }
    }
}

/// `data.csv`: time, the displacements of the `recorded` DOFs, their velocities.
fn states_table(traj: &Trajectory, names: &[String], recorded: &Recorded) -> Table {
    let mut columns = vec!["t [s]".to_string()];
    columns.extend(recorded.dofs.iter().map(|&i| names[i].clone()));
    columns.extend(recorded.dofs.iter().map(|&i| format!("v({})", names[i])));
    let rows = traj
        .t
        .iter()
        .zip(&traj.y)
        .map(|(t, y)| {
            let x = recorded.x.iter().map(|&j| y[j]);
            let v = recorded.v.iter().map(|&j| y[j]);
            std::iter::once(*t)
                .chain(x)
                .chain(v)
                .map(Cell::Num)
                .collect()
        })
        .collect();
    Table {
        file: "data.csv".into(),
        columns,
        rows,
    }
}

/// `forces.csv`: time and every contact element's force at the samples of `data.csv`
/// (`Hybrid::contact_forces`: `NAME.F` gaps, `NAME.N` rigid stops, `NAME.T` friction).
fn forces_table(traj: &Trajectory, force_names: &[String]) -> Table {
    let mut columns = vec!["t [s]".to_string()];
    columns.extend(force_names.iter().map(|c| format!("{c} [N]")));
    let rows = traj
        .t
        .iter()
        .zip(&traj.forces)
        .map(|(t, f)| {
            std::iter::once(Cell::Num(*t))
                .chain(f.iter().map(|v| Cell::Num(*v)))
                .collect()
        })
        .collect();
    Table {
        file: "forces.csv".into(),
        columns,
        rows,
    }
}

/// `max_contact_force` (the largest |force| of each contact element over the samples, by
/// column name) and, when impacts occurred, `max_impulse` (the largest impulse per rigid
/// stop over its impacts).
fn largest_forces(traj: &Trajectory, force_names: &[String]) -> Map<String, Value> {
    let mut out = Map::new();
    if !force_names.is_empty() {
        let largest: Map<String, Value> = force_names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let max = traj.forces.iter().map(|f| f[i].abs()).fold(0.0, f64::max);
                (name.clone(), json!(max))
            })
            .collect();
        out.insert("max_contact_force".into(), json!(largest));
    }
    let mut impulses = Map::new();
    for e in &traj.events {
        if let Some(p) = e.impulse {
            let best = impulses
                .get(&e.element)
                .and_then(Value::as_f64)
                .map_or(p.abs(), |b| b.max(p.abs()));
            impulses.insert(e.element.clone(), json!(best));
        }
    }
    if !impulses.is_empty() {
        out.insert("max_impulse".into(), json!(impulses));
    }
    out
}

/// The columns of `events.csv` (a multibody run's add the contact point).
pub(super) const EVENT_COLUMNS: [&str; 8] = [
    "t [s]",
    "element",
    "kind",
    "from",
    "to",
    "velocity",
    "velocity_after",
    "impulse [N s]",
];

/// `events.csv`: one row per located mode change or impact, with the impulse of impacts
/// (empty for the other events).
pub(super) fn events_table(events: &[Event]) -> Table {
    Table {
        file: "events.csv".into(),
        columns: EVENT_COLUMNS.iter().map(|s| s.to_string()).collect(),
        rows: events.iter().map(event_cells).collect(),
    }
}

/// One event's row of `events.csv`.
pub(super) fn event_cells(e: &Event) -> Vec<Cell> {
    vec![
        Cell::Num(e.t),
        Cell::Text(e.element.clone()),
        Cell::Text(e.kind.into()),
        Cell::Text(e.from.into()),
        Cell::Text(e.to.into()),
        Cell::Num(e.velocity),
        e.velocity_after
            .map_or(Cell::Text(String::new()), Cell::Num),
        e.impulse.map_or(Cell::Text(String::new()), Cell::Num),
    ]
}

/// The time history of the first recorded DOFs and the phase portrait of the first.
fn plots(traj: &Trajectory, model: &str, names: &[String], recorded: &Recorded) -> Vec<Plot> {
    let history = Plot {
        file: "time_history.svg".into(),
        title: format!("{model}: displacements"),
        x_label: "t [s]".into(),
        y_label: "x".into(),
        series: recorded
            .dofs
            .iter()
            .zip(&recorded.x)
            .take(PLOTTED_DOFS)
            .map(|(&i, &j)| Series {
                label: names[i].clone(),
                x: traj.t.clone(),
                y: traj.y.iter().map(|y| y[j]).collect(),
                points: false,
                dashed: false,
            })
            .collect(),
        cells: None,
    };
    let mut plots = vec![history];
    if let (Some(&first), Some(&x), Some(&v)) = (
        recorded.dofs.first(),
        recorded.x.first(),
        recorded.v.first(),
    ) {
        plots.push(Plot {
            file: "phase.svg".into(),
            title: format!("{model}: phase portrait of {}", names[first]),
            x_label: names[first].clone(),
            y_label: format!("v({})", names[first]),
            series: vec![Series {
                label: String::new(),
                x: traj.y.iter().map(|y| y[x]).collect(),
                y: traj.y.iter().map(|y| y[v]).collect(),
                points: false,
                dashed: false,
            }],
            cells: None,
        });
    }
    plots
}

/// The run's counters and its final state.
fn summary(traj: &Trajectory, names: &[String]) -> Map<String, Value> {
    let n = names.len();
    let mut final_state = Map::new();
    for (i, d) in names.iter().enumerate() {
        final_state.insert(d.clone(), json!(traj.final_state[i]));
        final_state.insert(format!("v({d})"), json!(traj.final_state[n + i]));
    }
    let mut summary = Map::new();
    summary.insert("events".into(), json!(traj.events.len()));
    if !traj.section.is_empty() {
        summary.insert("section_points".into(), json!(traj.section.len()));
    }
    summary.insert("impacts".into(), json!(traj.impacts));
    summary.insert("zeno".into(), json!(traj.zeno));
    summary.insert("steps".into(), json!(traj.steps));
    summary.insert("rejected".into(), json!(traj.rejected));
    summary.insert("rhs_evals".into(), json!(traj.rhs_evals));
    summary.insert("stiff_steps".into(), json!(traj.stiff_steps));
    summary.insert("stiff_switches".into(), json!(traj.stiff_switches));
    summary.insert("final".into(), json!(final_state));
    summary
}

/// The samples, final state and section points of a run on the reduced model, on the
/// physical DOFs (`x = T q`).
fn physical(traj: &Trajectory, r: &Reduced) -> Trajectory {
    let mut out = traj.clone();
    for y in out.y.iter_mut().chain([&mut out.final_state]) {
        *y = r.expand_state(y);
    }
    for p in &mut out.section {
        p.y = r.expand_state(&p.y);
    }
    out
}

/// `max |E − E₀| / |E₀|` with `E₀` the energy of the initial state at `t0` (not of the first
/// output sample, which `output = at(…)` may place anywhere) and the maximum over the output
/// samples and the final state; `None` for a model that dissipates or feeds energy (damping,
/// loads, base motion, dissipative contact laws, impacts with `e < 1`, friction), whose
/// energy is not expected to stay constant.
fn energy_drift(traj: &Trajectory, hybrid: &Hybrid) -> Option<f64> {
    if !hybrid.is_conservative() {
        return None;
    }
    let e0 = hybrid.energy(&traj.initial_state)?;
    let drift = traj
        .y
        .iter()
        .chain(std::iter::once(&traj.final_state))
        .filter_map(|y| hybrid.energy(y))
        .map(|e| (e - e0).abs())
        .fold(0.0, f64::max);
    Some(drift / e0.abs().max(f64::MIN_POSITIVE))
}
