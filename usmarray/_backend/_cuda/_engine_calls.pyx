# cython: language_level=3, binding=True, embedsignature=False, auto_pickle=False
"""The compiled form of the CUDA engine's repeated call (see ``elementwise.py``).

:class:`EngineCall` is one elementwise function's call on the engine, the one the
compiled core and the namespace hand a small call to.  A call whose body, plan and
kernel are already known (a repeated call: the same function, dtypes, shapes, strides
and pointer alignment as an earlier one) on plain device memory of the one GPU runs
here without a Python frame: the body and plan lookups, the result from the spare
outputs, the argument pack and the driver's ``cuLaunchKernel`` through its address.
Every other call, and every call the driver refuses, goes to ``slow``: the Python form
of the same call, which works out what is missing, caches it, and raises every error.

Both forms read the same caches (the generator's bodies, the engine's plans, their
compiled kernels) and pack the same bytes (``tests/test_engine_calls.py`` checks it),
so they launch the same kernels with the same arguments.
"""

from libc.math cimport isinf
from libc.stdint cimport int64_t, uint64_t, uintptr_t
from libc.string cimport memcpy, memset

cdef extern from *:
    """
    #ifndef USMARRAY_SOURCE_SHA256
    #define USMARRAY_SOURCE_SHA256 ""
    #endif
    """
    const char* USMARRAY_SOURCE_SHA256

#: the SHA-256 of the .pyx this module was built from (the build passes it)
SOURCE_SHA256 = USMARRAY_SOURCE_SHA256.decode("ascii")
#: the contract with elementwise.py
API = 3

ctypedef int (*launch_t)(void* f, unsigned int gx, unsigned int gy, unsigned int gz,
                         unsigned int bx, unsigned int by, unsigned int bz,
                         unsigned int shared, void* stream, void** params,
                         void** extra) noexcept nogil

cdef enum:
    SLOTS = 128  # 8-byte parameter slots: ``kernels/_launch.ARG_BYTES`` of them

# one argument buffer: every call here holds the GIL from the pack to the launch's
# return, and the driver copies the parameters before it returns
cdef uint64_t _args[SLOTS]
cdef void* _params[SLOTS]
cdef int _i
for _i in range(SLOTS):
    _params[_i] = <void*>&_args[_i]


cdef inline bint _scalar_type(object t):
    return t is float or t is int or t is bool


cdef int _put_scalar(char* at, object v, str code):
    """Write Python scalar ``v`` as the C type of struct code ``code`` (8 bytes, zeroed
    first), as ``struct`` packs it; 1 where ``struct`` would raise or where this form
    does not pack the code (the Python form then packs it, or says why it cannot)."""
    cdef double x
    cdef float y
    memset(at, 0, 8)
    try:
        if code == "f" or code == "d":
            x = <double>v
            if code == "d":
                (<double*>at)[0] = x
            else:
                y = <float>x
                if isinf(y) and not isinf(x):
                    return 1  # struct: float too large to pack with f format
                (<float*>at)[0] = y
            return 0
        if type(v) is float:
            return 1  # an integer parameter of a float value
        if code == "?":
            (<unsigned char*>at)[0] = 1 if v else 0
        elif code == "i":
            (<int*>at)[0] = <int>v
        elif code == "q":
            (<long long*>at)[0] = <long long>v
        elif code == "I" and v >= 0:
            (<unsigned int*>at)[0] = <unsigned int>v
        elif code == "Q" and v >= 0:
            (<unsigned long long*>at)[0] = <unsigned long long>v
        else:  # 8- and 16-bit integers, negative unsigned: the Python form
            return 1
    except (OverflowError, TypeError, ValueError):
        return 1
    return 0


