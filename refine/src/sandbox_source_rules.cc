// The source-rule table and its scanner (docs/sandbox.md "Source rules").
#include <regex>
#include <set>
#include <string_view>
#include <utility>

#include "sandbox_scan.h"

namespace vxsynth::refine {
namespace {

// The source-rule table (paper §3.3: "may not … call the vendor library instead of the generated
// kernel, replay cached outputs"; no atomics — the references use none and split-K must reduce
// without them, paper §3.3 and §4.3). Matched against whole files with comments blanked and
// adjacent string literals joined (string literals stay, so inline asm is seen), and again against
// what the compiler saw after preprocessing (check_preprocessed).
const std::vector<SourceRule> kSourceRules = {
    // Vendor libraries (cuBLAS, cuBLASLt, cuDNN, CUTLASS/CuTe) and framework ops.
    {"vendor_library", R"(#\s*include\s*[<"](cublas|cublasLt|cudnn|cutlass|cute)[^>"]*[>"])", "all",
     "paper §3.3: no vendor-library call instead of the generated kernel"},
    {"vendor_library", R"((cublas|cublasLt|cudnn|libcublas|libcudnn)[A-Za-z0-9_.]*)", "all",
     "paper §3.3: no cuBLAS/cuDNN call (also as a string naming the library or a symbol)"},
    {"vendor_library", R"(\b(cutlass|cute)\s*::)", "all", "paper §3.3: no CUTLASS/CuTe kernel"},
    {"vendor_library",
     R"(\b(torch|at|at::native|torch::nn::functional|F)\s*::\s*(matmul|mm|bmm|addmm|baddbmm|addbmm|linear|conv1d|conv2d|conv3d|convolution|_convolution|conv_transpose[123]d|einsum|mv|dot|tensordot|cudnn_convolution|linalg_matmul)\s*\()",
     "all", "paper §3.3: no framework op in place of the generated kernel"},
    {"vendor_library", R"(\.\s*(matmul|mm|bmm|addmm|baddbmm|conv2d|conv1d|einsum)\s*\()", "all",
     "paper §3.3: no framework tensor op in place of the generated kernel"},
    // Atomics: CUDA, C/C++ builtins and libraries, PTX, RISC-V A extension, Vortex.
    {"atomics", R"(\b\w*[Aa]tomic\w*\s*\()", "all", "no atomics: any *atomic* call (CUDA, __nv_, C/C++ builtins)"},
    {"atomics", R"(\b__sync_[a-z_]+\s*\()", "all", "no atomics: compiler __sync builtins"},
    {"atomics", R"(\b(std|cuda)\s*::\s*atomic(_ref)?\b)", "all", "no atomics: atomic types"},
    {"atomics", R"((\b|\.)(atom|red)\.(global|shared|gpu|sys|cta|relaxed|acquire|release|add|min|max|inc|dec|cas|exch|and|or|xor|f32|u32|s32|u64|f64|f16|bf16|v2|v4))",
     "all", "no atomics: PTX atom/red"},
    {"atomics", R"(\bamo(add|swap|and|or|xor|max|maxu|min|minu|cas)\.(w|d)\b)", "all",
     "no atomics: RISC-V AMO"},
    {"atomics", R"(\b(lr|sc)\.(w|d)(\.aq|\.rl|\.aqrl)?\b)", "all", "no atomics: RISC-V LR/SC"},
    {"atomics", R"(\bvx_[A-Za-z0-9_]*(atomic|amo)[A-Za-z0-9_]*\b)", "all", "no atomics: Vortex"},
    // Reading stored outputs: candidate code does no file I/O at all (the harness reads and writes
    // every tensor, vxs_host.cpp and the standalone launcher), and embeds no file.
    {"stored_output",
     R"(\b(fopen|freopen|fread|fwrite|fscanf|fgets|ifstream|ofstream|fstream|filebuf|mmap|opendir|readdir|readlink|open|openat|creat|pread|getline|torch\s*::\s*load|torch\s*::\s*pickle_load)\s*[(<]|\b(ifstream|ofstream|fstream)\b)",
     "all", "paper §3.3: no replay of cached outputs (candidate code does no file I/O)"},
    {"stored_output", R"(\.incbin\b|\bincbin\b|__has_embed|#\s*embed\b)", "all",
     "paper §3.3: no cached output embedded into the kernel image"},
    // The host process is the harness's: candidate code loads no library and starts no process.
    {"dynamic_loading", R"(\b(dlopen|dlmopen|dlsym|dlvsym|dladdr|dlinfo|__libc_dlopen_mode|__libc_dlsym)\b)", "all",
     "no library loaded at run time (a vendor library reached through the dynamic loader)"},
    {"process_spawn",
     R"(\b(system|popen|execl|execlp|execle|execv|execvp|execvpe|execve|fexecve|fork|vfork|posix_spawnp?|clone|syscall)\s*\()",
     "all", "no process started by candidate code (a copy of a stored output, a detached writer)"},
    // The sandbox's own mounts and namespaces (docs/sandbox.md "Isolation": a GPU step may keep
    // CAP_SYS_ADMIN, with which these would undo the mounts that hide the run directory).
    {"process_spawn", R"(\b(mount|umount2?|pivot_root|chroot|setns|unshare|ptrace|fsopen|fsmount|move_mount|open_tree)\s*\()",
     "all", "no mount or namespace change by candidate code (the sandbox hides the run directory by mounts)"},
    // A system call made directly (x86-64 inline assembly): host code under ncu is not confined.
    {"process_spawn", R"(\b(syscall|sysenter)\b|\bint\s*\$?0x80\b)", "all",
     "no system call made directly by candidate code (file or socket access past the libc rules)"},
};

