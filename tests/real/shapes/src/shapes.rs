pub trait Shape { fn name(&self) -> String; fn area(&self) -> f64; }
pub struct Circle(pub f64);
pub struct Rect(pub f64, pub f64);
impl Shape for Circle {
    fn name(&self) -> String { format!("circle{}", self.0) }
    fn area(&self) -> f64 { std::f64::consts::PI * self.0 * self.0 }
}
impl Shape for Rect {
    fn name(&self) -> String { format!("rect{}x{}", self.0, self.1) }
    fn area(&self) -> f64 { self.0 * self.1 }
}
pub fn all() -> Vec<Box<dyn Shape>> { vec![Box::new(Circle(1.5)), Box::new(Rect(2.0, 3.0)), Box::new(Circle(0.5))] }
