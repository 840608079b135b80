//! Crash journals (`fathom verify --journal`): a real journal with its header changed, its
//! records changed (with their checksums made good again, so the values reach the replay,
//! or left bad), cut short or lengthened.

use crate::{fathom, fuzz, mutate_json, Src};

const RECORD: usize = 32;

#[test]
fn fuzz_journals() {
    // In memory where there is a tmpfs: a journal is written for every input.
    let dir = tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap();
    let journal = dir.path().join("seed.journal");
    let data = dir.path().join("data");
    fathom(
        dir.path(),
        &[
            "--name=j",
            "--rw=randwrite",
            "--bs=4k",
            "--size=64k",
            "--verify=crc32c",
            "--do_verify=0",
            &format!("--filename={}", data.display()),
            &format!("--verify_journal={}", journal.display()),
        ],
    );
    let seed = std::fs::read(&journal).unwrap();
    let nl = seed
        .iter()
        .position(|&b| b == b'\n')
        .expect("a header line")
        + 1;
    let header: serde_json::Value = serde_json::from_slice(&seed[..nl - 1]).unwrap();
    let records = seed[nl..].to_vec();
    assert!(records.len() >= 16 * RECORD && records.len() % RECORD == 0);
    assert!(
        fathom::journal::check(&journal).is_ok(),
        "the seed journal checks clean"
    );
    let target = dir.path().join("fuzz.journal");
    fuzz("crash journals", 2000, |input| {
        let mut src = Src::new(input);
        let mut head = seed[..nl].to_vec();
        let mut recs = records.clone();
        match src.pick(4) {
            0 => {
                head = mutate_json(&header, &mut src).into_bytes();
                head.push(b'\n');
            }
            1 => {
                recs.truncate(src.pick(recs.len() + 1));
            }
            2 => {
                let tail = src.text(96);
                recs.extend_from_slice(tail.as_bytes());
            }
            _ => {}
        }
        // Change bytes of some records; most get their checksum made good again.
        while !src.done() && !recs.is_empty() {
            let r = src.pick(recs.len() / RECORD) * RECORD;
            let at = r + src.pick(24);
            if at < recs.len() {
                recs[at] = src.byte();
            }
            if src.pick(4) != 0 && r + 28 <= recs.len() {
                let crc = crc32c::crc32c(&recs[r..r + 24]);
                recs[r + 24..r + 28].copy_from_slice(&crc.to_le_bytes());
            }
        }
        head.extend_from_slice(&recs);
        std::fs::write(&target, &head).unwrap();
        let _ = fathom::journal::check(&target);
    });
}
