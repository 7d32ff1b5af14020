//! C structs that Rust and CUDA share, declared once ([`c_struct!`](crate::c_struct)).
//!
//! # Why one table
//!
//! A kernel argument is a C struct the host fills byte for byte: the kernel reads its fields
//! at the offsets of its C definition, the host writes them at the offsets of its Rust
//! mirror, and nothing checks at run time that the two agree. Written twice, they drift: a
//! field added on one side only, two fields swapped, a `glp_u32` that became a `glp_u64`,
//! and every kernel reads garbage without an error. So each shared struct is one table, one
//! row per field (its name, its Rust type, its C type, its doc), and both sides come from it:
//!
//! - the Rust struct (`#[repr(C)]`, public fields, `Debug`, `Clone`, `Copy`, `Default`);
//! - its C definition, `c_definition()`, which the CUDA text takes in a template slot (each
//!   field's doc becomes a trailing `//` comment, the struct's doc the comment above it);
//! - a compile-time check that the Rust struct has no padding (its size is the sum of its
//!   fields') and that every field's Rust size is its C type's size ([`c_type_size`]).
//!
//! With sizes equal field for field and no padding, the C layout is the Rust one: both put
//! the fields in order, each at the next multiple of its alignment, and the types the table
//! knows are aligned to their size on every CUDA target (pointers are 8 bytes, 64-bit
//! targets only). What the kernel's code does with a field is still the kernel's business;
//! the table guarantees only that host and device agree where each field is.
//!
//! Device pointers are `u64` on the Rust side (device addresses, not host pointers), `0` for
//! a null pointer. The macro is generic: any kind declares its own structs with it.
//!
//! ```
//! glp_codegen::c_struct! {
//!     /// A sweep over some vertices.
//!     pub struct ExampleArgs => "glp_example" {
//!         /// where results go
//!         out: u64 => "glp_u32*",
//!         /// how many
//!         count: u32 => "glp_u32",
//!         weight: f32 => "float",
//!     }
//! }
//!
//! let args = ExampleArgs { out: 0x7000, count: 3, ..ExampleArgs::default() };
//! assert_eq!(std::mem::size_of_val(&args), 16);
//! assert_eq!(
//!     ExampleArgs::c_definition(),
//!     "// A sweep over some vertices.\n\
//!      struct glp_example {\n    \
//!          glp_u32* out;    // where results go\n    \
//!          glp_u32 count;   // how many\n    \
//!          float weight;\n\
//!      };"
//! );
//! ```
//!
//! A struct whose Rust layout has padding, or a field whose Rust type is not as wide as its C
//! type, does not compile:
//!
//! ```compile_fail
//! glp_codegen::c_struct! {
//!     pub struct Padded => "glp_padded" {
//!         flag: u32 => "glp_u32",
//!         data: u64 => "const glp_u64*",
//!     }
//! }
//! ```
//!
//! ```compile_fail
//! glp_codegen::c_struct! {
//!     pub struct Narrow => "glp_narrow" {
//!         count: u32 => "glp_u64",
//!     }
//! }
//! ```

/// One field of a struct declared with [`c_struct!`](crate::c_struct).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CField {
    /// The field's name, the same in Rust and C.
    pub name: &'static str,
    /// Its C type (`const glp_u64*`, `glp_u32`, `float`, ...).
    pub c_type: &'static str,
    /// `size_of` its Rust type.
    pub rust_size: usize,
    /// Its doc (the `///` lines joined), the C definition's trailing comment.
    pub doc: &'static str,
}

