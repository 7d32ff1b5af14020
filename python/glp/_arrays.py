"""Array conversions at the package's edges: anything array-like in, NumPy or torch out."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np


def is_torch(value: Any) -> bool:
    """Whether ``value`` is a torch tensor (without importing torch when it is not loaded)."""
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def to_numpy(value: Any, dtype: Any, name: str) -> np.ndarray:
    """``value`` (a NumPy array, a torch tensor on any device, a list) as a contiguous 1-D
    NumPy array of ``dtype`` (int64 ids or float32 weights).

    Anything else is a ``ValueError`` naming ``name``: arrays of other shapes, strings,
    objects and booleans (a boolean array is a mask, not ids or weights), fractions where
    integers are expected, integers that do not fit in int64."""
    if is_torch(value):
        value = value.detach().cpu().numpy()
    array = np.asarray(value)
    if array.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {array.shape}")
    integers = np.issubdtype(np.dtype(dtype), np.integer)
    what = "integer ids" if integers else "numbers"
    if array.dtype == bool:
        hint = " (a mask? its ids are np.flatnonzero(mask))" if integers else ""
        raise ValueError(f"{name}: expected {what}, got booleans{hint}")
    if array.dtype == object and array.size:
        # Python ints too large for int64, or values of any type: numbers only, as numbers.
        if not all(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in array):
            kinds = sorted({type(x).__name__ for x in array})
            raise ValueError(f"{name}: expected {what}, got values of type {', '.join(kinds)}")
        if integers and all(isinstance(x, (int, np.integer)) for x in array):
            if any(not np.iinfo(np.int64).min <= int(x) <= np.iinfo(np.int64).max for x in array):
                raise ValueError(
                    f"{name}: ids outside int64 (from {np.iinfo(np.int64).min} to {np.iinfo(np.int64).max})"
                )
            array = np.array([int(x) for x in array], dtype=np.int64)
        else:
            array = array.astype(np.float64)
    if array.size and array.dtype.kind not in "iuf":
        raise ValueError(f"{name}: expected {what}, got an array of {array.dtype}")
    if integers:
        if array.size and array.dtype.kind == "f":
            if not np.all(np.isfinite(array)) or not np.all(np.equal(np.mod(array, 1), 0)):
                raise ValueError(f"{name}: expected integer ids, got {array.dtype} values that are not integers")
            if np.any(np.abs(array) >= 2.0**63):
                raise ValueError(
                    f"{name}: ids outside int64 (from {np.iinfo(np.int64).min} to {np.iinfo(np.int64).max})"
                )
        if array.size and array.dtype.kind == "u" and array.max() > np.iinfo(np.int64).max:
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
