//! A thin binding to the system libbpf (Debian 12: libbpf 1.1.2, `libbpf.so.1`), opened
//! with dlopen at run time so that building the workspace needs neither libbpf-dev nor a
//! libbpf crate. Only what loading a struct_ops object needs: open from memory, load
//! (relocations, BTF, kfunc resolution, verifier), find maps, register a struct_ops map.
//!
//! libbpf 1.1 registers a struct_ops map with BPF_MAP_UPDATE_ELEM (no kernel bpf_link:
//! SEC(".struct_ops.link") came with 1.2), so the registration outlives this process
//! until the map element is deleted (`sys::map_delete`), which is how `unload` works.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::os::fd::RawFd;
use std::sync::Mutex;

type OpenMem = unsafe extern "C" fn(*const c_void, usize, *const c_void) -> *mut c_void;
type ObjFn = unsafe extern "C" fn(*mut c_void) -> c_int;
type ObjClose = unsafe extern "C" fn(*mut c_void);
type FindMap = unsafe extern "C" fn(*const c_void, *const c_char) -> *mut c_void;
type MapFd = unsafe extern "C" fn(*const c_void) -> c_int;
type Attach = unsafe extern "C" fn(*const c_void) -> *mut c_void;
type LinkFn = unsafe extern "C" fn(*mut c_void);
type LinkDestroy = unsafe extern "C" fn(*mut c_void) -> c_int;
type PrintFn = unsafe extern "C" fn(c_int, *const c_char, *mut c_void) -> c_int;
type SetPrint = unsafe extern "C" fn(Option<PrintFn>) -> Option<PrintFn>;
/// `ring_buffer_sample_fn`: (ctx, data, size) -> 0 to continue.
pub type SampleFn = unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> c_int;
type RbNew = unsafe extern "C" fn(c_int, SampleFn, *mut c_void, *const c_void) -> *mut c_void;
type RbPoll = unsafe extern "C" fn(*mut c_void, c_int) -> c_int;
type RbFree = unsafe extern "C" fn(*mut c_void);

struct Api {
    open_mem: OpenMem,
    load: ObjFn,
    close: ObjClose,
    find_map: FindMap,
    map_fd: MapFd,
    attach: Attach,
    disconnect: LinkFn,
    destroy: LinkDestroy,
    set_print: SetPrint,
    rb_new: RbNew,
    rb_poll: RbPoll,
    rb_free: RbFree,
}

/// Why libbpf.so.1 cannot be used at all (kept for the process: it does not change).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    #[error("cannot open libbpf.so.1: install libbpf1 (apt-get install libbpf1 or libbpf-dev; see docs/kernel.md)")]
    NoLibrary,
    /// The library is older than the 1.x ABI declared above.
    #[error("libbpf.so.1 lacks {0}")]
    MissingSymbol(&'static str),
}

/// A libbpf call that failed; each names the object, map or call.
#[derive(Debug, thiserror::Error)]
pub enum LibbpfError {
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    #[error("libbpf could not open the object: {0}")]
    Open(#[source] std::io::Error),
    /// `log` is the tail of libbpf's log (the verifier's output).
    #[error(
        "libbpf could not load the object (error {code}); libbpf/verifier log (last lines):\n{log}"
    )]
    Load { code: i32, log: String },
    #[error("the object has no map named {0}")]
    NoMap(String),
    #[error("map {0} has no descriptor")]
    NoFd(String),
    /// `hint` explains a common errno (EEXIST: the name is taken), or is empty.
    #[error("registering {name} failed: {source}{hint}")]
    Register {
        name: String,
        source: std::io::Error,
        hint: &'static str,
    },
    #[error("ring_buffer__new failed: {0}")]
    RingBufferNew(#[source] std::io::Error),
    /// `code` is libbpf's negative return value (-errno).
    #[error("ring_buffer__poll failed: {0}")]
    Poll(i32),
}

/// libbpf's log of the last load (verifier output), for error messages.
static LOG: Mutex<String> = Mutex::new(String::new());

extern "C" {
    fn vsnprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ap: *mut c_void) -> c_int;
}

