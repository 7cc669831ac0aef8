//! The bpf(2) system calls the loader needs after libbpf has loaded an object: pinning,
//! opening pins, map element access, and walking the kernel's map list. Each call is a
//! small safe function around one `syscall(SYS_bpf, …)`; the attribute layouts are those
//! of `union bpf_attr` in include/uapi/linux/bpf.h.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

const BPF_MAP_CREATE: libc::c_long = 0;
const BPF_MAP_LOOKUP_ELEM: libc::c_long = 1;
const BPF_MAP_UPDATE_ELEM: libc::c_long = 2;
const BPF_MAP_DELETE_ELEM: libc::c_long = 3;
const BPF_MAP_GET_NEXT_KEY: libc::c_long = 4;
const BPF_OBJ_PIN: libc::c_long = 6;
const BPF_OBJ_GET: libc::c_long = 7;
const BPF_MAP_GET_NEXT_ID: libc::c_long = 12;
const BPF_MAP_GET_FD_BY_ID: libc::c_long = 14;
const BPF_OBJ_GET_INFO_BY_FD: libc::c_long = 15;

/// `BPF_MAP_TYPE_ARRAY`.
const MAP_TYPE_ARRAY: u32 = 2;
/// `BPF_MAP_TYPE_STRUCT_OPS`.
pub const MAP_TYPE_STRUCT_OPS: u32 = 26;
/// statfs f_type of bpffs.
const BPF_FS_MAGIC: i64 = 0xcafe4a11;

/// The attribute union is at most 144 bytes on 6.x kernels; unused bytes must be zero.
#[repr(C, align(8))]
struct Attr([u8; 144]);

impl Attr {
    fn new() -> Attr {
        Attr([0; 144])
    }
    fn put_u32(&mut self, off: usize, v: u32) {
        self.0[off..off + 4].copy_from_slice(&v.to_ne_bytes());
    }
    fn put_u64(&mut self, off: usize, v: u64) {
        self.0[off..off + 8].copy_from_slice(&v.to_ne_bytes());
    }
}

