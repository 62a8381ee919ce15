# cython: language_level=3, binding=True, embedsignature=False, auto_pickle=False
"""The compiled form of ``usm_ndarray``'s core (see ``usmarray/_form.py``).

``ArrayBase`` is the C base of ``usm_ndarray`` in the compiled form: it holds the two
fields (``_arr``, the backend's raw array; ``_be``, its backend) as C fields, and its
operator, ``__getitem__`` and ``__setitem__`` slots run the namespace's lean paths
without a Python frame: two arrays of one backend and one dtype of the function's
category (or one array and a Python float or int where that dtype is floating),
below the size of the backend's small kernel, call that kernel at once; a slice
without a step is a view; ints, ``None``, ``...`` and such slices go to the backend's
indexing on a backend without a lock; one index array that the backend checks itself
goes to its gather; an array of the target's dtype written under a basic key goes to
its scatter, and so does a Python float (into a floating array) or bool (into a bool
array) written under an int key or a tuple of ints.

Every other call, and every call that fails here, goes to the operator's
pure-Python form (installed by ``usmarray._operators``), which decides everything the
lean paths leave out and words every error: this module raises none of its own.  The
lean paths read the same per-backend plans as the Python forms
(``usmarray._elementwise``), so both forms compute with the same kernels.
"""

cimport numpy as cnp
from cpython.contextvars cimport get_value

cnp.import_array()

cdef extern from *:
    """
    #ifndef USMARRAY_CORE_SOURCE
    #define USMARRAY_CORE_SOURCE ""
    #endif
    """
    const char* USMARRAY_CORE_SOURCE

cdef extern from *:
    """
    #include "structmember.h"
    #if PY_VERSION_HEX >= 0x030C0000
    #define USMARRAY_T_OBJECT_EX Py_T_OBJECT_EX
    #else
    #define USMARRAY_T_OBJECT_EX T_OBJECT_EX
    #endif
    static PyMemberDef usmarray_fields[3];

    /* _arr and _be as member descriptors, as __slots__ makes them: Python code reads
       and writes them as fast as a pure-Python class's slots */
    static int usmarray_add_fields(PyObject *type, Py_ssize_t arr, Py_ssize_t be) {
        PyTypeObject *t = (PyTypeObject *)type;
        PyMemberDef a = {"_arr", USMARRAY_T_OBJECT_EX, arr, 0, NULL};
        PyMemberDef b = {"_be", USMARRAY_T_OBJECT_EX, be, 0, NULL};
        int i;
        usmarray_fields[0] = a;
        usmarray_fields[1] = b;
        for (i = 0; i < 2; i++) {
            PyObject *d = PyDescr_NewMember(t, &usmarray_fields[i]);
            if (d == NULL) return -1;
            if (PyDict_SetItemString(t->tp_dict, usmarray_fields[i].name, d) < 0) {
                Py_DECREF(d);
                return -1;
            }
            Py_DECREF(d);
        }
        PyType_Modified(t);
        return 0;
    }
    /* the offsets of the fields in Cython's struct of ArrayBase (its name is Cython's
       mangling of usmarray._core.ArrayBase), expanded where the struct is complete */
    #define USMARRAY_OFFSET_ARR offsetof(struct __pyx_obj_8usmarray_5_core_ArrayBase, _arr)
    #define USMARRAY_OFFSET_BE offsetof(struct __pyx_obj_8usmarray_5_core_ArrayBase, _be)
    """
    int usmarray_add_fields(object t, Py_ssize_t arr, Py_ssize_t be) except -1
    Py_ssize_t USMARRAY_OFFSET_ARR
    Py_ssize_t USMARRAY_OFFSET_BE

#: the SHA-256 of the _core.pyx this module was built from (the build passes it)
SOURCE_SHA256 = USMARRAY_CORE_SOURCE.decode("ascii")
#: the contract with the Python modules (usmarray/_form.py checks it)
API = 1

#: the slots of ArrayBase that call a pure-Python form outside their lean path, in
#: the order of their indices below
SLOTS = (
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__",
    "__mul__", "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__",
    "__floordiv__", "__rfloordiv__", "__ifloordiv__", "__mod__", "__rmod__", "__imod__",
    "__pow__", "__rpow__", "__ipow__", "__and__", "__rand__", "__iand__",
    "__or__", "__ror__", "__ior__", "__xor__", "__rxor__", "__ixor__",
    "__lshift__", "__rlshift__", "__ilshift__", "__rshift__", "__rrshift__", "__irshift__",
    "__matmul__", "__rmatmul__", "__imatmul__",
    "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
    "__neg__", "__pos__", "__abs__", "__invert__",
    "__getitem__", "__setitem__", "mT", "T",
)

