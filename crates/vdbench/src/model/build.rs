//! Building the model from a parsed file: each definition in its kind's order, with
//! the `default` definitions applied, names checked and resolved, and each RD's timing
//! checked as vdbench checks it.

use super::*;

/// The model being built and what later definitions need from earlier ones.
pub(super) struct Builder {
    m: Model,
    names: Names,
    sd_def: Sd,
    wd_def: Wd,
    fsd_def: Fsd,
    fwd_def: Fwd,
    rd_def: Rd,
}

/// An error when `d` names one already in `list`.
fn dup(d: &Def, list: &[String]) -> Result<(), VdbError> {
    if d.name != "default" && list.contains(&d.name) {
        return Err(VdbError::new(
            &d.at,
            Some(d.kind.word()),
            format!("'{}' is defined twice", d.name),
        ));
    }
    Ok(())
}

impl Builder {
    pub(super) fn build(pf: &ParmFile) -> Result<Model, VdbError> {
        let mut b = Builder {
            m: Model::default(),
            names: Names::default(),
            sd_def: Sd {
                threads: 8,
                ..Sd::default()
            },
            wd_def: Wd::default(),
            fsd_def: Fsd {
                depth: 1,
                width: 1,
                files: 1,
                sizes: vec![(0, 100.0)],
                ..Fsd::default()
            },
            fwd_def: Fwd::default(),
            rd_def: Rd::default(),
        };
        for it in &pf.general {
            b.m.general.apply(it)?;
        }
        if b.m.general.concat && b.m.general.formatsds {
            let at = pf.general.iter().find(|it| it.key == "formatsds");
            if let Some(it) = at {
                return Err(it
                    .err("formatsds= and concatenatesds=yes may not be used together (as in vdbench)")
                    .hint("format the SDs in a run of their own, without concatenatesds="));
            }
        }
        let mut rank = 0;
        for d in &pf.defs {
            let r = match d.kind {
                Kind::Hd => 0,
                Kind::Sd | Kind::Fsd => 1,
                Kind::Wd | Kind::Fwd => 2,
                Kind::Rd => 3,
            };
            if r < rank && d.name != "default" {
                return Err(VdbError::new(&d.at, Some(d.kind.word()), format!("{}={} comes after a later kind of definition", d.kind.word(), d.name))
                    .hint("order the file: general parameters, then HD, then SD/FSD, then WD/FWD, then RD"));
            }
            rank = rank.max(r);
            match d.kind {
                Kind::Hd => b.hd(d)?,
                Kind::Sd => b.sd(d)?,
                Kind::Wd => b.wd(d)?,
                Kind::Fsd => b.fsd(d)?,
                Kind::Fwd => b.fwd(d)?,
                Kind::Rd => b.rd(d)?,
            }
        }
        if b.m.rds.is_empty() {
            return Err(VdbError::new(
                &crate::parse::At {
                    file: pf
                        .defs
                        .first()
                        .map(|d| d.at.file.clone())
                        .unwrap_or_default(),
                    line: 0,
                },
                Some("rd"),
                "no run definition (rd=)",
            )
            .hint("end the file with e.g. rd=rd1,wd=wd1,iorate=max,elapsed=30,interval=1"));
        }
        Ok(b.m)
    }

    fn hd(&mut self, d: &Def) -> Result<(), VdbError> {
        let mut h = Hd {
            name: d.name.clone(),
            system: None,
        };
        for it in &d.items {
            match it.key.as_str() {
                "system" => h.system = Some(it.one()?.to_string()),
                // jvms=: vdbench's Java processes per host; fathom runs the
                // same threads in one process, so it changes nothing here.
                "vdbench" | "user" | "shell" | "clients" | "mount" | "jvms" => {}
                _ => return Err(refuse_or_unknown(it, "HD", HD_KEYS)),
            }
        }
        if d.name != "default" {
            self.m.hds.push(h);
        }
        Ok(())
    }

