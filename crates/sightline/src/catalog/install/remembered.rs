//! Installs that failed, remembered for a while. A daemon first started
//! through Gemini CLI (which strips the certificate variables) could not
//! install pyright behind a TLS-inspecting proxy, and every later question,
//! from any client, tried the install again for 72 s while the log said
//! nothing. A failure is now said at once, with its cause, and the log
//! holds it; the install is tried again once the failure is old.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::catalog::install::InstallError;
use crate::catalog::spec::ServerSpec;

/// How long a failed install is not tried again.
const REMEMBERED_FOR: Duration = Duration::from_secs(300);

/// Each server's last failed install: when, and what was said.
static FAILED: Mutex<Vec<(&'static str, Instant, String)>> = Mutex::new(Vec::new());

/// The failure of `spec`'s install within [`REMEMBERED_FOR`], if any.
pub(super) fn recent(spec: &ServerSpec) -> Option<InstallError> {
    let failed = FAILED.lock().unwrap_or_else(PoisonError::into_inner);
    let (_, at, failure) = failed.iter().find(|(id, ..)| *id == spec.id)?;
    let ago = at.elapsed();
    (ago < REMEMBERED_FOR).then(|| InstallError::FailedRecently {
        server: spec.id.to_owned(),
        failure: failure.clone(),
        ago: ago.as_secs(),
        left: REMEMBERED_FOR.saturating_sub(ago).as_secs().max(1),
    })
}

/// Records how `spec`'s install ended: a failure is kept (and logged), a
/// success forgets the last one.
pub(super) fn remember(
    spec: &'static ServerSpec,
    result: &Result<std::path::PathBuf, InstallError>,
) {
    let mut failed = FAILED.lock().unwrap_or_else(PoisonError::into_inner);
    failed.retain(|(id, ..)| *id != spec.id);
    if let Err(e) = result {
        tracing::warn!("install: {e}");
        failed.push((spec.id, Instant::now(), e.to_string()));
    }
}
