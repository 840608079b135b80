//! SVG plots of results (`fathom plot`): the latency percentile spectrum (HdrHistogram's
//! "nines" axis), IOPS and bandwidth over time, and a bar chart comparing several results.
//!
//! Inputs are [`RunResult`]s: native results carry everything; fio JSON+ results give the
//! spectrum (from their latency bins) and the totals, fio JSON the totals only.

use fathom_stats::{LatStat, RunResult};
use plotters::prelude::*;

/// One plotted result and the label it gets in legends.
pub struct Input {
    /// Legend label (usually the file name).
    pub label: String,
    /// The result.
    pub run: RunResult,
}

/// One written chart: a file name (no directory) and its SVG text.
pub struct Chart {
    /// Suggested file name, e.g. `spectrum-randread-read.svg`.
    pub file: String,
    /// The SVG document.
    pub svg: String,
    /// What it shows, for the listing the CLI prints.
    pub title: String,
}

const DIRS: [&str; 3] = ["read", "write", "trim"];
const SIZE: (u32, u32) = (960, 560);

fn color(i: usize) -> RGBColor {
    const C: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(255, 127, 14),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(23, 190, 207),
    ];
    C[i % C.len()]
}

fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// 3500000 → "3.5M", 1200 → "1.2k", 12.5 → "12.5".
fn human(v: f64) -> String {
    let (d, unit) = match v.abs() {
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e3 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let x = v / d;
    let t = format!("{x:.1}");
    format!("{}{unit}", t.strip_suffix(".0").unwrap_or(&t))
}

type DrawResult<T> = Result<T, Box<dyn std::error::Error>>;

type Canvas<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// A white canvas of the standard size, drawn on by `draw`; the SVG document.
fn svg(draw: impl FnOnce(&Canvas<'_>) -> DrawResult<()>) -> DrawResult<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
    }
    Ok(svg)
}

/// The frame every chart shares: its title, margin and label areas.
fn frame<'a, 'b>(
    root: &'a Canvas<'b>,
    title: &str,
    x_label_area: u32,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(root);
    b.caption(title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(x_label_area)
        .y_label_area_size(80);
    b
}

/// Each series as a line in its own colour, with a legend at `legend`.
fn lines<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    series: &[(String, Vec<(f64, f64)>)],
    legend: SeriesLabelPosition,
) -> DrawResult<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (i, (label, pts)) in series.iter().enumerate() {
        let c = color(i);
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))?
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(legend)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// (x in nines, y in µs) points of a latency population's percentile spectrum.
pub fn spectrum_points(l: &LatStat) -> Vec<(f64, f64)> {
    if l.count() == 0 {
        return Vec::new();
    }
    // Beyond log10(n) nines every percentile is the maximum; stop there (at most 6).
    let top = (l.count() as f64).log10().clamp(0.5, 6.0);
    let steps = (top * 25.0).ceil() as usize;
    (0..=steps)
        .map(|i| {
            let x = top * i as f64 / steps as f64;
            let p = 100.0 * (1.0 - 10f64.powf(-x));
            (x, l.percentile(p) as f64 / 1000.0)
        })
        .collect()
}

fn nines_label(x: f64) -> String {
    if x < 0.5 {
        return "0%".into();
    }
    let n = x.round() as i32;
    let mut s = String::from("99");
    if n == 1 {
        return "90%".into();
    }
    for _ in 2..n {
        s.push('9');
    }
    // 99, 99.9, 99.99 ...
    let (a, b) = s.split_at(2);
    if b.is_empty() {
        format!("{a}%")
    } else {
        format!("{a}.{b}%")
    }
}

fn spectrum_chart(
    job: &str,
    dir: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> DrawResult<String> {
    let xmax = series
        .iter()
        .flat_map(|(_, p)| p.last().map(|q| q.0))
        .fold(1.0f64, f64::max);
    let ys = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1));
    let ymin = ys.clone().fold(f64::MAX, f64::min).max(0.001) / 1.5;
    let ymax = ys.fold(0.0f64, f64::max).max(ymin * 2.0) * 1.5;
    svg(|root| {
        let title = format!("{job} {dir}: completion latency by percentile");
        let mut chart = frame(root, &title, 44)
            .build_cartesian_2d(0f64..xmax.ceil(), (ymin..ymax).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("percentile")
            .y_desc("clat (µs)")
            .x_labels(xmax.ceil() as usize + 1)
            .x_label_formatter(&|x| nines_label(*x))
            .draw()?;
        lines(&mut chart, series, SeriesLabelPosition::UpperLeft)
    })
}

