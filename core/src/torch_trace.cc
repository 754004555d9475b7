#include "vxsynth/core/torch_trace.h"

#include <zlib.h>

#include <algorithm>
#include <functional>
#include <map>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::core {
namespace {

using nlohmann::json;

std::string as_text(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "";
  return j.dump();
}

std::vector<int64_t> int_list(const json& j) {
  std::vector<int64_t> out;
  if (!j.is_array()) return out;
  for (const json& e : j) {
    if (!e.is_number_integer()) return {};  // tensor lists etc.: not a plain shape
    out.push_back(e.get<int64_t>());
  }
  return out;
}

std::vector<OpArg> op_args(const json& args) {
  std::vector<OpArg> out;
  const json* dims = args.contains("Input Dims") ? &args["Input Dims"] : nullptr;
  if (!dims || !dims->is_array()) return out;
  out.resize(dims->size());
  for (std::size_t i = 0; i < dims->size(); ++i) out[i].dims = int_list((*dims)[i]);
  auto fill = [&](const char* key, auto setter) {
    if (!args.contains(key) || !args[key].is_array()) return;
    const json& a = args[key];
    for (std::size_t i = 0; i < a.size() && i < out.size(); ++i) setter(out[i], a[i]);
  };
  fill("Input type", [](OpArg& o, const json& v) { o.type = as_text(v); });
  fill("Input Strides", [](OpArg& o, const json& v) { o.strides = int_list(v); });
  fill("Concrete Inputs", [](OpArg& o, const json& v) { o.concrete = as_text(v); });
  return out;
}

/// `j[key]` when it is an integer, else `dflt` (a missing key included: operator[] on a const object
/// is only defined for keys it holds).
int64_t int_or(const json& j, const char* key, int64_t dflt) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : dflt;
}

/// Name of the events array in messages: "traceEvents" (object form) or "events" (bare-array form,
/// where the top-level array itself holds the events).
using EventsLabel = const char*;

double num(const json& ev, const char* key, const std::string& path, EventsLabel arr, std::size_t index) {
  if (!ev.contains(key) || !ev[key].is_number())
    throw make_error("{}: {}[{}] ({}): field '{}' missing or not a number", path, arr, index,
                     as_text(ev.value("name", json())), key);
  return ev[key].get<double>();
}

std::array<uint32_t, 3> dim3(const json& args, const char* key, const std::string& path, EventsLabel arr,
                             std::size_t index) {
  if (!args.contains(key) || !args[key].is_array() || args[key].size() != 3)
    throw make_error("{}: {}[{}]: kernel args field '{}' missing or not [x, y, z]", path, arr, index, key);
  std::array<uint32_t, 3> d{};
  for (std::size_t i = 0; i < 3; ++i) {
    const json& v = args[key][i];
    if (!v.is_number_integer() || v.get<int64_t>() < 1)
      throw make_error("{}: {}[{}]: kernel args field '{}'[{}] is not a positive integer", path, arr, index,
                       key, i);
    d[i] = v.get<uint32_t>();
  }
  return d;
}

struct HostOp {
  OpCall call;
  int64_t pid = 0, tid = 0;
  int parent = -1;
};

/// Streaming reader: builds a DOM of everything except the elements of the events array, which are
/// built one at a time, handed to `on_event` and dropped. Memory is that of one event, whatever the
/// trace size (workload traces reach 100 MB and 270 k events). The events array is either the
/// top-level "traceEvents" member (JSON Object Format of the Chrome Trace Event Format) or the
/// top-level value itself (JSON Array Format, written e.g. by some CPU-only torch exports); in the
/// array form the format lets the closing ']' be missing (a trace cut off by a crashing writer),
/// which is accepted when the input ends between two events.
class EventStream {
 public:
  using Handler = std::function<void(const json& event, std::size_t index, EventsLabel arr)>;
  /// `text` is the JSON being parsed (used only to tell a cut-off bare array from other errors).
  EventStream(Handler on_event, std::string_view text) : on_event_(std::move(on_event)), text_(text) {}

