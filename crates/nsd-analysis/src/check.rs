//! The model summary that `nsd check` prints and the REPL's `:show` shows: the DOF table,
//! the elements, the natural frequencies with the contacts open and the model's warnings.
//!
//! `summarise` computes it once as plain data; `text` and `json` render it. Both shells call
//! these, so the summary cannot drift between them (the REPL once missed the rigid-body
//! warning that only `check` added).

use nsd_model::flat::{ElementKind, Friction};
use nsd_model::system::Warning;
use nsd_model::{Model, System};
use nsd_solve::modes::{modes, Contacts, DENSE_LIMIT};
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// How many DOF names the text summary lists before it says how many more there are.
const SHOWN_DOFS: usize = 12;

/// How many nonsmooth/nonlinear element names the text summary lists.
const SHOWN_NONLINEAR: usize = 8;

/// One element of the model: its name, its kind and the nodes it joins.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementSummary {
    name: String,
    kind: &'static str,
    a: String,
    b: String,
}

/// The summary of one resolved model (contacts open).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckSummary {
    model: String,
    parameters: Vec<(String, f64)>,
    /// Every unknown by name: the lumped/FE DOFs, then the rigid-body coordinates.
    pub dofs: Vec<String>,
    pub elements: Vec<ElementSummary>,
    /// The nonsmooth/nonlinear elements, localised on the DOFs.
    nonlinear: Vec<String>,
    /// Every smoothed gap with its radius of influence (paper 000, eq. 10).
    smoothed_gaps: Vec<(String, f64)>,
    /// Bodies and joints of a multibody model.
    multibody: Option<(usize, usize)>,
    /// Natural frequencies ω with the contacts open, rad/s, ascending.
    pub natural_frequencies: Vec<f64>,
    /// Only the lowest frequencies were computed (a system above the dense solver's size).
    lowest_only: bool,
    /// Why the natural frequencies could not be computed, if they could not.
    frequency_error: Option<String>,
    /// The assembled system's warnings, plus rigid-body modes the graph did not foresee.
    warnings: Vec<Warning>,
}

/// Assembles the model, computes its natural frequencies with the contacts open and gathers
/// its warnings.
pub fn summarise(model: &Model, sys: &System) -> CheckSummary {
    let mut warnings = sys.warnings.clone();
    let (natural_frequencies, frequency_error) = match modes(sys, Contacts::Open, None) {
        Ok(m) => {
            // A floating subsystem already explains its rigid-body modes; otherwise some DOF
            // has no linear stiffness (e.g. a purely cubic spring) and deserves its own warning.
            let rigid = m.rigid_body_modes();
            if rigid > 0 && !warnings.iter().any(|w| w.code == "nsd::model::floating") {
                warnings.push(Warning {
                    code: "nsd::model::rigid_body_modes",
                    message: format!("{rigid} rigid-body mode(s) at ω = 0 with contacts open: some DOF has no stiffness to a support"),
                });
            }
            // The sparse solver's budget ran out before these converged: shown, with a warning.
            let unconverged = m.unconverged();
            if !unconverged.is_empty() {
                let worst = m.residual.iter().copied().fold(0.0, f64::max);
                warnings.push(Warning {
                    code: "nsd::model::modes_unconverged",
                    message: format!(
                        "mode(s) {unconverged:?} did not converge within the eigensolver's budget (largest relative residual {worst:.1e}); their frequencies are estimates"
                    ),
                });
            }
            (m.omega, None)
        }
        Err(e) => (vec![], Some(e.to_string())),
    };
    CheckSummary {
        model: model.name.clone(),
        parameters: model.params.clone(),
        dofs: sys.coordinate_names(),
        elements: model
            .elements
            .iter()
            .map(|e| ElementSummary {
                name: e.name.clone(),
                kind: element_kind(&e.kind),
                a: model.node(e.a.node).name.clone(),
                b: model.node(e.b.node).name.clone(),
            })
            .collect(),
        nonlinear: sys.nonlinear.iter().map(|e| e.name.clone()).collect(),
        smoothed_gaps: smoothed_gaps(model),
        multibody: sys
            .multibody
            .as_ref()
            .map(|mb| (mb.bodies.len(), mb.joints.len())),
        natural_frequencies,
        lowest_only: sys.n() > DENSE_LIMIT,
        frequency_error,
        warnings,
    }
}

