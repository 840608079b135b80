//! fio options fathom recognises but does not implement yet. Each is rejected with
//! "option 'X' is not supported yet: WHY" ([`NAMES`], with the reason and what to use), or,
//! when it belongs only to a fio engine fathom does not have, by naming that engine
//! ([`ENGINE_ONLY`]); never silently ignored. A name stands in one list only (the ones
//! refused on purpose are in `REFUSED`).

pub(super) static NAMES: &[(&str, &str)] = &[
    (
        "profile",
        "fio's built-in profiles (act, tiobench) generate jobs of their own; write out the jobs the profile would make as a job file",
    ),
    (
        "ramp_size",
        "a later fio's ramp by amount of I/O (not in fio 3.33, the fio fathom follows); use ramp_time",
    ),
    (
        "job_start_clock_id",
        "a later fio's choice of clock for job_start (not in fio 3.33); fathom's job_start is the wall clock, in ms",
    ),
    (
        "nrfiles_max",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "filetype",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "recover_zbd_write_error",
        "not an option of fio 3.33, the fio fathom follows (a later fio's zonemode=zbd option); refused rather than guessed at",
    ),
    (
        "write_zone_remainder",
        "not an option of fio 3.33, the fio fathom follows (a later fio's zonemode=zbd option); refused rather than guessed at",
    ),
    (
        "dsync",
        "not an option of fio 3.33 (the fio fathom follows); sync=dsync opens the files O_DSYNC",
    ),
    (
        "end_syncfs",
        "a later fio's (not in fio 3.33); end_fsync=1 syncs each file when the job ends",
    ),
    (
        "percentage_sequential",
        "a later fio's (not in fio 3.33); percentage_random=100-N says the same",
    ),
    (
        "random_sequence_stride",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "sprandom",
        "a later fio's SSD preconditioning pattern (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "spr_num_regions",
        "see sprandom (a later fio's)",
    ),
    (
        "spr_op",
        "see sprandom (a later fio's)",
    ),
    (
        "spr_cs",
        "see sprandom (a later fio's)",
    ),
    (
        "rwmixcycle",
        "gone from fio before 3.33; rwmixread and rwmixwrite set the mix",
    ),
    (
        "invalidate_on_close",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "thinkcycles",
        "a later fio's busy loop per I/O (not in fio 3.33); thinktime with thinktime_spin spins",
    ),
    (
        "flow_watermark",
        "gone from fio before 3.33; flow= and flow_sleep= pace flows",
    ),
    (
        "priohint",
        "a later fio's I/O priority hints (not in fio 3.33); prio and prioclass set priorities",
    ),
    (
        "cmdprio_hint",
        "a later fio's (not in fio 3.33); cmdprio_percentage, cmdprio_class, cmdprio and cmdprio_bssplit set per-I/O priorities",
    ),
    (
        "comm",
        "a later fio's name for the job's process (not in fio 3.33)",
    ),
    (
        "verify_pattern_interval",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "verify_policy",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "verify_write_sequence",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "verify_header_seed",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "verifysort_nr",
        "gone from fio before 3.33 (verifysort is accepted, as fio keeps it for old files)",
    ),
    (
        "uncached",
        "fio 3.33's RWF_UNCACHED is a flag of a kernel patch Linux never merged (6.14's RWF_DONTCACHE has another value); not built",
    ),
    (
        "atomic",
        "O_ATOMIC, a flag of Fusion-io's kernels that Linux never had",
    ),
    (
        "libaio_vectored",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "cdb_len",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "write_mode",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "verify_mode",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "fdp",
        "NVMe flexible data placement, a later fio's (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "dataplacement",
        "NVMe flexible data placement, a later fio's (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "data_placement",
        "NVMe flexible data placement, a later fio's (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "fdp_pli",
        "NVMe flexible data placement, a later fio's (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "fdp_pli_select",
        "NVMe flexible data placement, a later fio's (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "plids",
        "NVMe flexible data placement, a later fio's (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "plid_select",
        "NVMe flexible data placement, a later fio's (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "dp_scheme",
        "NVMe flexible data placement, a later fio's (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "pi_chk_reftag",
        "an NVMe passthrough option of a later fio (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "namespace",
        "an NVMe passthrough option of a later fio (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "deac",
        "an NVMe passthrough option of a later fio (not in fio 3.33, the fio fathom follows)",
    ),
    (
        "hugepage_size",
        "a later fio's spelling (not in fio 3.33); hugepage-size is accepted",
    ),
    (
        "pool_name",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "no_completion_thread",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "read_mode",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "rocm_io",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "verify_bytchk",
        "not an option of fio 3.33, the fio fathom follows (a later fio's); refused rather than guessed at",
    ),
    (
        "block_error_percentiles",
        "percentiles of the blocks trim verification (trim_percentage) found bad; fathom checks trims with trim_verify_zero instead",
    ),
];

