//! Byte spans into a source file, and the source file itself (name + text) with
//! line/column lookup. Every AST node carries a [`Span`]; diagnostics turn spans
//! into `file:line:column` through [`SourceFile`].

/// A half-open byte range `start..end` into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn contains(self, other: Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// A named source text. Offsets in spans index `text`.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    /// The byte offset of each line's start (`u32`, as spans are; exact length: a flat
    /// model of 10^5 equations has 2·10^5 lines).
    line_starts: Box<[u32]>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let newlines = text.bytes().filter(|&b| b == b'\n').count();
        let mut line_starts = Vec::with_capacity(newlines + 1);
        line_starts.push(0);
        line_starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i as u32 + 1));
        SourceFile { name: name.into(), text, line_starts: line_starts.into_boxed_slice() }
    }

    /// 1-based line and column (column counted in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s as usize <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let col = self.text.get(start..offset).map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }
}
