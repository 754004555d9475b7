// libFuzzer target for vxsim's one-table decoder and the semantics behind it.
//
// Every input (layout: fuzz_input.h) is checked twice:
//  1. Decode: each 32-bit word of the input decodes without crashing; it matches exactly one row
//     of instr_table() (and decode() picks that row) or no row (and decode() says kIllegalOp);
//     the fields decode() extracts are the word's fields; the disassembly is non-empty and names
//     the row; describe_operands() lists at most 3 in-range sources and the row's unit.
//  2. Execute: the program words run on a real vxsim machine (1 core, 1-2 warps, 4 threads) from
//     a fuzz-chosen register, fcsr, thread-mask, ACL and memory state, with a budget of
//     kInstrBudget warp instructions, either through Processor::run() or stepped like the timing
//     model (Core::step). The run must end normally or with vxsim::SimError; after every step
//     x0 is 0 in every lane, thread masks stay inside the warp, the IPDOM stack stays within
//     NUM_THREADS-1 entries and the ExecutedInstr record is consistent.
// Any other outcome (sanitizer report, assert, other exception, broken invariant) aborts, and
// libFuzzer saves the input as a crash artifact. Run: scripts/fuzz-decoder.sh (docs/vxsim.md).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "fuzz_input.h"
#include "vxsim/core.h"
#include "vxsim/error.h"
#include "vxsim/isa.h"

