#include "vxsynth/core/bundle.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/hot.h"
#include "vxsynth/core/kernel_names.h"
#include "vxsynth/core/reference.h"

namespace vxsynth::core {
namespace {

using nlohmann::json;

/// Provenance keys, in schema order (docs/reference-bundle.md §provenance).
/// `alias` is the key python/vxsynth_torch/provenance.py ("vxsynth.provenance/1") writes.
struct ProvField {
  const char* key;
  const char* alias;
  std::optional<std::string> Provenance::*member;
};
constexpr ProvField kProvFields[] = {
    {"gpu", "gpu", &Provenance::gpu},
    {"cc", "compute_capability", &Provenance::cc},
    {"driver", "driver", &Provenance::driver},
    {"cuda", "cuda_runtime", &Provenance::cuda},
    {"ncu", "ncu", &Provenance::ncu},
    {"torch", "torch", &Provenance::torch},
    {"command", "command", &Provenance::command},
    {"date", "date_utc", &Provenance::date},
    {"clock_control", "clock_control", &Provenance::clock_control},
    {"cache_control", "cache_control", &Provenance::cache_control},
};

/// Limits the reader checks (docs/reference-bundle.md, "What the reader checks"). An extent of a
/// shape is at most 2^31 - 1: cuBLAS and cuDNN take dimensions as 32-bit int. A block has at most
/// 1024 threads and a thread at most 255 registers (CUDA C++ Programming Guide, "Compute
/// Capabilities", the same on every architecture of the metric table).
constexpr int64_t kMaxExtent = INT32_MAX;
constexpr int64_t kMaxBlockThreads = 1024;
constexpr int64_t kMaxRegistersPerThread = 255;

// ---- validating reader helpers: every error names the file and the field path ----------------
struct At {
  const std::string& where;
  std::string path;
  [[nodiscard]] At operator[](std::string_view key) const {
    return {where, path.empty() ? std::string(key) : path + "." + std::string(key)};
  }
  [[nodiscard]] At operator[](std::size_t i) const { return {where, fmt::format("{}[{}]", path, i)}; }
  [[noreturn]] void fail(std::string_view what) const {
    throw make_error("{}: {}: {}", where, path.empty() ? "(top level)" : path, what);
  }
};

const json& field(const json& obj, const At& at, const char* key) {
  if (!obj.is_object()) at.fail("expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) at[key].fail("missing field");
  return *it;
}
std::string str(const json& obj, const At& at, const char* key) {
  const json& v = field(obj, at, key);
  if (!v.is_string()) at[key].fail("expected a string");
  return v.get<std::string>();
}
std::optional<std::string> opt_str(const json& obj, const At& at, const char* key) {
  const json& v = field(obj, at, key);
  if (v.is_null()) return std::nullopt;
  if (!v.is_string()) at[key].fail("expected a string or null");
  return v.get<std::string>();
}
double number(const json& obj, const At& at, const char* key) {
  const json& v = field(obj, at, key);
  if (!v.is_number()) at[key].fail("expected a number");
  return v.get<double>();
}
int64_t integer(const json& obj, const At& at, const char* key) {
  const json& v = field(obj, at, key);
  if (!v.is_number_integer()) at[key].fail("expected an integer");
  return v.get<int64_t>();
}
/// A count or size: an integer >= `min`; `max` bounds it where the field has a hard limit.
int64_t bounded(const json& obj, const At& at, const char* key, int64_t min, int64_t max = INT64_MAX) {
  const int64_t v = integer(obj, at, key);
  if (v < min) at[key].fail(fmt::format("{} is below {}", v, min));
  if (v > max) at[key].fail(fmt::format("{} is above {}", v, max));
  return v;
}
/// A number >= 0 and finite.
double nonnegative(const json& obj, const At& at, const char* key) {
  const double v = number(obj, at, key);
  if (!std::isfinite(v) || v < 0) at[key].fail(fmt::format("{} is not a finite number >= 0", v));
  return v;
}
bool boolean(const json& obj, const At& at, const char* key) {
  const json& v = field(obj, at, key);
  if (!v.is_boolean()) at[key].fail("expected true or false");
  return v.get<bool>();
}
const json& array(const json& obj, const At& at, const char* key) {
  const json& v = field(obj, at, key);
  if (!v.is_array()) at[key].fail("expected an array");
  return v;
}
std::vector<int64_t> ints(const json& obj, const At& at, const char* key) {
  const json& a = array(obj, at, key);
  std::vector<int64_t> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number_integer()) at[key][i].fail("expected an integer");
    out.push_back(a[i].get<int64_t>());
  }
  return out;
}
std::array<uint32_t, 3> dim3(const json& obj, const At& at, const char* key) {
  const auto v = ints(obj, at, key);
  if (v.size() != 3 || std::any_of(v.begin(), v.end(), [](int64_t x) { return x < 1 || x > UINT32_MAX; }))
    at[key].fail("expected [x, y, z] of positive integers");
  return {static_cast<uint32_t>(v[0]), static_cast<uint32_t>(v[1]), static_cast<uint32_t>(v[2])};
}
template <typename E>
E enum_field(const json& obj, const At& at, const char* key, std::optional<E> (*parse)(std::string_view)) {
  const std::string s = str(obj, at, key);
  auto v = parse(s);
  if (!v) at[key].fail(fmt::format("unknown value '{}'", s));
  return *v;
}
void check_schema(const json& j, const At& at, std::string_view schema, int version) {
  if (!j.is_object()) at.fail("expected a JSON object");
  const std::string s = str(j, at, "schema");
  if (s != schema) at["schema"].fail(fmt::format("is '{}', expected '{}'", s, schema));
  const int64_t v = integer(j, at, "version");
  if (v != version) at["version"].fail(fmt::format("unsupported version {}, this vxsynth reads {}", v, version));
}

json opt(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }
json opt(const std::optional<double>& d) { return d ? json(*d) : json(nullptr); }

Signature read_signature_metrics(const json& m, const At& at) {
  if (!m.is_object()) at.fail("expected an object of the ten metrics");
  Signature s;
  for (auto it = m.begin(); it != m.end(); ++it)
    if (!metric_from_key(it.key())) at[it.key()].fail("unknown metric key");
  for (const MetricDef& def : metric_table()) {
    const std::string key(def.key);
    const json& v = field(m, at, key.c_str());
    if (v.is_null()) continue;
    if (!v.is_number() || !std::isfinite(v.get<double>())) at[key].fail("expected a finite number or null (NA)");
    const double x = v.get<double>();
    if (const std::string why = metric_range_problem(def, x); !why.empty()) at[key].fail(why);
    s[def.id] = x;
  }
  return s;
}

std::vector<UnprofiledKernel> read_unprofiled(const json& a, const At& at) {
  if (!a.is_array()) at.fail("expected an array");
  std::vector<UnprofiledKernel> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const At e = at[i];
    UnprofiledKernel u;
    u.rank = static_cast<std::size_t>(bounded(a[i], e, "rank", 1));
    u.name = str(a[i], e, "name");
    u.launches = static_cast<std::size_t>(bounded(a[i], e, "launches", 1));
    u.share = number(a[i], e, "share");
    if (!(u.share >= 0 && u.share <= 1 + 1e-9)) e["share"].fail("expected a fraction in [0, 1]");
    out.push_back(std::move(u));
  }
  return out;
}

