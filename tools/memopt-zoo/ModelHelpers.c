/* What the model builders share beyond layers: checking that one size
 * divides another, and the regression loss a training step ends with. Kept
 * apart from the registry (ModelTable.c), which names the builders, so that
 * the builders do not call back into it. */
#include "Models.h"

bool zooCheckDivides(long long divisor, const char *divisorName, long long value,
                     const char *valueName, MemoptStringBuffer *error) {
  if (value % divisor == 0)
    return true;
  memoptStringBufferAppendFormat(error, "%s=%lld does not divide %s=%lld", divisorName, divisor,
                                 valueName, value);
  return false;
}

ZooValue zooRegressionLoss(ZooEmitter *e, const ZooModelOutputs *outputs) {
  ZooValue loss = zooNoValue();
  for (int i = 0; i < outputs->count; ++i) {
    ZooValue y = outputs->values[i];
    const char *name = outputs->count == 1 ? "target" : zooFormat(e, "target%d", i);
    ZooValue target = zooInput(e, name, y.type, y.rank, y.dims, zooFillWave(1.0, 0.0));
    ZooValue term = zooMeanSquaredError(e, y, target);
    loss = zooHasValue(loss) ? zooAdd(e, loss, term) : term;
  }
  return loss;
}
