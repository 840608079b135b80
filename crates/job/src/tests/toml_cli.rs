//! TOML job files, command-line jobs, several job files and `--cmdhelp`.

use super::*;

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
    let h = cmdhelp(Some("atomic")).unwrap();
    assert!(h.contains("does not take") && h.contains("O_ATOMIC"), "{h}");
    assert!(cmdhelp(Some("bss")).is_err());
    assert!(is_job_option("rw") && is_job_option("verify") && is_job_option("name"));
    assert!(!is_job_option("output-format"));
}

#[test]
fn toml_times_and_sizes_are_strict() {
    let e = parse_toml_str("[[job]]\nname = \"a\"\nthinktime = 100\n", "j.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("j.toml:3: option 'thinktime'") && e.contains("\"100us\""),
        "{e}"
    );
    let set = parse_toml_str(
        "[global]\nkb_base = 1000\n[[job]]\nname = \"a\"\nthinktime = \"100us\"\nruntime = \"500ms\"\nbs = \"4k\"\nsize = 4096\ndirect = true\nfilename = [\"/a\", \"/b\"]\n",
        "j.toml",
    )
    .unwrap();
    let j = &set.jobs[0];
    assert_eq!(j.thinktime, Duration::from_micros(100));
    assert_eq!(j.runtime, Some(Duration::from_millis(500)));
    assert_eq!(j.bs.0[0], 4000, "k is 1000 in TOML");
    assert_eq!(j.size, Some(SizeSpec::Bytes(4096)));
    assert!(j.direct);
    assert_eq!(j.filenames, vec!["/a", "/b"]);
    let e = parse_toml_str("[[job]]\nname = \"a\"\natomic = 1\n", "j.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("j.toml:3: option 'atomic' is not supported yet: "),
        "{e}"
    );
}

#[test]
fn command_line_jobs_flags_and_global_sections() {
    let args: Vec<String> = [
        "--kb_base=1000",
        "--bs=4k",
        "--name=global",
        "--rw=randwrite",
        "--name=one",
        "--time_based",
        "--runtime=2",
        "--name=two",
        "--rw=read",
    ]
    .map(String::from)
    .to_vec();
    let set = parse_all(&args, &[], &[]).unwrap();
    assert_eq!(set.jobs.len(), 2);
    let (one, two) = (&set.jobs[0], &set.jobs[1]);
    assert_eq!(one.bs.0[0], 4000, "kb_base from the command-line globals");
    assert_eq!(one.rw.kind, RwKind::RandWrite);
    assert!(one.time_based);
    assert_eq!(two.rw.kind, RwKind::Read);
    assert_eq!(one.origin.file, "<command line>");
    assert_eq!(
        one.job_options,
        vec![
            ("name".into(), "one".into()),
            ("time_based".into(), String::new()),
            ("runtime".into(), "2".into())
        ]
    );
    assert_eq!(
        set.global_options,
        vec![
            ("kb_base".into(), "1000".into()),
            ("bs".into(), "4k".into()),
            // As fio: a --name=global section's name is one of the global options.
            ("name".into(), "global".into()),
            ("rw".into(), "randwrite".into())
        ]
    );
    let e = parse_all(&["--name=a".into(), "--bogus".into()], &[], &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("<command line>: unknown option 'bogus'"),
        "{e}"
    );
    let e = parse_all(&["--direct".into()], &[], &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("requires a value"), "{e}");
}

#[test]
fn file_jobs_get_their_file_index_and_keep_their_own_settings() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.fio");
    let b = d.path().join("b.toml");
    std::fs::write(&a, "[a1]\nbs=8k\n").unwrap();
    std::fs::write(&b, "[[job]]\nname = \"b1\"\n[[job]]\nname = \"b2\"\n").unwrap();
    let files = [a, b].map(|p| p.to_string_lossy().into_owned()).to_vec();
    let args = vec!["--bs=16k".to_string(), "--name=c".to_string()];
    let set = parse_all(&args, &files, &[]).unwrap();
    let got: Vec<(&str, usize, bool, u64)> = set
        .jobs
        .iter()
        .map(|j| (j.name.as_str(), j.file_index, j.stonewall, j.bs.0[0]))
        .collect();
    assert_eq!(
        got,
        vec![
            ("a1", 0, false, 8192),
            ("b1", 1, true, 16384),
            ("b2", 1, false, 16384),
            ("c", 2, false, 16384)
        ]
    );
}

#[test]
fn cmdhelp_all_shows_aliases_types_defaults_and_unsupported_names() {
    let all = cmdhelp(Some("all")).unwrap();
    assert!(all.contains("bs (blocksize)"), "{all}");
    assert!(all.contains("[default: 4k]"));
    assert!(all.contains("size list R,W,T"));
    assert!(all.contains("not support yet") || all.contains("does not support yet"));
    assert!(all.contains(" verify"));
    let one = cmdhelp(Some("blocksize")).unwrap();
    assert!(
        one.starts_with("bs: ") && one.contains("example : bs=4k"),
        "{one}"
    );
    let e = cmdhelp(Some("rwmixred")).unwrap_err().to_string();
    assert!(e.contains("did you mean 'rwmixread'"), "{e}");
}