fn time_chart(
    title: &str,
    ydesc: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> DrawResult<String> {
    xy_chart(title, "time (s)", ydesc, series)
}

/// A line chart of (x, y) series with a legend, as an SVG document.
pub fn xy(
    title: &str,
    xdesc: &str,
    ydesc: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<String, String> {
    xy_chart(title, xdesc, ydesc, series).map_err(|e| format!("drawing: {e}"))
}

fn xy_chart(
    title: &str,
    xdesc: &str,
    ydesc: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> DrawResult<String> {
    let xmax = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .fold(0.5f64, f64::max);
    let ymax = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.1;
    svg(|root| {
        let mut chart = frame(root, title, 44).build_cartesian_2d(0f64..xmax, 0f64..ymax)?;
        chart
            .configure_mesh()
            .x_desc(xdesc)
            .y_desc(ydesc)
            .y_label_formatter(&|v| human(*v))
            .draw()?;
        lines(&mut chart, series, SeriesLabelPosition::MiddleRight)
    })
}

fn bar_chart(title: &str, ydesc: &str, bars: &[(String, f64)]) -> DrawResult<String> {
    let ymax = bars.iter().map(|b| b.1).fold(0.0f64, f64::max).max(1.0) * 1.15;
    let n = bars.len().max(1);
    svg(|root| {
        let mut chart = frame(root, title, 60).build_cartesian_2d(0f64..n as f64, 0f64..ymax)?;
        let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - x.floor() - 0.5).abs() < 0.01 && i < names.len() {
                    names[i].clone()
                } else {
                    String::new()
                }
            })
            .y_desc(ydesc)
            .y_label_formatter(&|v| human(*v))
            .draw()?;
        chart.draw_series(bars.iter().enumerate().map(|(i, b)| {
            Rectangle::new(
                [(i as f64 + 0.15, 0.0), (i as f64 + 0.85, b.1)],
                color(i).filled(),
            )
        }))?;
        Ok(())
    })
}

/// A heat map: one cell per (x index, y index) with its value shaded from light (low) to
/// dark (high) and printed in the cell; axis ticks are the given labels.
pub fn heatmap(
    title: &str,
    xdesc: &str,
    ydesc: &str,
    xlabels: &[String],
    ylabels: &[String],
    cells: &[(usize, usize, f64)],
) -> Result<String, String> {
    let run = || -> DrawResult<String> {
        let (nx, ny) = (xlabels.len().max(1), ylabels.len().max(1));
        let vmax = cells.iter().map(|c| c.2).fold(1.0f64, f64::max);
        svg(|root| {
            let mut chart =
                frame(root, title, 44).build_cartesian_2d(0f64..nx as f64, 0f64..ny as f64)?;
            let xl = xlabels.to_vec();
            let yl = ylabels.to_vec();
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc(xdesc)
                .y_desc(ydesc)
                .x_labels(nx * 2 + 1)
                .y_labels(ny * 2 + 1)
                .x_label_formatter(&|x| label_at(&xl, *x))
                .y_label_formatter(&|y| label_at(&yl, *y))
                .draw()?;
            chart.draw_series(cells.iter().map(|&(x, y, v)| {
                let t = (v / vmax).clamp(0.0, 1.0);
                let shade = |lo: f64, hi: f64| (lo + (hi - lo) * t) as u8;
                let c = RGBColor(shade(235.0, 8.0), shade(245.0, 48.0), shade(255.0, 107.0));
                Rectangle::new(
                    [(x as f64, y as f64), (x as f64 + 1.0, y as f64 + 1.0)],
                    c.filled(),
                )
            }))?;
            chart.draw_series(cells.iter().map(|&(x, y, v)| {
                Text::new(
                    human(v),
                    (x as f64 + 0.1, y as f64 + 0.6),
                    ("sans-serif", 11).into_font().color(if v / vmax > 0.5 {
                        &WHITE
                    } else {
                        &BLACK
                    }),
                )
            }))?;
            Ok(())
        })
    };
    run().map_err(|e| format!("drawing: {e}"))
}

fn label_at(labels: &[String], v: f64) -> String {
    let i = v.floor() as usize;
    if (v - v.floor() - 0.5).abs() < 0.01 && i < labels.len() {
        labels[i].clone()
    } else {
        String::new()
    }
}

/// Every chart for these inputs.
pub fn charts(inputs: &[Input]) -> Result<Vec<Chart>, String> {
    let mut out = Vec::new();
    // Jobs by name, in first-seen order.
    let mut jobs: Vec<String> = Vec::new();
    for i in inputs {
        for j in &i.run.jobs {
            if !jobs.contains(&j.name) {
                jobs.push(j.name.clone());
            }
        }
    }
    for job in &jobs {
        for (d, dname) in DIRS.iter().enumerate() {
            let series = Series::of(inputs, job, d);
            series.charts(job, dname, &mut out)?;
        }
    }
    compare_chart(inputs, &mut out)?;
    Ok(out)
}

