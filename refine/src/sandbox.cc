#include "vxsynth/refine/sandbox.h"

#include <algorithm>
#include <regex>
#include <set>
#include <string_view>

#include <fmt/format.h>

namespace vxsynth::refine {
namespace {

// The source-rule table (paper §3.3: "may not … call the vendor library instead of the generated
// kernel, replay cached outputs"; no atomics — the references use none and split-K must
// reduce without them, paper §3.3 and §4.3). Patterns are matched against one line at a time
// after comments are blanked; string literals stay, so inline asm is seen.
const std::vector<SourceRule> kSourceRules = {
    // Vendor libraries (cuBLAS, cuBLASLt, cuDNN, CUTLASS/CuTe) and framework ops.
    {"vendor_library", R"(#\s*include\s*[<"](cublas|cublasLt|cudnn|cutlass|cute)[^>"]*[>"])", "all",
     "paper §3.3: no vendor-library call instead of the generated kernel"},
    {"vendor_library", R"(\b(cublas|cublasLt|cudnn)[A-Za-z0-9_]*\b)", "all",
     "paper §3.3: no cuBLAS/cuDNN call"},
    {"vendor_library", R"(\b(cutlass|cute)\s*::)", "all", "paper §3.3: no CUTLASS/CuTe kernel"},
    {"vendor_library",
     R"(\b(torch|at|at::native|torch::nn::functional|F)\s*::\s*(matmul|mm|bmm|addmm|baddbmm|addbmm|linear|conv1d|conv2d|conv3d|convolution|_convolution|conv_transpose[123]d|einsum|mv|dot|tensordot|cudnn_convolution|linalg_matmul)\s*\()",
     "all", "paper §3.3: no framework op in place of the generated kernel"},
    {"vendor_library", R"(\.\s*(matmul|mm|bmm|addmm|baddbmm|conv2d|conv1d|einsum)\s*\()", "all",
     "paper §3.3: no framework tensor op in place of the generated kernel"},
    // Atomics: CUDA, C/C++ builtins and libraries, PTX, RISC-V A extension, Vortex.
    {"atomics", R"(\batomic[A-Z][A-Za-z_]*\s*\()", "all", "no atomics: CUDA atomic*()"},
    {"atomics", R"(\b__(atomic|sync)_[a-z_]+\s*\()", "all", "no atomics: compiler builtins"},
    {"atomics", R"(\b(std|cuda)\s*::\s*atomic(_ref)?\b)", "all", "no atomics: atomic types"},
    {"atomics", R"(\b(atom|red)\.(global|shared|gpu|sys|cta|relaxed|acquire|release|add|min|max|inc|dec|cas|exch|and|or|xor)\b)",
     "all", "no atomics: PTX atom/red"},
    {"atomics", R"(\bamo(add|swap|and|or|xor|max|maxu|min|minu|cas)\.(w|d)\b)", "all",
     "no atomics: RISC-V AMO"},
    {"atomics", R"(\b(lr|sc)\.(w|d)(\.aq|\.rl|\.aqrl)?\b)", "all", "no atomics: RISC-V LR/SC"},
    {"atomics", R"(\bvx_[A-Za-z0-9_]*(atomic|amo)[A-Za-z0-9_]*\b)", "all", "no atomics: Vortex"},
    // Reading stored outputs: device code does no file I/O at all.
    {"stored_output",
     R"(\b(fopen|freopen|fread|fscanf|ifstream|fstream|mmap|torch\s*::\s*load|torch\s*::\s*pickle_load)\b)",
     "device", "paper §3.3: no replay of cached outputs (kernels do no file I/O)"},
};

bool is_device_file(const std::string& path) {
  const std::string_view p(path);
  return p.ends_with(".cu") || p.ends_with(".cuh") || p == "kernel.cpp" ||
         p.ends_with("/kernel.cpp");
}

bool applies(const SourceRule& r, const std::string& path) {
  const std::string_view a(r.applies_to);
  if (a == "all") return true;
  if (a == "device") return is_device_file(path);
  return !is_device_file(path);
}

