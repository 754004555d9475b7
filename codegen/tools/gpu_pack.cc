// vxsynth_gpu_pack: packs CUDA candidates with their GPU drivers for one device call (docs/codegen.md
// "Tools"); bench/tc/run_h200.sh PACK builds and times them there.
//
//   vxsynth_gpu_pack OUT_DIR [CAPTURE_DIR...]
//     seeds every GEMM/conv hot kernel of the given captures (a bundle directory with bundle.json,
//     e.g. data/references/h100/pi0, or a raw capture with trace.json.gz + ncu_raw.csv; default
//     data/references/h200/{act,diffusion_policy,pi0}) and adds axis variants per seed (v1: lane_map
//     strided + clamped edges; v2: split-K 2 with prefetch; v3: split-K 4; v4: prefetch off) where
//     they validate and differ from the seed.
//   vxsynth_gpu_pack OUT_DIR CAPTURE_DIR --kernel ID --points SPEC[,SPEC...]
//     one kernel's seed and the design points SPEC names, each BMxBNxBK[/sSTAGES][/kSPLIT][/fSHAPE]
//     (the seed's other axes kept; STAGES = the CUDA stages asked, DesignPoint::cuda_stages; SHAPE a
//     tensor_core shape such as m16n16k16 or m64n128k16): a tile sweep
//     through the generator itself. A SPEC that does not validate is reported and skipped.
//     --vortex-lmem BYTES gives the listed points a Vortex target with that much local memory per
//     core (2^LMEM_LOG_SIZE, 4096..65536; Vortex's default is 16384, LMEM_LOG_SIZE 14).
//   vxsynth_gpu_pack OUT_DIR --test-points [--match SUBSTRING]
//     the small test points of codegen/tests/test_points.h (with --match those whose name contains it), each with fresh inputs in <name>/data/,
//     and run_all.sh running `driver -d data` (writes data/out.bin) for the CUDA <-> Vortex
//     candidate check (vxsynth_gpu_compare).
// Each point goes to OUT_DIR/<name>/{candidate.cu,driver.cu,point.json,reference.txt}, with
// OUT_DIR/run_all.sh, which builds each driver with nvcc for the target in OUT_DIR/nvcc_target
// (core::nvcc_target_flag: Hopper's sm_90a) and prints one RESULT line per
// point (source-output check vs a float64 reference on the GPU and the time of ten launches).
#include <algorithm>
#include <bit>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "../tests/test_points.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/seed.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"

namespace fs = std::filesystem;
using namespace vxsynth;

namespace {

using Points = std::vector<std::pair<std::string, codegen::DesignPoint>>;

struct Options {
  fs::path out;
  std::vector<fs::path> captures;
  bool test_points = false;
  std::string match;                // --match: only the test points whose name contains it
  std::string kernel;               // --kernel: only this kernel id
  std::vector<std::string> points;  // --points: its design points
  uint32_t vortex_lmem = 0;         // --vortex-lmem: the points' Vortex local memory per core (0: the seed's)
};

uint32_t number(std::string_view s, std::string_view spec) {
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v == 0)
    throw make_error("{}: '{}' is not a positive number", spec, s);
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  o.out = argv[1];
  if (o.out.empty() || o.out.string().starts_with("-")) throw make_error("first argument: expected OUT_DIR, got '{}'", o.out.string());
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw make_error("{} needs a value", a);
      return argv[++i];
    };
    if (a == "--test-points") {
      o.test_points = true;
    } else if (a == "--match") {
      o.match = value();
    } else if (a == "--kernel") {
      o.kernel = value();
    } else if (a == "--points") {
      const std::string list = value();
      for (std::size_t b = 0; b <= list.size();) {
        const std::size_t e = std::min(list.find(',', b), list.size());
        if (e > b) o.points.push_back(list.substr(b, e - b));
        b = e + 1;
      }
    } else if (a == "--vortex-lmem") {
      o.vortex_lmem = number(value(), "--vortex-lmem");
      if (!std::has_single_bit(o.vortex_lmem) || o.vortex_lmem < 4096 || o.vortex_lmem > 65536)
        throw make_error("--vortex-lmem {}: expected 2^LMEM_LOG_SIZE bytes, 4096..65536", o.vortex_lmem);
    } else if (a.starts_with("--")) {
      throw make_error("unknown option {}", a);
    } else {
      o.captures.emplace_back(a);
    }
  }
  if (o.points.empty() != o.kernel.empty()) throw make_error("--kernel and --points go together");
  if (o.vortex_lmem != 0 && o.points.empty()) throw make_error("--vortex-lmem applies to --points");
  if (!o.match.empty() && !o.test_points) throw make_error("--match applies to --test-points");
  if (o.test_points && (!o.captures.empty() || !o.kernel.empty()))
    throw make_error("--test-points packs the built-in test points: no capture directory, --kernel or --points");
  return o;
}


