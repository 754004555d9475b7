#include "vxsynth/check/reference_ops.h"

#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

#include "vxsynth/common/error.h"

namespace vxsynth::check {
namespace {

double apply(Activation act, double v) { return act == Activation::kRelu ? std::max(v, 0.0) : v; }

/// Runs body(r) for r in [0, rows) on the machine's hardware threads, contiguous ranges each. Every
/// output element is computed by one thread in the same order as serially, so the result is
/// bit-identical for any thread count; only a large op (the whole-shape reference of π0's 27 G-MAC
/// linear takes ~30 s on one core) is split.
void parallel_rows(int64_t rows, int64_t work_per_row, const std::function<void(int64_t)>& body) {
  constexpr int64_t kMinWorkPerThread = int64_t{1} << 24;  // multiply-adds: below, a thread costs more than it saves
  const int64_t hw = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t threads = std::clamp<int64_t>(rows * work_per_row / kMinWorkPerThread, 1, std::min(hw, rows));
  if (threads <= 1) {
    for (int64_t r = 0; r < rows; ++r) body(r);
    return;
  }
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int64_t r = rows * t / threads; r < rows * (t + 1) / threads; ++r) body(r);
    });
  for (auto& th : pool) th.join();
}

}  // namespace

std::vector<double> reference_linear(std::span<const double> x, std::span<const double> w,
                                     std::span<const double> bias, int64_t m, int64_t n, int64_t k,
                                     Activation act) {
  std::vector<double> out(static_cast<size_t>(m * n));
  parallel_rows(m, n * k, [&](int64_t i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int64_t kk = 0; kk < k; ++kk) acc += x[static_cast<size_t>(i * k + kk)] * w[static_cast<size_t>(j * k + kk)];
      if (!bias.empty()) acc += bias[static_cast<size_t>(j)];
      out[static_cast<size_t>(i * n + j)] = apply(act, acc);
    }
  });
  return out;
}

std::vector<double> reference_bmm(std::span<const double> a, std::span<const double> b, int64_t batch, int64_t m,
                                  int64_t n, int64_t k, int64_t a_batch_stride, int64_t b_batch_stride) {
  std::vector<double> out(static_cast<size_t>(batch * m * n));
  parallel_rows(batch * m, n * k, [&](int64_t row) {
    const int64_t bb = row / m, i = row % m;
    const int64_t ao = bb * a_batch_stride;
    const int64_t bo = bb * b_batch_stride;
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int64_t kk = 0; kk < k; ++kk) {
        acc += a[static_cast<size_t>(ao + i * k + kk)] * b[static_cast<size_t>(bo + kk * n + j)];
      }
      out[static_cast<size_t>((bb * m + i) * n + j)] = acc;
    }
  });
  return out;
}

std::vector<double> reference_conv2d(std::span<const double> x, std::span<const double> w,
                                     std::span<const double> bias, const core::ConvShape& s, Activation act) {
  const int64_t p_out = s.out_h();
  const int64_t q_out = s.out_w();
  const int64_t cg = s.c / s.groups;
  const int64_t kg = s.k / s.groups;
  std::vector<double> out(static_cast<size_t>(s.n * s.k * p_out * q_out));
  parallel_rows(s.n * s.k, p_out * q_out * cg * s.r * s.s, [&](int64_t row) {
    const int64_t nb = row / s.k, ko = row % s.k;
    const int64_t g = ko / kg;
    for (int64_t p = 0; p < p_out; ++p) {
      for (int64_t q = 0; q < q_out; ++q) {
        double acc = 0.0;
        for (int64_t c = 0; c < cg; ++c) {
          for (int64_t r = 0; r < s.r; ++r) {
            const int64_t h = p * s.stride[0] - s.pad[0] + r * s.dilation[0];
            if (h < 0 || h >= s.h) continue;
            for (int64_t t = 0; t < s.s; ++t) {
              const int64_t ww = q * s.stride[1] - s.pad[1] + t * s.dilation[1];
              if (ww < 0 || ww >= s.w) continue;
              const double xv = x[static_cast<size_t>(((nb * s.c + g * cg + c) * s.h + h) * s.w + ww)];
              const double wv = w[static_cast<size_t>(((ko * cg + c) * s.r + r) * s.s + t)];
              acc += xv * wv;
            }
          }
        }
        if (!bias.empty()) acc += bias[static_cast<size_t>(ko)];
        out[static_cast<size_t>(((nb * s.k + ko) * p_out + p) * q_out + q)] = apply(act, acc);
      }
    }
  });
  return out;
}

std::vector<double> reference_forward(const OpSpec& op, std::span<const std::vector<double>> inputs) {
  op.validate();
  const auto infos = operands(op);
  if (inputs.size() != infos.size()) {
    throw make_error("{}: expected {} input tensors, got {}", describe(op), infos.size(), inputs.size());
  }
  for (size_t i = 0; i < infos.size(); ++i) {
    if (static_cast<int64_t>(inputs[i].size()) != infos[i].numel()) {
      throw make_error("{}: input '{}' has {} elements, expected {}", describe(op), infos[i].name, inputs[i].size(),
                       infos[i].numel());
    }
  }
  const std::span<const double> none;
  const auto& g = op.gemm;
  switch (op.family) {
    case OpFamily::kLinear:
      return reference_linear(inputs[0], inputs[1], op.has_bias ? std::span<const double>(inputs[2]) : none, g.m,
                              g.n, g.k, op.activation);
    case OpFamily::kMatmul:
    case OpFamily::kBmm: {
      auto out = reference_bmm(inputs[0], inputs[1], g.batch, g.m, g.n, g.k, op.a_stride(), op.b_stride());
      for (double& v : out) v = apply(op.activation, v);
      return out;
    }
    case OpFamily::kConv1d:
    case OpFamily::kConv2d:
      return reference_conv2d(inputs[0], inputs[1], op.has_bias ? std::span<const double>(inputs[2]) : none,
                              op.conv, op.activation);
  }
  return {};
}

}  // namespace vxsynth::check
