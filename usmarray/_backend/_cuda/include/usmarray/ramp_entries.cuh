// The extern "C" entry points k of ramp.cuh's arange and eye and of linspace.cuh's
// linspace, a section each (kernels/ramp_source.py, which writes the typedefs each
// reads before it).

// entry: linspace: each value in the computation type C, real or complex (CX),
// rounded once to P, one part of a result element of W parts
extern "C" __global__ void __launch_bounds__(256) k(P* __restrict__ out, const long long n,
    const double start_r, const double start_i, const double stop_r, const double stop_i,
    const double scale, const double m_r, const double m_i, const long long by_div,
    const long long last_is_stop) {
  usm_linspace<C, CX, W>(out, n, start_r, start_i, stop_r, stop_i, scale, m_r, m_i, by_div,
                          last_is_stop);
}

// entry: arange: T computed in W from arguments of type P
extern "C" __global__ void __launch_bounds__(256) k(T* __restrict__ out, const long long n,
    const P start_p, const P step_p) {
  usm_arange<W>(out, n, start_p, step_p);
}

// entry: eye: the identity with its diagonal moved by diag
extern "C" __global__ void __launch_bounds__(256) k(T* __restrict__ out, const long long rows,
    const long long cols, const long long diag) {
  usm_eye(out, rows, cols, diag);
}
