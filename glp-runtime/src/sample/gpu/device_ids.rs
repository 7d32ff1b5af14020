//! Vertices as input ids on the device, for the outputs that stay there ([`super::device_walks`],
//! [`super::device_subgraphs`]): kernels write `ids[v]`, or `first_id + v` when the graph's ids
//! are a range.

use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::graph::VertexIds;

/// A graph's input ids where kernels read them.
pub(super) struct DeviceIds {
    /// The input id of vertex 0 when the ids are a range.
    pub first_id: u64,
    /// The input id of every vertex otherwise.
    table: Option<DeviceBuffer<u64>>,
}

impl DeviceIds {
    /// Device bytes [`DeviceIds::upload`] takes for `ids`.
    pub fn bytes(ids: &VertexIds) -> u64 {
        match ids {
            VertexIds::Table(table) => table.len() as u64 * 8,
            VertexIds::Range { .. } => 0,
        }
    }

    /// `ids` on `gpu` (a range takes no memory).
    pub fn upload(gpu: &Gpu, ids: &VertexIds) -> Result<DeviceIds> {
        Ok(match ids {
            VertexIds::Range { first, .. } => DeviceIds { first_id: *first, table: None },
            VertexIds::Table(table) => DeviceIds { first_id: 0, table: Some(gpu.upload("vertex ids", table)?) },
        })
    }

    /// The table's device address, 0 for a range.
    pub fn table(&self) -> u64 {
        self.table.as_ref().map_or(0, DeviceBuffer::device_ptr)
    }
}
