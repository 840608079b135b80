//! The clone's thread before its loop: CPU and NUMA placement, priorities, locked memory, exec_prerun/postrun hooks, pre_read.

/// Apply cpus_allowed/cpumask (with cpus_allowed_policy), nice, prio and prioclass to the
/// calling thread.
pub(crate) fn place_thread(spec: &fathom_job::JobSpec, jobnum: u32) -> Result<(), String> {
    if let Some(nodes) = &spec.control.numa_cpu_nodes {
        crate::plan::numa::run_on_nodes(nodes, spec.cpus.as_deref())?;
    }
    if let Some(p) = &spec.control.numa_mem_policy {
        crate::plan::numa::set_mem_policy(p)?;
    }
    let tid = nix::unistd::gettid().as_raw();
    if let Some(cpus) = &spec.cpus {
        let mine: Vec<usize> = if spec.cpus_split {
            vec![cpus[jobnum as usize % cpus.len()]]
        } else {
            cpus.clone()
        };
        let online = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut set = nix::sched::CpuSet::new();
        let set_all = mine
            .iter()
            .try_for_each(|&c| set.set(c))
            .and_then(|()| nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set));
        if let Err(e) = set_all {
            return Err(format!(
                "cpus_allowed {mine:?}: {} (the machine has {online} CPUs online)",
                std::io::Error::from(e)
            ));
        }
    }
    // SAFETY: setpriority and ioprio_set take plain values and change only this thread.
    unsafe {
        if let Some(n) = spec.nice {
            if libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, n) != 0 {
                return Err(format!("nice={n}: {}", std::io::Error::last_os_error()));
            }
        }
        if spec.prio.is_some() || spec.prioclass.is_some() {
            // Best-effort when only prio is given, priority 4 when only the class is (0
            // with class 0, none: the kernel takes no level with it).
            let class = spec.prioclass.unwrap_or(2) as libc::c_long;
            let prio = spec.prio.unwrap_or(if class == 0 { 0 } else { 4 }) as libc::c_long;
            const IOPRIO_WHO_PROCESS: libc::c_long = 1;
            let value = (class << 13) | prio;
            if libc::syscall(
                libc::SYS_ioprio_set,
                IOPRIO_WHO_PROCESS,
                tid as libc::c_long,
                value,
            ) != 0
            {
                return Err(format!(
                    "prioclass={class} prio={prio}: {}",
                    std::io::Error::last_os_error()
                ));
            }
        }
    }
    Ok(())
}

/// `lockmem`: memory pinned with mlock(2) for as long as this lives.
pub(crate) struct LockedMem(Vec<u8>);

impl LockedMem {
    pub(crate) fn new(bytes: u64) -> Result<Option<LockedMem>, String> {
        if bytes == 0 {
            return Ok(None);
        }
        use nix::unistd::{sysconf, SysconfVar};
        let sc = |k| sysconf(k).ok().flatten().unwrap_or(0).max(0) as u64;
        let avail = sc(SysconfVar::_AVPHYS_PAGES).saturating_mul(sc(SysconfVar::PAGE_SIZE));
        if bytes > avail {
            return Err(format!(
                "lockmem={bytes}: more than this machine's available memory ({avail} bytes)"
            ));
        }
        let mut v: Vec<u8> = Vec::new();
        v.try_reserve_exact(bytes as usize)
            .map_err(|e| format!("lockmem={bytes}: {e}"))?;
        // SAFETY: mlock over the Vec's own allocation (its capacity; mlock faults the
        // pages in, nothing reads them), which lives as long as `self`.
        if unsafe { libc::mlock(v.as_mut_ptr().cast(), v.capacity()) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(format!(
                "lockmem={bytes}: mlock failed: {e}; raise the locked-memory limit \
                 (ulimit -l) or run as root"
            ));
        }
        Ok(Some(LockedMem(v)))
    }
}

impl Drop for LockedMem {
    fn drop(&mut self) {
        // SAFETY: unlocks the range locked in `new`, still allocated.
        unsafe { libc::munlock(self.0.as_ptr().cast(), self.0.capacity()) };
    }
}

/// exec_prerun / exec_postrun: `sh -c CMD`, its output in `JOB.WHICH.txt` (fio's file).
/// The command runs in its own process group; a stop (a signal, exitall) that comes while
/// it runs ends the whole group (SIGTERM, then SIGKILL after a second) and the hook returns
/// at once, so a hung command never holds the run.
pub(crate) fn exec_hook(
    job: &str,
    which: &str,
    cmd: &str,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    use std::sync::atomic::Ordering;
    let log = format!("{job}.{which}.txt");
    let file = std::fs::File::create(&log).map_err(|e| format!("exec_{which}: {log}: {e}"))?;
    let err = file
        .try_clone()
        .map_err(|e| format!("exec_{which}: {log}: {e}"))?;
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(std::process::Stdio::null())
        .stdout(file)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("exec_{which} '{cmd}': {e}"))?;
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    // A stop already set (postrun after a signal) lets the command run; a new one ends it.
    let stopped_before = stop.load(Ordering::Relaxed);
    let mut killed = None::<std::time::Instant>;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) => {}
            Err(e) => return Err(format!("exec_{which} '{cmd}': {e}")),
        }
        if !stopped_before && stop.load(Ordering::Relaxed) {
            match killed {
                None => {
                    let _ = nix::sys::signal::killpg(group, nix::sys::signal::SIGTERM);
                    killed = Some(std::time::Instant::now());
                }
                Some(t) if t.elapsed() > std::time::Duration::from_secs(1) => {
                    let _ = nix::sys::signal::killpg(group, nix::sys::signal::SIGKILL);
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    if killed.is_some() {
        return Err(format!("exec_{which} '{cmd}' was stopped"));
    }
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "exec_{which} '{cmd}' failed ({status}); its output is in {log}"
        ))
    }
}

/// pre_read: read `len` bytes of `path` from `start` through the page cache (until `stop`).
pub(crate) fn pre_read(
    path: &std::path::Path,
    start: u64,
    len: u64,
    stop: &std::sync::atomic::AtomicBool,
) -> std::io::Result<()> {
    use std::io::{Read, Seek};
    let mut f = std::fs::File::open(path)?;
    f.seek(std::io::SeekFrom::Start(start))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 && !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let n = f.read(&mut buf[..left.min(1 << 20) as usize])?;
        if n == 0 {
            break;
        }
        left -= n as u64;
    }
    Ok(())
}
