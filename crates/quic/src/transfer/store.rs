//! The receiver's files (docs/transfer.md, "On disk"): a file arrives as `DIR/.NAME.part`
//! with an append-only sidecar `DIR/.NAME.chunks` of verified chunk hashes, and appears
//! under `DIR/NAME` only after its whole-file hash matched (rename, never replacing).
//!
//! Sidecar: a 24-byte header (magic `SCVXSC01`, size u64, chunk size u32, first 4 bytes
//! of the SHA-256 of the preceding 20) and then one 48-byte record per verified chunk
//! (index u64, SHA-256 of the chunk, first 8 bytes of the SHA-256 of the preceding 40).
//! A record is appended only after its chunk's data was written, so a crash leaves at
//! most a torn last record; on resume every record and every chunk in the .part file is
//! checked again and both files are cut back to the last chunk that verifies.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg, RenameFlags};
use sha2::{Digest, Sha256};

use super::protocol::{sha256, FileHeader, Hash};
use super::TransferError;

const SIDECAR_MAGIC: [u8; 8] = *b"SCVXSC01";
const SIDECAR_HEADER: usize = 24;
const RECORD: usize = 48;

/// A name the receiver may create: one path component, no leading dot (those names are
/// the receiver's own: .part files, sidecars, its certificate directory), no NUL,
/// `/` or `\`, not `.`/`..`, at most 255 bytes.
pub fn check_name(name: &str) -> Result<(), TransferError> {
    let why = if name.is_empty() {
        Some("empty")
    } else if name.len() > super::protocol::MAX_NAME {
        Some("longer than 255 bytes")
    } else if name.starts_with('/') {
        Some("an absolute path")
    } else if name == ".." || name.contains("../") || name.contains("/..") {
        Some("a path with `..`")
    } else if name.contains('/') || name.contains('\\') {
        Some("more than one path component")
    } else if name.starts_with('.') {
        Some("a hidden name (leading `.`)")
    } else if name.chars().any(|c| c == '\0' || c.is_control()) {
        Some("a name with control characters")
    } else {
        None
    };
    match why {
        None => Ok(()),
        Some(why) => Err(TransferError::BadName {
            name: name.escape_debug().to_string(),
            why,
        }),
    }
}

/// Bytes available to an unprivileged writer on the file system of `dir`.
pub fn free_space(dir: &Path) -> Result<u64, TransferError> {
    let s = nix::sys::statvfs::statvfs(dir).map_err(|e| TransferError::Io {
        what: format!("statvfs {}", dir.display()),
        source: e.into(),
    })?;
    Ok((s.blocks_available() as u64).saturating_mul(s.fragment_size() as u64))
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> TransferError {
    let what = what.into();
    move |source| TransferError::Io { what, source }
}

/// Opens an existing-or-new regular file without following a symlink at its name.
fn open_nofollow(path: &Path) -> Result<File, TransferError> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(nix::libc::ELOOP) {
                TransferError::Symlink(path.to_path_buf())
            } else {
                TransferError::Io {
                    what: format!("open {}", path.display()),
                    source: e,
                }
            }
        })?;
    let md = f
        .metadata()
        .map_err(io(format!("stat {}", path.display())))?;
    if !md.is_file() {
        return Err(TransferError::NotAFile(path.to_path_buf()));
    }
    Ok(f)
}

fn header_bytes(size: u64, chunk_size: u32) -> [u8; SIDECAR_HEADER] {
    let mut b = [0u8; SIDECAR_HEADER];
    b[..8].copy_from_slice(&SIDECAR_MAGIC);
    b[8..16].copy_from_slice(&size.to_be_bytes());
    b[16..20].copy_from_slice(&chunk_size.to_be_bytes());
    let c = sha256(&b[..20]);
    b[20..].copy_from_slice(&c[..4]);
    b
}

fn record_bytes(index: u64, hash: &Hash) -> [u8; RECORD] {
    let mut b = [0u8; RECORD];
    b[..8].copy_from_slice(&index.to_be_bytes());
    b[8..40].copy_from_slice(hash);
    let c = sha256(&b[..40]);
    b[40..].copy_from_slice(&c[..8]);
    b
}

