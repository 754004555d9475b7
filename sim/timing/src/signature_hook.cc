#include "vxsim/timing/signature_hook.h"

#include "vxsynth/common/error.h"

namespace vxsim::timing {
namespace {

/// Function-local, so an adapter installed from another translation unit's static initialiser
/// never meets an uninitialised slot.
const SignatureAdapter*& slot() {
  static const SignatureAdapter* adapter = nullptr;
  return adapter;
}

}  // namespace

void set_signature_adapter(const SignatureAdapter* adapter) { slot() = adapter; }

const SignatureAdapter* signature_adapter() { return slot(); }

const SignatureAdapter& require_signature_adapter(const char* what) {
  if (slot() == nullptr)
    throw vxsynth::make_error("{} asks for a Vortex signature, but this program was linked without the signature "
                              "adapter (link the object library vxsynth_vortex_signature_hook; sdk.mk's "
                              "VX_RUNTIME_LIB includes it)", what);
  return *slot();
}

}  // namespace vxsim::timing