std::string file_name(const std::string& p) { return std::filesystem::path(p).filename().string(); }

/// "dir/act.trace.json.gz" → "act": the file name without .gz, .json, .trace, .pt suffixes.
std::string workload_from_path(const std::string& p) {
  std::string n = file_name(p);
  for (bool again = true; again;) {
    again = false;
    for (std::string_view suf : {".gz", ".json", ".trace", ".pt"}) {
      if (n.size() > suf.size() && n.compare(n.size() - suf.size(), suf.size(), suf) == 0) {
        n.resize(n.size() - suf.size());
        again = true;
      }
    }
  }
  return n;
}

}  // namespace

std::string metric_range_problem(const MetricDef& def, double x) {
  if (x < 0) return fmt::format("{} is negative (unit {})", x, def.unit);
  if (def.unit == "fraction" && x > 1.0) return fmt::format("{} is above 1 (a fraction)", x);
  if (def.unit == "%" && def.id != MetricId::kCoalescing && x > 100.0) return fmt::format("{} is above 100 %", x);
  return {};
}

// ---- context ------------------------------------------------------------------------------------
json context_to_json(const ReferenceContext& c) {
  json j;
  j["kernel_name"] = c.kernel_name;
  j["op"] = to_string(c.op);
  j["framework_op"] = c.framework_op;
  j["op_stack"] = c.op_stack;
  j["gemm"] = c.gemm ? json{{"batch", c.gemm->batch}, {"m", c.gemm->m}, {"n", c.gemm->n}, {"k", c.gemm->k}}
                     : json(nullptr);
  if (c.conv) {
    const ConvShape& v = *c.conv;
    j["conv"] = {{"n", v.n},           {"c", v.c},     {"h", v.h},           {"w", v.w},
                 {"k", v.k},           {"r", v.r},     {"s", v.s},           {"stride", v.stride},
                 {"pad", v.pad},       {"dilation", v.dilation}, {"groups", v.groups}};
  } else {
    j["conv"] = nullptr;
  }
  j["has_bias"] = c.has_bias;
  j["operand_type"] = to_string(c.operand_type);
  j["accumulator_type"] = to_string(c.accumulator_type);
  j["engine"] = to_string(c.engine);
  j["engine_reason"] = c.engine_reason;
  j["name_rule"] = c.name_rule;
  j["helper_kernel"] = c.helper_kernel;
  j["op_reason"] = c.op_reason;
  j["launch"] = {{"grid", c.launch.grid},
                 {"block", c.launch.block},
                 {"block_size", c.launch.block_size()},
                 {"registers_per_thread", c.launch.registers_per_thread},
                 {"static_shared_bytes", c.launch.static_shared_bytes},
                 {"dynamic_shared_bytes", c.launch.dynamic_shared_bytes}};
  j["tile_hint"] = c.tile_hint ? json{{"m", c.tile_hint->m},
                                      {"n", c.tile_hint->n},
                                      {"k", c.tile_hint->k},
                                      {"stages", c.tile_hint->stages}}
                               : json(nullptr);
  json ops = json::array();
  for (const TensorDesc& t : c.operands) ops.push_back({{"dims", t.dims}, {"strides", t.strides}, {"type", t.type}});
  j["operands"] = ops;
  return j;
}

