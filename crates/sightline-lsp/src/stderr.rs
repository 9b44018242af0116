//! A bounded ring buffer for a server's stderr, so error reports can carry its
//! last lines without the pipe ever filling up or memory growing.

use std::collections::VecDeque;
use std::sync::Mutex;

/// Keeps the last `max_bytes` of stderr, on line boundaries where possible.
#[derive(Debug)]
pub struct StderrRing {
    inner: Mutex<VecDeque<String>>,
    max_bytes: usize,
}

impl StderrRing {
    pub fn new(max_bytes: usize) -> Self {
        Self {
            inner: Mutex::new(VecDeque::new()),
            max_bytes,
        }
    }

    pub fn push_line(&self, line: &str) {
        let Ok(mut lines) = self.inner.lock() else {
            return;
        };
        let mut line = line.to_owned();
        if line.len() > self.max_bytes {
            let mut cut = line.len() - self.max_bytes;
            while !line.is_char_boundary(cut) {
                cut += 1;
            }
            line.drain(..cut);
        }
        lines.push_back(line);
        let mut total: usize = lines.iter().map(|l| l.len() + 1).sum();
        while total > self.max_bytes {
            match lines.pop_front() {
                Some(l) => total -= l.len() + 1,
                None => break,
            }
        }
    }

    /// The last `n` lines, joined with newlines.
    pub fn tail(&self, n: usize) -> String {
        let Ok(lines) = self.inner.lock() else {
            return String::new();
        };
        let skip = lines.len().saturating_sub(n);
        lines
            .iter()
            .skip(skip)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_newest_bytes() {
        let ring = StderrRing::new(20);
        for i in 0..100 {
            ring.push_line(&format!("line {i}"));
        }
        assert_eq!(ring.tail(10), "line 98\nline 99");
        ring.push_line(&"é".repeat(50));
        assert!(ring.tail(1).len() <= 20);
    }
}
