//! The wire format of `scavenger send` / `receive` (docs/transfer.md, "Protocol").
//! Every length read from the peer is checked against a fixed bound before anything is
//! allocated for it, so a peer cannot make the other side allocate without bound.
//!
//! All integers are big-endian. One QUIC connection carries:
//! - the first bidirectional stream: `Hello` (sender → receiver), `Reply`;
//! - one further bidirectional stream per file: `FileHeader`, `Reply` (resume point),
//!   then the chunks from the resume point, each `data ‖ SHA-256(data)`, then the
//!   whole-file SHA-256, end of stream; the receiver answers a final `Reply`.

use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::TransferError;

pub const HELLO_MAGIC: [u8; 4] = *b"SCVX";
pub const FILE_MAGIC: [u8; 4] = *b"SCVF";
pub const VERSION: u8 = 1;

/// Longest token either side accepts (bytes).
pub const MAX_TOKEN: usize = 1024;
/// Longest file name (bytes), as Linux's NAME_MAX.
pub const MAX_NAME: usize = 255;
/// Longest error message in a `Reply` (bytes).
pub const MAX_MESSAGE: usize = 1024;
/// Chunk sizes a receiver accepts: the receiver holds one chunk in memory per file.
pub const MIN_CHUNK: u32 = 4 * 1024;
pub const MAX_CHUNK: u32 = 16 * 1024 * 1024;
/// What the sender uses unless told otherwise.
pub const DEFAULT_CHUNK: u32 = 1024 * 1024;

pub const HASH_LEN: usize = 32;
pub type Hash = [u8; HASH_LEN];

pub fn sha256(data: &[u8]) -> Hash {
    Sha256::digest(data).into()
}

pub fn hex(h: &[u8]) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

/// The sender's first message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub token: Vec<u8>,
}

/// Opens each file's stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileHeader {
    /// One path component (see `store::check_name`).
    pub name: String,
    pub size: u64,
    pub chunk_size: u32,
    /// Continue from the receiver's verified chunks; otherwise they are discarded.
    pub resume: bool,
}

impl FileHeader {
    pub fn chunks(&self) -> u64 {
        self.size.div_ceil(self.chunk_size as u64)
    }

    /// Length of chunk `i` (the last one may be short).
    pub fn chunk_len(&self, i: u64) -> usize {
        let start = i * self.chunk_size as u64;
        (self.size - start).min(self.chunk_size as u64) as usize
    }
}

/// Why the receiver refused; the code travels on the wire, the message with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Refusal {
    Auth = 1,
    BadRequest = 2,
    TooBig = 3,
    Exists = 4,
    Integrity = 5,
    Io = 6,
    Busy = 7,
}

impl Refusal {
    fn from_u8(c: u8) -> Option<Refusal> {
        use Refusal::*;
        [Auth, BadRequest, TooBig, Exists, Integrity, Io, Busy]
            .into_iter()
            .find(|r| *r as u8 == c)
    }
}

/// The receiver's answer: success with a number (resume chunk, or 0) and a hash (final
/// reply), or a refusal with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Ok { value: u64, hash: Hash },
    Refused { code: Refusal, message: String },
}

fn bad(field: &'static str, value: impl ToString, allowed: &'static str) -> TransferError {
    TransferError::Protocol {
        field,
        value: value.to_string(),
        allowed,
    }
}

pub async fn write_hello<W: AsyncWrite + Unpin>(w: &mut W, h: &Hello) -> Result<(), TransferError> {
    let mut b = Vec::with_capacity(7 + h.token.len());
    b.extend_from_slice(&HELLO_MAGIC);
    b.push(VERSION);
    b.extend_from_slice(&(h.token.len() as u16).to_be_bytes());
    b.extend_from_slice(&h.token);
    w.write_all(&b).await?;
    // Over TLS on TCP a message sits in the record buffer until flushed, and each of
    // these messages waits for an answer (a no-op on a QUIC stream).
    w.flush().await?;
    Ok(())
}

