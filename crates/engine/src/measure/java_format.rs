//! Numbers as YCSB's Java code prints them, so parsers written against YCSB's
//! output (PerfKitBenchmarker reads `5.0E-5` as a float but fails on `5e-5`)
//! read contio's the same way:
//! - `Double.toString` (every double of the text summary): plain decimal with at
//!   least one fraction digit for 10⁻³ ≤ |v| < 10⁷ (`0.001`, `123.0`,
//!   `9999999.5`), else `D.DDDE±N` (`5.0E-5`, `1.0E7`); `NaN`, `Infinity`,
//!   `-0.0`;
//! - `DecimalFormat("#.##")` (status lines): at most two decimals, half-even on
//!   the exact binary value, no trailing zeros; `∞` for infinity;
//! - `String.format("%.2f")` (the raw type's status summary): two decimals,
//!   half-up on the `Double.toString` digits.
//!
//! The digits are the shortest that read back as the same double (Rust's `{:e}`),
//! which is what `Double.toString` prints from Java 19 on. Java 8–18 print a
//! longer form for a few doubles (1.0E23 as `9.999999999999999E22`); the tests
//! compare with Java 17's output.

/// The shortest decimal digits of finite, non-zero `|v|` and the exponent of
/// the first one: `v = 0.D₁D₂… × 10^(exp+1)`, e.g. 5e-5 → ("5", -5).
fn shortest_digits(v: f64) -> (Vec<u8>, i32) {
    let sci = format!("{:e}", v.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// The digits `Double.toString` prints in scientific notation: the shortest, or
/// when that is one digit, the two-digit decimal closest to the value (`5.0E-5`,
/// `4.9E-324` where the shortest is 5E-324).
fn sci_digits(v: f64) -> (Vec<u8>, i32) {
    let (digits, exp) = shortest_digits(v);
    if digits.len() > 1 {
        return (digits, exp);
    }
    let two = format!("{:.1e}", v.abs());
    let (mantissa, exp) = two.split_once('e').unwrap_or((&two, "0"));
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

fn text(digits: &[u8]) -> &str {
    std::str::from_utf8(digits).unwrap_or("0")
}

/// Java's `Double.toString(value)`.
pub fn double_to_string(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if value.is_sign_negative() { "-" } else { "" };
    if value == 0.0 {
        return format!("{sign}0.0");
    }
    let (digits, exp) = shortest_digits(value);
    if (-3..7).contains(&exp) {
        let int_len = usize::try_from(exp + 1).unwrap_or(0);
        if int_len == 0 {
            let zeros = "0".repeat(usize::try_from(-exp - 1).unwrap_or(0));
            return format!("{sign}0.{zeros}{}", text(&digits));
        }
        if digits.len() > int_len {
            let (int, frac) = digits.split_at(int_len);
            return format!("{sign}{}.{}", text(int), text(frac));
        }
        let zeros = "0".repeat(int_len - digits.len());
        return format!("{sign}{}{zeros}.0", text(&digits));
    }
    let (digits, exp) = sci_digits(value);
    let (first, rest) = digits.split_at(1);
    let rest = if rest.is_empty() { "0" } else { text(rest) };
    format!("{sign}{}.{rest}E{exp}", text(first))
}

/// Java's `new DecimalFormat("#.##").format(value)`.
pub fn decimal_format_2(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "∞" } else { "-∞" }.into();
    }
    // Rust's fixed-precision formatting rounds the exact binary value half-even,
    // as DecimalFormat's default HALF_EVEN does.
    let fixed = format!("{value:.2}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    match trimmed {
        "" => "0".into(),
        "-" => "-0".into(),
        t => t.into(),
    }
}

/// Java's `String.format("%.2f", value)`.
pub fn format_2f(value: f64) -> String {
    if !value.is_finite() {
        return double_to_string(value);
    }
    let sign = if value.is_sign_negative() && value != 0.0 {
        "-"
    } else {
        ""
    };
    if value == 0.0 {
        return format!("{sign}0.00");
    }
    let (digits, exp) = shortest_digits(value);
    // The digit of place 10^p (0 outside the digits).
    let digit_at = |p: i32| {
        usize::try_from(exp - p)
            .ok()
            .and_then(|i| digits.get(i))
            .map_or(0, |d| d - b'0')
    };
    // Hundredths as a whole number, rounded half-up on the next digit.
    let mut hundredths: u128 = 0;
    for p in (-2..=exp).rev() {
        hundredths = hundredths * 10 + u128::from(digit_at(p));
    }
    let next = digit_at(-3);
    if next >= 5 {
        hundredths += 1;
    }
    format!("{sign}{}.{:02}", hundredths / 100, hundredths % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (bits of the double, what Java 17's `Double.toString` printed for it),
    /// made with `jshell` on this machine.
    const JAVA_DOUBLE_TO_STRING: &[(u64, &str)] = &[
        (0, "0.0"),
        (9223372036854775808, "-0.0"),
        (4607182418800017408, "1.0"),
        (4542503522391573293, "5.0E-5"),
        (4711630319722168320, "1.0E7"),
        (4562254508917369340, "0.001"),
        (4638355772470722560, "123.0"),
        (4711630319185297408, "9999999.0"),
        (4711630319721631449, "9999999.999"),
        (4562254047748767497, "9.999E-4"),
        (4921056587992461136, "1.0E21"),
        (4566758108544739836, "0.002"),
        (4591870180066957722, "0.1"),
        (4599676419421066581, "0.3333333333333333"),
        (4624231760246491429, "14.285714285714286"),
        (9221120237041090560, "NaN"),
        (9218868437227405312, "Infinity"),
        (18442240474082181120, "-Infinity"),
        (1, "4.9E-324"),
        (9218868437227405311, "1.7976931348623157E308"),
        (4675399691533279540, "37593.984962406015"),
        (4846369599423283200, "1.0E16"),
        (4712889646492470477, "1.23456789E7"),
        (13765875559246349101, "-5.0E-5"),
        (4503599627370496, "2.2250738585072014E-308"),
        (4532020583610935537, "1.0E-5"),
        (4772899269882675200, "1.23456789012E11"),
    ];

    #[test]
    fn double_to_string_matches_java() {
        for (bits, java) in JAVA_DOUBLE_TO_STRING {
            assert_eq!(double_to_string(f64::from_bits(*bits)), *java, "{bits}");
        }
    }

    #[test]
    fn decimal_format_matches_java() {
        // Java 17: new DecimalFormat("#.##").format(v)
        let cases = [
            (0.125, "0.12"),
            (0.375, "0.38"),
            (2.675, "2.67"),
            (1234.5, "1234.5"),
            (0.005, "0.01"),
            (0.015, "0.01"),
            (0.025, "0.03"),
            (-0.001, "-0"),
            (1e20, "100000000000000000000"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "∞"),
            (0.0, "0"),
            (1234.0, "1234"),
        ];
        for (v, java) in cases {
            assert_eq!(decimal_format_2(v), java, "{v}");
        }
    }

    #[test]
    fn format_2f_matches_java() {
        // Java 17: String.format("%.2f", v)
        let cases = [
            (0.125, "0.13"),
            (2.675, "2.68"),
            (0.015, "0.02"),
            (1.005, "1.01"),
            (0.005, "0.01"),
            (1234.565, "1234.57"),
            (0.0, "0.00"),
            (5e-5, "0.00"),
            (999.996, "1000.00"),
            (1.0 / 3.0, "0.33"),
        ];
        for (v, java) in cases {
            assert_eq!(format_2f(v), java, "{v}");
        }
    }
}
