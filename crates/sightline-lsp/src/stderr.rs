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
        // Each kept line costs its length and a newline; an over-long line
        // keeps its end, cut to fit alone, so the newest output (often the
        // error itself) is never the part lost.
        let room = self.max_bytes.saturating_sub(1);
        let mut line = line.to_owned();
        if line.len() > room {
            let mut cut = line.len() - room;
            while !line.is_char_boundary(cut) {
                cut += 1;
            }
            line.drain(..cut);
        }
        lines.push_back(line);
        let mut total: usize = lines.iter().map(|l| l.len() + 1).sum();
        while total > self.max_bytes && lines.len() > 1 {
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
        // An over-long newest line is kept, cut to its end, and pushes out
        // every older one.
        ring.push_line(&format!("{}the end", "x".repeat(40)));
        assert_eq!(ring.tail(10), format!("{}the end", "x".repeat(12)));
        // Cut on a character boundary: 19 bytes of room hold 9 two-byte `é`.
        ring.push_line(&"é".repeat(50));
        assert_eq!(ring.tail(10), "é".repeat(9));
        ring.push_line("next");
        assert_eq!(ring.tail(10), "next");
    }
}