    fn sd(&mut self, d: &Def) -> Result<(), VdbError> {
        let mut sd = self.sd_def.clone();
        sd.name = d.name.clone();
        let mut count = None;
        for it in &d.items {
            sd.apply(it)?;
            if it.key == "count" {
                let v = expand(it, number)?;
                let [a, n] = v.as_slice() else {
                    return Err(it.err("count=(start,number)"));
                };
                count = Some((*a as u64, *n as u64));
            }
        }
        if d.name == "default" {
            self.sd_def = sd;
            return Ok(());
        }
        let made: Vec<Sd> = match count {
            None => vec![sd],
            Some((a, n)) => (a..a + n)
                .map(|i| Sd {
                    name: format!("{}{i}", sd.name),
                    lun: format!("{}{i}", sd.lun),
                    ..sd.clone()
                })
                .collect(),
        };
        for s in made {
            dup(d, &self.names.sd)?;
            if s.lun.is_empty() {
                return Err(VdbError::new(
                    &d.at,
                    Some("lun"),
                    format!("sd={} has no lun=", s.name),
                )
                .hint("name the device or file: lun=/dev/sdb or lun=/data/file,size=10g"));
            }
            self.names.sd.push(s.name.clone());
            self.m.sds.push(s);
        }
        Ok(())
    }

    fn wd(&mut self, d: &Def) -> Result<(), VdbError> {
        let mut wd = self.wd_def.clone();
        wd.name = d.name.clone();
        for it in &d.items {
            match it.key.as_str() {
                "sd" => wd.sds = self.names.resolve(it, &self.names.sd, "SD")?,
                "host" | "hd" => wd.host = Some(it.one()?.to_string()),
                "iorate" => wd.p.iorate = Some(num(it)?),
                "priority" => {
                    if num(it)? == 0.0 {
                        return Err(it
                            .err("a workload's priority may not be zero")
                            .hint("priorities go from 1 (first) up"));
                    }
                    wd.p.priority = Some(positive(it)?);
                }
                "streams" => {
                    let n = positive(it)?;
                    if n < 2 {
                        return Err(it
                            .err("streams= needs at least two streams")
                            .hint("leave it out for one sequential walk"));
                    }
                    wd.p.streams = Some(n);
                }
                "threads" if self.m.general.concat => wd.p.own_threads = Some(positive(it)?),
                "threads" => {
                    return Err(it
                        .err("threads= on a WD needs concatenatesds=yes (as in vdbench)")
                        .hint("give threads= on the SD or the RD"))
                }
                _ => {
                    if !wd.p.apply(it)? {
                        return Err(refuse_or_unknown(it, "WD", WD_KEYS));
                    }
                }
            }
        }
        if d.name == "default" {
            self.wd_def = wd;
            return Ok(());
        }
        dup(d, &self.names.wd)?;
        if wd.sds.is_empty() {
            if self.names.sd.len() == 1 {
                wd.sds = self.names.sd.clone();
            } else {
                return Err(VdbError::new(
                    &d.at,
                    Some("sd"),
                    format!("wd={} names no SD", wd.name),
                )
                .hint("add sd=sd1 (or sd=sd* for all)"));
            }
        }
        self.names.wd.push(wd.name.clone());
        self.m.wds.push(wd);
        Ok(())
    }

    fn fsd(&mut self, d: &Def) -> Result<(), VdbError> {
        let mut f = self.fsd_def.clone();
        f.name = d.name.clone();
        for it in &d.items {
            f.apply(it)?;
        }
        if d.name == "default" {
            self.fsd_def = f;
            return Ok(());
        }
        dup(d, &self.names.fsd)?;
        if f.anchor.is_empty() {
            return Err(VdbError::new(
                &d.at,
                Some("anchor"),
                format!("fsd={} has no anchor=", f.name),
            )
            .hint("anchor=/mnt/test/dir"));
        }
        self.names.fsd.push(f.name.clone());
        self.m.fsds.push(f);
        Ok(())
    }

