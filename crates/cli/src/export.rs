//! `scavenger export STORE --format csv|parquet [--out DIR]`: one row per run
//! (scavenger_lab::table): key, label, parameters, seed, version, commit, metrics.

use crate::error::CliError;
use scavenger_lab::table::Table;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Csv,
    Parquet,
}

pub fn run(store: &Path, format: Format, out: Option<PathBuf>) -> Result<(), CliError> {
    let table = Table::from_store(store)?;
    let bytes = match format {
        Format::Csv => table.to_csv().into_bytes(),
        Format::Parquet => scavenger_export::to_parquet(&table)?,
    };
    match out {
        None if format == Format::Csv => {
            use std::io::Write;
            std::io::stdout()
                .write_all(&bytes)
                .map_err(CliError::Stdout)?;
        }
        None => {
            let path = store.join("results.parquet");
            write(&path, &bytes)?;
        }
        Some(dir) => {
            // `--out` is a directory in every command: the file inside is named here.
            std::fs::create_dir_all(&dir).map_err(CliError::io("create", &dir))?;
            let name = match format {
                Format::Csv => "results.csv",
                Format::Parquet => "results.parquet",
            };
            write(&dir.join(name), &bytes)?;
        }
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    scavenger_lab::store::write_atomic(path, bytes).map_err(CliError::io("write", path))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
