//! The time-zone seam of `current_datetime`: the browser's `Intl` in the
//! wasm build (`web/zones.rs`), a fixed table for native tests.

use serde::Serialize;

use crate::runtime::time::civil_from_days;

/// A moment as read on the clocks of one time zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ZonedTime {
    /// ISO 8601 with the offset, e.g. `2026-11-23T20:24:43+09:00`.
    pub iso: String,
    /// The IANA name of the zone, e.g. `Asia/Tokyo`.
    pub time_zone: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// `HH:MM:SS`, 24-hour.
    pub time: String,
    /// The English weekday, e.g. `Monday`.
    pub weekday: String,
    /// `+HH:MM` or `-HH:MM` (`+00:00` for UTC).
    pub utc_offset: String,
}

impl ZonedTime {
    /// The parts put together: `iso` from `date`, `time` and `utc_offset`.
    pub fn new(time_zone: &str, date: String, time: String, weekday: String, utc_offset: String) -> Self {
        ZonedTime {
            iso: format!("{date}T{time}{utc_offset}"),
            time_zone: time_zone.to_owned(),
            date,
            time,
            weekday,
            utc_offset,
        }
    }
}

/// Reads the time in a zone.
pub trait TimeZones {
    /// `now_ms` (ms since the epoch) in `zone`; an unknown zone is [`unknown_zone`]'s message.
    fn format(&self, now_ms: f64, zone: &str) -> Result<ZonedTime, String>;
    /// The reader's own zone (the browser's), used when the model names none.
    fn reader_zone(&self) -> String;
}

/// The tool error for a zone nobody knows.
pub fn unknown_zone(zone: &str) -> String {
    format!("Unknown time zone: {zone:?} (use an IANA name such as Europe/Paris)")
}

/// A fixed table of zones with fixed offsets (no daylight saving), for tests
/// and native use. The reader's zone is the first one.
#[derive(Debug, Clone)]
pub struct FixedZones {
    zones: Vec<(String, i32)>,
}

impl FixedZones {
    /// Zones as `(IANA name, offset in minutes east of UTC)`.
    pub fn new(zones: &[(&str, i32)]) -> Self {
        FixedZones {
            zones: zones
                .iter()
                .map(|(name, offset)| ((*name).to_owned(), *offset))
                .collect(),
        }
    }
}

impl Default for FixedZones {
    /// `UTC` (the reader's), `Europe/Paris` +01:00, `Asia/Tokyo` +09:00, `America/New_York` -05:00.
    fn default() -> Self {
        FixedZones::new(&[
            ("UTC", 0),
            ("Europe/Paris", 60),
            ("Asia/Tokyo", 540),
            ("America/New_York", -300),
        ])
    }
}

impl TimeZones for FixedZones {
    fn format(&self, now_ms: f64, zone: &str) -> Result<ZonedTime, String> {
        let (name, offset) = self
            .zones
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(zone))
            .ok_or_else(|| unknown_zone(zone))?;
        let local_s = (now_ms / 1000.0).floor() as i64 + i64::from(*offset) * 60;
        let (days, secs) = (local_s.div_euclid(86_400), local_s.rem_euclid(86_400));
        let (year, month, day) = civil_from_days(days);
        const WEEKDAYS: [&str; 7] = [
            "Thursday",
            "Friday",
            "Saturday",
            "Sunday",
            "Monday",
            "Tuesday",
            "Wednesday",
        ];
        let weekday = WEEKDAYS[days.rem_euclid(7) as usize].to_owned();
        let sign = if *offset < 0 { '-' } else { '+' };
        let utc_offset = format!("{sign}{:02}:{:02}", offset.abs() / 60, offset.abs() % 60);
        Ok(ZonedTime::new(
            name,
            format!("{year:04}-{month:02}-{day:02}"),
            format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60),
            weekday,
            utc_offset,
        ))
    }

    fn reader_zone(&self) -> String {
        self.zones
            .first()
            .map_or_else(|| "UTC".to_owned(), |(name, _)| name.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_table_reads_dates_offsets_and_weekdays() {
        let zones = FixedZones::default();
        // 2026-11-23T11:24:43Z, a Monday.
        let now = 1_795_433_083_000.0;
        let tokyo = zones.format(now, "Asia/Tokyo").unwrap();
        assert_eq!(tokyo.iso, "2026-11-23T20:24:43+09:00");
        assert_eq!(
            (tokyo.weekday.as_str(), tokyo.utc_offset.as_str()),
            ("Monday", "+09:00")
        );
        let new_york = zones.format(now, "america/new_york").unwrap();
        assert_eq!(new_york.iso, "2026-11-23T06:24:43-05:00");
        assert_eq!(new_york.time_zone, "America/New_York");
        let before_epoch = zones.format(-1000.0, "UTC").unwrap();
        assert_eq!(
            (before_epoch.date.as_str(), before_epoch.weekday.as_str()),
            ("1969-12-31", "Wednesday")
        );
        assert_eq!(
            zones.format(now, "Mars/Olympus").unwrap_err(),
            r#"Unknown time zone: "Mars/Olympus" (use an IANA name such as Europe/Paris)"#
        );
    }
}
