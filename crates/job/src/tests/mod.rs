//! Whole-file parsing tests: fio's rules end to end (TOML files, command-line jobs,
//! several files and `--cmdhelp` are in `toml_cli.rs`).

use super::*;
use std::time::Duration;

mod toml_cli;

fn job(text: &str) -> JobSpec {
    let set = parse_fio_str(text, "t.fio").unwrap();
    set.jobs.into_iter().next().unwrap()
}

fn err(text: &str) -> String {
    parse_fio_str(text, "t.fio").unwrap_err().to_string()
}

#[test]
fn bogus_option_on_line_4_is_reported_as_line_4() {
    let e = err("[global]\nbs=4k\n[job]\nbogus_option=1\n");
    assert!(
        e.starts_with("t.fio:4: unknown option 'bogus_option'"),
        "{e}"
    );
}

#[test]
fn typos_get_a_suggestion() {
    let e = err("[a]\nrwmixred=70\n");
    assert!(e.contains("did you mean 'rwmixread'"), "{e}");
}

#[test]
fn fio_options_not_implemented_are_refused() {
    let e = err("[a]\natomic=1\n");
    assert_eq!(
        e,
        "t.fio:2: option 'atomic' is not supported yet: O_ATOMIC, a flag of Fusion-io's \
         kernels that Linux never had"
    );
}

#[test]
fn bool_options_need_a_value_and_only_0_or_1() {
    let e = err("[a]\ndirect\n");
    assert_eq!(
        e,
        "t.fio:2: option 'direct' requires a value, e.g. direct=1"
    );
    let e = err("[a]\ndirect=true\n");
    assert!(
        e.contains("0 or 1") && e.contains("write 1 instead of 'true'"),
        "{e}"
    );
    let e = err("[a]\nend_fsync=no\n");
    assert!(
        e.contains("write 0") && e.ends_with("e.g. end_fsync=1"),
        "{e}"
    );
    assert!(job("[a]\ndirect=0x1\n").direct);
    assert!(job("[a]\ndirect=1\n").direct);
    assert!(!job("[a]\ndirect=1\nbuffered=1\n").direct);
}

#[test]
fn flags_may_be_bare() {
    let j = job("[a]\ntime_based\ngroup_reporting\nstonewall\nthread\n");
    assert!(j.time_based && j.group_reporting && j.stonewall && j.thread);
}

#[test]
fn globals_apply_only_to_jobs_below_them() {
    let set = parse_fio_str(
        "[global]\nbs=8k\n[a]\n[global]\nbs=16k\n[b]\n[c]\nbs=1k\n",
        "t.fio",
    )
    .unwrap();
    let bs: Vec<u64> = set.jobs.iter().map(|j| j.bs.0[0]).collect();
    assert_eq!(bs, vec![8192, 16384, 1024]);
    assert_eq!(
        set.global_options,
        vec![("bs".into(), "8k".into()), ("bs".into(), "16k".into())]
    );
}

#[test]
fn repeated_options_last_wins_and_job_options_keep_what_was_typed() {
    let j = job("[a]\nbs=4k\nbs=8k\nsize=1m\n");
    assert_eq!(j.bs.0, [8192; 3]);
    assert_eq!(j.job_options[1], ("bs".to_string(), "8k".to_string()));
}

#[test]
fn kb_base_applies_to_sizes_written_before_it() {
    let j = job("[a]\nbs=4k\nsize=4kib\nkb_base=1000\n");
    assert_eq!(j.bs.0[0], 4000);
    assert_eq!(j.size, Some(SizeSpec::Bytes(4096)));
    let set = parse_fio_str("[global]\nkb_base=1000\n[a]\nbs=4k\n", "t.fio").unwrap();
    assert_eq!(set.jobs[0].bs.0[0], 4000);
}

#[test]
fn per_direction_block_sizes() {
    assert_eq!(job("[a]\nbs=8k,32k\n").bs.0, [8192, 32768, 32768]);
    assert_eq!(job("[a]\nbs=8k,32k,\n").bs.0, [8192, 32768, 4096]);
    assert_eq!(job("[a]\nbs=,8k\n").bs.0, [4096, 8192, 8192]);
    assert_eq!(job("[a]\nblocksize=64k\n").bs.0, [65536; 3]);
}