impl CheckSummary {
    /// The `check --json` object: `{"model", "dofs", "elements", "natural_frequencies", ...}`.
    pub fn json(&self) -> Value {
        let elements: Vec<Value> = self
            .elements
            .iter()
            .map(|e| json!({"name": e.name, "kind": e.kind, "a": e.a, "b": e.b}))
            .collect();
        let params: Map<String, Value> = self
            .parameters
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        json!({
            "model": self.model,
            "dofs": self.dofs,
            "elements": elements,
            "natural_frequencies": self.natural_frequencies,
            "parameters": params,
            "bodies": self.multibody.map_or(0, |(bodies, _)| bodies),
            "smoothing": self.smoothed_gaps.iter().map(|(n, r)| json!({"element": n, "radius_of_influence": r})).collect::<Vec<_>>(),
            "warnings": self.warnings.iter().map(|w| w.message.clone()).collect::<Vec<_>>(),
        })
    }

    /// The human summary, one line per fact, each ending in a newline.
    pub fn text(&self) -> String {
        // Writing to a `String` cannot fail.
        let mut s = String::new();
        let _ = writeln!(
            s,
            "model {}: {} DOFs, {} elements",
            self.model,
            self.dofs.len(),
            self.elements.len()
        );
        if !self.parameters.is_empty() {
            let p: Vec<String> = self
                .parameters
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            let _ = writeln!(s, "  parameters: {}", p.join(", "));
        }
        let shown = self
            .dofs
            .iter()
            .take(SHOWN_DOFS)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        let more = if self.dofs.len() > SHOWN_DOFS {
            format!(", … ({} more)", self.dofs.len() - SHOWN_DOFS)
        } else {
            String::new()
        };
        let _ = writeln!(s, "  DOFs: {shown}{more}");
        if !self.nonlinear.is_empty() {
            let _ = writeln!(
                s,
                "  nonsmooth/nonlinear elements: {}",
                self.nonlinear
                    .iter()
                    .map(String::as_str)
                    .take(SHOWN_NONLINEAR)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        for (name, r) in &self.smoothed_gaps {
            let _ = writeln!(
                s,
                "  smoothed gap {name}: radius of influence R_i = {r:.6} (paper 000, eq. 10)"
            );
        }
        if let Some((bodies, joints)) = self.multibody {
            let _ = writeln!(s, "  multibody: {bodies} bodies, {joints} joints");
        }
        self.write_frequencies(&mut s);
        for w in &self.warnings {
            let _ = writeln!(s, "  warning[{}]: {}", w.code, w.message);
        }
        s
    }

    /// The natural frequencies as a table of ω in rad/s and f in Hz.
    fn write_frequencies(&self, s: &mut String) {
        if self.natural_frequencies.is_empty() {
            return;
        }
        let which = if self.lowest_only {
            format!("lowest {}", self.natural_frequencies.len())
        } else {
            "all".into()
        };
        let _ = writeln!(
            s,
            "  natural frequencies, contacts open ({which}), rad/s [Hz]:"
        );
        for (i, w) in self.natural_frequencies.iter().enumerate() {
            let _ = writeln!(
                s,
                "    {:>3}  {:<14.8} [{:.6}]",
                i + 1,
                w,
                w / (2.0 * std::f64::consts::PI)
            );
        }
    }

    /// The failed frequency computation as a warning line (`nsd check` prints it to stderr).
    pub fn frequency_warning(&self) -> Option<String> {
        self.frequency_error
            .as_ref()
            .map(|e| format!("warning: natural frequencies of `{}`: {e}", self.model))
    }
}

/// The element's kind as `check` names it.
fn element_kind(e: &ElementKind) -> &'static str {
    match e {
        ElementKind::Spring { .. } => "spring",
        ElementKind::Damper { .. } => "damper",
        ElementKind::Gap(_) => "gap",
        ElementKind::Friction(Friction::Coulomb { .. }) => "friction (coulomb)",
        ElementKind::Friction(Friction::Jenkins { .. }) => "friction (jenkins)",
        ElementKind::Friction(Friction::Contact2d { .. }) => "friction (contact2d)",
        ElementKind::Beam(_) => "beam",
        ElementKind::Matrices(_) => "matrices",
        ElementKind::Joint(_) => "joint",
    }
}

/// Every smoothed gap with its radius of influence (paper 000, eq. 10).
fn smoothed_gaps(model: &Model) -> Vec<(String, f64)> {
    model
        .elements
        .iter()
        .filter_map(|e| match &e.kind {
            ElementKind::Gap(g) => g
                .smooth
                .map(|s| (e.name.clone(), nsd_model::smoothing::radius_of_influence(s))),
            _ => None,
        })
        .collect()
}
