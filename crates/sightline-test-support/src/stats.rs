//! The numbers benchmarks print.

use std::time::Duration;

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

pub fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
