/* The matmul family of named ops. Transposed operands and the broadcast
 * weight of a batched projection are expressed through the ops'
 * indexing_maps, as frameworks use transposed GEMMs rather than copies; the
 * plain cases print without maps, in their canonical form. */
#include "Emitter.h"

#include <stdio.h>

typedef struct ContractionShape {
  const char *opName;
  int lhsRank, rhsRank, resultRank;
  const char *loops; /* "(d0, d1, d2)" */
} ContractionShape;

static const ContractionShape kShapes[] = {
    [ZOO_MATMUL] = {"linalg.matmul", 2, 2, 2, "(d0, d1, d2)"},
    [ZOO_BATCH_MATMUL] = {"linalg.batch_matmul", 3, 3, 3, "(d0, d1, d2, d3)"},
    [ZOO_BATCH_MATMUL_SHARED_RHS] = {"linalg.batch_matmul", 3, 2, 3, "(d0, d1, d2, d3)"},
    [ZOO_BATCH_REDUCE_MATMUL] = {"linalg.batch_reduce_matmul", 3, 3, 2, "(d0, d1, d2, d3)"},
};

/* Operand maps: for 2-D loops (m, n, k) = (d0, d1, d2); for batched loops
 * (b, m, n, k) = (d0, d1, d2, d3). */
static const char *lhsMap(ZooContractionKind kind, bool transposed) {
  if (kind == ZOO_MATMUL)
    return transposed ? "d2, d0" : "d0, d2";
  return transposed ? "d0, d3, d1" : "d0, d1, d3";
}

static const char *rhsMap(ZooContractionKind kind, bool transposed) {
  switch (kind) {
  case ZOO_MATMUL: return transposed ? "d1, d2" : "d2, d1";
  case ZOO_BATCH_MATMUL_SHARED_RHS: return transposed ? "d2, d3" : "d3, d2";
  default: return transposed ? "d0, d2, d3" : "d0, d3, d2";
  }
}

static const char *resultMap(ZooContractionKind kind) {
  switch (kind) {
  case ZOO_MATMUL: return "d0, d1";
  case ZOO_BATCH_REDUCE_MATMUL: return "d1, d2";
  default: return "d0, d1, d2";
  }
}

static void checkSame(ZooEmitter *e, ZooSize a, ZooSize b, const char *what) {
  if (!zooSizeEqual(a, b))
    zooFail(e, "internal: %s: mismatched extents (%lld vs %lld)", what, a.factor, b.factor);
}

ZooValue zooEmitContraction(ZooEmitter *e, const char *hint, ZooContractionKind kind, ZooValue a,
                            bool transposeA, ZooValue b, bool transposeB) {
  if (kind == ZOO_BATCH_MATMUL_SHARED_RHS && transposeB) {
    /* MLIR 22's batch_matmul verifier rejects a broadcast rhs that is also
     * transposed ("Invalid broadcast requested"): copy the (weight-sized) rhs. */
    static const int swap[2] = {1, 0};
    b = zooEmitTranspose(e, "tr", b, swap);
    transposeB = false;
  }
  const ContractionShape *shape = &kShapes[kind];
  if (a.rank != shape->lhsRank || b.rank != shape->rhsRank) {
    zooFail(e, "internal: %s with operands of rank %d and %d", shape->opName, a.rank, b.rank);
    return a;
  }
  int aLast = a.rank - 1, bLast = b.rank - 1;
  ZooSize m = transposeA ? a.dims[aLast] : a.dims[aLast - 1];
  ZooSize k = transposeA ? a.dims[aLast - 1] : a.dims[aLast];
  ZooSize kB = transposeB ? b.dims[bLast] : b.dims[bLast - 1];
  ZooSize n = transposeB ? b.dims[bLast - 1] : b.dims[bLast];
  checkSame(e, k, kB, "contraction dimension");
  if (kind == ZOO_BATCH_MATMUL || kind == ZOO_BATCH_REDUCE_MATMUL)
    checkSame(e, a.dims[0], b.dims[0], "batch dimension");
  ZooSize dims[3];
  int rank = 0;
  if (shape->resultRank == 3)
    dims[rank++] = a.dims[0];
  dims[rank++] = m;
  dims[rank++] = n;
  ZooValue init = zooEmitZeros(e, a.type, rank, dims);
  ZooValue result = zooNewValueLike(e, hint, a.type, init);

  bool needsMaps = transposeA || transposeB || kind == ZOO_BATCH_MATMUL_SHARED_RHS;
  const char *maps = "";
  if (needsMaps)
    maps = zooFormat(e,
                     " indexing_maps = [affine_map<%s -> (%s)>, affine_map<%s -> (%s)>, "
                     "affine_map<%s -> (%s)>]",
                     shape->loops, lhsMap(kind, transposeA), shape->loops, rhsMap(kind, transposeB),
                     shape->loops, resultMap(kind));
  zooLine(e, "%s = %s%s ins(%s, %s : %s, %s) outs(%s : %s) -> %s", zooName(e, result),
          shape->opName, maps, zooName(e, a), zooName(e, b), zooType(e, a), zooType(e, b),
          zooName(e, init), zooType(e, init), zooType(e, result));
  return result;
}
