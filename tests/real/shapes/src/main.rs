mod shapes;
use std::collections::BTreeMap;
fn main() {
    let mut m = BTreeMap::new();
    for (i, s) in shapes::all().iter().enumerate() { m.insert(s.name(), (i, s.area())); }
    let h = std::thread::spawn(|| (1..=20u64).product::<u64>());
    for (k, v) in &m { println!("{} {} {:.3}", k, v.0, v.1); }
    println!("20! = {}", h.join().unwrap());
}
