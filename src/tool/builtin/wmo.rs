//! The WMO weather interpretation codes Open-Meteo reports (`weather_code`),
//! in short English, as its forecast API documentation lists them.

/// The description of a WMO weather code; `None` for a code Open-Meteo does not use.
pub fn describe_weather_code(code: u64) -> Option<&'static str> {
    Some(match code {
        0 => "Clear sky",
        1 => "Mainly clear",
        2 => "Partly cloudy",
        3 => "Overcast",
        45 => "Fog",
        48 => "Depositing rime fog",
        51 => "Light drizzle",
        53 => "Moderate drizzle",
        55 => "Dense drizzle",
        56 => "Light freezing drizzle",
        57 => "Dense freezing drizzle",
        61 => "Slight rain",
        63 => "Moderate rain",
        65 => "Heavy rain",
        66 => "Light freezing rain",
        67 => "Heavy freezing rain",
        71 => "Slight snowfall",
        73 => "Moderate snowfall",
        75 => "Heavy snowfall",
        77 => "Snow grains",
        80 => "Slight rain showers",
        81 => "Moderate rain showers",
        82 => "Violent rain showers",
        85 => "Slight snow showers",
        86 => "Heavy snow showers",
        95 => "Thunderstorm",
        96 => "Thunderstorm with slight hail",
        99 => "Thunderstorm with heavy hail",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_codes_open_meteo_documents_and_no_others() {
        let known = [
            0, 1, 2, 3, 45, 48, 51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 71, 73, 75, 77, 80, 81, 82, 85, 86,
            95, 96, 99,
        ];
        assert!(known.iter().all(|&c| describe_weather_code(c).is_some()));
        assert_eq!(
            (0..=100).filter(|&c| describe_weather_code(c).is_some()).count(),
            known.len()
        );
        assert_eq!(describe_weather_code(3), Some("Overcast"));
        assert_eq!(describe_weather_code(4), None);
    }
}
