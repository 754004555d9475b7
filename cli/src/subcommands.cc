#include "subcommands.h"

#include <array>

namespace vxsynth::cli {
namespace {

constexpr Subcommand kSubcommands[] = {
    {"profile import", "Import a torch trace + ncu CSV into a reference bundle (hot kernels, context, signature)",
     &setup_profile_import},
    {"hot", "List the hot kernels of a bundle or a torch trace: rank, op, shape, engine, GPU-time share, cumulative share", &setup_hot},
    {"distance", "Signature distance D between A (candidate) and B (reference), per metric", &setup_distance},
    {"metrics", "Print the metric table (ncu sources per architecture, Vortex sources, transforms)",
     &setup_metrics},
    {"kernel-name", "What the kernel-name rules say about kernel names (base name, family, engine, role, tile), or the rules",
     &setup_kernel_name},
    {"signature", "Write a bundle kernel's signature (BUNDLE.json#k1) as a standalone signature file",
     &setup_signature},
#ifdef VXSYNTH_HAVE_RECONSTRUCT  // refine/ with codegen+check in the tree
    {"reconstruct", "Reconstruct a reference kernel: seed, revisions (retain iff D drops by > 0.005), locked benchmark",
     &setup_reconstruct},
#endif
};

}  // namespace

std::span<const Subcommand> subcommands() { return kSubcommands; }

}  // namespace vxsynth::cli