// Blanks // and /* */ comments (keeping newlines and string literals) so that line numbers hold.
std::string blank_comments(const std::string& src) {
  std::string out = src;
  enum { kCode, kLine, kBlock, kStr, kChr } st = kCode;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = src[i];
    const char n = i + 1 < src.size() ? src[i + 1] : '\0';
    switch (st) {
      case kCode:
        if (c == '/' && n == '/') { st = kLine; out[i] = ' '; }
        else if (c == '/' && n == '*') { st = kBlock; out[i] = ' '; out[i + 1] = ' '; ++i; }
        else if (c == '"') st = kStr;
        else if (c == '\'') st = kChr;
        break;
      case kLine:
        if (c == '\n') st = kCode; else out[i] = ' ';
        break;
      case kBlock:
        if (c == '*' && n == '/') { out[i] = ' '; out[i + 1] = ' '; ++i; st = kCode; }
        else if (c != '\n') out[i] = ' ';
        break;
      case kStr:
        if (c == '\\') ++i;
        else if (c == '"' || c == '\n') st = kCode;
        break;
      case kChr:
        if (c == '\\') ++i;
        else if (c == '\'' || c == '\n') st = kCode;
        break;
    }
  }
  return out;
}

void scan(const std::string& path, const std::string& content, const SandboxRules& rules,
          std::vector<Violation>& out) {
  static const std::vector<std::pair<const SourceRule*, std::regex>> compiled = [] {
    std::vector<std::pair<const SourceRule*, std::regex>> v;
    for (const SourceRule& r : kSourceRules) v.emplace_back(&r, std::regex(r.pattern));
    return v;
  }();
  const std::string code = blank_comments(content);
  int line_no = 0;
  size_t pos = 0;
  while (pos <= code.size()) {
    const size_t nl = std::min(code.find('\n', pos), code.size());
    const std::string line = code.substr(pos, nl - pos);
    ++line_no;
    for (const auto& [rule, re] : compiled) {
      if (!applies(*rule, path)) continue;
      std::smatch m;
      if (std::regex_search(line, m, re)) out.push_back({rule->rule, path, line_no, m.str(0)});
    }
    for (const std::string& name : rules.stored_output_names)
      if (!name.empty() && line.find(name) != std::string::npos)
        out.push_back({"stored_output", path, line_no, name});
    pos = nl + 1;
  }
}

// Equal up to comments: a generator's banner line naming the design (e.g. the Makefile's first
// comment) is not a change of the file's behaviour. Makefiles: full-line '#' comments; C/C++/CUDA
// sources: // and /* */ comments; anything else byte for byte.
bool same_up_to_comments(const std::string& path, const std::string& a, const std::string& b) {
  if (a == b) return true;
  const std::string_view p(path);
  if (p.ends_with("Makefile") || p.ends_with(".mk")) {
    auto strip = [](const std::string& s) {
      std::string out;
      size_t pos = 0;
      while (pos < s.size()) {
        size_t nl = s.find('\n', pos);
        if (nl == std::string::npos) nl = s.size();
        const std::string line = s.substr(pos, nl - pos);
        const size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] != '#') out += line + "\n";
        pos = nl + 1;
      }
      return out;
    };
    return strip(a) == strip(b);
  }
  if (p.ends_with(".cu") || p.ends_with(".cuh") || p.ends_with(".cpp") || p.ends_with(".h") ||
      p.ends_with(".cc"))
    return blank_comments(a) == blank_comments(b);
  return false;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

const char* engine_name(core::EngineClass e) {
  switch (e) {
    case core::EngineClass::kSimt: return "SIMT";
    case core::EngineClass::kTensorCore: return "tensor core";
    case core::EngineClass::kDmma: return "DMMA";
  }
  return "?";
}

const char* dtype_name(core::DType t) {
  switch (t) {
    case core::DType::kFp32: return "fp32";
    case core::DType::kTf32: return "tf32";
    case core::DType::kBf16: return "bf16";
    case core::DType::kFp16: return "fp16";
    case core::DType::kFp64: return "fp64";
    case core::DType::kInt8: return "int8";
  }
  return "?";
}

std::string gemm_text(const core::GemmShape& g) {
  return fmt::format("batch={} M={} N={} K={}", g.batch, g.m, g.n, g.k);
}

std::string conv_text(const core::ConvShape& c) {
  return fmt::format("N={} C={} H={} W={} K={} R={} S={} stride={}x{} pad={}x{} dil={}x{} groups={}",
                     c.n, c.c, c.h, c.w, c.k, c.r, c.s, c.stride[0], c.stride[1], c.pad[0],
                     c.pad[1], c.dilation[0], c.dilation[1], c.groups);
}

}  // namespace

std::string Violation::message() const {
  if (file.empty()) return fmt::format("{}: {}", rule, what);
  if (line == 0) return fmt::format("{}: {}: {}", rule, file, what);
  return fmt::format("{}: {}:{}: {}", rule, file, line, what);
}

const std::vector<SourceRule>& source_rule_table() { return kSourceRules; }

SandboxRules default_rules() {
  SandboxRules r;
  r.editable = {"cuda/candidate.cu", "vortex/kernel.cpp", "vortex/main.cpp", "vortex/common.h"};
  r.swap_target_files = {"cuda/swap.json"};
  r.stored_output_names = {"ref_output", "reference_output", "outputs.bin"};
  return r;
}

