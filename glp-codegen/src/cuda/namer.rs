//! C names for Rust identifiers: keywords of C++ and CUDA, glp's reserved prefix and
//! shadowed Rust bindings all get distinct, deterministic names.

use std::collections::BTreeSet;

/// Words a generated identifier must not be: C++ keywords, CUDA qualifiers and names the
/// prelude defines.
const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "char8_t",
    "class",
    "compl",
    "concept",
    "const",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "main",
    "self",
    "min",
    "max",
    "abs",
    "sqrt",
    "exp",
    "log",
    "floor",
    "ceil",
    "round",
    "pow",
    "fmin",
    "fmax",
    "fabs",
    "warpSize",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "NULL",
    "INFINITY",
    "NAN",
    "assert",
    "printf",
    "malloc",
    "free",
    "memcpy",
    "memset",
];

/// Hands out unique C names within one function.
#[derive(Debug, Default)]
pub struct Namer {
    used: BTreeSet<String>,
}

impl Namer {
    /// A fresh C name for Rust binding `name`.
    pub fn name(&mut self, name: &str) -> String {
        let base = name.trim_start_matches("r#");
        let base = if base.is_empty() || base == "_" { "unused" } else { base };
        let mut base = base.to_string();
        if RESERVED.contains(&base.as_str()) || base.starts_with("glp_") || base.starts_with("__") {
            base.push('_');
        }
        let mut candidate = base.clone();
        let mut n = 1;
        while self.used.contains(&candidate) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(candidate.clone());
        candidate
    }

    /// A fresh temporary (`glp_t0`, `glp_t1`, ...).
    pub fn temp(&mut self) -> String {
        let mut n = 0;
        loop {
            let candidate = format!("glp_t{n}");
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Namer;

    #[test]
    fn keywords_reserved_prefixes_and_shadowing_get_distinct_names() {
        let mut namer = Namer::default();
        assert_eq!(namer.name("x"), "x");
        assert_eq!(namer.name("x"), "x_1");
        assert_eq!(namer.name("x"), "x_2");
        assert_eq!(namer.name("int"), "int_");
        assert_eq!(namer.name("r#struct"), "struct_");
        assert_eq!(namer.name("glp_t0"), "glp_t0_");
        assert_eq!(namer.name("__shfl"), "__shfl_");
        assert_eq!(namer.name("_"), "unused");
        assert_eq!(namer.temp(), "glp_t0");
        assert_eq!(namer.temp(), "glp_t1");
    }
}
