//! The caller stops waiting once the output is written: what follows (the inputs unmapped,
//! the tables freed, the old output's pages dropped, the process's memory handed back) is
//! done for a process nobody waits for. mold does the same. On a large link that tail is a
//! tenth of the time: freeing 67 MB of an overwritten output's page cache alone takes 16 ms
//! (in `rename`), and the process's own teardown about as much again.
//!
//! The binary forks before it starts any thread. The parent only waits: for a status byte
//! on a pipe, which the link sends once it has printed everything, or for the link to end
//! without sending one (a crash, a signal), in which case it ends the same way. Interrupts
//! the parent receives go to the link, which removes its temporary file and ends by the
//! signal (see `faults`); the parent then does too (interrupts wait from the fork until the
//! parent can pass them on). If the parent ends, the link is killed
//! with it (`PR_SET_PDEATHSIG`): before the status, as one process would be; after it, the
//! kernel frees what the link still holds, sooner than the link would itself.
//!
//! Not passed on: job control aimed at the parent's pid alone (`kill -STOP`), or a
//! background link stopped for printing under `stty tostop`, which the shell sees only as
//! the parent waiting. Ctrl-Z and `fg` reach both (the terminal signals the process group).
//!
//! The binary forks for a large link only (a small one would wait longer for the fork than
//! for its teardown). `CUBIN_LD_FORK=0` keeps one process (for measuring its peak memory,
//! or a debugger); `CUBIN_LD_FORK=1` forks for any link.

use std::sync::atomic::{AtomicI32, Ordering};

/// The link's process id, for the parent's signal handlers.
static LINK: AtomicI32 = AtomicI32::new(0);

/// The link's end of the pipe: [`Finished::done`] tells the parent how the link ended.
pub struct Finished {
    fd: libc::c_int,
}

/// Forks if `large` (or as `CUBIN_LD_FORK` says): the parent never returns from here; the
/// link (the child) gets the [`Finished`] to send its status by. `None`: one process (not
/// wanted, or the fork failed). Must be called before any thread starts.
pub fn fork(large: bool) -> Option<Finished> {
    let wanted = match std::env::var_os("CUBIN_LD_FORK") {
        Some(v) if v == "0" => false,
        Some(v) if v == "1" => true,
        _ => large,
    };
    if !wanted {
        return None;
    }
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: plain system calls; no thread runs yet, so the child may do anything.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return None;
        }
        let parent = libc::getpid();
        // The parent must be able to wait for the link: with SIGCHLD ignored (inherited from
        // the caller) the kernel would reap it unseen. The link keeps what it was.
        let chld = libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        // Interrupts are held off across the fork until the parent passes them on: one that
        // reached the parent before it could would end it there and then, and the link with
        // it (`PR_SET_PDEATHSIG`'s SIGKILL), its temporary file left behind.
        let mut before: libc::sigset_t = std::mem::zeroed();
        libc::sigprocmask(
            libc::SIG_BLOCK,
            &crate::faults::interrupt_set(),
            &mut before,
        );
        match libc::fork() {
            -1 => {
                libc::sigprocmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
                libc::signal(libc::SIGCHLD, chld);
                libc::close(fds[0]);
                libc::close(fds[1]);
                None
            }
            0 => {
                libc::sigprocmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
                libc::signal(libc::SIGCHLD, chld);
                libc::close(fds[0]);
                // Killed with the parent; and if it is already gone, end now.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Some(Finished { fd: fds[1] })
            }
            child => {
                libc::close(fds[1]);
                wait_for(child, fds[0], &before)
            }
        }
    }
}

impl Finished {
    /// Everything is printed and the output written: the parent ends with `code`. What is
    /// printed later goes nowhere (a reader of this process's output sees its end now).
    pub fn done(self, code: u8) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // SAFETY: plain system calls on descriptors this process owns.
        unsafe {
            libc::write(self.fd, (&code as *const u8).cast(), 1);
            // What this thread does from here is teardown: the parent, woken now, goes first.
            lowest_priority();
            libc::close(self.fd);
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if null >= 0 {
                libc::dup2(null, 1);
                libc::dup2(null, 2);
                libc::close(null);
            }
        }
    }
}

/// The parent: ends as the link tells it to, or as the link ended.
unsafe fn wait_for(child: libc::pid_t, pipe: libc::c_int, mask: &libc::sigset_t) -> ! {
    LINK.store(child, Ordering::Release);
    // (A signal ignored here, `nohup`, is ignored by the link too.)
    crate::faults::on_interrupts(forward);
    // (What arrived since the fork is passed on now.)
    libc::sigprocmask(libc::SIG_SETMASK, mask, std::ptr::null_mut());
    let mut code = 0u8;
    loop {
        match libc::read(pipe, (&mut code as *mut u8).cast(), 1) {
            1 => libc::_exit(code as libc::c_int),
            -1 if *libc::__errno_location() == libc::EINTR => continue,
            _ => break,
        }
    }
    // No status: the link ended on its own (a crash, a signal, an exit before the end).
    // (Nothing is passed on from here: once reaped, its pid may be another process's.)
    libc::sigprocmask(
        libc::SIG_BLOCK,
        &crate::faults::interrupt_set(),
        std::ptr::null_mut(),
    );
    let mut status = 0;
    while libc::waitpid(child, &mut status, 0) == -1 {
        if *libc::__errno_location() != libc::EINTR {
            libc::_exit(1);
        }
    }
    if libc::WIFSIGNALED(status) {
        // Ended by the link's signal, without a core of its own (the link's is the one).
        let sig = libc::WTERMSIG(status);
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::signal(sig, libc::SIG_DFL);
        let mut only: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut only);
        libc::sigaddset(&mut only, sig);
        libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
        libc::raise(sig);
        libc::_exit(128 + sig);
    }
    libc::_exit(libc::WEXITSTATUS(status))
}

/// The parent's handler for [`crate::faults::INTERRUPTS`]: passes the signal on to the link.
extern "C" fn forward(sig: libc::c_int) {
    // SAFETY: async-signal-safe calls; errno is kept for the code interrupted.
    unsafe {
        let errno = *libc::__errno_location();
        libc::kill(LINK.load(Ordering::Acquire), sig);
        *libc::__errno_location() = errno;
    }
}

/// Runs `f` on a thread of its own, at the lowest priority: teardown nobody waits for (a
/// module freed, an old output's pages dropped). At a normal priority two such threads held
/// both cores of a small machine while the link's main thread waited 3 ms for one to tell
/// the parent it was done, and the woken parent 4 ms more to end. (If no thread can be
/// started, `f` is dropped here, unrun: what it would have freed goes with it.)
pub fn in_background(f: impl FnOnce() + Send + 'static) {
    let _ = std::thread::Builder::new().spawn(move || {
        lowest_priority();
        f()
    });
}

/// The calling thread runs only when no other thread wants its core (`SCHED_IDLE`).
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: a plain system call on the calling thread (0), lowering its priority, which
    // needs no privilege.
    unsafe {
        let p = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_IDLE, &p);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn background_work_runs_only_when_no_other_thread_wants_the_core() {
        let (tx, rx) = std::sync::mpsc::channel();
        super::in_background(move || {
            // SAFETY: a plain query on the calling thread.
            let _ = tx.send(unsafe { libc::sched_getscheduler(0) });
        });
        let policy = rx.recv().expect("the background thread ran");
        if cfg!(target_os = "linux") {
            assert_eq!(policy, libc::SCHED_IDLE);
        }
    }
}