#[test]
fn a_byte_offset_after_a_percentage_leaves_the_percentage_as_fio() {
    // fio keeps its percentage when a byte offset follows it (`offset=50%` then
    // `offset=0` reads the second half), in a section or after its [global].
    let j = job("[global]\noffset=50%\n[a]\noffset=0\n");
    assert_eq!(j.offset, SizeSpec::Percent(50.0));
    assert!(
        j.notes.iter().any(|n| n.contains("offset=50% in force")),
        "{:?}",
        j.notes
    );
    // A later percentage, or a byte offset after a byte offset, replaces it.
    assert_eq!(
        job("[a]\noffset=50%\noffset=25%\n").offset,
        SizeSpec::Percent(25.0)
    );
    assert_eq!(
        job("[a]\noffset=8k\noffset=4k\n").offset,
        SizeSpec::Bytes(4096)
    );
    assert_eq!(
        job("[a]\noffset=4k\noffset=10%\n").offset,
        SizeSpec::Percent(10.0)
    );
}

#[test]
fn sizes_percentages_ranges_and_times() {
    let j = job("[a]\nsize=20%\noffset=50%\nfilesize=1m-512k\nruntime=2m\nramp_time=500ms\nstartdelay=1-3\n");
    assert_eq!(j.size, Some(SizeSpec::Percent(20.0)));
    assert_eq!(j.offset, SizeSpec::Percent(50.0));
    assert_eq!(j.filesize, Some((512 << 10, 1 << 20)));
    assert_eq!(j.runtime, Some(Duration::from_secs(120)));
    assert_eq!(j.ramp_time, Duration::from_millis(500));
    assert_eq!(
        j.startdelay,
        (Duration::from_secs(1), Duration::from_secs(3))
    );
    assert!(err("[a]\nruntime=10sec\n").contains("10s"));
    assert_eq!(job("[a]\nruntime=0\n").runtime, None);
}

#[test]
fn rw_and_its_aliases_and_mix() {
    let j = job("[a]\nreadwrite=randrw\nrwmixwrite=30\n");
    assert_eq!(j.rw.kind, RwKind::RandRw);
    assert_eq!(j.rwmixread, 70);
    assert_eq!(job("[a]\nrw=read:4k\n").rw.suffix, 4096);
    assert_eq!(job("[a]\nioengine=aio\n").ioengine, "libaio");
    assert_eq!(job("[a]\nioengine=linuxaio\n").ioengine, "libaio");
    assert!(job("[a]\nwait_for_previous\n").stonewall);
}

#[test]
fn arithmetic_and_keywords() {
    let mb = units::keyword("mb_memory").unwrap();
    let j = job("[a]\nfilesize=10*10*1000*$mb_memory\n");
    assert_eq!(j.filesize, Some((100_000 * mb, 100_000 * mb)));
    let j = job("[a]\nsize=(4*1m)\nruntime=(1s+1s)\n");
    assert_eq!(j.size, Some(SizeSpec::Bytes(4 << 20)));
    assert_eq!(j.runtime, Some(Duration::from_secs(2)));
    let n = units::keyword("ncpus").unwrap();
    assert_eq!(job("[a]\nnumjobs=$ncpus*2\n").numjobs as u64, n * 2);
}

#[test]
fn crlf_indentation_and_no_final_newline() {
    let j = job("[global]\r\n  bs=8k\r\n[a]\r\n\tsize=1m");
    assert_eq!(j.bs.0[0], 8192);
    assert_eq!(j.size, Some(SizeSpec::Bytes(1 << 20)));
}

#[test]
fn filename_lists_and_escapes() {
    let j = job("[a]\nfilename=/dev/sdb:/dev/sdc\ndirectory=/a\\:b:/c\n");
    assert_eq!(j.filenames, vec!["/dev/sdb", "/dev/sdc"]);
    assert_eq!(j.directories, vec!["/a:b", "/c"]);
}

#[test]
fn percentile_list_is_validated() {
    assert_eq!(
        job("[a]\npercentile_list=99.9:50\n").percentile_list,
        vec![50.0, 99.9]
    );
    assert!(err("[a]\npercentile_list=0:50\n").contains("(0, 100]"));
}

