//! A temperature as the wire carries it.

use serde_json::Value;

/// `t` as the JSON number of its shortest decimal form: `0.7`, where a plain
/// conversion of the `f32` writes `0.699999988079071`.
pub fn temperature_json(t: f32) -> Value {
    t.to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_decimal_the_host_gave() {
        for (t, text) in [
            (0.7, "0.7"),
            (0.2, "0.2"),
            (1.0, "1.0"),
            (0.0, "0.0"),
            (1.35, "1.35"),
        ] {
            assert_eq!(temperature_json(t).to_string(), text);
        }
    }
}
