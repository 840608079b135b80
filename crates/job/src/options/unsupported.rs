//! fio options fathom recognises but does not implement yet. Each is rejected with
//! "option 'X' is not supported yet", never silently ignored.

pub(super) static NAMES: &[&str] = &[
    // Units, description, profiles
    "unit_base", "profile", "significant_figures",
    // Time
    "ramp_size", "job_start_clock_id",
    // Files and devices
    "unique_filename", "lockfile", "nrfiles_max", "file_service_type", "ioscheduler",
    "create_serialize", "create_fsync", "create_only", "allow_file_create",
    "allow_mounted_write", "file_append", "fill_device", "fill_fs", "filetype", "opendir",
    "pre_read", "unlink_each_loop", "zonemode", "zonesize", "zonerange", "zoneskip",
    "zonecapacity", "max_open_zones", "job_max_open_zones", "ignore_zone_limits",
    "zone_reset_threshold", "zone_reset_frequency", "read_beyond_wp",
    "recover_zbd_write_error", "write_zone_remainder", "offset_align", "fadvise_hint",
    "write_hint", "sync", "dsync", "end_syncfs", "sync_file_range", "write_barrier",
    "exec_prerun", "exec_postrun",
    // I/O type
    "rw_sequencer", "percentage_random", "percentage_sequential", "random_distribution",
    "random_generator", "norandommap", "softrandommap", "random_sequence_stride",
    "sprandom", "spr_num_regions", "spr_op", "spr_cs", "trim_percentage",
    "trim_verify_zero", "trim_backlog", "trim_backlog_batch", "rwmixcycle",
    // Block sizes
    "bsrange", "blocksize_range", "bssplit", "bs_unaligned", "blocksize_unaligned", "ba",
    "blockalign", "bs_is_seq_rand",
    // Buffers and memory
    "scramble_buffers", "buffer_compress_percentage", "buffer_compress_chunk",
    "buffer_pattern", "dedupe_percentage", "dedupe_mode", "dedupe_working_set_percentage",
    "dedupe_global", "iomem", "mem", "iomem_align", "mem_align", "hugepage-size",
    "lockmem", "invalidate_on_close",
    // Depth and batching
    "iodepth_batch", "iodepth_batch_submit", "iodepth_batch_complete",
    "iodepth_batch_complete_min", "iodepth_batch_complete_max", "iodepth_low",
    "io_submit_mode", "serialize_overlap",
    // Rate, latency, think time
    "rate", "rate_min", "ratemin", "rate_iops", "rate_iops_min", "rate_process",
    "rate_cycle", "ratecycle", "rate_ignore_thinktime", "thinktime", "thinktime_spin",
    "thinktime_blocks", "thinktime_blocks_type", "thinktime_iotime", "thinkcycles",
    "latency_target", "latency_window", "latency_percentile", "latency_run", "max_latency",
    "flow", "flow_id", "flow_sleep", "flow_watermark",
    // Replay
    "read_iolog", "write_iolog", "read_iolog_chunked", "replay_no_stall",
    "replay_time_scale", "replay_redirect", "replay_align", "replay_scale", "replay_skip",
    "merge_blktrace_file", "merge_blktrace_scalars", "merge_blktrace_iters",
    // Threads, processes, groups
    "wait_for", "exitall", "exit_what", "exitall_on_error", "cpumask", "cpus_allowed",
    "cpus_allowed_policy", "numa_cpu_nodes", "numa_mem_policy", "nice", "prio",
    "prioclass", "priohint", "cmdprio_percentage", "cmdprio_class", "cmdprio",
    "cmdprio_hint", "cmdprio_bssplit", "cgroup", "cgroup_weight", "cgroup_nodelete",
    "uid", "gid", "comm", "gtod_reduce", "gtod_cpu", "clocksource", "stats",
    // Verification
    "verify", "do_verify", "verify_interval", "verify_offset", "verify_pattern",
    "verify_pattern_interval", "verify_fatal", "verify_dump", "verify_async",
    "verify_async_cpus", "verify_backlog", "verify_backlog_batch", "verify_state_save",
    "verify_state_load", "verify_only", "experimental_verify", "verify_policy",
    "verify_write_sequence", "verify_header_seed", "verifysort", "verifysort_nr",
    // Steady state
    "steadystate", "ss", "steadystate_duration", "ss_dur", "steadystate_ramp_time",
    "ss_ramp", "steadystate_check_interval", "ss_interval",
    // Measurements and logs
    "slat_percentiles", "unified_rw_reporting", "disable_lat", "disable_clat",
    "disable_slat", "disable_bw_measurement", "disable_bw", "bwavgtime", "iopsavgtime",
    "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log", "log_avg_msec",
    "log_hist_msec", "log_hist_coarseness", "log_max_value", "log_window_value",
    "log_offset", "log_prio", "log_issue_time", "log_compression", "log_compression_cpus",
    "log_store_compressed", "log_unix_epoch", "log_alternate_epoch",
    "log_alternate_epoch_clock_id", "log_entries", "per_job_logs",
    "block_error_percentiles", "disk_util",
    // Errors
    "continue_on_error", "ignore_error", "error_dump",
    // Engine options
    "hipri", "hipri_percentage", "fixedbufs", "registerfiles", "sqthread_poll",
    "sqthread_poll_cpu", "nonvectored", "uncached", "nowait", "force_async", "atomic",
    "userspace_reap", "libaio_vectored", "cmd_type", "cdb_len", "readfua", "writefua",
    "write_mode", "verify_mode", "fdp", "dataplacement", "data_placement", "fdp_pli",
    "fdp_pli_select", "plids", "plid_select", "pi_act", "pi_chk", "pi_chk_reftag",
    "md_per_io_size", "num_range", "stat_type", "sg_write_mode", "hugepage_size",
    "cpuload", "cpuchunks", "cpumode", "exit_on_io_done", "program", "arguments",
    "grace_time", "std_redirect", "hostname", "port", "protocol", "bindname",
    "listen", "pingpong", "interface", "ttl", "window_size", "mss", "namespace",
    "chunk_size", "pool", "clustername", "clientname", "busy_poll", "touch_objects",
    "http_host", "http_user", "http_pass", "http_s3_key", "http_s3_keyid",
    "http_swift_auth_token", "http_s3_region", "http_mode", "http_verbose",
    "https", "gpu_dev_ids", "cuda_io", "xnvme_async", "xnvme_sync", "xnvme_admin",
    "xnvme_dev_nsid", "xnvme_dev_subnqn", "xnvme_mem", "xnvme_iovec", "libblkio_driver",
    "libblkio_path", "libblkio_pre_connect_props", "libblkio_num_entries",
    "libblkio_queue_size", "libblkio_pre_start_props", "libblkio_vectored",
    "libblkio_write_zeroes_on_trim", "libblkio_wait_mode", "libblkio_force_enable_completion_eventfd",
    "donorname", "inplace", "exec_postrun", "pool_name",
];
