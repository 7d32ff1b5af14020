"""Array conversions at the package's edges: anything array-like in, NumPy or torch out."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np


def is_torch(value: Any) -> bool:
    """Whether ``value`` is a torch tensor (without importing torch when it is not loaded)."""
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def to_numpy(value: Any, dtype: Any, name: str) -> np.ndarray:
    """``value`` (a NumPy array, a torch tensor on any device, a list) as a contiguous 1-D
    NumPy array of ``dtype``; integers that do not fit, fractions where integers are expected
    and arrays of other shapes are ``ValueError``s naming ``name``."""
    if is_torch(value):
        value = value.detach().cpu().numpy()
    array = np.asarray(value)
    if array.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {array.shape}")
    if np.issubdtype(np.dtype(dtype), np.integer):
        if array.size and not (np.issubdtype(array.dtype, np.integer) or array.dtype == bool):
            if not np.all(np.isfinite(array)) or not np.all(np.equal(np.mod(array, 1), 0)):
                raise ValueError(f"{name}: expected integer ids, got {array.dtype} values that are not integers")
        if array.size and np.issubdtype(array.dtype, np.unsignedinteger) and array.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name}: ids above {np.iinfo(np.int64).max} do not fit in int64")
    return np.ascontiguousarray(array, dtype=dtype)


def whole(name: str, value: Any, low: int = 0, high: int = 2**32 - 1) -> int:
    """``value`` as an int in ``low..=high`` (the native argument's range: u32 by default);
    anything else is a ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} = {value!r}: expected a whole number")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} = {value}: expected a whole number from {low} to {high}")
    return int(value)


def output(array: Optional[np.ndarray], as_torch: bool, device: Optional[str] = None) -> Any:
    """``array`` as a NumPy array, or as a torch tensor (sharing its memory on the CPU; on
    ``device`` when given)."""
    if array is None or not as_torch:
        return array
    import torch

    tensor = torch.from_numpy(array)
    return tensor.to(device) if device is not None else tensor
