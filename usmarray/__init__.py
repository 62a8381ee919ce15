"""usmarray: a strict Python array API namespace (standard 2025.12) on USM arrays.

``import usmarray as xp``; every array is a :class:`usm_ndarray` in Unified Shared
Memory of one device (SYCL, CUDA or the NumPy host device) and every operation runs
on its device's queue.  ``USMARRAY_API_VERSION`` selects the version of the standard
this module follows (2023.12, 2024.12 or 2025.12, the default).
"""

import sys as _sys

from ._env import check_cubed_order as _check_cubed_order
from ._env import configure_kernel_cache, configure_opencl_icd

configure_opencl_icd()
configure_kernel_cache()
_check_cubed_order()

from ._name import ModuleName as _ModuleName  # noqa: E402

__name__ = _ModuleName(__name__)  # "usmarray", which SciPy must not take for MArray

from . import _backend  # noqa: E402
from ._array import usm_ndarray  # noqa: E402
from ._constants import e, inf, nan, newaxis, pi  # noqa: E402
from ._creation import *  # noqa: E402,F403
from ._data_type_functions import *  # noqa: E402,F403
from ._backend import register_backend  # noqa: E402
from ._device import (  # noqa: E402
    Device, ExecutionPlacementError, set_default_device, using_device,
)
from ._dtypes import DType  # noqa: E402
from ._hints import ImplicitConversionWarning  # noqa: E402
from ._dtypes import PUBLIC as _PUBLIC_DTYPES  # noqa: E402

globals().update({_d.name: _p for _d, _p in _PUBLIC_DTYPES.items()})
bool: DType  # the standard's dtype names, bound just above
int8: DType
int16: DType
int32: DType
int64: DType
uint8: DType
uint16: DType
uint32: DType
uint64: DType
float32: DType
float64: DType
complex64: DType
complex128: DType
from ._elementwise import (  # noqa: E402
    abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, bitwise_and,
    bitwise_invert, bitwise_left_shift, bitwise_or, bitwise_right_shift, bitwise_xor,
    ceil, clip, conj, copysign, cos, cosh, divide, equal, exp, expm1, floor,
    floor_divide, greater, greater_equal, hypot, imag, isfinite, isinf, isnan, less,
    less_equal, log, log1p, log2, log10, logaddexp, logical_and, logical_not,
    logical_or, logical_xor, maximum, minimum, multiply, negative, nextafter,
    not_equal, positive, pow, real, reciprocal, remainder, round, sign, signbit, sin,
    sinh, sqrt, square, subtract, tan, tanh, trunc,
)
from ._indexing_functions import *  # noqa: E402,F403
from .kernels._fuse import fuse  # noqa: E402
from ._linalg_main import matmul, matrix_transpose, tensordot, vecdot  # noqa: E402
from ._manipulation import *  # noqa: E402,F403
from ._migration import asnumpy  # noqa: E402
from ._searching import *  # noqa: E402,F403
from ._sets import *  # noqa: E402,F403
from ._sorting import *  # noqa: E402,F403
from ._statistical import *  # noqa: E402,F403
from ._utility import *  # noqa: E402,F403

__array_api_version__ = "2025.12"
__version__ = "0.1.0"

#: the SYCL kernel provider in use: "dpnp.tensor", "dpctl.tensor", or None without SYCL
provider = _backend.sycl.provider_name if _backend.sycl is not None else None
from . import linalg, fft  # noqa: E402
from . import _operators, _versions  # noqa: E402
from ._serial import serialize_namespace as _serialize_namespace  # noqa: E402

__array_namespace_info__ = _versions.info_function(__array_api_version__)
for _ns in (globals(), vars(linalg), vars(fft)):
    _serialize_namespace(_ns)
_versions.remember(globals())
if _versions.configured() != __array_api_version__:
    _versions.adapt(globals(), _versions.configured())


def _array_namespace(self: usm_ndarray, /, *, api_version: str | None = None) -> object:
    """The namespace of the array API standard's ``api_version`` (None: ``usmarray``)."""
    return _versions.namespace(_sys.modules[__name__], api_version)


_operators.install(_array_namespace)


def __getattr__(name: str) -> object:
    """A missing name: AttributeError naming the standard's spelling where one exists, or
    the version of the standard that added it when USMARRAY_API_VERSION is older."""
    from ._hints import MissingName

    added = next((v for v, names in _versions.ADDED.items() if name in names.get("", ())),
                 None)
    raise MissingName(__name__, name, globals(), added, _versions.configured())
