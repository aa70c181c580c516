use nalgebra::DMatrix;
use std::time::Instant;
fn main() {
    let a = DMatrix::<f64>::from_fn(30162, 104, |i, j| ((i * 7 + j * 13) % 17) as f64 / 17.0);
    let u = DMatrix::<f64>::from_fn(104, 50, |i, j| ((i + j) % 5) as f64);
    let t0 = Instant::now();
    let mut t = &a * &u;
    for _ in 0..9 {
        t = &a * &u;
    }
    println!("A*U: {:.2} ms", t0.elapsed().as_secs_f64() * 100.0);
    let t0 = Instant::now();
    let mut g = a.tr_mul(&t);
    for _ in 0..9 {
        g = a.tr_mul(&t);
    }
    println!(
        "A^T*T: {:.2} ms {}",
        t0.elapsed().as_secs_f64() * 100.0,
        g[(0, 0)]
    );
    let t0 = Instant::now();
    let mut s = 0.0;
    for _ in 0..10 {
        for v in t.iter() {
            let e = (-v.abs() * 1e-3).exp();
            s += e.ln_1p();
        }
    }
    println!(
        "exp+ln1p: {:.2} ms {}",
        t0.elapsed().as_secs_f64() * 100.0,
        s
    );
}
