#pragma once
/// \file
/// Agents (paper §3.4, §3.6; docs/architecture.md "An agent is an interface"): input bundle in,
/// candidate pair + axis + rationale out. Implementations:
///  - BuiltinAgent: deterministic axis search over a DesignSpace. It picks the axis and direction
///    whose expected response shrinks the largest remaining per-metric gaps, learns the responses
///    from the revisions recorded so far (the paper's Fig. 4 map, per op family), combines two axes
///    when single axes stop helping, and stops when no applicable move in either direction is left.
///  - LineSearchAgent (agent_line_search.h): a time model and a line search along one axis.
///  - ExternalAgent: runs a command on a work directory (docs/agent-protocol.md).
/// Whatever an agent returns is validated by the sandbox; agents are never trusted.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/core/context.h"
#include "vxsynth/core/signature.h"
#include "vxsynth/refine/record.h"
#include "vxsynth/refine/sandbox.h"

namespace vxsynth::refine {

/// Version of the built-in agent's choices. Raise it by one whenever a change to the axis table (a
/// value, a step, a prior) or to BuiltinAgent's search rule alters a proposal for some record. Every
/// revision records it (`tool_versions["vxsynth-agent"]`; a record without the key was made by
/// version 1), and refine/tests/agent_replay_test.cc replays the records of the current version
/// (which change each version covers: docs/reconstruct.md "Agent versions").
inline constexpr int kBuiltinAgentVersion = 2;
/// Key of the built-in agent's version in a revision's `tool_versions`.
inline constexpr const char* kBuiltinAgentVersionKey = "vxsynth-agent";

/// Operator family used to key the learned response map (paper Fig. 4 panels).
enum class OpFamily : uint8_t { kLinear, kMatmul, kConv1d, kConv2d };
[[nodiscard]] OpFamily op_family(core::OpKind op);
[[nodiscard]] const char* op_family_name(OpFamily f);

/// What the built-in agent needs from the candidate generator: a design point (JSON, opaque to
/// the agent), its axes (opaque keys), how to move it along an axis, what a move is expected to
/// change, and how to render it.
class DesignSpace {
 public:
  virtual ~DesignSpace() = default;
  /// The seed design (paper §3.4: built from the reference program context alone, keeping the
  /// four fixed properties).
  [[nodiscard]] virtual nlohmann::json seed_design() const = 0;
  /// Axis ids the agent may move during refinement (not those fixed at seed).
  [[nodiscard]] virtual std::vector<std::string> refinable_axes() const = 0;
  /// `design` moved one step along `step`; nullopt (with `why_not` set) when the move is not
  /// applicable: at a bound, not expressible in the engine class, or invalid for the fixed
  /// properties.
  [[nodiscard]] virtual std::optional<nlohmann::json> apply(const nlohmann::json& design,
                                                            const AxisStep& step,
                                                            std::string* why_not) const = 0;
  /// Prior expected signed response (metric key → response, with the metric's distance transform,
  /// paper §4.3) of moving `axis` one step forward on this space's operator; reverse is the
  /// negation. Empty when the generator states none.
  [[nodiscard]] virtual std::map<std::string, double> prior_response(const std::string& axis) const = 0;
  /// The candidate pair's files for a design.
  [[nodiscard]] virtual SourceTree render(const nlohmann::json& design) const = 0;
};

/// The input bundle of one revision (paper §3.4: context, signature, sandbox, history).
struct AgentInput {
  int revision = 0;                                  ///< the revision being proposed (≥ 1)
  const core::ReferenceContext* context = nullptr;
  nlohmann::json context_json;                       ///< the bundle's kernel entry, for external agents
  const core::Signature* reference = nullptr;        ///< reference signature
  const RevisionEntry* retained = nullptr;           ///< the design the revision starts from
  const SourceTree* retained_sources = nullptr;
  const std::vector<RevisionEntry>* history = nullptr;  ///< every revision so far (record order)
  const SandboxRules* rules = nullptr;
  std::vector<std::string> axes;                     ///< refinable axis ids
  uint64_t seed = 0;                                 ///< reproducibility seed of the run
};

/// What an agent proposes.
struct Proposal {
  bool stop = false;                 ///< the agent judges no further change likely to help
  std::string stop_reason;
  std::vector<AxisStep> axes;        ///< one axis, or two when single axes stopped helping
  std::vector<std::string> target_metrics;
  std::string rationale;
  std::string same_kernel;
  nlohmann::json design;             ///< the new design point (builtin), null otherwise
  SourceTree sources;                ///< the full candidate pair
  std::string failure;               ///< non-empty: the agent failed (recorded as a rejection)
};

/// Agent interface.
class Agent {
 public:
  virtual ~Agent() = default;
  /// "builtin" or "cmd:…" (recorded in every entry).
  [[nodiscard]] virtual std::string name() const = 0;
  /// Proposes revision `in.revision`. Never throws for agent-side failures; reports them in
  /// Proposal::failure.
  [[nodiscard]] virtual Proposal propose(const AgentInput& in) = 0;
};

/// Expected signed per-metric response of a move (metric key → response), blending the axis's
/// forward prior `prior` (DesignSpace::prior_response; one pseudo-observation, negated for
/// reverse) with the single-axis responses observed in `history` for the same axis (reverse
/// observations count negated for the forward direction).
[[nodiscard]] std::map<std::string, double> expected_response(
    const std::map<std::string, double>& prior, const AxisStep& step, const std::vector<RevisionEntry>& history);

/// Expected D reduction of applying `response` to a design whose signed gaps to the reference
/// are `gaps` (metric key → signed response of candidate vs reference): mean over the gap
/// metrics of d − min(1, |gap + response|).
[[nodiscard]] double expected_gain(const std::map<std::string, double>& gaps,
                                   const std::map<std::string, double>& response);

/// Signed gaps of a signature to the reference, over metrics both measured.
[[nodiscard]] std::map<std::string, double> signed_gaps(
    const std::map<std::string, std::optional<double>>& signature, const core::Signature& reference);

/// Built-in deterministic axis-search agent.
class BuiltinAgent : public Agent {
 public:
  /// `max_pairs`: how many two-axis combinations to try from one retained design once every
  /// single move from it has been tried without a retain (paper §3.6, "combine two permitted
  /// axes"); 4 keeps a stalled chain short.
  explicit BuiltinAgent(const DesignSpace& space, int max_pairs = 4)
      : space_(space), max_pairs_(max_pairs) {}
  [[nodiscard]] std::string name() const override { return "builtin"; }
  [[nodiscard]] Proposal propose(const AgentInput& in) override;

