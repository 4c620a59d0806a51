//! The branch of periodic orbits read point by point: each orbit integrated once more for its
//! largest excursions, its switches and its monodromy; stability from the multipliers; the
//! points where the number of unstable multipliers changes (fold, period doubling,
//! Neimark–Sacker, branch point) or the number of switches per orbit changes (grazing),
//! each located on the branch between the two points that bracket it.

use super::Request;
use crate::branch_plot::stability_plot;
use crate::results::{Cell, Results, Series, Table};
use nalgebra::{Complex, DVector};
use nsd_model::{Model, System};
use nsd_solve::cont::{locate, locate_zero, newton, Branch};
use nsd_solve::periodic::multipliers;
use nsd_solve::periodic::shooting::Shooting;
use serde_json::{json, Map, Value};

/// A multiplier counts as outside the unit circle above `1 + STABILITY_TOL`
/// (dimensionless): the multipliers are as accurate as the integration, far below it.
const STABILITY_TOL: f64 = 1e-6;

/// How close to the unit circle a located stability change's critical multiplier is brought
/// (dimensionless): near the multipliers' own accuracy, the integration's.
const UNIT_CIRCLE_TOL: f64 = 1e-12;

/// Bisections of the parameter interval that brackets a grazing the branch cannot be
/// corrected across (to 1e-12 of the interval).
const GRAZING_HALVINGS: usize = 40;

/// How many multipliers (largest modulus first) get their own columns.
const MULTIPLIER_COLUMNS: usize = 4;

/// Largest `|arg μ|` (rad) for the critical multiplier to count as crossing at +1, and
/// smallest for −1 (beyond `π −` it): complex pairs lie in between.
const REAL_ARG: f64 = 1e-3;

/// One orbit read.
#[derive(Clone)]
pub(super) struct Orbit {
    pub(crate) x: DVector<f64>,
    pub(crate) p: f64,
    period: f64,
    excursion: Vec<f64>,
    mu: Vec<Complex<f64>>,
    switches: usize,
    signature: String,
}

impl Orbit {
    /// The modulus of the `k`-th largest multiplier (from 0), 0 past the last.
    fn modulus(&self, k: usize) -> f64 {
        let mut m: Vec<f64> = self.mu.iter().map(|m| m.norm()).collect();
        m.sort_by(|a, b| b.total_cmp(a));
        m.get(k).copied().unwrap_or(0.0)
    }

    fn unstable(&self) -> usize {
        self.mu
            .iter()
            .filter(|m| m.norm() > 1.0 + STABILITY_TOL)
            .count()
    }
}

/// The orbit through `(x, p)`, or why it could not be read.
fn orbit(s: &Shooting, x: &DVector<f64>, p: f64) -> Result<Orbit, String> {
    let mut e = s.evaluate(x, p).map_err(|e| e.to_string())?;
    let m = s.monodromy_of(&mut e).map_err(|e| e.to_string())?;
    let n = x.len() / 2;
    let mut excursion = vec![0.0f64; n];
    for y in &e.shot.traj.y {
        for (m, v) in excursion.iter_mut().zip(y) {
            *m = m.max(v.abs());
        }
    }
    Ok(Orbit {
        x: x.clone(),
        p,
        period: e.shot.span,
        excursion,
        mu: multipliers(&m),
        switches: e.shot.traj.events.len(),
        signature: e.shot.signature(),
    })
}

/// The kind of a change of stability at `o` (the first point past it): by the critical
/// multiplier, the one nearest the unit circle.
fn kind(o: &Orbit, fold: bool) -> &'static str {
    let Some(mu) =
        o.mu.iter()
            .min_by(|a, b| (a.norm() - 1.0).abs().total_cmp(&(b.norm() - 1.0).abs()))
    else {
        return "bifurcation";
    };
    let arg = mu.arg().abs();
    if arg < REAL_ARG {
        if fold {
            "fold"
        } else {
            "branch_point"
        }
    } else if arg > std::f64::consts::PI - REAL_ARG {
        "period_doubling"
    } else {
        "neimark_sacker"
    }
}

