// vxsynth_gpu_compare PACK_DIR SDK_DIR: the CUDA <-> Vortex candidate check (docs/signature.md §4) on the same
// inputs. For every <name>/ of a `vxsynth_gpu_pack --test-points` pack whose data/cuda_out.bin came
// back from the GPU (driver -d data, renamed), renders the Vortex candidate of <name>/point.json,
// runs it on vxsim (strict divergence) on <name>/data, and compares its out.bin with the CUDA output
// under the path's candidate tolerance; prints one summary line per point ("candidate check vs
// cuda-candidate ...").
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "vxsynth/check/equivalence.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace fs = std::filesystem;
using namespace vxsynth;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: vxsynth_gpu_compare PACK_DIR SDK_DIR\n";
    return 2;
  }
  int failed = 0;
  try {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(argv[1])) {
      if (fs::exists(e.path() / "data/cuda_out.bin")) dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    if (dirs.empty())
      throw make_error("{}: no point directory holds data/cuda_out.bin (run the pack's drivers with -d data on the "
                       "GPU and rename each data/out.bin to data/cuda_out.bin first)", argv[1]);
    for (const auto& d : dirs) {
      const auto p = codegen::design_point_from_json(nlohmann::json::parse(read_file(d / "point.json")));
      codegen::write_candidate(d / "vortex", codegen::emit_vortex(p));
      codegen::VortexRunOptions o;
      o.sdk_dir = argv[2];
      o.data_dir = d / "data";
      o.run_env = codegen::vxsim_env(p, false);
      const auto r = codegen::build_and_run_vortex(d / "vortex", o);
      if (!r.output_written) {
        std::cout << d.filename().string() << ": " << r.summary() << "\n" << r.build.output << r.run.output << "\n";
        ++failed;
        continue;
      }
      const auto n = check::output_numel(p.fixed.op);
      const auto dt = check::file_dtype(p.fixed.path);
      const auto vx = check::read_tensor_file(d / "data/out.bin", n, dt);
      const auto cu = check::read_tensor_file(d / "data/cuda_out.bin", n, dt);
      const auto rep = check::compare_outputs(vx, cu, p.fixed.path, check::CheckKind::kCandidate,
                                              check::ReferenceKind::kCudaCandidate);
      if (!rep.passed) ++failed;
      std::cout << "COMPARE " << d.filename().string() << " " << rep.summary() << "\n";
    }
    std::cout << dirs.size() - static_cast<size_t>(failed) << " of " << dirs.size() << " points pass\n";
  } catch (const std::exception& e) {
    std::cerr << "vxsynth_gpu_compare: " << e.what() << "\n";
    return 1;
  }
  return failed == 0 ? 0 : 3;
}
