// Rules on what the compiler saw and on what was built (docs/sandbox.md "Artefact rules"):
// preprocessed translation units, the RISC-V disassembly of the kernel, the PTX/SASS of the CUDA
// candidate, and the dynamic section and undefined symbols of built programs and objects.
#include <algorithm>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "sandbox_scan.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/process.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

// A line marker of cpp/nvcc output: `# 12 "file" flags` or `#line 12 "file"`.
bool line_marker(const std::string& line, int* number, std::string* file) {
  static const std::regex re(R"(^#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)\")");
  std::smatch m;
  if (!std::regex_search(line, m, re)) return false;
  *number = std::stoi(m.str(1));
  *file = m.str(2);
  return true;
}

std::string normal(const std::string& p) { return fs::path(p).lexically_normal().string(); }

// First match of `re` in `text` as a violation of `rule` at its line of `file`.
void first_match(const std::string& text, const std::regex& re, const char* rule, const std::string& file,
                 const char* what, std::vector<Violation>& out) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (std::regex_search(line, m, re)) {
      out.push_back({rule, file, n, fmt::format("{}: {}", what, m.str(0))});
      return;
    }
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) v.push_back(line);
  return v;
}

}  // namespace

std::vector<Violation> check_preprocessed(const std::string& tu, const std::map<std::string, std::string>& scanned,
                                          const SandboxRules& rules) {
  std::map<std::string, std::string> by_path;
  for (const auto& [abs, label] : scanned) by_path[normal(abs)] = label;
  // Per candidate file: its lines as the compiler saw them, with their source line numbers.
  std::map<std::string, detail::ScanText> text;
  std::istringstream in(tu);
  std::string line, file;
  int number = 0;
  while (std::getline(in, line)) {
    int n = 0;
    std::string f;
    if (line_marker(line, &n, &f)) {
      file = normal(f);
      number = n;
      continue;
    }
    const auto it = by_path.find(file);
    if (it != by_path.end()) {
      detail::ScanText& t = text[it->second];
      t.text += line + "\n";
      t.line.insert(t.line.end(), line.size() + 1, number);
    }
    ++number;
  }
  std::vector<Violation> out;
  for (const auto& [label, t] : text) detail::scan(label, detail::join_adjacent_literals(t), rules, out);
  for (Violation& v : out) v.what = "after preprocessing: " + v.what;
  return out;
}

std::vector<Violation> check_riscv_disassembly(const std::string& dump, const std::string& file) {
  // objdump lines: "80000abc:\t0805262f          \tamoadd.w\ta2,zero,(a0)".
  static const std::regex re(R"(\t(amo[a-z]+\.[wd](\.aq|\.rl|\.aqrl)?|lr\.[wd](\.aq|\.rl|\.aqrl)?|sc\.[wd](\.aq|\.rl|\.aqrl)?)\b)");
  std::vector<Violation> out;
  first_match(dump, re, "atomics", file, "RISC-V A-extension instruction in the kernel image", out);
  if (!out.empty()) return out;
  // The encoding column too: objdump prints an instruction of an extension the ELF's attributes do
  // not name as ".word", but the AMO major opcode (0101111, RISC-V ISA manual, "A" chapter) is
  // what the core decodes.
  static const std::regex word(R"(^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s)");
  std::istringstream in(dump);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (!std::regex_search(line, m, word)) continue;
    if ((std::stoul(m.str(1), nullptr, 16) & 0x7Fu) == 0x2Fu) {
      out.push_back({"atomics", file, n, fmt::format("AMO-opcode instruction word {} in the kernel image", m.str(1))});
      break;
    }
  }
  return out;
}

std::vector<Violation> check_ptx(const std::string& ptx, const std::string& file) {
  static const std::regex atom(R"(^\s*(@!?%\w+\s+)?(atom|red|multimem\.red|cp\.reduce\.async\.bulk)\.)");
  static const std::regex ext(R"(^\s*\.extern\s+\.func\b.*?(\w+)\s*\()");
  std::vector<Violation> out;
  first_match(ptx, atom, "atomics", file, "atomic/reduction instruction in the PTX", out);
  first_match(ptx, ext, "vendor_library", file, "the PTX calls a device function it does not define", out);
  return out;
}

std::vector<Violation> check_sass(const std::string& sass, const std::string& file) {
  static const std::regex atom(R"(\b(ATOM|ATOMG|ATOMS|RED|REDG)(\.[A-Z0-9_.]+)?\s)");
  static const std::regex call(R"(\bCALL\.ABS\b)");
  std::vector<Violation> out;
  first_match(sass, atom, "atomics", file, "atomic/reduction instruction in the SASS", out);
  first_match(sass, call, "vendor_library", file, "absolute call out of the module in the SASS", out);
  return out;
}

