// SDK smoke kernel, run directly on the vxsim CLI (no host runtime): checks the startup code
// (constructors, .bss clear, per-hart TLS incl. initialised .tdata), vx_spawn_threads in thread
// and block mode (coverage of every index exactly once, __local_mem, __syncthreads), the
// vx_simt.h helpers, the warp-level intrinsics (VOTE, SHFL, SPLIT.N/JOIN) and vx_printf. Core 0
// returns the number of failed checks as exit code.
#include <vx_print.h>
#include <vx_simt.h>
#include <vx_spawn.h>

namespace {

constexpr uint32_t kGx = 37, kGy = 3;            // thread mode: 111 blocks of one thread
constexpr uint32_t kBgx = 3, kBgy = 2;           // block mode: 6 blocks ...
constexpr uint32_t kBx = 5, kBy = 3;             // ... of 15 threads (a partial warp)
constexpr uint32_t kBlockThreads = kBx * kBy;

uint32_t thread_hits[kGx * kGy];                 // .bss, cleared by the startup code
uint32_t thread_odd[kGx * kGy];
uint32_t thread_loop[kGx * kGy];
uint32_t thread_tls[kGx * kGy];
uint32_t block_hits[kBgx * kBgy * kBlockThreads];
uint32_t block_neighbour[kBgx * kBgy * kBlockThreads];
uint32_t block_bad_index[kBgx * kBgy * kBlockThreads];

constexpr uint32_t kMaxLanes = 32;
uint32_t lane_vote[kMaxLanes][4];                // all, any, uni, ballot
uint32_t lane_shfl[kMaxLanes][4];                // up, down, bfly, idx
uint32_t lane_split_runs[kMaxLanes];             // times the lane ran the split region

__thread uint32_t tls_counter = 7;               // .tdata: every hart starts with 7

struct Constructed {
  uint32_t value;
  Constructed() : value(1234) {}
};
Constructed constructed;

void thread_body(void*) {
  uint32_t id = blockIdx.y * kGx + blockIdx.x;
  thread_hits[id] += 1;
  VX_IF(id & 1u) {
    thread_odd[id] = 1;
  } VX_ELSE {
    thread_odd[id] = 2;
  } VX_ENDIF
  // per-lane trip count id % 5, uniform exit test
  uint32_t acc = 0;
  uint32_t n = id % 5u;
  for (uint32_t k = 0; vx_vote_any(k < n); ++k) {
    VX_IF(k < n) {
      acc += k + 1;
    } VX_ENDIF
  }
  thread_loop[id] = acc;
  tls_counter += 1;                              // starts at 7 on every hart
  thread_tls[id] = tls_counter;
  tls_counter = 7;
}

void block_body(void*) {
  uint32_t tid = threadIdx.y * kBx + threadIdx.x;
  uint32_t bid = blockIdx.y * kBgx + blockIdx.x;
  uint32_t gid = bid * kBlockThreads + tid;
  block_hits[gid] += 1;
  uint32_t bad = (threadIdx.x >= kBx) | (threadIdx.y >= kBy) | (threadIdx.z != 0) |
                 (blockIdx.x >= kBgx) | (blockIdx.y >= kBgy) | (blockIdx.z != 0) |
                 (blockDim.x != kBx) | (gridDim.y != kBgy);
  block_bad_index[gid] = bad;
  auto local = reinterpret_cast<uint32_t*>(__local_mem(kBlockThreads * sizeof(uint32_t)));
  local[tid] = gid;
  __syncthreads();
  block_neighbour[gid] = local[(tid + 1) % kBlockThreads];
  __syncthreads();
}

// One block of NUM_THREADS threads = one full warp: threadIdx.x is the lane.
void lanes_body(void*) {
  uint32_t t = threadIdx.x;
  uint32_t nt = blockDim.x;
  lane_vote[t][0] = (uint32_t)vx_vote_all(t < nt);
  lane_vote[t][1] = (uint32_t)vx_vote_any(t == 0);
  lane_vote[t][2] = (uint32_t)vx_vote_uni((int)(t & 1u));
  lane_vote[t][3] = (uint32_t)vx_vote_ballot((int)(t & 1u));
  lane_shfl[t][0] = (uint32_t)vx_shfl_up(t, 1, 0, 0);
  lane_shfl[t][1] = (uint32_t)vx_shfl_down(t, 1, (int)nt - 1, 0);
  lane_shfl[t][2] = (uint32_t)vx_shfl_bfly(t, 1, (int)nt - 1, 0);
  lane_shfl[t][3] = (uint32_t)vx_shfl_idx(t, 2, (int)nt - 1, 0);
  // SPLIT.N / JOIN: each group re-runs the region after the split once, so every lane counts 1.
  int depth = vx_split_n((int)(t & 1u));
  lane_split_runs[t] += 1;
  vx_join(depth);
}

uint32_t expected_loop(uint32_t id) {
  uint32_t n = id % 5u, acc = 0;
  for (uint32_t k = 0; k < n; ++k) acc += k + 1;
  return acc;
}

}  // namespace

