//! The first hour of a new user: each common mistake or missing kernel feature gets a
//! message that says what to do (and exit code 2 before any I/O).

mod common;
use common::*;

fathomtest!(
    a_misspelt_option_in_a_job_file_names_file_line_and_the_fix,
    |env| {
        env.write(
            "j.fio",
            "[global]\nsize=1m\n\n[job]\nrw=randread\nblocksiz=4k\n",
        );
        let o = env.run(&["j.fio"]);
        assert_eq!(o.status.code(), Some(2));
        let e = stderr(&o);
        assert!(e.contains("j.fio:6: unknown option 'blocksiz'"), "{e}");
        assert!(
            e.contains("did you mean 'blocksize'?") || e.contains("did you mean 'bs'?"),
            "{e}"
        );
    }
);

fathomtest!(a_wrong_unit_is_explained_with_an_example, |env| {
    for (line, want) in [
        ("runtime=10sec", "write 10s"),
        ("bs=4kx", "e.g. bs=4k"),
        ("size=lots", "e.g. size=1g"),
    ] {
        env.write("u.fio", &format!("[u]\nioengine=null\nsize=1m\n{line}\n"));
        let o = env.run(&["u.fio"]);
        assert_eq!(o.status.code(), Some(2), "{line}");
        let e = stderr(&o);
        assert!(e.contains("u.fio:4:"), "{line}: {e}");
        assert!(e.contains(want), "{line}: {e}");
    }
});

fathomtest!(a_missing_directory_is_made_and_removed_again, |env| {
    let o = env.run(&[
        "--name=d",
        "--directory=not/yet/there",
        "--size=1m",
        "--rw=write",
        "--unlink=1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !env.path().join("not").exists(),
        "fathom removes the directories it made"
    );
});

fathomtest!(
    direct_io_on_a_file_system_without_it_says_use_direct_0,
    |env| {
        // ramfs has no O_DIRECT at all (open fails with EINVAL).
        let mnt = env.path().join("ramfs");
        std::fs::create_dir(&mnt).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "ramfs", "none", mnt.to_str().unwrap()])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            assert!(
                std::env::var_os("FATHOM_REQUIRE_LOOP").is_none(),
                "mounting ramfs failed but FATHOM_REQUIRE_LOOP is set"
            );
            eprintln!("cannot mount ramfs here (not root?): not tested");
            return;
        }
        let dir = format!("--directory={}", mnt.display());
        let o = env.run(&["--name=d", &dir, "--size=1m", "--direct=1", "--rw=read"]);
        let _ = std::process::Command::new("umount").arg(&mnt).status();
        let e = stderr(&o);
        assert_ne!(o.status.code(), Some(0), "{e}");
        assert!(
            e.contains("refuses O_DIRECT") && e.contains("direct=0"),
            "{e}"
        );
    }
);

/// Run fathom with io_uring_setup failing with ENOSYS, as on a kernel without io_uring.
#[cfg(target_arch = "x86_64")]
fn without_io_uring(env: &Env, args: &[&str]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut c = env.cmd();
    c.args(args);
    // SAFETY: only async-signal-safe calls (prctl) between fork and exec.
    unsafe {
        c.pre_exec(|| {
            const IO_URING_SETUP: u32 = 425;
            let filter = [
                // A = syscall number
                libc::sock_filter {
                    code: 0x20,
                    jt: 0,
                    jf: 0,
                    k: 0,
                },
                // if A == io_uring_setup: next, else skip one
                libc::sock_filter {
                    code: 0x15,
                    jt: 0,
                    jf: 1,
                    k: IO_URING_SETUP,
                },
                // return ERRNO(ENOSYS)
                libc::sock_filter {
                    code: 0x06,
                    jt: 0,
                    jf: 0,
                    k: 0x0005_0000 | libc::ENOSYS as u32,
                },
                // return ALLOW
                libc::sock_filter {
                    code: 0x06,
                    jt: 0,
                    jf: 0,
                    k: 0x7fff_0000,
                },
            ];
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr() as *mut libc::sock_filter,
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(libc::PR_SET_SECCOMP, 2, &prog as *const libc::sock_fprog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.output().unwrap()
}

#[cfg(target_arch = "x86_64")]
fathomtest!(
    io_uring_unavailable_stops_before_any_io_and_names_alternatives,
    |env| {
        let o = without_io_uring(
            &env,
            &["--name=u", "--ioengine=io_uring", "--size=1m", "--rw=write"],
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("io_uring is unavailable"), "{e}");
        assert!(
            e.contains("ENOSYS") && e.contains("use ioengine=libaio or psync"),
            "{e}"
        );
        assert!(!env.path().join("u.0.0").exists(), "nothing was laid out");
        // Every other engine still works under the same filter.
        let o = without_io_uring(
            &env,
            &["--name=p", "--ioengine=psync", "--size=1m", "--rw=write"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
);
