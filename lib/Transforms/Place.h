/* What the PHAZE passes (place-costs, place-search) share: the accelerator
 * options and the model a function describes (internal to lib/Transforms). */
#ifndef MEMOPT_TRANSFORMS_PLACE_H
#define MEMOPT_TRANSFORMS_PLACE_H

#include "Analysis/Placement.h"
#include "Transforms/Passes.h"

/// The option entries describing an accelerator (PHAZE's largest configuration as defaults).
/// A macro because C has no other way to share entries between two static option tables.
#define MEMOPT_PLACE_ACCELERATOR_OPTIONS                                                          \
  {"tensor-cores", MemoptOptionInteger, "8", "Systolic arrays per accelerator", NULL, 1, 65536},  \
      {"width", MemoptOptionInteger, "128", "Systolic array width (columns)", NULL, 1, 65536},    \
      {"depth", MemoptOptionInteger, "128", "Systolic array depth (rows)", NULL, 1, 65536},       \
      {"vector-cores", MemoptOptionInteger, "2", "Vector cores per accelerator", NULL, 1, 65536}, \
      {"vector-width", MemoptOptionInteger, "128", "Lanes per vector core", NULL, 1, 65536},      \
      {"buffer", MemoptOptionBytes, "128MiB", "On-chip global buffer", NULL, 1, 1e15},            \
      {"frequency", MemoptOptionFloat, "1.05e9", "Clock in Hz", NULL, 1, 1e12},                   \
      {"memory-bandwidth", MemoptOptionFloat, "2e12", "Off-chip (HBM) bytes per second", NULL,    \
       1, 1e15},                                                                                  \
      {"bytes-per-element", MemoptOptionInteger, "2", "Bytes of one element on the accelerator", \
       NULL, 1, 16},                                                                              \
  {                                                                                               \
    "data-arguments", MemoptOptionInteger, "1",                                                   \
        "Leading function arguments that are data; the others are parameters", NULL, 0, 1e9       \
  }

/// Reads the accelerator options of a pass declared with MEMOPT_PLACE_ACCELERATOR_OPTIONS.
MemoptAcceleratorConfig memoptPlaceAccelerator(const MemoptPassOptions *options);

#endif /* MEMOPT_TRANSFORMS_PLACE_H */
