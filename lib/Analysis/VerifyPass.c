/* memopt-verify: checks the invariants of memopt ops that IRDL cannot state.
 * memopt-opt runs these checks after parsing and after every memopt pass;
 * the pass lets a pipeline check IR produced by upstream passes as well. */
#include "IR/IR.h"
#include "Analysis/Analysis.h"

static MlirLogicalResult runVerify(MlirOperation op, const MemoptPassOptions *options) {
  return memoptVerifyOps(op);
}

const MemoptPassInfo memoptVerifyPass = {
    .argument = "memopt-verify",
    .summary = "Check the invariants of memopt ops that their IRDL definitions cannot express",
    .anchor = "",
    .run = runVerify,
};
