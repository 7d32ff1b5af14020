//! glp