cdef class EngineCall:
    """Elementwise function ``name`` on the engine: ``call(a)`` (unary) or
    ``call(a1, a2)`` (binary: arrays or Python scalars in call order), the raw result;
    as ``slow``, which it calls for whatever it does not take itself.  Made with
    ``slow(sig, arrays, scalars)`` instead, its :meth:`run` takes any of the
    generator's entries (``where``, ``clip``, ``astype``).

    ``bodies``: the generator's entries by key ``(name, operand codes..., family)``
    (body, names, scalar dtypes, result dtype), or False; ``plans``: the engine's
    planned calls by key (``_Call``, or ``refused``); ``array_type``: CuPy's array
    class; ``device_memory``: the memory classes of plain device memory;
    ``new_out(shape, dtype, n, stream)``: the result's allocator; ``stream_ptr()``: the
    current stream's handle; ``launch``: the address of ``cuLaunchKernel``;
    ``codes``: NumPy type char -> struct code of a scalar parameter; ``stats``: a dict
    whose ``"launched"`` counts launches; ``block``: the threads of a block; ``align``:
    the pointer alignment a plan's key holds (a pointer's remainder modulo it)."""

    cdef object name, fam, slow, bodies, plans, refused, array_type, device_memory
    cdef object new_out, stream_ptr, codes, stats
    cdef launch_t launch
    cdef unsigned int block
    cdef uintptr_t align
    cdef bint binary

    def __init__(self, name, fam, bint binary, slow, bodies, plans, refused, array_type,
                 device_memory, new_out, stream_ptr, uintptr_t launch, codes, stats,
                 unsigned int block, uintptr_t align):
        self.name = name
        self.fam = fam
        self.binary = binary
        self.slow = slow
        self.bodies = bodies
        self.plans = plans
        self.refused = refused
        self.array_type = array_type
        self.device_memory = device_memory
        self.new_out = new_out
        self.stream_ptr = stream_ptr
        self.launch = <launch_t>launch
        self.codes = codes
        self.stats = stats
        self.block = block
        self.align = align

    def __call__(self, a1, a2=None):
        cdef object nd = self.array_type
        cdef object key
        t1 = type(a1)
        if not self.binary:
            if t1 is not nd:
                return self.slow(a1)
            r = self._run((self.name, a1.dtype.char, self.fam), (a1,), ())
            return self.slow(a1) if r is None else r
        t2 = type(a2)
        if t1 is nd:
            if t2 is nd:
                r = self._run((self.name, a1.dtype.char, a2.dtype.char, self.fam), (a1, a2), ())
            elif _scalar_type(t2):
                r = self._run((self.name, a1.dtype.char, t2, self.fam), (a1,), (a2,))
            else:
                return self.slow(a1, a2)
        elif t2 is nd and _scalar_type(t1):
            r = self._run((self.name, t1, a2.dtype.char, self.fam), (a2,), (a1,))
        else:
            return self.slow(a1, a2)
        return self.slow(a1, a2) if r is None else r

    def run(self, sig, arrays, scalars):
        """The raw result of the generator's entry ``sig`` (a key of ``bodies``) over
        raw ``arrays`` (one to three, in the entry's order) and Python ``scalars`` (its
        scalar arguments, in order); as ``slow(sig, arrays, scalars)``, which it calls
        for whatever it does not take itself."""
        r = self._run(sig, arrays, scalars)
        return self.slow(sig, arrays, scalars) if r is None else r

    cdef object _run(self, object sig, object arrays, object scalars):
        """The launched result, or None where the Python form is to take the call."""
        cdef uintptr_t p
        cdef uintptr_t al = self.align
        cdef object key
        cdef Py_ssize_t at, i
        cdef Py_ssize_t na = len(arrays)
        cdef Py_ssize_t ns = len(scalars)
        cdef char* base = <char*>_args
        e = self.bodies.get(sig)
        if e is None or e is False or na < 1 or na > 3:
            return None
        cdts = e[2]
        if len(cdts) != ns:
            return None
        dm = self.device_memory
        nd = self.array_type
        for i in range(na):
            x = arrays[i]
            if type(x) is not nd:
                return None
            d = x.data
            if d.mem.__class__ not in dm:
                return None
            p = d.ptr
            _args[i] = p
        # the engine's plan keys (``ElementwiseEngine.run``)
        a = arrays[0]
        if na == 1:
            key = (sig, a.shape, a.strides, _args[0] % al)
        elif na == 2:
            b = arrays[1]
            key = (sig, a.shape, a.strides, _args[0] % al, b.shape, b.strides, _args[1] % al)
        else:
            key = (sig,) + tuple([(arrays[i].shape, arrays[i].strides, _args[i] % al)
                                  for i in range(na)])
        c = self.plans.get(key)
        if c is None or c is self.refused:
            return None
        fn = c.fn
        n = c.n
        if fn is None or not n:
            return None
        at = na
        for i in range(ns):
            code = self.codes.get(cdts[i].char)
            if code is None or _put_scalar(<char*>&_args[at], scalars[i], code):
                return None
            at += 1
        s = self.stream_ptr()
        fs = c.f_shape
        if fs is None:
            out = self.new_out(c.mem_shape, e[3], n, s)
        else:
            out = self.new_out(fs, e[3], n, s, "F")
        _args[at] = <uint64_t>(<uintptr_t>out.data.ptr)
        (<int64_t*>&_args[at + 1])[0] = <int64_t>n
        lay = c.layout
        if lay:
            memcpy(base + 8 * (at + 2), <const char*>(<bytes>lay), len(<bytes>lay))
        rc = self.launch(<void*><uintptr_t>fn.ptr, <unsigned int>c.blocks, 1, 1,
                         self.block, 1, 1, 0, <void*><uintptr_t>s, _params, NULL)
        if rc != 0:
            return None  # no context on this thread, or a failed launch: Python says
        st = self.stats
        st["launched"] += 1
        inv = c.inverse
        return out if fs is not None or inv is None else out.transpose(inv)


