//! The reassembly buffer: octets held because they could not be placed yet, as maximal runs of
//! contiguous stream offsets (one record each), and the interval arithmetic the receiver's
//! budget decisions use.
//!
//! Offsets are unwrapped stream offsets from the Marker origin (`u64`), never sequence numbers.
//! A run never overlaps another and two runs never touch (they are merged), so the number of runs
//! is the number of held-octet records.

use std::collections::BTreeMap;

/// A half-open interval of stream offsets `[start, end)`.
pub type Span = (u64, u64);

/// Held octets, by run.
#[derive(Clone, Debug, Default)]
pub struct HeldOctets {
    runs: BTreeMap<u64, Vec<u8>>,
    total: u64,
}

impl HeldOctets {
    /// Octets held.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Runs (records) held.
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// One past the last held octet (0 when nothing is held).
    pub fn last_end(&self) -> u64 {
        self.runs.iter().next_back().map_or(0, |(&s, r)| s + r.len() as u64)
    }

    /// The run that contains `pos`, as its span.
    pub fn run_containing(&self, pos: u64) -> Option<Span> {
        let (&start, run) = self.runs.range(..=pos).next_back()?;
        let end = start + run.len() as u64;
        (pos < end).then_some((start, end))
    }

    /// The spans of the runs that overlap or touch `[a, b]` (a run ending at `a` or starting at
    /// `b` included), in order.
    pub fn spans_touching(&self, a: u64, b: u64) -> Vec<Span> {
        let mut out = Vec::new();
        if a > b {
            return out;
        }
        if let Some((&start, run)) = self.runs.range(..a).next_back() {
            let end = start + run.len() as u64;
            if end >= a {
                out.push((start, end));
            }
        }
        for (&start, run) in self.runs.range(a..=b) {
            out.push((start, start + run.len() as u64));
        }
        out
    }

    /// Removes and returns the run that starts at `start`.
    pub fn take_run(&mut self, start: u64) -> Option<Vec<u8>> {
        let run = self.runs.remove(&start)?;
        self.total -= run.len() as u64;
        Some(run)
    }

    /// Puts a run back (the caller guarantees it neither overlaps nor touches another run:
    /// it is what [`HeldOctets::take_run`] returned, shortened at the front).
    pub fn put_run(&mut self, start: u64, run: Vec<u8>) {
        if !run.is_empty() {
            self.total += run.len() as u64;
            self.runs.insert(start, run);
        }
    }

    /// Holds `bytes` at `start`. The octets must not be held already; the run merges with the
    /// runs it touches.
    pub fn insert(&mut self, start: u64, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let end = start + bytes.len() as u64;
        debug_assert!(self.runs.range(start..end).next().is_none(), "held twice at {start}");
        self.total += bytes.len() as u64;
        // Merge with a run ending exactly at `start`: extend it in place.
        let left = match self.runs.range_mut(..start).next_back() {
            Some((&s, run)) if s + run.len() as u64 == start => {
                run.extend_from_slice(bytes);
                Some(s)
            }
            Some((&s, run)) => {
                debug_assert!(s + (run.len() as u64) < start, "held twice at {start}");
                None
            }
            None => None,
        };
        let right = self.runs.remove(&end);
        match (left, right) {
            (Some(s), Some(r)) => self.runs.get_mut(&s).expect("left run").extend_from_slice(&r),
            (Some(_), None) => {}
            (None, Some(r)) => {
                let mut run = Vec::with_capacity(bytes.len() + r.len());
                run.extend_from_slice(bytes);
                run.extend_from_slice(&r);
                self.runs.insert(start, run);
            }
            (None, None) => {
                self.runs.insert(start, bytes.to_vec());
            }
        }
    }

    /// Drops every held octet in `[a, b)`, splitting runs.
    pub fn remove(&mut self, a: u64, b: u64) {
        if a >= b {
            return;
        }
        for (start, end) in self.spans_touching(a, b) {
            if end <= a || start >= b {
                continue;
            }
            let mut run = self.runs.remove(&start).expect("run");
            self.total -= run.len() as u64;
            let tail = if end > b { run.split_off((b - start) as usize) } else { Vec::new() };
            if start < a {
                run.truncate((a - start) as usize);
                self.put_run(start, run);
            }
            self.put_run(b, tail);
        }
    }

    /// The held octets of `[a, b)` if every one of them is held.
    pub fn get(&self, a: u64, b: u64) -> Option<&[u8]> {
        let (start, end) = self.run_containing(a)?;
        if b > end {
            return None;
        }
        let run = &self.runs[&start];
        Some(&run[(a - start) as usize..(b - start) as usize])
    }
}

/// Sorted, disjoint spans merged into maximal runs (touching spans join).
pub fn normalize(mut spans: Vec<Span>) -> Vec<Span> {
    spans.retain(|&(a, b)| a < b);
    spans.sort_unstable();
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// `a` minus `b` (both normalized); the result is normalized.
pub fn subtract(a: &[Span], b: &[Span]) -> Vec<Span> {
    let mut out = Vec::new();
    let mut j = 0;
    for &(mut s, e) in a {
        while j < b.len() && b[j].1 <= s {
            j += 1;
        }
        let mut k = j;
        while k < b.len() && b[k].0 < e {
            if b[k].0 > s {
                out.push((s, b[k].0));
            }
            s = s.max(b[k].1);
            k += 1;
        }
        if s < e {
            out.push((s, e));
        }
    }
    out
}

/// Octets in the intersection of `a` and `b` (both normalized).
pub fn intersection_len(a: &[Span], b: &[Span]) -> u64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo < hi {
            n += hi - lo;
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    n
}

/// Octets in `a`.
pub fn total_len(a: &[Span]) -> u64 {
    a.iter().map(|(s, e)| e - s).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_remove_splits() {
        let mut h = HeldOctets::default();
        h.insert(10, &[1, 2]);
        h.insert(14, &[5, 6]);
        assert_eq!(h.run_count(), 2);
        h.insert(12, &[3, 4]);
        assert_eq!((h.run_count(), h.total()), (1, 6));
        assert_eq!(h.get(10, 16), Some(&[1, 2, 3, 4, 5, 6][..]));
        h.remove(11, 13);
        assert_eq!((h.run_count(), h.total()), (2, 4));
        assert_eq!(h.get(13, 16), Some(&[4, 5, 6][..]));
        assert_eq!(h.get(10, 12), None);
        h.remove(0, 100);
        assert_eq!((h.run_count(), h.total()), (0, 0));
    }

    #[test]
    fn span_arithmetic() {
        let a = normalize(vec![(5, 10), (0, 3), (3, 4), (20, 30)]);
        assert_eq!(a, vec![(0, 4), (5, 10), (20, 30)]);
        let b = vec![(2, 6), (8, 25)];
        assert_eq!(subtract(&a, &b), vec![(0, 2), (6, 8), (25, 30)]);
        assert_eq!(intersection_len(&a, &b), 2 + 1 + 2 + 5);
        assert_eq!(total_len(&a), 4 + 5 + 10);
    }
}
