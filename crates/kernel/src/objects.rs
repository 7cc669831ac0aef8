//! The BPF objects build.rs compiled, embedded in the binary. When clang or bpftool were
//! missing at build time there are none, and every operation that needs them says so.

/// Why the objects are missing, as build.rs recorded it.
const STATUS: &str = include_str!(concat!(env!("OUT_DIR"), "/bpf_status.txt"));

#[cfg(scv_bpf_built)]
static OBJECTS: &[(&str, &[u8])] = &[
    (
        "scv_ledbat",
        include_bytes!(concat!(env!("OUT_DIR"), "/scv_ledbat.bpf.o")),
    ),
    (
        "scv_yield",
        include_bytes!(concat!(env!("OUT_DIR"), "/scv_yield.bpf.o")),
    ),
    (
        "scv_ledbatpp",
        include_bytes!(concat!(env!("OUT_DIR"), "/scv_ledbatpp.bpf.o")),
    ),
    (
        "scv_ebb",
        include_bytes!(concat!(env!("OUT_DIR"), "/scv_ebb.bpf.o")),
    ),
    (
        "scv_shim",
        include_bytes!(concat!(env!("OUT_DIR"), "/scv_shim.bpf.o")),
    ),
];
#[cfg(not(scv_bpf_built))]
static OBJECTS: &[(&str, &[u8])] = &[];

/// What is wrong with an embedded BPF object or a name given to it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObjectError {
    /// build.rs could not compile the objects; `status` is what it recorded.
    #[error("BPF objects were not built: install clang llvm libbpf-dev bpftool (see docs/kernel.md) and rebuild (build said: {status})")]
    NotBuilt { status: &'static str },
    #[error("no BPF object named {name}")]
    Unknown { name: String },
    /// A congestion control name the kernel would refuse (TCP_CA_NAME_MAX).
    #[error("congestion control name {name:?}: must be 1..=15 bytes of [A-Za-z0-9_] (TCP_CA_NAME_MAX is 16)")]
    BadName { name: String },
    #[error("the BPF object has no .struct_ops section")]
    NoStructOps,
    /// The name to replace is not in the `.struct_ops` section exactly once.
    #[error(
        "the BPF object's .struct_ops section holds the name {name:?} {count} times, not once"
    )]
    NameCount { name: String, count: usize },
}

/// Ok when the objects were built, else the message users see.
pub fn built() -> Result<(), ObjectError> {
    if OBJECTS.is_empty() {
        Err(ObjectError::NotBuilt {
            status: STATUS.trim(),
        })
    } else {
        Ok(())
    }
}

pub fn object(name: &str) -> Result<&'static [u8], ObjectError> {
    built()?;
    OBJECTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
        .ok_or_else(|| ObjectError::Unknown { name: name.into() })
}

/// `elf` with its congestion control's name (`tcp_congestion_ops.name`, a NUL-padded
/// `char[16]` in the `.struct_ops` section) changed from `old` to `new`, so that one
/// object can be registered under several names (a private name per process and run:
/// `manage::Target::private`). The kernel takes the name from this data when the
/// struct_ops map is registered.
pub fn renamed(elf: &[u8], old: &str, new: &str) -> Result<Vec<u8>, ObjectError> {
    if new.is_empty()
        || new.len() > 15
        || !new.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Err(ObjectError::BadName { name: new.into() });
    }
    let (off, size) = elf_section(elf, ".struct_ops").ok_or(ObjectError::NoStructOps)?;
    let pad = |n: &str| {
        let mut p = [0u8; 16];
        p[..n.len()].copy_from_slice(n.as_bytes());
        p
    };
    let want = pad(old);
    let data = &elf[off..off + size];
    let hits: Vec<usize> = (0..size.saturating_sub(15))
        .filter(|&i| data[i..i + 16] == want)
        .collect();
    let [at] = hits[..] else {
        return Err(ObjectError::NameCount {
            name: old.into(),
            count: hits.len(),
        });
    };
    let mut out = elf.to_vec();
    out[off + at..off + at + 16].copy_from_slice(&pad(new));
    Ok(out)
}

/// File offset and size of the section `name` of a little-endian ELF64 file.
fn elf_section(elf: &[u8], name: &str) -> Option<(usize, usize)> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(elf.get(o..o + 2)?.try_into().ok()?) as usize);
    let u32_at = |o: usize| Some(u32::from_le_bytes(elf.get(o..o + 4)?.try_into().ok()?) as usize);
    let u64_at = |o: usize| Some(u64::from_le_bytes(elf.get(o..o + 8)?.try_into().ok()?) as usize);
    // e_ident: magic, EI_CLASS 2 (64-bit), EI_DATA 1 (little-endian).
    if elf.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28)?, u16_at(0x3a)?, u16_at(0x3c)?, u16_at(0x3e)?);
    // Section header: sh_name u32 @0, sh_offset u64 @24, sh_size u64 @32.
    let hdr = |i: usize| shoff.checked_add(i.checked_mul(shentsize)?);
    let strtab = u64_at(hdr(shstrndx)? + 24)?;
    (0..shnum).find_map(|i| {
        let h = hdr(i)?;
        let n = strtab.checked_add(u32_at(h)?)?;
        let s = elf.get(n..)?;
        let end = s.iter().position(|&b| b == 0)?;
        if &s[..end] != name.as_bytes() {
            return None;
        }
        let (off, size) = (u64_at(h + 24)?, u64_at(h + 32)?);
        (off.checked_add(size)? <= elf.len()).then_some((off, size))
    })
}

#[cfg(test)]
mod message_tests {
    use super::*;

    #[test]
    fn object_errors_name_the_value_and_the_rule() {
        let e = ObjectError::BadName { name: "a-b".into() };
        assert_eq!(
            e.to_string(),
            "congestion control name \"a-b\": must be 1..=15 bytes of [A-Za-z0-9_] (TCP_CA_NAME_MAX is 16)"
        );
        let e = ObjectError::NameCount {
            name: "scv_yield".into(),
            count: 2,
        };
        assert_eq!(
            e.to_string(),
            "the BPF object's .struct_ops section holds the name \"scv_yield\" 2 times, not once"
        );
        assert!(renamed(b"not an elf", "x", "y").unwrap_err() == ObjectError::NoStructOps);
    }
}

#[cfg(all(test, scv_bpf_built))]
mod tests {
    use super::*;

    #[test]
    fn renaming_changes_exactly_the_ops_name() {
        let elf = object("scv_yield").unwrap();
        let r = renamed(elf, "scv_yield", "scv_yd_abc_1").unwrap();
        assert_eq!(r.len(), elf.len());
        let diff: Vec<usize> = (0..elf.len()).filter(|&i| elf[i] != r[i]).collect();
        assert!(
            !diff.is_empty() && diff.len() <= 16,
            "{} bytes changed",
            diff.len()
        );
        let (off, size) = elf_section(&r, ".struct_ops").unwrap();
        assert!(diff.iter().all(|&i| i >= off && i < off + size));
        assert!(renamed(elf, "scv_yield", "a-name-too-long-for-tcp").is_err());
        assert!(
            renamed(elf, "scv_ledbat", "x").is_err(),
            "not this object's name"
        );
    }
}
