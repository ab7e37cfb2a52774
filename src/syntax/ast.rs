//! The abstract syntax tree of a flattened Modelica file.
//!
//! Owns: the node types produced by `parser` and consumed by `printer` and by the
//! `mdae` lowering. Invariants: every node carries the byte [`Span`] of its text;
//! identifiers and literals keep their spelling (dotted `a.b.c`, quoted `'a.b'`,
//! `$i1`, `1e-06`), so the canonical printer reproduces them exactly. Parentheses
//! are not nodes: the printer re-inserts them from operator precedence.
//! A name without subscripts is an [`ExprKind::Name`]; a reference with subscripts
//! is an [`ExprKind::Ref`] (the parser always picks the smaller form).
//!
//! Memory (the front end's target: peak < 10× the input; `benches/parse.rs`): a flat
//! model is ~10^5 small nodes, so the layout follows what such models write. Lists of
//! usually one item are [`SmallList`]s (a clause's declarations, a call's positional
//! arguments, a reference's parts); other lists are exact-length `Box<[T]>`; what is
//! rare there is boxed ([`Element::Extends`], [`Element::Import`],
//! [`TypeSpec::Enumeration`], [`ModArgRest`], [`DeclarationParts`], an equation's
//! label, description and a span that is not its sides'); the common component clause
//! is 32 bytes (`syntax::component`); text is interned ([`Text`], 8 bytes).
//! Node sizes are pinned by a test in `tests/parser.rs`.

pub use super::small_list::{SmallList, ThinList};
use super::span::Span;

/// Identifier, literal and string text, interned process-wide: an 8-byte handle
/// that derefs to `&str`; equal texts have equal handles (see `syntax::intern`).
pub use super::intern::{Text, text};

/// An identifier or a dotted name exactly as written: `x`, `$i1`, `'a.b'`,
/// `Modelica.Math.sin`, `.Modelica.Blocks`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub text: Text,
    pub span: Span,
}

/// A whole file: optional Base Modelica header, optional `within`, classes in order.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredDefinition {
    /// The text after `//!` of a Base Modelica header line, e.g. `base 0.1.0`.
    pub base_header: Option<Text>,
    pub within: Option<Within>,
    pub classes: Vec<ClassDef>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Within {
    pub name: Option<Ident>,
    pub span: Span,
}

/// Element and class prefixes, kept in the order written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefix {
    Redeclare,
    Final,
    Inner,
    Outer,
    Replaceable,
    Encapsulated,
    Partial,
    Flow,
    Stream,
    Discrete,
    Parameter,
    Constant,
    Input,
    Output,
}

impl Prefix {
    pub fn keyword(self) -> &'static str {
        match self {
            Prefix::Redeclare => "redeclare",
            Prefix::Final => "final",
            Prefix::Inner => "inner",
            Prefix::Outer => "outer",
            Prefix::Replaceable => "replaceable",
            Prefix::Encapsulated => "encapsulated",
            Prefix::Partial => "partial",
            Prefix::Flow => "flow",
            Prefix::Stream => "stream",
            Prefix::Discrete => "discrete",
            Prefix::Parameter => "parameter",
            Prefix::Constant => "constant",
            Prefix::Input => "input",
            Prefix::Output => "output",
        }
    }
}

/// Prefixes in the order written, stored inline (at most [`Prefixes::CAPACITY`];
/// Modelica allows eight at most: redeclare final inner outer replaceable, flow or
/// stream, a variability and a causality).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Prefixes {
    items: [Prefix; Prefixes::CAPACITY],
    len: u8,
}

impl Prefixes {
    pub const CAPACITY: usize = 8;

    pub fn new() -> Prefixes {
        Prefixes { items: [Prefix::Final; Prefixes::CAPACITY], len: 0 }
    }

    /// Appends `p`; false when full.
    pub fn push(&mut self, p: Prefix) -> bool {
        if (self.len as usize) < Prefixes::CAPACITY {
            self.items[self.len as usize] = p;
            self.len += 1;
            true
        } else {
            false
        }
    }
}

impl Default for Prefixes {
    fn default() -> Self {
        Prefixes::new()
    }
}