cdef list _python = [None] * len(SLOTS)  # slot index -> its pure-Python form
cdef list _lean = [None] * len(SLOTS)    # slot index -> lean-path table, or None
cdef Py_ssize_t _MATMUL_SLOT = SLOTS.index("__matmul__")
cdef object _usm = None                  # the class usm_ndarray
cdef Py_ssize_t _tracing = 0             # usmarray._trace.ACTIVE (set_tracing)
cdef dict _backends = {}                 # backend -> _facts(backend)
cdef dict _lone = None                   # usmarray._indexing._LONE_KEYS
cdef object _bool = None                 # the bool dtype
cdef Py_ssize_t _MAX_NDIM = 64


cdef class ArrayBase:
    """The C fields of ``usm_ndarray`` and its compiled slots (see the module)."""

    cdef object _arr
    cdef object _be

    def __add__(self, other):
        return _binary(0, self, other)

    def __radd__(self, other):
        return _reflected(1, self, other)

    def __iadd__(self, other):
        return _python[2](self, other)

    def __sub__(self, other):
        return _binary(3, self, other)

    def __rsub__(self, other):
        return _reflected(4, self, other)

    def __isub__(self, other):
        return _python[5](self, other)

    def __mul__(self, other):
        return _binary(6, self, other)

    def __rmul__(self, other):
        return _reflected(7, self, other)

    def __imul__(self, other):
        return _python[8](self, other)

    def __truediv__(self, other):
        return _binary(9, self, other)

    def __rtruediv__(self, other):
        return _reflected(10, self, other)

    def __itruediv__(self, other):
        return _python[11](self, other)

    def __floordiv__(self, other):
        return _binary(12, self, other)

    def __rfloordiv__(self, other):
        return _reflected(13, self, other)

    def __ifloordiv__(self, other):
        return _python[14](self, other)

    def __mod__(self, other):
        return _binary(15, self, other)

    def __rmod__(self, other):
        return _reflected(16, self, other)

    def __imod__(self, other):
        return _python[17](self, other)

    def __pow__(self, other, modulo=None):
        if modulo is not None:  # pow(x, y, z): the Python form refuses it, as it says
            return _python[18](self, other, modulo)
        return _binary(18, self, other)

    def __rpow__(self, other, modulo=None):
        if modulo is not None:  # Python tries no reflected three-argument pow either
            return NotImplemented
        return _reflected(19, self, other)

    def __ipow__(self, other):
        return _python[20](self, other)

    def __and__(self, other):
        return _binary(21, self, other)

    def __rand__(self, other):
        return _reflected(22, self, other)

    def __iand__(self, other):
        return _python[23](self, other)

    def __or__(self, other):
        return _binary(24, self, other)

    def __ror__(self, other):
        return _reflected(25, self, other)

    def __ior__(self, other):
        return _python[26](self, other)

    def __xor__(self, other):
        return _binary(27, self, other)

    def __rxor__(self, other):
        return _reflected(28, self, other)

    def __ixor__(self, other):
        return _python[29](self, other)

    def __lshift__(self, other):
        return _binary(30, self, other)

    def __rlshift__(self, other):
        return _reflected(31, self, other)

    def __ilshift__(self, other):
        return _python[32](self, other)

    def __rshift__(self, other):
        return _binary(33, self, other)

    def __rrshift__(self, other):
        return _reflected(34, self, other)

    def __irshift__(self, other):
        return _python[35](self, other)

    def __matmul__(self, other):
        return _binary(36, self, other)

    def __rmatmul__(self, other):
        return _python[37](self, other)

    def __imatmul__(self, other):
        return _python[38](self, other)

    def __lt__(self, other):
        return _binary(39, self, other)

    def __le__(self, other):
        return _binary(40, self, other)

    def __gt__(self, other):
        return _binary(41, self, other)

    def __ge__(self, other):
        return _binary(42, self, other)

    def __eq__(self, other):
        return _binary(43, self, other)

    def __ne__(self, other):
        return _binary(44, self, other)

    def __neg__(self):
        return _unary(45, self)

    def __pos__(self):
        return _unary(46, self)

    def __abs__(self):
        return _unary(47, self)

    def __invert__(self):
        return _unary(48, self)

    @property
    def mT(self):
        a = self._arr
        if a.ndim >= 2:
            return _wrap(self._be, a.mT)
        return _python[51](self)  # the Python form names the error

    @property
    def T(self):
        a = self._arr
        if a.ndim == 2:
            return _wrap(self._be, a.T)
        return _python[52](self)  # the Python form names the error

    def __getitem__(self, key):
        cdef ArrayBase out
        cdef ArrayBase k
        cdef tuple t
        if _tracing:  # a trace watches what the Python form returns
            return _python[49](self, key)
        tk = type(key)
        if tk is slice:
            if (<slice>key).step is None:
                try:
                    r = self._arr[key]
                except OverflowError:  # a bound past the provider's index type
                    return _python[49](self, key)
                out = ArrayBase.__new__(_usm)
                out._arr = r
                out._be = self._be
                return out
        elif tk is int or (tk is tuple and _basic(<tuple>key)):
            be = self._be
            t = _facts(be)
            if t[2]:  # lock-free: the Python form takes no lock either
                try:
                    r = t[4](self._arr, key)
                except Exception:
                    return _python[49](self, key)  # the general path names the error
                if _ndim_of(r) <= _MAX_NDIM:
                    out = ArrayBase.__new__(_usm)
                    out._arr = r if type(r) is t[3] else be.as_array(r)
                    out._be = be
                    return out
        elif tk is _usm:  # one index array the backend gathers and checks itself
            be = self._be
            k = <ArrayBase>key
            lone = _lone.get(be)
            if lone is not None and k._be is be:
                a = k._arr
                d = _dtype_of(a)
                if d in lone and (d is not _bool or a.shape == self._arr.shape):
                    t = _facts(be)
                    try:
                        r = t[4](self._arr, a)
                    except Exception:
                        return _python[49](self, key)  # the general path names the error
                    if _ndim_of(r) <= _MAX_NDIM:
                        out = ArrayBase.__new__(_usm)
                        out._arr = r if type(r) is t[3] else be.as_array(r)
                        out._be = be
                        return out
        return _python[49](self, key)

    def __setitem__(self, key, value):
        cdef ArrayBase v
        if type(value) is _usm and not _tracing:
            be = self._be
            v = <ArrayBase>value
            tk = type(key)
            if (v._be is be and _facts(be)[2] and not _facts(be)[0]
                    and (tk is int or (tk is slice and (<slice>key).step is None)
                         or key is Ellipsis)):
                raw = self._arr
                va = v._arr
                if va.dtype is raw.dtype and not (va.ndim and be.may_share_memory(raw, va)):
                    try:
                        be.setitem(raw, key, va)
                        return
                    except (OverflowError, ValueError):
                        pass  # the Python form words it
            elif v._be is be and _facts(be)[2] and _ints(key):
                # one element from a 0-D array of its dtype on its queue (scikit-learn's
                # _fill_diagonal): a 0-D value may overlap its target
                raw = self._arr
                va = v._arr
                if (_ndim_of(va) == 0 and _dtype_of(va) is _dtype_of(raw)
                        and _same_queue(be, raw, va)):
                    try:
                        be.setitem(raw, key, va)
                        return
                    except Exception:
                        pass  # nothing written: the Python form words it
        elif type(value) is float or type(value) is bool:
            if not _tracing and (_ints(key) or (type(key) is slice
                                                        and (<slice>key).step is None)):
                be = self._be
                t = _facts(be)
                if t[2]:  # the backend writes on the array's own queue
                    raw = self._arr
                    d = _dtype_of(raw)
                    if (d is _bool) if type(value) is bool else d.kind in ("f", "c"):
                        try:
                            be.setitem(raw, key, value)
                            return
                        except Exception:
                            pass  # nothing written: the Python form words it
        _python[50](self, key, value)

    def __delitem__(self, key):
        raise AttributeError("__delitem__")  # as for a Python class without one


