//! Everything a command writes: files, standard output, devices; checked before any work,
//! staged while the command runs, committed together at its end.
//!
//! Rules (`glp --help` states them for users):
//! - Every output path is checked when the command starts, before a graph is loaded or
//!   generated ([`Destination::check`]): its directory must exist and be a directory, the path
//!   must not be a directory, and the directory must accept a new file. A mistake costs
//!   nothing but the message, which names the option and the path.
//! - `-` is standard output. Text outputs may go there; a binary `.glpg` goes there only when
//!   standard output is not a terminal. The command's own report (summary, JSON) then moves
//!   to standard error, so that the data stays clean.
//! - A regular file is written under a temporary name in its own directory and renamed over
//!   the target when the command has succeeded: readers never see half a file, and a failure
//!   leaves the old file untouched. A symbolic link is followed (its chain resolved) and its
//!   target replaced the same way, in the target's directory; the link stays a link. A
//!   replaced file keeps the old one's permissions; a new one gets the usual `0666` less the
//!   umask.
//! - Anything that is not a regular file (a FIFO, a character device such as `/dev/null`, a
//!   socket), and a symbolic link under `/dev` or `/proc` (`/dev/stdout`, `/proc/self/fd/1`:
//!   names of files the process has open), is opened and written in place, never replaced.
//! - A command's outputs form one [`Outputs`] set: each is staged (a temporary file next to a
//!   regular target, memory or a file in the temporary directory for the others) and
//!   [`Outputs::commit`] writes them all only once the whole command has succeeded: streams
//!   (standard output, devices, FIFOs) first, then the renames. A command that fails before
//!   commits leaves no output behind; its temporary files are removed when the set is dropped.
//! - Every write and flush error is an error, standard output's included (`glp lp >
//!   /dev/full` fails with `error: standard output: No space left on device`).
//! - A closed pipe on standard output (`glp info g | head -1`) is no error: the reader has all
//!   it wanted. Further standard output is dropped quietly, the command finishes its other
//!   outputs and exits with status 0.

use super::console;
use glp_runtime::{Error, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{IsTerminal as _, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// How a destination is written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// Standard output (`-`).
    Stdout,
    /// A regular file (existing or new), replaced by a rename; the path has its symbolic
    /// links resolved.
    File(PathBuf),
    /// Anything else (FIFO, device, a path under `/dev` or `/proc`): opened and written.
    Stream(PathBuf),
}

/// An output path, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// The option that named it, for messages (`--out`, `--truth`, `OUTPUT`).
    option: String,
    /// The path as the user gave it.
    given: PathBuf,
    kind: Kind,
}

/// What an output holds, which decides whether it may go to a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// Lines of text.
    Text,
    /// Binary data (`.glpg`): refused on a terminal.
    Binary,
}

