#include "Models.h"
#define P(cfg) bool cfg(ZooOptions *o, MemoptStringBuffer *e) { (void)o; (void)e; return true; }
#define B(b) void b(ZooEmitter *e, const ZooOptions *o, ZooModelOutputs *out) { (void)o; (void)out; zooFail(e, "not yet"); }
P(zooConfigureEvoformer) B(zooBuildEvoformer) P(zooConfigureUNet) B(zooBuildUNet) P(zooConfigureCnn)
B(zooBuildMobileNetV1) B(zooBuildMobileNetV2) B(zooBuildEfficientNetB0) B(zooBuildResNet50)
