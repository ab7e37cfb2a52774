//! Mode-dependent natural numbers as little-endian vectors of BDDs (paper 002 §4.3: "a
//! little-endian variable-length binary encoding"): bit k of the value is true exactly
//! in the modes (or mode × matching valuations) of `bits[k]`. Arithmetic is ripple-carry
//! on BDDs: `add`, `sub` (wraps; callers mask modes where it would underflow), `max`,
//! comparisons and `ite`. The high bits of small numbers are constant: every operation
//! goes through [`super::ops`], which skips the BDD operation where an operand is constant,
//! so a wide vector of small values costs little more than a narrow one (issue 15: the dual
//! fixpoint on Westinghouse N = 1000 spent most of its time xor-ing false with false).

use super::ops::{and, and_not, iff, ite, or, xor};
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
        BitVec { bits: a.bits.iter().zip(&b.bits).map(|(x, y)| ite(c, x, y)).collect() }
    }

    /// a + b (modulo 2^width).
    pub fn add(&self, other: &BitVec, set: &BddVariableSet) -> BitVec {
        let mut carry = set.mk_false();
        let mut bits = Vec::with_capacity(self.bits.len());
        for (a, b) in self.bits.iter().zip(&other.bits) {
            let axb = xor(a, b);
            bits.push(xor(&axb, &carry));
            carry = or(&and(a, b), &and(&carry, &axb));
        }
        BitVec { bits }
    }

    /// a − b (modulo 2^width).
    pub fn sub(&self, other: &BitVec, set: &BddVariableSet) -> BitVec {
        let mut borrow = set.mk_false();
        let mut bits = Vec::with_capacity(self.bits.len());
        for (a, b) in self.bits.iter().zip(&other.bits) {
            let axb = xor(a, b);
            bits.push(xor(&axb, &borrow));
            // borrow out = (!a & b) | (!(a ^ b) & borrow)
            borrow = or(&and_not(b, a), &and_not(&borrow, &axb));
        }
        BitVec { bits }
    }

    /// Where a ≥ b.
    pub fn ge(&self, other: &BitVec, set: &BddVariableSet) -> Bdd {
        // From the least significant bit up: ge = (a_k & !b_k) | (!(a_k ^ b_k) & ge_below).
        let mut ge = set.mk_true();
        for (a, b) in self.bits.iter().zip(&other.bits) {
            ge = or(&and_not(a, b), &and_not(&ge, &xor(a, b)));
        }
        ge
    }

    /// Where a = b.
    pub fn eq(&self, other: &BitVec, set: &BddVariableSet) -> Bdd {
        self.bits.iter().zip(&other.bits).fold(set.mk_true(), |acc, (a, b)| and(&acc, &iff(a, b)))
    }

    pub fn max(&self, other: &BitVec, set: &BddVariableSet) -> BitVec {
        BitVec::ite(&self.ge(other, set), self, other)
    }

    /// Where the value is exactly `value`.
    pub fn is(&self, value: u64, set: &BddVariableSet) -> Bdd {
        self.bits
            .iter()
            .enumerate()
            .fold(set.mk_true(), |acc, (k, b)| if value >> k & 1 == 1 { and(&acc, b) } else { and_not(&acc, b) })
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

    /// Random mode-dependent values over 3 variables (some constant, so the shortcuts for
    /// constant bits run), against integer arithmetic in all 8 valuations.
    #[test]
    fn shortcuts_for_constant_bits_agree_with_integers() {
        let set = BddVariableSet::new_anonymous(3);
        let v = set.variables();
        let mut seed = 11u64;
        let mut rnd = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let valuations: Vec<[bool; 3]> = (0..8).map(|b| [b & 1 == 1, b & 2 == 2, b & 4 == 4]).collect();
        let at = |bv: &BitVec, val: &[bool; 3]| {
            bv.bits.iter().enumerate().fold(0u64, |acc, (k, b)| {
                let r: Vec<_> = v.iter().zip(val).map(|(&x, &y)| (x, y)).collect();
                acc | (u64::from(b.restrict(&r).is_true()) << k)
            })
        };
        let holds = |b: &Bdd, val: &[bool; 3]| {
            b.restrict(&v.iter().zip(val).map(|(&x, &y)| (x, y)).collect::<Vec<_>>()).is_true()
        };
        for _ in 0..200 {
            // A value per valuation (constant a third of the time), width 5.
            let mut make = || {
                let constant = rnd(3) == 0;
                let first = rnd(12);
                let values: Vec<u64> = (0..8).map(|_| if constant { first } else { rnd(12) }).collect();
                let bits = (0..5)
                    .map(|k| {
                        valuations.iter().zip(&values).filter(|(_, x)| *x >> k & 1 == 1).fold(
                            set.mk_false(),
                            |acc, (val, _)| {
                                let cube = v.iter().zip(val).fold(set.mk_true(), |c, (&x, &y)| {
                                    let lit = set.mk_var(x);
                                    c.and(&if y { lit } else { lit.not() })
                                });
                                acc.or(&cube)
                            },
                        )
                    })
                    .collect();
                (BitVec { bits }, values)
            };
            let ((a, va), (b, vb)) = (make(), make());
            for (n, val) in valuations.iter().enumerate() {
                let (x, y) = (va[n], vb[n]);
                assert_eq!(at(&a.add(&b, &set), val), (x + y) % 32);
                assert_eq!(at(&a.sub(&b, &set), val), (x + 32 - y) % 32);
                assert_eq!(at(&a.max(&b, &set), val), x.max(y));
                assert_eq!(holds(&a.ge(&b, &set), val), x >= y);
                assert_eq!(holds(&a.eq(&b, &set), val), x == y);
                assert_eq!(holds(&a.is(y, &set), val), x == y);
            }
            let parts = a.partition(&set.mk_true(), &set);
            for (n, val) in valuations.iter().enumerate() {
                let here: Vec<u32> = parts.iter().filter(|(_, m)| holds(m, val)).map(|p| p.0).collect();
                assert_eq!(here, vec![va[n] as u32]);
            }
        }
    }
}
