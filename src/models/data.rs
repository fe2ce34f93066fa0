//! The data-model study's data set: `PEOPLE(id, name, age, gender, color)` and
//! `TRANSACTION(id, seller, buyer, price, item, date)`, seller and buyer referencing a person.
//! Every field is drawn by one xorshift64 generator (Marsaglia's 13/7/17 shifts) from the
//! seed, over built-in word lists, so a seed gives the same rows on every machine.
//!
//! `tuples` is the number of people; each person sells `per_person` transactions (default 3),
//! to a buyer drawn uniformly from the other people. Ids count from 1.

/// First names (64): the values of `name`, so a lookup by name finds several people.
pub const NAMES: [&str; 64] = [
    "Ada", "Alan", "Alice", "Amir", "Anna", "Ava", "Ben", "Bo", "Carla", "Chen", "Chloe", "Dan",
    "Dara", "Eli", "Ella", "Emil", "Eva", "Femi", "Finn", "Gia", "Hana", "Hugo", "Ida", "Ivan",
    "Jade", "Jon", "Kai", "Kim", "Lars", "Lea", "Leo", "Lina", "Luca", "Maja", "Mali", "Max",
    "Mia", "Nia", "Nils", "Noah", "Nora", "Omar", "Ola", "Pia", "Raj", "Rosa", "Ruth", "Sam",
    "Sara", "Sol", "Tao", "Tess", "Theo", "Uma", "Vera", "Wei", "Xena", "Yara", "Yusuf", "Zac",
    "Zara", "Zoe", "Aiko", "Bela",
];

/// Colours (16): the values of `color`.
pub const COLOURS: [&str; 16] = [
    "amber", "black", "blue", "brown", "coral", "cyan", "gold", "green", "grey", "indigo", "lime",
    "navy", "orange", "pink", "red", "white",
];

/// Items (32): the values of `item`.
pub const ITEMS: [&str; 32] = [
    "bag",
    "bicycle",
    "book",
    "bottle",
    "camera",
    "chair",
    "charger",
    "clock",
    "coat",
    "cup",
    "desk",
    "drone",
    "guitar",
    "hat",
    "headphones",
    "helmet",
    "jacket",
    "kettle",
    "keyboard",
    "lamp",
    "laptop",
    "mirror",
    "mouse",
    "phone",
    "printer",
    "radio",
    "scarf",
    "shoes",
    "sofa",
    "tablet",
    "umbrella",
    "watch",
];

/// Ages are drawn from 18 to 80.
pub const MIN_AGE: u32 = 18;
pub const MAX_AGE: u32 = 80;
/// Dates are days from 2020-01-01, over five years.
pub const DAYS: u32 = 1826;

/// Marsaglia's xorshift64 (shifts 13, 7, 17); a zero seed is replaced by a fixed constant.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        XorShift(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value in `0..n` (`n` ≥ 1), by remainder.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A value in `lo..=hi`.
    pub fn between(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(u64::from(hi - lo) + 1) as u32
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Person {
    pub id: u32,
    pub name: String,
    pub age: u32,
    /// `F` or `M`.
    pub gender: String,
    pub color: String,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Transaction {
    pub id: u32,
    pub seller: u32,
    pub buyer: u32,
    /// In cents, 100 to 100 000.
    pub price: u32,
    pub item: String,
    /// Days since 2020-01-01.
    pub date: u32,
}

/// Both tables.
#[derive(Clone, Debug)]
pub struct DataSet {
    pub people: Vec<Person>,
    pub transactions: Vec<Transaction>,
}

impl DataSet {
    /// `tuples` people, each selling `per_person` transactions, drawn from `seed`: people first
    /// (name, age, gender, colour each), then transactions (buyer, price, item, date each).
    pub fn generate(seed: u64, tuples: u32, per_person: u32) -> DataSet {
        let mut rng = XorShift::new(seed);
        let people = (1..=tuples)
            .map(|id| Person {
                id,
                name: NAMES[rng.below(NAMES.len() as u64) as usize].into(),
                age: rng.between(MIN_AGE, MAX_AGE),
                gender: if rng.below(2) == 0 { "F" } else { "M" }.into(),
                color: COLOURS[rng.below(COLOURS.len() as u64) as usize].into(),
            })
            .collect();
        let mut transactions = Vec::with_capacity(tuples as usize * per_person as usize);
        for seller in 1..=tuples {
            for _ in 0..per_person {
                // Another person (the seller itself only when there is nobody else).
                let buyer = if tuples > 1 {
                    let b = 1 + rng.below(u64::from(tuples) - 1) as u32;
                    if b >= seller {
                        b + 1
                    } else {
                        b
                    }
                } else {
                    seller
                };
                transactions.push(Transaction {
                    id: transactions.len() as u32 + 1,
                    seller,
                    buyer,
                    price: rng.between(100, 100_000),
                    item: ITEMS[rng.below(ITEMS.len() as u64) as usize].into(),
                    date: rng.below(u64::from(DAYS)) as u32,
                });
            }
        }
        DataSet {
            people,
            transactions,
        }
    }

    /// People and transactions together.
    pub fn rows(&self) -> u64 {
        (self.people.len() + self.transactions.len()) as u64
    }
}
