//! JSON read from users with every key once: serde_json keeps the last of two
//! equal keys without a word (`{"scale": 0.1, "scale": 10}` was accounted at scale
//! 10), so a document is first walked for a map holding a key twice.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The first key given twice in one object of `text`, as a dotted path
/// (`event.scale`, `event.parts[1].sigma`); `None` when every key is unique or the
/// text is not JSON (the parse itself reports that).
pub fn duplicate_key(text: &str) -> Option<String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut found = None;
    let _ = Walk {
        path: String::new(),
        found: &mut found,
    }
    .deserialize(&mut de);
    found
}

struct Walk<'a> {
    path: String,
    found: &'a mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        loop {
            let path = format!("{}[{i}]", self.path);
            let seed = Walk {
                path,
                found: &mut *self.found,
            };
            if seq.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if !seen.insert(key) && self.found.is_none() {
                *self.found = Some(path.clone());
            }
            if self.found.is_some() {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            map.next_value_seed(Walk {
                path,
                found: &mut *self.found,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_repeated_key_with_its_path() {
        assert_eq!(duplicate_key(r#"{"a": 1, "b": {"c": 2}}"#), None);
        assert_eq!(
            duplicate_key(r#"{"event": {"mechanism": "laplace", "scale": 0.1, "scale": 10}}"#)
                .as_deref(),
            Some("event.scale")
        );
        assert_eq!(
            duplicate_key(r#"{"e": {"parts": [{"s": 1}, {"s": 1, "s": 2}]}}"#).as_deref(),
            Some("e.parts[1].s")
        );
        assert_eq!(duplicate_key("not json"), None);
    }
}