impl Destination {
    /// Checks `path`, given to `option`, as a place to write `content` (see the module docs).
    pub fn check(option: &str, path: &Path, content: Content) -> Result<Self> {
        let fail = |why: String| Error::invalid(format!("{option} {}: {why}", path.display()));
        if path.as_os_str() == "-" {
            if content == Content::Binary && std::io::stdout().is_terminal() {
                return Err(fail(
                    "refusing to write a binary graph to a terminal: redirect standard output or name a file".into(),
                ));
            }
            return Ok(Destination { option: option.into(), given: path.into(), kind: Kind::Stdout });
        }
        if is_open_file_link(path) {
            return match fs::metadata(path) {
                Ok(meta) if meta.is_dir() => Err(fail("is a directory".into())),
                _ => Ok(Destination { option: option.into(), given: path.into(), kind: Kind::Stream(path.into()) }),
            };
        }
        let resolved = resolve_links(path).map_err(|e| fail(format!("cannot follow the link: {e}")))?;
        let kind = match fs::metadata(&resolved) {
            Ok(meta) if meta.is_dir() => return Err(fail("is a directory".into())),
            Ok(meta) if !meta.is_file() => Kind::Stream(resolved),
            Ok(_) => Kind::File(resolved),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Kind::File(resolved),
            Err(e) => return Err(fail(e.to_string())),
        };
        let kind = match kind {
            Kind::File(target) => {
                let dir = directory_of(&target);
                match fs::metadata(&dir) {
                    Ok(meta) if meta.is_dir() => {}
                    Ok(_) => return Err(fail(format!("{} is not a directory", dir.display()))),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Err(fail(format!("the directory {} does not exist", dir.display())))
                    }
                    Err(e) => return Err(fail(format!("{}: {e}", dir.display()))),
                }
                let name = target.file_name().ok_or_else(|| fail("does not name a file".into()))?;
                // The directory must take the temporary file the output is staged in.
                temporary_in(&dir, &target)
                    .map_err(|e| fail(format!("cannot create a file in {}: {e}", dir.display())))?;
                // An absolute path, so that two names of one file compare equal.
                Kind::File(fs::canonicalize(&dir).map_err(|e| fail(e.to_string()))?.join(name))
            }
            other => other,
        };
        Ok(Destination { option: option.into(), given: path.into(), kind })
    }

    /// Whether this is standard output.
    pub fn is_stdout(&self) -> bool {
        self.kind == Kind::Stdout
    }

    /// Errors when `self` and `other` are the same place (two outputs would overwrite each
    /// other).
    pub fn check_distinct(&self, other: &Destination) -> Result<()> {
        if self.kind == other.kind {
            return Err(Error::invalid(format!(
                "{} {} and {} {} name the same output",
                self.option,
                self.given.display(),
                other.option,
                other.given.display()
            )));
        }
        Ok(())
    }

    /// A name for I/O errors on the final destination.
    pub fn error_path(&self) -> PathBuf {
        match &self.kind {
            Kind::Stdout => PathBuf::from("standard output"),
            Kind::File(path) | Kind::Stream(path) => path.clone(),
        }
    }
}

impl std::fmt::Display for Destination {
    /// The path as given, or `standard output`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            Kind::Stdout => f.write_str("standard output"),
            _ => write!(f, "{}", self.given.display()),
        }
    }
}

/// A symbolic link under `/dev` or `/proc` (`/dev/stdout` -> `/proc/self/fd/1` -> the
/// process's open file): it stands for a file the process already has open, so it is opened
/// as named, never resolved and replaced.
fn is_open_file_link(path: &Path) -> bool {
    (path.starts_with("/dev") || path.starts_with("/proc"))
        && fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
}

/// `path` with every symbolic link of its final component followed (a dangling link gives
/// the path it points to, which the output then creates).
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = if target.is_absolute() { target } else { directory_of(&current).join(target) };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// The directory a file path lies in (`.` for a bare name).
pub fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A new, empty temporary file for `target` in `dir` (`.NAME.XXXXXX.partial`), removed when
/// dropped; created with mode `0666` less the umask, as a plain new file would be.
fn temporary_in(dir: &Path, target: &Path) -> std::io::Result<tempfile::TempPath> {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".partial");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    Ok(builder.tempfile_in(dir)?.into_temp_path())
}

/// One staged output.
struct Staged {
    destination: Destination,
    data: Staging,
}

/// Where a staged output's bytes wait for the commit.
enum Staging {
    /// In memory (text for a stream or standard output).
    Memory(Vec<u8>),
    /// In a temporary file: next to a regular target (renamed over it at the commit), or in
    /// the temporary directory for a stream (copied into it at the commit).
    File(tempfile::TempPath),
}

/// The outputs of one command, committed together (see the module docs).
#[derive(Default)]
pub struct Outputs {
    staged: Vec<Staged>,
    /// The command's report (summary or JSON), written after the data streams: to standard
    /// output, or to standard error when an output already goes to standard output.
    report: Option<String>,
}

impl Outputs {
    /// An empty set.
    pub fn new() -> Self {
        Outputs::default()
    }

    /// Stages `bytes` for `destination` (written to its temporary file now when it is a
    /// regular file, so that a full disk is reported here).
    pub fn stage_bytes(&mut self, destination: &Destination, bytes: Vec<u8>) -> Result<()> {
        let data = match &destination.kind {
            Kind::File(target) => {
                let temporary = self.temporary_for(destination, target)?;
                let mut file = OpenOptions::new().write(true).open(&temporary).map_err(|e| Error::io(target, e))?;
                file.write_all(&bytes).and_then(|()| file.sync_all()).map_err(|e| Error::io(target, e))?;
                Staging::File(temporary)
            }
            Kind::Stdout | Kind::Stream(_) => Staging::Memory(bytes),
        };
        self.staged.push(Staged { destination: destination.clone(), data });
        Ok(())
    }

