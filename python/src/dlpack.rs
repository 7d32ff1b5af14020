//! Device arrays handed to PyTorch (or any DLPack consumer: CuPy, JAX) without a copy:
//! [`DeviceArray`] implements the DLPack protocol (`__dlpack__`, `__dlpack_device__`) over a
//! buffer glp allocated on the GPU, which the consumer's tensor then owns: the buffer is freed
//! when that tensor is.
//!
//! The structures below are DLPack's C ABI (dlpack.h, version 0.8 and later; the ABI of the
//! unversioned `DLManagedTensor` that every consumer accepts), written out here because they
//! are a few fixed `repr(C)` structs.

use glp::device::DeviceBuffer;
use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::ffi::{c_void, CStr};

/// `DLDeviceType::kDLCUDA`.
const DL_CUDA: i32 = 2;
/// `DLDataTypeCode::kDLInt`.
const DL_INT: u8 = 0;
/// The name of a capsule no consumer took yet (a consumer renames it `used_dltensor`).
const DLTENSOR: &CStr = c"dltensor";

#[repr(C)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// What a managed tensor owns: the buffer and the shape and strides its `DLTensor` points at.
struct Owned {
    _buffer: DeviceBuffer<i64>,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

/// Frees a managed tensor and what it owns (called by its consumer, once).
unsafe extern "C" fn delete_managed(managed: *mut DLManagedTensor) {
    if managed.is_null() {
        return;
    }
    // SAFETY: `managed` and its context were leaked from boxes by `DeviceArray::__dlpack__`,
    // and the protocol calls the deleter exactly once.
    let (owned, managed) = unsafe { (Box::from_raw((*managed).manager_ctx.cast::<Owned>()), Box::from_raw(managed)) };
    // The consumer frees its tensor from any thread, maybe with its own kernels still reading
    // it on another stream: bind glp's context to this thread and let the device finish first.
    let context = owned._buffer.slice().stream().context().clone();
    let _ = context.bind_to_thread();
    let _ = context.synchronize();
    drop(owned);
    drop(managed);
}

/// Frees a capsule's tensor when no consumer took it (its name is still `dltensor`).
unsafe extern "C" fn delete_capsule(capsule: *mut ffi::PyObject) {
    // SAFETY: called by Python with the capsule being destroyed; a consumed capsule was
    // renamed `used_dltensor` and its tensor belongs to the consumer.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, DLTENSOR.as_ptr()) == 1 {
            let managed = ffi::PyCapsule_GetPointer(capsule, DLTENSOR.as_ptr()).cast::<DLManagedTensor>();
            delete_managed(managed);
        }
    }
}

/// An int64 array on the GPU, 1-D or 2-D (rows `stride` entries apart), exported once
/// through DLPack.
#[pyclass(module = "glp._glp", name = "DeviceArray")]
pub struct DeviceArray {
    buffer: Option<DeviceBuffer<i64>>,
    shape: Vec<i64>,
    strides: Vec<i64>,
    device: i32,
}

impl DeviceArray {
    /// `rows x columns` entries of `buffer`, row `r` starting at entry `r * stride`, on the
    /// CUDA device `device`.
    pub fn matrix(buffer: DeviceBuffer<i64>, rows: u64, columns: u64, stride: u64, device: i32) -> Self {
        DeviceArray {
            buffer: Some(buffer),
            shape: vec![rows as i64, columns as i64],
            strides: vec![stride as i64, 1],
            device,
        }
    }

    /// The first `len` entries of `buffer` (which may hold more), on the CUDA device `device`.
    pub fn vector(buffer: DeviceBuffer<i64>, len: u64, device: i32) -> Self {
        DeviceArray { buffer: Some(buffer), shape: vec![len as i64], strides: vec![1], device }
    }
}

#[pymethods]
impl DeviceArray {
    /// The array as a DLPack capsule (the protocol's `__dlpack__`); the consumer then owns
    /// the device memory. The data is complete: glp synchronised its stream before returning
    /// the array, so no stream needs to wait.
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__(
        &mut self,
        py: Python<'_>,
        stream: Option<Py<PyAny>>,
        max_version: Option<Py<PyAny>>,
        dl_device: Option<Py<PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let _ = (stream, max_version, dl_device);
        if copy == Some(true) {
            return Err(PyBufferError::new_err("glp's device arrays are exported without a copy (copy=True)"));
        }
        let buffer = self
            .buffer
            .take()
            .ok_or_else(|| PyBufferError::new_err("this device array was already exported (DLPack takes it once)"))?;
        let data = buffer.device_ptr() as *mut c_void;
        let ndim = self.shape.len() as i32;
        let owned = Box::into_raw(Box::new(Owned {
            _buffer: buffer,
            shape: self.shape.clone(),
            strides: self.strides.clone(),
        }));
        // SAFETY: `owned` was just leaked and stays alive until the deleter, and its vectors are
        // never resized, so their heap pointers stay valid; the pointers are taken from the raw
        // pointer, so no reference aliases them.
        let (shape, strides) = unsafe { ((*owned).shape.as_mut_ptr(), (*owned).strides.as_mut_ptr()) };
        let managed = Box::new(DLManagedTensor {
            dl_tensor: DLTensor {
                data,
                device: DLDevice { device_type: DL_CUDA, device_id: self.device },
                ndim,
                dtype: DLDataType { code: DL_INT, bits: 64, lanes: 1 },
                shape,
                strides,
                byte_offset: 0,
            },
            manager_ctx: owned.cast::<c_void>(),
            deleter: Some(delete_managed),
        });
        let managed = Box::into_raw(managed);
        // SAFETY: a capsule over the leaked tensor, with the destructor that frees it unless a
        // consumer renamed the capsule (the protocol's contract).
        unsafe {
            let capsule = ffi::PyCapsule_New(managed.cast::<c_void>(), DLTENSOR.as_ptr(), Some(delete_capsule));
            if capsule.is_null() {
                delete_managed(managed);
                return Err(PyErr::fetch(py));
            }
            Ok(Bound::from_owned_ptr(py, capsule).unbind())
        }
    }

    /// `(kDLCUDA, device)`: where the array is.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (DL_CUDA, self.device)
    }

    /// `(length,)` or `(rows, columns)`.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.shape)
    }

    fn __repr__(&self) -> String {
        format!("glp.DeviceArray(int64, shape {:?}, cuda:{})", self.shape, self.device)
    }
}