  json& root() { return root_; }
  [[nodiscard]] bool saw_events() const { return saw_events_; }
  /// True when the top-level value is the events array (JSON Array Format).
  [[nodiscard]] bool bare_array() const { return bare_array_; }
  /// True when parsing failed only because a bare events array was not closed: the input ended
  /// (after an event, or after the comma following one) with no event half read.
  [[nodiscard]] bool unterminated_array() const { return unterminated_array_; }
  [[nodiscard]] std::size_t events() const { return events_; }
  [[nodiscard]] const std::string& error() const { return error_; }

  // nlohmann::json SAX interface.
  bool null() { return value(json(nullptr)); }
  bool boolean(bool v) { return value(json(v)); }
  bool number_integer(json::number_integer_t v) { return value(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(json(v)); }
  bool number_float(json::number_float_t v, const std::string&) { return value(json(v)); }
  bool string(json::string_t& v) { return value(json(std::move(v))); }
  bool binary(json::binary_t& v) { return value(json(json::binary_t(std::move(v)))); }
  bool key(json::string_t& k) {
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    error_ = fmt::format("at byte {}: {}", position, ex.what());
    unterminated_array_ = bare_array_ && stack_.size() == 1 && !in_event_ && position >= text_.size() &&
                          only_space_after_last_event();
    return false;
  }

 private:
  /// Where a new value goes: the current event when one is open, else the DOM.
  json* place(json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *stack_.back();
    if (&parent == events_array_) {  // an element of traceEvents: build it on its own
      current_ = std::move(v);
      in_event_ = true;
      event_depth_ = stack_.size();
      return &current_;
    }
    if (parent.is_object()) {
      json& slot = parent[key_];
      slot = std::move(v);
      return &slot;
    }
    parent.push_back(std::move(v));
    return &parent.back();
  }
  bool value(json v) {
    json* p = place(std::move(v));
    if (in_event_ && p == &current_) finish_event();  // a scalar element of traceEvents
    return true;
  }
  bool open(json v) {
    const bool top_array = stack_.empty() && v.is_array();
    const bool is_events =
        top_array || (stack_.size() == 1 && root_.is_object() && key_ == "traceEvents" && v.is_array());
    json* p = place(std::move(v));
    if (is_events) {
      events_array_ = p;
      saw_events_ = true;
      bare_array_ = top_array;
    }
    stack_.push_back(p);
    return true;
  }
  bool close() {
    stack_.pop_back();
    if (in_event_ && stack_.size() == event_depth_) finish_event();
    return true;
  }
  void finish_event() {
    in_event_ = false;
    on_event_(current_, events_++, bare_array_ ? "events" : "traceEvents");
    current_ = nullptr;
  }
  /// The input after the last '}' or ']' (end of the last event) holds only white space and at
  /// most one ',' — i.e. the array was cut between events, not inside one or after a stray token.
  [[nodiscard]] bool only_space_after_last_event() const {
    const std::size_t end = text_.find_last_of("}]");
    const std::size_t from = end == std::string_view::npos ? text_.find('[') : end;
    if (from == std::string_view::npos) return false;
    bool comma = false;
    for (std::size_t i = from + 1; i < text_.size(); ++i) {
      const char c = text_[i];
      if (c == ',' && !comma && events_ > 0) {
        comma = true;
      } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return false;
      }
    }
    return true;
  }

  Handler on_event_;
  std::string_view text_;
  json root_;
  json current_;
  std::vector<json*> stack_;
  json* events_array_ = nullptr;
  std::string key_;
  bool in_event_ = false;
  std::size_t event_depth_ = 0;
  bool saw_events_ = false;
  bool bare_array_ = false;
  bool unterminated_array_ = false;
  std::size_t events_ = 0;
  std::string error_;
};

/// What marks `j` (an event, or the trace's top-level object) as written by Kineto's ROCm
/// (roctracer) backend: HIP runtime calls (hipLaunchKernel, hipModuleLaunchKernel, …), an AMD
/// device's gcnArchName, or a roctracer field. "" when nothing does.
std::string rocm_sign(const json& j) {
  const std::string name = j.value("name", json()).is_string() ? j["name"].get<std::string>() : "";
  if (name.rfind("hip", 0) == 0 && j.value("ph", "") == "X") return fmt::format("runtime call '{}'", name);
  if (j.contains("deviceProperties") && j["deviceProperties"].is_array())
    for (const json& d : j["deviceProperties"])
      if (d.is_object() && d.contains("gcnArchName")) return fmt::format("device gcnArchName {}", d["gcnArchName"].dump());
  if (j.contains("roctracer_version")) return "roctracer_version";
  return "";
}

}  // namespace

