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
//! [`TypeSpec::Enumeration`], [`ModArgRest`], [`DeclarationParts`]); text is interned
//! ([`Text`], 8 bytes).
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

/// A component clause: prefixes, a type and one or more declarations.
#[derive(Clone, Debug, PartialEq)]
pub struct Component {
    pub prefixes: Prefixes,
    pub type_spec: TypeSpec,
    /// What is written on the type besides its name, boxed (a flat model's 10^5 `Real x;`
    /// have none: `None`, 8 bytes): [`Component::type_mod`], [`Component::type_dims`].
    pub type_parts: Option<Box<TypeParts>>,
    /// Almost always one (`Real x, y;` is rare in flat models): stored inline then.
    pub declarations: SmallList<Declaration>,
    pub span: Span,
}

/// The parts of a [`Component`]'s type besides its name (rare in flat models).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypeParts {
    /// A modification on the type, as omc prints record-constructor inputs:
    /// `input Real(unit = "rad/s")[3] w;` (not standard Modelica; kept as printed).
    pub modification: Option<ClassMod>,
    /// Dimensions written on the type: `Real[3] x`.
    pub dims: Box<[Subscript]>,
}

impl TypeParts {
    /// The parts, boxed; `None` when both are absent.
    pub fn boxed(modification: Option<ClassMod>, dims: Box<[Subscript]>) -> Option<Box<TypeParts>> {
        (modification.is_some() || !dims.is_empty()).then(|| Box::new(TypeParts { modification, dims }))
    }
}

impl Component {
    pub fn has(&self, p: Prefix) -> bool {
        self.prefixes.contains(&p)
    }

    /// The modification written on the type, if any.
    pub fn type_mod(&self) -> Option<&ClassMod> {
        self.type_parts.as_ref().and_then(|t| t.modification.as_ref())
    }

    /// The dimensions written on the type (usually none).
    pub fn type_dims(&self) -> &[Subscript] {
        self.type_parts.as_ref().map_or(&[], |t| &t.dims)
    }
}

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

/// One declared name: `x[3](start = 1) = 2 if c "description" annotation(…)`.
/// omc declares flattened names such as `rc.r[1].v`: `name` is that reference
/// without its trailing subscripts, which are the array dimensions `dims`.
///
/// A flat model declares 10^5 plain `Real x;`: the other parts ([`DeclarationParts`]) are
/// boxed, and absent when all are empty (56 bytes instead of 104, issue 15). They read
/// as fields through `Deref` (`decl.dims`, `decl.modification`, …); build with
/// [`Declaration::new`], change with [`Declaration::parts_mut`].
#[derive(Clone, Debug)]
pub struct Declaration {
    pub name: ComponentRef,
    parts: Option<Box<DeclarationParts>>,
    pub span: Span,
}

/// The parts of a [`Declaration`] besides its name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclarationParts {
    pub dims: Box<[Subscript]>,
    pub modification: Option<Box<Modification>>,
    pub condition: Option<Box<Expr>>,
    pub comment: Comment,
}

impl DeclarationParts {
    fn is_empty(&self) -> bool {
        self.dims.is_empty() && self.modification.is_none() && self.condition.is_none() && self.comment.is_empty()
    }
}

static NO_PARTS: std::sync::LazyLock<DeclarationParts> = std::sync::LazyLock::new(DeclarationParts::default);

impl Declaration {
    pub fn new(
        name: ComponentRef,
        dims: Box<[Subscript]>,
        modification: Option<Box<Modification>>,
        condition: Option<Box<Expr>>,
        comment: Comment,
        span: Span,
    ) -> Declaration {
        let parts = DeclarationParts { dims, modification, condition, comment };
        Declaration { name, parts: (!parts.is_empty()).then(|| Box::new(parts)), span }
    }

    /// The parts to change, or `None` when all are absent (nothing to change in place).
    pub fn parts_mut(&mut self) -> Option<&mut DeclarationParts> {
        self.parts.as_deref_mut()
    }

    /// Drops the boxed parts if a change left them all empty.
    pub fn shrink(&mut self) {
        if self.parts.as_ref().is_some_and(|p| p.is_empty()) {
            self.parts = None;
        }
    }
}

impl std::ops::Deref for Declaration {
    type Target = DeclarationParts;
    fn deref(&self) -> &DeclarationParts {
        self.parts.as_deref().unwrap_or(&NO_PARTS)
    }
}

impl PartialEq for Declaration {
    fn eq(&self, other: &Declaration) -> bool {
        self.name == other.name && **self == **other && self.span == other.span
    }
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

#[derive(Clone, Debug, PartialEq)]
pub struct Equation {
    pub kind: EquationKind,
    /// The label and the description, boxed together and only when one is written (most
    /// equations have neither; a model has 10^5 equations: issue 15). Built by
    /// [`Equation::new`], read by [`Equation::label`] and [`Equation::comment`].
    pub notes: Option<Box<EquationNotes>>,
    pub span: Span,
}

/// An equation's label comment and description.
#[derive(Clone, Debug, PartialEq)]
pub struct EquationNotes {
    /// The papers' label comment `/* e1: */` written just before the equation.
    pub label: Option<Ident>,
    pub comment: Option<Comment>,
}

impl Equation {
    /// The equation `kind` with its `label` and `comment` (no box when both are absent).
    pub fn new(label: Option<Ident>, kind: EquationKind, comment: Option<Comment>, span: Span) -> Equation {
        let notes = (label.is_some() || comment.is_some()).then(|| Box::new(EquationNotes { label, comment }));
        Equation { kind, notes, span }
    }

    /// The papers' label comment `/* e1: */` written just before the equation.
    pub fn label(&self) -> Option<&Ident> {
        self.notes.as_ref()?.label.as_ref()
    }

    pub fn comment(&self) -> Option<&Comment> {
        self.notes.as_ref()?.comment.as_ref()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum EquationKind {
    /// `lhs = rhs`; a tuple equation `(a, b) = f(x)` has a [`ExprKind::Tuple`] lhs.
    Simple {
        lhs: Expr,
        rhs: Expr,
    },
    If {
        branches: Vec<(Expr, Vec<Equation>)>,
        else_branch: Option<Vec<Equation>>,
    },
    For {
        indices: Vec<ForIndex>,
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
