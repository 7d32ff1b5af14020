//! A program's parameters from `NAME=VALUE` strings, parsed into its typed parameter block.
//!
//! Errors are a [`ParamError`] whose message names no command-line flag: the command line
//! renders it with the flag that took the strings ([`ParamError::with_flag`]).

use glp_codegen::ir::{ParamDecl, Scalar, ScalarValue};
use std::fmt;

/// Why the parameter strings do not fit a program's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    /// A string without `=`.
    Malformed { given: String },
    /// A name the program does not have; `known` lists its parameters (or says it has none).
    Unknown { given: String, name: String, known: String },
    /// A value that does not parse as the parameter's type.
    Invalid { given: String, name: String, ty: Scalar, text: String },
    /// A parameter given twice.
    Twice { name: String },
    /// Parameters not given, with their types (`program` names the program).
    Missing { program: String, missing: String, count: usize },
}

impl ParamError {
    /// The message, each item introduced by `flag` (`--param`) when given: what the command
    /// line shows.
    pub fn with_flag(&self, flag: Option<&str>) -> String {
        let item = |text: &str| match flag {
            Some(flag) => format!("{flag} {text}"),
            None => format!("parameter {text}"),
        };
        match self {
            ParamError::Malformed { given } => format!("{}: expected NAME=VALUE", item(&format!("`{given}`"))),
            ParamError::Unknown { given, name, known } => {
                format!("{}: unknown parameter `{name}` ({known})", item(given))
            }
            ParamError::Invalid { given, name, ty, text } => {
                format!("{}: `{name}` is a `{ty}`, expected {} (got `{text}`)", item(given), expected(*ty))
            }
            ParamError::Twice { name } => format!("{}: given twice", item(name)),
            ParamError::Missing { program, missing, count } => {
                let s = if *count == 1 { "" } else { "s" };
                let how = flag.map_or_else(String::new, |flag| format!(" (give each with {flag} NAME=VALUE)"));
                format!("`{program}` needs the parameter{s} {missing}{how}")
            }
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.with_flag(None))
    }
}

impl std::error::Error for ParamError {}

/// The values of parameters `decls` of program `program` from `NAME=VALUE` strings, in
/// `decls` order. Each value is parsed as its parameter's declared type (`bool`, integers in
/// their type's range, finite floats). Every parameter must be given exactly once: a program
/// loaded from a file has no defaults.
pub fn parse_params<S: AsRef<str>>(
    program: &str,
    decls: &[ParamDecl],
    assignments: &[S],
) -> Result<Vec<ScalarValue>, ParamError> {
    let mut values: Vec<Option<ScalarValue>> = vec![None; decls.len()];
    for given in assignments {
        let given = given.as_ref();
        let Some((name, text)) = given.split_once('=') else {
            return Err(ParamError::Malformed { given: given.to_string() });
        };
        let (name, text) = (name.trim(), text.trim());
        let Some(index) = decls.iter().position(|d| d.name == name) else {
            let known = if decls.is_empty() {
                format!("`{program}` takes no parameters")
            } else {
                format!("parameters of `{program}`: {}", list(decls.iter()))
            };
            return Err(ParamError::Unknown { given: given.to_string(), name: name.to_string(), known });
        };
        let decl = &decls[index];
        let Some(value) = ScalarValue::parse(decl.ty, text) else {
            return Err(ParamError::Invalid {
                given: given.to_string(),
                name: name.to_string(),
                ty: decl.ty,
                text: text.to_string(),
            });
        };
        if values[index].replace(value).is_some() {
            return Err(ParamError::Twice { name: name.to_string() });
        }
    }
    let missing: Vec<&ParamDecl> = decls.iter().zip(&values).filter(|(_, v)| v.is_none()).map(|(d, _)| d).collect();
    if !missing.is_empty() {
        let count = missing.len();
        return Err(ParamError::Missing { program: program.to_string(), missing: list(missing.into_iter()), count });
    }
    Ok(values.into_iter().flatten().collect())
}

/// `name: type` items, comma-separated.
fn list<'a>(decls: impl Iterator<Item = &'a ParamDecl>) -> String {
    decls.map(|d| format!("`{}: {}`", d.name, d.ty)).collect::<Vec<_>>().join(", ")
}

/// What a valid value of type `ty` looks like, for messages.
fn expected(ty: Scalar) -> String {
    match ty {
        Scalar::Bool => "`true` or `false`".to_string(),
        Scalar::I32 => format!("an integer in {}..={}", i32::MIN, i32::MAX),
        Scalar::I64 => format!("an integer in {}..={}", i64::MIN, i64::MAX),
        Scalar::U32 => format!("an integer in 0..={}", u32::MAX),
        Scalar::U64 => format!("an integer in 0..={}", u64::MAX),
        Scalar::F32 | Scalar::F64 => "a finite number".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decls() -> Vec<ParamDecl> {
        vec![
            ParamDecl { name: "k".to_string(), ty: Scalar::U32 },
            ParamDecl { name: "gamma".to_string(), ty: Scalar::F64 },
        ]
    }

    #[test]
    fn values_come_back_in_declaration_order() {
        let values = parse_params("v", &decls(), &["gamma=0.5", " k = 3 "]).unwrap();
        assert_eq!(values, vec![ScalarValue::U32(3), ScalarValue::F64(0.5)]);
    }

    #[test]
    fn messages_name_no_flag_unless_the_caller_gives_one() {
        let err = parse_params("v", &decls(), &["k"]).unwrap_err();
        assert_eq!(err.to_string(), "parameter `k`: expected NAME=VALUE");
        assert_eq!(err.with_flag(Some("--param")), "--param `k`: expected NAME=VALUE");
        let err = parse_params("v", &decls(), &["k=1"]).unwrap_err();
        assert_eq!(err.to_string(), "`v` needs the parameter `gamma: f64`");
        assert_eq!(
            err.with_flag(Some("--param")),
            "`v` needs the parameter `gamma: f64` (give each with --param NAME=VALUE)"
        );
        let err = parse_params("v", &decls(), &["k=-1"]).unwrap_err();
        assert_eq!(err.to_string(), "parameter k=-1: `k` is a `u32`, expected an integer in 0..=4294967295 (got `-1`)");
        let err = parse_params("v", &decls(), &["k=1", "k=2"]).unwrap_err();
        assert_eq!(err.with_flag(Some("--param")), "--param k: given twice");
        let err = parse_params("v", &[], &["x=1"]).unwrap_err();
        assert_eq!(err.to_string(), "parameter x=1: unknown parameter `x` (`v` takes no parameters)");
    }
}
