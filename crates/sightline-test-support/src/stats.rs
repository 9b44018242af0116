//! The numbers benchmarks print.

use std::time::Duration;

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

pub fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The value at fraction `p` (0.95: the 95th percentile) of `v`.
pub fn percentile(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    let at = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[at.min(v.len() - 1)]
}