/// The special points between two consecutive points `pair` of one part, read as `(a, b)`:
/// a change of the unstable multipliers (located, and named by the critical multiplier), a
/// fold of the parameter without one, a change of the switches per orbit (grazing, located).
fn located(
    s: &Shooting,
    req: &Request,
    pair: &[nsd_solve::cont::Point],
    (a, b): (&Orbit, &Orbit),
) -> Vec<(&'static str, Orbit)> {
    let ends = ((&pair[0].x, pair[0].p), (&pair[1].x, pair[1].p));
    let found = |state: &dyn Fn(&Orbit) -> usize| {
        locate(
            s,
            ends.0,
            ends.1,
            req.settings.scale,
            req.settings.tol,
            |x, p, _| orbit(s, x, p).map_or(usize::MAX, |o| state(&o)),
        )
        .and_then(|(x, p)| orbit(s, &x, p).ok())
    };
    let mut out = Vec::new();
    if a.unstable() != b.unstable() {
        // The crossing multiplier is the (k+1)-th largest, k staying outside on both sides:
        // its modulus is 1 at the point, found on it where it is smooth, else by bisection
        // of the count (which places it where |μ| = 1 + STABILITY_TOL).
        let k = a.unstable().min(b.unstable());
        let on_circle = locate_zero(
            s,
            ends.0,
            ends.1,
            (req.settings.scale, req.settings.tol),
            UNIT_CIRCLE_TOL,
            |x, p| orbit(s, x, p).ok().map(|o| o.modulus(k) - 1.0),
        )
        .and_then(|(x, p)| orbit(s, &x, p).ok());
        if let Some(o) = on_circle.or_else(|| found(&Orbit::unstable)) {
            out.push((kind(&o, pair[1].fold), o));
        }
    } else if pair[1].fold {
        out.push(("fold", b.clone()));
    }
    if a.switches != b.switches {
        let o = found(&|o: &Orbit| o.switches)
            .or_else(|| grazing_by_parameter(s, req, ends.0 .1, (ends.1 .0, ends.1 .1), b));
        out.push(("grazing", o.unwrap_or_else(|| b.clone())));
    }
    out
}

/// A grazing between the parameter values `pa` and `(xb, pb)` that the branch cannot be
/// corrected across (a rigid stop's: the impact velocity, and Newton's basin with it,
/// vanishes there): bisection in the parameter alone, each trial solved by Newton from the
/// orbit `b` on the far side, whose branch reaches the grazing smoothly; the first orbit
/// found with `b`'s switches.
fn grazing_by_parameter(
    s: &Shooting,
    req: &Request,
    pa: f64,
    (xb, pb): (&DVector<f64>, f64),
    b: &Orbit,
) -> Option<Orbit> {
    let tol = req.settings.tol * req.settings.scale.r;
    let (mut lo, mut hi, mut x) = (pa, pb, xb.clone());
    let mut found = None;
    for _ in 0..GRAZING_HALVINGS {
        let mid = 0.5 * (lo + hi);
        let o = newton(s, x.clone(), mid, tol)
            .and_then(|(xm, _)| orbit(s, &xm, mid).ok().map(|o| (xm, o)))
            .filter(|(_, o)| o.switches == b.switches);
        match o {
            Some((xm, o)) => {
                (hi, x) = (mid, xm);
                found = Some(o);
            }
            None => lo = mid,
        }
    }
    found
}