/// Bytes of a C type a shared struct may hold: a pointer (ends with `*`) or `glp_u64`,
/// `glp_i64`, `double`, `unsigned long long`: 8; `glp_u32`, `glp_i32`, `float`, `int`,
/// `unsigned`: 4; `glp_u16`: 2; `glp_u8`, `unsigned char`, `bool`: 1. `None` for a type the
/// table does not know (the layout check then fails at compile time).
pub const fn c_type_size(c_type: &str) -> Option<usize> {
    let bytes = c_type.as_bytes();
    if !bytes.is_empty() && bytes[bytes.len() - 1] == b'*' {
        return Some(8);
    }
    const SIZES: [(&str, usize); 13] = [
        ("glp_u64", 8),
        ("glp_i64", 8),
        ("double", 8),
        ("unsigned long long", 8),
        ("glp_u32", 4),
        ("glp_i32", 4),
        ("float", 4),
        ("int", 4),
        ("unsigned", 4),
        ("glp_u16", 2),
        ("glp_u8", 1),
        ("unsigned char", 1),
        ("bool", 1),
    ];
    let mut i = 0;
    while i < SIZES.len() {
        if same_bytes(bytes, SIZES[i].0.as_bytes()) {
            return Some(SIZES[i].1);
        }
        i += 1;
    }
    None
}

const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// What is wrong with a struct of `size` bytes and fields `fields` as the mirror of a C
/// struct, or `None`: a C type the table does not know, a field whose Rust size is not its
/// C type's, or padding (`size` is not the sum of the fields' sizes).
pub const fn layout_error(size: usize, fields: &[CField]) -> Option<&'static str> {
    let mut sum = 0;
    let mut i = 0;
    while i < fields.len() {
        match c_type_size(fields[i].c_type) {
            None => return Some("a field's C type is not one c_type_size knows"),
            Some(c) if c != fields[i].rust_size => return Some("a field's Rust size differs from its C type's"),
            Some(_) => {}
        }
        sum += fields[i].rust_size;
        i += 1;
    }
    if sum != size {
        return Some("the struct has padding: reorder its fields (largest first) or add explicit ones");
    }
    None
}

/// Fails (at compile time, in a `const`) when [`layout_error`] finds something.
pub const fn assert_layout(size: usize, fields: &[CField]) {
    if let Some(problem) = layout_error(size, fields) {
        panic!("{}", problem);
    }
}

/// The C definition of struct `name` with fields `fields`: the `doc` lines as `//` comments
/// above it, one field per line with its doc as a trailing comment (aligned), no final
/// newline.
pub fn c_definition(name: &str, doc: &[&str], fields: &[CField]) -> String {
    let mut out = String::new();
    for line in doc {
        let line = line.strip_prefix(' ').unwrap_or(line).trim_end();
        out.push_str(if line.is_empty() { "//" } else { "// " });
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("struct {name} {{\n"));
    let declarations: Vec<String> = fields.iter().map(|f| format!("{} {};", f.c_type, f.name)).collect();
    let width = declarations.iter().map(String::len).max().unwrap_or(0);
    for (declaration, field) in declarations.iter().zip(fields) {
        let doc = field.doc.split_whitespace().collect::<Vec<_>>().join(" ");
        if doc.is_empty() {
            out.push_str(&format!("    {declaration}\n"));
        } else {
            out.push_str(&format!("    {declaration:<width$}   // {doc}\n"));
        }
    }
    out.push_str("};");
    out
}

