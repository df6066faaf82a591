//! Reading how long a server asks us to wait (`retry-after-ms`, `Retry-After`).

use crate::http::HttpResponse;

/// The wait requested by a response, in milliseconds: `retry-after-ms`, then
/// `Retry-After` as seconds or as an HTTP-date (relative to `now_ms`).
pub fn retry_after_ms(response: &HttpResponse, now_ms: f64) -> Option<u64> {
    if let Some(ms) = response
        .header("retry-after-ms")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite())
    {
        return Some(ms.max(0.0) as u64);
    }
    let value = response.header("retry-after")?.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return seconds.is_finite().then(|| (seconds.max(0.0) * 1000.0) as u64);
    }
    let at = http_date_ms(value)?;
    Some((at - now_ms).max(0.0) as u64)
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) to milliseconds since the epoch.
pub fn http_date_ms(value: &str) -> Option<f64> {
    let rest = value.split_once(", ").map_or(value, |(_, rest)| rest);
    let mut parts = rest.split_ascii_whitespace();
    let day: i64 = parts.next()?.parse().ok()?;
    let month = match parts.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: i64 = parts.next()?.parse().ok()?;
    let mut clock = parts.next()?.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, s) = (clock.next()??, clock.next()??, clock.next()??);
    if parts.next()? != "GMT" || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 86_400 + h * 3_600 + m * 60 + s) * 1_000) as f64)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::RecordedResponse;

    fn response(headers: &[(&str, &str)]) -> HttpResponse {
        let mut recorded = RecordedResponse::status(429, "");
        for (k, v) in headers {
            recorded = recorded.with_header(k, v);
        }
        HttpResponse {
            status: recorded.status,
            headers: recorded.headers,
            body: Box::pin(futures::stream::empty()),
        }
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(
            retry_after_ms(&response(&[("retry-after-ms", "250")]), 0.0),
            Some(250)
        );
        assert_eq!(
            retry_after_ms(&response(&[("Retry-After", "2")]), 0.0),
            Some(2000)
        );
        assert_eq!(
            retry_after_ms(&response(&[("Retry-After", "1.5")]), 0.0),
            Some(1500)
        );
        let now = http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(now, 784_111_777_000.0);
        assert_eq!(
            retry_after_ms(
                &response(&[("Retry-After", "Sun, 06 Nov 1994 08:49:40 GMT")]),
                now
            ),
            Some(3000)
        );
        assert_eq!(
            retry_after_ms(
                &response(&[("Retry-After", "Sun, 06 Nov 1994 08:49:30 GMT")]),
                now
            ),
            Some(0)
        );
        assert_eq!(retry_after_ms(&response(&[("Retry-After", "soon")]), now), None);
        assert_eq!(retry_after_ms(&response(&[]), now), None);
    }

    #[test]
    fn dates_across_leap_years() {
        assert_eq!(http_date_ms("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0.0));
        assert_eq!(
            http_date_ms("Thu, 29 Feb 2024 00:00:00 GMT"),
            Some(1_709_164_800_000.0)
        );
        assert_eq!(http_date_ms("Thu, 29 Feb 2024 00:00:00 UTC"), None);
    }
}
