//! `store.json`: what a result directory holds (a study, quick or not, or a sweep and its
//! plan), so `report` can re-render it and a second study is not mixed into it. Shared by
//! the CLI and the Python driver.

use crate::error::LabError;
use std::path::PathBuf;

/// What a result directory holds, so `report` can re-render it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StoreMeta {
    pub kind: String,
    pub name: String,
    pub quick: bool,
    pub plan: Option<PathBuf>,
    /// The datapath that made its runs (`reproduce --datapath`). Absent means the
    /// simulator, so stores written before the field existed read as they were and a
    /// simulator store's store.json is unchanged.
    #[serde(default = "sim", skip_serializing_if = "is_sim")]
    pub datapath: String,
}

fn sim() -> String {
    "sim".into()
}

fn is_sim(d: &String) -> bool {
    d == "sim"
}

impl StoreMeta {
    pub fn describe(&self) -> String {
        let what = match self.kind.as_str() {
            "study" if self.quick => format!("study {} (quick)", self.name),
            "study" => format!("study {}", self.name),
            k => format!("{k} {}", self.name),
        };
        if is_sim(&self.datapath) {
            what
        } else {
            format!("{what} on the {}", self.datapath)
        }
    }
}

/// Records what the store in `dir` holds. A store of another study or sweep is refused
/// unless `force` (its results would be mixed with ours and its report lost).
pub fn write_meta(dir: &std::path::Path, meta: &StoreMeta, force: bool) -> Result<(), LabError> {
    let path = dir.join("store.json");
    if let Ok(text) = std::fs::read_to_string(&path) {
        match serde_json::from_str::<StoreMeta>(&text) {
            Ok(old)
                if (
                    old.kind.as_str(),
                    old.name.as_str(),
                    old.quick,
                    &old.datapath,
                ) != (
                    meta.kind.as_str(),
                    meta.name.as_str(),
                    meta.quick,
                    &meta.datapath,
                ) =>
            {
                if !force {
                    return Err(LabError::OtherStore {
                        dir: dir.to_path_buf(),
                        held: old.describe(),
                        wanted: meta.describe(),
                    });
                }
                eprintln!(
                    "warning: {} held {}; --force: it now records {}",
                    dir.display(),
                    old.describe(),
                    meta.describe()
                );
            }
            Ok(_) => {}
            Err(e) if !force => {
                return Err(LabError::NotAStoreDescription {
                    path,
                    reason: e.to_string(),
                    replaceable: true,
                })
            }
            Err(_) => {}
        }
    }
    crate::store::write_atomic(
        &path,
        serde_json::to_string_pretty(meta)
            .expect("serialises")
            .as_bytes(),
    )
    .map_err(LabError::io("write", &path))
}