std::vector<Violation> check_sources(const SourceTree& retained, const SourceTree& candidate,
                                     const SandboxRules& rules) {
  std::vector<Violation> out;
  std::set<std::string> paths;
  for (const auto& [p, _] : retained) paths.insert(p);
  for (const auto& [p, _] : candidate) paths.insert(p);
  for (const std::string& p : paths) {
    const auto old_it = retained.find(p);
    const auto new_it = candidate.find(p);
    const bool was = old_it != retained.end();
    const bool is = new_it != candidate.end();
    if (was && is && old_it->second == new_it->second) continue;  // unchanged
    if (!retained.empty()) {
      if (contains(rules.swap_target_files, p)) {
        out.push_back({"swap_target", p, 0, "the operator-swap target may not change"});
        continue;
      }
      if (!contains(rules.editable, p)) {
        if (was && is && same_up_to_comments(p, old_it->second, new_it->second)) continue;
        out.push_back({"edit_outside_named_files", p, 0,
                       was && is ? "changed" : (is ? "added" : "removed")});
        continue;
      }
      if (!is) {
        out.push_back({"edit_outside_named_files", p, 0, "a named file may not be removed"});
        continue;
      }
    }
    // The swap target is reference data written by the harness (the reference kernel's name and op
    // stack, e.g. "cutlass::Kernel2<…>" or "aten::cudnn_convolution"), never candidate code; it may
    // not change (checked above), and the code rules do not apply to it.
    if (is && !contains(rules.swap_target_files, p)) scan(p, new_it->second, rules, out);
  }
  return out;
}

FixedProperties fixed_properties(const core::ReferenceContext& ctx, bool for_vortex) {
  FixedProperties f;
  f.engine = ctx.engine;
  f.operand_type = ctx.operand_type;
  f.accumulator_type = ctx.accumulator_type;
  // Vortex has no TF32: a TF32 tensor-core reference becomes an FP16 TCU candidate (paper §3.3;
  // docs/signature.md §2).
  if (for_vortex && f.operand_type == core::DType::kTf32) f.operand_type = core::DType::kFp16;
  f.block_size = ctx.launch.block_size();
  f.gemm = ctx.gemm;
  f.conv = ctx.conv;
  return f;
}

std::vector<Violation> check_fixed_properties(const FixedProperties& fixed,
                                              const ObservedProperties& obs) {
  std::vector<Violation> out;
  if (obs.block_size && *obs.block_size != fixed.block_size)
    out.push_back({"fixed_property", "", 0,
                   fmt::format("block size {} ≠ reference {}", *obs.block_size, fixed.block_size)});
  if (obs.engine && *obs.engine != fixed.engine)
    out.push_back({"fixed_property", "", 0,
                   fmt::format("engine class {} ≠ reference {}", engine_name(*obs.engine),
                               engine_name(fixed.engine))});
  if (obs.operand_type && *obs.operand_type != fixed.operand_type)
    out.push_back({"fixed_property", "", 0,
                   fmt::format("operand type {} ≠ {}", dtype_name(*obs.operand_type),
                               dtype_name(fixed.operand_type))});
  if (obs.accumulator_type && *obs.accumulator_type != fixed.accumulator_type)
    out.push_back({"fixed_property", "", 0,
                   fmt::format("accumulator type {} ≠ {}", dtype_name(*obs.accumulator_type),
                               dtype_name(fixed.accumulator_type))});
  if (obs.gemm && fixed.gemm) {
    const auto& a = *obs.gemm;
    const auto& b = *fixed.gemm;
    if (a.batch != b.batch || a.m != b.m || a.n != b.n || a.k != b.k)
      out.push_back({"fixed_property", "", 0,
                     fmt::format("shape {} ≠ reference {}", gemm_text(a), gemm_text(b))});
  }
  if (obs.conv && fixed.conv) {
    const std::string a = conv_text(*obs.conv);
    const std::string b = conv_text(*fixed.conv);
    if (a != b) out.push_back({"fixed_property", "", 0, fmt::format("shape {} ≠ reference {}", a, b)});
  }
  if ((obs.gemm && !fixed.gemm) || (obs.conv && !fixed.conv))
    out.push_back({"fixed_property", "", 0, "operator family differs from the reference"});
  if (obs.atomics_per_inst && *obs.atomics_per_inst > 0.0)
    out.push_back({"atomics", "", 0,
                   fmt::format("counters show {} atomic instructions per instruction",
                               *obs.atomics_per_inst)});
  return out;
}

}  // namespace vxsynth::refine