/// Declares a C struct shared by Rust and CUDA from one table (see the [module
/// docs](crate::cuda::c_struct)): the `#[repr(C)]` Rust struct with public fields, its C
/// definition (`c_definition()`, `C_NAME`, `FIELDS`), and a compile-time check of the layout.
///
/// ```text
/// c_struct! {
///     /// doc of the struct (also the comment above the C definition)
///     pub struct RustName => "c_name" {
///         /// doc of the field (the C definition's trailing comment)
///         field: RustType => "C type",
///         ...
///     }
/// }
/// ```
#[macro_export]
macro_rules! c_struct {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident => $c_name:literal {
            $(
                $(#[doc = $field_doc:literal])*
                $field:ident : $ty:ty => $c_ty:literal
            ),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[doc = ""]
        #[doc = concat!("The C struct `", $c_name, "`, declared with `glp_codegen::c_struct!`: its C definition is [`", stringify!($name), "::c_definition`].")]
        #[repr(C)]
        #[derive(Debug, Clone, Copy, Default)]
        $vis struct $name {
            $(
                $(#[doc = $field_doc])*
                pub $field: $ty,
            )*
        }

        impl $name {
            /// The struct's name in C.
            pub const C_NAME: &'static str = $c_name;

            /// The fields, in order, as the C definition declares them.
            pub const FIELDS: &'static [$crate::cuda::c_struct::CField] = &[$(
                $crate::cuda::c_struct::CField {
                    name: stringify!($field),
                    c_type: $c_ty,
                    rust_size: ::core::mem::size_of::<$ty>(),
                    doc: concat!($($field_doc),*),
                }
            ),*];

            /// The C definition (no final newline).
            pub fn c_definition() -> String {
                $crate::cuda::c_struct::c_definition($c_name, &[$($doc),*], Self::FIELDS)
            }
        }

        const _: () = $crate::cuda::c_struct::assert_layout(::core::mem::size_of::<$name>(), $name::FIELDS);
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::c_struct! {
        /// A test struct.
        ///
        /// Two doc lines.
        pub struct Mixed => "glp_mixed" {
            /// a device pointer
            /// on two lines
            data: u64 => "const float*",
            count: u64 => "glp_u64",
            /// 4 bytes
            flag: u32 => "glp_u32",
            scale: f32 => "float",
        }
    }

    fn field(name: &'static str, c_type: &'static str, rust_size: usize) -> CField {
        CField { name, c_type, rust_size, doc: "" }
    }

    #[test]
    fn the_macro_gives_the_rust_struct_and_its_c_definition() {
        let m = Mixed { data: 1, count: 2, flag: 3, scale: 0.5 };
        assert_eq!((m.data, m.count, m.flag, m.scale), (1, 2, 3, 0.5));
        assert_eq!(std::mem::size_of::<Mixed>(), 8 + 8 + 4 + 4);
        assert_eq!(std::mem::offset_of!(Mixed, flag), 16);
        assert_eq!(Mixed::C_NAME, "glp_mixed");
        let names: Vec<&str> = Mixed::FIELDS.iter().map(|f| f.name).collect();
        assert_eq!(names, ["data", "count", "flag", "scale"]);
        assert_eq!(Mixed::FIELDS[0].doc, " a device pointer on two lines");
        assert_eq!(
            Mixed::c_definition(),
            "// A test struct.\n\
             //\n\
             // Two doc lines.\n\
             struct glp_mixed {\n\
             \x20   const float* data;   // a device pointer on two lines\n\
             \x20   glp_u64 count;\n\
             \x20   glp_u32 flag;        // 4 bytes\n\
             \x20   float scale;\n\
             };"
        );
    }

    #[test]
    fn c_types_have_their_sizes() {
        assert_eq!(c_type_size("const glp_u64*"), Some(8));
        assert_eq!(c_type_size("unsigned char*"), Some(8));
        assert_eq!(c_type_size("glp_u64"), Some(8));
        assert_eq!(c_type_size("glp_u32"), Some(4));
        assert_eq!(c_type_size("float"), Some(4));
        assert_eq!(c_type_size("glp_u3"), None);
        assert_eq!(c_type_size(""), None);
    }

    #[test]
    fn layouts_with_padding_or_mismatched_sizes_are_refused() {
        let ok = [field("a", "glp_u64", 8), field("b", "glp_u32", 4), field("c", "glp_u32", 4)];
        assert_eq!(layout_error(16, &ok), None);
        // A u32 before a u64: 4 bytes of padding in the middle (size 16, fields 12).
        let padded = [field("a", "glp_u32", 4), field("b", "glp_u64", 8)];
        assert!(layout_error(16, &padded).unwrap().contains("padding"));
        // A u32 on the Rust side for a glp_u64 in C.
        let narrow = [field("a", "glp_u64", 4)];
        assert!(layout_error(4, &narrow).unwrap().contains("Rust size differs"));
        let unknown = [field("a", "size_t", 8)];
        assert!(layout_error(8, &unknown).unwrap().contains("not one c_type_size knows"));
    }
}
