//! The typed intermediate representation every back end reads.
//!
//! A [`Program`] is what one annotated impl lowers to: its functions (the kind's hooks and
//! the impl's helper methods), the parameters its bodies read from `self`, and a span table
//! so any node can be traced back to the source. The IR is plain data (`Send + Sync`, no
//! `proc_macro2` types), so the runtime can keep it and interpret it from many threads.
//!
//! Shape: functions own blocks of statements; control flow is structured (no gotos), which
//! the CUDA emitter prints almost one-to-one. Expressions carry their type; after
//! [`crate::typeck`] no [`Type::Var`] remains. Everything kind-specific (which functions are
//! hooks, what the context object's methods are) is referred to by index into the
//! [`crate::program::kind::KindSpec`] the program was lowered for.

use std::fmt;

/// A scalar type of the accepted subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    I32,
    I64,
    U32,
    U64,
    F32,
    F64,
}

impl Scalar {
    /// Every scalar, in a fixed order.
    pub const ALL: [Scalar; 7] =
        [Scalar::Bool, Scalar::I32, Scalar::I64, Scalar::U32, Scalar::U64, Scalar::F32, Scalar::F64];

    /// The Rust spelling.
    pub fn rust_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }

    /// The scalar a Rust type name denotes.
    pub fn from_rust_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.rust_name() == name)
    }

    pub fn is_integer(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::I64 | Scalar::U32 | Scalar::U64)
    }

    pub fn is_signed_integer(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::I64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    pub fn is_numeric(self) -> bool {
        self.is_integer() || self.is_float()
    }

    /// Width in bits of an integer type (64 for floats and bool are never asked).
    pub fn bits(self) -> u32 {
        match self {
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 32,
            Scalar::Bool => 8,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 64,
        }
    }

    /// Size in bytes in a parameter block (bool takes 4 bytes so every field stays aligned).
    pub fn size(self) -> usize {
        match self {
            Scalar::Bool | Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}

/// Index of an inference variable (only before type checking).
pub type TypeVar = u32;

/// The type of an expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// `()`: statements, functions without a return value.
    Unit,
    Scalar(Scalar),
    /// A flat tuple of scalars (multi-value returns), at most [`MAX_TUPLE_LEN`] long.
    Tuple(Vec<Scalar>),
    /// The kind's context object (`&View` for label propagation); only passed along.
    /// Displayed as `&Context` (messages that know the kind spell its type).
    Context,
    /// The type of an expression that never produces a value (a block ending in `return`).
    Never,
    /// An inference variable; none remain after type checking.
    Var(TypeVar),
    /// Stands for a node that failed to lower; unifies with anything, so one mistake is
    /// reported once.
    Error,
}

/// Longest tuple the subset allows.
pub const MAX_TUPLE_LEN: usize = 4;

impl Type {
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Unit => f.write_str("()"),
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Tuple(items) => {
                f.write_str("(")?;
                for (i, s) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{s}")?;
                }
                f.write_str(")")
            }
            Type::Context => f.write_str("&Context"),
            Type::Never => f.write_str("!"),
            Type::Var(_) => f.write_str("_"),
            Type::Error => f.write_str("{error}"),
        }
    }
}

/// Index into [`Program::spans`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct SpanId(pub u32);

/// Where a node came from: 1-based line, 0-based column (in characters), start and end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Location {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// Index of a function in [`Program::functions`].
pub type FunctionId = u32;
/// Index of a local in [`Function::locals`].
pub type LocalId = u32;
/// Index of a parameter in [`Program::params`].
pub type ParamId = u32;
/// Index of an intrinsic in the kind's intrinsic table.
pub type IntrinsicId = u32;

/// A lowered program: one annotated impl.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The implementing type's name (`Llp`).
    pub name: String,
    /// Hooks first (in the kind's hook order, including defaults the impl did not write),
    /// then helper methods in source order.
    pub functions: Vec<Function>,
    /// Fields of `self` the bodies read, in the struct's declaration order when it is known,
    /// else in order of first use.
    pub params: Vec<ParamDecl>,
    /// Source locations, indexed by [`SpanId`].
    pub spans: Vec<Location>,
    /// Host methods the impl writes ([`crate::program::kind::KindSpec::host_methods`]),
    /// left out of the program, in source order.
    pub host_methods: Vec<String>,
    /// The types the impl declares ([`crate::program::kind::KindSpec::declared_types`], in
    /// the kind's order): per-vertex state and messages, a scalar or a tuple of scalars
    /// each. They are ordinary [`Type`]s once declared: the type checker, the interpreter
    /// and the emitter see a hook's `Self::Value` argument as the scalar or tuple it is.
    /// Empty for kinds that declare none.
    pub declared_types: Vec<Type>,
}

