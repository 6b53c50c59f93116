//! The web platform's event and abort classes give what Node's give (`worker/web.js`): the same
//! program in the sandbox and in Node.

use crate::intl::same_as_node;

#[test]
fn events_and_aborts_give_what_node_gives() {
    same_as_node(include_str!("web/events.js"));
}

#[test]
fn blobs_give_what_node_gives() {
    same_as_node(include_str!("web/blob.js"));
}
