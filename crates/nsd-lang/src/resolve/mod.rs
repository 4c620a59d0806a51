//! AST → `Model`: expands templates (`use`), loops and families, evaluates parameters with
//! `--set` overrides and units, looks up every name, and checks values for physical sense.
//!
//! A pass reports all the errors it can find (one per faulty statement) rather than the
//! first one. The result is flat: every node and element has a unique, human name
//! (`x[3]`, `t1.a`, `spring(m1--m2)`), every value is an SI number.
//!
//! This module is the resolver's core: overrides, parameters, loops, the dispatch of each
//! statement, and the model-wide statements (masses, forces, base motion, gravity, damping).
//! The other builders live beside it: `names.rs` (name lookup, labels, directions),
//! `elements.rs` (springs, dampers, gaps, friction), `laws.rs` (contact laws and gap
//! options), `beams.rs` (beams, imported matrices), `bodies.rs` (rigid bodies, joints) and
//! `components.rs` (`use` of components). Options are read with `lang::options`.

mod beams;
mod bodies;
pub use bodies::{BODY_OPTIONS, JOINT_OPTIONS};
mod components;
mod elements;
mod laws;
mod names;

use super::ast::{self, Expr, NodeRef, Options, Repeat, Stmt};
use super::diagnostics::{suggest, Failure, ResolveError};
use super::eval::{self, Num, Scope};
use super::load::{Program, TemplateKind};
use super::options::{self, check_keys, directions, eval_vector, number, Bound};
use super::units::Dim;
use crate::flat::*;
use crate::span::{FileId, Span};
use names::{indexed_name, support};
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
    let report =
        |e: ResolveError| Failure::one(miette::Report::new(e).with_source_code(value.to_string()));
    let v = eval::eval(&expr, &Scope::default()).map_err(report)?;
    // Refused here, on the value given: the model's default it replaces is not the cause.
    if !v.v.is_finite() {
        return Err(report(ResolveError::NonFinite {
            at: expr.span,
            value: v.v,
        }));
    }
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

/// The overrides an analysis's arguments make (`basins m(Omega = 1.2) { … }`): each named,
/// a parameter the model declares, a constant expression (units allowed).
pub fn analysis_overrides(
    prog: &Program,
    a: &ast::Analysis,
) -> Result<Vec<Override>, ResolveError> {
    let declared = prog
        .template(&a.model.name)
        .map_or_else(Vec::new, |(_, _, t)| declared_params(t));
    let mut out = Vec::with_capacity(a.args.len());
    for (i, arg) in a.args.iter().enumerate() {
        let Some(name) = &arg.name else {
            return Err(ResolveError::UnknownArgument {
                name: format!("#{}", i + 1),
                template: a.model.name.clone(),
                at: arg.value.span,
                help: format!(
                    "name the parameter the analysis sets, e.g. `{}(Omega = 1.2)`",
                    a.model.name
                ),
            });
        };
        if !declared.contains(&name.name.as_str()) {
            return Err(ResolveError::UnknownArgument {
                name: name.name.clone(),
                template: a.model.name.clone(),
                at: name.span,
                help: suggest(
                    &name.name,
                    declared.iter().copied(),
                    "the model's parameters are",
                ),
            });
        }
        out.push(Override {
            name: name.name.clone(),
            value: eval::eval(&arg.value, &Scope::default())?.v,
        });
    }
    Ok(out)
}

/// Names of the parameters a model declares at its top level (header and `param` lines), the
/// ones `--set` and an analysis's arguments may override.
pub fn declared_params(t: &ast::Template) -> Vec<&str> {
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

/// Every builder reports one `ResolveError` per faulty statement.
type R<T> = Result<T, ResolveError>;

/// Names with a fixed meaning (time, π, the two supports): no parameter, loop variable or
/// node may take them.
const RESERVED: [&str; 4] = ["t", "pi", "ground", "base"];

/// The state of one resolution: the model built so far, every name taken, and the errors.
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
    /// Full names of refused masses and bodies: their uses are not reported again.
    rejected: Vec<String>,
}