/// libbpf's print callback: formats with vsnprintf into LOG. On x86_64 a `va_list`
/// parameter is passed as a pointer, so it can be forwarded as one.
#[cfg(target_arch = "x86_64")]
unsafe extern "C" fn capture(_level: c_int, fmt: *const c_char, ap: *mut c_void) -> c_int {
    let mut buf = [0 as c_char; 1024];
    // SAFETY: buf is writable for its length; fmt/ap come from libbpf as a matching pair.
    let n = unsafe { vsnprintf(buf.as_mut_ptr(), buf.len(), fmt, ap) };
    if n > 0 {
        // SAFETY: vsnprintf NUL-terminates within the buffer.
        let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
        if let Ok(mut log) = LOG.lock() {
            if log.len() < 1 << 20 {
                log.push_str(&s);
            }
        }
    }
    n
}

fn sym<T: Copy>(lib: *mut c_void, name: &'static str) -> Result<T, Unavailable> {
    let c = CString::new(name).unwrap();
    // SAFETY: lib is a live handle from dlopen; the symbol's type is the libbpf 1.x ABI
    // declared above (checked against /usr/include/bpf/libbpf.h of libbpf 1.1.2).
    let p = unsafe { libc::dlsym(lib, c.as_ptr()) };
    if p.is_null() {
        return Err(Unavailable::MissingSymbol(name));
    }
    // SAFETY: T is a function-pointer type of pointer size.
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, T>(&p) })
}

fn api() -> Result<&'static Api, Unavailable> {
    static API: std::sync::OnceLock<Result<Api, Unavailable>> = std::sync::OnceLock::new();
    API.get_or_init(|| {
        let name = CString::new("libbpf.so.1").unwrap();
        // SAFETY: dlopen with a NUL-terminated name; the handle is kept for the process.
        let lib = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if lib.is_null() {
            return Err(Unavailable::NoLibrary);
        }
        Ok(Api {
            open_mem: sym(lib, "bpf_object__open_mem")?,
            load: sym(lib, "bpf_object__load")?,
            close: sym(lib, "bpf_object__close")?,
            find_map: sym(lib, "bpf_object__find_map_by_name")?,
            map_fd: sym(lib, "bpf_map__fd")?,
            attach: sym(lib, "bpf_map__attach_struct_ops")?,
            disconnect: sym(lib, "bpf_link__disconnect")?,
            destroy: sym(lib, "bpf_link__destroy")?,
            set_print: sym(lib, "libbpf_set_print")?,
            rb_new: sym(lib, "ring_buffer__new")?,
            rb_poll: sym(lib, "ring_buffer__poll")?,
            rb_free: sym(lib, "ring_buffer__free")?,
        })
    })
    .as_ref()
    .map_err(Unavailable::clone)
}

/// A loaded (verified) BPF object. Dropping it closes libbpf's descriptors; maps and
/// programs stay in the kernel as long as a registration or a pin holds them.
pub struct Object {
    api: &'static Api,
    obj: *mut c_void,
    _buf: Vec<u8>,
}