namespace {
ReferenceContext read_context(const json& j, const At& at) {
  ReferenceContext c;
  c.kernel_name = str(j, at, "kernel_name");
  c.op = enum_field<OpKind>(j, at, "op", &op_kind_from_string);
  c.framework_op = str(j, at, "framework_op");
  const json& stack = array(j, at, "op_stack");
  for (std::size_t i = 0; i < stack.size(); ++i) {
    if (!stack[i].is_string()) at["op_stack"][i].fail("expected a string");
    c.op_stack.push_back(stack[i].get<std::string>());
  }
  // Shapes: every extent is 1 .. kMaxExtent (cuBLAS and cuDNN take 32-bit int dimensions).
  const json& g = field(j, at, "gemm");
  if (!g.is_null()) {
    const At a = at["gemm"];
    auto dim = [&](const char* key) { return bounded(g, a, key, 1, kMaxExtent); };
    c.gemm = GemmShape{dim("batch"), dim("m"), dim("n"), dim("k")};
  }
  const json& v = field(j, at, "conv");
  if (!v.is_null()) {
    const At a = at["conv"];
    auto dim = [&](const char* key) { return bounded(v, a, key, 1, kMaxExtent); };
    ConvShape s;
    s.n = dim("n"), s.c = dim("c"), s.h = dim("h"), s.w = dim("w");
    s.k = dim("k"), s.r = dim("r"), s.s = dim("s");
    auto pair = [&](const char* key, int64_t min) {
      const auto p = ints(v, a, key);
      if (p.size() != 2) a[key].fail("expected [h, w]");
      for (std::size_t i = 0; i < 2; ++i)
        if (p[i] < min || p[i] > kMaxExtent) a[key][i].fail(fmt::format("{} is outside {}..{}", p[i], min, kMaxExtent));
      return std::array<int64_t, 2>{p[0], p[1]};
    };
    s.stride = pair("stride", 1), s.pad = pair("pad", 0), s.dilation = pair("dilation", 1);
    s.groups = dim("groups");
    if (s.c % s.groups != 0 || s.k % s.groups != 0)
      a["groups"].fail(fmt::format("{} does not divide c = {} and k = {}", s.groups, s.c, s.k));
    for (int i = 0; i < 2; ++i) {
      const int64_t in = i == 0 ? s.h : s.w, win = i == 0 ? s.r : s.s;
      if (in + 2 * s.pad[i] < s.dilation[i] * (win - 1) + 1)
        a[i == 0 ? "r" : "s"].fail(fmt::format("the dilated filter ({} taps, dilation {}) is wider than the padded "
                                               "input ({} + 2 x {}): the output is empty",
                                               win, s.dilation[i], in, s.pad[i]));
    }
    c.conv = s;
  }
  const bool gemm_op = c.op == OpKind::kLinear || c.op == OpKind::kMatmul || c.op == OpKind::kBmm;
  const bool conv_op = c.op == OpKind::kConv1d || c.op == OpKind::kConv2d;
  if (gemm_op && !c.gemm) at["gemm"].fail(fmt::format("is null but op is {} (a GEMM needs its shape)", to_string(c.op)));
  if (conv_op && !c.conv) at["conv"].fail(fmt::format("is null but op is {} (a convolution needs its shape)", to_string(c.op)));
  if (c.op == OpKind::kConv1d && (c.conv->h != 1 || c.conv->r != 1))
    at["conv"].fail(fmt::format("op is conv1d but h = {} and r = {} (conv1d has h = r = 1)", c.conv->h, c.conv->r));
  c.has_bias = boolean(j, at, "has_bias");
  c.operand_type = enum_field<DType>(j, at, "operand_type", &dtype_from_string);
  c.accumulator_type = enum_field<DType>(j, at, "accumulator_type", &dtype_from_string);
  c.engine = enum_field<EngineClass>(j, at, "engine", &engine_from_string);
  c.engine_reason = str(j, at, "engine_reason");
  c.name_rule = str(j, at, "name_rule");
  // Optional; a bundle without it reads as false.
  if (j.contains("helper_kernel")) c.helper_kernel = boolean(j, at, "helper_kernel");
  if (j.contains("op_reason")) c.op_reason = str(j, at, "op_reason");  // optional, like helper_kernel
  const json& l = field(j, at, "launch");
  const At la = at["launch"];
  c.launch.grid = dim3(l, la, "grid");
  c.launch.block = dim3(l, la, "block");
  if (integer(l, la, "block_size") != c.launch.block_size()) la["block_size"].fail("does not equal the product of block");
  if (c.launch.block_size() > kMaxBlockThreads)
    la["block"].fail(fmt::format("{} threads per block; CUDA allows at most {}", c.launch.block_size(), kMaxBlockThreads));
  auto u32 = [](const json& o, const At& a, const char* key, int64_t max) {
    return static_cast<uint32_t>(bounded(o, a, key, 0, max));
  };
  c.launch.registers_per_thread = u32(l, la, "registers_per_thread", kMaxRegistersPerThread);
  c.launch.static_shared_bytes = u32(l, la, "static_shared_bytes", UINT32_MAX);
  c.launch.dynamic_shared_bytes = u32(l, la, "dynamic_shared_bytes", UINT32_MAX);
  const json& t = field(j, at, "tile_hint");
  if (!t.is_null()) {
    const At a = at["tile_hint"];
    c.tile_hint = TileHint{u32(t, a, "m", UINT32_MAX), u32(t, a, "n", UINT32_MAX), u32(t, a, "k", UINT32_MAX),
                           u32(t, a, "stages", UINT32_MAX)};
  }
  const json& ops = array(j, at, "operands");
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const At a = at["operands"][i];
    TensorDesc d{ints(ops[i], a, "dims"), ints(ops[i], a, "strides"), str(ops[i], a, "type")};
    for (std::size_t q = 0; q < d.dims.size(); ++q)
      if (d.dims[q] < 0) a["dims"][q].fail(fmt::format("{} is negative", d.dims[q]));
    c.operands.push_back(std::move(d));
  }
  return c;
}
/// A kernel's raw ncu inputs ({"name": {"value": x or null, "unit": u}}).
std::vector<NcuInput> read_ncu_raw(const json& raw, const At& at) {
  if (!raw.is_object()) at.fail("expected an object");
  std::vector<NcuInput> out;
  for (auto it = raw.begin(); it != raw.end(); ++it) {
    const At ra = at[it.key()];
    const json& v = field(it.value(), ra, "value");
    if (!v.is_null() && !v.is_number()) ra["value"].fail("expected a number or null");
    out.push_back({it.key(), str(it.value(), ra, "unit"), v.is_null() ? std::nullopt : std::optional<double>(v.get<double>())});
  }
  return out;
}

