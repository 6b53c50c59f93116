//! Calls reach each server in the order the program made them.
//!
//! Node sends a program's calls the moment it makes them, so the requests of
//! `Promise.all([...].map((p) => mcp.fs.write_file(...)))` reach the server in the array's
//! order. Here each call is answered by a task of its own, and tasks start in whatever order
//! the runtime picks: each call takes a [`Turn`] when the program makes it (in program order)
//! and, before its request goes out, waits until every earlier call to the same server has
//! sent its request or given up sending (answered from the journal or from speculation,
//! refused, failed). Dropping the turn is what lets the next one go.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

/// The turns of one run, one line per server.
#[derive(Default)]
pub(crate) struct Order {
    lines: Mutex<HashMap<String, Arc<Line>>>,
}

impl Order {
    /// The next turn for `server`. Taken in the order the program makes its calls.
    pub(crate) fn take(&self, server: &str) -> Turn {
        let mut lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        let line = lines.entry(server.to_owned()).or_insert_with(|| {
            Arc::new(Line {
                state: Mutex::new(LineState::default()),
                served: watch::channel(0).0,
            })
        });
        let ticket = {
            let mut state = line.state.lock().unwrap_or_else(|p| p.into_inner());
            state.issued += 1;
            state.issued - 1
        };
        Turn(Some((line.clone(), ticket)))
    }
}

struct Line {
    state: Mutex<LineState>,
    /// The first ticket not yet done with (every one below it has sent or given up).
    served: watch::Sender<u64>,
}

#[derive(Default)]
struct LineState {
    issued: u64,
    next: u64,
    /// Tickets done with out of order, waiting for the ones before them.
    done: BTreeSet<u64>,
}

/// A call's place in its server's line: [`Turn::wait`] waits until the calls before it have
/// sent their requests; dropping it lets the next call go. Hosts drop it once the request is
/// on its way (or the call fails before it is).
#[must_use = "a turn lets the next call go when dropped"]
pub struct Turn(Option<(Arc<Line>, u64)>);

impl Turn {
    /// A turn in no line: for calls outside the program's order (speculation's reads,
    /// callers that make one call at a time).
    pub fn free() -> Turn {
        Turn(None)
    }

    /// Waits until every earlier call to the same server has sent its request or given up.
    pub(crate) async fn wait(&self) {
        if let Some((line, ticket)) = &self.0 {
            let mut served = line.served.subscribe();
            // The sender lives in `line`, held here: the channel cannot close.
            let _ = served.wait_for(|next| *next >= *ticket).await;
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let Some((line, ticket)) = self.0.take() else {
            return;
        };
        let mut state = line.state.lock().unwrap_or_else(|p| p.into_inner());
        let LineState { next, done, .. } = &mut *state;
        done.insert(ticket);
        let before = *next;
        while done.remove(next) {
            *next += 1;
        }
        if *next != before {
            line.served.send_replace(*next);
        }
    }
}

impl std::fmt::Debug for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some((_, ticket)) => write!(f, "Turn({ticket})"),
            None => f.write_str("Turn(free)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ready(turn: &Turn) -> bool {
        futures_ready(turn.wait())
    }

    fn futures_ready<F: std::future::Future>(f: F) -> bool {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        let mut f = std::pin::pin!(f);
        f.as_mut().poll(&mut cx).is_ready()
    }

    #[test]
    fn a_turn_waits_for_every_earlier_one_of_its_server_only() {
        let order = Order::default();
        let (a0, a1, a2) = (order.take("a"), order.take("a"), order.take("a"));
        let b0 = order.take("b");
        assert!(ready(&a0) && ready(&b0) && ready(&Turn::free()));
        assert!(!ready(&a1) && !ready(&a2));
        // Done out of order: the later one waits for the earlier one still.
        drop(a2);
        assert!(!ready(&a1));
        drop(a0);
        assert!(ready(&a1));
        drop(a1);
        let a3 = order.take("a");
        assert!(ready(&a3));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn tasks_started_in_any_order_go_in_ticket_order() {
        let order = Order::default();
        let sent = Arc::new(Mutex::new(Vec::new()));
        let turns: Vec<Turn> = (0..20).map(|_| order.take("s")).collect();
        let mut tasks = Vec::new();
        // Spawned last first, each after a delay that favours the later ones.
        for (i, turn) in turns.into_iter().enumerate().rev() {
            let sent = sent.clone();
            tasks.push(tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20 - i as u64)).await;
                turn.wait().await;
                sent.lock().unwrap().push(i);
                drop(turn);
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(*sent.lock().unwrap(), (0..20).collect::<Vec<_>>());
    }
}
