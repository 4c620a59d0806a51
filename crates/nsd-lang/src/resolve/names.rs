//! Names: nodes and labelled elements claim unique names; node references (`m1`, `x[i]`,
//! `c.x[3].y`) are looked up with the instance prefix and component aliases applied; the
//! directions an element or a force acts along are chosen from the nodes' DOFs; unlabelled
//! elements are named after their kind and nodes (`spring(m1--m2)`, `#2` for repeats).

use super::{Frame, Resolver, R, RESERVED};
use crate::ast::{self, Expr, NodeRef};
use crate::diagnostics::{suggest, ResolveError};
use crate::eval::{self, Scope};
use crate::flat::{Dir, Node, NodeId, NodeKind};
use crate::span::Span;

impl Resolver<'_> {
    /// Adds node `local`, prefixed with the instance path, under a name no other node or
    /// label has.
    #[allow(clippy::too_many_arguments)] // One field of `Node` each; a builder would only rename them.
    pub(super) fn add_node(
        &mut self,
        f: &Frame,
        local: String,
        kind: NodeKind,
        dirs: Vec<Dir>,
        fixed: Vec<Dir>,
        mass: f64,
        span: Span,
    ) -> R<NodeId> {
        let name = format!("{}{local}", f.prefix);
        if RESERVED.contains(&name.as_str()) {
            return Err(ResolveError::Reserved { name, at: span });
        }
        self.check_free(&name, span)?;
        let id = NodeId(self.nodes.len());
        self.nodes.push(Node {
            name: name.clone(),
            kind,
            dirs,
            fixed,
            mass,
            span,
        });
        self.node_ids.insert(name, id);
        Ok(id)
    }

    /// Checks that `name` is not yet a node or a labelled element; labels are recorded here,
    /// nodes by `add_node` (one map entry per name).
    fn check_free(&self, name: &str, span: Span) -> R<()> {
        let first = self
            .names
            .get(name)
            .copied()
            .or_else(|| self.node_ids.get(name).map(|id| self.nodes[id.0].span));
        if let Some(first) = first {
            let first = Some(first).filter(|s| s.file == span.file && *s != span);
            return Err(ResolveError::Duplicate {
                name: name.to_string(),
                at: span,
                first,
            });
        }
        Ok(())
    }

    /// Claims `name` for a labelled element.
    fn claim_label(&mut self, name: &str, span: Span) -> R<()> {
        self.check_free(name, span)?;
        self.names.insert(name.to_string(), span);
        Ok(())
    }

    /// The full name of a node path, with indices evaluated and the instance prefix applied.
    fn path_name(&self, f: &Frame, r: &NodeRef) -> R<String> {
        use std::fmt::Write;
        let mut full = String::with_capacity(f.prefix.len() + 16);
        for (i, seg) in r.segments.iter().enumerate() {
            if i == 0 {
                // The first segment may be a component parameter bound to a caller's node.
                let alias = if seg.index.is_none() {
                    f.aliases.get(&seg.name.name)
                } else {
                    None
                };
                let support = r.segments.len() == 1
                    && seg.index.is_none()
                    && (seg.name.name == "ground" || seg.name.name == "base");
                if let Some(alias) = alias {
                    full.push_str(alias);
                    continue;
                } else if !support {
                    full.push_str(&f.prefix);
                }
            } else {
                full.push('.');
            }
            full.push_str(&seg.name.name);
            if let Some(ix) = &seg.index {
                // Writing into a String cannot fail.
                let _ = write!(full, "[{}]", eval::integer(ix, &f.scope)?);
            }
        }
        Ok(full)
    }

    /// Records the mass or body `s` declares as refused (its statement failed).
    pub(super) fn reject(&mut self, f: &Frame, s: &ast::Stmt) {
        if let ast::Stmt::Mass { name, .. } | ast::Stmt::Body { name, .. } = s {
            self.rejected.push(format!("{}{}", f.prefix, name.name));
        }
    }

    /// Looks up a node reference; returns the node and the direction if one was written.
    /// The whole path is tried first; failing that, its last segment is read as a direction
    /// of the node named by the rest (`b[20].y`, `c.x[3].x`).
    pub(super) fn node_ref(&mut self, f: &Frame, r: &NodeRef) -> R<(NodeId, Option<Dir>)> {
        let full = self.path_name(f, r)?;
        if let Some(&id) = self.node_ids.get(&full) {
            return Ok((id, None));
        }
        let last = r.segments.last().expect("grammar: a path has a segment");
        if r.segments.len() > 1 && last.index.is_none() {
            let node_name = &full[..full.len() - last.name.name.len() - 1];
            if let Some(&id) = self.node_ids.get(node_name) {
                let d = &last.name;
                let dir = Dir::parse(&d.name).ok_or_else(|| ResolveError::UnknownDirection {
                    dir: d.name.clone(),
                    at: d.span,
                })?;
                let node = &self.nodes[id.0];
                if !node.dirs.contains(&dir) {
                    return Err(ResolveError::MissingDirection {
                        node: node.name.clone(),
                        dir: d.name.clone(),
                        dirs: dir_names(&node.dirs),
                        at: d.span,
                    });
                }
                return Ok((id, Some(dir)));
            }
        }
        let declared_by = |r: &String| {
            full.strip_prefix(r.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['[', '.']))
        };
        if self.rejected.iter().any(declared_by) {
            return Err(ResolveError::FollowOn);
        }
        let local = full
            .strip_prefix(f.prefix.as_str())
            .unwrap_or(&full)
            .to_string();
        let scope_prefix = &f.prefix;
        let candidates = self
            .node_ids
            .keys()
            .filter(|k| k.starts_with(scope_prefix.as_str()) && *k != "ground" && *k != "base")
            .map(|k| &k[scope_prefix.len()..]);
        let help = suggest(
            &local,
            candidates,
            "declare it with `mass NAME = …` before use",
        );
        Err(ResolveError::UnknownNode {
            name: local,
            at: r.span,
            help,
        })
    }

    /// The one translational direction of a node, for forces and scalar contacts.
    pub(super) fn single_dir(&self, node: NodeId, what: &str, at: Span) -> R<Dir> {
        let n = &self.nodes[node.0];
        let cands = translations(&n.dirs);
        match cands[..] {
            [d] => Ok(d),
            _ => Err(ResolveError::AmbiguousDirection {
                kind: what.into(),
                a: n.name.clone(),
                b: String::new(),
                dirs: dir_names(&cands),
                at,
            }),
        }
    }

    /// The direction pairs an element between `a` and `b` acts along.
    pub(super) fn element_dirs(
        &self,
        kind: &str,
        a: (NodeId, Option<Dir>),
        b: (NodeId, Option<Dir>),
        ra: &NodeRef,
        rb: &NodeRef,
    ) -> R<Vec<(Dir, Dir)>> {
        let (na, nb) = (&self.nodes[a.0 .0], &self.nodes[b.0 .0]);
        let pick = |n: &Node, d: Dir, r: &NodeRef| -> R<Dir> {
            if n.is_support() || n.dirs.contains(&d) {
                Ok(d)
            } else if n.dirs.len() == 1 {
                Ok(n.dirs[0])
            } else {
                Err(ResolveError::MissingDirection {
                    node: n.name.clone(),
                    dir: d.to_string(),
                    dirs: dir_names(&n.dirs),
                    at: r.span,
                })
            }
        };
        match (a.1, b.1) {
            (Some(da), Some(db)) => Ok(vec![(da, db)]),
            (Some(da), None) => Ok(vec![(da, pick(nb, da, rb)?)]),
            (None, Some(db)) => Ok(vec![(pick(na, db, ra)?, db)]),
            (None, None) => {
                let trans = |n: &Node| translations(&n.dirs);
                let common: Vec<Dir> = match (na.is_support(), nb.is_support()) {
                    (true, _) => trans(nb),
                    (_, true) => trans(na),
                    _ => {
                        let tb = trans(nb);
                        trans(na).into_iter().filter(|d| tb.contains(d)).collect()
                    }
                };
                if common.is_empty() {
                    return Err(ResolveError::MissingDirection {
                        node: nb.name.clone(),
                        dir: dir_names(&trans(na)),
                        dirs: dir_names(&nb.dirs),
                        at: rb.span,
                    });
                }
                if common.len() > 1 && kind != "spring" && kind != "damper" {
                    return Err(ResolveError::AmbiguousDirection {
                        kind: kind.into(),
                        a: na.name.clone(),
                        b: nb.name.clone(),
                        dirs: dir_names(&common),
                        at: ra.span.join(rb.span),
                    });
                }
                Ok(common.into_iter().map(|d| (d, d)).collect())
            }
        }
    }

    /// The element's name: its label (prefixed), or `kind(a--b)` with `#n` for the n-th
    /// unlabelled element of that kind between the same nodes.
    pub(super) fn element_name(
        &mut self,
        f: &Frame,
        label: Option<&ast::Label>,
        kind: &'static str,
        a: NodeId,
        b: NodeId,
    ) -> R<String> {
        if let Some(l) = label {
            let local = indexed_name(&l.name.name, l.index.as_ref(), &f.scope)?;
            let name = format!("{}{local}", f.prefix);
            self.claim_label(&name, l.name.span)?;
            return Ok(name);
        }
        let n = self.auto_names.entry((kind, a, b)).or_insert(0);
        *n += 1;
        let count = *n;
        let (na, nb) = (&self.nodes[a.0].name, &self.nodes[b.0].name);
        let mut name = String::with_capacity(kind.len() + na.len() + nb.len() + 8);
        for part in [kind, "(", na, "--", nb, ")"] {
            name.push_str(part);
        }
        if count > 1 {
            name.push('#');
            name.push_str(&count.to_string());
        }
        Ok(name)
    }
}

