//! Waiting on a condition the test can ask about, never a fixed sleep.

/// Asks `probe` every 100 ms until it answers, or `limit` has passed: its
/// answer, or `None`. The probe is the signal; the pause only spaces the
/// asking.
pub fn poll_until<T>(
    limit: std::time::Duration,
    mut probe: impl FnMut() -> Option<T>,
) -> Option<T> {
    let end = std::time::Instant::now() + limit;
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if std::time::Instant::now() >= end {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