/// The tensor-core shape whose key (kFragShapeTable) is `key`, e.g. "m64n128k16".
codegen::FragShape shape_of(std::string_view key, const std::string& spec) {
  std::string keys;
  for (const auto& r : codegen::kFragShapeTable) {
    if (r.key == key) return r.id;
    keys += fmt::format("{}{}", keys.empty() ? "" : ", ", r.key);
  }
  throw make_error("--points {}: unknown tensor-core shape '{}' (one of {})", spec, key, keys);
}

/// `seed` with the tile, CUDA stages, split-K and tensor-core shape of
/// SPEC = BMxBNxBK[/sSTAGES][/kSPLIT][/fSHAPE].
codegen::DesignPoint point_of(const codegen::DesignPoint& seed, const std::string& spec) {
  codegen::DesignPoint p = seed;
  std::vector<std::string_view> parts;
  for (std::size_t b = 0; b <= spec.size();) {
    const std::size_t e = std::min(spec.find('/', b), spec.size());
    parts.emplace_back(std::string_view(spec).substr(b, e - b));
    b = e + 1;
  }
  const std::string_view tile = parts[0];
  const std::size_t x1 = tile.find('x'), x2 = tile.find('x', x1 == std::string_view::npos ? x1 : x1 + 1);
  if (x1 == std::string_view::npos || x2 == std::string_view::npos)
    throw make_error("--points {}: expected BMxBNxBK[/sSTAGES][/kSPLIT][/fSHAPE]", spec);
  const std::string where = "--points " + spec;
  p.axes.tile = {number(tile.substr(0, x1), where), number(tile.substr(x1 + 1, x2 - x1 - 1), where),
                 number(tile.substr(x2 + 1), where)};
  for (std::size_t i = 1; i < parts.size(); ++i) {
    for (std::size_t j = 1; j < i; ++j)
      if (!parts[i].empty() && !parts[j].empty() && parts[j][0] == parts[i][0])
        throw make_error("--points {}: '/{}' is given twice", spec, parts[i][0]);
    if (parts[i].starts_with('s')) {
      p.cuda_stages = number(parts[i].substr(1), where);
    } else if (parts[i].starts_with('k')) {
      p.axes.split_k = number(parts[i].substr(1), where);
    } else if (parts[i].starts_with('f')) {
      p.axes.tensor_core.shape = shape_of(parts[i].substr(1), spec);
    } else {
      throw make_error("--points {}: '{}' is none of sSTAGES, kSPLIT, fSHAPE", spec, parts[i]);
    }
  }
  p.axes.k_range = seed.axes.k_range;
  return p;
}

/// The seed's axis variants of the default pack, where they validate and differ from the seed.
Points default_variants(const codegen::DesignPoint& seed) {
  auto v1 = seed;
  v1.axes.lane_map = codegen::LaneMap::kStrided;
  v1.axes.boundary = codegen::Boundary::kClamp;
  auto v2 = seed;
  v2.axes.split_k = 2;
  v2.axes.prefetch = v2.axes.smem_stage;
  auto v3 = seed;  // split-K 4: the line search's next step
  v3.axes.split_k = 4;
  auto v4 = seed;  // one pipeline stage (tensor core: prefetch off)
  v4.axes.prefetch = false;
  Points pts{{"seed", seed}};
  for (auto& [tag, p] : Points{{"v1", v1}, {"v2", v2}, {"v3", v3}, {"v4", v4}}) {
    if (codegen::validation_errors(p).empty() && codegen::to_json(p) != codegen::to_json(seed)) pts.emplace_back(tag, p);
  }
  return pts;
}