/// `name`, or `name[i]` with the index evaluated in `scope`.
pub(super) fn indexed_name(name: &str, index: Option<&Expr>, scope: &Scope) -> R<String> {
    Ok(match index {
        Some(i) => format!("{name}[{}]", eval::integer(i, scope)?),
        None => name.to_string(),
    })
}

/// `` `x`, `y` ``: directions for messages.
pub(super) fn dir_names(dirs: &[Dir]) -> String {
    let v: Vec<String> = dirs.iter().map(|d| format!("`{d}`")).collect();
    v.join(", ")
}

/// The translational directions among `dirs` (rotations dropped), in order.
fn translations(dirs: &[Dir]) -> Vec<Dir> {
    dirs.iter()
        .copied()
        .filter(|d| !matches!(d, Dir::Rx | Dir::Ry | Dir::Rz))
        .collect()
}

/// `ground` or `base`: a node that carries every direction and never moves on its own.
pub(super) fn support(name: &str, kind: NodeKind) -> Node {
    let dirs = vec![Dir::X, Dir::Y, Dir::Z, Dir::Rx, Dir::Ry, Dir::Rz];
    Node {
        name: name.into(),
        kind,
        dirs,
        fixed: vec![],
        mass: 0.0,
        span: Span::default(),
    }
}