/// Options that belong only to fio engines fathom does not have, with those engines: a job
/// file that sets one is refused by naming the engine (what it needs is the engine).
pub(super) static ENGINE_ONLY: &[(&[&str], &[&str])] = &[
    (
        &[
            "protocol",
            "proto",
            "interface",
            "ttl",
            "listen",
            "pingpong",
            "window_size",
            "mss",
            "nodelay",
        ],
        &["net", "netsplice"],
    ),
    (
        &["hostname", "port"],
        &["net", "netsplice", "rdma", "librpma", "libhdfs"],
    ),
    (&["verb", "bindname"], &["rdma"]),
    (
        &["serverip", "direct_write_to_pmem", "busy_wait_polling"],
        &["librpma"],
    ),
    (
        &[
            "namenode",
            "hdfsdirectory",
            "single_instance",
            "single-instance",
            "hdfs_use_direct",
        ],
        &["libhdfs"],
    ),
    (&["chunk_size", "chunck_size"], &["libhdfs", "dfs"]),
    (
        &[
            "clientname",
            "rbdname",
            "busy_poll",
            "clustername",
            "touch_objects",
            "conf",
            "rbd_encryption_format",
            "rbd_encryption_passphrase",
        ],
        &["rbd", "rados"],
    ),
    (&["pool"], &["rbd", "rados", "dfs"]),
    (&["cont", "object_class", "svcl"], &["dfs"]),
    (&["volume", "brick"], &["gfapi"]),
    (
        &[
            "http_host",
            "http_user",
            "http_pass",
            "http_s3_key",
            "http_s3_keyid",
            "http_s3_region",
            "http_mode",
            "http_verbose",
            "https",
            "http_swift_auth_token",
            "http_s3_sse_customer_key",
            "http_s3_sse_customer_algorithm",
            "http_s3_storage_class",
            "http_s3_security_token",
            "http_object_mode",
        ],
        &["http"],
    ),
    (&["uri"], &["nbd"]),
    (&["nfs_url"], &["nfs"]),
    (
        &["sg_write_mode", "readfua", "writefua", "stream_id"],
        &["sg"],
    ),
    (
        &[
            "cmd_type",
            "md_per_io_size",
            "pi_act",
            "pi_chk",
            "apptag",
            "apptag_mask",
            "num_range",
        ],
        &["io_uring_cmd", "xnvme"],
    ),
    (
        &[
            "xnvme_async",
            "xnvme_sync",
            "xnvme_admin",
            "xnvme_dev_nsid",
            "xnvme_dev_subnqn",
            "xnvme_mem",
            "xnvme_iovec",
            "xnvme_be",
        ],
        &["xnvme"],
    ),
    (&["gpu_dev_ids", "cuda_io"], &["libcufile"]),
    (&["gpu_dev_id"], &["rdma (GPUDirect)"]),
    (&["skip_bad"], &["mtd"]),
    (&["donorname", "inplace"], &["e4defrag"]),
    (
        &["program", "arguments", "grace_time", "std_redirect"],
        &["exec"],
    ),
    (&["initiator"], &["libiscsi"]),
    (
        &[
            "libblkio_driver",
            "libblkio_path",
            "libblkio_pre_connect_props",
            "libblkio_num_entries",
            "libblkio_queue_size",
            "libblkio_pre_start_props",
            "libblkio_vectored",
            "libblkio_write_zeroes_on_trim",
            "libblkio_wait_mode",
            "libblkio_force_enable_completion_eventfd",
        ],
        &["libblkio"],
    ),
];
