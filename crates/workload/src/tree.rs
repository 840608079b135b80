//! Directory trees (vdbench style) and metadata operation mixes.
//!
//! A [`Tree`] has `depth` levels of `width` directories below its root; files live in the
//! leaf directories (or, with `all_levels`, in every directory below the root; a tree of
//! depth 0 keeps its files in the root). Directories are numbered breadth first, level 1
//! first; the directory at level `l` with index `j` in its level is named by the base-
//! `width` digits of `j`, one path component `dN` per level:
//!
//! ```
//! use fathom_workload::Tree;
//! let t = Tree::new(2, 3, 4, false).unwrap();
//! assert_eq!((t.leaves(), t.dirs(), t.files()), (9, 12, 36));
//! assert_eq!(t.dir_rel(0), "d0");           // level 1
//! assert_eq!(t.dir_rel(3), "d0/d0");        // first leaf
//! assert_eq!(t.dir_rel(11), "d2/d2");       // last leaf
//! assert_eq!(t.file_dir(35), Some(11));     // files 32..36 are in the last leaf
//! ```

use crate::Rng;
use fathom_job::MetaOp;

/// A directory tree's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tree {
    depth: u32,
    width: u64,
    files_per_dir: u64,
    all_levels: bool,
}

/// Most directories plus files a tree may have (names are generated, state is a few bits
/// per entry, but a typo in depth should not take the machine down).
pub const TREE_MAX_ENTRIES: u64 = 1 << 32;

impl Tree {
    /// A tree of `depth` levels of `width` directories with `files_per_dir` files in each
    /// leaf (or in every directory with `all_levels`).
    pub fn new(
        depth: u32,
        width: u32,
        files_per_dir: u64,
        all_levels: bool,
    ) -> Result<Tree, String> {
        let t = Tree {
            depth,
            width: width.max(1) as u64,
            files_per_dir,
            all_levels,
        };
        let mut dirs: u128 = 0;
        let mut level: u128 = 1;
        for _ in 0..depth {
            level *= t.width as u128;
            dirs += level;
            if dirs > TREE_MAX_ENTRIES as u128 {
                break;
            }
        }
        let holders = if depth == 0 {
            1
        } else if all_levels {
            dirs
        } else {
            level
        };
        if dirs + holders * files_per_dir as u128 > TREE_MAX_ENTRIES as u128 {
            return Err(format!(
                "a tree of depth {depth}, width {width} and {files_per_dir} files per directory \
                 has more than {TREE_MAX_ENTRIES} entries; make it smaller"
            ));
        }
        Ok(t)
    }

    /// Levels below the root.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Directories at level `l` (1 ≤ l ≤ depth); level 0 is the root alone.
    fn level_len(&self, l: u32) -> u64 {
        self.width.pow(l)
    }

    /// Index of the first directory of level `l` (≥ 1).
    fn level_start(&self, l: u32) -> u64 {
        (1..l).map(|m| self.level_len(m)).sum()
    }

    /// Directories below the root.
    pub fn dirs(&self) -> u64 {
        self.level_start(self.depth + 1)
    }

    /// Leaf directories (the root alone for depth 0).
    pub fn leaves(&self) -> u64 {
        self.level_len(self.depth)
    }

    /// Directories that hold files.
    pub fn file_dirs(&self) -> u64 {
        if self.depth == 0 {
            1
        } else if self.all_levels {
            self.dirs()
        } else {
            self.leaves()
        }
    }

    /// Files per directory that holds files.
    pub fn files_per_dir(&self) -> u64 {
        self.files_per_dir
    }

    /// Files in the tree.
    pub fn files(&self) -> u64 {
        self.file_dirs() * self.files_per_dir
    }

    /// Level (1-based) and index within the level of directory `k`.
    fn locate(&self, k: u64) -> (u32, u64) {
        let mut start = 0;
        for l in 1..=self.depth {
            let n = self.level_len(l);
            if k < start + n {
                return (l, k - start);
            }
            start += n;
        }
        panic!(
            "directory {k} is outside a tree of {} directories",
            self.dirs()
        );
    }

    /// Path of directory `k` relative to the root (`d0/d2`).
    pub fn dir_rel(&self, k: u64) -> String {
        let mut s = String::new();
        for (i, p) in self.dir_parts(k).iter().enumerate() {
            if i > 0 {
                s.push('/');
            }
            s.push('d');
            s.push_str(&p.to_string());
        }
        s
    }

    /// Path of directory `k` relative to the root in vdbench's names:
    /// `vdb.1_2.dir/vdb.2_1.dir` (level, then the number within the parent, from 1).
    pub fn dir_rel_vdbench(&self, k: u64) -> String {
        let mut s = String::new();
        for (i, p) in self.dir_parts(k).iter().enumerate() {
            if i > 0 {
                s.push('/');
            }
            s.push_str(&format!("vdb.{}_{}.dir", i + 1, p + 1));
        }
        s
    }

