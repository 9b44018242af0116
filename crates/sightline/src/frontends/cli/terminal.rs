//! The terminal around a command: a spinner per job on stderr while installs
//! and starts run, stdout written whole, and the signals that end a command
//! in order.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;

use crate::progress::Progress;

/// A spinner per job on stderr while installs and starts run.
#[derive(Default)]
pub struct Spinner {
    bars: Mutex<HashMap<String, indicatif::ProgressBar>>,
}

impl Progress for Spinner {
    fn begin(&self, key: &str, title: &str) {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(title.to_owned());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        if bar.is_hidden() && key.starts_with("install") {
            // Not a terminal: still say what is happening, as plain lines.
            plain(&format!("sightline: {title}"));
        }
        if let Ok(mut bars) = self.bars.lock() {
            bars.insert(key.to_owned(), bar);
        }
    }
    fn update(&self, key: &str, message: &str) {
        if let Ok(bars) = self.bars.lock()
            && let Some(bar) = bars.get(key)
        {
            bar.set_message(message.to_owned());
        }
    }
    fn end(&self, key: &str, message: &str) {
        let bar = self.bars.lock().ok().and_then(|mut b| b.remove(key));
        if let Some(bar) = bar {
            let elapsed = bar.elapsed().as_secs_f64();
            bar.finish_and_clear();
            if key.starts_with("install") {
                plain(&format!("sightline: {message} ({elapsed:.1} s)"));
            }
        }
    }
}

fn plain(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

pub(crate) fn print_out(text: &str, status: i32) -> i32 {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    status
}
