//! Whole-file parsing tests: fio's rules end to end.

use super::*;
use std::time::Duration;

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
    let e = err("[a]\nverify=md5\n");
    assert_eq!(e, "t.fio:2: option 'verify' is not supported yet");
}

#[test]
fn bool_options_need_a_value_and_only_0_or_1() {
    let e = err("[a]\ndirect\n");
    assert!(e.contains("'direct' needs a value"), "{e}");
    let e = err("[a]\ndirect=true\n");
    assert!(e.contains("0 or 1"), "{e}");
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
fn toml_gives_the_same_job() {
    let ini = parse_fio_str(
        "[global]\nioengine=psync\nbs=4k\nsize=16m\n[mixed]\nrw=randrw\nrwmixread=70\ntime_based\nruntime=10\n",
        "t.fio",
    )
    .unwrap();
    let toml = parse_toml_str(
        "[global]\nioengine = \"psync\"\nbs = \"4KiB\"\nsize = \"16MiB\"\n\n[[job]]\nname = \"mixed\"\nrw = \"randrw\"\nrwmixread = 70\ntime_based = true\nruntime = 10\n",
        "t.toml",
    )
    .unwrap();
    let (mut a, mut b) = (ini.jobs[0].clone(), toml.jobs[0].clone());
    a.origin = Location::default();
    b.origin = Location::default();
    a.job_options.clear();
    b.job_options.clear();
    assert_eq!(a, b);
}

#[test]
fn toml_errors_name_file_and_line() {
    let e = parse_toml_str(
        "[global]\nbs = \"4KiB\"\n\n[[job]]\nname = \"a\"\nbogus = 1\n",
        "j.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("j.toml:6: unknown option 'bogus'"), "{e}");
    let e = parse_toml_str("[[job]]\nrw = \"read\"\n", "j.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs a name"), "{e}");
    let e = parse_toml_str("[global\n", "j.toml")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("j.toml:1:"), "{e}");
}

#[test]
fn command_line_globals_are_defaults_for_every_job() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("j.fio");
    std::fs::write(&f, "[nosize]\n[withsize]\nsize=2m\n").unwrap();
    let args: Vec<String> = ["--size=1m", "--name=cli", "--rw=write"]
        .map(String::from)
        .to_vec();
    let set = parse_all(&args, &[f.to_string_lossy().into_owned()], &[]).unwrap();
    let sizes: Vec<_> = set.jobs.iter().map(|j| j.size).collect();
    assert_eq!(
        sizes,
        vec![
            Some(SizeSpec::Bytes(1 << 20)),
            Some(SizeSpec::Bytes(2 << 20)),
            Some(SizeSpec::Bytes(1 << 20))
        ]
    );
    assert_eq!(set.jobs[2].name, "cli");
    assert_eq!(set.jobs[2].rw.kind, RwKind::Write);
}

#[test]
fn later_job_files_start_with_a_stonewall_and_sections_filter() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.fio");
    let b = d.path().join("b.fio");
    std::fs::write(&a, "[a1]\n[a2]\n").unwrap();
    std::fs::write(&b, "[b1]\n[b2]\n").unwrap();
    let files = [a, b].map(|p| p.to_string_lossy().into_owned()).to_vec();
    let set = parse_all(&[], &files, &[]).unwrap();
    let sw: Vec<bool> = set.jobs.iter().map(|j| j.stonewall).collect();
    assert_eq!(sw, vec![false, false, true, false]);
    let set = parse_all(&[], &files, &["a2".into(), "b2".into()]).unwrap();
    let names: Vec<&str> = set.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, vec!["a2", "b2"]);
    let e = parse_all(&[], &files, &["zz".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("no job section"), "{e}");
}

#[test]
fn cmdhelp_lists_and_explains() {
    let all = cmdhelp(None).unwrap();
    assert!(all.contains("rwmixread") && all.contains("kb_base"));
    let bs = cmdhelp(Some("bs")).unwrap();
    assert!(
        bs.contains("blocksize") && bs.contains("default : 4k"),
        "{bs}"
    );
    assert!(cmdhelp(Some("verify")).unwrap().contains("not support"));
    assert!(cmdhelp(Some("bss")).is_err());
    assert!(is_job_option("rw") && is_job_option("verify") && is_job_option("name"));
    assert!(!is_job_option("output-format"));
}

#[test]
fn error_policies_parse() {
    let j = job("[a]\ncontinue_on_error=write\nignore_error=EIO:ENOSPC,EIO\n");
    assert_eq!(j.continue_on_error, [false, true, false]);
    assert!(j.continue_on_error_set);
    assert_eq!(j.ignore_error[0], vec![libc::EIO, libc::ENOSPC]);
    assert_eq!(j.ignore_error[1], vec![libc::EIO]);
    assert!(err("[a]\nignore_error=EWHAT\n").contains("unknown errno"));
    assert!(err("[a]\ncontinue_on_error=verify\n").contains("not supported yet"));
}