    /// The index within its parent of each directory on the way to directory `k`.
    fn dir_parts(&self, k: u64) -> Vec<u64> {
        let (l, mut j) = self.locate(k);
        let mut parts = vec![0u64; l as usize];
        for p in parts.iter_mut().rev() {
            *p = j % self.width;
            j /= self.width;
        }
        parts
    }

    /// The directory above directory `k` (None: the root).
    pub fn parent(&self, k: u64) -> Option<u64> {
        let (l, j) = self.locate(k);
        (l > 1).then(|| self.level_start(l - 1) + j / self.width)
    }

    /// The directory holding file `i` (None: the root).
    pub fn file_dir(&self, i: u64) -> Option<u64> {
        let slot = i / self.files_per_dir.max(1);
        if self.depth == 0 {
            None
        } else if self.all_levels {
            Some(slot)
        } else {
            Some(self.level_start(self.depth) + slot)
        }
    }

    /// The number of file `i` within its directory.
    pub fn file_in_dir(&self, i: u64) -> u64 {
        i % self.files_per_dir.max(1)
    }

    /// True if directory `k` is a leaf.
    pub fn is_leaf(&self, k: u64) -> bool {
        self.locate(k).0 == self.depth
    }
}

/// The operation mix of a `filetree` job, dealt like cards: every 100 operations hold
/// exactly each operation's percentage, in a random order, so any run of whole decks
/// matches the mix exactly and a partial deck is off by less than one deck.
#[derive(Clone, Debug)]
pub struct OpMix {
    deck: Vec<MetaOp>,
    next: usize,
}

impl OpMix {
    /// A mix of `(operation, percent)` pairs summing to 100.
    pub fn new(mix: &[(MetaOp, u32)]) -> OpMix {
        let mut deck = Vec::with_capacity(100);
        for &(op, pct) in mix {
            deck.extend(std::iter::repeat_n(op, pct as usize));
        }
        let next = deck.len();
        OpMix { deck, next }
    }

    /// The next operation.
    pub fn pick(&mut self, rng: &mut Rng) -> MetaOp {
        if self.next >= self.deck.len() {
            for i in (1..self.deck.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                self.deck.swap(i, j);
            }
            self.next = 0;
        }
        self.next += 1;
        self.deck[self.next - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_arithmetic() {
        let t = Tree::new(2, 3, 4, false).unwrap();
        assert_eq!(t.dirs(), 12);
        assert_eq!(t.leaves(), 9);
        assert_eq!(t.file_dirs(), 9);
        assert_eq!(t.files(), 36);
        let leaves: Vec<String> = (3..12).map(|k| t.dir_rel(k)).collect();
        assert_eq!(leaves[0], "d0/d0");
        assert_eq!(leaves[4], "d1/d1");
        let mut sorted = leaves.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 9, "leaf names are distinct");
        assert_eq!(t.parent(0), None);
        assert_eq!(t.parent(7), Some(1)); // d1/d1 is under d1
        assert!(t.dir_rel(7).starts_with(&t.dir_rel(1)));
        assert_eq!(t.file_dir(0), Some(3));
        assert_eq!(t.file_dir(4), Some(4));
        assert_eq!(t.file_in_dir(6), 2);
        assert!(t.is_leaf(3) && !t.is_leaf(2));

        let all = Tree::new(2, 3, 4, true).unwrap();
        assert_eq!((all.file_dirs(), all.files()), (12, 48));
        assert_eq!(all.file_dir(0), Some(0));

        let flat = Tree::new(0, 1, 500, false).unwrap();
        assert_eq!((flat.dirs(), flat.leaves(), flat.files()), (0, 1, 500));
        assert_eq!(flat.file_dir(499), None);

        assert!(Tree::new(16, 1 << 20, 1, false).is_err());
        let deep = Tree::new(3, 10, 100, false).unwrap();
        assert_eq!((deep.dirs(), deep.files()), (1110, 100_000));
        assert_eq!(deep.dir_rel(1109), "d9/d9/d9");
    }

    #[test]
    fn a_mix_deals_exact_percentages_per_deck() {
        let mut m = OpMix::new(&[
            (MetaOp::Create, 20),
            (MetaOp::Stat, 70),
            (MetaOp::Delete, 10),
        ]);
        let mut rng = Rng::new(7);
        let mut n = [0u32; 3];
        let mut first: Vec<MetaOp> = Vec::new();
        for i in 0..1000 {
            let op = m.pick(&mut rng);
            if i < 100 {
                first.push(op);
            }
            n[match op {
                MetaOp::Create => 0,
                MetaOp::Stat => 1,
                _ => 2,
            }] += 1;
        }
        assert_eq!(n, [200, 700, 100]);
        // Shuffled, not dealt in blocks.
        assert!(first[..20].iter().any(|&o| o != MetaOp::Create));
    }
}
