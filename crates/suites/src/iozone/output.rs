//! iozone's outputs of a matrix: its table, the `-R` Excel-style report, the `-b`
//! spreadsheet and fathom's CSV.

use super::{Matrix, TESTS};
use anyhow::{anyhow, Result};
use std::path::Path;

/// iozone's tests in groups as `-i` selects them: the columns of each, and the blank a
/// row has where the group did not run (iozone's own: its fread group leaves one column
/// fewer).
const GROUPS: [(&[usize], usize); 8] = [
    (&[0, 1], 18),
    (&[2, 3], 18),
    (&[4, 5], 18),
    (&[6], 9),
    (&[7], 10),
    (&[8], 10),
    (&[9, 10], 18),
    (&[11, 12], 17),
];

/// Each column's width in iozone's table.
const WIDTHS: [usize; 13] = [9, 9, 9, 9, 9, 9, 9, 10, 10, 9, 9, 9, 9];

/// Whether a group ran in a cell: its first test has a figure (a re-test left out by
/// `-+n` then shows 0, as iozone prints it).
fn ran(r: &[Option<u64>; 13], g: usize) -> bool {
    r[GROUPS[g].0[0]].is_some()
}

/// A cell iozone's crossover skipped (no figure at all): not in the table, 0 in the
/// report, as iozone's dummy entries.
fn skipped(r: &[Option<u64>; 13]) -> bool {
    r.iter().all(Option::is_none)
}

/// iozone's table.
pub fn table(m: &Matrix) -> String {
    let mut s = String::from(
        "                                                              random    random     bkwd    record    stride                                    \n\
         \x20             kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n",
    );
    // A run with no test at all (`-i 11` alone) still shows its rows, blank, as iozone.
    let none_ran = m.iter().all(|c| skipped(&c.2));
    for (size, rec, r) in m.iter().filter(|c| none_ran || !skipped(&c.2)) {
        s.push_str(&format!("{:>16}{:>8}", size / 1024, rec / 1024));
        for (g, (cols, blank)) in GROUPS.iter().enumerate() {
            if !ran(r, g) {
                s.push_str(&" ".repeat(*blank));
                continue;
            }
            for &c in *cols {
                // A blank between columns even where a figure is wider than its column
                // (iozone's would run together).
                let w = WIDTHS[c] - 1;
                s.push_str(&format!(" {:>w$}", r[c].unwrap_or(0)));
            }
        }
        s.push('\n');
    }
    s
}

/// iozone's report titles, in test order.
const REPORTS: [&str; 13] = [
    "Writer",
    "Re-writer",
    "Reader",
    "Re-Reader",
    "Random read",
    "Random write",
    "Backward read",
    "Record rewrite",
    "Stride read",
    "Fwrite",
    "Re-Fwrite",
    "Fread",
    "Re-Fread",
];

/// The file sizes and record sizes of a matrix, in order.
fn axes(m: &Matrix) -> (Vec<u64>, Vec<u64>) {
    let mut sizes: Vec<u64> = m.iter().map(|c| c.0).collect();
    let mut recs: Vec<u64> = m.iter().map(|c| c.1).collect();
    sizes.sort_unstable();
    sizes.dedup();
    recs.sort_unstable();
    recs.dedup();
    (sizes, recs)
}

/// iozone's `-R` report, as iozone prints it: per test of the groups that ran a block
/// titled `"Writer report"`, the record sizes of the run (`recs`, kB) across, then a row
/// per file size (kB) with the figures of the cells it has (a re-test `-+n` left out:
/// 0).
pub fn report(m: &Matrix, recs: &[u64]) -> String {
    let (sizes, _) = axes(m);
    let mut s = String::from("Excel output is below:\n");
    for (g, (cols, _)) in GROUPS.iter().enumerate() {
        if !m.iter().any(|c| ran(&c.2, g)) {
            continue;
        }
        for &t in *cols {
            s.push_str(&format!("\n\"{} report\"\n      ", REPORTS[t]));
            for r in recs {
                s.push_str(&format!("  \"{}\"", r / 1024));
            }
            s.push('\n');
            for &size in &sizes {
                s.push_str(&format!("\"{}\"  ", size / 1024));
                for c in m
                    .iter()
                    .filter(|c| c.0 == size && (ran(&c.2, g) || skipped(&c.2)))
                {
                    s.push_str(&format!(" {} ", c.2[t].unwrap_or(0)));
                }
                s.push('\n');
            }
        }
    }
    s
}

