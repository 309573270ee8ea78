use rand::SeedableRng;
use rand::rngs::SmallRng;
use tengen::board::{Board, Color, playout::{play_out, Policy, move_cap}};
fn main() {
    for size in [9, 19] {
        let mut rng = SmallRng::seed_from_u64(1);
        let empty = Board::new(size);
        let t = std::time::Instant::now();
        let n = if size == 9 { 200_000 } else { 40_000 };
        let mut moves = 0;
        for _ in 0..n { let mut b = empty.clone(); moves += play_out(&mut b, Color::Black, Policy::Light, move_cap(size), &mut rng); }
        let s = t.elapsed().as_secs_f64();
        eprintln!("{size}x{size}: {:.0} playouts/s, {:.1} moves/playout", n as f64 / s, moves as f64 / n as f64);
    }
}
