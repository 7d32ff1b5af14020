// glp prelude: scalar types and the helpers generated code calls. NVRTC compiles without
// system headers, so the fixed-width types are defined here.
typedef int glp_i32;
typedef unsigned int glp_u32;
typedef long long glp_i64;
typedef unsigned long long glp_u64;

__device__ __forceinline__ glp_i32 glp_abs(glp_i32 x) { return x < 0 ? (glp_i32)(0u - (glp_u32)x) : x; }
__device__ __forceinline__ glp_i64 glp_abs(glp_i64 x) { return x < 0 ? (glp_i64)(0ull - (glp_u64)x) : x; }
template <typename T> __device__ __forceinline__ T glp_min(T a, T b) { return b < a ? b : a; }
template <typename T> __device__ __forceinline__ T glp_max(T a, T b) { return a < b ? b : a; }
__device__ __forceinline__ glp_u32 glp_count_ones(glp_u32 x) { return (glp_u32)__popc(x); }
__device__ __forceinline__ glp_u32 glp_count_ones(glp_i32 x) { return (glp_u32)__popc((glp_u32)x); }
__device__ __forceinline__ glp_u32 glp_count_ones(glp_u64 x) { return (glp_u32)__popcll(x); }
__device__ __forceinline__ glp_u32 glp_count_ones(glp_i64 x) { return (glp_u32)__popcll((glp_u64)x); }
__device__ __forceinline__ glp_u32 glp_leading_zeros(glp_u32 x) { return (glp_u32)__clz((int)x); }
__device__ __forceinline__ glp_u32 glp_leading_zeros(glp_i32 x) { return (glp_u32)__clz(x); }
__device__ __forceinline__ glp_u32 glp_leading_zeros(glp_u64 x) { return (glp_u32)__clzll((long long)x); }
__device__ __forceinline__ glp_u32 glp_leading_zeros(glp_i64 x) { return (glp_u32)__clzll(x); }
__device__ __forceinline__ glp_u32 glp_trailing_zeros(glp_u32 x) { return x == 0 ? 32u : (glp_u32)(__ffs((int)x) - 1); }
__device__ __forceinline__ glp_u32 glp_trailing_zeros(glp_i32 x) { return glp_trailing_zeros((glp_u32)x); }
__device__ __forceinline__ glp_u32 glp_trailing_zeros(glp_u64 x) { return x == 0 ? 64u : (glp_u32)(__ffsll((long long)x) - 1); }
__device__ __forceinline__ glp_u32 glp_trailing_zeros(glp_i64 x) { return glp_trailing_zeros((glp_u64)x); }
// powi by binary exponentiation, the algorithm of compiler-rt's __powidf2.
template <typename F> __device__ __forceinline__ F glp_powi(F a, glp_i32 b) {
    const bool recip = b < 0;
    F r = (F)1;
    while (true) {
        if (b & 1) r *= a;
        b /= 2;
        if (b == 0) break;
        a *= a;
    }
    return recip ? (F)1 / r : r;
}

// Loop step budgets (glp-codegen's `loops`): the steps one hook call's loops ran, the budget,
// and the first loop site (from 1) found past the budget (0: none).
struct glp_loop_guard { glp_u64 steps; glp_u64 budget; glp_u32 site; };
__device__ __forceinline__ glp_loop_guard glp_loop_guard_new(glp_u64 budget) { return glp_loop_guard{0ull, budget, 0u}; }
// Counts one iteration of loop `site`; true once the budget is spent (the caller returns).
__device__ __forceinline__ bool glp_loop_exhausted(glp_loop_guard& guard, glp_u32 site) {
    if (++guard.steps <= guard.budget) return false;
    if (guard.site == 0u) guard.site = site;
    return true;
}

// Philox4x32-10 (Salmon et al., SC'11; Random123): the same numbers as glp-runtime's
// `random::philox4x32_10` for the same key and counter.
struct glp_philox_out { glp_u32 x[4]; };
__device__ __forceinline__ glp_philox_out glp_philox4x32_10(glp_u32 c0, glp_u32 c1, glp_u32 c2, glp_u32 c3, glp_u32 k0, glp_u32 k1) {
    for (int round = 0; round < 10; ++round) {
        const glp_u32 hi0 = __umulhi(0xD2511F53u, c0);
        const glp_u32 lo0 = 0xD2511F53u * c0;
        const glp_u32 hi1 = __umulhi(0xCD9E8D57u, c2);
        const glp_u32 lo1 = 0xCD9E8D57u * c2;
        const glp_u32 n0 = hi1 ^ c1 ^ k0;
        const glp_u32 n2 = hi0 ^ c3 ^ k1;
        c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    glp_philox_out out;
    out.x[0] = c0; out.x[1] = c1; out.x[2] = c2; out.x[3] = c3;
    return out;
}
