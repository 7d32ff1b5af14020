//! Decimal digits to integers, eight bytes at a time.

/// Digits [`leading_digits`] reads at most.
pub(super) const MAX_FAST_DIGITS: usize = 19;

/// The value and number of the ASCII digits at the start of `bytes` (at most
/// [`MAX_FAST_DIGITS`], which cannot overflow a u64).
///
/// With 8 bytes available it classifies and converts 8 bytes at once (SWAR: SIMD within a
/// register), which removes the per-digit multiply-add dependency chain that dominates a
/// byte-at-a-time parse of typical 5-8 digit ids. Bytes after the digits are only looked at,
/// never consumed, so `bytes` may run past the end of the field.
#[inline]
pub(crate) fn leading_digits(bytes: &[u8]) -> (u64, usize) {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    let (mut value, mut count) = match bytes.first_chunk::<8>() {
        Some(word) => {
            // Each byte becomes its digit value (0..=9) or something >= 10.
            let x = u64::from_le_bytes(*word) ^ ZEROS;
            // Bit 7 of each byte: set when that byte is not a digit. Adding 0x76 to the low 7
            // bits reaches 0x80 exactly when they are >= 10, and cannot carry across bytes.
            let not_digit = (((x & 0x7f7f_7f7f_7f7f_7f7f) + 0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080;
            let count = (not_digit.trailing_zeros() / 8) as usize;
            match count {
                0 => return (0, 0),
                8 => (eight_digits(x), 8),
                // Shift the digits to the top: the vacated low bytes act as leading zeros.
                _ => return (eight_digits(x << (8 * (8 - count))), count),
            }
        }
        None => (0, 0),
    };
    while count < bytes.len().min(MAX_FAST_DIGITS) {
        let digit = bytes[count].wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value * 10 + digit as u64;
        count += 1;
    }
    (value, count)
}

/// The number whose 8 decimal digits (values 0..=9, most significant first) are the bytes of
/// `x` in little-endian order: pairs, then quadruples, then the whole, each step one
/// multiply-add over all lanes.
#[inline]
fn eight_digits(x: u64) -> u64 {
    let pairs = (x.wrapping_mul(10).wrapping_add(x >> 8)) & 0x00ff_00ff_00ff_00ff;
    let quads = (pairs.wrapping_mul(100).wrapping_add(pairs >> 16)) & 0x0000_ffff_0000_ffff;
    (quads.wrapping_mul(10_000).wrapping_add(quads >> 32)) & 0xffff_ffff
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte-at-a-time reference for [`leading_digits`].
    fn naive_digits(bytes: &[u8]) -> (u64, usize) {
        let count = bytes.iter().take(MAX_FAST_DIGITS).take_while(|b| b.is_ascii_digit()).count();
        let value = bytes[..count].iter().fold(0u64, |v, &b| v * 10 + (b - b'0') as u64);
        (value, count)
    }

    #[test]
    fn leading_digits_matches_a_naive_parse() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let alphabet = b"0123456789012345678901234567890123456789 \t\r\n-{}.e,/:@\x00\xff";
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 24) as usize;
            let bytes: Vec<u8> =
                (0..len).map(|i| alphabet[((x >> (i * 2 % 60)) as usize ^ i) % alphabet.len()]).collect();
            for start in 0..bytes.len().min(3) {
                assert_eq!(leading_digits(&bytes[start..]), naive_digits(&bytes[start..]), "{bytes:?}");
            }
        }
        for text in [&b"12345678"[..], b"1234567\n", b"99999999999999999999", b"0000000000000000001 ", b"7", b""] {
            assert_eq!(leading_digits(text), naive_digits(text), "{text:?}");
        }
    }
}
