//! vdbench parameter files (read, typed and expanded into runs, as `-s` does), values and
//! lists, the command line and parseflat.

use crate::{files_in, fuzz, splice};
use std::collections::HashMap;
use std::path::Path;

fn seeds() -> Vec<String> {
    let mut v = files_in("jobs/vdbench");
    v.extend(files_in("tests/fixtures/vdbench"));
    v.push(
        "sd=default,size=1m\nsd=sd1,lun=/x\nwd=wd1,sd=sd*,xfersize=(4k,30,8k,70),rdpct=50\n\
         rd=rd1,wd=wd*,iorate=curve,curve=(10-100,10),forthreads=(1-8,d),forseekpct=(0,eof,50)\n"
            .into(),
    );
    v
}

/// Read, type and expand, as `-s` does.
fn through(text: &str) {
    let vars: HashMap<String, String> = [("lun".to_string(), "/x".to_string())].into();
    let Ok(pf) = fathom_vdbench::parse::read_str(Path::new("fuzz.vdb"), text, &vars) else {
        return;
    };
    let Ok(m) = fathom_vdbench::model::Model::from_parm(&pf) else {
        return;
    };
    if let Ok(runs) = fathom_vdbench::runs::expand(&m) {
        // A run list no one would run is still listed without a panic.
        let _ = fathom_vdbench::runs::simulate(&runs[..runs.len().min(1000)]);
        for r in runs.iter().take(50) {
            let _ = fathom_vdbench::jobs::check_static(r);
        }
    }
}

#[test]
fn fuzz_parmfile() {
    let seeds = seeds();
    fuzz("vdbench parameter file", 3000, |input| {
        let text = String::from_utf8_lossy(input);
        through(&text);
        // Spliced into a real parameter file, so deep paths are reached.
        let seed = &seeds[input.len() % seeds.len()];
        through(&splice(seed, input.len(), &text));
    });
}

#[test]
fn fuzz_values_and_lists() {
    fuzz("vdbench values and lists", 3000, |input| {
        let text = String::from_utf8_lossy(input);
        let _ = fathom_vdbench::value::size(&text);
        let _ = fathom_vdbench::value::secs(&text);
        for key in [
            "xfersize",
            "forthreads",
            "curve",
            "range",
            "sizes",
            "iorate",
            "seekpct",
            "fileio",
            "openflags",
            "format",
            "distribution",
            "count",
        ] {
            let kind = if key == "sizes" {
                "fsd=f,anchor=/a,"
            } else if key == "range" || key == "count" {
                "sd=s,lun=/x,"
            } else {
                "sd=s,lun=/x\nwd=w,sd=s\nrd=r,wd=w,"
            };
            through(&format!("{kind}{key}=({text})\nwd=w2,sd=s\nrd=r2,wd=w2\n"));
            through(&format!("{kind}{key}={text}\n"));
        }
    });
}

#[test]
fn fuzz_command_line_and_parseflat() {
    fuzz("vdbench command line and parseflat", 3000, |input| {
        let text = String::from_utf8_lossy(input);
        let args: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        let _ = fathom_vdbench::parse_cli(&args);
        if let Ok(o) = fathom_vdbench::flat::parse_args(&args) {
            let _ = fathom_vdbench::flat::to_csv(&text, &o);
        }
        let o = fathom_vdbench::flat::FlatOpts {
            input: "f".into(),
            averages: input.first().is_some_and(|b| b & 1 == 1),
            ..Default::default()
        };
        let _ = fathom_vdbench::flat::to_csv(&format!("Run Interval rate\n{text}"), &o);
    });
}

#[test]
fn huge_loops_are_refused_not_expanded() {
    let text = "sd=s,lun=/x,size=1m\nwd=w,sd=s\nrd=r,wd=w,forthreads=(1-1000),forrdpct=(0-100),forxfersize=(1k-100k,1k)\n";
    let pf = fathom_vdbench::parse::read_str(Path::new("t"), text, &HashMap::new()).unwrap();
    let m = fathom_vdbench::model::Model::from_parm(&pf).unwrap();
    let e = fathom_vdbench::runs::expand(&m).unwrap_err();
    assert!(e.to_string().contains("at most 100000"), "{e}");
}
