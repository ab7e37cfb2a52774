//! Boolean operations on BDDs that skip the library call where an operand is constant
//! (`false ∨ x` is x, `true ∧ x` is x, …): exact, since BDDs are canonical, and the
//! library allocates its tables for every call however small the operands. The implicit
//! strategy's bit-vectors and dynamic programme are mostly such operations (issue 15).

use biodivine_lib_bdd::Bdd;

pub(super) fn xor(a: &Bdd, b: &Bdd) -> Bdd {
    if a.is_false() {
        b.clone()
    } else if b.is_false() {
        a.clone()
    } else {
        a.xor(b)
    }
}

pub(super) fn and(a: &Bdd, b: &Bdd) -> Bdd {
    if a.is_false() || b.is_true() {
        a.clone()
    } else if b.is_false() || a.is_true() {
        b.clone()
    } else {
        a.and(b)
    }
}

pub(super) fn or(a: &Bdd, b: &Bdd) -> Bdd {
    if a.is_true() || b.is_false() {
        a.clone()
    } else if b.is_true() || a.is_false() {
        b.clone()
    } else {
        a.or(b)
    }
}

/// a ∧ ¬b.
pub(super) fn and_not(a: &Bdd, b: &Bdd) -> Bdd {
    if a.is_false() || b.is_false() {
        a.clone()
    } else if b.is_true() {
        b.not()
    } else {
        a.and_not(b)
    }
}

/// c ∨ (a ∧ b) in one pass over the three (biodivine's `ternary_op`): no intermediate
/// a ∧ b is built and freed (the primal programme's steps are mostly such updates).
pub(super) fn or_and(c: &Bdd, a: &Bdd, b: &Bdd) -> Bdd {
    if c.is_true() || a.is_false() || b.is_false() {
        c.clone()
    } else if c.is_false() {
        and(a, b)
    } else if a.is_true() {
        or(c, b)
    } else if b.is_true() {
        or(c, a)
    } else {
        Bdd::ternary_op(c, a, b, |c, a, b| match (c, a, b) {
            (Some(true), _, _) => Some(true),
            (_, Some(true), Some(true)) => Some(true),
            (c, Some(false), _) | (c, _, Some(false)) => c,
            _ => None,
        })
    }
}

pub(super) fn iff(a: &Bdd, b: &Bdd) -> Bdd {
    if a.is_true() {
        b.clone()
    } else if b.is_true() {
        a.clone()
    } else if a.is_false() {
        b.not()
    } else if b.is_false() {
        a.not()
    } else {
        a.iff(b)
    }
}

pub(super) fn ite(c: &Bdd, x: &Bdd, y: &Bdd) -> Bdd {
    if c.is_true() || x == y {
        x.clone()
    } else if c.is_false() {
        y.clone()
    } else {
        Bdd::if_then_else(c, x, y)
    }
}

/// The union of `sets`, pairwise (a balanced tree of unions): k parts united one by one
/// rebuild the growing union k times; pairwise, each level's unions are as small as
/// their operands (the structural classes of a rewritten ThreeTanks output: thousands of
/// parts).
pub(super) fn or_all(mut sets: Vec<Bdd>) -> Option<Bdd> {
    while sets.len() > 1 {
        let mut next = Vec::with_capacity(sets.len().div_ceil(2));
        let mut it = sets.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => or(&a, &b),
                None => a,
            });
        }
        sets = next;
    }
    sets.pop()
}