def _fields() -> None:
    """Give ArrayBase its two fields as member descriptors, and check them."""
    cdef ArrayBase probe = ArrayBase.__new__(ArrayBase)
    usmarray_add_fields(ArrayBase, USMARRAY_OFFSET_ARR, USMARRAY_OFFSET_BE)
    marks = (object(), object())
    probe._arr, probe._be = marks
    if (getattr(probe, "_arr"), getattr(probe, "_be")) != marks:
        raise ImportError("usmarray._core: the fields of ArrayBase are not where its "
                          "member descriptors read them")


_fields()
del _fields


cdef inline object _wrap(object be, object raw):
    """A new ``usm_ndarray`` of ``raw``, an array of backend ``be``."""
    cdef ArrayBase out = ArrayBase.__new__(_usm)
    out._arr = raw
    out._be = be
    return out


cdef bint _plain_int(object obj, Py_ssize_t* out):
    """Whether ``obj`` is a Python int (not a bool, not a NumPy integer) that fits a
    Py_ssize_t, written to ``out``."""
    if type(obj) is not int:
        return False
    try:
        out[0] = obj
    except OverflowError:
        return False
    return True


cdef object _last_be = None  # the backend of the last _facts call, and its facts
cdef tuple _last_facts = None


cdef tuple _facts(object be):
    """(multi_queue, queue_of, lock-free, array type, getitem) of backend ``be``, read
    once."""
    global _last_be, _last_facts
    if be is _last_be:
        return _last_facts
    t = _backends.get(be)
    if t is None:
        t = _backends[be] = (bool(be.multi_queue), be.queue_of, be.lock is None,
                             be.array_type, be.getitem)
    _last_be = be
    _last_facts = <tuple>t
    return <tuple>t


