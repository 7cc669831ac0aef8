//! Typed access to a TOML table that reports the exact field on every error and rejects
//! fields it does not know.

use crate::error::InputError;
use scavenger_cc::units::{parse_bytes, parse_duration, parse_rate};
use scavenger_cc::{Dur, Rate};
use toml::{Table, Value};

pub struct Fields<'a> {
    pub file: &'a str,
    pub path: String,
    pub table: &'a Table,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "a list",
        Value::Table(_) => "a table",
    }
}

impl<'a> Fields<'a> {
    pub fn new(file: &'a str, path: impl Into<String>, table: &'a Table) -> Self {
        Fields {
            file,
            path: path.into(),
            table,
        }
    }

    pub fn field(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    pub fn err(&self, key: &str, message: impl Into<String>) -> InputError {
        InputError {
            file: self.file.to_string(),
            field: self.field(key),
            message: message.into(),
        }
    }

    /// Rejects any key not in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<(), InputError> {
        for k in self.table.keys() {
            if !allowed.contains(&k.as_str()) {
                return Err(self.err(
                    k,
                    format!("unknown field; allowed fields here: {}", allowed.join(", ")),
                ));
            }
        }
        Ok(())
    }

    pub fn raw(&self, key: &str) -> Option<&'a Value> {
        self.table.get(key)
    }

    fn wrong(&self, key: &str, v: &Value, want: &str) -> InputError {
        self.err(
            key,
            format!("expected {want}, found {} ({v})", type_name(v)),
        )
    }

    pub fn str(&self, key: &str) -> Result<Option<&'a str>, InputError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(self.wrong(key, v, "a string")),
        }
    }

    pub fn bool(&self, key: &str) -> Result<Option<bool>, InputError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.wrong(key, v, "true or false")),
        }
    }

    /// An integer in [min, max].
    pub fn int(&self, key: &str, min: i64, max: i64) -> Result<Option<i64>, InputError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Integer(i)) if (min..=max).contains(i) => Ok(Some(*i)),
            Some(Value::Integer(i)) => Err(self.err(
                key,
                format!("{i} is out of range; allowed: an integer from {min} to {max}"),
            )),
            Some(v) => Err(self.wrong(key, v, &format!("an integer from {min} to {max}"))),
        }
    }

    /// A number in [min, max].
    pub fn float(&self, key: &str, min: f64, max: f64) -> Result<Option<f64>, InputError> {
        let x = match self.raw(key) {
            None => return Ok(None),
            Some(Value::Integer(i)) => *i as f64,
            Some(Value::Float(x)) => *x,
            Some(v) => return Err(self.wrong(key, v, &format!("a number from {min} to {max}"))),
        };
        if !(x.is_finite() && x >= min && x <= max) {
            return Err(self.err(
                key,
                format!("{x} is out of range; allowed: a number from {min} to {max}"),
            ));
        }
        Ok(Some(x))
    }

    fn parsed<T, E: std::fmt::Display>(
        &self,
        key: &str,
        what: &str,
        parse: fn(&str) -> Result<T, E>,
    ) -> Result<Option<T>, InputError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::String(s)) => parse(s).map(Some).map_err(|m| self.err(key, m.to_string())),
            Some(v) => Err(self.err(
                key,
                format!(
                    "expected {what} written as a string with a unit, found {} ({v})",
                    type_name(v)
                ),
            )),
        }
    }

    pub fn dur(&self, key: &str) -> Result<Option<Dur>, InputError> {
        self.parsed(key, "a duration", parse_duration)
    }

    /// A strictly positive rate.
    pub fn rate(&self, key: &str) -> Result<Option<Rate>, InputError> {
        let r = self.parsed(key, "a rate", parse_rate)?;
        if r == Some(Rate(0)) {
            return Err(self.err(
                key,
                format!(
                    "{} must be greater than zero",
                    self.raw(key).expect("present")
                ),
            ));
        }
        Ok(r)
    }

    pub fn bytes(&self, key: &str) -> Result<Option<u64>, InputError> {
        self.parsed(key, "a size", parse_bytes)
    }

    pub fn table(&self, key: &str) -> Result<Option<Fields<'a>>, InputError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(Fields::new(self.file, self.field(key), t))),
            Some(v) => Err(self.wrong(key, v, "a table")),
        }
    }

    /// A list of tables (`[[key]]`), each with its indexed path.
    pub fn tables(&self, key: &str) -> Result<Vec<Fields<'a>>, InputError> {
        match self.raw(key) {
            None => Ok(vec![]),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Table(t) => Ok(Fields::new(
                        self.file,
                        format!("{}[{i}]", self.field(key)),
                        t,
                    )),
                    v => Err(self.err(
                        &format!("{key}[{i}]"),
                        format!("expected a table, found {}", type_name(v)),
                    )),
                })
                .collect(),
            Some(Value::Table(t)) => Ok(vec![Fields::new(self.file, self.field(key), t)]),
            Some(v) => Err(self.wrong(key, v, "a list of tables")),
        }
    }

    pub fn strings(&self, key: &str) -> Result<Option<Vec<&'a str>>, InputError> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.as_str()),
                    v => Err(self.err(
                        key,
                        format!(
                            "expected a list of strings, found an element that is {}",
                            type_name(v)
                        ),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(v) => Err(self.wrong(key, v, "a list of strings")),
        }
    }
}
