mod bank {
    #[derive(Clone, Copy)]
    pub struct Account {
        pub id: u64,
        balance: i64,
    }

    pub fn open(id: u64) -> Account {
        Account { id, balance: 0 }
    }
}

fn main() {
    let a = bank::open(7);
    println!("{}", a.id);
    println!("{}", a.balance); //~ ERROR field `balance` of struct `Account` is private
}
