//! Python values to the API's and back, without JSON text in between: a dict,
//! list, tuple, str, bool, int, float or None; numpy scalars and arrays and
//! pandas Series (anything with `.tolist()` or `.item()`) as the Python values
//! they hold. A value that has no place in a privpost input (NaN, an object of
//! another type, nesting deeper than 128) raises `InputError` naming its key.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use privpost::api::ApiError;

/// The deepest nesting an input may have (serde_json's own recursion limit).
const MAX_DEPTH: usize = 128;

/// `obj` as a JSON value; errors name the `argument` and the key inside it
/// (`release.values[0]` in messages, `values[0]` as the error's key).
pub fn to_value(obj: &Bound<'_, PyAny>, argument: &'static str) -> Result<Value, ApiError> {
    value(obj, argument, "", 0)
}

fn value(
    obj: &Bound<'_, PyAny>,
    argument: &'static str,
    at: &str,
    depth: usize,
) -> Result<Value, ApiError> {
    let bad = |m: String| {
        let shown = if at.is_empty() {
            argument.to_string()
        } else {
            format!("{argument}.{at}")
        };
        let e = ApiError::input(argument, format!("{shown}: {m}"));
        if at.is_empty() {
            e
        } else {
            e.with_key(at)
        }
    };
    if depth > MAX_DEPTH {
        return Err(bad(format!(
            "nested more than {MAX_DEPTH} levels deep (allowed: at most {MAX_DEPTH})"
        )));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.extract::<bool>().unwrap_or_default()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(bad(format!("{obj} does not fit in 64 bits")));
    }
    if obj.is_instance_of::<PyFloat>() {
        let x: f64 = obj.extract().map_err(|e: PyErr| bad(e.to_string()))?;
        return Number::from_f64(x).map(Value::Number).ok_or_else(|| {
            bad(format!(
                "{x}: a number (allowed: finite; NaN and infinities are not)"
            ))
        });
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_string()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(bad(format!(
                    "key {k}: a string (allowed: string keys, as in a TOML or JSON file)"
                )));
            };
            let key = key.to_string();
            let here = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            map.insert(key, value(&v, argument, &here, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (i, v) in obj.try_iter().map_err(|e| bad(e.to_string()))?.enumerate() {
            let v = v.map_err(|e| bad(e.to_string()))?;
            items.push(value(&v, argument, &format!("{at}[{i}]"), depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    // numpy arrays, pandas Series: their elements as Python values
    if obj.hasattr("tolist").unwrap_or(false) {
        let list = obj.call_method0("tolist").map_err(|e| bad(e.to_string()))?;
        if !list.is(obj) {
            return value(&list, argument, at, depth + 1);
        }
    }
    // numpy scalars (numpy.int64, numpy.bool_, …)
    if obj.hasattr("item").unwrap_or(false) && obj.hasattr("dtype").unwrap_or(false) {
        let item = obj.call_method0("item").map_err(|e| bad(e.to_string()))?;
        return value(&item, argument, at, depth + 1);
    }
    let kind = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    Err(bad(format!(
        "a value of type {kind} (allowed: dict, list, str, bool, int, float, None, and numpy or pandas values of those)"
    )))
}

/// A JSON value (a typed answer, serialised) as the Python value.
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, None, Some(x)) => PyFloat::new(py, x).into_any(),
            _ => return Err(PyRuntimeError::new_err(format!("{n}: not a number"))),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for x in items {
                list.append(to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, x) in map {
                dict.set_item(k, to_py(py, x)?)?;
            }
            dict.into_any()
        }
    })
}
