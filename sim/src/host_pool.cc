#include "vxsim/host_pool.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "vxsynth/common/error.h"

namespace vxsim {

uint32_t resolve_host_threads(uint32_t requested, uint32_t partitions) {
  uint32_t n = requested;
  if (n == 0) {
    if (const char* v = std::getenv("VXSIM_HOST_THREADS"); v != nullptr && *v != '\0') {
      const std::string_view s(v);
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
      if (ec != std::errc() || end != s.data() + s.size()) {
        throw vxsynth::make_error("environment variable VXSIM_HOST_THREADS='{}' must be a number of threads "
                                  "(0 = the machine's hardware concurrency)", s);
      }
    }
  }
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp(n, 1u, std::max(1u, partitions));
}

HostPool::HostPool(uint32_t threads) {
  for (uint32_t t = 1; t < std::max(1u, threads); ++t) workers_.emplace_back([this] { work(); });
}

HostPool::~HostPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& w : workers_) w.join();
}

void HostPool::run_share() {
  // Each thread takes the next unclaimed partition, so a thread whose partitions finish early
  // takes on another's; which thread runs a partition does not change its result.
  for (uint32_t i = next_.fetch_add(1, std::memory_order_relaxed); i < n_; i = next_.fetch_add(1, std::memory_order_relaxed)) {
    try {
      (*fn_)(i);
    } catch (...) {
      errors_[i] = std::current_exception();
    }
  }
}

void HostPool::work() {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    run_share();
    std::lock_guard<std::mutex> lock(mu_);
    if (--pending_ == 0) done_cv_.notify_one();
  }
}

void HostPool::run(uint32_t n, const std::function<void(uint32_t)>& fn, bool serial) {
  if (serial) {
    for (uint32_t i = 0; i < n; ++i) fn(i);
    return;
  }
  errors_.assign(n, nullptr);
  n_ = n;
  fn_ = &fn;
  next_.store(0, std::memory_order_relaxed);
  if (!workers_.empty()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending_ = static_cast<uint32_t>(workers_.size());
      ++generation_;
    }
    start_cv_.notify_all();
  }
  run_share();
  if (!workers_.empty()) {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
  }
  for (auto& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace vxsim
