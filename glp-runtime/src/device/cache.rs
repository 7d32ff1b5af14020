//! A content-addressed cache of compiled kernels: PTX from memory, else from disk, else from
//! NVRTC (which then fills both).
//!
//! NVRTC takes a good fraction of a second per generated translation unit; the cache makes
//! every compile after the first one a file read. An entry is addressed by a [`KernelKey`],
//! the SHA-256 of everything the PTX depends on:
//!
//! - the entry [`FORMAT_VERSION`];
//! - NVRTC's version ([`nvrtc::version`]): another compiler may emit other PTX;
//! - the complete option list ([`nvrtc::compile_options`]: the architecture, then
//!   [`nvrtc::KERNEL_OPTIONS`]), exactly as NVRTC receives it;
//! - the source text.
//!
//! The program name is left out: it only labels NVRTC's error log, and the PTX does not
//! depend on it (a test checks this), so the same source compiled under two names shares
//! one entry. Fields are length-prefixed, so no two different inputs hash the same bytes.
//! SHA-256 (the `sha2` crate) makes an accidental collision impossible in practice, which a
//! 64-bit hash of a cache shared by many processes and versions would not quite be.
//!
//! # On disk
//!
//! Entries live in one folder ([`default_dir`]: `$GLP_CACHE_DIR/kernels`, else
//! `$XDG_CACHE_HOME/glp/kernels`, else `~/.cache/glp/kernels`), one file per key named
//! `<64 hex digits>.kernel`: a 64-byte header, then the PTX text.
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `GLP-PTX\0` |
//! | 8..12 | [`FORMAT_VERSION`], u32 little-endian |
//! | 12..16 | zero (reserved) |
//! | 16..48 | the key |
//! | 48..56 | PTX length in bytes, u64 little-endian |
//! | 56..60 | CRC-32 (IEEE) of the PTX, u32 little-endian |
//! | 60..64 | zero (reserved) |
//!
//! An entry is trusted only if every field checks out: magic, version, reserved bytes, key
//! equal to the one asked for, length equal to the file's remainder, checksum, UTF-8 text.
//! Anything else (a truncated or corrupted file, another format, an unreadable file) counts
//! as a miss: the kernel is compiled again and the entry rewritten.
//!
//! Writes go to a temporary file in the same folder, renamed over the entry when complete
//! (atomic on POSIX file systems): concurrent processes never read a partial entry, and two
//! writers of the same key both write the same bytes, so either rename wins. Nothing is
//! fsynced: an entry lost or left empty by a crash fails its checks and is rebuilt. A folder
//! that cannot be created or written degrades the cache to memory only, silently; compiling
//! never fails because of the cache. Entries are never evicted (a few hundred KB each).
//!
//! # In memory
//!
//! A [`KernelCache`] keeps every PTX it returned, by key. Two threads asking for the same
//! kernel wait for one compile instead of running two. [`ptx_for`] uses one process-wide
//! cache at [`default_dir`].

use super::nvrtc;
use crate::error::Result;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

/// Version of the entry format (and of the key derivation). Bumping it makes every existing
/// entry a miss.
pub const FORMAT_VERSION: u32 = 1;

/// First bytes of every entry.
pub const MAGIC: [u8; 8] = *b"GLP-PTX\0";

/// Size of an entry's header.
pub const HEADER_LEN: usize = 64;

/// Entries larger than this are not read (no generated kernel comes close; a corrupt or
/// foreign file must not make the cache allocate gigabytes).
const MAX_ENTRY_BYTES: u64 = 256 << 20;

/// Extension of entry files.
const ENTRY_EXTENSION: &str = "kernel";

/// What identifies a kernel's PTX: the SHA-256 of the format version, NVRTC's version, the
/// option list and the source (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelKey([u8; 32]);