/// ReferenceContext::tensor_ops from a kernel's raw ncu inputs (core::tensor_ops_of).
double measured_tensor_ops(Arch arch, const std::vector<NcuInput>& raw) {
  return tensor_ops_of(arch, [&](std::string_view name) -> std::optional<double> {
           for (const NcuInput& in : raw)
             if (in.name == name) return in.value;
           return std::nullopt;
         }).mma;
}
}  // namespace

ReferenceContext context_from_json(const json& j, const std::string& where) { return read_context(j, At{where, ""}); }

ReferenceContext entry_context(const json& entry, const std::string& where) {
  const At top{where, ""};
  ReferenceContext c = read_context(field(entry, top, "context"), top["context"]);
  if (!entry.contains("ncu") || !entry.contains("provenance")) return c;
  const json& prov = entry["provenance"];
  const auto arch = prov.is_object() && prov.contains("cc") && prov["cc"].is_string()
                        ? arch_from_cc(prov["cc"].get<std::string>())
                        : std::nullopt;
  if (!arch) top["provenance"]["cc"].fail("expected the compute capability of a known architecture (e.g. \"9.0\")");
  c.tensor_ops = measured_tensor_ops(*arch, read_ncu_raw(field(entry["ncu"], top["ncu"], "raw"), top["ncu"]["raw"]));
  return c;
}

