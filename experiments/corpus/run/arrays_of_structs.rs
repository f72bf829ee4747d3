// Arrays of structs and structs containing arrays of structs.

#[derive(Clone, Copy)]
struct Item {
    weight: i32,
    value: i32,
    taken: bool,
}

#[derive(Clone, Copy)]
struct Inventory {
    items: [Item; 5],
    used: usize,
}

fn item(weight: i32, value: i32) -> Item {
    Item { weight, value, taken: false }
}

fn best_value(inv: Inventory, capacity: i32) -> i32 {
    // 0/1 knapsack by exhaustive search over subsets of the used items.
    let mut best = 0;
    let subsets = 1 << inv.used;
    for mask in 0..subsets {
        let mut w = 0;
        let mut v = 0;
        for i in 0..inv.used {
            if (mask >> i) & 1 == 1 {
                w += inv.items[i].weight;
                v += inv.items[i].value;
            }
        }
        if w <= capacity && v > best {
            best = v;
        }
    }
    best
}

fn greedy(mut inv: Inventory, capacity: i32) -> Inventory {
    let mut left = capacity;
    for i in 0..inv.used {
        if inv.items[i].weight <= left {
            inv.items[i].taken = true;
            left -= inv.items[i].weight;
        }
    }
    inv
}

fn main() {
    let mut inv = Inventory { items: [item(0, 0); 5], used: 0 };
    let weights = [12, 2, 1, 1, 4];
    let values = [4, 2, 1, 2, 10];
    for i in 0..5 {
        inv.items[inv.used] = item(weights[i], values[i]);
        inv.used += 1;
    }
    println!("best value for capacity 15: {}", best_value(inv, 15));
    println!("best value for capacity 5: {}", best_value(inv, 5));

    let g = greedy(inv, 15);
    for i in 0..5 {
        println!("item {}: weight {}, value {}, greedy takes {}, original {}", i, g.items[i].weight, g.items[i].value, g.items[i].taken, inv.items[i].taken);
    }

    // Sorting an array of structs by a field (insertion sort).
    let mut arr = inv.items;
    for i in 1..5 {
        let mut j = i;
        while j > 0 && arr[j - 1].value > arr[j].value {
            let tmp = arr[j - 1];
            arr[j - 1] = arr[j];
            arr[j] = tmp;
            j -= 1;
        }
    }
    for i in 0..5 {
        println!("sorted {}: value {}", i, arr[i].value);
    }
    println!("inv unchanged: first value {}", inv.items[0].value);

    // Field assignment through an element.
    arr[0].weight = 100;
    arr[4].taken = !arr[4].taken;
    println!("arr[0].weight = {}, arr[4].taken = {}", arr[0].weight, arr[4].taken);
}
