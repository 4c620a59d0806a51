//! The option readers that name DOFs (`dof = m1.x`, `dofs = [m1, m2.y]`) and the DOF of a
//! path in the assembled system: the analyses' one way from a written node to a DOF index.

use super::{OptionReader, R};
use crate::diagnostics::AnalysisError;
use nsd_lang::ast::{Expr, ExprKind, Segment};
use nsd_lang::diagnostics::suggest;
use nsd_lang::eval;

impl OptionReader<'_> {
    /// A DOF named by a string, `"m1"` or `"beam.b[20].y"` (a node with one DOF may be named
    /// alone): its index, or `None` when absent.
    pub(crate) fn dof(&self, key: &str, sys: &nsd_model::System) -> R<Option<usize>> {
        let Some(e) = self.expr(key, "expected a DOF name in quotes", "\"m1.x\"")? else {
            return Ok(None);
        };
        self.dof_of(key, e, "\"m1.x\"", sys).map(Some)
    }

    /// DOFs named by strings, one `"m1"` or several `("m1", "beam.b[20].y")`: their indices
    /// in the order given, or `None` when absent; an unknown or repeated name is an error.
    pub(crate) fn dofs(&self, key: &str, sys: &nsd_model::System) -> R<Option<Vec<usize>>> {
        let example = "(\"m1\", \"m2.x\")";
        let Some(e) = self.expr(key, "expected DOF names in quotes", example)? else {
            return Ok(None);
        };
        let items = match &e.kind {
            ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![e],
        };
        let mut out: Vec<usize> = Vec::with_capacity(items.len());
        for item in items {
            let dof = self.dof_of(key, item, example, sys)?;
            if out.contains(&dof) {
                return Err(self.bad(
                    key,
                    item.span,
                    &format!("`{}` is listed twice", sys.dofs[dof].name),
                    "name each DOF once",
                ));
            }
            out.push(dof);
        }
        Ok(Some(out))
    }

    /// The DOF that the string `e` of option `key` names (`example` shows the option's form
    /// in the help when `e` is not a string).
    fn dof_of(&self, key: &str, e: &Expr, example: &str, sys: &nsd_model::System) -> R<usize> {
        let ExprKind::Str(path) = &e.kind else {
            return Err(self.bad(
                key,
                e.span,
                "expected a DOF name in quotes",
                &format!("write `{key} = {example}`"),
            ));
        };
        dof_by_path(sys, path).ok_or_else(|| {
            let names = sys.dofs.iter().map(|d| d.name.as_str());
            self.bad(
                key,
                e.span,
                &format!("`{path}` is not a DOF of the model"),
                &suggest(path, names, "the DOFs are"),
            )
        })
    }

    /// The DOF path that `segments` of an option key spell, each index evaluated
    /// (`c.x[n].x` → `c.x[1000].x`).
    pub(crate) fn path_of(&self, segments: &[Segment]) -> R<String> {
        let mut path = String::new();
        for (i, seg) in segments.iter().enumerate() {
            if i > 0 {
                path.push('.');
            }
            path.push_str(&seg.name.name);
            if let Some(ix) = &seg.index {
                let k = eval::integer(ix, &self.scope).map_err(AnalysisError::Resolve)?;
                path.push_str(&format!("[{k}]"));
            }
        }
        Ok(path)
    }
}

/// The DOF a path names: exactly (`m1.x`) or, for a node with one DOF, by the node (`m1`).
pub(crate) fn dof_by_path(sys: &nsd_model::System, path: &str) -> Option<usize> {
    if let Some(i) = sys.dof_index(path) {
        return Some(i);
    }
    let prefix = format!("{path}.");
    let mut matches = sys
        .dofs
        .iter()
        .enumerate()
        .filter(|(_, d)| d.name.starts_with(&prefix) && !d.name[prefix.len()..].contains('.'));
    match (matches.next(), matches.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}