impl Object {
    /// Opens and loads an ELF object held in memory. Errors carry libbpf's log.
    pub fn load(elf: &[u8]) -> Result<Object, LibbpfError> {
        let api = api()?;
        // libbpf may keep pointers into the buffer until close, so own a copy.
        let buf = elf.to_vec();
        if let Ok(mut l) = LOG.lock() {
            l.clear();
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: capture matches libbpf_print_fn_t on x86_64.
        unsafe {
            (api.set_print)(Some(capture));
        }
        // SAFETY: buf outlives the object (stored in it); opts NULL = defaults.
        let obj =
            unsafe { (api.open_mem)(buf.as_ptr() as *const c_void, buf.len(), std::ptr::null()) };
        if obj.is_null() {
            return Err(LibbpfError::Open(std::io::Error::last_os_error()));
        }
        let o = Object {
            api,
            obj,
            _buf: buf,
        };
        // SAFETY: obj is a live object from open_mem.
        let r = unsafe { (api.load)(o.obj) };
        if r != 0 {
            let log = LOG.lock().map(|l| l.clone()).unwrap_or_default();
            let tail: String = log
                .lines()
                .rev()
                .take(25)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n");
            return Err(LibbpfError::Load { code: r, log: tail });
        }
        Ok(o)
    }

    fn map(&self, name: &str) -> Result<*mut c_void, LibbpfError> {
        let c = CString::new(name).unwrap();
        // SAFETY: obj is live; the returned map is owned by it.
        let m = unsafe { (self.api.find_map)(self.obj, c.as_ptr()) };
        if m.is_null() {
            Err(LibbpfError::NoMap(name.into()))
        } else {
            Ok(m)
        }
    }

    /// The descriptor of a map (owned by the object: valid until drop).
    pub fn map_fd(&self, name: &str) -> Result<RawFd, LibbpfError> {
        let m = self.map(name)?;
        // SAFETY: m belongs to the live object.
        let fd = unsafe { (self.api.map_fd)(m) };
        if fd < 0 {
            return Err(LibbpfError::NoFd(name.into()));
        }
        Ok(fd)
    }

    /// Registers the struct_ops map `name` with the kernel. The registration stays after
    /// this process exits; undo it with a delete of key 0 on the map.
    pub fn register_struct_ops(&self, name: &str) -> Result<(), LibbpfError> {
        let m = self.map(name)?;
        // SAFETY: m is a struct_ops map of the loaded object.
        let link = unsafe { (self.api.attach)(m) };
        if link.is_null() {
            let source = std::io::Error::last_os_error();
            let hint = if source.raw_os_error() == Some(libc::EEXIST) {
                " (a congestion control with this name is already registered)"
            } else {
                ""
            };
            return Err(LibbpfError::Register {
                name: name.into(),
                source,
                hint,
            });
        }
        // SAFETY: link is live; disconnect makes destroy free it without unregistering.
        unsafe {
            (self.api.disconnect)(link);
            (self.api.destroy)(link);
        }
        Ok(())
    }
}

impl Drop for Object {
    fn drop(&mut self) {
        // SAFETY: obj is live and closed exactly once.
        unsafe { (self.api.close)(self.obj) }
    }
}

/// A consumer of a BPF ring buffer map (libbpf `struct ring_buffer`).
pub struct RingBuffer {
    api: &'static Api,
    rb: *mut c_void,
}

impl RingBuffer {
    /// `ctx` is handed to `cb` on every record.
    ///
    /// # Safety
    /// `ctx` must be what `cb` expects and stay valid (and not be used elsewhere while
    /// `poll` runs) for the whole life of the returned object.
    pub unsafe fn new(
        map_fd: RawFd,
        cb: SampleFn,
        ctx: *mut c_void,
    ) -> Result<RingBuffer, LibbpfError> {
        let api = api()?;
        // SAFETY: map_fd is a ring buffer map; cb/ctx follow libbpf's contract (the caller
        // keeps ctx alive for the life of this object).
        let rb = unsafe { (api.rb_new)(map_fd, cb, ctx, std::ptr::null()) };
        if rb.is_null() {
            return Err(LibbpfError::RingBufferNew(std::io::Error::last_os_error()));
        }
        Ok(RingBuffer { api, rb })
    }

    /// Consumes available records, waiting up to `timeout_ms`. Returns the number consumed.
    pub fn poll(&self, timeout_ms: i32) -> Result<usize, LibbpfError> {
        // SAFETY: rb is live.
        let n = unsafe { (self.api.rb_poll)(self.rb, timeout_ms) };
        if n < 0 && n != -libc::EINTR {
            return Err(LibbpfError::Poll(n));
        }
        Ok(n.max(0) as usize)
    }
}

impl Drop for RingBuffer {
    fn drop(&mut self) {
        // SAFETY: rb is live and freed once.
        unsafe { (self.api.rb_free)(self.rb) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_name_says_so() {
        let e = LibbpfError::Register {
            name: "scv_yield".into(),
            source: std::io::Error::from_raw_os_error(libc::EEXIST),
            hint: " (a congestion control with this name is already registered)",
        };
        let m = e.to_string();
        assert!(
            m.starts_with("registering scv_yield failed: File exists")
                && m.ends_with("(a congestion control with this name is already registered)"),
            "{m}"
        );
        assert_eq!(
            LibbpfError::from(Unavailable::MissingSymbol("ring_buffer__new")).to_string(),
            "libbpf.so.1 lacks ring_buffer__new"
        );
    }
}