fn bpf(cmd: libc::c_long, attr: &mut Attr) -> io::Result<libc::c_long> {
    // SAFETY: `attr` is a zero-initialised buffer of the size we pass; every pointer we
    // stored in it points to memory that outlives the call.
    let r = unsafe { libc::syscall(libc::SYS_bpf, cmd, attr.0.as_mut_ptr(), attr.0.len()) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn owned(fd: libc::c_long) -> OwnedFd {
    // SAFETY: the kernel just returned this new descriptor to us; nobody else owns it.
    unsafe { OwnedFd::from_raw_fd(fd as RawFd) }
}

fn cpath(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_encoded_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains NUL"))
}

/// Pins a map (or other BPF object) fd at `path` in bpffs.
pub fn obj_pin(fd: RawFd, path: &Path) -> io::Result<()> {
    let c = cpath(path)?;
    let mut a = Attr::new();
    a.put_u64(0, c.as_ptr() as u64);
    a.put_u32(8, fd as u32);
    bpf(BPF_OBJ_PIN, &mut a).map(|_| ())
}

/// Opens a pinned object.
pub fn obj_get(path: &Path) -> io::Result<OwnedFd> {
    let c = cpath(path)?;
    let mut a = Attr::new();
    a.put_u64(0, c.as_ptr() as u64);
    bpf(BPF_OBJ_GET, &mut a).map(owned)
}

/// Creates a one-element array map with `value_size`-byte values named `name` (at most
/// 15 bytes), e.g. for a record pinned next to a registration.
pub fn array_map_create(name: &str, value_size: u32) -> io::Result<OwnedFd> {
    // union bpf_attr, BPF_MAP_CREATE: map_type @0, key_size @4, value_size @8,
    // max_entries @12, map_flags @16, inner_map_fd @20, numa_node @24, map_name[16] @28.
    let mut a = Attr::new();
    a.put_u32(0, MAP_TYPE_ARRAY);
    a.put_u32(4, 4);
    a.put_u32(8, value_size);
    a.put_u32(12, 1);
    let n = name.as_bytes();
    let n = &n[..n.len().min(15)];
    a.0[28..28 + n.len()].copy_from_slice(n);
    bpf(BPF_MAP_CREATE, &mut a).map(owned)
}

fn elem_attr(fd: RawFd, key: &[u8], value: u64, flags: u64) -> Attr {
    let mut a = Attr::new();
    a.put_u32(0, fd as u32);
    a.put_u64(8, key.as_ptr() as u64);
    a.put_u64(16, value);
    a.put_u64(24, flags);
    a
}

/// Copies the value at `key` into `value` (whose length must be the map's value size).
pub fn map_lookup(fd: &impl AsRawFd, key: &[u8], value: &mut [u8]) -> io::Result<()> {
    let mut a = elem_attr(fd.as_raw_fd(), key, value.as_mut_ptr() as u64, 0);
    bpf(BPF_MAP_LOOKUP_ELEM, &mut a).map(|_| ())
}

pub fn map_update(fd: &impl AsRawFd, key: &[u8], value: &[u8]) -> io::Result<()> {
    let mut a = elem_attr(fd.as_raw_fd(), key, value.as_ptr() as u64, 0);
    bpf(BPF_MAP_UPDATE_ELEM, &mut a).map(|_| ())
}

pub fn map_delete(fd: &impl AsRawFd, key: &[u8]) -> io::Result<()> {
    let mut a = elem_attr(fd.as_raw_fd(), key, 0, 0);
    bpf(BPF_MAP_DELETE_ELEM, &mut a).map(|_| ())
}

/// The keys of a hash map with 8-byte keys.
pub fn map_keys_u64(fd: &impl AsRawFd) -> io::Result<Vec<u64>> {
    let mut keys = Vec::new();
    let mut cur: Option<u64> = None;
    loop {
        let mut next = [0u8; 8];
        let key = cur.map(|k| k.to_ne_bytes());
        let mut a = Attr::new();
        a.put_u32(0, fd.as_raw_fd() as u32);
        a.put_u64(8, key.as_ref().map_or(0, |k| k.as_ptr() as u64));
        a.put_u64(16, next.as_mut_ptr() as u64);
        match bpf(BPF_MAP_GET_NEXT_KEY, &mut a) {
            Ok(_) => {
                let k = u64::from_ne_bytes(next);
                keys.push(k);
                cur = Some(k);
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(keys),
            Err(e) => return Err(e),
        }
    }
}

/// What `BPF_OBJ_GET_INFO_BY_FD` says about a map (the fields we use).
#[derive(Clone, Debug)]
pub struct MapInfo {
    pub map_type: u32,
    pub id: u32,
    pub value_size: u32,
    pub name: String,
}

pub fn map_info(fd: &impl AsRawFd) -> io::Result<MapInfo> {
    // struct bpf_map_info: type u32 @0, id u32 @4, key_size, value_size, max_entries,
    // map_flags, name[16] @24.
    let mut info = [0u8; 96];
    let mut a = Attr::new();
    a.put_u32(0, fd.as_raw_fd() as u32);
    a.put_u32(4, info.len() as u32);
    a.put_u64(8, info.as_mut_ptr() as u64);
    bpf(BPF_OBJ_GET_INFO_BY_FD, &mut a)?;
    let name = &info[24..40];
    let end = name.iter().position(|&b| b == 0).unwrap_or(16);
    Ok(MapInfo {
        map_type: u32::from_ne_bytes(info[0..4].try_into().unwrap()),
        id: u32::from_ne_bytes(info[4..8].try_into().unwrap()),
        value_size: u32::from_ne_bytes(info[12..16].try_into().unwrap()),
        name: String::from_utf8_lossy(&name[..end]).into_owned(),
    })
}

/// Every BPF map in the kernel, as (info, fd). Maps that vanish while we walk are skipped.
pub fn all_maps() -> io::Result<Vec<(MapInfo, OwnedFd)>> {
    let mut out = Vec::new();
    let mut id = 0u32;
    loop {
        let mut a = Attr::new();
        a.put_u32(0, id);
        match bpf(BPF_MAP_GET_NEXT_ID, &mut a) {
            Ok(_) => id = u32::from_ne_bytes(a.0[4..8].try_into().unwrap()),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(out),
            Err(e) => return Err(e),
        }
        let mut g = Attr::new();
        g.put_u32(0, id);
        let Ok(fd) = bpf(BPF_MAP_GET_FD_BY_ID, &mut g).map(owned) else {
            continue;
        };
        if let Ok(info) = map_info(&fd) {
            out.push((info, fd));
        }
    }
}

/// The congestion control name a struct_ops map registers (`tcp_congestion_ops.name`),
/// read from the map's value. The value is the kernel's `bpf_struct_ops_tcp_congestion_ops`
/// (a header, then the ops); rather than hard-coding the kernel's layout, the name is the
/// 8-aligned `char[16]` that starts with "scv_" and is NUL-padded: every other member is
/// a function pointer (kernel addresses) or a small integer. Only our names are found.
pub fn struct_ops_cc_name(fd: &impl AsRawFd, value_size: u32) -> Option<String> {
    let mut v = vec![0u8; value_size as usize];
    map_lookup(fd, &0u32.to_ne_bytes(), &mut v).ok()?;
    (0..v.len().saturating_sub(15)).step_by(8).find_map(|o| {
        let f = &v[o..o + 16];
        let end = f.iter().position(|&b| b == 0)?;
        let ok = f.starts_with(b"scv_")
            && f[end..].iter().all(|&b| b == 0)
            && f[..end]
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'_');
        ok.then(|| String::from_utf8_lossy(&f[..end]).into_owned())
    })
}

/// True when `dir` is a bpffs mount.
pub fn is_bpffs(dir: &Path) -> bool {
    nix::sys::statfs::statfs(dir).is_ok_and(|st| st.filesystem_type().0 == BPF_FS_MAGIC)
}

/// Mounts bpffs at `dir` unless it already is one.
pub fn ensure_bpffs(dir: &Path) -> io::Result<()> {
    if is_bpffs(dir) {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    nix::mount::mount(
        Some("bpf"),
        dir,
        Some("bpf"),
        nix::mount::MsFlags::empty(),
        None::<&str>,
    )?;
    Ok(())
}

/// CLOCK_MONOTONIC now, ns: the clock of the shim's heartbeat and of the kernel's
/// `bpf_ktime_get_ns`, and the testbed's clock. The one definition in the workspace.
pub fn monotonic_ns() -> u64 {
    clock_ns(nix::time::ClockId::CLOCK_MONOTONIC)
}

/// CPU time the calling thread has used, ns.
pub fn thread_cpu_ns() -> u64 {
    clock_ns(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
}

fn clock_ns(id: nix::time::ClockId) -> u64 {
    // Both clocks exist on every Linux this crate supports; clock_gettime cannot fail
    // for them with a valid pointer, which nix provides.
    let ts = nix::time::clock_gettime(id).expect("clock_gettime on a supported clock");
    ts.tv_sec() as u64 * 1_000_000_000 + ts.tv_nsec() as u64
}

/// The running process is root (or at least has euid 0, which BPF struct_ops needs).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// A memory-mapped BPF array (created with BPF_F_MMAPABLE): the agent writes decisions
/// and heartbeats with plain stores instead of a bpf(2) call each. Accesses are
/// bounds-checked and volatile (the kernel reads the same memory concurrently).
pub struct MmapArray {
    ptr: *mut u8,
    len: usize,
}

// The mapping is plain shared memory; callers synchronise at the level of whole fields.
unsafe impl Send for MmapArray {}

impl MmapArray {
    /// Maps `bytes` (rounded up to whole pages) of the array behind `fd`.
    pub fn map(fd: &impl AsRawFd, bytes: usize) -> io::Result<MmapArray> {
        let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
            .ok()
            .flatten()
            .unwrap_or(4096)
            .max(4096) as usize;
        let len = bytes.div_ceil(page) * page;
        // SAFETY: a fresh shared mapping of a BPF array fd; the kernel checks the size
        // against the map and fails with EINVAL if the map is not mmapable.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(MmapArray {
            ptr: p as *mut u8,
            len,
        })
    }

    fn check(&self, off: usize, size: usize) -> usize {
        assert!(
            off % size == 0 && off + size <= self.len,
            "mmap access {off}+{size} outside {}",
            self.len
        );
        off
    }

    pub fn write_u64(&self, off: usize, v: u64) {
        let off = self.check(off, 8);
        // SAFETY: in bounds and aligned (checked); the memory stays mapped while self lives.
        unsafe { std::ptr::write_volatile(self.ptr.add(off) as *mut u64, v) }
    }

    pub fn write_u32(&self, off: usize, v: u32) {
        let off = self.check(off, 4);
        // SAFETY: as above.
        unsafe { std::ptr::write_volatile(self.ptr.add(off) as *mut u32, v) }
    }

    pub fn read_u64(&self, off: usize) -> u64 {
        let off = self.check(off, 8);
        // SAFETY: as above.
        unsafe { std::ptr::read_volatile(self.ptr.add(off) as *const u64) }
    }
}

impl Drop for MmapArray {
    fn drop(&mut self) {
        // SAFETY: ptr/len are exactly what mmap returned.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}