// ---- signature ----------------------------------------------------------------------------------
json signature_to_json(const Signature& s) {
  json j = json::object();
  for (const MetricDef& m : metric_table()) j[std::string(m.key)] = opt(s[m.id]);
  return j;
}

Signature signature_from_json(const json& metrics, const std::string& where) {
  return read_signature_metrics(metrics, At{where, "metrics"});
}

void write_signature(const std::filesystem::path& path, const Signature& s, const std::string& label) {
  json j{{"schema", kSignatureSchema}, {"version", kSignatureVersion}, {"label", label}, {"metrics", signature_to_json(s)}};
  write_file_atomic(path, j.dump(2) + "\n");
}

// ---- bundle -------------------------------------------------------------------------------------
const BundleKernel& ReferenceBundle::kernel(std::string_view id) const {
  for (const BundleKernel& k : kernels)
    if (k.id == id) return k;
  for (const BundleKernel& k : kernels)
    if (std::to_string(k.rank) == id) return k;
  std::vector<std::string> ids;
  for (const BundleKernel& k : kernels) ids.push_back(k.id);
  throw make_error("no kernel '{}' in the bundle (kernels: {})", id, fmt::join(ids, ", "));
}

json to_json(const ReferenceBundle& b) {
  json j;
  j["schema"] = kBundleSchema;
  j["version"] = kBundleVersion;
  j["workload"] = b.workload;
  const ArchInfo& a = arch_info(b.arch);
  j["platform"] = {{"arch", a.sm}, {"cc", a.cc}, {"chip", a.chip}, {"family", a.name}};
  json p;
  for (const ProvField& f : kProvFields) p[f.key] = opt(b.provenance.*(f.member));
  p["trace_file"] = b.provenance.trace_file;
  p["ncu_file"] = b.provenance.ncu_file;
  p["extra"] = b.provenance.extra;
  j["provenance"] = p;
  j["gpu_time_total_us"] = b.gpu_time_total_us;
  j["kernel_launches"] = b.kernel_launches;
  json ks = json::array();
  for (const BundleKernel& k : b.kernels) {
    json kj;
    kj["id"] = k.id;
    kj["rank"] = k.rank;
    kj["name"] = k.name;
    kj["launches"] = k.launches;
    kj["total_us"] = k.total_us;
    kj["share"] = k.share;
    kj["cumulative_share"] = k.cumulative_share;
    kj["context"] = context_to_json(k.context);
    kj["signature"] = k.signature ? signature_to_json(*k.signature) : json(nullptr);
    json raw = json::object();
    for (const NcuInput& in : k.ncu_raw) raw[in.name] = {{"value", opt(in.value)}, {"unit", in.unit}};
    kj["ncu"] = {{"ids", k.ncu_ids}, {"raw", raw}};
    kj["notes"] = k.notes;
    ks.push_back(kj);
  }
  j["kernels"] = ks;
  if (b.unprofiled) {
    json u = json::array();
    for (const UnprofiledKernel& k : *b.unprofiled)
      u.push_back({{"rank", k.rank}, {"name", k.name}, {"launches", k.launches}, {"share", k.share}});
    j["unprofiled_kernels"] = u;
  }
  return j;
}

