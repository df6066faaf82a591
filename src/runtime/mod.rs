//! What every part of a turn runs on: cancellation ([`cancel`]), the clock
//! and timers ([`time`]), and time-ordered ids ([`ids`]).

pub mod cancel;
pub mod ids;
pub mod time;
