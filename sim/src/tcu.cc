#include "tcu.h"

#include "exec.h"

namespace vxsim {

void tcu_wmma(ExecCtx& c, const Decoded& d) { c.illegal(d, "the tensor unit (WMMA) is not implemented yet"); }

}  // namespace vxsim
