//! Distributed and imported structure: a `beam` becomes a chain of beam nodes joined by
//! Euler–Bernoulli segments (with bar action when `axial = true`), its end conditions
//! fixing directions of the first and last node; `matrices` imports M, K (and C) from
//! MatrixMarket files as one substructure node.

use super::{Frame, Resolver, R};
use crate::ast::{self, Expr, ExprKind, Options, Value};
use crate::diagnostics::ResolveError;
use crate::eval::{self, Scope};
use crate::flat::{BeamSegment, Dir, Element, ElementKind, Endpoint, NodeKind, Substructure};
use crate::mtx;
use crate::options::{
    self, boolean, check_keys, identifier, missing, non_physical, required, section, snippet,
    value_span, Bound,
};
use crate::span::Span;
use crate::units::Dim;

/// What a `beam` statement fixes: material, geometry, mesh, end conditions and the plane
/// it bends in. Values in SI units.
struct BeamSpec {
    /// Young's modulus, Pa.
    e: f64,
    /// Density, kg/m³.
    rho: f64,
    length: f64,
    area: f64,
    /// Second moment of area about the bending axis, m⁴.
    inertia: f64,
    /// Number of elements (≥ 1).
    elements: i64,
    /// End conditions of the first and last node: `clamped`, `pinned` or `free`.
    ends: (String, String),
    /// The transverse direction and the rotation it bends with (`y`/`rz` or `z`/`ry`).
    transverse: Dir,
    rotation: Dir,
    /// Whether the beam also carries axial (bar) motion along x.
    axial: bool,
}

impl Resolver<'_> {
    /// `beam NAME { … }`: nodes `NAME[0]` … `NAME[n]` and segments `NAME.seg[1]` … `NAME.seg[n]`.
    pub(super) fn beam(&mut self, f: &Frame, name: &ast::Ident, o: &Options, span: Span) -> R<()> {
        let b = beam_spec(o, &f.scope, span)?;
        let (transverse, rotation) = (b.transverse, b.rotation);
        let mut dirs = vec![transverse, rotation];
        if b.axial {
            dirs.insert(0, Dir::X);
        }
        let fixed_for = |end: &str| -> Vec<Dir> {
            match end {
                "clamped" => dirs.clone(),
                "pinned" => dirs.iter().copied().filter(|d| *d != rotation).collect(),
                _ => vec![],
            }
        };
        let ne = b.elements;
        let le = b.length / ne as f64;
        let mut prev = None;
        for i in 0..=ne {
            let fixed = if i == 0 {
                fixed_for(&b.ends.0)
            } else if i == ne {
                fixed_for(&b.ends.1)
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
                    ei: b.e * b.inertia,
                    rho_a: b.rho * b.area,
                    ea: b.axial.then_some(b.e * b.area),
                    length: le,
                    transverse,
                    rotation,
                    axial: b.axial.then_some(Dir::X),
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

    /// `matrices NAME { M = "m.mtx", K = "k.mtx", C = "c.mtx" }`: one substructure node with
    /// as many DOFs as the matrices have rows.
    pub(super) fn matrices(
        &mut self,
        f: &Frame,
        name: &ast::Ident,
        o: &Options,
        span: Span,
    ) -> R<()> {
        check_keys(Some(o), &["M", "K", "C"], "matrices")?;
        let read = |key: &str| -> R<Option<(usize, mtx::Triplets)>> {
            let Some(v) = options::value(Some(o), key) else {
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
            mtx::parse(&text)
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
}

/// Reads and checks a `beam` options block (`span` is the statement's).
fn beam_spec(o: &Options, s: &Scope, span: Span) -> R<BeamSpec> {
    let keys = [
        "E", "rho", "area", "I", "section", "length", "elements", "ends", "plane", "axial",
    ];
    check_keys(Some(o), &keys, "beam")?;
    let o = Some(o);
    let hint = "a beam needs E, rho, length, elements and a section (area and I, or `section = rect(b, h)`)";
    let need = |k: &str, what: &str, d: Dim| -> R<f64> {
        let v = required(o, k, s, what, d, || missing(k, "beam", hint, span))?;
        Bound::Positive.check(
            v,
            format_args!("beam `{k}`"),
            value_span(o, k, span),
            "geometry and material constants are > 0",
        )
    };
    let e = need("E", "Young's modulus", Dim::PRESSURE)?;
    let rho = need("rho", "a density", Dim::DENSITY)?;
    let length = need("length", "a length", Dim::LENGTH)?;
    let (area, inertia) = match options::value(o, "section") {
        Some(v) => section(v, s)?,
        None => (
            need("area", "an area", Dim::AREA)?,
            need("I", "a second moment of area", Dim::SECOND_MOMENT)?,
        ),
    };
    let elements = match options::expression(o, "elements") {
        Ok(Some(x)) => eval::integer(x, s)?,
        Err(v) => {
            return Err(ResolveError::WrongType {
                expected: "a number".into(),
                found: "a range or block".into(),
                at: v.span(),
                help: "`elements = 20`".into(),
            })
        }
        Ok(None) => {
            return Err(missing(
                "elements",
                "beam",
                "the number of beam elements, e.g. `elements = 20`",
                span,
            ))
        }
    };
    if elements < 1 {
        return Err(non_physical(
            "a beam needs at least one element",
            value_span(o, "elements", span),
            elements as f64,
            "elements ≥ 1",
        ));
    }
    let ends = beam_ends(options::value(o, "ends"))?;
    let (transverse, rotation) = match options::value(o, "plane") {
        None => (Dir::Y, Dir::Rz),
        Some(v) => match identifier(v, "a bending plane")? {
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
    let axial = match options::value(o, "axial") {
        None => false,
        Some(v) => boolean(v)?,
    };
    Ok(BeamSpec {
        e,
        rho,
        length,
        area,
        inertia,
        elements,
        ends,
        transverse,
        rotation,
        axial,
    })
}

/// `ends = (first, last)`, each `clamped`, `pinned` or `free`; clamped–free when absent.
fn beam_ends(v: Option<&Value>) -> R<(String, String)> {
    match v {
        None => Ok(("clamped".to_string(), "free".to_string())),
        Some(Value::Expr(Expr {
            kind: ExprKind::Tuple(items),
            ..
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
            Ok((read(&items[0])?, read(&items[1])?))
        }
        Some(v) => Err(ResolveError::WrongType {
            expected: "two end conditions".into(),
            found: "something else".into(),
            at: v.span(),
            help: "write `ends = (clamped, free)`".into(),
        }),
    }
}