/// The chunk hashes of a sidecar up to its first damaged, torn or out-of-order record;
/// `None` when the header is damaged or describes another size/chunk size.
fn read_sidecar(bytes: &[u8], size: u64, chunk_size: u32, chunks: u64) -> Option<Vec<Hash>> {
    if bytes.len() < SIDECAR_HEADER || bytes[..SIDECAR_HEADER] != header_bytes(size, chunk_size) {
        return None;
    }
    let mut out = Vec::new();
    for (i, r) in bytes[SIDECAR_HEADER..].chunks_exact(RECORD).enumerate() {
        let index = u64::from_be_bytes(r[..8].try_into().unwrap());
        let hash: Hash = r[8..40].try_into().unwrap();
        if i as u64 >= chunks || index != i as u64 || record_bytes(index, &hash) != *r {
            break;
        }
        out.push(hash);
    }
    Some(out)
}

/// A file being received: the .part file, its sidecar (locked against a second sender
/// of the same name), and the running whole-file hash of the verified prefix.
pub struct Partial {
    dir: File,
    dir_path: PathBuf,
    header: FileHeader,
    part: File,
    sidecar: Flock<File>,
    /// Verified chunks (all written and recorded).
    verified: u64,
    hasher: Sha256,
}

/// Paths of a name's files inside `dir`.
pub fn part_names(name: &str) -> (String, String) {
    (format!(".{name}.part"), format!(".{name}.chunks"))
}

impl Partial {
    /// Opens or creates the partial file for `header` in `dir`. With `header.resume`, the
    /// verified prefix is kept (after checking every record and chunk again); otherwise
    /// any earlier partial state is discarded.
    pub fn open(dir_path: &Path, header: &FileHeader) -> Result<Partial, TransferError> {
        check_name(&header.name)?;
        let dir = File::open(dir_path).map_err(io(format!("open {}", dir_path.display())))?;
        let final_path = dir_path.join(&header.name);
        if final_path.symlink_metadata().is_ok() {
            return Err(TransferError::Exists(final_path));
        }
        let (part_name, side_name) = part_names(&header.name);
        let side_path = dir_path.join(&side_name);
        let side = open_nofollow(&side_path)?;
        let mut side = Flock::lock(side, FlockArg::LockExclusiveNonblock)
            .map_err(|_| TransferError::Busy(header.name.clone()))?;
        let part_path = dir_path.join(&part_name);
        let mut part = open_nofollow(&part_path)?;

        let chunks = header.chunks();
        let mut hashes = Vec::new();
        if header.resume {
            // The sidecar holds at most one record per chunk of this header plus a torn
            // record; anything longer is damage, and is not read into memory.
            let cap = (SIDECAR_HEADER + RECORD) as u64 + chunks.saturating_mul(RECORD as u64);
            let mut bytes = Vec::new();
            (&mut *side)
                .take(cap)
                .read_to_end(&mut bytes)
                .map_err(io(format!("read {}", side_path.display())))?;
            hashes =
                read_sidecar(&bytes, header.size, header.chunk_size, chunks).unwrap_or_default();
        }
        // Check the .part data of every recorded chunk; stop at the first that differs.
        let mut hasher = Sha256::new();
        let mut verified = 0u64;
        let mut buf = vec![
            0u8;
            if hashes.is_empty() {
                0
            } else {
                header.chunk_size as usize
            }
        ];
        part.seek(SeekFrom::Start(0))
            .map_err(io(format!("seek {}", part_path.display())))?;
        for (i, h) in hashes.iter().enumerate() {
            let len = header.chunk_len(i as u64);
            if part.read_exact(&mut buf[..len]).is_err() || sha256(&buf[..len]) != *h {
                break;
            }
            hasher.update(&buf[..len]);
            verified += 1;
        }
        // Cut both files back to the verified prefix and rewrite the sidecar header.
        let kept = (0..verified)
            .map(|i| header.chunk_len(i) as u64)
            .sum::<u64>();
        part.set_len(kept)
            .map_err(io(format!("truncate {}", part_path.display())))?;
        part.seek(SeekFrom::Start(kept))
            .map_err(io(format!("seek {}", part_path.display())))?;
        side.set_len(0)
            .map_err(io(format!("truncate {}", side_path.display())))?;
        let mut b = header_bytes(header.size, header.chunk_size).to_vec();
        for (i, h) in hashes.iter().take(verified as usize).enumerate() {
            b.extend_from_slice(&record_bytes(i as u64, h));
        }
        side.seek(SeekFrom::Start(0))
            .and_then(|_| side.write_all(&b))
            .map_err(io(format!("write {}", side_path.display())))?;
        Ok(Partial {
            dir,
            dir_path: dir_path.to_path_buf(),
            header: header.clone(),
            part,
            sidecar: side,
            verified,
            hasher,
        })
    }