impl Program {
    pub fn location(&self, span: SpanId) -> Location {
        self.spans.get(span.0 as usize).copied().unwrap_or_default()
    }

    /// The function implementing hook number `hook` of the kind.
    pub fn hook(&self, hook: usize) -> Option<&Function> {
        self.functions.iter().find(|f| f.role == Role::Hook(hook))
    }
}

/// A parameter of the program: a scalar field of the implementing struct.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ParamDecl {
    pub name: String,
    pub ty: Scalar,
}

/// What a function is to the program kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Hook number `n` of the kind (written by the user).
    Hook(usize),
    /// Hook number `n` of the kind, taken from the kind's defaults.
    DefaultHook(usize),
    /// A helper method the hooks call.
    Helper,
}

impl Role {
    pub fn hook_index(self) -> Option<usize> {
        match self {
            Role::Hook(n) | Role::DefaultHook(n) => Some(n),
            Role::Helper => None,
        }
    }
}

/// A function: a hook or a helper.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: String,
    pub role: Role,
    /// Locals that hold the arguments, in order (the `self` receiver is implicit).
    pub params: Vec<LocalId>,
    pub ret: Type,
    pub locals: Vec<LocalDecl>,
    pub body: Block,
    pub span: SpanId,
}

/// A local variable (or an argument).
#[derive(Debug, Clone, PartialEq)]
pub struct LocalDecl {
    pub name: String,
    pub ty: Type,
    pub mutable: bool,
    pub span: SpanId,
}

/// `{ stmts; tail }`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The block's value; `None` means `()` (or never, when the last statement diverges).
    pub tail: Option<Box<Expr>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: SpanId,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `let x = e;`, `let (a, _) = e;` or `let x;` (assigned later).
    Let {
        target: LetTarget,
        init: Option<Expr>,
    },
    /// `x = e` or `x op= e`.
    Assign {
        target: LocalId,
        op: Option<BinaryOp>,
        value: Expr,
    },
    /// An expression evaluated for its effect.
    Expr(Expr),
    /// `while cond { body }`.
    While {
        cond: Expr,
        body: Block,
    },
    /// `loop { body }`: leaves only through `break` or `return` (a `loop` used as a value
    /// writes the value of its `break`s to a local the front end adds; see
    /// [`crate::frontend`]).
    Loop {
        body: Block,
    },
    /// `for var in start..end` or `start..=end`, integer ranges only.
    For {
        var: LocalId,
        start: Expr,
        end: Expr,
        inclusive: bool,
        body: Block,
    },
    Break,
    Continue,
    Return(Option<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum LetTarget {
    Local(LocalId),
    /// Destructuring of a tuple; `None` for `_`.
    Tuple(Vec<Option<LocalId>>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: SpanId,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    Local(LocalId),
    /// A read of `self.<field>`.
    Param(ParamId),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `e as T`.
    Cast(Box<Expr>, Scalar),
    Tuple(Vec<Expr>),
    /// `e.0`.
    TupleField(Box<Expr>, u32),
    /// A call of a helper of the same impl.
    Call(FunctionId, Vec<Expr>),
    /// A method of the kind's context object (`view.label(u)`); the first argument is the
    /// context local the method was called on.
    Intrinsic(IntrinsicId, Vec<Expr>),
    /// A math function on scalars (`x.sqrt()`, `a.min(b)`, `f64::exp(x)`).
    Math(MathFn, Vec<Expr>),
    If {
        cond: Box<Expr>,
        then: Block,
        otherwise: Option<Box<Expr>>,
    },
    Match {
        scrutinee: Box<Expr>,
        arms: Vec<MatchArm>,
    },
    Block(Block),
    /// A node that failed to lower (its error is already reported).
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Literal {
    Bool(bool),
    /// An integer literal's magnitude (negation is a [`UnaryOp::Neg`] around it).
    Int(u64),
    Float(f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    /// `!`: logical on bool, bitwise on integers.
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    /// `&&` (short-circuit).
    And,
    /// `||` (short-circuit).
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
    }

    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }

    pub fn is_shift(self) -> bool {
        matches!(self, BinaryOp::Shl | BinaryOp::Shr)
    }

    pub fn is_bitwise(self) -> bool {
        matches!(self, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor)
    }

    /// The operator's spelling (the same in Rust and C).
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
        }
    }
}