ReferenceBundle bundle_from_json(const json& j, const std::string& where) {
  const At top{where, ""};
  check_schema(j, top, kBundleSchema, kBundleVersion);
  ReferenceBundle b;
  b.workload = str(j, top, "workload");
  const json& plat = field(j, top, "platform");
  const std::string arch = str(plat, top["platform"], "arch");
  const auto a = arch_from_name(arch);
  if (!a) top["platform"]["arch"].fail(fmt::format("unknown architecture '{}'", arch));
  b.arch = *a;
  const json& p = field(j, top, "provenance");
  const At pa = top["provenance"];
  for (const ProvField& f : kProvFields) b.provenance.*(f.member) = opt_str(p, pa, f.key);
  b.provenance.trace_file = str(p, pa, "trace_file");
  b.provenance.ncu_file = str(p, pa, "ncu_file");
  b.provenance.extra = field(p, pa, "extra");
  if (!b.provenance.extra.is_object()) pa["extra"].fail("expected an object");
  b.gpu_time_total_us = nonnegative(j, top, "gpu_time_total_us");
  b.kernel_launches = static_cast<std::size_t>(bounded(j, top, "kernel_launches", 0));
  if (j.contains("unprofiled_kernels")) b.unprofiled = read_unprofiled(j["unprofiled_kernels"], top["unprofiled_kernels"]);
  const json& ks = array(j, top, "kernels");
  std::map<std::string, std::size_t> seen_id;
  std::map<std::size_t, std::size_t> seen_rank;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const At at = top["kernels"][i];
    const json& kj = ks[i];
    BundleKernel k;
    k.id = str(kj, at, "id");
    if (k.id.empty()) at["id"].fail("is empty");
    if (auto [it, fresh] = seen_id.emplace(k.id, i); !fresh)
      at["id"].fail(fmt::format("duplicate kernel id '{}' (kernels[{}] has it too): ids must be unique", k.id, it->second));
    k.rank = static_cast<std::size_t>(bounded(kj, at, "rank", 1));
    if (auto [it, fresh] = seen_rank.emplace(k.rank, i); !fresh)
      at["rank"].fail(fmt::format("duplicate rank {} (kernels[{}] has it too): ranks must be unique", k.rank, it->second));
    k.name = str(kj, at, "name");
    k.launches = static_cast<std::size_t>(bounded(kj, at, "launches", 1));
    k.total_us = nonnegative(kj, at, "total_us");
    k.share = number(kj, at, "share");
    k.cumulative_share = number(kj, at, "cumulative_share");
    if (!(k.share >= 0 && k.share <= 1 + 1e-9)) at["share"].fail("expected a fraction in [0, 1]");
    if (!(k.cumulative_share >= 0 && k.cumulative_share <= 1 + 1e-9))
      at["cumulative_share"].fail("expected a fraction in [0, 1]");
    k.context = read_context(field(kj, at, "context"), at["context"]);
    const json& sig = field(kj, at, "signature");
    if (!sig.is_null()) k.signature = read_signature_metrics(sig, at["signature"]);
    const json& n = field(kj, at, "ncu");
    k.ncu_ids = ints(n, at["ncu"], "ids");
    for (std::size_t q = 0; q < k.ncu_ids.size(); ++q)
      if (k.ncu_ids[q] < 0) at["ncu"]["ids"][q].fail(fmt::format("{} is negative (ncu IDs count from 0)", k.ncu_ids[q]));
    k.ncu_raw = read_ncu_raw(field(n, at["ncu"], "raw"), at["ncu"]["raw"]);
    k.context.tensor_ops = measured_tensor_ops(b.arch, k.ncu_raw);
    const json& notes = array(kj, at, "notes");
    for (std::size_t q = 0; q < notes.size(); ++q) {
      if (!notes[q].is_string()) at["notes"][q].fail("expected a string");
      k.notes.push_back(notes[q].get<std::string>());
    }
    b.kernels.push_back(std::move(k));
  }
  return b;
}

ReferenceBundle read_bundle(const std::filesystem::path& path) {
  json j;
  try {
    j = json::parse(read_file(path));
  } catch (const json::parse_error& e) {
    throw make_error("{}: not valid JSON: {}", path.string(), e.what());
  }
  return bundle_from_json(j, path.string());
}

void write_bundle(const std::filesystem::path& path, const ReferenceBundle& b) {
  write_file_atomic(path, to_json(b).dump(2) + "\n");
}

SignatureRef load_signature_ref(const std::string& spec) {
  const std::size_t hash = spec.rfind('#');
  const std::string file = hash == std::string::npos ? spec : spec.substr(0, hash);
  json j;
  try {
    j = json::parse(read_file(file));
  } catch (const json::parse_error& e) {
    throw make_error("{}: not valid JSON: {}", file, e.what());
  }
  if (hash != std::string::npos) {
    const std::string id = spec.substr(hash + 1);
    const ReferenceBundle b = bundle_from_json(j, file);
    const BundleKernel* k = nullptr;
    try {
      k = &b.kernel(id);
    } catch (const vxsynth::Error& e) {
      throw make_error("{}: {}", file, e.what());
    }
    if (!k->signature) throw make_error("{}: kernel {} ({}) has no signature: ncu profiled none of its launches", file, k->id, k->name);
    return {*k->signature, spec};
  }
  const At top{file, ""};
  if (j.is_object() && j.contains("schema") && j["schema"] == kBundleSchema)
    top.fail("is a reference bundle: name a kernel as FILE#k1");
  check_schema(j, top, kSignatureSchema, kSignatureVersion);
  SignatureRef r{read_signature_metrics(field(j, top, "metrics"), top["metrics"]), spec};
  if (j.contains("label") && j["label"].is_string() && !j["label"].get<std::string>().empty())
    r.label = j["label"].get<std::string>();
  return r;
}

