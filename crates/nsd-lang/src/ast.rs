//! The typed syntax tree of a `.nsd` file. Every node keeps the `Span` it was parsed from.
//!
//! The tree is purely syntactic: names are not looked up and expressions are not evaluated
//! here (that is `resolve`'s job), so one parsed file serves any `--set` override.

use crate::span::Span;

/// A name as written, with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// One parsed file.
#[derive(Debug, Clone, Default)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone)]
pub enum Item {
    Import { path: String, span: Span },
    Model(Template),
    Component(Template),
    Analysis(Analysis),
    Expect(Expect),
}

/// A model or a component: a named, parameterised list of statements.
#[derive(Debug, Clone)]
pub struct Template {
    pub name: Ident,
    pub params: Vec<ParamDecl>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct ParamDecl {
    pub name: Ident,
    pub default: Option<Expr>,
}

/// `for i in from..to` (inclusive), as a block or a trailing clause.
#[derive(Debug, Clone)]
pub struct Repeat {
    pub(crate) var: Ident,
    pub(crate) from: Expr,
    pub(crate) to: Expr,
}

/// The element kinds with two endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementKind {
    Spring,
    Damper,
    Gap,
    Friction,
}

impl ElementKind {
    pub(crate) fn keyword(self) -> &'static str {
        match self {
            ElementKind::Spring => "spring",
            ElementKind::Damper => "damper",
            ElementKind::Gap => "gap",
            ElementKind::Friction => "friction",
        }
    }
}

/// An element label, `stop` or `s[i]`.
#[derive(Debug, Clone)]
pub struct Label {
    pub name: Ident,
    pub(crate) index: Option<Expr>,
}

/// A node (or one DOF of it): `m1`, `x[i-1]`, `p.y`, `c.x[3]`, `ground`. Whether the last
/// segment is a direction is decided at resolve time, when the node names are known.
#[derive(Debug, Clone)]
pub struct NodeRef {
    pub segments: Vec<Segment>,
    pub span: Span,
}

/// One dotted part of a node path, `x[3]` or `y`.
#[derive(Debug, Clone)]
pub struct Segment {
    pub name: Ident,
    pub index: Option<Expr>,
}

impl NodeRef {
    /// The name when the reference is one plain identifier (option keys, parameters).
    pub(crate) fn simple(&self) -> Option<&Ident> {
        match &self.segments[..] {
            [Segment { name, index: None }] => Some(name),
            _ => None,
        }
    }

    /// The first segment's name (for messages).
    pub(crate) fn head(&self) -> &Ident {
        &self.segments[0].name
    }
}

#[derive(Debug, Clone)]
pub enum Stmt {
    Param(Vec<ParamDecl>),
    Mass {
        name: Ident,
        family: Option<(Expr, Expr)>,
        index: Option<Expr>,
        value: Expr,
        options: Option<Options>,
        repeat: Option<Repeat>,
        span: Span,
    },
    Element {
        kind: ElementKind,
        label: Option<Label>,
        a: NodeRef,
        b: NodeRef,
        options: Option<Options>,
        repeat: Option<Repeat>,
        span: Span,
    },
    Force {
        target: NodeRef,
        value: Expr,
        repeat: Option<Repeat>,
        span: Span,
    },
    Base {
        dir: Option<Ident>,
        value: Expr,
        span: Span,
    },
    Gravity {
        value: Expr,
        span: Span,
    },
    Damping {
        kind: Ident,
        options: Options,
        span: Span,
    },
    Beam {
        name: Ident,
        options: Options,
        span: Span,
    },
    Matrices {
        name: Ident,
        options: Options,
        span: Span,
    },
    Body {
        name: Ident,
        options: Options,
        span: Span,
    },
    Joint {
        label: Option<Label>,
        kind: Ident,
        a: NodeRef,
        b: NodeRef,
        options: Option<Options>,
        span: Span,
    },
    Use {
        template: Ident,
        instance: Ident,
        args: Vec<Arg>,
        repeat: Option<Repeat>,
        span: Span,
    },
    For {
        repeat: Repeat,
        body: Vec<Stmt>,
        span: Span,
    },
}

/// `{ key = value, ... }`.
#[derive(Debug, Clone)]
pub struct Options {
    pub entries: Vec<OptionEntry>,
    pub(crate) span: Span,
}

#[derive(Debug, Clone)]
pub struct OptionEntry {
    pub key: NodeRef,
    pub value: Value,
}

