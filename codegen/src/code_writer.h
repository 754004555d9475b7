#pragma once
// Internal: a small writer of C/C++/CUDA source for the emitters. Indentation is structure: a
// block opened with open() indents what follows until its close(); no emitter re-indents text.

#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace vxsynth::codegen::detail {

class CodeWriter {
 public:
  /// One statement or comment line at the current depth (two spaces per level).
  void line(std::string_view text) {
    if (!text.empty()) out_.append(2 * depth_, ' ').append(text);
    out_ += '\n';
  }
  template <typename... Args>
  void line(fmt::format_string<Args...> f, Args&&... args) {
    line(std::string_view(fmt::format(f, std::forward<Args>(args)...)));
  }
  /// A preprocessor line (always at column 0).
  void pp(std::string_view text) { out_.append(text).append("\n"); }
  /// An empty line.
  void blank() { out_ += '\n'; }
  /// `head {` (and `  // comment`), then one level deeper until close().
  void open(std::string_view head, std::string_view comment = "") {
    std::string text = std::string(head) + (head.empty() ? "{" : " {");
    if (!comment.empty()) text += "  // " + std::string(comment);
    line(std::string_view(text));
    ++depth_;
  }
  /// One level up, then `}` followed by `tail` (e.g. "" or " while (0);").
  void close(std::string_view tail = "") {
    --depth_;
    line(std::string("}") + std::string(tail));
  }
  /// Text written so far.
  [[nodiscard]] const std::string& str() const { return out_; }
  [[nodiscard]] int depth() const { return depth_; }

 private:
  std::string out_;
  int depth_ = 0;
};

}  // namespace vxsynth::codegen::detail
