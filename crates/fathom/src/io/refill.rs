//! What a write carries when its buffer is refilled (refill_buffers, compression,
//! dedupe): the bytes as a function of the job's seed and the write.

/// Fresh data for one write (refill_buffers, compression, dedupe): a function of the seed
/// and the offset (with a dedupe working set: of how many unique writes came before, as
/// fio's; with vdbench's dedup: of the block's offset and the write), so the same job
/// writes the same bytes on every engine and at every depth. `marks` are the job's draw
/// generator, unique writes and writes so far.
#[inline(never)]
pub(crate) fn refill_write(
    content: &fathom_engine::BufferContent,
    set: Option<&fathom_engine::DedupeSet>,
    data: &mut [u8],
    offset: u64,
    seed: u64,
    (draw, uniques, writes): (&mut fathom_workload::Rng, &mut u64, &mut u64),
) {
    if content.units.is_some() {
        *writes += 1;
        return content.fill_units(data, offset, seed ^ *writes);
    }
    let d = draw.below(100);
    match set {
        Some(set) if d < content.dedupe_percentage as u64 => {
            // A duplicate: a buffer of the working set, picked at random.
            content.fill(data, set.pick(draw.below(1 << 62)), 100, None);
        }
        Some(_) => {
            let u = fathom_engine::DedupeSet::unique(seed, *uniques);
            *uniques += 1;
            content.fill(data, u, 100, None);
        }
        None => content.fill(
            data,
            seed ^ offset.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            d,
            None,
        ),
    }
}
