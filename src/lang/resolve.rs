//! AST → `Model`: expands templates (`use`), loops and families, evaluates parameters with
//! `--set` overrides and units, looks up every name, and checks values for physical sense.
//!
//! A pass reports all the errors it can find (one per faulty statement) rather than the
//! first one. The result is flat: every node and element has a unique, human name
//! (`x[3]`, `t1.a`, `spring(m1--m2)`), every value is an SI number.

use super::ast::{
    self, Arg, ElementKind as Kind, Expr, ExprKind, NodeRef, Options, Repeat, Stmt, Value,
};
use super::diagnostics::{suggest, Failure, ResolveError};
use super::eval::{self, describe, Num, Scope};
use super::load::{Program, TemplateKind};
use super::units::Dim;
use crate::model::flat::*;
use crate::span::{FileId, Span};
use rustc_hash::FxHashMap as HashMap;

/// A `--set NAME=VALUE` override, already evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    pub name: String,
    pub value: f64,
}

/// Parses and evaluates `NAME=VALUE` (VALUE is a constant expression, units allowed).
pub fn parse_override(text: &str) -> Result<Override, Failure> {
    let mut sources = super::source::SourceMap::default();
    let file = sources.add("--set", text);
    let Some((name, value)) = text.split_once('=') else {
        return Err(Failure::one(miette::miette!(
            code = "nsd::resolve::bad_override",
            help = "write it as NAME=VALUE, e.g. --set Omega=1.3",
            "`--set {text}`: missing `=`"
        )));
    };
    let expr = super::parse::parse_expr(value, file)
        .map_err(|e| Failure::one(miette::Report::new(e).with_source_code(value.to_string())))?;
    let v = eval::eval(&expr, &Scope::default())
        .map_err(|e| Failure::one(miette::Report::new(e).with_source_code(value.to_string())))?;
    Ok(Override {
        name: name.trim().to_string(),
        value: v.v,
    })
}

/// Resolves model `name` of `prog` with the given overrides.
pub fn resolve(prog: &Program, name: &str, overrides: &[Override]) -> Result<Model, Failure> {
    let Some((kind, file, t)) = prog.template(name) else {
        return Err(Failure::one(miette::miette!(
            code = "nsd::resolve::unknown_model",
            help = suggest(
                name,
                prog.model_order.iter().map(String::as_str),
                "the file defines no such model"
            ),
            "unknown model `{name}`"
        )));
    };
    if kind == TemplateKind::Component {
        return Err(Failure::one(miette::miette!(
            code = "nsd::resolve::wrong_template",
            help = "analyse a `model`; components are instantiated inside models with `use`",
            "`{name}` is a component, not a model"
        )));
    }
    let mut r = Resolver::new(prog);
    let mut frame = Frame {
        file,
        prefix: String::new(),
        scope: Scope::default(),
        aliases: HashMap::default(),
        depth: 0,
    };
    let declared = declared_params(t);
    for o in overrides {
        if !declared.iter().any(|d| *d == o.name) {
            let help = suggest(
                &o.name,
                declared.iter().copied(),
                "the model's parameters are listed by `nsd check`",
            );
            r.errors
                .push(miette::Report::new(ResolveError::UnknownOverride {
                    name: o.name.clone(),
                    help,
                }));
        }
    }
    r.overrides = overrides
        .iter()
        .map(|o| (o.name.clone(), o.value))
        .collect();
    for p in &t.params {
        r.param(&mut frame, p, true);
    }
    r.stmts(&mut frame, &t.body);
    if !r.errors.is_empty() {
        return Err(Failure { reports: r.errors });
    }
    Ok(Model {
        name: name.to_string(),
        params: r.param_order,
        nodes: r.nodes,
        elements: r.elements,
        forces: r.forces,
        base: r.base,
        damping: r.damping.map(|(d, _)| d),
        gravity: r.gravity,
        span: t.name.span,
    })
}

/// Names of the parameters a model declares at its top level (header and `param` lines).
fn declared_params(t: &ast::Template) -> Vec<&str> {
    let mut v: Vec<&str> = t.params.iter().map(|p| p.name.name.as_str()).collect();
    for s in &t.body {
        if let Stmt::Param(ds) = s {
            v.extend(ds.iter().map(|p| p.name.name.as_str()));
        }
    }
    v
}

/// The instantiation context: which file, which name prefix, which names are visible.
struct Frame {
    file: FileId,
    /// `""` in the model, `"t1."` inside `use … as t1`.
    prefix: String,
    scope: Scope,
    /// Component parameters bound to nodes of the caller: local name → full node name.
    aliases: HashMap<String, String>,
    depth: usize,
}

type R<T> = Result<T, ResolveError>;

const RESERVED: [&str; 4] = ["t", "pi", "ground", "base"];

struct Resolver<'p> {
    prog: &'p Program,
    overrides: HashMap<String, f64>,
    param_order: Vec<(String, f64)>,
    nodes: Vec<Node>,
    node_ids: HashMap<String, NodeId>,
    /// Names of nodes and labelled elements, with where they were declared.
    names: HashMap<String, Span>,
    elements: Vec<Element>,
    /// How many unlabelled elements of each kind join the same two nodes (for `#2` suffixes).
    auto_names: HashMap<(&'static str, NodeId, NodeId), usize>,
    forces: Vec<Force>,
    base: Vec<BaseMotion>,
    damping: Option<(Rayleigh, Span)>,
    gravity: Option<[f64; 3]>,
    errors: Vec<miette::Report>,
}

