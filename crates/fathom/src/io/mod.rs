//! The I/O loop of a job's clone, one OS thread each: [`thread`] places the thread and
//! runs its hooks, [`prepare`] sets a clone up (engine, slots, verifier, files),
//! [`worker`] runs a clone from start to end, [`run_loop`] is its timing loop (its state
//! in [`state`], below [`issue`]: generate, pace, queue, and [`reap`]: complete,
//! account; no module here uses one that uses it back), [`source`] says what the
//! next I/O is (generated or replayed), [`filelock`] holds lockfile's locks, [`slot`]
//! issues each I/O and accounts its completion, [`openset`] keeps openfiles=N, [`sync`]
//! the fsync cadence, [`sampler`] the bandwidth/IOPS samples, [`cmdprio`] each I/O's own
//! priority (libaio, io_uring), [`chain`] the reads vdbench's data validation makes around
//! a write, [`refill`] a refilled write's bytes, [`zbd`] zonemode=zbd's
//! steering of each I/O to its zone.
//! Verification of what was written is in [`crate::verify`]; waits in [`crate::pace`].

pub(crate) mod chain;
pub(crate) mod cmdprio;
pub(crate) mod filelock;
pub(crate) mod issue;
pub(crate) mod openset;
pub(crate) mod prepare;
pub(crate) mod reap;
pub(crate) mod refill;
pub(crate) mod run_loop;
pub(crate) mod sampler;
pub(crate) mod slot;
pub(crate) mod source;
pub(crate) mod state;
pub(crate) mod sync;
pub(crate) mod thread;
pub mod worker;
pub(crate) mod zbd;
