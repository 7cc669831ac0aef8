//! Shards: `--shard I/N` runs the work items whose key, read as a number, is I modulo N,
//! so N machines (a Slurm job array, HTCondor `queue N`, CI jobs) split a study or sweep
//! with no engine and no coordination. Keys are hashes, so shards are balanced and a
//! key's shard never changes. `scavenger merge` joins the shard stores afterwards.

pub use crate::error::ShardError;
use crate::work::WorkItem;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// Parses `I/N` with 0 ≤ I < N.
    pub fn parse(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError::Malformed {
            text: s.to_string(),
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 {
            return Err(ShardError::NoShards {
                text: s.to_string(),
            });
        }
        if index >= count {
            return Err(ShardError::OutOfRange {
                text: s.to_string(),
                index,
                count,
            });
        }
        Ok(Shard { index, count })
    }

    /// Whether the item keyed `key` (hex) belongs to this shard: the key modulo N, the
    /// key read as a big-endian number (Horner's rule over the hex digits, so keys of
    /// any length work).
    pub fn holds(&self, key: &str) -> bool {
        let mut rem: u128 = 0;
        for c in key.chars() {
            let d = c.to_digit(16).unwrap_or(0) as u128;
            rem = (rem * 16 + d) % self.count as u128;
        }
        rem == self.index as u128
    }

    /// The items of this shard, in their order.
    pub fn select(&self, items: Vec<WorkItem>) -> Vec<WorkItem> {
        items.into_iter().filter(|w| self.holds(&w.key)).collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects_with_the_rule() {
        assert_eq!(Shard::parse("1/4").unwrap(), Shard { index: 1, count: 4 });
        assert!(Shard::parse("4/4")
            .unwrap_err()
            .to_string()
            .contains("numbered 0 to 3"));
        assert!(Shard::parse("0/0")
            .unwrap_err()
            .to_string()
            .contains("at least 1"));
        assert!(Shard::parse("a/2").unwrap_err().to_string().contains("I/N"));
        assert!(Shard::parse("1").unwrap_err().to_string().contains("I/N"));
    }

    #[test]
    fn key_modulo_n() {
        // 0x...ff = 255: 255 mod 2 = 1, 255 mod 4 = 3, 255 mod 16 = 15.
        let k = "000000000000000000000000000000ff";
        assert!(Shard::parse("1/2").unwrap().holds(k));
        assert!(!Shard::parse("0/2").unwrap().holds(k));
        assert!(Shard::parse("3/4").unwrap().holds(k));
        assert!(Shard::parse("15/16").unwrap().holds(k));
        // 0x100 = 256 = 3*85 + 1.
        assert!(Shard::parse("1/3").unwrap().holds("100"));
        // A full 128-bit key: the remainder is the number's, not its low bits'.
        let big = "ffffffffffffffffffffffffffffffff"; // 2^128 - 1 = 0 mod 3, 5, 17
        for n in [3, 5, 17] {
            assert!(Shard { index: 0, count: n }.holds(big));
        }
    }

    #[test]
    fn every_key_is_in_exactly_one_shard() {
        for i in 0..200u32 {
            let key = format!(
                "{:032x}",
                (i as u128).wrapping_mul(0x9e3779b97f4a7c15f39cc0605cedc835)
            );
            let n = 7;
            let owners = (0..n)
                .filter(|&j| Shard { index: j, count: n }.holds(&key))
                .count();
            assert_eq!(owners, 1, "{key}");
        }
    }
}
