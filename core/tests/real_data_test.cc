// Importer, context, hot-kernel and distance tests on REAL captures from the H200
// (tests/data/h200/, written by the gpuharness capture: python -m vxsynth_torch.capture_ops; see
// tests/data/h200/provenance.json for card, driver, CUDA, ncu and torch versions and the command).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/hot.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/core/reference.h"
#include "vxsynth/core/torch_trace.h"

namespace fs = std::filesystem;

namespace vxsynth::core {
namespace {

const fs::path kDir = fs::path(VXSYNTH_TEST_DATA_DIR) / "h200";

fs::path data(const std::string& name) {
  const fs::path p = kDir / name;
  if (!fs::exists(p)) ADD_FAILURE() << "missing real capture " << p;
  return p;
}

/// Independent reading of a raw-page cell, for cross-checking the importer: every field of an ncu
/// CSV is quoted, so a line splits on "," between quotes. Returns row `id`'s cell of `column`
/// with thousands separators removed.
double raw_cell(const std::string& file, int id, const std::string& column) {
  std::ifstream in(data(file));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (rows.empty() && line.rfind("\"ID\",", 0) != 0) continue;
    std::vector<std::string> f;
    const std::string body = line.substr(1, line.size() - 2);
    std::size_t pos = 0;
    for (std::size_t next; (next = body.find("\",\"", pos)) != std::string::npos; pos = next + 3)
      f.push_back(body.substr(pos, next - pos));
    f.push_back(body.substr(pos));
    rows.push_back(f);
  }
  std::size_t col = 0;
  while (col < rows.at(0).size() && rows[0][col] != column) ++col;
  if (col == rows[0].size()) throw std::runtime_error("no column " + column);
  for (std::size_t r = 2; r < rows.size(); ++r) {
    if (rows[r][0] != std::to_string(id)) continue;
    std::string v;
    for (char c : rows[r].at(col))
      if (c != ',') v += c;
    return std::stod(v);
  }
  throw std::runtime_error("no row " + std::to_string(id));
}

struct Imported {
  TorchTrace trace;
  NcuReport ncu;
  ReferenceBundle bundle;
};

Imported import(const std::string& op) {
  Imported r{read_torch_trace(data(op + ".trace.json.gz")), read_ncu_csv(data(op + ".ncu_raw.csv")), {}};
  ImportOptions o;
  o.top_k = 0;
  o.provenance = nlohmann::json::parse(read_file(data("provenance.json")));
  r.bundle = import_profile(r.trace, r.ncu, o);
  return r;
}

/// The bundle kernel whose name contains `part`.
const BundleKernel& kernel_with(const ReferenceBundle& b, const std::string& part) {
  for (const BundleKernel& k : b.kernels)
    if (k.name.find(part) != std::string::npos) return k;
  throw std::runtime_error("no kernel named *" + part + "*");
}

TEST(RealData, LinearFp32IsSimtAtTheProfiledShape) {
  const Imported r = import("linear_fp32_simt");
  EXPECT_EQ(r.ncu.arch, Arch::kHopper);
  EXPECT_EQ(r.ncu.gpu_name, "NVIDIA H200");
  ASSERT_EQ(r.bundle.kernels.size(), 1u);
  const BundleKernel& k = r.bundle.kernels[0];
  const ReferenceContext& c = k.context;
  EXPECT_EQ(c.op, OpKind::kLinear);
  EXPECT_EQ(c.framework_op, "aten::linear");
  EXPECT_EQ(c.op_stack.back(), "aten::addmm");
  ASSERT_TRUE(c.gemm.has_value());
  // F.linear on [302, 1, 512] x [3200, 512]^T + bias: addmm of the flattened input (ops.json).
  EXPECT_EQ(c.gemm->m, 302);
  EXPECT_EQ(c.gemm->n, 3200);
  EXPECT_EQ(c.gemm->k, 512);
  EXPECT_TRUE(c.has_bias);
  EXPECT_EQ(c.engine, EngineClass::kSimt);
  EXPECT_EQ(c.operand_type, DType::kFp32);
  EXPECT_EQ(c.launch.block_size(), 128u);
  // sm80_xmma ... tilesize64x64x8 on grid (5, 50): ceil(302/64)·ceil(3200/64) = 250 CTAs agree.
  ASSERT_TRUE(c.tile_hint.has_value());
  EXPECT_EQ(c.tile_hint->m, 64u);
  EXPECT_EQ(c.tile_hint->stages, 3u);
  EXPECT_FALSE(c.helper_kernel);
  EXPECT_EQ(k.ncu_ids, (std::vector<int64_t>{0, 1}));  // ncu profiled the op twice, the trace once
}

TEST(RealData, Bf16MatmulIsTensorCore) {
  const Imported r = import("matmul_bf16_tc");
  const BundleKernel& k = kernel_with(r.bundle, "nvjet");
  EXPECT_EQ(k.context.engine, EngineClass::kTensorCore);
  EXPECT_EQ(k.context.op, OpKind::kBmm);
  EXPECT_EQ(k.context.operand_type, DType::kBf16);
  EXPECT_EQ(k.context.accumulator_type, DType::kFp32);
  ASSERT_TRUE(k.context.gemm.has_value());
  EXPECT_EQ(k.context.gemm->batch, 8);
  EXPECT_EQ(k.context.gemm->m, 816);
  EXPECT_EQ(k.context.gemm->n, 816);
  EXPECT_EQ(k.context.gemm->k, 256);
  // nvjet runs a persistent grid (one CTA per SM): its name tile cannot agree with the launch.
  EXPECT_FALSE(k.context.tile_hint.has_value());
  EXPECT_GT(*k.signature->values[static_cast<std::size_t>(MetricId::kTensorMfu)], kTensorPipeThresholdPct);
}

TEST(RealData, Conv1dTf32IsTensorCoreWithConv1dShape) {
  const Imported r = import("conv1d_fp32_tf32");
  const BundleKernel& k = kernel_with(r.bundle, "fprop_implicit_gemm");
  const ReferenceContext& c = k.context;
  EXPECT_EQ(c.op, OpKind::kConv1d);
  EXPECT_EQ(c.engine, EngineClass::kTensorCore);
  EXPECT_EQ(c.operand_type, DType::kTf32);
  ASSERT_TRUE(c.conv.has_value());
  EXPECT_EQ(c.conv->n, 1);
  EXPECT_EQ(c.conv->c, 2048);
  EXPECT_EQ(c.conv->h, 1);
  EXPECT_EQ(c.conv->w, 4);
  EXPECT_EQ(c.conv->k, 2048);
  EXPECT_EQ(c.conv->r, 1);
  EXPECT_EQ(c.conv->s, 5);
  EXPECT_EQ(c.conv->pad, (std::array<int64_t, 2>{0, 2}));
  EXPECT_TRUE(c.has_bias);
  EXPECT_EQ(c.op_stack.front(), "aten::conv1d");
  EXPECT_EQ(c.op_stack.back(), "aten::cudnn_convolution");
  EXPECT_FALSE(c.helper_kernel);
  // The layout transposes and the bias add of the same op are its SIMT helpers.
  EXPECT_EQ(kernel_with(r.bundle, "nhwcToNchw").context.engine, EngineClass::kSimt);
  EXPECT_TRUE(kernel_with(r.bundle, "nhwcToNchw").context.helper_kernel);
  EXPECT_TRUE(kernel_with(r.bundle, "elementwise_kernel").context.helper_kernel);
}

TEST(RealData, Conv2dTf32OnAndOff) {
  const Imported on = import("conv2d_fp32_tf32");
  const Imported off = import("conv2d_fp32_simt");
  const ReferenceContext& t = kernel_with(on.bundle, "fprop_implicit_gemm").context;
  const ReferenceContext& s = kernel_with(off.bundle, "fprop_implicit_gemm").context;
  EXPECT_EQ(t.engine, EngineClass::kTensorCore);
  EXPECT_EQ(t.operand_type, DType::kTf32);
  EXPECT_EQ(s.engine, EngineClass::kSimt);
  EXPECT_EQ(s.operand_type, DType::kFp32);
  for (const ReferenceContext* c : {&t, &s}) {
    EXPECT_EQ(c->op, OpKind::kConv2d);
    ASSERT_TRUE(c->conv.has_value());
    EXPECT_EQ(c->conv->c, 64);
    EXPECT_EQ(c->conv->h, 120);
    EXPECT_EQ(c->conv->w, 160);
    EXPECT_EQ(c->conv->k, 64);
    EXPECT_EQ(c->conv->r, 3);
    EXPECT_EQ(c->conv->s, 3);
    EXPECT_EQ(c->conv->pad, (std::array<int64_t, 2>{1, 1}));
    EXPECT_EQ(c->conv->stride, (std::array<int64_t, 2>{1, 1}));
    EXPECT_FALSE(c->has_bias);
  }
}

TEST(RealData, SignatureValuesAreTheRawCsvCells) {
  const std::string file = "conv2d_fp32_tf32.ncu_raw.csv";
  const NcuReport rep = read_ncu_csv(data(file));
  for (const NcuKernel& k : rep.kernels) {
    const Signature s = signature_from_ncu(k, rep.arch).signature;
    const int id = static_cast<int>(k.id);
    auto v = [&](MetricId m) { return *s[m]; };
    EXPECT_DOUBLE_EQ(v(MetricId::kL1HitRate), raw_cell(file, id, "l1tex__t_sector_hit_rate.pct"));
    EXPECT_DOUBLE_EQ(v(MetricId::kL2HitRate), raw_cell(file, id, "lts__t_sector_hit_rate.pct"));
    EXPECT_DOUBLE_EQ(v(MetricId::kCoalescing),
                     raw_cell(file, id, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"));
    EXPECT_DOUBLE_EQ(v(MetricId::kPeakCompute), raw_cell(file, id, "sm__throughput.avg.pct_of_peak_sustained_elapsed"));
    // This capture has no hgmma/qgmma-only column: the Hopper fallback (plain hmma) is used.
    EXPECT_DOUBLE_EQ(v(MetricId::kTensorMfu),
                     raw_cell(file, id, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"));
    EXPECT_DOUBLE_EQ(v(MetricId::kAtomicsPerInst),
                     (raw_cell(file, id, "smsp__sass_inst_executed_op_global_atom.sum") +
                      raw_cell(file, id, "smsp__sass_inst_executed_op_global_red.sum")) /
                         raw_cell(file, id, "smsp__inst_executed.sum"));
    // ncu roofline convention (docs/ncu.md §2.7): FP32 fadd + fmul + 2 ffma, FP64 likewise,
    // FP16 2 hadd + 2 hmul + 4 hfma, plus the Hopper tensor FLOP counters.
    auto c = [&](const std::string& op) {
      return raw_cell(file, id, "smsp__sass_thread_inst_executed_op_" + op + "_pred_on.sum");
    };
    double flops = c("fadd") + c("fmul") + 2 * c("ffma") + c("dadd") + c("dmul") + 2 * c("dfma") + 2 * c("hadd") +
                   2 * c("hmul") + 4 * c("hfma");
    for (const char* t : {"bf16_dst_fp32", "fp16", "tf32_dst_fp32", "fp64", "fp8", "int8"})
      flops += raw_cell(file, id, std::string("sm__ops_path_tensor_src_") + t + ".sum");
    const double bytes = raw_cell(file, id, "dram__bytes_read.sum") + raw_cell(file, id, "dram__bytes_write.sum");
    EXPECT_NEAR(v(MetricId::kArithIntensity), flops / bytes, 1e-9 * flops / bytes) << "kernel " << id;
    EXPECT_DOUBLE_EQ(v(MetricId::kDramBandwidth), raw_cell(file, id, "dram__bytes.sum.per_second"));
    EXPECT_DOUBLE_EQ(v(MetricId::kActiveLanes),
                     raw_cell(file, id, "smsp__average_thread_inst_executed_per_inst_executed.ratio") / 32.0);
    EXPECT_DOUBLE_EQ(v(MetricId::kOccupancy), raw_cell(file, id, "sm__warps_active.avg.pct_of_peak_sustained_active"));
  }
  // The TF32 implicit GEMM's tensor FLOPs are 2·N·K·C·R·S·P·Q (docs/ncu.md §2.5) up to tile padding.
  const NcuKernel* gemm = nullptr;
  for (const NcuKernel& k : rep.kernels)
    if (k.name.find("fprop_implicit_gemm") != std::string::npos) gemm = &k;
  ASSERT_NE(gemm, nullptr);
  const double ops = *gemm->find("sm__ops_path_tensor_src_tf32_dst_fp32.sum")->value;
  const double exact = 2.0 * 1 * 64 * 64 * 3 * 3 * 120 * 160;
  EXPECT_GE(ops, exact);
  EXPECT_LT(ops, 1.1 * exact);
}

TEST(RealData, DetailsPageGivesTheSameSignatureAsRawPage) {
  const NcuReport raw = read_ncu_csv(data("linear_fp32_simt.ncu_raw.csv"));
  const NcuReport det = read_ncu_csv(data("linear_fp32_simt.ncu_details.csv"));
  EXPECT_EQ(det.page, NcuPage::kDetails);
  ASSERT_EQ(raw.kernels.size(), det.kernels.size());
  for (std::size_t i = 0; i < raw.kernels.size(); ++i) {
    EXPECT_EQ(raw.kernels[i].name, det.kernels[i].name);
    EXPECT_EQ(raw.kernels[i].grid, det.kernels[i].grid);
    const auto a = signature_from_ncu(raw.kernels[i], raw.arch).signature;
    const auto b = signature_from_ncu(det.kernels[i], det.arch).signature;
    for (std::size_t m = 0; m < kNumMetrics; ++m) EXPECT_EQ(a.values[m], b.values[m]) << metric_table()[m].key;
  }
}

TEST(RealData, NvtxColumnsShiftNothing) {
  // All five ops in one file with --nvtx (two extra columns before "Kernel Name").
  const NcuReport rep = read_ncu_csv(data("ops_all.ncu_raw.csv"));
  ASSERT_GE(rep.kernels.size(), 10u);
  for (std::size_t i = 0; i < rep.kernels.size(); ++i) EXPECT_EQ(rep.kernels[i].id, static_cast<int64_t>(i));
  EXPECT_EQ(rep.kernels[0].name.rfind("sm80_xmma_gemm", 0), 0u) << rep.kernels[0].name;
  EXPECT_EQ(rep.kernels[0].cc, "9.0");
  // And the same launch in the per-op file reads identically.
  const NcuReport one = read_ncu_csv(data("linear_fp32_simt.ncu_raw.csv"));
  EXPECT_EQ(signature_from_ncu(one.kernels[0], one.arch).signature.values,
            signature_from_ncu(rep.kernels[0], rep.arch).signature.values);
}

TEST(RealData, HotKernelsRankedWithCumulativeShare) {
  const TorchTrace tr = read_torch_trace(data("conv1d_fp32_tf32.trace.json.gz"));
  EXPECT_EQ(tr.gpu_name, "NVIDIA H200");
  EXPECT_EQ(tr.cc_major, 9);
  const auto hot = rank_hot_kernels(tr);
  ASSERT_EQ(hot.size(), tr.kernels.size());  // every launch is distinct here
  double sum = 0;
  for (std::size_t i = 0; i < hot.size(); ++i) {
    EXPECT_EQ(hot[i].rank, i + 1);
    if (i) {
      EXPECT_GE(hot[i - 1].total_us, hot[i].total_us);
    }
    sum += hot[i].share;
    EXPECT_NEAR(hot[i].cumulative_share, sum, 1e-12);
    EXPECT_NEAR(hot[i].share, hot[i].total_us / tr.total_kernel_time_us(), 1e-12);
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_EQ(rank_hot_kernels(tr, 2).size(), 2u);
  // Every kernel of the conv launched under aten::cudnn_convolution or the bias add_.
  for (const TraceKernel& k : tr.kernels) {
    ASSERT_FALSE(k.op_stack.empty()) << k.name;
    EXPECT_EQ(k.op_stack.front().name, "aten::conv1d");
  }
}

TEST(RealData, DistanceOnRealSignatures) {
  const Imported a = import("conv2d_fp32_tf32");
  const Imported b = import("conv2d_fp32_simt");
  const Signature& x = *kernel_with(a.bundle, "fprop_implicit_gemm").signature;
  const Signature& y = *kernel_with(b.bundle, "fprop_implicit_gemm").signature;
  EXPECT_EQ(distance(x, x).d_value, 0.0);
  EXPECT_EQ(distance(x, x).entered().size(), kNumMetrics);
  const double dxy = *distance(x, y).d_value;
  EXPECT_DOUBLE_EQ(dxy, *distance(y, x).d_value);
  EXPECT_GT(dxy, 0.0);
  // TF32 vs SIMT: the tensor-MFU term is the difference of the two tensor-pipe percentages.
  EXPECT_NEAR(*distance(x, y).per_metric[static_cast<std::size_t>(MetricId::kTensorMfu)].d,
              (*x[MetricId::kTensorMfu] - *y[MetricId::kTensorMfu]) / 100.0, 1e-12);
}

TEST(RealData, BundleRoundTripsAndCarriesProvenance) {
  const Imported r = import("matmul_bf16_tc");
  const ReferenceBundle& b = r.bundle;
  EXPECT_EQ(b.workload, "matmul_bf16_tc");
  EXPECT_EQ(b.provenance.gpu, "NVIDIA H200");
  EXPECT_EQ(b.provenance.driver, "580.159.04");
  EXPECT_EQ(b.provenance.torch, "2.11.0+cu130");
  EXPECT_TRUE(b.provenance.ncu.has_value());
  EXPECT_EQ(b.provenance.clock_control, "none");
  EXPECT_TRUE(b.provenance.date.has_value());
  EXPECT_TRUE(b.provenance.extra.contains("cudnn"));
  EXPECT_EQ(to_json(bundle_from_json(to_json(b), "b.json")), to_json(b));
}

TEST(RealData, TraceAndNcuFromDifferentGpusAreRejected) {
  TorchTrace tr = read_torch_trace(data("linear_fp32_simt.trace.json.gz"));
  const NcuReport ncu = read_ncu_csv(data("linear_fp32_simt.ncu_raw.csv"));
  EXPECT_NO_THROW((void)import_profile(tr, ncu));
  tr.cc_major = 8;  // as if the trace had been recorded on an A100
  try {
    (void)import_profile(tr, ncu);
    FAIL() << "accepted a CC 8.0 trace with a CC 9.0 ncu file";
  } catch (const vxsynth::Error& e) {
    EXPECT_NE(std::string(e.what()).find("recorded on CC 8.0"), std::string::npos) << e.what();
  }
  // And an ncu file of another workload joins nothing.
  const TorchTrace conv = read_torch_trace(data("conv2d_fp32_simt.trace.json.gz"));
  EXPECT_THROW((void)import_profile(conv, ncu), vxsynth::Error);
}

TEST(RealData, WrongArchitectureIsRejected) {
  NcuImportOptions o;
  o.expect_arch = Arch::kAmpere;
  try {
    (void)read_ncu_csv(data("matmul_bf16_tc.ncu_raw.csv"), o);
    FAIL() << "accepted an sm_90 file as sm_80";
  } catch (const vxsynth::Error& e) {
    EXPECT_NE(std::string(e.what()).find("profiled on sm_90"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vxsynth::core

namespace vxsynth::core {
namespace {

TEST(RealData, SmallTensorGemmUnderPipeThresholdIsTensorCoreByItsOpCount) {
  // pi0's M=51 bf16 bmm kernels keep the tensor pipe under 5 % (1.4 % and 1.8 %) but count bf16
  // tensor FLOPs; SIMT kernels (layout transposes with HFMA2.MMA) count none
  // (data/references/h200/pi0/ncu_raw.csv, captured on the H200).
  const NcuReport rep = read_ncu_csv(fs::path(VXSYNTH_TEST_DATA_DIR) / ".." / ".." / "data" / "references" / "h200" /
                                     "pi0" / "ncu_raw.csv");
  int small = 0;
  for (const NcuKernel& k : rep.kernels) {
    TraceKernel tk;
    tk.name = k.name;
    tk.grid = k.grid;
    tk.block = k.block;
    const ReferenceContext c = build_context(tk, &k, rep.arch);
    const double pipe = *signature_from_ncu(k, rep.arch).signature[MetricId::kTensorMfu];
    const double bf16 = *k.find("sm__ops_path_tensor_src_bf16_dst_fp32.sum")->value;
    EXPECT_EQ(c.engine, bf16 > 0 ? EngineClass::kTensorCore : EngineClass::kSimt) << k.name;
    if (bf16 > 0 && pipe < kTensorPipeThresholdPct) ++small;
  }
  EXPECT_GE(small, 2);
}

TEST(RealData, RunEntryCarriesTheMeasuredTensorWork) {
  // A run's reference/profile.json holds the bundle kernel's entry with the bundle's provenance
  // (refine/src/bundle_reference.cc); its context must carry the tensor work read_bundle derives.
  const fs::path path = fs::path(VXSYNTH_TEST_DATA_DIR) / ".." / ".." / "data" / "references" / "h100" / "pi0" / "bundle.json";
  const ReferenceBundle b = read_bundle(path);
  const nlohmann::json bj = nlohmann::json::parse(read_file(path));
  int tensor_core = 0;
  for (nlohmann::json entry : bj["kernels"]) {
    entry["provenance"] = bj["provenance"];
    const ReferenceContext c = entry_context(entry, "profile.json");
    EXPECT_EQ(c.tensor_ops, b.kernel(entry["id"].get<std::string>()).context.tensor_ops) << entry["id"];
    if (c.engine == EngineClass::kTensorCore) {
      EXPECT_GT(c.tensor_ops, 0) << entry["id"];
      ++tensor_core;
    }
    entry.erase("ncu");
    EXPECT_EQ(entry_context(entry, "profile.json").tensor_ops, 0);  // nothing measured to derive it from
  }
  EXPECT_EQ(tensor_core, 5);
  nlohmann::json entry = bj["kernels"][0];
  entry["provenance"] = bj["provenance"];
  entry["provenance"]["cc"] = "1.0";
  try {
    (void)entry_context(entry, "profile.json");
    ADD_FAILURE() << "an unknown compute capability was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("profile.json: provenance.cc"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vxsynth::core
