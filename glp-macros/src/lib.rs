//! # glp-macros: thin procedural macros
//!
//! Each macro parses its input, hands it to `glp-codegen`, and returns the generated tokens
//! or the compiler's spanned errors. No lowering logic lives here (the sqlx model: a thin
//! proc-macro crate over a normal library). The attribute macros arrive with the DSL work.
