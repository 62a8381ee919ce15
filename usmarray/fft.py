"""The ``fft`` extension of the array API standard (2025.12), on the arrays' device.

Transforms run on the operand's SYCL device through oneMKL's DFT (reached through
``dpnp.fft`` by ``usmarray._backend._sycl.onemkl``, zero-copy); without dpnp they fall back
to NumPy on the host (see ``docs/linalg_fft.md``).  ``fftfreq``, ``rfftfreq``,
``fftshift`` and ``ifftshift`` are built from the kernel provider's device kernels.

Strictness: ``fft``, ``ifft``, ``fftn``, ``ifftn``, ``irfft``, ``irfftn`` and ``hfft``
take complex floating-point input; ``rfft``, ``rfftn`` and ``ihfft`` real floating-point
input; the shifts any floating-point input.  ``norm`` is one of "backward", "ortho",
"forward"; ``n`` and the entries of ``s`` are positive ints (``-1`` in ``s`` keeps the
default size); ``s`` needs ``axes``; repeated axes are refused.  Wrong dtypes raise
``TypeError``, wrong arguments ``ValueError``, out-of-range axes ``IndexError``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._helpers import alloc_failed, check_array, check_nbytes
from ._params import integer, real
from ._placement import check_device_dtype, default_float, placement

__all__ = [
    "fft", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifftn", "ifftshift", "ihfft",
    "irfft", "irfftn", "rfft", "rfftfreq", "rfftn",
]

_NORMS = ("backward", "ortho", "forward")
_REAL_OF = {dt.complex64: dt.float32, dt.complex128: dt.float64}
_COMPLEX_OF = {dt.float32: dt.complex64, dt.float64: dt.complex128}

# kind -> (input category, input category name, output dtype map or None for "same")
_KINDS: dict[str, tuple[frozenset, str, dict | None]] = {
    "fft": (dt.COMPLEX_FLOATING, "complex floating-point", None),
    "ifft": (dt.COMPLEX_FLOATING, "complex floating-point", None),
    "rfft": (dt.REAL_FLOATING, "real floating-point", _COMPLEX_OF),
    "ihfft": (dt.REAL_FLOATING, "real floating-point", _COMPLEX_OF),
    "irfft": (dt.COMPLEX_FLOATING, "complex floating-point", _REAL_OF),
    "hfft": (dt.COMPLEX_FLOATING, "complex floating-point", _REAL_OF),
    "fftn": (dt.COMPLEX_FLOATING, "complex floating-point", None),
    "ifftn": (dt.COMPLEX_FLOATING, "complex floating-point", None),
    "rfftn": (dt.REAL_FLOATING, "real floating-point", _COMPLEX_OF),
    "irfftn": (dt.COMPLEX_FLOATING, "complex floating-point", _REAL_OF),
}


# ---- argument checks --------------------------------------------------------------------------
def _input(x: Any, fname: str) -> tuple[Any, Any, Any]:
    check_array(x, f"fft.{fname}")
    a = x._arr
    category, catname, out_map = _KINDS[fname]
    if a.dtype not in category:
        raise TypeError(
            f"fft.{fname} is defined for {catname} input only, got dtype {a.dtype}"
            + ("; convert real input with astype(x, complex128) (or use rfft)"
               if category is dt.COMPLEX_FLOATING and a.dtype in dt.REAL_FLOATING else "")
        )
    if a.ndim == 0:
        raise ValueError(f"fft.{fname}: x must have at least one dimension, got a 0-D array")
    out_dtype = a.dtype if out_map is None else out_map[a.dtype]
    return x._be, a, out_dtype


def _norm(norm: Any, fname: str) -> str:
    if not isinstance(norm, str) or norm not in _NORMS:
        raise ValueError(
            f"fft.{fname}: norm must be 'backward', 'ortho' or 'forward', got {norm!r}"
        )
    return norm


def _int(v: Any, fname: str, what: str) -> int:
    return integer(v, f"fft.{fname}", what)


def _axis(axis: Any, ndim: int, fname: str) -> int:
    axis = _int(axis, fname, "axis")
    if not -ndim <= axis < ndim:
        raise IndexError(
            f"fft.{fname}: axis {axis} is out of range for an array of {ndim} dimensions "
            f"(allowed: {-ndim} .. {ndim - 1})"
        )
    return axis % ndim


def _size(v: Any, fname: str, what: str) -> int:
    v = _int(v, fname, what)
    if v < 1:
        raise ValueError(f"fft.{fname}: {what} must be a positive number of points, got {v}")
    return v


def _axes_and_sizes(
    a: Any, s: Any, axes: Any, fname: str
) -> tuple[tuple[int, ...], list[int | None]]:
    """Normalized axes and the requested sizes (None where the default applies)."""
    nd = a.ndim
    if axes is None:
        if s is not None:
            raise ValueError(
                f"fft.{fname}: s was given without axes; pass axes naming the axis of "
                "each entry of s"
            )
        return tuple(range(nd)), [None] * nd
    if not isinstance(axes, Sequence) or isinstance(axes, str):
        raise TypeError(f"fft.{fname}: axes must be a sequence of ints, got {axes!r}")
    norm_axes = tuple(_axis(ax, nd, fname) for ax in axes)
    if len(set(norm_axes)) != len(norm_axes):
        raise ValueError(f"fft.{fname}: repeated axis in axes={tuple(axes)}; name each once")
    if s is None:
        return norm_axes, [None] * len(norm_axes)
    if not isinstance(s, Sequence) or isinstance(s, str):
        raise TypeError(f"fft.{fname}: s must be a sequence of ints, got {s!r}")
    if len(s) != len(norm_axes):
        raise ValueError(
            f"fft.{fname}: s and axes must have the same length, got s={tuple(s)} and "
            f"axes={tuple(axes)}"
        )
    sizes: list[int | None] = []
    for v in s:
        v = _int(v, fname, "each entry of s")
        if v == -1:
            sizes.append(None)
        elif v < 1:
            raise ValueError(
                f"fft.{fname}: the entries of s must be positive (or -1 for the default "
                f"size), got s={tuple(s)}"
            )
        else:
            sizes.append(v)
    return norm_axes, sizes


def _empty_or_zeros(be: Any, a: Any, shape: tuple, dtype: Any) -> usm_ndarray:
    """Result of a transform with no input data: empty, or zeros (an all-zero padded
    input transforms to zeros)."""
    return wrap_with(be, be.zeros(shape, dtype=dtype, usm_type=be.usm_type_of(a),
                                  queue=be.queue_of(a)))


def _finish(be: Any, raw: Any, dtype: Any) -> usm_ndarray:
    return wrap_with(be, raw if raw.dtype == dtype else be.astype(raw, dtype))


def _run(kind: str, be: Any, a: Any, out_shape: tuple, out_dtype: Any, **kw: Any) -> usm_ndarray:
    """The transform ``kind`` of ``a``, whose result has ``out_shape``; a result that
    cannot be allocated is a MemoryError naming its size."""
    nbytes = math.prod(out_shape) * out_dtype.itemsize
    check_nbytes(be, a, nbytes, f"fft.{kind}")
    try:
        if nbytes == 0 or a.size == 0:
            return _empty_or_zeros(be, a, out_shape, out_dtype)
        return _finish(be, be.fft(kind, a, **kw), out_dtype)
    except Exception as exc:
        alloc_failed(exc, be, a, nbytes, f"fft.{kind}")


# ---- one-dimensional transforms -------------------------------------------------------------
def _transform_1d(kind: str, x: Any, n: Any, axis: Any, norm: Any) -> usm_ndarray:
    be, a, out_dtype = _input(x, kind)
    norm = _norm(norm, kind)
    ax = _axis(axis, a.ndim, kind)
    m = a.shape[ax]
    if n is not None:
        n = _size(n, kind, "n")
    if kind in ("irfft", "hfft"):
        out_len = max(2 * (m - 1), 0) if n is None else n  # an empty axis: 0, not -2
    elif kind in ("rfft", "ihfft"):
        out_len = (m if n is None else n) // 2 + 1
    else:
        out_len = m if n is None else n
    out_shape = a.shape[:ax] + (out_len,) + a.shape[ax + 1:]
    return _run(kind, be, a, out_shape, out_dtype, n=n, axis=ax, norm=norm)


def fft(x: usm_ndarray, /, *, n: int | None = None, axis: int = -1,
        norm: str = "backward") -> usm_ndarray:
    """One-dimensional discrete Fourier transform of ``x`` along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a complex floating-point dtype (complex64 or complex128), at least
        1-D.
    n : int, optional
        Number of points along ``axis``: the input is zero-padded or trimmed to it; None:
        its length.
    axis : int, optional
        The axis to transform (negative counts from the end).  Default -1.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this transform: none (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or ``1/n`` (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The transform, of ``x``'s dtype and shape with ``n`` points along ``axis``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a real ``x`` (cast it with ``usmarray.astype``),
        integer or bool input; ``n`` or ``axis`` not an int.
    ValueError
        A 0-D ``x``; ``n`` less than 1; ``norm`` not one of the three.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses real input (NumPy converts it), and ``norm=None`` (write
    ``"backward"``).

    See Also
    --------
    [array_api.fft.fft](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.fft.html): the standard's specification.
    """
    return _transform_1d("fft", x, n, axis, norm)


def ifft(x: usm_ndarray, /, *, n: int | None = None, axis: int = -1,
         norm: str = "backward") -> usm_ndarray:
    """One-dimensional inverse discrete Fourier transform of ``x`` along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a complex floating-point dtype (complex64 or complex128), at least
        1-D.
    n : int, optional
        Number of points along ``axis``: the input is zero-padded or trimmed to it; None:
        its length.
    axis : int, optional
        The axis to transform (negative counts from the end).  Default -1.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this inverse transform: ``1/n`` (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or none (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The inverse transform, of ``x``'s dtype and shape with ``n`` points along ``axis``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a real ``x`` (cast it with ``usmarray.astype``),
        integer or bool input; ``n`` or ``axis`` not an int.
    ValueError
        A 0-D ``x``; ``n`` less than 1; ``norm`` not one of the three.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses real input (NumPy converts it), and ``norm=None`` (write
    ``"backward"``).

    See Also
    --------
    [array_api.fft.ifft](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.ifft.html): the standard's specification.
    """
    return _transform_1d("ifft", x, n, axis, norm)


def rfft(x: usm_ndarray, /, *, n: int | None = None, axis: int = -1,
         norm: str = "backward") -> usm_ndarray:
    """One-dimensional discrete Fourier transform of real ``x`` along ``axis``: its ``n//2 +
    1`` non-negative frequency terms.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a real floating-point dtype (float32 or float64), at least 1-D.
    n : int, optional
        Number of points along ``axis``: the input is zero-padded or trimmed to it; None:
        its length.
    axis : int, optional
        The axis to transform (negative counts from the end).  Default -1.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this transform: none (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or ``1/n`` (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The transform, complex of ``x``'s precision, with ``n//2 + 1`` points along
        ``axis``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a complex ``x``, integer or bool input; ``n`` or
        ``axis`` not an int.
    ValueError
        A 0-D ``x``; ``n`` less than 1; ``norm`` not one of the three.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses complex input (NumPy discards the imaginary part), and ``norm=None``
    (write ``"backward"``).

    See Also
    --------
    [array_api.fft.rfft](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.rfft.html): the standard's specification.
    """
    return _transform_1d("rfft", x, n, axis, norm)


def irfft(x: usm_ndarray, /, *, n: int | None = None, axis: int = -1,
          norm: str = "backward") -> usm_ndarray:
    """Inverse of ``rfft``: the real signal whose non-negative frequency terms ``x`` holds,
    along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a complex floating-point dtype (complex64 or complex128), at least
        1-D.
    n : int, optional
        Number of real output points; the input is zero-padded or trimmed to ``n//2 + 1``
        points.  None: ``2*(m - 1)``, ``m`` the input's length.
    axis : int, optional
        The axis to transform (negative counts from the end).  Default -1.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this inverse transform: ``1/n`` (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or none (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The real signal, of the real floating dtype of ``x``'s precision, with ``n`` points
        along ``axis``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a real ``x`` (cast it with ``usmarray.astype``),
        integer or bool input; ``n`` or ``axis`` not an int.
    ValueError
        A 0-D ``x``; ``n`` less than 1; ``norm`` not one of the three.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses real input, and ``norm=None`` (write ``"backward"``).

    See Also
    --------
    [array_api.fft.irfft](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.irfft.html): the standard's specification.
    """
    return _transform_1d("irfft", x, n, axis, norm)


def hfft(x: usm_ndarray, /, *, n: int | None = None, axis: int = -1,
         norm: str = "backward") -> usm_ndarray:
    """Discrete Fourier transform of a Hermitian-symmetric signal given by its first half
    ``x``, along ``axis``: a real spectrum.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a complex floating-point dtype (complex64 or complex128), at least
        1-D.
    n : int, optional
        Number of real output points; the input is zero-padded or trimmed to ``n//2 + 1``
        points.  None: ``2*(m - 1)``, ``m`` the input's length.
    axis : int, optional
        The axis to transform (negative counts from the end).  Default -1.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this transform: none (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or ``1/n`` (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The real transform, of the real floating dtype of ``x``'s precision, with ``n``
        points along ``axis``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a real ``x`` (cast it with ``usmarray.astype``),
        integer or bool input; ``n`` or ``axis`` not an int.
    ValueError
        A 0-D ``x``; ``n`` less than 1; ``norm`` not one of the three.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses real input, and ``norm=None`` (write ``"backward"``).

    See Also
    --------
    [array_api.fft.hfft](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.hfft.html): the standard's specification.
    """
    return _transform_1d("hfft", x, n, axis, norm)


def ihfft(x: usm_ndarray, /, *, n: int | None = None, axis: int = -1,
          norm: str = "backward") -> usm_ndarray:
    """Inverse of ``hfft``: the first half of the Hermitian-symmetric signal whose transform is
    the real ``x``, along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a real floating-point dtype (float32 or float64), at least 1-D.
    n : int, optional
        Number of points along ``axis``: the input is zero-padded or trimmed to it; None:
        its length.
    axis : int, optional
        The axis to transform (negative counts from the end).  Default -1.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this inverse transform: ``1/n`` (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or none (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The half signal, complex of ``x``'s precision, with ``n//2 + 1`` points along
        ``axis``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a complex ``x``, integer or bool input; ``n`` or
        ``axis`` not an int.
    ValueError
        A 0-D ``x``; ``n`` less than 1; ``norm`` not one of the three.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses complex input, and ``norm=None`` (write ``"backward"``).

    See Also
    --------
    [array_api.fft.ihfft](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.ihfft.html): the standard's specification.
    """
    return _transform_1d("ihfft", x, n, axis, norm)


# ---- n-dimensional transforms -------------------------------------------------------------
def _transform_nd(kind: str, x: Any, s: Any, axes: Any, norm: Any) -> usm_ndarray:
    be, a, out_dtype = _input(x, kind)
    norm = _norm(norm, kind)
    axes_t, sizes = _axes_and_sizes(a, s, axes, kind)
    if not axes_t:
        if kind in ("rfftn", "irfftn"):
            raise ValueError(f"fft.{kind}: axes must name at least one axis")
        return wrap_with(be, be.copy(a))
    full = [a.shape[ax] if v is None else v for ax, v in zip(axes_t, sizes, strict=True)]
    last = axes_t[-1]
    out_shape = list(a.shape)
    for ax, v in zip(axes_t, full, strict=True):
        out_shape[ax] = v
    if kind == "irfftn" and sizes[-1] is None:
        full[-1] = max(2 * (a.shape[last] - 1), 0)  # an empty axis: 0 points, not -2
        out_shape[last] = full[-1]
    if kind == "rfftn":
        out_shape[last] = full[-1] // 2 + 1
    return _run(kind, be, a, tuple(out_shape), out_dtype, s=full, axes=axes_t, norm=norm)


def fftn(x: usm_ndarray, /, *, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None, norm: str = "backward") -> usm_ndarray:
    """n-dimensional discrete Fourier transform of ``x`` over ``axes``.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a complex floating-point dtype (complex64 or complex128), at least
        1-D.
    s : sequence of int, optional
        Number of points per axis of ``axes``: the input is zero-padded or trimmed to it;
        -1: the input's length.  Needs ``axes``.
    axes : sequence of int, optional
        The axes to transform, each named once (negative counts from the end); None: every
        axis.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this transform: none (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or ``1/n`` (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The transform, of ``x``'s dtype, with ``s[i]`` points along ``axes[i]``; ``x``'s
        copy for an empty ``axes``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a real ``x`` (cast it with ``usmarray.astype``),
        integer or bool input; ``s`` or ``axes`` not a sequence of ints.
    ValueError
        A 0-D ``x``; ``s`` without ``axes`` or of another length; an entry of ``s`` less
        than 1 other than -1; a repeated axis; ``norm`` not one of the three.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses real input, ``s`` without ``axes``, repeated axes and ``norm=None``.

    See Also
    --------
    [array_api.fft.fftn](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.fftn.html): the standard's specification.
    """
    return _transform_nd("fftn", x, s, axes, norm)


def ifftn(x: usm_ndarray, /, *, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: str = "backward") -> usm_ndarray:
    """n-dimensional inverse discrete Fourier transform of ``x`` over ``axes``.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a complex floating-point dtype (complex64 or complex128), at least
        1-D.
    s : sequence of int, optional
        Number of points per axis of ``axes``: the input is zero-padded or trimmed to it;
        -1: the input's length.  Needs ``axes``.
    axes : sequence of int, optional
        The axes to transform, each named once (negative counts from the end); None: every
        axis.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this inverse transform: ``1/n`` (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or none (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The inverse transform, of ``x``'s dtype, with ``s[i]`` points along ``axes[i]``;
        ``x``'s copy for an empty ``axes``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a real ``x`` (cast it with ``usmarray.astype``),
        integer or bool input; ``s`` or ``axes`` not a sequence of ints.
    ValueError
        A 0-D ``x``; ``s`` without ``axes`` or of another length; an entry of ``s`` less
        than 1 other than -1; a repeated axis; ``norm`` not one of the three.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses real input, ``s`` without ``axes``, repeated axes and ``norm=None``.

    See Also
    --------
    [array_api.fft.ifftn](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.ifftn.html): the standard's specification.
    """
    return _transform_nd("ifftn", x, s, axes, norm)


def rfftn(x: usm_ndarray, /, *, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: str = "backward") -> usm_ndarray:
    """n-dimensional discrete Fourier transform of real ``x`` over ``axes``, halved along the
    last one.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a real floating-point dtype (float32 or float64), at least 1-D.
    s : sequence of int, optional
        Number of points per axis of ``axes``: the input is zero-padded or trimmed to it;
        -1: the input's length.  Needs ``axes``.
    axes : sequence of int, optional
        The axes to transform, each named once (negative counts from the end); None: every
        axis.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this transform: none (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or ``1/n`` (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The transform, complex of ``x``'s precision: ``s[i]`` points along ``axes[i]``,
        ``s[-1]//2 + 1`` along the last.  ``axes`` must name an axis.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a complex ``x``, integer or bool input; ``s`` or
        ``axes`` not a sequence of ints.
    ValueError
        A 0-D ``x``; ``s`` without ``axes`` or of another length; an entry of ``s`` less
        than 1 other than -1; a repeated axis; ``norm`` not one of the three.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses complex input, ``s`` without ``axes``, repeated axes and ``norm=None``.

    See Also
    --------
    [array_api.fft.rfftn](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.rfftn.html): the standard's specification.
    """
    return _transform_nd("rfftn", x, s, axes, norm)


def irfftn(x: usm_ndarray, /, *, s: Sequence[int] | None = None,
           axes: Sequence[int] | None = None, norm: str = "backward") -> usm_ndarray:
    """Inverse of ``rfftn``: the real n-dimensional signal whose transform ``x`` holds.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a complex floating-point dtype (complex64 or complex128), at least
        1-D.
    s : sequence of int, optional
        Number of real output points per axis of ``axes``; -1: the input's length, or ``2*(m
        - 1)`` for the last axis.  Needs ``axes``.
    axes : sequence of int, optional
        The axes to transform, each named once (negative counts from the end); None: every
        axis.
    norm : {"backward", "ortho", "forward"}, optional
        Scaling of this inverse transform: ``1/n`` (``"backward"``, default), ``1/sqrt(n)``
        (``"ortho"``) or none (``"forward"``), ``n`` the number of points.

    Returns
    -------
    usm_ndarray
        The real signal, of the real floating dtype of ``x``'s precision, with ``s[i]``
        points along ``axes[i]``.  ``axes`` must name an axis.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a real ``x`` (cast it with ``usmarray.astype``),
        integer or bool input; ``s`` or ``axes`` not a sequence of ints.
    ValueError
        A 0-D ``x``; ``s`` without ``axes`` or of another length; an entry of ``s`` less
        than 1 other than -1; a repeated axis; ``norm`` not one of the three.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the transform runs on ``x``'s device (oneMKL's DFT on SYCL
    devices, cuFFT through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses real input, ``s`` without ``axes``, repeated axes and ``norm=None``.

    See Also
    --------
    [array_api.fft.irfftn](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.irfftn.html): the standard's specification.
    """
    return _transform_nd("irfftn", x, s, axes, norm)


# ---- frequencies and shifts ---------------------------------------------------------------------
def _freq_args(fname: str, n: Any, d: Any, dtype: Any, device: Any) -> tuple:
    n = _size(n, fname, "n")
    d = real(d, f"fft.{fname}", "d")
    if d == 0 or not math.isfinite(d):
        raise ValueError(f"fft.{fname}: d must be a finite nonzero sample spacing, got {d}")
    be, q, ut = placement(device, None, None, f"fft.{fname}")
    if dtype is None:
        out = default_float(q)
    else:
        out = dt.check_dtype(dtype)
        if out not in dt.REAL_FLOATING:
            raise TypeError(f"fft.{fname}: dtype must be a real floating-point dtype, got {out}")
        check_device_dtype(out, q, f"fft.{fname}")
    return n, float(d), out, be, q, ut


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> usm_ndarray:
    """Sample frequencies of an ``n``-point discrete Fourier transform with sample spacing
    ``d``.

    Parameters
    ----------
    n : int
        Number of points of the transform; positive.
    d : float, optional
        Sample spacing (the inverse of the sampling rate); finite and nonzero.  Default 1.0.
    dtype : DType, optional
        A real floating dtype; None: the device's default real floating dtype.
    device : Device, str or a backend's device or queue, optional
        Where the result lives; None: the default device.

    Returns
    -------
    usm_ndarray
        A 1-D array of ``n`` frequencies ``[0, 1, ..., -(n//2), ..., -1] / (d*n)``.

    Raises
    ------
    TypeError
        ``n`` not an int; ``d`` not an int or float; ``dtype`` not a real floating dtype.
    ValueError
        ``n`` less than 1; ``d`` zero or not finite; an unknown device; float64 on a device
        without double precision.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Made on ``device`` from the backend's kernels, in its default memory kind.  Unlike
    NumPy, usmarray takes ``d`` by keyword only.

    See Also
    --------
    [array_api.fft.fftfreq](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.fftfreq.html): the standard's specification.
    """
    n, d, out, be, q, ut = _freq_args("fftfreq", n, d, dtype, device)
    pt = be
    check_nbytes(be, q, n * out.itemsize, "fft.fftfreq")
    try:
        k = pt.arange(0, n, dtype=out, usm_type=ut, queue=q)
        half = (n - 1) // 2 + 1
        k = pt.where(pt.greater_equal(k, half), pt.subtract(k, float(n)), k)
        return wrap_with(be, be.astype(pt.multiply(k, 1.0 / (n * d)), out))
    except Exception as exc:
        alloc_failed(exc, be, q, n * out.itemsize, "fft.fftfreq")


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> usm_ndarray:
    """Non-negative sample frequencies of an ``n``-point real transform (``rfft``) with sample
    spacing ``d``.

    Parameters
    ----------
    n : int
        Number of points of the transform; positive.
    d : float, optional
        Sample spacing (the inverse of the sampling rate); finite and nonzero.  Default 1.0.
    dtype : DType, optional
        A real floating dtype; None: the device's default real floating dtype.
    device : Device, str or a backend's device or queue, optional
        Where the result lives; None: the default device.

    Returns
    -------
    usm_ndarray
        A 1-D array of ``n//2 + 1`` frequencies ``[0, 1, ..., n//2] / (d*n)``.

    Raises
    ------
    TypeError
        ``n`` not an int; ``d`` not an int or float; ``dtype`` not a real floating dtype.
    ValueError
        ``n`` less than 1; ``d`` zero or not finite; an unknown device; float64 on a device
        without double precision.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Made on ``device`` from the backend's kernels, in its default memory kind.  Unlike
    NumPy, usmarray takes ``d`` by keyword only.

    See Also
    --------
    [array_api.fft.rfftfreq](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.rfftfreq.html): the standard's specification.
    """
    n, d, out, be, q, ut = _freq_args("rfftfreq", n, d, dtype, device)
    pt = be
    nbytes = (n // 2 + 1) * out.itemsize
    check_nbytes(be, q, nbytes, "fft.rfftfreq")
    try:
        k = pt.arange(0, n // 2 + 1, dtype=out, usm_type=ut, queue=q)
        return wrap_with(be, be.astype(pt.multiply(k, 1.0 / (n * d)), out))
    except Exception as exc:
        alloc_failed(exc, be, q, nbytes, "fft.rfftfreq")


def _shift(fname: str, x: Any, axes: Any, inverse: bool) -> usm_ndarray:
    check_array(x, f"fft.{fname}")
    a = x._arr
    if a.dtype not in dt.FLOATING:
        raise TypeError(
            f"fft.{fname} is defined for floating-point input only, got dtype {a.dtype}"
        )
    nd = a.ndim
    if axes is None:
        axes_t = tuple(range(nd))
    elif isinstance(axes, Sequence) and not isinstance(axes, str):
        axes_t = tuple(_axis(ax, nd, fname) for ax in axes)
    else:
        axes_t = (_axis(axes, nd, fname),)
    if len(set(axes_t)) != len(axes_t):
        raise ValueError(f"fft.{fname}: repeated axis in axes={axes}; name each once")
    be = x._be
    pt = be
    try:
        if not axes_t:
            return wrap_with(be, be.copy(a))
        shifts = tuple((-(a.shape[ax] // 2) if inverse else a.shape[ax] // 2) for ax in axes_t)
        return wrap_with(be, pt.roll(a, shift=shifts, axis=axes_t))
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * a.itemsize, f"fft.{fname}")


def fftshift(x: usm_ndarray, /, *, axes: int | Sequence[int] | None = None) -> usm_ndarray:
    """The spectrum ``x`` with its zero-frequency term moved to the centre of each axis of
    ``axes``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a floating-point dtype.
    axes : int or sequence of int, optional
        The axes to shift, each named once (negative counts from the end); None: every axis.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s shape and dtype, each axis of ``axes`` rolled by ``n//2``,
        forward, half its length, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; integer or bool input; an axis that is not an int.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses integer input (use ``roll``).

    See Also
    --------
    [array_api.fft.fftshift](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.fftshift.html): the standard's specification.
    """
    return _shift("fftshift", x, axes, inverse=False)


def ifftshift(x: usm_ndarray, /, *, axes: int | Sequence[int] | None = None) -> usm_ndarray:
    """Inverse of ``fftshift``: the zero-frequency term moved back to index 0 of each axis of
    ``axes`` (the two differ by one sample for odd lengths).

    Parameters
    ----------
    x : usm_ndarray
        Array of a floating-point dtype.
    axes : int or sequence of int, optional
        The axes to shift, each named once (negative counts from the end); None: every axis.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s shape and dtype, each axis of ``axes`` rolled by ``n//2``,
        backward, half its length, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; integer or bool input; an axis that is not an int.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses integer input (use ``roll``).

    See Also
    --------
    [array_api.fft.ifftshift](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.fft.ifftshift.html): the standard's specification.
    """
    return _shift("ifftshift", x, axes, inverse=True)


def __getattr__(name: str) -> object:
    """A missing name: AttributeError naming the standard's spelling where one exists."""
    from ._hints import MissingName

    raise MissingName(__name__, name, globals())