// ---- import -------------------------------------------------------------------------------------
namespace {

/// The first row of the launch-exact capture given for group h, checked against the group's launch
/// geometry (a capture for another kernel is an error naming the file); null when none is given.
const NcuKernel* extra_row(const std::vector<ExtraNcu>& extra, const HotKernel& h, const TorchTrace& trace,
                           BundleKernel& k) {
  for (const ExtraNcu& e : extra) {
    if (e.rank != h.rank || e.report.kernels.empty()) continue;
    const NcuKernel& nk = e.report.kernels.front();
    const TraceKernel& tk = trace.kernels[h.launches.front()];
    if (!e.key.empty() && e.key != h.key)
      throw make_error("{}: listed for hot kernel k{} with group key '{}', but k{} of this trace is '{}' (another "
                       "trace, or the ranking changed)", e.report.path, e.rank, e.key.substr(0, 120), h.rank,
                       h.key.substr(0, 120));
    if (kernel_base_name(nk.name) != kernel_base_name(tk.name) || nk.grid != tk.grid || nk.block != tk.block)
      throw make_error("{}:{}: ncu ID {} ({}, grid {}, block {}) is not a launch of hot kernel k{} ({}, grid {}, "
                       "block {}): wrong rank for this capture?",
                       e.report.path, nk.line, nk.id, nk.name.substr(0, 80), fmt::join(nk.grid, ","),
                       fmt::join(nk.block, ","), h.rank, tk.name.substr(0, 80), fmt::join(tk.grid, ","),
                       fmt::join(tk.block, ","));
    k.ncu_ids.push_back(nk.id);
    k.notes.push_back(fmt::format("signature from {} ID {}: a launch-exact capture (other groups share this "
                                  "kernel's launch geometry, so the main capture's row cannot be joined to it)",
                                  std::filesystem::path(e.report.path).filename().string(), nk.id));
    return &nk;
  }
  return nullptr;
}

}  // namespace

std::vector<ExtraNcu> read_extra_captures(const std::filesystem::path& ncu_csv, const NcuImportOptions& options) {
  const std::filesystem::path list = ncu_csv.parent_path() / kExtraCapturesFile;
  std::vector<ExtraNcu> out;
  if (!std::filesystem::exists(list)) return out;
  json j;
  try {
    j = json::parse(read_file(list));
  } catch (const json::parse_error& e) {
    throw make_error("{}: not valid JSON: {}", list.string(), e.what());
  }
  if (!j.is_array()) throw make_error("{}: expected an array of {{rank, key, csv}}", list.string());
  for (std::size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    const auto rank = e.is_object() ? e.find("rank") : e.end();
    const auto csv = e.is_object() ? e.find("csv") : e.end();
    const auto key = e.is_object() ? e.find("key") : e.end();
    const bool ok = e.is_object() && rank != e.end() && rank->is_number_unsigned() && csv != e.end() &&
                    csv->is_string() && (key == e.end() || key->is_string());
    if (!ok)
      throw make_error("{}: entry {}: expected {{\"rank\": R >= 1, \"key\": \"...\", \"csv\": \"file\"}}", list.string(), i);
    ExtraNcu x;
    x.rank = rank->get<std::size_t>();
    if (key != e.end()) x.key = key->get<std::string>();
    x.report = read_ncu_csv(list.parent_path() / csv->get<std::string>(), options);
    out.push_back(std::move(x));
  }
  return out;
}

