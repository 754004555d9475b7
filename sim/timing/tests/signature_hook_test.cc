// The simulator's signature hook without an adapter: this test program links the timing model
// only (no core/), so nothing is installed and asking for a signature is a clear error.
#include "vxsim/timing/signature_hook.h"

#include <gtest/gtest.h>

#include <string>

#include "vxsynth/common/error.h"

namespace vxsim::timing {
namespace {

TEST(SignatureHook, NothingInstalledWithoutTheHookObject) {
  EXPECT_EQ(signature_adapter(), nullptr);
  try {
    (void)require_signature_adapter("VXSIM_SIGNATURE");
    FAIL() << "no adapter is linked into this test, require_signature_adapter must throw";
  } catch (const vxsynth::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("VXSIM_SIGNATURE asks for a Vortex signature"), std::string::npos) << what;
    EXPECT_NE(what.find("vxsynth_vortex_signature_hook"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace vxsim::timing
