//! The `function` classes of a file, as time differentiation needs them.
//!
//! Owns: [`Functions`] (built once by [`Functions::from_ast`], keyed by the name as
//! written: `WaterTank.inputFlow`, `'WaterTank.inputFlow'`, and for a function nested
//! in a class both `inputFlow` and `WaterTank.inputFlow`), [`Function`] (inputs,
//! outputs, locals, `derivative` annotations, body), argument binding and inlining of
//! a straight-line body (`:=` assignments only, one output). Lookups are exact, then
//! with the quotes of a quoted name toggled. Annotations omc's flat output drops from
//! the library's table functions are restored by [`dropped`]. Deterministic: a `BTreeMap`; on a
//! duplicate name the first definition wins.

use super::build::map_children;
use super::dropped;
use crate::syntax::Span;
use crate::syntax::ast::*;
use crate::syntax::printer::expr_to_string;
use std::collections::BTreeMap;

/// An input, output or local of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Text,
    /// Not `Integer`, `Boolean`, `String` or an enumeration: gets a derivative argument.
    pub real: bool,
    pub default: Option<Expr>,
}

/// `annotation(derivative(order = k, noDerivative = a, zeroDerivative = b) = f_der)`
/// (Modelica 3.6 §12.7.1); `function` is resolved to a name of the table if possible.
#[derive(Clone, Debug, PartialEq)]
pub struct DerivativeAnnotation {
    pub function: Text,
    pub order: i64,
    pub no_derivative: Vec<Text>,
    pub zero_derivative: Vec<Text>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Straight-line `target := value` statements in order.
    Assignments(Vec<(Text, Expr)>),
    /// An `external` function; `builtin` when it is a math builtin under another name
    /// (`function Modelica.Math.sin … external "builtin"`).
    External { builtin: Option<&'static str> },
    /// Anything else, with the reason it cannot be inlined.
    Other(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: Text,
    pub inputs: Vec<Param>,
    pub outputs: Vec<Param>,
    pub locals: Vec<Param>,
    pub derivatives: Vec<DerivativeAnnotation>,
    pub body: Body,
    pub span: Span,
}

/// The function table of a file.
#[derive(Clone, Debug, Default)]
pub struct Functions {
    map: BTreeMap<String, Function>,
}

impl Functions {
    /// Every `function` class of `def`, at top level or nested in other classes.
    pub fn from_ast(def: &StoredDefinition) -> Functions {
        let mut fns = Functions::default();
        for c in &def.classes {
            fns.collect(c, "");
        }
        let names: Vec<String> = fns.map.keys().cloned().collect();
        for n in &names {
            fns.resolve_annotations(n);
        }
        let restored: Vec<(String, DerivativeAnnotation)> =
            names.into_iter().filter_map(|n| dropped::restore(&fns.map[&n], |m| fns.get(m)).map(|a| (n, a))).collect();
        for (n, a) in restored {
            if let Some(f) = fns.map.get_mut(&n) {
                f.derivatives.push(a);
            }
        }
        fns
    }

    /// The function called `name` (exact, then with its quotes toggled).
    pub fn get(&self, name: &str) -> Option<&Function> {
        self.map.get(name).or_else(|| self.map.get(&toggle_quotes(name)))
    }

    fn collect(&mut self, c: &ClassDef, scope: &str) {
        let ClassBody::Long(comp) = &c.body else { return };
        let name = c.name.text.as_str();
        if matches!(c.kind, ClassKind::Function | ClassKind::PureFunction | ClassKind::ImpureFunction) {
            let f = super::function_body::read(c, comp);
            self.map.entry(name.to_string()).or_insert_with(|| f.clone());
            if !scope.is_empty() {
                self.map.entry(format!("{scope}.{name}")).or_insert(f);
            }
        }
        let inner = if scope.is_empty() { name.to_string() } else { format!("{scope}.{name}") };
        for nested in c.nested_classes() {
            self.collect(nested, &inner);
        }
    }

    /// Resolves each `derivative` annotation of `key` as written, else in the scopes
    /// enclosing the function's name (`A.B.f` looks for `A.B.f_der`, then `A.f_der`).
    fn resolve_annotations(&mut self, key: &str) {
        let Some(f) = self.map.get(key) else { return };
        let resolved: Vec<Text> = f.derivatives.iter().map(|d| self.resolve(key, &d.function)).collect();
        if let Some(f) = self.map.get_mut(key) {
            for (d, r) in f.derivatives.iter_mut().zip(resolved) {
                d.function = r;
            }
        }
    }

    fn resolve(&self, from: &str, name: &str) -> Text {
        if self.get(name).is_some() {
            return text(name);
        }
        let quoted = from.starts_with('\'') && from.ends_with('\'') && from.len() >= 2;
        let bare = if quoted { &from[1..from.len() - 1] } else { from };
        let mut scope = bare;
        while let Some(dot) = scope.rfind('.') {
            scope = &scope[..dot];
            let candidate = format!("{scope}.{name}");
            let candidate = if quoted { format!("'{candidate}'") } else { candidate };
            if let Some(f) = self.get(&candidate) {
                return f.name;
            }
        }
        text(name)
    }
}

/// `'a.b'` ↔ `a.b`.
fn toggle_quotes(name: &str) -> String {
    match name.strip_prefix('\'').and_then(|n| n.strip_suffix('\'')) {
        Some(bare) => bare.to_string(),
        None => format!("'{name}'"),
    }
}

impl Function {
    /// One expression per input, from the call's positional and named arguments and
    /// the inputs' defaults (a default may refer to earlier inputs).
    pub fn bind_args(&self, c: &Call) -> Result<Vec<Expr>, String> {
        let FunctionArgs::List { positional, named } = &c.args else {
            return Err("a reduction call".to_string());
        };
        if positional.len() > self.inputs.len() {
            return Err(format!("{} arguments for {} inputs", positional.len(), self.inputs.len()));
        }
        let mut env: BTreeMap<Text, Expr> = BTreeMap::new();
        let mut out = Vec::with_capacity(self.inputs.len());
        for (k, p) in self.inputs.iter().enumerate() {
            let value = match (positional.get(k), named.iter().find(|n| n.name.text == p.name)) {
                (Some(v), _) => v.clone(),
                (None, Some(n)) => n.value.clone(),
                (None, None) => match &p.default {
                    Some(d) => substitute(d, &env),
                    None => return Err(format!("no argument for input `{}`", p.name)),
                },
            };
            env.insert(p.name, value.clone());
            out.push(value);
        }
        if let Some(n) = named.iter().find(|n| !self.inputs.iter().any(|p| p.name == n.name.text)) {
            return Err(format!("no input named `{}`", n.name.text));
        }
        Ok(out)
    }

    /// The output of the call `c` as one expression of the arguments: inputs bound,
    /// locals and output bindings, then the assignments substituted in order.
    pub fn inline(&self, c: &Call) -> Result<Expr, String> {
        let Body::Assignments(stmts) = &self.body else {
            return Err(match &self.body {
                Body::Other(reason) => reason.clone(),
                _ => "it is external".to_string(),
            });
        };
        let [output] = self.outputs.as_slice() else {
            return Err(format!("it has {} outputs", self.outputs.len()));
        };
        let args = self.bind_args(c)?;
        let mut env: BTreeMap<Text, Expr> = self.inputs.iter().map(|p| p.name).zip(args).collect();
        for p in self.locals.iter().chain(&self.outputs) {
            if let Some(d) = &p.default {
                parts_named(d, &env)?;
                let v = substitute(d, &env);
                env.insert(p.name, v);
            }
        }
        for (target, value) in stmts {
            parts_named(value, &env)?;
            let v = substitute(value, &env);
            env.insert(*target, v);
        }
        env.remove(&output.name).ok_or_else(|| format!("its output `{}` is never assigned", output.name))
    }
}

/// `e` with each name bound in `env` replaced by its value (values are not re-visited);
/// a field `p.f` of a name `p` bound to a name `a` becomes `a.f`.
pub(crate) fn substitute(e: &Expr, env: &BTreeMap<Text, Expr>) -> Expr {
    match &e.kind {
        ExprKind::Name(n) => match env.get(n) {
            Some(v) => v.clone(),
            None => match field_of(n.as_str()).and_then(|(root, rest)| Some((env.get(&text(root))?, rest))) {
                Some((Expr { kind: ExprKind::Name(a), .. }, rest)) => {
                    Expr { kind: ExprKind::Name(text(&format!("{a}{rest}"))), span: e.span }
                }
                _ => e.clone(),
            },
        },
        _ => map_children(e, &mut |c| substitute(c, env)),
    }
}

/// `p.f` → (`p`, `.f`) for an unquoted first identifier.
fn field_of(name: &str) -> Option<(&str, &str)> {
    if name.starts_with('\'') {
        return None;
    }
    name.find('.').map(|k| name.split_at(k))
}

/// Inlining would leak a function's own names into the model where `e` reads a part of
/// a bound name that [`substitute`] cannot name: a field `p.f` of a record bound to an
/// expression (`properties.rho` of `waterBaseProp_ph(…)`), or a subscripted `x[i]`.
fn parts_named(e: &Expr, env: &BTreeMap<Text, Expr>) -> Result<(), String> {
    let part = match &e.kind {
        ExprKind::Name(n) => field_of(n.as_str())
            .filter(|(root, _)| env.get(&text(root)).is_some_and(|v| !matches!(v.kind, ExprKind::Name(_))))
            .map(|(root, _)| (root.to_string(), n.to_string())),
        ExprKind::Ref(r) => r
            .parts
            .first()
            .filter(|p| env.contains_key(&p.ident.text))
            .map(|p| (p.ident.text.to_string(), expr_to_string(e))),
        _ => None,
    };
    if let Some((root, shown)) = part {
        return Err(format!("its body reads `{shown}`, a part of its input or local `{root}` bound to an expression"));
    }
    let mut found = Ok(());
    map_children(e, &mut |c| {
        if found.is_ok() {
            found = parts_named(c, env);
        }
        c.clone()
    });
    found
}
