#include "vxsynth/core/kernel_names.h"

#include <array>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>
#include <utility>
#include <regex>
#include <vector>

#include <fmt/format.h>

namespace vxsynth::core {
namespace {

using E = EngineClass;
using T = TileSyntax;
using R = KernelRole;

// THE table (docs/ncu.md §7.1–§7.5). First match wins.
constexpr std::array<KernelNameRule, 24> kRules{{
    // cuBLASLt on Hopper: always wgmma tensor-core in the H200 samples [M] (§7.3).
    {"nvjet", "^nvjet_", E::kTensorCore, "cuBLASLt", T::kNvjet, "docs/ncu.md §7.1, §7.3 [M]", R::kMain, true},
    // cuBLAS/cuDNN xmma: engine from the instruction-shape field (§7.2, reliable in practice [M]).
    {"xmma_dmma", "^sm[0-9]+_xmma_.*f64f64.*_tensor[0-9]+x[0-9]+x[0-9]+", E::kDmma, "cuBLAS/cuDNN", T::kXmma,
     "docs/ncu.md §7.1 (fp64 tensor16x8x16 on sm90) [M]"},
    {"xmma_gmma", "^sm[0-9]+_xmma_.*_warpgroupsize[0-9]", E::kTensorCore, "cuBLAS/cuDNN", T::kXmma,
     "docs/ncu.md §7.2 warpgroupsize → wgmma [M]", R::kMain, true},
    {"xmma_mma", "^sm[0-9]+_xmma_.*_tensor[0-9]+x[0-9]+x[0-9]+", E::kTensorCore, "cuBLAS/cuDNN", T::kXmma,
     "docs/ncu.md §7.2 tensorMxNxK → mma.sync [M]"},
    {"xmma_ffma", "^sm[0-9]+_xmma_.*_ffma", E::kSimt, "cuBLAS/cuDNN", T::kXmma,
     "docs/ncu.md §7.2 ffma → SIMT [M]"},
    // Legacy hand-written cuBLAS families (§7.4).
    {"legacy_sgemm", "^(ampere|volta|turing|maxwell)_sgemm_", E::kSimt, "cuBLAS", T::kSgemm,
     "docs/ncu.md §7.4"},
    {"legacy_sgemm_largek", "sgemm_largek", E::kSimt, "cuBLAS", T::kNone,
     "observed in the ACT H200 capture (data/references/h200/act); SIMT by counters (tensor pipe 0.07 %)"},
    {"legacy_dgemm", "^(ampere|volta|turing)_dgemm_", E::kSimt, "cuBLAS", T::kSgemm, "docs/ncu.md §7.4"},
    {"legacy_tensor_gemm", "^(ampere|volta|turing)_.*[shi](16816|1688|884|16832)gemm", E::kTensorCore, "cuBLAS",
     T::kSgemm, "docs/ncu.md §7.4 (s16816 = HMMA m16n8k16 fp32 acc)"},
    {"legacy_tensor_cudnn", "^(ampere|volta|turing)_.*(s884|s1688|s16816|h884|h1688|h16816)cudnn", E::kTensorCore,
     "cuDNN", T::kNone, "docs/ncu.md §7.4"},
    // CUTLASS (documented procedural names, §7.5).
    {"cutlass3x_simt", "cutlass3x_sm[0-9]+_simt", E::kSimt, "CUTLASS", T::kNone, "docs/ncu.md §7.5"},
    {"cutlass3x_tensorop", "cutlass3x_sm[0-9]+_tensorop", E::kTensorCore, "CUTLASS", T::kNone,
     "docs/ncu.md §7.5"},
    {"cutlass_simt", "cutlass_[0-9]*_?simt_", E::kSimt, "CUTLASS", T::kCutlass2, "docs/ncu.md §7.5"},
    {"cutlass_tensorop", "cutlass_[0-9]*_?(tensorop|wmma)", E::kTensorCore, "CUTLASS", T::kCutlass2,
     "docs/ncu.md §7.5"},
    // cuDNN (§7.4).
    {"cudnn_sdpa_wgmma", "^cudnn_generated_fort_native_.*(wgmma|hmma)", E::kTensorCore, "cuDNN", T::kNone,
     "docs/ncu.md §7.1 [M]"},
    {"cudnn_implicit_sgemm", "implicit_convolve_[sd]gemm", E::kSimt, "cuDNN", T::kNone, "docs/ncu.md §7.4"},
    {"cudnn_winograd", "winograd", E::kSimt, "cuDNN", T::kNone, "docs/ncu.md §7.4"},
    {"cudnn_layout", "(nchwToNhwc|nhwcToNchw)Kernel", E::kSimt, "cuDNN", T::kNone,
     "docs/ncu.md §7.1 layout transposes [M]", R::kHelper},
    {"cudnn_workspace", "init_device_workspace_kernel", E::kSimt, "cuDNN", T::kNone, "docs/ncu.md §7.1 [M]", R::kHelper},
    {"cublas_splitk_reduce", "splitKreduce_kernel", E::kSimt, "cuBLASLt", T::kNone, "docs/ncu.md §7.1 [M]", R::kHelper},
    // ATen's own kernels run on CUDA cores (§7.1 last row [M]). ncu renames at::native:: to at::.
    {"aten_native", "(^|[ <])at::", E::kSimt, "ATen", T::kNone,
     "docs/ncu.md §7.1 [M]", R::kHelper},
    {"aten_softmax", "cunn_SoftMax", E::kSimt, "ATen", T::kNone, "docs/ncu.md §7.1 [M]"},
    // NCCL collectives: ncclKernel_<Coll>_<Algo>_<Proto>_<Op>_<type> (NCCL < 2.19) and
    // ncclDevKernel_<Coll>_<Op>_<type>_<Algo>_<Proto> (NCCL >= 2.19), as NCCL's generated device
    // sources name them. Communication, not an operator of the model.
    {"nccl", "(^|[ :])nccl(Dev)?Kernel_", E::kSimt, "NCCL", T::kNone, "docs/signature.md (hot kernels: communication kernels)",
     R::kCommunication},
    {"triton", "^triton_", E::kSimt, "Triton", T::kNone, "[U]: Triton kernels may use tensor cores; counters decide"},
}};

const std::vector<std::regex>& compiled() {
  static const std::vector<std::regex> re = [] {
    std::vector<std::regex> v;
    v.reserve(kRules.size());
    for (const auto& r : kRules) v.emplace_back(std::string(r.pattern), std::regex::ECMAScript | std::regex::optimize);
    return v;
  }();
  return re;
}

uint32_t to_u32(const std::string& s) {
  uint32_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// THE tile-syntax table, in TileSyntax order (docs/ncu.md §7.2–§7.5). nvjet's cluster field follows
// the two tile fields; its grid is the tile count rounded up to whole clusters (measured on π0's
// nvjet kernels: 86 tiles of 64×48 → 4×22 CTAs with a 4×1 cluster; 96 tiles → 8×12 with 4×2).
constexpr std::array<TileSyntaxRule, 5> kSyntaxes{{
    {T::kNone, "", "", "", "", "", GridForm::kNone, "no tile in the name"},
    {T::kNvjet, "_([0-9]+)x([0-9]+)_([0-9]+)x([0-9]+)(_|$)", "", "", "_[0-9]+x[0-9]+_[0-9]+x[0-9]+_([0-9]+)x([0-9]+)_",
     "_splitK(_|$)", GridForm::kClusters, "docs/ncu.md §7.3 [U]; cluster and grid from data/references/h200/pi0 [M]"},
    {T::kXmma, "tilesize([0-9]+)x([0-9]+)x([0-9]+)", "_stage([0-9]+)", "_warpsize([0-9]+)x([0-9]+)x1", "", "",
     GridForm::kTiles, "docs/ncu.md §7.2 [M]"},
    {T::kCutlass2, "_([0-9]+)x([0-9]+)_([0-9]+)x([0-9]+)_", "", "", "", "", GridForm::kTiles,
     "docs/ncu.md §7.5 (documented)"},
    {T::kSgemm, "_([0-9]+)x([0-9]+)_", "", "", "", "", GridForm::kTiles, "docs/ncu.md §7.4"},
}};

// Groups 1 and 2 of `pattern` in `name` (0, 0 without a match or pattern).
std::pair<uint32_t, uint32_t> two(const std::string& name, std::string_view pattern) {
  if (pattern.empty()) return {0, 0};
  std::smatch m;
  const std::regex re{std::string(pattern)};
  if (!std::regex_search(name, m, re)) return {0, 0};
  return {to_u32(m[1]), to_u32(m[2])};
}

void read_syntax(std::string_view name, TileSyntax syntax, NameHints& h) {
  const TileSyntaxRule& r = kSyntaxes[static_cast<std::size_t>(syntax)];
  if (r.tile.empty()) return;
  const std::string n(name);
  std::smatch m;
  if (!std::regex_search(n, m, std::regex{std::string(r.tile)})) return;
  TileHint t;
  t.m = to_u32(m[1]);
  t.n = to_u32(m[2]);
  if (m.size() > 3 && m[3].matched) t.k = to_u32(m[3]);
  if (m.size() > 4 && m[4].matched && syntax != T::kXmma) t.stages = to_u32(m[4]);
  if (!r.stages.empty() && std::regex_search(n, m, std::regex{std::string(r.stages)})) t.stages = to_u32(m[1]);
  h.tile = t;
  std::tie(h.warps_m, h.warps_n) = two(n, r.warps);
  const auto [cx, cy] = two(n, r.cluster);
  h.cluster = std::max<uint32_t>(1, cx * cy);
  h.split_k = !r.split_k.empty() && std::regex_search(n, std::regex{std::string(r.split_k)});
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The GEMM view of the context's shape; none without a shape or with a convolution's groups or
// strides not positive.
std::optional<GemmView> view_of(const ReferenceContext& ctx) {
  if (ctx.gemm) return gemm_view(*ctx.gemm);
  if (!ctx.conv) return std::nullopt;
  const ConvShape& c = *ctx.conv;
  if (c.groups <= 0 || c.stride[0] <= 0 || c.stride[1] <= 0) return std::nullopt;
  return gemm_view(c);
}

}  // namespace

std::span<const TileSyntaxRule> tile_syntax_rules() { return kSyntaxes; }

std::vector<LaunchFit> launch_fits(const ReferenceContext& ctx, std::string* why_not) {
  auto no = [&](std::string why) -> std::vector<LaunchFit> {
    if (why_not) *why_not = std::move(why);
    return {};
  };
  const NameHints h = classify_kernel_name(ctx.kernel_name);
  if (!h.tile || h.tile->m == 0 || h.tile->n == 0) return no("the name spells no tile");
  const auto v = view_of(ctx);
  if (!v || v->m <= 0 || v->n <= 0 || v->k <= 0 || v->z <= 0) return no("no GEMM or convolution shape");
  const GridForm form = kSyntaxes[static_cast<std::size_t>(h.rule->tile)].grid;
  const LaunchGeometry& l = ctx.launch;
  const int64_t ctas = int64_t{l.grid[0]} * l.grid[1] * l.grid[2];
  if (h.warps_m > 0 && int64_t{h.warps_m} * h.warps_n * 32 != l.block_size())
    return no(fmt::format("warp layout {}x{} is {} threads, the launch has {}", h.warps_m, h.warps_n,
                          h.warps_m * h.warps_n * 32, l.block_size()));
  const TileHint& t = *h.tile;
  const int64_t max_split = t.k > 0 ? cdiv(v->k, t.k) : 1;
  std::vector<LaunchFit> fits;
  for (const bool swap : {false, true}) {
    if (swap && t.m == t.n) break;
    const int64_t bm = swap ? t.n : t.m, bn = swap ? t.m : t.n;
    const int64_t tiles = cdiv(v->m, bm) * cdiv(v->n, bn) * v->z;
    for (int64_t s = 1; s <= max_split; ++s) {
      const int64_t want = form == GridForm::kClusters ? cdiv(tiles * s, h.cluster) * h.cluster : tiles * s;
      if (want > ctas) break;
      if (want != ctas) continue;
      LaunchFit f;
      f.tile = t;
      f.tile.m = static_cast<uint32_t>(bm);
      f.tile.n = static_cast<uint32_t>(bn);
      f.ctas_per_tile = static_cast<uint32_t>(s);
      f.warps_m = swap ? h.warps_n : h.warps_m;
      f.warps_n = swap ? h.warps_m : h.warps_n;
      f.why = fmt::format("{} CTAs = {} tiles of {}x{} (M={} N={} batch {}){}{}", ctas, tiles / v->z, bm, bn, v->m,
                          v->n, v->z, s > 1 ? fmt::format(" x {} along K", s) : "",
                          form == GridForm::kClusters && h.cluster > 1
                              ? fmt::format(", rounded up to clusters of {}", h.cluster) : "");
      fits.push_back(std::move(f));
      break;
    }
  }
  if (!fits.empty()) return fits;
  return no(fmt::format("{} CTAs match neither orientation of the {}x{} tile for M={} N={} batch {} (up to {} CTAs "
                        "per tile along K)", ctas, t.m, t.n, v->m, v->n, v->z, max_split));
}

std::optional<LaunchFit> launch_fit(const ReferenceContext& ctx, std::string* why_not) {
  std::vector<LaunchFit> fits = launch_fits(ctx, why_not);
  if (fits.empty()) return std::nullopt;
  return std::move(fits.front());
}

std::optional<LaunchFit> best_launch_fit(const ReferenceContext& ctx, std::string* why_not) {
  std::vector<LaunchFit> fits = launch_fits(ctx, why_not);
  if (fits.empty()) return std::nullopt;
  if (fits.size() == 1 || ctx.tensor_ops <= 0) return std::move(fits.front());
  const auto off = [&](const LaunchFit& f) { return std::abs(std::log(padded_mma_ops(f.tile, ctx) / ctx.tensor_ops)); };
  auto best = std::min_element(fits.begin(), fits.end(),
                               [&](const LaunchFit& a, const LaunchFit& b) { return off(a) < off(b); });
  best->why += fmt::format("; both orientations fit the launch, this one's padded tensor work ({:.0f} M operations) "
                           "is the closest to the reference's {:.0f} M", padded_mma_ops(best->tile, ctx) / 1e6,
                           ctx.tensor_ops / 1e6);
  return std::move(*best);
}

double padded_mma_ops(const TileHint& tile, const ReferenceContext& ctx) {
  const auto v = view_of(ctx);
  if (!v || tile.m == 0 || tile.n == 0) return 0;
  const int64_t bk = tile.k > 0 ? tile.k : 1;
  return 2.0 * static_cast<double>(v->z) * static_cast<double>(cdiv(v->m, tile.m) * tile.m) *
         static_cast<double>(cdiv(v->n, tile.n) * tile.n) * static_cast<double>(cdiv(v->k, bk) * bk);
}

std::span<const KernelNameRule> kernel_name_rules() { return kRules; }

NameHints classify_kernel_name(std::string_view name) {
  NameHints h;
  const std::string n(name);
  const auto& re = compiled();
  for (std::size_t i = 0; i < kRules.size(); ++i) {
    if (std::regex_search(n, re[i])) {
      h.rule = &kRules[i];
      read_syntax(name, kRules[i].tile, h);
      break;
    }
  }
  return h;
}

std::string_view to_string(KernelRole r) {
  switch (r) {
    case R::kMain: return "main";
    case R::kHelper: return "helper";
    case R::kCommunication: return "communication";
  }
  return "?";
}

std::string kernel_base_name(std::string_view name) {
  std::string s(name);
  // The two anonymous-namespace spellings (docs/ncu.md §5.3) hold brackets that are not
  // template arguments or parameters: read them as one identifier first.
  for (const std::string_view anon : {std::string_view("(anonymous namespace)"), std::string_view("<unnamed>")}) {
    for (std::size_t p; (p = s.find(anon)) != std::string::npos;) s.replace(p, anon.size(), "anon");
  }
  // Keep what lies outside template brackets, up to the parameter list (the first '(' there).
  std::string head;
  int depth = 0;
  for (const char c : s) {
    if (c == '<') {
      ++depth;
    } else if (c == '>') {
      depth = depth > 0 ? depth - 1 : 0;
    } else if (depth == 0) {
      if (c == '(') break;
      head += c;
    }
  }
  while (!head.empty() && head.back() == ' ') head.pop_back();
  // The last word is the qualified function name (before it: the return type), its last '::'
  // component the function.
  const std::size_t space = head.rfind(' ');
  if (space != std::string::npos) head.erase(0, space + 1);
  const std::size_t colon = head.rfind("::");
  if (colon != std::string::npos) head.erase(0, colon + 2);
  return head;
}

}  // namespace vxsynth::core
