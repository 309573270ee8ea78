//! The model file's tokens: whitespace-separated words and numbers as C++'s `istream >>` reads
//! them, and blocks of floats, either text words or `@BIN@` and little-endian f32s.

use super::Problem;

/// A cursor over an uncompressed model file.
pub(super) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    binary: bool,
}

impl<'a> Reader<'a> {
    pub(super) fn new(data: &'a [u8], binary: bool) -> Self {
        Reader {
            data,
            pos: 0,
            binary,
        }
    }

    /// The next whitespace-separated word, named `what` in `layer` if it is missing.
    pub(super) fn token(&mut self, layer: &str, what: &str) -> Result<&'a str, Problem> {
        while self.pos < self.data.len() && self.data[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        let start = self.pos;
        while self.pos < self.data.len() && !self.data[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(Problem::Truncated {
                layer: layer.to_string(),
                what: format!("the file ends where {what} was expected"),
            });
        }
        std::str::from_utf8(&self.data[start..self.pos]).map_err(|_| Problem::Field {
            layer: layer.to_string(),
            what: format!("garbage where {what} was expected"),
        })
    }

    /// An integer (a C++ `int`).
    pub(super) fn int(&mut self, layer: &str, what: &str) -> Result<i64, Problem> {
        let token = self.token(layer, what)?;
        token
            .parse::<i32>()
            .map(i64::from)
            .map_err(|_| Problem::Field {
                layer: layer.to_string(),
                what: format!("{what}: expected an integer, found {}", shown(token)),
            })
    }

    /// A positive integer.
    pub(super) fn positive(&mut self, layer: &str, what: &str) -> Result<usize, Problem> {
        let v = self.int(layer, what)?;
        if v <= 0 {
            return Err(Problem::Field {
                layer: layer.to_string(),
                what: format!("{what} must be positive, found {v}"),
            });
        }
        Ok(v as usize)
    }

    /// A float written as a word (header fields such as epsilon, in either format).
    pub(super) fn float(&mut self, layer: &str, what: &str) -> Result<f32, Problem> {
        let token = self.token(layer, what)?;
        token.parse::<f32>().map_err(|_| Problem::Field {
            layer: layer.to_string(),
            what: format!("{what}: expected a number, found {}", shown(token)),
        })
    }

    /// A C++ `bool`: `0` or `1`.
    pub(super) fn flag(&mut self, layer: &str, what: &str) -> Result<bool, Problem> {
        match self.token(layer, what)? {
            "0" => Ok(false),
            "1" => Ok(true),
            other => Err(Problem::Field {
                layer: layer.to_string(),
                what: format!("{what}: expected 0 or 1, found {}", shown(other)),
            }),
        }
    }

    /// `n` reserved integers that must be 0.
    pub(super) fn zeros(&mut self, layer: &str, n: usize) -> Result<(), Problem> {
        for _ in 0..n {
            let v = self.int(layer, "a reserved option")?;
            if v != 0 {
                return Err(Problem::Field {
                    layer: layer.to_string(),
                    what: format!("unknown option value {v}"),
                });
            }
        }
        Ok(())
    }

    /// A block of `count` finite weights (`None`: a count that overflows). Nothing is
    /// allocated before the bytes are known to be there.
    pub(super) fn floats(
        &mut self,
        layer: &str,
        count: Option<usize>,
    ) -> Result<Vec<f32>, Problem> {
        let remaining = self.data.len() - self.pos;
        let too_many = |count: String| Problem::Truncated {
            layer: layer.to_string(),
            what: format!("{count} weights expected, the file has {remaining} bytes left"),
        };
        let Some(count) = count else {
            return Err(too_many("more than 2^64".into()));
        };
        let weights = if self.binary {
            self.binary_floats(layer, count)?
        } else {
            // Each weight is at least a character and a separator.
            if count > remaining.div_ceil(2) {
                return Err(too_many(count.to_string()));
            }
            let mut weights = Vec::with_capacity(count);
            for _ in 0..count {
                let token = self.token(layer, "a weight")?;
                let w = token.parse::<f32>().map_err(|_| Problem::Field {
                    layer: layer.to_string(),
                    what: format!("expected a weight, found {}", shown(token)),
                })?;
                weights.push(w);
            }
            weights
        };
        if weights.iter().any(|w| !w.is_finite()) {
            return Err(Problem::NonFinite {
                layer: layer.to_string(),
            });
        }
        Ok(weights)
    }

    /// `@BIN@` (after at most 100 other bytes, as KataGo allows), then `count` f32s.
    fn binary_floats(&mut self, layer: &str, count: usize) -> Result<Vec<f32>, Problem> {
        let mut skipped = 0;
        loop {
            let Some(&b) = self.data.get(self.pos) else {
                return Err(Problem::Truncated {
                    layer: layer.to_string(),
                    what: "the file ends before its @BIN@ block".into(),
                });
            };
            self.pos += 1;
            if b == b'@' {
                break;
            }
            skipped += 1;
            if skipped > 100 {
                return Err(Problem::Field {
                    layer: layer.to_string(),
                    what: "no @BIN@ block where the weights should start (a text model read as binary?)"
                        .into(),
                });
            }
        }
        if self.data.len() - self.pos < 4 {
            return Err(Problem::Truncated {
                layer: layer.to_string(),
                what: "the file ends inside its @BIN@ header".into(),
            });
        }
        if !self.data[self.pos..].starts_with(b"BIN@") {
            return Err(Problem::Field {
                layer: layer.to_string(),
                what: "a malformed @BIN@ header".into(),
            });
        }
        self.pos += 4;
        let remaining = self.data.len() - self.pos;
        let bytes = match count.checked_mul(4) {
            Some(bytes) if bytes <= remaining => bytes,
            _ => {
                return Err(Problem::Truncated {
                    layer: layer.to_string(),
                    what: format!(
                        "{count} weights expected, the block has {} bytes left",
                        remaining
                    ),
                });
            }
        };
        let weights = self.data[self.pos..self.pos + bytes]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        self.pos += bytes;
        Ok(weights)
    }
}

/// A token as an error message shows it: at most 40 characters.
fn shown(token: &str) -> String {
    let mut s: String = token.chars().take(40).collect();
    if s.len() < token.len() {
        s.push('…');
    }
    format!("'{s}'")
}
