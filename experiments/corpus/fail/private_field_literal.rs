mod bank {
    #[derive(Clone, Copy)]
    pub struct Account {
        pub id: u64,
        balance: i64,
    }

    pub fn balance(a: Account) -> i64 {
        a.balance
    }
}

fn main() {
    let a = bank::Account { id: 1, balance: 100 }; //~ ERROR field `balance` of struct `Account` is private
    println!("{}", bank::balance(a));
}
