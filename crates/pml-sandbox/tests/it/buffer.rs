//! `Buffer` gives what Node's gives (`worker/buffer.js`): the same program in the sandbox and
//! in Node, and `console.log` of one as Node prints it.

use crate::intl::same_as_node;

#[test]
fn buffers_give_what_node_gives() {
    same_as_node(include_str!("buffer/values.js"));
}
