//! The rows of a binary `COPY … TO STDOUT (FORMAT binary)`, read one at
//! a time: the documents' queries and the row ledger read their rows so.

use std::io::Read;

/// The rows of a binary COPY of `(key, typed columns…, rest)`, one at a
/// time, in a buffer reused for each.
pub(super) struct CopyRows<R> {
    r: R,
    buf: Vec<u8>,
    /// Each field's place in `buf`, `None` when null.
    fields: Vec<Option<(usize, usize)>>,
    width: usize,
}

impl<R: Read> CopyRows<R> {
    pub(super) fn new(mut r: R, width: usize) -> std::io::Result<Self> {
        let mut header = [0u8; 19];
        r.read_exact(&mut header)?;
        if &header[..11] != b"PGCOPY\n\xff\r\n\0" {
            return Err(std::io::Error::other("not a binary COPY stream"));
        }
        let ext = u32::from_be_bytes([header[15], header[16], header[17], header[18]]);
        std::io::copy(&mut (&mut r).take(u64::from(ext)), &mut std::io::sink())?;
        Ok(CopyRows {
            r,
            buf: Vec::new(),
            fields: Vec::with_capacity(width),
            width,
        })
    }

    /// Reads the next row; `false` at the end.
    pub(super) fn next_row(&mut self) -> std::io::Result<bool> {
        let mut n = [0u8; 2];
        self.r.read_exact(&mut n)?;
        let count = i16::from_be_bytes(n);
        if count == -1 {
            return Ok(false);
        }
        if usize::try_from(count).ok() != Some(self.width) {
            return Err(std::io::Error::other(format!(
                "a row of {count} fields, not {}",
                self.width
            )));
        }
        self.buf.clear();
        self.fields.clear();
        for _ in 0..self.width {
            let mut len = [0u8; 4];
            self.r.read_exact(&mut len)?;
            let len = i32::from_be_bytes(len);
            if len < 0 {
                self.fields.push(None);
                continue;
            }
            let start = self.buf.len();
            self.buf.resize(start + len as usize, 0);
            self.r.read_exact(&mut self.buf[start..])?;
            self.fields.push(Some((start, self.buf.len())));
        }
        Ok(true)
    }

    /// Field `i` of the current row.
    pub(super) fn field(&self, i: usize) -> Option<&[u8]> {
        self.fields
            .get(i)
            .copied()
            .flatten()
            .map(|(a, b)| &self.buf[a..b])
    }
}
