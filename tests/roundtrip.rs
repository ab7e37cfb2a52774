//! The printer and the parser agree (issue 16): for every tree the parser can build,
//! `parse(print(tree)) == tree` modulo spans, and the print is a fixpoint.
//!
//! 1. A property test over generated trees: every expression kind in every position
//!    where the grammar takes an expression (equation sides, conditions, ranges,
//!    subscripts, call and named arguments, comprehensions, bindings, modifications,
//!    declaration conditions, dimensions, annotations, external calls), every equation
//!    and statement kind nested in every structured one, and every identifier form
//!    (`x`, `$i1`, `'q.i d\'s'`, dotted `a.'b'.c`, `.A.b`). The generator builds only
//!    trees the parser can build (its canonical forms: a reference without subscripts
//!    is a name, a tuple has no single item, a comment is not empty, …).
//!    `PROPTEST_CASES` sets the number of cases (default 1000).
//! 2. Nesting up to the parser's limit: for each way of nesting (if-expressions in
//!    each branch, `not`, signs, parentheses, calls, arrays, subscripts, modifications,
//!    if/for/when-equations …) the deepest input the parser accepts prints to a text it
//!    accepts again, as the same tree.
//! 3. The regressions of issue 16: an if-expression on the left-hand side, `(initial());`,
//!    128 nested if-expressions, a raw newline in a quoted identifier.

mod common;

use mdae_rimis::syntax::ast::*;
use mdae_rimis::syntax::{self, SourceFile, Span, SyntaxErrorKind, visit};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

const D: Span = Span::DUMMY;

fn ident(t: &str) -> Ident {
    Ident { text: text(t), span: D }
}

fn ex(kind: ExprKind) -> Expr {
    Expr::new(kind, D)
}

// ---------------------------------------------------------------- identifiers

const KEYWORDS: &[&str] = &[
    "algorithm",
    "and",
    "annotation",
    "block",
    "break",
    "class",
    "connect",
    "connector",
    "constant",
    "constrainedby",
    "der",
    "discrete",
    "each",
    "else",
    "elseif",
    "elsewhen",
    "encapsulated",
    "end",
    "enumeration",
    "equation",
    "expandable",
    "extends",
    "external",
    "false",
    "final",
    "flow",
    "for",
    "function",
    "if",
    "import",
    "impure",
    "in",
    "initial",
    "inner",
    "input",
    "loop",
    "model",
    "not",
    "operator",
    "or",
    "outer",
    "output",
    "package",
    "parameter",
    "partial",
    "protected",
    "public",
    "pure",
    "record",
    "redeclare",
    "replaceable",
    "return",
    "stream",
    "then",
    "true",
    "type",
    "when",
    "while",
    "within",
];

/// A plain identifier that is not a keyword (some are keywords with a letter added).
fn plain_ident() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z_][a-zA-Z0-9_]{0,5}",
        prop::sample::select(KEYWORDS).prop_map(|k| format!("{k}1")),
        prop::sample::select(KEYWORDS).prop_map(|k| format!("_{k}")),
    ]
    .prop_filter("keyword", |s| !KEYWORDS.contains(&s.as_str()))
}

/// One identifier in any form: plain, omc's `$` names, quoted (Q-CHARs and escapes).
fn one_ident() -> BoxedStrategy<String> {
    let q_char = prop_oneof![
        4 => "[a-zA-Z0-9 ._!#%&()*+,/:;<=>?@\\[\\]^{}|~$\"-]",
        1 => prop::sample::select(&["\\'", "\\\"", "\\\\", "\\n", "\\t", "\\?", "\\a"][..]).prop_map(str::to_string),
    ];
    prop_oneof![
        6 => plain_ident(),
        1 => "\\$[a-z0-9_]{0,4}",
        2 => prop::collection::vec(q_char, 1..6).prop_map(|cs| format!("'{}'", cs.concat())),
    ]
    .boxed()
}

/// A dotted name `a.'b c'.$d`, with a leading dot when `lead`.
fn dotted(lead: bool) -> impl Strategy<Value = String> {
    (prop::collection::vec(one_ident(), 1..4), any::<bool>()).prop_map(move |(parts, dot)| {
        let s = parts.join(".");
        if lead && dot { format!(".{s}") } else { s }
    })
}

/// A name used as an expression or a type (dotted, maybe with a leading dot).
fn name() -> BoxedStrategy<String> {
    prop_oneof![3 => one_ident(), 1 => dotted(true)].boxed()
}

