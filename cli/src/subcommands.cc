#include "subcommands.h"

#include <array>

namespace vxsynth::cli {
namespace {

constexpr std::array<Subcommand, 4> kSubcommands{{
    {"profile import", "Import a torch trace + ncu CSV into a reference bundle (hot kernels, context, signature)",
     &setup_profile_import},
    {"hot", "List a bundle's hot kernels: rank, op, shape, engine, GPU-time share, cumulative share", &setup_hot},
    {"distance", "Signature distance D between A (candidate) and B (reference), per metric", &setup_distance},
    {"metrics", "Print the metric table (ncu sources per architecture, Vortex sources, transforms)",
     &setup_metrics},
}};

}  // namespace

std::span<const Subcommand> subcommands() { return kSubcommands; }

}  // namespace vxsynth::cli