impl KernelKey {
    /// The key of `source` compiled for `arch` by NVRTC `nvrtc_version` (major, minor) with
    /// glp's options.
    pub fn new(source: &str, arch: &str, nvrtc_version: (i32, i32)) -> Self {
        let mut hash = Sha256::new();
        let mut field = |tag: &str, value: &[u8]| {
            hash.update((tag.len() as u64).to_le_bytes());
            hash.update(tag.as_bytes());
            hash.update((value.len() as u64).to_le_bytes());
            hash.update(value);
        };
        field("glp kernel cache", &FORMAT_VERSION.to_le_bytes());
        field("nvrtc", format!("{}.{}", nvrtc_version.0, nvrtc_version.1).as_bytes());
        for option in nvrtc::compile_options(arch) {
            field("option", option.as_bytes());
        }
        field("source", source.as_bytes());
        KernelKey(hash.finalize().into())
    }

    /// The 32 bytes of the key.
    pub fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The key as 64 lowercase hexadecimal digits (the entry's file name).
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl fmt::Display for KernelKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

impl fmt::Debug for KernelKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KernelKey({})", self.hex())
    }
}

/// What a [`KernelCache`] did since it was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Requests answered from memory.
    pub memory_hits: u64,
    /// Requests answered by a valid entry on disk.
    pub disk_hits: u64,
    /// NVRTC compiles (successful ones; errors are not cached).
    pub compiles: u64,
    /// Entries found on disk but not trusted (corrupt, truncated, foreign, unreadable).
    pub rejected_entries: u64,
    /// Entries written to disk.
    pub disk_writes: u64,
    /// Entries that could not be written (the cache then works from memory).
    pub failed_writes: u64,
}

#[derive(Default)]
struct Counters {
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
    compiles: AtomicU64,
    rejected_entries: AtomicU64,
    disk_writes: AtomicU64,
    failed_writes: AtomicU64,
}

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Relaxed);
}

/// One kernel's PTX, filled once; its mutex makes concurrent requests wait for one compile.
type Slot = Arc<Mutex<Option<Arc<str>>>>;

/// A kernel cache: memory in front of an optional folder on disk (see the module docs).
pub struct KernelCache {
    dir: Option<PathBuf>,
    slots: Mutex<HashMap<KernelKey, Slot>>,
    nvrtc_version: OnceLock<(i32, i32)>,
    counters: Counters,
}

impl fmt::Debug for KernelCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KernelCache").field("dir", &self.dir).field("stats", &self.stats()).finish()
    }
}