impl<'p> Resolver<'p> {
    /// An empty model: only the supports `ground` and `base`.
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
            rejected: vec![],
        }
    }

    /// Records an error with the text of the file it points into; resolution goes on.
    fn report(&mut self, file: FileId, e: ResolveError) {
        if !matches!(e, ResolveError::FollowOn) {
            self.errors
                .push(Failure::located(&self.prog.sources, file, e));
        }
    }

    /// Declares parameter `p` in `f` (from the template header when `header`): its
    /// `--set` override at the top level, else its default.
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

    /// Resolves a statement list, reporting each faulty statement and going on.
    fn stmts(&mut self, f: &mut Frame, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(f, s);
        }
    }

    /// One statement with its loop expanded; its error, if any, is reported.
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
            self.reject(f, s);
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

    /// One statement, loops already expanded: dispatches to the builder of its kind.
    fn single(&mut self, f: &mut Frame, s: &Stmt) -> R<()> {
        match s {
            Stmt::Mass {
                name,
                family,
                index,
                value,
                options,
                ..
            } => self.mass(
                f,
                name,
                family.as_ref(),
                index.as_ref(),
                value,
                options.as_ref(),
            ),
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
            } => self.force(f, target, value, *span),
            Stmt::Base { dir, value, span } => self.base(f, dir.as_ref(), value, *span),
            Stmt::Gravity { value, .. } => {
                let g = eval_vector(value, &f.scope, "gravity", Dim::ACCELERATION)?;
                self.gravity = Some(g);
                Ok(())
            }
            Stmt::Damping {
                kind,
                options,
                span,
            } => self.damping(f, kind, options, *span),
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

    /// `mass NAME = value`, `mass NAME[i] = value` or a family `mass NAME[a..b] = value`.
    fn mass(
        &mut self,
        f: &Frame,
        name: &ast::Ident,
        family: Option<&(Expr, Expr)>,
        index: Option<&Expr>,
        value: &Expr,
        options: Option<&Options>,
    ) -> R<()> {
        let m = eval::quantity(value, &f.scope, "a mass", Dim::MASS)?;
        Bound::Positive.check(
            m,
            "a mass",
            value.span,
            "masses are in kg and > 0; a massless point is not a DOF",
        )?;
        check_keys(options, &["dofs"], "mass")?;
        let dirs = match options::value(options, "dofs") {
            Some(v) => directions(v)?,
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
            (None, index) => vec![indexed_name(&name.name, index, &f.scope)?],
        };
        for n in names {
            self.add_node(f, n, NodeKind::Mass, dirs.clone(), vec![], m, name.span)?;
        }
        Ok(())
    }

    /// `force NODE[.dir] = f(t)`.
    fn force(&mut self, f: &Frame, target: &NodeRef, value: &Expr, span: Span) -> R<()> {
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
            span,
        });
        Ok(())
    }

    /// `base [dir] = y(t)`: prescribed motion of the base along one direction (x if unnamed).
    fn base(&mut self, f: &Frame, dir: Option<&ast::Ident>, value: &Expr, span: Span) -> R<()> {
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
                at: span,
                first: Some(prev.span).filter(|s| s.file == span.file),
            });
        }
        let y = eval::time_fn(value, &f.scope)?;
        self.base.push(BaseMotion { dir: d, y, span });
        Ok(())
    }

    /// `damping rayleigh { alpha = …, beta = … }`: C = αM + βK, once per model.
    fn damping(&mut self, f: &Frame, kind: &ast::Ident, options: &Options, span: Span) -> R<()> {
        if kind.name != "rayleigh" {
            return Err(ResolveError::UnknownLaw {
                name: kind.name.clone(),
                owner: "damping kind".into(),
                at: kind.span,
                help: "model damping is `damping rayleigh { alpha = …, beta = … }` (C = αM + βK; β alone is stiffness-proportional)".into(),
            });
        }
        let opts = Some(options);
        check_keys(opts, &["alpha", "beta"], "damping rayleigh")?;
        let alpha = number(opts, "alpha", &f.scope, "alpha", Dim::FREQUENCY)?.unwrap_or(0.0);
        let beta = number(opts, "beta", &f.scope, "beta", Dim::TIME)?.unwrap_or(0.0);
        // The smaller coefficient is negative exactly when either is.
        Bound::NonNegative.check(
            alpha.min(beta),
            "Rayleigh coefficients",
            options.span,
            "negative damping feeds energy into the model",
        )?;
        if let Some((_, first)) = self.damping {
            return Err(ResolveError::Duplicate {
                name: "damping".into(),
                at: span,
                first: Some(first).filter(|s| s.file == span.file),
            });
        }
        self.damping = Some((Rayleigh { alpha, beta }, span));
        Ok(())
    }
}

/// Loops and families beyond this many iterations are refused (a typo such as `1..1e9`
/// would otherwise exhaust memory instead of failing).
const MAX_RANGE: i64 = 20_000_000;

/// Refuses a loop or family of more than `MAX_RANGE` values.
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