/// The JSON of `p` with the CUDA stages it gets (cuda_tc_stages) instead of those asked: two points
/// that differ only in stages shared memory cannot hold build the same candidate.
nlohmann::json as_built(const codegen::DesignPoint& p) {
  nlohmann::json j = codegen::to_json(p);
  if (p.axes.tensor_core.enabled) j["cuda_stages"] = codegen::cuda_tc_stages(p);
  return j;
}

/// The seed and the --points of one kernel; invalid ones are reported on stderr and skipped.
Points listed_points(const codegen::DesignPoint& seed, const Options& o) {
  Points pts{{"seed", seed}};
  for (const std::string& spec : o.points) {
    codegen::DesignPoint p = point_of(seed, spec);
    if (o.vortex_lmem != 0) p.vortex.local_mem_bytes = o.vortex_lmem;
    if (const std::string e = codegen::validation_errors(p); !e.empty()) {
      std::cerr << "vxsynth_gpu_pack: skipped " << spec << ": " << e << (e.ends_with('\n') ? "" : "\n");
      if (e.find("CUDA fragment") != std::string::npos)
        std::cerr << "  (the point keeps the seed's tensor-core shape " << codegen::to_string(seed.axes.tensor_core.shape)
                  << "; /fSHAPE, e.g. /fm16n16k16, picks another)\n";
      continue;
    }
    std::string tag = spec;
    std::replace(tag.begin(), tag.end(), '/', '_');
    const bool again = std::any_of(pts.begin(), pts.end(), [&](const auto& q) {
      return q.first == tag || as_built(q.second) == as_built(p);
    });
    if (again) {
      std::cerr << "vxsynth_gpu_pack: skipped " << spec << ": the same design point as one already listed (or the seed)\n";
      continue;
    }
    pts.emplace_back(tag, p);
  }
  return pts;
}

core::ReferenceBundle read_capture(const fs::path& dir) {
  if (fs::exists(dir / "bundle.json")) return core::read_bundle(dir / "bundle.json");
  if (!fs::exists(dir / "trace.json.gz"))
    throw make_error("{}: not a capture directory (neither bundle.json nor trace.json.gz + ncu_raw.csv)", dir.string());
  return core::import_profile(core::read_torch_trace(dir / "trace.json.gz"), core::read_ncu_csv(dir / "ncu_raw.csv"));
}

/// The name a capture directory gives its points ("pi0" for "data/references/h100/pi0/" or ".").
std::string capture_name(const fs::path& dir) {
  const fs::path p = fs::absolute(dir).lexically_normal();
  const std::string name = (p.has_filename() ? p : p.parent_path()).filename().string();
  if (name.empty()) throw make_error("{}: a capture directory needs a name", dir.string());
  return name;
}

/// The reference's ncu duration and DRAM bytes (bench/tc/run_h200.sh NCU=1 compares with them).
std::string reference_line(const core::BundleKernel& k) {
  std::string ref = "REF";
  for (const auto& in : k.ncu_raw) {
    if (in.value && (in.name == "gpu__time_duration.sum" || in.name == "dram__bytes_read.sum" ||
                     in.name == "dram__bytes_write.sum"))
      ref += fmt::format(" {}={:.0f}", in.name, *in.value);
  }
  return ref + "\n";
}

