//! Impulse analysis at mode changes (paper 000 §6, Figures 18–19, rules R1–R8; issue 14
//! point 6): which variables of a restart system are impulsive, and how large, as a power
//! of the infinitesimal step ∂.
//!
//! Input: a restart system in the mini-language of Figure 18 ([`System`]: expressions
//! over 0, non-zero constants, ∂, variables, integer powers, sums and products, plus
//! power series of infinite support for the other functions, eq. 46), in the form of
//! eq. (50): the dependent variables are the jumps U = X• − X of the states that may jump
//! ([`Kind::Jump`]) and the algebraic values V at the switch ([`Kind::Algebraic`]); the
//! states before the switch and the parameters are standard, non-zero (order 0), and the
//! residuals R = G of the consistency equations the switch violates are finite and
//! non-zero (order 0, a [`IExpr::Const`]). Output: [`Solution`], the impulse order [x]
//! of each dependent variable: x·∂^[x] is finite and non-zero, [0] = −∞; x is impulsive
//! when [x] > 0 (Definition 1).
//!
//! **Rules.** An expression's order (Figure 19, left column): (R1) [0] = −∞, (R2) [c] = 0,
//! (R3) [∂] = −1, (R4) [e^c] = c·[e], (R5) [e × e'] = [e] + [e'] (with −∞ + ∞ = −∞),
//! (R6) [e + e'] ≤ max([e], [e']) — taken with equality inside a term (generic
//! coefficients do not cancel), and for the series of eq. (46) [f(x)] = 0 if every
//! argument has order ≤ 0, +∞ otherwise. An equation e = e' gives [e] = [e'] (R7), and
//! saturated with all its rewritings (R8: x = y + e ⇒ y = x − e) a sum Σ tᵢ = 0 of terms
//! gives [tᵢ] ≤ max_{k≠i} [t_k] for every i: the largest order is reached by at least
//! two terms (eq. 45). Side information (51): [U] ≤ 0 (Assumption 2: restart values are
//! finite), [1/∂] = 1, [R] = 0.
//!
//! **Solver.** The paper leaves the constraint solver open. This one computes a least
//! solution by raising: every dependent variable starts at −∞; an equation whose largest
//! term is alone raises one other term, by the least integer amount, to that order —
//! the term of the variable a maximum matching of the system assigns to the equation
//! (the variable the equation determines) where it can, else the first term that can
//! reach it within its bounds; until every equation holds. Raises only increase orders,
//! bounded by [`CAP`] (beyond: +∞), so it terminates. An equation that no raise can
//! balance (a jump that Assumption 2 forbids) leaves the system without a solution
//! ([`Solution::unbalanced`]). On the ideal clutch it gives [τ₁] = [τ₂] = 1, [U] = 0
//! (§5.1); on the cup-and-ball [λ] = [s] = 1 (eq. 40).

use super::matching::maximum_matching;
use serde::{Serialize, Serializer};

/// An impulse order: −∞ (the value 0), an integer power of 1/∂, or +∞.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Order {
    NegInf,
    Fin(i32),
    PosInf,
}

impl Order {
    /// (R5) the order of a product: −∞ absorbs, then +∞.
    fn add(self, o: Order) -> Order {
        match (self, o) {
            (Order::NegInf, _) | (_, Order::NegInf) => Order::NegInf,
            (Order::PosInf, _) | (_, Order::PosInf) => Order::PosInf,
            (Order::Fin(a), Order::Fin(b)) => clamp(a + b),
        }
    }

    /// (R4) the order of a power e^c.
    fn scale(self, c: i32) -> Order {
        match (self, c.signum()) {
            (_, 0) => Order::Fin(0),
            (Order::Fin(a), _) => clamp(a * c),
            (Order::NegInf, 1) | (Order::PosInf, -1) => Order::NegInf,
            _ => Order::PosInf,
        }
    }
}