namespace vxsim::fuzz {
namespace {

constexpr uint32_t kThreads = 4;
constexpr uint32_t kFullMask = (1u << kThreads) - 1;

/// Reports a broken invariant and aborts, so libFuzzer records the input as a crash.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  std::string msg = fmt::format(format, std::forward<Args>(args)...);
  std::fprintf(stderr, "decode_fuzzer: invariant broken: %s\n", msg.c_str());
  std::fflush(stderr);
  std::abort();
}

/// Little-endian 32-bit word at byte `off`; bytes past `size` read as zero.
uint32_t word_at(const uint8_t* data, size_t size, size_t off) {
  uint32_t w = 0;
  for (size_t i = 0; i < 4; ++i) {
    if (off + i < size) w |= static_cast<uint32_t>(data[off + i]) << (8 * i);
  }
  return w;
}

/// Selector nibble `index` (0..31) of the 16-byte block at `off`.
uint32_t nibble_at(const uint8_t* data, size_t size, size_t off, uint32_t index) {
  size_t pos = off + index / 2;
  uint32_t byte = pos < size ? data[pos] : 0;
  return (index & 1) != 0 ? (byte >> 4) : (byte & 0xF);
}

/// Part 1: decode, table uniqueness, fields, disassembly, operand description of one word.
void check_decode(uint32_t word) {
  const Decoded d = decode(word);
  if (d.word != word) fail("decode({:#010x}).word = {:#010x}", word, d.word);
  if (d.rd != ((word >> 7) & 0x1F) || d.rs1 != ((word >> 15) & 0x1F) || d.rs2 != ((word >> 20) & 0x1F) ||
      d.rs3 != (word >> 27) || d.rm != ((word >> 12) & 7)) {
    fail("decode({:#010x}) extracted wrong register/rm fields", word);
  }
  const auto table = instr_table();
  size_t matches = 0;
  size_t first = 0;
  for (size_t i = 0; i < table.size(); ++i) {
    if ((word & table[i].mask) == table[i].match) {
      if (matches == 1) {
        fail("word {:#010x} matches two table rows: {} and {}", word, table[first].name, table[i].name);
      }
      if (matches == 0) first = i;
      ++matches;
    }
  }
  const std::string text = disasm(d, 0x80000000u);
  if (text.empty()) fail("empty disassembly of {:#010x}", word);
  ExecutedInstr e;
  describe_operands(d, e);
  if (matches == 0) {
    if (d.op != kIllegalOp) fail("word {:#010x} matches no row but decode() chose row {}", word, d.op);
    if (e.num_src != 0 || e.has_dst) fail("illegal word {:#010x} described with operands", word);
    return;
  }
  if (d.op != first) {
    fail("word {:#010x} matches row {} ({}) but decode() chose {}", word, first, table[first].name,
         d.op == kIllegalOp ? std::string("illegal") : std::to_string(d.op));
  }
  const std::string_view name = table[first].name;
  if (std::string_view(text).substr(0, name.size()) != name) {
    fail("disassembly '{}' of {:#010x} does not start with the row name '{}'", text, word, name);
  }
  if (e.num_src > 3 || e.op_id != d.op || e.unit != table[first].unit || e.is_control != table[first].control) {
    fail("describe_operands({:#010x} = '{}') is inconsistent with its row", word, text);
  }
  for (uint8_t i = 0; i < e.num_src; ++i) {
    if (e.src[i].index >= 32 || (!e.src[i].fp && e.src[i].index == 0)) {
      fail("describe_operands('{}') lists source register {} (fp={})", text, e.src[i].index, e.src[i].fp);
    }
  }
  if (e.has_dst && (e.dst.index >= 32 || (!e.dst.fp && e.dst.index == 0))) {
    fail("describe_operands('{}') lists destination register {}", text, e.dst.index);
  }
}

/// Invariants of the architectural state after every step.
void check_state(Processor& p, const char* where) {
  Core& c = p.core(0);
  for (uint32_t w = 0; w < c.num_warps(); ++w) {
    const Warp& wp = c.warp(w);
    if ((wp.tmask & ~kFullMask) != 0) fail("{}: warp {} thread mask {:#x} has lanes beyond {}", where, w, wp.tmask, kThreads);
    if (wp.ipdom.size() > kThreads - 1) fail("{}: warp {} IPDOM stack holds {} entries", where, w, wp.ipdom.size());
    for (uint32_t l = 0; l < kThreads; ++l) {
      if (wp.x[l] != 0) fail("{}: warp {} lane {}: x0 = {:#x}", where, w, l, wp.x[l]);
    }
    if ((wp.fcsr & ~0xFFu) != 0) fail("{}: warp {} fcsr = {:#x}", where, w, wp.fcsr);
  }
}

/// Consistency of one ExecutedInstr with the word it executed.
void check_record(const ExecutedInstr& r, uint32_t mask_before) {
  const Decoded d = decode(r.word);
  if (r.op_id != d.op) fail("record of {:#010x} at PC {:#x}: op_id {} but decode() says {}", r.word, r.pc, r.op_id, d.op);
  if (r.active_mask != mask_before) fail("record at PC {:#x}: active_mask {:#x}, warp mask was {:#x}", r.pc, r.active_mask, mask_before);
  if (r.num_src > 3) fail("record at PC {:#x}: {} sources", r.pc, r.num_src);
  if (r.mem == MemKind::kLoad || r.mem == MemKind::kStore || r.mem == MemKind::kAmo) {
    for (uint32_t l = 0; l < kThreads; ++l) {
      const LaneAccess& a = r.lanes[l];
      const bool active = ((r.active_mask >> l) & 1) != 0;
      if (!active && a.size != 0) fail("record at PC {:#x}: inactive lane {} has an access", r.pc, l);
      if (active && a.size != 0 && (a.addr >= (1ull << 32) || (a.addr & (a.size - 1)) != 0)) {
        fail("record at PC {:#x}: lane {} access {:#x}/{}", r.pc, l, a.addr, a.size);
      }
    }
  }
}

/// The machines inputs run on, one per (warps, strict divergence) shape, reused between inputs:
/// building a Processor allocates the 4 GiB address space's page table (about 9 MB), which would
/// cap the fuzzer at ~70 inputs/s under ASan. Reuse is exact because every input rewrites the two
/// pages it uses (code, data), resets the ACL of the data page and calls Processor::reset(); a
/// machine whose program allocated any other page is dropped and rebuilt for the next input.
/// A crash artifact replayed alone (`decode_fuzzer <artifact>`) always runs on a fresh machine.
struct Machine {
  std::unique_ptr<Processor> proc;
  std::ostringstream console;
};
Machine& machine(uint32_t warps, bool strict) {
  static Machine machines[2][2];
  Machine& m = machines[warps - 1][strict ? 1 : 0];
  if (!m.proc) {
    Config cfg;
    cfg.cores = 1;
    cfg.warps = warps;
    cfg.threads = kThreads;
    cfg.instr_budget = kInstrBudget;
    cfg.strict_divergence = strict;
    m.proc = std::make_unique<Processor>(cfg);
    m.proc->set_console(&m.console);
  }
  m.console.str("");
  return m;
}

/// Part 2: runs the program part of the input on a 1-core machine.
void check_execute(const uint8_t* data, size_t size) {
  const uint32_t ctl = word_at(data, size, 0);
  const uint32_t free_word = word_at(data, size, 4);
  Machine& m = machine((ctl & kCtlTwoWarps) != 0 ? 2 : 1, (ctl & kCtlLooseDiverge) == 0);
  Processor& p = *m.proc;
  const Config& cfg = p.config();

  // Memory: the program (+ terminator) at the startup address, the raw input at kDataAddr; both
  // pages are rewritten whole, so nothing of an earlier input survives.
  const size_t nwords = size > kHeaderBytes ? std::min((size - kHeaderBytes + 3) / 4, kMaxProgramWords) : 0;
  p.memory().fill(kStartupAddr, 0, Memory::kPageSize);
  for (size_t i = 0; i < nwords; ++i) {
    p.memory().write32(kStartupAddr + 4 * i, word_at(data, size, kHeaderBytes + 4 * i));
  }
  p.memory().write32(kStartupAddr + 4 * nwords, kTmcZero);
  p.memory().fill(kDataAddr, 0, Memory::kPageSize);
  p.memory().write(kDataAddr, data, std::min<size_t>(size, Memory::kPageSize));
  p.memory().clear_acl(kDataAddr, Memory::kPageSize);
  const uint32_t acl = (ctl >> kCtlAclShift) & 3;
  if (acl != 0) p.memory().set_acl(kDataAddr, Memory::kPageSize, static_cast<uint8_t>(acl == 3 ? 0 : acl));
  const size_t pages_before = p.memory().pages_allocated();
  p.dcr_write(0x003, (ctl >> kCtlMscratchShift) & 0x1F);
  p.reset();

  // Warp state.
  Core& core = p.core(0);
  const size_t lcopy = std::min(size, core.lmem().size());
  if (lcopy > 0) std::memcpy(core.lmem().data(), data, lcopy);
  for (uint32_t w = 0; w < cfg.warps; ++w) {
    Warp& wp = core.warp(w);
    for (uint32_t r = 0; r < 32; ++r) {
      const uint32_t xs = nibble_at(data, size, 8, r);
      const uint32_t fs = nibble_at(data, size, 24, r);
      for (uint32_t l = 0; l < kThreads; ++l) {
        wp.x[r * kThreads + l] = r == 0 ? 0 : sel_value(xs, l, free_word + w);
        wp.f[r * kThreads + l] = sel_value(fs, l, free_word ^ w);
      }
    }
    wp.fcsr = (((ctl >> kCtlFrmShift) & 7) << 5) | ((ctl >> kCtlFflagsShift) & 0x1F);
  }
  const uint32_t m0 = (ctl >> kCtlMask0Shift) & 0xF;
  core.warp(0).tmask = m0 != 0 ? m0 : 1;
  if (cfg.warps == 2) {
    const uint32_t m1 = (ctl >> kCtlMask1Shift) & 0xF;
    core.warp(1).tmask = m1;
    core.warp(1).pc = kStartupAddr + 4 * static_cast<uint32_t>(((ctl >> kCtlPc1Shift) & 0x3F) % (nwords + 1));
  }
  check_state(p, "initial state");

  try {
    if ((ctl & kCtlUseRun) != 0) {
      const RunResult r = p.run();
      if (r.warp_instrs > kInstrBudget) fail("run() executed {} warp instructions, budget {}", r.warp_instrs, kInstrBudget);
      if (!p.idle()) fail("run() returned with active warps");
      check_state(p, "after run()");
    } else {
      // Like the timing model: each cycle, the lowest-numbered ready warp issues.
      while (!p.idle()) {
        bool issued = false;
        for (uint32_t w = 0; w < core.num_warps(); ++w) {
          if (!core.warp_ready(w)) continue;
          const uint32_t mask_before = core.warp(w).tmask;
          const ExecutedInstr r = core.step(w);
          check_record(r, mask_before);
          check_state(p, "after step()");
          issued = true;
          break;
        }
        if (!issued) p.check_deadlock();
        if (p.warp_instrs() > kInstrBudget) fail("{} warp instructions executed, budget {}", p.warp_instrs(), kInstrBudget);
      }
    }
  } catch (const SimError& e) {
    if (std::string_view(e.what()).empty()) fail("SimError (kind {}) with an empty message", static_cast<int>(e.kind()));
    check_state(p, "after SimError");
  }
  if (p.memory().pages_allocated() != pages_before) m.proc.reset();  // the program touched another page
}

}  // namespace
}  // namespace vxsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vxsim::fuzz;
  try {
    for (size_t off = 0; off < size; off += 4) check_decode(word_at(data, size, off));
    check_execute(data, size);
  } catch (const std::exception& e) {
    fail("exception other than vxsim::SimError escaped: {}", e.what());
  } catch (...) {
    fail("non-std exception escaped");
  }
  return 0;
}
