//! Stage 1, syntax: the spanned AST of a flattened Modelica file, its nom parser and
//! its canonical printer. Input: source text. Output: [`ast::StoredDefinition`] or a
//! [`SyntaxError`] rendered with source context. Contract: never panics on any input;
//! `parse(print(ast)) == ast` modulo spans.

pub mod ast;
pub mod check;
pub mod component;
pub mod error;
pub mod intern;
pub mod parser;
pub mod printer;
pub mod small_list;
pub mod span;
pub mod stack;
pub mod visit;

pub use error::{Expected, SyntaxError, SyntaxErrorKind};
pub use parser::parse;
pub use printer::print;
pub use span::{SourceFile, Span};