/// One arm of a `match` on an integer.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchArm {
    /// Alternatives (`1 | 2 | 5..=7`); empty means `_`.
    pub patterns: Vec<MatchPattern>,
    /// The type the patterns require of the scrutinee: a suffix (`5u64`) or a typed constant
    /// (`i32::MIN`, `UNLABELLED`) fixes it, else it is an integer inference variable.
    pub ty: Type,
    /// Where the patterns are (errors about them point here).
    pub span: SpanId,
    pub body: Expr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchPattern {
    /// One value (negative values allowed for signed scrutinees).
    Value(i128),
    /// An inclusive range `lo..=hi`. An open end (`lo..`, `..=hi`) is [`i128::MAX`] or
    /// [`i128::MIN`]: the scrutinee type's bound.
    Range(i128, i128),
}

/// The math functions of the subset. Each computes what the Rust method of the same name
/// computes; the emitter maps each to the CUDA function with the same IEEE semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MathFn {
    Abs,
    Min,
    Max,
    Sqrt,
    Exp,
    Ln,
    Log2,
    Floor,
    Ceil,
    Round,
    Powi,
    Powf,
    /// `u32::count_ones` and friends.
    CountOnes,
    LeadingZeros,
    TrailingZeros,
    WrappingAdd,
    WrappingSub,
    WrappingMul,
}

impl MathFn {
    /// Rust method name.
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Abs => "abs",
            MathFn::Min => "min",
            MathFn::Max => "max",
            MathFn::Sqrt => "sqrt",
            MathFn::Exp => "exp",
            MathFn::Ln => "ln",
            MathFn::Log2 => "log2",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Round => "round",
            MathFn::Powi => "powi",
            MathFn::Powf => "powf",
            MathFn::CountOnes => "count_ones",
            MathFn::LeadingZeros => "leading_zeros",
            MathFn::TrailingZeros => "trailing_zeros",
            MathFn::WrappingAdd => "wrapping_add",
            MathFn::WrappingSub => "wrapping_sub",
            MathFn::WrappingMul => "wrapping_mul",
        }
    }

    pub const ALL: [MathFn; 18] = [
        MathFn::Abs,
        MathFn::Min,
        MathFn::Max,
        MathFn::Sqrt,
        MathFn::Exp,
        MathFn::Ln,
        MathFn::Log2,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Round,
        MathFn::Powi,
        MathFn::Powf,
        MathFn::CountOnes,
        MathFn::LeadingZeros,
        MathFn::TrailingZeros,
        MathFn::WrappingAdd,
        MathFn::WrappingSub,
        MathFn::WrappingMul,
    ];

    pub fn from_name(name: &str) -> Option<MathFn> {
        MathFn::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Number of arguments, the receiver included.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Min
            | MathFn::Max
            | MathFn::Powi
            | MathFn::Powf
            | MathFn::WrappingAdd
            | MathFn::WrappingSub
            | MathFn::WrappingMul => 2,
            _ => 1,
        }
    }
}

