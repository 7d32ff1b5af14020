// glp: the GPU's random-access ceiling (`glp bench probe`). Two patterns over an array of
// n 32-bit words that holds one random cycle (next[i] is the word after i):
// - chase<K>: every thread follows K independent chains of dependent reads (i = next[i]),
//   the shape of K walkers in flight per thread;
// - gather: every thread reads words at independent random positions (a hash of its
//   index and the step), the most the memory system serves when nothing waits on a read.
// Each thread folds what it read into one word written to sink[thread], so nothing is
// optimised away.
typedef unsigned int glp_u32;
typedef unsigned long long glp_u64;

// A 32-bit mix of (thread, k): the start of chain k of a thread, or a gather position.
__device__ __forceinline__ glp_u32 glp_ceiling_hash(glp_u64 x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (glp_u32)x;
}

template <int K>
__device__ __forceinline__ void glp_ceiling_chase(const glp_u32* next, glp_u32 n, glp_u32 steps, glp_u32* sink) {
    const glp_u64 thread = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    glp_u32 at[K];
#pragma unroll
    for (int k = 0; k < K; ++k) at[k] = glp_ceiling_hash(thread * K + k) % n;
    for (glp_u32 s = 0; s < steps; ++s) {
#pragma unroll
        for (int k = 0; k < K; ++k) at[k] = __ldg(&next[at[k]]);
    }
    glp_u32 folded = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) folded ^= at[k];
    sink[thread] = folded;
}

#define GLP_CEILING_CHASE(K)                                                                                  \
    extern "C" __global__ void glp_ceiling_chase_##K(const glp_u32* next, glp_u32 n, glp_u32 steps, glp_u32* sink) { \
        glp_ceiling_chase<K>(next, n, steps, sink);                                                              \
    }
GLP_CEILING_CHASE(1)
GLP_CEILING_CHASE(2)
GLP_CEILING_CHASE(4)
GLP_CEILING_CHASE(8)
GLP_CEILING_CHASE(16)
GLP_CEILING_CHASE(32)

extern "C" __global__ void glp_ceiling_gather(const glp_u32* data, glp_u32 n, glp_u32 steps, glp_u32* sink) {
    const glp_u64 thread = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    glp_u32 folded = 0;
    for (glp_u32 s = 0; s < steps; ++s) {
        folded += __ldg(&data[glp_ceiling_hash(thread * 0x9E3779B97F4A7C15ull + s) % n]);
    }
    sink[thread] = folded;
}