#[test]
fn error_policies_parse() {
    use crate::ErrorPolicy;
    let (eio, enospc, eilseq) = (libc::EIO, libc::ENOSPC, libc::EILSEQ);
    let j = job("[a]\ncontinue_on_error=write\nignore_error=EIO:ENOSPC,EIO\n");
    // ignore_error's lists turn their classes on; a later continue_on_error would reset.
    assert_eq!(j.errors.classes, [true, true, false]);
    assert_eq!(j.errors.lists[0], Some(vec![eio, enospc]));
    assert_eq!(j.errors.lists[1], Some(vec![eio]));
    assert!(j.errors.tolerates(0, enospc) && !j.errors.tolerates(1, enospc));
    assert!(err("[a]\nignore_error=EWHAT\n").contains("unknown errno"));
    // fio's default list: EIO and EILSEQ only, so ENOSPC ends even an `all` job.
    let j = job("[a]\ncontinue_on_error=all\n");
    assert!(j.errors.tolerates(1, eio) && !j.errors.tolerates(1, enospc));
    assert!(j.errors.tolerates(2, eilseq));
    let j = job("[a]\ncontinue_on_error=verify\nignore_error=,,EILSEQ\n");
    assert_eq!(j.errors.classes, [false, false, true]);
    assert!(j.errors.any() && j.errors.tolerates(2, eilseq));
    // One list is reads' alone, as fio reads it.
    let j = job("[a]\nignore_error=ENOSPC\n");
    assert_eq!(j.errors.classes, [true, false, false]);
    // continue_on_error after ignore_error sets the classes anew (fio's order matters).
    let j = job("[a]\nignore_error=,ENOSPC\ncontinue_on_error=read\n");
    assert!(!j.errors.tolerates(1, enospc));
    let j = job("[a]\ncontinue_on_error=read\nignore_error=,ENOSPC\n");
    assert!(j.errors.tolerates(1, enospc) && j.errors.tolerates(0, eio));
    assert_eq!(ErrorPolicy::class(true, eilseq), 2);
    assert_eq!(ErrorPolicy::class(false, eio), 1);
    assert!(!job("[a]\n").errors.any());
}

#[test]
fn invalid_values_say_why_and_give_an_example() {
    let e = err("[a]\nbs=abc\n");
    assert!(
        e.starts_with("t.fio:2: option 'bs': invalid value 'abc': "),
        "{e}"
    );
    assert!(e.ends_with("; e.g. bs=4k"), "{e}");
    let e = err("[a]\nblocksize=4q\n");
    assert!(e.ends_with("; e.g. blocksize=4k"), "{e}");
    let e = err("[a]\nfallocate=sometimes\n");
    assert!(
        e.contains("use none, native") && e.ends_with("fallocate=none"),
        "{e}"
    );
    let e = err("[a]\nrw=randomread\n");
    assert!(e.ends_with("e.g. rw=randread"), "{e}");
}

#[test]
fn seconds_suffix_spelled_sec_is_an_error_naming_the_fix() {
    let e = err("[a]\nruntime=10sec\n");
    assert!(
        e.starts_with("t.fio:2: option 'runtime': invalid value '10sec'"),
        "{e}"
    );
    assert!(e.contains("write 10s") && e.contains("10 µs"), "{e}");
    let e = err("[a]\nramp_time=5min\n");
    assert!(e.contains("write 5m"), "{e}");
    assert_eq!(
        job("[a]\nruntime=1h\n").runtime,
        Some(Duration::from_secs(3600))
    );
    assert_eq!(
        job("[a]\nthinktime=250\n").thinktime,
        Duration::from_micros(250)
    );
    assert_eq!(
        job("[a]\nthinktime=2ms\n").thinktime,
        Duration::from_millis(2)
    );
    assert_eq!(
        job("[a]\nstartdelay=5-2\n").startdelay,
        (Duration::from_secs(2), Duration::from_secs(5))
    );
}

