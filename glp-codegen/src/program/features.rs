//! Which optional runtime facilities of a kind's context a program uses, found from the
//! hooks' bodies, so that the runtime allocates and maintains only those.
//!
//! A facility is named by the [`IntrinsicSpec::feature`](super::kind::IntrinsicSpec::feature)
//! of the context methods that need it; a kind turns the set of names into its own typed
//! flags (label propagation: `kinds::lp::LpFeatures`).

use super::kind::KindSpec;
use crate::ir::{ExprKind, Program, Role};
use std::collections::BTreeSet;

/// The facilities `program`'s functions use (by name), directly or through helpers.
pub fn used(kind: &KindSpec, program: &Program) -> BTreeSet<&'static str> {
    let mut used = BTreeSet::new();
    for f in &program.functions {
        crate::visit::walk_block(&f.body, &mut |e| {
            if let ExprKind::Intrinsic(id, _) = e.kind {
                if let Some(feature) = kind.intrinsics.get(id as usize).and_then(|i| i.feature) {
                    used.insert(feature);
                }
            }
        });
    }
    used
}

/// Whether the user wrote hook `hook` (rather than leaving it to the kind's default).
pub fn writes_hook(program: &Program, hook: usize) -> bool {
    program.functions.iter().any(|f| f.role == Role::Hook(hook))
}