fn drawing(e: Box<dyn std::error::Error>) -> String {
    format!("drawing: {e}")
}

/// Labelled lines of (seconds, value) points.
type Lines = Vec<(String, Vec<(f64, f64)>)>;

/// One job's and direction's lines over every input (a line per clone where a job has
/// several).
#[derive(Default)]
struct Series {
    spec: Vec<(String, Vec<(f64, f64)>)>,
    iops: Lines,
    bw: Lines,
    lat: Lines,
}

impl Series {
    fn of(inputs: &[Input], job: &str, d: usize) -> Series {
        let mut out = Series::default();
        for i in inputs {
            let same: Vec<_> = i.run.jobs.iter().filter(|j| j.name == job).collect();
            for (k, j) in same.iter().enumerate() {
                let s = &j.stats.dirs[d];
                if s.ios == 0 {
                    continue;
                }
                let l = if same.len() > 1 {
                    format!("{} #{k}", i.label)
                } else {
                    i.label.clone()
                };
                out.add(l, s);
            }
        }
        out
    }

    /// One clone's spectrum and, where it has interval samples, its lines over time.
    fn add(&mut self, l: String, s: &fathom_stats::DirStats) {
        let pts = spectrum_points(&s.clat);
        if !pts.is_empty() {
            self.spec.push((l.clone(), pts));
        }
        if s.samples.is_empty() {
            return;
        }
        let per = |f: &dyn Fn(&fathom_stats::Sample) -> f64| {
            s.samples
                .iter()
                .filter(|x| x.len_ms > 0)
                .map(|x| ((x.t_ms + x.len_ms) as f64 / 1000.0, f(x)))
                .collect::<Vec<_>>()
        };
        self.iops
            .push((l.clone(), per(&|x| x.ios as f64 * 1000.0 / x.len_ms as f64)));
        if s.samples.iter().any(|x| x.clat_p50 > 0) {
            for (q, f) in [
                (
                    "p50",
                    (|x: &fathom_stats::Sample| x.clat_p50) as fn(&fathom_stats::Sample) -> u64,
                ),
                ("p99", |x| x.clat_p99),
                ("p99.9", |x| x.clat_p999),
            ] {
                self.lat
                    .push((format!("{l} {q}"), per(&|x| f(x) as f64 / 1000.0)));
            }
        }
        self.bw.push((
            l,
            per(&|x| x.bytes as f64 * 1000.0 / x.len_ms as f64 / 1048576.0),
        ));
    }

    /// The spectrum, IOPS, latency and bandwidth charts these lines make.
    fn charts(&self, job: &str, dname: &str, out: &mut Vec<Chart>) -> Result<(), String> {
        let stem = format!("{}-{dname}", safe(job));
        if !self.spec.is_empty() {
            out.push(Chart {
                file: format!("spectrum-{stem}.svg"),
                svg: spectrum_chart(job, dname, &self.spec).map_err(drawing)?,
                title: format!("{job} {dname}: latency percentile spectrum"),
            });
        }
        if self.iops.is_empty() {
            return Ok(());
        }
        out.push(Chart {
            file: format!("iops-{stem}.svg"),
            svg: time_chart(
                &format!("{job} {dname}: IOPS over time"),
                "IOPS",
                &self.iops,
            )
            .map_err(drawing)?,
            title: format!("{job} {dname}: IOPS over time"),
        });
        if !self.lat.is_empty() {
            out.push(Chart {
                file: format!("latency-{stem}.svg"),
                svg: time_chart(
                    &format!("{job} {dname}: completion latency percentiles over time"),
                    "clat (µs)",
                    &self.lat,
                )
                .map_err(drawing)?,
                title: format!("{job} {dname}: latency percentiles over time"),
            });
        }
        out.push(Chart {
            file: format!("bw-{stem}.svg"),
            svg: time_chart(
                &format!("{job} {dname}: bandwidth over time"),
                "MiB/s",
                &self.bw,
            )
            .map_err(drawing)?,
            title: format!("{job} {dname}: bandwidth over time"),
        });
        Ok(())
    }
}

/// Compare: IOPS per input, job and direction.
fn compare_chart(inputs: &[Input], out: &mut Vec<Chart>) -> Result<(), String> {
    let mut bars = Vec::new();
    for i in inputs {
        for j in &i.run.jobs {
            for (d, dname) in DIRS.iter().enumerate() {
                let secs = j.stats.dir_runtime(d).as_secs_f64();
                let s = &j.stats.dirs[d];
                if s.ios > 0 && secs > 0.0 {
                    let name = if inputs.len() > 1 {
                        format!("{} {} {dname}", i.label, j.name)
                    } else {
                        format!("{} {dname}", j.name)
                    };
                    bars.push((name, s.ios as f64 / secs));
                }
            }
        }
    }
    if !bars.is_empty() {
        out.push(Chart {
            file: "compare-iops.svg".into(),
            svg: bar_chart("IOPS by result, job and direction", "IOPS", &bars).map_err(drawing)?,
            title: "IOPS compared".into(),
        });
    }
    Ok(())
}