#[derive(Debug, Clone)]
pub enum Value {
    Expr(Expr),
    Range(Range),
    Sweep {
        param: Ident,
        range: Range,
        span: Span,
    },
    Block(Options),
}

impl Value {
    pub fn span(&self) -> Span {
        match self {
            Value::Expr(e) => e.span,
            Value::Range(r) => r.span,
            Value::Sweep { span, .. } => *span,
            Value::Block(o) => o.span,
        }
    }
}

/// `from..to` with an optional `by step`.
#[derive(Debug, Clone)]
pub struct Range {
    pub from: Expr,
    pub to: Expr,
    pub step: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    /// A literal, with its unit as written (empty when none).
    Number {
        value: f64,
        unit: Option<Unit>,
    },
    Var {
        name: Ident,
        index: Option<Box<Expr>>,
    },
    Call {
        name: Ident,
        args: Vec<Arg>,
    },
    Tuple(Vec<Expr>),
    Str(String),
    Neg(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

/// A unit as written: symbols with integer powers, `N/m` = [(N, 1), (m, -1)].
#[derive(Debug, Clone)]
pub struct Unit {
    pub(crate) factors: Vec<(String, i32)>,
    pub(crate) span: Span,
}

/// A call argument, positional or `name = value`.
#[derive(Debug, Clone)]
pub struct Arg {
    pub(crate) name: Option<Ident>,
    pub value: Expr,
}

/// The analysis statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnalysisKind {
    Modes,
    Simulate,
    SweepRegimes,
    SweepBifurcation,
    Basins,
    ContinueFrf,
    ContinuePeriodic,
    ContinueBackbone,
    NsModes,
}

impl AnalysisKind {
    pub const ALL: [AnalysisKind; 9] = [
        AnalysisKind::Modes,
        AnalysisKind::Simulate,
        AnalysisKind::SweepRegimes,
        AnalysisKind::SweepBifurcation,
        AnalysisKind::Basins,
        AnalysisKind::ContinueFrf,
        AnalysisKind::ContinuePeriodic,
        AnalysisKind::ContinueBackbone,
        AnalysisKind::NsModes,
    ];

    /// The statement as written, e.g. `continue frf`.
    pub fn keyword(self) -> &'static str {
        match self {
            AnalysisKind::Modes => "modes",
            AnalysisKind::Simulate => "simulate",
            AnalysisKind::SweepRegimes => "sweep regimes",
            AnalysisKind::SweepBifurcation => "sweep bifurcation",
            AnalysisKind::Basins => "basins",
            AnalysisKind::ContinueFrf => "continue frf",
            AnalysisKind::ContinuePeriodic => "continue periodic",
            AnalysisKind::ContinueBackbone => "continue backbone",
            AnalysisKind::NsModes => "nsmodes",
        }
    }

    /// The default result-folder name, e.g. `continue_frf`.
    pub fn slug(self) -> String {
        self.keyword().replace(' ', "_")
    }
}

#[derive(Debug, Clone)]
pub struct Analysis {
    pub kind: AnalysisKind,
    pub model: Ident,
    /// `MODEL(Omega = 1.2)`: the model's parameters set for this analysis (named only).
    pub(crate) args: Vec<Arg>,
    pub name: Option<Ident>,
    pub options: Option<Options>,
    pub span: Span,
}

/// `expect NAME.key[i] = value ± tolerance`: a summary value an analysis must report.
#[derive(Debug, Clone)]
pub struct Expect {
    /// The analysis (its `as` name or its slug).
    pub analysis: Ident,
    /// Keys and indices into its summary, at least one.
    pub path: Vec<PathStep>,
    /// `len(PATH)`: the expected value is the number of entries the path ends at.
    pub len: bool,
    pub value: ExpectValue,
    /// The expected value as written.
    pub value_span: Span,
    pub tolerance: Option<Tolerance>,
    pub span: Span,
}

/// One step into a summary: `.key`, `["key"]` or `[n]` (from 1, or from the end when
/// negative, as written; `0` and out-of-range indices are reported when checked).
#[derive(Debug, Clone)]
pub enum PathStep {
    /// `.key`, or `["key"]` with `quoted` for a key that is not a name (`"v(m1.x)"`).
    Key {
        key: Ident,
        quoted: bool,
    },
    Index {
        n: i64,
        span: Span,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExpectValue {
    Number(f64),
    Bool(bool),
    Text(String),
}

/// `± amount`, or `± amount%` of the expected value.
#[derive(Debug, Clone)]
pub struct Tolerance {
    pub amount: f64,
    pub relative: bool,
    pub span: Span,
}
