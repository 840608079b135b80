//! fio's per-I/O priorities of the libaio and io_uring engines: `cmdprio_percentage`,
//! `cmdprio_class`, `cmdprio` and `cmdprio_bssplit`, each with a read and a write value.

/// The real-time class, the default of a cmdprio priority (fio's highest class).
pub const IOPRIO_CLASS_RT: u32 = 1;

/// A 16-bit ioprio value as the kernel takes it: class in the top 3 bits, level below.
pub fn ioprio_value(class: u32, level: u32) -> u16 {
    ((class as u16 & 7) << 13) | (level as u16 & 0x1fff)
}

/// The cmdprio options of one job, per direction (0 read, 1 write; trims have none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CmdPrio {
    /// `cmdprio_percentage`: the share of I/Os issued with the cmdprio priority.
    pub percentage: [u32; 2],
    /// `cmdprio_class` (1 real-time, 2 best-effort, 3 idle); None: real-time.
    pub class: [Option<u32>; 2],
    /// `cmdprio` (0 highest to 7 lowest).
    pub level: [u32; 2],
    /// `cmdprio_bssplit`, per direction: the shares by block size (None: not given).
    pub bssplit: Option<[Vec<PrioSplit>; 2]>,
}

/// One `cmdprio_bssplit` entry: I/Os of `bs` bytes take a priority `perc` percent of the
/// time: `prio` (an ioprio value) when the entry names class and level, else the one of
/// `cmdprio_class` and `cmdprio`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrioSplit {
    /// Block size in bytes.
    pub bs: u64,
    /// Percent of that block size's I/Os.
    pub perc: u32,
    /// The entry's own ioprio value (`bs/perc/class/level`).
    pub prio: Option<u16>,
}

impl CmdPrio {
    /// True when any I/O takes a cmdprio priority.
    pub fn active(&self) -> bool {
        self.bssplit.is_some() || self.percentage.iter().any(|&p| p > 0)
    }

    /// The ioprio value of `cmdprio_class`/`cmdprio` for direction `d`.
    pub fn value(&self, d: usize) -> u16 {
        ioprio_value(self.class[d].unwrap_or(IOPRIO_CLASS_RT), self.level[d])
    }
}

/// fio's int[,int] options: one value for both directions, or `read,write` (an empty
/// side keeps its value; a third, trim value is ignored).
pub(crate) fn per_rw<T: Clone>(
    v: &str,
    mut one: impl FnMut(&str) -> Result<T, String>,
) -> Result<[Option<T>; 2], String> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err("give one value, or read,write".into());
    }
    let mut out = [None, None];
    if parts.len() == 1 {
        let x = one(parts[0])?;
        return Ok([Some(x.clone()), Some(x)]);
    }
    for (d, p) in parts.iter().take(2).enumerate() {
        if !p.is_empty() {
            out[d] = Some(one(p)?);
        }
    }
    Ok(out)
}

/// [`per_rw`] into `into`: the directions given take their value, the others keep theirs.
pub(crate) fn set_rw<T: Clone>(
    v: &str,
    into: &mut [T; 2],
    one: impl FnMut(&str) -> Result<T, String>,
) -> Result<(), String> {
    for (dst, val) in into.iter_mut().zip(per_rw(v, one)?) {
        if let Some(x) = val {
            *dst = x;
        }
    }
    Ok(())
}

/// `cmdprio_bssplit=bs/perc[/class/level]:...[,read-or-write list]`: as fio, a single
/// list applies to reads and writes, `read,write` gives each its own (a trim list is
/// ignored); entries of 0 percent are dropped and the shares of one block size may add up
/// to at most 100.
pub(crate) fn bssplit(
    v: &str,
    size: impl Fn(&str) -> Result<u64, String>,
) -> Result<[Vec<PrioSplit>; 2], String> {
    let lists: Vec<&str> = v.split(',').collect();
    if lists.len() > 3 {
        return Err("give one list, or read,write lists".into());
    }
    let one = |l: &str| -> Result<Vec<PrioSplit>, String> {
        let mut out = Vec::new();
        for e in l.trim().split(':') {
            if e.is_empty() {
                break;
            }
            let f: Vec<&str> = e.split('/').collect();
            let num = |s: &str| -> Result<u32, String> {
                s.trim().parse::<u32>().map_err(|_| {
                    format!("'{e}': expected bs/percentage or bs/percentage/class/level")
                })
            };
            let bs = size(f[0])?;
            let perc = match f.get(1) {
                Some(p) if !p.trim().is_empty() => num(p)?.min(100),
                _ => 0,
            };
            let prio = match f.len() {
                1 | 2 => None,
                4 => Some(ioprio_value(num(f[2])?.min(3), num(f[3])?.min(7))),
                _ => {
                    return Err(format!(
                        "'{e}': expected bs/percentage or bs/percentage/class/level"
                    ))
                }
            };
            if perc > 0 {
                out.push(PrioSplit { bs, perc, prio });
            }
        }
        if out.len() > 64 {
            return Err("at most 64 entries per direction".into());
        }
        out.sort_by_key(|s| s.bs);
        let mut i = 0;
        while i < out.len() {
            let bs = out[i].bs;
            let total: u32 = out.iter().filter(|s| s.bs == bs).map(|s| s.perc).sum();
            if total > 100 {
                return Err(format!(
                    "the percentages for block size {bs} add up to {total}, more than 100"
                ));
            }
            i += out[i..].iter().take_while(|s| s.bs == bs).count();
        }
        Ok(out)
    };
    Ok(match lists.as_slice() {
        [all] => {
            let l = one(all)?;
            [l.clone(), l]
        }
        [r, w, ..] => [one(r)?, one(w)?],
        [] => unreachable!("split yields at least one piece"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sz(s: &str) -> Result<u64, String> {
        crate::units::parse_size(s.trim(), 1024, crate::Dialect::Fio)
    }

    #[test]
    fn values_split_by_direction_as_fio() {
        let n = |s: &str| s.parse::<u32>().map_err(|e| e.to_string());
        assert_eq!(per_rw("30", n), Ok([Some(30), Some(30)]));
        assert_eq!(per_rw("30,60", n), Ok([Some(30), Some(60)]));
        assert_eq!(per_rw(",60", n), Ok([None, Some(60)]));
        assert_eq!(per_rw("30,", n), Ok([Some(30), None]));
        assert!(per_rw("1,2,3,4", n).is_err());
    }

    #[test]
    fn bssplit_entries_sort_drop_zero_and_carry_their_priority() {
        let [r, w] = bssplit("64k/30:4k/50/3/7:8k/0", sz).unwrap();
        assert_eq!(r, w);
        assert_eq!(
            r,
            vec![
                PrioSplit {
                    bs: 4096,
                    perc: 50,
                    prio: Some((3 << 13) | 7)
                },
                PrioSplit {
                    bs: 65536,
                    perc: 30,
                    prio: None
                },
            ]
        );
        let [r, w] = bssplit("4k/10,8k/20", sz).unwrap();
        assert_eq!((r[0].bs, w[0].bs), (4096, 8192));
        assert!(bssplit("4k/60:4k/50", sz)
            .unwrap_err()
            .contains("more than 100"));
        assert!(bssplit("4k/10/1", sz).is_err());
        assert_eq!(ioprio_value(1, 0), 0x2000);
    }
}
