//! The backbone's results: `data.csv` (one row per point of every stage: level, Ω, `Am` and
//! largest displacement of the monitored DOF, its phase to the force, each contact's state
//! over the period, Hill stability, the dNNM's damping, the contacts' regime changes), the
//! family of frequency responses
//! `frf_K.csv`, and `backbone.svg`: the responses and the backbone as `log10(Am/α)` (the
//! amplitude per unit level, so that responses at levels decades apart share one axis).

use crate::element_states;
use crate::results::{Cell, Plot, Results, Series, Table};
use nalgebra::DVector;
use nsd_model::{Model, System};
use nsd_solve::backbone::{amplitude, max_displacement, Curve, Forced, Point, Settings};
use nsd_solve::hb::{ElementState, Hill, Unresolved, Unstable};
use rayon::prelude::*;
use serde_json::{json, Map};
use std::f64::consts::PI;

/// The relative tolerance on the real parts of the Floquet exponents (`hb::grows`).
const STABILITY_TOL: f64 = 1e-7;

/// Backbone points per chunk of the parallel stability column (`stable_column`): large
/// enough that the condensed problem's tracking pays, small enough that two threads share
/// a branch of ~100 points evenly (count).
const STABILITY_CHUNK: usize = 16;

/// A frequency response of the family: its level and points `(Q, ω)`.
pub(super) type Response = (f64, Vec<(DVector<f64>, f64)>);

/// What the report reads.
pub(super) struct Report<'a> {
    pub(crate) model: &'a Model,
    pub(crate) sys: &'a System,
    pub(crate) forced: &'a Forced<'a>,
    pub(crate) param: &'a str,
    pub(crate) method: &'static str,
    pub(crate) stability: bool,
}

