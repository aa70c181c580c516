//! Typed rows: a figure declares each CSV's rows once, as a struct whose fields
//! (in order) are the columns, and writes and reads them through serde — no
//! column looked up by a string, no row edited by position.
//!
//! - [`columns`]: the header, taken from the struct's declaration (the field
//!   names serde sees, renames applied) — the registry's column lists, the
//!   manifest's `columns` and `docs/outputs.md` are checked against it;
//! - [`to_row`]: a record as table cells, with the cells the hand-written rows
//!   had (`f64` → a float cell, integers → an integer cell, strings and unit
//!   enum variants → text, `None` → an empty cell), so the CSVs are unchanged;
//! - [`Table::records`]: the rows back as records, parsed by the `csv` crate's
//!   serde support from each cell's text (an empty cell is `None`).

use serde::de::{self, DeserializeOwned, Visitor};
use serde::ser::{self, Impossible, Serialize};

use super::table::{Cell, Row, Table, TableReadError};

/// The columns of record type `T`, in declaration order.
pub fn columns<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Fields(Option<&'static [&'static str]>);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("stop")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    impl<'de> de::Deserializer<'de> for &mut Fields {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0 = Some(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut f = Fields(None);
    let _ = T::deserialize(&mut f);
    f.0.unwrap_or(&[])
}

/// Why a value cannot be a table cell (a nested struct, a map, a sequence).
#[derive(Debug, thiserror::Error)]
#[error("a record field must be a number, text, a unit enum variant or an Option of one: {0}")]
pub struct RecordError(String);

impl ser::Error for RecordError {
    fn custom<M: std::fmt::Display>(msg: M) -> Self {
        RecordError(msg.to_string())
    }
}

/// A record as table cells, one per field in declaration order.
pub fn to_row<T: Serialize>(record: &T) -> Row {
    let mut row = Vec::new();
    record
        .serialize(RowSerializer { row: &mut row })
        .unwrap_or_else(|e| panic!("{} is not a flat record: {e}", std::any::type_name::<T>()));
    row
}

struct RowSerializer<'a> {
    row: &'a mut Row,
}

/// A record must be a struct (its fields are the columns).
fn not_a_struct() -> RecordError {
    RecordError("a record is a struct".into())
}

/// `fn NAME(self, _: TYPE) -> Result<(), RecordError>` refusing a value that is
/// not a struct, for each pair.
macro_rules! not_a_struct {
    ($($name:ident($ty:ty))*) => {
        $(fn $name(self, _: $ty) -> Result<(), RecordError> {
            Err(not_a_struct())
        })*
    };
}

/// One field's value as one cell.
struct CellSerializer<'a> {
    row: &'a mut Row,
}