impl std::fmt::Display for Order {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Order::NegInf => write!(f, "-inf"),
            Order::Fin(n) => write!(f, "{n}"),
            Order::PosInf => write!(f, "inf"),
        }
    }
}

/// An integer in JSON, or `"inf"` / `"-inf"`.
impl Serialize for Order {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Order::Fin(n) => s.serialize_i32(*n),
            other => s.serialize_str(&other.to_string()),
        }
    }
}

/// The largest finite order the solver raises to; a variable that must go beyond is +∞.
pub const CAP: i32 = 16;

fn clamp(n: i32) -> Order {
    if n > CAP {
        Order::PosInf
    } else if n < -CAP {
        Order::NegInf
    } else {
        Order::Fin(n)
    }
}

/// An expression of Figure 18.
#[derive(Clone, Debug, PartialEq)]
pub enum IExpr {
    /// The value 0 (R1).
    Zero,
    /// A non-zero standard value: a constant, a parameter, a state before the switch, a
    /// residual (R2).
    Const,
    /// The infinitesimal step ∂ (R3).
    Delta,
    /// A dependent variable (index into [`System::vars`]).
    Var(usize),
    /// e^c, c an integer ≠ 0 (R4; c = −1 is a division).
    Pow(Box<IExpr>, i32),
    /// A sum (R6).
    Sum(Vec<IExpr>),
    /// A product (R5).
    Prod(Vec<IExpr>),
    /// A function given by a power series of infinite support, of these arguments (eq. 46).
    Series(Vec<IExpr>),
}

/// What a dependent variable of the restart system is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// U = X• − X of a state: [U] ≤ 0 (Assumption 2).
    Jump,
    /// An algebraic value at the switch: any order.
    Algebraic,
}

/// A restart system: its dependent variables and its equations `lhs = rhs`.
#[derive(Clone, Debug, Default)]
pub struct System {
    pub vars: Vec<(String, Kind)>,
    pub equations: Vec<(String, IExpr, IExpr)>,
}

/// The impulse orders found, one per dependent variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    pub orders: Vec<Order>,
    /// The equations left unbalanced (no solution within the bounds), by name.
    pub unbalanced: Vec<String>,
}

/// The order of `e` under `orders`.
pub fn order(e: &IExpr, orders: &[Order]) -> Order {
    match e {
        IExpr::Zero => Order::NegInf,
        IExpr::Const => Order::Fin(0),
        IExpr::Delta => Order::Fin(-1),
        IExpr::Var(v) => orders[*v],
        IExpr::Pow(x, c) => order(x, orders).scale(*c),
        IExpr::Sum(xs) => xs.iter().map(|x| order(x, orders)).max().unwrap_or(Order::NegInf),
        IExpr::Prod(xs) => xs.iter().fold(Order::Fin(0), |acc, x| acc.add(order(x, orders))),
        IExpr::Series(xs) => {
            if xs.iter().all(|x| order(x, orders) <= Order::Fin(0)) {
                Order::Fin(0)
            } else {
                Order::PosInf
            }
        }
    }
}

/// The terms of Σ tᵢ = 0 for `lhs = rhs` (R7, R8: both sides' summands; signs do not
/// change orders).
fn terms<'a>(lhs: &'a IExpr, rhs: &'a IExpr) -> Vec<&'a IExpr> {
    fn flat<'a>(e: &'a IExpr, out: &mut Vec<&'a IExpr>) {
        match e {
            IExpr::Sum(xs) => xs.iter().for_each(|x| flat(x, out)),
            IExpr::Zero => {}
            other => out.push(other),
        }
    }
    let mut out = Vec::new();
    flat(lhs, &mut out);
    flat(rhs, &mut out);
    out
}

