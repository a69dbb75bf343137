//! `--time-trace=FILE`: the passes' tracing spans as a Chrome trace (load it in
//! chrome://tracing, Perfetto or speedscope). A `tracing` layer times each span from entry to
//! exit, on the thread it ran on; the binary writes the file once the link is over.

use std::sync::{Arc, Mutex};
use std::time::Instant;
use tracing::span;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// One span's run: "complete" events in the trace format.
struct Event {
    name: &'static str,
    thread: u64,
    start_us: f64,
    duration_us: f64,
}

/// The layer, and the handle that writes what it recorded.
#[derive(Clone)]
pub struct TimeTrace {
    origin: Instant,
    events: Arc<Mutex<Vec<Event>>>,
}

impl Default for TimeTrace {
    fn default() -> Self {
        TimeTrace {
            origin: Instant::now(),
            events: Arc::default(),
        }
    }
}

/// A small number per thread, in the order threads first enter a span.
fn thread_number() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    ID.with(|id| *id)
}

impl<S> tracing_subscriber::Layer<S> for TimeTrace
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_enter(&self, id: &span::Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().replace(Instant::now());
        }
    }

    fn on_exit(&self, id: &span::Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let Some(entered) = span.extensions_mut().remove::<Instant>() else {
            return;
        };
        let event = Event {
            name: span.name(),
            thread: thread_number(),
            start_us: entered.duration_since(self.origin).as_secs_f64() * 1e6,
            duration_us: entered.elapsed().as_secs_f64() * 1e6,
        };
        if let Ok(mut events) = self.events.lock() {
            events.push(event);
        }
    }
}

impl TimeTrace {
    /// The trace as JSON (the Trace Event Format's object form), spans in start order.
    pub fn json(&self) -> String {
        let mut events = match self.events.lock() {
            Ok(mut e) => std::mem::take(&mut *e),
            Err(_) => Vec::new(),
        };
        events.sort_by(|a, b| a.start_us.total_cmp(&b.start_us));
        let rows: Vec<String> = events
            .iter()
            .map(|e| {
                format!(
                    "{{\"name\":\"{}\",\"cat\":\"cubin-ld\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":{:.3},\"pid\":1,\"tid\":{}}}",
                    e.name, e.start_us, e.duration_us, e.thread
                )
            })
            .collect();
        format!(
            "{{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n{}\n]}}\n",
            rows.join(",\n")
        )
    }
}
