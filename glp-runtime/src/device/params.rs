//! A program's parameters as the bytes of a kernel argument.

use glp_codegen::ir::ScalarValue;

/// A program's parameter values as its kind's parameter struct (`glp_lp_params`,
/// `glp_sample_params`: glp-codegen's `cuda::emit_program`), passed by value to kernels: fields in order, each
/// aligned to its size, the whole padded to the largest alignment; an empty struct is one
/// byte, as in C++.
pub fn param_block(values: &[ScalarValue]) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut align = 1;
    for value in values {
        let size = value.scalar().size();
        align = align.max(size);
        while bytes.len() % size != 0 {
            bytes.push(0);
        }
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    while bytes.len() % align != 0 || bytes.is_empty() {
        bytes.push(0);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_blocks_follow_the_c_layout() {
        assert_eq!(param_block(&[]), vec![0]);
        assert_eq!(param_block(&[ScalarValue::F64(1.0)]), 1.0f64.to_le_bytes().to_vec());
        // u32 then f64: 4 bytes of padding before the double; bool then u32: 3 bytes.
        let block = param_block(&[ScalarValue::U32(7), ScalarValue::F64(2.0)]);
        assert_eq!(block.len(), 16);
        assert_eq!(&block[0..4], &7u32.to_le_bytes());
        assert_eq!(&block[8..16], &2.0f64.to_le_bytes());
        let block = param_block(&[ScalarValue::Bool(true), ScalarValue::U32(9), ScalarValue::Bool(false)]);
        assert_eq!(block, vec![1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
    }
}
