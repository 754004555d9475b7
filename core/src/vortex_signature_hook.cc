// Installs core's Vortex signature adapter in the simulator's hook (vxsim/timing/signature_hook.h)
// during static initialisation. Built as an object library (`vxsynth_vortex_signature_hook`) so
// that linking it always brings this object in: a host program that runs on the vortex.h runtime
// unchanged (candidates built through sdk.mk, the SDK's regression programs) then writes
// $VXSIM_SIGNATURE, and the vxsim command prints SIGNATURE lines, without calling anything.
#include "vxsynth/core/vortex_signature.h"

namespace {

struct InstallVortexSignatureAdapter {
  InstallVortexSignatureAdapter() {
    static const vxsynth::core::VortexSignatureAdapter adapter;
    vxsim::timing::set_signature_adapter(&adapter);
  }
};

const InstallVortexSignatureAdapter kInstall;

}  // namespace