cdef bint _basic(tuple key):
    """Whether ``key`` holds only ints, ``None``, ``...`` and slices without a step (the
    keys the Python form passes to the backend unchanged)."""
    for k in key:
        tk = type(k)
        if not (tk is int or k is None or k is Ellipsis
                or (tk is slice and (<slice>k).step is None)):
            return False
    return True


cdef bint _ints(object key):
    """Whether ``key`` is an int or a tuple of ints (one element, or a subarray of whole
    axes: keys the Python form passes to the backend unchanged)."""
    if type(key) is int:
        return True
    if type(key) is not tuple:
        return False
    for k in <tuple>key:
        if type(k) is not int:
            return False
    return True


cdef inline object _dtype_of(object a):
    """``a.dtype``; a NumPy array's read from its struct (no attribute lookup)."""
    if type(a) is cnp.ndarray:
        return <object>cnp.PyArray_DESCR(<cnp.ndarray>a)
    return a.dtype


cdef inline Py_ssize_t _size_of(object a) except -1:
    if type(a) is cnp.ndarray:
        return cnp.PyArray_SIZE(<cnp.ndarray>a)
    return a.size


cdef inline Py_ssize_t _ndim_of(object a) except -1:
    if type(a) is cnp.ndarray:
        return cnp.PyArray_NDIM(<cnp.ndarray>a)
    return a.ndim


cdef inline bint _same_queue(object be, object a1, object a2):
    t = _facts(be)
    if not t[0] or a1 is a2:
        return True
    q1 = t[1](a1)
    q2 = t[1](a2)
    return q1 is q2 or q1 == q2


cdef object _binary(Py_ssize_t k, object x1, object x2):
    """``x1 op x2`` for the slot of index ``k``, ``x1`` an array of the slot's class."""
    info = _lean[k]
    if info is None or _tracing:
        return _python[k](x1, x2)
    r = _lean_pair(<tuple>info, <ArrayBase>x1, x2)
    return _python[k](x1, x2) if r is None else r


cdef object _lean_pair(tuple info, ArrayBase a, object x2):
    """The lean path of a binary function of lean-path table ``info`` (see
    :func:`install`) on array ``a`` and ``x2``; None where the Python form is to take
    the call (no plan yet, another backend, dtype or queue, an operand past the small
    kernel's size, any failure: the Python form names the error)."""
    cdef ArrayBase b
    cdef Py_ssize_t n
    be = a._be
    p = (<dict>info[0]).get(be)
    if p is None:
        return None  # the Python form works the plan out
    n = (<tuple>p)[5]
    if n == 0:
        return None
    t2 = type(x2)
    a1 = a._arr
    d1 = _dtype_of(a1)
    if t2 is _usm:
        b = <ArrayBase>x2
        a2 = b._arr
        if b._be is not be or d1 is not _dtype_of(a2) or d1 not in info[1]:
            return None
        if _size_of(a1) >= n or _size_of(a2) >= n or not _same_queue(be, a1, a2):
            return None
    elif t2 is float or t2 is int:
        a2 = x2
        if d1 not in info[2] or _size_of(a1) >= n:
            return None
    else:
        return None
    f = (<tuple>p)[6]
    if f is None or _ndim_of(a1) == 0:
        f = (<tuple>p)[4]
    try:
        r = f(a1, a2)
    except Exception:
        return None
    return _wrap(be, r)


cdef object _reflected(Py_ssize_t k, object x1, object x2):
    """``x2 op x1`` (the reflected slot ``k``, ``x1`` the array): a Python float or int
    ``x2`` with a floating array takes the lean path."""
    cdef ArrayBase a
    cdef Py_ssize_t n
    info = _lean[k]
    t2 = type(x2)
    if info is None or (t2 is not float and t2 is not int) or _tracing:
        return _python[k](x1, x2)
    a = <ArrayBase>x1
    be = a._be
    p = (<dict>(<tuple>info)[0]).get(be)
    if p is None:
        return _python[k](x1, x2)
    n = (<tuple>p)[5]
    a1 = a._arr
    if n == 0 or _dtype_of(a1) not in (<tuple>info)[2] or _size_of(a1) >= n:
        return _python[k](x1, x2)
    f = (<tuple>p)[6]
    if f is None or _ndim_of(a1) == 0:
        f = (<tuple>p)[4]
    try:
        r = f(x2, a1)
    except Exception:
        return _python[k](x1, x2)
    return _wrap(be, r)


