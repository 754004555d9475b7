// The kernel-name rule table on names observed on the H200 (ncu-and-torch.md §7.1 [M]) and the
// documented CUTLASS grammar (§7.5).
#include "vxsynth/core/kernel_names.h"

#include <gtest/gtest.h>

#include <set>
#include <regex>

namespace vxsynth::core {
namespace {

struct Case {
  const char* name;
  const char* rule;
  EngineClass engine;
  uint32_t tm, tn, tk, stages;  // 0,0 = no tile
};

TEST(KernelNames, ObservedFamilies) {
  const Case cases[] = {
      {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT", "nvjet", EngineClass::kTensorCore, 256, 128, 64, 4},
      {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x32x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_"
       "kernel__5x_cublas",
       "xmma_ffma", EngineClass::kSimt, 128, 32, 8, 3},
      {"sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32_warpgroupsize2x1x1_execute_segment_k_off_kernel__"
       "5x_cublas",
       "xmma_gmma", EngineClass::kTensorCore, 128, 256, 32, 0},
      {"sm90_xmma_gemm_f64f64_f64f64_f64_nn_n_tilesize128x64x32_stage3_warpsize4x2x1_tensor16x8x16_execute_kernel__"
       "5x_cublas",
       "xmma_dmma", EngineClass::kDmma, 128, 64, 32, 3},
      {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5_warpsize2x2x1_g1_"
       "tensor16x8x8_execute_kernel__5x_cudnn",
       "xmma_mma", EngineClass::kTensorCore, 128, 64, 32, 5},
      {"void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, "
       "(cudnnKernelDataType_t)2>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)",
       "cudnn_layout", EngineClass::kSimt, 0, 0, 0, 0},
      {"ampere_sgemm_128x64_tn", "legacy_sgemm", EngineClass::kSimt, 128, 64, 0, 0},
      {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", "legacy_tensor_gemm", EngineClass::kTensorCore,
       128, 128, 0, 0},
      {"cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4", "cutlass_tensorop", EngineClass::kTensorCore, 64, 64, 16,
       6},
      {"cutlass_80_simt_sgemm_64x64_8x5_tn_align1", "cutlass_simt", EngineClass::kSimt, 64, 64, 8, 5},
      {"void Kernel2<cutlass_75_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_tn_align1>(Params)",
       "cutlass_tensorop", EngineClass::kTensorCore, 32, 32, 32, 1},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
       "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
       "aten_native", EngineClass::kSimt, 0, 0, 0, 0},
      {"void at::elementwise_kernel<128, 2, void at::gpu_kernel_impl_nocast<at::CUDAFunctor_add<float>>"
       "(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)",
       "aten_native", EngineClass::kSimt, 0, 0, 0, 0},
      {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0",
       "cudnn_sdpa_wgmma", EngineClass::kTensorCore, 0, 0, 0, 0},
  };
  for (const Case& c : cases) {
    const NameHints h = classify_kernel_name(c.name);
    ASSERT_NE(h.rule, nullptr) << c.name;
    EXPECT_EQ(h.rule->id, c.rule) << c.name;
    EXPECT_EQ(h.rule->engine, c.engine) << c.name;
    if (c.tm == 0) {
      EXPECT_FALSE(h.tile.has_value()) << c.name;
    } else {
      ASSERT_TRUE(h.tile.has_value()) << c.name;
      EXPECT_EQ(h.tile->m, c.tm) << c.name;
      EXPECT_EQ(h.tile->n, c.tn) << c.name;
      EXPECT_EQ(h.tile->k, c.tk) << c.name;
      EXPECT_EQ(h.tile->stages, c.stages) << c.name;
    }
  }
  EXPECT_EQ(classify_kernel_name("my_custom_kernel").rule, nullptr);
}

TEST(KernelNames, RuleIdsUniqueAndPatternsCompile) {
  std::set<std::string_view> ids;
  for (const auto& r : kernel_name_rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_NO_THROW(std::regex(std::string(r.pattern))) << r.id;
    EXPECT_FALSE(r.source.empty()) << r.id;
  }
}

TEST(KernelNames, BaseNameAgreesAcrossNcuAndTorchSpellings) {
  // ncu-and-torch.md §5.3: the same kernel as ncu (renamed), ncu --rename-kernels 0 and torch print it.
  const std::string ncu = "void cudnn::nchwToNhwcKernel<float, float, float, 0, 1, 2>(cudnn::nchw2nhwc_params_t<T3>, const T1 *, T2 *)";
  const std::string ncu0 =
      "void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, (bool)0, (bool)1, "
      "(cudnnKernelDataType_t)2>(...)";
  const std::string torch =
      "void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, "
      "(cudnnKernelDataType_t)2>(...)";
  EXPECT_EQ(kernel_base_name(ncu), "nchwToNhwcKernel");
  EXPECT_EQ(kernel_base_name(ncu0), "nchwToNhwcKernel");
  EXPECT_EQ(kernel_base_name(torch), "nchwToNhwcKernel");
  EXPECT_EQ(kernel_base_name("nvjet_sm90_tst_64x16_64x16_2x1_v_bz_splitK_bias_TNT"),
            "nvjet_sm90_tst_64x16_64x16_2x1_v_bz_splitK_bias_TNT");
  EXPECT_EQ(kernel_base_name("void at::(anonymous namespace)::foo_kernel<float>(float*)"), "foo_kernel");
  EXPECT_EQ(kernel_base_name("void at::<unnamed>::foo_kernel<float>(float *)"), "foo_kernel");
}

}  // namespace
}  // namespace vxsynth::core
