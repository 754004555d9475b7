#include "subcommands.h"

#include <array>

namespace vxsynth::cli {
namespace {

constexpr Subcommand kSubcommands[] = {
    {"profile import", "Import a torch trace + ncu CSV into a reference bundle (hot kernels, context, signature)",
     &setup_profile_import},
    {"hot", "List a bundle's hot kernels: rank, op, shape, engine, GPU-time share, cumulative share", &setup_hot},
    {"distance", "Signature distance D between A (candidate) and B (reference), per metric", &setup_distance},
    {"metrics", "Print the metric table (ncu sources per architecture, Vortex sources, transforms)",
     &setup_metrics},
#ifdef VXSYNTH_HAVE_RECONSTRUCT  // refine/ with codegen+check in the tree
    {"reconstruct", "Reconstruct a reference kernel: seed, revisions (retain iff D drops by > 0.005), locked benchmark",
     &setup_reconstruct},
#endif
};

}  // namespace

std::span<const Subcommand> subcommands() { return kSubcommands; }

}  // namespace vxsynth::cli