impl<'a> ser::Serializer for RowSerializer<'a> {
    type Ok = ();
    type Error = RecordError;
    type SerializeSeq = Impossible<(), RecordError>;
    type SerializeTuple = Impossible<(), RecordError>;
    type SerializeTupleStruct = Impossible<(), RecordError>;
    type SerializeTupleVariant = Impossible<(), RecordError>;
    type SerializeMap = Impossible<(), RecordError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), RecordError>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, RecordError> {
        Ok(self)
    }
    not_a_struct! {
        serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32)
        serialize_i64(i64) serialize_u8(u8) serialize_u16(u16) serialize_u32(u32)
        serialize_u64(u64) serialize_f32(f32) serialize_f64(f64) serialize_char(char)
        serialize_str(&str) serialize_bytes(&[u8]) serialize_unit_struct(&'static str)
    }
    fn serialize_none(self) -> Result<(), RecordError> {
        Err(not_a_struct())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), RecordError> {
        Err(not_a_struct())
    }
    fn serialize_unit(self) -> Result<(), RecordError> {
        Err(not_a_struct())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), RecordError> {
        Err(not_a_struct())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), RecordError> {
        Err(not_a_struct())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), RecordError> {
        Err(not_a_struct())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, RecordError> {
        Err(not_a_struct())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, RecordError> {
        Err(not_a_struct())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, RecordError> {
        Err(not_a_struct())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, RecordError> {
        Err(not_a_struct())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, RecordError> {
        Err(not_a_struct())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, RecordError> {
        Err(not_a_struct())
    }
}

impl ser::SerializeStruct for RowSerializer<'_> {
    type Ok = ();
    type Error = RecordError;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), RecordError> {
        value
            .serialize(CellSerializer { row: self.row })
            .map_err(|e| RecordError(format!("field `{key}`: {}", e.0)))
    }
    fn end(self) -> Result<(), RecordError> {
        Ok(())
    }
}

impl CellSerializer<'_> {
    fn push(self, cell: Cell) -> Result<(), RecordError> {
        self.row.push(cell);
        Ok(())
    }
    fn int(self, x: i128) -> Result<(), RecordError> {
        let i = i64::try_from(x).map_err(|_| RecordError(format!("{x} is out of range")))?;
        self.push(Cell::Int(i))
    }
}

impl ser::Serializer for CellSerializer<'_> {
    type Ok = ();
    type Error = RecordError;
    type SerializeSeq = Impossible<(), RecordError>;
    type SerializeTuple = Impossible<(), RecordError>;
    type SerializeTupleStruct = Impossible<(), RecordError>;
    type SerializeTupleVariant = Impossible<(), RecordError>;
    type SerializeMap = Impossible<(), RecordError>;
    type SerializeStruct = Impossible<(), RecordError>;
    type SerializeStructVariant = Impossible<(), RecordError>;

    fn serialize_bool(self, v: bool) -> Result<(), RecordError> {
        self.push(Cell::Str(v.to_string()))
    }
    fn serialize_i8(self, v: i8) -> Result<(), RecordError> {
        self.int(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), RecordError> {
        self.int(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), RecordError> {
        self.int(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), RecordError> {
        self.int(v.into())
    }
    fn serialize_u8(self, v: u8) -> Result<(), RecordError> {
        self.int(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), RecordError> {
        self.int(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), RecordError> {
        self.int(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), RecordError> {
        // as `Cell::from(u64)`: the hand-written rows' integer cell
        self.push(Cell::Int(v as i64))
    }
    fn serialize_f32(self, v: f32) -> Result<(), RecordError> {
        self.push(Cell::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<(), RecordError> {
        self.push(Cell::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<(), RecordError> {
        self.push(Cell::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<(), RecordError> {
        self.push(Cell::Str(v.to_string()))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), RecordError> {
        Err(RecordError("bytes".into()))
    }
    fn serialize_none(self) -> Result<(), RecordError> {
        self.push(Cell::Empty)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), RecordError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), RecordError> {
        self.push(Cell::Empty)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), RecordError> {
        self.push(Cell::Empty)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), RecordError> {
        self.push(Cell::Str(variant.to_string()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), RecordError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), RecordError> {
        Err(RecordError("an enum variant with data".into()))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, RecordError> {
        Err(RecordError("a sequence".into()))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, RecordError> {
        Err(RecordError("a tuple".into()))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, RecordError> {
        Err(RecordError("a tuple struct".into()))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, RecordError> {
        Err(RecordError("an enum variant with data".into()))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, RecordError> {
        Err(RecordError("a map".into()))
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, RecordError> {
        Err(RecordError("a nested struct".into()))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, RecordError> {
        Err(RecordError("an enum variant with data".into()))
    }
}

impl Table {
    /// A table of typed records: the header from `T`'s declaration.
    pub fn of_records<T: Serialize + DeserializeOwned>(records: &[T]) -> Self {
        Table {
            header: columns::<T>().iter().map(|c| c.to_string()).collect(),
            rows: records.iter().map(to_row).collect(),
        }
    }

    /// The rows as records of type `T`, each cell parsed from its text by the
    /// field's type (an empty cell is `None` for an `Option` field); a missing
    /// column or an unparsable cell names the column and the row (1-based).
    pub fn records<T: DeserializeOwned>(&self) -> Result<Vec<T>, TableReadError> {
        self.record_iter()?.collect()
    }

    /// [`Table::records`] one row at a time (for tables of millions of rows, such
    /// as the audit's scores, of which a reader keeps a fraction).
    pub fn record_iter<T: DeserializeOwned>(
        &self,
    ) -> Result<impl Iterator<Item = Result<T, TableReadError>> + '_, TableReadError> {
        for c in columns::<T>() {
            if !self.header.iter().any(|h| h == c) {
                return Err(TableReadError(format!(
                    "no column `{c}` (columns: {})",
                    self.header.join(", ")
                )));
            }
        }
        let header = csv::StringRecord::from(self.header.clone());
        Ok(self.rows.iter().enumerate().map(move |(i, row)| {
            let text: Vec<String> = row.iter().map(Cell::as_str).collect();
            csv::StringRecord::from(text)
                .deserialize(Some(&header))
                .map_err(|e| TableReadError(format!("row {}: {e}", i + 1)))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        DpMcmc,
        Exact,
    }

    #[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
    struct Rec {
        method: Kind,
        run: u64,
        epsilon: f64,
        #[serde(rename = "mean_se")]
        se: Option<f64>,
        note: String,
    }

    fn sample() -> Vec<Rec> {
        vec![
            Rec {
                method: Kind::DpMcmc,
                run: 3,
                epsilon: 0.1 + 0.2,
                se: None,
                note: "a, b".into(),
            },
            Rec {
                method: Kind::Exact,
                run: 0,
                epsilon: f64::INFINITY,
                se: Some(1e-300),
                note: String::new(),
            },
        ]
    }

    /// The header is the declaration; the cells are the hand-written rows' cells.
    #[test]
    fn records_are_the_cells_a_row_would_hold() {
        assert_eq!(
            columns::<Rec>(),
            ["method", "run", "epsilon", "mean_se", "note"]
        );
        let t = Table::of_records(&sample());
        assert_eq!(
            t.rows[0],
            vec![
                Cell::from("dp_mcmc"),
                Cell::from(3u64),
                Cell::from(0.1 + 0.2),
                Cell::Empty,
                Cell::from("a, b"),
            ]
        );
    }

    /// Written to CSV and read back (all cells text then), the records are equal
    /// bit for bit; a missing column or a bad cell is named.
    #[test]
    fn records_round_trip_through_csv() {
        let dir = std::env::temp_dir().join(format!("privpost-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.csv");
        Table::of_records(&sample()).write_csv(&path).unwrap();
        let back = Table::read_csv(&path).unwrap();
        assert_eq!(back.records::<Rec>().unwrap(), sample());
        assert_eq!(
            Table::of_records(&sample()).records::<Rec>().unwrap(),
            sample()
        );
        let mut bad = back.clone();
        bad.rows[1][2] = Cell::from("x");
        let e = bad.records::<Rec>().unwrap_err();
        assert!(e.0.contains("row 2"), "{e}");
        bad.header[1] = "runs".into();
        let e = bad.records::<Rec>().unwrap_err();
        assert!(e.0.contains("no column `run`"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Only a flat struct is a record: a bare number or a nested struct is refused.
    #[test]
    fn only_flat_structs_are_records() {
        assert!(std::panic::catch_unwind(|| to_row(&5u64)).is_err());
        #[derive(serde::Serialize)]
        struct Nested {
            inner: Kind,
            pair: (u64, u64),
        }
        let nested = Nested {
            inner: Kind::Exact,
            pair: (1, 2),
        };
        assert!(std::panic::catch_unwind(|| to_row(&nested)).is_err());
    }
}