int main() {
  uint32_t grid[2] = {kGx, kGy};
  uint32_t bgrid[2] = {kBgx, kBgy};
  uint32_t block[2] = {kBx, kBy};
  int rc = 0;
  // gridDim/blockDim are shared by all cores (as on Vortex): a core must not start a launch of
  // another shape while other cores still run kernels that read them, hence the global barriers.
  rc |= vx_spawn_threads(2, grid, nullptr, thread_body, nullptr);
  vx_barrier(0x80000000, vx_num_cores());
  rc |= vx_spawn_threads(2, bgrid, block, block_body, nullptr);
  vx_barrier(0x80000000, vx_num_cores());
  uint32_t one = 1, warp = (uint32_t)vx_num_threads();
  rc |= vx_spawn_threads(1, &one, &warp, lanes_body, nullptr);
  vx_barrier(0x80000000, vx_num_cores());        // every core's blocks are done
  if (vx_core_id() != 0) {
    return 0;
  }
  int errors = (rc != 0) + (constructed.value != 1234) + (tls_counter != 7);
  for (uint32_t id = 0; id < kGx * kGy; ++id) {
    errors += thread_hits[id] != 1;
    errors += thread_odd[id] != ((id & 1u) ? 1u : 2u);
    errors += thread_loop[id] != expected_loop(id);
    errors += thread_tls[id] != 8;
  }
  for (uint32_t g = 0; g < kBgx * kBgy * kBlockThreads; ++g) {
    uint32_t b = g / kBlockThreads, t = g % kBlockThreads;
    errors += block_hits[g] != 1;
    errors += block_bad_index[g] != 0;
    errors += block_neighbour[g] != b * kBlockThreads + (t + 1) % kBlockThreads;
  }
  uint32_t nt = (uint32_t)vx_num_threads();
  uint32_t full = 0xffffffffu >> (32u - nt);
  for (uint32_t t = 0; t < nt; ++t) {
    errors += lane_vote[t][0] != 1;
    errors += lane_vote[t][1] != 1;
    errors += lane_vote[t][2] != (nt == 1 ? 1u : 0u);
    errors += lane_vote[t][3] != (0xaaaaaaaau & full);
    errors += lane_shfl[t][0] != (t >= 1 ? t - 1 : t);
    errors += lane_shfl[t][1] != (t + 1 <= nt - 1 ? t + 1 : t);
    errors += lane_shfl[t][2] != ((t ^ 1u) <= nt - 1 ? (t ^ 1u) : t);
    errors += lane_shfl[t][3] != (2u <= nt - 1 ? 2u : t);
    errors += lane_split_runs[t] != 1;
  }
  vx_printf("smoke: %d errors on %d cores x %d warps x %d threads\n", errors, vx_num_cores(),
            vx_num_warps(), vx_num_threads());
  return errors;
}