ElfFacts read_elf_facts(const fs::path& elf) {
  ElfFacts f;
  const ProcessResult d = run_process({"readelf", "-d", "-W", elf.string()}, {60});
  const ProcessResult u = run_process({"nm", "-u", "-C", "-D", elf.string()}, {60});
  const ProcessResult s = run_process({"nm", "-u", "-C", elf.string()}, {60});
  if (!d.ok() && !s.ok()) throw make_error("{}: readelf/nm cannot read it: {}", elf.string(), tail_lines(d.output, 2));
  static const std::regex needed(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
  for (const std::string& l : lines_of(d.output)) {
    std::smatch m;
    if (std::regex_search(l, m, needed)) f.needed.push_back(m.str(1));
  }
  // nm -u prints "                 U name"; -D (dynamic) fails on objects, the plain table covers them.
  for (const ProcessResult* r : {&u, &s}) {
    if (!r->ok()) continue;
    for (const std::string& l : lines_of(r->output)) {
      const size_t at = l.find(" U ");
      if (at != std::string::npos) f.undefined.push_back(l.substr(at + 3));
    }
  }
  std::sort(f.undefined.begin(), f.undefined.end());
  f.undefined.erase(std::unique(f.undefined.begin(), f.undefined.end()), f.undefined.end());
  return f;
}

std::vector<Violation> check_elf(const ElfFacts& facts, const std::vector<std::string>* allowed_needed,
                                 const std::string& file) {
  static const std::regex loader(R"(^(dlopen|dlmopen|dlsym|dlvsym|dladdr|dlinfo|__libc_dlopen_mode|__libc_dlsym)(@.*)?$)");
  static const std::regex spawn(R"(^(system|popen|execl|execlp|execle|execv|execvp|execvpe|execve|fexecve|fork|vfork|posix_spawnp?|clone|syscall|mount|umount2?|pivot_root|chroot|setns|unshare|ptrace|fsopen|fsmount|move_mount|open_tree)(@.*)?$)");
  static const std::regex vendor(R"((cublas|cudnn|cutlass))", std::regex::icase);
  std::vector<Violation> out;
  for (const std::string& s : facts.undefined) {
    if (std::regex_search(s, loader)) out.push_back({"dynamic_loading", file, 0, "undefined symbol " + s});
    else if (std::regex_search(s, spawn)) out.push_back({"process_spawn", file, 0, "undefined symbol " + s});
    else if (std::regex_search(s, vendor)) out.push_back({"vendor_library", file, 0, "undefined symbol " + s});
  }
  for (const std::string& lib : facts.needed) {
    if (std::regex_search(lib, vendor))
      out.push_back({"vendor_library", file, 0, "links " + lib});
    else if (allowed_needed && std::find(allowed_needed->begin(), allowed_needed->end(), lib) == allowed_needed->end())
      out.push_back({"dynamic_loading", file, 0, fmt::format("links {}, which the harness's build does not", lib)});
  }
  return out;
}

CudaFacts cuda_facts(const std::string& ptx, const std::string& tu, const std::string& cu_path) {
  CudaFacts f;
  static const std::regex entry(R"(^\s*\.(?:visible\s+)?\.entry\s+(\w+))");
  static const std::regex bounds(R"(^\s*\.(maxntid|reqntid)\s+([0-9, ]+))");
  for (const std::string& l : lines_of(ptx)) {
    std::smatch m;
    if (std::regex_search(l, m, entry)) f.entries.push_back(m.str(1));
    if (std::regex_search(l, m, bounds)) f.bounds.push_back(m.str(1) + " " + m.str(2));
  }
  // Launch sites in the text that came from the candidate file itself.
  std::string text, file;
  std::istringstream in(tu);
  std::string line;
  const std::string want = normal(cu_path);
  while (std::getline(in, line)) {
    int n = 0;
    std::string fl;
    if (line_marker(line, &n, &fl)) {
      file = normal(fl);
      continue;
    }
    if (file == want) text += line + " ";
  }
  static const std::regex site(R"(<<<([^;]*?)>>>)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), site); it != std::sregex_iterator(); ++it) {
    std::string s = (*it)[1].str();
    s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; }), s.end());
    f.launch_sites.push_back(s);
  }
  for (auto* v : {&f.entries, &f.bounds, &f.launch_sites}) std::sort(v->begin(), v->end());
  return f;
}

std::vector<Violation> check_cuda_launches(const CudaFacts& c, const CudaFacts& d, const std::string& file) {
  std::vector<Violation> out;
  for (const std::string& e : c.entries)
    if (std::find(d.entries.begin(), d.entries.end(), e) == d.entries.end())
      out.push_back({"decoy_launch", file, 0, fmt::format("kernel {} is not one the design names", e)});
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : " | ") + x;
    return s.empty() ? std::string("none") : s;
  };
  if (c.entries.size() != d.entries.size() && out.empty())
    out.push_back({"launch_mismatch", file, 0, fmt::format("kernels {} ≠ the design's {}", join(c.entries), join(d.entries))});
  if (c.bounds != d.bounds)
    out.push_back({"launch_mismatch", file, 0, fmt::format("launch bounds {} ≠ the design's {}", join(c.bounds), join(d.bounds))});
  if (c.launch_sites != d.launch_sites)
    out.push_back({"launch_mismatch", file, 0,
                   fmt::format("launch configurations <<<{}>>> ≠ the design's <<<{}>>>", join(c.launch_sites),
                               join(d.launch_sites))});
  return out;
}

}  // namespace vxsynth::refine