 private:
  const DesignSpace& space_;
  int max_pairs_;
};

/// External agent: `command` runs through /bin/sh in a fresh work directory (its path is the
/// command's last argument and $VXSYNTH_AGENT_DIR) holding input.json and sources/; it edits
/// sources/ and writes output.json. Protocol: docs/agent-protocol.md.
class ExternalAgent : public Agent {
 public:
  /// `isolation` confines the command (isolation.h); `hidden` are directories it must not see
  /// (the run's output directory: revisions, inputs and reference outputs), apart from its own
  /// work directory, which is bound writable inside them.
  ExternalAgent(std::string command, std::filesystem::path work_root, double timeout_s,
                std::shared_ptr<const Isolation> isolation = make_no_isolation(),
                std::vector<std::filesystem::path> hidden = {})
      : command_(std::move(command)), work_root_(std::move(work_root)), timeout_s_(timeout_s),
        isolation_(std::move(isolation)), hidden_(std::move(hidden)) {}
  [[nodiscard]] std::string name() const override { return "cmd:" + command_; }
  [[nodiscard]] Proposal propose(const AgentInput& in) override;

 private:
  std::string command_;
  std::filesystem::path work_root_;
  double timeout_s_;
  std::shared_ptr<const Isolation> isolation_;
  std::vector<std::filesystem::path> hidden_;
};

/// The protocol version written into input.json.
inline constexpr const char* kAgentProtocol = "vxsynth-agent/1";

/// Writes a source tree under `dir` (creating folders). Throws vxsynth::Error on I/O failure.
void write_tree(const std::filesystem::path& dir, const SourceTree& tree);
/// Reads every regular file under `dir` into a tree (paths relative, '/'-separated).
[[nodiscard]] SourceTree read_tree(const std::filesystem::path& dir);
/// SHA-256 (lowercase hex) of every file of a tree.
[[nodiscard]] std::map<std::string, std::string> tree_hashes(const SourceTree& tree);
/// SHA-256 of a string, lowercase hex.
[[nodiscard]] std::string sha256_hex(std::string_view data);

}  // namespace vxsynth::refine
