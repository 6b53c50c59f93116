//! Integration tests of the executor against an in-process tool host (`support::FakeHost`).

mod conditions;
mod failures;
mod forgery;
mod hostile;
mod modes;
mod prop;
mod scheduling;
mod speculation;
mod support;