    pub fn verified(&self) -> u64 {
        self.verified
    }

    /// Bytes of the verified prefix.
    pub fn verified_bytes(&self) -> u64 {
        (self.verified * self.header.chunk_size as u64).min(self.header.size)
    }

    /// Appends chunk `verified` after checking it against `hash`.
    pub fn append(&mut self, data: &[u8], hash: &Hash) -> Result<(), TransferError> {
        let i = self.verified;
        if i >= self.header.chunks() || data.len() != self.header.chunk_len(i) {
            return Err(TransferError::Protocol {
                field: "chunk",
                value: format!("#{i} of {} bytes", data.len()),
                allowed: "the header's chunks, in order",
            });
        }
        if sha256(data) != *hash {
            return Err(TransferError::ChunkHash { index: i });
        }
        self.part
            .write_all(data)
            .map_err(io(format!("write .{}.part", self.header.name)))?;
        self.sidecar
            .write_all(&record_bytes(i, hash))
            .map_err(io(format!("write .{}.chunks", self.header.name)))?;
        self.hasher.update(data);
        self.verified += 1;
        Ok(())
    }

    /// After the last chunk: compares the whole-file hash, syncs, and renames the .part
    /// file to its name (failing if something appeared there meanwhile). Returns the hash.
    pub fn finish(self, file_hash: &Hash) -> Result<Hash, TransferError> {
        if self.verified != self.header.chunks() {
            return Err(TransferError::Protocol {
                field: "chunk count",
                value: self.verified.to_string(),
                allowed: "the header's chunk count",
            });
        }
        let got: Hash = self.hasher.finalize().into();
        if got != *file_hash {
            return Err(TransferError::FileHash {
                name: self.header.name.clone(),
            });
        }
        self.part
            .sync_all()
            .map_err(io(format!("fsync .{}.part", self.header.name)))?;
        let (part_name, side_name) = part_names(&self.header.name);
        nix::fcntl::renameat2(
            &self.dir,
            part_name.as_str(),
            &self.dir,
            self.header.name.as_str(),
            RenameFlags::RENAME_NOREPLACE,
        )
        .map_err(|e| match e {
            nix::errno::Errno::EEXIST => {
                TransferError::Exists(self.dir_path.join(&self.header.name))
            }
            e => TransferError::Io {
                what: format!("rename .{}.part", self.header.name),
                source: e.into(),
            },
        })?;
        let _ = self.dir.sync_all();
        let _ = std::fs::remove_file(self.dir_path.join(side_name));
        Ok(got)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_dir_or_hidden_are_refused() {
        for n in [
            "/etc/passwd",
            "..",
            "../x",
            "a/../../x",
            "a/b",
            ".x.part",
            "",
            "a\0b",
            "a\\b",
        ] {
            assert!(check_name(n).is_err(), "{n:?} accepted");
        }
        for n in ["backup.tar", "x..y", "日本.txt"] {
            check_name(n).unwrap();
        }
    }

    #[test]
    fn sidecar_reading_stops_at_the_first_damaged_record() {
        let h: Vec<Hash> = (0..4u8).map(|i| sha256(&[i])).collect();
        let mut b = header_bytes(4000, 4096).to_vec();
        for (i, x) in h.iter().enumerate() {
            b.extend_from_slice(&record_bytes(i as u64, x));
        }
        assert_eq!(read_sidecar(&b, 4000, 4096, 4).unwrap().len(), 4);
        // Torn last record.
        assert_eq!(
            read_sidecar(&b[..b.len() - 3], 4000, 4096, 4)
                .unwrap()
                .len(),
            3
        );
        // A flipped bit in record 2.
        let mut d = b.clone();
        d[SIDECAR_HEADER + 2 * RECORD + 10] ^= 1;
        assert_eq!(read_sidecar(&d, 4000, 4096, 4).unwrap().len(), 2);
        // Another size: the sidecar belongs to another file.
        assert!(read_sidecar(&b, 4001, 4096, 4).is_none());
    }
}
