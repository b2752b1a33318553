//! The transaction mix as a deck of cards per terminal (clause 5.2.4.2): each
//! terminal deals its deck in a random order and reshuffles when it is empty,
//! so every 100 transactions hold exactly the mix.

use rand::seq::SliceRandom as _;

use crate::generator::Rng;
use crate::measure::Operation;

/// The five transactions, in the order of `MIX`.
pub const TRANSACTIONS: [Operation; 5] = [
    Operation::NewOrder,
    Operation::Payment,
    Operation::OrderStatus,
    Operation::Delivery,
    Operation::StockLevel,
];

/// Cards per transaction in a deck of 100: New-Order 45 %, Payment 43 %,
/// Order-Status, Delivery and Stock-Level 4 % each (the spec's minimums for the
/// last four, as go-tpc and most TPC-C kits run it).
pub const MIX: [usize; 5] = [45, 43, 4, 4, 4];

/// One terminal's deck.
#[derive(Debug, Clone)]
pub struct Deck {
    cards: Vec<Operation>,
    next: usize,
}

impl Deck {
    /// A full deck, to be shuffled at the first deal.
    pub fn new() -> Self {
        let mut cards = Vec::with_capacity(MIX.iter().sum());
        for (op, &n) in TRANSACTIONS.iter().zip(&MIX) {
            cards.extend(std::iter::repeat_n(*op, n));
        }
        let next = cards.len();
        Self { cards, next }
    }

    /// The next transaction.
    pub fn deal(&mut self, rng: &mut Rng) -> Operation {
        if self.next == self.cards.len() {
            self.cards.shuffle(rng);
            self.next = 0;
        }
        let card = self.cards[self.next];
        self.next += 1;
        card
    }
}

impl Default for Deck {
    fn default() -> Self {
        Self::new()
    }
}

/// The position of `op` in `TRANSACTIONS` (counters per transaction).
pub fn index(op: Operation) -> usize {
    TRANSACTIONS.iter().position(|&t| t == op).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng as _;

    #[test]
    fn every_hundred_cards_hold_the_mix() {
        let mut rng = Rng::seed_from_u64(11);
        let mut deck = Deck::new();
        for _ in 0..5 {
            let mut counts = [0usize; 5];
            for _ in 0..100 {
                counts[index(deck.deal(&mut rng))] += 1;
            }
            assert_eq!(counts, MIX);
        }
    }

    #[test]
    fn decks_are_shuffled() {
        let mut rng = Rng::seed_from_u64(5);
        let mut deck = Deck::new();
        let first: Vec<_> = (0..100).map(|_| deck.deal(&mut rng)).collect();
        let second: Vec<_> = (0..100).map(|_| deck.deal(&mut rng)).collect();
        assert_ne!(first, second);
        // Not dealt in the unshuffled order (45 New-Orders first).
        assert!(first[..45].iter().any(|&op| op != Operation::NewOrder));
    }
}
