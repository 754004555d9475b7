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
    {"sandbox run", "Run one command confined as vxsynth confines a candidate's build or run (what it can see and do)",
     &setup_sandbox_run},
#endif
#ifdef VXSYNTH_HAVE_SUITE  // suite/ in the tree
    {"suite build", "Build a benchmark suite from bundles: top operator kernels per workload, reconstructed in parallel",
     &setup_suite_build},
    {"suite job", "Build one kernel of a suite (what an executor runs; resumes or skips by itself)", &setup_suite_job},
    {"suite collect", "Index a suite's built benchmarks: suite.json, SUITE.md, validation tensors, Makefile, manifest",
     &setup_suite_collect},
    {"suite check", "Check a suite: schema, manifest hashes, benchmark files, validation tensors", &setup_suite_check},
    {"suite export", "Copy what a repository keeps of a suite (manifest files, measurements) to a new directory",
     &setup_suite_export},
    {"suite materialize", "Write every benchmark's sources, with the runtime files and generated sources an export left out",
     &setup_suite_materialize},
    {"suite run", "Build and run every benchmark of a suite on vxsim; PASSED, output check, cycles, IPC, D to a CSV",
     &setup_suite_run},
#endif
#ifdef VXSYNTH_HAVE_SWEEP  // sweep/ in the tree
    {"sweep", "Run every benchmark of a suite on vxsim at every point of a configuration grid; one CSV row each",
     &setup_sweep},
    {"sweep-job", "Run one benchmark's points of a sweep (what an executor runs; skips finished rows)",
     &setup_sweep_job},
    {"sweep-collect", "Merge a sweep's rows and skipped points into sweep.csv", &setup_sweep_collect},
#endif
#ifdef VXSYNTH_HAVE_REPORT
    {"report", "Figures, tables and an HTML page of a suite or of run directories (coverage, axis map, chains, orders)",
     &setup_report},
#endif
};

}  // namespace

std::span<const Subcommand> subcommands() { return kSubcommands; }

}  // namespace vxsynth::cli