// ---------------------------------------------------------------- expressions

fn number() -> impl Strategy<Value = String> {
    prop_oneof!["[0-9]{1,3}", "[0-9]{1,2}\\.", "[0-9]\\.[0-9]{1,3}", "[0-9]{1,2}(\\.[0-9]{0,2})?[eE][+-]?[0-9]{1,2}"]
}

/// The text of a string literal between its quotes (escapes as written, raw newlines).
fn string_raw() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![4 => "[ -!#-\\[\\]-~é\n]", 1 => prop::sample::select(&["\\\"", "\\\\", "\\n"][..]).prop_map(str::to_string)],
        0..6,
    )
    .prop_map(|v| v.concat())
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        4 => number().prop_map(|t| ex(ExprKind::Number(text(&t)))),
        1 => string_raw().prop_map(|t| ex(ExprKind::String(text(&t)))),
        1 => any::<bool>().prop_map(|b| ex(ExprKind::Bool(b))),
        6 => name().prop_map(|t| ex(ExprKind::Name(text(&t)))),
        1 => Just(ex(ExprKind::End)),
        1 => Just(ex(ExprKind::Array(Box::default()))),
        1 => Just(ex(ExprKind::Tuple(Box::default()))),
    ]
}

fn subscript(e: BoxedStrategy<Expr>) -> impl Strategy<Value = Subscript> {
    prop_oneof![1 => Just(Subscript::All(D)), 4 => e.prop_map(Subscript::Expr)]
}

fn subscripts(e: BoxedStrategy<Expr>, n: std::ops::Range<usize>) -> impl Strategy<Value = Box<[Subscript]>> {
    prop::collection::vec(subscript(e), n).prop_map(Vec::into_boxed_slice)
}

/// A component reference in the parser's form: parts without subscripts are merged, so
/// every part but the last has subscripts; only the first may start with a dot. With
/// `subscripted`, some part has subscripts (else it would be a name).
fn cref(e: BoxedStrategy<Expr>, subscripted: bool) -> impl Strategy<Value = ComponentRef> {
    (1..4usize)
        .prop_flat_map(move |n| {
            let parts: Vec<_> = (0..n)
                .map(|k| {
                    let subs = if k + 1 < n || subscripted && n == 1 { 1..3 } else { 0..3 };
                    let id = if k == 0 { name() } else { one_ident() };
                    (id, subscripts(e.clone(), subs))
                })
                .collect();
            parts
        })
        .prop_map(|parts| {
            let parts: Vec<RefPart> = parts
                .into_iter()
                .map(|(t, subscripts)| RefPart { ident: ident(&t), subscripts: subscripts.into() })
                .collect();
            ComponentRef { parts: parts.into(), span: D }
        })
}

fn for_indices(e: BoxedStrategy<Expr>) -> impl Strategy<Value = Vec<ForIndex>> {
    prop::collection::vec(
        (one_ident(), prop::option::of(e)).prop_map(|(n, range)| ForIndex { name: ident(&n), range }),
        1..3,
    )
}

fn call(e: BoxedStrategy<Expr>) -> impl Strategy<Value = Call> {
    let function =
        prop_oneof![6 => name(), 1 => prop::sample::select(&["der", "initial", "pure"][..]).prop_map(str::to_string)];
    let named = prop::collection::vec(
        (one_ident(), e.clone()).prop_map(|(n, value)| NamedArg { name: ident(&n), value }),
        0..3,
    );
    let args = prop_oneof![
        4 => (prop::collection::vec(e.clone(), 0..4), named).prop_map(|(p, n)| FunctionArgs::List {
            positional: p.into(),
            named: n.into()
        }),
        1 => (e.clone(), for_indices(e)).prop_map(|(expr, indices)| {
            FunctionArgs::Comprehension(Box::new(Comprehension { expr, indices }))
        }),
    ];
    (function, args).prop_map(|(f, args)| Call { function: ident(&f), args })
}

const BINOPS: &[BinOp] = &[
    BinOp::Or,
    BinOp::And,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Add,
    BinOp::Sub,
    BinOp::ElemAdd,
    BinOp::ElemSub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::ElemMul,
    BinOp::ElemDiv,
    BinOp::Pow,
    BinOp::ElemPow,
];

