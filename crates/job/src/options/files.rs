//! Job description, files and sizes.

use super::{int_in, size, size_or_percent, OptDef};
use crate::units::{parse_bool, parse_range, split_paths};
use crate::words::Fallocate;

const C: &str = "Job description and files";

pub(super) static OPTS: &[OptDef] = &[
    OptDef {
        name: "name",
        aliases: &[],
        category: C,
        ty: "string",
        default: "the section name",
        doc: "Job name; on the command line, --name starts a new job",
        flag: false,
        apply: |j, v, _| {
            j.name = v.to_string();
            Ok(())
        },
    },
    OptDef {
        name: "description",
        aliases: &[],
        category: C,
        ty: "string",
        default: "",
        doc: "Free text printed with the job's results",
        flag: false,
        apply: |j, v, _| {
            j.description = Some(v.trim_matches('"').to_string());
            Ok(())
        },
    },
    OptDef {
        name: "filename",
        aliases: &[],
        category: C,
        ty: "path list",
        default: "jobname.jobnum.filenum",
        doc: "Target file(s) or device(s), ':'-separated (\\: for a literal colon); overrides nrfiles",
        flag: false,
        apply: |j, v, _| {
            if v == "-" {
                return Err("filename=- (stdin/stdout) is not supported yet".into());
            }
            j.filenames = split_paths(v);
            Ok(())
        },
    },
    OptDef {
        name: "directory",
        aliases: &[],
        category: C,
        ty: "path list",
        default: "./",
        doc: "Directory for the job's files; ':'-separated lists are spread over clones",
        flag: false,
        apply: |j, v, _| {
            j.directories = split_paths(v);
            Ok(())
        },
    },
    OptDef {
        name: "filename_format",
        aliases: &[],
        category: C,
        ty: "string",
        default: "$jobname.$jobnum.$filenum",
        doc: "File name template with $jobname, $jobnum and $filenum (and fathom's $rank under MPI); fathom extension: a number keyword with :W is padded with zeros to W digits ($jobnum:8 gives 00000003)",
        flag: false,
        apply: |j, v, _| {
            j.filename_format = v.to_string();
            Ok(())
        },
    },
    OptDef {
        name: "size",
        aliases: &[],
        category: C,
        ty: "size or %",
        default: "the file's size",
        doc: "Total bytes of the job's I/O, divided over its files (or % of an existing file/device); with filesize, the I/O done over files of that size",
        flag: false,
        apply: |j, v, c| {
            j.size = Some(size_or_percent(v, c)?);
            Ok(())
        },
    },
    OptDef {
        name: "filesize",
        aliases: &[],
        category: C,
        ty: "size range",
        default: "size/nrfiles",
        doc: "Size of each file (the I/O region is the file from offset); a range lo-hi \
              gives each file fio's draw from it (a file that exists with a size in the \
              range keeps it); size= still bounds the I/O",
        flag: false,
        apply: |j, v, c| {
            j.filesize = Some(parse_range(v, |x| size(x, c))?);
            Ok(())
        },
    },
    OptDef {
        name: "io_size",
        aliases: &["io_limit"],
        category: C,
        ty: "size or percent",
        default: "size",
        doc: "Bytes of I/O to do; more than size wraps around the region (0: size, as fio); N% does that share of each file's region (at most 100%)",
        flag: false,
        apply: |j, v, c| {
            if let Some(p) = v.trim().strip_suffix('%') {
                let p: u64 = p.trim().parse().map_err(|_| {
                    format!("io_size: '{v}' is not a percentage; e.g. io_size=50%")
                })?;
                if p > 100 {
                    return Err("io_size values greater than 100% aren't supported (fio's rule); give bytes, e.g. io_size=10g".into());
                }
                // (0% and 100% are the whole region, as in fio.)
                j.io_size = None;
                j.io_size_percent = Some(p).filter(|&p| p > 0 && p < 100);
                return Ok(());
            }
            // fio reads 0 as not set.
            j.io_size = Some(size(v, c)?).filter(|&n| n > 0);
            j.io_size_percent = None;
            Ok(())
        },
    },
    OptDef {
        name: "nrfiles",
        aliases: &["nr_files"],
        category: C,
        ty: "int",
        default: "1",
        doc: "Number of files per job",
        flag: false,
        apply: |j, v, _| {
            j.nrfiles = int_in(v, 1, 1 << 24)?;
            Ok(())
        },
    },
    OptDef {
        name: "openfiles",
        aliases: &[],
        category: C,
        ty: "int",
        default: "nrfiles",
        doc: "Files open at once (0: all of them, as in fio)",
        flag: false,
        apply: |j, v, _| {
            j.openfiles = Some(int_in(v, 0, 1 << 24)?).filter(|&n| n > 0);
            Ok(())
        },
    },
    OptDef {
        name: "offset",
        aliases: &["fileoffset"],
        category: C,
        ty: "size or %",
        default: "0",
        doc: "Start of the I/O region in each file (a percentage is of the file as it is: 0 for a file not made yet, as fio); a byte offset given after a percentage (a job's after its [global]'s) leaves the percentage in force, as in fio",
        flag: false,
        apply: |j, v, c| {
            let new = size_or_percent(v, c)?;
            if let (crate::words::SizeSpec::Percent(p), crate::words::SizeSpec::Bytes(_)) =
                (j.offset, new)
            {
                if p > 0.0 {
                    // fio keeps its percentage (its byte offset is used only without
                    // one): `offset=50%` then `offset=0` starts at the middle.
                    j.notes.push(format!(
                        "offset={v} leaves the earlier offset={p}% in force, as fio does                          (a byte offset counts only without a percentage)"
                    ));
                    return Ok(());
                }
            }
            j.offset = new;
            Ok(())
        },
    },
    OptDef {
        name: "segments",
        aliases: &[],
        category: C,
        ty: "int",
        default: "1",
        doc: "IOR's segmented layout of a shared filename=: that many segments, each with one block (size/segments) per clone of every MPI rank, in order",
        flag: false,
        apply: |j, v, _| {
            j.segments = super::int_in(v, 1, 1 << 20)?;
            Ok(())
        },
    },
    OptDef {
        name: "offset_align",
        aliases: &[],
        category: C,
        ty: "size",
        default: "0 (minimum bs)",
        doc: "A percentage offset (with its offset_increment) is rounded up to a multiple of this",
        flag: false,
        apply: |j, v, c| {
            j.offset_align = size(v, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "offset_increment",
        aliases: &[],
        category: C,
        ty: "size or %",
        default: "0",
        doc: "Each clone's offset grows by this times its clone number",
        flag: false,
        apply: |j, v, c| {
            j.offset_increment = size_or_percent(v, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "unlink",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Remove the job's files when it ends",
        flag: false,
        apply: |j, v, _| {
            j.unlink = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "file_append",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "I/O after the end of each regular file: its region starts at the file's size before the run (as offset= of that size), so writes append",
        flag: true,
        apply: |j, v, _| {
            j.control.file_append = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "opendir",
        aliases: &[],
        category: C,
        ty: "path",
        default: "",
        doc: "The job's files are every regular file below this folder (searched recursively, in name order; links are not followed)",
        flag: false,
        apply: |j, v, _| {
            if v.trim().is_empty() {
                return Err("name a folder, e.g. opendir=/data/set".into());
            }
            j.control.opendir = Some(v.to_string());
            Ok(())
        },
    },
    OptDef {
        name: "unlink_each_loop",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Between loops (loops=N), remove the job's files; the next loop's writes make them anew (jobs that write only; fio's reading loops fail on the removed files)",
        flag: true,
        apply: |j, v, _| {
            j.control.unlink_each_loop = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "create_on_open",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Create files when they are opened for I/O rather than during setup: nothing is laid out, also for a job that reads (as fio: a read past the file's end fails with EIO)",
        flag: false,
        apply: |j, v, _| {
            j.create_on_open = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "overwrite",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Write the whole file during setup, so writes overwrite existing blocks",
        flag: false,
        apply: |j, v, _| {
            j.overwrite = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "fallocate",
        aliases: &[],
        category: C,
        ty: "none|native|posix|keep|truncate|0|1",
        default: "native",
        doc: "How files are preallocated during setup",
        flag: false,
        apply: |j, v, _| {
            j.fallocate = match v {
                "none" | "0" => Fallocate::None,
                "native" => Fallocate::Native,
                "posix" | "1" => Fallocate::Posix,
                "keep" => Fallocate::Keep,
                "truncate" => Fallocate::Truncate,
                _ => return Err("use none, native, posix, keep or truncate".into()),
            };
            Ok(())
        },
    },
    OptDef {
        name: "create_fsync",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "fsync each file laid out before the run, so its data is on stable storage before the clock starts; 0 leaves it to the page cache",
        flag: true,
        apply: |j, v, _| {
            j.create_fsync = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "write_hint",
        aliases: &[],
        category: C,
        ty: "none|short|medium|long|extreme",
        default: "",
        doc: "Set the write lifetime hint of each file (fcntl F_SET_RW_HINT) before the run, for devices and file systems that place data by expected lifetime",
        flag: false,
        apply: |j, v, _| {
            j.write_hint = Some(match v {
                "none" => 1,
                "short" => 2,
                "medium" => 3,
                "long" => 4,
                "extreme" => 5,
                _ => return Err("use none, short, medium, long or extreme".into()),
            });
            Ok(())
        },
    },
    OptDef {
        name: "allow_mounted_write",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Allow writing to a block device that is mounted (destroys its file system)",
        flag: false,
        apply: |j, v, _| {
            j.allow_mounted_write = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "invalidate",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "Drop the page cache over each file's region before I/O starts and again at each pass (loop, io_size pass, time-based wrap), as fio",
        flag: false,
        apply: |j, v, _| {
            j.invalidate = parse_bool(v)?;
            Ok(())
        },
    },
];
