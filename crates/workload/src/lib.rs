//! fathom-workload: decides, per thread and deterministically from its seed, what each next
//! I/O is: direction, file, offset and length.
//!
//! ```
//! use fathom_job::{Rw, RwKind};
//! use fathom_workload::{FileRegion, Generator, Params};
//! let rw = Rw { kind: RwKind::RandRead, suffix: 0 };
//! let region = FileRegion { start: 0, len: 1 << 20 };
//! let mut g = Generator::new(Params::simple(rw, 4096, region, 0x89)).unwrap();
//! let n = std::iter::from_fn(|| g.next_io()).count();
//! assert_eq!(n, 256); // every 4 KiB block of 1 MiB exactly once
//! ```
#![deny(missing_docs)]

mod dist;
mod gate;
mod gen;
mod randmap;
pub mod replay;
mod rng;
mod schedule;
mod tree;

pub use dist::{fio_jhash, Distribution, FileChooser, FioSkew, Sampler, Zone};
pub use gate::{FileGate, BUSY_WAIT};
pub use gen::{
    concat_offset, wrap_offset, BsMix, FileRegion, FileService, Generator, IoReq, Params,
    SpanVerify, WorkloadError, Zones,
};
pub use randmap::RandomMap;
pub use rng::{
    fio_all_seed, fio_seed, splitmix64, FioLfsr, FioRand, FioTaus, FioTaus64, Rng, FIO_RAND_MIX_OFF,
};
pub use schedule::{RateProcess, RateSpec, Schedule};
pub use tree::{OpMix, Tree, TREE_MAX_ENTRIES};