/// Every expression kind, nested in every expression position.
fn expr() -> BoxedStrategy<Expr> {
    leaf()
        .prop_recursive(5, 48, 4, |inner| {
            let e = inner.clone();
            let tuple_items = prop::collection::vec(prop::option::of(inner.clone()), 2..4);
            prop_oneof![
                3 => cref(e.clone(), true).prop_map(|r| ex(ExprKind::Ref(Box::new(r)))),
                3 => call(e.clone()).prop_map(|c| ex(ExprKind::Call(Box::new(c)))),
                2 => (prop::sample::select(&[UnOp::Neg, UnOp::Plus, UnOp::Not][..]), e.clone())
                    .prop_map(|(op, x)| ex(ExprKind::Unary(op, Box::new(x)))),
                6 => (prop::sample::select(BINOPS), e.clone(), e.clone())
                    .prop_map(|(op, a, b)| ex(ExprKind::Binary(op, Box::new([a, b])))),
                3 => (prop::collection::vec((e.clone(), e.clone()), 1..3), e.clone())
                    .prop_map(|(branches, else_value)| ex(ExprKind::If(Box::new(IfExpr { branches, else_value })))),
                1 => (e.clone(), prop::option::of(e.clone()), e.clone())
                    .prop_map(|(start, step, stop)| ex(ExprKind::Range(Box::new(RangeExpr { start, step, stop })))),
                1 => prop::collection::vec(e.clone(), 1..4).prop_map(|v| ex(ExprKind::Array(Box::new(v)))),
                1 => prop::collection::vec(prop::collection::vec(e.clone(), 1..3), 1..3)
                    .prop_map(|v| ex(ExprKind::Matrix(Box::new(v)))),
                1 => (e.clone(), for_indices(e.clone())).prop_map(|(expr, indices)| {
                    ex(ExprKind::ArrayComprehension(Box::new(Comprehension { expr, indices })))
                }),
                1 => tuple_items.prop_map(|v| ex(ExprKind::Tuple(Box::new(v)))),
                1 => (e.clone(), subscripts(e.clone(), 1..3))
                    .prop_map(|(base, subscripts)| ex(ExprKind::Subscripted(Box::new(Subscripted { base, subscripts })))),
            ]
        })
        .boxed()
}

// ---------------------------------------------------------------- comments, modifications

fn string_lits() -> impl Strategy<Value = Box<[StringLit]>> {
    prop::collection::vec(string_raw().prop_map(|raw| StringLit { raw: text(&raw), span: D }), 0..3)
        .prop_map(Vec::into_boxed_slice)
}

fn class_mod(e: BoxedStrategy<Expr>) -> BoxedStrategy<ClassMod> {
    let arg = |e: BoxedStrategy<Expr>, nested: Option<BoxedStrategy<ClassMod>>| {
        let nested = match nested {
            Some(n) => prop::option::of(n).boxed(),
            None => Just(None).boxed(),
        };
        (dotted(false), prop::option::of(e), any::<(bool, bool, bool)>(), nested, string_lits()).prop_map(
            |(n, value, (each, is_final, assign), class_mod, description)| {
                let assign = assign && value.is_some();
                let rest = (each || is_final || assign || class_mod.is_some() || !description.is_empty())
                    .then(|| Box::new(ModArgRest { each, is_final, assign, class_mod, description }));
                ModArg { name: ident(&n), value, rest, span: D }
            },
        )
    };
    let flat = prop::collection::vec(arg(e.clone(), None), 0..3)
        .prop_map(|args| ClassMod { args: args.into_boxed_slice(), span: D })
        .boxed();
    prop::collection::vec(arg(e, Some(flat)), 0..3)
        .prop_map(|args| ClassMod { args: args.into_boxed_slice(), span: D })
        .boxed()
}

/// A comment; `non_empty` where the parser stores `None` for an empty one.
fn comment(e: BoxedStrategy<Expr>, non_empty: bool) -> impl Strategy<Value = Comment> {
    (string_lits(), prop::option::of(class_mod(e).prop_map(Box::new)))
        .prop_map(|(strings, annotation)| Comment { strings, annotation })
        .prop_filter("empty comment", move |c| !(non_empty && c.is_empty()))
}

// ---------------------------------------------------------------- equations, statements

fn label() -> impl Strategy<Value = Option<Ident>> {
    prop::option::of("[a-zA-Z_][a-zA-Z0-9_]{0,3}".prop_filter("keyword", |s| !KEYWORDS.contains(&s.as_str())))
        .prop_map(|l| l.map(|l| ident(&l)))
}

