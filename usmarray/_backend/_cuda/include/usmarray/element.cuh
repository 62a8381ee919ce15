// One element stored by a kernel of one thread (element.py).  Templates; the includer
// defines nothing.

// *p = the value whose bits (in T's width) are `bits`.
template <typename T>
__device__ __forceinline__ void usm_store_bits(T* p, const unsigned long long bits) {
  *p = (T)bits;
}

// *p = *q cast to T (the value's dtype promotes to the target's: exact, or rounded to
// nearest).
template <typename T, typename S>
__device__ __forceinline__ void usm_store_cast(T* p, const S* q) { *p = (T)*q; }
