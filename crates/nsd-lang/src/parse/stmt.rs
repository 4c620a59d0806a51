//! Statement pairs → `Stmt`: one builder per statement family (masses, two-node elements,
//! forces, base motion, named blocks, joints, `use`, `for` blocks) and the parts they share
//! (labels, trailing options and `for` clauses).

use super::{not_token, Builder, Built, Rule};
use crate::ast::*;
use crate::span::Span;
use pest::iterators::Pair;
use std::iter::Peekable;

impl Builder {
    /// One statement of a template body.
    pub(super) fn stmt(&self, p: Pair<Rule>) -> Built<Stmt> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut inner = p.into_inner().filter(not_token).peekable();
        Ok(match rule {
            Rule::param_stmt => {
                Stmt::Param(inner.map(|d| self.param_decl(d)).collect::<Built<_>>()?)
            }
            Rule::mass_stmt => self.mass_stmt(inner, span)?,
            Rule::element_stmt => self.element_stmt(inner, span)?,
            Rule::force_stmt => {
                let target = self.node_ref(inner.next().expect("grammar: force target"))?;
                let value = self.expr(inner.next().expect("grammar: force value"))?;
                let repeat = inner.next().map(|r| self.repeat(r)).transpose()?;
                Stmt::Force {
                    target,
                    value,
                    repeat,
                    span,
                }
            }
            Rule::base_stmt => self.base_stmt(inner, span)?,
            Rule::gravity_stmt => Stmt::Gravity {
                value: self.expr(inner.next().expect("grammar: gravity"))?,
                span,
            },
            Rule::damping_stmt | Rule::beam_stmt | Rule::matrices_stmt | Rule::body_stmt => {
                self.named_block_stmt(rule, inner, span)?
            }
            Rule::joint_stmt => {
                let label = self.maybe_label(&mut inner)?;
                let kind = self.ident(inner.next().expect("grammar: joint kind"));
                let a = self.node_ref(inner.next().expect("grammar: endpoint a"))?;
                let b = self.node_ref(inner.next().expect("grammar: endpoint b"))?;
                let (options, _) = self.tail(inner)?;
                Stmt::Joint {
                    label,
                    kind,
                    a,
                    b,
                    options,
                    span,
                }
            }
            Rule::use_stmt => self.use_stmt(inner, span)?,
            Rule::for_block => {
                let repeat = self.loop_head(&mut inner)?;
                let body = inner.map(|s| self.stmt(s)).collect::<Built<_>>()?;
                Stmt::For { repeat, body, span }
            }
            r => unreachable!("grammar: unexpected statement {r:?}"),
        })
    }

    /// `mass NAME[family | index] = value { options } for …`.
    fn mass_stmt<'i>(
        &self,
        mut inner: impl Iterator<Item = Pair<'i, Rule>>,
        span: Span,
    ) -> Built<Stmt> {
        let name = self.ident(inner.next().expect("grammar: mass name"));
        let mut family = None;
        let mut index = None;
        let mut value = None;
        let mut options = None;
        let mut repeat = None;
        for q in inner {
            match q.as_rule() {
                Rule::family => {
                    let mut r = q.into_inner().filter(not_token);
                    let a = self.expr(r.next().expect("grammar: family start"))?;
                    let b = self.expr(r.next().expect("grammar: family end"))?;
                    family = Some((a, b));
                }
                Rule::index => index = Some(self.index(q)?),
                Rule::expr => value = Some(self.expr(q)?),
                Rule::options => options = Some(self.options(q)?),
                Rule::for_clause => repeat = Some(self.repeat(q)?),
                r => unreachable!("grammar: mass part {r:?}"),
            }
        }
        let value = value.expect("grammar: mass has a value");
        Ok(Stmt::Mass {
            name,
            family,
            index,
            value,
            options,
            repeat,
            span,
        })
    }

    /// `spring | damper | gap | friction [label:] a -- b { options } for …`.
    fn element_stmt<'i>(
        &self,
        mut inner: Peekable<impl Iterator<Item = Pair<'i, Rule>>>,
        span: Span,
    ) -> Built<Stmt> {
        let kind_pair = inner.next().expect("grammar: element kind");
        let kind = match kind_pair.into_inner().find(not_token).map(|k| k.as_rule()) {
            Some(Rule::kw_spring) => ElementKind::Spring,
            Some(Rule::kw_damper) => ElementKind::Damper,
            Some(Rule::kw_gap) => ElementKind::Gap,
            _ => ElementKind::Friction,
        };
        let label = self.maybe_label(&mut inner)?;
        let a = self.node_ref(inner.next().expect("grammar: endpoint a"))?;
        let b = self.node_ref(inner.next().expect("grammar: endpoint b"))?;
        let (options, repeat) = self.tail(inner)?;
        Ok(Stmt::Element {
            kind,
            label,
            a,
            b,
            options,
            repeat,
            span,
        })
    }

    /// `base = value` or `base DIR = value`.
    fn base_stmt<'i>(
        &self,
        mut inner: impl Iterator<Item = Pair<'i, Rule>>,
        span: Span,
    ) -> Built<Stmt> {
        let first = inner.next().expect("grammar: base value");
        Ok(if first.as_rule() == Rule::direction {
            let dir = Some(self.ident(first));
            let value = self.expr(inner.next().expect("grammar: base value"))?;
            Stmt::Base { dir, value, span }
        } else {
            Stmt::Base {
                dir: None,
                value: self.expr(first)?,
                span,
            }
        })
    }

    /// The statements made of a keyword, a name and an options block: `damping`, `beam`,
    /// `matrices` and `body`.
    fn named_block_stmt<'i>(
        &self,
        rule: Rule,
        mut inner: impl Iterator<Item = Pair<'i, Rule>>,
        span: Span,
    ) -> Built<Stmt> {
        let name = self.ident(inner.next().expect("grammar: name"));
        let options = self.options(inner.next().expect("grammar: options"))?;
        Ok(match rule {
            Rule::damping_stmt => Stmt::Damping {
                kind: name,
                options,
                span,
            },
            Rule::beam_stmt => Stmt::Beam {
                name,
                options,
                span,
            },
            Rule::matrices_stmt => Stmt::Matrices {
                name,
                options,
                span,
            },
            _ => Stmt::Body {
                name,
                options,
                span,
            },
        })
    }

    /// `use TEMPLATE as INSTANCE(args) for …`.
    fn use_stmt<'i>(
        &self,
        mut inner: impl Iterator<Item = Pair<'i, Rule>>,
        span: Span,
    ) -> Built<Stmt> {
        let template = self.ident(inner.next().expect("grammar: use template"));
        let instance = self.ident(inner.next().expect("grammar: use instance"));
        let mut args = Vec::new();
        let mut repeat = None;
        for q in inner {
            match q.as_rule() {
                Rule::args => args = self.args(q)?,
                _ => repeat = Some(self.repeat(q)?),
            }
        }
        Ok(Stmt::Use {
            template,
            instance,
            args,
            repeat,
            span,
        })
    }

    /// The `label:` before an element's endpoints, if the next pair is one.
    fn maybe_label<'i>(
        &self,
        inner: &mut Peekable<impl Iterator<Item = Pair<'i, Rule>>>,
    ) -> Built<Option<Label>> {
        if inner.peek().map(|q| q.as_rule()) != Some(Rule::label) {
            return Ok(None);
        }
        let mut l = inner.next().expect("peeked").into_inner().filter(not_token);
        let name = self.ident(l.next().expect("grammar: label name"));
        let index = l.next().map(|i| self.index(i)).transpose()?;
        Ok(Some(Label { name, index }))
    }

    /// The optional options block and `for` clause that end a statement.
    fn tail<'i>(
        &self,
        inner: impl Iterator<Item = Pair<'i, Rule>>,
    ) -> Built<(Option<Options>, Option<Repeat>)> {
        let mut options = None;
        let mut repeat = None;
        for q in inner {
            match q.as_rule() {
                Rule::options => options = Some(self.options(q)?),
                _ => repeat = Some(self.repeat(q)?),
            }
        }
        Ok((options, repeat))
    }

    /// A trailing `for VAR in FROM..TO` clause.
    fn repeat(&self, p: Pair<Rule>) -> Built<Repeat> {
        self.loop_head(&mut p.into_inner().filter(not_token))
    }

    /// `VAR`, `FROM` and `TO` of a `for` clause or block, taken from the front of `inner`.
    fn loop_head<'i>(&self, inner: &mut impl Iterator<Item = Pair<'i, Rule>>) -> Built<Repeat> {
        let var = self.ident(inner.next().expect("grammar: for var"));
        let from = self.expr(inner.next().expect("grammar: for from"))?;
        let to = self.expr(inner.next().expect("grammar: for to"))?;
        Ok(Repeat { var, from, to })
    }
}