#[test]
fn engine_options_of_other_engines_name_the_engine() {
    for (o, engine) in [
        ("rbdname", "fio's rbd and rados engines"),
        (
            "hostname",
            "fio's net, netsplice, rdma, librpma and libhdfs engines",
        ),
        ("verb", "fio's rdma engine"),
        ("xnvme_be", "fio's xnvme engine"),
        ("posixaio_yield", ""),
    ] {
        let text = format!("[a]\n{o}=1\n");
        let e = parse_fio_str(&text, "t.fio").unwrap_err();
        if o == "posixaio_yield" {
            assert!(matches!(e, JobError::UnknownOption { .. }), "{e}");
        } else {
            assert!(matches!(e, JobError::Refused { .. }), "{e}");
            assert!(
                e.to_string().starts_with(&format!(
                    "t.fio:2: option '{o}' is not available: it is an option of {engine}, \
                     which fathom does not have"
                )),
                "{e}"
            );
        }
    }
    let j = job("[a]\nioengine=io_uring\nhipri\nfixedbufs\nsqthread_poll=1\nnonvectored=0\n");
    assert!(j.engine.hipri && j.engine.fixedbufs && j.engine.sqthread_poll);
    assert_eq!(j.engine.nonvectored, 0);
}

#[test]
fn errors_inside_an_include_point_into_the_included_file() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("common.fio"), "bs=8k\ninclude deeper.fio\n").unwrap();
    std::fs::write(d.path().join("deeper.fio"), "# nested\n\nbogus_option=1\n").unwrap();
    let main = d.path().join("main.fio");
    std::fs::write(&main, "[a]\ninclude common.fio\n").unwrap();
    let p = main.to_string_lossy().into_owned();
    let e = parse_fio_str(&std::fs::read_to_string(&main).unwrap(), &p)
        .unwrap_err()
        .to_string();
    let want = format!(
        "{}:3: unknown option 'bogus_option'",
        d.path().join("deeper.fio").display()
    );
    assert!(e.starts_with(&want), "{e}");
    std::fs::write(d.path().join("deeper.fio"), "size=1m\n").unwrap();
    let j = &parse_all(&[], &[p], &[]).unwrap().jobs[0];
    assert_eq!((j.bs.0[0], j.size), (8192, Some(SizeSpec::Bytes(1 << 20))));
}

#[test]
fn names_origins_and_options_as_typed() {
    let set = parse_fio_str(
        "; c\n[global]\nbs=8k\n\n[first]\nname=renamed\nsize=1m\n[second]\ntime_based\n",
        "t.fio",
    )
    .unwrap();
    let (a, b) = (&set.jobs[0], &set.jobs[1]);
    assert_eq!((a.name.as_str(), b.name.as_str()), ("renamed", "second"));
    assert_eq!(
        a.origin,
        Location {
            file: "t.fio".into(),
            line: 5
        }
    );
    assert_eq!(b.origin.line, 8);
    assert_eq!(
        a.job_options,
        vec![
            ("name".into(), "renamed".into()),
            ("size".into(), "1m".into())
        ]
    );
    assert_eq!(b.job_options, vec![("time_based".into(), String::new())]);
    assert_eq!(set.global_options, vec![("bs".into(), "8k".into())]);
}

#[test]
fn keywords_with_arithmetic_are_computed() {
    let ps = units::keyword("pagesize").unwrap();
    assert_eq!(job("[a]\nbs=$pagesize*2\n").bs.0[0], ps * 2);
    assert_eq!(job("[a]\nbs=$pagesize\n").bs.0[0], ps);
    assert_eq!(
        job("[a]\nsize=(1m+512k)\n").size,
        Some(SizeSpec::Bytes(3 << 19))
    );
    assert_eq!(
        job("[a]\nsize=(2^20)\n").size,
        Some(SizeSpec::Bytes(1 << 20))
    );
}

#[test]
fn rwmix_the_later_of_read_and_write_wins() {
    assert_eq!(job("[a]\nrwmixwrite=20\nrwmixread=60\n").rwmixread, 60);
    assert_eq!(job("[a]\nrwmixread=60\nrwmixwrite=20\n").rwmixread, 80);
    assert!(err("[a]\nrwmixread=101\n").contains("between 0 and 100"));
}

