//! Mode-dependent natural numbers as little-endian vectors of BDDs (paper 002 §4.3: "a
//! little-endian variable-length binary encoding"): bit k of the value is true exactly
//! in the modes (or mode × matching valuations) of `bits[k]`. Arithmetic is ripple-carry
//! on BDDs: `add`, `sub` (wraps; callers mask modes where it would underflow), `max`,
//! comparisons and `ite`.

use biodivine_lib_bdd::{Bdd, BddVariableSet};

#[derive(Clone, Debug)]
pub struct BitVec {
    pub bits: Vec<Bdd>,
}

impl BitVec {
    /// The constant `value` on `width` bits.
    pub fn constant(set: &BddVariableSet, width: usize, value: u64) -> BitVec {
        BitVec { bits: (0..width).map(|k| if value >> k & 1 == 1 { set.mk_true() } else { set.mk_false() }).collect() }
    }

    /// `if c then a else b`, bitwise.
    pub fn ite(c: &Bdd, a: &BitVec, b: &BitVec) -> BitVec {
        BitVec { bits: a.bits.iter().zip(&b.bits).map(|(x, y)| Bdd::if_then_else(c, x, y)).collect() }
    }

    /// a + b (modulo 2^width).
    pub fn add(&self, other: &BitVec, set: &BddVariableSet) -> BitVec {
        let mut carry = set.mk_false();
        let mut bits = Vec::with_capacity(self.bits.len());
        for (a, b) in self.bits.iter().zip(&other.bits) {
            let axb = a.xor(b);
            bits.push(axb.xor(&carry));
            carry = a.and(b).or(&carry.and(&axb));
        }
        BitVec { bits }
    }

    /// a − b (modulo 2^width).
    pub fn sub(&self, other: &BitVec, set: &BddVariableSet) -> BitVec {
        let mut borrow = set.mk_false();
        let mut bits = Vec::with_capacity(self.bits.len());
        for (a, b) in self.bits.iter().zip(&other.bits) {
            let axb = a.xor(b);
            bits.push(axb.xor(&borrow));
            // borrow out = (!a & b) | (!(a ^ b) & borrow)
            borrow = b.and_not(a).or(&borrow.and_not(&axb));
        }
        BitVec { bits }
    }

    /// Where a ≥ b.
    pub fn ge(&self, other: &BitVec, set: &BddVariableSet) -> Bdd {
        // From the least significant bit up: ge = (a_k & !b_k) | (!(a_k ^ b_k) & ge_below).
        let mut ge = set.mk_true();
        for (a, b) in self.bits.iter().zip(&other.bits) {
            ge = a.and_not(b).or(&ge.and_not(&a.xor(b)));
        }
        ge
    }

    /// Where a = b.
    pub fn eq(&self, other: &BitVec, set: &BddVariableSet) -> Bdd {
        self.bits.iter().zip(&other.bits).fold(set.mk_true(), |acc, (a, b)| acc.and(&a.iff(b)))
    }

    pub fn max(&self, other: &BitVec, set: &BddVariableSet) -> BitVec {
        BitVec::ite(&self.ge(other, set), self, other)
    }

    /// Where the value is exactly `value`.
    pub fn is(&self, value: u64, set: &BddVariableSet) -> Bdd {
        self.bits.iter().enumerate().fold(
            set.mk_true(),
            |acc, (k, b)| {
                if value >> k & 1 == 1 { acc.and(b) } else { acc.and_not(b) }
            },
        )
    }

    /// The partition of `within` by value: (value, modes) for every value taken.
    pub fn partition(&self, within: &Bdd, set: &BddVariableSet) -> Vec<(u32, Bdd)> {
        let mut out = Vec::new();
        let mut rest = within.clone();
        let max = if self.bits.len() >= 32 { u32::MAX as u64 } else { (1u64 << self.bits.len()) - 1 };
        let mut v = 0u64;
        while !rest.is_false() && v <= max {
            let here = rest.and(&self.is(v, set));
            if !here.is_false() {
                rest = rest.and_not(&here);
                out.push((v as u32, here));
            }
            v += 1;
        }
        out
    }

    pub fn same(&self, other: &BitVec) -> bool {
        self.bits.iter().zip(&other.bits).all(|(a, b)| a.iff(b).is_true())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_matches_integers_in_every_valuation() {
        let set = BddVariableSet::new_anonymous(2);
        let v = set.variables();
        let (x, y) = (set.mk_var(v[0]), set.mk_var(v[1]));
        // a = if x then 5 else 2; b = if y then 3 else 1   (width 4)
        let a = BitVec::ite(&x, &BitVec::constant(&set, 4, 5), &BitVec::constant(&set, 4, 2));
        let b = BitVec::ite(&y, &BitVec::constant(&set, 4, 3), &BitVec::constant(&set, 4, 1));
        for (vx, vy) in [(false, false), (false, true), (true, false), (true, true)] {
            let (ia, ib) = (if vx { 5 } else { 2 }, if vy { 3 } else { 1 });
            let at = |bv: &BitVec| {
                (0..4).fold(0u64, |acc, k| {
                    let val = bv.bits[k].restrict(&[(v[0], vx), (v[1], vy)]).is_true();
                    acc | (u64::from(val) << k)
                })
            };
            let holds = |b: &Bdd| b.restrict(&[(v[0], vx), (v[1], vy)]).is_true();
            assert_eq!(at(&a.add(&b, &set)), (ia + ib) % 16);
            assert_eq!(at(&a.sub(&b, &set)), (ia + 16 - ib) % 16);
            assert_eq!(at(&a.max(&b, &set)), ia.max(ib));
            assert_eq!(holds(&a.ge(&b, &set)), ia >= ib);
            assert_eq!(holds(&a.eq(&b, &set)), ia == ib);
        }
    }
}
