//! The interpreter's side of a kind's view, shared by every kind: the table from the kind's
//! intrinsics to the view's methods, reading a method's arguments, and the loop step budget
//! of one hook call.
//!
//! A kind writes only its own [`Host`] (its view's methods, mapped through
//! [`method_table`]); [`super::LoadedProgram::call`] wraps it in a [`Budgeted`] host with the
//! budget of the call, so no kind host carries or chooses a budget.

use glp_codegen::interp::{Host, RuntimeError, Value};
use glp_codegen::ir::IntrinsicId;
use glp_codegen::program::kind::KindSpec;

/// Per intrinsic id of `kind` (a [`Host`]'s argument), the embedder's method of the same
/// name in `table` (`None` for a method the table lacks: the host reports it when called).
pub fn method_table<M: Copy>(kind: &KindSpec, table: &[(&str, M)]) -> Vec<Option<M>> {
    kind.intrinsics.iter().map(|i| table.iter().find(|(name, _)| *name == i.name).map(|&(_, m)| m)).collect()
}

/// Argument `i` of a context method's call, read with `get` (an error naming `ty` when it is
/// missing or of another type).
pub fn host_arg<T>(args: &[Value], i: usize, get: fn(Value) -> Option<T>, ty: &str) -> Result<T, RuntimeError> {
    args.get(i)
        .copied()
        .and_then(get)
        .ok_or_else(|| RuntimeError::host(format!("argument {i} of a view method must be a {ty}")))
}

/// A kind's host with the loop step budget of one hook call (its own
/// [`Host::loop_budget`] is not asked).
pub(super) struct Budgeted<H> {
    pub(super) host: H,
    pub(super) loop_budget: u64,
}

impl<H: Host> Host for Budgeted<H> {
    #[inline]
    fn intrinsic(&self, id: IntrinsicId, args: &[Value]) -> Result<Value, RuntimeError> {
        self.host.intrinsic(id, args)
    }

    fn loop_budget(&self) -> u64 {
        self.loop_budget
    }
}
