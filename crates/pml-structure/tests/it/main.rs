//! Integration tests of the structure builder: inline expectations per feature (`check`),
//! hostile inputs, and properties over generated programs.

mod check;
mod hostile;
mod instrument;
mod json;
mod parameterize;
mod props;
mod strip;
