#pragma once
// Internal: typed reads of design-point JSON fields and the string ids of the axis value enums,
// with errors that name the field (docs/codegen.md "Design point JSON").

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "vxsynth/common/error.h"

namespace vxsynth::codegen::detail {

/// Field `key` of object `j` at path `where`; throws naming "where.key" when absent.
inline const nlohmann::json& at(const nlohmann::json& j, std::string_view key, std::string_view where) {
  if (!j.is_object() || !j.contains(key)) throw make_error("design point: missing field '{}.{}'", where, key);
  return j.at(key);
}

/// `v` (the field at path `field`) as a T; throws naming the field when it has another type.
template <typename T>
T as(const nlohmann::json& v, std::string_view field) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // nlohmann converts -1 to an unsigned type by wrapping it, and any integer to a narrower one by
    // truncation: an integer field must hold an integer in T's range.
    const bool in_range = v.is_number_unsigned()  ? v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())
                          : v.is_number_integer() ? v.get<int64_t>() >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                                                        (std::is_unsigned_v<T> || v.get<int64_t>() <= static_cast<int64_t>(std::numeric_limits<T>::max()))
                                                  : true;
    if (!in_range)
      throw make_error("design point: field '{}' is {}, outside {}..{}", field, v.dump(), std::numeric_limits<T>::min(),
                       std::numeric_limits<T>::max());
  }
  try {
    return v.get<T>();
  } catch (const nlohmann::json::exception& ex) {
    throw make_error("design point: field '{}' has the wrong type: {}", field, ex.what());
  }
}

/// Field `key` of `j` (at path `where`) as a T.
template <typename T>
T get(const nlohmann::json& j, std::string_view key, std::string_view where) {
  return as<T>(at(j, key, where), fmt::format("{}.{}", where, key));
}

/// An enum's string ids: (value, id) pairs.
template <typename E, size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;

template <typename E, size_t N>
std::string_view name_of(const Names<E, N>& t, E v) {
  for (const auto& [e, n] : t) {
    if (e == v) return n;
  }
  return "?";
}

/// The value of string field `field` (JSON `v`) among `t`'s ids; throws listing the allowed ids.
template <typename E, size_t N>
E parse(const Names<E, N>& t, const nlohmann::json& v, std::string_view field) {
  const auto s = as<std::string>(v, field);
  for (const auto& [e, n] : t) {
    if (n == s) return e;
  }
  std::string allowed;
  for (const auto& [e, n] : t) allowed += fmt::format("{}{}", allowed.empty() ? "" : ", ", n);
  throw make_error("design point: field '{}' has unknown value '{}' (allowed: {})", field, s, allowed);
}

}  // namespace vxsynth::codegen::detail
