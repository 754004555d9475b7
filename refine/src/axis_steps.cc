#include "axis_steps.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>

namespace vxsynth::refine {
namespace {

using codegen::Axes;

// ---------------------------------------------------------------- axis steps (one table)
//
// Each axis: the variants of a forward step, tried in order, first valid wins; reverse uses the
// inverse variants. Block size is fixed (paper §3.4), so a tile change that alters the thread count
// moves the register micro-tile with it.

using Variant = std::function<bool(Axes&)>;  // false = cannot move this way

bool scale(uint32_t& v, bool up, uint32_t lo = 1) {
  if (up) {
    v *= 2;
    return true;
  }
  if (v / 2 < lo) return false;
  v /= 2;
  return true;
}

template <typename E>
bool cycle(E& v, std::initializer_list<E> order, bool up) {
  auto it = std::find(order.begin(), order.end(), v);
  if (it == order.end()) return false;
  if (up) {
    if (it + 1 == order.end()) return false;
    v = *(it + 1);
  } else {
    if (it == order.begin()) return false;
    v = *(it - 1);
  }
  return true;
}

}  // namespace

const std::vector<AxisStepRow>& step_table() {
  static const std::vector<AxisStepRow> rows = {
      {"tile",
       {[](Axes& a, bool f) { return scale(a.tile.k, f); },  // reduction depth
        [](Axes& a, bool f) {                               // aspect, same area
          return f ? scale(a.tile.m, true) && scale(a.tile.n, false) && scale(a.reg_tile.m, true) &&
                         scale(a.reg_tile.n, false)
                   : scale(a.tile.m, false) && scale(a.tile.n, true) &&
                         scale(a.reg_tile.m, false) && scale(a.reg_tile.n, true);
        }}},
      {"reg_tile",
       {[](Axes& a, bool f) { return scale(a.reg_tile.m, f) && scale(a.tile.m, f); },
        [](Axes& a, bool f) { return scale(a.reg_tile.n, f) && scale(a.tile.n, f); }}},
      {"prefetch", {[](Axes& a, bool f) { return a.prefetch != f ? (a.prefetch = f, true) : false; }}},
      {"smem_stage",
       {[](Axes& a, bool f) { return a.smem_stage != f ? (a.smem_stage = f, true) : false; }}},
      {"read_once",
       {[](Axes& a, bool f) { return a.read_once != f ? (a.read_once = f, true) : false; }}},
      {"lane_map",
       {[](Axes& a, bool f) {
         const auto want = f ? codegen::LaneMap::kContiguous : codegen::LaneMap::kStrided;
         return a.lane_map != want ? (a.lane_map = want, true) : false;
       }}},
      {"tensor_core",
       {[](Axes& a, bool f) {
         using S = codegen::FragShape;
         return a.tensor_core.enabled &&
                cycle(a.tensor_core.shape, {S::kM16N16K8, S::kM16N16K16, S::kM32N8K16, S::kM8N32K16}, f);
       }}},
      {"split_k", {[](Axes& a, bool f) { return scale(a.split_k, f); }}},
      {"block_decomp",
       {[](Axes& a, bool f) {
         if (f) {
           a.warp_rows = a.warp_rows == 0 ? 1 : a.warp_rows * 2;
           return true;
         }
         if (a.warp_rows == 0) return false;
         a.warp_rows = a.warp_rows == 1 ? 0 : a.warp_rows / 2;
         return true;
       }}},
      {"boundary",
       {[](Axes& a, bool f) {
         using B = codegen::Boundary;
         return cycle(a.boundary, {B::kGuard, B::kClamp, B::kExact}, f);
       }}},
  };
  return rows;
}


}  // namespace vxsynth::refine
