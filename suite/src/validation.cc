#include "validation.h"

#include <fmt/format.h>

#include "suite_files.h"
#include "vxsynth/suite/plan.h"
#include "vxsynth/check/reference_ops.h"
#include "vxsynth/codegen/seed.h"
#include "vxsynth/common/error.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/refine/record.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json file_entry(const fs::path& file, const std::string& rel, int64_t numel) {
  json e{{"file", rel}, {"numel", numel}};
  if (fs::is_regular_file(file)) {
    e["bytes"] = fs::file_size(file);
    e["sha256"] = sha256_file(file);
  }
  return e;
}

json sample_of(const fs::path& ref, const TensorSpec& s) {
  const int64_t n = check::output_numel(s.op);
  const std::vector<double> v = check::read_tensor_file(ref, n, s.ftype);
  json idx = json::array(), val = json::array();
  for (int i = 0; i < kSampleSize && i < n; ++i) {
    const int64_t at = n <= kSampleSize ? i : i * (n - 1) / (kSampleSize - 1);
    idx.push_back(at);
    val.push_back(v[static_cast<size_t>(at)]);
  }
  return json{{"indices", idx}, {"values", val}};
}

// Draws the inputs again into `dir`, and with `reference` computes the float64 reference there.
void draw(const TensorSpec& s, uint64_t seed, const fs::path& dir, bool reference) {
  const auto inputs = check::generate_inputs(s.op, s.path, seed);
  check::write_inputs(dir, inputs, s.path);
  if (reference)
    check::write_tensor_file(dir / "ref_output.bin", check::reference_forward(s.op, check::values_of(inputs)),
                             s.ftype);
}

}  // namespace

TensorSpec tensor_spec(const codegen::DesignPoint& locked) {
  TensorSpec s;
  s.op = locked.fixed.op;
  s.path = locked.fixed.path;
  s.ftype = check::file_dtype(s.path);
  return s;
}

json make_tensors_json(const fs::path& bench, uint64_t input_key, int locked_revision) {
  const refine::RecordRead rec = refine::read_record(bench / "record.jsonl", /*repair=*/false);
  if (locked_revision < 0 || static_cast<size_t>(locked_revision) >= rec.entries.size())
    throw make_error("{}: locked revision {} is not a revision of the record", (bench / "record.jsonl").string(),
                     locked_revision);
  const TensorSpec s =
      tensor_spec(codegen::design_point_from_json(rec.entries[static_cast<size_t>(locked_revision)].design));
  const uint64_t seed = refine::check_input_seed(input_key, locked_revision);
  json inputs = json::array();
  for (const check::OperandInfo& o : check::operands(s.op)) {
    json e = file_entry(bench / "data" / (o.name + ".bin"), "data/" + o.name + ".bin", o.numel());
    e["name"] = o.name;
    e["shape"] = o.shape;
    inputs.push_back(std::move(e));
  }
  const fs::path ref = bench / "data" / "ref_output.bin";
  json out = file_entry(ref, "data/ref_output.bin", check::output_numel(s.op));
  out["shape"] = check::output_shape(s.op);
  if (fs::is_regular_file(ref)) out["sample"] = sample_of(ref, s);
  json t{{"schema", kTensorsSchema},
         {"version", kTensorsVersion},
         {"op", check::describe(s.op)},
         {"precision", check::to_string(s.path)},
         {"file_dtype", s.ftype == check::FileDType::kBf16 ? "bf16" : "f32"},
         {"input_seed", seed},
         {"generator", "check::generate_inputs (std::mt19937_64 + Box-Muller; docs/equivalence.md), seed = "
                       "refine::check_input_seed(run.json input_key, locked revision)"},
         {"inputs", inputs},
         {"reference_output", out}};
  // Draw the inputs again and compare: the committed suite may then leave the tensors out.
  const fs::path tmp = bench.parent_path() / kStateDir / "redraw" / bench.filename();
  fs::remove_all(tmp);
  draw(s, seed, tmp, false);
  bool match = true;
  for (const json& e : inputs)
    match = match && e.contains("sha256") && sha256_file(tmp / fs::path(e["file"].get<std::string>()).filename()) == e["sha256"];
  fs::remove_all(tmp);
  t["redrawn_match"] = match;
  return t;
}

std::string materialize_tensors(const json& tensors, const TensorSpec& spec, const fs::path& bench_data,
                                const fs::path& dir) {
  fs::create_directories(dir);
  json files = tensors["inputs"];
  files.push_back(tensors["reference_output"]);
  bool have_all = true;
  for (const json& e : files) {
    const fs::path src = bench_data / fs::path(e["file"].get<std::string>()).filename();
    have_all = have_all && e.contains("sha256") && fs::is_regular_file(src) && sha256_file(src) == e["sha256"];
  }
  if (have_all) {
    for (const json& e : files) {
      const fs::path name = fs::path(e["file"].get<std::string>()).filename();
      fs::copy_file(bench_data / name, dir / name, fs::copy_options::overwrite_existing);
    }
    return {};
  }
  draw(spec, tensors["input_seed"].get<uint64_t>(), dir, true);
  for (const json& e : files) {
    const fs::path name = fs::path(e["file"].get<std::string>()).filename();
    if (!e.contains("sha256")) return fmt::format("{}: no SHA-256 in tensors.json", name.string());
    const std::string got = sha256_file(dir / name);
    if (got != e["sha256"])
      return fmt::format("{} drawn again from seed {} has SHA-256 {}, tensors.json says {}", name.string(),
                         tensors["input_seed"].get<uint64_t>(), got, e["sha256"].get<std::string>());
  }
  return {};
}

}  // namespace vxsynth::suite
