//! NUMA placement of a job's threads (fio's numa_cpu_nodes and numa_mem_policy), from
//! /sys/devices/system/node and set_mempolicy(2).

use fathom_job::{NumaMode, NumaPolicy};

const NODES: &str = "/sys/devices/system/node";

/// The NUMA nodes of this machine.
pub fn nodes() -> Vec<u32> {
    let mut v: Vec<u32> = std::fs::read_dir(NODES)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("node")?.parse().ok())
        .collect();
    v.sort_unstable();
    v
}

/// An error unless every node in `want` exists here.
pub fn check(option: &str, want: &[u32]) -> Result<(), String> {
    let have = nodes();
    match want.iter().find(|n| !have.contains(n)) {
        Some(n) => Err(format!(
            "{option}: NUMA node {n} does not exist on this machine (nodes: {})",
            have.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        None => Ok(()),
    }
}

/// The CPUs of node `n` (its `cpulist`, e.g. `0-3,8`).
fn cpus_of(n: u32) -> Result<Vec<usize>, String> {
    let path = format!("{NODES}/node{n}/cpulist");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let mut out = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let (lo, hi): (usize, usize) = (
            lo.parse().map_err(|_| format!("{path}: '{part}'"))?,
            hi.parse().map_err(|_| format!("{path}: '{part}'"))?,
        );
        out.extend(lo..=hi);
    }
    Ok(out)
}

/// Run the calling thread on the CPUs of `nodes` (and of `allowed`, when cpus_allowed
/// is given too).
pub fn run_on_nodes(nodes: &[u32], allowed: Option<&[usize]>) -> Result<(), String> {
    let mut cpus = Vec::new();
    for &n in nodes {
        cpus.extend(cpus_of(n)?);
    }
    if let Some(a) = allowed {
        cpus.retain(|c| a.contains(c));
    }
    if cpus.is_empty() {
        return Err(format!(
            "numa_cpu_nodes {nodes:?}: no CPU of those nodes is in cpus_allowed"
        ));
    }
    let mut set = nix::sched::CpuSet::new();
    for &c in cpus.iter().filter(|&&c| c < nix::sched::CpuSet::count()) {
        set.set(c)
            .map_err(|e| format!("numa_cpu_nodes {nodes:?}: CPU {c}: {e}"))?;
    }
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)
        .map_err(|e| format!("numa_cpu_nodes {nodes:?}: {}", std::io::Error::from(e)))
}

/// Set the calling thread's memory policy.
pub fn set_mem_policy(p: &NumaPolicy) -> Result<(), String> {
    let mut mask = [0u64; 16];
    for &n in &p.nodes {
        if n as usize >= mask.len() * 64 {
            return Err(format!("numa_mem_policy: node {n} is beyond 1023"));
        }
        mask[n as usize / 64] |= 1 << (n % 64);
    }
    let (ptr, bits) = match p.mode {
        NumaMode::Default | NumaMode::Local => (std::ptr::null(), 0),
        _ => (mask.as_ptr(), mask.len() * 64 + 1),
    };
    // SAFETY: set_mempolicy reads `bits` bits from `mask`, which has that many (or none
    // from a null pointer with 0); it changes only this thread's policy.
    let r = unsafe { libc::syscall(libc::SYS_set_mempolicy, p.mode as i64, ptr, bits as u64) };
    if r != 0 {
        return Err(format!(
            "numa_mem_policy {:?} {:?}: {}",
            p.mode,
            p.nodes,
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_zero_exists_and_has_cpus() {
        if !std::path::Path::new(NODES).is_dir() {
            return;
        }
        assert!(nodes().contains(&0));
        assert!(!cpus_of(0).unwrap().is_empty());
        assert!(check("numa_cpu_nodes", &[0]).is_ok());
        let e = check("numa_cpu_nodes", &[999]).unwrap_err();
        assert!(e.contains("node 999 does not exist"), "{e}");
    }

    #[test]
    fn policies_take_effect_on_a_thread() {
        if !std::path::Path::new(NODES).is_dir() {
            return;
        }
        std::thread::spawn(|| {
            for mode in [NumaMode::Bind, NumaMode::Interleave, NumaMode::Prefer] {
                let p = NumaPolicy {
                    mode,
                    nodes: vec![0],
                };
                set_mem_policy(&p).unwrap();
            }
            set_mem_policy(&NumaPolicy {
                mode: NumaMode::Local,
                nodes: vec![],
            })
            .unwrap();
            run_on_nodes(&[0], None).unwrap();
        })
        .join()
        .unwrap();
    }
}
