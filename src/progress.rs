//! A progress line for a long link, when stderr is a terminal: the pass running, how many
//! inputs, the time so far (`cubin-ld: merge (1600 inputs, 1.2 s)`), rewritten in place and
//! cleared before any message is printed. A link shorter than [`DELAY`] never shows it. A
//! `tracing` layer notes the pass each top-level span starts; a thread of its own redraws the
//! line, so the passes never wait on the terminal.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use tracing::span;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// How long a link runs before the line appears.
pub const DELAY: Duration = Duration::from_millis(500);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// The line for `pass` after `elapsed`.
pub fn line(pass: &str, inputs: usize, elapsed: Duration) -> String {
    let s = if inputs == 1 { "" } else { "s" };
    format!(
        "cubin-ld: {pass} ({inputs} input{s}, {:.1} s)",
        elapsed.as_secs_f64()
    )
}

struct State {
    pass: &'static str,
    done: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

/// The running line: [`Progress::layer`] feeds it; dropping it clears it.
pub struct Progress {
    shared: Arc<Shared>,
    ticker: Option<std::thread::JoinHandle<bool>>,
}

impl Progress {
    /// Starts the redrawing thread for a link of `inputs` inputs.
    pub fn start(inputs: usize) -> Progress {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                pass: "start",
                done: false,
            }),
            wake: Condvar::new(),
        });
        let s = shared.clone();
        let origin = Instant::now();
        let ticker = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                use std::io::Write;
                let mut shown = false;
                let mut state = s.state.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    state = s
                        .wake
                        .wait_timeout(state, TICK)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                    if state.done {
                        return shown;
                    }
                    let elapsed = origin.elapsed();
                    if elapsed >= DELAY {
                        let mut err = std::io::stderr().lock();
                        let _ = write!(err, "\r\x1b[K{}", line(state.pass, inputs, elapsed));
                        let _ = err.flush();
                        shown = true;
                    }
                }
            })
            .ok();
        Progress { shared, ticker }
    }

    /// The layer that tells the line which pass runs.
    pub fn layer(&self) -> ProgressLayer {
        ProgressLayer {
            shared: self.shared.clone(),
        }
    }

    /// Stops redrawing and clears the line, if it was drawn (on drop).
    fn stop(&mut self) {
        if let Ok(mut s) = self.shared.state.lock() {
            s.done = true;
        }
        self.shared.wake.notify_all();
        if let Some(shown) = self.ticker.take().and_then(|t| t.join().ok()) {
            if shown {
                eprint!("\r\x1b[K");
            }
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

pub struct ProgressLayer {
    shared: Arc<Shared>,
}

impl<S> tracing_subscriber::Layer<S> for ProgressLayer
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, ctx: Context<'_, S>) {
        // (Only the passes: spans inside them are their parts.)
        if ctx.span(id).is_some_and(|s| s.parent().is_none()) {
            if let Ok(mut s) = self.shared.state.lock() {
                s.pass = attrs.metadata().name();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_pass_the_inputs_and_the_time() {
        assert_eq!(
            line("merge", 1600, Duration::from_millis(1234)),
            "cubin-ld: merge (1600 inputs, 1.2 s)"
        );
        assert_eq!(
            line("load", 1, Duration::from_millis(500)),
            "cubin-ld: load (1 input, 0.5 s)"
        );
    }

    #[test]
    fn a_link_shorter_than_the_delay_never_draws_the_line() {
        // (The thread would write to this test's stderr: it must not have.)
        let p = Progress::start(3);
        let shown = {
            let mut p = p;
            if let Ok(mut s) = p.shared.state.lock() {
                s.done = true;
            }
            p.shared.wake.notify_all();
            p.ticker.take().and_then(|t| t.join().ok())
        };
        assert_eq!(shown, Some(false));
    }
}