impl std::ops::Deref for Prefixes {
    type Target = [Prefix];
    fn deref(&self) -> &[Prefix] {
        &self.items[..self.len as usize]
    }
}

impl std::fmt::Debug for Prefixes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    Class,
    Model,
    Block,
    Connector,
    ExpandableConnector,
    Record,
    OperatorRecord,
    Type,
    Package,
    Function,
    ImpureFunction,
    PureFunction,
    OperatorFunction,
    Operator,
}

impl ClassKind {
    pub fn keyword(self) -> &'static str {
        match self {
            ClassKind::Class => "class",
            ClassKind::Model => "model",
            ClassKind::Block => "block",
            ClassKind::Connector => "connector",
            ClassKind::ExpandableConnector => "expandable connector",
            ClassKind::Record => "record",
            ClassKind::OperatorRecord => "operator record",
            ClassKind::Type => "type",
            ClassKind::Package => "package",
            ClassKind::Function => "function",
            ClassKind::ImpureFunction => "impure function",
            ClassKind::PureFunction => "pure function",
            ClassKind::OperatorFunction => "operator function",
            ClassKind::Operator => "operator",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    pub prefixes: Prefixes,
    pub kind: ClassKind,
    pub name: Ident,
    pub body: ClassBody,
    pub span: Span,
}

impl ClassDef {
    /// The elements of this class's element sections, in source order (none for a short,
    /// enumeration or `der` class).
    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        let parts = match &self.body {
            ClassBody::Long(comp) => comp.parts.as_slice(),
            _ => &[],
        };
        parts.iter().flat_map(|part| match part {
            ClassPart::Elements { elements, .. } => elements.as_slice(),
            _ => &[],
        })
    }

    /// The classes declared directly in this class's element sections, in source order.
    pub fn nested_classes(&self) -> impl Iterator<Item = &ClassDef> {
        self.elements().filter_map(|e| match e {
            Element::Class(c) => Some(&**c),
            _ => None,
        })
    }

