//! iozone's outputs of a matrix: its table, the `-R` Excel-style report, the `-b`
//! spreadsheet and fathom's CSV.

use super::{Matrix, TESTS};
use anyhow::{anyhow, Result};
use std::path::Path;

/// iozone's table.
pub fn table(m: &Matrix) -> String {
    let mut s = String::from(
        "                                                              random    random     bkwd    record    stride\n\
         \x20             kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n",
    );
    for (size, rec, r) in m {
        s.push_str(&format!("{:>16}{:>8}", size / 1024, rec / 1024));
        let widths = [9, 9, 8, 10, 9, 10, 9, 10, 10, 9, 9, 9, 9];
        // Always a blank between columns, even when a figure is wider than its column.
        for (v, w) in r.iter().zip(widths) {
            let w = w - 1;
            match v {
                Some(v) => s.push_str(&format!(" {v:>w$}")),
                None => s.push_str(&format!(" {:>w$}", "")),
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

/// iozone's `-R` report: per test a block titled `"Writer report"`, the record sizes
/// (kB) across, a row per file size (kB).
pub fn report(m: &Matrix, ops: bool) -> String {
    let (sizes, recs) = axes(m);
    let mut s = String::from("Excel output is below:\n");
    for (t, title) in REPORTS.iter().enumerate() {
        if m.iter().all(|c| c.2[t].is_none()) {
            continue;
        }
        let unit = if ops { " (ops/s)" } else { "" };
        s.push_str(&format!("\n\"{title} report\"{unit}\n        "));
        for r in &recs {
            s.push_str(&format!("\"{}\"  ", r / 1024));
        }
        s.push('\n');
        for &size in &sizes {
            s.push_str(&format!("\"{}\"   ", size / 1024));
            for &r in &recs {
                let v = m
                    .iter()
                    .find(|c| c.0 == size && c.1 == r)
                    .and_then(|c| c.2[t]);
                s.push_str(&v.map_or(String::new(), |v| v.to_string()));
                s.push(' ');
            }
            s.push('\n');
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
    for (t, title) in REPORTS.iter().enumerate() {
        if m.iter().all(|c| c.2[t].is_none()) {
            continue;
        }
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
                    .find(|c| c.0 == size && c.1 == r)
                    .and_then(|c| c.2[t])
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
    for (size, rec, r) in m {
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