cdef class ScalarStore:
    """``store(raw, key, value)``: ``raw[key] = value`` by one launch of a one-thread
    kernel (``kernels/element.py``) for a key of in-range Python ints, one per axis, a
    Python bool, int or float ``value`` or a 0-D array of plain device memory, and an
    array of plain device memory whose kernel is compiled; every other call goes to
    ``slow``, the Python form, which compiles the kernel, takes the other values and
    says True or False.

    ``kernels``: the compiled kernels by element size, and by (target dtype, value
    dtype) for a 0-D array's element (the Python form fills it);
    ``array_type``, ``device_memory``, ``stream_ptr``, ``launch`` and ``codes``: as
    :class:`EngineCall`'s."""

    cdef object slow, kernels, array_type, device_memory, stream_ptr, codes
    cdef launch_t launch

    def __init__(self, slow, kernels, array_type, device_memory, stream_ptr,
                 uintptr_t launch, codes):
        self.slow = slow
        self.kernels = kernels
        self.array_type = array_type
        self.device_memory = device_memory
        self.stream_ptr = stream_ptr
        self.launch = <launch_t>launch
        self.codes = codes

    def __call__(self, raw, key, value):
        if self._store(raw, key, value):
            return True
        return self.slow(raw, key, value)

    cdef bint _store(self, object raw, object key, object value):
        cdef Py_ssize_t i, n, k, nk
        cdef uint64_t off
        cdef uint64_t a[2]
        cdef void* p[2]
        nd = self.array_type
        if type(raw) is not nd:
            return False
        d = raw.dtype
        if type(value) is nd:  # a 0-D array of plain device memory: its element copied
            if value.ndim or value.data.mem.__class__ not in self.device_memory:
                return False
            f = self.kernels.get((d, value.dtype))
            if f is None:
                return False
            a[1] = <uint64_t>(<uintptr_t>value.data.ptr)
        elif _scalar_type(type(value)):
            code = self.codes.get(d.char)
            if code is None:
                return False
            f = self.kernels.get(d.itemsize)
            if f is None or _put_scalar(<char*>&a[1], value, code):
                return False
        else:
            return False
        keys = key if type(key) is tuple else (key,)
        shape = raw.shape
        nk = len(keys)
        if nk != len(shape):
            return False
        data = raw.data
        if data.mem.__class__ not in self.device_memory:
            return False
        strides = raw.strides
        off = <uint64_t>(<uintptr_t>data.ptr)
        for i in range(nk):
            kk = keys[i]
            if type(kk) is not int:
                return False
            try:
                k = kk
            except OverflowError:
                return False
            n = shape[i]
            if k < 0:
                k += n
            if k < 0 or k >= n:
                return False
            off += <uint64_t>(k * <Py_ssize_t>strides[i])
        a[0] = off
        p[0] = <void*>&a[0]
        p[1] = <void*>&a[1]
        rc = self.launch(<void*><uintptr_t>f.ptr, 1, 1, 1, 1, 1, 1, 0,
                         <void*><uintptr_t>self.stream_ptr(), p, NULL)
        return rc == 0