    /// Stages an output that `write` produces at a path it is given, an empty file (the
    /// `.glpg` writer, `glp sample`'s outputs written while the samples come); returns what
    /// `write` returns. When `write` fails, the file is removed.
    pub fn stage_with<T>(&mut self, destination: &Destination, write: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
        let temporary = match &destination.kind {
            Kind::File(target) => self.temporary_for(destination, target)?,
            Kind::Stdout | Kind::Stream(_) => {
                let dir = std::env::temp_dir();
                temporary_in(&dir, Path::new("glp-output")).map_err(|e| Error::io(&dir, e))?
            }
        };
        let written = write(&temporary)?;
        self.staged.push(Staged { destination: destination.clone(), data: Staging::File(temporary) });
        Ok(written)
    }

    /// A temporary file next to the regular `target`.
    fn temporary_for(&self, destination: &Destination, target: &Path) -> Result<tempfile::TempPath> {
        let dir = directory_of(target);
        temporary_in(&dir, target).map_err(|e| {
            let (option, given) = (&destination.option, destination.given.display());
            Error::invalid(format!("{option} {given}: cannot create a file in {}: {e}", dir.display()))
        })
    }

    /// Stages the command's report (summary or JSON) for standard output; it goes to standard
    /// error instead when one of the outputs is standard output.
    pub fn stage_report(&mut self, text: String) {
        self.report = Some(text);
    }

    /// Writes every staged output to its destination: streams first, in staging order, then
    /// the report, then the renames of regular files.
    pub fn commit(self) -> Result<()> {
        let data_on_stdout = self.staged.iter().any(|s| s.destination.is_stdout());
        let (streams, files): (Vec<Staged>, Vec<Staged>) =
            self.staged.into_iter().partition(|s| !matches!(s.destination.kind, Kind::File(_)));
        for staged in streams {
            write_stream(&staged)?;
        }
        match self.report {
            Some(text) if data_on_stdout => console::report(&text),
            Some(text) => print(&text)?,
            None => {}
        }
        for staged in files {
            let (Kind::File(target), Staging::File(temporary)) = (&staged.destination.kind, staged.data) else {
                return Err(Error::invalid("internal: a regular file staged in memory"));
            };
            if let Ok(old) = fs::metadata(target) {
                // A replaced file keeps its permissions.
                fs::set_permissions(&*temporary, old.permissions()).map_err(|e| Error::io(target, e))?;
            }
            temporary.persist(target).map_err(|e| Error::io(target, e.error))?;
        }
        Ok(())
    }
}

/// Writes one staged stream output.
fn write_stream(staged: &Staged) -> Result<()> {
    let destination = &staged.destination;
    let path = destination.error_path();
    let mut source: Box<dyn Read> = match &staged.data {
        Staging::Memory(bytes) => Box::new(&bytes[..]),
        Staging::File(temporary) => Box::new(File::open(temporary).map_err(|e| Error::io(&path, e))?),
    };
    match &destination.kind {
        Kind::Stdout => write_stdout_from(&mut source),
        Kind::Stream(target) => {
            let mut out = OpenOptions::new().write(true).open(target).map_err(|e| Error::io(target, e))?;
            std::io::copy(&mut source, &mut out).and_then(|_| out.flush()).map(|_| ()).map_err(|e| Error::io(target, e))
        }
        Kind::File(_) => Err(Error::invalid("internal: a regular file written as a stream")),
    }
}

/// `value` as pretty-printed JSON with a final line end.
pub fn json<T: serde::Serialize>(value: &T) -> Result<String> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| Error::invalid(format!("JSON output: {e}")))?;
    text.push('\n');
    Ok(text)
}

/// Set once a reader closed standard output: later output is dropped.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Prints `text` on standard output: the reports of every command. A write or flush error is
/// an error; a closed pipe is not (see the module docs).
pub fn print(text: &str) -> Result<()> {
    write_stdout_from(&mut text.as_bytes())
}

fn write_stdout_from(source: &mut dyn Read) -> Result<()> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match std::io::copy(source, &mut out).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(Error::io("standard output", e)),
    }
}
