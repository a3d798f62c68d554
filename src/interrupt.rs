//! What an interrupted run leaves behind: nothing of its own.
//!
//! Every file the tool writes is made under a temporary name and renamed into place (see
//! [`crate::write`], `site::output`, [`crate::cache`]). Ctrl-C or a `kill` between the two
//! used to leave the temporary file (`.gotchas-XXXXXX.tmp` among the records, a cache's
//! worth of `.check-XXXXXX.tmp`) or a whole staged site (`.gotchas-site-XXXXXX`, gigabytes
//! for a large corpus) for ever, where `git add -A` would commit it.
//!
//! So each temporary path is registered while it is in flight ([`InFlight`]), and the first
//! time one is, a thread starts that waits for SIGINT or SIGTERM. On one, it takes the
//! registry's lock, removes every path registered, and ends the process as the signal
//! would have (the shell sees 130 or 143, and a script or `make` running the tool knows it
//! was interrupted). A writer makes its temporary path and registers it holding the same
//! lock, and renames it into place and unregisters it holding it too, so a removal never
//! meets a half-made registration, and a path half removed is never renamed into place. The
//! files of a staged site are created, and an old site's removed, holding the lock shared
//! ([`meanwhile`]): many threads at once, none while the clean-up runs.
//!
//! A second signal during the clean-up (removing a large site takes a while) ends the
//! process at once.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The temporary paths in flight. Written (exclusively) to register, land or unregister a
/// path and by the clean-up; read (shared) by [`meanwhile`].
static IN_FLIGHT: RwLock<Vec<PathBuf>> = RwLock::new(Vec::new());

/// The registry held exclusively. A thread that panicked holding it left the list whole
/// (every change is one push or one removal), so a poisoned lock is used as it is.
fn exclusive() -> RwLockWriteGuard<'static, Vec<PathBuf>> {
    IN_FLIGHT.write().unwrap_or_else(PoisonError::into_inner)
}

fn shared() -> RwLockReadGuard<'static, Vec<PathBuf>> {
    IN_FLIGHT.read().unwrap_or_else(PoisonError::into_inner)
}

/// A temporary file or folder (`T`: a `tempfile::NamedTempFile`, a `tempfile::TempDir`)
/// removed if the run is interrupted while it is held; it derefs to `T`. Dropped, `T` goes
/// first (removing what it removes) and the path is unregistered after, so that nothing is
/// left unremoved in between.
pub struct InFlight<T> {
    // Fields drop in order: what was made, then its registration.
    made: T,
    registration: Registration,
}

/// A path in the registry, unregistered when dropped unless [`InFlight::land`] did it.
struct Registration(Option<PathBuf>);

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            unregister(&mut exclusive(), &path);
        }
    }
}

impl<T> InFlight<T> {
    /// Makes a temporary file or folder with `make` and registers the path `path_of` finds
    /// in it, holding the registry's lock throughout: an interruption removes it, or comes
    /// before it was made.
    pub fn make(
        make: impl FnOnce() -> io::Result<T>,
        path_of: impl FnOnce(&T) -> &Path,
    ) -> io::Result<InFlight<T>> {
        watch();
        let mut registry = exclusive();
        let made = make()?;
        let path = path_of(&made).to_path_buf();
        registry.push(path.clone());
        Ok(InFlight {
            made,
            registration: Registration(Some(path)),
        })
    }

    /// Runs `act` (a swap of the temporary path and the target) holding the registry's lock
    /// exclusively: no clean-up runs meanwhile. The path stays registered.
    pub fn hold<R>(&self, act: impl FnOnce(&T) -> R) -> R {
        let _registry = exclusive();
        act(&self.made)
    }

    /// Puts what was made in place with `land` (a rename) and unregisters it, holding the
    /// registry's lock: an interruption removes the temporary path before, or finds it
    /// landed.
    pub fn land<R>(self, land: impl FnOnce(T) -> R) -> R {
        let InFlight {
            made,
            mut registration,
        } = self;
        let mut registry = exclusive();
        let landed = land(made);
        if let Some(path) = registration.0.take() {
            unregister(&mut registry, &path);
        }
        landed
    }
}

impl<T> std::ops::Deref for InFlight<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.made
    }
}

impl<T> std::ops::DerefMut for InFlight<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.made
    }
}

fn unregister(registry: &mut Vec<PathBuf>, path: &Path) {
    if let Some(at) = registry.iter().rposition(|p| p == path) {
        registry.swap_remove(at);
    }
}

/// Runs `act` (making or removing entries inside a folder in flight) holding the registry's
/// lock shared: as many threads at once as like, and never while an interruption's clean-up
/// runs, which therefore finds the folder as it is and is not undone by a file or folder
/// made inside it as it removes it.
pub fn meanwhile<R>(act: impl FnOnce() -> R) -> R {
    let _registry = shared();
    act()
}

/// Starts the thread that cleans up on SIGINT or SIGTERM, once a run: only runs that write
/// a file pay for it.
fn watch() {
    #[cfg(unix)]
    {
        static STARTED: std::sync::Once = std::sync::Once::new();
        STARTED.call_once(unix::start);
    }
}

#[cfg(unix)]
mod unix {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;

    /// Starts the watching thread and waits until it handles the signals. The handlers are
    /// installed on that thread, so that a thread that could not start leaves the signals
    /// as they were (a handler with nobody to act on it would swallow Ctrl-C), and waited
    /// for, so that no signal comes between a path registered and a handler for it.
    pub(super) fn start() {
        let (ready, handled) = std::sync::mpsc::channel();
        let started = std::thread::Builder::new()
            .name("interrupt".into())
            .spawn(move || {
                let Some(mut signals) = handle() else {
                    let _ = ready.send(());
                    return;
                };
                let _ = ready.send(());
                if let Some(signal) = signals.forever().next() {
                    clean_up_and_end(signal);
                }
            });
        if started.is_ok() {
            let _ = handled.recv();
        }
    }

    /// Installs the handlers: the iterator the thread waits on, and behind it the default
    /// action for a second signal, once the first has set the flag.
    fn handle() -> Option<Signals> {
        let signals = Signals::new([SIGINT, SIGTERM]).ok()?;
        let interrupted = Arc::new(AtomicBool::new(false));
        for signal in [SIGINT, SIGTERM] {
            let _ =
                signal_hook::flag::register_conditional_default(signal, Arc::clone(&interrupted));
            let _ = signal_hook::flag::register(signal, Arc::clone(&interrupted));
        }
        Some(signals)
    }

    /// Removes every path in flight and ends the process by `signal`, never letting go of
    /// the registry: a writer waiting to rename its file into place waits until the end.
    fn clean_up_and_end(signal: i32) {
        let registry = super::exclusive();
        for path in registry.iter() {
            remove(path);
        }
        let _ = signal_hook::low_level::emulate_default_handler(signal);
        std::process::exit(128 + signal);
    }

    /// Removes a temporary file, or a folder with what it holds; what cannot be removed is
    /// left, as there is no one to tell.
    fn remove(path: &std::path::Path) {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let _ = std::fs::remove_dir_all(path);
            }
            Ok(_) => {
                let _ = std::fs::remove_file(path);
            }
            Err(_) => {}
        }
    }
}