impl Report<'_> {
    fn dof_name(&self) -> &str {
        &self.sys.dofs[self.forced.monitored].name
    }

    /// The monitored fundamental's phase relative to the force's at the excited DOF (rad, in
    /// (−π, π]; −π/2 is quadrature with the response lagging).
    fn phase(&self, q: &DVector<f64>) -> f64 {
        let n = self.forced.hb.dofs();
        let (m, e, load) = (
            self.forced.monitored,
            self.forced.excited,
            self.forced.load(),
        );
        let lag = (-q[2 * n + m]).atan2(q[n + m]) - (-load[2 * n + e]).atan2(load[n + e]);
        let wrapped = lag.rem_euclid(2.0 * PI);
        if wrapped > PI {
            wrapped - 2.0 * PI
        } else {
            wrapped
        }
    }

    fn columns(&self) -> Vec<String> {
        let d = self.dof_name();
        let mut c: Vec<String> = vec![
            "stage".into(),
            "segment".into(),
            "level".into(),
            format!("{} [rad/s]", self.param),
            format!("Am({d})"),
            format!("max|{d}|"),
            format!("phase({d}) [rad]"),
        ];
        let at_rest = self
            .forced
            .hb
            .element_states(&DVector::zeros(self.forced.dim()));
        let elements = element_states::columns(self.sys, &at_rest);
        let marked = !elements.is_empty();
        c.extend(elements);
        c.extend(["stable".into(), "xi [1/s]".into(), "zeta".into()]);
        if marked {
            c.push("transitions".into());
        }
        c
    }

    /// Per point, the elements whose regime changed since the point before on the same stage
    /// and segment (`element_states::transitions`; none at a stage's or a segment's first
    /// point), from each point's `states`; `None` where every element is smooth (no column).
    fn transitions(
        &self,
        points: &[Point],
        states: &[Vec<ElementState>],
    ) -> Option<Vec<Vec<String>>> {
        if states.first()?.iter().all(|s| *s == ElementState::Smooth) {
            return None;
        }
        Some(
            (0..points.len())
                .map(|i| match i.checked_sub(1) {
                    Some(j)
                        if (points[j].stage, points[j].segment)
                            == (points[i].stage, points[i].segment) =>
                    {
                        element_states::transitions(self.sys, &states[j], &states[i])
                    }
                    _ => Vec::new(),
                })
                .collect(),
        )
    }

    /// The `stable` column: 1 or 0 for a backbone point (stage 3) that is not a damped
    /// nonlinear mode, NaN (`None`) otherwise or where the stability is unresolved (listed
    /// apart). The points run in chunks of `STABILITY_CHUNK`, in parallel (rayon), each chunk
    /// in order with its own `Hill` (the condensed problem tracks its exponents from point to
    /// point and starts afresh at a chunk's first point). The chunks do not depend on the
    /// thread count, so neither do the values.
    fn stable_column(&self, points: &[Point]) -> (Vec<Option<bool>>, Vec<Unresolved>) {
        if !self.stability {
            return (vec![None; points.len()], Vec::new());
        }
        let hb = self.forced.hb;
        let chunks: Vec<Vec<Result<Option<bool>, Unresolved>>> = points
            .par_chunks(STABILITY_CHUNK)
            .map(|chunk| {
                let hill = Hill::new(hb);
                chunk
                    .iter()
                    .map(|pt| {
                        if pt.stage != 3 || pt.xi.is_some() {
                            return Ok(None);
                        }
                        let exponents = hill.exponents(&pt.q, pt.omega)?;
                        let unstable = Unstable::of(&exponents, pt.omega, STABILITY_TOL);
                        Ok(Some(unstable == Unstable::default()))
                    })
                    .collect()
            })
            .collect();
        let mut unresolved = Vec::new();
        let column = chunks
            .into_iter()
            .flatten()
            .map(|cell| cell.map_err(|e| unresolved.push(e)).ok().flatten())
            .collect();
        (column, unresolved)
    }

    fn row(&self, pt: &Point, states: &[ElementState], stable: Option<bool>) -> Vec<Cell> {
        let hb = self.forced.hb;
        let m = self.forced.monitored;
        let mut row: Vec<Cell> = vec![u32::from(pt.stage).into(), pt.segment.into()];
        row.extend(
            [
                pt.level,
                pt.omega,
                amplitude(hb, &pt.q, m),
                max_displacement(hb, &pt.q, m),
                self.phase(&pt.q),
            ]
            .map(Cell::Num),
        );
        row.extend(element_states::cells(states));
        row.push(stable.map_or(Cell::Num(f64::NAN), Cell::from));
        let xi = pt.xi.unwrap_or(f64::NAN);
        row.extend([Cell::Num(xi), Cell::Num(xi / (2.0 * pt.omega))]);
        row
    }

    /// Every output of the analysis, and the points whose stability is unresolved with how
    /// many points were judged.
    pub(crate) fn results(
        &self,
        curve: &Curve,
        frfs: &[Response],
        s: &Settings,
        wall_s: f64,
    ) -> (Results, Vec<Unresolved>, usize) {
        let (stable, unresolved) = self.stable_column(&curve.points);
        let judged = stable.iter().flatten().count() + unresolved.len();
        let hb = self.forced.hb;
        let states: Vec<_> = curve
            .points
            .iter()
            .map(|pt| hb.element_states(&pt.q))
            .collect();
        let transitions = self.transitions(&curve.points, &states);
        let rows = curve
            .points
            .iter()
            .zip(stable)
            .enumerate()
            .map(|(i, (pt, stable))| {
                let mut row = self.row(pt, &states[i], stable);
                if let Some(t) = &transitions {
                    row.push(Cell::Text(t[i].join("; ")));
                }
                row
            })
            .collect();
        let marked = transitions.map_or(0, |t| {
            t.iter()
                .zip(&curve.points)
                .filter(|(_, pt)| pt.stage == 3)
                .map(|(t, _)| t.len())
                .sum::<usize>()
        });
        let mut tables = vec![Table {
            file: "data.csv".into(),
            columns: self.columns(),
            rows,
        }];
        let (hb, m) = (self.forced.hb, self.forced.monitored);
        let d = self.dof_name();
        for (k, (level, points)) in frfs.iter().enumerate() {
            tables.push(Table {
                file: format!("frf_{}.csv", k + 1),
                columns: vec![
                    format!("{} [rad/s]", self.param),
                    "level".into(),
                    format!("Am({d})"),
                    format!("max|{d}|"),
                ],
                rows: points
                    .iter()
                    .map(|(q, w)| {
                        [*w, *level, amplitude(hb, q, m), max_displacement(hb, q, m)]
                            .map(Cell::Num)
                            .to_vec()
                    })
                    .collect(),
            });
        }
        let backbone: Vec<&Point> = curve.points.iter().filter(|p| p.stage == 3).collect();
        let results = Results {
            name: String::new(),
            kind: "continue backbone".into(),
            model: self.model.name.clone(),
            tables,
            plots: vec![self.plot(&backbone, frfs)],
            summary: self.summary(&backbone, curve, (marked, wall_s)),
            settings: self.settings(s),
            params: self.model.params.clone(),
            warnings: self
                .sys
                .warnings
                .iter()
                .map(|w| w.message.clone())
                .collect(),
            wall_s,
        };
        (results, unresolved, judged)
    }

    fn plot(&self, backbone: &[&Point], frfs: &[Response]) -> Plot {
        let (hb, m) = (self.forced.hb, self.forced.monitored);
        let mut series: Vec<Series> = frfs
            .iter()
            .map(|(level, points)| Series {
                label: format!("response at level {level}"),
                x: points.iter().map(|p| p.1).collect(),
                y: points
                    .iter()
                    .map(|p| (amplitude(hb, &p.0, m) / level).log10())
                    .collect(),
                points: false,
                dashed: true,
            })
            .collect();
        series.push(Series {
            label: format!("backbone ({})", self.method),
            x: backbone.iter().map(|p| p.omega).collect(),
            y: backbone
                .iter()
                .map(|p| (amplitude(hb, &p.q, m) / p.level).log10())
                .collect(),
            points: false,
            dashed: false,
        });
        Plot {
            file: "backbone.svg".into(),
            title: format!("{}: backbone ({})", self.model.name, self.method),
            x_label: format!("{} [rad/s]", self.param),
            y_label: format!("log10(Am({}) / level)", self.dof_name()),
            series,
            cells: None,
        }
    }

    fn summary(
        &self,
        backbone: &[&Point],
        curve: &Curve,
        (transitions, wall_s): (usize, f64),
    ) -> Map<String, serde_json::Value> {
        let (hb, m) = (self.forced.hb, self.forced.monitored);
        let at =
            |p: &Point| json!({"level": p.level, "Omega": p.omega, "Am": amplitude(hb, &p.q, m)});
        let mut out = Map::new();
        out.insert("method".into(), json!(self.method));
        out.insert("dof".into(), json!(self.dof_name()));
        out.insert("points".into(), json!(backbone.len()));
        if let (Some(first), Some(last)) = (backbone.first(), backbone.last()) {
            out.insert("first".into(), at(first));
            out.insert("last".into(), at(last));
        }
        out.insert(
            "restarts".into(),
            json!(curve.points.iter().map(|p| p.segment).max().unwrap_or(0)),
        );
        out.insert("transitions".into(), json!(transitions));
        if let Some(why) = &curve.stopped {
            out.insert("stopped".into(), json!(why));
        }
        out.insert("wall_s".into(), json!(wall_s));
        out
    }

    fn settings(&self, s: &Settings) -> Map<String, serde_json::Value> {
        let mut out = Map::new();
        out.insert(
            "param".into(),
            json!({"name": self.param, "from": s.window.0, "to": s.window.1}),
        );
        out.insert("level".into(), json!([s.levels.0, s.levels.1]));
        if let Some(a) = s.amplitudes {
            out.insert("amplitude".into(), json!([a.0, a.1]));
        }
        out.insert("harmonics".into(), json!(self.forced.hb.aft.harmonics));
        out.insert("samples".into(), json!(self.forced.hb.aft.samples));
        out.insert("method".into(), json!(self.method));
        out.insert(
            "excited".into(),
            json!(self.sys.dofs[self.forced.excited].name),
        );
        out.insert("step".into(), json!([s.step, s.min_step, s.max_step]));
        out.insert("restarts".into(), json!(s.restarts));
        out
    }
}