fn equation(e: BoxedStrategy<Expr>) -> BoxedStrategy<Equation> {
    let leaf_kind = prop_oneof![
        6 => (e.clone(), e.clone()).prop_map(|(lhs, rhs)| EquationKind::Simple { lhs, rhs }),
        1 => call(e.clone()).prop_map(|c| EquationKind::Call(Box::new(c))),
        1 => (cref(e.clone(), false), cref(e.clone(), false)).prop_map(|(a, b)| EquationKind::Connect(Box::new([a, b]))),
    ];
    let e2 = e.clone();
    let kind = leaf_kind.prop_recursive(3, 12, 3, move |inner_kind| {
        let eq = (label(), inner_kind, prop::option::of(comment(e2.clone(), true)))
            .prop_map(|(label, kind, comment)| Equation::new(label, kind, comment, D));
        let body = prop::collection::vec(eq, 0..3).boxed();
        let branches = prop::collection::vec((e2.clone(), body.clone()), 1..3).boxed();
        prop_oneof![
            (branches.clone(), prop::option::of(body.clone())).prop_map(|(branches, else_branch)| EquationKind::If {
                branches,
                else_branch: else_branch.map(Into::into)
            }),
            (for_indices(e2.clone()), body)
                .prop_map(|(indices, body)| EquationKind::For { indices: indices.into(), body }),
            branches.prop_map(|branches| EquationKind::When { branches }),
        ]
    });
    (label(), kind, prop::option::of(comment(e, true)))
        .prop_map(|(label, kind, comment)| Equation::new(label, kind, comment, D))
        .boxed()
}

fn statement(e: BoxedStrategy<Expr>) -> BoxedStrategy<Statement> {
    let leaf_kind = prop_oneof![
        6 => (e.clone(), e.clone()).prop_map(|(target, value)| StatementKind::Assign { target, value }),
        1 => call(e.clone()).prop_map(|c| StatementKind::Call(Box::new(c))),
        1 => Just(StatementKind::Return(None)),
        1 => Just(StatementKind::Break),
    ];
    let e2 = e.clone();
    let kind = leaf_kind.prop_recursive(3, 12, 3, move |inner_kind| {
        let st = (inner_kind, prop::option::of(comment(e2.clone(), true).prop_map(Box::new)))
            .prop_map(|(kind, comment)| Statement { kind, comment, span: D });
        let body = prop::collection::vec(st, 0..3).boxed();
        let branches = prop::collection::vec((e2.clone(), body.clone()), 1..3).boxed();
        prop_oneof![
            (branches.clone(), prop::option::of(body.clone()))
                .prop_map(|(branches, else_branch)| StatementKind::If { branches, else_branch }),
            (for_indices(e2.clone()), body.clone()).prop_map(|(indices, body)| StatementKind::For { indices, body }),
            (e2.clone(), body).prop_map(|(condition, body)| StatementKind::While { condition, body }),
            branches.prop_map(|branches| StatementKind::When { branches }),
        ]
    });
    (kind, prop::option::of(comment(e, true).prop_map(Box::new)))
        .prop_map(|(kind, comment)| Statement { kind, comment, span: D })
        .boxed()
}

// ---------------------------------------------------------------- elements, classes

const COMPONENT_PREFIXES: &[Prefix] = &[
    Prefix::Redeclare,
    Prefix::Final,
    Prefix::Inner,
    Prefix::Outer,
    Prefix::Replaceable,
    Prefix::Flow,
    Prefix::Stream,
    Prefix::Discrete,
    Prefix::Parameter,
    Prefix::Constant,
    Prefix::Input,
    Prefix::Output,
];

fn prefixes(from: &'static [Prefix]) -> impl Strategy<Value = Prefixes> {
    prop::collection::vec(prop::sample::select(from), 0..3).prop_map(|ps| {
        let mut out = Prefixes::new();
        for p in ps {
            out.push(p);
        }
        out
    })
}

fn enum_literals(e: BoxedStrategy<Expr>) -> impl Strategy<Value = Vec<EnumLiteral>> {
    prop::collection::vec(
        (one_ident(), comment(e, false)).prop_map(|(n, comment)| EnumLiteral { name: ident(&n), comment }),
        0..3,
    )
}