/// A value of a scalar type: a parameter's value as the host passes it to a kernel, and the
/// scalar values the interpreter computes with (its [`crate::interp::Value::Scalar`]).
/// `==` is Rust's on the payload (floats compare as IEEE numbers: NaN differs from itself);
/// values of different types are unequal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalarValue {
    Bool(bool),
    I32(i32),
    I64(i64),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl ScalarValue {
    pub fn scalar(self) -> Scalar {
        match self {
            ScalarValue::Bool(_) => Scalar::Bool,
            ScalarValue::I32(_) => Scalar::I32,
            ScalarValue::I64(_) => Scalar::I64,
            ScalarValue::U32(_) => Scalar::U32,
            ScalarValue::U64(_) => Scalar::U64,
            ScalarValue::F32(_) => Scalar::F32,
            ScalarValue::F64(_) => Scalar::F64,
        }
    }

    /// The zero of type `s` (`false`, `0`, `0.0`).
    pub fn zero(s: Scalar) -> ScalarValue {
        ScalarValue::from_bits(s, 0)
    }

    /// Type and bit pattern (bool as 0/1, signed integers as their two's complement
    /// zero-extended, floats by their IEEE bits).
    pub fn to_bits(self) -> (Scalar, u64) {
        let bits = match self {
            ScalarValue::Bool(v) => v as u64,
            ScalarValue::I32(v) => v as u32 as u64,
            ScalarValue::I64(v) => v as u64,
            ScalarValue::U32(v) => v as u64,
            ScalarValue::U64(v) => v,
            ScalarValue::F32(v) => v.to_bits() as u64,
            ScalarValue::F64(v) => v.to_bits(),
        };
        (self.scalar(), bits)
    }

    /// The value of type `s` whose [`ScalarValue::to_bits`] pattern is `bits` (extra high
    /// bits ignored).
    pub fn from_bits(s: Scalar, bits: u64) -> ScalarValue {
        match s {
            Scalar::Bool => ScalarValue::Bool(bits != 0),
            Scalar::I32 => ScalarValue::I32(bits as u32 as i32),
            Scalar::I64 => ScalarValue::I64(bits as i64),
            Scalar::U32 => ScalarValue::U32(bits as u32),
            Scalar::U64 => ScalarValue::U64(bits),
            Scalar::F32 => ScalarValue::F32(f32::from_bits(bits as u32)),
            Scalar::F64 => ScalarValue::F64(f64::from_bits(bits)),
        }
    }

    /// An integer's value, widened without loss; `None` for bool and floats.
    pub fn as_i128(self) -> Option<i128> {
        Some(match self {
            ScalarValue::I32(v) => v as i128,
            ScalarValue::I64(v) => v as i128,
            ScalarValue::U32(v) => v as i128,
            ScalarValue::U64(v) => v as i128,
            _ => return None,
        })
    }

    /// `v` as a value of type `s`, truncated as `as` does (callers keep `v` in range).
    pub fn from_i128(s: Scalar, v: i128) -> ScalarValue {
        match s {
            Scalar::I32 => ScalarValue::I32(v as i32),
            Scalar::I64 => ScalarValue::I64(v as i64),
            Scalar::U32 => ScalarValue::U32(v as u32),
            Scalar::U64 => ScalarValue::U64(v as u64),
            Scalar::Bool => ScalarValue::Bool(v != 0),
            Scalar::F32 => ScalarValue::F32(v as f32),
            Scalar::F64 => ScalarValue::F64(v as f64),
        }
    }

    /// Parses `text` as a value of type `ty` (command-line parameters).
    pub fn parse(ty: Scalar, text: &str) -> Option<ScalarValue> {
        let t = text.trim();
        Some(match ty {
            Scalar::Bool => ScalarValue::Bool(t.parse().ok()?),
            Scalar::I32 => ScalarValue::I32(t.parse().ok()?),
            Scalar::I64 => ScalarValue::I64(t.parse().ok()?),
            Scalar::U32 => ScalarValue::U32(t.parse().ok()?),
            Scalar::U64 => ScalarValue::U64(t.parse().ok()?),
            Scalar::F32 => ScalarValue::F32(t.parse().ok().filter(|x: &f32| x.is_finite())?),
            Scalar::F64 => ScalarValue::F64(t.parse().ok().filter(|x: &f64| x.is_finite())?),
        })
    }

    /// The value's bytes in a kernel parameter block (little-endian; bool as a 4-byte 0/1).
    pub fn to_le_bytes(self) -> Vec<u8> {
        match self {
            ScalarValue::Bool(b) => (b as u32).to_le_bytes().to_vec(),
            ScalarValue::I32(x) => x.to_le_bytes().to_vec(),
            ScalarValue::I64(x) => x.to_le_bytes().to_vec(),
            ScalarValue::U32(x) => x.to_le_bytes().to_vec(),
            ScalarValue::U64(x) => x.to_le_bytes().to_vec(),
            ScalarValue::F32(x) => x.to_le_bytes().to_vec(),
            ScalarValue::F64(x) => x.to_le_bytes().to_vec(),
        }
    }
}

impl fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarValue::Bool(x) => write!(f, "{x}"),
            ScalarValue::I32(x) => write!(f, "{x}"),
            ScalarValue::I64(x) => write!(f, "{x}"),
            ScalarValue::U32(x) => write!(f, "{x}"),
            ScalarValue::U64(x) => write!(f, "{x}"),
            ScalarValue::F32(x) => write!(f, "{x}"),
            ScalarValue::F64(x) => write!(f, "{x}"),
        }
    }
}

macro_rules! scalar_value_from {
    ($($t:ty => $variant:ident),*) => {$(
        impl From<$t> for ScalarValue {
            fn from(v: $t) -> ScalarValue {
                ScalarValue::$variant(v)
            }
        }
    )*};
}
scalar_value_from!(bool => Bool, i32 => I32, i64 => I64, u32 => U32, u64 => U64, f32 => F32, f64 => F64);