/// Locks `mutex`, also after a panic of another holder: the data (a map of filled-once
/// slots) is valid at every point.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl KernelCache {
    /// A cache keeping entries in `dir` (created when the first entry is written), or in
    /// memory only with `None`.
    pub fn new(dir: Option<PathBuf>) -> Self {
        KernelCache { dir, slots: Mutex::default(), nvrtc_version: OnceLock::new(), counters: Counters::default() }
    }

    /// A cache in memory only.
    pub fn in_memory() -> Self {
        Self::new(None)
    }

    /// A cache at [`default_dir`].
    pub fn at_default_dir() -> Self {
        Self::new(default_dir())
    }

    /// The process-wide cache at [`default_dir`] (read once, at first use).
    pub fn global() -> &'static KernelCache {
        static GLOBAL: OnceLock<KernelCache> = OnceLock::new();
        GLOBAL.get_or_init(KernelCache::at_default_dir)
    }

    /// The folder of the entries, if the cache has one.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The key of `source` for `arch` with the installed NVRTC.
    pub fn key(&self, source: &str, arch: &str) -> Result<KernelKey> {
        let version = match self.nvrtc_version.get() {
            Some(v) => *v,
            None => {
                let v = nvrtc::version()?;
                let _ = self.nvrtc_version.set(v);
                v
            }
        };
        Ok(KernelKey::new(source, arch, version))
    }

    /// Where the entry of `key` is stored, if the cache has a folder.
    pub fn entry_path(&self, key: &KernelKey) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(format!("{}.{ENTRY_EXTENSION}", key.hex())))
    }

    /// What the cache did so far.
    pub fn stats(&self) -> CacheStats {
        let c = &self.counters;
        CacheStats {
            memory_hits: c.memory_hits.load(Relaxed),
            disk_hits: c.disk_hits.load(Relaxed),
            compiles: c.compiles.load(Relaxed),
            rejected_entries: c.rejected_entries.load(Relaxed),
            disk_writes: c.disk_writes.load(Relaxed),
            failed_writes: c.failed_writes.load(Relaxed),
        }
    }

    /// The PTX of `source` for `arch` (`"sm_90"`): from memory, else from a valid entry on
    /// disk, else compiled by NVRTC (`name` labels its errors) and stored in both. Fails only
    /// when NVRTC is missing or rejects the source, never because of the disk.
    pub fn ptx(&self, name: &str, source: &str, arch: &str) -> Result<Arc<str>> {
        let key = self.key(source, arch)?;
        let slot = Arc::clone(lock(&self.slots).entry(key).or_default());
        let mut slot = lock(&slot);
        if let Some(ptx) = slot.as_ref() {
            bump(&self.counters.memory_hits);
            return Ok(Arc::clone(ptx));
        }
        let ptx = match self.load(&key) {
            Some(ptx) => {
                bump(&self.counters.disk_hits);
                ptx
            }
            None => {
                let ptx: Arc<str> = nvrtc::compile_ptx(name, source, arch)?.into();
                bump(&self.counters.compiles);
                self.store(&key, &ptx);
                ptx
            }
        };
        *slot = Some(Arc::clone(&ptx));
        Ok(ptx)
    }

    /// The PTX of a valid entry of `key`, if there is one.
    fn load(&self, key: &KernelKey) -> Option<Arc<str>> {
        let path = self.entry_path(key)?;
        let bytes = match read_entry(&path) {
            Ok(bytes) => bytes,
            // No entry (or no folder: a file stands where it should be).
            Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => return None,
            Err(_) => {
                bump(&self.counters.rejected_entries);
                return None;
            }
        };
        match decode_entry(&bytes, key) {
            Ok(ptx) => Some(ptx.into()),
            Err(_) => {
                bump(&self.counters.rejected_entries);
                None
            }
        }
    }

    /// Writes the entry of `key`; a failure leaves the cache working from memory.
    fn store(&self, key: &KernelKey, ptx: &str) {
        let Some(path) = self.entry_path(key) else { return };
        match write_atomically(&path, &encode_entry(key, ptx)) {
            Ok(()) => bump(&self.counters.disk_writes),
            Err(_) => bump(&self.counters.failed_writes),
        }
    }
}

/// The PTX of `source` for `arch` from the process-wide cache ([`KernelCache::global`]).
pub fn ptx_for(name: &str, source: &str, arch: &str) -> Result<Arc<str>> {
    KernelCache::global().ptx(name, source, arch)
}