#[test]
fn any_section_starting_with_global_is_global_and_spaces_around_equals_are_trimmed() {
    let set = parse_fio_str(
        "[global-defaults]\nbs = 8k ; spaces are trimmed (fio would read 8 bytes)\n[a]\nsize = 0x10\noffset_increment=10%\n",
        "t.fio",
    )
    .unwrap();
    assert_eq!(set.jobs.len(), 1);
    let j = &set.jobs[0];
    assert_eq!(j.bs.0, [8192; 3]);
    assert_eq!(j.size, Some(SizeSpec::Bytes(16)));
    assert_eq!(j.offset_increment, SizeSpec::Percent(10.0));
    assert!(err("[a]\nsize=0%\n").contains("(0, 100]"));
    assert!(err("[a]\nsize=101%\n").contains("(0, 100]"));
}

#[test]
fn zones_may_be_given_per_direction() {
    let j = job("[a]\nrandom_distribution=zoned:90/10:10/90,0/50:100/50\n");
    let d = j.random_distribution_dirs.expect("per-direction zones");
    assert_eq!(
        d[0],
        Some(RandomDist::Zoned(vec![(90.0, 10.0), (10.0, 90.0)]))
    );
    assert_eq!(
        d[1],
        Some(RandomDist::Zoned(vec![(0.0, 50.0), (100.0, 50.0)]))
    );
    assert_eq!(d[2], None);
    assert_eq!(j.random_distribution, d[0].clone().unwrap());
    let j = job("[a]\nrandom_distribution=zoned_abs:50/1m:50/3m\n");
    assert!(j.random_distribution_dirs.is_none());
    assert!(parse_fio_str("[a]\nrandom_distribution=zoned:1/1,2/2,3/3,4/4\n", "t.fio").is_err());
}

#[test]
fn verify_patterns_may_carry_the_offset() {
    let j = job("[a]\nverify=pattern\nverify_pattern=0xff%o\"ab\"\n");
    assert_eq!(
        j.verify.pattern,
        Some(vec![0xff, 0, 0, 0, 0, 0, 0, 0, 0, b'a', b'b'])
    );
    assert_eq!(j.verify.pattern_offsets, vec![1]);
}

#[test]
fn io_size_zero_means_size_as_in_fio() {
    assert_eq!(job("[a]\nsize=1m\nio_size=0\n").io_size, None);
    assert_eq!(job("[a]\nsize=1m\nio_size=2m\n").io_size, Some(2 << 20));
}

// fio reads a plain number's value up to each separator (`,`, else `:`, else `-`), checks
// every part as the option's value and keeps the first (the last for the options it reads
// through a function: size, offset, rwmixread, …); fathom keeps the same one and says so.
#[test]
fn several_values_of_a_one_value_option_keep_fios_choice_and_say_so() {
    let j = job("[j]\nrw=randrw\niodepth=4,8\nloops=2:3\nsize=1m,2m\nrwmixread=70,30\n");
    assert_eq!(j.iodepth, 4);
    assert_eq!(j.loops, 2);
    assert_eq!(j.size, Some(crate::words::SizeSpec::Bytes(2 << 20)));
    assert_eq!(j.rwmixread, 30);
    assert_eq!(j.notes.len(), 4, "{:?}", j.notes);
    assert!(j.notes[0].contains("t.fio:3"), "{:?}", j.notes);
    assert!(j.notes[0].contains("first value, 4"), "{:?}", j.notes);
    assert!(j.notes[2].contains("last value, 2m"), "{:?}", j.notes);
    assert_eq!(job("[j]\niodepth=4-8\n").iodepth, 4);
    assert_eq!(job("[j]\niodepth=4,\n").iodepth, 4);
    assert!(job("[j]\niodepth=4,\n").notes.is_empty());
    // Every part is checked, as fio checks it (`direct=1,2`: 2 is out of range).
    assert!(
        err("[j]\ndirect=1,2\n").contains("'1,2'"),
        "{}",
        err("[j]\ndirect=1,2\n")
    );
    assert!(err("[j]\niodepth=4,x\n").contains("iodepth"));
    // Not for options whose value is a list or a string.
    assert!(err("[j]\nrw=read,write\n").contains("'rw'"));
}
