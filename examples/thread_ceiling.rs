//! What two threads can gain over one on this machine, for the kinds of work a link is made
//! of: the ceiling against which `scripts/bench.sh` reads cubin-ld's own two-thread gain.
//!
//! Each kind of work is timed with one thread doing it once and with two threads doing it
//! once each; the gain is twice the first time over the second (2.00× when the threads do
//! not slow each other down). Best of several rounds, the kinds interleaved.
//!
//! - `chain`: one long chain of dependent multiplies. It uses a sliver of a core, so two of
//!   them run side by side even on the two hardware threads of one core.
//! - `alu`: eight independent chains, as much arithmetic as a core issues. Two hardware threads
//!   of one core share its units; two cores do not.
//! - `copy`: copying a 64 MiB buffer into another, twelve times (a merge's copies, the
//!   writer's).
//! - `fresh pages`: touching 128 MiB of memory never touched before (each page a fault,
//!   zeroed by the kernel): parsing's tables, the module's sections.
//!
//! `cargo run --release --example thread_ceiling [ROUNDS]`

use std::hint::black_box;
use std::time::{Duration, Instant};

fn chain(n: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..n {
        x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}

fn alu(n: u64) -> u64 {
    let (mut a, mut b, mut c, mut d) = (1u64, 2u64, 3u64, 4u64);
    let (mut e, mut f, mut g, mut h) = (5u64, 6u64, 7u64, 8u64);
    for i in 0..n {
        a = a.wrapping_mul(3).wrapping_add(i);
        b = b.wrapping_mul(5).wrapping_add(i);
        c = c.wrapping_mul(7).wrapping_add(i);
        d = d.wrapping_mul(9).wrapping_add(i);
        e ^= e << 1;
        f = f.wrapping_add(f >> 3);
        g = g.wrapping_mul(11).wrapping_add(1);
        h = h.wrapping_add(i);
        // The values stay in registers (through memory, the loop would wait on its stores
        // instead) and the loop as written.
        // SAFETY: an empty instruction string; it only claims to change the registers.
        unsafe {
            std::arch::asm!(
                "/* {0} {1} {2} {3} {4} {5} {6} {7} */",
                inout(reg) a, inout(reg) b, inout(reg) c, inout(reg) d,
                inout(reg) e, inout(reg) f, inout(reg) g, inout(reg) h,
                options(nomem, nostack, preserves_flags),
            )
        };
    }
    a ^ b ^ c ^ d ^ e ^ f ^ g ^ h
}

fn copy(times: u32) -> u64 {
    const LEN: usize = 64 << 20;
    let from = vec![1u8; LEN];
    let mut to = vec![2u8; LEN];
    for _ in 0..times {
        to.copy_from_slice(black_box(&from));
        black_box(&mut to);
    }
    to[LEN / 2] as u64
}

fn fresh_pages(times: u32) -> u64 {
    const LEN: usize = 128 << 20;
    let mut sum = 0;
    for _ in 0..times {
        // Straight from the kernel (the allocator could hand back pages already touched).
        // SAFETY: a private anonymous map, written inside its length, then unmapped.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert!(p != libc::MAP_FAILED, "mmap failed");
            let bytes = p.cast::<u8>();
            for at in (0..LEN).step_by(4096) {
                bytes.add(at).write_volatile(1);
            }
            sum += bytes.add(LEN - 1).read_volatile() as u64;
            libc::munmap(p, LEN);
        }
    }
    sum
}

/// A kind of work, by name.
type Kind = (&'static str, fn() -> u64);

/// Wall time of `threads` threads each running `work` once.
fn timed(threads: usize, work: fn() -> u64) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        let running: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        for r in running {
            black_box(r.join().expect("a worker panicked"));
        }
    });
    start.elapsed()
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let kinds: [Kind; 4] = [
        ("chain", || chain(200_000_000)),
        ("alu", || alu(300_000_000)),
        ("copy", || copy(12)),
        ("fresh pages", || fresh_pages(4)),
    ];
    let mut best = vec![(Duration::MAX, Duration::MAX); kinds.len()];
    for _ in 0..rounds {
        for (k, &(_, work)) in kinds.iter().enumerate() {
            best[k].0 = best[k].0.min(timed(1, work));
            best[k].1 = best[k].1.min(timed(2, work));
        }
    }
    let gains: Vec<String> = kinds
        .iter()
        .zip(&best)
        .map(|(&(name, _), &(one, two))| {
            format!("{name} {:.2}x", 2.0 * one.as_secs_f64() / two.as_secs_f64())
        })
        .collect();
    println!("2 threads vs 1 on this machine: {}", gains.join(", "));
}
