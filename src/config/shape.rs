//! A figure's parameter schema asked about one key: does it take a list there?
//!
//! `--set key=[a, b]` for a key the config does not set is a list value if the
//! schema takes a list at that key, else a sweep over `a`, `b`. The answer comes
//! from the parameter struct's own `Deserialize` (serde walks its type: a `Vec` or
//! tuple asks for a sequence, a number for a number, a nested struct for a map),
//! driven here by a deserializer that offers only the key asked about and notes
//! what the type asks for at its end. Nothing is validated and no error text is
//! read.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};

/// What a schema holds at a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// a list (a `Vec`, an array or a tuple), possibly optional
    List,
    /// a single value: a number, a string, a boolean, an enum or a table
    Single,
    /// the schema has no such key, or decides its type at run time
    /// (`deserialize_any`: an untagged enum, a flattened table)
    Unknown,
}

/// A figure's schema: the shape of its parameters at a dotted key
/// (`shape_of::<TheFiguresConfig>`).
pub type Schema = fn(&[String]) -> Shape;

/// The shape of the schema `T` at the dotted key `path`.
pub fn shape_of<T: DeserializeOwned>(path: &[String]) -> Shape {
    let found = Cell::new(Shape::Unknown);
    let _ = T::deserialize(Probe {
        path,
        found: &found,
    });
    found.get()
}

/// Stops the walk once the shape is known (never shown to anyone).
#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("shape probe")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<M: fmt::Display>(_: M) -> Self {
        Stop
    }
}

struct Probe<'p> {
    path: &'p [String],
    found: &'p Cell<Shape>,
}

impl Probe<'_> {
    /// At the key's end the type asked for `shape`; before it, the path cannot go on.
    fn end<V>(self, shape: Shape) -> Result<V, Stop> {
        if self.path.is_empty() {
            self.found.set(shape);
        }
        Err(Stop)
    }

    /// A table: at the key's end a single value; before it, offer the next key.
    fn table<'de, V: Visitor<'de>>(
        self,
        fields: Option<&[&str]>,
        visitor: V,
    ) -> Result<V::Value, Stop> {
        let Some((head, rest)) = self.path.split_first() else {
            return self.end(Shape::Single);
        };
        if fields.is_some_and(|f| !f.contains(&head.as_str())) {
            return Err(Stop);
        }
        visitor.visit_map(OneKey {
            key: Some(head),
            rest,
            found: self.found,
        })
    }
}

/// A map holding only the key asked about, whose value is the probe.
struct OneKey<'p> {
    key: Option<&'p String>,
    rest: &'p [String],
    found: &'p Cell<Shape>,
}

impl<'de> MapAccess<'de> for OneKey<'_> {
    type Error = Stop;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stop> {
        match self.key.take() {
            Some(k) => seed.deserialize(k.as_str().into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        seed.deserialize(Probe {
            path: self.rest,
            found: self.found,
        })
    }
}

macro_rules! single {
    ($($method:ident),*) => {
        $(fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            self.end(Shape::Single)
        })*
    };
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Stop;

    single!(
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_unit,
        deserialize_identifier
    );

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.end(Shape::Unknown)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.end(Shape::Unknown)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        visitor.visit_some(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: V,
    ) -> Result<V::Value, Stop> {
        self.end(Shape::Single)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Stop> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.end(Shape::List)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Stop> {
        self.end(Shape::List)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value, Stop> {
        self.end(Shape::List)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        self.table(None, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Stop> {
        self.table(Some(fields), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        self.end(Shape::Single)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        tau: f64,
        steps: Option<Vec<u32>>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Method {
        Laplace,
        Ops,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Start {
        Point([f64; 2]),
        Name(String),
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Params {
        epsilon: f64,
        epsilons: Vec<f64>,
        #[serde(default)]
        prior: Option<[f64; 2]>,
        pair: (f64, f64),
        method: Method,
        methods: Vec<Method>,
        name: String,
        inner: Option<Inner>,
        start: Start,
        #[serde(rename = "n_data")]
        n: u64,
    }

    fn at(key: &str) -> Shape {
        let path: Vec<String> = key.split('.').map(String::from).collect();
        shape_of::<Params>(&path)
    }

    #[test]
    fn lists_and_single_values_are_read_off_the_type() {
        for key in ["epsilons", "prior", "pair", "methods", "inner.steps"] {
            assert_eq!(at(key), Shape::List, "{key}");
        }
        for key in ["epsilon", "method", "name", "inner", "inner.tau", "n_data"] {
            assert_eq!(at(key), Shape::Single, "{key}");
        }
    }

    #[test]
    fn unknown_keys_and_run_time_types_are_unknown() {
        for key in ["nope", "inner.nope", "epsilon.x", "start", "n"] {
            assert_eq!(at(key), Shape::Unknown, "{key}");
        }
    }
}