/// A special point: the index of the orbit it comes before, its kind, the orbit there.
pub(super) type Special = (usize, &'static str, Orbit);

/// One continued family read: the main branch, or a branch of doubled orbits.
pub(super) struct Part {
    orbits: Vec<Orbit>,
    pub(crate) special: Vec<Special>,
}

/// Every orbit of the parts in order, and the special points: those located between
/// consecutive points of a part, and one at the start of each later part (a grazing when
/// the switches differ across the stall, located in the parameter; else a restart).
pub(super) fn read_parts(s: &Shooting, branches: &[Branch], req: &Request) -> Part {
    let mut orbits: Vec<Orbit> = Vec::new();
    let mut special: Vec<Special> = Vec::new();
    for branch in branches {
        let read: Vec<Orbit> = branch
            .points
            .iter()
            .map_while(|pt| orbit(s, &pt.x, pt.p).ok())
            .collect();
        // A part after a stall starts past a grazing when the switches differ.
        if let (Some(before), Some(after), Some(first)) =
            (orbits.last(), read.first(), branch.points.first())
        {
            special.push(if before.switches == after.switches {
                (orbits.len(), "restart", after.clone())
            } else {
                let graze = grazing_by_parameter(s, req, before.p, (&first.x, first.p), after);
                (
                    orbits.len(),
                    "grazing",
                    graze.unwrap_or_else(|| after.clone()),
                )
            });
        }
        let offset = orbits.len();
        for (i, pair) in branch
            .points
            .windows(2)
            .enumerate()
            .take(read.len().saturating_sub(1))
        {
            let (a, b) = (&read[i], &read[i + 1]);
            special.extend(
                located(s, req, pair, (a, b))
                    .into_iter()
                    .map(|(label, o)| (offset + i + 1, label, o)),
            );
        }
        orbits.extend(read);
    }
    Part { orbits, special }
}

/// The table, plot and summary of the continued families: the main branch first (its parts
/// after each restart read as one), then each doubled branch.
pub(super) fn results(
    parts: &[Part],
    req: &Request,
    model: &Model,
    sys: &System,
    wall_s: f64,
) -> Results {
    let names: Vec<String> = sys.dofs.iter().map(|d| d.name.clone()).collect();
    let mut rows = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let mut specials = part.special.iter().peekable();
        for (i, o) in part.orbits.iter().enumerate() {
            while let Some((_, label, so)) = specials.next_if(|sp| sp.0 == i) {
                rows.push(row(k, so, label));
            }
            rows.push(row(k, o, ""));
        }
    }
    let plotted = &names[req.plotted];
    let mut plot = stability_plot(
        "periodic.svg",
        format!("{}: periodic orbits, max|{plotted}|", model.name),
        req.param.clone(),
        format!("max|{plotted}|"),
        &[],
        &[],
    );
    for (k, part) in parts.iter().enumerate() {
        plot.series.extend(series(k, part, req));
    }
    let mut summary = Map::new();
    summary.insert("dof".into(), json!(plotted));
    if let Some((main, doubled)) = parts.split_first() {
        summary.extend(account(main, req));
        let doubled: Vec<Value> = doubled
            .iter()
            .map(|d| Value::Object(account(d, req)))
            .collect();
        summary.insert("doubled".into(), json!(doubled));
    }
    summary.insert("wall_s".into(), json!(wall_s));
    Results {
        name: String::new(),
        kind: "continue periodic".into(),
        model: model.name.clone(),
        tables: vec![Table {
            file: "data.csv".into(),
            columns: columns(&req.param, &names),
            rows,
        }],
        plots: vec![plot],
        summary,
        settings: settings(req, &names),
        params: model.params.clone(),
        warnings: sys.warnings.iter().map(|w| w.message.clone()).collect(),
        wall_s,
    }
}

/// The plot's series of family `k`: stable and unstable lines, a marker per special point.
fn series(k: usize, part: &Part, req: &Request) -> Vec<Series> {
    let (curve, stable) = curve(part, req.plotted);
    let mut out = stability_plot(
        "",
        String::new(),
        String::new(),
        String::new(),
        &curve,
        &stable,
    )
    .series;
    if k > 0 {
        for s in &mut out {
            s.label = format!("doubled {k}, {}", s.label);
        }
    }
    for kind in [
        "fold",
        "period_doubling",
        "neimark_sacker",
        "branch_point",
        "grazing",
    ] {
        let at: Vec<&Orbit> = part
            .special
            .iter()
            .filter(|s| s.1 == kind)
            .map(|s| &s.2)
            .collect();
        if !at.is_empty() {
            out.push(Series {
                label: kind.replace('_', " "),
                x: at.iter().map(|o| o.p).collect(),
                y: at.iter().map(|o| o.excursion[req.plotted]).collect(),
                points: true,
                dashed: false,
            });
        }
    }
    out
}

