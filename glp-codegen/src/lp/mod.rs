//! Everything specific to label propagation variants: the hooks, the view's methods, the
//! features they imply. The general compiler (IR, emitter, interpreter) knows nothing of it.

mod features;

pub use features::LpFeatures;