/// The kernel cache folder of this user: `$GLP_CACHE_DIR/kernels` when `GLP_CACHE_DIR` is
/// set (glp's cache root), else `$XDG_CACHE_HOME/glp/kernels` (an absolute
/// `XDG_CACHE_HOME`, as the XDG base directory specification requires), else
/// `$HOME/.cache/glp/kernels`; `None` (memory only) when none of them is set. Empty
/// variables count as unset.
pub fn default_dir() -> Option<PathBuf> {
    dir_from_env(std::env::var_os("GLP_CACHE_DIR"), std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME"))
}

fn dir_from_env(
    glp_cache_dir: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let set = |v: Option<OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(root) = set(glp_cache_dir) {
        return Some(root.join("kernels"));
    }
    if let Some(xdg) = set(xdg_cache_home).filter(|p| p.is_absolute()) {
        return Some(xdg.join("glp").join("kernels"));
    }
    set(home).map(|h| h.join(".cache").join("glp").join("kernels"))
}

/// The bytes of the entry for `key` holding `ptx`.
pub fn encode_entry(key: &KernelKey, ptx: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + ptx.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(key.bytes());
    out.extend_from_slice(&(ptx.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(ptx.as_bytes()).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    debug_assert_eq!(out.len(), HEADER_LEN);
    out.extend_from_slice(ptx.as_bytes());
    out
}

/// Why an entry is not trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryError {
    /// Shorter than a header.
    Truncated,
    /// Not a glp kernel cache entry.
    BadMagic,
    /// Written by another format version.
    Version(u32),
    /// Reserved header bytes are not zero.
    Reserved,
    /// The entry of another key (a renamed or mixed-up file).
    OtherKey,
    /// The header's PTX length differs from the file's remainder (truncated or extended).
    Length { header: u64, actual: u64 },
    /// The PTX does not match its checksum.
    Checksum,
    /// The PTX is not UTF-8 text.
    NotText,
}

/// The PTX of `bytes` if they are a valid entry of `key`.
pub fn decode_entry<'a>(bytes: &'a [u8], key: &KernelKey) -> Result<&'a str, EntryError> {
    if bytes.len() < HEADER_LEN {
        return Err(EntryError::Truncated);
    }
    let (header, payload) = bytes.split_at(HEADER_LEN);
    let u32_at = |at: usize| u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]]);
    if header[0..8] != MAGIC {
        return Err(EntryError::BadMagic);
    }
    let version = u32_at(8);
    if version != FORMAT_VERSION {
        return Err(EntryError::Version(version));
    }
    if u32_at(12) != 0 || u32_at(60) != 0 {
        return Err(EntryError::Reserved);
    }
    if header[16..48] != key.bytes()[..] {
        return Err(EntryError::OtherKey);
    }
    let mut length = [0; 8];
    length.copy_from_slice(&header[48..56]);
    let length = u64::from_le_bytes(length);
    if length != payload.len() as u64 {
        return Err(EntryError::Length { header: length, actual: payload.len() as u64 });
    }
    if crc32fast::hash(payload) != u32_at(56) {
        return Err(EntryError::Checksum);
    }
    std::str::from_utf8(payload).map_err(|_| EntryError::NotText)
}