fn vars_in(e: &IExpr, out: &mut Vec<usize>) {
    match e {
        IExpr::Var(v) if !out.contains(v) => out.push(*v),
        IExpr::Pow(x, _) => vars_in(x, out),
        IExpr::Sum(xs) | IExpr::Prod(xs) | IExpr::Series(xs) => xs.iter().for_each(|x| vars_in(x, out)),
        _ => {}
    }
}

/// The least solution of the system's impulse analysis found by raising (module header).
pub fn solve(sys: &System) -> Solution {
    let n = sys.vars.len();
    let eq_terms: Vec<Vec<&IExpr>> = sys.equations.iter().map(|(_, l, r)| terms(l, r)).collect();
    let graph: Vec<Vec<(usize, i64)>> = sys
        .equations
        .iter()
        .map(|(_, l, r)| {
            let mut vs = Vec::new();
            vars_in(l, &mut vs);
            vars_in(r, &mut vs);
            vs.into_iter().map(|v| (v, 0)).collect()
        })
        .collect();
    let (matched, _) = maximum_matching(&graph, n);
    let mut orders = vec![Order::NegInf; n];
    let bound = |v: usize| match sys.vars[v].1 {
        Kind::Jump => Order::Fin(0),
        Kind::Algebraic => Order::PosInf,
    };
    let mut unbalanced: Vec<usize> = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        unbalanced.clear();
        for (i, ts) in eq_terms.iter().enumerate() {
            let os: Vec<Order> = ts.iter().map(|t| order(t, &orders)).collect();
            let Some(&top) = os.iter().max() else { continue };
            let at_top: Vec<usize> = (0..ts.len()).filter(|&k| os[k] == top).collect();
            if top == Order::NegInf || at_top.len() >= 2 {
                continue;
            }
            let alone = at_top[0];
            // The candidate raises: (term, variable), the matched variable's first.
            let mut candidates: Vec<(usize, usize)> = Vec::new();
            if let Some(m) = matched[i] {
                candidates.extend((0..ts.len()).filter(|&k| k != alone && mentions(ts[k], m)).map(|k| (k, m)));
            }
            for (k, t) in ts.iter().enumerate().filter(|&(k, _)| k != alone) {
                let mut vs = Vec::new();
                vars_in(t, &mut vs);
                candidates.extend(vs.into_iter().map(|v| (k, v)));
            }
            let raised = candidates.into_iter().find_map(|(k, v)| least_raise(ts[k], v, top, &orders, bound(v)));
            match raised {
                Some((v, o)) => {
                    orders[v] = o;
                    changed = true;
                }
                None => unbalanced.push(i),
            }
        }
    }
    Solution { orders, unbalanced: unbalanced.into_iter().map(|i| sys.equations[i].0.clone()).collect() }
}

fn mentions(e: &IExpr, v: usize) -> bool {
    let mut vs = Vec::new();
    vars_in(e, &mut vs);
    vs.contains(&v)
}

/// The least order of `v` above its current one, within `bound`, that brings term `t` up
/// to `target`, if any.
fn least_raise(t: &IExpr, v: usize, target: Order, orders: &[Order], bound: Order) -> Option<(usize, Order)> {
    let start = match orders[v] {
        Order::NegInf => -CAP,
        Order::Fin(a) => a + 1,
        Order::PosInf => return None,
    };
    let mut trial = orders.to_vec();
    let values = (start..=CAP).map(Order::Fin).chain(std::iter::once(Order::PosInf));
    for o in values.take_while(|o| *o <= bound) {
        trial[v] = o;
        if order(t, &trial) >= target {
            return Some((v, o));
        }
    }
    None
}

