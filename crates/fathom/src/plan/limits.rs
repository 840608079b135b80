//! The machine's limits a plan checks against: open-file descriptors (raised to the hard limit), physical memory.

/// The soft limit on open files (RLIMIT_NOFILE) now.
pub fn nofile_soft() -> u64 {
    nofile().0
}

pub(crate) fn nofile() -> (u64, u64) {
    nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .unwrap_or((1024, 1024))
}

/// Raise the soft limit on open files to the hard limit (as much as the kernel allows),
/// once per process. A note when the job's `need` of descriptors was above the old soft
/// limit (the raise is what lets it run), or is above even the hard one.
pub(crate) fn raise_nofile(need: u64) -> Option<String> {
    let (soft, hard) = nofile();
    // Leave room for the engine's own descriptors, logs and standard streams.
    let want = need.saturating_add(64);
    if soft < hard {
        // Raising the soft limit up to the hard one needs no privilege.
        let raised =
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, hard, hard)
                .is_ok();
        if raised && want > soft {
            return Some(format!(
                "raised the open-file limit (RLIMIT_NOFILE) from {soft} to {hard} for the \
                 jobs' {need} files"
            ));
        }
    }
    let (now, _) = nofile();
    (want > now).then(|| {
        format!(
            "the jobs keep {need} files open and the open-file limit is {now}: set openfiles= \
             (e.g. openfiles=64) or raise the hard limit (ulimit -Hn)"
        )
    })
}

pub(crate) fn physical_memory() -> u64 {
    use nix::unistd::{sysconf, SysconfVar};
    let sc = |k| sysconf(k).ok().flatten().unwrap_or(0).max(0) as u64;
    sc(SysconfVar::_PHYS_PAGES).saturating_mul(sc(SysconfVar::PAGE_SIZE))
}
