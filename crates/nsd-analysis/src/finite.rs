//! The assembled system, refused when an entry of M, C or K is not a finite number: values
//! that are finite one by one can overflow when the elements on one DOF are summed (two
//! springs of k = 1e308), and an infinite stiffness would otherwise reach the solvers as a
//! zero or NaN frequency without a word.

use miette::{Diagnostic, LabeledSpan};
use nsd_lang::{Failure, Program};
use nsd_model::{assemble, Model, System};
use sprs::CsMat;

/// An assembled matrix with non-finite entries, labelled at the elements that add to them.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("the assembled {matrix} is not finite on {dofs}")]
#[diagnostic(
    code(nsd::model::non_finite),
    help("the values of the elements on these DOFs overflow when summed (beyond ±1.8e308): check them, or choose units that keep them moderate")
)]
struct NonFinite {
    matrix: &'static str,
    dofs: String,
    #[label(collection)]
    at: Vec<LabeledSpan>,
}

/// `assemble(model)`, or the `nsd::model::non_finite` diagnostic.
pub fn assembled(prog: &Program, model: &Model) -> Result<System, Failure> {
    let sys = assemble(model);
    for (matrix, a) in [
        ("mass matrix M", &sys.m),
        ("damping matrix C", &sys.c),
        ("stiffness matrix K", &sys.k),
    ] {
        let bad = non_finite_dofs(a);
        if bad.is_empty() {
            continue;
        }
        let nodes: Vec<_> = bad.iter().map(|&i| sys.dofs[i].node).collect();
        let dofs: Vec<&str> = bad.iter().map(|&i| sys.dofs[i].name.as_str()).collect();
        // The elements on those DOFs, else the nodes themselves (a beam's or an imported
        // matrix's own entries), in the file of the first one.
        let mut spans: Vec<_> = model
            .elements
            .iter()
            .filter(|e| nodes.contains(&e.a.node) || nodes.contains(&e.b.node))
            .map(|e| e.span)
            .collect();
        if spans.is_empty() {
            spans = nodes.iter().map(|&n| model.node(n).span).collect();
        }
        let Some(file) = spans.first().map(|s| s.file) else {
            continue;
        };
        let at = spans
            .iter()
            .filter(|s| s.file == file)
            .map(|&s| LabeledSpan::new_with_span(Some("adds to it".into()), s))
            .collect();
        let e = NonFinite {
            matrix,
            dofs: dofs.join(", "),
            at,
        };
        return Err(Failure::one(Failure::located(&prog.sources, file, e)));
    }
    Ok(sys)
}

/// The rows of `a` holding an entry that is not finite.
fn non_finite_dofs(a: &CsMat<f64>) -> Vec<usize> {
    let mut rows: Vec<usize> = a
        .iter()
        .filter(|(v, _)| !v.is_finite())
        .map(|(_, (i, _))| i)
        .collect();
    rows.sort_unstable();
    rows.dedup();
    rows
}
