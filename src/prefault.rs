//! Pages a serial pass is about to write, faulted in by the core it leaves idle.
//!
//! Some passes fill a large table one entry after another on one thread: the creation pass
//! the module's sections and symbols, resolution its globals, the `.nv.info` pass its
//! functions' sections. The room is reserved up front, and each page of it is fresh
//! memory: its first write is a page fault, which costs more than the pass's work on the
//! entries the page holds (1.5 µs a page on a small VM). Meanwhile the second core waits.
//! So the second core faults the pages in (`MADV_POPULATE_WRITE`: the kernel makes them
//! present without writing to them) a little ahead of where the pass writes. Never further
//! than `AHEAD`: the reserved room is what the inputs could need, often twice what the
//! output does, and pages faulted in and never used would still be the link's memory.
//!
//! The pages' contents are not touched, so the outcome is the same on any number of threads;
//! on one thread the helper finds the pass done and does nothing.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How far ahead of the pass the helper faults pages in, per table.
const AHEAD: usize = 256 << 10;

/// The free room of a table the pass fills from its start: its address and size in bytes,
/// the size of one item, and how many items the table held when the room was taken.
#[derive(Debug, Clone, Copy)]
pub struct Room {
    start: usize,
    len: usize,
    item: usize,
    first: usize,
}

impl Room {
    /// The room `v` has beyond its items (where its next pushes go, until it is full).
    pub fn after<I: crate::ids::Id, T>(v: &crate::ids::IdVec<I, T>) -> Room {
        let (start, len) = v.spare_room();
        Room {
            start,
            len,
            item: std::mem::size_of::<T>(),
            first: v.len(),
        }
    }

    /// The bytes of the room filled when the table holds `items` items.
    fn filled(&self, items: usize) -> usize {
        items.saturating_sub(self.first) * self.item
    }
}

/// How far the pass has filled each of its tables (items each holds).
pub struct Progress {
    filled: Vec<AtomicUsize>,
    done: AtomicBool,
}

impl Progress {
    /// Table `i` (of the rooms given to `while_filling`) holds `items` items now.
    pub fn filled(&self, i: usize, items: usize) {
        self.filled[i].store(items, Ordering::Relaxed);
    }
}

/// Runs `fill` on this thread while another faults in the pages of `rooms` just ahead of what
/// `fill` reports it has filled.
pub fn while_filling<R: Send>(rooms: &[Room], fill: impl FnOnce(&Progress) -> R + Send) -> R {
    let progress = Progress {
        filled: rooms.iter().map(|_| AtomicUsize::new(0)).collect(),
        done: AtomicBool::new(false),
    };
    let (r, ()) = rayon::join(
        || {
            // (Done however `fill` ends: a panic must not leave the helper waiting.)
            let _done = Done(&progress.done);
            fill(&progress)
        },
        || fault_in_ahead(rooms, &progress),
    );
    r
}

/// Says the pass is done when dropped.
struct Done<'p>(&'p AtomicBool);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn fault_in_ahead(rooms: &[Room], progress: &Progress) {
    let page = page_size();
    let mut faulted: Vec<usize> = vec![0; rooms.len()];
    while !progress.done.load(Ordering::Relaxed) {
        let mut idle = true;
        for (i, room) in rooms.iter().enumerate() {
            let want =
                (room.filled(progress.filled[i].load(Ordering::Relaxed)) + AHEAD).min(room.len);
            if want > faulted[i] {
                // Whole pages only, from the first not yet asked for.
                let from = (room.start + faulted[i]).next_multiple_of(page);
                let to = (room.start + want) & !(page - 1);
                if to > from && !populate(from, to - from) {
                    return;
                }
                faulted[i] = want;
                idle = false;
            }
        }
        if idle {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }
}

/// Makes the pages of `[start, start + len)` present and writable, without writing them.
/// False where the kernel cannot (before Linux 5.14; the helper then stops).
fn populate(start: usize, len: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the range lies in a table's reserved room; the kernel only maps its pages
        // (what the table's first write to each would have done), their contents unchanged.
        unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (start, len);
        false
    }
}

fn page_size() -> usize {
    // SAFETY: a plain query.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page).unwrap_or(4096).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{IdVec, OutSym};

    #[test]
    fn the_pass_result_and_the_table_are_what_filling_alone_gives() {
        let mut table: IdVec<OutSym, [u64; 4]> = IdVec::new();
        table.reserve(300_000);
        let rooms = [Room::after(&table)];
        let pushed = while_filling(&rooms, |progress| {
            for i in 0..250_000u64 {
                table.push([i, i + 1, i + 2, i + 3]);
                if i % 1000 == 0 {
                    progress.filled(0, table.len());
                }
            }
            table.len()
        });
        assert_eq!(pushed, 250_000);
        assert!(table
            .iter_enumerated()
            .all(|(id, v)| *v == [0, 1, 2, 3].map(|k| id.index() as u64 + k)));
    }

    #[test]
    fn a_room_starts_after_the_items_and_ends_with_the_reserve() {
        let mut table: IdVec<OutSym, u32> = IdVec::new();
        table.reserve(10);
        table.push(7);
        let (start, len) = table.spare_room();
        assert_eq!(
            start,
            &table[OutSym::from_index(0)] as *const u32 as usize + 4
        );
        assert!(len >= 9 * 4 && len % 4 == 0);
    }

    #[test]
    fn a_room_counts_as_filled_only_the_items_pushed_after_it_was_taken() {
        let mut table: IdVec<OutSym, [u64; 2]> = IdVec::new();
        table.reserve(10);
        table.push([0, 0]);
        table.push([0, 0]);
        let room = Room::after(&table);
        assert_eq!(room.filled(2), 0);
        assert_eq!(room.filled(5), 3 * 16);
        // (a count from before the room, as the pass's first report may be)
        assert_eq!(room.filled(0), 0);
    }

    #[test]
    fn a_pass_that_panics_passes_the_panic_on_and_stops_the_helper() {
        let mut table: IdVec<OutSym, u64> = IdVec::new();
        table.reserve(1 << 20);
        let rooms = [Room::after(&table)];
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            while_filling(&rooms, |_| {
                table.push(1);
                panic!("the pass fails");
            })
        }));
        assert!(r.is_err());
    }

    #[test]
    fn a_pass_that_outgrows_its_room_still_fills_its_table() {
        let mut table: IdVec<OutSym, u64> = IdVec::new();
        table.reserve(4);
        let rooms = [Room::after(&table)];
        while_filling(&rooms, |progress| {
            for i in 0..100_000 {
                table.push(i);
                progress.filled(0, table.len() * 8);
            }
        });
        assert!(table
            .iter_enumerated()
            .all(|(id, &v)| v == id.index() as u64));
    }
}