cdef object _unary(Py_ssize_t k, object x):
    cdef ArrayBase a
    cdef Py_ssize_t n
    info = _lean[k]
    if info is None or _tracing:
        return _python[k](x)
    a = <ArrayBase>x
    be = a._be
    p = (<dict>(<tuple>info)[0]).get(be)
    if p is None:
        return _python[k](x)
    n = (<tuple>p)[5]
    a1 = a._arr
    if n == 0 or _dtype_of(a1) not in (<tuple>info)[1] or _size_of(a1) >= n:
        return _python[k](x)
    f = (<tuple>p)[6]
    if f is None or _ndim_of(a1) == 0:
        f = (<tuple>p)[4]
    try:
        r = f(a1)
    except Exception:
        return _python[k](x)
    return _wrap(be, r)


def wrap_with(be, raw):
    """A new ``usm_ndarray`` of ``raw``, an array of backend ``be``."""
    return _wrap(be, raw)


def bind(cls, trace):
    """Tell the core its array class (a subclass of :class:`ArrayBase`), and have
    ``usmarray._trace`` (``trace``) tell it how many traces run (its lean paths step
    aside while one does)."""
    global _usm
    if not issubclass(cls, ArrayBase):
        raise TypeError(f"bind: {cls!r} is not a subclass of ArrayBase")
    _usm = cls
    trace.watch(set_tracing)


def set_tracing(Py_ssize_t active):
    """How many traces run (``usmarray._trace.ACTIVE``)."""
    global _tracing
    _tracing = active


def install(name, python_form, lean=None):
    """Make ``python_form`` the slot ``name``'s pure-Python form; ``lean``: its lean-path
    table (binary slots: ``(plans, dtypes, scalar_dtypes)``, unary: ``(plans,
    dtypes)``: the per-backend plans of ``usmarray._elementwise``, the dtypes of two
    array operands that the plan's small kernel computes as the Python form does, and
    the array dtypes that take a Python float or int operand there)."""
    k = SLOTS.index(name)
    _python[k] = python_form
    _lean[k] = lean


def install_indexing(lone_keys, bool_dtype):
    """The table of ``usmarray._indexing``'s lone index-array keys, by backend."""
    global _lone, _bool
    _lone = lone_keys
    _bool = bool_dtype


def python_form(name):
    """The pure-Python form installed for slot ``name`` (see :func:`install`)."""
    return _python[SLOTS.index(name)]


# ---- lean fronts of namespace functions: zeros, empty, asarray, reshape, permute_dims,
# ---- matmul, full, ones --------------------------------------------------------------

cdef tuple _FRONTS = ("zeros", "empty", "asarray", "reshape", "permute_dims", "matmul",
                      "full", "ones")
# the fronts' indices in _FRONTS (full and ones, the filled ones, last)
cdef Py_ssize_t _ZEROS = 0, _EMPTY = 1, _ASARRAY = 2, _RESHAPE = 3, _PERMUTE = 4
cdef Py_ssize_t _MATMUL = 5, _FULL = 6, _ONES = 7
cdef list _front_python = [None] * len(_FRONTS)  # index -> the function's Python form
cdef list _last_made = [None] * len(_FRONTS)  # index -> (queue, dtype argument, plan, Device)
cdef dict _made = None                     # usmarray._creation._MADE
cdef object _Device = None                 # usmarray.Device
cdef object _override = None               # usmarray._device._override
cdef dict _device_globals = None           # usmarray._device's globals
cdef object _made_from = None              # usmarray._device.made_from
cdef Py_ssize_t _SSIZE_MAX = <Py_ssize_t>((<size_t>-1) >> 1)


cdef object _device_of(object device):
    """The Device ``device`` names: itself, the default device for None, the Device a
    filter string made before; None for anything else (the Python form decides)."""
    td = type(device)
    if td is _Device:
        return device
    if device is None:
        dev = get_value(_override)
        return _device_globals["_global_default"] if dev is None else dev
    if td is str:
        return _made_from(device)
    return None


cdef object _python_create(Py_ssize_t k, object shape, object value, object dtype,
                           object device, object usm_type, object sycl_queue):
    """The Python form of creation function ``k`` (``full`` with its fill ``value``)."""
    python = _front_python[k]
    if k == _FULL:
        return python(shape, value, dtype=dtype, device=device, usm_type=usm_type,
                      sycl_queue=sycl_queue)
    return python(shape, dtype=dtype, device=device, usm_type=usm_type,
                  sycl_queue=sycl_queue)


