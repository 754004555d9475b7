// The sweep grid (docs/sweep.md "Grid"): parameters from vxsim's timing parameter table, values
// checked by the table's own parser, points by the timing model's config validation.
#include "vxsynth/sweep/grid.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "vxsim/config.h"
#include "vxsim/timing/config.h"
#include "vxsim/timing/simulator.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::sweep {
namespace {

namespace timing = vxsim::timing;
using nlohmann::json;

const timing::ParamDef* find_param(std::string_view key) {
  for (const timing::ParamDef& p : timing::timing_params())
    if (p.key == key) return &p;
  return nullptr;
}

// True when the timing model replaces the parameter with the functional device's value
// (timing_config_for): two different settings come out equal.
bool from_device(const timing::ParamDef& p) {
  const bool flag = p.type == timing::ParamType::kBool;
  timing::TimingConfig a, b;
  timing::set_param(a, p.key, flag ? "false" : "2", "probe");
  timing::set_param(b, p.key, flag ? "true" : "8", "probe");
  const vxsim::Config device;
  return timing::get_param(timing::timing_config_for(device, a), p.key) ==
         timing::get_param(timing::timing_config_for(device, b), p.key);
}

// The runtime variable of a device parameter: vortex.h reads VXSIM_<KEY>, the key upper-cased with
// '_' for '.', for the device shape and its local memory (docs/vxsim.md "Environment variables").
std::string device_env(std::string_view key) {
  std::string env = "VXSIM_";
  for (char c : key) env += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

GridParam make_param(std::string_view key, const std::vector<std::string>& values, std::string_view where) {
  const timing::ParamDef* def = find_param(key);
  if (def == nullptr)
    throw make_error("{}: unknown vxsim parameter '{}'; the parameters are: {}", where, key, parameter_names());
  if (values.empty()) throw make_error("{}: parameter '{}' has no values", where, key);
  GridParam p;
  p.key = std::string(key);
  for (const std::string& v : values) {
    timing::TimingConfig cfg;
    timing::set_param(cfg, key, v, where);
    std::string canon = timing::get_param(cfg, key);
    if (std::find(p.values.begin(), p.values.end(), canon) != p.values.end())
      throw make_error("{}: parameter '{}' lists the value {} twice", where, key, canon);
    p.values.push_back(std::move(canon));
  }
  if (from_device(*def)) p.env = device_env(key);
  return p;
}

// Every point must be a configuration the timing model accepts (TimingConfig::validate).
void validate_points(const Grid& g, std::string_view where) {
  if (g.params.empty() || g.points.empty())
    throw make_error("{}: the grid is empty: give at least one parameter with values, e.g. --grid \"cores=1,2\"", where);
  for (const Point& pt : g.points) {
    timing::TimingConfig cfg;
    for (const auto& [k, v] : pt.settings) timing::set_param(cfg, k, v, where);
    try {
      cfg.validate();
    } catch (const Error& e) {
      throw make_error("{}: point {} ({}): {}", where, pt.index, pt.label(), e.what());
    }
  }
}

void add_product(Grid& g) {
  std::vector<size_t> at(g.params.size(), 0);
  for (int index = 0;; ++index) {
    Point pt;
    pt.index = index;
    for (size_t i = 0; i < g.params.size(); ++i) pt.settings.emplace_back(g.params[i].key, g.params[i].values[at[i]]);
    g.points.push_back(std::move(pt));
    size_t i = g.params.size();
    while (i > 0 && ++at[i - 1] == g.params[i - 1].values.size()) at[--i] = 0;
    if (i == 0) return;
  }
}

void check_unique(const std::vector<GridParam>& params, std::string_view key, std::string_view where) {
  for (const GridParam& p : params)
    if (p.key == key) throw make_error("{}: parameter '{}' is given twice", where, key);
}

std::string toml_text(const toml::node& n, std::string_view where, std::string_view key) {
  if (n.is_boolean()) return *n.value<bool>() ? "true" : "false";
  if (n.is_integer()) return std::to_string(*n.value<int64_t>());
  if (n.is_floating_point()) return fmt::format("{}", *n.value<double>());
  if (n.is_string()) return *n.value<std::string>();
  throw make_error("{}: parameter '{}': a value must be a number, boolean or string", where, key);
}

std::string where_of(const std::filesystem::path& file, const toml::node& n) {
  return fmt::format("{}:{}", file.string(), n.source().begin.line);
}

// Leaves of a table as dotted keys, in file order.
void flatten(const toml::table& t, const std::string& prefix, std::vector<std::pair<std::string, const toml::node*>>& out) {
  for (const auto& [k, node] : t) {
    const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const toml::table* sub = node.as_table()) flatten(*sub, key, out);
    else out.emplace_back(key, &node);
  }
}

// toml++ iterates a table in key order; the grid keeps the file's order.
void in_file_order(std::vector<std::pair<std::string, const toml::node*>>& leaves) {
  std::stable_sort(leaves.begin(), leaves.end(), [](const auto& a, const auto& b) {
    return a.second->source().begin.line < b.second->source().begin.line;
  });
}

Grid grid_table(const toml::table& t, const std::filesystem::path& file) {
  Grid g;
  std::vector<std::pair<std::string, const toml::node*>> leaves;
  flatten(t, "", leaves);
  in_file_order(leaves);
  for (const auto& [key, node] : leaves) {
    const std::string where = where_of(file, *node);
    std::vector<std::string> values;
    if (const toml::array* a = node->as_array()) {
      for (const toml::node& v : *a) values.push_back(toml_text(v, where, key));
    } else {
      values.push_back(toml_text(*node, where, key));
    }
    check_unique(g.params, key, where);
    g.params.push_back(make_param(key, values, where));
  }
  add_product(g);
  return g;
}

Grid point_list(const toml::array& points, const std::filesystem::path& file) {
  Grid g;
  std::vector<std::string> keys;
  for (const toml::node& n : points) {
    const toml::table* t = n.as_table();
    const std::string where = where_of(file, n);
    if (t == nullptr) throw make_error("{}: each [[point]] must be a table", where);
    std::vector<std::pair<std::string, const toml::node*>> leaves;
    flatten(*t, "", leaves);
    in_file_order(leaves);
    Point pt;
    pt.index = static_cast<int>(g.points.size());
    std::vector<std::string> these;
    for (const auto& [key, node] : leaves) {
      const std::string at = where_of(file, *node);
      pt.settings.emplace_back(key, toml_text(*node, at, key));
      these.push_back(key);
    }
    if (g.points.empty()) keys = these;
    std::vector<std::string> a = keys, b = these;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b)
      throw make_error("{}: point {} sets {} but point 0 sets {}: every point must set the same parameters", where,
                       pt.index, fmt::join(these, ", "), fmt::join(keys, ", "));
    g.points.push_back(std::move(pt));
  }
  for (const std::string& key : keys) {
    std::vector<std::string> values;
    for (Point& pt : g.points) {
      std::string& v = std::find_if(pt.settings.begin(), pt.settings.end(), [&](const auto& s) { return s.first == key; })->second;
      timing::TimingConfig cfg;
      timing::set_param(cfg, key, v, fmt::format("{}: point {}", file.string(), pt.index));
      v = timing::get_param(cfg, key);
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
    g.params.push_back(make_param(key, values, file.string()));
  }
  for (Point& pt : g.points) {  // settings in the parameters' order
    std::vector<std::pair<std::string, std::string>> s;
    for (const std::string& key : keys) s.emplace_back(key, pt.value(key));
    pt.settings = std::move(s);
  }
  return g;
}

}  // namespace

