#include "vxsynth/core/kernel_names.h"

#include <array>
#include <charconv>
#include <regex>
#include <vector>

namespace vxsynth::core {
namespace {

using E = EngineClass;
using T = TileSyntax;
using R = KernelRole;

// THE table (docs/ncu.md §7.1–§7.5). First match wins.
constexpr std::array<KernelNameRule, 24> kRules{{
    // cuBLASLt on Hopper: always wgmma tensor-core in the H200 samples [M] (§7.3).
    {"nvjet", "^nvjet_", E::kTensorCore, "cuBLASLt", T::kNvjet, "docs/ncu.md §7.1, §7.3 [M]"},
    // cuBLAS/cuDNN xmma: engine from the instruction-shape field (§7.2, reliable in practice [M]).
    {"xmma_dmma", "^sm[0-9]+_xmma_.*f64f64.*_tensor[0-9]+x[0-9]+x[0-9]+", E::kDmma, "cuBLAS/cuDNN", T::kXmma,
     "docs/ncu.md §7.1 (fp64 tensor16x8x16 on sm90) [M]"},
    {"xmma_gmma", "^sm[0-9]+_xmma_.*_warpgroupsize[0-9]", E::kTensorCore, "cuBLAS/cuDNN", T::kXmma,
     "docs/ncu.md §7.2 warpgroupsize → wgmma [M]"},
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

std::optional<TileHint> read_tile(std::string_view name, TileSyntax syntax) {
  const std::string n(name);
  std::smatch m;
  TileHint t;
  switch (syntax) {
    case T::kNone: return std::nullopt;
    case T::kNvjet:
    case T::kCutlass2: {
      static const std::regex re("_([0-9]+)x([0-9]+)_([0-9]+)x([0-9]+)(_|$)");
      if (!std::regex_search(n, m, re)) return std::nullopt;
      t = {to_u32(m[1]), to_u32(m[2]), to_u32(m[3]), to_u32(m[4])};
      return t;
    }
    case T::kXmma: {
      static const std::regex re("tilesize([0-9]+)x([0-9]+)x([0-9]+)");
      static const std::regex st("_stage([0-9]+)");
      if (!std::regex_search(n, m, re)) return std::nullopt;
      t = {to_u32(m[1]), to_u32(m[2]), to_u32(m[3]), 0};
      if (std::regex_search(n, m, st)) t.stages = to_u32(m[1]);
      return t;
    }
    case T::kSgemm: {
      static const std::regex re("_([0-9]+)x([0-9]+)_");
      if (!std::regex_search(n, m, re)) return std::nullopt;
      t = {to_u32(m[1]), to_u32(m[2]), 0, 0};
      return t;
    }
  }
  return std::nullopt;
}

}  // namespace

std::span<const KernelNameRule> kernel_name_rules() { return kRules; }

NameHints classify_kernel_name(std::string_view name) {
  NameHints h;
  const std::string n(name);
  const auto& re = compiled();
  for (std::size_t i = 0; i < kRules.size(); ++i) {
    if (std::regex_search(n, re[i])) {
      h.rule = &kRules[i];
      h.tile = read_tile(name, kRules[i].tile);
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