cdef object _create(Py_ssize_t k, object shape, object dtype, object device,
                    object usm_type, object sycl_queue, object value=None):
    """Creation front ``k``: ``zeros``, ``empty``, ``full`` (of the Python float
    ``value``) or ``ones`` (``value`` 1.0), by the plan the Python form made for this
    queue and dtype argument, under the backend's lock where it has one: the Python
    form for a usm_type or sycl_queue, a device other than a Device, a filter string
    that made one, or None, a shape other than a non-negative int or a tuple of at most
    64 of them, a plan not made yet, more bytes than the plan's cap, and a failed
    allocation; for ``full`` and ``ones`` also a backend with a lock, and a dtype that
    is not floating (the Python form's lean path takes the same)."""
    cdef Py_ssize_t size, v, itemsize, cap
    if usm_type is not None or sycl_queue is not None:
        return _python_create(k, shape, value, dtype, device, usm_type, sycl_queue)
    dev = _device_of(device)
    if dev is None:
        return _python_create(k, shape, value, dtype, device, None, None)
    last = _last_made[k]
    if last is not None and (<tuple>last)[3] is dev and (<tuple>last)[1] is dtype:
        plan = (<tuple>last)[2]  # the same Device object: its queue is the same
    else:
        q = dev._q
        if last is not None and (<tuple>last)[0] is q and (<tuple>last)[1] is dtype:
            plan = (<tuple>last)[2]
        else:
            plan = _made.get((_FRONTS[k], id(q), id(dtype), None))
            if plan is None:  # the Python form makes it
                return _python_create(k, shape, value, dtype, device, None, None)
        _last_made[k] = (q, dtype, plan, dev)
    be = (<tuple>plan)[0]
    d = (<tuple>plan)[2]
    if k >= _FULL and (not (<tuple>_facts(be))[2] or (<cnp.dtype>d).kind not in "fc"):
        return _python_create(k, shape, value, dtype, device, None, None)
    ts = type(shape)
    dims = shape
    size = 1
    if ts is int:
        if not _plain_int(shape, &size) or size < 0:
            size = -1
        dims = (shape,)
    elif ts is tuple and len(<tuple>shape) <= _MAX_NDIM:
        for e in <tuple>shape:
            if (not _plain_int(e, &v) or v < 0
                    or (v != 0 and size > _SSIZE_MAX // v)):
                size = -1
                break
            size *= v
    else:
        size = -1
    try:
        cap = (<tuple>plan)[3]
    except OverflowError:
        cap = _SSIZE_MAX
    itemsize = (<cnp.dtype>d).itemsize
    if (size < 0 or (itemsize != 0 and size > _SSIZE_MAX // itemsize)
            or size * itemsize > cap):
        return _python_create(k, shape, value, dtype, device, None, None)
    try:
        if k >= _FULL:
            raw = (<tuple>plan)[4](dims, value, d)
        elif (<tuple>_facts(be))[2]:
            raw = (<tuple>plan)[4](dims, d)
        else:
            with be.lock:  # the Python form's lock, around the allocation only
                raw = (<tuple>plan)[4](dims, d)
    except Exception:  # the Python form names the failure
        return _python_create(k, shape, value, dtype, device, None, None)
    return _wrap(be, raw)


cdef object _MISSING = object()  # a front's argument not given


cdef object _fallback(Py_ssize_t k, tuple names, tuple values, tuple rest, dict kw,
                      dict more):
    """The Python form of front ``k`` called as the front was: the leading given
    ``values`` and ``rest`` by position, a value after a missing one (given by keyword)
    by its name in ``names``, ``kw`` and ``more`` by keyword."""
    cdef list args = []
    cdef Py_ssize_t i, j
    for i in range(len(values)):
        if values[i] is _MISSING:
            for j in range(i + 1, len(values)):
                if values[j] is not _MISSING:
                    kw[names[j]] = values[j]
            break
        args.append(values[i])
    args.extend(rest)
    kw.update(more)
    return _front_python[k](*args, **kw)


cdef object _regular(Py_ssize_t k, object shape, tuple rest, object dtype, object device,
                     object usm_type, object sycl_queue, dict more, object value=None):
    """The creation function ``k`` for a call of its signature, else its Python form
    (which words the TypeError for a call it refuses)."""
    if rest or more or shape is _MISSING or _tracing:
        return _fallback(k, ("shape",), (shape,), rest, {
            "dtype": dtype, "device": device, "usm_type": usm_type,
            "sycl_queue": sycl_queue}, more)
    return _create(k, shape, dtype, device, usm_type, sycl_queue, value)


def zeros(shape=_MISSING, *rest, dtype=None, device=None, usm_type=None, sycl_queue=None,
          **more):
    """``usmarray.zeros``'s lean path (see :func:`install_front`)."""
    return _regular(_ZEROS, shape, rest, dtype, device, usm_type, sycl_queue, more)


def empty(shape=_MISSING, *rest, dtype=None, device=None, usm_type=None, sycl_queue=None,
          **more):
    """``usmarray.empty``'s lean path (see :func:`install_front`)."""
    return _regular(_EMPTY, shape, rest, dtype, device, usm_type, sycl_queue, more)


def ones(shape=_MISSING, *rest, dtype=None, device=None, usm_type=None, sycl_queue=None,
         **more):
    """``usmarray.ones``'s lean path (see :func:`install_front`)."""
    return _regular(_ONES, shape, rest, dtype, device, usm_type, sycl_queue, more, 1.0)


def full(shape=_MISSING, fill_value=_MISSING, *rest, dtype=None, device=None,
         usm_type=None, sycl_queue=None, **more):
    """``usmarray.full``'s lean path (see :func:`install_front`): a Python float fill."""
    if (rest or more or shape is _MISSING or type(fill_value) is not float
            or _tracing):
        return _fallback(_FULL, ("shape", "fill_value"), (shape, fill_value), rest, {
            "dtype": dtype, "device": device, "usm_type": usm_type,
            "sycl_queue": sycl_queue}, more)
    return _create(_FULL, shape, dtype, device, usm_type, sycl_queue, fill_value)


cdef list _list_last = None     # usmarray._migration._LIST_LAST
cdef dict _scalar_plans = None  # usmarray._migration._SCALAR_PLANS
cdef Py_ssize_t _short_list = 0  # usmarray._migration._SHORT_LIST


cdef object _asarray(object obj, object device):
    """``asarray(obj, device=device)`` of a Python float, or of a short flat list of
    Python floats on a device with double precision, by the plans the Python form made
    (``_float_scalar``, ``_float_list``: the list's copy to the device under the
    backend's lock where it has one); None for everything else, and for a plan not made
    yet, a float on a backend with a lock or more than one queue, and a failed
    allocation."""
    t = type(obj)
    if t is not float and (t is not list or len(<list>obj) > _short_list):
        return None
    dev = _device_of(device)
    if dev is None:
        return None
    q = dev._q
    be = dev._be
    facts = _facts(be)
    try:
        if t is float:
            plan = _scalar_plans.get(id(q))
            if (plan is None or (<tuple>plan)[2] is not q or (<tuple>facts)[0]
                    or not (<tuple>facts)[2]):
                return None
            raw = (<tuple>plan)[0]((), obj, (<tuple>plan)[1])
        else:
            for v in <list>obj:
                if type(v) is not float:
                    return None
            last = _list_last[0]
            if (<tuple>last)[0] is not q or not (<tuple>last)[1]:
                return None
            raw = cnp.PyArray_FROM_O(obj)  # float64: every element is a Python float
            if not (<tuple>last)[2]:
                if (<tuple>facts)[2]:
                    raw = be.asarray(raw, dtype=None, copy=None, usm_type=None, queue=q)
                else:
                    with be.lock:
                        raw = be.asarray(raw, dtype=None, copy=None, usm_type=None,
                                         queue=q)
    except Exception:  # the Python form names the failure
        return None
    return _wrap(be, raw)


cdef object _copy(object obj):
    """``asarray(x, copy=True)`` of a ``usm_ndarray``: the backend's compact copy on
    ``x``'s queue and memory kind, under the backend's lock where it has one, as the
    Python form's first path makes it; None where the copy fails (the Python form names
    the failure)."""
    be = (<ArrayBase>obj)._be
    try:
        if (<tuple>_facts(be))[2]:
            raw = be.copy((<ArrayBase>obj)._arr)
        else:
            with be.lock:
                raw = be.copy((<ArrayBase>obj)._arr)
    except Exception:
        return None
    return _wrap(be, raw)


def asarray(obj=_MISSING, /, *rest, dtype=None, device=None, copy=None, usm_type=None,
            sycl_queue=None, **more):
    """``usmarray.asarray``'s lean path (see :func:`install_front`)."""
    if (not rest and not more and dtype is None and usm_type is None
            and sycl_queue is None and not _tracing):
        if copy is None:
            made = _asarray(obj, device)
            if made is not None:
                return made
        elif copy is True and device is None and type(obj) is _usm:
            made = _copy(obj)
            if made is not None:
                return made
    return _fallback(_ASARRAY, ("obj",), (obj,), rest, {
        "dtype": dtype, "device": device, "copy": copy, "usm_type": usm_type,
        "sycl_queue": sycl_queue}, more)


def bind_asarray(list_last, scalar_plans, short_list):
    """``usmarray._migration``'s plans of ``asarray`` for a short list of floats and for
    a float (``_LIST_LAST``, ``_SCALAR_PLANS``), and the longest list of the first."""
    global _list_last, _scalar_plans, _short_list
    _list_last = list_last
    _scalar_plans = scalar_plans
    _short_list = short_list


def bind_creation(made, device_module):
    """``usmarray._creation._MADE``, the plans the lean creation paths read, and
    ``usmarray._device``, whose Device, default device and filter strings they use."""
    global _made, _Device, _override, _device_globals, _made_from
    _made = made
    _Device = device_module.Device
    _override = device_module._override
    _device_globals = vars(device_module)
    _made_from = device_module.made_from


cdef object _reshape(ArrayBase x, tuple shape):
    """``reshape(x, shape)`` of a shape of at most 64 ints, each at least -1: the
    backend's reshape, as the Python form's first path calls it (under the namespace's
    lock where the backend's is that lock); None for everything else, and where the
    backend refuses."""
    cdef Py_ssize_t v
    if len(shape) > _MAX_NDIM:
        return None
    for n in shape:
        if not _plain_int(n, &v) or v < -1:
            return None
    be = x._be
    try:
        if (<tuple>_facts(be))[2]:
            raw = be.reshape(x._arr, shape)
        elif be.lock is _serial_lock:
            with _serial_lock:  # as the namespace's wrapper takes it
                raw = be.reshape(x._arr, shape)
        else:
            return None
    except Exception:  # the Python form says why, or finds another way
        return None
    return _wrap(be, raw)


def reshape(x=_MISSING, /, shape=_MISSING, *rest, copy=None, **more):
    """``usmarray.reshape``'s lean path (see :func:`install_front`)."""
    if (not rest and not more and copy is None and type(x) is _usm
            and type(shape) is tuple and not _tracing):
        made = _reshape(<ArrayBase>x, <tuple>shape)
        if made is not None:
            return made
    return _fallback(_RESHAPE, ("x", "shape"), (x, shape), rest, {"copy": copy}, more)


cdef object _permute(ArrayBase x, tuple axes):
    """``permute_dims(x, axes)`` of a permutation of ``range(x.ndim)``: the backend's
    permutation, as the Python form's first path calls it; None for anything else."""
    cdef Py_ssize_t nd, v
    cdef unsigned long long seen = 0
    a = x._arr
    nd = _ndim_of(a)
    if len(axes) != nd or nd > 63:
        return None
    for e in axes:
        if not _plain_int(e, &v) or v < 0 or v >= nd:
            return None
        seen |= (<unsigned long long>1) << v
    if seen != ((<unsigned long long>1) << nd) - 1:
        return None
    be = x._be
    try:
        raw = be.permute_dims(a, axes)
    except Exception:  # the Python form raises it again
        return None
    return _wrap(be, raw)


def permute_dims(x=_MISSING, /, axes=_MISSING, *rest, **more):
    """``usmarray.permute_dims``'s lean path (see :func:`install_front`)."""
    if not rest and not more and type(x) is _usm and type(axes) is tuple and not _tracing:
        made = _permute(<ArrayBase>x, <tuple>axes)
        if made is not None:
            return made
    return _fallback(_PERMUTE, ("x", "axes"), (x, axes), rest, {}, more)


cdef object _serial_lock = None  # usmarray._serial.LOCK


def matmul(x1=_MISSING, x2=_MISSING, /, *rest, **more):
    """``usmarray.matmul``'s lean path: two arrays as the ``@`` slot takes them (see
    :func:`install_front`)."""
    info = _lean[_MATMUL_SLOT]
    if (not rest and not more and info is not None and type(x1) is _usm
            and type(x2) is _usm and not _tracing):
        made = _lean_pair(<tuple>info, <ArrayBase>x1, x2)
        if made is not None:
            return made
    return _fallback(_MATMUL, ("x1", "x2"), (x1, x2), rest, {}, more)


def install_front(name, python_form, serial_lock=None):
    """The lean path of namespace function ``name`` (one of ``zeros``, ``empty``,
    ``asarray``, ``reshape``, ``permute_dims``, ``matmul``, ``full``, ``ones``), with
    ``python_form`` (the namespace's function, as its wrapper gives it, if any) called
    for every call it leaves out: one of another signature, every call while a trace
    runs, and those :func:`_create`, :func:`_asarray`, :func:`_copy`, :func:`_reshape`,
    :func:`_permute` and :func:`_lean_pair` leave out; so results and errors are the
    Python form's.  ``serial_lock``: the namespace's lock (``usmarray._serial.LOCK``),
    which the wrapper of a serialized function takes."""
    global _serial_lock
    k = _FRONTS.index(name)
    _front_python[k] = python_form
    if serial_lock is not None:
        _serial_lock = serial_lock
    return (zeros, empty, asarray, reshape, permute_dims, matmul, full, ones)[k]