/// `-b FILE`: the report as a spreadsheet (xlsx, which Excel, LibreOffice and pandas
/// open whatever the file is named), laid out as iozone's: one block per test.
pub(super) fn write_book(path: &Path, m: &Matrix, ops: bool) -> Result<()> {
    use rust_xlsxwriter::Workbook;
    let (sizes, recs) = axes(m);
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    let mut row = 0u32;
    let x = |e: rust_xlsxwriter::XlsxError| anyhow!("{}: {e}", path.display());
    // As iozone's: a block for each test of the groups that ran (a re-test `-+n` left
    // out holds 0s).
    let tests = GROUPS
        .iter()
        .enumerate()
        .filter(|(g, _)| m.iter().any(|c| ran(&c.2, *g)))
        .flat_map(|(g, (cols, _))| cols.iter().map(move |&t| (g, t)));
    for (g, t) in tests {
        let title = REPORTS[t];
        let unit = if ops { " (ops/s)" } else { " (kB/s)" };
        ws.write_string(row, 0, format!("{title} report{unit}"))
            .map_err(x)?;
        row += 1;
        for (i, r) in recs.iter().enumerate() {
            ws.write_number(row, i as u16 + 1, (r / 1024) as f64)
                .map_err(x)?;
        }
        row += 1;
        for &size in &sizes {
            ws.write_number(row, 0, (size / 1024) as f64).map_err(x)?;
            for (i, &r) in recs.iter().enumerate() {
                if let Some(v) = m
                    .iter()
                    .find(|c| c.0 == size && c.1 == r && (ran(&c.2, g) || skipped(&c.2)))
                    .map(|c| c.2[t].unwrap_or(0))
                {
                    ws.write_number(row, i as u16 + 1, v as f64).map_err(x)?;
                }
            }
            row += 1;
        }
        row += 1;
    }
    wb.save(path).map_err(x)?;
    Ok(())
}

/// CSV: one row per file and record size.
pub fn csv(m: &Matrix) -> String {
    let mut s = String::from("kB,reclen");
    for t in TESTS {
        s.push(',');
        s.push_str(&t.replace(' ', "_"));
    }
    s.push('\n');
    for (size, rec, r) in m.iter().filter(|c| !skipped(&c.2)) {
        s.push_str(&format!("{},{}", size / 1024, rec / 1024));
        for v in r {
            s.push(',');
            if let Some(v) = v {
                s.push_str(&v.to_string());
            }
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_report_are_laid_out_as_iozone_prints_them() {
        let all = [Some(1_000_000); 13];
        let mut two = [None; 13];
        (two[0], two[2]) = (Some(7), Some(9)); // -i 0 -i 1 -+n
        let m: Matrix = vec![(64 << 10, 4 << 10, all), (128 << 10, 4 << 10, two)];
        let t = table(&m);
        let lines: Vec<&str> = t.lines().collect();
        // iozone 3.471's widths: a whole row and the header are 143 columns; a row of
        // the write and read groups ends in the other groups' blanks (the fread one 17).
        assert_eq!(lines[0].len(), 143);
        assert_eq!(lines[1].len(), 143);
        assert_eq!(lines[2].len(), 143);
        assert_eq!(
            lines[3],
            format!(
                "{:>16}{:>8}{:>9}{:>9}{:>9}{:>9}{}",
                128,
                4,
                7,
                0,
                9,
                0,
                " ".repeat(82)
            )
        );
        let r = report(&m, &[4 << 10, 8 << 10]);
        assert!(
            r.starts_with("Excel output is below:\n\n\"Writer report\"\n        \"4\"  \"8\"\n\"64\"   1000000 \n\"128\"   7 \n\n\"Re-writer report\"\n"),
            "{r}"
        );
        assert!(
            r.contains(
                "\"Re-writer report\"\n        \"4\"  \"8\"\n\"64\"   1000000 \n\"128\"   0 \n"
            ),
            "{r}"
        );
        // Groups no cell ran are left out; one cell ran them: their block is there.
        assert!(r.contains("\"Fread report\""), "{r}");
    }
}