bool applies(const SourceRule& r, const std::string& path) {
  const std::string_view a(r.applies_to);
  if (a == "all") return true;
  if (a == "device") return detail::is_device_file(path);
  return !detail::is_device_file(path);
}

}  // namespace

const std::vector<SourceRule>& source_rule_table() { return kSourceRules; }

namespace detail {

bool is_device_file(const std::string& path) {
  const std::string_view p(path);
  return p.ends_with(".cu") || p.ends_with(".cuh") || p == "kernel.cpp" || p.ends_with("/kernel.cpp");
}

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

ScanText with_lines(const std::string& code) {
  ScanText t{code, std::vector<int>(code.size())};
  int line = 1;
  for (size_t i = 0; i < code.size(); ++i) {
    t.line[i] = line;
    if (code[i] == '\n') ++line;
  }
  return t;
}

ScanText join_adjacent_literals(const ScanText& in) {
  ScanText out;
  const std::string& s = in.text;
  bool in_str = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_str && c == '\\' && i + 1 < s.size()) {
      out.text += {c, s[i + 1]};
      out.line.insert(out.line.end(), {in.line[i], in.line[i + 1]});
      ++i;
      continue;
    }
    if (in_str && c == '"') {
      // End of a literal: when only white space (or a prefix-free literal) follows, continue it.
      size_t j = i + 1;
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) ++j;
      if (j < s.size() && s[j] == '"') {
        i = j;
        continue;
      }
      in_str = false;
    } else if (!in_str && c == '"') {
      in_str = true;
    }
    out.text += c;
    out.line.push_back(in.line[i]);
  }
  return out;
}

void scan(const std::string& path, const ScanText& t, const SandboxRules& rules, std::vector<Violation>& out) {
  static const std::vector<std::pair<const SourceRule*, std::regex>> compiled = [] {
    std::vector<std::pair<const SourceRule*, std::regex>> v;
    for (const SourceRule& r : kSourceRules) v.emplace_back(&r, std::regex(r.pattern));
    return v;
  }();
  for (const auto& [rule, re] : compiled) {
    if (!applies(*rule, path)) continue;
    std::smatch m;
    if (std::regex_search(t.text, m, re)) {
      const size_t pos = static_cast<size_t>(m.position(0));
      out.push_back({rule->rule, path, pos < t.line.size() ? t.line[pos] : 0, m.str(0)});
    }
  }
  for (const std::string& name : rules.stored_output_names) {
    const size_t pos = name.empty() ? std::string::npos : t.text.find(name);
    if (pos != std::string::npos) out.push_back({"stored_output", path, t.line[pos], name});
  }
}

}  // namespace detail
}  // namespace vxsynth::refine
