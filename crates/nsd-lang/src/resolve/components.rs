//! Components: `use TEMPLATE as INSTANCE(args)` checks the template is a component, binds
//! its parameters (a node argument becomes an alias for the caller's node, anything else a
//! number), and resolves its body under the instance prefix (`INSTANCE.x`).

use super::names::indexed_name;
use super::{Frame, Resolver, R};
use crate::ast::{self, Arg, Expr, ExprKind};
use crate::diagnostics::{suggest, ResolveError};
use crate::eval::{self, Scope};
use crate::load::TemplateKind;
use rustc_hash::FxHashMap as HashMap;

/// Deepest nesting of components inside components; deeper means a component instantiates
/// itself, directly or through others.
const MAX_DEPTH: usize = 32;

impl Resolver<'_> {
    /// `use TEMPLATE as INSTANCE(args)`: resolves the component's statements under the
    /// prefix `INSTANCE.`, its parameters bound to the arguments.
    pub(super) fn use_component(
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
        if f.depth > MAX_DEPTH {
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
        self.bind_arguments(f, &mut inner, template, t, args)?;
        self.stmts(&mut inner, &t.body);
        Ok(())
    }

    /// Binds the arguments of `use template as …(args)` in the component's frame `inner`:
    /// node references become aliases, everything else a number; absent ones take their
    /// defaults.
    fn bind_arguments(
        &self,
        f: &Frame,
        inner: &mut Frame,
        template: &ast::Ident,
        t: &ast::Template,
        args: &[Arg],
    ) -> R<()> {
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
        let local = indexed_name(&name.name, index.as_deref(), &f.scope)?;
        let full = match index.is_none().then(|| f.aliases.get(&local)).flatten() {
            Some(a) => a.clone(),
            None if local == "ground" || local == "base" => local,
            None => format!("{}{local}", f.prefix),
        };
        Ok(self.node_ids.contains_key(&full).then_some(full))
    }
}