/// The whole file at `path`, refusing files larger than any entry could be.
fn read_entry(path: &Path) -> io::Result<Vec<u8>> {
    let file = fs::File::open(path)?;
    let size = file.metadata()?.len();
    if size > MAX_ENTRY_BYTES {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "larger than any kernel cache entry"));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(MAX_ENTRY_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes `bytes` to `path` through a temporary file of the same folder renamed over it, so
/// readers see the old file or the new one, never a partial one.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no parent folder"))?;
    fs::create_dir_all(dir)?;
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let temp =
        dir.join(format!(".{file_name}.{}.{nanos}.{}.tmp", std::process::id(), TEMP_COUNTER.fetch_add(1, Relaxed)));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| fs::rename(&temp, path));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_source_arch_and_nvrtc_version_only() {
        let base = KernelKey::new("__global__ void k() {}", "sm_90", (13, 0));
        assert_eq!(base, KernelKey::new("__global__ void k() {}", "sm_90", (13, 0)));
        assert_ne!(base, KernelKey::new("__global__ void k() { }", "sm_90", (13, 0)));
        assert_ne!(base, KernelKey::new("__global__ void k() {}", "sm_80", (13, 0)));
        assert_ne!(base, KernelKey::new("__global__ void k() {}", "sm_90", (13, 1)));
        assert_ne!(base, KernelKey::new("__global__ void k() {}", "sm_90", (12, 9)));
        // Length prefixes: moving bytes between fields changes the key.
        assert_ne!(KernelKey::new("0", "sm_9", (13, 0)), KernelKey::new("", "sm_90", (13, 0)));
        assert_eq!(base.hex().len(), 64);
        assert!(base.hex().bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    }

    /// Every way an entry can be wrong is detected, and a valid entry decodes to its PTX.
    #[test]
    fn entries_are_checked_field_by_field() {
        let key = KernelKey::new("source", "sm_90", (13, 0));
        let ptx = "//\n// Generated by NVIDIA NVVM Compiler\n.version 9.0\n.target sm_90\n";
        let good = encode_entry(&key, ptx);
        assert_eq!(good.len(), HEADER_LEN + ptx.len());
        assert_eq!(decode_entry(&good, &key), Ok(ptx));

        let corrupt = |at: usize| {
            let mut bytes = good.clone();
            bytes[at] ^= 0x20;
            decode_entry(&bytes, &key).map(str::len)
        };
        assert_eq!(corrupt(0), Err(EntryError::BadMagic));
        assert_eq!(corrupt(8), Err(EntryError::Version(FORMAT_VERSION ^ 0x20)));
        assert_eq!(corrupt(13), Err(EntryError::Reserved));
        assert_eq!(corrupt(20), Err(EntryError::OtherKey));
        assert!(matches!(corrupt(48), Err(EntryError::Length { .. })));
        assert_eq!(corrupt(57), Err(EntryError::Checksum));
        assert_eq!(corrupt(62), Err(EntryError::Reserved));
        for at in HEADER_LEN..good.len() {
            assert_eq!(corrupt(at), Err(EntryError::Checksum), "payload byte {at}");
        }
        for len in 0..good.len() {
            let err = decode_entry(&good[..len], &key).unwrap_err();
            assert!(matches!(err, EntryError::Truncated | EntryError::Length { .. }), "{len} bytes: {err:?}");
        }
        let mut extended = good.clone();
        extended.push(b'\n');
        assert!(matches!(decode_entry(&extended, &key), Err(EntryError::Length { .. })));
        let other = KernelKey::new("source", "sm_80", (13, 0));
        assert_eq!(decode_entry(&good, &other), Err(EntryError::OtherKey));
        // Checksummed but not text: still rejected.
        let binary = {
            let mut bytes = encode_entry(&key, "ab");
            bytes.truncate(HEADER_LEN);
            bytes[56..60].copy_from_slice(&crc32fast::hash(&[0xff, 0xfe]).to_le_bytes());
            bytes.extend_from_slice(&[0xff, 0xfe]);
            bytes
        };
        assert_eq!(decode_entry(&binary, &key), Err(EntryError::NotText));
    }

    #[test]
    fn default_dir_follows_glp_cache_dir_then_xdg_then_home() {
        let os = |s: &str| Some(OsString::from(s));
        assert_eq!(dir_from_env(os("/c"), os("/x"), os("/h")), Some(PathBuf::from("/c/kernels")));
        assert_eq!(dir_from_env(os(""), os("/x"), os("/h")), Some(PathBuf::from("/x/glp/kernels")));
        assert_eq!(dir_from_env(None, os("/x"), os("/h")), Some(PathBuf::from("/x/glp/kernels")));
        // A relative XDG_CACHE_HOME is invalid and ignored (XDG base directory spec).
        assert_eq!(dir_from_env(None, os("rel"), os("/h")), Some(PathBuf::from("/h/.cache/glp/kernels")));
        assert_eq!(dir_from_env(None, None, os("/h")), Some(PathBuf::from("/h/.cache/glp/kernels")));
        assert_eq!(dir_from_env(None, os(""), os("")), None);
    }

    /// The NVRTC tests compile tiny kernels (a few tens of milliseconds each). Without NVRTC
    /// they skip, unless `GLP_REQUIRE_NVRTC=1`.
    fn nvrtc_or_skip(test: &str) -> bool {
        let available = nvrtc::available();
        if !available {
            let why = "NVRTC cannot be loaded (install it, or add its lib folder to LD_LIBRARY_PATH)";
            glp_testkit::switch::skip(test, glp_testkit::switch::Need::Nvrtc, why);
        }
        available
    }

    /// A small kernel, distinct per `tag` so that tests never share entries.
    fn kernel(tag: &str) -> String {
        format!(
            "// {tag}\nextern \"C\" __global__ void glp_cache_test(float* x, int n) {{\n    \
             int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) x[i] = x[i] * 2.0f + 1.0f;\n}}\n"
        )
    }

    fn files_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .map(|entries| entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn a_cold_compile_is_stored_and_a_fresh_cache_loads_it_without_compiling() {
        if !nvrtc_or_skip("a_cold_compile_is_stored_and_a_fresh_cache_loads_it_without_compiling") {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("kernels");
        let source = kernel("cold then warm");
        let cold = KernelCache::new(Some(dir.clone()));
        let ptx = cold.ptx("cold.cu", &source, "sm_90").unwrap();
        assert!(ptx.contains(".entry glp_cache_test(") && ptx.contains(".target sm_90"), "{ptx}");
        assert_eq!(cold.stats(), CacheStats { compiles: 1, disk_writes: 1, ..CacheStats::default() });
        let key = cold.key(&source, "sm_90").unwrap();
        let path = cold.entry_path(&key).unwrap();
        assert_eq!(files_in(&dir), vec![format!("{}.kernel", key.hex())], "one entry, no temporary file left");
        let bytes = fs::read(&path).unwrap();
        assert_eq!(decode_entry(&bytes, &key), Ok(&*ptx));

        // Again from the same cache: memory.
        let again = cold.ptx("cold.cu", &source, "sm_90").unwrap();
        assert!(Arc::ptr_eq(&ptx, &again));
        assert_eq!(cold.stats().memory_hits, 1);
        assert_eq!(cold.stats().compiles, 1);

        // A fresh cache (a new process) on the same folder: disk, no NVRTC compile.
        let warm = KernelCache::new(Some(dir.clone()));
        let loaded = warm.ptx("another name.cu", &source, "sm_90").unwrap();
        assert_eq!(loaded, ptx);
        assert_eq!(warm.stats(), CacheStats { disk_hits: 1, ..CacheStats::default() });
    }

    /// Corrupt, truncated, emptied, foreign and unreadable entries are never trusted: the
    /// kernel is compiled again and the entry rewritten with the right bytes.
    #[test]
    fn bad_entries_are_recompiled_and_repaired() {
        if !nvrtc_or_skip("bad_entries_are_recompiled_and_repaired") {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let source = kernel("repair");
        let first = KernelCache::new(Some(dir.clone()));
        let ptx = first.ptx("repair.cu", &source, "sm_90").unwrap();
        let key = first.key(&source, "sm_90").unwrap();
        let path = first.entry_path(&key).unwrap();
        let good = fs::read(&path).unwrap();

        let mut flipped = good.clone();
        let middle = HEADER_LEN + (good.len() - HEADER_LEN) / 2;
        flipped[middle] ^= 0x01;
        let mut foreign = encode_entry(&KernelKey::new(&source, "sm_80", (13, 0)), &ptx);
        foreign.truncate(good.len());
        let damaged: [(&str, Vec<u8>); 5] = [
            ("a flipped PTX bit", flipped),
            ("truncated to half", good[..good.len() / 2].to_vec()),
            ("truncated inside the header", good[..10].to_vec()),
            ("emptied", Vec::new()),
            ("another key's entry", foreign),
        ];
        for (what, bytes) in damaged {
            fs::write(&path, &bytes).unwrap();
            let cache = KernelCache::new(Some(dir.clone()));
            assert_eq!(cache.ptx("repair.cu", &source, "sm_90").unwrap(), ptx, "{what}");
            let stats = cache.stats();
            assert_eq!((stats.rejected_entries, stats.compiles, stats.disk_writes), (1, 1, 1), "{what}: {stats:?}");
            assert_eq!(fs::read(&path).unwrap(), good, "{what}: the entry is repaired");
        }

        // A folder where the entry should be cannot be read as a file: rejected, recompiled,
        // and (the rename failing) served from memory.
        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        let cache = KernelCache::new(Some(dir.clone()));
        assert_eq!(cache.ptx("repair.cu", &source, "sm_90").unwrap(), ptx);
        let stats = cache.stats();
        assert_eq!((stats.rejected_entries, stats.compiles, stats.failed_writes), (1, 1, 1), "{stats:?}");
        assert_eq!(files_in(&dir), vec![format!("{}.kernel", key.hex())], "no temporary file left");
    }

    #[test]
    fn another_arch_or_source_is_another_entry() {
        if !nvrtc_or_skip("another_arch_or_source_is_another_entry") {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let cache = KernelCache::new(Some(tmp.path().to_path_buf()));
        let (a, b) = (kernel("source a"), kernel("source b"));
        let a90 = cache.ptx("a.cu", &a, "sm_90").unwrap();
        let a80 = cache.ptx("a.cu", &a, "sm_80").unwrap();
        cache.ptx("b.cu", &b, "sm_90").unwrap();
        assert!(a90.contains(".target sm_90") && a80.contains(".target sm_80"));
        assert_ne!(a90, a80);
        let keys = [cache.key(&a, "sm_90").unwrap(), cache.key(&a, "sm_80").unwrap(), cache.key(&b, "sm_90").unwrap()];
        assert!(keys[0] != keys[1] && keys[0] != keys[2] && keys[1] != keys[2]);
        assert_eq!(files_in(tmp.path()).len(), 3);
        assert_eq!(cache.stats().compiles, 3);
    }

    /// Why the program name is not part of the key.
    #[test]
    fn ptx_does_not_depend_on_the_program_name() {
        if !nvrtc_or_skip("ptx_does_not_depend_on_the_program_name") {
            return;
        }
        let source = kernel("names");
        let one = nvrtc::compile_ptx("one.cu", &source, "sm_90").unwrap();
        let other = nvrtc::compile_ptx("a/completely/different_name.cu", &source, "sm_90").unwrap();
        assert_eq!(one, other);
    }

    /// A cache folder that cannot be created (its parent is a file: no permission bits
    /// involved, so this holds for root too) leaves a working memory-only cache.
    #[test]
    fn an_unwritable_folder_degrades_to_memory_only() {
        if !nvrtc_or_skip("an_unwritable_folder_degrades_to_memory_only") {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let blocker = tmp.path().join("not a folder");
        fs::write(&blocker, b"").unwrap();
        let cache = KernelCache::new(Some(blocker.join("kernels")));
        let source = kernel("unwritable");
        let ptx = cache.ptx("unwritable.cu", &source, "sm_90").unwrap();
        assert!(ptx.contains(".entry glp_cache_test("));
        assert_eq!(cache.stats(), CacheStats { compiles: 1, failed_writes: 1, ..CacheStats::default() });
        assert_eq!(cache.ptx("unwritable.cu", &source, "sm_90").unwrap(), ptx);
        assert_eq!(cache.stats().memory_hits, 1);
        assert_eq!(cache.stats().compiles, 1);

        let memory_only = KernelCache::in_memory();
        assert_eq!(memory_only.ptx("unwritable.cu", &source, "sm_90").unwrap(), ptx);
        assert_eq!(memory_only.stats(), CacheStats { compiles: 1, ..CacheStats::default() });
    }

    /// Threads of one cache wait for one compile; caches of several "processes" writing the
    /// same entry at once leave one valid entry and no temporary file.
    #[test]
    fn concurrent_requests_compile_once_per_cache_and_leave_a_valid_entry() {
        if !nvrtc_or_skip("concurrent_requests_compile_once_per_cache_and_leave_a_valid_entry") {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let source = kernel("concurrent");
        let shared = KernelCache::new(Some(dir.clone()));
        let separate: Vec<KernelCache> = (0..3).map(|_| KernelCache::new(Some(dir.clone()))).collect();
        let results: Vec<Arc<str>> = std::thread::scope(|s| {
            let mut handles = Vec::new();
            for _ in 0..4 {
                handles.push(s.spawn(|| shared.ptx("concurrent.cu", &source, "sm_90").unwrap()));
            }
            for cache in &separate {
                handles.push(s.spawn(|| cache.ptx("concurrent.cu", &source, "sm_90").unwrap()));
            }
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(results.windows(2).all(|w| w[0] == w[1]));
        let stats = shared.stats();
        assert_eq!(stats.compiles + stats.disk_hits, 1, "{stats:?}");
        assert_eq!(stats.memory_hits, 3, "{stats:?}");
        let key = shared.key(&source, "sm_90").unwrap();
        assert_eq!(files_in(&dir), vec![format!("{}.kernel", key.hex())]);
        assert_eq!(decode_entry(&fs::read(shared.entry_path(&key).unwrap()).unwrap(), &key), Ok(&*results[0]));
    }
}
