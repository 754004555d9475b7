#pragma once
// Test helper: loads an assembled test program (tests/asm/<name>.S → <name>.elf) into a
// Processor and gives access to its symbols and result words.
#include <memory>
#include <sstream>
#include <string>

#include "vxsim/core.h"
#include "vxsim/loader.h"

namespace vxsim::test {

inline std::string asm_path(const std::string& name, const char* ext = ".elf") {
  return std::string(VXSIM_ASM_DIR) + "/" + name + ext;
}

struct AsmMachine {
  std::unique_ptr<Processor> proc;
  Program prog;
  std::ostringstream console;

  explicit AsmMachine(const std::string& name, Config cfg = {}) {
    proc = std::make_unique<Processor>(cfg);
    proc->set_console(&console);
    prog = load_program(*proc, asm_path(name));
    proc->reset();
  }
  RunResult run() { return proc->run(); }
  uint32_t sym(const std::string& s) const { return prog.symbols.at(s); }
  /// i-th 32-bit word at symbol `s`.
  uint32_t word(const std::string& s, uint32_t i = 0) const { return proc->memory().read32(sym(s) + 4 * i); }
  float fword(const std::string& s, uint32_t i = 0) const {
    uint32_t w = word(s, i);
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
};

}  // namespace vxsim::test
