//! Reading lines from a stream that may never end one (a controller's stdin, a child's
//! stdout): at most a stated number of bytes of a line is held, the rest is read and dropped.

use std::io::{self, BufRead, Read};

/// Reads one line of `reader` into `line` (cleared first; its newline kept, if it has one),
/// holding at most `max` bytes of it: the rest of a longer line is read and dropped.
/// `Some(true)` for a line that was too long, `Some(false)` for one that fits, `None` at the
/// end of the stream.
pub fn read_bounded(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<bool>> {
    line.clear();
    if reader.take(max as u64).read_until(b'\n', line)? == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') || line.len() < max {
        return Ok(Some(false));
    }
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(Some(true));
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(end) => {
                reader.consume(end + 1);
                return Ok(Some(true));
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
}

/// `line` without its newline (and a carriage return before it).
pub fn without_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<(Vec<u8>, bool)> {
        let mut reader = io::BufReader::with_capacity(4, input);
        let mut line = Vec::new();
        let mut out = Vec::new();
        while let Some(long) = read_bounded(&mut reader, &mut line, max).unwrap() {
            out.push((line.clone(), long));
        }
        out
    }

    #[test]
    fn long_lines_keep_their_start_and_drop_the_rest() {
        let got = lines(b"ab\nabcdefghij\n\nxyz", 5);
        assert_eq!(
            got,
            vec![
                (b"ab\n".to_vec(), false),
                (b"abcde".to_vec(), true),
                (b"\n".to_vec(), false),
                (b"xyz".to_vec(), false),
            ]
        );
        // A line of exactly `max` bytes with its newline fits; one byte more does not.
        assert_eq!(lines(b"abcd\n", 5), vec![(b"abcd\n".to_vec(), false)]);
        assert_eq!(lines(b"abcde\n", 5), vec![(b"abcde".to_vec(), true)]);
        // A long last line without a newline.
        assert_eq!(lines(b"abcdefgh", 5), vec![(b"abcde".to_vec(), true)]);
        assert_eq!(without_newline(b"name\r\n"), b"name");
        assert_eq!(without_newline(b"name"), b"name");
    }
}