/// One mode change of the model that needs a restart, as `--check` and `--report json`
/// list it (the restart systems are found by the RIMIS stage, `rimis::restart_system`).
#[derive(Clone, Debug, Serialize)]
pub struct ModeChange {
    /// The modes entered.
    pub entering: String,
    /// The consistency equations the switch does not make true (`e3`, `k1'`).
    pub restores: Vec<String>,
    /// `null` when the output restarts from the restart system; otherwise why it cannot.
    pub no_restart: Option<String>,
    /// Whether the impulse analysis ran (a restart system was found).
    pub analysed: bool,
    /// The impulsive variables ([x] > 0) and their orders.
    pub impulsive: Vec<Impulsive>,
    /// The states that jump ([U] = 0), with primes for their order.
    pub jumps: Vec<String>,
    /// Equations of the impulse analysis left unbalanced (no solution within the bounds).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unbalanced: Vec<String>,
    /// The restart system is nonlinear, solved by Newton's method at the switch (and the
    /// consistency equations still checked after it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub iterated: bool,
    /// Entered through an impact law of the user that may make the mode a transient one
    /// (paper 000 §5.2.3): how the output simulates it (left at once where the law opens the
    /// other mode's guard, else this restart one step later, at rest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transient: Option<String>,
}

impl ModeChange {
    /// A mode change with no restart system (`why`), so no impulse analysis.
    pub fn without_restart(entering: String, restores: Vec<String>, why: String) -> ModeChange {
        ModeChange {
            entering,
            restores,
            no_restart: Some(why),
            analysed: false,
            impulsive: Vec::new(),
            jumps: Vec::new(),
            unbalanced: Vec::new(),
            iterated: false,
            transient: None,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Impulsive {
    pub variable: String,
    pub order: Order,
}

impl ModeChange {
    /// The mode change's impulse analysis from the solution of its system (`jump_names[v]`:
    /// the state a [`Kind::Jump`] variable is the jump of).
    pub fn analysed(entering: String, restores: Vec<String>, sys: &System, jump_names: &[String]) -> ModeChange {
        let s = solve(sys);
        let mut impulsive = Vec::new();
        let mut jumps = Vec::new();
        for (v, (name, kind)) in sys.vars.iter().enumerate() {
            match kind {
                Kind::Algebraic if s.orders[v] > Order::Fin(0) => {
                    impulsive.push(Impulsive { variable: name.clone(), order: s.orders[v] })
                }
                Kind::Jump if s.orders[v] == Order::Fin(0) => jumps.push(jump_names[v].clone()),
                _ => {}
            }
        }
        ModeChange {
            entering,
            restores,
            no_restart: None,
            analysed: true,
            impulsive,
            jumps,
            unbalanced: s.unbalanced,
            iterated: false,
            transient: None,
        }
    }
}

/// The `--check` section.
pub fn text(changes: &[ModeChange]) -> String {
    if changes.is_empty() {
        return "mode changes needing a restart: none\n".into();
    }
    let mut s = format!("mode changes needing a restart ({}):\n", changes.len());
    for c in changes {
        let restart = match &c.no_restart {
            None if c.iterated => "restart computed by Newton's method, checked".to_string(),
            None => "restart computed".to_string(),
            Some(why) => format!("no restart: {why}"),
        };
        s.push_str(&format!("  entering {} (restores {}; {restart})\n", c.entering, c.restores.join(" ")));
        if let Some(how) = &c.transient {
            s.push_str(&format!("    transient mode: {how}\n"));
        }
        if !c.analysed {
            s.push_str("    impulse analysis: not done (no restart system)\n");
            continue;
        }
        if !c.unbalanced.is_empty() {
            s.push_str(&format!(
                "    no finite impulse orders: {} cannot be balanced (the orders below are lower bounds)\n",
                c.unbalanced.join(" ")
            ));
        }
        let imp: Vec<String> = c.impulsive.iter().map(|i| format!("{} (order {})", i.variable, i.order)).collect();
        s.push_str(&format!(
            "    impulsive: {}\n    jumps: {}\n",
            if imp.is_empty() { "none".into() } else { imp.join(", ") },
            if c.jumps.is_empty() { "none".into() } else { c.jumps.join(" ") }
        ));
    }
    s
}

#[cfg(test)]
#[path = "impulse_tests.rs"]
mod tests;