/// run_all.sh (build and run every driver) and nvcc_target (the flag both it and
/// gpu_torch_check.py compile with: the H100/H200 row of core's architecture table).
void write_run_all(const fs::path& out, const std::string& driver_args) {
  const std::string target = core::nvcc_target_flag("sm_90");
  write_file_atomic(out / "nvcc_target", target + "\n");
  write_file_atomic(out / "run_all.sh",
                    "#!/usr/bin/env bash\n# Generated by vxsynth_gpu_pack. Builds and runs every driver; one RESULT line each.\n"
                    "cd \"$(dirname \"$0\")\"\nNVCC=${NVCC:-nvcc}\nfor d in */; do\n  d=${d%/}\n"
                    "  ( cd \"$d\" && $NVCC " + target + " -std=c++17 -O2 -o driver driver.cu > build.log 2>&1 && ./driver" +
                        driver_args +
                        " ) "
                        "|| echo \"RESULT $d BUILD-OR-RUN-FAILED $(tail -3 \"$d/build.log\" | tr '\\n' ' ')\"\ndone\n");
  fs::permissions(out / "run_all.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
}

int pack_test_points(const fs::path& out, const std::string& match) {
  int n = 0;
  for (const auto& c : codegen::testing_points::all_cases()) {
    if (c.name.find(match) == std::string::npos) continue;
    const fs::path d = out / c.name;
    codegen::write_candidate(d, codegen::emit_cuda(c.point));
    codegen::write_candidate(d, codegen::emit_cuda_driver(c.point, c.name, 0x5eed + static_cast<uint64_t>(n)));
    write_file_atomic(d / "point.json", codegen::to_json(c.point).dump(2));
    check::write_inputs(d / "data", check::generate_inputs(c.point.fixed.op, c.point.fixed.path, 77 + static_cast<uint64_t>(n)),
                        c.point.fixed.path);
    ++n;
  }
  if (n == 0) throw make_error("no test point's name contains '{}'", match);
  write_run_all(out, " -d data");
  return n;
}

int pack_captures(const Options& o) {
  std::vector<fs::path> caps = o.captures;
  if (caps.empty()) {
    for (const char* w : {"act", "diffusion_policy", "pi0"}) caps.push_back(fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200" / w);
  }
  // Every capture is read (and named) before anything is written.
  std::vector<std::pair<std::string, core::ReferenceBundle>> bundles;
  for (const auto& dir : caps) {
    std::string name = capture_name(dir);
    for (const auto& [other, b] : bundles)
      if (other == name) throw make_error("{}: a second capture named '{}' (point directories would clash)", dir.string(), name);
    bundles.emplace_back(std::move(name), read_capture(dir));
  }
  // Then every point is chosen; only then written.
  struct Planned {
    std::string name;
    codegen::DesignPoint point;
    const core::BundleKernel* kernel;
  };
  std::vector<Planned> plan;
  bool any_listed = false;
  for (const auto& [capture, bundle] : bundles) {
    for (const auto& k : bundle.kernels) {
      if (k.context.op == core::OpKind::kOther || (!o.kernel.empty() && k.id != o.kernel)) continue;
      const codegen::DesignPoint seed = codegen::seed_design_point(k.context);
      const Points pts = o.points.empty() ? default_variants(seed) : listed_points(seed, o);
      any_listed = any_listed || pts.size() > 1;
      for (const auto& [tag, p] : pts) plan.push_back({fmt::format("{}_{}_{}", capture, k.id, tag), p, &k});
    }
  }
  if (plan.empty() && !o.kernel.empty()) throw make_error("no GEMM/conv kernel '{}' in the given captures", o.kernel);
  if (!o.points.empty() && !any_listed)
    throw make_error("none of the --points is a valid design point other than the seed (reasons above)");
  int n = 0;
  for (const Planned& e : plan) {
    const fs::path d = o.out / e.name;
    codegen::write_candidate(d, codegen::emit_cuda(e.point));
    codegen::write_candidate(d, codegen::emit_cuda_driver(e.point, e.name + ":" + codegen::slug(e.point), 0x5eed + static_cast<uint64_t>(n)));
    write_file_atomic(d / "point.json", codegen::to_json(e.point).dump(2));
    write_file_atomic(d / "reference.txt", reference_line(*e.kernel));
    ++n;
  }
  write_run_all(o.out, "");
  return n;
}

}  // namespace

/// Refuses an OUT_DIR that exists and is not empty: a pack never overwrites a user's files, and
/// run_all.sh would run the drivers of an earlier pack left there too.
void require_fresh(const fs::path& out) {
  if (fs::exists(out) && !(fs::is_directory(out) && fs::is_empty(out)))
    throw make_error("{}: exists and is not an empty directory (a pack is written to a new one)", out.string());
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: vxsynth_gpu_pack OUT_DIR [CAPTURE_DIR...] [--kernel ID --points BMxBNxBK[/sSTAGES][/kSPLIT][/fSHAPE],...]\n"
                 "       vxsynth_gpu_pack OUT_DIR --test-points [--match SUBSTRING]\n";
    return 2;
  }
  try {
    const Options o = parse(argc, argv);
    require_fresh(o.out);
    const int n = o.test_points ? pack_test_points(o.out, o.match) : pack_captures(o);
    std::cout << n << (o.test_points ? " test point" : " point") << (n == 1 ? "" : "s") << " written to " << o.out << "\n";
  } catch (const std::exception& e) {
    std::cerr << "vxsynth_gpu_pack: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