fn declaration(e: BoxedStrategy<Expr>) -> impl Strategy<Value = Declaration> {
    let modification = (prop::option::of(class_mod(e.clone())), prop::option::of((any::<bool>(), e.clone())))
        .prop_filter("empty modification", |(c, v)| c.is_some() || v.is_some())
        .prop_map(|(class_mod, value)| {
            let value = value.map(|(assign, expr)| ModValue { assign, expr });
            Box::new(Modification { class_mod, value, span: D })
        });
    (
        cref(e.clone(), false).prop_filter("trailing subscripts are dimensions", |r| {
            r.parts.last().is_some_and(|p| p.subscripts.is_empty())
        }),
        subscripts(e.clone(), 0..3),
        prop::option::of(modification),
        prop::option::of(e.clone().prop_map(Box::new)),
        comment(e, false),
    )
        .prop_map(|(name, dims, modification, condition, comment)| {
            Declaration::new(name, dims, modification, condition, comment, D)
        })
}

fn component(e: BoxedStrategy<Expr>) -> impl Strategy<Value = Component> {
    let type_spec = prop_oneof![
        5 => name().prop_map(|n| TypeSpec::Name(ident(&n))),
        1 => (enum_literals(e.clone()), any::<bool>()).prop_map(|(literals, colon)| {
            let literals = if colon { Vec::new() } else { literals };
            TypeSpec::Enumeration(Box::new(InlineEnumeration { literals, colon, span: D }))
        }),
    ];
    (
        prefixes(COMPONENT_PREFIXES),
        type_spec,
        prop::option::of(class_mod(e.clone())),
        subscripts(e.clone(), 0..2),
        prop::collection::vec(declaration(e), 1..3),
    )
        .prop_map(|(prefixes, type_spec, type_mod, type_dims, decls)| {
            Component::new(Clause {
                prefixes,
                type_spec,
                type_parts: TypeParts::boxed(type_mod, type_dims),
                declarations: decls.into(),
                span: D,
            })
        })
}

/// A nested class: a short class, an enumeration, a `der` class or a function with an
/// algorithm and an external clause.
fn nested_class(e: BoxedStrategy<Expr>) -> impl Strategy<Value = ClassDef> {
    let short = (
        prefixes(&[Prefix::Input, Prefix::Output]),
        name(),
        subscripts(e.clone(), 0..2),
        prop::option::of(class_mod(e.clone())),
        comment(e.clone(), false),
    )
        .prop_map(|(prefixes, base, dims, modification, comment)| ClassBody::Short {
            prefixes,
            base: ident(&base),
            dims,
            modification,
            comment,
        });
    let enumeration =
        (enum_literals(e.clone()), any::<bool>(), comment(e.clone(), false)).prop_map(|(literals, colon, comment)| {
            let literals = if colon { Vec::new() } else { literals };
            ClassBody::Enumeration { literals, colon, comment }
        });
    let der =
        (name(), prop::collection::vec(one_ident(), 0..3), comment(e.clone(), false)).prop_map(|(f, vars, comment)| {
            ClassBody::Der { function: ident(&f), vars: vars.iter().map(|v| ident(v)).collect(), comment }
        });
    let external = (
        prop::option::of(string_raw()),
        prop::option::of((prop::option::of(e.clone()), name(), prop::collection::vec(e.clone(), 0..3))),
        prop::option::of(class_mod(e.clone())),
    )
        .prop_map(|(language, call, annotation)| External {
            language: language.map(|l| StringLit { raw: text(&l), span: D }),
            call: call.map(|(output, f, args)| ExternalCall { output, function: ident(&f), args }),
            annotation,
            span: D,
        });
    let function = (
        component(e.clone()),
        prop::collection::vec(statement(e.clone()), 0..3),
        prop::option::of(external),
        prop::option::of(class_mod(e)),
    )
        .prop_map(|(c, statements, external, annotation)| {
            (
                vec![
                    ClassPart::Elements {
                        visibility: Visibility::Implicit,
                        elements: vec![Element::Component(c)],
                        span: D,
                    },
                    ClassPart::Algorithm { initial: false, statements, span: D },
                ],
                external,
                annotation,
            )
        });
    let bodies = prop_oneof![
        short.prop_map(|b| (ClassKind::Type, b)).boxed(),
        enumeration.prop_map(|b| (ClassKind::Type, b)).boxed(),
        der.prop_map(|b| (ClassKind::Function, b)).boxed(),
    ];
    (name(), bodies)
        .prop_map(|(n, (kind, body))| ClassDef { prefixes: Prefixes::new(), kind, name: ident(&n), body, span: D })
        .boxed()
        .prop_union(
            function
                .prop_flat_map(|(parts, external, annotation)| {
                    name().prop_map(move |n| {
                        let comp = Composition {
                            description: Box::default(),
                            parts: parts.clone(),
                            external: external.clone(),
                            annotation: annotation.clone(),
                            end_name: ident(&n),
                        };
                        ClassDef {
                            prefixes: Prefixes::new(),
                            kind: ClassKind::Function,
                            name: ident(&n),
                            body: ClassBody::Long(Box::new(comp)),
                            span: D,
                        }
                    })
                })
                .boxed(),
        )
}

