//! Whether the disk can take the database's writes: a WAL database's
//! folder must take its -wal and -shm files, and a full disk fails writes
//! of any kind. Opening a database that fails says why from this (in the
//! error and the hook log); `errkb doctor` reports it.

use std::path::{Path, PathBuf};

/// Less room than this on the database's disk is a full disk: a hook
/// writes a few pages, a checkpoint a few dozen.
pub const LOW_DISK_BYTES: u64 = 1 << 20;

/// The database's folder as the file system sees it.
pub struct Storage {
    /// The database's folder, or its nearest ancestor that exists.
    pub dir: PathBuf,
    /// Whether this user may write there.
    pub writable: bool,
    /// The bytes this user may still write on its disk (None when the
    /// file system does not say).
    pub free: Option<u64>,
}

/// What keeps the database from being written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Problem {
    /// The folder is read-only: no journal beside the database.
    ReadOnlyFolder,
    /// Less than `LOW_DISK_BYTES` free.
    Full,
}

impl Storage {
    /// Look at the folder of the database at `db_path`.
    pub fn of(db_path: &Path) -> Storage {
        let dir = db_path
            .ancestors()
            .skip(1)
            .map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d })
            .find(|d| d.is_dir())
            .unwrap_or(Path::new("."))
            .to_owned();
        Storage {
            writable: writable(&dir),
            free: free_bytes(&dir),
            dir,
        }
    }

    /// The first thing that keeps writes from working, if any.
    pub fn problem(&self) -> Option<Problem> {
        if !self.writable {
            Some(Problem::ReadOnlyFolder)
        } else if self.free.is_some_and(|free| free < LOW_DISK_BYTES) {
            Some(Problem::Full)
        } else {
            None
        }
    }
}

impl Problem {
    /// Why SQLite's "unable to open database file" or "disk I/O error"
    /// may have happened, as a note after it.
    pub fn note(self) -> &'static str {
        match self {
            Problem::ReadOnlyFolder => " (its folder is read-only: the database needs to write its journal beside it)",
            Problem::Full => " (the disk holding it is full)",
        }
    }
}

/// The note for an error about the database at `db_path`: why writing it
/// may have failed, or nothing when the disk looks fine.
pub fn note(db_path: &Path) -> &'static str {
    Storage::of(db_path).problem().map_or("", Problem::note)
}

/// Whether this user may write `path` (a file or a folder).
pub fn writable(path: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: access() only reads the NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Bytes this user may still write on the file system holding `dir`.
fn free_bytes(dir: &Path) -> Option<u64> {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: statvfs only reads the path and writes into the zeroed struct we own.
    unsafe {
        let mut fs: libc::statvfs = std::mem::zeroed();
        (libc::statvfs(c.as_ptr(), &mut fs) == 0).then(|| fs.f_bavail as u64 * fs.f_frsize as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_is_judged_by_the_nearest_one_that_exists() {
        let tmp = std::env::temp_dir();
        let storage = Storage::of(&tmp.join("errkb-no-such-folder/a/b/kb.db"));
        assert_eq!(storage.dir, tmp);
        assert!(storage.writable);
        assert_eq!(Storage::of(Path::new("kb.db")).dir, Path::new("."));
    }

    #[test]
    fn a_read_only_folder_comes_before_a_full_disk() {
        let storage = Storage {
            dir: PathBuf::from("/x"),
            writable: false,
            free: Some(0),
        };
        assert_eq!(storage.problem(), Some(Problem::ReadOnlyFolder));
        let storage = Storage {
            writable: true,
            ..storage
        };
        assert_eq!(storage.problem(), Some(Problem::Full));
        let storage = Storage {
            free: Some(LOW_DISK_BYTES),
            ..storage
        };
        assert_eq!(storage.problem(), None);
    }
}