/// Read a fio JSON or JSON+ result into a [`RunResult`] as far as its data allows: per
/// job and direction the I/O counts, bytes and runtime, the latency moments, and with
/// JSON+ the completion latency histogram from its bins (see [`crate::fio_in`]).
pub fn from_fio_json(text: &str) -> Result<RunResult, String> {
    crate::fio_in::run_of_fio_json_lenient(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_run() -> RunResult {
        let mut stats = fathom_stats::ThreadStats::new();
        for i in 0..20_000u64 {
            stats.record_io(0, 4096, None, 50_000 + (i * 7919) % 400_000);
        }
        stats.dirs[0].samples = (0..6)
            .map(|k| fathom_stats::Sample {
                t_ms: k * 500,
                len_ms: 500,
                bytes: 4096 * (3000 + k * 100),
                ios: 3000 + k * 100,
                ..Default::default()
            })
            .collect();
        stats.runtime = std::time::Duration::from_secs(3);
        RunResult {
            jobs: vec![fathom_stats::JobResult {
                name: "rr".into(),
                stats,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn the_spectrum_climbs_to_the_maximum() {
        let r = sample_run();
        let l = &r.jobs[0].stats.dirs[0].clat;
        let pts = spectrum_points(l);
        assert!(pts.windows(2).all(|w| w[1].1 >= w[0].1), "monotone");
        assert_eq!(pts.last().unwrap().1, l.max() as f64 / 1000.0);
        assert!((pts.last().unwrap().0 - 20_000f64.log10()).abs() < 1e-9);
        assert_eq!(nines_label(2.0), "99%");
        assert_eq!(nines_label(3.0), "99.9%");
        assert_eq!(nines_label(1.0), "90%");
        assert_eq!(
            (human(3_500_000.0), human(1200.0), human(12.5)),
            ("3.5M".into(), "1.2k".into(), "12.5".into())
        );
    }

    #[test]
    fn charts_are_well_formed_svg_with_the_expected_series() {
        let inputs = vec![
            Input {
                label: "before".into(),
                run: sample_run(),
            },
            Input {
                label: "after".into(),
                run: sample_run(),
            },
        ];
        let charts = charts(&inputs).unwrap();
        let files: Vec<&str> = charts.iter().map(|c| c.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "spectrum-rr-read.svg",
                "iops-rr-read.svg",
                "bw-rr-read.svg",
                "compare-iops.svg"
            ]
        );
        for c in &charts {
            let doc =
                roxmltree::Document::parse(&c.svg).unwrap_or_else(|e| panic!("{}: {e}", c.file));
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            let texts: Vec<String> = doc
                .descendants()
                .filter(|n| n.has_tag_name("text"))
                .filter_map(|n| n.text().map(|t| t.trim().to_string()))
                .collect();
            let lines = doc
                .descendants()
                .filter(|n| n.has_tag_name("polyline"))
                .count();
            if c.file != "compare-iops.svg" {
                assert!(
                    texts.iter().any(|t| t == "before"),
                    "{}: legend {texts:?}",
                    c.file
                );
                assert!(texts.iter().any(|t| t == "after"), "{}", c.file);
                assert!(lines >= 2, "{}: {lines} polylines", c.file);
            } else {
                let rects = doc.descendants().filter(|n| n.has_tag_name("rect")).count();
                assert!(rects >= 3, "two bars and the background: {rects}");
            }
        }
        let spectrum = &charts[0].svg;
        assert!(spectrum.contains("99.9%"), "nines axis");
    }

    #[test]
    fn fio_json_plus_bins_become_a_histogram() {
        let text = r#"{"fio version":"fio-3.33","jobs":[{"jobname":"f","job_runtime":1000,
            "read":{"total_ios":3,"io_bytes":12288,"clat_ns":{"bins":{"1000":2,"5000":1}}},
            "write":{"total_ios":0,"io_bytes":0}}]}"#;
        let r = from_fio_json(text).unwrap();
        let c = &r.jobs[0].stats.dirs[0].clat;
        assert_eq!((c.count(), c.min(), c.max()), (3, 1000, 5000));
        assert_eq!(r.jobs[0].stats.dirs[0].ios, 3);
        assert!(from_fio_json("{}").is_err());
    }
}
