//! A result-store table (scavenger_lab::table) as an Arrow record batch and as a Parquet
//! file. The Python package hands the batch to pyarrow through the Arrow C data interface
//! (no copy); `scavenger export --format parquet` writes the file.

use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use scavenger_lab::table::{Kind, Table};
use serde_json::Value;
use std::sync::Arc;

/// Why a table could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("cannot build the result table: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    #[error("cannot write Parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// Reading the store the table comes from.
    #[error(transparent)]
    Store(#[from] scavenger_lab::error::LabError),
}

/// The table as one record batch: Int64, Float64, Boolean or Utf8 columns, nullable.
pub fn to_record_batch(table: &Table) -> Result<RecordBatch, ExportError> {
    let mut fields = Vec::with_capacity(table.columns.len());
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(table.columns.len());
    for c in &table.columns {
        let (dt, a): (DataType, ArrayRef) = match c.kind {
            Kind::Int => (
                DataType::Int64,
                Arc::new(c.values.iter().map(Value::as_i64).collect::<Int64Array>()),
            ),
            Kind::Float => (
                DataType::Float64,
                Arc::new(c.values.iter().map(Value::as_f64).collect::<Float64Array>()),
            ),
            Kind::Bool => (
                DataType::Boolean,
                Arc::new(
                    c.values
                        .iter()
                        .map(Value::as_bool)
                        .collect::<BooleanArray>(),
                ),
            ),
            Kind::Text => (
                DataType::Utf8,
                Arc::new(
                    c.values
                        .iter()
                        .map(|v| match v {
                            Value::Null => None,
                            Value::String(s) => Some(s.clone()),
                            other => Some(other.to_string()),
                        })
                        .collect::<StringArray>(),
                ),
            ),
        };
        fields.push(Field::new(&c.name, dt, true));
        arrays.push(a);
    }
    let schema = Arc::new(Schema::new(fields));
    let opts = arrow_array::RecordBatchOptions::new().with_row_count(Some(table.rows));
    Ok(RecordBatch::try_new_with_options(schema, arrays, &opts)?)
}

/// The table as a Parquet file (snappy-compressed), in memory.
pub fn to_parquet(table: &Table) -> Result<Vec<u8>, ExportError> {
    let batch = to_record_batch(table)?;
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let mut buf = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut buf, batch.schema(), Some(props))?;
    w.write(&batch).and_then(|_| w.close().map(|_| ()))?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes_reader::read_back;

    mod bytes_reader {
        use arrow_array::RecordBatch;
        pub fn read_back(bytes: Vec<u8>) -> Vec<RecordBatch> {
            let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                bytes::Bytes::from(bytes),
            )
            .unwrap()
            .build()
            .unwrap();
            r.map(|b| b.unwrap()).collect()
        }
    }

    #[test]
    fn columns_keep_their_types_and_nulls_through_parquet() {
        let t = Table::from_rows(vec![
            vec![
                ("seed".into(), Value::from(1)),
                ("goodput".into(), Value::from(2.5)),
                ("label".into(), Value::from("a=1")),
            ],
            vec![
                ("seed".into(), Value::from(2)),
                ("done".into(), Value::from(true)),
            ],
        ]);
        let b = to_record_batch(&t).unwrap();
        assert_eq!(b.num_rows(), 2);
        assert_eq!(b.schema().field(0).data_type(), &DataType::Int64);
        assert_eq!(b.schema().field(1).data_type(), &DataType::Float64);
        assert_eq!(b.schema().field(2).data_type(), &DataType::Utf8);
        assert_eq!(b.schema().field(3).data_type(), &DataType::Boolean);
        let back = read_back(to_parquet(&t).unwrap());
        assert_eq!(back.len(), 1);
        assert_eq!(back[0], b);
    }
}