ReferenceBundle import_profile(const TorchTrace& trace, const NcuReport& ncu, const ImportOptions& options) {
  if (trace.cc_major > 0) {
    const std::string trace_cc = fmt::format("{}.{}", trace.cc_major, trace.cc_minor);
    if (trace_cc != arch_info(ncu.arch).cc)
      throw make_error("{} was recorded on CC {} ({}) but {} was profiled on CC {}: not the same GPU", trace.path,
                       trace_cc, trace.gpu_name, ncu.path, arch_info(ncu.arch).cc);
  }
  ReferenceBundle b;
  b.workload = options.workload.empty() ? workload_from_path(trace.path) : options.workload;
  b.arch = ncu.arch;
  b.gpu_time_total_us = trace.total_kernel_time_us();
  b.kernel_launches = trace.kernels.size();

  // Provenance: what the files say, then the --provenance file (which wins where both say something).
  Provenance& p = b.provenance;
  p.trace_file = file_name(trace.path);
  p.ncu_file = file_name(ncu.path);
  if (!ncu.gpu_name.empty()) p.gpu = ncu.gpu_name;
  else if (!trace.gpu_name.empty()) p.gpu = trace.gpu_name;
  p.cc = std::string(arch_info(ncu.arch).cc);
  if (!trace.cuda_runtime_version.empty()) p.cuda = "runtime " + trace.cuda_runtime_version;
  const json& pf = options.provenance;
  if (!pf.is_object()) throw make_error("provenance: expected a JSON object");
  for (auto it = pf.begin(); it != pf.end(); ++it) {
    const ProvField* f = nullptr;
    for (const ProvField& q : kProvFields)
      if (it.key() == q.key || it.key() == q.alias) f = &q;
    if (f && (it.value().is_string() || it.value().is_null()))
      p.*(f->member) = it.value().is_null() ? std::nullopt : std::optional<std::string>(it.value().get<std::string>());
    else if (f && it.value().is_number())
      p.*(f->member) = it.value().dump();
    else
      p.extra[it.key()] = it.value();
  }

  const NcuJoin join = join_ncu(trace, ncu);
  ImportOptions with_extra = options;
  if (options.extra_from_file)
    for (ExtraNcu& e : read_extra_captures(ncu.path)) with_extra.extra.push_back(std::move(e));
  if (join.unmatched_ncu.size() == ncu.kernels.size())
    throw make_error("{} and {}: no ncu kernel matches a trace kernel by base name + grid + block (same workload?)",
                     trace.path, ncu.path);

  for (const HotKernel& h : rank_hot_kernels(trace, options.top_k)) {
    BundleKernel k;
    k.rank = h.rank;
    k.id = fmt::format("k{}", h.rank);
    k.launches = h.launches.size();
    k.total_us = h.total_us;
    k.share = h.share;
    k.cumulative_share = h.cumulative_share;
    const TraceKernel* first = &trace.kernels[h.launches.front()];
    const NcuKernel* row = nullptr;
    for (std::size_t t : h.launches) {
      for (std::size_t n : join.ncu_for_trace[t]) {
        const NcuKernel& nk = ncu.kernels[n];
        k.ncu_ids.push_back(nk.id);
        if (!row) {
          row = &nk;
          first = &trace.kernels[t];
        }
      }
    }
    if (!row) row = extra_row(with_extra.extra, h, trace, k);
    k.name = first->name;
    k.context = build_context(*first, row, ncu.arch);
    if (row) {
      NcuSignature s = signature_from_ncu(*row, ncu.arch);
      for (const MetricDef& def : metric_table())
        if (const auto& x = s.signature[def.id])
          if (const std::string why = metric_range_problem(def, *x); !why.empty())
            throw make_error("{}:{}: kernel {} ({}): signature metric {} computed from this row: {}; the row's "
                             "counters are not possible (the file is corrupt or was edited)",
                             ncu.path, row->line, row->id, row->name.substr(0, 80), def.key, why);
      k.signature = s.signature;
      k.ncu_raw = std::move(s.inputs);
      k.notes = std::move(s.notes);
      if (k.ncu_ids.size() > 1)
        k.notes.push_back(fmt::format("signature from ncu ID {} (first of {} profiled launches)", row->id, k.ncu_ids.size()));
    } else {
      k.notes.push_back("ncu profiled no launch of this kernel: no signature");
    }
    b.kernels.push_back(std::move(k));
  }
  b.unprofiled.emplace();
  for (const HotKernel& h : rank_hot_kernels(trace, 0)) {
    const bool profiled =
        std::any_of(h.launches.begin(), h.launches.end(), [&](std::size_t t) { return !join.ncu_for_trace[t].empty(); }) ||
        std::any_of(with_extra.extra.begin(), with_extra.extra.end(),
                    [&](const ExtraNcu& e) { return e.rank == h.rank && !e.report.kernels.empty(); });
    if (!profiled)
      b.unprofiled->push_back({h.rank, trace.kernels[h.launches.front()].name, h.launches.size(), h.share});
  }
  return b;
}

}  // namespace vxsynth::core