fn element(e: BoxedStrategy<Expr>) -> impl Strategy<Value = Element> {
    let import = (prop::option::of(one_ident()), dotted(false), 0..3u8, prop::collection::vec(one_ident(), 1..3))
        .prop_map(|(alias, n, form, list)| {
            let (wildcard, list) = match form {
                0 if alias.is_none() => (true, Vec::new()),
                1 if alias.is_none() => (false, list.iter().map(|l| ident(l)).collect()),
                _ => (false, Vec::new()),
            };
            Element::Import(Box::new(Import {
                alias: alias.map(|a| ident(&a)),
                name: ident(&n),
                wildcard,
                list,
                comment: Comment::default(),
                span: D,
            }))
        });
    let extends = (name(), prop::option::of(class_mod(e.clone())), prop::option::of(class_mod(e.clone()))).prop_map(
        |(n, modification, annotation)| {
            Element::Extends(Box::new(Extends { name: ident(&n), modification, annotation, span: D }))
        },
    );
    prop_oneof![
        8 => component(e.clone()).prop_map(Element::Component),
        2 => nested_class(e.clone()).prop_map(|c| Element::Class(Box::new(c))),
        1 => import,
        1 => extends,
        1 => class_mod(e).prop_map(Element::Annotation),
    ]
}

fn part(e: BoxedStrategy<Expr>) -> impl Strategy<Value = ClassPart> {
    prop_oneof![
        (
            prop::sample::select(&[Visibility::Public, Visibility::Protected][..]),
            prop::collection::vec(element(e.clone()), 0..3)
        )
            .prop_map(|(visibility, elements)| ClassPart::Elements { visibility, elements, span: D }),
        (any::<bool>(), prop::collection::vec(equation(e.clone()), 0..4))
            .prop_map(|(initial, equations)| ClassPart::Equations { initial, equations, span: D }),
        (any::<bool>(), prop::collection::vec(statement(e), 0..3))
            .prop_map(|(initial, statements)| ClassPart::Algorithm { initial, statements, span: D }),
    ]
}

fn stored_definition() -> impl Strategy<Value = StoredDefinition> {
    let e = expr();
    (
        prop::option::of("[a-z0-9. ]{0,8}".prop_map(|h| h.trim().to_string())),
        prop::option::of(prop::option::of(dotted(false))),
        name(),
        prop::collection::vec(element(e.clone()), 1..4),
        prop::collection::vec(part(e.clone()), 0..4),
        prop::option::of(class_mod(e)),
    )
        .prop_map(|(header, within, n, elements, mut parts, annotation)| {
            parts.insert(0, ClassPart::Elements { visibility: Visibility::Implicit, elements, span: D });
            // The parser reads a class annotation only after a section that is not an
            // element section (or after `external`): it is an element otherwise.
            let annotation = annotation.filter(|_| parts.iter().any(|p| !matches!(p, ClassPart::Elements { .. })));
            let comp =
                Composition { description: Box::default(), parts, external: None, annotation, end_name: ident(&n) };
            let class = ClassDef {
                prefixes: Prefixes::new(),
                kind: ClassKind::Model,
                name: ident(&n),
                body: ClassBody::Long(Box::new(comp)),
                span: D,
            };
            StoredDefinition {
                base_header: header.map(|h| text(&h)),
                within: within.map(|w| Within { name: w.map(|w| ident(&w)), span: D }),
                classes: vec![class],
                span: D,
            }
        })
}

