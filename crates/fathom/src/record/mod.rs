//! What a run records beyond its statistics: each clone's [`outcome`], per-I/O and
//! periodic [`logs`], the [`live`] counters the progress line reads, the host and target
//! [`facts`] stored with results, and the CI [`gate`]s evaluated on them.

pub mod facts;
pub mod gate;
pub(crate) mod iolog;
pub mod live;
pub mod logs;
pub mod outcome;
