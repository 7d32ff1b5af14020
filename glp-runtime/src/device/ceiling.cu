// glp: the GPU's random-access ceiling (`glp bench probe`). Patterns over an array of n 32-bit
// words:
// - chase<K>: every thread follows K independent chains of dependent reads (i = next[i]) in an
//   array that holds one random cycle (next[i] is the word after i, built by glp_ceiling_cycle),
//   the shape of K walkers in flight per thread;
// - gather: every thread reads words at independent random positions (a hash of its index and
//   the step), the most the memory system serves when nothing waits on a read; the array's
//   contents do not matter, and it may be mapped host memory (zero-copy);
// - blocks: every warp reads whole 4 KiB blocks at random positions (mapped host memory: the
//   bus's rate for block reads).
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

// The keyed permutation of [0, 2^bits) (host twin: `ceiling::cycle::Permutation`, which
// documents it): rounds of an odd multiplication, an xor-shift and an addition, each a
// bijection of bits-bit integers (bits at most 32).
#define GLP_CEILING_ROUNDS 3
struct GlpCeilingRounds {
    glp_u64 mul[GLP_CEILING_ROUNDS];
    glp_u64 add[GLP_CEILING_ROUNDS];
};

__device__ __forceinline__ glp_u64 glp_ceiling_permute(glp_u64 x, glp_u32 bits, const GlpCeilingRounds& rounds) {
    const glp_u64 mask = (1ull << bits) - 1;
    const glp_u32 shift = (bits + 1) / 2;
#pragma unroll
    for (int r = 0; r < GLP_CEILING_ROUNDS; ++r) {
        x = (x * rounds.mul[r]) & mask;
        x ^= x >> shift;
        x = (x + rounds.add[r]) & mask;
    }
    return x;
}

// Writes the cycle that visits p(0), p(1), ..., p(n - 1) and back to p(0), p the permutation:
// next[p(j)] = p(j + 1 mod n), n = 2^bits. One pass of scattered writes, any grid.
extern "C" __global__ void glp_ceiling_cycle(glp_u32* next, glp_u32 bits, GlpCeilingRounds rounds) {
    const glp_u64 n = 1ull << bits;
    const glp_u64 stride = (glp_u64)gridDim.x * blockDim.x;
    for (glp_u64 j = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        next[glp_ceiling_permute(j, bits, rounds)] = (glp_u32)glp_ceiling_permute((j + 1) & (n - 1), bits, rounds);
    }
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

// 4 KiB is 256 16-byte words: a warp reads a block as 8 coalesced rows of 32 lanes.
#define GLP_CEILING_BLOCK_WORDS 256

// Every warp reads `steps` blocks of 4 KiB at random positions among `blocks` (the grid's
// threads a multiple of 32).
extern "C" __global__ void glp_ceiling_blocks(const uint4* data, glp_u32 blocks, glp_u32 steps, glp_u32* sink) {
    const glp_u64 thread = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const glp_u64 warp = thread / 32;
    const glp_u32 lane = threadIdx.x % 32;
    glp_u32 folded = 0;
    for (glp_u32 s = 0; s < steps; ++s) {
        const glp_u64 block = glp_ceiling_hash(warp * 0x9E3779B97F4A7C15ull + s) % blocks;
        const uint4* words = data + block * GLP_CEILING_BLOCK_WORDS;
#pragma unroll
        for (int row = 0; row < GLP_CEILING_BLOCK_WORDS / 32; ++row) {
            const uint4 w = __ldg(&words[row * 32 + lane]);
            folded += w.x ^ w.y ^ w.z ^ w.w;
        }
    }
    sink[thread] = folded;
}
