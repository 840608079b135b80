//! Result checks (fathom extensions).

use super::OptDef;

const C: &str = "Result checks (fathom extensions)";

pub(super) static OPTS: &[OptDef] = &[OptDef {
    name: "assert",
    aliases: &[],
    category: C,
    ty: "assertion list",
    default: "",
    doc: "fathom extension: conditions the job's results must meet, e.g. \
          read.iops>=50k,read.clat.p99<=2ms (metrics iops, bw, ios, bytes, \
          slat/clat/lat/resp .mean/.min/.max/.pN); a violation makes fathom exit with code 3. \
          Each assert option adds to those given before it (a [global] one applies to every job)",
    flag: false,
    apply: |j, v, _| {
        j.asserts.extend(crate::gate::parse_list(v)?);
        Ok(())
    },
}];

#[cfg(test)]
mod tests {
    #[test]
    fn assert_adds_to_earlier_ones_and_reports_the_line() {
        let set = crate::parse_fio_str(
            "[global]\nassert=read.iops>=10\n[j]\nassert=read.clat.p99<=2ms\n",
            "a.fio",
        )
        .unwrap();
        assert_eq!(set.jobs[0].asserts.len(), 2);
        let e = crate::parse_fio_str("[j]\nassert=read.iops=>10\n", "b.fio").unwrap_err();
        assert!(e.to_string().starts_with("b.fio:2: "), "{e}");
    }
}
