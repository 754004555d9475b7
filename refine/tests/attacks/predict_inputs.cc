// Helper of the catalogue attack predict_inputs.sh: draws the linear layer's inputs the way the
// check library does (std::mt19937_64, Box–Muller; docs/equivalence.md) from a guessed seed and
// prints the float64 reference output as a C initializer.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>
#include <vector>

static double normal(std::mt19937_64& rng) {
  constexpr double kScale = 1.0 / 9007199254740992.0;
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * kScale;
  const double u2 = static_cast<double>(rng() >> 11) * kScale;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

static std::vector<double> draw(std::mt19937_64& rng, int n, double stddev) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = static_cast<double>(static_cast<float>(stddev * normal(rng)));
  return v;
}

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const uint64_t seed = std::strtoull(argv[1], nullptr, 10);
  const int M = std::atoi(argv[2]), N = std::atoi(argv[3]), K = std::atoi(argv[4]);
  std::mt19937_64 rng(seed);
  const double w = 1.0 / std::sqrt(static_cast<double>(K));
  const auto x = draw(rng, M * K, 1.0), weight = draw(rng, N * K, w), bias = draw(rng, N, w);
  std::printf("static const float vxs_table[%d] = {", M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double acc = bias[static_cast<size_t>(n)];
      for (int k = 0; k < K; ++k) acc += x[static_cast<size_t>(m * K + k)] * weight[static_cast<size_t>(n * K + k)];
      std::printf("%.9gf,", static_cast<double>(static_cast<float>(acc)));
    }
  std::printf("};\n");
  return 0;
}
