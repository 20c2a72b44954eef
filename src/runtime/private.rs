//! Data files are the user's alone: directories 0700, files 0600 (0700
//! for programs), whatever the umask. Every process of errkb starts with
//! `umask 077`, so what it creates is private from the start; `install`
//! and `doctor` fix the modes of what older versions (or other programs)
//! left readable.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// From now on, files and directories this process creates are private.
pub fn restrict_process() {
    #[cfg(unix)]
    // SAFETY: umask only sets the process's file mode creation mask.
    unsafe {
        libc::umask(0o077);
    }
}

/// Open `path` for appending, creating it private. A symbolic link is not
/// followed (a log in a shared temporary folder could be one planted by
/// another user).
pub fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// Give a database's `-wal` and `-shm` files back their owner's write
/// permission. SQLite creates them with the database's mode: while the
/// database was read-only (0400) they were made 0400 too, and they would
/// keep every write failing after the user made the database writable
/// again. Only files of this user, only when the database itself can be
/// written; two `stat`s when there is nothing to do.
#[cfg(unix)]
pub fn restore_journal_modes(db: &Path) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let writable = |m: &std::fs::Metadata| m.permissions().mode() & 0o200 != 0;
    let Ok(db_meta) = std::fs::metadata(db) else { return };
    if !writable(&db_meta) {
        return;
    }
    for suffix in ["-wal", "-shm"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        let path = PathBuf::from(name);
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            if meta.is_file() && !writable(&meta) && meta.uid() == db_meta.uid() {
                let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
            }
        }
    }
}

#[cfg(not(unix))]
pub fn restore_journal_modes(_db: &Path) {}

/// Take group and other permissions off everything under `root` (and
/// `root` itself); returns what changed. Symbolic links are not followed.
#[cfg(unix)]
pub fn fix_tree(root: &Path) -> io::Result<Vec<PathBuf>> {
    use std::os::unix::fs::PermissionsExt;
    let mut changed = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(path) = pending.pop() {
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o077 != 0 {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode & 0o700))?;
            changed.push(path.clone());
        }
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                pending.push(entry?.path());
            }
        }
    }
    Ok(changed)
}

#[cfg(not(unix))]
pub fn fix_tree(_root: &Path) -> io::Result<Vec<PathBuf>> {
    // Windows: a profile's files are private to its user by default.
    Ok(Vec::new())
}
