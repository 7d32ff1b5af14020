// Micro-benchmark behind the frontier engine's strided blocks (glp_block_append_trips): a pass
// over 9M vertices that flags a fifth of them, writes a bit per vertex and counts or lists the
// flagged ones, launched as a block per 256 threads with one atomic per block (the frontier
// engine's kernels before) or as blocks that stride and count or list once at the end.
// Stand-alone CUDA (no glp code), for the GPU machine:
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /dev/shm/block_counters bench/block_counters.cu
//   /dev/shm/block_counters
//
// On an NVIDIA H200 (medians of 21): block counter 37 µs, no counter 28 µs, strided 23 µs;
// a block list append per 256 threads 46 µs, striding blocks (8, 16 or 32 an SM) that list
// once at the end 42 / 37 / 33 µs.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
typedef unsigned int u32; typedef unsigned long long u64;
#define FULL 0xFFFFFFFFu
template <typename T> __device__ __forceinline__ T bsum(T x) {
  __shared__ T w[32];
  for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL, x, o);
  if ((threadIdx.x & 31u) == 0u) w[threadIdx.x >> 5] = x;
  __syncthreads();
  if (threadIdx.x < 32u) { x = threadIdx.x < (blockDim.x >> 5) ? w[threadIdx.x] : T(0);
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL, x, o); }
  __syncthreads(); return x;
}
__device__ __forceinline__ void badd(u64* t, u64 x) { x = bsum(x); if (threadIdx.x == 0 && x) atomicAdd(t, x); }
__device__ __forceinline__ void bappend(u32* list, u64* count, bool take, u32 v) {
  __shared__ u32 before[32]; __shared__ u64 base;
  unsigned lane = threadIdx.x & 31u; unsigned ballot = __ballot_sync(FULL, take);
  if (lane == 0u) before[threadIdx.x >> 5] = __popc(ballot);
  __syncthreads();
  if (threadIdx.x < 32u) { u32 own = threadIdx.x < (blockDim.x >> 5) ? before[threadIdx.x] : 0u; u32 inc = own;
    for (unsigned o = 1; o < 32; o <<= 1) { u32 up = __shfl_up_sync(FULL, inc, o); if (lane >= o) inc += up; }
    before[threadIdx.x] = inc - own; u32 tot = __shfl_sync(FULL, inc, 31);
    if (threadIdx.x == 0u) base = tot ? atomicAdd(count, (u64)tot) : 0ull; }
  __syncthreads();
  if (take) list[base + before[threadIdx.x >> 5] + __popc(ballot & ((1u << lane) - 1u))] = v;
  __syncthreads();
}
// K1: thread per vertex, block counter (today's glp_frontier_send)
__global__ void k_block(const u32* ch, u32* sending, u64* cnt, u64 n, u32 it) {
  u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; bool s = i < n && ch[i] == it;
  unsigned b = __ballot_sync(FULL, s); if ((threadIdx.x & 31) == 0 && i < n) sending[i >> 5] = b;
  badd(cnt, s ? 1 : 0);
}
// K2: same without the counter
__global__ void k_noatom(const u32* ch, u32* sending, u64* cnt, u64 n, u32 it) {
  u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; bool s = i < n && ch[i] == it;
  unsigned b = __ballot_sync(FULL, s); if ((threadIdx.x & 31) == 0 && i < n) sending[i >> 5] = b;
}
// K3: strided over a bounded grid, one block counter at the end
__global__ void k_strided(const u32* ch, u32* sending, u64* cnt, u64 n, u32 it) {
  u64 c = 0;
  for (u64 f = (u64)blockIdx.x * blockDim.x; f < n; f += (u64)gridDim.x * blockDim.x) {
    u64 i = f + threadIdx.x; bool s = i < n && ch[i] == it; c += s;
    unsigned b = __ballot_sync(FULL, s); if ((threadIdx.x & 31) == 0 && i < n) sending[i >> 5] = b;
  }
  badd(cnt, c);
}
// K4: thread per vertex + append (today's LIST_SENDERS / pull's queue_out)
__global__ void k_append(const u32* ch, u32* sending, u64* cnt, u32* list, u64 n, u32 it) {
  u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; bool s = i < n && ch[i] == it;
  unsigned b = __ballot_sync(FULL, s); if ((threadIdx.x & 31) == 0 && i < n) sending[i >> 5] = b;
  bappend(list, cnt, s, (u32)i);
}
// K5: strided, append deferred: trips' flags in a 64-bit mask, one atomic per block
__global__ void k_append_deferred(const u32* ch, u32* sending, u64* cnt, u32* list, u64 n, u32 it) {
  u64 mask = 0; u32 t = 0; u64 first = (u64)blockIdx.x * blockDim.x, stride = (u64)gridDim.x * blockDim.x;
  for (u64 f = first; f < n; f += stride, ++t) {
    u64 i = f + threadIdx.x; bool s = i < n && ch[i] == it; if (s) mask |= 1ull << t;
    unsigned b = __ballot_sync(FULL, s); if ((threadIdx.x & 31) == 0 && i < n) sending[i >> 5] = b;
  }
  __shared__ u64 base; __shared__ u32 before[32];
  u32 mine = __popcll(mask); unsigned lane = threadIdx.x & 31;
  u32 inc = mine; for (unsigned o = 1; o < 32; o <<= 1) { u32 up = __shfl_up_sync(FULL, inc, o); if (lane >= o) inc += up; }
  if (lane == 31) before[threadIdx.x >> 5] = inc;
  __syncthreads();
  if (threadIdx.x < 32) { u32 own = threadIdx.x < (blockDim.x >> 5) ? before[threadIdx.x] : 0; u32 x = own;
    for (unsigned o = 1; o < 32; o <<= 1) { u32 up = __shfl_up_sync(FULL, x, o); if (lane >= o) x += up; }
    before[threadIdx.x] = x - own; u32 tot = __shfl_sync(FULL, x, 31);
    if (threadIdx.x == 0) base = tot ? atomicAdd(cnt, (u64)tot) : 0; }
  __syncthreads();
  u64 at = base + before[threadIdx.x >> 5] + inc - mine;
  t = 0;
  for (u64 f = first; f < n; f += stride, ++t) if (mask >> t & 1) list[at++] = (u32)(f + threadIdx.x);
}
int main() {
  const u64 n = 9000000; const u32 it = 3;
  std::vector<u32> h(n); unsigned long long x = 88172645463325252ull;
  for (u64 i = 0; i < n; ++i) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; h[i] = (x % 100) < 20 ? it : 0; }
  u32 *ch, *sending, *list; u64* cnt;
  cudaMalloc(&ch, n * 4); cudaMalloc(&sending, n / 8 + 64); cudaMalloc(&list, n * 4); cudaMalloc(&cnt, 8);
  cudaMemcpy(ch, h.data(), n * 4, cudaMemcpyHostToDevice);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto time = [&](const char* name, auto launch) {
    std::vector<float> ts;
    for (int r = 0; r < 21; ++r) { cudaMemset(cnt, 0, 8); cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
      float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms * 1000); }
    std::sort(ts.begin(), ts.end()); u64 c; cudaMemcpy(&c, cnt, 8, cudaMemcpyDeviceToHost);
    printf("%-28s median %7.1f us  min %7.1f  count %llu  err %s\n", name, ts[10], ts[0], c, cudaGetErrorString(cudaGetLastError()));
  };
  unsigned blocks = (n + 255) / 256;
  time("block counter", [&] { k_block<<<blocks, 256>>>(ch, sending, cnt, n, it); });
  time("no counter", [&] { k_noatom<<<blocks, 256>>>(ch, sending, cnt, n, it); });
  for (int per : {4, 8, 16}) { char nm[64]; sprintf(nm, "strided %d blocks/SM", per);
    time(nm, [&] { k_strided<<<sms * per, 256>>>(ch, sending, cnt, n, it); }); }
  time("strided 1024 blocks", [&] { k_strided<<<1024, 256>>>(ch, sending, cnt, n, it); });
  time("append per block", [&] { k_append<<<blocks, 256>>>(ch, sending, cnt, list, n, it); });
  for (int per : {8, 16, 32}) { char nm[64]; sprintf(nm, "append deferred %d/SM", per);
    time(nm, [&] { k_append_deferred<<<sms * per, 256>>>(ch, sending, cnt, list, n, it); }); }
  return 0;
}
