//! The GPU kernel library that runs a label propagation variant: GLP's most-frequent-label
//! (MFL) kernels by degree class ([`mfl`]), the G-Sort baseline ([`sort`]) and nu-LPA's
//! sketches and hash tables ([`sketch`]), as CUDA templates with their launch geometry (the
//! bounds the kernels and glp-runtime's planner share, written into the CUDA as `#define`s
//! from the constants here). A variant's hooks (`kinds::lp`) are fused in through the
//! templates' `PROGRAM` slot; nothing here depends on which variant.

pub mod giants;
pub mod mfl;
pub mod sketch;
pub mod sort;