fn support(name: &str, kind: NodeKind) -> Node {
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

impl<'p> Resolver<'p> {
    fn new(prog: &'p Program) -> Self {
        let nodes = vec![
            support("ground", NodeKind::Ground),
            support("base", NodeKind::Base),
        ];
        let node_ids: HashMap<String, NodeId> =
            [("ground".to_string(), GROUND), ("base".to_string(), BASE)]
                .into_iter()
                .collect();
        Resolver {
            prog,
            overrides: HashMap::default(),
            param_order: vec![],
            nodes,
            node_ids,
            names: HashMap::default(),
            elements: vec![],
            auto_names: HashMap::default(),
            forces: vec![],
            base: vec![],
            damping: None,
            gravity: None,
            errors: vec![],
        }
    }

    fn report(&mut self, file: FileId, e: ResolveError) {
        self.errors
            .push(Failure::located(&self.prog.sources, file, e));
    }

    fn param(&mut self, f: &mut Frame, p: &ast::ParamDecl, header: bool) {
        let name = &p.name.name;
        if RESERVED.contains(&name.as_str()) {
            return self.report(
                f.file,
                ResolveError::Reserved {
                    name: name.clone(),
                    at: p.name.span,
                },
            );
        }
        if f.scope.params.contains_key(name) {
            return self.report(
                f.file,
                ResolveError::Duplicate {
                    name: name.clone(),
                    at: p.name.span,
                    first: None,
                },
            );
        }
        let top = f.depth == 0;
        let value = match (top.then(|| self.overrides.get(name)).flatten(), &p.default) {
            (Some(v), _) => Ok(Num::free(*v)),
            (None, Some(e)) => eval::eval(e, &f.scope),
            (None, None) => Err(ResolveError::Invalid {
                what: format!("parameter `{name}` has no value"),
                at: p.name.span,
                help: if header && top {
                    format!("give it a default (`{name} = …`) or set it with `--set {name}=…`")
                } else {
                    format!("give it a value: `param {name} = …`")
                },
            }),
        };
        match value {
            Ok(v) if !v.v.is_finite() => {
                let at = p.default.as_ref().map_or(p.name.span, |e| e.span);
                self.report(f.file, ResolveError::NonFinite { at, value: v.v });
                f.scope.params.insert(name.clone(), Num::free(0.0));
            }
            Ok(v) => {
                if top {
                    self.param_order.push((name.clone(), v.v));
                }
                f.scope.params.insert(name.clone(), v);
            }
            Err(e) => {
                self.report(f.file, e);
                // Keep going with a placeholder so that one bad value gives one error.
                f.scope.params.insert(name.clone(), Num::free(f64::NAN));
            }
        }
    }

    fn stmts(&mut self, f: &mut Frame, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(f, s);
        }
    }

    fn stmt(&mut self, f: &mut Frame, s: &Stmt) {
        let result = match s {
            Stmt::Param(decls) => {
                for d in decls {
                    self.param(f, d, false);
                }
                Ok(())
            }
            Stmt::For { repeat, body, .. } => self.repeat(f, Some(repeat), |r, f| {
                r.stmts(f, body);
                Ok(())
            }),
            Stmt::Mass { repeat, .. }
            | Stmt::Element { repeat, .. }
            | Stmt::Force { repeat, .. }
            | Stmt::Use { repeat, .. } => self.repeat(f, repeat.as_ref(), |r, f| r.single(f, s)),
            _ => self.single(f, s),
        };
        if let Err(e) = result {
            self.report(f.file, e);
        }
    }

    /// Runs `body` once, or once per value of the loop variable.
    fn repeat(
        &mut self,
        f: &mut Frame,
        rep: Option<&Repeat>,
        mut body: impl FnMut(&mut Self, &mut Frame) -> R<()>,
    ) -> R<()> {
        let Some(rep) = rep else { return body(self, f) };
        if RESERVED.contains(&rep.var.name.as_str()) {
            return Err(ResolveError::Reserved {
                name: rep.var.name.clone(),
                at: rep.var.span,
            });
        }
        let from = eval::integer(&rep.from, &f.scope)?;
        let to = eval::integer(&rep.to, &f.scope)?;
        check_range_size(from, to, rep.from.span.join(rep.to.span))?;
        for i in from..=to {
            f.scope.push_local(&rep.var.name, i as f64);
            let r = body(self, f);
            f.scope.pop_local();
            r?
        }
        Ok(())
    }

    fn single(&mut self, f: &mut Frame, s: &Stmt) -> R<()> {
        match s {
            Stmt::Mass {
                name,
                family,
                index,
                value,
                options,
                ..
            } => {
                let m = eval::quantity(value, &f.scope, "a mass", Dim::MASS)?;
                if m <= 0.0 {
                    return Err(non_physical(
                        "a mass must be positive",
                        value.span,
                        m,
                        "masses are in kg and > 0; a massless point is not a DOF",
                    ));
                }
                check_keys(options.as_ref(), &["dofs"], "mass")?;
                let dirs = match opt(options.as_ref(), "dofs") {
                    Some(v) => dir_list(v)?,
                    None => vec![Dir::X],
                };
                let names: Vec<String> = match (family, index) {
                    (Some((a, b)), _) => {
                        let (a_i, b_i) = (eval::integer(a, &f.scope)?, eval::integer(b, &f.scope)?);
                        if b_i < a_i {
                            return Err(ResolveError::EmptyRange {
                                from: a_i,
                                to: b_i,
                                at: a.span.join(b.span),
                            });
                        }
                        check_range_size(a_i, b_i, a.span.join(b.span))?;
                        (a_i..=b_i).map(|k| format!("{}[{k}]", name.name)).collect()
                    }
                    (None, Some(i)) => {
                        vec![format!("{}[{}]", name.name, eval::integer(i, &f.scope)?)]
                    }
                    (None, None) => vec![name.name.clone()],
                };
                for n in names {
                    self.add_node(f, n, NodeKind::Mass, dirs.clone(), vec![], m, name.span)?;
                }
                Ok(())
            }
            Stmt::Element {
                kind,
                label,
                a,
                b,
                options,
                span,
                ..
            } => self.element(f, *kind, label.as_ref(), a, b, options.as_ref(), *span),
            Stmt::Force {
                target,
                value,
                span,
                ..
            } => {
                let (node, dir) = self.node_ref(f, target)?;
                if self.nodes[node.0].is_support() {
                    return Err(ResolveError::SupportTarget {
                        what: "a force".into(),
                        at: target.span,
                        node: self.nodes[node.0].name.clone(),
                    });
                }
                let dir = match dir {
                    Some(d) => d,
                    None => self.single_dir(node, "force", target.span)?,
                };
                let func = eval::time_fn(value, &f.scope)?;
                self.forces.push(Force {
                    target: Endpoint {
                        node,
                        dir: Some(dir),
                    },
                    f: func,
                    span: *span,
                });
                Ok(())
            }
            Stmt::Base { dir, value, span } => {
                let d = match dir {
                    Some(d) => Dir::parse(&d.name).ok_or(ResolveError::UnknownDirection {
                        dir: d.name.clone(),
                        at: d.span,
                    })?,
                    None => Dir::X,
                };
                if let Some(prev) = self.base.iter().find(|b| b.dir == d) {
                    return Err(ResolveError::Duplicate {
                        name: format!("base.{d}"),
                        at: *span,
                        first: Some(prev.span).filter(|s| s.file == span.file),
                    });
                }
                let y = eval::time_fn(value, &f.scope)?;
                self.base.push(BaseMotion {
                    dir: d,
                    y,
                    span: *span,
                });
                Ok(())
            }
            Stmt::Gravity { value, .. } => {
                let g = vector(value, &f.scope, "gravity", Dim::ACCELERATION)?;
                self.gravity = Some(g);
                Ok(())
            }
            Stmt::Damping {
                kind,
                options,
                span,
            } => {
                if kind.name != "rayleigh" {
                    return Err(ResolveError::UnknownLaw {
                        name: kind.name.clone(),
                        owner: "damping kind".into(),
                        at: kind.span,
                        help: "model damping is `damping rayleigh { alpha = …, beta = … }` (C = αM + βK; β alone is stiffness-proportional)".into(),
                    });
                }
                check_keys(Some(options), &["alpha", "beta"], "damping rayleigh")?;
                let alpha = num_opt(Some(options), "alpha", &f.scope, "alpha", Dim::FREQUENCY)?
                    .unwrap_or(0.0);
                let beta =
                    num_opt(Some(options), "beta", &f.scope, "beta", Dim::TIME)?.unwrap_or(0.0);
                if alpha < 0.0 || beta < 0.0 {
                    return Err(non_physical(
                        "Rayleigh coefficients must not be negative",
                        options.span,
                        alpha.min(beta),
                        "negative damping feeds energy into the model",
                    ));
                }
                if let Some((_, first)) = self.damping {
                    return Err(ResolveError::Duplicate {
                        name: "damping".into(),
                        at: *span,
                        first: Some(first).filter(|s| s.file == span.file),
                    });
                }
                self.damping = Some((Rayleigh { alpha, beta }, *span));
                Ok(())
            }
            Stmt::Beam {
                name,
                options,
                span,
            } => self.beam(f, name, options, *span),
            Stmt::Matrices {
                name,
                options,
                span,
            } => self.matrices(f, name, options, *span),
            Stmt::Body {
                name,
                options,
                span,
            } => self.body(f, name, options, *span),
            Stmt::Joint {
                label,
                kind,
                a,
                b,
                options,
                span,
            } => self.joint(f, label.as_ref(), kind, a, b, options.as_ref(), *span),
            Stmt::Use {
                template,
                instance,
                args,
                ..
            } => self.use_component(f, template, instance, args),
            Stmt::Param(_) | Stmt::For { .. } => unreachable!("handled in `stmt`"),
        }
    }

    #[allow(clippy::too_many_arguments)] // One field of `Node` each; a builder would only rename them.
    fn add_node(
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

    /// Looks up a node reference; returns the node and the direction if one was written.
    /// The whole path is tried first; failing that, its last segment is read as a direction
    /// of the node named by the rest (`b[20].y`, `c.x[3].x`).
    fn node_ref(&mut self, f: &Frame, r: &NodeRef) -> R<(NodeId, Option<Dir>)> {
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
    fn single_dir(&self, node: NodeId, what: &str, at: Span) -> R<Dir> {
        let n = &self.nodes[node.0];
        let cands: Vec<Dir> = n
            .dirs
            .iter()
            .copied()
            .filter(|d| !matches!(d, Dir::Rx | Dir::Ry | Dir::Rz))
            .collect();
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
    fn element_dirs(
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
                let trans = |n: &Node| -> Vec<Dir> {
                    n.dirs
                        .iter()
                        .copied()
                        .filter(|d| !matches!(d, Dir::Rx | Dir::Ry | Dir::Rz))
                        .collect()
                };
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

    fn element_name(
        &mut self,
        f: &Frame,
        label: Option<&ast::Label>,
        kind: &'static str,
        a: NodeId,
        b: NodeId,
    ) -> R<String> {
        if let Some(l) = label {
            let local = match &l.index {
                Some(i) => format!("{}[{}]", l.name.name, eval::integer(i, &f.scope)?),
                None => l.name.name.clone(),
            };
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

    #[allow(clippy::too_many_arguments)]
    fn element(
        &mut self,
        f: &Frame,
        kind: Kind,
        label: Option<&ast::Label>,
        ra: &NodeRef,
        rb: &NodeRef,
        opts: Option<&Options>,
        span: Span,
    ) -> R<()> {
        let a = self.node_ref(f, ra)?;
        let b = self.node_ref(f, rb)?;
        let kw = kind.keyword();
        if a.0 == b.0 && (a.1 == b.1 || a.1.is_none() || b.1.is_none()) {
            return Err(ResolveError::SelfLoop {
                kind: kw.into(),
                node: self.nodes[a.0 .0].name.clone(),
                at: ra.span.join(rb.span),
            });
        }
        if self.nodes[a.0 .0].is_support() && self.nodes[b.0 .0].is_support() {
            return Err(ResolveError::Invalid {
                what: format!("{kw} between two supports"),
                at: ra.span.join(rb.span),
                help: "`ground` and `base` have no DOFs; connect at least one mass".into(),
            });
        }
        let s = &f.scope;
        let element_kind: ElementKind = match kind {
            Kind::Spring => {
                check_keys(opts, &["k", "k2", "k3"], "spring")?;
                let k = num_opt(opts, "k", s, "a stiffness k", Dim::STIFFNESS)?;
                let k2 = num_opt(opts, "k2", s, "a quadratic stiffness k2", Dim::STIFFNESS2)?;
                let k3 = num_opt(opts, "k3", s, "a cubic stiffness k3", Dim::STIFFNESS3)?;
                if k.is_none() && k2.is_none() && k3.is_none() {
                    return Err(missing(
                        "k",
                        "spring",
                        "the force is k·u + k2·u² + k3·u³",
                        span,
                    ));
                }
                ElementKind::Spring {
                    k: k.unwrap_or(0.0),
                    k2: k2.unwrap_or(0.0),
                    k3: k3.unwrap_or(0.0),
                }
            }
            Kind::Damper => {
                check_keys(opts, &["c"], "damper")?;
                let c = num_opt(opts, "c", s, "a damping coefficient c", Dim::DAMPING)?
                    .ok_or_else(|| missing("c", "damper", "c is in N·s/m", span))?;
                if c < 0.0 {
                    return Err(non_physical(
                        "a damping coefficient must not be negative",
                        value_span(opts, "c", span),
                        c,
                        "c ≥ 0 dissipates energy; use a force expression for active elements",
                    ));
                }
                ElementKind::Damper { c }
            }
            Kind::Gap => ElementKind::Gap(gap(opts, s, span)?),
            Kind::Friction => ElementKind::Friction(self.friction(opts, s, span, a.0, b.0)?),
        };
        let ElementKind::Friction(Friction::Contact2d { .. }) = &element_kind else {
            let dirs = self.element_dirs(kw, a, b, ra, rb)?;
            let base_name = self.element_name(f, label, kw, a.0, b.0)?;
            let multi = dirs.len() > 1;
            for (da, db) in dirs {
                let name = if multi {
                    format!("{base_name}.{da}")
                } else {
                    base_name.clone()
                };
                let (ea, eb) = (
                    Endpoint {
                        node: a.0,
                        dir: Some(da),
                    },
                    Endpoint {
                        node: b.0,
                        dir: Some(db),
                    },
                );
                self.elements.push(Element {
                    name,
                    kind: element_kind.clone(),
                    a: ea,
                    b: eb,
                    span,
                });
            }
            return Ok(());
        };
        // The 2-D contact acts along its own two directions on both nodes.
        let name = self.element_name(f, label, kw, a.0, b.0)?;
        self.elements.push(Element {
            name,
            kind: element_kind.clone(),
            a: Endpoint {
                node: a.0,
                dir: None,
            },
            b: Endpoint {
                node: b.0,
                dir: None,
            },
            span,
        });
        Ok(())
    }

    fn friction(
        &self,
        opts: Option<&Options>,
        s: &Scope,
        span: Span,
        a: NodeId,
        b: NodeId,
    ) -> R<Friction> {
        let law = match opt(opts, "law") {
            None => "coulomb".to_string(),
            Some(v) => ident_value(v, "a friction law")?.0,
        };
        let slip_force = |opts| -> R<f64> {
            let force = num_opt(opts, "force", s, "a slip force", Dim::FORCE)?;
            let mu = num_opt(opts, "mu", s, "a friction coefficient", Dim::NONE)?;
            let normal = num_opt(opts, "normal", s, "a normal force", Dim::FORCE)?;
            check_mu(mu, opts, span)?;
            match (force, mu, normal) {
                (Some(f), None, None) => {
                    if f < 0.0 {
                        return Err(non_physical(
                            "a slip force must not be negative",
                            value_span(opts, "force", span),
                            f,
                            "the slip force μN is ≥ 0",
                        ));
                    }
                    Ok(f)
                }
                (None, Some(mu), Some(n)) => {
                    if n < 0.0 {
                        return Err(non_physical(
                            "a normal force must not be negative",
                            value_span(opts, "normal", span),
                            n,
                            "contacts push, they do not pull: N ≥ 0",
                        ));
                    }
                    Ok(mu * n)
                }
                (None, Some(_), None) => Err(missing(
                    "normal",
                    "friction",
                    "the slip force is mu·normal",
                    span,
                )),
                (None, None, _) => Err(missing(
                    "force",
                    "friction",
                    "give the slip force (`force = …`) or `mu` and `normal`",
                    span,
                )),
                _ => Err(ResolveError::Invalid {
                    what: "friction with both `force` and `mu`".into(),
                    at: span,
                    help: "give either the slip force `force = …` or `mu = …` with `normal = …`"
                        .into(),
                }),
            }
        };
        match law.as_str() {
            "coulomb" => {
                check_keys(
                    opts,
                    &["law", "force", "mu", "normal"],
                    "friction (coulomb)",
                )?;
                Ok(Friction::Coulomb {
                    slip_force: slip_force(opts)?,
                })
            }
            "jenkins" => {
                check_keys(
                    opts,
                    &["law", "force", "mu", "normal", "kt"],
                    "friction (jenkins)",
                )?;
                let kt = num_opt(opts, "kt", s, "a tangential stiffness", Dim::STIFFNESS)?
                    .ok_or_else(|| {
                        missing(
                            "kt",
                            "a Jenkins element",
                            "kt is the stiffness in series with the slider",
                            span,
                        )
                    })?;
                if kt <= 0.0 {
                    return Err(non_physical(
                        "the tangential stiffness must be positive",
                        value_span(opts, "kt", span),
                        kt,
                        "kt > 0; for a rigid slider use the default `coulomb` law",
                    ));
                }
                Ok(Friction::Jenkins {
                    kt,
                    slip_force: slip_force(opts)?,
                })
            }
            "contact2d" => {
                check_keys(
                    opts,
                    &["law", "kt", "kn", "mu", "N0", "angle", "directions"],
                    "friction (contact2d)",
                )?;
                let need = |k: &str, what: &str, d: Dim| -> R<f64> {
                    num_opt(opts, k, s, what, d)?.ok_or_else(|| {
                        missing(
                            k,
                            "a 2-D contact",
                            "contact2d needs kt, kn, mu and N0",
                            span,
                        )
                    })
                };
                let kt = need("kt", "a tangential stiffness", Dim::STIFFNESS)?;
                let kn = need("kn", "a normal stiffness", Dim::STIFFNESS)?;
                let mu = need("mu", "a friction coefficient", Dim::NONE)?;
                let n0 = need("N0", "a normal preload", Dim::FORCE)?;
                check_mu(Some(mu), opts, span)?;
                for (k, v) in [("kt", kt), ("kn", kn)] {
                    if v <= 0.0 {
                        return Err(non_physical(
                            "contact stiffnesses must be positive",
                            value_span(opts, k, span),
                            v,
                            "kt and kn are penalty stiffnesses > 0",
                        ));
                    }
                }
                let angle = num_opt(opts, "angle", s, "a contact angle", Dim::NONE)?.unwrap_or(0.0);
                let (tangent, normal) = match opt(opts, "directions") {
                    None => (Dir::X, Dir::Y),
                    Some(v) => match dir_list(v)?[..] {
                        [t, n] => (t, n),
                        _ => {
                            return Err(ResolveError::WrongType {
                                expected: "two directions".into(),
                                found: "another list".into(),
                                at: v.span(),
                                help: "write `directions = (tangent, normal)`, e.g. `(x, y)`"
                                    .into(),
                            })
                        }
                    },
                };
                // The tangent must be a DOF of each node; a node without the normal direction
                // is held in it (a fixed pad: the normal load stays N0 on that side).
                for node in [a, b] {
                    let n = &self.nodes[node.0];
                    if !n.is_support() && !n.dirs.contains(&tangent) {
                        return Err(ResolveError::MissingDirection {
                            node: n.name.clone(),
                            dir: tangent.to_string(),
                            dirs: dir_names(&n.dirs),
                            at: span,
                        });
                    }
                }
                Ok(Friction::Contact2d {
                    kt,
                    kn,
                    mu,
                    n0,
                    angle,
                    tangent,
                    normal,
                })
            }
            other => Err(ResolveError::UnknownLaw {
                name: other.to_string(),
                owner: "friction law".into(),
                at: opt(opts, "law").map_or(span, Value::span),
                help: suggest(
                    other,
                    ["coulomb", "jenkins", "contact2d"],
                    "friction laws are",
                ),
            }),
        }
    }

    fn beam(&mut self, f: &Frame, name: &ast::Ident, o: &Options, span: Span) -> R<()> {
        let keys = [
            "E", "rho", "area", "I", "section", "length", "elements", "ends", "plane", "axial",
        ];
        check_keys(Some(o), &keys, "beam")?;
        let s = &f.scope;
        let o = Some(o);
        let need = |k: &str, what: &str, d: Dim| -> R<f64> {
            let v = num_opt(o, k, s, what, d)?.ok_or_else(|| missing(k, "beam", "a beam needs E, rho, length, elements and a section (area and I, or `section = rect(b, h)`)", span))?;
            if v <= 0.0 {
                return Err(non_physical(
                    &format!("beam `{k}` must be positive"),
                    value_span(o, k, span),
                    v,
                    "geometry and material constants are > 0",
                ));
            }
            Ok(v)
        };
        let e = need("E", "Young's modulus", Dim::PRESSURE)?;
        let rho = need("rho", "a density", Dim::DENSITY)?;
        let length = need("length", "a length", Dim::LENGTH)?;
        let (area, inertia) = match opt(o, "section") {
            Some(v) => section(v, s)?,
            None => (
                need("area", "an area", Dim::AREA)?,
                need("I", "a second moment of area", Dim::SECOND_MOMENT)?,
            ),
        };
        let ne = match opt(o, "elements") {
            Some(Value::Expr(x)) => eval::integer(x, s)?,
            Some(v) => {
                return Err(ResolveError::WrongType {
                    expected: "a number".into(),
                    found: "a range or block".into(),
                    at: v.span(),
                    help: "`elements = 20`".into(),
                })
            }
            None => {
                return Err(missing(
                    "elements",
                    "beam",
                    "the number of beam elements, e.g. `elements = 20`",
                    span,
                ))
            }
        };
        if ne < 1 {
            return Err(non_physical(
                "a beam needs at least one element",
                value_span(o, "elements", span),
                ne as f64,
                "elements ≥ 1",
            ));
        }
        let ends = match opt(o, "ends") {
            None => ("clamped".to_string(), "free".to_string()),
            Some(Value::Expr(Expr {
                kind: ExprKind::Tuple(items),
                span: ts,
            })) if items.len() == 2 => {
                let read = |x: &Expr| -> R<String> {
                    match &x.kind {
                        ExprKind::Var { name, index: None }
                            if ["clamped", "pinned", "free"].contains(&name.name.as_str()) =>
                        {
                            Ok(name.name.clone())
                        }
                        _ => Err(ResolveError::UnknownLaw {
                            name: snippet(x),
                            owner: "beam end".into(),
                            at: x.span,
                            help: "ends are `clamped`, `pinned` or `free`".into(),
                        }),
                    }
                };
                let _ = ts;
                (read(&items[0])?, read(&items[1])?)
            }
            Some(v) => {
                return Err(ResolveError::WrongType {
                    expected: "two end conditions".into(),
                    found: "something else".into(),
                    at: v.span(),
                    help: "write `ends = (clamped, free)`".into(),
                })
            }
        };
        let (transverse, rotation) = match opt(o, "plane") {
            None => (Dir::Y, Dir::Rz),
            Some(v) => match ident_value(v, "a bending plane")?.0.as_str() {
                "y" => (Dir::Y, Dir::Rz),
                "z" => (Dir::Z, Dir::Ry),
                other => {
                    return Err(ResolveError::UnknownDirection {
                        dir: other.into(),
                        at: v.span(),
                    })
                }
            },
        };
        let axial = match opt(o, "axial") {
            None => false,
            Some(v) => bool_value(v)?,
        };
        let mut dirs = vec![transverse, rotation];
        if axial {
            dirs.insert(0, Dir::X);
        }
        let fixed_for = |end: &str| -> Vec<Dir> {
            match end {
                "clamped" => dirs.clone(),
                "pinned" => dirs.iter().copied().filter(|d| *d != rotation).collect(),
                _ => vec![],
            }
        };
        let le = length / ne as f64;
        let mut prev = None;
        for i in 0..=ne {
            let fixed = if i == 0 {
                fixed_for(&ends.0)
            } else if i == ne {
                fixed_for(&ends.1)
            } else {
                vec![]
            };
            let id = self.add_node(
                f,
                format!("{}[{i}]", name.name),
                NodeKind::BeamNode,
                dirs.clone(),
                fixed,
                0.0,
                name.span,
            )?;
            if let Some(p) = prev {
                let seg = BeamSegment {
                    ei: e * inertia,
                    rho_a: rho * area,
                    ea: axial.then_some(e * area),
                    length: le,
                    transverse,
                    rotation,
                    axial: axial.then_some(Dir::X),
                };
                let ename = format!("{}{}.seg[{i}]", f.prefix, name.name);
                self.elements.push(Element {
                    name: ename,
                    kind: ElementKind::Beam(seg),
                    a: Endpoint { node: p, dir: None },
                    b: Endpoint {
                        node: id,
                        dir: None,
                    },
                    span,
                });
            }
            prev = Some(id);
        }
        Ok(())
    }

    fn matrices(&mut self, f: &Frame, name: &ast::Ident, o: &Options, span: Span) -> R<()> {
        check_keys(Some(o), &["M", "K", "C"], "matrices")?;
        let read = |key: &str| -> R<Option<(usize, super::mtx::Triplets)>> {
            let Some(v) = opt(Some(o), key) else {
                return Ok(None);
            };
            let Value::Expr(Expr {
                kind: ExprKind::Str(path),
                span: at,
            }) = v
            else {
                return Err(ResolveError::WrongType {
                    expected: "a file path".into(),
                    found: "something else".into(),
                    at: v.span(),
                    help: format!("write `{key} = \"file.mtx\"`"),
                });
            };
            let text =
                self.prog
                    .read_relative(f.file, path)
                    .map_err(|e| ResolveError::MissingFile {
                        path: path.clone(),
                        reason: e.to_string(),
                        stdlib: "-".into(),
                        at: *at,
                    })?;
            super::mtx::parse(&text)
                .map(Some)
                .map_err(|reason| ResolveError::BadMatrix {
                    path: path.clone(),
                    reason,
                    at: *at,
                })
        };
        let m = read("M")?.ok_or_else(|| missing("M", "matrices", "M and K are required", span))?;
        let k = read("K")?.ok_or_else(|| missing("K", "matrices", "M and K are required", span))?;
        let c = read("C")?.unwrap_or((m.0, vec![]));
        for (key, size) in [("K", k.0), ("C", c.0)] {
            if size != m.0 {
                let at = value_span(Some(o), key, span);
                return Err(ResolveError::BadMatrix {
                    path: key.into(),
                    reason: format!("it is {size}×{size} but M is {}×{}", m.0, m.0),
                    at,
                });
            }
        }
        let dirs = (1..=m.0 as u32).map(Dir::Index).collect();
        let id = self.add_node(
            f,
            name.name.clone(),
            NodeKind::Substructure,
            dirs,
            vec![],
            0.0,
            name.span,
        )?;
        let sub = Substructure {
            size: m.0,
            m: m.1,
            k: k.1,
            c: c.1,
        };
        let ep = Endpoint {
            node: id,
            dir: None,
        };
        self.elements.push(Element {
            name: format!("{}{}.matrices", f.prefix, name.name),
            kind: ElementKind::Matrices(sub),
            a: ep,
            b: ep,
            span,
        });
        Ok(())
    }

    fn body(&mut self, f: &Frame, name: &ast::Ident, o: &Options, span: Span) -> R<()> {
        check_keys(
            Some(o),
            &[
                "mass",
                "inertia",
                "at",
                "orientation",
                "velocity",
                "angular_velocity",
                "force",
                "force_at",
            ],
            "body",
        )?;
        let s = &f.scope;
        let o = Some(o);
        let mass = num_opt(o, "mass", s, "a mass", Dim::MASS)?.ok_or_else(|| {
            missing(
                "mass",
                "body",
                "a rigid body needs its mass and principal inertia",
                span,
            )
        })?;
        if mass <= 0.0 {
            return Err(non_physical(
                "a mass must be positive",
                value_span(o, "mass", span),
                mass,
                "masses are in kg and > 0",
            ));
        }
        let inertia = vec_opt(o, "inertia", s, Dim::INERTIA)?.ok_or_else(|| {
            missing(
                "inertia",
                "body",
                "principal moments `inertia = (Ixx, Iyy, Izz)`",
                span,
            )
        })?;
        if inertia.iter().any(|i| *i <= 0.0) {
            return Err(non_physical(
                "principal moments of inertia must be positive",
                value_span(o, "inertia", span),
                inertia.iter().copied().fold(f64::INFINITY, f64::min),
                "each of Ixx, Iyy, Izz > 0",
            ));
        }
        let position = vec_opt(o, "at", s, Dim::LENGTH)?.unwrap_or([0.0; 3]);
        let velocity = vec_opt(o, "velocity", s, Dim([0, 1, -1]))?.unwrap_or([0.0; 3]);
        let angular_velocity =
            vec_opt(o, "angular_velocity", s, Dim::FREQUENCY)?.unwrap_or([0.0; 3]);
        let orientation = match opt(o, "orientation") {
            None => [1.0, 0.0, 0.0, 0.0],
            Some(Value::Expr(
                e @ Expr {
                    kind: ExprKind::Tuple(items),
                    ..
                },
            )) if items.len() == 4 => {
                let mut q = [0.0; 4];
                for (qi, x) in q.iter_mut().zip(items) {
                    *qi = eval::quantity(x, s, "an Euler parameter", Dim::NONE)?;
                }
                let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                if n < 1e-12 {
                    return Err(non_physical(
                        "Euler parameters must not all be zero",
                        e.span,
                        n,
                        "give a unit quaternion (e0, e1, e2, e3)",
                    ));
                }
                q.map(|x| x / n)
            }
            Some(v) => {
                return Err(ResolveError::WrongType {
                    expected: "four Euler parameters".into(),
                    found: "something else".into(),
                    at: v.span(),
                    help: "write `orientation = (1, 0, 0, 0)`".into(),
                })
            }
        };
        let force = vec_opt(o, "force", s, Dim::FORCE)?.unwrap_or([0.0; 3]);
        let force_at = vec_opt(o, "force_at", s, Dim::LENGTH)?.unwrap_or([0.0; 3]);
        let body = Body {
            mass,
            inertia,
            position,
            orientation,
            velocity,
            angular_velocity,
            force,
            force_at,
        };
        let dirs = vec![Dir::X, Dir::Y, Dir::Z, Dir::Rx, Dir::Ry, Dir::Rz];
        self.add_node(
            f,
            name.name.clone(),
            NodeKind::Body(body),
            dirs,
            vec![],
            mass,
            name.span,
        )?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn joint(
        &mut self,
        f: &Frame,
        label: Option<&ast::Label>,
        kind: &ast::Ident,
        ra: &NodeRef,
        rb: &NodeRef,
        o: Option<&Options>,
        span: Span,
    ) -> R<()> {
        let kinds = ["revolute", "cylindrical", "prismatic", "spherical", "fixed"];
        if !kinds.contains(&kind.name.as_str()) {
            return Err(ResolveError::UnknownLaw {
                name: kind.name.clone(),
                owner: "joint kind".into(),
                at: kind.span,
                help: suggest(&kind.name, kinds, "joint kinds are"),
            });
        }
        check_keys(
            o,
            &[
                "at",
                "axis",
                "radius",
                "length",
                "clearance",
                "axial_clearance",
                "law",
                "mu",
                "section",
            ],
            "joint",
        )?;
        let (a, _) = self.node_ref(f, ra)?;
        let (b, _) = self.node_ref(f, rb)?;
        for (n, r) in [(a, ra), (b, rb)] {
            if !matches!(self.nodes[n.0].kind, NodeKind::Body(_) | NodeKind::Ground) {
                return Err(ResolveError::Invalid {
                    what: format!("joint `{}` needs rigid bodies", self.nodes[n.0].name),
                    at: r.span,
                    help: "joints connect `body` nodes (or a body and `ground`); lumped masses use springs and gaps".into(),
                });
            }
        }
        if a == b {
            return Err(ResolveError::SelfLoop {
                kind: "joint".into(),
                node: self.nodes[a.0].name.clone(),
                at: ra.span.join(rb.span),
            });
        }
        let s = &f.scope;
        let at = vec_opt(o, "at", s, Dim::LENGTH)?.unwrap_or([0.0; 3]);
        let axis = vec_opt(o, "axis", s, Dim::NONE)?.unwrap_or([0.0, 0.0, 1.0]);
        let norm = axis.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm < 1e-12 {
            return Err(non_physical(
                "a joint axis must not be zero",
                value_span(o, "axis", span),
                norm,
                "give a direction, e.g. `axis = (0, 0, 1)`",
            ));
        }
        let axis = axis.map(|x| x / norm);
        let clearance = |k: &str| -> R<Option<f64>> {
            let c = num_opt(o, k, s, "a clearance", Dim::LENGTH)?;
            if let Some(c) = c.filter(|c| *c < 0.0) {
                return Err(non_physical(
                    "a clearance must not be negative",
                    value_span(o, k, span),
                    c,
                    "clearances are gaps in m (e.g. `0.1 mm`), ≥ 0",
                ));
            }
            Ok(c)
        };
        let positive = |k: &str| -> R<f64> {
            let v = num_opt(o, k, s, "a length", Dim::LENGTH)?.unwrap_or(0.0);
            if v < 0.0 {
                return Err(non_physical(
                    &format!("joint `{k}` must not be negative"),
                    value_span(o, k, span),
                    v,
                    "radius and length are dimensions in m, ≥ 0",
                ));
            }
            Ok(v)
        };
        let (radius, length) = (positive("radius")?, positive("length")?);
        let radial_clearance = clearance("clearance")?;
        let axial_clearance = clearance("axial_clearance")?;
        let law = match opt(o, "law") {
            Some(v) => contact_law(v, s)?,
            None => ContactLaw::Impact { e: 0.0 },
        };
        let mu = num_opt(o, "mu", s, "a friction coefficient", Dim::NONE)?.unwrap_or(0.0);
        check_mu(Some(mu), o, span)?;
        let jk = match kind.name.as_str() {
            "revolute" => JointKind::Revolute,
            "cylindrical" => JointKind::Cylindrical,
            "spherical" => JointKind::Spherical,
            "fixed" => JointKind::Fixed,
            _ => {
                let v = opt(o, "section").ok_or_else(|| {
                    missing(
                        "section",
                        "a prismatic joint",
                        "the polygonal guide section, `section = ((x1, y1), (x2, y2), (x3, y3))`",
                        span,
                    )
                })?;
                JointKind::Prismatic {
                    section: polygon(v, s)?,
                }
            }
        };
        let name = self.element_name(f, label, "joint", a, b)?;
        let joint = Joint {
            kind: jk,
            at,
            axis,
            radius,
            length,
            radial_clearance,
            axial_clearance,
            law,
            mu,
        };
        self.elements.push(Element {
            name,
            kind: ElementKind::Joint(joint),
            a: Endpoint { node: a, dir: None },
            b: Endpoint { node: b, dir: None },
            span,
        });
        Ok(())
    }

    fn use_component(
        &mut self,
        f: &mut Frame,
        template: &ast::Ident,
        instance: &ast::Ident,
        args: &[Arg],
    ) -> R<()> {
        let Some((kind, file, t)) = self.prog.template(&template.name) else {
            let names = self
                .prog
                .templates
                .iter()
                .filter(|(_, v)| v.0 == TemplateKind::Component)
                .map(|(k, _)| k.as_str());
            return Err(ResolveError::UnknownModel {
                name: template.name.clone(),
                at: template.span,
                help: suggest(
                    &template.name,
                    names,
                    "define it with `component NAME(…) { … }` or import its file",
                ),
            });
        };
        if kind == TemplateKind::Model {
            return Err(ResolveError::WrongTemplate {
                name: template.name.clone(),
                found: "model".into(),
                expected: "component".into(),
                at: template.span,
                help:
                    "declare reusable parts with `component`; models are analysed, not instantiated"
                        .into(),
            });
        }
        if f.depth > 32 {
            return Err(ResolveError::Invalid {
                what: format!("`{}` instantiates itself", template.name),
                at: template.span,
                help: "components may nest, but not recursively".into(),
            });
        }
        let mut inner = Frame {
            file,
            prefix: format!("{}{}.", f.prefix, instance.name),
            scope: Scope::default(),
            aliases: HashMap::default(),
            depth: f.depth + 1,
        };
        // Bind arguments: node references become aliases, everything else a number.
        let mut given: HashMap<&str, &Expr> = HashMap::default();
        for (i, a) in args.iter().enumerate() {
            let pname = match &a.name {
                Some(n) => {
                    if !t.params.iter().any(|p| p.name.name == n.name) {
                        let help = suggest(
                            &n.name,
                            t.params.iter().map(|p| p.name.name.as_str()),
                            "the component's parameters are",
                        );
                        return Err(ResolveError::UnknownArgument {
                            name: n.name.clone(),
                            template: template.name.clone(),
                            at: n.span,
                            help,
                        });
                    }
                    n.name.as_str()
                }
                None => match t.params.get(i) {
                    Some(p) => p.name.name.as_str(),
                    None => {
                        return Err(ResolveError::UnknownArgument {
                            name: format!("#{}", i + 1),
                            template: template.name.clone(),
                            at: a.value.span,
                            help: format!(
                                "`{}` takes {} parameter(s)",
                                template.name,
                                t.params.len()
                            ),
                        })
                    }
                },
            };
            given.insert(pname, &a.value);
        }
        for p in &t.params {
            let pname = p.name.name.as_str();
            match given.get(pname) {
                Some(e) => {
                    if let Some(full) = self.node_alias(f, e)? {
                        inner.aliases.insert(pname.to_string(), full);
                    } else {
                        let v = eval::eval(e, &f.scope)?;
                        inner.scope.params.insert(pname.to_string(), v);
                    }
                }
                None => match &p.default {
                    Some(d) => {
                        let v = eval::eval(d, &inner.scope)?;
                        inner.scope.params.insert(pname.to_string(), v);
                    }
                    None => {
                        return Err(ResolveError::MissingArgument {
                            name: pname.to_string(),
                            template: template.name.clone(),
                            at: template.span,
                        })
                    }
                },
            }
        }
        self.stmts(&mut inner, &t.body);
        Ok(())
    }

    /// If `e` names a node visible in `f` (and not a parameter), its full name.
    fn node_alias(&self, f: &Frame, e: &Expr) -> R<Option<String>> {
        let ExprKind::Var { name, index } = &e.kind else {
            return Ok(None);
        };
        if index.is_none() && f.scope.lookup(&name.name).is_some() {
            return Ok(None);
        }
        let local = match index {
            Some(i) => format!("{}[{}]", name.name, eval::integer(i, &f.scope)?),
            None => name.name.clone(),
        };
        let full = match index.is_none().then(|| f.aliases.get(&local)).flatten() {
            Some(a) => a.clone(),
            None if local == "ground" || local == "base" => local,
            None => format!("{}{local}", f.prefix),
        };
        Ok(self.node_ids.contains_key(&full).then_some(full))
    }
}

/// Loops and families beyond this many iterations are refused (a typo such as `1..1e9`
/// would otherwise exhaust memory instead of failing).
const MAX_RANGE: i64 = 20_000_000;

fn check_range_size(from: i64, to: i64, at: Span) -> R<()> {
    if to.saturating_sub(from) >= MAX_RANGE {
        return Err(ResolveError::Invalid {
            what: format!("the range {from}..{to} has more than {MAX_RANGE} values"),
            at,
            help: "models are limited to 20 million generated items per loop; check the bounds"
                .into(),
        });
    }
    Ok(())
}

fn missing(name: &str, owner: &str, hint: &str, at: Span) -> ResolveError {
    ResolveError::MissingOption {
        name: name.into(),
        owner: owner.into(),
        hint: hint.into(),
        at,
    }
}

fn non_physical(what: &str, at: Span, value: f64, help: &str) -> ResolveError {
    ResolveError::NonPhysical {
        what: what.into(),
        at,
        value,
        help: help.into(),
    }
}

fn dir_names(dirs: &[Dir]) -> String {
    let v: Vec<String> = dirs.iter().map(|d| format!("`{d}`")).collect();
    v.join(", ")
}

/// The source text of an expression, for messages.
fn snippet(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Var { name, .. } | ExprKind::Call { name, .. } => name.name.clone(),
        _ => describe(e).to_string(),
    }
}

fn opt<'a>(opts: Option<&'a Options>, key: &str) -> Option<&'a Value> {
    opts?
        .entries
        .iter()
        .find(|e| e.key.simple().is_some_and(|n| n.name == key))
        .map(|e| &e.value)
}

fn value_span(opts: Option<&Options>, key: &str, fallback: Span) -> Span {
    opt(opts, key).map_or(fallback, Value::span)
}

/// Reports the first unknown or repeated option key.
pub fn check_keys(opts: Option<&Options>, allowed: &[&str], owner: &str) -> R<()> {
    let Some(opts) = opts else { return Ok(()) };
    for (n, e) in opts.entries.iter().enumerate() {
        let k = e.key.head().name.as_str();
        if !allowed.contains(&k) || e.key.simple().is_none() {
            let help = suggest(
                k,
                allowed.iter().copied(),
                &format!("the options of {owner} are"),
            );
            return Err(ResolveError::UnknownOption {
                name: k.to_string(),
                owner: owner.to_string(),
                at: e.key.span,
                help,
            });
        }
        let earlier = opts.entries[..n].iter().find(|x| x.key.head().name == k);
        if let Some(first) = earlier {
            return Err(ResolveError::Duplicate {
                name: k.to_string(),
                at: e.key.span,
                first: Some(first.key.span),
            });
        }
    }
    Ok(())
}

fn num_opt(opts: Option<&Options>, key: &str, s: &Scope, what: &str, dim: Dim) -> R<Option<f64>> {
    match opt(opts, key) {
        None => Ok(None),
        Some(Value::Expr(e)) => eval::quantity(e, s, what, dim).map(Some),
        Some(v) => Err(ResolveError::WrongType {
            expected: "a number".into(),
            found: "a range or block".into(),
            at: v.span(),
            help: format!("write `{key} = <number>`"),
        }),
    }
}

fn check_mu(mu: Option<f64>, opts: Option<&Options>, span: Span) -> R<()> {
    match mu {
        Some(m) if m < 0.0 => Err(non_physical(
            "a friction coefficient must not be negative",
            value_span(opts, "mu", span),
            m,
            "μ ≥ 0 (typical values 0.1–1)",
        )),
        _ => Ok(()),
    }
}

fn ident_value(v: &Value, what: &str) -> R<(String, Span)> {
    match v {
        Value::Expr(Expr {
            kind: ExprKind::Var { name, index: None },
            ..
        }) => Ok((name.name.clone(), name.span)),
        _ => Err(ResolveError::WrongType {
            expected: what.into(),
            found: "something else".into(),
            at: v.span(),
            help: "write a bare name, e.g. `law = jenkins`".into(),
        }),
    }
}

fn bool_value(v: &Value) -> R<bool> {
    match ident_value(v, "true or false")?.0.as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ResolveError::WrongType {
            expected: "true or false".into(),
            found: "another name".into(),
            at: v.span(),
            help: "write `true` or `false`".into(),
        }),
    }
}

/// `dofs = x` or `dofs = (x, y)`.
fn dir_list(v: &Value) -> R<Vec<Dir>> {
    let items: Vec<&Expr> = match v {
        Value::Expr(
            e @ Expr {
                kind: ExprKind::Var { .. },
                ..
            },
        ) => vec![e],
        Value::Expr(Expr {
            kind: ExprKind::Tuple(items),
            ..
        }) => items.iter().collect(),
        _ => {
            return Err(ResolveError::WrongType {
                expected: "directions".into(),
                found: "something else".into(),
                at: v.span(),
                help: "write `dofs = (x, y)`".into(),
            })
        }
    };
    let mut dirs = Vec::new();
    for e in items {
        let ExprKind::Var { name, index: None } = &e.kind else {
            return Err(ResolveError::UnknownDirection {
                dir: snippet(e),
                at: e.span,
            });
        };
        let d = Dir::parse(&name.name).ok_or_else(|| ResolveError::UnknownDirection {
            dir: name.name.clone(),
            at: name.span,
        })?;
        if dirs.contains(&d) {
            return Err(ResolveError::Duplicate {
                name: name.name.clone(),
                at: name.span,
                first: None,
            });
        }
        dirs.push(d);
    }
    Ok(dirs)
}

/// A 3-vector (a 2-vector gets z = 0).
fn vector(e: &Expr, s: &Scope, what: &str, dim: Dim) -> R<[f64; 3]> {
    let ExprKind::Tuple(items) = &e.kind else {
        return Err(ResolveError::WrongType {
            expected: "a vector".into(),
            found: describe(e).into(),
            at: e.span,
            help: format!("write {what} as `(x, y, z)`"),
        });
    };
    if items.len() > 3 {
        return Err(ResolveError::WrongType {
            expected: "a vector of 2 or 3 entries".into(),
            found: format!("{} entries", items.len()),
            at: e.span,
            help: format!("write {what} as `(x, y, z)`"),
        });
    }
    let mut v = [0.0; 3];
    for (vi, x) in v.iter_mut().zip(items) {
        *vi = eval::quantity(x, s, what, dim)?;
    }
    Ok(v)
}

fn vec_opt(opts: Option<&Options>, key: &str, s: &Scope, dim: Dim) -> R<Option<[f64; 3]>> {
    match opt(opts, key) {
        None => Ok(None),
        Some(Value::Expr(e)) => vector(e, s, key, dim).map(Some),
        Some(v) => Err(ResolveError::WrongType {
            expected: "a vector".into(),
            found: "a range or block".into(),
            at: v.span(),
            help: format!("write `{key} = (x, y, z)`"),
        }),
    }
}

/// `((x1, y1), (x2, y2), …)`, at least three vertices.
fn polygon(v: &Value, s: &Scope) -> R<Vec<[f64; 2]>> {
    let bad = |at| ResolveError::WrongType {
        expected: "a polygon".into(),
        found: "something else".into(),
        at,
        help: "write `section = ((x1, y1), (x2, y2), (x3, y3))` with at least three vertices"
            .into(),
    };
    let Value::Expr(Expr {
        kind: ExprKind::Tuple(items),
        span,
    }) = v
    else {
        return Err(bad(v.span()));
    };
    if items.len() < 3 {
        return Err(bad(*span));
    }
    items
        .iter()
        .map(|p| match &p.kind {
            ExprKind::Tuple(xy) if xy.len() == 2 => Ok([
                eval::quantity(&xy[0], s, "a vertex", Dim::LENGTH)?,
                eval::quantity(&xy[1], s, "a vertex", Dim::LENGTH)?,
            ]),
            _ => Err(bad(p.span)),
        })
        .collect()
}

/// `rect(b, h)` (h along the bending direction) or `circle(d)` → (area, second moment).
fn section(v: &Value, s: &Scope) -> R<(f64, f64)> {
    let bad = |at| ResolveError::UnknownLaw {
        name: "section".into(),
        owner: "beam section".into(),
        at,
        help: "sections are `rect(b, h)` (h in the bending plane) and `circle(d)`".into(),
    };
    let Value::Expr(Expr {
        kind: ExprKind::Call { name, args },
        span,
    }) = v
    else {
        return Err(bad(v.span()));
    };
    match name.name.as_str() {
        "rect" => {
            let x = law_args(
                args,
                s,
                "rect",
                &[("b", None, Dim::LENGTH), ("h", None, Dim::LENGTH)],
                *span,
            )?;
            Ok((x[0] * x[1], x[0] * x[1].powi(3) / 12.0))
        }
        "circle" => {
            let d = law_args(args, s, "circle", &[("d", None, Dim::LENGTH)], *span)?[0];
            let pi = std::f64::consts::PI;
            Ok((pi * d * d / 4.0, pi * d.powi(4) / 64.0))
        }
        _ => Err(bad(name.span)),
    }
}

/// Reads call arguments against a schema of (name, default, dimension).
fn law_args(
    args: &[Arg],
    s: &Scope,
    law: &str,
    schema: &[(&str, Option<f64>, Dim)],
    span: Span,
) -> R<Vec<f64>> {
    let mut vals: Vec<Option<f64>> = schema.iter().map(|(_, d, _)| *d).collect();
    for (i, a) in args.iter().enumerate() {
        let slot = match &a.name {
            Some(n) => schema
                .iter()
                .position(|(k, _, _)| *k == n.name)
                .ok_or_else(|| ResolveError::UnknownOption {
                    name: n.name.clone(),
                    owner: format!("`{law}`"),
                    at: n.span,
                    help: suggest(
                        &n.name,
                        schema.iter().map(|(k, _, _)| *k),
                        &format!("the arguments of `{law}` are"),
                    ),
                })?,
            None if i < schema.len() => i,
            None => {
                return Err(ResolveError::Arity {
                    name: law.into(),
                    expected: schema.len(),
                    found: args.len(),
                    usage: usage(law, schema),
                    at: span,
                });
            }
        };
        let (k, _, dim) = schema[slot];
        vals[slot] = Some(eval::quantity(
            &a.value,
            s,
            &format!("`{k}` of {law}"),
            dim,
        )?);
    }
    vals.into_iter()
        .zip(schema)
        .map(|(v, (k, _, _))| {
            v.ok_or_else(|| {
                missing(
                    k,
                    &format!("`{law}`"),
                    &format!("write it as {}", usage(law, schema)),
                    span,
                )
            })
        })
        .collect()
}

fn usage(law: &str, schema: &[(&str, Option<f64>, Dim)]) -> String {
    let parts: Vec<String> = schema
        .iter()
        .map(|(k, d, _)| {
            if let Some(d) = d {
                format!("{k} = {d}")
            } else {
                k.to_string()
            }
        })
        .collect();
    format!("`{law}({})`", parts.join(", "))
}

/// A contact law: `linear(k)`, `hertz(k, n = 1.5)`, `kelvin_voigt(k, c)`, `hunt_crossley(k, e, n = 1.5)`,
/// `lankarani_nikravesh(k, e, n = 1.5)`, `impact(e)`.
fn contact_law(v: &Value, s: &Scope) -> R<ContactLaw> {
    let laws = [
        "linear",
        "hertz",
        "kelvin_voigt",
        "hunt_crossley",
        "lankarani_nikravesh",
        "impact",
    ];
    let (name, args, span) = match v {
        Value::Expr(Expr {
            kind: ExprKind::Call { name, args },
            span,
        }) => (name, args.as_slice(), *span),
        Value::Expr(Expr {
            kind: ExprKind::Var { name, index: None },
            span,
        }) => (name, &[][..], *span),
        _ => {
            return Err(ResolveError::WrongType {
                expected: "a contact law".into(),
                found: "something else".into(),
                at: v.span(),
                help: "e.g. `law = linear(1e5)` or `law = impact(e = 0.8)`".into(),
            })
        }
    };
    let k_hertz = Dim([1, 0, -2]); // nominal; the Hertz constant's unit depends on n, so it is checked only for n = 1.
    let law = match name.name.as_str() {
        "linear" => ContactLaw::Linear {
            k: law_args(args, s, "linear", &[("k", None, Dim::STIFFNESS)], span)?[0],
        },
        "hertz" => {
            let x = law_args(
                args,
                s,
                "hertz",
                &[("k", None, k_hertz), ("n", Some(1.5), Dim::NONE)],
                span,
            )?;
            ContactLaw::Hertz { k: x[0], n: x[1] }
        }
        "kelvin_voigt" => {
            let x = law_args(
                args,
                s,
                "kelvin_voigt",
                &[("k", None, Dim::STIFFNESS), ("c", None, Dim::DAMPING)],
                span,
            )?;
            ContactLaw::KelvinVoigt { k: x[0], c: x[1] }
        }
        "hunt_crossley" | "lankarani_nikravesh" => {
            let x = law_args(
                args,
                s,
                &name.name,
                &[
                    ("k", None, k_hertz),
                    ("e", None, Dim::NONE),
                    ("n", Some(1.5), Dim::NONE),
                ],
                span,
            )?;
            check_restitution(x[1], span)?;
            if name.name == "hunt_crossley" {
                ContactLaw::HuntCrossley {
                    k: x[0],
                    n: x[2],
                    e: x[1],
                }
            } else {
                ContactLaw::LankaraniNikravesh {
                    k: x[0],
                    n: x[2],
                    e: x[1],
                }
            }
        }
        "impact" => {
            let e = law_args(args, s, "impact", &[("e", None, Dim::NONE)], span)?[0];
            check_restitution(e, span)?;
            ContactLaw::Impact { e }
        }
        other => {
            return Err(ResolveError::UnknownLaw {
                name: other.to_string(),
                owner: "contact law".into(),
                at: name.span,
                help: suggest(other, laws, "contact laws are"),
            })
        }
    };
    let k = match law {
        ContactLaw::Linear { k }
        | ContactLaw::Hertz { k, .. }
        | ContactLaw::KelvinVoigt { k, .. } => k,
        ContactLaw::HuntCrossley { k, .. } | ContactLaw::LankaraniNikravesh { k, .. } => k,
        ContactLaw::Impact { .. } => 1.0,
    };
    if k <= 0.0 {
        return Err(non_physical(
            "a contact stiffness must be positive",
            span,
            k,
            "contact laws push the bodies apart: k > 0",
        ));
    }
    Ok(law)
}

fn check_restitution(e: f64, at: Span) -> R<()> {
    if (0.0..=1.0).contains(&e) {
        Ok(())
    } else {
        Err(non_physical(
            "a coefficient of restitution must lie in [0, 1]",
            at,
            e,
            "e = 1 is elastic, e = 0 plastic; values outside [0, 1] create or reverse energy",
        ))
    }
}

/// `gap` options: clearance, sides, law, smooth.
fn gap(opts: Option<&Options>, s: &Scope, span: Span) -> R<Gap> {
    check_keys(opts, &["clearance", "sides", "law", "smooth"], "gap")?;
    let clearance =
        num_opt(opts, "clearance", s, "a clearance", Dim::LENGTH)?.ok_or_else(|| {
            missing(
                "clearance",
                "gap",
                "the free distance before contact, in m",
                span,
            )
        })?;
    if clearance < 0.0 {
        return Err(non_physical("a clearance must not be negative", value_span(opts, "clearance", span), clearance, "the clearance is the free distance before contact (≥ 0); an interference fit is a preloaded spring"));
    }
    let sides = match opt(opts, "sides") {
        None => Sides::Positive,
        Some(v) => match ident_value(v, "a side")?.0.as_str() {
            "positive" => Sides::Positive,
            "negative" => Sides::Negative,
            "both" => Sides::Both,
            other => {
                return Err(ResolveError::UnknownLaw {
                    name: other.into(),
                    owner: "gap side".into(),
                    at: v.span(),
                    help: suggest(other, ["positive", "negative", "both"], "gap sides are"),
                })
            }
        },
    };
    let law = contact_law(
        opt(opts, "law").ok_or_else(|| {
            missing(
                "law",
                "gap",
                "e.g. `law = linear(1e5)` or `law = impact(e = 0.8)`",
                span,
            )
        })?,
        s,
    )?;
    let smooth = match opt(opts, "smooth") {
        None => None,
        Some(v) => {
            let Value::Expr(Expr {
                kind: ExprKind::Call { name, args },
                span: at,
            }) = v
            else {
                return Err(ResolveError::WrongType {
                    expected: "a smoothing".into(),
                    found: "something else".into(),
                    at: v.span(),
                    help: "write `smooth = sigmoid(1500)` or `smooth = tanh(1500)`".into(),
                });
            };
            let delta = law_args(
                args,
                s,
                &name.name,
                &[("delta", None, Dim([0, -1, 0]))],
                *at,
            )?[0];
            if delta <= 0.0 {
                return Err(non_physical(
                    "the smoothing sharpness δ must be positive",
                    *at,
                    delta,
                    "larger δ is closer to the exact piecewise law (paper 000, eq. 8)",
                ));
            }
            if !matches!(law, ContactLaw::Linear { .. }) {
                return Err(ResolveError::Invalid {
                    what: "smoothing applies to piecewise-linear gaps only".into(),
                    at: *at,
                    help: "use `law = linear(k)` with `smooth`, or drop `smooth`".into(),
                });
            }
            match name.name.as_str() {
                "sigmoid" => Some(Smoothing::Sigmoid { delta }),
                "tanh" => Some(Smoothing::Tanh { delta }),
                other => {
                    return Err(ResolveError::UnknownLaw {
                        name: other.into(),
                        owner: "smoothing".into(),
                        at: name.span,
                        help: suggest(other, ["sigmoid", "tanh"], "smoothings are"),
                    })
                }
            }
        }
    };
    Ok(Gap {
        clearance,
        sides,
        law,
        smooth,
    })
}
