// Vortex candidate: kernel.cpp + main.cpp + common.h + Makefile in Vortex's tests/regression
// layout, plus copies of the fixed runtime files (docs/codegen.md "Vortex candidate").
#include <fmt/format.h>

#include "emit_common.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::codegen {

using detail::Dialect;
using detail::CodeWriter;
using detail::Plan;

const SourceFile& Candidate::file(const std::string& name) const {
  for (const auto& f : files) {
    if (f.name == name) return f;
  }
  throw make_error("candidate has no file '{}'", name);
}

void write_candidate(const std::filesystem::path& dir, const Candidate& c) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw make_error("{}: cannot create candidate directory: {}", dir.string(), ec.message());
  for (const auto& f : c.files) write_file_atomic(dir / f.name, f.text);
}

namespace {

/// Element type of each operand in device memory on the Vortex side.
enum class DevType { kF32, kF16, kBf16 };

DevType dev_type(const Plan& pl, const check::OperandInfo& info) {
  if (pl.bf16) return DevType::kBf16;
  if (pl.tf32 && info.role != check::OperandRole::kBias) return DevType::kF16;  // Vortex TCU has no TF32
  return DevType::kF32;
}

uint64_t dev_type_bytes(DevType t) { return t == DevType::kF32 ? 4 : 2; }

const char* dev_type_name(DevType t) {
  switch (t) {
    case DevType::kF32: return "VXS_F32";
    case DevType::kF16: return "VXS_F16";
    case DevType::kBf16: return "VXS_BF16";
  }
  return "?";
}

std::string common_h(const DesignPoint& p, const Plan& pl) {
  std::string s = detail::emit_banner(p, "Vortex candidate common.h (host and kernel)");
  s += "#ifndef VXS_COMMON_H\n#define VXS_COMMON_H\n\n";
  s += fmt::format("#include \"vxs_kernel_arg.h\"  // kernel_arg_t (GEMM A = {}, B = {}) and vxs_dims_t\n\n",
                   pl.a_name, pl.b_name);
  s += fmt::format("#define VXS_DIMS {}  // the profiled shape\n", detail::dims_initializer(p.fixed.op));
  s += fmt::format("#define VXS_BLOCK_SIZE {}   // threads per block (fixed property 3)\n", p.fixed.block_size);
  s += fmt::format("#define VXS_NUM_THREADS {}  // Vortex warp width this candidate was generated for\n",
                   p.vortex.threads);
  s += fmt::format("#define VXS_LAUNCHES {}     // 2 = GEMM + reduce/epilogue kernel (split-K or separate epilogue)\n",
                   detail::workspace_floats(p) > 0 ? 2 : 1);
  s += "\n#endif  // VXS_COMMON_H\n";
  return s;
}

/// The TCU context of the tensor-core path and its tile check against the generator's.
void emit_tcu_context(CodeWriter& w, const DesignPoint& p, const Plan& pl) {
  w.blank();
  w.line("// Vortex TCU (docs/sdk.md \"Tensor cores\"): {} inputs, fp32 accumulate; tile FM x FN x FK for warp width {}.",
         pl.bf16 ? "bf16" : "fp16 (the TF32 reference's operands, rounded on the host)", p.vortex.threads);
  w.line("typedef vortex::tensor::wmma_context<{}, vortex::tensor::{}, vortex::tensor::fp32> vxs_ctx;",
         p.vortex.threads, pl.bf16 ? "bf16" : "fp16");
  w.line("static_assert(vxs_ctx::tileM == FM && vxs_ctx::tileN == FN && vxs_ctx::tileK == FK,");
  w.line("              \"generator and SDK disagree on the TCU tile shape\");");
}

/// The pointers of the argument block a kernel uses, typed, then the shape (axis k_range).
void emit_kernel_args(CodeWriter& w, const DesignPoint& p, const Plan& pl, bool gemm) {
  const std::string bias_t = pl.bf16 ? "uint16_t" : "float";
  if (gemm) {
    w.line("const {0}* A = (const {0}*)(uintptr_t)arg->a_addr;", pl.in_t);
    w.line("const {0}* B = (const {0}*)(uintptr_t)arg->b_addr;", pl.in_t);
  }
  w.line("const {0}* bias = (const {0}*)(uintptr_t)arg->bias_addr;", bias_t);
  w.line("{0}* out = ({0}*)(uintptr_t)arg->out_addr;", pl.out_t);
  w.line(gemm ? "float* ws = (float*)(uintptr_t)arg->ws_addr;" : "const float* ws = (const float*)(uintptr_t)arg->ws_addr;");
  w.line(gemm ? "(void)bias; (void)out; (void)ws;" : "(void)bias;");
  w.line(p.axes.k_range == KRange::kSpecialized ? "constexpr vxs_dims_t d = VXS_DIMS;  // axis k_range = specialized"
                                                : "const vxs_dims_t d = arg->dims;    // axis k_range = generic");
}

/// The kernels and main(): phase 0 spawns the GEMM kernel, phase 1 the reduce/epilogue kernel.
void emit_vortex_kernels(CodeWriter& w, const DesignPoint& p, const Plan& pl) {
  w.blank();
  w.open("static void vxs_gemm_kernel(kernel_arg_t* arg)");
  emit_kernel_args(w, p, pl, true);
  detail::emit_gemm_body(w, pl);
  w.close();
  if (pl.two_launch) {
    w.blank();
    w.open("static void vxs_epilogue_kernel(kernel_arg_t* arg)");
    emit_kernel_args(w, p, pl, false);
    detail::emit_epilogue_body(w, pl);
    w.close();
  }
  w.blank();
  w.line("// Sampled-tile check (the host's -b): block k of this launch runs listed GEMM block k.");
  w.open("static void vxs_gemm_sampled(kernel_arg_t* arg)");
  w.line("vxs_sampled_block((const vxs_launch_t*)arg);");
  w.line("vxs_gemm_kernel(arg);");
  w.close();
  w.blank();
  w.open("int main()");
  w.line("vxs_launch_t* launch = (vxs_launch_t*)csr_read(VX_CSR_MSCRATCH);");
  w.line("kernel_arg_t* arg = &launch->arg;");
  if (pl.two_launch) {
    w.line("if (arg->phase == 1)");
    w.line("  return vx_spawn_threads(1, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)vxs_epilogue_kernel, arg);");
  }
  w.line("if (launch->sample_count != 0)");
  w.line("  return vx_spawn_threads(1, &launch->sample_count, arg->block_dim, (vx_kernel_func_cb)vxs_gemm_sampled, arg);");
  w.line("return vx_spawn_threads(3, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)vxs_gemm_kernel, arg);");
  w.close();
}

std::string kernel_cpp(const DesignPoint& p, const Plan& pl) {
  CodeWriter w;
  w.pp(detail::emit_banner(p, "Vortex candidate kernel.cpp") +
       "// Divergence-safe for GCC-built kernels (docs/codegen.md \"Divergence safety\"): no thread-dependent\n"
       "// branch, loop bound, ?:, min or max; edges use predicated accesses (vxs_device.h) or clamped indices.");
  w.pp("#include <stdint.h>\n#include <math.h>\n#include <vx_intrinsics.h>\n#include <vx_spawn.h>");
  if (pl.tc) w.pp("#include <vx_tensor.h>");
  w.pp("#include \"common.h\"\n#include \"vxs_device.h\"\n#include \"vxs_sample.h\"");
  w.blank();
  detail::emit_tile_defines(w, pl);
  if (pl.tc) emit_tcu_context(w, p, pl);
  w.blank();
  detail::emit_device_helpers(w, pl);
  emit_vortex_kernels(w, p, pl);
  return w.str();
}

/// The CPU reference of main.cpp's self-check (double accumulation), one output element at a time
/// so a sampled-tile check computes only the elements it compares.
std::string host_reference(const DesignPoint& p) {
  const auto& op = p.fixed.op;
  std::string s = "/// CPU reference of output element e in double precision (the op's definition; docs/equivalence.md).\n";
  s += "static double cpu_reference(const std::vector<std::vector<double>>& in, size_t e) {\n";
  s += "  const vxs_dims_t d = VXS_DIMS;\n";
  const std::string act = op.activation == check::Activation::kRelu ? "  if (acc < 0) acc = 0;\n" : "";
  switch (op.family) {
    case check::OpFamily::kLinear:
      s += "  const size_t m = e / d.N, n = e % d.N;\n  double acc = 0;\n";
      s += "  for (size_t k = 0; k < (size_t)d.K; ++k) acc += in[0][m * d.K + k] * in[1][n * d.K + k];\n";
      if (op.has_bias) s += "  acc += in[2][n];\n";
      break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      s += "  const size_t z = e / ((size_t)d.M * d.N), m = e / d.N % d.M, n = e % d.N;\n  double acc = 0;\n";
      s += "  for (size_t k = 0; k < (size_t)d.K; ++k) acc += in[0][z * d.sa + m * d.K + k] * in[1][z * d.sb + k * d.N + n];\n";
      break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d:
      s += "  const int q = (int)(e % d.Q), p = (int)(e / d.Q % d.P), ko = (int)(e / ((size_t)d.P * d.Q) % d.ck);\n";
      s += "  const int nb = (int)(e / ((size_t)d.P * d.Q * d.ck)), g = ko / d.kg;\n  double acc = 0;\n";
      s += "  for (int c = 0; c < d.cg; ++c)\n    for (int r = 0; r < d.cr; ++r)\n      for (int t = 0; t < d.cs; ++t) {\n";
      s += "        const int h = p * d.sh - d.ph + r * d.dh, w = q * d.sw - d.pw + t * d.dw;\n";
      s += "        if (h < 0 || h >= d.ch || w < 0 || w >= d.cw) continue;\n";
      s += "        acc += in[0][(((size_t)nb * d.cc + g * d.cg + c) * d.ch + h) * d.cw + w] *\n";
      s += "               in[1][(((size_t)ko * d.cg + c) * d.cr + r) * d.cs + t];\n      }\n";
      if (op.has_bias) s += "  acc += in[2][ko];\n";
      break;
  }
  s += act + "  return acc;\n}\n";
  return s;
}

/// vxs_out_index of the kernel, for the host's sampled-tile check.
std::string host_out_index(const Plan& pl) {
  CodeWriter w;
  detail::emit_index_functions(w, pl);
  return w.str();
}

/// kOperands of main.cpp: name, elements, weight or activation, file and device element types.
std::string operand_table(const DesignPoint& p, const Plan& pl) {
  std::string s = "static const vxs::Operand kOperands[] = {\n";
  for (const auto& o : check::operands(p.fixed.op)) {
    s += fmt::format("    {{\"{}\", {}u, {}, vxs::{}, vxs::{}}},\n", o.name, o.numel(),
                     o.role == check::OperandRole::kActivation ? "false" : "true", pl.bf16 ? "VXS_BF16" : "VXS_F32",
                     dev_type_name(dev_type(pl, o)));
  }
  return s + "};\n";
}

/// Body of main(): the CandidateSpec of this design point, then the fixed driver (vxs_driver.h).
std::string spec_main(const DesignPoint& p, const Plan& pl) {
  const auto ops = check::operands(p.fixed.op);
  const auto tol = check::tolerance(p.fixed.path, check::CheckKind::kCandidate);
  const auto gr = detail::grids(p);
  auto idx_of = [&](const std::string& name) -> int {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  std::string s = "int main(int argc, char** argv) {\n  vxs::CandidateSpec c;\n";
  s += fmt::format("  c.operands = kOperands;\n  c.num_operands = {};\n", ops.size());
  s += fmt::format("  c.a = {};  // {}\n  c.b = {};  // {}\n  c.bias = {};\n", idx_of(pl.a_name), pl.a_name,
                   idx_of(pl.b_name), pl.b_name, idx_of("bias"));
  s += fmt::format("  c.out_numel = {}u;\n  c.out_type = vxs::{};\n", check::output_numel(p.fixed.op),
                   pl.bf16 ? "VXS_BF16" : "VXS_F32");
  s += fmt::format("  c.workspace_floats = {}u;\n", detail::workspace_floats(p));
  s += fmt::format("  c.fan_in = {};\n", p.fixed.op.fan_in());
  s += fmt::format("  // Candidate-check tolerance of the {} path (docs/equivalence.md).\n",
                   check::to_string(p.fixed.path));
  s += fmt::format("  c.atol = {:g};\n  c.rtol = {:g};\n", tol.atol, tol.rtol);
  s += "  c.dims = VXS_DIMS;\n";
  s += fmt::format("  c.grid[0] = {}u;\n  c.grid[1] = {}u;\n  c.grid[2] = {}u;\n", gr.gx, gr.gy, gr.gz);
  s += fmt::format("  c.epilogue_blocks = {}u;\n", gr.epi_blocks);
  s += "  c.launches = VXS_LAUNCHES;\n  c.block_size = VXS_BLOCK_SIZE;\n  c.num_threads = VXS_NUM_THREADS;\n";
  s += fmt::format("  c.needs_warp_width = {};  // the TCU tile / block_decomp depend on the warp width\n",
                   (pl.tc || p.axes.warp_rows != 0) ? "true" : "false");
  s += "  c.cpu_reference = cpu_reference;\n";
  s += "  // Block order of launch 1, for the sampled-tile check (-b).\n";
  s += fmt::format("  c.tile_m = {}u;\n  c.tile_n = {}u;\n  c.split_k = {}u;\n  c.m_tiles_fast = {};\n", p.axes.tile.m,
                   p.axes.tile.n, p.axes.split_k, m_tiles_fast(p) ? "true" : "false");
  s += "  c.out_index = vxs_out_index;\n";
  return s + "  return vxs::run_candidate(c, argc, argv);\n}\n";
}

std::string main_cpp(const DesignPoint& p, const Plan& pl) {
  std::string s = detail::emit_banner(p, "Vortex candidate main.cpp (host)");
  s += "// Usage: ./vxs_candidate [-d DIR] [-b BLOCK_ID,...] (vxs::run_candidate in vxs_driver.h).\n";
  s += "#include <cstddef>\n#include <vector>\n\n#include \"common.h\"\n#include \"vxs_driver.h\"\n\n";
  s += operand_table(p, pl) + host_out_index(pl) + "\n" + host_reference(p) + "\n" + spec_main(p, pl);
  return s;
}

std::string makefile(const DesignPoint& p) {
  std::string s = fmt::format("# Vortex candidate {} — generated by vxsynth codegen (docs/codegen.md).\n", slug(p));
  s += R"(# Build with the vxsynth SDK:     make VXSDK=<vxsynth build dir>/sdk     (includes $(VXSDK)/sdk.mk)
# Build against a real Vortex 2.x: make VORTEX_HOME=<vortex source> [VORTEX_BUILD=<vortex build dir>]
#                                  then `make run-simx` (docs/codegen.md "Vortex candidate")
# Run: make run [OPTS="-d DIR"]    (or ./vxs_candidate [-d DIR] with the VXSIM_* shape below exported;
#                                  kernel.vxbin must be in the working directory)
PROJECT := vxs_candidate
SRC_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
SRCS := $(SRC_DIR)/main.cpp $(SRC_DIR)/vxs_driver.cpp
VX_SRCS := $(SRC_DIR)/kernel.cpp
OPTS ?=
)";
  s += fmt::format(
      "# Device shape the candidate was designed for (its block must fit one core's warps x threads);\n"
      "# on a real Vortex build the driver with CONFIGS=\"-DNUM_CORES={0} -DNUM_WARPS={1} -DNUM_THREADS={2}\".\n"
      "VXSIM_CORES ?= {0}\nVXSIM_WARPS ?= {1}\nVXSIM_THREADS ?= {2}\n"
      "export VXSIM_CORES VXSIM_WARPS VXSIM_THREADS\n\n",
      p.vortex.cores, p.vortex.warps, p.vortex.threads);
  s += R"(ifdef VORTEX_HOME
# Real Vortex: its config.mk and tests/regression/common.mk provide the toolchain, flags, link
# script, vxbin.py, libvortex and the run-simx target.
VORTEX_BUILD ?= $(VORTEX_HOME)/build
ROOT_DIR := $(VORTEX_BUILD)
include $(ROOT_DIR)/config.mk
VX_CFLAGS += -I$(SRC_DIR) -fno-jump-tables
CXXFLAGS += -I$(SRC_DIR)
include $(ROOT_DIR)/tests/regression/common.mk
else
ifndef VXSDK
$(error set VXSDK=<vxsynth build dir>/sdk (holding sdk.mk), or VORTEX_HOME to a Vortex 2.x tree)
endif
HOST_PROG := $(PROJECT)
HOST_SRCS := $(SRCS)
HOST_EXTRA_CFLAGS += -I$(SRC_DIR)
VX_EXTRA_CFLAGS += -I$(SRC_DIR)
include $(VXSDK)/sdk.mk
.DEFAULT_GOAL := all

all: $(PROJECT) kernel.vxbin kernel.dump

kernel.elf: $(wildcard $(SRC_DIR)/*.h)
$(PROJECT): $(wildcard $(SRC_DIR)/*.h)

run: all
	./$(PROJECT) $(OPTS)

clean:
	rm -f $(PROJECT) kernel.elf kernel.vxbin kernel.dump

.PHONY: all run clean
endif
)";
  return s;
}

}  // namespace

Candidate emit_vortex(const DesignPoint& p) {
  validate(p);
  for (const auto& o : check::operands(p.fixed.op)) {
    if (o.numel() >= (int64_t{1} << 31)) {
      throw make_error("{}: operand '{}' has {} elements; generated kernels index with int32", slug(p), o.name,
                       o.numel());
    }
  }
  const Plan pl = detail::make_plan(p, Dialect::kVortex);
  Candidate c;
  c.files.push_back({"common.h", common_h(p, pl)});
  c.files.push_back({"kernel.cpp", kernel_cpp(p, pl)});
  c.files.push_back({"main.cpp", main_cpp(p, pl)});
  c.files.push_back({"Makefile", makefile(p)});
  for (const char* f : {"vxs_dims.h", "vxs_kernel_arg.h", "vxs_device.h", "vxs_sample.h", "vxs_driver.h", "vxs_driver.cpp"}) {
    c.files.push_back(detail::runtime_source(f));
  }
  return c;
}

uint64_t vortex_operand_bytes(const DesignPoint& p) {
  const Plan pl = detail::make_plan(p, Dialect::kVortex);
  uint64_t bytes = 0;
  for (const auto& o : check::operands(p.fixed.op))
    bytes += static_cast<uint64_t>(o.numel()) * dev_type_bytes(dev_type(pl, o));
  return bytes + static_cast<uint64_t>(check::output_numel(p.fixed.op)) * (pl.bf16 ? 2 : 4);
}

}  // namespace vxsynth::codegen
