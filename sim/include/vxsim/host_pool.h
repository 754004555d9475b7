#pragma once
/// \file
/// Host threads for parallel simulation (docs/vxsim.md "Parallel simulation"). A pool runs one
/// function over the partitions of the device (cores or sockets) once per epoch; each thread claims
/// the next partition not yet run. Every partition's work is a pure function of the state at the
/// epoch's start, so the result depends neither on N nor on which thread ran what.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vxsim {

/// Host threads to use for a device of `partitions` partitions: `requested` (0 = the machine's
/// hardware concurrency), then VXSIM_HOST_THREADS if `requested` is 0 and the variable is set,
/// capped at `partitions` (at least 1). Throws vxsynth::Error for a malformed VXSIM_HOST_THREADS.
[[nodiscard]] uint32_t resolve_host_threads(uint32_t requested, uint32_t partitions);

class HostPool {
 public:
  /// Starts `threads - 1` workers; the calling thread is the first one.
  explicit HostPool(uint32_t threads);
  ~HostPool();
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;

  [[nodiscard]] uint32_t threads() const { return static_cast<uint32_t>(workers_.size()) + 1; }
  /// Calls fn(i) for every i < n and returns when all calls returned. If calls throw, the
  /// exception of the lowest i is rethrown (the same one a serial loop over all i would keep).
  /// With `serial`, every call runs on the calling thread, in order.
  void run(uint32_t n, const std::function<void(uint32_t)>& fn, bool serial = false);

 private:
  void work();
  void run_share();

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  uint64_t generation_ = 0;
  uint32_t pending_ = 0;
  bool stop_ = false;
  uint32_t n_ = 0;
  std::atomic<uint32_t> next_{0};  ///< the next partition of this run to claim
  const std::function<void(uint32_t)>* fn_ = nullptr;
  std::vector<std::exception_ptr> errors_;
};

}  // namespace vxsim
