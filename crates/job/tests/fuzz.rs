//! Fuzz targets for the job-file parsers and value parsers (bolero). Under `cargo test`
//! each runs a bounded number of generated inputs, seeded from the job files in `jobs/`;
//! with `cargo bolero test -p fathom-job fuzz_fio_parser` they run under libFuzzer.
//! Property: any input is either parsed or refused with an error — never a panic.

use fathom_job::units::{eval_expr, parse_range, parse_size, parse_time, split_rwt, TimeUnit};
use fathom_job::{parse_fio_str, parse_toml_str, Dialect};

fn seeds() -> Vec<String> {
    let mut v = Vec::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../jobs");
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if let Ok(s) = std::fs::read_to_string(e.path()) {
                v.push(s);
            }
        }
    }
    v.push("[global]\nbs=4k,8k\nsize=(1+2)*4m\n[a]\nrw=randrw:8\nbssplit=4k/10:64k/\n".into());
    v
}

#[test]
fn fuzz_fio_parser() {
    let seeds = seeds();
    bolero::check!()
        .with_iterations(3000)
        .for_each(|input: &[u8]| {
            let text = String::from_utf8_lossy(input);
            let _ = parse_fio_str(&text, "fuzz.fio");
            // Splice the input into a real job file too, so deep paths are reached.
            let seed = &seeds[input.len() % seeds.len()];
            let cut = seed
                .char_indices()
                .map(|(i, _)| i)
                .nth(input.len() % seed.len().max(1))
                .unwrap_or(0);
            let spliced = format!("{}{}{}", &seed[..cut], text, &seed[cut..]);
            let _ = parse_fio_str(&spliced, "fuzz.fio");
        });
}

#[test]
fn fuzz_toml_parser() {
    bolero::check!()
        .with_iterations(3000)
        .for_each(|input: &[u8]| {
            let text = String::from_utf8_lossy(input);
            let _ = parse_toml_str(&text, "fuzz.toml");
            let _ = parse_toml_str(
                &format!(
                    "[[job]]\nname = \"a\"\nbs = \"{}\"\n",
                    text.replace('"', "")
                ),
                "f.toml",
            );
        });
}

#[test]
fn fuzz_value_parsers() {
    bolero::check!()
        .with_iterations(5000)
        .for_each(|input: &[u8]| {
            let s = String::from_utf8_lossy(input);
            let _ = parse_size(&s, 1024, Dialect::Fio);
            let _ = parse_size(&s, 1000, Dialect::Toml);
            let _ = parse_time(&s, TimeUnit::Seconds);
            let _ = parse_range(&s, |x| parse_size(x, 1024, Dialect::Fio));
            let _ = split_rwt(&s);
            let _ = eval_expr(&s, false);
            let _ = eval_expr(&s, true);
        });
}