    /// The component clauses of this class's element sections, in source order.
    pub fn components(&self) -> impl Iterator<Item = &Component> {
        self.elements().filter_map(|e| match e {
            Element::Component(c) => Some(c),
            _ => None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ClassBody {
    /// `class A "d" … end A;`
    Long(Box<Composition>),
    /// `type T = input Real[3](unit = "m") "d";`
    Short { prefixes: Prefixes, base: Ident, dims: Box<[Subscript]>, modification: Option<ClassMod>, comment: Comment },
    /// `type E = enumeration(a "d", b) "d";` (`literals` empty and `colon` set for `enumeration(:)`)
    Enumeration { literals: Vec<EnumLiteral>, colon: bool, comment: Comment },
    /// `function df = der(f, x, y) "d";`
    Der { function: Ident, vars: Vec<Ident>, comment: Comment },
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumLiteral {
    pub name: Ident,
    pub comment: Comment,
}

/// The body of a long class definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Composition {
    pub description: Box<[StringLit]>,
    pub parts: Vec<ClassPart>,
    pub external: Option<External>,
    /// The class annotation at the end of the composition.
    pub annotation: Option<ClassMod>,
    pub end_name: Ident,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// The leading element list, before any `public`/`protected` keyword.
    Implicit,
    Public,
    Protected,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ClassPart {
    Elements {
        visibility: Visibility,
        elements: Vec<Element>,
        span: Span,
    },
    Equations {
        initial: bool,
        equations: Vec<Equation>,
        span: Span,
    },
    Algorithm {
        initial: bool,
        statements: Vec<Statement>,
        span: Span,
    },
    /// omc's flat dump of a state machine (`stateMachine s … end s;`; not Modelica).
    StateMachine(Box<StateMachine>),
}

/// omc's flat state machine: its states, then the transition equations.
/// ```text
/// stateMachine state1
///   state state1
///       output Integer state1.i;
///     equation
///       state1.i = 2 + previous(i);
///   end state1;
///   equation
///     initialState(state1);
/// end state1;
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct StateMachine {
    pub name: Ident,
    pub states: Vec<State>,
    pub equations: Vec<Equation>,
    pub span: Span,
}

/// One state of a [`StateMachine`]: its declarations and equations.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub name: Ident,
    pub elements: Vec<Element>,
    pub equations: Vec<Equation>,
    pub span: Span,
}

/// `external "C" y = f(x) annotation(…);`
#[derive(Clone, Debug, PartialEq)]
pub struct External {
    pub language: Option<StringLit>,
    pub call: Option<ExternalCall>,
    pub annotation: Option<ClassMod>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExternalCall {
    pub output: Option<Expr>,
    pub function: Ident,
    pub args: Vec<Expr>,
}

/// One element of a class (32 bytes: a [`Component`], whose predefined type leaves a
/// niche for the other variants).
#[derive(Clone, Debug, PartialEq)]
pub enum Element {
    Component(Component),
    Class(Box<ClassDef>),
    /// (rare in flat models: boxed, like `Import`, so that [`Element`] is the size of
    /// a [`Component`])
    Extends(Box<Extends>),
    Import(Box<Import>),
    /// A class annotation written among the elements: `annotation(…);`
    Annotation(ClassMod),
}

/// `extends Name(mods) annotation(…);`
#[derive(Clone, Debug, PartialEq)]
pub struct Extends {
    pub name: Ident,
    pub modification: Option<ClassMod>,
    pub annotation: Option<ClassMod>,
    pub span: Span,
}

/// `import A.B;`, `import X = A.B;`, `import A.B.*;`, `import A.B.{c, d};`
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    pub alias: Option<Ident>,
    pub name: Ident,
    pub wildcard: bool,
    pub list: Vec<Ident>,
    pub comment: Comment,
    pub span: Span,
}

pub use super::component::{Clause, Component, Declaration, DeclarationParts, TypeParts};

#[derive(Clone, Debug, PartialEq)]
pub enum TypeSpec {
    /// A type name; also omc's type of a functional input (not Modelica), kept as one
    /// name in canonical spelling: `f<function>(#Real u) => #Real` (a name that resolves
    /// to no class: such an input is not a real variable).
    Name(Ident),
    /// An inline enumeration type: `input enumeration(A, B) e` (rare: boxed).
    Enumeration(Box<InlineEnumeration>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct InlineEnumeration {
    pub literals: Vec<EnumLiteral>,
    pub colon: bool,
    pub span: Span,
}

/// `(class modification) = value` or `:= value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Modification {
    pub class_mod: Option<ClassMod>,
    pub value: Option<ModValue>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModValue {
    /// `:=` rather than `=`.
    pub assign: bool,
    pub expr: Expr,
}

/// `(each start = 0, final fixed = true, a(b = 1))`
#[derive(Clone, Debug, PartialEq)]
pub struct ClassMod {
    pub args: Box<[ModArg]>,
    pub span: Span,
}

/// One argument of a class modification: `[each] [final] name [(…)] [= value] ["d"]`.
/// Flat models write `start = 0.1`: the name and the value are stored inline, the rest
/// of the grammar (rare there) is boxed in `rest`, which is `None` when all of it is
/// absent (so the argument is 56 bytes, not 112).
#[derive(Clone, Debug, PartialEq)]
pub struct ModArg {
    pub name: Ident,
    /// `= value`, or `:= value` if [`ModArgRest::assign`].
    pub value: Option<Expr>,
    pub rest: Option<Box<ModArgRest>>,
    pub span: Span,
}

/// The rarely written parts of a [`ModArg`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModArgRest {
    pub each: bool,
    pub is_final: bool,
    /// `:=` rather than `=` before the value.
    pub assign: bool,
    /// A nested class modification: `a(b = 1)`.
    pub class_mod: Option<ClassMod>,
    pub description: Box<[StringLit]>,
}

impl ModArg {
    pub fn each(&self) -> bool {
        self.rest.as_ref().is_some_and(|r| r.each)
    }
    pub fn is_final(&self) -> bool {
        self.rest.as_ref().is_some_and(|r| r.is_final)
    }
    pub fn assign(&self) -> bool {
        self.rest.as_ref().is_some_and(|r| r.assign)
    }
    pub fn class_mod(&self) -> Option<&ClassMod> {
        self.rest.as_ref()?.class_mod.as_ref()
    }
    pub fn description(&self) -> &[StringLit] {
        self.rest.as_ref().map_or(&[], |r| &r.description)
    }
}

/// A description string (possibly `"a" + "b"`) and an annotation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comment {
    pub strings: Box<[StringLit]>,
    pub annotation: Option<Box<ClassMod>>,
}

impl Comment {
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty() && self.annotation.is_none()
    }
}

/// A string literal; `raw` is the text between the quotes with escapes as written.
#[derive(Clone, Debug, PartialEq)]
pub struct StringLit {
    pub raw: Text,
    pub span: Span,
}

/// `for i in 1:n` — the range is absent in `for i loop`.
#[derive(Clone, Debug, PartialEq)]
pub struct ForIndex {
    pub name: Ident,
    pub range: Option<Expr>,
}

/// An equation: its kind, and its label, description and span.
///
/// A flat model has 10^5 `lhs = rhs;` (issue 15): such an equation without label or
/// description whose span runs from its left side's start to its right side's end is its
/// kind alone (56 bytes). Otherwise the span is boxed (`EquationNotes`, 16 bytes: a
/// right side that ends in a parenthesis, `q = g*(a - b);`, or another kind of equation),
/// and the label and the description in a box of their own (rarer still). Built by
/// [`Equation::new`], read by [`Equation::label`], [`Equation::comment`] and
/// [`Equation::span`]. Changing the sides' spans in place moves the span of a simple
/// equation without notes with them (the walks of `syntax::visit` change all spans
/// together and then set the equation's with [`Equation::set_span`]).
#[derive(Clone)]
pub struct Equation {
    pub kind: EquationKind,
    notes: Option<Box<EquationNotes>>,
}

/// An equation's span, when it is not its sides', and its label and description.
#[derive(Clone, Debug, PartialEq)]
struct EquationNotes {
    span: Span,
    written: Option<Box<LabelAndComment>>,
}

/// The papers' label comment `/* e1: */` written just before an equation, and its
/// description.
#[derive(Clone, Debug, PartialEq)]
struct LabelAndComment {
    label: Option<Ident>,
    comment: Option<Comment>,
}

/// The span of a simple equation's sides, from the left's start to the right's end.
fn sides_span(kind: &EquationKind) -> Option<Span> {
    match kind {
        EquationKind::Simple { lhs, rhs } => Some(Span { start: lhs.span.start, end: rhs.span.end }),
        _ => None,
    }
}

impl Equation {
    /// The equation `kind` with its `label`, `comment` and `span` (nothing boxed when the
    /// span is its sides' and neither label nor comment is written).
    pub fn new(label: Option<Ident>, kind: EquationKind, comment: Option<Comment>, span: Span) -> Equation {
        let written = (label.is_some() || comment.is_some()).then(|| Box::new(LabelAndComment { label, comment }));
        Equation::with_notes(kind, span, written)
    }

    fn with_notes(kind: EquationKind, span: Span, written: Option<Box<LabelAndComment>>) -> Equation {
        let notes =
            (written.is_some() || sides_span(&kind) != Some(span)).then(|| Box::new(EquationNotes { span, written }));
        Equation { kind, notes }
    }

    /// An equation of kind `kind` with this one's label, description and span.
    pub fn with_kind(&self, kind: EquationKind) -> Equation {
        let written = self.notes.as_ref().and_then(|n| n.written.clone());
        Equation::with_notes(kind, self.span(), written)
    }

    fn written(&self) -> Option<&LabelAndComment> {
        self.notes.as_ref()?.written.as_deref()
    }

    fn written_mut(&mut self) -> Option<&mut LabelAndComment> {
        self.notes.as_mut()?.written.as_deref_mut()
    }

    /// The papers' label comment `/* e1: */` written just before the equation.
    pub fn label(&self) -> Option<&Ident> {
        self.written()?.label.as_ref()
    }

    pub fn label_mut(&mut self) -> Option<&mut Ident> {
        self.written_mut()?.label.as_mut()
    }

    pub fn comment(&self) -> Option<&Comment> {
        self.written()?.comment.as_ref()
    }

    pub fn comment_mut(&mut self) -> Option<&mut Comment> {
        self.written_mut()?.comment.as_mut()
    }

    /// The equation's text without the closing `;`.
    pub fn span(&self) -> Span {
        match &self.notes {
            Some(n) => n.span,
            None => sides_span(&self.kind).unwrap_or(Span::DUMMY),
        }
    }

    /// Sets the span (boxed only when it is not the sides').
    pub fn set_span(&mut self, span: Span) {
        let derived = sides_span(&self.kind) == Some(span);
        match &mut self.notes {
            Some(n) if derived && n.written.is_none() => self.notes = None,
            Some(n) => n.span = span,
            None if derived => {}
            None => self.notes = Some(Box::new(EquationNotes { span, written: None })),
        }
    }
}

impl PartialEq for Equation {
    fn eq(&self, other: &Equation) -> bool {
        self.kind == other.kind
            && self.label() == other.label()
            && self.comment() == other.comment()
            && self.span() == other.span()
    }
}

impl std::fmt::Debug for Equation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Equation")
            .field("kind", &self.kind)
            .field("label", &self.label())
            .field("comment", &self.comment())
            .field("span", &self.span())
            .finish()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum EquationKind {
    /// `lhs = rhs`; a tuple equation `(a, b) = f(x)` has a [`ExprKind::Tuple`] lhs.
    Simple {
        lhs: Expr,
        rhs: Expr,
    },
    /// (`else_branch` and `indices` are boxed slices, not vectors: they fit beside a simple
    /// equation's sides, so that an [`EquationKind`] is 48 bytes)
    If {
        branches: Vec<(Expr, Vec<Equation>)>,
        else_branch: Option<Box<[Equation]>>,
    },
    For {
        indices: Box<[ForIndex]>,
        body: Vec<Equation>,
    },
    /// `when c1 then … elsewhen c2 then … end when;`
    When {
        branches: Vec<(Expr, Vec<Equation>)>,
    },
    /// `connect(a, b)` (parsed so that later stages can refuse it by name).
    Connect(Box<[ComponentRef; 2]>),
    /// A call used as an equation: `reinit(x, 0)`, `assert(c, "m")`, `terminate("m")`.
    Call(Box<Call>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    pub kind: StatementKind,
    pub comment: Option<Box<Comment>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StatementKind {
    /// `target := value`; `(a, , b) := f(x)` has a [`ExprKind::Tuple`] target.
    Assign {
        target: Expr,
        value: Expr,
    },
    Call(Box<Call>),
    If {
        branches: Vec<(Expr, Vec<Statement>)>,
        else_branch: Option<Vec<Statement>>,
    },
    For {
        indices: Vec<ForIndex>,
        body: Vec<Statement>,
    },
    While {
        condition: Expr,
        body: Vec<Statement>,
    },
    When {
        branches: Vec<(Expr, Vec<Statement>)>,
    },
    /// `return;`, or omc's `return e;` (not Modelica).
    Return(Option<Box<Expr>>),
    Break,
}

/// A component reference with subscripts somewhere: `a.b[1].c`, `x[i, end]`.
/// Consecutive parts without subscripts are merged into one dotted identifier.
#[derive(Clone, Debug, PartialEq)]
pub struct ComponentRef {
    /// One part (a declared `x`, a reference `x[i]`) is stored inline.
    pub parts: SmallList<RefPart>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RefPart {
    pub ident: Ident,
    /// Usually none (8 bytes).
    pub subscripts: ThinList<Subscript>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Subscript {
    /// `:`
    All(Span),
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer or real literal as written: `1`, `1.0`, `1e-06`.
    Number(Text),
    /// A string literal, the text between the quotes with escapes as written.
    String(Text),
    Bool(bool),
    /// A reference without subscripts: `x`, `a.b.c`, `'a.b'`.
    Name(Text),
    /// A reference with subscripts.
    Ref(Box<ComponentRef>),
    /// `end` inside a subscript.
    End,
    Call(Box<Call>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<[Expr; 2]>),
    If(Box<IfExpr>),
    /// `start : stop` or `start : step : stop`.
    Range(Box<RangeExpr>),
    /// `{a, b}` (boxed: keeps [`Expr`] at 24 bytes)
    Array(Box<Vec<Expr>>),
    /// `[a, b; c, d]`
    Matrix(Box<Vec<Vec<Expr>>>),
    /// `{e for i in r}`
    ArrayComprehension(Box<Comprehension>),
    /// `(a, , b)`: an output expression list (tuple targets and parenthesised lists).
    Tuple(Box<Vec<Option<Expr>>>),
    /// Subscripts on a primary that is not a reference: `f(x)[1]`, `({3, 4})[i]`.
    Subscripted(Box<Subscripted>),
    /// A function partial application (Modelica Language Spec. 3.6 §12.4.2.1):
    /// `function f(a = e)`, and omc's positional form `function f(#(e))`.
    Partial(Box<Call>),
    /// omc's boxed value `#(e)` (not Modelica; an argument of a functional input).
    Boxed(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Subscripted {
    pub base: Expr,
    pub subscripts: Box<[Subscript]>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The called name: `der`, `Modelica.Math.sin`, `'WaterTank.inputFlow'`.
    pub function: Ident,
    pub args: FunctionArgs,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FunctionArgs {
    List {
        /// One argument (`der(x)`, `sin(t)`) is stored inline.
        positional: SmallList<Expr>,
        /// Usually none: 8 bytes.
        named: ThinList<NamedArg>,
    },
    /// A reduction: `sum(e for i in 1:n)`, `array(e for $i in 1:m)`.
    Comprehension(Box<Comprehension>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct NamedArg {
    pub name: Ident,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub expr: Expr,
    pub indices: Vec<ForIndex>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IfExpr {
    /// `if c1 then e1 elseif c2 then e2 …`
    pub branches: Vec<(Expr, Expr)>,
    pub else_value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RangeExpr {
    pub start: Expr,
    pub step: Option<Expr>,
    pub stop: Expr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    Add,
    Sub,
    ElemAdd,
    ElemSub,
    Mul,
    Div,
    ElemMul,
    ElemDiv,
    Pow,
    ElemPow,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "<>",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::ElemAdd => ".+",
            BinOp::ElemSub => ".-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::ElemMul => ".*",
            BinOp::ElemDiv => "./",
            BinOp::Pow => "^",
            BinOp::ElemPow => ".^",
        }
    }

    /// Binding strength, see [`Prec`].
    pub fn prec(self) -> Prec {
        match self {
            BinOp::Or => Prec::Or,
            BinOp::And => Prec::And,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => Prec::Relation,
            BinOp::Add | BinOp::Sub | BinOp::ElemAdd | BinOp::ElemSub => Prec::Additive,
            BinOp::Mul | BinOp::Div | BinOp::ElemMul | BinOp::ElemDiv => Prec::Multiplicative,
            BinOp::Pow | BinOp::ElemPow => Prec::Power,
        }
    }
}

/// Modelica operator precedence, loosest first (Modelica Language Spec. 3.6 §10.6 table 10.1
/// / grammar B.2.7): if-expression, range, or, and, not, relations, additive (and unary
/// `+ -`), multiplicative, power, primary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Prec {
    If,
    Range,
    Or,
    And,
    Not,
    Relation,
    Additive,
    Multiplicative,
    Power,
    Primary,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// The precedence of the expression's outermost operator.
    pub fn prec(&self) -> Prec {
        match &self.kind {
            ExprKind::If(_) => Prec::If,
            ExprKind::Range(_) => Prec::Range,
            ExprKind::Unary(UnOp::Not, _) => Prec::Not,
            ExprKind::Unary(_, _) => Prec::Additive,
            ExprKind::Binary(op, _) => op.prec(),
            _ => Prec::Primary,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::component::tests::SRC;

    #[test]
    fn an_equation_keeps_its_span() {
        let ast = crate::syntax::parse(SRC).expect("parses");
        let ClassBody::Long(comp) = &ast.classes[0].body else { panic!() };
        let ClassPart::Equations { equations, .. } = &comp.parts[1] else { panic!() };
        let written: Vec<&str> = equations.iter().map(|e| &SRC[e.span().range()]).collect();
        assert_eq!(written, ["x = (p)", "(x) = p", "y = 2*(x + 1)", "z = x \"d\"", "w = {x, y}"]);
        let boxed: Vec<bool> = equations.iter().map(|e| e.notes.is_some()).collect();
        assert_eq!(boxed, [true, true, true, true, false]);
        assert_eq!(equations[3].label().map(|l| l.text.as_str()), Some("e4"));
    }
}