/// Prints `def`, parses the print and compares the trees modulo spans; the print must be
/// a fixpoint too. Trees taller than the parser's limits are not generated (depth ≤ 5).
fn agrees(def: &StoredDefinition) -> Result<(), String> {
    let printed = syntax::print(def);
    let mut again = syntax::parse(&printed).map_err(|e| {
        format!(
            "the print does not parse: {}\n--- printed ---\n{printed}",
            e.short(&SourceFile::new("p.mo", printed.clone()))
        )
    })?;
    if syntax::print(&again) != printed {
        return Err(format!("the print is not a fixpoint\n--- printed ---\n{printed}"));
    }
    visit::erase_spans(&mut again);
    if &again != def {
        return Err(format!(
            "parse(print(tree)) != tree\n--- printed ---\n{printed}\n--- tree ---\n{def:#?}\n--- parsed ---\n{again:#?}"
        ));
    }
    Ok(())
}

#[test]
fn generated_trees_print_and_parse_back() {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let config = Config { cases, failure_persistence: None, rng_seed: RngSeed::Fixed(16), ..Config::default() };
    let result = common::in_big_thread(move || {
        TestRunner::new(config)
            .run(&stored_definition(), |def| agrees(&def).map_err(TestCaseError::fail))
            .map_err(|e| e.to_string())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// ---------------------------------------------------------------- nesting at the limit

fn model(equations: &str) -> String {
    format!("model M\n  Real x;\n  Real a;\n  Boolean b;\nequation\n  {equations}\nend M;\n")
}

fn algorithm(statements: &str) -> String {
    format!("model M\n  Real x;\n  Real a;\n  Boolean b;\nalgorithm\n  {statements}\nend M;\n")
}

/// `a` repeated `k` times, then `mid`, then `b` repeated `k` times.
fn nest(k: usize, a: &str, mid: &str, b: &str) -> String {
    format!("{}{mid}{}", a.repeat(k), b.repeat(k))
}

/// Every way of nesting, as a function of the nesting level.
/// A way of nesting: its name and the source at a nesting level.
type Nesting = (&'static str, Box<dyn Fn(usize) -> String>);

fn nestings() -> Vec<Nesting> {
    vec![
        ("if-expression in then", Box::new(|k| model(&format!("x = {};", nest(k, "if b then ", "a", " else a"))))),
        (
            "if-expression in the condition",
            Box::new(|k| model(&format!("x = if {} then a else a;", nest(k, "if ", "b", " then b else b")))),
        ),
        ("if-expression in else", Box::new(|k| model(&format!("x = {};", nest(k, "if b then a else ", "a", ""))))),
        (
            "if-expression in elseif",
            Box::new(|k| model(&format!("x = {};", nest(k, "if b then a elseif ", "b", " then a else a")))),
        ),
        (
            "if-expression on the left-hand side",
            Box::new(|k| model(&format!("({}) = x;", nest(k, "if b then ", "a", " else a")))),
        ),
        (
            "if-expression in an argument",
            Box::new(|k| model(&format!("x = {};", nest(k, "f(if b then ", "a", " else a)")))),
        ),
        ("not", Box::new(|k| model(&format!("b = {};", nest(k, "not ", "b", ""))))),
        ("not in parentheses", Box::new(|k| model(&format!("b = {};", nest(k, "not (", "b", ")"))))),
        ("signs", Box::new(|k| model(&format!("x = {};", nest(k, "- ", "a", ""))))),
        ("signs in parentheses", Box::new(|k| model(&format!("x = {};", nest(k, "-(", "a", ")"))))),
        ("signed powers", Box::new(|k| model(&format!("x = {};", nest(k, "a ^ -", "a", ""))))),
        ("signed products", Box::new(|k| model(&format!("x = {};", nest(k, "a * -(a + ", "a", ")"))))),
        ("parentheses", Box::new(|k| model(&format!("x = {};", nest(k, "(", "a", ")"))))),
        ("sums in parentheses", Box::new(|k| model(&format!("x = {};", nest(k, "a - (", "a", ")"))))),
        ("calls", Box::new(|k| model(&format!("x = {};", nest(k, "sin(", "a", ")"))))),
        ("arrays", Box::new(|k| model(&format!("x = {};", nest(k, "{", "a", "}"))))),
        ("subscripts", Box::new(|k| model(&format!("x = {};", nest(k, "a[", "1", "]"))))),
        ("postfix subscripts", Box::new(|k| model(&format!("x = {};", nest(k, "(", "a", ")[1]"))))),
        ("ranges", Box::new(|k| model(&format!("x = {};", nest(k, "(1:", "a", ")"))))),
        ("comprehensions", Box::new(|k| model(&format!("x = {};", nest(k, "{", "a", " for i in 1:2}"))))),
        ("modifications", Box::new(|k| format!("model M\n  Real x({});\nend M;\n", nest(k, "y(", "z = 1", ")")))),
        ("if-equations", Box::new(|k| model(&nest(k, "if b then ", "x = a;", " end if;")))),
        ("for-equations", Box::new(|k| model(&nest(k, "for i in 1:2 loop ", "x = a;", " end for;")))),
        ("when-equations", Box::new(|k| model(&nest(k, "when b then ", "x = a;", " end when;")))),
        ("while-statements", Box::new(|k| algorithm(&nest(k, "while b loop ", "x := a;", " end while;")))),
        (
            "if-expression assigned",
            Box::new(|k| algorithm(&format!("({}) := a;", nest(k, "if b then ", "x", " else x")))),
        ),
    ]
}

/// The largest nesting level the parser accepts (at most 5,000).
fn max_accepted(f: &dyn Fn(usize) -> String) -> usize {
    let parses = |k: usize| syntax::parse(&f(k)).is_ok();
    assert!(parses(1), "level 1 does not parse: {}", f(1));
    let (mut lo, mut hi) = (1, 5000);
    if parses(hi) {
        return hi;
    }
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if parses(mid) { lo = mid } else { hi = mid }
    }
    lo
}

#[test]
fn the_deepest_accepted_input_prints_to_an_accepted_input() {
    let failures = common::in_big_thread(|| {
        let mut failures = Vec::new();
        for (what, f) in nestings() {
            let k = max_accepted(&*f);
            let over = syntax::parse(&f(k + 1)).err().map(|e| e.kind);
            assert!(
                matches!(over, Some(SyntaxErrorKind::TooDeep(_))),
                "{what}: level {} is refused by the depth limit, not {over:?}",
                k + 1
            );
            println!("{what}: deepest accepted level {k}");
            for level in [k, k - 1, k / 2] {
                if let Err(e) = common::round_trip("deep.mo", &f(level)) {
                    failures
                        .push(format!("{what} at level {level} (the deepest accepted is {k}): {}", common::clip(&e)));
                }
            }
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------- regressions

#[test]
fn items_that_would_start_with_a_keyword_keep_their_parentheses() {
    for (src, printed) in [
        // issue 13: `if c then y else z = x;` is an if-equation without `end if`
        (model("(if b then x else a) = x;"), "(if b then x else a) = x;"),
        (model("(if b then x else a) + 1 = x;"), "(if b then x else a) + 1 = x;"),
        // `initial` and `end` end an equation section
        (model("(initial()) = b;"), "(initial()) = b;"),
        (model("(initial());"), "(initial());"),
        (model("(end) = x;"), "(end) = x;"),
        (algorithm("(if b then x else a) := a;"), "(if b then x else a) := a;"),
        (algorithm("(initial());"), "(initial());"),
    ] {
        let out = common::round_trip("t.mo", &src).unwrap_or_else(|e| panic!("{e}"));
        assert!(out.contains(printed), "{printed} not in\n{out}");
    }
}

#[test]
fn a_class_annotation_stays_a_class_annotation() {
    let src = "model M\nequation\n  x = 1;\n  annotation(a = 1);\npublic\n  Real y;\nend M;\n";
    let out = common::round_trip("t.mo", src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, "model M\nequation\n  x = 1;\n  annotation(a = 1);\npublic\n  Real y;\nend M;\n");
    let src = "function f\n  input Real u;\n  output Real y;\nexternal (\"s\") = g(u);\nend f;\n";
    common::round_trip("t.mo", src).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_quoted_identifier_holds_no_control_character() {
    for (src, at) in [
        ("class 'a\nb'\nend 'a\nb';\n", (1, 9)),
        ("model M\n  Real 'x\ty';\nend M;\n", (2, 10)),
        ("model M\n  Real 'x\\\ny';\nend M;\n", (2, 11)),
        ("model M\n  Real 'x\ry';\nend M;\n", (2, 10)),
    ] {
        let file = SourceFile::new("q.mo", src);
        let e = syntax::parse(src).expect_err(src);
        let short = e.short(&file);
        assert!(
            short.starts_with(&format!("q.mo:{}:{}: error: a quoted identifier cannot contain", at.0, at.1)),
            "{short}"
        );
    }
    // Escapes are fine, and print as written.
    let out = common::round_trip("q.mo", "model M\n  Real 'x\\ny\\'z';\nend M;\n").unwrap_or_else(|e| panic!("{e}"));
    assert!(out.contains("Real 'x\\ny\\'z';"), "{out}");
}