std::string Point::label() const {
  std::string s;
  for (const auto& [k, v] : settings) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::string Point::value(std::string_view key) const {
  for (const auto& [k, v] : settings)
    if (k == key) return v;
  return {};
}

std::string parameter_names() {
  std::string s;
  for (const timing::ParamDef& p : timing::timing_params()) s += (s.empty() ? "" : ", ") + std::string(p.key);
  return s;
}

Grid parse_grid(std::string_view spec) {
  Grid g;
  std::istringstream items{std::string(spec)};
  for (std::string item; items >> item;) {
    const std::string where = fmt::format("--grid '{}'", item);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw make_error("{}: expected key=value[,value…], e.g. cores=1,2,4", where);
    const std::string key = item.substr(0, eq);
    std::vector<std::string> values;
    std::istringstream vs(item.substr(eq + 1));
    for (std::string v; std::getline(vs, v, ',');) {
      if (v.empty()) throw make_error("{}: an empty value", where);
      values.push_back(v);
    }
    check_unique(g.params, key, where);
    g.params.push_back(make_param(key, values, where));
  }
  if (!g.params.empty()) add_product(g);
  validate_points(g, "--grid");
  return g;
}

Grid load_grid_file(const std::filesystem::path& file) {
  toml::table doc;
  try {
    doc = toml::parse(read_file(file), file.string());
  } catch (const toml::parse_error& e) {
    throw make_error("{}:{}:{}: TOML syntax error: {}", file.string(), e.source().begin.line,
                     e.source().begin.column, e.description());
  }
  for (const auto& [k, node] : doc)
    if (k.str() != "grid" && k.str() != "point")
      throw make_error("{}: unknown key '{}': a grid file holds a [grid] table or [[point]] tables",
                       where_of(file, node), k.str());
  const toml::table* grid = doc["grid"].as_table();
  const toml::array* points = doc["point"].as_array();
  if (doc.contains("grid") && grid == nullptr) throw make_error("{}: 'grid' must be a table", file.string());
  if (doc.contains("point") && points == nullptr) throw make_error("{}: 'point' must be an array of tables ([[point]])", file.string());
  if (grid != nullptr && points != nullptr)
    throw make_error("{}: give either a [grid] table (cartesian product) or [[point]] tables, not both", file.string());
  Grid g = grid != nullptr ? grid_table(*grid, file) : points != nullptr ? point_list(*points, file) : Grid{};
  validate_points(g, file.string());
  return g;
}

json to_json(const Grid& g) {
  json params = json::array(), points = json::array();
  for (const GridParam& p : g.params) params.push_back({{"key", p.key}, {"values", p.values}, {"env", p.env}});
  for (const Point& pt : g.points) {
    json s = json::object();
    for (const auto& [k, v] : pt.settings) s[k] = v;
    points.push_back({{"index", pt.index}, {"label", pt.label()}, {"settings", s}});
  }
  return {{"params", params}, {"points", points}};
}

Grid grid_from_json(const json& j) {
  Grid g;
  for (const json& p : j.at("params"))
    g.params.push_back({p.at("key").get<std::string>(), p.at("values").get<std::vector<std::string>>(),
                        p.at("env").get<std::string>()});
  for (const json& pt : j.at("points")) {
    Point p;
    p.index = pt.at("index").get<int>();
    for (const GridParam& gp : g.params) p.settings.emplace_back(gp.key, pt.at("settings").at(gp.key).get<std::string>());
    g.points.push_back(std::move(p));
  }
  return g;
}

}  // namespace vxsynth::sweep
