// Privacy: an item without `pub` is visible in its own module and all its descendants,
// including private fields of structs and private modules along the path.

mod bank {
    #[derive(Clone, Copy)]
    pub struct Account {
        pub id: u64,
        balance: i64,
    }

    const FEE: i64 = 2;

    fn apply_fee(a: Account) -> Account {
        Account { id: a.id, balance: a.balance - FEE }
    }

    pub fn open(id: u64, deposit: i64) -> Account {
        internal::audit::log_open(Account { id, balance: deposit })
    }

    pub fn balance(a: Account) -> i64 {
        a.balance
    }

    pub fn transfer(from: Account, to: Account, amount: i64) -> [Account; 2] {
        teller::transfer(from, to, amount)
    }

    // A private module: reachable only from inside `bank`.
    mod internal {
        pub mod audit {
            pub fn log_open(a: super::super::Account) -> super::super::Account {
                // Descendants read private fields and call private functions of ancestors.
                println!("audit: opened account {} with {}", a.id, a.balance);
                super::super::apply_fee(a)
            }
        }
    }

    pub mod teller {
        use super::Account;

        pub fn transfer(mut from: Account, mut to: Account, amount: i64) -> [Account; 2] {
            if from.balance >= amount + super::FEE {
                from.balance -= amount;
                to.balance += amount;
                from = super::apply_fee(from);
            }
            [from, to]
        }

        pub fn peek(a: Account) -> i64 {
            // A private field of a struct in an ancestor module is visible here.
            a.balance
        }
    }
}

fn main() {
    let a = bank::open(1, 100);
    let b = bank::open(2, 50);
    println!("balances: {} {}", bank::balance(a), bank::balance(b));
    let r = bank::transfer(a, b, 30);
    println!("after transfer: {} {} (ids {} {})", bank::balance(r[0]), bank::balance(r[1]), r[0].id, r[1].id);
    let r2 = bank::transfer(r[1], r[0], 1000);
    println!("refused transfer: {} {}", bank::teller::peek(r2[0]), bank::teller::peek(r2[1]));
}