/// DOF `dof`'s largest excursion along the family, and the stability of each orbit.
pub(super) fn curve(part: &Part, dof: usize) -> (Vec<(f64, f64)>, Vec<bool>) {
    part.orbits
        .iter()
        .map(|o| ((o.p, o.excursion[dof]), o.unstable() == 0))
        .unzip()
}

/// A family's account in the summary: its points, special points, first and last orbits.
pub(super) fn account(part: &Part, req: &Request) -> Map<String, Value> {
    let mut m = Map::new();
    let param = req.param.as_str();
    let listed = |wanted: &dyn Fn(&str) -> bool| -> Vec<Value> {
        part.special
            .iter()
            .filter(|s| wanted(s.1))
            .map(|(_, k, o)| json!({"kind": k, param: o.p, "amplitude": o.excursion[req.plotted]}))
            .collect()
    };
    m.insert("points".into(), json!(part.orbits.len()));
    m.insert(
        "bifurcations".into(),
        json!(listed(&|k| k != "grazing" && k != "restart")),
    );
    m.insert("grazings".into(), json!(listed(&|k| k == "grazing")));
    if let (Some(first), Some(last)) = (part.orbits.first(), part.orbits.last()) {
        for (key, o) in [("first", first), ("last", last)] {
            m.insert(
                key.into(),
                json!({param: o.p, "period": o.period, "amplitude": o.excursion[req.plotted], "stable": o.unstable() == 0}),
            );
        }
    }
    m
}

/// The header of `data.csv`.
fn columns(param: &str, names: &[String]) -> Vec<String> {
    let mut c = vec!["branch".to_string(), param.to_string(), "period".into()];
    c.extend(names.iter().map(|d| format!("max|{d}|")));
    c.extend(["stable", "unstable", "|mu|max"].map(String::from));
    for k in 1..=MULTIPLIER_COLUMNS {
        c.push(format!("mu{k}_re"));
        c.push(format!("mu{k}_im"));
    }
    c.extend(["switches", "signature", "point"].map(String::from));
    c
}

/// One row of `data.csv` for family `k` (`label` names a special point, empty for a branch
/// point).
fn row(k: usize, o: &Orbit, label: &str) -> Vec<Cell> {
    let mut r: Vec<Cell> = vec![k.into(), o.p.into(), o.period.into()];
    r.extend(o.excursion.iter().map(|&v| Cell::from(v)));
    r.push((o.unstable() == 0).into());
    r.push(o.unstable().into());
    r.push(o.mu.first().map_or(f64::NAN, |m| m.norm()).into());
    for k in 0..MULTIPLIER_COLUMNS {
        let m =
            o.mu.get(k)
                .copied()
                .unwrap_or(Complex::new(f64::NAN, f64::NAN));
        r.push(m.re.into());
        r.push(m.im.into());
    }
    r.push(o.switches.into());
    r.push(Cell::Text(o.signature.clone()));
    r.push(Cell::Text(label.into()));
    r
}

/// The settings block of `meta.json`.
fn settings(req: &Request, names: &[String]) -> Map<String, Value> {
    let s = &req.settings;
    let mut m = Map::new();
    m.insert("param".into(), json!(req.param));
    m.insert("range".into(), json!([s.range.0, s.range.1]));
    m.insert("periods".into(), json!(req.periods));
    m.insert("transient".into(), json!(req.transient));
    m.insert(
        "events".into(),
        json!(if req.smooth_only { "smooth" } else { "exact" }),
    );
    m.insert("rtol".into(), json!(req.tol.rtol));
    m.insert("atol".into(), json!(req.tol.atol));
    m.insert("step".into(), json!(s.step));
    m.insert("min_step".into(), json!(s.min_step));
    m.insert("max_step".into(), json!(s.max_step));
    m.insert("max_points".into(), json!(s.max_points));
    m.insert("dof".into(), json!(names[req.plotted]));
    m
}
