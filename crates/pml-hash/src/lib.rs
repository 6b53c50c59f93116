//! tmp
pub fn x() {}
