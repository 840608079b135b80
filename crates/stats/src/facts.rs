//! Facts about where a run happened: the host and each job's target (file system,
//! device). Kept with results so a stored run says what it measured.

/// The machine a run ran on.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostFacts {
    /// Host name.
    pub hostname: String,
    /// Operating system name (`Linux`).
    pub os: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// Machine architecture (`x86_64`).
    pub arch: String,
    /// Online CPUs.
    pub cpus: u32,
    /// CPU model name, when the kernel tells it.
    pub cpu_model: String,
    /// Physical memory in bytes.
    pub mem_bytes: u64,
}

/// One file or device a job did I/O on.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TargetFacts {
    /// The job that used it.
    pub job: String,
    /// Path as the job named it.
    pub path: String,
    /// `file`, `block device`, `character device` or `none` (diskless engines).
    pub kind: String,
    /// File system type of the file (`ext4`, `tmpfs`, ...); empty for devices.
    pub fs_type: String,
    /// The block device holding it (`major:minor`), and its name when known.
    pub device: String,
    /// Device model from sysfs, when known.
    pub model: String,
    /// Size in bytes at the end of the run.
    pub size: u64,
}
