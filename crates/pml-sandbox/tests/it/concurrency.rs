//! One sandbox used from several threads at once.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use pml_sandbox::{Sandbox, SandboxError, SandboxOptions};
use serde_json::json;

use crate::eval_in;

#[test]
fn four_threads_share_one_sandbox() {
    let sandbox = Arc::new(Sandbox::new(SandboxOptions::default()).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let sandbox = Arc::clone(&sandbox);
            thread::spawn(move || {
                for i in 0..100 {
                    let got = eval_in(
                        &sandbox,
                        "(() => { globalThis.seen = (globalThis.seen ?? 0) + 1; return [t, xs.map(x => x * i), seen]; })()",
                        &[("t", json!(t)), ("i", json!(i)), ("xs", json!([1, 2, 3]))],
                    )
                    .unwrap();
                    assert_eq!(got, json!([t, [i, 2 * i, 3 * i], 1]));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn a_stuck_task_does_not_block_the_others() {
    let sandbox = Arc::new(
        Sandbox::new(SandboxOptions {
            time_limit: Duration::from_secs(8),
            workers: 2,
            ..Default::default()
        })
        .unwrap(),
    );
    // Blocked behind the stuck task, the 50 evaluations would wait its 8 s; on their own they
    // take a few milliseconds (up to a second or two on two cores shared with other builds).
    let stuck = {
        let sandbox = Arc::clone(&sandbox);
        thread::spawn(move || eval_in(&sandbox, "(() => { for (;;) {} })()", &[]))
    };
    thread::sleep(Duration::from_millis(50));
    let start = Instant::now();
    for i in 0..50 {
        assert_eq!(
            eval_in(&sandbox, "i", &[("i", json!(i))]).unwrap(),
            json!(i)
        );
    }
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert!(matches!(
        stuck.join().unwrap(),
        Err(SandboxError::Timeout { .. })
    ));
}

#[test]
fn more_callers_than_workers_wait_their_turn() {
    let sandbox = Arc::new(
        Sandbox::new(SandboxOptions {
            workers: 1,
            ..Default::default()
        })
        .unwrap(),
    );
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let sandbox = Arc::clone(&sandbox);
            thread::spawn(move || {
                (0..25)
                    .map(|_| eval_in(&sandbox, "t * 2", &[("t", json!(t))]).unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for (t, handle) in threads.into_iter().enumerate() {
        assert_eq!(handle.join().unwrap(), vec![json!(t * 2); 25]);
    }
}
