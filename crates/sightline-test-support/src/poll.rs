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

/// [`poll_until`] for a test inside a runtime: asks `probe` every 20 ms
/// (an in-process engine answers in a few) until it answers, or `limit`
/// has passed.
pub async fn poll_until_async<T, F, Fut>(limit: std::time::Duration, mut probe: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let end = std::time::Instant::now() + limit;
    loop {
        if let Some(found) = probe().await {
            return Some(found);
        }
        if std::time::Instant::now() >= end {
            return None;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