pub async fn read_hello<R: AsyncRead + Unpin>(r: &mut R) -> Result<Hello, TransferError> {
    let mut head = [0u8; 7];
    r.read_exact(&mut head).await?;
    if head[..4] != HELLO_MAGIC {
        return Err(bad("hello magic", hex(&head[..4]), "\"SCVX\""));
    }
    if head[4] != VERSION {
        return Err(bad("protocol version", head[4], "1"));
    }
    let len = u16::from_be_bytes([head[5], head[6]]) as usize;
    if len == 0 || len > MAX_TOKEN {
        return Err(bad("token length", len, "1..=1024 bytes"));
    }
    let mut token = vec![0u8; len];
    r.read_exact(&mut token).await?;
    Ok(Hello { token })
}

pub async fn write_header<W: AsyncWrite + Unpin>(
    w: &mut W,
    h: &FileHeader,
) -> Result<(), TransferError> {
    let mut b = Vec::with_capacity(19 + h.name.len());
    b.extend_from_slice(&FILE_MAGIC);
    b.extend_from_slice(&(h.name.len() as u16).to_be_bytes());
    b.extend_from_slice(h.name.as_bytes());
    b.extend_from_slice(&h.size.to_be_bytes());
    b.extend_from_slice(&h.chunk_size.to_be_bytes());
    b.push(h.resume as u8);
    w.write_all(&b).await?;
    // Over TLS on TCP a message sits in the record buffer until flushed, and each of
    // these messages waits for an answer (a no-op on a QUIC stream).
    w.flush().await?;
    Ok(())
}

/// Over TCP, where files follow each other on one stream: the next header, or `None`
/// when the stream ends cleanly before one begins.
pub async fn read_header_or_end<R: AsyncRead + Unpin>(
    r: &mut R,
) -> Result<Option<FileHeader>, TransferError> {
    let mut first = [0u8; 1];
    if r.read(&mut first).await? == 0 {
        return Ok(None);
    }
    let mut rest = (&first[..]).chain(r);
    read_header(&mut rest).await.map(Some)
}

/// Reads a header, checking the bounds that do not depend on the receiver's settings.
pub async fn read_header<R: AsyncRead + Unpin>(r: &mut R) -> Result<FileHeader, TransferError> {
    let mut head = [0u8; 6];
    r.read_exact(&mut head).await?;
    if head[..4] != FILE_MAGIC {
        return Err(bad("file header magic", hex(&head[..4]), "\"SCVF\""));
    }
    let len = u16::from_be_bytes([head[4], head[5]]) as usize;
    if len == 0 || len > MAX_NAME {
        return Err(bad("name length", len, "1..=255 bytes"));
    }
    let mut name = vec![0u8; len];
    r.read_exact(&mut name).await?;
    let name = String::from_utf8(name).map_err(|e| bad("name", hex(e.as_bytes()), "UTF-8 text"))?;
    let mut rest = [0u8; 13];
    r.read_exact(&mut rest).await?;
    let size = u64::from_be_bytes(rest[..8].try_into().unwrap());
    let chunk_size = u32::from_be_bytes(rest[8..12].try_into().unwrap());
    if !(MIN_CHUNK..=MAX_CHUNK).contains(&chunk_size) {
        return Err(bad("chunk size", chunk_size, "4096..=16777216 bytes"));
    }
    let resume = match rest[12] {
        0 => false,
        1 => true,
        v => return Err(bad("resume flag", v, "0 or 1")),
    };
    Ok(FileHeader {
        name,
        size,
        chunk_size,
        resume,
    })
}