    fn fwd(&mut self, d: &Def) -> Result<(), VdbError> {
        let mut f = self.fwd_def.clone();
        f.name = d.name.clone();
        for it in &d.items {
            match it.key.as_str() {
                "fsd" => f.fsds = self.names.resolve(it, &self.names.fsd, "FSD")?,
                "host" | "hd" => f.host = Some(it.one()?.to_string()),
                _ => {
                    if !f.p.apply(it)? {
                        return Err(refuse_or_unknown(it, "FWD", FWD_KEYS));
                    }
                }
            }
        }
        match d.name.as_str() {
            "default" => self.fwd_def = f,
            "format" => self.m.format_fwd = Some(f.p),
            _ => {
                dup(d, &self.names.fwd)?;
                if f.fsds.is_empty() {
                    if self.names.fsd.len() == 1 {
                        f.fsds = self.names.fsd.clone();
                    } else {
                        return Err(VdbError::new(
                            &d.at,
                            Some("fsd"),
                            format!("fwd={} names no FSD", f.name),
                        )
                        .hint("add fsd=fsd1"));
                    }
                }
                self.names.fwd.push(f.name.clone());
                self.m.fwds.push(f);
            }
        }
        Ok(())
    }

    fn rd(&mut self, d: &Def) -> Result<(), VdbError> {
        let mut rd = self.rd_def.clone();
        rd.name = d.name.clone();
        for it in &d.items {
            rd.apply(it, &self.names)?;
        }
        if d.name == "default" {
            self.rd_def = rd;
            return Ok(());
        }
        if self.m.rds.iter().any(|r| r.name == rd.name) {
            return Err(VdbError::new(
                &d.at,
                Some("rd"),
                format!("'{}' is defined twice", rd.name),
            ));
        }
        if rd.wds.is_empty() && rd.sds.is_empty() && rd.fwds.is_empty() {
            if !self.names.wd.is_empty() {
                rd.wds = self.names.wd.clone();
            } else if !self.names.fwd.is_empty() {
                rd.fwds = self.names.fwd.clone();
            } else {
                return Err(VdbError::new(
                    &d.at,
                    Some("rd"),
                    format!("rd={} runs no workload", rd.name),
                )
                .hint("add wd=wd1, sd=* or fwd=fwd1"));
            }
        }
        if !rd.fwds.is_empty() && (!rd.wds.is_empty() || !rd.sds.is_empty()) {
            return Err(VdbError::new(
                &d.at,
                Some("rd"),
                "one RD runs raw (wd=, sd=) or file-system (fwd=) workloads, not both",
            ));
        }
        check_timing(d, &rd.pace)?;
        self.m.rds.push(rd);
        Ok(())
    }
}

/// An RD's interval, elapsed and warmup, as vdbench checks them.
fn check_timing(d: &Def, pace: &Pace) -> Result<(), VdbError> {
    let iv = pace.interval;
    if iv <= 0.0 {
        return Err(VdbError::new(&d.at, Some("interval"), "must be above 0"));
    }
    if pace.elapsed / iv < 2.0
        && pace.format != Format::Only
        && pace.format != Format::RestartOnly
        && pace.format != Format::Clean
    {
        return Err(VdbError::new(
            &d.at,
            Some("elapsed"),
            format!(
                "elapsed={} must be at least twice interval={}",
                pace.elapsed, iv
            ),
        )
        .hint("vdbench refuses it too"));
    }
    if (pace.elapsed / iv).fract().abs() > 1e-9 {
        return Err(VdbError::new(
            &d.at,
            Some("elapsed"),
            format!(
                "elapsed={} must be a multiple of interval={}",
                pace.elapsed, iv
            ),
        ));
    }
    if (pace.warmup / iv).fract().abs() > 1e-9 {
        return Err(VdbError::new(
            &d.at,
            Some("warmup"),
            format!(
                "warmup={} must be a multiple of interval={}",
                pace.warmup, iv
            ),
        ));
    }
    Ok(())
}