double TorchTrace::total_kernel_time_us() const {
  double t = 0;
  for (const auto& k : kernels) t += k.dur_us;
  return t;
}

std::string gunzip(std::string_view data, const std::string& path) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw make_error("{}: zlib init failed", path);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      throw make_error("{}: corrupt gzip data ({})", path, zs.msg ? zs.msg : "inflate error");
    }
    out.append(buf, sizeof buf - zs.avail_out);
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      throw make_error("{}: gzip data ends early (truncated file)", path);
    }
  }
  inflateEnd(&zs);
  return out;
}

TorchTrace parse_torch_trace(std::string_view json_text, const std::string& path) {
  TorchTrace tr;
  tr.path = path;
  std::vector<HostOp> ops;
  std::vector<std::pair<TraceKernel, std::size_t>> kernels;  // kernel, event index
  std::size_t ops_with_shapes = 0;
  std::string rocm_marker;    // first sign of a ROCm (HIP) trace
  std::string kernel_error;   // first unreadable kernel event; thrown once the trace is known to be CUDA
  auto on_event = [&](const json& ev, std::size_t i, EventsLabel arr) {
    if (!ev.is_object()) return;
    if (rocm_marker.empty()) rocm_marker = rocm_sign(ev);
    if (ev.value("ph", "") != "X") return;
    const std::string cat = ev.value("cat", "");
    if (cat == "cpu_op") {
      HostOp op;
      op.call.name = ev.value("name", "");
      op.call.ts_us = num(ev, "ts", path, arr, i);
      op.call.dur_us = num(ev, "dur", path, arr, i);
      op.pid = int_or(ev, "pid", 0);
      op.tid = int_or(ev, "tid", 0);
      if (ev.contains("args") && ev["args"].is_object()) {
        const json& a = ev["args"];
        if (a.contains("External id") && a["External id"].is_number_integer())
          op.call.external_id = a["External id"].get<int64_t>();
        op.call.args = op_args(a);
        if (a.contains("Input Dims")) ++ops_with_shapes;
      }
      ops.push_back(std::move(op));
    } else if (cat == "kernel") {
      if (!kernel_error.empty()) return;
      TraceKernel k;
      try {
        if (!ev.contains("args") || !ev["args"].is_object())
          throw make_error("{}: {}[{}]: kernel event has no args", path, arr, i);
        const json& a = ev["args"];
        k.grid = dim3(a, "grid", path, arr, i);
        k.block = dim3(a, "block", path, arr, i);
      } catch (const Error& e) {
        kernel_error = e.what();
        return;
      }
      const json& a = ev["args"];
      k.name = ev.value("name", "");
      k.ts_us = num(ev, "ts", path, arr, i);
      k.dur_us = num(ev, "dur", path, arr, i);
      k.device = int_or(a, "device", 0);
      k.stream = int_or(a, "stream", 0);
      k.correlation = int_or(a, "correlation", 0);
      if (a.contains("External id") && a["External id"].is_number_integer())
        k.external_id = a["External id"].get<int64_t>();
      if (a.contains("registers per thread") && a["registers per thread"].is_number_integer())
        k.registers_per_thread = a["registers per thread"].get<uint32_t>();
      if (a.contains("shared memory") && a["shared memory"].is_number_integer())
        k.shared_memory_bytes = a["shared memory"].get<uint32_t>();
      kernels.emplace_back(std::move(k), i);
    }
  };
  EventStream stream(on_event, json_text);
  if (!json::sax_parse(json_text, &stream) && !stream.unterminated_array())
    throw make_error("{}: not valid JSON {}", path, stream.error());
  const json& doc = stream.root();
  if (!stream.saw_events())
    throw make_error(
        "{}: no 'traceEvents' array and no top-level array of events (not a PyTorch profiler "
        "Chrome trace?)",
        path);
  if (stream.events() == 0)
    throw make_error("{}: {} is empty", path, stream.bare_array() ? "the events array" : "'traceEvents'");
  if (rocm_marker.empty() && doc.is_object()) rocm_marker = rocm_sign(doc);
  if (!rocm_marker.empty())
    throw make_error(
        "{}: a ROCm (HIP) trace ({}): ROCm traces are not supported; vxsynth reads CUDA traces of NVIDIA GPUs "
        "(CUPTI kernel events with grid and block) profiled with Nsight Compute",
        path, rocm_marker);
  if (!kernel_error.empty()) throw Error(kernel_error);
  if (!stream.bare_array()) {  // metadata (versions, deviceProperties) exists only in the object form
    tr.cuda_driver_version = as_text(doc.value("cuda_driver_version", json()));
    tr.cuda_runtime_version = as_text(doc.value("cuda_runtime_version", json()));
  }
  if (kernels.empty())
    throw make_error(
        "{}: no GPU kernel events (cat \"kernel\") among {} events: profile with "
        "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]",
        path, stream.events());
  if (ops.empty())
    throw make_error(
        "{}: no host op events (cat \"cpu_op\"): the kernels cannot be tied to the torch ops that launched them; "
        "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True",
        path);
  if (ops_with_shapes == 0)
    throw make_error(
        "{}: input shapes are missing (none of its {} cpu_op events has \"Input Dims\"), so no op shape, dtype or "
        "layout can be read: record the trace with torch.profiler.profile(activities=[ProfilerActivity.CPU, "
        "ProfilerActivity.CUDA], record_shapes=True)",
        path, ops.size());

  // Parents by time containment per (pid, tid): sort by start, longer first, keep a stack.
  std::vector<std::size_t> order(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const HostOp &x = ops[a], &y = ops[b];
    if (x.pid != y.pid) return x.pid < y.pid;
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.call.ts_us != y.call.ts_us) return x.call.ts_us < y.call.ts_us;
    return x.call.dur_us > y.call.dur_us;
  });
  std::vector<std::size_t> stack;
  for (std::size_t idx : order) {
    HostOp& op = ops[idx];
    while (!stack.empty()) {
      const HostOp& top = ops[stack.back()];
      if (top.pid == op.pid && top.tid == op.tid && op.call.ts_us < top.call.ts_us + top.call.dur_us) break;
      stack.pop_back();
    }
    op.parent = stack.empty() ? -1 : static_cast<int>(stack.back());
    stack.push_back(idx);
  }
  std::map<int64_t, std::size_t> by_external;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].call.external_id >= 0) by_external.emplace(ops[i].call.external_id, i);

  std::stable_sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) {
    return a.first.correlation != b.first.correlation ? a.first.correlation < b.first.correlation
                                                      : a.first.ts_us < b.first.ts_us;
  });
  for (auto& [k, ev_index] : kernels) {
    (void)ev_index;
    if (k.external_id) {
      auto it = by_external.find(*k.external_id);
      if (it != by_external.end()) {
        for (int p = static_cast<int>(it->second); p >= 0; p = ops[static_cast<std::size_t>(p)].parent)
          k.op_stack.push_back(ops[static_cast<std::size_t>(p)].call);
        std::reverse(k.op_stack.begin(), k.op_stack.end());
      }
    }
    k.order = tr.kernels.size();
    tr.kernels.push_back(std::move(k));
  }

  if (doc.is_object() && doc.contains("deviceProperties") && doc["deviceProperties"].is_array()) {
    const int64_t dev = tr.kernels.front().device;
    for (const json& d : doc["deviceProperties"]) {
      if (!d.is_object() || d.value("id", json(-1)) != json(dev)) continue;
      tr.gpu_name = d.value("name", "");
      tr.cc_major = d.value("computeMajor", 0);
      tr.cc_minor = d.value("computeMinor", 0);
      tr.num_sms = d.value("numSms", 0);
    }
  }
  return tr;
}

TorchTrace read_torch_trace(const std::filesystem::path& path) {
  std::string data = read_file(path);
  if (data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b)
    data = gunzip(data, path.string());
  return parse_torch_trace(data, path.string());
}

}  // namespace vxsynth::core