pub async fn write_reply<W: AsyncWrite + Unpin>(w: &mut W, r: &Reply) -> Result<(), TransferError> {
    let mut b = Vec::with_capacity(41);
    match r {
        Reply::Ok { value, hash } => {
            b.push(0);
            b.extend_from_slice(&value.to_be_bytes());
            b.extend_from_slice(hash);
        }
        Reply::Refused { code, message } => {
            b.push(*code as u8);
            let m = &message.as_bytes()[..message.len().min(MAX_MESSAGE)];
            b.extend_from_slice(&(m.len() as u16).to_be_bytes());
            b.extend_from_slice(m);
        }
    }
    w.write_all(&b).await?;
    // Over TLS on TCP a message sits in the record buffer until flushed, and each of
    // these messages waits for an answer (a no-op on a QUIC stream).
    w.flush().await?;
    Ok(())
}

pub async fn read_reply<R: AsyncRead + Unpin>(r: &mut R) -> Result<Reply, TransferError> {
    let code = r.read_u8().await?;
    if code == 0 {
        let value = r.read_u64().await?;
        let mut hash = [0u8; HASH_LEN];
        r.read_exact(&mut hash).await?;
        return Ok(Reply::Ok { value, hash });
    }
    let code = Refusal::from_u8(code).ok_or_else(|| bad("reply code", code, "0..=7"))?;
    let len = r.read_u16().await? as usize;
    if len > MAX_MESSAGE {
        return Err(bad("reply message length", len, "0..=1024 bytes"));
    }
    let mut m = vec![0u8; len];
    r.read_exact(&mut m).await?;
    Ok(Reply::Refused {
        code,
        message: String::from_utf8_lossy(&m).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn messages_round_trip_and_oversized_fields_are_refused_before_allocation() {
        let h = FileHeader {
            name: "backup.tar".into(),
            size: 3 * 1024 * 1024 + 1,
            chunk_size: DEFAULT_CHUNK,
            resume: true,
        };
        let mut b = Vec::new();
        write_header(&mut b, &h).await.unwrap();
        assert_eq!(read_header(&mut &b[..]).await.unwrap(), h);
        assert_eq!(h.chunks(), 4);
        assert_eq!(h.chunk_len(3), 1);

        let r = Reply::Refused {
            code: Refusal::TooBig,
            message: "size 9 > 8".into(),
        };
        let mut b = Vec::new();
        write_reply(&mut b, &r).await.unwrap();
        assert_eq!(read_reply(&mut &b[..]).await.unwrap(), r);

        // A name length of 65535 is refused from the two length bytes alone.
        let mut b = FILE_MAGIC.to_vec();
        b.extend_from_slice(&u16::MAX.to_be_bytes());
        let e = read_header(&mut &b[..]).await.unwrap_err().to_string();
        assert!(e.contains("name length") && e.contains("65535"), "{e}");

        // A 1 GiB chunk size is refused.
        let mut b = Vec::new();
        write_header(
            &mut b,
            &FileHeader {
                chunk_size: 1 << 30,
                ..h.clone()
            },
        )
        .await
        .unwrap();
        let e = read_header(&mut &b[..]).await.unwrap_err().to_string();
        assert!(e.contains("chunk size") && e.contains("1073741824"), "{e}");

        // A token longer than 1024 bytes is refused.
        let mut b = HELLO_MAGIC.to_vec();
        b.push(VERSION);
        b.extend_from_slice(&2000u16.to_be_bytes());
        let e = read_hello(&mut &b[..]).await.unwrap_err().to_string();
        assert!(e.contains("token length") && e.contains("2000"), "{e}");

        // Over TCP: headers one after another, then the end.
        let mut b = Vec::new();
        write_header(&mut b, &h).await.unwrap();
        write_header(&mut b, &h).await.unwrap();
        let mut r = &b[..];
        assert_eq!(read_header_or_end(&mut r).await.unwrap(), Some(h.clone()));
        assert_eq!(read_header_or_end(&mut r).await.unwrap(), Some(h));
        assert_eq!(read_header_or_end(&mut r).await.unwrap(), None);
    }
}
